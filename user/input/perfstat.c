// SPDX-License-Identifier: GPL-2.0
/*
 * The parsers of tdctl decode's counts (input/counts.h): counts given by
 * hand, as JSON lines, or as perf stat printed them.
 *
 * Counts come as EVENT=COUNT arguments, or on stdin, one line at a time,
 * in any of these forms (lines may mix them; blank and '#' lines skipped):
 *   {"EVENT": COUNT, ...}   tdctl's JSON lines: every line names each of
 *                           the set's events at most once; lines are summed
 *   {..., "counts": {"EVENT": COUNT, ...}, ...}
 *                           tdctl dump --json: a slice per line (--follow)
 *                           or [slice, ...] on one line; slices are summed,
 *                           those of a file with event groups (a "group")
 *                           each told with its group instead (slices.c)
 *   perf stat -j            {"counter-value" : "123.000000", "event" : ...}
 *                           (6.1 and 6.12: tools/perf/util/stat-display.c)
 *   perf stat -x SEP        COUNT SEP UNIT SEP EVENT SEP RUNTIME SEP PCNT...
 *                           after the optional time and aggregation fields
 *   perf stat               "  3,922,334,305      cpu_cycles   # ..."
 * In perf's forms, lines of events outside the set (task-clock, metrics)
 * are skipped and counted; lines of the same event at other CPUs are
 * summed, repeats at the same ones averaged (struct perf_count). perf stat
 * -I lines (an interval time first, or "interval" in JSON) give one result
 * per interval, as toplev -I does (struct decode_ivl). Event names match
 * the set's names (with --level 2 or -M, those of its groups' pool),
 * perf's names for them and their raw encodings (td_tmpl_is), counts any
 * form of base/count.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/count.h"
#include "base/hash.h"
#include "base/json_read.h"
#include "base/str.h"
#include "input/counts.h"
#include "input/input_priv.h"

/*
 * One count of perf's: an event at one aggregation (CPU, core, socket...,
 * or the whole system) in one interval. perf stat -M prints an event once
 * per metric group that needs it (cpu_cycles three times for Arm's
 * TopdownL1), each counted on its own: those are averaged; different
 * CPUs and intervals are summed.
 */
struct perf_count {
	int event;
	int ivl;		/* the interval (struct decode_ivl) */
	char *key;		/* aggregation fields */
	uint64_t sum;
	uint64_t n;
};

/* The event of name (len bytes): its name, one of perf's for it or its
 * encoding.
 */
static int ev_index(const struct decode_in *in, const char *name, size_t len)
{
	for (int i = 0; i < in->nr_ev; i++)
		if (td_tmpl_is(in->ev[i], name, len))
			return i;
	return -1;
}

static int add(struct decode_in *in, int ivl, int i, uint64_t v)
{
	struct decode_ivl *iv = &in->ivl[ivl];

	if (iv->counts[i] + v < iv->counts[i]) {
		p_err("%sthe sum of %s overflows 64 bits", in->where,
		      in->ev[i]->name);
		return -1;
	}
	iv->counts[i] += v;
	iv->seen[i] = true;
	in->seen[i] = true;
	return 0;
}

/*
 * The interval of a line: time is perf stat -I's time (NULL: none). The
 * input has times on every line that gives counts or on none; perf prints
 * its intervals in order. The index, or -1 after p_err().
 */
