// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP server of tdctl serve (see server.h): connections in a table,
 * each one a small state machine driven by the caller's poll() loop:
 *
 *   READ -> (AUTH) -> (WAIT) -> WRITE -> CLOSING -> closed
 *
 * READ collects the request head (after the TLS handshake, which OpenSSL
 * runs inside the first SSL_read()); AUTH waits for the bcrypt thread;
 * WAIT for a free answer slot; WRITE sends the answer; CLOSING reads
 * what the client still sends until it closes, so that closing with
 * unread data does not reset the connection before the client read the
 * answer.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "base/common.h"
#include "base/hash.h"
#include "http/auth.h"
#include "http/listen.h"
#include "http/server.h"
#include "http/tls.h"

enum cstate { C_FREE, C_READ, C_AUTH, C_WAIT, C_WRITE, C_CLOSING };

struct conn {
	enum cstate st;
	int fd;
	uint32_t gen;		/* which connection of this slot */
	SSL *ssl;
	short want;		/* TLS: the event OpenSSL waits for */
	uint64_t since, deadline;
	uint64_t stall;		/* WRITE: closed if no byte goes out by then */
	uint64_t peer;		/* the client's address (its IPv6 /64) */
	char *req;		/* TD_HTTP_HEAD_MAX bytes */
	size_t rlen;
	struct td_http_req r;
	int status;		/* td_http_parse()'s */
	bool auth_ok;
	uint8_t key[32];
	char *resp;
	size_t len, off;
};

struct job {
	int state;		/* 0 free, 1 queued, 2 done, 3 running */
	size_t conn;
	uint32_t gen;
	uint64_t peer;		/* the client's address (conn.peer) */
	uint64_t seq;		/* the order of queueing: checked first in */
	char user[TD_HTTP_CRED_MAX], pass[TD_HTTP_CRED_MAX];
	bool ok;
};

struct td_http {
	struct td_http_opts o;
	struct td_webcfg *own;	/* a reloaded configuration (o.web) */
	int lfd;
	char url[300];
	SSL_CTX *tls;
	struct conn *c;
	size_t nc;		/* slots */
	size_t *pmap;		/* pfd index -> slot (SIZE_MAX: listen, pipe) */
	size_t busy;		/* answers held */
	struct td_http_stats stats;
	/* the bcrypt thread */
	struct td_auth *auth;
	pthread_t thr;
	bool thr_up, thr_stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job jobs[TD_HTTP_AUTH_QUEUE];
	uint64_t job_seq;
	/* connections per client address: open addressing, keys kept at
	 * count 0 until the table is rebuilt (peers_add())
	 */
	struct peer { uint64_t key; uint32_t n; bool used; } *peers;
	size_t npeers_cap, npeers_used;
	int pipe[2];
};

#define NO_SLOT ((size_t)-1)

/* ---- connections per client address --------------------------------- */

static struct peer *peer_find(struct td_http *h, uint64_t key)
{
	size_t i = td_hash2(key, 0) & (h->npeers_cap - 1);

	while (h->peers[i].used && h->peers[i].key != key)
		i = (i + 1) & (h->npeers_cap - 1);
	return &h->peers[i];
}

/* One connection more (d 1: it is open already) or less (d -1). */
static void peers_add(struct td_http *h, uint64_t key, int d);

/* The table holds every address seen since it was last rebuilt: rebuild
 * it from the open connections once half of it is taken.
 */
static void peers_rebuild(struct td_http *h)
{
	memset(h->peers, 0, h->npeers_cap * sizeof(*h->peers));
	h->npeers_used = 0;
	for (size_t i = 0; i < h->nc; i++)
		if (h->c[i].st != C_FREE)
			peers_add(h, h->c[i].peer, 1);
}

static void peers_add(struct td_http *h, uint64_t key, int d)
{
	struct peer *p = peer_find(h, key);

	if (!p->used) {
		if (d < 0)
			return;
		if (h->npeers_used * 2 >= h->npeers_cap) {
			peers_rebuild(h);	/* counts the new one, open now */
			return;
		}
		p->used = true;
		p->key = key;
		h->npeers_used++;
	}
	if (d > 0)
		p->n++;
	else if (p->n)
		p->n--;
}

