/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event counts as people and perf print them: "3922334305", perf stat's
 * digit grouping "3,922,334,305", perf stat -j's "3922334305.000000",
 * exponents "2e6" and "1.5E+9", hexadecimal "0x1f".
 */
#ifndef TDCTL_COUNT_H
#define TDCTL_COUNT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parse the len bytes at s (surrounding blanks allowed) as a non-negative
 * count. Thousands separators are commas, each followed by exactly three
 * digits; a fraction is rounded to the nearest integer (halves up),
 * exactly, from the decimal digits. Returns 0, or -1 with the reason in err (not a
 * number, negative, more than 64 bits).
 */
int td_parse_count(const char *s, size_t len, uint64_t *out, char *err,
		   size_t errlen);

#endif
