// SPDX-License-Identifier: GPL-2.0
/* Records lost, for every reader of a record file (see lost.h). */
#include <stdlib.h>
#include <string.h>

#include "file/lost.h"

void td_file_lost(const struct td_file *f, struct td_lost *l)
{
	td_lost_set(l, f->interrupted ? NULL : f->meta.lost,
		    f->meta.nr_cpus);
}

int td_gaps_init_file(struct td_gaps *g, const struct td_file *f)
{
	return td_gaps_init(g, f->meta.nr_cpus,
			    f->interrupted ? NULL : f->meta.lost,
			    !strcmp(f->meta.target, "all tasks"));
}

int td_gaps_init(struct td_gaps *g, uint32_t nr_cpus, const uint64_t *lost,
		 bool all_tasks)
{
	memset(g, 0, sizeof(*g));
	g->nr_cpus = nr_cpus;
	g->lost = lost;
	g->all_tasks = all_tasks;
	g->next_seq = calloc(g->nr_cpus + 1, sizeof(*g->next_seq));
	g->gaps = calloc(g->nr_cpus + 1, sizeof(*g->gaps));
	if (g->next_seq && g->gaps)
		return 0;
	td_gaps_free(g);
	return -1;
}

uint64_t td_gaps_before(struct td_gaps *g, const struct topdown_record *r)
{
	uint32_t c = r->cpu;
	uint64_t gap = 0;

	if (c >= g->nr_cpus)
		return 0;	/* the file parser refuses these */
	if (g->all_tasks && g->lost && g->next_seq[c] &&
	    r->seq > g->next_seq[c] && g->lost[c] > g->gaps[c]) {
		gap = r->seq - g->next_seq[c];
		if (gap > g->lost[c] - g->gaps[c])
			gap = g->lost[c] - g->gaps[c];
		g->gaps[c] += gap;
	}
	g->next_seq[c] = r->seq + 1;
	return gap;
}

uint64_t td_gaps_rest(const struct td_gaps *g, uint32_t cpu)
{
	if (!g->lost || cpu >= g->nr_cpus || g->lost[cpu] <= g->gaps[cpu])
		return 0;
	return g->lost[cpu] - g->gaps[cpu];
}

void td_gaps_free(struct td_gaps *g)
{
	free(g->next_seq);
	free(g->gaps);
	g->next_seq = NULL;
	g->gaps = NULL;
}