static int ivl_of(struct decode_in *in, const char *time, size_t len)
{
	struct decode_ivl *last = in->nivl ? &in->ivl[in->nivl - 1] : NULL;

	if (in->timed == !time) {
		p_err("%s%s", in->where, time ?
		      "perf stat -I's interval time after lines without one" :
		      "a count without an interval time among perf stat -I lines");
		return -1;
	}
	in->timed = !!time;
	if (last && (!time || (strlen(last->time) == len &&
			       !strncmp(last->time, time, len))))
		return in->nivl - 1;
	if (time && (len >= IVL_TIME_LEN || strspn(time, "0123456789.") != len ||
		     !memchr(time, '.', len))) {
		p_err("%sinterval time '%.*s' is not perf stat -I's seconds",
		      in->where, (int)len, time);
		return -1;
	}
	if (last && strtod(time, NULL) <= strtod(last->time, NULL)) {
		p_err("%sinterval %.*s s after %s s: perf stat -I prints its intervals in order",
		      in->where, (int)len, time, last->time);
		return -1;
	}
	if (in->nivl == in->ivl_cap) {
		int cap = in->ivl_cap ? 2 * in->ivl_cap : 16;
		struct decode_ivl *n = realloc(in->ivl, cap * sizeof(*n));

		if (!n) {
			p_err("decode: out of memory");
			return -1;
		}
		in->ivl = n;
		in->ivl_cap = cap;
	}
	last = &in->ivl[in->nivl];
	memset(last, 0, sizeof(*last));
	if (time)
		memcpy(last->time, time, len);
	return in->nivl++;
}

static int count_of(struct decode_in *in, const char *name, size_t nlen,
		    const char *val, size_t vlen, uint64_t *v)
{
	char err[256];

	if (td_parse_count(val, vlen, v, err, sizeof(err))) {
		p_err("%scount of %.*s: %s", in->where, (int)nlen, name, err);
		return -1;
	}
	return 0;
}

/* The keys come from stdin: a keyed hash (base/hash.h). */
static size_t key_hash(int event, int ivl, const char *key)
{
	return td_hash2(td_hash_bytes(key, strlen(key)),
			(uint64_t)(uint32_t)event << 32 | (uint32_t)ivl);
}

static int perf_grow(struct decode_in *in)
{
	size_t cap = in->pc_cap ? in->pc_cap * 2 : 64;
	struct perf_count *t = calloc(cap, sizeof(*t));

	if (!t) {
		p_err("decode: out of memory");
		return -1;
	}
	for (size_t i = 0; i < in->pc_cap; i++) {
		struct perf_count *o = &in->pc[i];
		size_t h;

		if (!o->key)
			continue;
		for (h = key_hash(o->event, o->ivl, o->key) & (cap - 1); t[h].key;
		     h = (h + 1) & (cap - 1))
			;
		t[h] = *o;
	}
	free(in->pc);
	in->pc = t;
	in->pc_cap = cap;
	return 0;
}

/* A count of event i from perf, in interval ivl at the aggregation key. */
static int add_perf(struct decode_in *in, int ivl, int i, const char *key,
		    uint64_t v)
{
	struct perf_count *c;
	size_t h;

	if ((in->pc_used + 1) * 2 > in->pc_cap && perf_grow(in))
		return -1;
	for (h = key_hash(i, ivl, key) & (in->pc_cap - 1);; h = (h + 1) &
	     (in->pc_cap - 1)) {
		c = &in->pc[h];
		if (!c->key || (c->event == i && c->ivl == ivl &&
				!strcmp(c->key, key)))
			break;
	}
	if (!c->key) {
		c->key = strdup(key);
		if (!c->key) {
			p_err("decode: out of memory");
			return -1;
		}
		c->event = i;
		c->ivl = ivl;
		in->pc_used++;
	}
	if (c->sum + v < c->sum) {
		p_err("%sthe sum of %s overflows 64 bits", in->where,
		      in->ev[i]->name);
		return -1;
	}
	c->sum += v;
	c->n++;
	in->seen[i] = true;
	in->ivl[ivl].seen[i] = true;
	in->ivl[ivl].lines++;
	return 0;
}

/* perf's counts into their intervals: averaged per key, summed over keys. */
static int perf_total(struct decode_in *in)
{
	int ret = 0;

	for (size_t h = 0; h < in->pc_cap; h++) {
		struct perf_count *c = &in->pc[h];

		if (!c->key)
			continue;
		if (!ret)
			ret = add(in, c->ivl, c->event, c->sum / c->n +
				  (c->sum % c->n >= c->n - c->n / 2));
		free(c->key);
	}
	free(in->pc);
	in->pc = NULL;
	in->pc_cap = 0;
	in->pc_used = 0;
	return ret;
}

