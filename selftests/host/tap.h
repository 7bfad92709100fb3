/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP for the host's C tests (the guest's tests use the kernel's
 * kselftest_harness.h or kselftest.h instead): ok() (or tap(),
 * its name for programs that have a variable named ok) prints one
 * "ok N - ..." or "not ok N - ..." line and counts it, tap_skip() an
 * "ok N # SKIP ..." line. tap_done() prints the plan and a summary and
 * returns the exit status; a program that knows its count beforehand
 * prints "1..N" first instead and returns tap_failed ? 1 : 0.
 * tap_tmpdir() is the program's scratch directory, removed at exit.
 * Header-only: each test is one program.
 */
#ifndef TD_TAP_H
#define TD_TAP_H

#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;
static char tap_tmp[200];	/* room for a name or two under it in 512 */

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

static inline int tap_rm(const char *path, const struct stat *st, int flag,
			 struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void tap_tmp_remove(void)
{
	if (getenv("TD_KEEP_FIXTURES"))
		fprintf(stderr, "# scratch directory kept: %s\n", tap_tmp);
	else if (nftw(tap_tmp, tap_rm, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "# could not remove %s\n", tap_tmp);
}

/*
 * The program's scratch directory, made on the first call (under $TMPDIR,
 * or /tmp; mode 0700) and removed with what it holds when the program
 * exits (but with TD_KEEP_FIXTURES set in the environment). Exits 2 when
 * it cannot be made.
 */
static inline char *tap_tmpdir(void)
{
	const char *t = getenv("TMPDIR");

	if (tap_tmp[0])
		return tap_tmp;
	if (snprintf(tap_tmp, sizeof(tap_tmp), "%s/td_test.XXXXXX",
		     t && *t ? t : "/tmp") >= (int)sizeof(tap_tmp)) {
		fprintf(stderr, "TMPDIR too long: %s\n", t);
		exit(2);
	}
	if (!mkdtemp(tap_tmp)) {
		perror("mkdtemp");
		exit(2);
	}
	atexit(tap_tmp_remove);
	return tap_tmp;
}

/* The plan line and a summary; the exit status of the test program. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	printf("# %d passed, %d failed\n", tap_n - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif /* TD_TAP_H */
