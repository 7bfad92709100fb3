/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP for the host's C tests (the guest's tests use the kernel's
 * kselftest_harness.h or kselftest.h instead): ok() (or tap(),
 * its name for programs that have a variable named ok) prints one
 * "ok N - ..." or "not ok N - ..." line and counts it, tap_skip() an
 * "ok N # SKIP ..." line. tap_done() prints the plan and a summary and
 * returns the exit status; a program that knows its count beforehand
 * prints "1..N" first instead and returns tap_failed ? 1 : 0.
 * Header-only: each test is one program.
 */
#ifndef TD_TAP_H
#define TD_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_n, tap_failed;

static inline bool tap_v(bool cond, const char *fmt, va_list ap)
{
	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	vprintf(fmt, ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	return cond;
}

static inline __attribute__((format(printf, 2, 3)))
bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cond = tap_v(cond, fmt, ap);
	va_end(ap);
	return cond;
}

static inline __attribute__((format(printf, 2, 3)))
bool tap(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cond = tap_v(cond, fmt, ap);
	va_end(ap);
	return cond;
}

/* A test that cannot run here, and why. */
static inline __attribute__((format(printf, 1, 2)))
void tap_skip(const char *fmt, ...)
{
	va_list ap;

	printf("ok %d # SKIP ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
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

#endif /* TD_TAP_H */
