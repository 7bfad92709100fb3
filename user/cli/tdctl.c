// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl - control the topdown module and read what it collects.
 *
 * Command grammar in the style of bpftool: global options, a command
 * (unique prefixes accepted), then its own options. Every command's
 * option table lists the output options (--json, --pretty, --csv, -o
 * FILE) it honours, and getopt parses them with the others
 * (td_getopt_next()); before the command they are checked against that
 * table. One parser: the synopses, --help, help --json and completion
 * are made from the same tables.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/str.h"
#include "cli/tdctl.h"
#include "output/text.h"
#include "file/tdfile.h"
#include "output/vocab.h"

static bool pretty_output;
static const char *output_path;
static bool output_given;	/* -o seen: a second one is refused */
/* The output options given before the command, by id (1 << (id & 31)). */
static unsigned int global_output;
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
	p_usage_cmd(c ? c->name : NULL, "%s", msg);
}

static int output_begin(void);

int td_getopt_end(int opt, int argc, char **argv, bool operands)
{
	/* The options are read: errors from here on are the command's. */
	td_parsing_options = false;
	if (opt != TD_GETOPT_END)
		return opt == TD_GETOPT_HELP ? 0 : -1;
	if (!operands && optind < argc) {
		p_usage(argv[0], "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return output_begin() ? -1 : 1;
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
	g->opts = c ? c->opts : NULL;
	/* Until td_getopt_end(), a bad option value is a usage error. */
	td_parsing_options = true;

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

/* The long options of g that start with name (up to '='), in *list
 * (malloc()ed, whole; NULL if out of memory).
 */
static int long_matches(const struct td_getopt *g, const char *name,
			char **list)
{
	size_t len = strcspn(name, "=");
	bool whole = true;
	int n = 0;

	*list = NULL;
	for (const struct option *o = g->lo; o->name; o++) {
		if (strncmp(o->name, name, len))
			continue;
		if (strlen(o->name) == len) {
			n = 1;	/* exact */
			break;
		}
		if (whole)
			whole = td_str_add(list, "%s--%s", n ? ", " : "",
					   o->name);
		n++;
	}
	if (!whole) {
		free(*list);
		*list = NULL;
	}
	return n;
}

/* Does name[0..len) name an output option? */
static bool output_opt_named(const char *name, size_t len)
{
	for (const struct td_opt *o = td_output_opts; o->lng; o++)
		if (strlen(o->lng) == len && !strncmp(o->lng, name, len))
			return true;
	return false;
}

/* Report getopt's '?' or ':' for the option argv[optind - 1]. */
static void getopt_error(const struct td_getopt *g, int opt, char **argv)
{
	const char *arg = argv[optind - 1];
	char *list = NULL;

	if (arg && arg[0] == '-' && arg[1] == '-') {
		int len = (int)strcspn(arg, "=");

		if (opt == ':')
			p_usage(g->cmd, "option '%s' needs an argument", arg);
		else if (long_matches(g, arg + 2, &list) > 1)
			p_usage(g->cmd, "ambiguous option '%.*s': could be %s",
				len, arg, list ? list : "(out of memory)");
		else if (optopt)
			p_usage(g->cmd, "option '%.*s' takes no argument",
				len, arg);
		else if (g->cmd && output_opt_named(arg + 2, (size_t)len - 2))
			p_usage(g->cmd, "%.*s does not apply to %s (see %s-%s(8))",
				len, arg, g->cmd, bin_name, g->cmd);
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
	free(list);
}

/* Is id one of the output options of g's table? */
static bool is_output_opt(const struct td_getopt *g, int id)
{
	for (const struct td_opt *o = g->opts; o && o->lng; o++)
		if (o->id == id)
			return o->flags & TD_OPTF_OUTPUT;
	return false;
}

static int set_output_opt(int id, const char *arg, const char *cmd,
			  const char *word);

int td_getopt_next(struct td_getopt *g, int argc, char **argv)
{
	int opt;

	opterr = 0;
	for (;;) {
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
		if (opt < 0)
			return TD_GETOPT_END;
		/* The output options, for every command: the grammar's. */
		if (!g->cmd || !is_output_opt(g, opt))
			return opt;
		if (set_output_opt(opt, optarg, g->cmd, argv[optind - 1]))
			return TD_GETOPT_ERROR;
	}
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
		  td_file_block_fn fn, void *ctx, unsigned int flags)
{
	char raw[600], err[TD_TEXT_SIZE(600)];
	int ret;

	if (td_check_input(path, out))
		return -1;
	raw[0] = '\0';
	ret = td_file_load_flags(path, img, f, raw, sizeof(raw), fn, ctx,
				 flags);
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
	TD_OPT_OUTPUT,
	TD_OPT_END,
};

const struct td_opt td_global_opts[] = {
	{ "help", 'h', 'h', TD_ARG_NONE, NULL,
	  "this help; 'tdctl help COMMAND' for a command", 0 },
	{ "version", 'V', 'V', TD_ARG_NONE, NULL,
	  "tdctl's and the loaded module's version and ABI", 0 },
	TD_OPT_END,
};

const struct td_opt td_help_only_opts[] = {
	TD_OPT_OUTPUT,
	TD_OPT_HELP,
	TD_OPT_END,
};

/* The synopses are made from the option tables (td_cmd_synopsis()):
 * here only what follows the options.
 */
const struct cmd td_cmds[] = {
	{ "load", do_load, "", load_opts, 0 },
	{ "unload", do_unload, "", td_help_only_opts, 0 },
	{ "status", do_status, "", td_help_only_opts, 0 },
	{ "dump", do_dump, "", dump_opts, 0 },
	{ "stat", do_stat, "[[--] COMMAND [ARGS]]", stat_opts, TD_CMD_ARGV },
	{ "top", do_top, "", top_opts, 0 },
	{ "record", do_record, "[[--] COMMAND [ARGS]]", record_opts,
	  TD_CMD_ARGV },
	{ "report", do_report, "", report_opts, 0 },
	{ "timeline", do_timeline, "", timeline_opts, 0 },
	{ "serve", do_serve, "", serve_opts, 0 },
	{ "list", do_list, "", list_opts, 0 },
	{ "decode", do_decode, "[EVENT=COUNT ...]", decode_opts, 0 },
	{ "version", do_version, "", td_help_only_opts, 0 },
	{ "help", do_help, "[COMMAND]", td_help_only_opts, TD_CMD_NAMEARG },
	{ "__complete", do_complete, "WORD...", td_help_only_opts,
	  TD_CMD_HIDDEN | TD_CMD_RAW },
	{ NULL, NULL, NULL, NULL, 0 },
};

void td_cmd_synopsis(const struct cmd *c, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "%s", c->name);

	for (const struct td_opt *o = c->opts; o->lng && len < n; o++) {
		if ((o->flags & TD_OPTF_OUTPUT) || o->id == 'h')
			continue;
		if (o->shrt)
			len += (size_t)snprintf(buf + len, n - len, " [-%c%s%s]",
						o->shrt, o->meta ? " " : "",
						o->meta ? o->meta : "");
		else
			len += (size_t)snprintf(buf + len, n - len, " [--%s%s%s]",
						o->lng, o->meta ? " " : "",
						o->meta ? o->meta : "");
	}
	if (*c->operands && len < n)
		snprintf(buf + len, n - len, " %s", c->operands);
}

/* ---- usage ------------------------------------------------------------ */

/* The options of opts with (output) or without the output flag. */
static void print_opts(FILE *f, const struct td_opt *opts, bool output)
{
	for (const struct td_opt *o = opts; o->lng; o++) {
		if (!(o->flags & TD_OPTF_OUTPUT) != !output)
			continue;
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
	char syn[2048];
	size_t col;
	int indent;

	if (!c)
		return;
	/* The synopsis from the table, wrapped between its [items]. */
	td_cmd_synopsis(c, syn, sizeof(syn));
	indent = (int)(strlen("Usage: ") + strlen(bin_name) + 1 +
		       strlen(c->name));
	col = (size_t)fprintf(f, "Usage: %s %s", bin_name, c->name);
	for (const char *p = syn + strlen(c->name); *p == ' ';) {
		const char *e = ++p;
		int depth = 0;

		while (*e && (*e != ' ' || depth)) {
			depth += (*e == '[') - (*e == ']');
			e++;
		}
		if (col + 1 + (size_t)(e - p) > 79 && (int)col > indent) {
			fprintf(f, "\n%*s", indent, "");
			col = (size_t)indent;
		}
		col += (size_t)fprintf(f, " %.*s", (int)(e - p), p);
		p = e;
	}
	fprintf(f, "\n\n%s\nOptions:\n", description);
	print_opts(f, c->opts, false);
	fprintf(f, "\nOutput options (also before the command):\n");
	print_opts(f, c->opts, true);
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
			fprintf(f, "  %s %s [OPTIONS]%s%s\n", bin_name, c->name,
				*c->operands ? " " : "", c->operands);
	fprintf(f, "\nOptions (the output options also after the command, where it takes them):\n");
	print_opts(f, td_output_opts, true);
	print_opts(f, td_global_opts, false);
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

/* What an option's argument is (help --json "value"). */
static const char *const arg_kinds[] = {
	[TD_ARG_NONE] = "none", [TD_ARG_NUM] = "number",
	[TD_ARG_WORD] = "word", [TD_ARG_FILE] = "file", [TD_ARG_DIR] = "dir",
	[TD_ARG_PID] = "pid", [TD_ARG_PIDS] = "pids", [TD_ARG_CPU] = "cpu",
	[TD_ARG_SET] = "set", [TD_ARG_EVENTS] = "events", [TD_ARG_BY] = "by",
	[TD_ARG_SORT] = "sort", [TD_ARG_BACKEND] = "backend",
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
	if (o->arg)
		jsonw_string_field(json_wtr, "value", arg_kinds[o->arg]);
	else
		jsonw_null_field(json_wtr, "value");
	jsonw_string_field(json_wtr, "description", o->help);
	jsonw_end_object(json_wtr);
}

/* help --json: the vocabulary (output/vocab.h), every column's names. */
static void help_columns(void)
{
	static const char *const kinds[] = {
		[TD_VOC_KEY] = "key", [TD_VOC_TIME] = "time",
		[TD_VOC_COUNT] = "count", [TD_VOC_METRIC] = "metric",
		[TD_VOC_INFO] = "info",
	};

	jsonw_name(json_wtr, "columns");
	jsonw_start_array(json_wtr);
	for (size_t i = 0; i < td_vocab_len; i++) {
		const struct td_voc *v = &td_vocab[i];
		struct td_voc_col col[3];
		int n = td_voc_expand(v, col, 3);

		for (int k = 0; k < n; k++) {
			const struct td_voc_col *c = &col[k];

			jsonw_start_object(json_wtr);
			jsonw_string_field(json_wtr, "name", c->name);
			if (c->title)
				jsonw_string_field(json_wtr, "title", c->title);
			else
				jsonw_null_field(json_wtr, "title");
			jsonw_string_field(json_wtr, "kind",
					   c->kind ? c->kind : kinds[v->kind]);
			jsonw_bool_field(json_wtr, "percent", c->percent);
			/* coverage and error: of the metric "of" */
			jsonw_bool_field(json_wtr, "bottleneck",
					 !k && (v->flags & TD_VOC_BOTTLENECK));
			jsonw_int_field(json_wtr, "decimals", c->prec);
			jsonw_int_field(json_wtr, "level", k ? 0 : v->level);
			if (v->parent && !k)
				jsonw_string_field(json_wtr, "parent",
						   v->parent);
			else
				jsonw_null_field(json_wtr, "parent");
			if (k)
				jsonw_string_field(json_wtr, "of", v->name);
			else
				jsonw_null_field(json_wtr, "of");
			jsonw_string_field(json_wtr, "commands", c->commands);
			jsonw_string_field(json_wtr, "description", c->what);
			jsonw_end_object(json_wtr);
		}
	}
	jsonw_end_array(json_wtr);
}

static void help_structured(const struct cmd *one)
{
	struct csv_writer w;
	char syn[2048];

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
			td_cmd_synopsis(c, syn, sizeof(syn));
			if (csv_output) {
				csvw_str(&w, c->name);
				csvw_str(&w, syn);
				csvw_end_row(&w);
				continue;
			}
			jsonw_start_object(json_wtr);
			jsonw_string_field(json_wtr, "command", c->name);
			jsonw_string_field(json_wtr, "synopsis", syn);
			jsonw_end_object(json_wtr);
		}
		if (!csv_output) {
			jsonw_end_array(json_wtr);
			help_columns();
			jsonw_end_object(json_wtr);
		}
		return;
	}
	if (csv_output) {
		csvw_header(&w, help_opt_fields);
	} else {
		jsonw_start_object(json_wtr);
		td_cmd_synopsis(one, syn, sizeof(syn));
		jsonw_string_field(json_wtr, "command", one->name);
		jsonw_string_field(json_wtr, "synopsis", syn);
		jsonw_name(json_wtr, "options");
		jsonw_start_array(json_wtr);
	}
	for (const struct td_opt *o = one->opts; o->lng; o++)
		help_opt_row(&w, one, o, o->flags & TD_OPTF_OUTPUT ? "output" :
			     "command");
	if (!csv_output) {
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	}
}

static int do_help(int argc, char **argv)
{
	const struct cmd *c = NULL;
	struct td_getopt g;
	int opt, nmatch;

	td_getopt_build(&g, "help", help_desc);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0)
		;
	opt = td_getopt_end(opt, argc, argv, true);
	if (opt <= 0)
		return opt;
	argc -= optind;
	argv += optind;
	if (argc > 1) {
		p_usage("help", "help takes one command name");
		return -1;
	}
	if (argc == 1) {
		c = cmd_find(td_cmds, argv[0], &nmatch);
		if (!c || (c->flags & TD_CMD_HIDDEN)) {
			no_such_cmd(td_cmds, argv[0], c ? 0 : nmatch, "command");
			return -1;
		}
	}
	if (json_output || csv_output) {
		help_structured(c);
		return 0;
	}
	if (c) {
		char *sub[] = { argv[0], "--help", NULL };

		optind = 0;
		return c->func(2, sub);
	}
	usage(stdout);
	return 0;
}

/* ---- output options ------------------------------------------------ */

static int json_start(void);

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
		if (json_wtr)
			jsonw_pretty(json_wtr, true);
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
		if (output_given) {
			p_usage(cmd, "-o/--output given twice ('%s' and '%s')",
				output_path ? output_path : "-", arg);
			return -1;
		}
		output_given = true;
		/* -o - is stdout, in every command */
		output_path = strcmp(arg, "-") ? arg : NULL;
		break;
	}
	/* Errors of the rest of the line are JSON already. */
	if (json_output && !json_wtr && !csv_output && json_start())
		return -1;
	return 0;
}

