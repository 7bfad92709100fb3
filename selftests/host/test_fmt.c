// SPDX-License-Identifier: GPL-2.0
/*
 * The hand-written formatters of user/output/fmt.c against snprintf(): edge
 * values and millions of random ones, for every conversion dump uses.
 * TAP on stdout.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/fmt.h"
#include "testlib.h"

static double rnd_unit(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* Compare one value in every conversion; print the first mismatches. */
static long mismatches;

/*
 * JSON's numbers: the shortest text that reads back as v. It must read
 * back as v, and no %.Ng with fewer digits may (both ways of writing the
 * same digits count alike).
 */
static int shortest_bad;

static void check_shortest(double v)
{
	char got[TD_FMT_MAX + 1], t[64];
	int n;

	if (!isfinite(v))
		return;
	n = td_fmt_shortest(got, v);
	got[n] = '\0';
	if (strtod(got, NULL) != v) {
		if (shortest_bad++ < 10)
			printf("# shortest of %a: '%s' does not read back\n", v,
			       got);
		return;
	}
	for (int p = 1; p < 17; p++) {
		int digits = 0, zeros = 0;
		const char *c = got;

		snprintf(t, sizeof(t), "%.*g", p, v);
		if (strtod(t, NULL) != v)
			continue;
		/* significant digits: from the first non-zero one, without
		 * the trailing zeros
		 */
		while (*c == '-' || *c == '0' || *c == '.')
			c++;
		for (; *c && *c != 'e'; c++) {
			if (*c == '.')
				continue;
			if (*c == '0') {
				zeros++;
				continue;
			}
			digits += zeros + 1;
			zeros = 0;
		}
		if (digits > p && shortest_bad++ < 10)
			printf("# shortest of %a: '%s', but '%s' reads back\n",
			       v, got, t);
		break;
	}
}

static void check(double v)
{
	static const int precs[] = { 0, 1, 3, 6, 9 };
	char want[512], got[TD_FMT_MAX + 1];
	int n;

	for (size_t i = 0; i < sizeof(precs) / sizeof(precs[0]); i++) {
		snprintf(want, sizeof(want), "%.*f", precs[i], v);
		n = td_fmt_fixed(got, v, precs[i]);
		got[n] = '\0';
		if (strcmp(want, got) && mismatches++ < 10)
			printf("# %%.%df of %a: printf '%s', td_fmt_fixed '%s'\n",
			       precs[i], v, want, got);
	}
	snprintf(want, sizeof(want), "%.17g", v);
	n = td_fmt_g17(got, v);
	got[n] = '\0';
	if (strcmp(want, got) && mismatches++ < 10)
		printf("# %%.17g of %a: printf '%s', td_fmt_g17 '%s'\n", v, want,
		       got);
	check_shortest(v);
}

static void check_u64(uint64_t v)
{
	char want[32], got[32];
	int n;

	snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
	n = td_fmt_u64(got, v);
	got[n] = '\0';
	if (strcmp(want, got) && mismatches++ < 10)
		printf("# %%llu: printf '%s', td_fmt_u64 '%s'\n", want, got);
}

static void test_edges(void)
{
	const double edges[] = {
		0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.05, 0.15, 0.25,
		0.35, 0.125, 0.375, -0.125, 0.0005, 0.0015, 0.0025, 1e-7,
		-1e-7, 4.9999999999999996e-7, 5e-7, 1e-6, 9.9999999999999995e-7,
		1e-5, 1e-4, 0.1, 0.9999995, 0.99999949999999996, 9.5, 99.95,
		999.9995, 1e15, 1e16, 1e17, 1e22, 1e300, -1e300,
		4503599627370495.5, 4503599627370496.0, 9007199254740992.0,
		9007199254740993.0, 18446744073709551615.0, 1.8446744073709552e19,
		DBL_MAX, -DBL_MAX, DBL_MIN, -DBL_MIN, DBL_MIN / 2, 5e-324,
		DBL_EPSILON, 1.0 - DBL_EPSILON / 2, 1.0 + DBL_EPSILON,
		NAN, -NAN, INFINITY, -INFINITY, 0.1 + 0.2, 1.0 / 3, 2.0 / 3,
		-1.0 / 3, 100.0 * 0.7733704757867539, 123456789.123456789,
		0.000123456789, 0.0000123456789, 1.5e-5, 9.99999999999999e-5,
	};

	mismatches = 0;
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		check(edges[i]);
		check(edges[i] * 100.0);
		check(edges[i] / 1e3);
	}
	ok(!mismatches, "edge values: %%.Nf and %%.17g as printf");

	mismatches = 0;
	check_u64(0);
	check_u64(UINT64_MAX);
	for (int i = 0; i < 20; i++) {
		uint64_t p = 1;

		for (int k = 0; k < i; k++)
			p *= 10;
		check_u64(p - 1);
		check_u64(p);
		check_u64(p + 1);
	}
	for (int i = 0; i < 100000; i++)
		check_u64(rnd() >> (rnd() % 64));
	ok(!mismatches, "u64: 0, UINT64_MAX, powers of ten, random");
}

