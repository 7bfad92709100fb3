// SPDX-License-Identifier: GPL-2.0
/*
 * user/file/order.c: the time order of records stored per CPU must be that of
 * a stable sort by (time, cpu), whether it merges (every CPU in time
 * order) or falls back to sorting (a CPU going back in time), with equal
 * timestamps within and across CPUs, filters, and degenerate inputs.
 * TAP on stdout.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/order.h"
#include "testlib.h"

/*
 * n records on ncpu CPUs, stored as the rings are drained: per CPU in
 * sequence order, the CPUs interleaved in runs of random length. Times
 * advance by 0..2 units (so equal within a CPU too) from the same start
 * on every CPU (so equal across CPUs).
 */
static void make(struct topdown_record *rec, size_t n, uint32_t ncpu,
		 int max_run)
{
	uint64_t t[64] = { 0 }, seq[64] = { 0 };
	size_t i = 0;

	while (i < n) {
		uint32_t c = (uint32_t)(rnd() % ncpu);
		int run = 1 + (int)(rnd() % max_run);

		for (; run && i < n; run--, i++) {
			memset(&rec[i], 0, sizeof(rec[i]));
			t[c] += rnd() % 3;
			rec[i].time_ns = 1000 + t[c];
			rec[i].cpu = c;
			rec[i].seq = seq[c]++;
			rec[i].pid = 100 + (uint32_t)(rnd() % 4);
			rec[i].tgid = rec[i].pid;
			snprintf(rec[i].comm, sizeof(rec[i].comm), "t%u",
				 rec[i].pid);
		}
	}
}

/* The reference: a stable sort by (time, cpu), a plain merge sort of the
 * indexes (stable by construction, unlike the index tie-break of
 * order.c's fallback).
 */
static const struct topdown_record *ref_rec;

static bool ref_before(size_t a, size_t b)
{
	const struct topdown_record *x = &ref_rec[a], *y = &ref_rec[b];

	return x->time_ns < y->time_ns ||
	       (x->time_ns == y->time_ns && x->cpu < y->cpu);
}

static void ref_sort(size_t *v, size_t *tmp, size_t n)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	ref_sort(v, tmp, h);
	ref_sort(v + h, tmp, n - h);
	while (i < h && j < n)	/* the right one only if strictly before */
		tmp[k++] = ref_before(v[j], v[i]) ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

/* 1 if td_order gives the reference order; *merged: which path ran. */
static int same_order(const struct topdown_record *rec, size_t n,
		      uint32_t ncpu, const struct td_filter *f, int *merged)
{
	size_t *ref = malloc((n + 1) * sizeof(*ref)), k = 0, got = 0;
	size_t *tmp = malloc((n + 1) * sizeof(*tmp));
	const struct topdown_record *r;
	struct td_order o;
	int same = 1;

	for (size_t i = 0; i < n; i++)
		if (!f || td_filter_match(f, &rec[i]))
			ref[k++] = i;
	ref_rec = rec;
	ref_sort(ref, tmp, k);
	free(tmp);
	if (td_order_init(&o, rec, n, ncpu, f)) {
		free(ref);
		return 0;
	}
	*merged = o.sorted;
	while ((r = td_order_next(&o))) {
		if (got >= k || r != &rec[ref[got]])
			same = 0;
		got++;
	}
	td_order_free(&o);
	free(ref);
	return same && got == k;
}

int main(void)
{
	static struct topdown_record rec[20000];
	struct td_filter f;
	int merged = 0, all_merged = 1, none_merged = 1, good = 1;

	rng = 0x853c49e6748fea9bull;
	printf("TAP version 13\n");

	for (int round = 0; round < 200; round++) {
		size_t n = 1 + rnd() % 2000;
		uint32_t ncpu = 1 + (uint32_t)(rnd() % 12);

		make(rec, n, ncpu, 1 + round % 40);
		good &= same_order(rec, n, ncpu, NULL, &merged);
		all_merged &= merged;
	}
	ok(good && all_merged,
	   "merge: CPUs in time order, equal times within and across CPUs");

	good = 1;
	for (int round = 0; round < 200; round++) {
		size_t n = 2 + rnd() % 2000, i = 1 + rnd() % (n - 1);

		make(rec, n, 4, 8);
		/* A clock that went back on one CPU. */
		rec[0].cpu = rec[i].cpu;
		rec[0].time_ns = 10;
		rec[i].time_ns = 0;
		good &= same_order(rec, n, 4, NULL, &merged);
		none_merged &= !merged;
	}
	ok(good && none_merged, "out-of-order input: sorted instead, same order");

	make(rec, 5000, 6, 20);
	td_filter_init(&f);
	td_filter_opt(&f, TD_FILTER_CPU, "3");
	good = same_order(rec, 5000, 6, &f, &merged) && merged;
	td_filter_init(&f);
	td_filter_opt(&f, TD_FILTER_COMM, "t101");
	good &= same_order(rec, 5000, 6, &f, &merged) && merged;
	/* matches nothing together with the comm */
	td_filter_opt(&f, TD_FILTER_PID, "102");
	good &= same_order(rec, 5000, 6, &f, &merged);
	ok(good, "filters: only the matching records, in order");

	good = same_order(rec, 0, 6, NULL, &merged);
	good &= same_order(rec, 1, 1, NULL, &merged);
	ok(good, "no record, one record");

	make(rec, 3000, 8, 5);
	rec[100].cpu = 9;	/* beyond nr_cpus */
	good = same_order(rec, 3000, 8, NULL, &merged) && !merged;
	ok(good, "a CPU beyond nr_cpus: sorted, nothing lost");

	/* Every record at the same time: CPU order, then array order. */
	make(rec, 4000, 5, 30);
	for (size_t i = 0; i < 4000; i++)
		rec[i].time_ns = 7;
	good = same_order(rec, 4000, 5, NULL, &merged) && merged;
	ok(good, "all times equal: by CPU, then as stored");

	/* The reference must be able to disagree. */
	{
		struct td_order o;
		const struct topdown_record *first;

		make(rec, 10, 2, 1);
		rec[0].time_ns = 1;
		rec[1].time_ns = 1;
		rec[0].cpu = 1;
		rec[1].cpu = 0;
		for (size_t i = 2; i < 10; i++)
			rec[i].time_ns = 5;
		td_order_init(&o, rec, 10, 2, NULL);
		first = td_order_next(&o);
		ok(first == &rec[1], "equal times: the lower CPU first");
		td_order_free(&o);
	}
	return tap_done();
}
