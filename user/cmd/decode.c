// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl decode - the TopDown breakdown of counts given by hand, as JSON
 * lines, or as perf stat printed them, to check numbers from another tool.
 *
 * Counts come as EVENT=COUNT arguments, or on stdin, one line at a time,
 * in any of these forms (lines may mix them; blank and '#' lines skipped):
 *   {"EVENT": COUNT, ...}   tdctl's JSON lines: every line names each of
 *                           the set's events at most once; lines are summed
 *   {..., "counts": {"EVENT": COUNT, ...}, ...}
 *                           tdctl dump --json: a slice per line (--follow)
 *                           or [slice, ...] on one line; slices are summed
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/count.h"
#include "base/hash.h"
#include "base/json_read.h"
#include "base/str.h"
#include "cli/tdctl.h"
#include "evset/sets.h"
#include "output/emit.h"
#include "output/vocab.h"

const struct td_opt decode_opts[] = {
	{ "set", 's', 's', TD_ARG_SET, "NAME", "the event set", 0 },
	{ "level", 0, 'L', TD_ARG_NUM, "N",
	  "1 (default) or 2: the set's Level 2 groups too", 0 },
	{ "metrics", 'M', 'M', TD_ARG_WORD, "GROUP[,GROUP..]",
	  "perf's metric groups (perf stat -M): the set's groups for them", 0 },
	{ "slots", 'S', 'S', TD_ARG_NUM, "N", "slot width", 0 },
	{ "revision", 'r', 'r', TD_ARG_WORD, "rXpY", "CPU revision", 0 },
	{ "field-separator", 'x', 'x', TD_ARG_WORD, "SEP",
	  "stdin is perf stat -x SEP output (default ,)", 0 },
	TD_OPT_OUTPUT,
	TD_OPT_HELP,
	TD_OPT_END,
};

#define MAX_NOTES	12

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

/* perf stat -I prints its time first as %lu.%09lu: room for it. */
#define IVL_TIME_LEN	32

/* The counts of one interval of perf stat -I, or of the whole input. */
struct decode_ivl {
	char time[IVL_TIME_LEN];	/* perf's text; "" without -I */
	uint64_t counts[TOPDOWN_MAX_POOL];
	bool seen[TOPDOWN_MAX_POOL];
	int lines;			/* lines that gave counts */
};

struct decode_in {
	const struct td_set *s;
	int level;		/* --level (0: 1) */
	const char *mg;		/* -M GROUP[,GROUP..], or NULL */
	/* the events: the set's, or the pool of its groups */
	int nr_ev;
	const struct td_ev_tmpl *ev[TOPDOWN_MAX_POOL];
	struct perf_count *pc;	/* hash table, open addressing */
	size_t pc_cap, pc_used;
	struct decode_ivl *ivl;	/* one, or one per perf stat -I interval */
	int nivl, ivl_cap;
	int timed;		/* -1 not yet known, 0 no times, 1 -I times */
	bool seen[TOPDOWN_MAX_POOL];	/* in any interval */
	char sep[16];		/* perf stat -x separator */
	int lines;		/* lines that gave counts */
	int skipped;		/* perf lines of other events */
	int unreadable;		/* dump slices with a null count */
	bool scaled;		/* perf scaled a count (multiplexing) */
	bool zeroed[TOPDOWN_MAX_POOL];	/* <not counted> taken as 0 */
	char where[64];		/* "stdin line N: " */
};

static const char decode_desc[] =
	"TopDown breakdown of the given counts with the formula of event set\n"
	"NAME (see 'tdctl list'); with --level 2 or -M, of its groups below\n"
	"Level 1 too, each metric under tdctl's and perf's name. Counts are\n"
	"EVENT=COUNT arguments or, without them, lines on stdin: tdctl's JSON lines ({\"EVENT\": COUNT, ...} or\n"
	"'tdctl dump --json' slices, summed), or perf stat output as printed:\n"
	"'perf stat -j', 'perf stat -x SEP' (give the same -x here; ',' by\n"
	"default) or plain 'perf stat'; with perf stat -I, one result per\n"
	"interval. EVENT is the set's name or perf's name for it, in any case,\n"
	"with or without a PMU ('cpu_core/topdown.slots_p/'), or its raw\n"
	"encoding as 'tdctl list' shows it or perf prints it ('r01a4',\n"
	"'cpu/event=0xa4,umask=0x01/'); COUNT may have digit groups, a\n"
	"fraction or an exponent (1,000,000  1e6  1000000.0). Only the counts\n"
	"the formula needs are required. The output names the formula and\n"
	"every assumption it made (slot width, revision).\n";