/* Ties: k / 2^j for small j are exact halves at some precision. */
static void test_ties(void)
{
	mismatches = 0;
	for (int j = 1; j <= 24; j++)
		for (int k = -3000; k <= 3000; k++)
			check(ldexp(k, -j));
	ok(!mismatches, "exact binary fractions (rounding ties to even)");
}

static void test_random(long n)
{
	mismatches = 0;
	for (long i = 0; i < n; i++) {
		uint64_t bits = rnd(), a = rnd() % 4000000 + 1, b = rnd() % 4000000 + 1;
		double v;

		/* metric-like ratios, fractions outside [0,1], IPC */
		check((double)a / (double)b);
		check((double)(a - 2000000) / (double)b);
		check(4.0 * rnd_unit() - 2.0);
		/* slice lengths in microseconds and percentages */
		check((double)(rnd() >> (rnd() % 64)) / 1e3);
		check(100.0 * rnd_unit());
		/* any magnitude, and any bit pattern */
		check(ldexp(rnd_unit(), (int)(rnd() % 140) - 90));
		memcpy(&v, &bits, sizeof(v));
		check(v);
	}
	ok(!mismatches, "random values of every kind as printf");
	ok(!shortest_bad,
	   "JSON numbers: the shortest text that reads back, for the same values");
}

/* The buffer: padded fields and flushing across its size. */
static void test_buf(void)
{
	char want[256], *got = NULL, *exp = NULL;
	size_t got_len = 0, exp_len = 0;
	FILE *gf = open_memstream(&got, &got_len);
	FILE *ef = open_memstream(&exp, &exp_len);
	struct td_buf b;

	if (!gf || !ef || td_buf_init(&b, gf)) {
		ok(0, "td_buf: setup");
		return;
	}
	for (long i = 0; i < 300000; i++) {
		uint64_t u = rnd() >> (rnd() % 64);
		double v = ldexp(rnd_unit(), (int)(rnd() % 40) - 20) *
			   (rnd() & 1 ? -1 : 1);
		char comm[17];

		snprintf(comm, sizeof(comm), "c%llu", (unsigned long long)(u % 1000000));
		td_buf_u64(&b, u, 14);
		td_buf_u64(&b, u, 0);
		td_buf_fixed(&b, v, 3, 10);
		td_buf_fixed(&b, 100.0 * v, 1, 9);
		td_buf_fixed(&b, v, 6, 0);
		td_buf_pad(&b, comm, strlen(comm), -16);
		td_buf_pad(&b, "-", 1, 10);
		td_buf_g17(&b, v);
		td_buf_char(&b, '\n');
		snprintf(want, sizeof(want), "%14llu%llu%10.3f%9.1f%.6f%-16s%10s%.17g\n",
			 (unsigned long long)u, (unsigned long long)u, v,
			 100.0 * v, v, comm, "-", v);
		fputs(want, ef);
	}
	td_buf_close(&b);
	fclose(gf);
	fclose(ef);
	ok(got_len == exp_len && !memcmp(got, exp, got_len),
	   "td_buf: padded fields over many flushes equal fprintf");
	free(got);
	free(exp);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;

	printf("TAP version 13\n");
	test_edges();
	test_ties();
	test_random(n);
	test_buf();
	/* The check itself must be able to fail. */
	{
		char got[TD_FMT_MAX];
		int len = td_fmt_fixed(got, 0.125, 2);

		ok(len == 4 && !memcmp(got, "0.12", 4) &&
		   memcmp(got, "0.13", 4), "0.125 as %%.2f is 0.12 (ties to even)");
	}
	return tap_done();
}
