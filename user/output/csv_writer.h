/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small CSV writer: every tdctl command writes its --csv output through
 * it, as --json goes through the JSON writer. RFC 4180: a header line of
 * the field names (the JSON keys), then one line per row, each ended by a
 * LF. Text fields are always quoted, their double quotes doubled (so a
 * comma, quote or line break inside them is safe); numbers are bare;
 * booleans are true/false as in the JSON output; a missing value (JSON
 * null) is an empty field.
 */
#ifndef TDCTL_CSV_WRITER_H
#define TDCTL_CSV_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct csv_writer {
	FILE *f;
	int col;	/* fields written on the current line */
};

void csvw_init(struct csv_writer *w, FILE *f);
/* The header: the names, NULL-terminated, then the end of the line. */
void csvw_header(struct csv_writer *w, const char *const *names);
/* One name of a header built field by field (end it with csvw_end_row):
 * its text by the rule of output/text.h (an event name from a record
 * file), bare, or quoted when it holds a comma or a quote ("cyc,les").
 */
void csvw_name(struct csv_writer *w, const char *name);
/* The same without a separator, for code that writes its own. */
void csv_name(FILE *f, const char *name);

void csvw_str(struct csv_writer *w, const char *s);
/* Up to len bytes of s (stops at a NUL). */
void csvw_str_n(struct csv_writer *w, const char *s, size_t len);
void csvw_uint(struct csv_writer *w, uint64_t v);
void csvw_int(struct csv_writer *w, int64_t v);
/* The shortest text that reads back as v, as in JSON (td_fmt_shortest());
 * non-finite values (NaN, inf) are an empty field.
 */
void csvw_float(struct csv_writer *w, double v);
void csvw_bool(struct csv_writer *w, bool v);
void csvw_empty(struct csv_writer *w);
void csvw_end_row(struct csv_writer *w);

/* One text field, quoted, without a separator (at most len bytes, up to
 * a NUL): for code that writes its own separators.
 */
void csv_quote(FILE *f, const char *s, size_t len);

#endif