/*
 * -o FILE: stdout goes to FILE through the one output helper of base/
 * (td_outfile_open(): a temporary file renamed over FILE when the command
 * succeeded and removed when it failed, so FILE is either the whole new
 * output or left as it was; a device, FIFO or socket is written in place).
 */
static struct td_outfile output_file = { .fd = -1 };

static int redirect_stdout(const char *path)
{
	if (td_outfile_open(&output_file, path))
		return -1;
	fflush(stdout);
	orig_stdout_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (dup2(output_file.fd, STDOUT_FILENO) < 0) {
		p_err("redirecting to %s: %s", path, strerror(errno));
		td_outfile_abort(&output_file);
		return -1;
	}
	close(output_file.fd);
	output_file.fd = STDOUT_FILENO;
	td_outfile_guard(&output_file);
	return 0;
}

/* After the command: keep the output (0), or drop it and show a JSON
 * error where the output would have gone, on the original stdout.
 */
static int finish_output(bool keep)
{
	bool in_place = td_outfile_in_place(&output_file);
	int ret = 0;

	if (output_file.fd < 0)
		return 0;
	if (keep && td_outfile_commit(&output_file, true)) {
		p_err("writing %s: %s", td_output_path, strerror(errno));
		ret = -1;
	}
	if (!keep) {
		output_file.fd = -1;	/* stdout stays open */
		td_outfile_abort(&output_file);
	}
	output_file.fd = -1;
	if ((!keep || ret) && !in_place && json_output &&
	    orig_stdout_fd >= 0 && dup2(orig_stdout_fd, STDOUT_FILENO) >= 0) {
		json_writer_t *w = jsonw_new(stdout);

		if (w) {
			jsonw_start_object(w);
			jsonw_string_field(w, "error", p_last_error());
			jsonw_end_object(w);
			jsonw_destroy(&w);
		}
		fflush(stdout);
	}
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

/* p_err() in JSON mode: an object on the JSON stream. */
static void json_error(const char *msg)
{
	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "error", msg);
	jsonw_end_object(json_wtr);
}

