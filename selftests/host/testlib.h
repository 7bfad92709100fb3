/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the C host tests share: TAP lines (tap.h) and a repeatable random
 * source.
 */
#ifndef TD_TESTLIB_H
#define TD_TESTLIB_H

#include <stdint.h>

#include "tap.h"

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
