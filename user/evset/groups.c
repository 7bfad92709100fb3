// SPDX-License-Identifier: GPL-2.0
/*
 * Levels and groups (evset.h): which groups a selection (--level, -M)
 * takes and the plan of their events, the decoders of a configuration
 * with groups, the metrics' descriptions and their hierarchy. The groups
 * themselves are the sets' (evset_{intel,amd,arm}.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "evset/evset_priv.h"

/* ---- metric descriptions ---------------------------------------------- */

const struct td_metric_info *td_metric_info(const char *name)
{
	const struct td_metric_info *m = td_set_metric_info(NULL, name);

	for (int i = 0; i < td_nr_sets && !m; i++)
		for (int k = 0; k < td_sets[i]->nr_minfo && !m; k++)
			if (!strcmp(td_sets[i]->minfo[k].name, name))
				m = &td_sets[i]->minfo[k];
	return m;
}

bool td_metric_is_fraction(const char *name)
{
	const struct td_metric_info *m = td_metric_info(name);

	return m ? m->fraction : true;
}

/* ---- the sets' groups ------------------------------------------------- */

bool td_tmpl_takes_gp(const struct td_set *s, const struct td_ev_tmpl *t)
{
	if (t->kind == TD_EV_SW)
		return false;
	if (t->kind == TD_EV_HW)
		return !s->hw_fixed;
	return !(s->cycle_counter && t->config == s->cycle_counter);
}

/* The decoder of group g of s over its own events in table order. */
static void grp_decoder(const struct td_set *s, const struct td_grp *g,
			unsigned int slots, unsigned int rev,
			struct td_decoder *d)
{
	memset(d, 0, sizeof(*d));
	for (int r = 0; r < TOPDOWN_MAX_EVENTS; r++)
		d->idx[r] = -1;
	for (int i = 0; i < g->nr_events; i++)
		d->idx[g->ev[i].role] = i;
	d->nr_events = g->nr_events;
	d->family = s;
	d->grp = g;
	d->slots = slots ? slots : s->def_slots;
	d->revision = rev;
	snprintf(d->set, sizeof(d->set), "%s", s->name);
}

/* The metrics a decoder gives, described (NULL names skipped). */
static int decoder_metrics(const struct td_set *s, const struct td_decoder *d,
			   const struct td_metric_info **out, int max)
{
	static const uint64_t zero[TOPDOWN_MAX_EVENTS];
	struct td_metrics m;
	int n = 0;

	td_decode(d, zero, &m);
	for (int i = 0; i < m.n && n < max; i++) {
		const struct td_metric_info *x = td_set_metric_info(s,
								    m.m[i].name);

		if (x)
			out[n++] = x;
	}
	return n;
}

/* Does group g serve perf's metric group name (n bytes)? */
static bool grp_serves(const struct td_set *s, const struct td_grp *g,
		       const char *name, size_t n)
{
	const struct td_metric_info *mi[TD_MAX_GROUP_METRICS];
	struct td_decoder d;
	int nm;

	if (td_in_list(g->aliases, " ", name, n))
		return true;
	grp_decoder(s, g, 0, 0, &d);
	nm = decoder_metrics(s, &d, mi, TD_MAX_GROUP_METRICS);
	for (int i = 0; i < nm; i++)
		if (td_in_list(mi[i]->perf_groups, ";", name, n))
			return true;
	return false;
}

/* Does group g serve perf's metric group name (n bytes) with a metric
 * below Level 1?
 */
static bool serves_l2(const struct td_set *s, const struct td_grp *g,
		      const char *name, size_t n)
{
	const struct td_metric_info *mi[TD_MAX_GROUP_METRICS];
	struct td_decoder d;
	int nm;

	grp_decoder(s, g, 0, 0, &d);
	nm = decoder_metrics(s, &d, mi, TD_MAX_GROUP_METRICS);
	for (int k = 0; k < nm; k++)
		if (mi[k]->level > 1 &&
		    (td_in_list(mi[k]->perf_groups, ";", name, n) ||
		     td_in_list(g->aliases, " ", name, n)))
			return true;
	return false;
}

/* Append to buf (pos bytes used) each item of items (separated by any
 * of seps) that is not in it yet, after outsep. false when full.
 */
