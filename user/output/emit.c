// SPDX-License-Identifier: GPL-2.0
/* The row emitter: plain tables, JSON, CSV (see emit.h). */
#include <inttypes.h>
#include <string.h>

#include "base/common.h"
#include "output/emit.h"
#include "output/text.h"

void td_emit_init(struct td_emit *e, FILE *f)
{
	memset(e, 0, sizeof(*e));
	e->f = f;
	e->fmt = json_output ? TD_EMIT_JSON : csv_output ? TD_EMIT_CSV :
		 TD_EMIT_PLAIN;
	e->jw = json_wtr;
	csvw_init(&e->csv, f);
}

static bool shown(const struct td_emit *e, const struct td_field *f)
{
	return f->in & (1u << e->fmt);
}

int td_big_num(char *dst, uint64_t v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "%" PRIu64, v), len = 0;

	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			dst[len++] = ',';
		dst[len++] = tmp[i];
	}
	dst[len] = '\0';
	return len;
}

/* ---- plain ------------------------------------------------------------ */

/* Append s to the line, cut at the emitter's width. */
static void put(const struct td_emit *e, char *line, size_t *len, size_t cap,
		const char *s)
{
	size_t max = e->width > 0 && (size_t)e->width < cap ?
		     (size_t)e->width : cap - 1;

	while (*s && *len < max)
		line[(*len)++] = *s++;
	line[*len] = '\0';
}

/* The cell of f in the current row: text aligned to the field's width,
 * of which extra bytes take no column (UTF-8).
 */
static void set_cell_w(struct td_emit *e, const struct td_field *f,
		       const char *text, int extra)
{
	int w = (f->width < 0 ? -f->width : f->width) + extra;
	char marked[TD_EMIT_CELL];

	if (f->col < 0 || f->col >= TD_EMIT_MAX_COLS)
		return;
	if (e->mark || e->flag) {
		snprintf(marked, sizeof(marked), "%.1s%s%.1s", &e->mark, text,
			 &e->flag);
		text = marked;
		e->mark = 0;
		e->flag = 0;
	}
	snprintf(e->cell[f->col], TD_EMIT_CELL, "%*s",
		 f->width < 0 ? -w : w, text);
	e->has[f->col] = true;
	if (f->col >= e->nr_cells)
		e->nr_cells = f->col + 1;
}

static void set_cell(struct td_emit *e, const struct td_field *f,
		     const char *text)
{
	set_cell_w(e, f, text, 0);
}

static void plain_line(struct td_emit *e)
{
	char line[16384];
	size_t len = 0;
	bool first = true;

	line[0] = '\0';
	if (e->prefix)
		put(e, line, &len, sizeof(line), e->prefix);
	for (int i = 0; i < e->nr_cells; i++) {
		if (!e->has[i])
			continue;
		if (!first)
			put(e, line, &len, sizeof(line), " ");
		first = false;
		put(e, line, &len, sizeof(line), e->cell[i]);
	}
	fprintf(e->f, "%s\n", line);
}

void td_emit_header(struct td_emit *e, const struct td_field *fields,
		    int n, const char *prefix)
{
	switch (e->fmt) {
	case TD_EMIT_PLAIN:
		td_emit_begin(e, NULL, prefix);
		for (int i = 0; i < n; i++) {
			const struct td_field *f = &fields[i];
			int w = f->width < 0 ? -f->width : f->width;
			const char *title = f->title ? f->title : f->name;
			char t[TD_TEXT_SIZE(TD_EMIT_CELL / 4)];
			size_t len, cols;

			if (!shown(e, f))
				continue;
			/* The text of a name from a file (output/text.h),
			 * cut at the width; tables size their columns to
			 * their titles.
			 */
			len = td_text_cut(t, title, strnlen(title,
							    TD_EMIT_CELL / 4),
					  w > 0 ? (size_t)w : 64, &cols);
			set_cell_w(e, f, t, (int)(len - cols));
		}
		td_emit_end(e);
		break;
	case TD_EMIT_CSV:
		for (int i = 0; i < n; i++)
			if (shown(e, &fields[i]))
				csvw_name(&e->csv, fields[i].name);
		csvw_end_row(&e->csv);
		break;
	case TD_EMIT_JSON:
		break;
	}
}

/* ---- rows ------------------------------------------------------------- */

