// SPDX-License-Identifier: GPL-2.0
/*
 * Estimates from slices given one at a time (agg/slices.h): tdctl
 * decode's slices of a dump of a file with event groups, as records of
 * one row of an aggregation with groups, estimated as report estimates.
 */
#include <string.h>

#include "agg/slices.h"

int td_slices_init(struct td_slices *s, const struct topdown_group *groups,
		   int nr_groups, int nr_pool)
{
	struct topdown_config cfg;

	memset(s, 0, sizeof(*s));
	memset(&cfg, 0, sizeof(cfg));
	td_agg_init(&s->a, TD_BY_TASK);
	cfg.nr_events = (uint32_t)nr_pool;
	if (nr_groups) {
		cfg.nr_groups = (uint32_t)nr_groups;
		memcpy(cfg.groups, groups, nr_groups * sizeof(*groups));
	} else {
		/* The set's events, and a group of one event that no slice
		 * is given to: with two groups the aggregation delimits
		 * clusters by the changes of group, as report's of the
		 * file (one group is one slice a unit).
		 */
		cfg.nr_groups = 2;
		cfg.groups[0].nr_events = (uint32_t)nr_pool;
		for (int e = 0; e < nr_pool && e < TOPDOWN_MAX_EVENTS; e++)
			cfg.groups[0].events[e] = (uint8_t)e;
		cfg.groups[1].nr_events = 1;
	}
	s->nr_groups = nr_groups ? nr_groups : 1;
	if (td_agg_groups(&s->a, &cfg)) {
		s->oom = true;
		return -1;
	}
	return 0;
}

void td_slices_add(struct td_slices *s, const struct decode_slice *ds)
{
	struct topdown_record r;

	if (s->oom)
		return;
	memset(&r, 0, sizeof(r));
	r.cpu = ds->cpu;
	r.time_ns = ds->time_ns;
	r.duration_ns = ds->duration_ns;
	/* one row: the whole input */
	if (ds->group < 0 || ds->group >= s->nr_groups) {
		/* rotated, or another group's: the CPU's cluster ends, the
		 * time is the row's, no group's
		 */
		r.flags = TOPDOWN_REC_ROTATED;
	} else {
		/* a count not read, the group's or another: an error slice */
		r.flags = (uint32_t)ds->group << TOPDOWN_REC_GROUP_SHIFT |
			  (ds->unread & TOPDOWN_REC_ERROR_MASK);
		if (ds->error && !(r.flags & TOPDOWN_REC_ERROR_MASK))
			r.flags |= 1;
		memcpy(r.delta, ds->delta, sizeof(r.delta));
	}
	if (!td_agg_add(&s->a, &r))
		s->oom = true;
}

void td_slices_finish(struct td_slices *s)
{
	td_agg_finish(&s->a);
}

uint64_t td_slices_read(const struct td_slices *s, int g)
{
	const struct td_grow *gr = td_agg_grow(&s->a, &s->a.total);

	return gr && g >= 0 && g < s->nr_groups ? gr->g[g].slices : 0;
}

int td_slices_metrics(const struct td_slices *s, int g,
		      const struct td_decoder *dec, struct td_estimate *out)
{
	struct td_est_decoders d;
	struct td_est_fn fn;

	memset(&d, 0, sizeof(d));
	if (g < 0 || g >= s->nr_groups)
		return 0;
	d.dec[g] = dec;
	td_est_decoder_fn(&fn, &d, g);
	td_est_metrics(&s->a, &s->a.total, g, &fn, out);
	return fn.nr;
}

void td_slices_free(struct td_slices *s)
{
	td_agg_free(&s->a);
}