/* ---- the bcrypt thread --------------------------------------------------- */

static void *auth_thread(void *arg)
{
	struct td_http *h = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);	/* signals: the loop's */
	pthread_mutex_lock(&h->mu);
	for (;;) {
		struct td_auth *a;
		struct job *j = NULL;

		for (int i = 0; i < TD_HTTP_AUTH_QUEUE; i++)
			if (h->jobs[i].state == 1 &&
			    (!j || h->jobs[i].seq < j->seq))
				j = &h->jobs[i];
		if (!j) {
			if (h->thr_stop)
				break;
			pthread_cond_wait(&h->cv, &h->mu);
			continue;
		}
		j->state = 3;	/* running */
		a = h->auth;	/* replaced only while no job runs */
		pthread_mutex_unlock(&h->mu);
		j->ok = a && td_auth_verify(a, j->user, j->pass);
		pthread_mutex_lock(&h->mu);
		j->state = 2;
		pthread_cond_broadcast(&h->cv);	/* td_http_reload() waits */
		/* A full pipe: the loop has a byte to wake it already. */
		if (write(h->pipe[1], "", 1) < 0)
			continue;
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* Queue c's credentials for the bcrypt thread: false if the queue is
 * full, or holds TD_HTTP_AUTH_PEER checks of c's address already.
 */
static bool auth_queue(struct td_http *h, size_t slot)
{
	struct conn *c = &h->c[slot];
	bool queued = false;
	int mine = 0;

	if (!h->thr_up) {
		if (pthread_create(&h->thr, NULL, auth_thread, h))
			return false;
		h->thr_up = true;
	}
	pthread_mutex_lock(&h->mu);
	for (int i = 0; i < TD_HTTP_AUTH_QUEUE; i++)
		mine += (h->jobs[i].state == 1 || h->jobs[i].state == 3) &&
			h->jobs[i].peer == c->peer;
	for (int i = 0; i < TD_HTTP_AUTH_QUEUE && !queued &&
	     mine < TD_HTTP_AUTH_PEER; i++) {
		struct job *j = &h->jobs[i];

		if (j->state)
			continue;
		j->conn = slot;
		j->gen = c->gen;
		j->peer = c->peer;
		j->seq = h->job_seq++;
		memcpy(j->user, c->r.user, sizeof(j->user));
		memcpy(j->pass, c->r.pass, sizeof(j->pass));
		j->state = 1;
		queued = true;
	}
	if (queued)
		pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return queued;
}

/* ---- connections ---------------------------------------------------------- */

static void c_close(struct td_http *h, struct conn *c)
{
	if (c->st == C_FREE)
		return;
	if (c->st == C_WRITE)
		h->busy--;
	if (c->ssl)
		SSL_free(c->ssl);
	if (c->fd >= 0)
		close(c->fd);
	free(c->req);
	free(c->resp);
	OPENSSL_cleanse(&c->r, sizeof(c->r));
	c->ssl = NULL;
	c->req = NULL;
	c->resp = NULL;
	c->fd = -1;
	c->st = C_FREE;
	c->gen++;
	h->stats.conns--;
	peers_add(h, c->peer, -1);
}

/* What c's I/O waits for: 0 nothing, else the poll events. */
static short c_events(const struct conn *c)
{
	switch (c->st) {
	case C_READ:
		return c->ssl ? c->want : POLLIN;
	case C_WRITE:
		return c->ssl ? c->want : POLLOUT;
	case C_CLOSING:
		return POLLIN;
	default:
		return 0;
	}
}

/* OpenSSL's verdict on a call that returned r: >0 bytes, 0 EOF, -2 try
 * again (c->want set), -1 failed.
 */
static ssize_t tls_result(struct td_http *h, struct conn *c, int r, size_t n)
{
	static const char plain[] =
		"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";

	if (r > 0)
		return (ssize_t)n;
	switch (SSL_get_error(c->ssl, r)) {
	case SSL_ERROR_WANT_READ:
		c->want = POLLIN;
		return -2;
	case SSL_ERROR_WANT_WRITE:
		c->want = POLLOUT;
		return -2;
	case SSL_ERROR_ZERO_RETURN:
		return 0;
	default:
		/* Plain HTTP to the TLS port: say so, as Go's server does. */
		if (ERR_GET_REASON(ERR_peek_error()) == SSL_R_HTTP_REQUEST &&
		    send(c->fd, plain, sizeof(plain) - 1,
			 MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
			/* best effort */
		}
		ERR_clear_error();
		if (!SSL_is_init_finished(c->ssl))
			h->stats.tls_failed++;
		return -1;
	}
}

static ssize_t c_read(struct td_http *h, struct conn *c, char *buf, size_t n)
{
	ssize_t k;
	size_t got = 0;

	if (c->ssl && c->st != C_CLOSING) {
		int r;

		ERR_clear_error();
		r = SSL_read_ex(c->ssl, buf, n, &got);
		return tls_result(h, c, r, got);
	}
	k = read(c->fd, buf, n);
	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return -2;
	return k;
}

static ssize_t c_write(struct td_http *h, struct conn *c, const char *buf,
		       size_t n)
{
	ssize_t k;
	size_t put = 0;

	if (c->ssl) {
		int r;

		ERR_clear_error();
		r = SSL_write_ex(c->ssl, buf, n, &put);
		return tls_result(h, c, r, put);
	}
	k = send(c->fd, buf, n, MSG_NOSIGNAL);
	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return -2;
	return k;
}

/* Answers held for clients of this address. */
static size_t busy_of(const struct td_http *h, uint64_t peer)
{
	size_t n = 0;

	for (size_t i = 0; i < h->nc; i++)
		n += h->c[i].st == C_WRITE && h->c[i].peer == peer;
	return n;
}

static void c_answer(struct td_http *h, struct conn *c, uint64_t now)
{
	int cls;

	if (h->busy >= TD_HTTP_BUSY_MAX || busy_of(h, c->peer) >= TD_HTTP_BUSY_PEER) {
		c->st = C_WAIT;
		return;
	}
	free(c->req);
	c->req = NULL;
	if (td_http_answer(h->o.web, h->o.fn, h->o.ctx, c->status, &c->r,
			   c->auth_ok, &c->resp, &c->len)) {
		c_close(h, c);
		return;
	}
	OPENSSL_cleanse(&c->r, sizeof(c->r));
	cls = c->resp[9] - '0';
	if (cls >= 0 && cls < 6)
		h->stats.status[cls]++;
	h->stats.requests++;
	h->busy++;
	c->st = C_WRITE;
	c->want = POLLOUT;
	c->off = 0;
	c->deadline = now + TD_HTTP_TIMEOUT_MS * 1000000ull;
	c->stall = now + TD_HTTP_STALL_MS * 1000000ull;
}

/* A whole head arrived (or an error): authenticate, then answer. */
static void c_request(struct td_http *h, size_t slot, uint64_t now)
{
	struct conn *c = &h->c[slot];

	c->auth_ok = false;
	if (c->status == 200 && h->auth) {
		if (!c->r.auth) {
			c->status = 401;
		} else {
			switch (td_auth_lookup(h->auth, c->r.user, c->r.pass,
					       c->key)) {
			case TD_AUTH_OK:
				c->auth_ok = true;
				break;
			case TD_AUTH_FAIL:
				c->status = 401;
				break;
			default:
				if (auth_queue(h, slot)) {
					c->st = C_AUTH;
					return;
				}
				c->status = 429;
			}
		}
	}
	c_answer(h, c, now);
}

static void c_readable(struct td_http *h, size_t slot, uint64_t now)
{
	struct conn *c = &h->c[slot];
	ssize_t n;

	for (;;) {
		n = c_read(h, c, c->req + c->rlen, TD_HTTP_HEAD_MAX - c->rlen);
		if (n == -2)
			return;
		if (n <= 0) {
			c_close(h, c);
			return;
		}
		c->rlen += (size_t)n;
		if (c->rlen < TD_HTTP_HEAD_MAX &&
		    !td_http_head_ends(c->req, c->rlen - (size_t)n, c->rlen))
			continue;
		c->status = td_http_parse(c->req, c->rlen, TD_HTTP_HEAD_MAX,
					  &c->r);
		if (c->status) {
			c_request(h, slot, now);
			return;
		}
	}
}

static void c_writable(struct td_http *h, struct conn *c, uint64_t now)
{
	ssize_t n;

	while (c->off < c->len) {
		n = c_write(h, c, c->resp + c->off, c->len - c->off);
		if (n == -2)
			return;
		if (n <= 0) {
			c_close(h, c);
			return;
		}
		c->off += (size_t)n;
		c->stall = now + TD_HTTP_STALL_MS * 1000000ull;
	}
	free(c->resp);
	c->resp = NULL;
	h->busy--;
	if (c->ssl)
		SSL_shutdown(c->ssl);	/* close_notify; not waiting for theirs */
	shutdown(c->fd, SHUT_WR);
	c->st = C_CLOSING;
	if (c->deadline > now + 2000000000ull)
		c->deadline = now + 2000000000ull;
}

/* No whole request in time: 408, best effort (the socket's buffer takes
 * it or not; over TLS only once the handshake is done), then closed.
 */
static void c_timeout(struct td_http *h, struct conn *c)
{
	char *resp = NULL;
	size_t len = 0, put;

	if (c->ssl && !SSL_is_init_finished(c->ssl))
		return;
	if (td_http_answer(h->o.web, h->o.fn, h->o.ctx, 408, &c->r, false,
			   &resp, &len))
		return;
	h->stats.status[4]++;
	if (c->ssl) {
		ERR_clear_error();
		if (SSL_write_ex(c->ssl, resp, len, &put) == 1)
			SSL_shutdown(c->ssl);
		ERR_clear_error();
	} else if (send(c->fd, resp, len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* best effort */
	}
	free(resp);
}

static void c_closing(struct td_http *h, struct conn *c)
{
	char sink[4096];
	ssize_t n = read(c->fd, sink, sizeof(sink));

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		c_close(h, c);
}

/* Answers that waited for a slot. */
static void c_unwait(struct td_http *h, uint64_t now)
{
	for (size_t i = 0; i < h->nc && h->busy < TD_HTTP_BUSY_MAX; i++)
		if (h->c[i].st == C_WAIT)
			c_answer(h, &h->c[i], now);
}

static void auth_done(struct td_http *h, uint64_t now)
{
	char b[64];

	while (read(h->pipe[0], b, sizeof(b)) > 0)
		;
	pthread_mutex_lock(&h->mu);
	for (int i = 0; i < TD_HTTP_AUTH_QUEUE; i++) {
		struct job *j = &h->jobs[i];
		struct conn *c = &h->c[j->conn];

		if (j->state != 2)
			continue;
		h->stats.auth_checks++;
		if (c->st == C_AUTH && c->gen == j->gen) {
			if (h->auth)
				td_auth_remember(h->auth, c->key, j->ok);
			c->auth_ok = j->ok;
			if (!j->ok)
				c->status = 401;
			c_answer(h, c, now);
		}
		OPENSSL_cleanse(j, sizeof(*j));
	}
	pthread_mutex_unlock(&h->mu);
}

/* The slot for a new connection: a free one, or one closed to make room:
 * the oldest that was answered and waits for the client to close, else
 * the oldest that has not sent a whole request of the address that holds
 * the most connections (a flood from one address makes room from its
 * own).
 */
static size_t free_slot(struct td_http *h, bool evict)
{
	size_t old = NO_SLOT, most = 0;

	for (size_t i = 0; i < h->nc; i++) {
		const struct conn *c = &h->c[i];
		size_t n;

		if (c->st == C_FREE)
			return i;
		if (c->st == C_CLOSING)
			n = SIZE_MAX;
		else if (c->st == C_READ)
			n = peer_find(h, c->peer)->n;
		else
			continue;
		if (old == NO_SLOT || n > most ||
		    (n == most && c->since < h->c[old].since)) {
			old = i;
			most = n;
		}
	}
	if (old != NO_SLOT && evict) {
		c_close(h, &h->c[old]);
		h->stats.evicted++;
	}
	return old;
}

/* A client's address as a key: IPv4 (also mapped into IPv6), or the
 * /64 of IPv6, which one host may hold whole.
 */
static uint64_t peer_key(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)ss;
	uint64_t k = 0;

	if (ss->ss_family == AF_INET)
		return (uint64_t)ntohl(a4->sin_addr.s_addr);
	if (ss->ss_family != AF_INET6)
		return 0;
	if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr))
		return (uint64_t)a6->sin6_addr.s6_addr[12] << 24 |
		       (uint64_t)a6->sin6_addr.s6_addr[13] << 16 |
		       (uint64_t)a6->sin6_addr.s6_addr[14] << 8 |
		       a6->sin6_addr.s6_addr[15];
	for (int i = 0; i < 8; i++)
		k = k << 8 | a6->sin6_addr.s6_addr[i];
	return k | 1ull << 63 | 1;	/* never an IPv4 key */
}

