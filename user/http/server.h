/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small HTTP/1.1 server for one-thread poll() loops (tdctl serve's):
 * one request per connection, GET and HEAD, optional TLS (OpenSSL) and
 * basic authentication from an exporter-toolkit web configuration.
 *
 * Bounded by construction:
 *   - at most max_conns connections; when all are taken, a new one
 *     closes the oldest that was answered and waits for the client to
 *     close, else the oldest that has not sent a whole request yet (an
 *     idle or slow client) of the client address (IPv4, or IPv6 /64)
 *     that holds the most connections, so idle connections cannot lock
 *     scrapers out and a flood from one address closes its own;
 *   - a request head of at most TD_HTTP_HEAD_MAX bytes (431 beyond), sent
 *     within TD_HTTP_TIMEOUT_MS of the connection (TLS handshake
 *     included; 408 and closed after), its answer sent within as long
 *     again;
 *   - at most TD_HTTP_BUSY_MAX answers held in memory at once, at most
 *     TD_HTTP_BUSY_PEER of them for one client address (IPv4, or IPv6
 *     /64): further complete requests wait for one to finish; a client
 *     that takes no byte of its answer in TD_HTTP_STALL_MS is closed, so
 *     clients that do not read hold little for long;
 *   - bcrypt checks of passwords not seen before run on one thread of
 *     their own, in the order they came, at most TD_HTTP_AUTH_QUEUE
 *     waiting and TD_HTTP_AUTH_PEER of one client address (429 beyond),
 *     so password guessing never stalls the loop, and guesses from one
 *     address delay another's check by at most TD_HTTP_AUTH_PEER checks.
 */
#ifndef TD_HTTP_SERVER_H
#define TD_HTTP_SERVER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http/request.h"
#include "http/webcfg.h"

#define TD_HTTP_HEAD_MAX	8192
#define TD_HTTP_TIMEOUT_MS	10000
#define TD_HTTP_BUSY_MAX	32
#define TD_HTTP_BUSY_PEER	8	/* of them for one client address */
#define TD_HTTP_STALL_MS	2000	/* an answer no byte of went out */
#define TD_HTTP_AUTH_QUEUE	16
#define TD_HTTP_AUTH_PEER	1	/* of them for one client address */

/* What the handler answers: status 200, 404, 500, ...; body malloc()ed
 * (the server frees it), or NULL with len 0.
 */
struct td_http_reply {
	int status;
	const char *ctype;
	char *body;
	size_t len;
};

typedef void (*td_http_fn)(void *ctx, const struct td_http_req *r,
			   struct td_http_reply *out);

struct td_http_opts {
	const char *listen;		/* ADDR:PORT, [v6]:PORT */
	const struct td_webcfg *web;	/* NULL: plain HTTP, no users */
	size_t max_conns;
	td_http_fn fn;
	void *ctx;
};

struct td_http_stats {
	uint64_t accepted, requests, evicted, timed_out, tls_failed;
	uint64_t status[6];	/* by class: [2] 2xx ... [5] 5xx */
	uint64_t auth_checks;	/* bcrypt runs */
	size_t conns;		/* open now */
};

struct td_http;

/* Listen (and load the TLS certificate and key, which may be files only
 * root can read). NULL after p_err() naming what failed.
 */
struct td_http *td_http_open(const struct td_http_opts *o);
void td_http_close(struct td_http *h);
/* The URL it serves, e.g. "https://127.0.0.1:10642/metrics". */
const char *td_http_url(const struct td_http *h);
/* pollfd slots the loop must offer td_http_pollfds(). */
size_t td_http_nfds(const struct td_http *h);
/* Fill pfd[] (closing connections past their time): how many. */
size_t td_http_pollfds(struct td_http *h, struct pollfd *pfd, uint64_t now);
/* Handle what poll() returned for those n. */
void td_http_events(struct td_http *h, const struct pollfd *pfd, size_t n,
		    uint64_t now);
const struct td_http_stats *td_http_get_stats(const struct td_http *h);
/*
 * Take a new web configuration (SIGHUP): its certificate and key are read
 * now, new connections use them and its users; connections under way
 * finish with the old ones. TLS cannot be turned on or off. *web is taken
 * (left empty) either way; -1 after p_err(), the old configuration kept.
 */
int td_http_reload(struct td_http *h, struct td_webcfg *web);

/*
 * The request path without sockets (answer.c; for td_http_events() and
 * the fuzz harness): the whole response to a request head of status st
 * (from td_http_parse(); 200: r is the request) whose credentials, when
 * the configuration has users, were found good (auth_ok) or not. *out is
 * malloc()ed, *len its size; -1 if out of memory.
 */
int td_http_answer(const struct td_webcfg *web, td_http_fn fn, void *ctx,
		   int st, const struct td_http_req *r, bool auth_ok,
		   char **out, size_t *len);

#endif
