// SPDX-License-Identifier: GPL-2.0
/*
 * Versions: tdctl's own (TDCTL_VERSION, from scripts/version.sh through
 * user/Makefile), the loaded module's MODULE_VERSION from sysfs, and the
 * ABI of each (TOPDOWN_ABI_VERSION of the header tdctl was built with,
 * and STATUS abi_version of the module). For 'tdctl --version',
 * 'tdctl version' and 'tdctl status'.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "live/device.h"
#include "cli/tdctl.h"

#define TD_SYSFS_VERSION "/sys/module/topdown/version"

const char tdctl_version[] = TDCTL_VERSION;

struct td_versions {
	char module[64];	/* "" when not loaded or without a version */
	int module_abi;		/* -1 when unknown (not loaded, no access) */
};

static void read_versions(struct td_versions *v)
{
	struct topdown_status st;
	FILE *f;
	int fd;

	v->module[0] = '\0';
	v->module_abi = -1;
	f = fopen(TD_SYSFS_VERSION, "re");
	if (f) {
		if (fgets(v->module, sizeof(v->module), f))
			v->module[strcspn(v->module, "\n")] = '\0';
		else
			v->module[0] = '\0';
		fclose(f);
	}
	/* Quietly: a user without access still gets the rest. */
	fd = open(TOPDOWN_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!td_dev_status(fd, &st))
		v->module_abi = (int)st.abi_version;
	close(fd);
}

static void json_nullable_str(const char *name, const char *s)
{
	if (*s)
		jsonw_string_field(json_wtr, name, s);
	else
		jsonw_null_field(json_wtr, name);
}

static void json_nullable_int(const char *name, int n)
{
	if (n >= 0)
		jsonw_int_field(json_wtr, name, n);
	else
		jsonw_null_field(json_wtr, name);
}

/* "module X (ABI N)": what is known of the loaded module. */
static void print_module(const struct td_versions *v)
{
	if (!td_module_loaded()) {
		printf("module not loaded\n");
		return;
	}
	printf("module %s", *v->module ? v->module : "(no version)");
	if (v->module_abi >= 0)
		printf(" (ABI %d)\n", v->module_abi);
	else
		printf(" (ABI unknown: %s not readable)\n", TOPDOWN_DEVICE);
}

void td_print_version(void)
{
	struct td_versions v;

	read_versions(&v);
	printf("%s %s (ABI %d)\n", bin_name, tdctl_version, TOPDOWN_ABI_VERSION);
	print_module(&v);
}

void td_status_versions(void)
{
	struct td_versions v;

	read_versions(&v);
	if (json_output) {
		jsonw_string_field(json_wtr, "tdctl_version", tdctl_version);
		jsonw_int_field(json_wtr, "tdctl_abi_version",
				TOPDOWN_ABI_VERSION);
		json_nullable_str("module_version", v.module);
		return;
	}
	printf("version:    tdctl %s (ABI %d), module %s\n", tdctl_version,
	       TOPDOWN_ABI_VERSION, *v.module ? v.module : "(none)");
}

int do_version(int argc, char **argv)
{
	static const char *const fields[] = {
		"tdctl_version", "abi_version", "module_version",
		"module_abi_version", NULL,
	};
	struct csv_writer w;
	struct td_versions v;
	int ret;

	ret = td_no_options(argc, argv,
			    "Print tdctl's version and ABI, and those of the loaded "
			    "module.\n");
	if (ret <= 0)
		return ret;
	if (!json_output && !csv_output) {
		td_print_version();
		return 0;
	}
	read_versions(&v);
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "tdctl_version", tdctl_version);
		jsonw_int_field(json_wtr, "abi_version", TOPDOWN_ABI_VERSION);
		json_nullable_str("module_version", v.module);
		json_nullable_int("module_abi_version", v.module_abi);
		jsonw_end_object(json_wtr);
		return 0;
	}
	csvw_init(&w, stdout);
	csvw_header(&w, fields);
	csvw_str(&w, tdctl_version);
	csvw_uint(&w, TOPDOWN_ABI_VERSION);
	if (*v.module)
		csvw_str(&w, v.module);
	else
		csvw_empty(&w);
	if (v.module_abi >= 0)
		csvw_uint(&w, v.module_abi);
	else
		csvw_empty(&w);
	csvw_end_row(&w);
	return 0;
}
