// SPDX-License-Identifier: GPL-2.0
/*
 * The answer to a request, without I/O (td_http_answer(), server.h): the
 * status line, headers (the configuration's among them) and body.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/server.h"

static const char *reason(int st)
{
	switch (st) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 414: return "URI Too Long";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 505: return "HTTP Version Not Supported";
	default: return "Internal Server Error";
	}
}

int td_http_answer(const struct td_webcfg *web, td_http_fn fn, void *ctx,
		   int st, const struct td_http_req *r, bool auth_ok,
		   char **out, size_t *len)
{
	struct td_http_reply rep = { .status = st, .ctype = "text/plain; charset=utf-8" };
	char hdr[1024], *p;
	size_t hl, extra = 0;
	bool head = st == 200 && r->head;
	char msg[64];

	if (st == 200 && web && web->nusers && !auth_ok)
		rep.status = 401;
	if (rep.status == 200) {
		fn(ctx, r, &rep);
		if (!rep.ctype)
			rep.ctype = "text/plain; charset=utf-8";
	}
	if (rep.status != 200 && !rep.body) {
		int n = snprintf(msg, sizeof(msg), "%d %s\n", rep.status,
				 reason(rep.status));

		rep.body = strdup(msg);
		if (!rep.body)
			return -1;
		rep.len = (size_t)n;
	}
	hl = (size_t)snprintf(hdr, sizeof(hdr),
			      "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			      "Connection: close\r\n%s%s%s",
			      rep.status, reason(rep.status), rep.ctype, rep.len,
			      rep.status == 401 ? "WWW-Authenticate: Basic realm=\"topdown\", "
			      "charset=\"UTF-8\"\r\n" : "",
			      rep.status == 405 ? "Allow: GET, HEAD\r\n" : "",
			      rep.status == 429 ? "Retry-After: 1\r\n" : "");
	for (int i = 0; web && i < web->nheaders; i++)
		extra += strlen(web->headers[i].name) +
			 strlen(web->headers[i].value) + 4;
	*len = hl + extra + 2 + (head ? 0 : rep.len);
	p = malloc(*len);
	if (!p) {
		free(rep.body);
		return -1;
	}
	memcpy(p, hdr, hl);
	for (int i = 0; web && i < web->nheaders; i++)
		hl += (size_t)sprintf(p + hl, "%s: %s\r\n", web->headers[i].name,
				      web->headers[i].value);
	memcpy(p + hl, "\r\n", 2);
	if (!head && rep.len)
		memcpy(p + hl + 2, rep.body, rep.len);
	free(rep.body);
	*out = p;
	return 0;
}
