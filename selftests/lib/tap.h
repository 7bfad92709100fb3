/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP for the C host tests: ok() prints one "ok N - ..." or
 * "not ok N - ..." line and counts it; tap_done() prints the plan and
 * returns the exit status. Header-only: each test is one program.
 */
#ifndef TD_HOST_TAP_H
#define TD_HOST_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_n, tap_failed;

static inline __attribute__((format(printf, 2, 3)))
bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	return cond;
}

/* A comment line ("# ..."). */
static inline __attribute__((format(printf, 1, 2)))
void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* The plan line and a summary; the exit status of the test program. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	printf("# %d passed, %d failed\n", tap_n - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif
