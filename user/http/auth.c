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
	char dummy[64];		/* a hash of no user, the highest cost */
	uint8_t ok[AUTH_OK_SLOTS][32], fail[AUTH_FAIL_SLOTS][32];
	bool ok_used[AUTH_OK_SLOTS], fail_used[AUTH_FAIL_SLOTS];
	unsigned int ok_next, fail_next;
};

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
	/* The dummy: the same cost as the dearest real hash. */
	for (int i = 0; i < c->nusers; i++) {
		int k = (c->users[i].hash[4] - '0') * 10 + c->users[i].hash[5] - '0';

		if (k > cost)
			cost = k;
	}
	snprintf(a->dummy, sizeof(a->dummy),
		 "$2b$%02d$abcdefghijklmnopqrstuu5s0bkMTJp5eyO6Fv4BfeqCyfw0cGjmG",
		 cost);
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
	const char *hash = a->dummy, *out;
	bool known = false, ok;

	if (!cd)
		return false;
	if (strlen(pass) > TD_AUTH_PASS_MAX) {
		free(cd);
		return false;
	}
	for (int i = 0; i < a->c->nusers; i++)
		if (!strcmp(a->c->users[i].name, user)) {
			hash = a->c->users[i].hash;
			known = true;
		}
	out = crypt_r(pass, hash, cd);
	ok = known && out && out[0] == '$' && strlen(out) == strlen(hash) &&
	     !CRYPTO_memcmp(out, hash, strlen(hash));
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
