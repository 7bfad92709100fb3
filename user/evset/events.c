// SPDX-License-Identifier: GPL-2.0
/*
 * Any events: perf's event syntax (`tdctl load -e EVENTS`) turned into a
 * plan for the module, and the decoder of such a collection.
 *
 * Accepted, as perf's parse-events grammar spells it:
 *   cycles, instructions, ...      PERF_TYPE_HARDWARE names
 *   cpu-clock, task-clock, ...     PERF_TYPE_SOFTWARE names
 *   L1-dcache-load-misses, ...     PERF_TYPE_HW_CACHE names
 *   rNNNN                          PERF_TYPE_RAW, config = hex NNNN
 *   PMU/term=value,term,.../       a core PMU of sysfs; each term is a
 *                                  field of PMU/format/ (its bit layout,
 *                                  as perf reads it), config, config1,
 *                                  config2, name=NAME, or an alias of
 *                                  PMU/events/
 *   NAME                           a name perf knows for this CPU: an
 *                                  alias in a core PMU's events/ or an
 *                                  event of an event set that fits
 *                                  (td_event_alias)
 * each with :u, :k or :uk (or, after PMU/.../, the same letters with or
 * without the colon): perf's modifiers, which exclude the other privilege
 * levels. Events are separated by commas. Sampling terms and every other
 * modifier are refused with the reason: the module never samples.
 *
 * Groups, in perf's syntax: {a,b},{c,d} makes each {...} a group of
 * events counted together, and an event outside braces a group of its own
 * (perf's groups of one, each scheduled on its own), as soon as the list
 * has a brace. The module counts one group per CPU at a time and rotates
 * them (include/uapi/linux/topdown.h, "Groups and rotation"). Without
 * braces the list is one set of events counted together, as before. An
 * event named the same in several groups is one pool entry (an anchor
 * such as cycles in every group); a group's modifier ({a,b}:u) is refused:
 * put the modifier on each event.
 *
 * The label says what readers need to decode the counts, from the
 * encodings alone (the names are the user's):
 *   set=events                     counts only
 *   set=events ipc=IC              event I counts instructions and event
 *                                  C cycles, with the same modifiers
 *   set=events of=SET [slots=N] [rev=rXpY] map=P0P1..
 *                                  every event of SET is in the
 *                                  collection (event i of SET at
 *                                  position Pi), so SET's formula applies
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "evset/evset_priv.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

/* ---- what the collection can decode ----------------------------------- */

static bool same_type(const struct td_cpu_info *ci, uint32_t a, uint32_t b)
{
	const struct td_pmu *mp = td_sel_pmu(ci, TD_PMU_MAIN);

	if (a == b)
		return true;
	/* perf gives PERF_TYPE_RAW to the CPU's own PMU. */
	return mp && ((a == PERF_TYPE_RAW && b == mp->type) ||
		      (b == PERF_TYPE_RAW && a == mp->type));
}

static bool same_event(const struct td_cpu_info *ci,
		       const struct td_evsel *a, const struct td_evsel *b)
{
	return same_type(ci, a->type, b->type) && a->config == b->config &&
	       a->config1 == b->config1 && a->config2 == b->config2;
}

enum { IS_CYCLES, IS_INSTRUCTIONS };

/* Architectural cycles or instructions, by encoding. */
static bool counts(const struct td_cpu_info *ci, const struct td_evsel *e,
		   int what)
{
	const struct td_pmu *mp = td_sel_pmu(ci, TD_PMU_MAIN);
	uint64_t raw;

	if (e->type == PERF_TYPE_HARDWARE)
		return e->config == (what == IS_CYCLES ?
				     PERF_COUNT_HW_CPU_CYCLES :
				     PERF_COUNT_HW_INSTRUCTIONS);
	if (!mp || !same_type(ci, e->type, mp->type) || e->config1 ||
	    e->config2)
		return false;
	if (ci->arch == TD_ARCH_ARM64)	/* CPU_CYCLES, INST_RETIRED */
		raw = what == IS_CYCLES ? 0x11 : 0x08;
	else if (ci->arch == TD_ARCH_X86 &&
		 !strcmp(ci->vendor, "GenuineIntel"))
		raw = what == IS_CYCLES ? 0x3c : 0xc0;	/* *_P events */
	else if (ci->arch == TD_ARCH_X86)
		raw = what == IS_CYCLES ? 0x76 : 0xc0;	/* AMD */
	else
		return false;
	return e->config == raw;
}

static bool same_scope(const struct td_evsel *a, const struct td_evsel *b)
{
	return a->flags == b->flags && a->all_cpus == b->all_cpus &&
	       (a->all_cpus || !memcmp(a->cpus, b->cpus, sizeof(a->cpus)));
}

