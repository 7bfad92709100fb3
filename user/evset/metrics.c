// SPDX-License-Identifier: GPL-2.0
/*
 * What every event set's formulas use, below the sets themselves: the
 * metrics appended to a result (td_put_*), the ratios of a group's
 * formula (td_fam_ratios) and the metrics' descriptions of the sets
 * without a table of their own, a PMU of the machine, a revision, the
 * slot width. Knows no set by name: the table is evset.c's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "evset/evset_priv.h"

/* ---- metrics ---------------------------------------------------------- */

static struct td_metric *next_metric(struct td_metrics *out)
{
	if (out->n >= TD_MAX_METRICS)
		return NULL;
	return &out->m[out->n++];
}

/* put_value() and put_ratio() are inlined into td_put_ratio() and
 * td_put_ipc(): every record's decode goes through them, and ipc's
 * constant fraction = false drops the range check.
 */
static inline __attribute__((always_inline))
void put_value(struct td_metrics *out, const char *name, long double v,
	       bool valid, bool fraction)
{
	struct td_metric *m = next_metric(out);

	if (!m)
		return;
	m->name = name;
	m->valid = valid;
	m->value = valid ? (double)v : 0.0;
	m->flagged = valid && fraction && (v < 0.0L || v > 1.0L);
}

void td_put_value(struct td_metrics *out, const char *name, long double v,
		  bool valid, bool fraction)
{
	put_value(out, name, v, valid, fraction);
}

static inline __attribute__((always_inline))
void put_ratio(struct td_metrics *out, const char *name, __int128 num,
	       unsigned __int128 den, bool fraction)
{
	if (!den) {
		put_value(out, name, 0, false, fraction);
		return;
	}
	/* Both fit 64 bits nearly always: the same exact conversions to
	 * long double without libgcc's 128-bit ones.
	 */
	if (num == (int64_t)num && !(den >> 64))
		put_value(out, name, (long double)(int64_t)num /
			  (long double)(uint64_t)den, true, fraction);
	else
		put_value(out, name, (long double)num / (long double)den,
			  true, fraction);
}

void td_put_ratio(struct td_metrics *out, const char *name, __int128 num,
		  unsigned __int128 den, bool fraction)
{
	put_ratio(out, name, num, den, fraction);
}

#define IPC_NAME	"ipc"

void td_put_ipc(struct td_metrics *out, uint64_t instructions,
		uint64_t cycles)
{
	put_ratio(out, IPC_NAME, instructions, cycles, false);
}

/* ---- revision --------------------------------------------------------- */

void td_format_revision(unsigned int rev, char *buf, size_t len)
{
	snprintf(buf, len, "r%up%u", rev >> 4 & 0xf, rev & 0xf);
}

/* ---- PMUs ------------------------------------------------------------ */

const struct td_pmu *td_sel_pmu(const struct td_cpu_info *ci,
				enum td_pmu_sel sel)
{
	int i = -1;

	switch (sel) {
	case TD_PMU_MAIN:
		i = ci->main_pmu >= 0 ? ci->main_pmu : ci->core_pmu;
		break;
	case TD_PMU_CORE:
		i = ci->core_pmu;
		break;
	case TD_PMU_ATOM:
		i = ci->atom_pmu;
		break;
	case TD_PMU_ANY:
		break;
	}
	return i >= 0 ? &ci->pmu[i] : NULL;
}

/* Does the PMU cover every possible CPU? */
bool td_pmu_covers_all(const struct td_cpu_info *ci, const struct td_pmu *p)
{
	if (!p->has_cpus)
		return true;
	for (int w = 0; w < TD_CPU_WORDS; w++)
		if ((ci->possible[w] & p->cpus[w]) != ci->possible[w])
			return false;
	return true;
}

/* Slot width a set uses on this machine (0: the set takes none). */
unsigned int td_set_slots(const struct td_set *s,
			  const struct td_cpu_info *ci)
{
	const struct td_pmu *p;

	if (!s->def_slots)
		return 0;
	if (s->slots_from_caps && ci) {
		p = td_sel_pmu(ci, TD_PMU_MAIN);
		if (p && p->slots)
			return p->slots;
	}
	return s->def_slots;
}

/* ---- metric info and ratios ------------------------------------------- */

#define M1(n, u, f) { n, NULL, NULL, NULL, 1, u, f }

/* Metrics of the sets without a table of their own (no perf names). */
static const struct td_metric_info generic_info[] = {
	M1("retiring", TD_UNIT_SLOTS, true),
	M1("bad_speculation", TD_UNIT_SLOTS, true),
	M1("frontend_bound", TD_UNIT_SLOTS, true),
	M1("backend_bound", TD_UNIT_SLOTS, true),
	M1("smt_contention", TD_UNIT_SLOTS, true),
	M1("ipc", TD_UNIT_PER_CYCLE, false),
	M1("frontend_stalled_cycles", TD_UNIT_CYCLES, true),
	M1("backend_stalled_cycles", TD_UNIT_CYCLES, true),
	/* intel_spr's Level 2, measured beside Level 1 */
	{ "branch_mispredicts", NULL, NULL, "bad_speculation", 2,
	  TD_UNIT_SLOTS, true },
	{ "machine_clears", NULL, NULL, "bad_speculation", 2, TD_UNIT_SLOTS,
	  true },
	{ "memory_bound", NULL, NULL, "backend_bound", 2, TD_UNIT_SLOTS,
	  true },
	{ "core_bound", NULL, NULL, "backend_bound", 2, TD_UNIT_SLOTS, true },
	{ "heavy_operations", NULL, NULL, "retiring", 2, TD_UNIT_SLOTS, true },
	{ "light_operations", NULL, NULL, "retiring", 2, TD_UNIT_SLOTS, true },
};

const struct td_metric_info *td_set_metric_info(const struct td_set *s,
						const char *name)
{
	for (int i = 0; s && i < s->nr_minfo; i++)
		if (!strcmp(s->minfo[i].name, name))
			return &s->minfo[i];
	for (size_t i = 0; i < sizeof(generic_info) / sizeof(*generic_info);
	     i++)
		if (!strcmp(generic_info[i].name, name))
			return &generic_info[i];
	return NULL;
}

static void decode_ratios(const struct td_decoder *d, const uint64_t *c,
			  struct td_metrics *out)
{
	const struct td_grp *g = d->grp;

	for (int i = 0; g && i < g->nr_ratios; i++) {
		const struct td_ratio *r = &g->ratios[i];
		const struct td_metric_info *m = td_set_metric_info(d->family,
								    r->name);
		__int128 num = 0, den = 0;
		bool counted = true;

		for (int k = 0; k < TD_RATIO_TERMS && r->num[k] >= 0; k++) {
			/* an optional numerator not counted: no metric */
			counted &= td_has(d, r->num[k]);
			num += r->sign[k] * (__int128)td_cnt(d, c, r->num[k]);
		}
		if (!counted)
			continue;
		for (int k = 0; k < 2 && r->den[k] >= 0; k++)
			den += td_cnt(d, c, r->den[k]);
		td_put_ratio(out, r->name, num * r->scale, den,
			     !m || m->fraction);
	}
}

const struct td_family td_fam_ratios = {
	.name = "ratios", .nr_roles = TOPDOWN_MAX_EVENTS,
	.decode = decode_ratios,
};

bool td_in_list(const char *list, const char *seps, const char *w, size_t n)
{
	while (list && *list) {
		size_t len = strcspn(list, seps);

		if (len == n && !strncasecmp(list, w, n))
			return true;
		list += len;
		list += strspn(list, seps);
	}
	return false;
}
