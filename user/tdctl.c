// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl - control the topdown module and read what it collects.
 *
 * Command grammar in the style of bpftool: global options first, then a
 * command (unique prefixes accepted), then its own options.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tdctl.h"

bool json_output;
bool csv_output;
json_writer_t *json_wtr;
const char *bin_name = "tdctl";

static bool pretty_output;

void p_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (json_output) {
		char buf[1024];

		vsnprintf(buf, sizeof(buf), fmt, ap);
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "error", buf);
		jsonw_end_object(json_wtr);
	} else {
		fprintf(stderr, "%s: Error: ", bin_name);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

void p_info(const char *fmt, ...)
{
	va_list ap;

	if (json_output)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", bin_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void p_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: Warning: ", bin_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int parse_u64(const char *opt, const char *s, unsigned long long max,
	      unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	p_err("invalid value '%s' for %s (expected an integer 0..%llu)",
	      s ? s : "", opt, max);
	return -1;
}

int cmd_select(const struct cmd *cmds, int argc, char **argv,
	       const char *what)
{
	const struct cmd *match = NULL;
	int nmatch = 0;
	size_t len;

	if (argc < 1) {
		p_err("missing %s; try '%s help'", what, bin_name);
		return -1;
	}
	len = strlen(argv[0]);
	for (const struct cmd *c = cmds; c->name; c++) {
		if (!strcmp(c->name, argv[0])) {
			match = c;
			nmatch = 1;
			break;
		}
		if (len && !strncmp(c->name, argv[0], len)) {
			match = c;
			nmatch++;
		}
	}
	if (nmatch == 1)
		return match->func(argc, argv);
	if (nmatch == 0) {
		p_err("unknown %s '%s'; try '%s help'", what, argv[0], bin_name);
		return -1;
	}
	{
		char list[256] = "";

		for (const struct cmd *c = cmds; c->name; c++) {
			if (strncmp(c->name, argv[0], len))
				continue;
			if (*list)
				strncat(list, ", ", sizeof(list) - strlen(list) - 1);
			strncat(list, c->name, sizeof(list) - strlen(list) - 1);
		}
		p_err("ambiguous %s '%s': could be %s", what, argv[0], list);
	}
	return -1;
}

static int do_help(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "load", do_load,
	  "load [--module PATH] [--events SET] [--ring-size BYTES] [--overwrite]" },
	{ "unload", do_unload, "unload" },
	{ "status", do_status, "status" },
	{ "dump", do_dump,
	  "dump [--follow] [--duration S] [--cpu N] [--pid PID] [--comm NAME]" },
	{ "list", do_list, "list" },
	{ "decode", do_decode,
	  "decode --set NAME [--slots N] [--revision rXpY] EVENT=COUNT ..." },
	{ "help", do_help, "help" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [OPTIONS] COMMAND [ARGS]\n"
		"\n"
		"Per-task TopDown breakdown from the topdown kernel module.\n"
		"\n"
		"Commands:\n", bin_name);
	for (const struct cmd *c = cmds; c->name; c++)
		fprintf(f, "  %s %s\n", bin_name, c->help);
	fprintf(f,
		"\n"
		"Options:\n"
		"  -j, --json     JSON output\n"
		"  -p, --pretty   indented JSON output (implies --json)\n"
		"      --csv      CSV output (dump)\n"
		"  -h, --help     this help; '%s COMMAND --help' for a command\n"
		"  -V, --version  print the version\n"
		"\n"
		"Commands may be abbreviated to a unique prefix.\n", bin_name);
}

static int do_help(int argc, char **argv)
{
	if (argc > 1) {
		char *sub[] = { argv[1], "--help", NULL };

		return cmd_select(cmds, 2, sub, "command");
	}
	usage(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, ret;

	/* Stop at the first non-option: the rest belongs to the command. */
	while ((opt = getopt_long(argc, argv, "+jphV", opts, NULL)) >= 0) {
		switch (opt) {
		case 'j':
			json_output = true;
			break;
		case 'p':
			json_output = true;
			pretty_output = true;
			break;
		case 'c':
			csv_output = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("%s %s (ABI %d)\n", bin_name, TDCTL_VERSION,
			       TOPDOWN_ABI_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (json_output && csv_output) {
		fprintf(stderr, "%s: Error: --json and --csv exclude each other\n",
			bin_name);
		return 2;
	}
	if (json_output) {
		json_wtr = jsonw_new(stdout);
		if (!json_wtr) {
			fprintf(stderr, "%s: Error: out of memory\n", bin_name);
			return 1;
		}
		jsonw_pretty(json_wtr, pretty_output);
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		usage(stderr);
		ret = -1;
	} else {
		/* Each command parses its own options from a fresh getopt. */
		optind = 0;
		ret = cmd_select(cmds, argc, argv, "command");
	}
	if (json_output)
		jsonw_destroy(&json_wtr);
	return ret ? 1 : 0;
}