/*
 * The first set (most specific first) that fits this CPU and whose every
 * event the collection has, with the same modifiers: " of=SET ... map=..".
 */
static bool label_of_set(const struct td_cpu_info *ci, struct td_plan *plan)
{
	for (int i = 0; i < td_nr_sets; i++) {
		const struct td_set *s = td_sets[i];
		char e2[256], map[TOPDOWN_MAX_EVENTS + 1];
		const struct td_evsel *first = NULL;
		struct td_plan sp;
		bool ok = true;
		int w;

		/* generic is ipc= below; software has no metrics. */
		if (s == &td_set_generic || s == &td_set_software ||
		    s->nr_events > plan->nr_events ||
		    td_set_fit(s, ci, NULL, 0) < TD_FIT_MANUAL ||
		    (memset(&sp, 0, sizeof(sp)),
		     td_plan_set(ci, s, &sp, e2, sizeof(e2))))
			continue;
		for (int j = 0; j < sp.nr_events && ok; j++) {
			int pos = -1;

			for (int k = 0; k < plan->nr_events && pos < 0; k++)
				if (same_event(ci, &sp.ev[j], &plan->ev[k]))
					pos = k;
			if (pos < 0 || (first && !same_scope(first,
							     &plan->ev[pos]))) {
				ok = false;
				break;
			}
			if (!first)
				first = &plan->ev[pos];
			map[j] = (char)('0' + pos);
		}
		if (!ok)
			continue;
		map[sp.nr_events] = '\0';
		/* sp.label is "set=NAME[ slots=N][ rev=rXpY]". */
		w = snprintf(plan->label, sizeof(plan->label),
			     "set=events of=%s map=%s", sp.label + 4, map);
		if (w < 0 || (size_t)w >= sizeof(plan->label))
			continue;
		snprintf(plan->why, sizeof(plan->why),
			 "requested with --events: %d events, with every event of set %s (its metrics)",
			 plan->nr_events, s->name);
		return true;
	}
	return false;
}

static void make_label(const struct td_cpu_info *ci, struct td_plan *plan)
{
	int cyc = -1, ins = -1;

	snprintf(plan->label, sizeof(plan->label), "set=events");
	snprintf(plan->why, sizeof(plan->why),
		 "requested with --events: %d events, counts only",
		 plan->nr_events);
	if (label_of_set(ci, plan))
		return;
	for (int i = 0; i < plan->nr_events; i++) {
		for (int j = 0; j < plan->nr_events; j++) {
			if (cyc >= 0)
				break;
			if (counts(ci, &plan->ev[i], IS_INSTRUCTIONS) &&
			    counts(ci, &plan->ev[j], IS_CYCLES) &&
			    same_scope(&plan->ev[i], &plan->ev[j])) {
				ins = i;
				cyc = j;
			}
		}
	}
	if (cyc < 0)
		return;
	snprintf(plan->label, sizeof(plan->label), "set=events ipc=%d%d", ins,
		 cyc);
	snprintf(plan->why, sizeof(plan->why),
		 "requested with --events: %d events, IPC from %s and %s",
		 plan->nr_events, plan->ev[ins].name, plan->ev[cyc].name);
}

/* ---- the list --------------------------------------------------------- */

/*
 * The pool entry of event e in a grouped list: the entry of the same name
 * if there is one (it must be the same event), else a new one. Returns
 * its index, -1 after ERR.
 */
static int pool_add(const struct td_cpu_info *ci, struct td_plan *plan,
		    const struct td_evsel *e, char *err, size_t errlen)
{
	for (int i = 0; i < plan->nr_events; i++) {
		if (strcmp(plan->ev[i].name, e->name))
			continue;
		if (!same_event(ci, &plan->ev[i], e) || !same_scope(&plan->ev[i], e)) {
			ERR("two different events are named '%s'", e->name);
			return -1;
		}
		return i;
	}
	if (plan->nr_events >= TOPDOWN_MAX_POOL) {
		ERR("too many events: the groups of the module count at most %d in all",
		    TOPDOWN_MAX_POOL);
		return -1;
	}
	plan->ev[plan->nr_events] = *e;
	return plan->nr_events++;
}

/* A new group for a grouped list; -1 after ERR. */
static int group_new(struct td_plan *plan, char *err, size_t errlen)
{
	struct td_plan_group *grp;

	if (plan->nr_groups >= TOPDOWN_MAX_GROUPS) {
		ERR("too many groups: the module rotates at most %d", TOPDOWN_MAX_GROUPS);
		return -1;
	}
	grp = &plan->groups[plan->nr_groups];
	memset(grp, 0, sizeof(*grp));
	snprintf(grp->name, sizeof(grp->name), "events group %d", plan->nr_groups);
	return plan->nr_groups++;
}

