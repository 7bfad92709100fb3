/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest-side C tests check in the records of a configuration with
 * groups, from include/uapi/linux/topdown.h ("Groups and rotation") alone:
 *
 *   - a TOPDOWN_REC_ROTATED record has zero deltas and every error bit of
 *     the group in its TOPDOWN_REC_GROUP() bits;
 *   - any other record names a configured group, has no error bit past
 *     that group's events and no delta past them;
 *   - per CPU, in sequence order, the group changes only on a ROTATED
 *     record, to the next group (round robin); a CPU starts counting
 *     (TOPDOWN_REC_FIRST) with group 0;
 *   - no group's turn is skipped: between two changes there is a record
 *     without ROTATED (where no record is missing in between);
 *   - STATUS (TOPDOWN_CPU_STATS_SIZE_VER3) per group equals what the
 *     records say, when nothing was lost: records (ROTATED included), time
 *     (durations of the non-ROTATED slices), slices with an error bit and
 *     per position error slices (non-ROTATED), and the number of changes.
 *
 * Include after td_common.h. td_grp_check() takes one CPU's records in
 * sequence order and adds up what it saw into struct td_grp_sums.
 */
#ifndef TD_GROUPS_H
#define TD_GROUPS_H

#ifndef TD_COMMON_H
#error "include td_common.h first"
#endif

#include <stdbool.h>

#define TD_GRP_LOG_MAX	8	/* violations printed per check */

/* Per CPU, what the records of each group add up to. */
struct td_grp_sums {
	uint64_t records[TOPDOWN_MAX_GROUPS];
	uint64_t time_ns[TOPDOWN_MAX_GROUPS];
	uint64_t error_slices[TOPDOWN_MAX_GROUPS];
	uint64_t ev_error_slices[TOPDOWN_MAX_GROUPS][TOPDOWN_MAX_EVENTS];
	uint64_t rotated_runs;		/* maximal runs of ROTATED records */
	uint64_t changes;		/* group changes seen (g -> g + 1) */
	uint64_t measured[TOPDOWN_MAX_GROUPS];	/* non-ROTATED records */
	uint64_t bad;			/* violations */
};

static inline uint32_t td_grp_bits(uint32_t n)
{
	return n >= 32 ? 0xffffffffu : (1u << n) - 1;
}

/* The group count of a configuration (one without groups: 1). */
static inline uint32_t td_cfg_nr_groups(const struct topdown_config *cfg)
{
	return cfg->nr_groups ? cfg->nr_groups : 1;
}

/* Events of group g of a configuration. */
static inline uint32_t td_cfg_group_nr(const struct topdown_config *cfg,
				       uint32_t g)
{
	return cfg->nr_groups ? cfg->groups[g].nr_events : cfg->nr_events;
}

#define TD_GRP_BAD(s, fmt, ...) do {					\
	if ((s)->bad++ < TD_GRP_LOG_MAX)				\
		fprintf(stderr, "# group check: cpu %u seq %llu: " fmt "\n", \
			r->cpu, (unsigned long long)r->seq, ##__VA_ARGS__); \
} while (0)

/*
 * Check one CPU's @n records @recs (sequence order) of a collection
 * configured with @cfg, adding into @s. A gap in sequence numbers (a lost
 * record) or a FIRST record (counting restarted) resets what the next
 * record's group may be.
 */
static inline void td_grp_check(const struct topdown_config *cfg,
				const struct topdown_record *recs, size_t n,
				struct td_grp_sums *s)
{
	uint32_t ng = td_cfg_nr_groups(cfg);
	const struct topdown_record *prev = NULL;
	/* Since the last change seen without a gap: a measured record. */
	bool changed = false, measured = false;