/* perf prints these instead of a count it does not have. */
static bool not_counted(const char *v, size_t len)
{
	return (len >= 13 && !strncmp(v, "<not counted>", 13)) ||
	       (len >= 15 && !strncmp(v, "<not supported>", 15));
}

/*
 * perf prints <not counted> for an event that never ran. On a hybrid
 * part that is an event of the other PMU's CPUs, which the task never
 * ran on: its count is 0, as the module's would be. Otherwise the
 * breakdown cannot be had.
 */
static int perf_not_counted(struct decode_in *in, int ivl, int i,
			    const char *key, const char *v, size_t len)
{
	if (strchr(in->ev[i]->name, '/') && len >= 13 &&
	    !strncmp(v, "<not counted>", 13)) {
		in->zeroed[i] = true;
		return add_perf(in, ivl, i, key, 0) ? -1 : 1;
	}
	p_err("%sperf has no count for %s ('%.*s'): the breakdown needs it",
	      in->where, in->ev[i]->name, (int)len, v);
	return -1;
}

/* ---- tdctl's JSON lines ---------------------------------------------- */

struct own_line {
	struct decode_in *in;
	bool seen[TOPDOWN_MAX_POOL];
	uint64_t v[TOPDOWN_MAX_POOL];
	bool has_null;		/* a dump slice with an unreadable count */
};

static int own_member(const struct jr_member *m, void *ctx)
{
	struct own_line *l = ctx;
	struct decode_in *in = l->in;
	int i = ev_index(in, m->key, m->key_len);

	if (i < 0) {
		char *names = decode_in_names(in);

		p_err("%sunknown event '%s' for set %s (its events: %s)",
		      in->where, m->key, in->s->name, decode_named(names));
		free(names);
		return -1;
	}
	if (l->seen[i]) {
		p_err("%sevent %s given twice", in->where, in->ev[i]->name);
		return -1;
	}
	l->seen[i] = true;
	if (m->type == JR_NULL) {
		l->has_null = true;
		return 0;
	}
	if (m->type != JR_NUMBER && m->type != JR_STRING) {
		p_err("%sthe count of %s is not a number", in->where,
		      in->ev[i]->name);
		return -1;
	}
	return count_of(in, m->key, m->key_len, m->val, m->val_len, &l->v[i]);
}

/* The counts of one line ({"EVENT": COUNT, ...}) summed; null (what dump
 * prints for a count that could not be read) leaves the line out.
 * 1, 0 (left out) or -1.
 */
static int own_counts(struct decode_in *in, const char *text, size_t len)
{
	struct own_line own = { .in = in };
	char err[160];
	int ivl, r;

	err[0] = '\0';
	r = json_read_object(text, len, own_member, &own, err, sizeof(err));
	if (r) {
		if (r == -1 && err[0])
			p_err("%s%s", in->where, err);
		return -1;
	}
	if (own.has_null) {
		in->unreadable++;
		return 0;
	}
	ivl = ivl_of(in, NULL, 0);
	if (ivl < 0)
		return -1;
	for (int i = 0; i < in->nr_ev; i++)
		if (own.seen[i] && add(in, ivl, i, own.v[i]))
			return -1;
	in->ivl[ivl].lines++;
	return 1;
}

/* ---- tdctl dump --json -------------------------------------------------- */

struct dump_line {
	struct decode_in *in;
	struct dump_fields f;
};

/* A member that is a number: an unsigned integer. */
static int dump_uint(const struct dump_line *d, const struct jr_member *m,
		     uint64_t *v)
{
	if (m->type != JR_NUMBER || m->val[0] == '-') {
		p_err("%s\"%s\" is not a number", d->in->where, m->key);
		return -1;
	}
	*v = strtoull(m->val, NULL, 10);
	return 0;
}