void td_emit_list_begin(struct td_emit *e, const char *name)
{
	if (e->fmt != TD_EMIT_JSON)
		return;
	jsonw_name(e->jw, name);
	jsonw_start_array(e->jw);
}

void td_emit_list_end(struct td_emit *e)
{
	if (e->fmt == TD_EMIT_JSON)
		jsonw_end_array(e->jw);
}

void td_emit_begin(struct td_emit *e, const char *name, const char *prefix)
{
	e->object = NULL;
	e->mark = 0;
	e->flag = 0;
	switch (e->fmt) {
	case TD_EMIT_PLAIN:
		e->prefix = prefix;
		e->nr_cells = 0;
		memset(e->has, 0, sizeof(e->has));
		break;
	case TD_EMIT_JSON:
		if (name)
			jsonw_name(e->jw, name);
		jsonw_start_object(e->jw);
		break;
	case TD_EMIT_CSV:
		break;
	}
}

void td_emit_end(struct td_emit *e)
{
	switch (e->fmt) {
	case TD_EMIT_PLAIN:
		plain_line(e);
		break;
	case TD_EMIT_JSON:
		if (e->object)
			jsonw_end_object(e->jw);
		e->object = NULL;
		jsonw_end_object(e->jw);
		break;
	case TD_EMIT_CSV:
		csvw_end_row(&e->csv);
		break;
	}
}

static void json_into(struct td_emit *e, const char *o)
{
	if (o == e->object || (o && e->object && !strcmp(o, e->object)))
		return;
	if (e->object)
		jsonw_end_object(e->jw);
	if (o) {
		jsonw_name(e->jw, o);
		jsonw_start_object(e->jw);
	}
	e->object = o;
}

void td_emit_object(struct td_emit *e, const char *name)
{
	if (e->fmt == TD_EMIT_JSON)
		json_into(e, name);
}

/* JSON: the name of f, inside its object. */
static void json_name(struct td_emit *e, const struct td_field *f)
{
	json_into(e, f->object);
	jsonw_name(e->jw, f->name);
}

/* A count in one unit of 1000^unit with one decimal: 11.0M. */
static void in_unit(char *buf, size_t n, uint64_t v, int unit)
{
	static const char sym[] = "KMGTPE";
	double d = (double)v;

	for (int i = 0; i < unit; i++)
		d /= 1000;
	snprintf(buf, n, "%.1f%c", d, sym[unit - 1]);
}

void td_emit_uint(struct td_emit *e, const struct td_field *f, uint64_t v)
{
	char s[32];

	if (!shown(e, f))
		return;
	switch (e->fmt) {
	case TD_EMIT_PLAIN:
		if ((f->flags & TD_FIELD_COUNT) && f->unit > 0 && f->unit <= 6)
			in_unit(s, sizeof(s), v, f->unit);
		else if ((f->flags & TD_FIELD_COUNT) && e->big_num)
			td_big_num(s, v);
		else
			snprintf(s, sizeof(s), "%" PRIu64, v);
		set_cell(e, f, s);
		break;
	case TD_EMIT_JSON:
		json_name(e, f);
		jsonw_uint(e->jw, v);
		break;
	case TD_EMIT_CSV:
		csvw_uint(&e->csv, v);
		break;
	}
}

void td_emit_bool(struct td_emit *e, const struct td_field *f, bool v)
{
	if (!shown(e, f))
		return;
	switch (e->fmt) {
	case TD_EMIT_PLAIN:
		set_cell(e, f, v ? "true" : "false");
		break;
	case TD_EMIT_JSON:
		json_name(e, f);
		jsonw_bool(e->jw, v);
		break;
	case TD_EMIT_CSV:
		csvw_bool(&e->csv, v);
		break;
	}
}

void td_emit_float(struct td_emit *e, const struct td_field *f, double v,
		   bool valid)
{
	char s[64];

	if (!shown(e, f))
		return;
	switch (e->fmt) {
	case TD_EMIT_PLAIN:
		if (!valid)
			snprintf(s, sizeof(s), "-");
		else if (f->flags & TD_FIELD_PERCENT)
			snprintf(s, sizeof(s), "%.1f%%", 100.0 * v);
		else
			snprintf(s, sizeof(s), "%.*f", f->prec, v);
		set_cell(e, f, s);
		break;
	case TD_EMIT_JSON:
		json_name(e, f);
		if (valid)
			jsonw_float(e->jw, v);
		else
			jsonw_null(e->jw);
		break;
	case TD_EMIT_CSV:
		if (valid)
			csvw_float(&e->csv, v);
		else
			csvw_empty(&e->csv);
		break;
	}
}