/* A list for a message, whole (td_str_add()): malloc()ed, NULL if out of
 * memory. named(list) is what the message shows.
 */
static char *set_names(const struct decode_in *in)
{
	char *list = NULL;

	for (int i = 0; i < in->nr_ev; i++)
		if (!td_str_add(&list, "%s%s", i ? ", " : "", in->ev[i]->name)) {
			free(list);
			return NULL;
		}
	return list;
}

static const char *named(const char *list)
{
	return list ? list : "(out of memory)";
}

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

static char *all_set_names(void)
{
	char *list = NULL;

	for (int i = 0; i < td_nr_sets; i++)
		if (!td_str_add(&list, "%s%s", i ? ", " : "",
				td_sets[i]->name)) {
			free(list);
			return NULL;
		}
	return list;
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
		char *names = set_names(in);

		p_err("%sunknown event '%s' for set %s (its events: %s)",
		      in->where, m->key, in->s->name, named(names));
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
	int ret;		/* own_counts() of "counts" */
	bool has_counts;
};

static int dump_member(const struct jr_member *m, void *ctx)
{
	struct dump_line *d = ctx;

	if (strcmp(m->key, "counts"))
		return 0;
	if (m->type != JR_OBJECT || d->has_counts) {
		p_err("%s\"counts\" is not one object of counts", d->in->where);
		return -1;
	}
	d->has_counts = true;
	d->ret = own_counts(d->in, m->val, m->val_len);
	return d->ret < 0 ? -1 : 0;
}

/* One slice of tdctl dump --json: 1 if it gave counts, 0, or -1. */
static int dump_slice(const char *text, size_t len, void *ctx)
{
	struct dump_line d = { .in = ctx };
	char err[160];

	err[0] = '\0';
	if (json_read_object(text, len, dump_member, &d, err, sizeof(err))) {
		if (err[0])
			p_err("%s%s", d.in->where, err);
		return -1;
	}
	if (!d.has_counts) {
		p_err("%sa slice without \"counts\" (tdctl dump --json prints them)",
		      d.in->where);
		return -1;
	}
	d.in->lines += d.ret;
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

static int read_stdin(struct decode_in *in)
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
	if (!ret && !in->lines) {
		char *names = set_names(in);

		p_err("decode: no counts of set %s's events (%s) on the command line or stdin%s",
		      in->s->name, named(names), in->skipped ?
		      " (only other events; perf stat -x output with "
		      "another separator than '-x' says?)" : "");
		free(names);
		ret = -1;
	}
	return ret;
}

static int args(struct decode_in *in, int argc, char **argv)
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
			names = set_names(in);
			p_err("decode: unknown event '%.*s' for set %s (its events: %s)",
			      (int)(eq - argv[a]), argv[a], in->s->name,
			      named(names));
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

/* ---- what ran --------------------------------------------------------- */

struct notes {
	int n;
	char *s[MAX_NOTES];	/* malloc()ed: whole, whatever they list */
};

static void note(struct notes *nt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct notes *nt, const char *fmt, ...)
{
	va_list ap;

	if (nt->n >= MAX_NOTES)
		return;
	va_start(ap, fmt);
	if (vasprintf(&nt->s[nt->n], fmt, ap) >= 0)
		nt->n++;
	va_end(ap);
}

static void notes_free(struct notes *nt)
{
	for (int i = 0; i < nt->n; i++)
		free(nt->s[i]);
	nt->n = 0;
}