static bool add_items(char *buf, size_t len, size_t *pos, const char *items,
		      const char *seps, const char *outsep)
{
	while (items && *items) {
		size_t n = strcspn(items, seps);
		int w;

		if (n && !td_in_list(buf, outsep, items, n)) {
			w = snprintf(buf + *pos, len - *pos, "%s%.*s",
				     *pos ? outsep : "", (int)n, items);
			if (w < 0 || (size_t)w >= len - *pos) {
				buf[*pos] = '\0';
				return false;
			}
			*pos += w;
		}
		items += n;
		items += strspn(items, seps);
	}
	return true;
}

void td_set_metric_groups(const struct td_set *s, bool aliases,
			  const char *sep, char *buf, size_t len)
{
	struct td_group_desc d;
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; !td_set_group(s->name, i, &d); i++)
		if (!add_items(buf, len, &pos, d.perf_groups, ";", sep))
			return;
	for (int i = 0; aliases && i < s->nr_groups; i++)
		if (!add_items(buf, len, &pos, s->groups[i].aliases, " ", sep))
			return;
}

static bool grp_offered(const struct td_grp *g, const struct td_cpu_info *ci,
			char *why, size_t n)
{
	why[0] = '\0';
	return !g->offered || g->offered(ci, why, n);
}

/* Is every metric group of the list (comma-separated) one of Level 1
 * metrics of s (-M TopdownL1 on a set without groups)?
 */
static bool l1_only(const struct td_set *s, const char *p)
{
	while (p && *p) {
		size_t n = strcspn(p, ",");
		bool hit = false;

		for (int i = 0; i < s->nr_minfo && !hit; i++)
			hit = s->minfo[i].level == 1 &&
			      td_in_list(s->minfo[i].perf_groups, ";", p, n);
		if (!hit)
			return false;
		p += n;
		if (*p == ',')
			p++;
	}
	return true;
}

