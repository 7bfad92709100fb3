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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/tdctl.h"

static bool pretty_output;
static const char *output_path;

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
		td_cmd_usage(stdout, g->cmd, g->desc);
		return TD_GETOPT_HELP;
	case '?':
	case ':':
		td_cmd_usage(stderr, g->cmd, g->desc);
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
	{ "set", 's', 's', TD_ARG_SET, "NAME", "event set by name" },
	{ "events", 'e', 'e', TD_ARG_EVENTS, "EVENTS",
	  "perf's event list instead of a set (cycles,instructions:u,rNNNN,PMU/terms/)" },
	{ "ring-size", 0, 'r', TD_ARG_NUM, "BYTES", "data bytes per CPU ring" },
	{ "watermark", 0, 'w', TD_ARG_NUM, "BYTES", "unread bytes that wake a reader" },
	{ "overwrite", 0, 'O', TD_ARG_NONE, NULL, "overwrite the oldest records" },
	{ "backend", 0, 'b', TD_ARG_BACKEND, "NAME",
	  "module (default), bpf or auto" },
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
	  "load [--backend module|bpf|auto] [--module PATH] [-s NAME | -e EVENTS] [--ring-size BYTES] [--watermark BYTES] [--overwrite]",
	  load_opts, 0 },
	{ "unload", do_unload, "unload", help_only_opts, 0 },
	{ "status", do_status, "status", help_only_opts, 0 },
	{ "dump", do_dump,
	  "dump [-i FILE] [--follow] [--duration S] [--cpu N] [--pid PID] [--comm NAME]",
	  dump_opts, 0 },
	{ "stat", do_stat,
	  "stat [-a | -p PID[,PID..] | [--] COMMAND [ARGS]] [--by KEY] [-I MS] [--duration S]",
	  stat_opts, TD_CMD_ARGV },
	{ "top", do_top,
	  "top [--by KEY] [-d SECS] [-n N] [--batch] [-p PID[,PID..]] [-i FILE]",
	  top_opts, 0 },
	{ "record", do_record,
	  "record [-o FILE] [-a | -p PID[,PID..] | [--] COMMAND [ARGS]] [--duration S]",
	  record_opts, TD_CMD_ARGV | TD_CMD_OWN_OUTPUT },
	{ "report", do_report,
	  "report [-i FILE] [--by KEY] [--cpu N] [--pid PID] [--comm NAME]",
	  report_opts, 0 },
	{ "timeline", do_timeline,
	  "timeline [-i FILE | --duration S] [-o FILE] [--min-slice US] [--from S] [--to S]",
	  timeline_opts, TD_CMD_OWN_OUTPUT },
	{ "serve", do_serve,
	  "serve [--listen ADDR:PORT] [--by cgroup|process|comm] [--max-series N]",
	  serve_opts, 0 },
	{ "list", do_list, "list [--events SET]", list_opts, 0 },
	{ "decode", do_decode,
	  "decode --set NAME [--slots N] [--revision rXpY] EVENT=COUNT ...",
	  decode_opts, 0 },
	{ "version", do_version, "version", help_only_opts, 0 },
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
void td_cmd_usage(FILE *f, const char *name, const char *description)
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
		"      --csv          CSV output (a header line, then the rows)\n"
		"  -o, --output FILE  write the output to FILE instead of stdout\n"
		"  -h, --help         this help; '%s help COMMAND' for a command\n"
		"  -V, --version      tdctl's and the loaded module's version and ABI\n"
		"\n"
		"The output options may also follow the command. Commands may be\n"
		"abbreviated to a unique prefix. See %s(8).\n", bin_name, bin_name);
}

static const char help_desc[] =
	"Without COMMAND, the commands and the global options; with one (a\n"
	"unique prefix is enough), its usage, as 'tdctl COMMAND --help'.\n";

/* help --json/--csv: the commands, or one command's options (its own,
 * then the output options it takes), from the grammar table.
 */
static const char *const help_cmd_fields[] = { "command", "synopsis", NULL };
static const char *const help_opt_fields[] = {
	"command", "option", "short", "argument", "kind", "description", NULL,
};