static void accept_all(struct td_http *h, uint64_t now)
{
	struct sockaddr_storage ss;
	socklen_t sl;

	for (int k = 0; k < 256; k++) {
		size_t slot = free_slot(h, false);
		struct conn *c;
		int fd;

		if (slot == NO_SLOT)
			return;
		sl = sizeof(ss);
		fd = accept4(h->lfd, (struct sockaddr *)&ss, &sl,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		slot = free_slot(h, true);
		c = &h->c[slot];
		c->req = malloc(TD_HTTP_HEAD_MAX);
		if (h->tls && c->req) {
			c->ssl = SSL_new(h->tls);
			if (c->ssl && !SSL_set_fd(c->ssl, fd)) {
				SSL_free(c->ssl);
				c->ssl = NULL;
			}
		}
		if (!c->req || (h->tls && !c->ssl)) {
			free(c->req);
			c->req = NULL;
			close(fd);
			return;
		}
		if (c->ssl)
			SSL_set_accept_state(c->ssl);
		c->fd = fd;
		c->st = C_READ;
		c->want = POLLIN;
		c->rlen = 0;
		c->since = now;
		c->peer = peer_key(&ss);
		peers_add(h, c->peer, 1);
		c->deadline = now + TD_HTTP_TIMEOUT_MS * 1000000ull;
		h->stats.accepted++;
		h->stats.conns++;
	}
}

size_t td_http_nfds(const struct td_http *h)
{
	return h->nc + 2;
}

size_t td_http_pollfds(struct td_http *h, struct pollfd *pfd, uint64_t now)
{
	size_t n = 0;
	bool room = false;

	for (size_t i = 0; i < h->nc; i++) {
		struct conn *c = &h->c[i];
		short ev;

		if (c->st == C_FREE) {
			room = true;
			continue;
		}
		if (now >= c->deadline ||
		    (c->st == C_WRITE && now >= c->stall)) {
			if (c->st != C_CLOSING)
				h->stats.timed_out++;
			if (c->st == C_READ)
				c_timeout(h, c);
			c_close(h, c);
			room = true;
			continue;
		}
		if (c->st == C_READ || c->st == C_CLOSING)
			room = true;	/* may be closed for a newer one */
		ev = c_events(c);
		if (!ev)
			continue;
		pfd[n].fd = c->fd;
		pfd[n].events = ev;
		pfd[n].revents = 0;
		h->pmap[n++] = i;
	}
	pfd[n].fd = room ? h->lfd : -1;
	pfd[n].events = POLLIN;
	pfd[n].revents = 0;
	h->pmap[n++] = NO_SLOT;
	pfd[n].fd = h->pipe[0];
	pfd[n].events = POLLIN;
	pfd[n].revents = 0;
	h->pmap[n++] = NO_SLOT;
	return n;
}

void td_http_events(struct td_http *h, const struct pollfd *pfd, size_t n,
		    uint64_t now)
{
	bool accept_now = false, auth_now = false;

	for (size_t k = 0; k < n; k++) {
		struct conn *c;

		if (!pfd[k].revents)
			continue;
		if (h->pmap[k] == NO_SLOT) {
			if (pfd[k].fd == h->lfd)
				accept_now = true;
			else if (pfd[k].fd == h->pipe[0])
				auth_now = true;
			continue;
		}
		c = &h->c[h->pmap[k]];
		if (c->fd != pfd[k].fd)
			continue;	/* closed meanwhile */
		if (pfd[k].revents & POLLNVAL) {
			c_close(h, c);
			continue;
		}
		switch (c->st) {
		case C_READ:
			c_readable(h, h->pmap[k], now);
			break;
		case C_WRITE:
			c_writable(h, c, now);
			break;
		case C_CLOSING:
			c_closing(h, c);
			break;
		default:
			break;
		}
		if (c->st == C_WRITE && c->off == 0)
			c_writable(h, c, now);	/* answer at once */
	}
	if (auth_now)
		auth_done(h, now);
	c_unwait(h, now);
	if (accept_now)
		accept_all(h, now);
}

const struct td_http_stats *td_http_get_stats(const struct td_http *h)
{
	return &h->stats;
}

const char *td_http_url(const struct td_http *h)
{
	return h->url;
}

/* ---- setup ------------------------------------------------------------------ */

struct td_http *td_http_open(const struct td_http_opts *o)
{
	struct td_http *h = calloc(1, sizeof(*h));
	struct sockaddr_storage ss;
	struct rlimit rl;
	char err[512];
	size_t want;

	if (!h) {
		p_err("out of memory");
		return NULL;
	}
	h->o = *o;
	h->lfd = -1;
	h->pipe[0] = -1;
	h->pipe[1] = -1;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	/* OpenSSL writes to sockets with write(): no SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	/* Descriptors: one per connection and some to spare. */
	want = o->max_conns + 64;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < want) {
			h->o.max_conns = rl.rlim_cur > 96 ? rl.rlim_cur - 64 : 32;
			p_warn("at most %zu connections (RLIMIT_NOFILE %llu)",
			       h->o.max_conns, (unsigned long long)rl.rlim_cur);
		}
	}
	h->nc = h->o.max_conns;
	h->c = calloc(h->nc, sizeof(*h->c));
	h->pmap = calloc(h->nc + 2, sizeof(*h->pmap));
	for (h->npeers_cap = 64; h->npeers_cap < 4 * h->nc; h->npeers_cap *= 2)
		;
	h->peers = calloc(h->npeers_cap, sizeof(*h->peers));
	if (!h->c || !h->pmap || !h->peers || pipe2(h->pipe, O_NONBLOCK | O_CLOEXEC)) {
		p_err("out of memory");
		goto fail;
	}
	for (size_t i = 0; i < h->nc; i++)
		h->c[i].fd = -1;
	if (o->web && o->web->tls) {
		h->tls = td_http_tls_context(o->web);
		if (!h->tls)
			goto fail;
	}
	if (o->web && o->web->nusers) {
		h->auth = td_auth_new(o->web);
		if (!h->auth) {
			p_err("out of memory");
			goto fail;
		}
		if (td_auth_selftest(h->auth, err, sizeof(err))) {
			p_err("--web.config.file: %s", err);
			goto fail;
		}
	}
	h->lfd = td_http_listen(o->listen, &ss);
	if (h->lfd < 0)
		goto fail;
	/* Reachable from other machines: say what is open to them. */
	if (!td_http_is_loopback(&ss)) {
		const struct td_webcfg *w = o->web;
		/* only a verified certificate, required, keeps anyone out */
		bool certs = w && w->tls && w->client_auth == TD_CA_REQUIRE_VERIFY;

		if (!w || !w->tls)
			p_warn("--listen %s is not a loopback address and serve speaks plain HTTP: "
			       "the counters%s cross the network in clear (TLS: --web.config.file)",
			       o->listen, w && w->nusers ? " and passwords" : "");
		if ((!w || !w->nusers) && !certs)
			p_warn("--listen %s is not a loopback address and no password or client "
			       "certificate is asked: whoever can connect reads the counters of "
			       "every task (basic_auth_users: --web.config.file)", o->listen);
	}
	snprintf(h->url, sizeof(h->url), "%s://%s", h->tls ? "https" : "http",
		 o->listen);
	return h;
