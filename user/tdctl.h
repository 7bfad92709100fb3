/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TDCTL_H
#define TDCTL_H

#include <stdbool.h>
#include <stdio.h>

#include <linux/topdown.h>

#include "json_writer.h"

#define TDCTL_VERSION "0.1"

/* Global output options, set by main() from -j/--json, -p/--pretty,
 * --csv before the command runs.
 */
extern bool json_output;
extern bool csv_output;
extern json_writer_t *json_wtr;	/* non-NULL iff json_output */
extern const char *bin_name;

/* One line on stderr ("tdctl: Error: ..."), or in JSON mode an
 * {"error": "..."} object on the JSON stream. Commands return -1 after it.
 */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Informational line on stderr; silent in JSON mode. */
void p_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Warning on stderr in every mode: lost data is never hidden. */
void p_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
	const char *help;	/* one-line synopsis for `tdctl help` */
};

/* Dispatch argv[0] among cmds by unique prefix (an exact match wins).
 * Ambiguous and unknown names are errors listing the candidates.
 */
int cmd_select(const struct cmd *cmds, int argc, char **argv,
	       const char *what);

/* Parse a non-negative integer argument strictly (whole string, decimal or
 * 0x hex, no overflow). Returns 0 or -1 after p_err() naming the option.
 */
int parse_u64(const char *opt, const char *s, unsigned long long max,
	      unsigned long long *out);

/* Commands. */
int do_load(int argc, char **argv);
int do_unload(int argc, char **argv);
int do_status(int argc, char **argv);
int do_dump(int argc, char **argv);
int do_list(int argc, char **argv);	/* evset_cmd.c */
int do_decode(int argc, char **argv);	/* evset_cmd.c */

#endif
