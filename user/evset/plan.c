// SPDX-License-Identifier: GPL-2.0
/*
 * Choosing the plan of a collection and the decoder of a label, above
 * every other file of evset/: a set's plan and decoder (evset.c), with
 * its groups (groups.c), or any events (events.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>

#include "evset/evset_priv.h"

/* The names of the sets that fit ci (NULL: of every set). */
static void list_valid(const struct td_cpu_info *ci, char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; i < td_nr_sets; i++) {
		int w;

		if (ci && td_set_fit(td_sets[i], ci, NULL, 0) < TD_FIT_MANUAL)
			continue;
		w = snprintf(buf + pos, len - pos, "%s%s", pos ? ", " : "",
			     td_sets[i]->name);
		if (w < 0 || (size_t)w >= len - pos)
			break;
		pos += w;
	}
}

/* The set asked for (or the automatic one), with plan->why. */
static const struct td_set *choose_set(const struct td_cpu_info *ci,
				       const char *set_name,
				       struct td_plan *plan, char *err,
				       size_t errlen)
{
	const struct td_set *s = NULL;
	char why[256], valid[512], all[512];
	int fit = TD_FIT_NO;

	if (set_name) {
		s = td_set_find(set_name);
		if (!s) {
			list_valid(ci, valid, sizeof(valid));
			list_valid(NULL, all, sizeof(all));
			snprintf(err, errlen,
				 "unknown event set '%s' (the %d sets: %s); valid here: %s",
				 set_name, td_nr_sets, all, valid);
			return NULL;
		}
		fit = td_set_fit(s, ci, why, sizeof(why));
		if (fit < TD_FIT_MANUAL) {
			list_valid(ci, valid, sizeof(valid));
			snprintf(err, errlen,
				 "event set '%s' does not fit this CPU (%s); valid here: %s",
				 set_name, why, valid);
			return NULL;
		}
		snprintf(plan->why, sizeof(plan->why), "requested by name: %s",
			 why);
		return s;
	}
	for (int i = 0; i < td_nr_sets && !s; i++) {
		fit = td_set_fit(td_sets[i], ci, why, sizeof(why));
		if (fit >= TD_FIT_AUTO)
			s = td_sets[i];
	}
	if (!s) {
		/* The table ends with generic and software, which always
		 * report TD_FIT_AUTO when they are the fallback; reaching
		 * here means the table is broken.
		 */
		snprintf(err, errlen, "no event set fits this machine");
		return NULL;
	}
	snprintf(plan->why, sizeof(plan->why), "%s", why);
	return s;
}

int td_plan_select(const struct td_cpu_info *ci, const char *set_name,
		   const struct td_select *sel, struct td_plan *plan,
		   char *err, size_t errlen)
{
	const struct td_set *s;

	memset(plan, 0, sizeof(*plan));
	s = choose_set(ci, set_name, plan, err, errlen);
	if (!s)
		return -1;
	if (sel && (sel->level > 1 || (sel->metric_groups &&
				       *sel->metric_groups))) {
		int r;

		if (td_plan_label(ci, s, plan, err, errlen))
			return -1;
		r = td_plan_groups(ci, s, sel, plan, err, errlen);
		if (r <= 0)	/* groups planned, or an error */
			return r;
		/* only Level 1 asked for: the plan without groups */
	}
	return td_plan_set(ci, s, plan, err, errlen);
}

int td_plan_for(const struct td_cpu_info *ci, const char *set_name,
		struct td_plan *plan, char *err, size_t errlen)
{
	return td_plan_select(ci, set_name, NULL, plan, err, errlen);
}

static int decoder_build(struct td_decoder *d, const char *label,
			 const char names[][TOPDOWN_NAME_LEN], int nr,
			 bool partial, char *err, size_t errlen)
{
	if (td_label_is_events(label, err, errlen)) {
		memset(d, 0, sizeof(*d));
		return td_events_decoder(d, label, nr, err, errlen);
	}
	return td_set_decoder(d, label, names, nr, partial, err, errlen);
}

int td_decoder_from_label(struct td_decoder *d, const char *label,
			  const char names[][TOPDOWN_NAME_LEN], int nr,
			  char *err, size_t errlen)
{
	return decoder_build(d, label, names, nr, false, err, errlen);
}

int td_decoder_partial(struct td_decoder *d, const char *label,
		       const char names[][TOPDOWN_NAME_LEN], int nr,
		       char *err, size_t errlen)
{
	return decoder_build(d, label, names, nr, true, err, errlen);
}
