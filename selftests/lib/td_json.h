/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON reader for the guest tests that check tdctl's --json
 * output (the guests have no Python): jparse_file() reads a whole file
 * into a tree of struct jv, jget() looks up a key, ju64()/jdbl()/jstr()
 * convert a value, jfree() frees the tree. Numbers keep their text
 * (exact 64-bit counts); \uXXXX escapes become '?' (tdctl writes them
 * for control characters only). Uses td_read_file() (td_common.h).
 */
#ifndef TD_JSON_H
#define TD_JSON_H

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "td_common.h"

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype t;
	char *s;		/* J_STR: the string; J_NUM: its text */
	bool b;
	int n;
	char **keys;		/* J_OBJ */
	struct jv **kids;	/* J_ARR, J_OBJ */
};

static inline void jfree(struct jv *v)
{
	if (!v)
		return;
	for (int i = 0; i < v->n; i++) {
		jfree(v->kids[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
	free(v->s);
	free(v);
}

static inline void jws(const char **p)
{
	while (isspace((unsigned char)**p))
		(*p)++;
}

static inline char *jstring(const char **p)
{
	size_t cap = 32, n = 0;
	char *out = malloc(cap);

	if (**p != '"' || !out) {
		free(out);
		return NULL;
	}
	(*p)++;
	while (**p && **p != '"') {
		char c = *(*p)++;

		if (c == '\\') {
			c = *(*p)++;
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'u':	/* control characters only: keep a '?' */
				for (int i = 0; i < 4 && **p; i++)
					(*p)++;
				c = '?';
				break;
			case '\0':
				free(out);
				return NULL;
			default:
				break;
			}
		}
		if (n + 2 > cap) {
			char *q = realloc(out, cap *= 2);

			if (!q) {
				free(out);
				return NULL;
			}
			out = q;
		}
		out[n++] = c;
	}
	if (**p != '"') {
		free(out);
		return NULL;
	}
	(*p)++;
	out[n] = '\0';
	return out;
}

static inline struct jv *jparse(const char **p);

static inline int jadd(struct jv *v, char *key, struct jv *kid)
{
	struct jv **k = realloc(v->kids, (v->n + 1) * sizeof(*k));

	if (!k)
		return -1;
	v->kids = k;
	if (v->t == J_OBJ) {
		char **ks = realloc(v->keys, (v->n + 1) * sizeof(*ks));

		if (!ks)
			return -1;
		v->keys = ks;
		v->keys[v->n] = key;
	}
	v->kids[v->n++] = kid;
	return 0;
}

static inline struct jv *jparse(const char **p)
{
	struct jv *v = calloc(1, sizeof(*v));
	char close;

	if (!v)
		return NULL;
	jws(p);
	switch (**p) {
	case '{':
	case '[':
		v->t = **p == '{' ? J_OBJ : J_ARR;
		close = **p == '{' ? '}' : ']';
		(*p)++;
		jws(p);
		if (**p == close) {
			(*p)++;
			return v;
		}
		for (;;) {
			char *key = NULL;
			struct jv *kid;

			jws(p);
			if (v->t == J_OBJ) {
				key = jstring(p);
				jws(p);
				if (!key || **p != ':') {
					free(key);
					goto bad;
				}
				(*p)++;
			}
			kid = jparse(p);
			if (!kid || jadd(v, key, kid)) {
				free(key);
				jfree(kid);
				goto bad;
			}
			jws(p);
			if (**p == ',') {
				(*p)++;
				continue;
			}
			if (**p != close)
				goto bad;
			(*p)++;
			return v;
		}
	case '"':
		v->t = J_STR;
		v->s = jstring(p);
		if (!v->s)
			goto bad;
		return v;
	case 't':
	case 'f':
	case 'n':
		v->t = **p == 'n' ? J_NULL : J_BOOL;
		v->b = **p == 't';
		if (strncmp(*p, v->t == J_NULL ? "null" : v->b ? "true" : "false",
			    v->t == J_NULL ? 4 : v->b ? 4 : 5))
			goto bad;
		*p += v->t == J_NULL ? 4 : v->b ? 4 : 5;
		return v;
	default: {
		const char *s = *p;

		while (**p && strchr("+-0123456789.eE", **p))
			(*p)++;
		if (*p == s)
			goto bad;
		v->t = J_NUM;
		v->s = strndup(s, *p - s);
		return v;
	}
	}
bad:
	jfree(v);
	return NULL;
}

static inline struct jv *jparse_file(const char *path)
{
	char *s = td_read_file(path);
	const char *p = s;
	struct jv *v;

	if (!s)
		return NULL;
	v = jparse(&p);
	jws(&p);
	if (v && *p) {		/* trailing garbage */
		jfree(v);
		v = NULL;
	}
	free(s);
	return v;
}

static inline struct jv *jget(const struct jv *o, const char *key)
{
	if (!o || o->t != J_OBJ)
		return NULL;
	for (int i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return o->kids[i];
	return NULL;
}

static inline bool ju64(const struct jv *v, uint64_t *out)
{
	char *end;

	if (!v || v->t != J_NUM || !isdigit((unsigned char)v->s[0]))
		return false;
	errno = 0;
	*out = strtoull(v->s, &end, 10);
	return !errno && !*end;
}

static inline bool jdbl(const struct jv *v, double *out)
{
	char *end;

	if (!v || v->t != J_NUM)
		return false;
	*out = strtod(v->s, &end);
	return !*end;
}

static inline const char *jstr(const struct jv *v)
{
	return v && v->t == J_STR ? v->s : NULL;
}

#endif /* TD_JSON_H */
