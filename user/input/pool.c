// SPDX-License-Identifier: GPL-2.0
/*
 * The events tdctl decode's input may name (input/counts.h): the set's,
 * or with --level 2 or -M the pool of the groups taken, each event once
 * (required if one group requires it); and once the input is read, the
 * groups kept and the intervals that lack a count the others have.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/str.h"
#include "input/counts.h"

/* A list for a message, whole (td_str_add()): malloc()ed, NULL if out of
 * memory. decode_named(list) is what the message shows.
 */
char *decode_in_names(const struct decode_in *in)
{
	char *list = NULL;

	for (int i = 0; i < in->nr_ev; i++)
		if (!td_str_add(&list, "%s%s", i ? ", " : "", in->ev[i]->name)) {
			free(list);
			return NULL;
		}
	return list;
}

const char *decode_named(const char *list)
{
	return list ? list : "(out of memory)";
}

/*
 * The events of the selection: the set's Level 1 events, or the pool of
 * the groups it takes (group 0's events first) and their composition.
 */
int decode_in_events(struct decode_in *in, int level, const char *mg,
		     struct topdown_group *groups, int *nr_groups,
		     char *ids, size_t idlen)
{
	struct td_select sel = { .level = level, .metric_groups = mg };
	bool want[TD_MAX_SET_GROUPS];
	char err[1024];
	int r = 0;

	*nr_groups = 0;
	ids[0] = '\0';
	if (level > 1 || (mg && *mg)) {
		r = td_select_groups(NULL, in->s, &sel, want, err, sizeof(err));
		if (r < 0) {
			p_err("decode: %s", err);
			return -1;
		}
	}
	if (!(level > 1 || (mg && *mg)) || r == 1) {
		in->nr_ev = in->s->nr_events;
		for (int i = 0; i < in->s->nr_events; i++)
			in->ev[i] = &in->s->ev[i];
		in->nr_groups = 0;
		return 0;
	}
	for (int g = 0; g < in->s->nr_groups; g++) {
		const struct td_grp *grp = &in->s->groups[g];
		struct topdown_group *tg;

		if (!want[g])
			continue;
		in->grp[*nr_groups] = grp;
		tg = &groups[(*nr_groups)++];
		memset(tg, 0, sizeof(*tg));
		tg->nr_events = grp->nr_events;
		snprintf(ids + strlen(ids), idlen - strlen(ids), "%s%s",
			 *ids ? "," : "", grp->id);
		for (int k = 0; k < grp->nr_events; k++) {
			int e = 0;

			while (e < in->nr_ev &&
			       strcmp(in->ev[e]->name, grp->ev[k].name))
				e++;
			if (e == in->nr_ev) {
				if (e == TOPDOWN_MAX_POOL) {
					p_err("decode: more than %d events",
					      TOPDOWN_MAX_POOL);
					return -1;
				}
				in->ev[in->nr_ev++] = &grp->ev[k];
			} else if (!grp->ev[k].optional) {
				/* required by one group: required */
				if (in->ev[e]->optional)
					in->ev[e] = &grp->ev[k];
			}
			tg->events[k] = e;
		}
	}
	in->nr_groups = *nr_groups;
	memcpy(in->groups, groups, *nr_groups * sizeof(*groups));
	return 0;
}

/* The selected group of the set with this composition. */
static const struct td_grp *group_of(const struct decode_in *in,
				     const char *ids, int k)
{
	const char *p = ids;
	size_t n;

	for (; k > 0 && p; k--) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (!p)
		return NULL;
	n = strcspn(p, ",");
	return td_grp_find(in->s, p, n);
}

/* Does one of the groups (without groups: the set) need pool event i,
 * given somewhere in the input? (The metrics that read an event given
 * nowhere are left out: td_gdecode_needs().)
 */
static bool needed(const struct decode_in *in, const struct topdown_group *g,
		   int nr_groups, const char *ids, int i)
{
	if (!in->seen[i])
		return false;
	if (!nr_groups)
		return !in->ev[i]->optional;
	for (int k = 0; k < nr_groups; k++) {
		const struct td_grp *grp = group_of(in, ids, k);

		for (uint32_t j = 0; j < g[k].nr_events; j++)
			if (g[k].events[j] == i && !grp->ev[j].optional)
				return true;
	}
	return false;
}