fail:
	td_http_close(h);
	return NULL;
}

int td_http_reload(struct td_http *h, struct td_webcfg *web)
{
	struct td_webcfg *nw = malloc(sizeof(*nw)), *old_own;
	struct td_auth *auth = NULL, *old_auth;
	SSL_CTX *tls = NULL, *old_tls;
	char err[512];
	bool busy;

	if (!nw) {
		p_err("out of memory");
		return -1;
	}
	*nw = *web;		/* its strings are ours now */
	memset(web, 0, sizeof(*web));
	if (nw->tls != !!h->tls) {
		p_err("--web.config.file: TLS cannot be turned %s without a restart",
		      nw->tls ? "on" : "off");
		goto fail;
	}
	if (nw->tls) {
		tls = td_http_tls_context(nw);
		if (!tls)
			goto fail;
	}
	if (nw->nusers) {
		auth = td_auth_new(nw);
		if (!auth) {
			p_err("out of memory");
			goto fail;
		}
		if (td_auth_selftest(auth, err, sizeof(err))) {
			p_err("--web.config.file: %s", err);
			goto fail;
		}
	}
	/* The bcrypt thread reads the users of the check it runs: swap
	 * once it runs none (at most one check's time). Checks queued
	 * meanwhile run with the new users.
	 */
	pthread_mutex_lock(&h->mu);
	do {
		busy = false;
		for (int i = 0; i < TD_HTTP_AUTH_QUEUE; i++)
			if (h->jobs[i].state == 3)
				busy = true;
		if (busy)
			pthread_cond_wait(&h->cv, &h->mu);
	} while (busy);
	old_auth = h->auth;
	old_tls = h->tls;
	old_own = h->own;
	h->auth = auth;
	h->tls = tls;		/* connections keep the context they began with */
	h->own = nw;
	h->o.web = nw;
	pthread_mutex_unlock(&h->mu);
	td_auth_free(old_auth);
	SSL_CTX_free(old_tls);
	if (old_own) {
		td_webcfg_free(old_own);
		free(old_own);
	}
	return 0;
fail:
	SSL_CTX_free(tls);
	td_auth_free(auth);
	td_webcfg_free(nw);
	free(nw);
	return -1;
}

void td_http_close(struct td_http *h)
{
	if (!h)
		return;
	if (h->thr_up) {
		pthread_mutex_lock(&h->mu);
		h->thr_stop = true;
		pthread_cond_signal(&h->cv);
		pthread_mutex_unlock(&h->mu);
		pthread_join(h->thr, NULL);
	}
	for (size_t i = 0; h->c && i < h->nc; i++)
		c_close(h, &h->c[i]);
	if (h->lfd >= 0)
		close(h->lfd);
	if (h->pipe[0] >= 0)
		close(h->pipe[0]);
	if (h->pipe[1] >= 0)
		close(h->pipe[1]);
	SSL_CTX_free(h->tls);
	td_auth_free(h->auth);
	if (h->own) {
		td_webcfg_free(h->own);
		free(h->own);
	}
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	free(h->c);
	free(h->pmap);
	free(h->peers);
	free(h);
}
