// SPDX-License-Identifier: GPL-2.0
/*
 * The slices of tdctl dump --json of a record file with event groups
 * (input/counts.h, struct decode_slice). Such a slice has the counts of
 * its group's events and null for the pool's others; "unreadable" names
 * those of its group that could not be read (also null), "rotated" marks
 * one that no group measured. Its group is told by the events it
 * counted: the group taken (decode_in_events()) that has every one of
 * them and every event it requires; without groups, the set's events,
 * beside which group 0 of a file (the Level 1 group) counts some more of
 * its own. A slice of a group not taken is in the time, as in report,
 * and in no group's counts. A dump older than "unreadable" says null for
 * both: there, a slice with some of a group's counts and not all those
 * it requires is one of that group whose counts were not all read.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/count.h"
#include "base/json_read.h"
#include "input/input_priv.h"

/* An event name of the dump: the same in every slice, looked up once. */
struct slice_name {
	char *key;
	size_t len;
	int ev;		/* in's event (pool index), -1: not one of them */
	bool l1;	/* an event of the set's Level 1 group or of the set */
};

/* Most names a dump may use (its pool, in any spelling). */
#define MAX_NAMES	256

static bool set_has(const struct td_set *s, const char *key, size_t len,
		    bool *l1)
{
	bool any = false;

	*l1 = false;
	for (int i = 0; i < s->nr_events; i++)
		*l1 |= td_tmpl_is(&s->ev[i], key, len);
	for (int g = 0; g < s->nr_groups; g++)
		for (int j = 0; j < s->groups[g].nr_events; j++)
			if (td_tmpl_is(&s->groups[g].ev[j], key, len)) {
				any = true;
				*l1 |= g == 0;
			}
	return any || *l1;
}

/* The slice_name of key (len bytes), or -1 after p_err(). */
static int name_of(struct decode_in *in, const char *key, size_t len)
{
	struct slice_name *n;
	char *names;
	bool l1;
	int ev = -1;

	for (int i = 0; i < in->nr_sn; i++)
		if (in->sn[i].len == len && !memcmp(in->sn[i].key, key, len))
			return i;
	for (int i = 0; i < in->nr_ev && ev < 0; i++)
		if (td_tmpl_is(in->ev[i], key, len))
			ev = i;
	if (!set_has(in->s, key, len, &l1) && ev < 0) {
		names = decode_in_names(in);
		p_err("%sunknown event '%.*s' for set %s (its events: %s)",
		      in->where, (int)len, key, in->s->name,
		      decode_named(names));
		free(names);
		return -1;
	}
	if (in->nr_sn == in->sn_cap) {
		int cap = in->sn_cap ? 2 * in->sn_cap : 32;

		n = cap <= MAX_NAMES ? realloc(in->sn, cap * sizeof(*n)) : NULL;
		if (!n) {
			p_err("%smore than %d event names, or out of memory",
			      in->where, MAX_NAMES);
			return -1;
		}
		in->sn = n;
		in->sn_cap = cap;
	}
	n = &in->sn[in->nr_sn];
	n->key = malloc(len + 1);
	if (!n->key) {
		p_err("decode: out of memory");
		return -1;
	}
	memcpy(n->key, key, len);
	n->key[len] = '\0';
	n->len = len;
	n->ev = ev;
	n->l1 = l1 || (ev >= 0 && !in->nr_groups);
	return in->nr_sn++;
}

void decode_in_free_names(struct decode_in *in)
{
	for (int i = 0; i < in->nr_sn; i++)
		free(in->sn[i].key);
	free(in->sn);
	in->sn = NULL;
	in->nr_sn = 0;
	in->sn_cap = 0;
}

/* What one slice counted, by in's event. */
struct slice_read {
	struct decode_in *in;
	int unread_names[TOPDOWN_MAX_POOL];	/* slice_name indexes */
	int nr_unread;
	uint64_t count[TOPDOWN_MAX_POOL];
	uint32_t keys;		/* bit e: in "counts", a count or null */
	uint32_t have;		/* bit e: count[e] is a count */
	uint32_t unread;	/* bit e: counted, not read */
	bool outside;		/* counted an event of no group taken */
	bool unread_other;	/* ... or not read one, beside the group's */
	bool null_other;	/* null for another of the Level 1 group */
};

static int unread_name(const struct jr_member *m, void *ctx)
{
	struct slice_read *r = ctx;
	int i;

	if (m->type != JR_STRING) {
		p_err("%s\"unreadable\" is not an array of event names",
		      r->in->where);
		return -1;
	}
	i = name_of(r->in, m->val, m->val_len);
	if (i < 0)
		return -1;
	if (r->nr_unread < TOPDOWN_MAX_POOL)
		r->unread_names[r->nr_unread++] = i;
	return 0;
}

/* One element of "unreadable", an event name: unescaped as the value of
 * {"u": ELEMENT}.
 */
static int unread_elem(const char *text, size_t len, void *ctx)
{
	struct slice_read *r = ctx;
	char *obj, err[160];
	int ret;

	if (asprintf(&obj, "{\"u\":%.*s}", (int)len, text) < 0) {
		p_err("decode: out of memory");
		return -1;
	}
	err[0] = '\0';
	ret = json_read_flat(obj, unread_name, r, err, sizeof(err));
	free(obj);
	if (ret == -1 && err[0])
		p_err("%s\"unreadable\": %s", r->in->where, err);
	return ret ? -1 : 0;
}

