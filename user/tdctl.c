// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl - control the topdown module and read what it collects.
 *
 * Command grammar in the style of bpftool: global options, a command
 * (unique prefixes accepted), then its own options. The output options
 * (--json, --pretty, --csv, -o FILE) may also follow the command: main()
 * takes them out of the command's arguments, using the command's option
 * table to step over the arguments of its own options.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdctl.h"

bool json_output;
bool csv_output;
json_writer_t *json_wtr;
const char *bin_name = "tdctl";
int orig_stdout_fd = -1;

static bool pretty_output;
static const char *output_path;

void p_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (json_output && json_wtr) {
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

int parse_seconds(const char *opt, const char *s, unsigned int max_s,
		  unsigned long long *ns)
{
	unsigned long long sec = 0, frac = 0, scale = 1000000000ull;
	const char *p = s;

	if (!s || *p < '0' || *p > '9')
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		sec = sec * 10 + (*p - '0');
		if (sec > max_s)
			goto bad;
	}
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			goto bad;
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale > 1) {
				scale /= 10;
				frac += (*p - '0') * scale;
			}
		}
	}
	if (*p || (sec == max_s && frac))
		goto bad;
	*ns = sec * 1000000000ull + frac;
	return 0;
bad:
	p_err("invalid value '%s' for %s (expected seconds, e.g. 2 or 0.5, at most %u)",
	      s ? s : "", opt, max_s);
	return -1;
}

const struct cmd *cmd_find(const struct cmd *cmds, const char *name,
			   int *nmatch)
{
	const struct cmd *match = NULL;
	size_t len = strlen(name);

	*nmatch = 0;
	for (const struct cmd *c = cmds; c->name; c++) {
		if (!strcmp(c->name, name)) {
			*nmatch = 1;
			return c;
		}
		if (len && !(c->flags & TD_CMD_HIDDEN) &&
		    !strncmp(c->name, name, len)) {
			match = c;
			(*nmatch)++;
		}
	}
	return *nmatch == 1 ? match : NULL;
}

static void no_such_cmd(const struct cmd *cmds, const char *name, int nmatch,
			const char *what)
{
	char list[256] = "";
	size_t len = strlen(name);

	if (nmatch == 0) {
		p_err("unknown %s '%s'; try '%s help'", what, name, bin_name);
		return;
	}
	for (const struct cmd *c = cmds; c->name; c++) {
		if ((c->flags & TD_CMD_HIDDEN) || strncmp(c->name, name, len))
			continue;
		if (*list)
			strncat(list, ", ", sizeof(list) - strlen(list) - 1);
		strncat(list, c->name, sizeof(list) - strlen(list) - 1);
	}
	p_err("ambiguous %s '%s': could be %s", what, name, list);
}

int cmd_select(const struct cmd *cmds, int argc, char **argv,
	       const char *what)
{
	const struct cmd *c;
	int nmatch;

	if (argc < 1) {
		p_err("missing %s; try '%s help'", what, bin_name);
		return -1;
	}
	c = cmd_find(cmds, argv[0], &nmatch);
	if (!c) {
		no_such_cmd(cmds, argv[0], nmatch, what);
		return -1;
	}
	return c->func(argc, argv);
}

static void td_usage(FILE *f, const char *name, const char *description);

