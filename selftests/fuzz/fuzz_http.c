// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target of serve's request path (user/http/): the bytes a client
 * sends, arriving in pieces as the server reads them, through the
 * parser (request.c), basic authentication (auth.c: the cache, and for
 * one input in 64 the bcrypt check itself, which is slow on purpose) and
 * the answer (server.c's td_http_answer()) under a web configuration
 * with a user and headers. What the server does with a socket around it
 * is the same calls.
 *
 * The first byte of an input sets the size of the pieces (1 to 64
 * bytes), the rest is the request. fuzz_parsed_ok: the request parsed
 * (200), for replay.c's valid-* seeds.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/auth.h"
#include "http/request.h"
#include "http/server.h"
#include "http/webcfg.h"

int fuzz_parsed_ok;

static const char cfg[] =
	"http_server_config:\n"
	"  headers:\n"
	"    X-Content-Type-Options: nosniff\n"
	"basic_auth_users:\n"
	"  prom: $2b$04$h.oAUvs/p5Y3MmRH.E5bZeXLqlUXBVtzgepkiOcu8m04D8Zur8PLO\n";

static struct td_webcfg web;
static struct td_auth *auth;

/* serve's handler, in small: a body that depends on the request. */
static void fn(void *ctx, const struct td_http_req *r, struct td_http_reply *out)
{
	(void)ctx;
	if (strcmp(r->path, "/metrics")) {
		out->status = 404;
		return;
	}
	out->ctype = r->openmetrics ? "application/openmetrics-text" : "text/plain";
	out->len = strlen(r->path) + 1;
	out->body = malloc(out->len);
	if (out->body) {
		memcpy(out->body, r->path, out->len - 1);
		out->body[out->len - 1] = '\n';
	} else {
		out->status = 500;
		out->len = 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct td_http_req r;
	char err[256], *buf, *resp = NULL;
	uint8_t key[32];
	size_t piece, len = 0, rlen = 0;
	bool auth_ok = false;
	int st = 0;

	fuzz_parsed_ok = 0;
	if (!auth) {
		if (td_webcfg_parse(cfg, sizeof(cfg) - 1, NULL, &web, err, sizeof(err)))
			abort();
		auth = td_auth_new(&web);
		if (!auth)
			abort();
	}
	if (size < 1)
		return 0;
	piece = data[0] % 64 + 1;
	buf = malloc(TD_HTTP_HEAD_MAX);	/* as the server's */
	if (!buf)
		return 0;
	/* As c_readable(): append what arrived, parse, until an answer. */
	for (size_t off = 1; off < size && !st;) {
		size_t n = size - off < piece ? size - off : piece;

		if (n > TD_HTTP_HEAD_MAX - len)
			n = TD_HTTP_HEAD_MAX - len;
		memcpy(buf + len, data + off, n);
		len += n;
		off += n;
		if (len < TD_HTTP_HEAD_MAX && !td_http_head_ends(buf, len - n, len)) {
			/* The quick test says no: the parser must agree. */
			if (len <= 1024 && (data[0] & 0x3f) == 1 &&
			    td_http_parse(buf, len, TD_HTTP_HEAD_MAX, &r) == 200)
				abort();
			continue;
		}
		st = td_http_parse(buf, len, TD_HTTP_HEAD_MAX, &r);
	}
	if (!st) {
		free(buf);
		return 0;
	}
	fuzz_parsed_ok = st == 200;
	/* As c_request(). */
	if (st == 200 && r.auth) {
		switch (td_auth_lookup(auth, r.user, r.pass, key)) {
		case TD_AUTH_OK:
			auth_ok = true;
			break;
		case TD_AUTH_FAIL:
			break;
		default:
			if ((data[0] & 0xc0) == 0xc0 && data[size - 1] % 16 == 0) {
				auth_ok = td_auth_verify(auth, r.user, r.pass);
				td_auth_remember(auth, key, auth_ok);
			}
		}
	}
	if (!td_http_answer(&web, fn, NULL, st, &r, auth_ok, &resp, &rlen)) {
		/* The head is whole: a status line, and an empty line. */
		if (rlen < 17 || memcmp(resp, "HTTP/1.1 ", 9) ||
		    !memmem(resp, rlen, "\r\n\r\n", 4))
			abort();
		free(resp);
	}
	free(buf);
	return 0;
}
