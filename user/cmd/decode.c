// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl decode - the TopDown breakdown of counts given by hand, as JSON
 * lines, or as perf stat printed them, to check numbers from another tool.
 *
 * Counts come as EVENT=COUNT arguments, or on stdin, one line at a time,
 * in any of these forms (lines may mix them; blank and '#' lines skipped):
 *   {"EVENT": COUNT, ...}   tdctl's JSON lines: every line names each of
 *                           the set's events at most once; lines are summed
 *   perf stat -j            {"counter-value" : "123.000000", "event" : ...}
 *                           (6.1 and 6.12: tools/perf/util/stat-display.c)
 *   perf stat -x SEP        COUNT SEP UNIT SEP EVENT SEP RUNTIME SEP PCNT...
 *                           after the optional time and aggregation fields
 *   perf stat               "  3,922,334,305      cpu_cycles   # ..."
 * In perf's forms, lines of events outside the set (task-clock, metrics)
 * are skipped and counted; lines of the same event at other CPUs or
 * intervals are summed, repeats at the same ones averaged (struct
 * perf_count). Event names match the set's names and perf's names for
 * them (td_set_event_index), counts any form of base/count.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/count.h"
#include "base/json_read.h"
#include "cli/tdctl.h"
#include "evset/sets.h"
#include "output/emit.h"
#include "output/vocab.h"

const struct td_opt decode_opts[] = {
	{ "set", 's', 's', TD_ARG_SET, "NAME", "the event set", 0 },
	{ "slots", 'S', 'S', TD_ARG_NUM, "N", "slot width", 0 },
	{ "revision", 'r', 'r', TD_ARG_WORD, "rXpY", "CPU revision", 0 },
	{ "field-separator", 'x', 'x', TD_ARG_WORD, "SEP",
	  "stdin is perf stat -x SEP output (default ,)", 0 },
	TD_OPT_OUTPUT,
	TD_OPT_HELP,
	TD_OPT_END,
};

#define MAX_NOTES	8
#define NOTE_LEN	200

/*
 * One count of perf's: an event at one aggregation (CPU, core, socket...,
 * or the whole system) in one interval. perf stat -M prints an event once
 * per metric group that needs it (cpu_cycles three times for Arm's
 * TopdownL1), each counted on its own: those are averaged; different
 * CPUs and intervals are summed.
 */
struct perf_count {
	int event;
	char *key;		/* interval and aggregation fields */
	uint64_t sum;
	uint64_t n;
};

struct decode_in {
	const struct td_set *s;
	struct perf_count *pc;	/* hash table, open addressing */
	size_t pc_cap, pc_used;
	uint64_t counts[TOPDOWN_MAX_EVENTS];
	bool seen[TOPDOWN_MAX_EVENTS];
	char sep[16];		/* perf stat -x separator */
	int lines;		/* lines that gave counts */
	int skipped;		/* perf lines of other events */
	bool scaled;		/* perf scaled a count (multiplexing) */
	bool zeroed[TOPDOWN_MAX_EVENTS];	/* <not counted> taken as 0 */
	char where[64];		/* "stdin line N: " */
};

static const char decode_desc[] =
	"TopDown breakdown of the given counts with the formula of event set\n"
	"NAME (see 'tdctl list'). Counts are EVENT=COUNT arguments or, without\n"
	"them, lines on stdin: tdctl's JSON lines ({\"EVENT\": COUNT, ...},\n"
	"summed), or perf stat output as printed: 'perf stat -j', 'perf stat\n"
	"-x SEP' (give the same -x here; ',' by default) or plain 'perf stat'.\n"
	"EVENT is the set's name or perf's name for it, in any case, with or\n"
	"without a PMU ('cpu_core/topdown.slots_p/'); COUNT may have digit\n"
	"groups, a fraction or an exponent (1,000,000  1e6  1000000.0). Only\n"
	"the counts the formula needs are required. The output names the\n"
	"formula and every assumption it made (slot width, revision).\n";

static void set_names(char *buf, size_t n, const struct td_set *s)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; s && i < s->nr_events && pos < n; i++)
		pos += snprintf(buf + pos, n - pos, "%s%s", i ? ", " : "",
				s->ev[i].name);
}

static void all_set_names(char *buf, size_t n)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; i < td_nr_sets && pos < n; i++)
		pos += snprintf(buf + pos, n - pos, "%s%s", i ? ", " : "",
				td_sets[i]->name);
}