int td_getopt_end(int opt, int argc, char **argv, bool operands)
{
	if (opt != TD_GETOPT_END)
		return opt == TD_GETOPT_HELP ? 0 : -1;
	if (!operands && optind < argc) {
		p_err("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 1;
}

void td_getopt_build(struct td_getopt *g, const char *cmd, const char *desc)
{
	int nmatch, n = 0;
	const struct td_opt *opts = cmd_find(td_cmds, cmd, &nmatch)->opts;
	char *s = g->so;

	g->cmd = cmd;
	g->desc = desc;

	*s++ = '+';	/* stop at the first non-option: a COMMAND */
	for (const struct td_opt *o = opts; o->lng && n < TD_GETOPT_MAX; o++) {
		g->lo[n].name = o->lng;
		g->lo[n].has_arg = o->arg == TD_ARG_NONE ? no_argument :
				   required_argument;
		g->lo[n].flag = NULL;
		g->lo[n].val = o->id;
		n++;
		if (o->shrt) {
			*s++ = (char)o->shrt;
			if (o->arg != TD_ARG_NONE)
				*s++ = ':';
		}
	}
	*s = '\0';
	memset(&g->lo[n], 0, sizeof(g->lo[n]));
}

int td_getopt_next(struct td_getopt *g, int argc, char **argv)
{
	int opt = getopt_long(argc, argv, g->so, g->lo, NULL);

	switch (opt) {
	case 'h':
		td_usage(stdout, g->cmd, g->desc);
		return TD_GETOPT_HELP;
	case '?':
	case ':':
		td_usage(stderr, g->cmd, g->desc);
		return TD_GETOPT_ERROR;
	}
	return opt < 0 ? TD_GETOPT_END : opt;
}

static int do_help(int argc, char **argv);

/* ---- the grammar ------------------------------------------------------ */

const struct td_opt td_output_opts[] = {
	{ "json", 'j', 'j', TD_ARG_NONE, NULL, "JSON output" },
	{ "pretty", 0, 'P', TD_ARG_NONE, NULL,
	  "indented JSON output (implies --json)" },
	{ "csv", 0, 'C', TD_ARG_NONE, NULL, "CSV output" },
	{ "output", 'o', 'o', TD_ARG_FILE, "FILE",
	  "write the output to FILE instead of stdout" },
	TD_OPT_END,
};

/* The options of the commands whose code parses them itself. */
static const struct td_opt load_opts[] = {
	{ "module", 0, 'm', TD_ARG_FILE, "PATH", "module file to insert" },
	{ "events", 0, 'e', TD_ARG_SET, "SET", "event set by name" },
	{ "ring-size", 0, 'r', TD_ARG_NUM, "BYTES", "data bytes per CPU ring" },
	{ "watermark", 0, 'w', TD_ARG_NUM, "BYTES", "unread bytes that wake a reader" },
	{ "overwrite", 0, 'O', TD_ARG_NONE, NULL, "overwrite the oldest records" },
	TD_OPT_HELP,
	TD_OPT_END,
};

static const struct td_opt help_only_opts[] = {
	TD_OPT_HELP,
	TD_OPT_END,
};

static const struct td_opt list_opts[] = {
	{ "events", 'e', 'e', TD_ARG_SET, "SET", "show SET" },
	{ "root", 0, 'R', TD_ARG_DIR, "DIR", "read /proc and /sys under DIR" },
	TD_OPT_HELP,
	TD_OPT_END,
};

static const struct td_opt decode_opts[] = {
	{ "set", 's', 's', TD_ARG_SET, "NAME", "the event set" },
	{ "slots", 'S', 'S', TD_ARG_NUM, "N", "slot width" },
	{ "revision", 'r', 'r', TD_ARG_WORD, "rXpY", "CPU revision" },
	TD_OPT_HELP,
	TD_OPT_END,
};

const struct cmd td_cmds[] = {
	{ "load", do_load,
	  "load [--module PATH] [--events SET] [--ring-size BYTES] [--overwrite]",
	  load_opts, 0 },
	{ "unload", do_unload, "unload", help_only_opts, 0 },
	{ "status", do_status, "status", help_only_opts, 0 },
	{ "dump", do_dump,
	  "dump [-i FILE] [--follow] [--duration S] [--cpu N] [--pid PID] [--comm NAME]",
	  dump_opts, TD_CMD_CSV },
	{ "stat", do_stat,
	  "stat [-a | -p PID[,PID..] | [--] COMMAND [ARGS]] [--by KEY] [-I MS] [--duration S]",
	  stat_opts, TD_CMD_CSV | TD_CMD_ARGV },
	{ "top", do_top,
	  "top [--by KEY] [-d SECS] [-n N] [--batch] [-p PID[,PID..]] [-i FILE]",
	  top_opts, TD_CMD_CSV },
	{ "record", do_record,
	  "record [-o FILE] [-a | -p PID[,PID..] | [--] COMMAND [ARGS]] [--duration S]",
	  record_opts, TD_CMD_CSV | TD_CMD_ARGV | TD_CMD_OWN_OUTPUT },
	{ "report", do_report,
	  "report [-i FILE] [--by KEY] [--cpu N] [--pid PID] [--comm NAME]",
	  report_opts, TD_CMD_CSV },
	{ "list", do_list, "list [--events SET]", list_opts, 0 },
	{ "decode", do_decode,
	  "decode --set NAME [--slots N] [--revision rXpY] EVENT=COUNT ...",
	  decode_opts, 0 },
	{ "help", do_help, "help [COMMAND]", help_only_opts, TD_CMD_NAMEARG },
	{ "__complete", do_complete, "__complete WORD...", help_only_opts,
	  TD_CMD_HIDDEN },
	{ NULL, NULL, NULL, NULL, 0 },
};

/* ---- usage ------------------------------------------------------------ */

static void print_opts(FILE *f, const struct td_opt *opts)
{
	for (const struct td_opt *o = opts; o->lng; o++) {
		char left[64];

		snprintf(left, sizeof(left), "%c%c%c --%s%s%s",
			 o->shrt ? '-' : ' ', o->shrt ? o->shrt : ' ',
			 o->shrt ? ',' : ' ', o->lng, o->meta ? " " : "",
			 o->meta ? o->meta : "");
		fprintf(f, "  %-26s %s\n", left, o->help);
	}
}

/* --help of a table-driven command: "Usage: tdctl NAME SYNOPSIS", the
 * description, its options and the output options it takes.
 */
static void td_usage(FILE *f, const char *name, const char *description)
{
	int nmatch;
	const struct cmd *c = cmd_find(td_cmds, name, &nmatch);

	if (!c)
		return;
	fprintf(f, "Usage: %s %s\n\n%s\nOptions:\n", bin_name, c->help,
		description);
	print_opts(f, c->opts);
	fprintf(f, "\nOutput options (also before the command):\n");
	for (const struct td_opt *o = td_output_opts; o->lng; o++) {
		if (o->id == 'C' && !(c->flags & TD_CMD_CSV))
			continue;
		if (o->id == 'o' && (c->flags & TD_CMD_OWN_OUTPUT))
			continue;
		print_opts(f, (const struct td_opt[]){ *o, TD_OPT_END });
	}
	fprintf(f, "\nSee %s-%s(8).\n", bin_name, c->name);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [OPTIONS] COMMAND [ARGS]\n"
		"\n"
		"Per-task TopDown breakdown from the topdown kernel module.\n"
		"\n"
		"Commands:\n", bin_name);
	for (const struct cmd *c = td_cmds; c->name; c++)
		if (!(c->flags & TD_CMD_HIDDEN))
			fprintf(f, "  %s %s\n", bin_name, c->help);
	fprintf(f,
		"\n"
		"Options:\n"
		"  -j, --json         JSON output\n"
		"  -p, --pretty       indented JSON output (implies --json)\n"
		"      --csv          CSV output (dump, stat, top, record, report)\n"
		"  -o, --output FILE  write the output to FILE instead of stdout\n"
		"  -h, --help         this help; '%s help COMMAND' for a command\n"
		"  -V, --version      print the version\n"
		"\n"
		"The output options may also follow the command. Commands may be\n"
		"abbreviated to a unique prefix. See %s(8).\n", bin_name, bin_name);
}

static const char help_desc[] =
	"Without COMMAND, the commands and the global options; with one (a\n"
	"unique prefix is enough), its usage, as 'tdctl COMMAND --help'.\n";

static int do_help(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		td_usage(stdout, "help", help_desc);
		return 0;
	}
	if (argc > 2) {
		p_err("help takes one command name");
		return -1;
	}
	if (argc == 2) {
		char *sub[] = { argv[1], "--help", NULL };

		return cmd_select(td_cmds, 2, sub, "command");
	}
	usage(stdout);
	return 0;
}

