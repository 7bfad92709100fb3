// SPDX-License-Identifier: GPL-2.0
/* The head of an HTTP/1.x request (see request.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <string.h>
#include <strings.h>

#include "http/request.h"

/* RFC 9110 5.6.2: tchar. */
static bool is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int td_base64_decode(const char *src, size_t n, char *dst, size_t cap)
{
	size_t o = 0;

	if (n % 4 || !cap)
		return -1;
	for (size_t i = 0; i < n; i += 4) {
		int v[4], pad = 0;
		unsigned long w;

		for (int k = 0; k < 4; k++) {
			unsigned char c = (unsigned char)src[i + k];

			/* '=' only at the end: "xx==" or "xxx=" */
			if (c == '=' && i + 4 == n && k >= 2 &&
			    (k == 3 || src[i + 3] == '=')) {
				v[k] = 0;
				pad++;
				continue;
			}
			v[k] = b64_value(c);
			if (v[k] < 0)
				return -1;
		}
		w = (unsigned long)v[0] << 18 | (unsigned long)v[1] << 12 |
		    (unsigned long)v[2] << 6 | (unsigned long)v[3];
		if (o + 3 - pad >= cap)
			return -1;
		dst[o++] = (char)(w >> 16);
		if (pad < 2)
			dst[o++] = (char)(w >> 8 & 0xff);
		if (pad < 1)
			dst[o++] = (char)(w & 0xff);
	}
	dst[o] = '\0';
	return (int)o;
}

/* Authorization: Basic base64(user ":" password) (RFC 7617). Another
 * scheme is no Basic credential (false, 0); a bad Basic one is 400.
 */
static int parse_basic(const char *v, size_t n, struct td_http_req *r)
{
	char dec[2 * TD_HTTP_CRED_MAX + 2];
	const char *colon;
	int len;

	if (n < 6 || strncasecmp(v, "basic ", 6))
		return 0;
	v += 6;
	n -= 6;
	while (n && *v == ' ') {
		v++;
		n--;
	}
	len = td_base64_decode(v, n, dec, sizeof(dec));
	if (len < 0)
		return 400;
	colon = memchr(dec, ':', (size_t)len);
	if (!colon || (size_t)(colon - dec) >= TD_HTTP_CRED_MAX ||
	    (size_t)len - (size_t)(colon - dec) - 1 >= TD_HTTP_CRED_MAX)
		return 400;
	/* No control characters (RFC 7617 2: CTLs excluded), so no NUL. */
	for (int i = 0; i < len; i++)
		if ((unsigned char)dec[i] < 0x20 || dec[i] == 0x7f)
			return 400;
	memcpy(r->user, dec, (size_t)(colon - dec));
	r->user[colon - dec] = '\0';
	memcpy(r->pass, colon + 1, (size_t)len - (size_t)(colon - dec) - 1);
	r->pass[(size_t)len - (size_t)(colon - dec) - 1] = '\0';
	r->auth = true;
	return 0;
}

/* The request line: METHOD SP TARGET SP HTTP/1.x */
static int parse_request_line(const char *l, size_t n, struct td_http_req *r)
{
	const char *sp1 = memchr(l, ' ', n), *sp2, *t, *q;
	size_t ml, tl;

	if (!sp1 || sp1 == l)
		return 400;
	ml = (size_t)(sp1 - l);
	for (size_t i = 0; i < ml; i++)
		if (!is_tchar((unsigned char)l[i]))
			return 400;
	t = sp1 + 1;
	sp2 = memchr(t, ' ', n - ml - 1);
	if (!sp2 || sp2 == t)
		return 400;
	tl = (size_t)(sp2 - t);
	/* The version: exactly HTTP/1.0 or HTTP/1.1; HTTP/d.d another. */
	if (n - (size_t)(sp2 + 1 - l) != 8 || memcmp(sp2 + 1, "HTTP/", 5) ||
	    sp2[6] < '0' || sp2[6] > '9' || sp2[7] != '.' || sp2[8] < '0' ||
	    sp2[8] > '9')
		return 400;
	if (sp2[6] != '1' || (sp2[8] != '0' && sp2[8] != '1'))
		return 505;
	/* origin-form: "/" and visible ASCII */
	if (t[0] != '/')
		return 400;
	for (size_t i = 0; i < tl; i++)
		if ((unsigned char)t[i] <= 0x20 || (unsigned char)t[i] >= 0x7f)
			return 400;
	q = memchr(t, '?', tl);
	if ((size_t)((q ? q : sp2) - t) >= sizeof(r->path))
		return 414;
	memcpy(r->path, t, (size_t)((q ? q : sp2) - t));
	r->path[(q ? q : sp2) - t] = '\0';
	if (ml == 3 && !memcmp(l, "GET", 3)) {
		strcpy(r->method, "GET");
	} else if (ml == 4 && !memcmp(l, "HEAD", 4)) {
		strcpy(r->method, "HEAD");
		r->head = true;
	} else {
		return 405;
	}
	return sp2[8] == '1' ? 11 : 10;
}