void td_emit_str(struct td_emit *e, const struct td_field *f, const char *s,
		 size_t n)
{
	char t[TD_EMIT_CELL];
	size_t i;

	if (!shown(e, f))
		return;
	switch (e->fmt) {
	case TD_EMIT_PLAIN:
		for (i = 0; i < n && i < sizeof(t) - 1 && s[i]; i++)
			t[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ?
			       '?' : s[i];
		t[i] = '\0';
		set_cell(e, f, t);
		break;
	case TD_EMIT_JSON:
		json_name(e, f);
		jsonw_string_n(e->jw, s, n);
		break;
	case TD_EMIT_CSV:
		csvw_str_n(&e->csv, s, n);
		break;
	}
}

void td_emit_text(struct td_emit *e, const struct td_field *f,
		  const char *s, size_t n)
{
	char t[TD_TEXT_SIZE(TD_EMIT_CELL / 4)];
	size_t cols, len;

	if (!shown(e, f))
		return;
	len = td_text(t, s, n < TD_EMIT_CELL / 4 ? n : TD_EMIT_CELL / 4,
		      &cols);
	switch (e->fmt) {
	case TD_EMIT_PLAIN:
		set_cell_w(e, f, t, (int)(len - cols));
		break;
	case TD_EMIT_JSON:
		json_name(e, f);
		jsonw_string_n(e->jw, t, len);
		break;
	case TD_EMIT_CSV:
		csvw_str_n(&e->csv, t, len);
		break;
	}
}

void td_emit_word(struct td_emit *e, const struct td_field *f,
		  const char *s)
{
	if (!shown(e, f))
		return;
	switch (e->fmt) {
	case TD_EMIT_PLAIN:
		set_cell(e, f, s);
		break;
	case TD_EMIT_JSON:
		json_name(e, f);
		jsonw_string(e->jw, s);
		break;
	case TD_EMIT_CSV:
		csvw_str(&e->csv, s);
		break;
	}
}

void td_emit_uword(struct td_emit *e, const struct td_field *f,
		   const char *s)
{
	int extra = 0;

	if (!shown(e, f))
		return;
	if (e->fmt != TD_EMIT_PLAIN) {
		td_emit_word(e, f, s);
		return;
	}
	/* UTF-8 continuation bytes take no column */
	for (const char *p = s; *p; p++)
		extra += ((unsigned char)*p & 0xc0) == 0x80;
	set_cell_w(e, f, s, extra);
}

void td_emit_null(struct td_emit *e, const struct td_field *f)
{
	if (!shown(e, f))
		return;
	switch (e->fmt) {
	case TD_EMIT_PLAIN:
		set_cell(e, f, "");
		break;
	case TD_EMIT_JSON:
		json_name(e, f);
		jsonw_null(e->jw);
		break;
	case TD_EMIT_CSV:
		csvw_empty(&e->csv);
		break;
	}
}

void td_emit_skip(struct td_emit *e, const struct td_field *f)
{
	if (shown(e, f) && e->fmt == TD_EMIT_CSV)
		csvw_empty(&e->csv);
}

json_writer_t *td_emit_json(struct td_emit *e)
{
	if (e->fmt != TD_EMIT_JSON)
		return NULL;
	json_into(e, NULL);
	return e->jw;
}

void td_json_lost(json_writer_t *w, const struct td_lost *l, bool per_cpu)
{
	if (per_cpu && l->known) {
		jsonw_name(w, "lost_per_cpu");
		jsonw_start_array(w);
		for (uint32_t c = 0; c < l->nr_cpus; c++)
			jsonw_uint(w, l->per_cpu[c]);
		jsonw_end_array(w);
	} else if (per_cpu) {
		jsonw_null_field(w, "lost_per_cpu");
	}
	if (l->known)
		jsonw_uint_field(w, "lost", l->total);
	else
		jsonw_null_field(w, "lost");
}

void td_emit_mark(struct td_emit *e, char c)
{
	if (e->fmt == TD_EMIT_PLAIN)
		e->mark = c;
}

void td_emit_flag(struct td_emit *e, char c)
{
	if (e->fmt == TD_EMIT_PLAIN)
		e->flag = c;
}
