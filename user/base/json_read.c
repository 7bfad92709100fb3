// SPDX-License-Identifier: GPL-2.0
/* JSON objects, one per line (base/json_read.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_read.h"

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

static int hex4(const char *p, unsigned int *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int c = (unsigned char)p[i];

		if (!isxdigit(c))
			return -1;
		*v = *v << 4 | (isdigit(c) ? c - '0' : (tolower(c) - 'a' + 10));
	}
	return 0;
}

static size_t put_utf8(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at *pp (after its opening quote) into *op; NULL on error. */
static const char *read_string(const char *p, char **op, size_t *len)
{
	char *o = *op, *start = o;

	while (*p != '"') {
		unsigned int cp, lo;

		if (!*p || (unsigned char)*p < 0x20)
			return NULL;
		if (*p != '\\') {
			*o++ = *p++;
			continue;
		}
		p++;
		switch (*p) {
		case '"':
		case '\\':
		case '/':
			*o++ = *p;
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'u':
			if (hex4(p + 1, &cp))
				return NULL;
			p += 4;
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (p[1] != '\\' || p[2] != 'u' ||
				    hex4(p + 3, &lo) || lo < 0xdc00 ||
				    lo > 0xdfff)
					return NULL;
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
				p += 6;
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				return NULL;
			}
			o += put_utf8(o, cp);
			break;
		default:
			return NULL;
		}
		p++;
	}
	*len = o - start;
	*o++ = '\0';
	*op = o;
	return p + 1;
}

/* A JSON number (RFC 8259 grammar); the end, or NULL. */
static const char *read_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (isdigit((unsigned char)*p))
		while (isdigit((unsigned char)*p))
			p++;
	else
		return NULL;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return p;
}

/* A string at p (after its opening quote), checked, not unescaped: the
 * end (after its closing quote), or NULL.
 */
static const char *skip_string(const char *p)
{
	unsigned int cp;

	for (; *p != '"'; p++) {
		if (!*p || (unsigned char)*p < 0x20)
			return NULL;
		if (*p != '\\')
			continue;
		p++;
		if (*p == 'u') {
			if (hex4(p + 1, &cp))
				return NULL;
			p += 4;
		} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
			return NULL;
		}
	}
	return p + 1;
}

/* Any value at p, checked, nested at most JR_MAX_DEPTH - depth deep: its
 * end, or NULL.
 */
static const char *skip_value(const char *p, int depth)
{
	char close;

	if (*p == '"')
		return skip_string(p + 1);
	if (*p != '{' && *p != '[') {
		if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
			return p + 4;
		if (!strncmp(p, "false", 5))
			return p + 5;
		return read_number(p);
	}
	if (depth >= JR_MAX_DEPTH)
		return NULL;
	close = *p == '{' ? '}' : ']';
	p = skip_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			if (*p != '"')
				return NULL;
			p = skip_string(p + 1);
			if (!p)
				return NULL;
			p = skip_ws(p);
			if (*p++ != ':')
				return NULL;
			p = skip_ws(p);
		}
		p = skip_value(p, depth + 1);
		if (!p)
			return NULL;
		p = skip_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
		p = skip_ws(p);
	}
}

