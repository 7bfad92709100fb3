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
#include <stdarg.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/tdctl.h"
#include "output/text.h"
#include "file/tdfile.h"

static bool pretty_output;
static const char *output_path;
bool td_usage_failed;
/* main()'s arguments, for errors before the command's grammar is known. */
static int main_argc;
static char **main_argv;

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
		p_usage(NULL, "unknown %s '%s'", what, name);
		return;
	}
	for (const struct cmd *c = cmds; c->name; c++) {
		if ((c->flags & TD_CMD_HIDDEN) || strncmp(c->name, name, len))
			continue;
		if (*list)
			strncat(list, ", ", sizeof(list) - strlen(list) - 1);
		strncat(list, c->name, sizeof(list) - strlen(list) - 1);
	}
	p_usage(NULL, "ambiguous %s '%s': could be %s", what, name, list);
}

int cmd_select(const struct cmd *cmds, int argc, char **argv,
	       const char *what)
{
	const struct cmd *c;
	int nmatch;

	if (argc < 1) {
		p_usage(NULL, "missing %s", what);
		return -1;
	}
	c = cmd_find(cmds, argv[0], &nmatch);
	if (!c) {
		no_such_cmd(cmds, argv[0], nmatch, what);
		return -1;
	}
	return c->func(argc, argv);
}

static void json_for_early_error(void);

void p_usage(const char *cmd, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	int nmatch;
	const struct cmd *c = cmd ? cmd_find(td_cmds, cmd, &nmatch) : NULL;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_for_early_error();
	td_usage_failed = true;
	if (c)
		p_err("%s; see '%s %s --help'", msg, bin_name, c->name);
	else
		p_err("%s; see '%s --help'", msg, bin_name);
}

