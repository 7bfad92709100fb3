// SPDX-License-Identifier: GPL-2.0
/* HTTP basic authentication with bcrypt through libxcrypt (see auth.h). */
#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "http/auth.h"

#define AUTH_OK_SLOTS	16
#define AUTH_FAIL_SLOTS	256

struct td_auth {
	const struct td_webcfg *c;
	uint8_t secret[32];
	int cost;		/* the highest of the users' */
	uint8_t ok[AUTH_OK_SLOTS][32], fail[AUTH_FAIL_SLOTS][32];
	bool ok_used[AUTH_OK_SLOTS], fail_used[AUTH_FAIL_SLOTS];
	unsigned int ok_next, fail_next;
};

/* The cost of a bcrypt hash as webcfg.c checked it: "$2b$NN$...". */
static int hash_cost(const char *h)
{
	return (h[4] - '0') * 10 + h[5] - '0';
}

/* crypt_r() with a hash of no user, of this cost: its time only. */
static void dummy_check(const char *pass, int cost, struct crypt_data *cd)
{
	char dummy[80];

	snprintf(dummy, sizeof(dummy),
		 "$2b$%02u$abcdefghijklmnopqrstuu5s0bkMTJp5eyO6Fv4BfeqCyfw0cGjmG",
		 (unsigned int)cost % 100);
	crypt_r(pass, dummy, cd);
}

struct td_auth *td_auth_new(const struct td_webcfg *c)
{
	struct td_auth *a = calloc(1, sizeof(*a));
	int cost = 4;

	if (!a)
		return NULL;
	a->c = c;
	if (getrandom(a->secret, sizeof(a->secret), 0) != sizeof(a->secret)) {
		free(a);
		return NULL;
	}
	for (int i = 0; i < c->nusers; i++)
		if (hash_cost(c->users[i].hash) > cost)
			cost = hash_cost(c->users[i].hash);
	a->cost = cost;
	return a;
}

void td_auth_free(struct td_auth *a)
{
	if (a)
		OPENSSL_cleanse(a, sizeof(*a));
	free(a);
}

enum td_auth_result td_auth_lookup(struct td_auth *a, const char *user,
				   const char *pass, uint8_t key[32])
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned int n = 32;
	int r = TD_AUTH_CHECK;

	/* key = SHA-256(secret user NUL password): never the password */
	if (!md || !EVP_DigestInit_ex(md, EVP_sha256(), NULL) ||
	    !EVP_DigestUpdate(md, a->secret, sizeof(a->secret)) ||
	    !EVP_DigestUpdate(md, user, strlen(user) + 1) ||
	    !EVP_DigestUpdate(md, pass, strlen(pass)) ||
	    !EVP_DigestFinal_ex(md, key, &n)) {
		EVP_MD_CTX_free(md);
		memset(key, 0, 32);
		return TD_AUTH_CHECK;	/* no cache, the slow way */
	}
	EVP_MD_CTX_free(md);
	if (strlen(pass) > TD_AUTH_PASS_MAX)
		return TD_AUTH_FAIL;
	for (int i = 0; i < AUTH_OK_SLOTS; i++)
		if (a->ok_used[i] && !CRYPTO_memcmp(a->ok[i], key, 32))
			r = TD_AUTH_OK;
	for (int i = 0; i < AUTH_FAIL_SLOTS && r == TD_AUTH_CHECK; i++)
		if (a->fail_used[i] && !CRYPTO_memcmp(a->fail[i], key, 32))
			r = TD_AUTH_FAIL;
	return (enum td_auth_result)r;
}

bool td_auth_verify(const struct td_auth *a, const char *user,
		    const char *pass)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *hash = NULL, *out;
	bool ok = false;

	if (!cd)
		return false;
	if (strlen(pass) > TD_AUTH_PASS_MAX) {
		free(cd);
		return false;
	}
	for (int i = 0; i < a->c->nusers; i++)
		if (!strcmp(a->c->users[i].name, user))
			hash = a->c->users[i].hash;
	/* Every check costs what the dearest user's does, 2^cost rounds,
	 * whether the user exists or not: a user of cost c is checked, then
	 * dummies of costs c .. cost - 1 make up the rest (2^c + 2^c + ...
	 * + 2^(cost-1) = 2^cost); a user that does not exist is a dummy of
	 * that cost.
	 */
	if (hash) {
		out = crypt_r(pass, hash, cd);
		ok = out && out[0] == '$' && strlen(out) == strlen(hash) &&
		     !CRYPTO_memcmp(out, hash, strlen(hash));
		for (int k = hash_cost(hash); k < a->cost; k++)
			dummy_check(pass, k, cd);
	} else {
		dummy_check(pass, a->cost, cd);
	}
	OPENSSL_cleanse(cd, sizeof(*cd));
	free(cd);
	return ok;
}

void td_auth_remember(struct td_auth *a, const uint8_t key[32], bool ok)
{
	static const uint8_t zero[32];

	if (!memcmp(key, zero, 32))
		return;		/* td_auth_lookup() could not hash */
	if (ok) {
		memcpy(a->ok[a->ok_next], key, 32);
		a->ok_used[a->ok_next] = true;
		a->ok_next = (a->ok_next + 1) % AUTH_OK_SLOTS;
	} else {
		memcpy(a->fail[a->fail_next], key, 32);
		a->fail_used[a->fail_next] = true;
		a->fail_next = (a->fail_next + 1) % AUTH_FAIL_SLOTS;
	}
}

int td_auth_selftest(const struct td_auth *a, char *err, size_t errlen)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *out;

	if (!cd) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < a->c->nusers; i++) {
		out = crypt_r("", a->c->users[i].hash, cd);
		if (!out || out[0] != '$' ||
		    strlen(out) != strlen(a->c->users[i].hash) ||
		    memcmp(out, a->c->users[i].hash, 29)) {
			snprintf(err, errlen,
				 "basic_auth_users.%s: crypt() does not take this hash",
				 a->c->users[i].name);
			free(cd);
			return -1;
		}
	}
	free(cd);
	return 0;
}
