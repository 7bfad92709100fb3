// SPDX-License-Identifier: GPL-2.0
/*
 * The row emitter (user/output/emit.h) as its header describes it: one
 * description of the fields and one writer of each row give a plain
 * table (columns in their own order, aligned, cut at a width), JSON
 * (nested groups, null for invalid values) and CSV (quoted text, bare
 * words, empty fields). Output into memory, compared byte for byte. TAP.
 */
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "output/emit.h"
#include "tap.h"

enum { F_TYPE, F_NAME, F_COUNT, F_SHARE, F_RATIO, F_NR };

static const struct td_field fields[F_NR] = {
	[F_TYPE] = { .name = "type", .in = TD_IN_CSV, .col = -1 },
	[F_NAME] = { .name = "name", .title = "NAME", .in = TD_IN_ALL,
		     .col = 0, .width = -6 },
	/* JSON: in "counts"; a table shows it last */
	[F_COUNT] = { .name = "count", .title = "COUNT", .object = "counts",
		      .in = TD_IN_ALL, .flags = TD_FIELD_COUNT, .col = 3,
		      .width = 10 },
	[F_SHARE] = { .name = "share", .title = "SHARE", .object = "metrics",
		      .in = TD_IN_ALL, .flags = TD_FIELD_PERCENT, .col = 1,
		      .width = 7 },
	[F_RATIO] = { .name = "ratio", .title = "RATIO", .object = "metrics",
		      .in = TD_IN_ALL, .col = 2, .width = 6, .prec = 2 },
};

struct row {
	const char *name;
	uint64_t count;
	double share, ratio;
	bool valid;
	bool mark;
};

static const struct row rows[] = {
	{ "a\"b", 1234567, 0.25, 1.5, true, true },
	{ "c\x01", 7, 0.5, 0, false, false },
};

/* Everything the emitter writes for rows, in the current format. */
static char *emit(const struct td_field *f, int big_num, int width)
{
	struct td_emit e;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (json_output) {
		json_wtr = jsonw_new(out);
		jsonw_start_object(json_wtr);
	}
	td_emit_init(&e, out);
	e.big_num = big_num;
	e.width = width;
	td_emit_header(&e, f, F_NR, NULL);
	td_emit_list_begin(&e, "rows");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];

		td_emit_begin(&e, NULL, NULL);
		td_emit_word(&e, &f[F_TYPE], "group");
		td_emit_str(&e, &f[F_NAME], r->name, SIZE_MAX);
		td_emit_uint(&e, &f[F_COUNT], r->count);
		if (r->mark)
			td_emit_mark(&e, '*');
		td_emit_float(&e, &f[F_SHARE], r->share, true);
		td_emit_float(&e, &f[F_RATIO], r->ratio, r->valid);
		td_emit_end(&e);
	}
	td_emit_list_end(&e);
	if (json_output) {
		jsonw_end_object(json_wtr);
		jsonw_destroy(&json_wtr);
	}
	fclose(out);
	return buf;
}

static void expect(const char *what, char *got, const char *want)
{
	if (!ok(!strcmp(got, want), "%s", what))
		diag("got:\n%s\n# want:\n%s", got, want);
	free(got);
}

int main(void)
{
	struct td_field f[F_NR];
	char s[32];

	json_output = false;
	csv_output = false;
	expect("plain: titles and cells in column order, aligned, marked",
	       emit(fields, 0, 0),
	       "NAME     SHARE  RATIO      COUNT\n"
	       "a\"b     *25.0%   1.50    1234567\n"
	       "c?       50.0%      -          7\n");
	expect("plain --big-num: counts grouped by thousands",
	       emit(fields, 1, 0),
	       "NAME     SHARE  RATIO      COUNT\n"
	       "a\"b     *25.0%   1.50  1,234,567\n"
	       "c?       50.0%      -          7\n");
	expect("plain: lines cut at the width", emit(fields, 0, 12),
	       "NAME     SHA\na\"b     *25.\nc?       50.\n");
	memcpy(f, fields, sizeof(f));
	f[F_COUNT].unit = 2;
	expect("plain: a count column in one unit (M)", emit(f, 0, 0),
	       "NAME     SHARE  RATIO      COUNT\n"
	       "a\"b     *25.0%   1.50       1.2M\n"
	       "c?       50.0%      -       0.0M\n");
	csv_output = true;
	expect("CSV: header of the names, quoted text (keywords too), "
	       "shortest numbers, empty invalid values", emit(fields, 1, 12),
	       "type,name,count,share,ratio\n"
	       "\"group\",\"a\"\"b\",1234567,0.25,1.5\n"
	       "\"group\",\"c\x01\",7,0.5,\n");
	csv_output = false;
	json_output = true;
	expect("JSON: nested groups, null for invalid values",
	       emit(fields, 1, 12),
	       "{\"rows\":[{\"name\":\"a\\\"b\",\"counts\":{\"count\":1234567},"
	       "\"metrics\":{\"share\":0.25,\"ratio\":1.5}},"
	       "{\"name\":\"c\\u0001\",\"counts\":{\"count\":7},"
	       "\"metrics\":{\"share\":0.5,\"ratio\":null}}]}\n");
	json_output = false;
	ok(td_big_num(s, 0) == 1 && !strcmp(s, "0") &&
	   td_big_num(s, 999) == 3 && !strcmp(s, "999") &&
	   td_big_num(s, 1000) == 5 && !strcmp(s, "1,000") &&
	   td_big_num(s, UINT64_MAX) == 26 &&
	   !strcmp(s, "18,446,744,073,709,551,615"),
	   "td_big_num: 0, 999, 1,000, UINT64_MAX");
	return tap_done();
}