int td_getopt_end(int opt, int argc, char **argv, bool operands)
{
	if (opt != TD_GETOPT_END)
		return opt == TD_GETOPT_HELP ? 0 : -1;
	if (!operands && optind < argc) {
		p_usage(argv[0], "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 1;
}

static void getopt_add(struct td_getopt *g, int *n, char **s,
		       const struct td_opt *opts)
{
	for (const struct td_opt *o = opts; o->lng && *n < TD_GETOPT_MAX; o++) {
		g->lo[*n].name = o->lng;
		g->lo[*n].has_arg = o->arg == TD_ARG_NONE ? no_argument :
				    required_argument;
		g->lo[*n].flag = NULL;
		g->lo[*n].val = o->id;
		(*n)++;
		if (o->shrt) {
			*(*s)++ = (char)o->shrt;
			if (o->arg != TD_ARG_NONE)
				*(*s)++ = ':';
		}
	}
}

void td_getopt_build(struct td_getopt *g, const char *cmd, const char *desc)
{
	int nmatch, n = 0;
	const struct cmd *c = cmd ? cmd_find(td_cmds, cmd, &nmatch) : NULL;
	char *s = g->so;

	g->cmd = cmd;
	g->desc = desc;

	/*
	 * Before the command, and for a command that runs a COMMAND, stop at
	 * the first non-option; otherwise options may follow the operands.
	 * ':' first: a missing argument is reported here, not by getopt.
	 */
	if (!c || (c->flags & TD_CMD_ARGV))
		*s++ = '+';
	*s++ = ':';
	if (c) {
		getopt_add(g, &n, &s, c->opts);
	} else {
		getopt_add(g, &n, &s, td_output_opts);
		getopt_add(g, &n, &s, td_global_opts);
	}
	*s = '\0';
	memset(&g->lo[n], 0, sizeof(g->lo[n]));
}

/* The long options of g that start with name (up to '='), in list. */
static int long_matches(const struct td_getopt *g, const char *name,
			char *list, size_t size)
{
	size_t len = strcspn(name, "=");
	int n = 0;

	*list = '\0';
	for (const struct option *o = g->lo; o->name; o++) {
		if (strncmp(o->name, name, len))
			continue;
		if (strlen(o->name) == len)
			return 1;	/* exact */
		snprintf(list + strlen(list), size - strlen(list), "%s--%s",
			 n ? ", " : "", o->name);
		n++;
	}
	return n;
}

/* Report getopt's '?' or ':' for the option argv[optind - 1]. */
static void getopt_error(const struct td_getopt *g, int opt, char **argv)
{
	const char *arg = argv[optind - 1];
	char list[256];

	if (arg && arg[0] == '-' && arg[1] == '-') {
		int len = (int)strcspn(arg, "=");

		if (opt == ':')
			p_usage(g->cmd, "option '%s' needs an argument", arg);
		else if (long_matches(g, arg + 2, list, sizeof(list)) > 1)
			p_usage(g->cmd, "ambiguous option '%.*s': could be %s",
				len, arg, list);
		else if (optopt)
			p_usage(g->cmd, "option '%.*s' takes no argument",
				len, arg);
		else
			p_usage(g->cmd, "unknown option '%.*s'", len, arg);
	} else if (opt == ':') {
		p_usage(g->cmd, "option '-%c' needs an argument", optopt);
	} else if (!g->cmd && optopt == 'p') {
		p_usage(NULL,
			"unknown option '-p' (-p is --pid; --pretty has no short form)");
	} else {
		p_usage(g->cmd, "unknown option '-%c'", optopt);
	}
}

int td_getopt_next(struct td_getopt *g, int argc, char **argv)
{
	int opt;

	opterr = 0;
	opt = getopt_long(argc, argv, g->so, g->lo, NULL);
	switch (opt) {
	case 'h':
		if (g->cmd)
			td_cmd_usage(stdout, g->cmd, g->desc);
		return TD_GETOPT_HELP;
	case '?':
	case ':':
		getopt_error(g, opt, argv);
		return TD_GETOPT_ERROR;
	}
	return opt < 0 ? TD_GETOPT_END : opt;
}

int td_no_options(int argc, char **argv, const char *desc)
{
	struct td_getopt g;
	int opt;

	td_getopt_build(&g, argv[0], desc);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0)
		;
	return td_getopt_end(opt, argc, argv, false);
}

int td_input_load(const char *path, const char *out,
		  struct td_file_image *img, struct td_file *f,
		  td_file_block_fn fn, void *ctx, bool force)
{
	char raw[600], err[TD_TEXT_SIZE(600)];
	int ret;

	if (td_check_input(path, out))
		return -1;
	raw[0] = '\0';
	ret = td_file_load_flags(path, img, f, raw, sizeof(raw), fn, ctx,
				 force ? TD_FILE_SALVAGE : 0);
	/* it may quote the file's names: their text (output/text.h) */
	td_text(err, raw, sizeof(raw), NULL);
	if (ret == TD_FILE_NO_TRAILER) {
		p_err("%s; --force reads it up to its last good record", err);
		return -1;
	}
	if (ret) {
		p_err("%s", err);
		return -1;
	}
	if (f->interrupted)
		p_warn("%s: no trailer, the recording was interrupted: read %llu records; %llu bytes after them not read%s%s%s; the stop time is the last record's, the lost-record counts are unknown",
		       path, (unsigned long long)f->nr_records,
		       (unsigned long long)f->unread_bytes,
		       *err ? " (" : "", err, *err ? ")" : "");
	return 0;
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

const struct td_opt td_global_opts[] = {
	{ "help", 'h', 'h', TD_ARG_NONE, NULL,
	  "this help; 'tdctl help COMMAND' for a command" },
	{ "version", 'V', 'V', TD_ARG_NONE, NULL,
	  "tdctl's and the loaded module's version and ABI" },
	TD_OPT_END,
};

const struct td_opt td_help_only_opts[] = {
	TD_OPT_HELP,
	TD_OPT_END,
};

const struct cmd td_cmds[] = {
	{ "load", do_load,
	  "load [--backend module|bpf|auto] [--module PATH] [-s NAME | -e EVENTS] [--ring-size BYTES] [--watermark BYTES] [--overwrite]",
	  load_opts, 0 },
	{ "unload", do_unload, "unload", td_help_only_opts, 0 },
	{ "status", do_status, "status", td_help_only_opts, 0 },
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
	  "timeline [-i FILE | --duration S] [-o FILE] [--min-slice US] [--from S] [--to S] [--counters MODE]",
	  timeline_opts, TD_CMD_OWN_OUTPUT },
	{ "serve", do_serve,
	  "serve [--listen ADDR:PORT] [--by cgroup|process|comm] [--max-series N]",
	  serve_opts, 0 },
	{ "list", do_list, "list [-s SET]", list_opts, 0 },
	{ "decode", do_decode,
	  "decode --set NAME [--slots N] [--revision rXpY] [-x SEP] [EVENT=COUNT ...]",
	  decode_opts, 0 },
	{ "version", do_version, "version", td_help_only_opts, 0 },
	{ "help", do_help, "help [COMMAND]", td_help_only_opts, TD_CMD_NAMEARG },
	{ "__complete", do_complete, "__complete WORD...", td_help_only_opts,
	  TD_CMD_HIDDEN | TD_CMD_RAW },
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
	fprintf(f, "\nOptions (the output options also anywhere after the command):\n");
	print_opts(f, td_output_opts);
	print_opts(f, td_global_opts);
	fprintf(f,
		"\n"
		"Commands may be abbreviated to a unique prefix. -p is always a\n"
		"command's PID, as in perf. Usage errors exit with status 2.\n"
		"See %s(8).\n", bin_name);
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
		p_usage("help", "help takes one command name");
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

static int set_output_opt(int id, const char *arg, const char *cmd,
			  const char *word)
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
			p_usage(cmd, "option '%.*s' needs an argument",
				(int)strcspn(word, "="), word);
			return -1;
		}
		output_path = arg;
		break;
	}
	return 0;
}

/*
 * Take the output options out of a command's arguments, in place: walk
 * its options and operands (stepping over the arguments of the command's
 * own options) up to "--", or for stat and record up to their COMMAND,
 * and remove the output options that the command does not define itself.
 * Returns the new argc, or -1.
 */
