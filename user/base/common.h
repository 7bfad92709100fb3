/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every part of tdctl shares, apart from the command grammar: the
 * output mode, the message functions and the strict argument parsers.
 * user/base/common.c is linked into tdctl and into the host unit tests
 * (selftests/host), so both run the same code.
 */
#ifndef TDCTL_COMMON_H
#define TDCTL_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Global output options, set by the CLI from -j/--json, --pretty, --csv
 * and -o/--output, given before the command or among its options, before
 * the command's output starts. base/ is the bottom layer: the JSON writer
 * (output/json_writer.h) is only named here.
 */
extern bool json_output;
extern bool csv_output;
struct json_writer;
extern struct json_writer *json_wtr;	/* non-NULL iff json_output */
/* How p_err() writes an error in JSON mode (as {"error": "..."} on the
 * JSON stream): set by the CLI with the writer; NULL: plain text.
 */
extern void (*td_json_error)(const char *msg);
extern const char *bin_name;
/* With -o FILE, stdout is FILE and this is a duplicate of the original
 * stdout (close-on-exec), for a command run by tdctl; -1 otherwise.
 */
extern int orig_stdout_fd;
/* -o FILE as given to main() (NULL: stdout, as -o -), for
 * td_check_input().
 */
extern const char *td_output_path;

/*
 * The one way a command writes a file named by the user (-o FILE, the
 * global one and those of record and timeline). Files written for the
 * user are never lost: a regular file (or a new one) is written through a
 * temporary file next to it (same directory, so rename() is atomic), with
 * the mode the file has or a new file would get and the owner and group
 * of the file it replaces (refused when they cannot be kept), renamed over
 * it by td_outfile_commit() when complete and removed by
 * td_outfile_abort(). A symbolic link is followed, a dangling one too: the
 * file it names is written, the link stays. Anything else that exists (a
 * character device such as /dev/null, a FIFO, a socket) is opened and
 * written in place, never replaced. "-" (stdout) is the caller's.
 */
struct td_outfile {
	char *final;		/* what the temporary file becomes */
	char *tmp;		/* NULL: written in place */
	int fd;			/* -1: closed */
};

/* 0 with o->fd open for writing (close-on-exec), or -1 after p_err()
 * (which names path, and the temporary file when it is what cannot be
 * created).
 */
int td_outfile_open(struct td_outfile *o, const char *path);
/* Until the command catches SIGINT, SIGTERM and SIGHUP itself, they
 * remove the temporary file (and end tdctl as they would).
 */
void td_outfile_guard(const struct td_outfile *o);
/* Is it written in place (not a regular file)? */
bool td_outfile_in_place(const struct td_outfile *o);
/* The data reached the disk (fsync) and the temporary file is now the
 * file; o->fd is closed unless keep_fd. 0, or -1 with errno set (the
 * temporary file is then removed).
 */
int td_outfile_commit(struct td_outfile *o, bool keep_fd);
/* Drop what was written: the temporary file is removed (a device or FIFO
 * keeps what reached it), o->fd closed.
 */
void td_outfile_abort(struct td_outfile *o);

/* Do a and b name the same existing file? */
bool td_same_file(const char *a, const char *b);
/* An input file that is also the global -o FILE, or out (a command's own
 * -o, NULL if none), would be overwritten by the output: 0, or -1 after
 * p_err().
 */
int td_check_input(const char *in, const char *out);

/* One line on stderr ("tdctl: Error: ..."), or in JSON mode an
 * {"error": "..."} object on the JSON stream. In CSV mode errors stay
 * plain text on stderr. Commands return -1 after it.
 */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Usage errors: the command line does not parse or asks for something
 * that cannot be (a bad option value, options that exclude each other).
 * tdctl exits with status 2 (TD_EXIT_USAGE) after one, 1 after any other
 * error. The CLI sets td_cmd_name once the command is known, and
 * td_parsing_options while its options are read: a p_err() then is a
 * usage error too (a parser of an option's value reports it). Every usage
 * error ends with the hint "; see 'tdctl CMD --help'".
 */
#define TD_EXIT_USAGE	2
/*
 * status and load when nothing can collect or nothing collects (no module
 * loaded or installed, no BPF backend running): they say what would run
 * and how, and exit with this status, which a script tells apart from a
 * failure (1) and a usage error (2), as systemctl status says 3 for a
 * unit that is not running.
 */
#define TD_EXIT_NOT_RUNNING	3
extern const char *td_cmd_name;
extern bool td_parsing_options;
extern bool td_usage_failed;
/* A usage error of command cmd (its full name; NULL: tdctl's own). */
void p_usage_cmd(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A usage error of the command being run (td_cmd_name). */
#define p_usage_error(...)	p_usage_cmd(td_cmd_name, __VA_ARGS__)

/* The last p_err() message ("" if none). Messages are never cut. */
const char *p_last_error(void);
/* Informational line on stderr; silent in JSON mode. */
void p_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Warning on stderr in every mode: lost data is never hidden. */
void p_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Records lost (a full ring): the one description every reader reports
 * from (report, dump, top, timeline, stat, record), the same way: a
 * count per CPU and their total, or unknown (a record file read without
 * its trailer), which JSON gives as null and text as "unknown", never 0.
 */
struct td_lost {
	bool known;
	uint32_t nr_cpus;
	const uint64_t *per_cpu;	/* nr_cpus counts; NULL: unknown */
	uint64_t total;
};

/* per_cpu NULL: unknown. */
void td_lost_set(struct td_lost *l, const uint64_t *per_cpu,
		 uint32_t nr_cpus);
/* A warning per CPU that lost records ("CPU 1: 3 records lost while
 * recording: the counts are low"); nothing when unknown (the loader of
 * the file warned).
 */
void td_lost_warn(const struct td_lost *l, const char *when);
/* "3 lost", "1 lost", "lost unknown" into buf. */
const char *td_lost_text(const struct td_lost *l, char *buf, size_t n);
/* "record" or "records" after n. */
const char *td_records(uint64_t n);

/* Parse a non-negative integer argument strictly (whole string, decimal or
 * 0x hex, no overflow). Returns 0 or -1 after p_err() naming the option.
 */
int parse_u64(const char *opt, const char *s, unsigned long long max,
	      unsigned long long *out);
/* parse_u64() of min..max: the message names that range. */
int parse_u64_range(const char *opt, const char *s, unsigned long long min,
		    unsigned long long max, unsigned long long *out);
/* A list ID[,ID..] of integers 0..max, appended to ids (at most cap in
 * all, *n of them there already). 0, or -1 after p_err() naming opt and
 * what was expected (meta, e.g. "PID[,PID..]").
 */
int parse_id_list(const char *opt, const char *meta, const char *s,
		  unsigned long long max, uint64_t *ids, int cap, int *n);
/* Seconds with an optional fraction ("2", "0.5", "1.25") as nanoseconds,
 * at most max_s seconds. 0 or -1 after p_err().
 */
int parse_seconds(const char *opt, const char *s, unsigned int max_s,
		  unsigned long long *ns);

/* CLOCK_MONOTONIC in nanoseconds: the one clock of intervals, timeouts
 * and durations (the module's record times are on the same clock).
 */
uint64_t td_now_ns(void);

#endif
