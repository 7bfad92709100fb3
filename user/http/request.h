/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The head of one HTTP/1.x request (RFC 9112), parsed from the bytes a
 * client sent so far. Outside input: every byte is checked, nothing is
 * trusted, nothing is allocated; selftests/fuzz/fuzz_http.c drives it.
 */
#ifndef TD_HTTP_REQUEST_H
#define TD_HTTP_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#define TD_HTTP_PATH_MAX	256
#define TD_HTTP_CRED_MAX	256	/* a user name or password */

struct td_http_req {
	char method[8];
	char path[TD_HTTP_PATH_MAX];	/* the target without its ?query */
	bool head;			/* HEAD: the headers of GET only */
	bool openmetrics;		/* Accept names OpenMetrics */
	bool auth;			/* an Authorization: Basic header */
	char user[TD_HTTP_CRED_MAX];	/* its user and password, decoded */
	char pass[TD_HTTP_CRED_MAX];
};

/*
 * Parse buf[0..len), what arrived so far, as a request head of at most
 * max bytes; up to 8 empty lines before the request line are ignored
 * (RFC 9112 2.2), more are 400. Returns 0 while the head is not complete
 * (no empty line after the request line yet)
 * and shorter than max, else an HTTP status: 200 when it parsed (*r
 * filled), 400 malformed (also a bad Authorization), 405 a method other
 * than GET and HEAD, 414 a target too long, 431 a head of max bytes or
 * more, 505 a version other than HTTP/1.0 and 1.1.
 */
int td_http_parse(const char *buf, size_t len, size_t max,
		  struct td_http_req *r);

/*
 * Can buf[0..len) hold a whole head, now that the bytes from "from" on
 * arrived (an empty line ends in them)? A cheap test on the new bytes
 * only, so that a head sent a byte at a time is parsed once, not once
 * per byte.
 */
bool td_http_head_ends(const char *buf, size_t from, size_t len);

/* Standard base64 (RFC 4648, padded) of src into dst, NUL-terminated:
 * the number of bytes, or -1 if src is not base64 or does not fit in
 * cap - 1 bytes.
 */
int td_base64_decode(const char *src, size_t n, char *dst, size_t cap);

#endif
