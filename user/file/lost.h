/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records lost, from one place for every reader of a record file (report,
 * dump -i, top -i, timeline): how many per CPU, whether that is known at
 * all (a file read without its trailer, report --force, does not say),
 * and where in time they were lost.
 *
 * A recording of every task numbers each CPU's records without a gap, so
 * a gap in a CPU's sequence numbers is where its lost records were
 * dropped (at most what the trailer counts for the CPU); whatever the
 * trailer counts beyond the gaps was lost at a time not known, and is
 * reported at the end. With a selection of tasks, the other tasks'
 * records make gaps too: then every lost record is "at the end".
 */
#ifndef TDCTL_LOST_H
#define TDCTL_LOST_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/topdown.h>

#include "base/common.h"
#include "file/tdfile.h"

/* The file's lost records (base/common.h's description): unknown for
 * a file read without its trailer.
 */
void td_file_lost(const struct td_file *f, struct td_lost *l);

struct td_gaps {
	uint32_t nr_cpus;
	const uint64_t *lost;	/* the trailer's, per CPU; NULL: unknown */
	bool all_tasks;		/* gaps are losses */
	uint64_t *next_seq;	/* per CPU, 0: no record seen */
	uint64_t *gaps;		/* per CPU: lost records placed so far */
};

/* The gaps of a live collection's records or of a file's (lost NULL:
 * unknown; all_tasks: every task was recorded). 0, or -1 if out of
 * memory.
 */
int td_gaps_init(struct td_gaps *g, uint32_t nr_cpus, const uint64_t *lost,
		 bool all_tasks);
int td_gaps_init_file(struct td_gaps *g, const struct td_file *f);
/* Records of r's CPU lost just before r (feed a CPU's records in
 * sequence order).
 */
uint64_t td_gaps_before(struct td_gaps *g, const struct topdown_record *r);
/* After the last record: the records of cpu lost at a time not known. */
uint64_t td_gaps_rest(const struct td_gaps *g, uint32_t cpu);
void td_gaps_free(struct td_gaps *g);

#endif