/* Keep the groups keep[] says; error if none is left. */
int decode_in_keep_groups(const struct decode_in *in, struct topdown_group *g,
			  int *nr_groups, char *ids, size_t idlen,
			  const bool *keep)
{
	char kept[64] = "", *names;
	int n = 0;

	for (int k = 0; k < *nr_groups; k++) {
		const struct td_grp *grp = group_of(in, ids, k);

		if (!keep[k] || !grp)
			continue;
		snprintf(kept + strlen(kept), sizeof(kept) - strlen(kept),
			 "%s%s", *kept ? "," : "", grp->id);
		g[n++] = g[k];
	}
	if (!n) {
		names = decode_in_names(in);
		p_err("decode: no group of set %s has all its counts (its events: %s)",
		      in->s->name, decode_named(names));
		free(names);
		return -1;
	}
	*nr_groups = n;
	snprintf(ids, idlen, "%s", kept);
	return 0;
}

bool decode_left_out(const struct decode_leftout *lo, const char *name)
{
	for (int i = 0; i < lo->n; i++)
		if (!strcmp(lo->name[i], name))
			return true;
	return false;
}

/* Metrics i.. of m with the needs of metric i, into *list and lo (keep):
 * marked in *done.
 */
static bool list_needing(const struct td_metrics *m, const uint32_t *needs,
			 int i, uint32_t *done, bool keep, struct decode_leftout *lo,
			 char **list)
{
	bool whole = true;

	for (int k = i; k < m->n; k++) {
		if (needs[k] != needs[i])
			continue;
		*done |= 1u << k;
		if (keep && lo->n < TD_MAX_TREE)
			lo->name[lo->n++] = m->m[k].name;
		if (whole)
			whole = td_str_add(list, "%s%s", k > i ? ", " : "",
					   m->m[k].name);
	}
	return whole;
}

/* Which metrics the counts given decide: td_gdecode_needs(). */
void decode_in_given(const struct decode_in *in, const struct td_gdecoder *gd,
		     const char names[][TOPDOWN_NAME_LEN], bool *keep,
		     struct decode_leftout *lo,
		     void (*say)(void *ctx, const char *text), void *ctx)
{
	for (int k = 0; k < gd->nr_groups; k++) {
		const struct td_gd_group *gg = &gd->g[k];
		uint64_t delta[TOPDOWN_MAX_EVENTS] = { 0 };
		uint32_t missing = 0, needs[TD_MAX_METRICS], done = 0;
		struct td_metrics m;
		int n, nr_out = 0;

		for (int j = 0; j < gg->nr_events; j++) {
			int e = gg->pool[j];

			delta[j] = in->ivl[0].counts[e];
			if (!in->seen[e] && names[e][0])
				missing |= 1u << j;
		}
		keep[k] = true;
		if (!missing)
			continue;
		n = td_gdecode_needs(gd, k, delta, missing, &m, needs);
		for (int i = 0; i < n; i++)
			nr_out += needs[i] != 0;
		keep[k] = !n || nr_out < n;
		for (int i = 0; i < n; i++) {
			char *ms = NULL, *evs = NULL, *text = NULL;
			bool whole;

			if (!needs[i] || (done & (1u << i)))
				continue;
			whole = list_needing(&m, needs, i, &done, keep[k], lo,
					     &ms);
			for (int j = 0; j < gg->nr_events && whole; j++)
				if (needs[i] & (1u << j))
					whole = td_str_add(&evs, "%s%s",
							   evs ? ", " : "",
							   in->ev[gg->pool[j]]->name);
			if (whole && gd->grouped && !keep[k])
				whole = td_str_add(&text, "%s (group %s) left out: no count for %s",
						   ms, gg->name, evs);
			else if (whole)
				whole = td_str_add(&text, "%s left out: no count for %s",
						   ms, evs);
			say(ctx, whole ? text : "metrics left out: no count for "
			    "some events (out of memory listing them)");
			free(ms);
			free(evs);
			free(text);
		}
	}
}

/* Does interval iv lack a count the formulas of the groups g (without
 * groups: the set's) need and another interval has? *list is then those
 * events (malloc()ed; NULL if out of memory).
 */
bool decode_in_missing(const struct decode_in *in, const struct decode_ivl *iv,
		       const struct topdown_group *g, int nr_groups,
		       const char *ids, char **list)
{
	bool lacks = false, whole = true;

	*list = NULL;
	for (int i = 0; i < in->nr_ev; i++) {
		if (iv->seen[i] || !needed(in, g, nr_groups, ids, i))
			continue;
		if (whole)
			whole = td_str_add(list, "%s%s", lacks ? ", " : "",
					   in->ev[i]->name);
		lacks = true;
	}
	if (!whole) {
		free(*list);
		*list = NULL;
	}
	return lacks;
}