static int take_output_opts(const struct cmd *c, int argc, char **argv)
{
	int i = 1, out = 1;

	if (c->flags & TD_CMD_RAW)
		return argc;
	while (i < argc) {
		const char *a = argv[i];
		const struct td_opt *own = NULL, *com = NULL;
		const char *val = NULL, *eq;
		int used = 1;

		if (!strcmp(a, "--"))
			break;
		if (a[0] != '-' || !a[1]) {
			/* COMMAND [ARGS] of stat/record: theirs */
			if (c->flags & TD_CMD_ARGV)
				break;
			/* an operand (help COMMAND, decode EVENT=COUNT) */
			argv[out++] = argv[i++];
			continue;
		}
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
			if (set_output_opt(com->id, val, c->name, a))
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

/*
 * -o FILE: stdout goes to a temporary file next to FILE (next to the file
 * a symlink names), renamed over it when the command succeeded and
 * removed when it failed, so FILE is either the whole new output or left
 * as it was. A device, FIFO or socket (-o /dev/null) is written in place.
 */
static char *output_tmp;
static char *output_final;

static int redirect_stdout(const char *path)
{
	struct stat st;
	int fd;

	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
	} else {
		output_final = realpath(path, NULL);
		if (!output_final)
			output_final = strdup(path);
		fd = output_final ? td_open_tmp(output_final, &output_tmp) : -1;
	}
	if (fd < 0) {
		p_err("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	fflush(stdout);
	orig_stdout_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (dup2(fd, STDOUT_FILENO) < 0) {
		p_err("redirecting to %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* After the command: keep the output (0), or drop it and show a JSON
 * error where the output would have gone, on the original stdout.
 */
static int finish_output(bool keep)
{
	int ret = 0;

	if (!output_tmp)
		return 0;
	if (keep && rename(output_tmp, output_final)) {
		p_err("renaming %s to %s: %s", output_tmp, output_final,
		      strerror(errno));
		ret = -1;
	}
	if (!keep || ret) {
		unlink(output_tmp);
		if (json_output && orig_stdout_fd >= 0 &&
		    dup2(orig_stdout_fd, STDOUT_FILENO) >= 0) {
			json_writer_t *w = jsonw_new(stdout);

			if (w) {
				jsonw_start_object(w);
				jsonw_string_field(w, "error", p_last_error());
				jsonw_end_object(w);
				jsonw_destroy(&w);
			}
			fflush(stdout);
		}
	}
	free(output_tmp);
	free(output_final);
	output_tmp = NULL;
	return ret;
}

/* Is one of the arguments --json or --pretty? For errors about the
 * command line itself, before its grammar is known.
 */
static bool wants_json(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j") ||
		    !strcmp(argv[i], "--pretty"))
			return true;
	return false;
}

static int json_start(void)
{
	json_wtr = jsonw_new(stdout);
	if (!json_wtr) {
		fprintf(stderr, "%s: Error: out of memory\n", bin_name);
		return -1;
	}
	jsonw_pretty(json_wtr, pretty_output);
	return 0;
}

/* An error found before the output options are known is JSON too when
 * the line asks for JSON anywhere.
 */
static void json_for_early_error(void)
{
	if (json_wtr || csv_output || !main_argv ||
	    !wants_json(main_argc, main_argv))
		return;
	json_output = true;
	json_start();
}

static int finish(int ret)
{
	if (json_output && json_wtr)
		jsonw_destroy(&json_wtr);
	if (fflush(stdout) || ferror(stdout)) {
		p_err("writing the output: %s", strerror(errno));
		ret = -1;
	}
	if (finish_output(ret >= 0 && !td_usage_failed))
		ret = -1;
	if (td_usage_failed)
		return TD_EXIT_USAGE;
	return ret < 0 ? 1 : ret;
}

int main(int argc, char **argv)
{
	const struct cmd *c = NULL;
	struct td_getopt g;
	int opt, ret = -1, nmatch = 0;

	main_argc = argc;
	main_argv = argv;
	/* Stop at the first non-option: the rest belongs to the command. */
	td_getopt_build(&g, NULL, NULL);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0) {
		switch (opt) {
		case 'V':
			td_print_version();
			return 0;
		default:
			if (set_output_opt(opt, optarg, NULL, "-o"))
				return finish(-1);
			break;
		}
	}
	if (opt == TD_GETOPT_HELP) {
		usage(stdout);
		return 0;
	}
	if (opt == TD_GETOPT_ERROR)
		return finish(-1);
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		p_usage(NULL, "missing command");
		return finish(-1);
	}
	c = cmd_find(td_cmds, argv[0], &nmatch);
	if (!c) {
		no_such_cmd(td_cmds, argv[0], nmatch, "command");
		return finish(-1);
	}
	argc = take_output_opts(c, argc, argv);
	if (argc < 0)
		return finish(-1);
	if (json_output && csv_output) {
		p_usage(NULL, "--json and --csv exclude each other");
		return finish(-1);
	}
	td_output_path = output_path;
	if (output_path && redirect_stdout(output_path))
		return finish(-1);
	if (json_output && json_start())
		return 1;
	/* Each command parses its own options from a fresh getopt. */
	optind = 0;
	ret = c->func(argc, argv);
	return finish(ret);
}