/* Every assumption behind the numbers, and how to choose otherwise. */
static void assumptions(const struct decode_in *in, const struct td_decoder *d,
			bool slots_given, bool rev_given, struct notes *nt)
{
	const struct td_set *s = in->s;
	char rev[16], fixed[16];

	if (s->def_slots)
		note(nt, slots_given ? "slot width %u (--slots)" :
		     "slot width %u, the set's default (give the CPU's with --slots N; "
		     "'tdctl list' shows a live machine's)", d->slots);
	if (s->has_rev) {
		bool on = d->revision < s->rev_fixed;

		td_format_revision(d->revision, rev, sizeof(rev));
		td_format_revision(s->rev_fixed, fixed, sizeof(fixed));
		note(nt,
		     "revision %s%s: erratum correction %s (%s; --revision %s or later turns it off)",
		     rev, rev_given ? "" : " assumed, no --revision",
		     on ? "ON" : "off", s->rev_rule, fixed);
	}
	for (int i = 0; i < in->nr_ev; i++)
		if (!in->seen[i] && in->ev[i]->optional)
			note(nt,
			     "no count for %s: the metrics that need it are left out",
			     in->ev[i]->name);
	for (int i = 0; i < in->nr_ev; i++)
		if (in->zeroed[i])
			note(nt,
			     "perf did not count %s (<not counted>): taken as 0, "
			     "the task did not run on that PMU's CPUs",
			     in->ev[i]->name);
	if (in->scaled)
		note(nt,
		     "perf scaled some counts (the counter ran part of the time): "
		     "the ratios assume the events behaved alike while not counted");
	if (in->unreadable)
		note(nt,
		     "%d dump slice%s with a count that could not be read (null) left out",
		     in->unreadable, in->unreadable == 1 ? "" : "s");
}

/* One metric decoded, in the order of the hierarchy. */
struct out_metric {
	const struct td_metric_info *info;
	struct td_metric m;
	int depth;
};

/* One result: the metrics of interval k (of all the input without -I),
 * each group's from the counts of its own events.
 */
struct result {
	const struct decode_ivl *ivl;
	int n;
	struct out_metric m[TD_MAX_TREE];
};

/* The decoder of the groups chosen and the order of their metrics. */
struct decoded {
	struct td_gdecoder gd;
	int nr_tree;
	struct td_tree_node tree[TD_MAX_TREE];
};

/* The metrics of one interval's counts, in the order of the tree. */
static void decode_result(const struct decoded *dd, const struct decode_ivl *iv,
			  struct result *r)
{
	r->ivl = iv;
	r->n = 0;
	for (int i = 0; i < dd->nr_tree && i < TD_MAX_TREE; i++) {
		const struct td_tree_node *t = &dd->tree[i];
		const struct td_gd_group *gg = &dd->gd.g[t->group];
		uint64_t delta[TOPDOWN_MAX_EVENTS] = { 0 };
		struct td_metrics m;

		for (int j = 0; j < gg->nr_events; j++)
			delta[j] = iv->counts[gg->pool[j]];
		td_gdecode(&dd->gd, t->group, delta, &m);
		if (t->index >= m.n)
			continue;
		r->m[r->n].info = t->info;
		r->m[r->n].m = m.m[t->index];
		r->m[r->n].depth = t->depth;
		r->n++;
	}
}

/* The largest Level-1 class of r (the bottleneck mark '*'), or -1. */
static int bottleneck(const struct result *r)
{
	int best = -1;

	for (int i = 0; i < r->n; i++) {
		const struct td_metric *x = &r->m[i].m;
		const struct td_voc *v = td_voc_find(x->name);

		if (v && (v->flags & TD_VOC_BOTTLENECK) && x->valid &&
		    (best < 0 || x->value > r->m[best].m.value))
			best = i;
	}
	return best;
}

/* "metrics" (null when not computable), "perf_metrics" (the same values
 * under perf's names, for the metrics perf has) and "flagged" of r.
 */
static void json_metrics(json_writer_t *w, const struct result *r)
{
	jsonw_name(w, "metrics");
	jsonw_start_object(w);
	for (int i = 0; i < r->n; i++) {
		const struct td_metric *x = &r->m[i].m;

		if (x->valid)
			jsonw_float_field(w, x->name, x->value);
		else
			jsonw_null_field(w, x->name);
	}
	jsonw_end_object(w);
	jsonw_name(w, "perf_metrics");
	jsonw_start_object(w);
	for (int i = 0; i < r->n; i++) {
		const struct td_metric *x = &r->m[i].m;
		const char *pn = r->m[i].info ? r->m[i].info->perf_name : NULL;

		if (!pn)
			continue;
		if (x->valid)
			jsonw_float_field(w, pn, x->value);
		else
			jsonw_null_field(w, pn);
	}
	jsonw_end_object(w);
	jsonw_name(w, "flagged");
	jsonw_start_array(w);
	for (int i = 0; i < r->n; i++)
		if (r->m[i].m.flagged)
			jsonw_string(w, r->m[i].m.name);
	jsonw_end_array(w);
}

