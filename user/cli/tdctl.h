/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TDCTL_H
#define TDCTL_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/topdown.h>

#include "base/common.h"
#include "output/csv_writer.h"
#include "output/json_writer.h"

/* user/cmd/version.c: TDCTL_VERSION as given by user/Makefile. */
extern const char tdctl_version[];
/* tdctl's version and ABI, then the loaded module's: 'tdctl --version'. */
void td_print_version(void);
/* The "tdctl_version", "tdctl_abi_version", "module_version" fields
 * (JSON) or the "version:" line (text) of 'tdctl status'.
 */
void td_status_versions(void);

/*
 * The command grammar. One table (td_cmds in tdctl.c) names every command
 * and, through struct td_opt, every option and the kind of its argument,
 * the output options included. The same table drives prefix matching,
 * getopt, the synopsis and --help, help --json, and shell completion
 * (`tdctl __complete`); host tests check that the man pages and every
 * command's --help name the same options.
 */
enum td_arg {
	TD_ARG_NONE,	/* a flag */
	TD_ARG_NUM,	/* a number: nothing to complete */
	TD_ARG_WORD,	/* free text: nothing to complete */
	TD_ARG_FILE,	/* a path: completes file names */
	TD_ARG_DIR,	/* a directory */
	TD_ARG_PID,	/* one process id: completes running PIDs */
	TD_ARG_PIDS,	/* PID[,PID..] */
	TD_ARG_CPU,	/* a CPU number */
	TD_ARG_SET,	/* an event set name */
	TD_ARG_EVENTS,	/* perf's event list: completes perf's event names */
	TD_ARG_BY,	/* a key of --by: task, process, comm, cgroup, cpu */
	TD_ARG_SORT,	/* a column to sort by */
	TD_ARG_BACKEND,	/* module, bpf or auto */
};

struct td_opt {
	const char *lng;	/* long name, without "--" */
	int shrt;		/* short option letter, or 0 */
	int id;			/* getopt's value: shrt, or a code >= 256 */
	enum td_arg arg;
	const char *meta;	/* the argument in help, e.g. "PID[,PID..]" */
	const char *help;	/* one line */
	unsigned int flags;	/* TD_OPTF_* */
};

/* An output option: parsed by the grammar itself (td_getopt_next()),
 * listed apart in --help; the same anywhere on the line (before the
 * command too).
 */
#define TD_OPTF_OUTPUT	0x1

#define TD_OPT_HELP	{ "help", 'h', 'h', TD_ARG_NONE, NULL, "this help", 0 }
#define TD_OPT_END	{ NULL, 0, 0, TD_ARG_NONE, NULL, NULL, 0 }

/*
 * The output options. A command's table lists those it honours: an
 * output option it cannot honour (timeline's trace is JSON, whatever
 * --csv says) is refused as a usage error wherever it is on the line.
 */
#define TD_OPT_OUT_JSON	{ "json", 'j', 'j', TD_ARG_NONE, NULL, "JSON output", \
			  TD_OPTF_OUTPUT }
#define TD_OPT_OUT_PRETTY { "pretty", 0, 'P', TD_ARG_NONE, NULL, \
			    "indented JSON output (implies --json)", \
			    TD_OPTF_OUTPUT }
#define TD_OPT_OUT_CSV	{ "csv", 0, 'C', TD_ARG_NONE, NULL, "CSV output", \
			  TD_OPTF_OUTPUT }
#define TD_OPT_OUT_FILE	{ "output", 'o', 'o', TD_ARG_FILE, "FILE", \
			  "write the output to FILE instead of stdout", \
			  TD_OPTF_OUTPUT }
#define TD_OPT_OUTPUT_NO_FILE	TD_OPT_OUT_JSON, TD_OPT_OUT_PRETTY, TD_OPT_OUT_CSV
#define TD_OPT_OUTPUT	TD_OPT_OUTPUT_NO_FILE, TD_OPT_OUT_FILE

/*
 * Options that several commands share, with the ids the library parses
 * them by (td_filter_opt() in aggregate.h, td_target_opt() in target.h,
 * td_view_sort_by()). One letter means one thing on every command line:
 * -p is always a PID (as in perf), so --pretty has no short form.
 */
/* The one filter set (agg/aggregate.h's td_filter): every command
 * that reads records takes all of it; stat, whose -p is its target (the
 * processes it counts until they exit), takes the rest.
 */