static void help_opt_row(struct csv_writer *w, const struct cmd *c,
			 const struct td_opt *o, const char *kind)
{
	char lng[40], shrt[3] = "";

	snprintf(lng, sizeof(lng), "--%s", o->lng);
	if (o->shrt)
		snprintf(shrt, sizeof(shrt), "-%c", o->shrt);
	if (csv_output) {
		csvw_str(w, c->name);
		csvw_str(w, lng);
		if (o->shrt)
			csvw_str(w, shrt);
		else
			csvw_empty(w);	/* null */
		if (o->meta)
			csvw_str(w, o->meta);
		else
			csvw_empty(w);
		csvw_str(w, kind);
		csvw_str(w, o->help);
		csvw_end_row(w);
		return;
	}
	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "option", lng);
	if (o->shrt)
		jsonw_string_field(json_wtr, "short", shrt);
	else
		jsonw_null_field(json_wtr, "short");
	if (o->meta)
		jsonw_string_field(json_wtr, "argument", o->meta);
	else
		jsonw_null_field(json_wtr, "argument");
	jsonw_string_field(json_wtr, "kind", kind);
	jsonw_string_field(json_wtr, "description", o->help);
	jsonw_end_object(json_wtr);
}

static void help_structured(const struct cmd *one)
{
	struct csv_writer w;

	csvw_init(&w, stdout);
	if (!one) {
		if (csv_output) {
			csvw_header(&w, help_cmd_fields);
		} else {
			jsonw_start_object(json_wtr);
			jsonw_name(json_wtr, "commands");
			jsonw_start_array(json_wtr);
		}
		for (const struct cmd *c = td_cmds; c->name; c++) {
			if (c->flags & TD_CMD_HIDDEN)
				continue;
			if (csv_output) {
				csvw_str(&w, c->name);
				csvw_str(&w, c->help);
				csvw_end_row(&w);
				continue;
			}
			jsonw_start_object(json_wtr);
			jsonw_string_field(json_wtr, "command", c->name);
			jsonw_string_field(json_wtr, "synopsis", c->help);
			jsonw_end_object(json_wtr);
		}
		if (!csv_output) {
			jsonw_end_array(json_wtr);
			jsonw_end_object(json_wtr);
		}
		return;
	}
	if (csv_output) {
		csvw_header(&w, help_opt_fields);
	} else {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "command", one->name);
		jsonw_string_field(json_wtr, "synopsis", one->help);
		jsonw_name(json_wtr, "options");
		jsonw_start_array(json_wtr);
	}
	for (const struct td_opt *o = one->opts; o->lng; o++)
		help_opt_row(&w, one, o, "command");
	for (const struct td_opt *o = td_output_opts; o->lng; o++)
		if (!(o->id == 'o' && (one->flags & TD_CMD_OWN_OUTPUT)))
			help_opt_row(&w, one, o, "output");
	if (!csv_output) {
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	}
}

static int do_help(int argc, char **argv)
{
	const struct cmd *c = NULL;
	int nmatch;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		td_cmd_usage(stdout, "help", help_desc);
		return 0;
	}
	if (argc > 2) {
		p_err("help takes one command name");
		return -1;
	}
	if (argc == 2) {
		c = cmd_find(td_cmds, argv[1], &nmatch);
		if (!c || (c->flags & TD_CMD_HIDDEN)) {
			no_such_cmd(td_cmds, argv[1], c ? 0 : nmatch, "command");
			return -1;
		}
	}
	if (json_output || csv_output) {
		help_structured(c);
		return 0;
	}
	if (c) {
		char *sub[] = { argv[1], "--help", NULL };

		optind = 0;
		return c->func(2, sub);
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
	bool name_arg = c->flags & TD_CMD_NAMEARG;

	while (i < argc) {
		const char *a = argv[i];
		const struct td_opt *own = NULL, *com = NULL;
		const char *val = NULL, *eq;
		int used = 1;

		if (name_arg && a[0] != '-') {
			/* help COMMAND --csv: step over the one name */
			argv[out++] = argv[i++];
			name_arg = false;
			continue;
		}
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
			td_print_version();
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
