/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader for JSON objects, one per line: {"key": value, ...} with
 * string, number, true, false or null values (what perf stat -j and
 * tdctl's own JSON lines are). json_read_flat() refuses nested objects and
 * arrays; json_read_object() hands them to the callback as their text,
 * which json_read_object() or json_read_array() read in turn.
 */
#ifndef TDCTL_JSON_READ_H
#define TDCTL_JSON_READ_H

#include <stddef.h>

enum jr_type {
	JR_STRING, JR_NUMBER, JR_TRUE, JR_FALSE, JR_NULL, JR_OBJECT, JR_ARRAY,
};

/* How deep json_read_object() lets values nest. */
#define JR_MAX_DEPTH	16

struct jr_member {
	const char *key;	/* unescaped, NUL-terminated */
	size_t key_len;		/* may contain NULs from \u0000 */
	enum jr_type type;
	const char *val;	/* string: unescaped; number, object, array:
				 * its text (checked), not NUL-terminated
				 */
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

/* As json_read_flat() for text[0..len), but members whose value is an
 * object or an array (nested at most JR_MAX_DEPTH deep) are passed as
 * JR_OBJECT or JR_ARRAY with their text.
 */
int json_read_object(const char *text, size_t len, jr_member_fn fn,
		     void *ctx, char *err, size_t errlen);

/* Called with the text of each element of an array. */
typedef int (*jr_elem_fn)(const char *text, size_t len, void *ctx);

/* The elements of the array text[0..len) (blanks around it allowed), in
 * order; 0, the callback's non-zero value, or -1 with the error in err.
 */
int json_read_array(const char *text, size_t len, jr_elem_fn fn, void *ctx,
		    char *err, size_t errlen);

#endif