int td_select_groups(const struct td_cpu_info *ci, const struct td_set *s,
		     const struct td_select *sel, bool *want, char *err,
		     size_t errlen)
{
	bool below_l1 = sel->level > 1;
	const char *p = sel->metric_groups;
	int taken = 0;
	char why[256], names[1024];

	memset(want, 0, sizeof(*want) * TD_MAX_SET_GROUPS);
	want[0] = true;
	if (!s->nr_groups && sel->level <= 1 && l1_only(s, p))
		return 1;
	if (!s->nr_groups) {
		snprintf(err, errlen,
			 "event set '%s' has no groups below Level 1 (%s)",
			 s->name, *s->metrics ? s->metrics : "no metrics");
		return -1;
	}
	if (sel->level > 2 || sel->level < 0) {
		snprintf(err, errlen, "--level %d: event set '%s' has levels 1 and 2",
			 sel->level, s->name);
		return -1;
	}
	for (int i = 1; i < s->nr_groups && sel->level > 1; i++)
		want[i] = s->groups[i].in_level2;
	while (p && *p) {
		size_t n = strcspn(p, ",");
		bool hit = false;

		for (int i = 0; i < s->nr_groups && n; i++) {
			if (!grp_serves(s, &s->groups[i], p, n))
				continue;
			hit = true;
			if (i == 0) {
				/* Level 1 alone needs no groups */
				below_l1 |= serves_l2(s, &s->groups[0], p, n);
				continue;
			}
			want[i] = true;
			below_l1 = true;
		}
		if (!hit) {
			td_set_metric_groups(s, true, ", ", names,
					     sizeof(names));
			snprintf(err, errlen,
				 "-M %.*s: no metric of event set '%s' is in that metric group; its metric groups: %s",
				 (int)n, p, s->name, names);
			return -1;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	if (!below_l1)
		return 1;
	for (int i = 0; i < s->nr_groups; i++)
		taken += want[i];
	if (taken > TOPDOWN_MAX_GROUPS) {
		snprintf(err, errlen,
			 "event set '%s': the selection takes %d groups, more than the %d of a configuration; ask for fewer metric groups (-M)",
			 s->name, taken, TOPDOWN_MAX_GROUPS);
		return -1;
	}
	for (int i = 0; ci && i < s->nr_groups; i++) {
		if (want[i] && !grp_offered(&s->groups[i], ci, why,
					    sizeof(why))) {
			snprintf(err, errlen,
				 "event set '%s': no Level 2 on this CPU (%s); Level 1 works without --level or -M",
				 s->name, why);
			return -1;
		}
	}
	return 0;
}

int td_plan_groups(const struct td_cpu_info *ci, const struct td_set *s,
		   const struct td_select *sel, struct td_plan *plan,
		   char *err, size_t errlen)
{
	bool want[TD_MAX_SET_GROUPS];
	size_t len;
	int ng = 0, r;

	r = td_select_groups(ci, s, sel, want, err, errlen);
	if (r)
		return r;
	/* the pool: group 0's events first, each event once */
	len = strlen(plan->label);
	snprintf(plan->label + len, sizeof(plan->label) - len, " g=");
	for (int i = 0; i < s->nr_groups; i++) {
		const struct td_grp *g = &s->groups[i];
		struct td_plan_group *pg;

		if (!want[i])
			continue;
		pg = &plan->groups[ng++];
		snprintf(pg->name, sizeof(pg->name), "%s", g->name);
		pg->nr = g->nr_events;
		for (int k = 0; k < g->nr_events; k++) {
			const struct td_ev_tmpl *t = &g->ev[k];
			int e = 0;

			while (e < plan->nr_events &&
			       strcmp(plan->ev[e].name, t->name))
				e++;
			if (e == plan->nr_events) {
				if (e == TOPDOWN_MAX_POOL) {
					snprintf(err, errlen,
						 "event set '%s': the groups asked for need more than %d events; ask for fewer metric groups (-M)",
						 s->name, TOPDOWN_MAX_POOL);
					return -1;
				}
				if (td_tmpl_resolve(ci, s, t, &plan->ev[e],
						    err, errlen))
					return -1;
				plan->nr_events++;
			}
			pg->ev[k] = e;
		}
		len = strlen(plan->label);
		if (snprintf(plan->label + len, sizeof(plan->label) - len,
			     "%s%s", ng > 1 ? "," : "", g->id) >=
		    (int)(sizeof(plan->label) - len)) {
			snprintf(err, errlen, "label for '%s' too long",
				 s->name);
			return -1;
		}
	}
	plan->nr_groups = ng;
	plan->rotate_ms = ng > 1 ? sel->rotate_ms : 0;
	return 0;
}

int td_set_group(const char *set, int i, struct td_group_desc *out)
{
	const struct td_set *s = td_set_find(set);
	const struct td_grp *g;
	struct td_decoder d;
	size_t pos = 0;

	if (!s || i < 0 || i >= s->nr_groups)
		return -1;
	g = &s->groups[i];
	memset(out, 0, sizeof(*out));
	out->name = g->name;
	out->id = g->id;
	out->level = g->level;
	out->in_level2 = g->level == 1 || g->in_level2;
	out->anchor = g->anchor;
	out->formula = g->formula;
	out->nr_events = g->nr_events;
	for (int k = 0; k < g->nr_events; k++)
		out->events[k] = g->ev[k].name;
	grp_decoder(s, g, 0, 0, &d);
	out->nr_metrics = decoder_metrics(s, &d, out->metrics,
					  TD_MAX_GROUP_METRICS);
	for (int k = 0; k < out->nr_metrics; k++)
		add_items(out->perf_groups, sizeof(out->perf_groups), &pos,
			  out->metrics[k]->perf_groups, ";", ";");
	for (int k = 0; k < g->nr_events; k++)
		out->general_counters += td_tmpl_takes_gp(s, &g->ev[k]);
	return 0;
}

/* ---- the decoders of a configuration ---------------------------------- */

static int events_gdecoder(struct td_gdecoder *gd, const char *label,
			   int nr_groups, char *err, size_t errlen)
{
	snprintf(gd->set, sizeof(gd->set), "events");
	for (int g = 0; g < gd->nr_groups; g++) {
		struct td_gd_group *gg = &gd->g[g];

		/* ipc= and of= name positions of one group of events */
		if (nr_groups > 1 && strcmp(label, "set=events")) {
			snprintf(err, errlen,
				 "label '%s' with %d groups: only a plain set=events decodes per group",
				 label, nr_groups);
			return -1;
		}
		if (td_events_decoder(&gg->dec, label, gg->nr_events, err,
				      errlen))
			return -1;
		snprintf(gg->name, sizeof(gg->name), "events");
		gg->level = g ? 2 : 1;
		gg->anchor = -1;
		gg->nr_metrics = decoder_metrics(NULL, &gg->dec, gg->metrics,
						 TD_MAX_GROUP_METRICS);
	}
	return 0;
}

int td_gdecoder_build(struct td_gdecoder *gd, const char *label,
		      const char pool[][TOPDOWN_NAME_LEN], int nr_pool,
		      const struct topdown_group *groups, int nr_groups,
		      bool partial, char *err, size_t errlen)
{
	char names[TOPDOWN_MAX_EVENTS][TOPDOWN_NAME_LEN];
	struct td_label l;

	memset(gd, 0, sizeof(*gd));
	if (nr_pool < 1 || nr_pool > TOPDOWN_MAX_POOL ||
	    nr_groups < 0 || nr_groups > TOPDOWN_MAX_GROUPS ||
	    (!nr_groups && nr_pool > TOPDOWN_MAX_EVENTS)) {
		snprintf(err, errlen, "bad configuration: %d events in %d groups",
			 nr_pool, nr_groups);
		return -1;
	}
	gd->nr_pool = nr_pool;
	for (int i = 0; i < nr_pool; i++) {
		if (strnlen(pool[i], TOPDOWN_NAME_LEN) >= TOPDOWN_NAME_LEN) {
			snprintf(err, errlen, "event name %d not terminated", i);
			return -1;
		}
		memcpy(gd->pool[i], pool[i], TOPDOWN_NAME_LEN);
	}
	gd->grouped = nr_groups > 0;
	gd->nr_groups = nr_groups ? nr_groups : 1;
	for (int g = 0; g < gd->nr_groups; g++) {
		struct td_gd_group *gg = &gd->g[g];
		int n = groups ? (int)groups[g].nr_events : nr_pool;

		if (!nr_groups)
			n = nr_pool;
		if (n < 1 || n > TOPDOWN_MAX_EVENTS) {
			snprintf(err, errlen, "group %d has %d events", g, n);
			return -1;
		}
		gg->nr_events = n;
		for (int j = 0; j < n; j++) {
			int e = nr_groups ? groups[g].events[j] : j;

			if (e >= nr_pool) {
				snprintf(err, errlen,
					 "group %d: event %d is not in the pool of %d",
					 g, e, nr_pool);
				return -1;
			}
			for (int k = 0; k < j; k++) {
				if (gg->pool[k] == e) {
					snprintf(err, errlen,
						 "group %d counts event %s twice",
						 g, pool[e]);
					return -1;
				}
			}
			gg->pool[j] = e;
		}
	}
	if (td_label_is_events(label, err, errlen))
		return events_gdecoder(gd, label, nr_groups, err, errlen);
	if (td_label_parse(label, &l, err, errlen))
		return -1;
	snprintf(gd->set, sizeof(gd->set), "%s", l.s->name);
	if (!l.nr_groups) {
		struct td_gd_group *gg = &gd->g[0];

		if (nr_groups > 1) {
			snprintf(err, errlen,
				 "%d groups but the label '%s' names none (g=)",
				 nr_groups, label);
			return -1;
		}
		for (int j = 0; j < gg->nr_events; j++)
			memcpy(names[j], pool[gg->pool[j]], TOPDOWN_NAME_LEN);
		if (td_decoder_map(&gg->dec, "the configuration", l.s->ev,
				   l.s->nr_events,
				   (const char (*)[TOPDOWN_NAME_LEN])names,
				   gg->nr_events, partial, err, errlen))
			return -1;
		td_decoder_params(&gg->dec, &l);
		snprintf(gg->name, sizeof(gg->name), "level1");
		gg->level = 1;
		gg->anchor = -1;
		for (int j = 0; l.s->anchor && j < gg->nr_events; j++)
			if (!strcmp(names[j], l.s->anchor))
				gg->anchor = j;
		gg->nr_metrics = decoder_metrics(l.s, &gg->dec, gg->metrics,
						 TD_MAX_GROUP_METRICS);
		return 0;
	}
	if (l.nr_groups != gd->nr_groups) {
		snprintf(err, errlen,
			 "the label names %d groups (g=), the configuration has %d",
			 l.nr_groups, gd->nr_groups);
		return -1;
	}
	for (int g = 0; g < gd->nr_groups; g++) {
		struct td_gd_group *gg = &gd->g[g];
		const struct td_grp *grp = l.groups[g];
		char what[2 * TOPDOWN_NAME_LEN + 16];

		for (int j = 0; j < gg->nr_events; j++)
			memcpy(names[j], pool[gg->pool[j]], TOPDOWN_NAME_LEN);
		snprintf(what, sizeof(what), "group %d (%s of %s)", g,
			 grp->name, l.s->name);
		if (td_decoder_map(&gg->dec, what, grp->ev, grp->nr_events,
				   (const char (*)[TOPDOWN_NAME_LEN])names,
				   gg->nr_events, partial, err, errlen))
			return -1;
		td_decoder_params(&gg->dec, &l);
		gg->dec.grp = grp;
		snprintf(gg->name, sizeof(gg->name), "%s", grp->name);
		snprintf(gg->id, sizeof(gg->id), "%s", grp->id);
		gg->level = grp->level;
		gg->anchor = -1;
		for (int j = 0; grp->anchor && j < gg->nr_events; j++)
			if (!strcmp(names[j], grp->anchor))
				gg->anchor = j;
		gg->nr_metrics = decoder_metrics(l.s, &gg->dec, gg->metrics,
						 TD_MAX_GROUP_METRICS);
	}
	/* every metric has one home */
	for (int g = 0; g < gd->nr_groups; g++)
		for (int i = 0; i < gd->g[g].nr_metrics; i++)
			for (int h = 0; h < g; h++)
				for (int k = 0; k < gd->g[h].nr_metrics; k++)
					if (gd->g[h].metrics[k] ==
					    gd->g[g].metrics[i]) {
						snprintf(err, errlen,
							 "groups %d and %d both compute %s",
							 h, g,
							 gd->g[g].metrics[i]->name);
						return -1;
					}
	return 0;
}

int td_gdecoder_init(struct td_gdecoder *gd, const char *label,
		     const char pool[][TOPDOWN_NAME_LEN], int nr_pool,
		     const struct topdown_group *groups, int nr_groups,
		     char *err, size_t errlen)
{
	return td_gdecoder_build(gd, label, pool, nr_pool, groups, nr_groups,
				 false, err, errlen);
}

int td_gdecoder_from_config(struct td_gdecoder *gd,
			    const struct topdown_config *cfg,
			    char *err, size_t errlen)
{
	static char pool[TOPDOWN_MAX_POOL][TOPDOWN_NAME_LEN];
	char label[TOPDOWN_LABEL_LEN];
	uint32_t ng = 0, n = cfg->nr_events;

	if (cfg->size >= TOPDOWN_CONFIG_SIZE_VER1)
		ng = cfg->nr_groups;
	if (n < 1 || n > (ng ? TOPDOWN_MAX_POOL : TOPDOWN_MAX_EVENTS) ||
	    ng > TOPDOWN_MAX_GROUPS) {
		snprintf(err, errlen, "bad configuration: %u events, %u groups",
			 n, ng);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		const char *nm = i < TOPDOWN_MAX_EVENTS ? cfg->events[i].name :
				 cfg->more_events[i - TOPDOWN_MAX_EVENTS].name;

		memcpy(pool[i], nm, TOPDOWN_NAME_LEN);
	}
	memcpy(label, cfg->label, sizeof(label));
	label[sizeof(label) - 1] = '\0';
	if (strnlen(cfg->label, sizeof(cfg->label)) >= sizeof(cfg->label)) {
		snprintf(err, errlen, "label not terminated");
		return -1;
	}
	return td_gdecoder_init(gd, label, (const char (*)[TOPDOWN_NAME_LEN])pool,
				(int)n, ng ? cfg->groups : NULL, (int)ng, err,
				errlen);
}

void td_gdecode(const struct td_gdecoder *gd, int g, const uint64_t *delta,
		struct td_metrics *out)
{
	out->n = 0;
	if (!gd || g < 0 || g >= gd->nr_groups || !delta)
		return;
	td_decode(&gd->g[g].dec, delta, out);
}

/* Metric i the same in a and b: valid in both with the same value, or in
 * neither.
 */
static bool same_metric(const struct td_metrics *a, const struct td_metrics *b,
			int i)
{
	if (i >= b->n)
		return false;
	if (a->m[i].valid != b->m[i].valid)
		return false;
	return !a->m[i].valid || a->m[i].value == b->m[i].value ||
	       (a->m[i].value != a->m[i].value &&
		b->m[i].value != b->m[i].value);
}

int td_gdecode_needs(const struct td_gdecoder *gd, int g, const uint64_t *delta,
		     uint32_t missing, struct td_metrics *out, uint32_t *needs)
{
	uint64_t base[TOPDOWN_MAX_EVENTS] = { 0 }, probe[TOPDOWN_MAX_EVENTS];
	struct td_metrics *m0 = out, m;
	uint64_t top = 0;
	int k;

	out->n = 0;
	if (!gd || g < 0 || g >= gd->nr_groups)
		return 0;
	k = gd->g[g].nr_events;
	for (int j = 0; j < k; j++)
		if (!(missing & (1u << j)) && delta[j] > top)
			top = delta[j];
	if (top < 1000 || top > (UINT64_MAX >> 8))
		top = top < 1000 ? 1000000 : UINT64_MAX >> 8;
	/* A missing count at a value of its own, none equal to another's. */
	for (int j = 0; j < k; j++)
		base[j] = missing & (1u << j) ? top / 2 + 1009 * (uint64_t)(j + 1) :
			  delta[j];
	td_gdecode(gd, g, base, m0);
	for (int i = 0; i < m0->n; i++)
		needs[i] = 0;
	for (int j = 0; j < k; j++) {
		const uint64_t v[] = { 0, base[j] / 7 + 3, base[j] * 3 + 1 };

		if (!(missing & (1u << j)))
			continue;
		for (size_t t = 0; t < sizeof(v) / sizeof(v[0]); t++) {
			memcpy(probe, base, sizeof(probe));
			probe[j] = v[t];
			td_gdecode(gd, g, probe, &m);
			for (int i = 0; i < m0->n; i++)
				if (!same_metric(m0, &m, i))
					needs[i] |= 1u << j;
		}
	}
	return m0->n;
}

const struct td_metric_info *td_gdecoder_find(const struct td_gdecoder *gd,
					      const char *name, int *group,
					      int *index)
{
	for (int g = 0; g < gd->nr_groups; g++) {
		for (int i = 0; i < gd->g[g].nr_metrics; i++) {
			if (strcmp(gd->g[g].metrics[i]->name, name))
				continue;
			if (group)
				*group = g;
			if (index)
				*index = i;
			return gd->g[g].metrics[i];
		}
	}
	return NULL;
}

static void put_node(const struct td_gdecoder *gd, struct td_tree_node *nodes,
		     int max, int *n, int group, int index, int depth)
{
	if (*n < max) {
		nodes[*n].group = group;
		nodes[*n].index = index;
		nodes[*n].depth = depth;
		nodes[*n].info = gd->g[group].metrics[index];
	}
	(*n)++;
}

int td_gdecoder_tree(const struct td_gdecoder *gd, struct td_tree_node *nodes,
		     int max)
{
	int n = 0;
	int l1 = 0;

	/* the Level 1 group: group 0 (a plan puts it first) */
	while (l1 < gd->nr_groups && gd->g[l1].level != 1)
		l1++;
	/* Level 1, each with its children */
	for (int i = 0; l1 < gd->nr_groups && i < gd->g[l1].nr_metrics; i++) {
		const struct td_metric_info *m = gd->g[l1].metrics[i];

		if (m->parent || m->level > 1)
			continue;
		put_node(gd, nodes, max, &n, l1, i, 0);
		for (int g = 0; g < gd->nr_groups; g++)
			for (int k = 0; k < gd->g[g].nr_metrics; k++)
				if (gd->g[g].metrics[k]->parent &&
				    !strcmp(gd->g[g].metrics[k]->parent,
					    m->name))
					put_node(gd, nodes, max, &n, g, k, 1);
	}
	/* the rest: drill-down metrics, and children of absent parents */
	for (int g = 0; g < gd->nr_groups; g++) {
		for (int k = 0; k < gd->g[g].nr_metrics; k++) {
			const struct td_metric_info *m = gd->g[g].metrics[k];

			if ((!m->parent && (g != l1 || m->level > 1)) ||
			    (m->parent &&
			     !td_gdecoder_find(gd, m->parent, NULL, NULL)))
				put_node(gd, nodes, max, &n, g, k, 0);
		}
	}
	return n;
}