int td_plan_events(const struct td_cpu_info *ci, const char *root,
		   const char *spec, struct td_plan *plan, char *err,
		   size_t errlen)
{
	bool grouped = strpbrk(spec, "{}"), in_group = false;
	const char *p = spec;
	int g = -1;

	memset(plan, 0, sizeof(*plan));
	snprintf(plan->set, sizeof(plan->set), "events");
	if (!*spec) {
		ERR("no events given");
		return -1;
	}
	while (*p) {
		char tok[512];
		size_t len = 0;
		bool in_pmu = false;
		struct td_evsel e;
		int idx;

		if (grouped && *p == '{') {
			if (in_group) {
				ERR("'{' inside a group in '%s': groups do not nest", spec);
				return -1;
			}
			in_group = true;
			p++;
			g = group_new(plan, err, errlen);
			if (g < 0)
				return -1;
		} else if (grouped && !in_group) {
			/* An event outside braces: a group of its own. */
			g = group_new(plan, err, errlen);
			if (g < 0)
				return -1;
		}
		/* One event: up to a comma or brace outside PMU/.../. */
		while (p[len] && (in_pmu || (p[len] != ',' && p[len] != '{' &&
					     p[len] != '}'))) {
			if (p[len] == '/')
				in_pmu = !in_pmu;
			len++;
		}
		if (!len) {
			ERR("empty event in '%s'", spec);
			return -1;
		}
		if (len >= sizeof(tok)) {
			ERR("event '%.40s...' too long", p);
			return -1;
		}
		memcpy(tok, p, len);
		tok[len] = '\0';
		p += len;
		if (*p == '{') {
			ERR("'{' after event '%s' in '%s': separate groups with a comma",
			    tok, spec);
			return -1;
		}
		if (*p == '}') {
			if (!in_group) {
				ERR("'}' without its '{' in '%s'", spec);
				return -1;
			}
			in_group = false;
			if (*++p == ':') {
				ERR("a modifier after a group ('}%.8s') is not supported: "
				    "put it on each event of the group", p);
				return -1;
			}
			if (*p && *p != ',') {
				ERR("'%c' after a group in '%s': separate groups with a comma",
				    *p, spec);
				return -1;
			}
		}
		if (*p == ',' && !*++p) {
			ERR("empty event at the end of '%s'", spec);
			return -1;
		}
		if (!grouped && plan->nr_events >= TOPDOWN_MAX_EVENTS) {
			ERR("too many events: the module counts at most %d "
			    "(or up to %d in groups, {a,b},{c,d})",
			    TOPDOWN_MAX_EVENTS, TOPDOWN_MAX_POOL);
			return -1;
		}
		if (strpbrk(tok, " \t\n")) {
			ERR("event '%s': no blanks inside an event", tok);
			return -1;
		}
		if (td_parse_event(ci, root, tok, &e, err, errlen))
			return -1;
		if (!grouped) {
			for (int i = 0; i < plan->nr_events; i++) {
				if (!strcmp(plan->ev[i].name, e.name)) {
					ERR("event '%s' given twice", e.name);
					return -1;
				}
			}
			plan->ev[plan->nr_events++] = e;
			continue;
		}
		idx = pool_add(ci, plan, &e, err, errlen);
		if (idx < 0)
			return -1;
		for (int j = 0; j < plan->groups[g].nr; j++) {
			if (plan->groups[g].ev[j] == idx) {
				ERR("event '%s' given twice in one group", plan->ev[idx].name);
				return -1;
			}
		}
		if (plan->groups[g].nr >= TOPDOWN_MAX_EVENTS) {
			ERR("group %d has more than %d events: "
			    "a group is counted at once, on %d counters at most",
			    g, TOPDOWN_MAX_EVENTS, TOPDOWN_MAX_EVENTS);
			return -1;
		}
		plan->groups[g].ev[plan->groups[g].nr++] = idx;
	}
	if (in_group) {
		ERR("'{' without its '}' in '%s'", spec);
		return -1;
	}
	if (grouped) {
		/* Decoding by group is the readers'; the label names none. */
		snprintf(plan->label, sizeof(plan->label), "set=events");
		snprintf(plan->why, sizeof(plan->why),
			 "requested with --events: %d events in %d groups, %s, counts only",
			 plan->nr_events, plan->nr_groups,
			 plan->nr_groups > 1 ? "rotated" : "one group");
		return 0;
	}
	make_label(ci, plan);
	return 0;
}

/* ---- decoding --------------------------------------------------------- */