static int dump_member(const struct jr_member *m, void *ctx)
{
	struct dump_line *d = ctx;
	struct dump_fields *f = &d->f;

	/* the texts live as long as the parse: copied, read after it */
	if (!strcmp(m->key, "counts")) {
		if (m->type != JR_OBJECT || f->counts) {
			p_err("%s\"counts\" is not one object of counts",
			      d->in->where);
			return -1;
		}
		f->counts = strndup(m->val, m->val_len);
		f->counts_len = m->val_len;
		if (!f->counts) {
			p_err("decode: out of memory");
			return -1;
		}
	} else if (!strcmp(m->key, "unreadable")) {
		if (m->type != JR_ARRAY || f->unreadable) {
			p_err("%s\"unreadable\" is not an array of event names",
			      d->in->where);
			return -1;
		}
		f->unreadable = strndup(m->val, m->val_len);
		f->unreadable_len = m->val_len;
		if (!f->unreadable) {
			p_err("decode: out of memory");
			return -1;
		}
	} else if (!strcmp(m->key, "group")) {
		f->has_group = true;
	} else if (!strcmp(m->key, "rotated")) {
		f->rotated = m->type == JR_TRUE;
	} else if (!strcmp(m->key, "cpu")) {
		return dump_uint(d, m, &f->cpu);
	} else if (!strcmp(m->key, "pid")) {
		return dump_uint(d, m, &f->pid);
	} else if (!strcmp(m->key, "tid")) {
		return dump_uint(d, m, &f->tid);
	} else if (!strcmp(m->key, "time_ns")) {
		return dump_uint(d, m, &f->time_ns);
	} else if (!strcmp(m->key, "duration_ns")) {
		return dump_uint(d, m, &f->duration_ns);
	}
	return 0;
}

/*
 * One slice of tdctl dump --json: without groups, its counts summed
 * (own_counts(), a slice with a count not read left out); with groups
 * (a "group"), to slices.c. 0, or -1.
 */
static int dump_slice(const char *text, size_t len, void *ctx)
{
	struct dump_line d = { .in = ctx };
	struct decode_in *in = d.in;
	char err[160];
	int r;

	err[0] = '\0';
	r = json_read_object(text, len, dump_member, &d, err, sizeof(err));
	if (r) {
		if (err[0])
			p_err("%s%s", in->where, err);
	} else if (!d.f.counts) {
		p_err("%sa slice without \"counts\" (tdctl dump --json prints them)",
		      in->where);
		r = -1;
	} else if (!d.f.has_group) {
		r = own_counts(in, d.f.counts, d.f.counts_len);
	} else {
		/* in the one interval, as the summed slices */
		r = ivl_of(in, NULL, 0) < 0 ? -1 :
		    decode_in_group_slice(in, &d.f);
	}
	free((char *)d.f.counts);
	free((char *)d.f.unreadable);
	if (r < 0)
		return -1;
	in->lines += r;
	return 0;
}

/* dump --json without --follow: [slice, ...] on one line. */
static int dump_array(struct decode_in *in, const char *line)
{
	char err[160];

	err[0] = '\0';
	if (json_read_array(line, strlen(line), dump_slice, in, err,
			    sizeof(err))) {
		if (err[0])
			p_err("%s%s", in->where, err);
		return -1;
	}
	return 0;
}

/* ---- perf stat -j ---------------------------------------------------- */

/* One perf stat -j line; the strings are copied out of the parse. */
struct perf_json {
	char event[256], value[64];
	size_t event_len, value_len;
	bool has_event, has_value;
	double pcnt;
	bool is_perf;
	bool has_counts;	/* a dump slice's "counts" object */
	char interval[IVL_TIME_LEN + 1];	/* perf stat -I's time */
	size_t interval_len;
	bool has_interval;
	char key[256];		/* the other members: "cpu=0;" */
};

static size_t copy(char *dst, size_t n, const struct jr_member *m)
{
	int w = snprintf(dst, n, "%.*s", (int)m->val_len, m->val);

	return w < 0 ? 0 : (size_t)w >= n ? n - 1 : (size_t)w;
}