	for (size_t i = 0; i < n; i++) {
		const struct topdown_record *r = &recs[i];
		uint32_t g = TOPDOWN_REC_GROUP(r->flags);
		uint32_t err = r->flags & TOPDOWN_REC_ERROR_MASK;
		bool rot = r->flags & TOPDOWN_REC_ROTATED;
		bool cont = prev && r->seq == prev->seq + 1 &&
			    !(r->flags & TOPDOWN_REC_FIRST);
		uint32_t nev, pg;

		if (g >= ng) {
			TD_GRP_BAD(s, "group %u of %u", g, ng);
			prev = r;
			continue;
		}
		nev = td_cfg_group_nr(cfg, g);
		s->records[g]++;
		if (rot) {
			if (err != td_grp_bits(nev))
				TD_GRP_BAD(s, "ROTATED with error bits %#x, group %u has %u events",
					   err, g, nev);
			for (int j = 0; j < TOPDOWN_MAX_EVENTS; j++)
				if (r->delta[j])
					TD_GRP_BAD(s, "ROTATED with delta[%d] = %llu", j,
						   (unsigned long long)r->delta[j]);
			if (!prev || !(prev->flags & TOPDOWN_REC_ROTATED) || !cont)
				s->rotated_runs++;
		} else {
			s->measured[g]++;
			s->time_ns[g] += r->duration_ns;
			if (err)
				s->error_slices[g]++;
			for (uint32_t j = 0; j < TOPDOWN_MAX_EVENTS; j++)
				if (err & (1u << j))
					s->ev_error_slices[g][j]++;
			if (err & ~td_grp_bits(nev))
				TD_GRP_BAD(s, "error bits %#x past group %u's %u events",
					   err, g, nev);
			for (uint32_t j = nev; j < TOPDOWN_MAX_EVENTS; j++)
				if (r->delta[j])
					TD_GRP_BAD(s, "delta[%u] = %llu past group %u's %u events",
						   j, (unsigned long long)r->delta[j], g, nev);
		}
		/* Counting (re)starts with group 0, or changing to group 1. */
		if (r->flags & TOPDOWN_REC_FIRST && g != (rot ? 1 % ng : 0))
			TD_GRP_BAD(s, "FIRST record of group %u%s", g,
				   rot ? " (ROTATED)" : "");
		if (!cont)
			changed = false;
		if (cont) {
			pg = TOPDOWN_REC_GROUP(prev->flags);
			if (g != pg && (!rot || g != (pg + 1) % ng))
				TD_GRP_BAD(s, "group %u after group %u%s", g, pg,
					   rot ? " (ROTATED)" : " without ROTATED");
			if (g != pg && changed && !measured)
				TD_GRP_BAD(s, "group %u after a turn of group %u %s",
					   g, pg, "with no measured record");
			if (g != pg) {
				s->changes++;
				changed = true;
				measured = false;
			}
		}
		if (!rot)
			measured = true;
		prev = r;
	}
}

/*
 * STATUS against the records' sums of one CPU (nothing lost, collection
 * stopped): 0 if they agree, else the number of differences (logged).
 * The last change of a CPU may have begun without a slice ending after
 * it, hence rotations may exceed the ROTATED runs by one.
 */
static inline int td_grp_match_status(const struct topdown_config *cfg,
				      const struct topdown_cpu_stats *st,
				      const struct td_grp_sums *s)
{
	uint32_t ng = td_cfg_nr_groups(cfg);
	int bad = 0;

#define TD_GRP_NE(what, a, b) do {					\
	unsigned long long a_ = (a), b_ = (b);				\
									\
	if (a_ != b_) {							\
		fprintf(stderr,						\
			"# status: cpu %u: %s: STATUS %llu, records %llu\n", \
			st->cpu, what, a_, b_);				\
		bad++;							\
	}								\
} while (0)
	for (uint32_t g = 0; g < TOPDOWN_MAX_GROUPS; g++) {
		char what[64];

		snprintf(what, sizeof(what), "group %u records", g);
		TD_GRP_NE(what, st->grp_records[g], g < ng ? s->records[g] : 0);
		snprintf(what, sizeof(what), "group %u time_ns", g);
		TD_GRP_NE(what, st->grp_time_ns[g], g < ng ? s->time_ns[g] : 0);
		snprintf(what, sizeof(what), "group %u error slices", g);
		TD_GRP_NE(what, st->grp_error_slices[g],
			  g < ng ? s->error_slices[g] : 0);
		for (uint32_t j = 0; j < TOPDOWN_MAX_EVENTS; j++) {
			snprintf(what, sizeof(what), "group %u position %u error slices",
				 g, j);
			TD_GRP_NE(what, st->grp_ev_error_slices[g][j],
				  g < ng ? s->ev_error_slices[g][j] : 0);
		}
	}
	if (st->rotations != s->rotated_runs &&
	    st->rotations != s->rotated_runs + 1) {
		fprintf(stderr, "# status: cpu %u: %llu rotations, %llu ROTATED runs\n",
			st->cpu, (unsigned long long)st->rotations,
			(unsigned long long)s->rotated_runs);
		bad++;
	}
	if (ng < 2 && st->rotations) {
		fprintf(stderr, "# status: cpu %u: %llu rotations with one group\n",
			st->cpu, (unsigned long long)st->rotations);
		bad++;
	}
#undef TD_GRP_NE
	return bad;
}

#endif /* TD_GROUPS_H */
