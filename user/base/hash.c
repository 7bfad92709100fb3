// SPDX-License-Identifier: GPL-2.0
/* Keyed hashes (base/hash.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "base/hash.h"

uint64_t td_hash_key[2];

__attribute__((constructor))
static void hash_key_init(void)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	td_hash_key[0] = 0x0706050403020100ull;
	td_hash_key[1] = 0x0f0e0d0c0b0a0908ull;
#else
	struct timespec ts;

	if (getrandom(td_hash_key, sizeof(td_hash_key), GRND_NONBLOCK) ==
	    (ssize_t)sizeof(td_hash_key))
		return;
	/* No entropy yet (early boot): what differs from run to run. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	td_hash_key[0] = (uint64_t)ts.tv_nsec << 32 ^ (uint64_t)ts.tv_sec ^
			 (uint64_t)getpid() << 16;
	td_hash_key[1] = (uint64_t)(uintptr_t)&ts ^
			 (uint64_t)(uintptr_t)hash_key_init;
#endif
}

uint64_t td_hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t v[4], m, last = (uint64_t)n << 56;
	size_t i = 0;

	td_sipinit(v);
	for (; i + 8 <= n; i += 8) {
		m = 0;
		for (int k = 7; k >= 0; k--)
			m = m << 8 | s[i + k];
		td_sipword(v, m);
	}
	for (int k = 0; i + k < n; k++)
		last |= (uint64_t)s[i + k] << (8 * k);
	td_sipword(v, last);
	return td_sipfinal(v);
}
