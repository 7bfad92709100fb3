/* SPDX-License-Identifier: GPL-2.0 */
/*
 * input/'s own: what perfstat.c reads of a slice of tdctl dump --json for
 * slices.c, which reads the slices of a record file with event groups.
 */
#ifndef TDCTL_INPUT_PRIV_H
#define TDCTL_INPUT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input/counts.h"

/* The members of one dump slice decode reads; texts copied out of the
 * parse (malloc()ed), NULL where the member is absent.
 */
struct dump_fields {
	const char *counts;		/* the "counts" object */
	size_t counts_len;
	const char *unreadable;		/* the "unreadable" array */
	size_t unreadable_len;
	bool has_group;			/* "group": a file with groups */
	bool rotated;
	uint64_t cpu, pid, tid, time_ns, duration_ns;
};

/*
 * A slice of a dump of a file with groups: its group among in's (the
 * events it counted), its counts, and whether one could not be read,
 * handed to in->slice. 1 if its counts are used, 0 if not (rotated,
 * another group's, a count not read), -1 after p_err().
 */
int decode_in_group_slice(struct decode_in *in, const struct dump_fields *f);

/* slices.c's names, freed. */
void decode_in_free_names(struct decode_in *in);

#endif