static int count_member(const struct jr_member *m, void *ctx)
{
	struct slice_read *r = ctx;
	struct decode_in *in = r->in;
	int i = name_of(in, m->key, m->key_len);
	const struct slice_name *n;
	bool unread = false;
	char err[256];
	uint64_t v;

	if (i < 0)
		return -1;
	n = &in->sn[i];
	if (n->ev >= 0)
		r->keys |= 1u << n->ev;
	for (int k = 0; k < r->nr_unread; k++)
		unread |= r->unread_names[k] == i;
	if (m->type == JR_NULL && !unread) {
		/* without groups: one of the Level 1 group's own */
		r->null_other |= n->ev < 0 && n->l1 && !in->nr_groups;
		return 0;		/* not counted by the slice's group */
	}
	if (n->ev < 0) {
		r->outside |= !n->l1 || in->nr_groups;
		r->unread_other |= unread;
		return 0;
	}
	if (unread) {
		r->unread |= 1u << n->ev;
		return 0;
	}
	if (m->type != JR_NUMBER && m->type != JR_STRING) {
		p_err("%sthe count of %s is not a number", in->where,
		      in->ev[n->ev]->name);
		return -1;
	}
	if (td_parse_count(m->val, m->val_len, &v, err, sizeof(err))) {
		p_err("%scount of %s: %s", in->where, m->key, err);
		return -1;
	}
	if (r->have & (1u << n->ev)) {
		p_err("%sevent %s given twice", in->where, in->ev[n->ev]->name);
		return -1;
	}
	r->count[n->ev] = v;
	r->have |= 1u << n->ev;
	return 0;
}

/* Group k's events (pool bits) and those it requires. */
static void group_masks(const struct decode_in *in, int k, uint32_t *all,
			uint32_t *req)
{
	*all = *req = 0;
	if (!in->nr_groups) {
		for (int e = 0; e < in->nr_ev; e++) {
			*all |= 1u << e;
			if (!in->ev[e]->optional)
				*req |= 1u << e;
		}
		return;
	}
	for (uint32_t j = 0; j < in->groups[k].nr_events; j++) {
		*all |= 1u << in->groups[k].events[j];
		if (!in->grp[k]->ev[j].optional)
			*req |= 1u << in->groups[k].events[j];
	}
}

/* The group of the events counted, -1 if none. In a dump without
 * "unreadable" (old), one with some of a group's counts and not all it
 * requires.
 */
static int group_of_slice(const struct decode_in *in,
			  const struct slice_read *r, bool old)
{
	uint32_t got = r->have | r->unread, all, req;
	int n = in->nr_groups ? in->nr_groups : 1;

	if (r->outside || !got)
		return -1;
	for (int k = 0; k < n; k++) {
		group_masks(in, k, &all, &req);
		if (!(got & ~all) && !(req & ~got))
			return k;
	}
	for (int k = 0; old && k < n; k++) {
		group_masks(in, k, &all, &req);
		if (!(got & ~all))
			return k;
	}
	return -1;
}

int decode_in_group_slice(struct decode_in *in, const struct dump_fields *f)
{
	struct slice_read r = { .in = in };
	struct decode_slice s = {
		.cpu = (uint32_t)f->cpu, .pid = (uint32_t)f->pid,
		.tid = (uint32_t)f->tid, .time_ns = f->time_ns,
		.duration_ns = f->duration_ns, .group = -1,
		.rotated = f->rotated,
	};
	uint32_t all, req;
	char err[160];
	int ret = 0;

	in->slices++;
	err[0] = '\0';
	if (f->unreadable &&
	    json_read_array(f->unreadable, f->unreadable_len, unread_elem, &r,
			    err, sizeof(err))) {
		if (err[0])
			p_err("%s%s", in->where, err);
		return -1;
	}
	if (json_read_object(f->counts, f->counts_len, count_member, &r, err,
			     sizeof(err))) {
		if (err[0])
			p_err("%s%s", in->where, err);
		return -1;
	}
	if (!f->rotated)
		s.group = group_of_slice(in, &r, !f->unreadable);
	if (f->rotated) {
		in->rotated++;
	} else if (s.group < 0) {
		in->other_group++;
	} else {
		int nr = in->nr_groups ? (int)in->groups[s.group].nr_events :
			 in->nr_ev;

		/* a null of the group's own events is a count not read
		 * (what a dump without "unreadable" leaves to infer)
		 */
		group_masks(in, s.group, &all, &req);
		r.unread |= all & r.keys & ~r.have;
		for (int j = 0; j < nr; j++) {
			int e = in->nr_groups ? in->groups[s.group].events[j] : j;

			s.delta[j] = r.count[e];
			if (r.unread & (1u << e))
				s.unread |= 1u << j;
		}
		/* A count not read leaves the slice out of its group's
		 * sums, as in report, even one its metrics do not read.
		 */
		s.error = s.unread || r.unread_other ||
			  (!f->unreadable && r.null_other);
		if (s.error) {
			in->unreadable++;
		} else {
			for (int e = 0; e < in->nr_ev; e++)
				if (r.have & (1u << e))
					in->seen[e] = true;
			ret = 1;
		}
	}
	if (in->slice)
		in->slice(in->slice_ctx, &s);
	return ret;
}
