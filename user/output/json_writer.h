/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer: every tdctl command writes its JSON output
 * through one of these, so -j/--json and -p/--pretty behave the same
 * everywhere. Commas and indentation are handled here; callers only open
 * and close objects and arrays and emit names and values.
 */
#ifndef TDCTL_JSON_WRITER_H
#define TDCTL_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct json_writer json_writer_t;

json_writer_t *jsonw_new(FILE *f);
void jsonw_destroy(json_writer_t **self);
void jsonw_pretty(json_writer_t *self, bool on);
/* Nesting depth; 0 once every object and array is closed. */
int jsonw_depth(const json_writer_t *self);
void jsonw_flush(json_writer_t *self);
/* End a top-level document with a newline (streams of one per line). */
void jsonw_newline(json_writer_t *self);
/* A stream of documents (top, stat -I, dump --follow), each ended by
 * jsonw_newline(): one per line (JSON Lines), or, pretty, the items of
 * one indented array that jsonw_stream_end() closes, so that the whole
 * output is one JSON document, never documents run together.
 */
void jsonw_stream_begin(json_writer_t *self);
void jsonw_stream_end(json_writer_t *self);

void jsonw_start_object(json_writer_t *self);
void jsonw_end_object(json_writer_t *self);
void jsonw_start_array(json_writer_t *self);
void jsonw_end_array(json_writer_t *self);

void jsonw_name(json_writer_t *self, const char *name);
void jsonw_string(json_writer_t *self, const char *value);
/* Like jsonw_string() but for a buffer that need not be NUL-terminated. */
void jsonw_string_n(json_writer_t *self, const char *value, size_t len);
void jsonw_uint(json_writer_t *self, uint64_t value);
void jsonw_int(json_writer_t *self, int64_t value);
/* Non-finite values (NaN, inf) are written as null. */
void jsonw_float(json_writer_t *self, double value);
void jsonw_bool(json_writer_t *self, bool value);
void jsonw_null(json_writer_t *self);

/* For a caller that writes a compact value itself (a fast path): NULL
 * when the output is pretty (use the calls above), else the separator to
 * write before the value ("", "," or "\n"); the value counts as written.
 */
const char *jsonw_raw_begin(json_writer_t *self);
/* One compact JSON value s[0..len) (as a fast path writes it) as the
 * next value: as it is, or re-indented when the output is pretty.
 */
void jsonw_raw_value(json_writer_t *self, const char *s, size_t len);
/* s[0..len) as a JSON string with its quotes, into dst (room for
 * 6 * len + 2 bytes); returns the length.
 */
size_t jsonw_escape(char *dst, const char *s, size_t len);

void jsonw_string_field(json_writer_t *self, const char *name, const char *v);
void jsonw_uint_field(json_writer_t *self, const char *name, uint64_t v);
void jsonw_int_field(json_writer_t *self, const char *name, int64_t v);
void jsonw_float_field(json_writer_t *self, const char *name, double v);
void jsonw_bool_field(json_writer_t *self, const char *name, bool v);
void jsonw_null_field(json_writer_t *self, const char *name);

struct topdown_event;
/* The fields that name an event (name, type, config, config1, config2),
 * into the object the caller has opened.
 */
void jsonw_event_fields(json_writer_t *self, const struct topdown_event *e);

#endif