static void decode_events_ipc(const struct td_decoder *d, const uint64_t *c,
			      struct td_metrics *out)
{
	if (td_has(d, IS_INSTRUCTIONS) && td_has(d, IS_CYCLES))
		td_put_ipc(out, td_cnt(d, c, IS_INSTRUCTIONS),
			   td_cnt(d, c, IS_CYCLES));
}

static const struct td_family fam_events = {
	.name = "events", .nr_roles = 2, .decode = decode_events_ipc,
};

static int match_never(const struct td_set *s, const struct td_cpu_info *ci,
		       char *why, size_t n)
{
	(void)s;
	(void)ci;
	snprintf(why, n, "chosen with --events EVENTS only");
	return TD_FIT_NO;
}

/* Not in td_sets: only labels and td_plan_events() name it. */
const struct td_set td_set_events = {
	.name = "events",
	.title = "the events given with --events",
	.metrics = "ipc with cycles and instructions; a set's metrics with all its events",
	.fam = &fam_events,
	.match = match_never,
};

/* One digit per event position, distinct, below nr; n of them. */
static int parse_positions(const char *v, int n, int nr, int *pos)
{
	unsigned int seen = 0;

	if ((int)strlen(v) != n)
		return -1;
	for (int i = 0; i < n; i++) {
		int x = v[i] - '0';

		if (x < 0 || x >= nr || x > 9 || (seen & 1u << x))
			return -1;
		seen |= 1u << x;
		pos[i] = x;
	}
	return 0;
}

int td_events_decoder(struct td_decoder *d, const char *label, int nr,
		      char *err, size_t errlen)
{
	char buf[TOPDOWN_LABEL_LEN], sub[TOPDOWN_LABEL_LEN] = "";
	char names[TOPDOWN_MAX_EVENTS][TOPDOWN_NAME_LEN];
	const char *of = NULL, *map = NULL, *ipc = NULL;
	char *tok, *save = NULL;
	const struct td_set *s;
	int pos[TOPDOWN_MAX_EVENTS];

	memset(d, 0, sizeof(*d));
	for (int r = 0; r < TOPDOWN_MAX_EVENTS; r++)
		d->idx[r] = -1;
	if (nr < 1 || nr > TOPDOWN_MAX_EVENTS) {
		ERR("bad number of events %d", nr);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", label);
	tok = strtok_r(buf, " ", &save);	/* set=events */
	while ((tok = strtok_r(NULL, " ", &save))) {
		char *eq = strchr(tok, '=');
		size_t l;

		if (!eq || !eq[1]) {
			ERR("malformed label item '%s'", tok);
			return -1;
		}
		*eq++ = '\0';
		if (!strcmp(tok, "ipc") && !ipc && !of) {
			ipc = eq;
		} else if (!strcmp(tok, "of") && !of && !ipc) {
			of = eq;
			snprintf(sub, sizeof(sub), "set=%s", eq);
		} else if (!strcmp(tok, "map") && of && !map) {
			map = eq;
		} else if ((!strcmp(tok, "slots") || !strcmp(tok, "rev")) &&
			   of && !map) {
			l = strlen(sub);
			snprintf(sub + l, sizeof(sub) - l, " %s=%s", tok, eq);
		} else {
			ERR("unexpected label item '%s' in '%s'", tok, label);
			return -1;
		}
	}
	if (ipc) {
		if (parse_positions(ipc, 2, nr, pos)) {
			ERR("bad ipc=%s for %d events", ipc, nr);
			return -1;
		}
		d->idx[IS_INSTRUCTIONS] = pos[0];
		d->idx[IS_CYCLES] = pos[1];
	}
	d->family = &td_set_events;
	d->nr_events = nr;
	snprintf(d->set, sizeof(d->set), "events");
	if (!of)
		return 0;
	s = td_set_find(of);
	if (!s || !map) {
		ERR(s ? "label item of= without map=" :
		    "label names unknown event set '%s'", of);
		return -1;
	}
	if (parse_positions(map, s->nr_events, nr, pos)) {
		ERR("bad map=%s for set %s and %d events", map, s->name, nr);
		return -1;
	}
	/* The set's own decoder, over its events in its order... */
	memset(names, 0, sizeof(names));
	for (int i = 0; i < s->nr_events; i++)
		snprintf(names[i], sizeof(names[i]), "%s", s->ev[i].name);
	if (td_set_decoder(d, sub, (const char (*)[TOPDOWN_NAME_LEN])names,
			   s->nr_events, false, err, errlen))
		return -1;
	/* ...then pointed at where each event is in this collection. */
	for (int r = 0; r < TOPDOWN_MAX_EVENTS; r++)
		if (d->idx[r] >= 0)
			d->idx[r] = pos[d->idx[r]];
	d->nr_events = nr;
	snprintf(d->set, sizeof(d->set), "events");
	return 0;
}