static int perf_member(const struct jr_member *m, void *ctx)
{
	struct perf_json *pj = ctx;

	if (!strcmp(m->key, "counter-value")) {
		pj->is_perf = true;
		pj->has_value = true;
		pj->value_len = copy(pj->value, sizeof(pj->value), m);
	} else if (!strcmp(m->key, "event") && m->type == JR_STRING) {
		pj->has_event = true;
		pj->event_len = copy(pj->event, sizeof(pj->event), m);
	} else if (!strcmp(m->key, "pcnt-running")) {
		pj->pcnt = strtod(m->val, NULL);
	} else if (!strcmp(m->key, "metric-value")) {
		pj->is_perf = true;
	} else if (!strcmp(m->key, "counts") && m->type == JR_OBJECT) {
		pj->has_counts = true;
	} else if (!strcmp(m->key, "interval") && m->type == JR_NUMBER) {
		pj->has_interval = true;
		pj->interval_len = copy(pj->interval, sizeof(pj->interval), m);
	} else if (strcmp(m->key, "unit") && strcmp(m->key, "event-runtime") &&
		   strcmp(m->key, "metric-unit") && strcmp(m->key, "variance")) {
		size_t n = strlen(pj->key);

		snprintf(pj->key + n, sizeof(pj->key) - n, "%s=%.*s;", m->key,
			 (int)m->val_len, m->val);
	}
	return 0;
}

static int json_line(struct decode_in *in, const char *line)
{
	struct perf_json pj = { .pcnt = 100.0 };
	size_t len = strlen(line);
	char err[160];
	uint64_t v;
	int i, ivl;

	/* perf's lines have "counter-value" or "metric-value" keys, dump's
	 * a "counts" object
	 */
	if (json_read_object(line, len, perf_member, &pj, err, sizeof(err))) {
		p_err("%s%s", in->where, err);
		return -1;
	}
	if (pj.has_counts && !pj.is_perf)
		return dump_slice(line, len, in) ? -1 : 0;
	if (!pj.is_perf)
		return own_counts(in, line, len);
	if (!pj.has_event || !pj.has_value)
		return 0;	/* a metric-only line */
	i = ev_index(in, pj.event, pj.event_len);
	if (i < 0) {
		in->skipped++;
		return 0;
	}
	ivl = ivl_of(in, pj.has_interval ? pj.interval : NULL,
		     pj.interval_len);
	if (ivl < 0)
		return -1;
	if (not_counted(pj.value, pj.value_len))
		return perf_not_counted(in, ivl, i, pj.key, pj.value,
					pj.value_len);
	if (count_of(in, pj.event, pj.event_len, pj.value,
		     pj.value_len, &v))
		return -1;
	if (pj.pcnt < 100.0)
		in->scaled = true;
	return add_perf(in, ivl, i, pj.key, v) ? -1 : 1;
}

/* ---- perf stat -x SEP and plain perf stat ---------------------------- */

#define MAX_FIELDS	32

struct field {
	const char *p;
	size_t len;
};

/* How many times c is in f. */
static int count_char(const struct field *f, char c)
{
	int n = 0;

	for (size_t i = 0; i < f->len; i++)
		n += f->p[i] == c;
	return n;
}

static int split_sep(const char *line, const char *sep, struct field *f)
{
	size_t seplen = strlen(sep);
	int n = 0;

	for (;;) {
		const char *e = strstr(line, sep);

		if (n == MAX_FIELDS)
			return n;
		f[n].p = line;
		f[n].len = e ? (size_t)(e - line) : strcspn(line, "\r\n");
		/* perf prints an event given as PMU/TERMS/ as given, the
		 * separator in its terms and all: one field up to the
		 * closing slash.
		 */
		if (e && count_char(&f[n], '/') == 1 &&
		    memchr(f[n].p, '=', f[n].len) > memchr(f[n].p, '/', f[n].len)) {
			const char *close = strchr(e + seplen, '/');
			const char *eol = line + strcspn(line, "\r\n");

			if (close && close < eol) {
				e = strstr(close, sep);
				f[n].len = e ? (size_t)(e - line) :
					   (size_t)(eol - line);
			}
		}
		n++;
		if (!e)
			return n;
		line = e + seplen;
	}
}

