// SPDX-License-Identifier: GPL-2.0
/* The CSV writer of every tdctl command (see csv_writer.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "output/csv_writer.h"
#include "output/fmt.h"
#include "output/text.h"

void csv_quote(FILE *f, const char *s, size_t len)
{
	fputc('"', f);
	for (size_t i = 0; i < len && s[i]; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

void csvw_init(struct csv_writer *w, FILE *f)
{
	w->f = f;
	w->col = 0;
}

static void sep(struct csv_writer *w)
{
	if (w->col++)
		fputc(',', w->f);
}

void csv_name(FILE *f, const char *name)
{
	/* Names are identifiers (JSON keys), but event names come from the
	 * module or a record file: their text (output/text.h), quoted as
	 * text fields when they must be.
	 */
	size_t len = strlen(name);
	char buf[TD_TEXT_SIZE(64)], *t = buf;

	if (len > 64)
		t = malloc(TD_TEXT_SIZE(len));
	if (!t) {
		fputs("?", f);		/* out of memory: no bytes unchecked */
		return;
	}
	td_text(t, name, len, NULL);
	if (strpbrk(t, ",\""))
		csv_quote(f, t, SIZE_MAX);
	else
		fputs(t, f);
	if (t != buf)
		free(t);
}

void csvw_name(struct csv_writer *w, const char *name)
{
	sep(w);
	csv_name(w->f, name);
}

void csvw_header(struct csv_writer *w, const char *const *names)
{
	for (; *names; names++)
		csvw_name(w, *names);
	csvw_end_row(w);
}

void csvw_str(struct csv_writer *w, const char *s)
{
	csvw_str_n(w, s ? s : "", SIZE_MAX);
}

void csvw_str_n(struct csv_writer *w, const char *s, size_t len)
{
	sep(w);
	csv_quote(w->f, s, len);
}

void csvw_uint(struct csv_writer *w, uint64_t v)
{
	sep(w);
	fprintf(w->f, "%" PRIu64, v);
}

void csvw_int(struct csv_writer *w, int64_t v)
{
	sep(w);
	fprintf(w->f, "%" PRId64, v);
}

void csvw_float(struct csv_writer *w, double v)
{
	char s[TD_FMT_MAX];

	sep(w);
	if (isfinite(v))
		fwrite(s, 1, (size_t)td_fmt_shortest(s, v), w->f);
}

void csvw_bool(struct csv_writer *w, bool v)
{
	sep(w);
	fputs(v ? "true" : "false", w->f);
}

void csvw_empty(struct csv_writer *w)
{
	sep(w);
}

void csvw_end_row(struct csv_writer *w)
{
	fputc('\n', w->f);
	w->col = 0;
}