/* RFC 9112 2.2: a server SHOULD ignore at least one empty line before
 * the request line. Up to TD_HTTP_BLANK_MAX are: their bytes, and in
 * *lines how many (the cap reached: the head is refused if another
 * follows).
 */
#define TD_HTTP_BLANK_MAX	8

static size_t blank_prefix(const char *buf, size_t len, int *lines)
{
	size_t p = 0;

	for (*lines = 0; *lines < TD_HTTP_BLANK_MAX; ++*lines) {
		if (p < len && buf[p] == '\n')
			p++;
		else if (p + 1 < len && buf[p] == '\r' && buf[p + 1] == '\n')
			p += 2;
		else
			break;
	}
	return p;
}

bool td_http_head_ends(const char *buf, size_t from, size_t len)
{
	int lines;
	size_t skip = blank_prefix(buf, len, &lines);
	size_t i = from > 2 ? from - 2 : 0;

	/* Too many empty lines: the parser refuses the head. */
	if (lines == TD_HTTP_BLANK_MAX && skip < len &&
	    (buf[skip] == '\n' || buf[skip] == '\r'))
		return true;
	/* The empty lines before the request line end nothing. */
	if (i < skip)
		i = skip;
	for (; i < len; i++) {
		const char *nl = memchr(buf + i, '\n', len - i);

		if (!nl)
			return false;
		i = (size_t)(nl - buf);
		if (i + 1 < len && buf[i + 1] == '\n')
			return true;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return true;
	}
	return false;
}

int td_http_parse(const char *buf, size_t len, size_t max,
		  struct td_http_req *r)
{
	size_t p, skip, end = 0, nhost = 0, nauth = 0;
	int st = 0, ver = 0, blank;
	bool first = true;

	if (len > max)
		len = max;
	/* Empty lines before the request line: ignored, up to a few. */
	skip = blank_prefix(buf, len, &blank);
	p = skip;
	if (blank == TD_HTTP_BLANK_MAX && skip < len &&
	    (buf[skip] == '\n' ||
	     (skip + 1 < len && buf[skip] == '\r' && buf[skip + 1] == '\n')))
		return 400;
	/* Complete? The first empty line (CRLF or a lone LF) after the
	 * request line ends the head.
	 */
	for (;;) {
		const char *nl = memchr(buf + p, '\n', len - p);

		if (!nl)
			return len >= max ? 431 : 0;
		if ((size_t)(nl - buf) == p ||
		    ((size_t)(nl - buf) == p + 1 && buf[p] == '\r')) {
			end = p;
			break;
		}
		p = (size_t)(nl - buf) + 1;
	}
	memset(r, 0, sizeof(*r));
	for (p = skip; p < end;) {
		const char *l = buf + p, *nl = memchr(l, '\n', end - p);
		size_t n = (size_t)(nl - l);

		p += n + 1;
		if (n && l[n - 1] == '\r')
			n--;
		/* No NUL, no CR but at the end, no other control but HTAB. */
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)l[i];

			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return 400;
		}
		if (first) {
			ver = parse_request_line(l, n, r);
			if (ver >= 100)
				return ver;
			first = false;
			continue;
		}
		/* field-name ":" OWS field-value OWS; no obs-fold */
		size_t k = 0, vs, ve;

		while (k < n && is_tchar((unsigned char)l[k]))
			k++;
		if (!k || k == n || l[k] != ':')
			return 400;
		for (vs = k + 1; vs < n && (l[vs] == ' ' || l[vs] == '\t'); vs++)
			;
		for (ve = n; ve > vs && (l[ve - 1] == ' ' || l[ve - 1] == '\t'); ve--)
			;
		if (k == 4 && !strncasecmp(l, "host", 4)) {
			nhost++;
		} else if (k == 6 && !strncasecmp(l, "accept", 6)) {
			if (memmem(l + vs, ve - vs, "application/openmetrics-text", 28))
				r->openmetrics = true;
		} else if (k == 13 && !strncasecmp(l, "authorization", 13)) {
			if (nauth++)
				return 400;
			st = parse_basic(l + vs, ve - vs, r);
			if (st)
				return st;
		}
	}
	if (first)
		return 400;	/* no request line */
	/* RFC 9112 3.2: HTTP/1.1 needs exactly one Host, 1.0 at most one. */
	if (nhost > 1 || (ver == 11 && !nhost))
		return 400;
	return 200;
}