static int split_blank(const char *line, struct field *f)
{
	int n = 0;

	while (n < MAX_FIELDS) {
		line += strspn(line, " \t\r\n");
		if (!*line)
			break;
		f[n].p = line;
		f[n].len = strcspn(line, " \t\r\n");
		/* perf's name of a raw event without one: "raw 0x1a4" */
		if (f[n].len == 3 && !strncmp(line, "raw 0x", 6))
			f[n].len = 4 + strcspn(line + 4, " \t\r\n");
		line += f[n].len;
		n++;
	}
	return n;
}

/* perf stat -I's time, the first field: "%lu.%09lu" after blanks, into
 * *t (blanks skipped).
 */
static bool is_time(const struct field *f, struct field *t)
{
	size_t blanks = strspn(f->p, " \t"), dot;

	if (blanks >= f->len)
		return false;
	t->p = f->p + blanks;
	t->len = f->len - blanks;
	dot = strspn(t->p, "0123456789");
	return dot && dot + 1 < t->len && t->p[dot] == '.' &&
	       strspn(t->p + dot + 1, "0123456789") >= t->len - dot - 1;
}

static bool is_pcnt(const struct field *f)
{
	return f->len && f->p[0] >= '0' && f->p[0] <= '9';
}

static bool is_count(const struct field *f)
{
	char err[8];
	uint64_t v;

	return f->len && !td_parse_count(f->p, f->len, &v, err, sizeof(err));
}

/*
 * The count of a perf line is the first field before the event name that
 * is a count: -x puts the unit (text, possibly empty) between them, plain
 * perf stat a unit such as "msec". 0: no event of the set on the line.
 */
static int fields_line(struct decode_in *in, const struct field *f, int n,
		       bool csv)
{
	struct field t;
	char key[256];
	uint64_t v;
	int ev = -1, i = -1, val, ivl, k0, end = -1;

	/* perf -x, does not quote a name with the separator in it
	 * (cpu/EVENT,cmask=0x6/): up to 4 fields may make one name
	 */
	for (int k = 1; k < n && ev < 0; k++) {
		for (int span = csv ? 4 : 1; span >= 1 && ev < 0; span--) {
			const struct field *l = &f[k + span - 1];

			if (k + span > n)
				continue;
			i = ev_index(in, f[k].p, l->p + l->len - f[k].p);
			if (i >= 0) {
				ev = k;
				end = k + span - 1;
			}
		}
	}
	if (ev < 0)
		return 0;
	/* "<not counted>" is one field of -x, two words of plain perf stat */
	for (val = 0; val < ev; val++)
		if (f[val].len >= 4 && !strncmp(f[val].p, "<not", 4))
			break;
	if (val == ev) {
		for (val = ev - 1; val >= 0 && val >= ev - 2; val--)
			if (is_count(&f[val]))
				break;
		if (val < 0 || val < ev - 2) {
			p_err("%sno count before the event %.*s", in->where,
			      (int)f[ev].len, f[ev].p);
			return -1;
		}
	}
	/* the fields before the count: perf stat -I's time, then CPU,
	 * socket...
	 */
	k0 = val > 0 && is_time(&f[0], &t);
	ivl = ivl_of(in, k0 ? t.p : NULL, k0 ? t.len : 0);
	if (ivl < 0)
		return -1;
	key[0] = '\0';
	for (int k = k0; k < val; k++)
		snprintf(key + strlen(key), sizeof(key) - strlen(key), "%.*s;",
			 (int)f[k].len, f[k].p);
	if (!is_count(&f[val])) {
		size_t len = f[ev].p - f[val].p;

		while (len && strchr(" \t", f[val].p[len - 1]))
			len--;
		if (csv && len >= strlen(in->sep))
			len -= strlen(in->sep);
		return perf_not_counted(in, ivl, i, key, f[val].p,
					csv ? f[val].len : len);
	}
	if (count_of(in, f[ev].p, f[ev].len, f[val].p, f[val].len, &v))
		return -1;
	/* -x: EVENT SEP RUNTIME SEP PCNT; plain: "(66.65%)" at the end */
	if (csv && end + 2 < n && is_pcnt(&f[end + 2]) &&
	    strtod(f[end + 2].p, NULL) < 100.0)
		in->scaled = true;
	if (!csv && f[n - 1].len > 2 && f[n - 1].p[0] == '(' &&
	    f[n - 1].p[f[n - 1].len - 1] == ')')
		in->scaled = true;
	return add_perf(in, ivl, i, key, v) ? -1 : 1;
}