static int read_object(const char *line, jr_member_fn fn, void *ctx,
		       char *err, size_t errlen, bool nested)
{
	const char *p = skip_ws(line), *what = "expected '{'";
	char *buf = malloc(strlen(line) + 2), *o = buf;
	int ret = -1;
	bool first = true;

	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (*p++ != '{')
		goto bad;
	for (;;) {
		struct jr_member m = { 0 };
		const char *end;

		p = skip_ws(p);
		if (first && *p == '}') {
			p++;
			break;
		}
		what = "expected a \"key\"";
		if (*p++ != '"')
			goto bad;
		m.key = o;
		p = read_string(p, &o, &m.key_len);
		if (!p)
			goto bad;
		p = skip_ws(p);
		what = "expected ':'";
		if (*p++ != ':')
			goto bad;
		p = skip_ws(p);
		what = "expected a string, number, true, false or null";
		if (*p == '"') {
			m.type = JR_STRING;
			m.val = o;
			p = read_string(p + 1, &o, &m.val_len);
			if (!p)
				goto bad;
		} else if (*p == '{' || *p == '[') {
			what = "nested objects and arrays are not read";
			if (!nested)
				goto bad;
			what = "a bad object or array (or nested too deep)";
			end = skip_value(p, 1);
			if (!end)
				goto bad;
			m.type = *p == '{' ? JR_OBJECT : JR_ARRAY;
			m.val = p;
			m.val_len = end - p;
			p = end;
		} else if (!strncmp(p, "true", 4)) {
			m.type = JR_TRUE;
			m.val = p;
			m.val_len = 4;
			p += 4;
		} else if (!strncmp(p, "false", 5)) {
			m.type = JR_FALSE;
			m.val = p;
			m.val_len = 5;
			p += 5;
		} else if (!strncmp(p, "null", 4)) {
			m.type = JR_NULL;
			m.val = p;
			m.val_len = 4;
			p += 4;
		} else {
			end = read_number(p);
			if (!end)
				goto bad;
			m.type = JR_NUMBER;
			m.val = p;
			m.val_len = end - p;
			p = end;
		}
		ret = fn(&m, ctx);
		if (ret)
			goto out;
		first = false;
		p = skip_ws(p);
		what = "expected ',' or '}'";
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p++ != '}')
			goto bad;
		break;
	}
	what = "text after the object";
	if (*skip_ws(p))
		goto bad;
	ret = 0;
	goto out;
bad:
	snprintf(err, errlen, "not a%s JSON object (%s at column %d)",
		 nested ? "" : " flat", what, (int)(p - line));
	ret = -1;
out:
	free(buf);
	return ret;
}

int json_read_flat(const char *line, jr_member_fn fn, void *ctx, char *err,
		   size_t errlen)
{
	return read_object(line, fn, ctx, err, errlen, false);
}

/* text[0..len) NUL-terminated, or NULL with err set. */
static char *copy_text(const char *text, size_t len, char *err, size_t errlen)
{
	char *s = len < SIZE_MAX ? malloc(len + 1) : NULL;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memcpy(s, text, len);
	s[len] = '\0';
	if (strlen(s) != len) {
		snprintf(err, errlen, "a NUL byte in the JSON text");
		free(s);
		return NULL;
	}
	return s;
}

int json_read_object(const char *text, size_t len, jr_member_fn fn,
		     void *ctx, char *err, size_t errlen)
{
	char *s = copy_text(text, len, err, errlen);
	int ret;

	if (!s)
		return -1;
	ret = read_object(s, fn, ctx, err, errlen, true);
	free(s);
	return ret;
}

int json_read_array(const char *text, size_t len, jr_elem_fn fn, void *ctx,
		    char *err, size_t errlen)
{
	char *s = copy_text(text, len, err, errlen);
	const char *p, *end, *what = "expected '['";
	int ret = -1;

	if (!s)
		return -1;
	p = skip_ws(s);
	if (*p++ != '[')
		goto bad;
	p = skip_ws(p);
	if (*p == ']') {
		p++;
	} else {
		for (;;) {
			what = "a bad element (or nested too deep)";
			end = skip_value(p, 1);
			if (!end)
				goto bad;
			ret = fn(p, end - p, ctx);
			if (ret)
				goto out;
			p = skip_ws(end);
			what = "expected ',' or ']'";
			if (*p == ']') {
				p++;
				break;
			}
			if (*p++ != ',')
				goto bad;
			p = skip_ws(p);
		}
	}
	what = "text after the array";
	if (*skip_ws(p))
		goto bad;
	ret = 0;
	goto out;
bad:
	snprintf(err, errlen, "not a JSON array (%s at column %d)", what,
		 (int)(p - s));
	ret = -1;
out:
	free(s);
	return ret;
}