static int add(struct decode_in *in, int i, uint64_t v)
{
	if (in->counts[i] + v < in->counts[i]) {
		p_err("%sthe sum of %s overflows 64 bits", in->where,
		      in->s->ev[i].name);
		return -1;
	}
	in->counts[i] += v;
	in->seen[i] = true;
	return 0;
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

static size_t key_hash(int event, const char *key)
{
	size_t h = 5381 + (size_t)event;

	while (*key)
		h = h * 33 + (unsigned char)*key++;
	return h;
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
		for (h = key_hash(o->event, o->key) & (cap - 1); t[h].key;
		     h = (h + 1) & (cap - 1))
			;
		t[h] = *o;
	}
	free(in->pc);
	in->pc = t;
	in->pc_cap = cap;
	return 0;
}

/* A count of event i from perf, at the aggregation and interval key. */
static int add_perf(struct decode_in *in, int i, const char *key, uint64_t v)
{
	struct perf_count *c;
	size_t h;

	if ((in->pc_used + 1) * 2 > in->pc_cap && perf_grow(in))
		return -1;
	for (h = key_hash(i, key) & (in->pc_cap - 1);; h = (h + 1) &
	     (in->pc_cap - 1)) {
		c = &in->pc[h];
		if (!c->key || (c->event == i && !strcmp(c->key, key)))
			break;
	}
	if (!c->key) {
		c->key = strdup(key);
		if (!c->key) {
			p_err("decode: out of memory");
			return -1;
		}
		c->event = i;
		in->pc_used++;
	}
	if (c->sum + v < c->sum) {
		p_err("%sthe sum of %s overflows 64 bits", in->where,
		      in->s->ev[i].name);
		return -1;
	}
	c->sum += v;
	c->n++;
	in->seen[i] = true;
	return 0;
}