#define TD_OPT_FILTERS_NOPID \
	{ "tid", 0, TD_FILTER_TID, TD_ARG_PIDS, "TID[,TID..]", \
	  "only slices of these threads", 0 }, \
	{ "cpu", 0, TD_FILTER_CPU, TD_ARG_CPU, "CPU[,CPU..]", \
	  "only slices on these CPUs", 0 }, \
	{ "cgroup", 0, TD_FILTER_CGROUP, TD_ARG_WORD, "ID[,ID..]|PATH", \
	  "only slices of these cgroups (ids, or a cgroup v2 path here)", 0 }, \
	{ "comm", 0, TD_FILTER_COMM, TD_ARG_WORD, "NAME", \
	  "only slices of tasks with this comm", 0 }
#define TD_OPT_FILTERS \
	{ "pid", 'p', TD_FILTER_PID, TD_ARG_PIDS, "PID[,PID..]", \
	  "only slices of these processes (or threads)", 0 }, \
	TD_OPT_FILTERS_NOPID, \
	{ "from", 0, TD_FILTER_FROM, TD_ARG_NUM, "S", \
	  "only slices that end after S seconds into the recording", 0 }, \
	{ "to", 0, TD_FILTER_TO, TD_ARG_NUM, "S", \
	  "only slices that start before S seconds into the recording", 0 }
#define TD_OPT_SORT { "sort", 0, 'S', TD_ARG_SORT, "COLUMN", \
		      "sort by a column: its title as the table prints it (any case), " \
		      "its JSON name, time or cycles", 0 }
#define TD_OPT_TABLE \
	{ "metric-only", 0, TD_TABLE_METRIC_ONLY, TD_ARG_NONE, NULL, \
	  "only the metrics, not the event counts (as perf stat --metric-only)", 0 }, \
	{ "big-num", 0, TD_TABLE_BIG_NUM, TD_ARG_NONE, NULL, \
	  "group the digits of counts in tables (1,234,567)", 0 }
#define TD_OPT_ALL	{ "all-cpus", 'a', TD_TARGET_ALL, TD_ARG_NONE, NULL, \
			  "every task on every CPU (the default)", 0 }
#define TD_OPT_PIDS	{ "pid", 'p', TD_TARGET_PIDS, TD_ARG_PIDS, "PID[,PID..]", \
			  "only these processes (or threads), until they exit", 0 }
#define TD_OPT_DURATION	{ "duration", 0, TD_TARGET_DURATION, TD_ARG_NUM, "S", \
			  "stop after S seconds (fractions allowed)", 0 }
/* For commands with no option of their own: help and output. */
extern const struct td_opt td_help_only_opts[];

struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
	const char *operands;	/* after the options in the synopsis, or "" */
	const struct td_opt *opts;	/* its options, TD_OPT_END-terminated */
	unsigned int flags;	/* TD_CMD_* */
};

#define TD_CMD_ARGV	(1u << 1)	/* ends with [--] COMMAND [ARGS] */
#define TD_CMD_NAMEARG	(1u << 2)	/* takes a tdctl command name */
#define TD_CMD_HIDDEN	(1u << 3)	/* not listed, not prefix-matched */
#define TD_CMD_RAW	(1u << 5)	/* its arguments are not options */

/* The synopsis, from the table: "NAME [-s|--long META]... OPERANDS"
 * (the command's own options; the output options are listed apart).
 */
void td_cmd_synopsis(const struct cmd *c, char *buf, size_t n);

/* The command table (NULL-terminated), the output options (before the
 * command; after it, those of the command's table) and the options that
 * only come before the command (both TD_OPT_END-terminated; -h/--help
 * is in each command's own table).
 */
extern const struct cmd td_cmds[];
extern const struct td_opt td_output_opts[];
extern const struct td_opt td_global_opts[];

/* Find argv[0] among cmds by unique prefix (an exact match wins); NULL if
 * none or several match (*nmatch says how many).
 */
const struct cmd *cmd_find(const struct cmd *cmds, const char *name,
			   int *nmatch);
/* Dispatch argv[0] among cmds by unique prefix. Ambiguous and unknown
 * names are errors listing the candidates.
 */
int cmd_select(const struct cmd *cmds, int argc, char **argv,
	       const char *what);

/* A command's --help from the table: "Usage: tdctl SYNOPSIS", the
 * description, its options, the output options it takes, its man page.
 */
void td_cmd_usage(FILE *f, const char *name, const char *description);

/*
 * A usage error (base/common.h): the command line does not parse
 * (unknown command or option, missing or unexpected argument, options
 * that exclude each other, a bad value). Reported as every other error
 * (p_err(): plain text on stderr, a JSON object with --json), with a
 * one-line hint naming the --help to read (cmd: a command's name or
 * unique prefix; NULL: tdctl's own), and tdctl exits with status 2.
 */