/* ---- output options anywhere ------------------------------------------ */

static const struct td_opt *find_long(const struct td_opt *opts,
				      const char *name, size_t len)
{
	for (const struct td_opt *o = opts; o->lng; o++)
		if (strlen(o->lng) == len && !strncmp(o->lng, name, len))
			return o;
	return NULL;
}

static const struct td_opt *find_short(const struct td_opt *opts, int c)
{
	for (const struct td_opt *o = opts; o->lng; o++)
		if (o->shrt == c)
			return o;
	return NULL;
}

static int set_output_opt(int id, const char *arg)
{
	switch (id) {
	case 'j':
		json_output = true;
		break;
	case 'P':
		json_output = true;
		pretty_output = true;
		break;
	case 'C':
		csv_output = true;
		break;
	case 'o':
		if (!arg || !*arg) {
			fprintf(stderr, "%s: Error: -o/--output needs a FILE\n",
				bin_name);
			return -1;
		}
		output_path = arg;
		break;
	}
	return 0;
}

/*
 * Take the output options out of a command's arguments, in place: walk
 * its options (stepping over the arguments of the command's own options)
 * up to "--" or the first non-option, and remove the output options that
 * the command does not define itself. Returns the new argc, or -1.
 */
static int take_output_opts(const struct cmd *c, int argc, char **argv)
{
	int i = 1, out = 1;

	while (i < argc) {
		const char *a = argv[i];
		const struct td_opt *own = NULL, *com = NULL;
		const char *val = NULL, *eq;
		int used = 1;

		if (a[0] != '-' || !a[1] || !strcmp(a, "--"))
			break;
		if (a[1] == '-') {
			eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

			own = find_long(c->opts, a + 2, len);
			if (!own)
				com = find_long(td_output_opts, a + 2, len);
			if (eq)
				val = eq + 1;
			else if (((own && own->arg) || (com && com->arg)) &&
				 i + 1 < argc)
				val = argv[i + 1], used = 2;
		} else {
			own = find_short(c->opts, a[1]);
			if (!own && (a[1] == 'j' || a[1] == 'o'))
				com = find_short(td_output_opts, a[1]);
			if (com && com->arg && a[2])
				val = a + 2;
			else if (com && a[2])
				com = NULL;	/* a cluster such as -jx */
			else if (((own && own->arg && !a[2]) ||
				  (com && com->arg)) && i + 1 < argc)
				val = argv[i + 1], used = 2;
		}
		if (com && !(com->id == 'o' && (c->flags & TD_CMD_OWN_OUTPUT))) {
			if (set_output_opt(com->id, val))
				return -1;
		} else {
			for (int k = 0; k < used; k++)
				argv[out++] = argv[i + k];
		}
		i += used;
	}
	while (i < argc)
		argv[out++] = argv[i++];
	argv[out] = NULL;
	return out;
}

