// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl unload: stop the collection and remove the module through
 * libkmod, refused while a process still has the device open; or remove
 * the BPF backend's pins, whichever backend collects.
 */
#include <errno.h>
#include <libkmod.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "live/bpf/bpf.h"
#include "live/device.h"
#include "cli/tdctl.h"

static int remove_module(void)
{
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);
	struct kmod_module *mod = NULL;
	int err;

	if (!ctx) {
		p_err("libkmod: cannot create a context");
		return -1;
	}
	err = kmod_module_new_from_name(ctx, TD_MODULE_NAME, &mod);
	if (!err)
		err = kmod_module_remove_module(mod, 0);
	if (err == -EBUSY || err == -EAGAIN)
		p_err("module %s is in use: a process still has %s open",
		      TD_MODULE_NAME, TOPDOWN_DEVICE);
	else if (err)
		p_err("removing module %s: %s", TD_MODULE_NAME, strerror(-err));
	if (mod)
		kmod_module_unref(mod);
	kmod_unref(ctx);
	return err ? -1 : 0;
}

/* Open files of the module (its refcount), or -1 if unknown. */
static long module_refcnt(void)
{
	FILE *f = fopen("/sys/module/" TD_MODULE_NAME "/refcnt", "r");
	long n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

int do_unload(int argc, char **argv)
{
	bool bpf = td_bpf_active();
	int fd, ret;

	ret = td_no_options(argc, argv,
			    "Stop the collection and remove the module, or the BPF backend's\n"
			    "program, counters and pins, whichever is active.\n");
	if (ret <= 0)
		return ret;
	if (bpf) {
		if (td_bpf_unload())
			return -1;
		goto done;
	}
	if (!td_module_loaded()) {
		p_err("the topdown module is not loaded");
		return -1;
	}
	/* Refuse before stopping anything if someone has the device open. */
	if (module_refcnt() > 0) {
		p_err("module %s is in use: a process still has %s open",
		      TD_MODULE_NAME, TOPDOWN_DEVICE);
		return -1;
	}
	fd = td_dev_open(true);
	if (fd < 0)
		return -1;
	ret = td_dev_stop(fd);
	if (ret && ret != -EALREADY) {
		p_err("stopping the collection: %s", strerror(-ret));
		close(fd);
		return -1;
	}
	close(fd);
	if (remove_module())
		return -1;
done:
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "unloaded", true);
		jsonw_end_object(json_wtr);
	} else if (csv_output) {
		static const char *const fields[] = { "unloaded", NULL };
		struct csv_writer w;

		csvw_init(&w, stdout);
		csvw_header(&w, fields);
		csvw_bool(&w, true);
		csvw_end_row(&w);
	} else {
		printf("%s unloaded\n", bpf ? "topdown BPF backend" : "topdown module");
	}
	return 0;
}