static int json_start(void)
{
	td_json_error = json_error;
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

/* The output the options asked for: -o FILE, the JSON writer. */
static int output_begin(void)
{
	static bool begun;

	if (begun)
		return 0;
	begun = true;
	if (json_output && csv_output) {
		p_usage(td_cmd_name, "--json and --csv exclude each other");
		return -1;
	}
	td_output_path = output_path;
	if (output_path && redirect_stdout(output_path))
		return -1;
	if (json_output && !json_wtr && json_start())
		return -1;
	return 0;
}

/* The output options given before the command: those it takes. */
static int global_output_applies(const struct cmd *c)
{
	for (const struct td_opt *g = td_output_opts; g->lng; g++) {
		const struct td_opt *o = c->opts;

		if (!(global_output & (1u << (g->id & 31))))
			continue;
		/* record's own -o is its file: the global -o is stdout's */
		while (o->lng && !(o->id == g->id &&
				   ((o->flags & TD_OPTF_OUTPUT) || o->id == 'o')))
			o++;
		if (!o->lng) {
			p_usage(c->name, "--%s does not apply to %s (see %s-%s(8))",
				g->lng, c->name, bin_name, c->name);
			return -1;
		}
	}
	return 0;
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
			global_output |= 1u << (opt & 31);
			break;
		}
	}
	if (opt == TD_GETOPT_HELP) {
		usage(stdout);
		return 0;
	}
	if (opt == TD_GETOPT_ERROR)
		return finish(-1);
	td_parsing_options = false;
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
	td_cmd_name = c->name;
	if (!(c->flags & TD_CMD_RAW) && global_output_applies(c))
		return finish(-1);
	/* Each command parses its own options from a fresh getopt, the
	 * output options with them (td_getopt_next()); its output starts
	 * when they are read (td_getopt_end()).
	 */
	optind = 0;
	ret = c->func(argc, argv);
	return finish(ret);
}
