/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader for flat JSON objects, one per line: {"key": value, ...} with
 * string, number, true, false or null values (what perf stat -j and
 * tdctl's own JSON lines are). Nested objects and arrays are refused.
 */
#ifndef TDCTL_JSON_READ_H
#define TDCTL_JSON_READ_H

#include <stddef.h>

enum jr_type { JR_STRING, JR_NUMBER, JR_TRUE, JR_FALSE, JR_NULL };

struct jr_member {
	const char *key;	/* unescaped, NUL-terminated */
	size_t key_len;		/* may contain NULs from \u0000 */
	enum jr_type type;
	const char *val;	/* string: unescaped; number: its text */
	size_t val_len;
};

/* Called for each member in order; a non-zero return stops the parse and
 * is returned by json_read_flat().
 */
typedef int (*jr_member_fn)(const struct jr_member *m, void *ctx);

/*
 * Parse line (one object, blanks around it allowed). Returns 0, the
 * callback's non-zero value, or -1 with the syntax error in err. Keys and
 * strings are unescaped (\uXXXX into UTF-8) into memory freed on return.
 */
int json_read_flat(const char *line, jr_member_fn fn, void *ctx, char *err,
		   size_t errlen);

#endif
