/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HTTP basic authentication against the bcrypt hashes of the web
 * configuration (webcfg.h), checked with libxcrypt's crypt_r() as the
 * toolkit checks them with Go's bcrypt.
 *
 * A bcrypt check is slow on purpose (cost 10: tens of milliseconds), so
 * results are remembered: a password that passed (or failed) is known by
 * a keyed SHA-256 of "user:password" (the key random per process, the
 * password itself never kept), and the next request with it costs one
 * hash. Passes and failures have caches of their own, so guessing cannot
 * push a good password out. Every check costs what the dearest user's
 * hash costs: a user of a lower cost is checked and then dummy hashes
 * make up the difference, a user name that does not exist is checked
 * against a dummy of that cost; so the time of an answer does not tell
 * which users exist.
 *
 * bcrypt reads at most 72 bytes of a password: a longer one fails at
 * once (Go's bcrypt.GenerateFromPassword refuses to hash one), so that a
 * password is never taken for its first 72 bytes.
 */
#ifndef TD_HTTP_AUTH_H
#define TD_HTTP_AUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "http/webcfg.h"

#define TD_AUTH_PASS_MAX	72	/* bytes of a password bcrypt reads */

enum td_auth_result {
	TD_AUTH_OK,
	TD_AUTH_FAIL,
	TD_AUTH_CHECK,		/* not known: td_auth_verify() decides */
};

struct td_auth;

/* The users of c (kept by reference: c outlives it); NULL if out of
 * memory.
 */
struct td_auth *td_auth_new(const struct td_webcfg *c);
void td_auth_free(struct td_auth *a);
/* Known already? key receives what td_auth_remember() takes. */
enum td_auth_result td_auth_lookup(struct td_auth *a, const char *user,
				   const char *pass, uint8_t key[32]);
/* The bcrypt check: slow, touches nothing shared (safe on another
 * thread).
 */
bool td_auth_verify(const struct td_auth *a, const char *user,
		    const char *pass);
void td_auth_remember(struct td_auth *a, const uint8_t key[32], bool ok);
/* Does crypt_r() take each user's hash? 0, or -1 with the user in err. */
int td_auth_selftest(const struct td_auth *a, char *err, size_t errlen);

#endif
