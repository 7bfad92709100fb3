/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the C host tests share: TAP lines and a repeatable random source.
 */
#ifndef TD_TESTLIB_H
#define TD_TESTLIB_H

#include <stdint.h>
#include <stdio.h>

static int nr_test, nr_fail;

static inline void ok(int cond, const char *what)
{
	nr_test++;
	if (!cond)
		nr_fail++;
	printf("%sok %d - %s\n", cond ? "" : "not ", nr_test, what);
}

/* xorshift64: the same values on every run (set rng to reseed). */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static inline uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#endif