/* perf's counts into in->counts: averaged per key, summed over keys. */
static int perf_total(struct decode_in *in)
{
	int ret = 0;

	for (size_t h = 0; h < in->pc_cap; h++) {
		struct perf_count *c = &in->pc[h];

		if (!c->key)
			continue;
		if (!ret)
			ret = add(in, c->event, c->sum / c->n +
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
static int perf_not_counted(struct decode_in *in, int i, const char *key,
			    const char *v, size_t len)
{
	if (strchr(in->s->ev[i].name, '/') && len >= 13 &&
	    !strncmp(v, "<not counted>", 13)) {
		in->zeroed[i] = true;
		return add_perf(in, i, key, 0) ? -1 : 1;
	}
	p_err("%sperf has no count for %s ('%.*s'): the breakdown needs it",
	      in->where, in->s->ev[i].name, (int)len, v);
	return -1;
}

/* ---- tdctl's JSON lines ---------------------------------------------- */

struct own_line {
	struct decode_in *in;
	bool seen[TOPDOWN_MAX_EVENTS];
};

static int own_member(const struct jr_member *m, void *ctx)
{
	struct own_line *l = ctx;
	struct decode_in *in = l->in;
	char names[512];
	uint64_t v;
	int i = td_set_event_index(in->s, m->key, m->key_len);

	if (i < 0) {
		set_names(names, sizeof(names), in->s);
		p_err("%sunknown event '%s' for set %s (its events: %s)",
		      in->where, m->key, in->s->name, names);
		return -1;
	}
	if (l->seen[i]) {
		p_err("%sevent %s given twice", in->where, in->s->ev[i].name);
		return -1;
	}
	l->seen[i] = true;
	if (m->type != JR_NUMBER && m->type != JR_STRING) {
		p_err("%sthe count of %s is not a number", in->where,
		      in->s->ev[i].name);
		return -1;
	}
	if (count_of(in, m->key, m->key_len, m->val, m->val_len, &v))
		return -1;
	return add(in, i, v);
}

/* ---- perf stat -j ---------------------------------------------------- */

/* One perf stat -j line; the strings are copied out of the parse. */
struct perf_json {
	char event[256], value[64];
	size_t event_len, value_len;
	bool has_event, has_value;
	double pcnt;
	bool is_perf;
	char key[256];		/* the other members: "cpu=0;interval=1.0;" */
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
	struct own_line own = { .in = in };
	char err[160];
	uint64_t v;
	int i;

	/* perf's lines have "counter-value" or "metric-value" keys */
	if (json_read_flat(line, perf_member, &pj, err, sizeof(err))) {
		p_err("%s%s", in->where, err);
		return -1;
	}
	if (!pj.is_perf)
		return json_read_flat(line, own_member, &own, err,
				      sizeof(err)) ? -1 : 1;
	if (!pj.has_event || !pj.has_value)
		return 0;	/* a metric-only line */
	i = td_set_event_index(in->s, pj.event, pj.event_len);
	if (i < 0) {
		in->skipped++;
		return 0;
	}
	if (not_counted(pj.value, pj.value_len))
		return perf_not_counted(in, i, pj.key, pj.value, pj.value_len);
	if (count_of(in, pj.event, pj.event_len, pj.value,
		     pj.value_len, &v))
		return -1;
	if (pj.pcnt < 100.0)
		in->scaled = true;
	return add_perf(in, i, pj.key, v) ? -1 : 1;
}

/* ---- perf stat -x SEP and plain perf stat ---------------------------- */

#define MAX_FIELDS	32

struct field {
	const char *p;
	size_t len;
};

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
		line += f[n].len;
		n++;
	}
	return n;
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
	char key[256];
	uint64_t v;
	int ev = -1, i = -1, val;

	for (int k = 1; k < n && ev < 0; k++) {
		i = td_set_event_index(in->s, f[k].p, f[k].len);
		if (i >= 0)
			ev = k;
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
	/* the fields before the count: interval, CPU, socket... */
	key[0] = '\0';
	for (int k = 0; k < val; k++)
		snprintf(key + strlen(key), sizeof(key) - strlen(key), "%.*s;",
			 (int)f[k].len, f[k].p);
	if (!is_count(&f[val])) {
		size_t len = f[ev].p - f[val].p;

		while (len && strchr(" \t", f[val].p[len - 1]))
			len--;
		if (csv && len >= strlen(in->sep))
			len -= strlen(in->sep);
		return perf_not_counted(in, i, key, f[val].p,
					csv ? f[val].len : len);
	}
	if (count_of(in, f[ev].p, f[ev].len, f[val].p, f[val].len, &v))
		return -1;
	/* -x: EVENT SEP RUNTIME SEP PCNT; plain: "(66.65%)" at the end */
	if (csv && ev + 2 < n && is_pcnt(&f[ev + 2]) &&
	    strtod(f[ev + 2].p, NULL) < 100.0)
		in->scaled = true;
	if (!csv && f[n - 1].len > 2 && f[n - 1].p[0] == '(' &&
	    f[n - 1].p[f[n - 1].len - 1] == ')')
		in->scaled = true;
	return add_perf(in, i, key, v) ? -1 : 1;
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
		r = *p == '{' ? json_line(in, p) : text_line(in, line);
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
		char names[512];

		set_names(names, sizeof(names), in->s);
		p_err("decode: no counts of set %s's events (%s) on the command line or stdin%s",
		      in->s->name, names, in->skipped ?
		      " (only other events; perf stat -x output with "
		      "another separator than '-x' says?)" : "");
		ret = -1;
	}
	return ret;
}

static int args(struct decode_in *in, int argc, char **argv)
{
	for (int a = 0; a < argc; a++) {
		const char *eq = strchr(argv[a], '=');
		char names[512];
		uint64_t v;
		int i;

		if (!eq || eq == argv[a]) {
			p_err("decode: '%s' is not EVENT=COUNT", argv[a]);
			return -1;
		}
		i = td_set_event_index(in->s, argv[a], eq - argv[a]);
		if (i < 0) {
			set_names(names, sizeof(names), in->s);
			p_err("decode: unknown event '%.*s' for set %s (its events: %s)",
			      (int)(eq - argv[a]), argv[a], in->s->name,
			      names);
			return -1;
		}
		if (in->seen[i]) {
			p_err("decode: event %s given twice", in->s->ev[i].name);
			return -1;
		}
		if (count_of(in, argv[a], eq - argv[a], eq + 1, strlen(eq + 1),
			     &v) || add(in, i, v))
			return -1;
	}
	return 0;
}

/* ---- what ran --------------------------------------------------------- */

struct notes {
	int n;
	char s[MAX_NOTES][NOTE_LEN];
};

static void note(struct notes *nt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct notes *nt, const char *fmt, ...)
{
	va_list ap;

	if (nt->n >= MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(nt->s[nt->n++], NOTE_LEN, fmt, ap);
	va_end(ap);
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
	for (int i = 0; i < s->nr_events; i++)
		if (!in->seen[i])
			note(nt,
			     "no count for %s: the metrics that read it (IPC) are left out",
			     s->ev[i].name);
	for (int i = 0; i < s->nr_events; i++)
		if (in->zeroed[i])
			note(nt,
			     "perf did not count %s (<not counted>): taken as 0, "
			     "the task did not run on that PMU's CPUs",
			     s->ev[i].name);
	if (in->scaled)
		note(nt,
		     "perf scaled some counts (the counter ran part of the time): "
		     "the ratios assume the events behaved alike while not counted");
}

/*
 * JSON and CSV through the row emitter: one row of set, label, lines (null
 * without stdin), the metrics (null when not computable), flagged (the
 * metrics outside 0..100%), formula and assumptions; lists are JSON
 * arrays, and in CSV one field ("flagged" space-separated, "assumptions"
 * "; "-separated). JSON also says how many lines of other events were
 * skipped.
 */
enum {
	DF_SET, DF_LABEL, DF_LINES, DF_FLAGGED, DF_FORMULA, DF_ASSUME,
	DF_SKIPPED, DF_NR
};

static void decode_rows(const struct td_decoder *d, const char *label,
			const struct td_metrics *m,
			const struct decode_in *in, const struct notes *nt)
{
	static const struct td_field f[DF_NR] = {
		[DF_SET] = { .name = "set", .in = TD_IN_JSON | TD_IN_CSV },
		[DF_LABEL] = { .name = "label", .in = TD_IN_JSON | TD_IN_CSV },
		[DF_LINES] = { .name = "lines", .in = TD_IN_JSON | TD_IN_CSV },
		[DF_FLAGGED] = { .name = "flagged", .in = TD_IN_CSV },
		[DF_FORMULA] = { .name = "formula", .in = TD_IN_JSON | TD_IN_CSV },
		[DF_ASSUME] = { .name = "assumptions", .in = TD_IN_CSV },
		[DF_SKIPPED] = { .name = "skipped_lines", .in = TD_IN_JSON },
	};
	struct td_field hdr[DF_NR + TD_MAX_METRICS], mf[TD_MAX_METRICS];
	char flagged[TD_MAX_METRICS * (TOPDOWN_NAME_LEN + 1) + 1] = "";
	char as[MAX_NOTES * (NOTE_LEN + 2)] = "";
	json_writer_t *w;
	struct td_emit e;
	int n = 0;

	for (int i = 0; i < m->n; i++)
		mf[i] = (struct td_field){ .name = m->m[i].name,
					   .group = "metrics",
					   .in = TD_IN_JSON | TD_IN_CSV };
	/* The CSV header: the fields in row order. */
	for (int i = DF_SET; i <= DF_LINES; i++)
		hdr[n++] = f[i];
	for (int i = 0; i < m->n; i++)
		hdr[n++] = mf[i];
	for (int i = DF_FLAGGED; i < DF_NR; i++)
		hdr[n++] = f[i];
	for (int i = 0; i < m->n; i++)
		if (m->m[i].flagged)
			snprintf(flagged + strlen(flagged),
				 sizeof(flagged) - strlen(flagged), "%s%s",
				 *flagged ? " " : "", m->m[i].name);
	for (int i = 0; i < nt->n; i++)
		snprintf(as + strlen(as), sizeof(as) - strlen(as), "%s%s",
			 i ? "; " : "", nt->s[i]);

	td_emit_init(&e, stdout);
	td_emit_header(&e, hdr, n, NULL);
	td_emit_begin(&e, NULL, NULL);
	td_emit_str(&e, &f[DF_SET], d->set, SIZE_MAX);
	td_emit_str(&e, &f[DF_LABEL], label, SIZE_MAX);
	if (in->lines)
		td_emit_uint(&e, &f[DF_LINES], (uint64_t)in->lines);
	else
		td_emit_null(&e, &f[DF_LINES]);
	td_emit_group(&e, "metrics");
	for (int i = 0; i < m->n; i++)
		td_emit_float(&e, &mf[i], m->m[i].value, m->m[i].valid);
	td_emit_str(&e, &f[DF_FLAGGED], flagged, SIZE_MAX);
	w = td_emit_json(&e);
	if (w) {
		jsonw_name(w, "flagged");
		jsonw_start_array(w);
		for (int i = 0; i < m->n; i++)
			if (m->m[i].flagged)
				jsonw_string(w, m->m[i].name);
		jsonw_end_array(w);
	}
	td_emit_str(&e, &f[DF_FORMULA], in->s->formula, SIZE_MAX);
	td_emit_str(&e, &f[DF_ASSUME], as, SIZE_MAX);
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
}

/* The metrics one per line, by name (as perf stat prints its metrics),
 * with the vocabulary's decimals (output/vocab.h); after the value '!'
 * for a fraction outside 0..100% and '*' for the largest Level-1 class,
 * and the legend of the marks, as under every table.
 */
static void decode_plain(const struct td_decoder *d, const char *label,
			 const struct td_metrics *m,
			 const struct decode_in *in, const struct notes *nt)
{
	bool flagged = false, invalid = false;
	int best = -1;

	printf("set %s (%s)", d->set, label);
	if (in->lines)
		printf(", %d input line%s summed", in->lines,
		       in->lines == 1 ? "" : "s");
	if (in->skipped)
		printf(", %d line%s of other events skipped", in->skipped,
		       in->skipped == 1 ? "" : "s");
	printf("\n");
	if (!m->n)
		printf("  no TopDown metrics for this set\n");
	for (int i = 0; i < m->n; i++) {
		const struct td_voc *v = td_voc_find(m->m[i].name);

		if (v && (v->flags & TD_VOC_BOTTLENECK) && m->m[i].valid &&
		    (best < 0 || m->m[i].value > m->m[best].value))
			best = i;
	}
	for (int i = 0; i < m->n; i++) {
		const struct td_metric *x = &m->m[i];

		printf("  %-24s ", x->name);
		if (!x->valid) {
			printf("%8s", "n/a");
			invalid = true;
		} else if (td_metric_is_fraction(x->name)) {
			printf("%7.1f%%", x->value * 100.0);
		} else {
			printf("%8.*f", td_voc_prec(x->name), x->value);
		}
		if (x->flagged) {
			printf("  !");
			flagged = true;
		}
		if (i == best)
			printf("  *");
		printf("\n");
	}
	if (best >= 0)
		printf("%s\n", TD_VOC_LEGEND_MARK);
	if (flagged)
		printf("%s\n", TD_VOC_LEGEND_FLAG);
	if (invalid)
		printf("n/a: not computable from these counts (zero denominator)\n");
	printf("formula: %s\n", in->s->formula);
	for (int i = 0; i < nt->n; i++)
		printf("assumes: %s\n", nt->s[i]);
}

int do_decode(int argc, char **argv)
{
	char names[TOPDOWN_MAX_EVENTS][TOPDOWN_NAME_LEN];
	const char *setname = NULL, *slots = NULL, *rev = NULL;
	char label[TOPDOWN_LABEL_LEN + 64], err[512];
	struct decode_in in = { .sep = "," };
	struct notes nt = { 0 };
	struct td_getopt g;
	struct td_metrics m;
	struct td_decoder d;
	int opt, n;

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
		all_set_names(err, sizeof(err));
		p_err("decode: --set NAME is required (one of: %s)", err);
		return -1;
	}
	in.s = td_set_find(setname);
	if (!in.s) {
		all_set_names(err, sizeof(err));
		p_err("decode: unknown event set '%s' (known: %s)", setname,
		      err);
		return -1;
	}
	n = snprintf(label, sizeof(label), "set=%s%s%s%s%s", in.s->name,
		     slots ? " slots=" : "", slots ? slots : "",
		     rev ? " rev=" : "", rev ? rev : "");
	if (n < 0 || n >= TOPDOWN_LABEL_LEN) {
		p_err("decode: --slots/--revision too long");
		return -1;
	}
	/* The label's checks first: a bad --slots/--revision is reported
	 * before any count is read.
	 */
	memset(names, 0, sizeof(names));
	for (int i = 0; i < in.s->nr_events; i++)
		snprintf(names[i], sizeof(names[i]), "%s", in.s->ev[i].name);
	if (td_decoder_from_label(&d, label, (const char (*)[32])names,
				  in.s->nr_events, err, sizeof(err))) {
		p_err("decode: %s", err);
		return -1;
	}

	if (optind < argc && args(&in, argc - optind, argv + optind))
		return -1;
	td_parsing_options = false;
	if (optind >= argc && read_stdin(&in))
		return -1;

	/* Only what the formula reads is required. */
	err[0] = '\0';
	for (int i = 0; i < in.s->nr_events; i++) {
		if (in.seen[i])
			continue;
		if (!in.s->ev[i].optional)
			snprintf(err + strlen(err), sizeof(err) - strlen(err),
				 "%s%s", *err ? ", " : "", in.s->ev[i].name);
		names[i][0] = '\0';
	}
	if (*err) {
		p_err("decode: missing counts for set %s: %s", in.s->name, err);
		return -1;
	}
	if (td_decoder_partial(&d, label, (const char (*)[32])names,
			       in.s->nr_events, err, sizeof(err))) {
		p_err("decode: %s", err);
		return -1;
	}
	td_decode(&d, in.counts, &m);
	assumptions(&in, &d, slots, rev, &nt);
	if (json_output || csv_output)
		decode_rows(&d, label, &m, &in, &nt);
	else
		decode_plain(&d, label, &m, &in, &nt);
	return 0;
}