void p_usage(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* getopt_long() over a table-driven command's options. */
#define TD_GETOPT_MAX	48
struct td_getopt {
	struct option lo[TD_GETOPT_MAX + 1];
	char so[3 * TD_GETOPT_MAX + 3];
	const char *cmd;	/* its name in td_cmds, NULL: the global options */
	const char *desc;	/* the description in its --help */
	const struct td_opt *opts;	/* the command's table */
};

#define TD_GETOPT_END	(-1)	/* no more options */
#define TD_GETOPT_HELP	(-2)	/* -h: the usage is printed, exit 0 */
#define TD_GETOPT_ERROR	(-3)	/* bad option: reported by p_usage() */

void td_getopt_build(struct td_getopt *g, const char *cmd, const char *desc);
/* The next option's id, or one of TD_GETOPT_*. */
int td_getopt_next(struct td_getopt *g, int argc, char **argv);
/* After the loop that ended with opt: 1 to go on, else what the command
 * returns (0 after --help, -1 after a usage error). Arguments left over
 * are a usage error unless the command takes operands. The output the
 * options asked for starts here (-o FILE, the JSON writer).
 */
int td_getopt_end(int opt, int argc, char **argv, bool operands);
/* The whole parse of a command that has no option but --help. */
int td_no_options(int argc, char **argv, const char *desc);
/*
 * The input record file of report, dump -i, top -i and timeline -i:
 * refused when it is also the -o output (out: the command's own -o, NULL:
 * the global one), loaded and checked (td_file_load_flags(), fn called
 * per block); flags are td_file_load_flags()'s: with TD_FILE_SALVAGE
 * (--force), an interrupted recording is read up to its last good record,
 * with a warning saying what was not read; with TD_FILE_GROUPS the reader
 * shows recordings with event groups (format 2.x). 0, or -1 after
 * p_err().
 */
struct td_file;
struct td_file_image;
int td_input_load(const char *path, const char *out,
		  struct td_file_image *img, struct td_file *f,
		  void (*fn)(const struct td_file *f, uint64_t first,
			     uint64_t n, void *ctx),
		  void *ctx, unsigned int flags);
#define TD_OPT_FORCE { "force", 0, 'F', TD_ARG_NONE, NULL, \
		       "read an interrupted recording up to its last good record", 0 }

/*
 * Nothing collects (status) or the module cannot be had (load): what
 * 'tdctl load' would run on this machine and how, the CPU, the event set
 * it would choose, each backend and whether it can run, in the output
 * format; error (NULL: none) is the reason load stopped. Returns
 * TD_EXIT_NOT_RUNNING (cmd/load.c).
 */
int td_explain_not_running(const char *error);

/*
 * decode once its options are read (cmd/decode.c): the counts of in (its
 * set, --level, -M and separator set; input/counts.h) given as
 * EVENT=COUNT arguments argv[0..argc), or without them read from stdin,
 * decoded and printed. The fuzz target of decode's parsers
 * (selftests/fuzz/fuzz_decode.c) enters here. 0, or -1 after p_err().
 */
struct decode_in;
int decode_run(struct decode_in *in, const char *slots, const char *rev,
	       int argc, char **argv);

/* Commands. */
int do_load(int argc, char **argv);
int do_unload(int argc, char **argv);
int do_status(int argc, char **argv);
int do_version(int argc, char **argv);
int do_dump(int argc, char **argv);
int do_list(int argc, char **argv);	/* cmd/list.c */
int do_decode(int argc, char **argv);	/* cmd/decode.c */
int do_stat(int argc, char **argv);	/* cmd/stat.c */
int do_top(int argc, char **argv);	/* cmd/top.c */
int do_record(int argc, char **argv);	/* cmd/record.c */
int do_report(int argc, char **argv);	/* cmd/report.c */
int do_complete(int argc, char **argv);	/* cmd/completion.c */
int do_timeline(int argc, char **argv);	/* cmd/timeline.c */
int do_serve(int argc, char **argv);	/* cmd/serve.c */

/* Option tables of the commands, next to their code. */
extern const struct td_opt dump_opts[], stat_opts[], top_opts[],
	record_opts[], report_opts[], timeline_opts[], serve_opts[],
	load_opts[], list_opts[], decode_opts[];

/* Return value of a command: 0 success, -1 error (exit status 1), or a
 * positive exit status passed through (stat -- COMMAND).
 */

#endif