static int text_line(struct decode_in *in, const char *line)
{
	struct field f[MAX_FIELDS];
	int n = split_sep(line, in->sep, f), r = 0;

	if (n >= 3)
		r = fields_line(in, f, n, true);
	if (!r) {
		n = split_blank(line, f);
		r = fields_line(in, f, n, false);
	}
	if (!r)
		in->skipped++;
	return r;
}

int decode_in_read(struct decode_in *in)
{
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, ret = 0;

	while (getline(&line, &cap, stdin) >= 0) {
		const char *p = line + strspn(line, " \t\r\n");
		int r;

		lineno++;
		if (!*p || *p == '#')
			continue;
		snprintf(in->where, sizeof(in->where), "stdin line %d: ",
			 lineno);
		r = *p == '{' ? json_line(in, p) : *p == '[' ?
		    dump_array(in, p) : text_line(in, line);
		if (r < 0) {
			ret = -1;
			break;
		}
		in->lines += r;
	}
	free(line);
	in->where[0] = '\0';
	if (perf_total(in))
		ret = -1;
	/* A grouped dump's slices go each to its group, other counts into
	 * every group's sums: the two do not add up.
	 */
	if (!ret && in->slices && in->nivl && in->ivl[0].lines) {
		p_err("decode: the slices of a dump of a file with event groups and other counts on stdin: decode them apart");
		ret = -1;
	}
	if (!ret && !in->lines && in->slices) {
		p_err("decode: none of the %d slices of the dump is one of a group decoded here with every count read (%d of other groups, %d rotated, %d with a count not read)",
		      in->slices, in->other_group, in->rotated,
		      in->unreadable);
		ret = -1;
	} else if (!ret && !in->lines) {
		char *names = decode_in_names(in);

		p_err("decode: no counts of set %s's events (%s) on the command line or stdin%s",
		      in->s->name, decode_named(names), in->skipped ?
		      " (only other events; perf stat -x output with "
		      "another separator than '-x' says?)" : "");
		free(names);
		ret = -1;
	}
	return ret;
}

int decode_in_args(struct decode_in *in, int argc, char **argv)
{
	if (ivl_of(in, NULL, 0) < 0)
		return -1;
	for (int a = 0; a < argc; a++) {
		/* the last '=': an encoding has some ("event=0xa4,...=5") */
		const char *eq = strrchr(argv[a], '=');
		char *names;
		uint64_t v;
		int i;

		if (!eq || eq == argv[a]) {
			p_err("decode: '%s' is not EVENT=COUNT", argv[a]);
			return -1;
		}
		i = ev_index(in, argv[a], eq - argv[a]);
		if (i < 0) {
			names = decode_in_names(in);
			p_err("decode: unknown event '%.*s' for set %s (its events: %s)",
			      (int)(eq - argv[a]), argv[a], in->s->name,
			      decode_named(names));
			free(names);
			return -1;
		}
		if (in->seen[i]) {
			p_err("decode: event %s given twice", in->ev[i]->name);
			return -1;
		}
		if (count_of(in, argv[a], eq - argv[a], eq + 1, strlen(eq + 1),
			     &v) || add(in, 0, i, v))
			return -1;
	}
	return 0;
}

void decode_in_free(struct decode_in *in)
{
	for (size_t h = 0; h < in->pc_cap; h++)
		free(in->pc[h].key);
	free(in->pc);
	free(in->ivl);
	decode_in_free_names(in);
}
