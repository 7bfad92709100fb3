// SPDX-License-Identifier: GPL-2.0
/*
 * Time order of records stored per CPU. See order.h.
 */
#include <stdlib.h>
#include <string.h>

#include "file/order.h"

#define NO_RUN	UINT32_MAX

/* Consecutive kept records of one CPU in the array. */
struct td_order_run {
	size_t start;
	size_t len;
	uint32_t next;		/* the CPU's next run, or NO_RUN */
};

/* A CPU in the merge heap, keyed by the time of its next record. */
struct td_order_head {
	uint64_t time_ns;
	uint32_t cpu;
};

static bool head_less(const struct td_order_head *a,
		      const struct td_order_head *b)
{
	return a->time_ns < b->time_ns ||
	       (a->time_ns == b->time_ns && a->cpu < b->cpu);
}

static void sift_down(struct td_order *o, uint32_t i)
{
	struct td_order_head *h = o->heap, x = h[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= o->heap_n)
			break;
		if (c + 1 < o->heap_n && head_less(&h[c + 1], &h[c]))
			c++;
		if (!head_less(&h[c], &x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

static const struct topdown_record *sort_rec;

static int by_time_cpu_index(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const struct topdown_record *x = &sort_rec[a], *y = &sort_rec[b];

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int fallback(struct td_order *o, const struct td_filter *filter)
{
	size_t k = 0;

	o->sorted = false;
	o->idx = malloc((o->n ? o->n : 1) * sizeof(*o->idx));
	if (!o->idx)
		return -1;
	for (size_t i = 0; k < o->n; i++)
		if (!filter || td_filter_match(filter, &o->rec[i]))
			o->idx[k++] = i;
	sort_rec = o->rec;
	qsort(o->idx, o->n, sizeof(*o->idx), by_time_cpu_index);
	return 0;
}

static int add_run(struct td_order *o, size_t start, uint32_t cpu,
		   uint32_t *tail)
{
	uint32_t r = (uint32_t)o->nr_runs;

	if (o->nr_runs == o->runs_cap) {
		size_t cap = o->runs_cap ? 2 * o->runs_cap : 256;
		void *p = realloc(o->run, cap * sizeof(*o->run));

		if (!p || cap >= NO_RUN)
			return -1;
		o->run = p;
		o->runs_cap = cap;
	}
	o->run[r] = (struct td_order_run){ start, 1, NO_RUN };
	o->nr_runs++;
	if (tail[cpu] == NO_RUN)
		o->cur_run[cpu] = r;	/* the CPU's first run */
	else
		o->run[tail[cpu]].next = r;
	tail[cpu] = r;
	return 0;
}

int td_order_init(struct td_order *o, const struct topdown_record *rec,
		  size_t n, uint32_t nr_cpus, const struct td_filter *filter)
{
	uint64_t *last_time = NULL;
	uint32_t *tail = NULL, prev_cpu = 0;
	size_t prev = SIZE_MAX;
	bool in_order = true;
	int ret = -1;

	memset(o, 0, sizeof(*o));
	o->rec = rec;
	o->sorted = true;
	o->nr_cpus = nr_cpus ? nr_cpus : 1;
	o->cur_run = malloc(o->nr_cpus * sizeof(*o->cur_run));
	tail = malloc(o->nr_cpus * sizeof(*tail));
	last_time = calloc(o->nr_cpus, sizeof(*last_time));
	o->pos = calloc(o->nr_cpus, sizeof(*o->pos));
	o->left = calloc(o->nr_cpus, sizeof(*o->left));
	o->heap = calloc(o->nr_cpus, sizeof(*o->heap));
	if (!o->cur_run || !tail || !last_time || !o->pos || !o->left ||
	    !o->heap)
		goto out;
	memset(o->cur_run, 0xff, o->nr_cpus * sizeof(*o->cur_run));
	memset(tail, 0xff, o->nr_cpus * sizeof(*tail));

	for (size_t i = 0; i < n; i++) {
		const struct topdown_record *r = &rec[i];
		uint32_t c = r->cpu;

		if (filter && !td_filter_match(filter, r))
			continue;
		o->n++;
		if (!in_order)
			continue;	/* just counting, for the fallback */
		if (c >= o->nr_cpus || r->time_ns < last_time[c]) {
			in_order = false;
			continue;
		}
		last_time[c] = r->time_ns;
		if (i && prev == i - 1 && prev_cpu == c)
			o->run[tail[c]].len++;
		else if (add_run(o, i, c, tail))
			goto out;
		prev = i;
		prev_cpu = c;
	}
	if (!in_order) {
		ret = fallback(o, filter);
		goto out;
	}
	for (uint32_t c = 0; c < o->nr_cpus; c++) {
		const struct td_order_run *run;

		if (o->cur_run[c] == NO_RUN)
			continue;
		run = &o->run[o->cur_run[c]];
		o->pos[c] = run->start;
		o->left[c] = run->len;
		o->heap[o->heap_n++] = (struct td_order_head){
			rec[run->start].time_ns, c };
	}
	for (uint32_t i = o->heap_n / 2; i-- > 0;)
		sift_down(o, i);
	ret = 0;
out:
	free(tail);
	free(last_time);
	return ret;
}

const struct topdown_record *td_order_next(struct td_order *o)
{
	const struct topdown_record *r;
	uint32_t c;

	if (!o->sorted)
		return o->next < o->n ? &o->rec[o->idx[o->next++]] : NULL;
	if (!o->heap_n)
		return NULL;
	c = o->heap[0].cpu;
	r = &o->rec[o->pos[c]++];
	if (!--o->left[c]) {
		uint32_t next = o->run[o->cur_run[c]].next;

		if (next == NO_RUN) {
			o->heap[0] = o->heap[--o->heap_n];
			if (o->heap_n)
				sift_down(o, 0);
			return r;
		}
		o->cur_run[c] = next;
		o->pos[c] = o->run[next].start;
		o->left[c] = o->run[next].len;
	}
	o->heap[0].time_ns = o->rec[o->pos[c]].time_ns;
	sift_down(o, 0);
	return r;
}

void td_order_free(struct td_order *o)
{
	free(o->run);
	free(o->cur_run);
	free(o->pos);
	free(o->left);
	free(o->heap);
	free(o->idx);
	memset(o, 0, sizeof(*o));
}