static int redirect_stdout(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0) {
		fprintf(stderr, "%s: Error: cannot write %s: %s\n", bin_name,
			path, strerror(errno));
		return -1;
	}
	fflush(stdout);
	orig_stdout_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (dup2(fd, STDOUT_FILENO) < 0) {
		fprintf(stderr, "%s: Error: redirecting to %s: %s\n", bin_name,
			path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Is one of the arguments --json or --pretty? For errors about the
 * command name itself, before its grammar is known.
 */
static bool wants_json(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j") ||
		    !strcmp(argv[i], "--pretty"))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "csv", no_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd *c = NULL;
	int opt, ret = -1, nmatch = 0;

	/* Stop at the first non-option: the rest belongs to the command. */
	while ((opt = getopt_long(argc, argv, "+jpo:hV", opts, NULL)) >= 0) {
		switch (opt) {
		case 'j':
		case 'o':
			if (set_output_opt(opt, optarg))
				return 2;
			break;
		case 'p':
			set_output_opt('P', NULL);
			break;
		case 'c':
			set_output_opt('C', NULL);
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
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		usage(stderr);
		return 2;
	}
	c = cmd_find(td_cmds, argv[0], &nmatch);
	if (c) {
		argc = take_output_opts(c, argc, argv);
		if (argc < 0)
			return 2;
	} else if (wants_json(argc, argv)) {
		json_output = true;
	}
	if (json_output && csv_output) {
		fprintf(stderr, "%s: Error: --json and --csv exclude each other\n",
			bin_name);
		return 2;
	}
	if (c && csv_output && !(c->flags & TD_CMD_CSV)) {
		fprintf(stderr, "%s: Error: '%s' has no CSV output (CSV: dump, stat, top, record, report)\n",
			bin_name, c->name);
		return 2;
	}
	if (output_path && redirect_stdout(output_path))
		return 1;
	if (json_output) {
		json_wtr = jsonw_new(stdout);
		if (!json_wtr) {
			fprintf(stderr, "%s: Error: out of memory\n", bin_name);
			return 1;
		}
		jsonw_pretty(json_wtr, pretty_output);
	}
	if (c) {
		/* Each command parses its own options from a fresh getopt. */
		optind = 0;
		ret = c->func(argc, argv);
	} else {
		no_such_cmd(td_cmds, argv[0], nmatch, "command");
	}
	if (json_output)
		jsonw_destroy(&json_wtr);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: Error: writing the output: %s\n", bin_name,
			strerror(errno));
		return 1;
	}
	return ret < 0 ? 1 : ret;
}
