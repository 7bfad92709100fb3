/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One row emitter for the three output formats. A command describes its
 * fields once (struct td_field: the JSON key and CSV column, the plain
 * table's title, width and column) and writes each row's values once
 * (td_emit_uint(), td_emit_float(), ...); the emitter turns them into
 * a plain-text table line, a JSON object (through json_writer) or a CSV
 * line (through csv_writer).
 *
 * Fields are written in their JSON/CSV order. A plain table may show them
 * in another order (td_field.col: metrics before raw counts, for example):
 * the cells of a row are collected and the line is written at
 * td_emit_end(). A field can be limited to some formats (td_field.in),
 * e.g. run time in milliseconds for people and in nanoseconds for
 * programs. JSON fields with an object (td_field.object) go into a nested
 * object of that name, opened and closed as the object changes.
 */
#ifndef TDCTL_EMIT_H
#define TDCTL_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output/csv_writer.h"
#include "output/json_writer.h"

enum td_emit_fmt { TD_EMIT_PLAIN, TD_EMIT_JSON, TD_EMIT_CSV };

#define TD_IN_PLAIN	(1u << TD_EMIT_PLAIN)
#define TD_IN_JSON	(1u << TD_EMIT_JSON)
#define TD_IN_CSV	(1u << TD_EMIT_CSV)
#define TD_IN_ALL	(TD_IN_PLAIN | TD_IN_JSON | TD_IN_CSV)

/* td_field.flags */
#define TD_FIELD_PERCENT	0x1	/* plain: a fraction as "12.3%" */
#define TD_FIELD_COUNT		0x2	/* plain: thousands separators, units */

/* Plain columns of a row: a rotated configuration's table has the keys,
 * up to 32 counts and up to 128 metrics.
 */
#define TD_EMIT_MAX_COLS	176
/* A cell holds the text (output/text.h) of an event name: 4 bytes per
 * byte of the name at most.
 */
#define TD_EMIT_CELL		(4 * 32 + 32)	/* 32: TOPDOWN_NAME_LEN */

struct td_field {
	const char *name;	/* JSON key, CSV column */
	const char *title;	/* plain header; NULL: name */
	const char *object;	/* JSON: nested object (e.g. "counts") */
	unsigned int in;	/* TD_IN_*: the formats that show it */
	unsigned int flags;	/* TD_FIELD_* */
	int col;		/* plain: column, 0 first */
	int width;		/* plain: > 0 right-, < 0 left-aligned */
	int prec;		/* plain: decimals of a float */
	int unit;		/* plain TD_FIELD_COUNT: 0, or the value in
				 * units of 1000^unit (K, M, G, ...) with one
				 * decimal, the same unit for the whole column
				 */
};

struct td_emit {
	enum td_emit_fmt fmt;
	FILE *f;
	json_writer_t *jw;	/* TD_EMIT_JSON */
	struct csv_writer csv;
	const char *object;	/* JSON: the nested object that is open */
	bool big_num;		/* plain: 1,234,567 */
	int width;		/* plain: lines cut at width (0: not cut) */
	char mark;		/* plain: prefix of the next cell, or 0 */
	char flag;		/* plain: suffix of the next cell, or 0 */
	/* plain: the cells of the current row, by column */
	const char *prefix;
	int nr_cells;
	bool has[TD_EMIT_MAX_COLS];
	char cell[TD_EMIT_MAX_COLS][TD_EMIT_CELL];
};

/* The format from the global output options (json_output, csv_output). */
void td_emit_init(struct td_emit *e, FILE *f);

/* Header: a plain table's titles (after prefix, e.g. "    time_s "), or
 * the CSV header line; nothing in JSON.
 */
void td_emit_header(struct td_emit *e, const struct td_field *fields,
		    int n, const char *prefix);

/* JSON: an array under name; nothing in the other formats. */
void td_emit_list_begin(struct td_emit *e, const char *name);
void td_emit_list_end(struct td_emit *e);

/* A row: a JSON object (named when name is not NULL), a CSV line, a plain
 * line starting with prefix (NULL: none).
 */
void td_emit_begin(struct td_emit *e, const char *name, const char *prefix);
void td_emit_end(struct td_emit *e);

/* JSON: the following fields go into the object name (opened here even
 * if none follows); nothing in the other formats.
 */
void td_emit_object(struct td_emit *e, const char *name);

void td_emit_uint(struct td_emit *e, const struct td_field *f, uint64_t v);
void td_emit_bool(struct td_emit *e, const struct td_field *f, bool v);
/* Invalid: JSON null, an empty CSV field, "-" in a table. */
void td_emit_float(struct td_emit *e, const struct td_field *f, double v,
		   bool valid);
/* Text: up to n bytes of s (to a NUL); control bytes are '?' in a table. */
void td_emit_str(struct td_emit *e, const struct td_field *f, const char *s,
		 size_t n);
/* Bytes from the kernel (a comm: up to n bytes of s, to a NUL) by the
 * one rule of output/text.h, the same text in every format; a table
 * pads it by characters, not bytes.
 */
void td_emit_text(struct td_emit *e, const struct td_field *f,
		  const char *s, size_t n);
/* A keyword or a text the caller formatted ("counting", "12.3%"): a
 * string in JSON, so quoted in CSV as every text field is (tdctl(8)).
 */
void td_emit_word(struct td_emit *e, const struct td_field *f,
		  const char *s);
/* The same for a word with UTF-8 characters ("12.3\u00b11.0%"): a table
 * pads it by characters, not bytes.
 */
void td_emit_uword(struct td_emit *e, const struct td_field *f,
		   const char *s);
/* No value: JSON null, an empty CSV field, a blank cell in a table. */
void td_emit_null(struct td_emit *e, const struct td_field *f);
/* A CSV field left empty (a key of the total row); nothing elsewhere. */
void td_emit_skip(struct td_emit *e, const struct td_field *f);
/* The JSON writer inside the current row, for a nested value the fields
 * cannot describe; NULL in the other formats.
 */
json_writer_t *td_emit_json(struct td_emit *e);
/* Plain: put c before the next cell (the toplev-style bottleneck mark). */
void td_emit_mark(struct td_emit *e, char c);
/* Plain: put c after the next cell ('!': a fraction outside 0..100%). */
void td_emit_flag(struct td_emit *e, char c);

/* JSON: "lost": N, or null when not known (base/common.h's td_lost);
 * with per_cpu also "lost_per_cpu": [N, ...] or null.
 */
struct td_lost;
void td_json_lost(json_writer_t *w, const struct td_lost *l, bool per_cpu);

/* --big-num: "1234567" with thousands separators, "1,234,567", into dst
 * (room for 27 bytes); the length.
 */
int td_big_num(char *dst, uint64_t v);

#endif