/* JSON with groups: "groups", each with its name, id and formula. */
static void json_groups(json_writer_t *w, const struct td_gdecoder *gd)
{
	struct td_group_desc g;

	if (!gd->grouped)
		return;
	jsonw_name(w, "groups");
	jsonw_start_array(w);
	for (int i = 0; i < gd->nr_groups; i++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "name", gd->g[i].name);
		jsonw_string_field(w, "id", gd->g[i].id);
		for (int k = 0; !td_set_group(gd->set, k, &g); k++)
			if (!strcmp(g.id, gd->g[i].id))
				jsonw_string_field(w, "formula", g.formula);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

/* JSON of perf stat -I input: "intervals": [{"time_s", "lines",
 * "metrics": {...}, "perf_metrics": {...}, "flagged": [...]}, ...].
 */
static void json_intervals(json_writer_t *w, const struct result *r, int nr)
{
	jsonw_name(w, "intervals");
	jsonw_start_array(w);
	for (int k = 0; k < nr; k++) {
		jsonw_start_object(w);
		/* perf's text: digits, a point, digits */
		jsonw_name(w, "time_s");
		jsonw_raw_value(w, r[k].ivl->time, strlen(r[k].ivl->time));
		jsonw_uint_field(w, "lines", r[k].ivl->lines);
		json_metrics(w, &r[k]);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

/*
 * JSON and CSV through the row emitter: set, label, lines (null without
 * stdin), the metrics (null when not computable), flagged (the metrics
 * outside 0..100%), formula and assumptions; lists are JSON arrays, and
 * in CSV one field ("flagged" space-separated, "assumptions"
 * "; "-separated). JSON also has the groups decoded, the metrics under
 * perf's names, and how many lines of other events were skipped. With
 * perf stat -I input: in CSV a row per interval, with its time_s after
 * the label and its own lines; in JSON one object whose "intervals"
 * (json_intervals()) replace "metrics", "perf_metrics" and "flagged".
 */
enum {
	DF_SET, DF_LABEL, DF_TIME, DF_LINES, DF_FLAGGED, DF_FORMULA, DF_ASSUME,
	DF_SKIPPED, DF_NR
};

static void decode_rows(const struct decoded *dd, const char *label,
			const struct result *r, int nr,
			const struct decode_in *in, const struct notes *nt)
{
	static const struct td_field f[DF_NR] = {
		[DF_SET] = { .name = "set", .in = TD_IN_JSON | TD_IN_CSV },
		[DF_LABEL] = { .name = "label", .in = TD_IN_JSON | TD_IN_CSV },
		[DF_TIME] = { .name = "time_s", .in = TD_IN_CSV },
		[DF_LINES] = { .name = "lines", .in = TD_IN_JSON | TD_IN_CSV },
		[DF_FLAGGED] = { .name = "flagged", .in = TD_IN_CSV },
		[DF_FORMULA] = { .name = "formula", .in = TD_IN_JSON | TD_IN_CSV },
		[DF_ASSUME] = { .name = "assumptions", .in = TD_IN_CSV },
		[DF_SKIPPED] = { .name = "skipped_lines", .in = TD_IN_JSON },
	};
	const struct result *r0 = &r[0];
	struct td_field hdr[DF_NR + TD_MAX_TREE], mf[TD_MAX_TREE];
	char flagged[TD_MAX_TREE * (TOPDOWN_NAME_LEN + 1) + 1];
	char *as = NULL;
	bool timed = in->timed > 0;
	json_writer_t *w;
	struct td_emit e;
	int n = 0;

	for (int i = 0; i < r0->n; i++)
		mf[i] = (struct td_field){ .name = r0->m[i].m.name,
					   .group = "metrics",
					   .in = TD_IN_CSV };
	/* The CSV header: the fields in row order. */
	for (int i = DF_SET; i <= DF_LINES; i++)
		if (i != DF_TIME || timed)
			hdr[n++] = f[i];
	for (int i = 0; i < r0->n; i++)
		hdr[n++] = mf[i];
	for (int i = DF_FLAGGED; i < DF_NR; i++)
		hdr[n++] = f[i];
	for (int i = 0; i < nt->n; i++)
		if (!td_str_add(&as, "%s%s", i ? "; " : "", nt->s[i]))
			break;

	td_emit_init(&e, stdout);
	td_emit_header(&e, hdr, n, NULL);
	for (int k = 0; k < nr; k++) {
		const struct result *m = &r[k];

		td_emit_begin(&e, NULL, NULL);
		td_emit_str(&e, &f[DF_SET], dd->gd.set, SIZE_MAX);
		td_emit_str(&e, &f[DF_LABEL], label, SIZE_MAX);
		if (timed)
			td_emit_word(&e, &f[DF_TIME], r[k].ivl->time);
		if (timed && e.fmt == TD_EMIT_CSV)
			td_emit_uint(&e, &f[DF_LINES],
				     (uint64_t)r[k].ivl->lines);
		else if (in->lines)
			td_emit_uint(&e, &f[DF_LINES], (uint64_t)in->lines);
		else
			td_emit_null(&e, &f[DF_LINES]);
		w = td_emit_json(&e);
		if (w) {
			json_groups(w, &dd->gd);
			/* perf stat -I: every interval in this one object */
			if (timed)
				json_intervals(w, r, nr);
			else
				json_metrics(w, m);
		} else {
			for (int i = 0; i < m->n && i < r0->n; i++)
				td_emit_float(&e, &mf[i], m->m[i].m.value,
					      m->m[i].m.valid);
			flagged[0] = '\0';
			for (int i = 0; i < m->n; i++)
				if (m->m[i].m.flagged)
					snprintf(flagged + strlen(flagged),
						 sizeof(flagged) - strlen(flagged),
						 "%s%s", *flagged ? " " : "",
						 m->m[i].m.name);
			td_emit_str(&e, &f[DF_FLAGGED], flagged, SIZE_MAX);
		}
		td_emit_str(&e, &f[DF_FORMULA], in->s->formula, SIZE_MAX);
		td_emit_str(&e, &f[DF_ASSUME], as ? as : "", SIZE_MAX);
		w = td_emit_json(&e);
		if (w) {
			jsonw_name(w, "assumptions");
			jsonw_start_array(w);
			for (int i = 0; i < nt->n; i++)
				jsonw_string(w, nt->s[i]);
			jsonw_end_array(w);
		}
		td_emit_uint(&e, &f[DF_SKIPPED], (uint64_t)in->skipped);
		td_emit_end(&e);
		if (e.fmt == TD_EMIT_JSON)
			break;		/* one object */
	}
	free(as);
}

/* A metric's value as the plain output shows it, with the vocabulary's
 * decimals (output/vocab.h); *flagged, *invalid set.
 */
static void plain_value(char *buf, size_t n, const struct td_metric *x,
			bool *flagged, bool *invalid)
{
	if (!x->valid) {
		snprintf(buf, n, "n/a");
		*invalid = true;
	} else if (td_metric_is_fraction(x->name)) {
		snprintf(buf, n, "%.1f%%", x->value * 100.0);
	} else {
		snprintf(buf, n, "%.*f", td_voc_prec(x->name), x->value);
	}
	if (x->flagged)
		*flagged = true;
}

/* perf stat -I input: a row per interval, its time first (toplev -I);
 * after a value '!' (outside 0..100%) or '*' (the interval's bottleneck).
 * True if a '*' was shown.
 */
static bool plain_intervals(const struct result *r, int nr, bool *flagged,
			    bool *invalid)
{
	const struct result *r0 = &r[0];
	int w[TD_MAX_TREE];
	bool marked = false;
	char v[64];

	printf("%16s", "time_s");
	for (int i = 0; i < r0->n; i++) {
		w[i] = (int)strlen(r0->m[i].m.name);
		if (w[i] < 8)
			w[i] = 8;
		printf("  %*s%s", w[i], r0->m[i].m.name,
		       i + 1 < r0->n ? " " : "");
	}
	printf("\n");
	for (int k = 0; k < nr; k++) {
		const struct result *m = &r[k];
		int best = bottleneck(m);

		printf("%16s", r[k].ivl->time);
		for (int i = 0; i < m->n && i < r0->n; i++) {
			const struct td_metric *x = &m->m[i].m;

			plain_value(v, sizeof(v), x, flagged, invalid);
			printf("  %*s%s", w[i], v, x->flagged ? "!" :
			       i == best ? "*" : i + 1 < m->n ? " " : "");
			marked |= i == best && !x->flagged;
		}
		printf("\n");
	}
	return marked;
}

/* The metrics one per line, by name (as perf stat prints its metrics),
 * in the order of the hierarchy (children indented under their class),
 * with the vocabulary's decimals (output/vocab.h); after the value '!'
 * for a fraction outside 0..100% and '*' for the largest Level-1 class,
 * perf's name of the metric with groups, and the legend of the marks, as
 * under every table. perf stat -I input: a row per interval
 * (plain_intervals()).
 */
static void decode_plain(const struct decoded *dd, const char *label,
			 const struct result *r, int nr,
			 const struct decode_in *in, const struct notes *nt)
{
	const struct td_gdecoder *gd = &dd->gd;
	bool flagged = false, invalid = false;
	struct td_group_desc g;
	int best = -1;
	char v[64];

	printf("set %s (%s)", gd->set, label);
	if (in->timed > 0)
		printf(", %d interval%s of perf stat -I (%d input lines)", nr,
		       nr == 1 ? "" : "s", in->lines);
	else if (in->lines)
		printf(", %d input line%s summed", in->lines,
		       in->lines == 1 ? "" : "s");
	if (in->skipped)
		printf(", %d line%s of other events skipped", in->skipped,
		       in->skipped == 1 ? "" : "s");
	printf("\n");
	if (!r[0].n)
		printf("  no TopDown metrics for this set\n");
	else if (in->timed > 0)
		best = plain_intervals(r, nr, &flagged, &invalid) ? 0 : -1;
	else
		best = bottleneck(&r[0]);
	for (int i = 0; in->timed <= 0 && i < r[0].n; i++) {
		const struct td_metric *x = &r[0].m[i].m;
		const struct td_metric_info *mi = r[0].m[i].info;
		int depth = r[0].m[i].depth;

		plain_value(v, sizeof(v), x, &flagged, &invalid);
		printf("  %*s%-*s %8s", 2 * depth, "", 24 - 2 * depth, x->name,
		       v);
		if (x->flagged)
			printf("  !");
		if (i == best)
			printf("  *");
		if (gd->grouped && mi && mi->perf_name)
			printf("%s  perf: %s", x->flagged || i == best ? "" : "   ",
			       mi->perf_name);
		printf("\n");
	}
	if (best >= 0)
		printf("%s\n", TD_VOC_LEGEND_MARK);
	if (flagged)
		printf("%s\n", TD_VOC_LEGEND_FLAG);
	if (invalid)
		printf("n/a: not computable from these counts (zero denominator)\n");
	printf("formula: %s\n", in->s->formula);
	for (int i = 1; gd->grouped && i < gd->nr_groups; i++)
		for (int k = 0; !td_set_group(gd->set, k, &g); k++)
			if (!strcmp(g.id, gd->g[i].id))
				printf("group %s: %s\n", g.name, g.formula);
	for (int i = 0; i < nt->n; i++)
		printf("assumes: %s\n", nt->s[i]);
}

/*
 * The events of the selection: the set's Level 1 events, or the pool of
 * the groups it takes (group 0's events first) and their composition.
 */
static int choose_events(struct decode_in *in, int level, const char *mg,
			 struct topdown_group *groups, int *nr_groups,
			 char *ids, size_t idlen)
{
	struct td_select sel = { .level = level, .metric_groups = mg };
	bool want[TOPDOWN_MAX_GROUPS];
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
		return 0;
	}
	for (int g = 0; g < in->s->nr_groups; g++) {
		const struct td_grp *grp = &in->s->groups[g];
		struct topdown_group *tg;

		if (!want[g])
			continue;
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

/* Does one of the groups (without groups: the set) need pool event i? */
static bool needed(const struct decode_in *in, const struct topdown_group *g,
		   int nr_groups, const char *ids, int i)
{
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

/* Leave out the groups missing a count they need; error if none is left. */
static int drop_groups(struct decode_in *in, struct topdown_group *g,
		       int *nr_groups, char *ids, size_t idlen,
		       struct notes *nt)
{
	char kept[64] = "", *missing;
	int n = 0;

	for (int k = 0; k < *nr_groups; k++) {
		const struct td_grp *grp = group_of(in, ids, k);
		bool lacks = false, whole = true;

		missing = NULL;
		for (uint32_t j = 0; j < g[k].nr_events; j++) {
			int e = g[k].events[j];

			if (in->seen[e] || grp->ev[j].optional)
				continue;
			if (whole)
				whole = td_str_add(&missing, "%s%s",
						   lacks ? ", " : "",
						   in->ev[e]->name);
			lacks = true;
		}
		if (lacks) {
			note(nt, "no counts for group %s (%s): its metrics are left out",
			     grp->name, named(whole ? missing : NULL));
			free(missing);
			continue;
		}
		snprintf(kept + strlen(kept), sizeof(kept) - strlen(kept),
			 "%s%s", *kept ? "," : "", grp->id);
		g[n++] = g[k];
	}
	if (!n) {
		missing = set_names(in);
		p_err("decode: no group of set %s has all its counts (its events: %s)",
		      in->s->name, named(missing));
		free(missing);
		return -1;
	}
	*nr_groups = n;
	snprintf(ids, idlen, "%s", kept);
	return 0;
}

/* Does interval iv lack a count the formulas of the groups g (without
 * groups: the set's) need? *list is then those events (malloc()ed; NULL
 * if out of memory).
 */
static bool missing(const struct decode_in *in, const struct decode_ivl *iv,
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

static void decode_in_free(struct decode_in *in)
{
	for (size_t h = 0; h < in->pc_cap; h++)
		free(in->pc[h].key);
	free(in->pc);
	free(in->ivl);
}

/*
 * Decode the counts of in (its set, --level, -M and separator set) given
 * as EVENT=COUNT arguments argv[0..argc), or without them read from
 * stdin, and print the result. What do_decode() runs once the options
 * are read, and the fuzz target (selftests/fuzz/fuzz_decode.c). 0, or -1
 * after p_err().
 */
static int decode_run(struct decode_in *in, const char *slots,
		      const char *rev, int argc, char **argv)
{
	char names[TOPDOWN_MAX_POOL][TOPDOWN_NAME_LEN];
	char label[TOPDOWN_LABEL_LEN + 64], err[512], ids[64];
	struct topdown_group groups[TOPDOWN_MAX_GROUPS];
	struct decoded *dd = NULL;
	struct result *res = NULL;
	struct notes nt = { 0 };
	struct td_decoder d;
	int n, ret = -1, nr_groups;

	if (choose_events(in, in->level ? in->level : 1, in->mg, groups,
			  &nr_groups, ids, sizeof(ids)))
		goto out;
	n = snprintf(label, sizeof(label), "set=%s%s%s%s%s%s%s", in->s->name,
		     slots ? " slots=" : "", slots ? slots : "",
		     rev ? " rev=" : "", rev ? rev : "",
		     nr_groups ? " g=" : "", ids);
	if (n < 0 || n >= TOPDOWN_LABEL_LEN) {
		p_err("decode: --slots/--revision too long");
		goto out;
	}
	dd = calloc(1, sizeof(*dd));
	if (!dd) {
		p_err("decode: out of memory");
		goto out;
	}
	/* The label's checks first: a bad --slots/--revision is reported
	 * before any count is read.
	 */
	memset(names, 0, sizeof(names));
	for (int i = 0; i < in->nr_ev; i++)
		snprintf(names[i], sizeof(names[i]), "%s", in->ev[i]->name);
	if (td_gdecoder_build(&dd->gd, label, (const char (*)[32])names,
			      in->nr_ev, nr_groups ? groups : NULL, nr_groups,
			      false, err, sizeof(err))) {
		p_err("decode: %s", err);
		goto out;
	}

	if (argc && args(in, argc, argv))
		goto out;
	td_parsing_options = false;	/* stdin's lines are input */
	if (!argc && read_stdin(in))
		goto out;

	/* With groups, a group without the counts it needs is left out
	 * (perf stat -M DTLB_Effectiveness has no Level 1 counts), said so.
	 */
	if (nr_groups && drop_groups(in, groups, &nr_groups, ids, sizeof(ids),
				     &nt))
		goto out;
	if (nr_groups)
		snprintf(strstr(label, " g=") + 3,
			 sizeof(label) - (strstr(label, " g=") + 3 - label),
			 "%s", ids);
	/* Only what the formulas read is required, in every interval. */
	for (int k = 0; k < in->nivl; k++) {
		char *list;

		if (!missing(in, &in->ivl[k], groups, nr_groups, ids, &list))
			continue;
		if (in->timed > 0)
			p_err("decode: missing counts for set %s in interval %s s: %s",
			      in->s->name, in->ivl[k].time, named(list));
		else
			p_err("decode: missing counts for set %s: %s",
			      in->s->name, named(list));
		free(list);
		goto out;
	}
	for (int i = 0; i < in->nr_ev; i++)
		if (!in->seen[i])
			names[i][0] = '\0';
	if (td_gdecoder_build(&dd->gd, label, (const char (*)[32])names,
			      in->nr_ev, nr_groups ? groups : NULL, nr_groups,
			      true, err, sizeof(err))) {
		p_err("decode: %s", err);
		goto out;
	}
	dd->nr_tree = td_gdecoder_tree(&dd->gd, dd->tree, TD_MAX_TREE);
	res = calloc(in->nivl, sizeof(*res));
	if (!res) {
		p_err("decode: out of memory");
		goto out;
	}
	for (int k = 0; k < in->nivl; k++)
		decode_result(dd, &in->ivl[k], &res[k]);
	d = dd->gd.g[0].dec;
	assumptions(in, &d, slots, rev, &nt);
	if (json_output || csv_output)
		decode_rows(dd, label, res, in->nivl, in, &nt);
	else
		decode_plain(dd, label, res, in->nivl, in, &nt);
	ret = 0;
out:
	notes_free(&nt);
	free(res);
	free(dd);
	decode_in_free(in);
	return ret;
}

int do_decode(int argc, char **argv)
{
	const char *setname = NULL, *slots = NULL, *rev = NULL;
	struct decode_in in = { .sep = ",", .timed = -1 };
	unsigned long long level = 1;
	struct td_getopt g;
	char *sets;
	int opt;

	td_getopt_build(&g, "decode", decode_desc);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0) {
		switch (opt) {
		case 's':
			setname = optarg;
			break;
		case 'S':
			slots = optarg;
			break;
		case 'r':
			rev = optarg;
			break;
		case 'L':
			if (parse_u64("--level", optarg, 2, &level))
				return -1;
			break;
		case 'M':
			in.mg = optarg;
			break;
		case 'x':
			if (!*optarg || strlen(optarg) >= sizeof(in.sep)) {
				p_err("decode: -x needs a separator of 1 to %zu characters",
				      sizeof(in.sep) - 1);
				return -1;
			}
			snprintf(in.sep, sizeof(in.sep), "%s", optarg);
			break;
		}
	}
	opt = td_getopt_end(opt, argc, argv, true);
	if (opt <= 0)
		return opt;
	/* The set, its label and the EVENT=COUNT operands are the command
	 * line: what is wrong with them is a usage error (stdin's lines are
	 * input, checked below).
	 */
	td_parsing_options = true;
	if (!setname) {
		sets = all_set_names();
		p_err("decode: --set NAME is required (one of: %s)",
		      named(sets));
		free(sets);
		return -1;
	}
	in.s = td_set_find(setname);
	if (!in.s) {
		sets = all_set_names();
		p_err("decode: unknown event set '%s' (known: %s)", setname,
		      named(sets));
		free(sets);
		return -1;
	}
	in.level = (int)level;
	return decode_run(&in, slots, rev, argc - optind, argv + optind);
}
