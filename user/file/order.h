/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records in time order, from an array stored as the rings are drained
 * and as record files hold them: per CPU in sequence order, the CPUs
 * interleaved. The order is (time_ns, cpu), records with both equal in
 * array order: what a stable sort by time, then CPU, gives.
 *
 * When every CPU's records are in time order in the array (what the
 * module writes), this is a k-way merge of the CPUs, k small, with no
 * per-record allocation: the array is scanned once for its runs of one
 * CPU. Otherwise (a clock that went back, a hand-made file) it falls back
 * to sorting an index of the records.
 */
#ifndef TDCTL_ORDER_H
#define TDCTL_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/topdown.h>

#include "agg/aggregate.h"

struct td_order_run;

struct td_order {
	const struct topdown_record *rec;
	size_t n;			/* records kept (filter) */
	bool sorted;			/* false: the index fallback */
	/* merge: per CPU the current run and position in it */
	struct td_order_run *run;
	size_t nr_runs, runs_cap;
	uint32_t nr_cpus;
	uint32_t *cur_run;		/* per CPU */
	size_t *pos, *left;		/* per CPU: next record, left in run */
	struct td_order_head *heap;	/* the CPUs with records left */
	uint32_t heap_n;
	/* fallback */
	size_t *idx;
	size_t next;
};

/*
 * rec[0..n) with CPUs below nr_cpus (others sort with the fallback);
 * only the records that match filter (NULL: all). 0, or -1 if out of
 * memory.
 */
int td_order_init(struct td_order *o, const struct topdown_record *rec,
		  size_t n, uint32_t nr_cpus, const struct td_filter *filter);
/* The next record in time order, NULL at the end. */
const struct topdown_record *td_order_next(struct td_order *o);
void td_order_free(struct td_order *o);

#endif
