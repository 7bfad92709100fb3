// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl dump: drain the rings and print one line (or JSON object, or CSV
 * row) per time slice, with the raw deltas named after the configured
 * events and the metrics of the event set.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg/aggregate.h"
#include "live/collect.h"
#include "live/device.h"
#include "evset/evset.h"
#include "output/fmt.h"
#include "output/text.h"
#include "output/vocab.h"
#include "file/order.h"
#include "cli/tdctl.h"
#include "file/lost.h"
#include "file/tdfile.h"

const struct td_opt dump_opts[] = {
	{ "input", 'i', 'i', TD_ARG_FILE, "FILE",
	  "read a record file of 'tdctl record' instead of the rings", 0 },
	{ "follow", 'f', 'f', TD_ARG_NONE, NULL,
	  "keep reading until interrupted (or --duration)", 0 },
	{ "duration", 0, 'd', TD_ARG_NUM, "S",
	  "stop following after S seconds (implies --follow)", 0 },
	TD_OPT_FILTERS,
	TD_OPT_FORCE,
	TD_OPT_OUTPUT,
	TD_OPT_HELP,
	TD_OPT_END,
};

/* The metrics of one record: a decode (td_metrics), or with rotated
 * groups every metric of the configuration, valid where the record's
 * group computes it.
 */
struct mview {
	int n;
	const struct td_metric *m;
};

struct dump_ctx {
	struct td_reader rd;
	/* The rings' or the file's configuration; with one event group,
	 * that group's events in delta order (td_view_cfg); with rotated
	 * groups the pool, each record's deltas placed by its group.
	 */
	const struct topdown_config *cfg;
	struct td_view_cfg *vc;
	bool rotated;
	struct td_decoder dec;
	bool can_decode;
	/* rotated: the metrics in the tables' order (td_gdecoder_tree()) */
	int nr_tree;
	struct td_tree_node tree[TD_MAX_TREE];
	struct td_metric rm[TD_MAX_TREE];
	bool follow;
	struct td_filter filter;
	/* batch of records, printed in time order (order.h) */
	struct topdown_record *batch;
	size_t n, cap;
	bool oom;
	uint64_t printed;
	uint64_t lost;
	uint64_t base_ns;	/* time_s 0: the collection's start */
	bool marked, flagged;	/* plain: a '*' or '!' was printed */
	bool path;		/* ... a '*' on a Level 2 class */
	int ev_w[TOPDOWN_MAX_POOL];	/* plain: column widths */
	int m_w[TD_MAX_TREE];
	const struct td_voc *m_voc[TD_MAX_TREE];	/* its entry, NULL: none */
	/* the lines are formatted here (fmt.h), JSON names escaped once */
	struct td_buf out;
	char ev_json[TOPDOWN_MAX_POOL][6 * TOPDOWN_NAME_LEN + 4];
	int ev_json_len[TOPDOWN_MAX_POOL];
	const char *m_name[TD_MAX_TREE];	/* the names of m_* */
	char m_json[TD_MAX_TREE][6 * 64 + 4];	/* -1: longer */
	int m_json_len[TD_MAX_TREE];
	bool m_fraction[TD_MAX_TREE];
};

/* A record's counts by configuration event (pool entry with rotated
 * groups): the delta of those its group measured and could read.
 */
struct rcounts {
	uint64_t c[TOPDOWN_MAX_POOL];
	uint32_t have;		/* bit i: c[i] is a count */
	uint32_t unread;	/* bit i: its group measured event i, whose
				 * count could not be read
				 */
	int group;		/* rotated: the record's group, -1 none */
};

/* Rotated: whether group g counts pool entry p. */
static bool in_group(const struct dump_ctx *d, int g, uint32_t p)
{
	const struct topdown_group *grp = &d->cfg->groups[g];

	for (uint32_t j = 0; j < grp->nr_events && j < TOPDOWN_MAX_EVENTS; j++)
		if (grp->events[j] == p)
			return true;
	return false;
}

/* The configuration as the records show it (struct dump_ctx). 0, or -1
 * after p_err().
 */
static int dump_setup(struct dump_ctx *d, const struct topdown_config *cfg)
{
	int n;

	d->vc = malloc(sizeof(*d->vc));
	if (!d->vc) {
		p_err("out of memory");
		return -1;
	}
	if (td_view_cfg_init(d->vc, cfg))
		return -1;
	d->cfg = &d->vc->cfg;
	d->rotated = d->vc->rotated;
	d->can_decode = d->vc->can_decode;
	if (!d->rotated) {
		if (d->can_decode)
			d->dec = d->vc->dec;
		return 0;
	}
	if (!d->can_decode)
		return 0;
	n = td_gdecoder_tree(&d->vc->gd, d->tree, TD_MAX_TREE);
	d->nr_tree = n < TD_MAX_TREE ? n : TD_MAX_TREE;
	for (int i = 0; i < d->nr_tree; i++)
		d->rm[i].name = d->tree[i].info->name;
	return 0;
}

static void record_counts(const struct dump_ctx *d,
			  const struct topdown_record *r, struct rcounts *rc)
{
	const struct topdown_config *cfg = d->cfg;

	rc->have = 0;
	rc->unread = 0;
	rc->group = -1;
	if (!d->rotated) {
		for (uint32_t i = 0; i < cfg->nr_events &&
		     i < TOPDOWN_MAX_EVENTS; i++) {
			rc->c[i] = r->delta[i];
			if (!(r->flags & (1u << i)))
				rc->have |= 1u << i;
			else
				rc->unread |= 1u << i;
		}
		return;
	}
	memset(rc->c, 0, sizeof(rc->c));
	rc->group = (int)TOPDOWN_REC_GROUP(r->flags);
	if (rc->group >= (int)cfg->nr_groups) {
		rc->group = -1;
		return;
	}
	if (r->flags & TOPDOWN_REC_ROTATED)
		return;
	for (uint32_t j = 0; j < cfg->groups[rc->group].nr_events &&
	     j < TOPDOWN_MAX_EVENTS; j++) {
		uint32_t p = cfg->groups[rc->group].events[j];

		if (p >= TOPDOWN_MAX_POOL)
			continue;
		if (r->flags & (1u << j)) {
			rc->unread |= 1u << p;
			continue;
		}
		rc->c[p] = r->delta[j];
		rc->have |= 1u << p;
	}
}

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void on_record(const struct topdown_record *r, void *ctx)
{
	struct dump_ctx *d = ctx;

	if (!td_filter_match(&d->filter, r))
		return;
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 4096;
		void *p = realloc(d->batch, cap * sizeof(*d->batch));

		if (!p) {
			d->oom = true;
			return;
		}
		d->batch = p;
		d->cap = cap;
	}
	d->batch[d->n++] = *r;
}

static void on_lost(int cpu, uint64_t count, const char *why, void *ctx)
{
	struct dump_ctx *d = ctx;

	d->lost += count;
	p_warn("CPU %d: %llu %s lost (%s)", cpu, (unsigned long long)count,
	       td_records(count), why);
}

static void flags_str(uint32_t f, char *buf)
{
	char *p = buf;

	*p++ = f & TOPDOWN_REC_PREEMPTED ? 'P' : 'S';
	if (f & TOPDOWN_REC_FIRST)
		*p++ = 'F';
	if (f & TOPDOWN_REC_IDLE)
		*p++ = 'I';
	if (f & TOPDOWN_REC_ROTATED)
		*p++ = 'R';
	else if (f & TOPDOWN_REC_ERROR_MASK)
		*p++ = 'E';
	*p = '\0';
}

/* The comm as text (output/text.h); its length in characters in *cols. */
#define COMM_TEXT_SIZE	TD_TEXT_SIZE(TOPDOWN_COMM_LEN)
static size_t comm_str(const struct topdown_record *r, char *buf, size_t *cols)
{
	return td_text(buf, r->comm, TOPDOWN_COMM_LEN, cols);
}

/* The columns' titles and widths from the vocabulary (output/vocab.h):
 * titles right-aligned over right-aligned numbers, never cut.
 */
#define W_TIME	12

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static uint32_t nr_ev(const struct dump_ctx *d)
{
	return d->cfg->nr_events < TOPDOWN_MAX_POOL ? d->cfg->nr_events :
	       TOPDOWN_MAX_POOL;
}

static const char *ev_name(const struct dump_ctx *d, uint32_t i)
{
	return td_pool_event_c(d->cfg, i)->name;
}

/* The metric columns: a decode of nothing, or every metric of the
 * rotated groups.
 */
static void header_metrics(struct dump_ctx *d, struct td_metrics *tmp,
			   struct mview *mv)
{
	uint64_t zero[TOPDOWN_MAX_EVENTS] = { 0 };

	tmp->n = 0;
	if (d->rotated) {
		*mv = (struct mview){ d->nr_tree, d->rm };
		return;
	}
	if (d->can_decode)
		td_decode(&d->dec, zero, tmp);
	*mv = (struct mview){ tmp->n, tmp->m };
}

static void print_header(struct dump_ctx *d)
{
	const char *evn[TOPDOWN_MAX_POOL];
	struct td_metrics tmp;
	struct mview m;
	struct csv_writer w;

	header_metrics(d, &tmp, &m);
	if (csv_output) {
		static const char *const fixed[] = {
			"seq", "time_ns", "time_s", "cpu", "pid", "tid",
			"comm", "duration_ns", "cgroup_id", "flags", NULL,
		};

		csvw_init(&w, stdout);
		for (int i = 0; fixed[i]; i++)
			csvw_name(&w, fixed[i]);
		if (d->rotated)
			csvw_name(&w, "group");
		for (uint32_t i = 0; i < nr_ev(d); i++)
			csvw_name(&w, ev_name(d, i));
		for (int i = 0; i < m.n; i++)
			csvw_name(&w, m.m[i].name);
		csvw_end_row(&w);
		return;
	}
	printf("%*s %3s %7s %7s %-16s %10s %-4s", W_TIME, td_voc_title("time_s"),
	       td_voc_title("cpu"), td_voc_title("pid"), td_voc_title("tid"),
	       td_voc_title("comm"), td_voc_title("duration_ns"),
	       td_voc_title("flags"));
	if (d->rotated)
		printf(" %3s", td_voc_title("group"));
	for (uint32_t i = 0; i < nr_ev(d); i++) {
		char t[TD_TEXT_SIZE(TOPDOWN_NAME_LEN)];
		size_t cols, len;

		/* the text of the name (output/text.h), never cut */
		len = td_text(t, ev_name(d, i), TOPDOWN_NAME_LEN, &cols);
		d->ev_w[i] = max_int(14, (int)cols);
		printf(" %*s", d->ev_w[i] + (int)(len - cols), t);
	}
	for (uint32_t i = 0; i < nr_ev(d); i++)
		evn[i] = ev_name(d, i);
	for (int i = 0; i < m.n; i++) {
		const char *t = td_voc_metric_title(m.m[i].name, evn,
						    (int)nr_ev(d));

		/* "*-10.0%!": room for the marks */
		d->m_w[i] = max_int((int)strlen(t), 9);
		printf(" %*s", d->m_w[i], t);
	}
	printf("\n");
}

/* What is known of metric i by its name; names are constant strings. */
static void metric_names(struct dump_ctx *d, const struct mview *m)
{
	for (int i = 0; i < m->n; i++) {
		if (m->m[i].name == d->m_name[i])
			continue;
		d->m_name[i] = m->m[i].name;
		d->m_fraction[i] = td_metric_is_fraction(m->m[i].name);
		d->m_voc[i] = td_voc_find(m->m[i].name);
		if (!d->m_w[i])
			d->m_w[i] = 9;
		d->m_json_len[i] = -1;
		if (strlen(m->m[i].name) > 64)
			continue;
		d->m_json_len[i] = (int)jsonw_escape(d->m_json[i], m->m[i].name,
						     strlen(m->m[i].name));
		d->m_json[i][d->m_json_len[i]++] = ':';
	}
}

/* "NAME": escaped, for JSON objects. */
static int json_name(char *dst, const char *name)
{
	int n = (int)jsonw_escape(dst, name, strnlen(name, TOPDOWN_NAME_LEN));

	dst[n++] = ':';
	return n;
}

/* time_s: seconds since d->base_ns with prec decimals, in width; width
 * 0 (JSON, CSV): the nanoseconds exactly, without trailing zeros
 * ("1.001", "2"), the shortest text of the value as every JSON number.
 */
static void put_time_s(struct dump_ctx *d, uint64_t ns, int prec, int width)
{
	struct td_buf *b = &d->out;
	uint64_t rel = ns >= d->base_ns ? ns - d->base_ns : d->base_ns - ns;
	uint64_t div = 1, frac;
	char head[24];
	int n;

	for (int i = prec; i < 9; i++)
		div *= 10;
	frac = rel % 1000000000ull / div;
	if (!width)
		for (; prec && frac % 10 == 0; prec--)
			frac /= 10;
	n = snprintf(head, sizeof(head), "%s%llu", ns < d->base_ns ? "-" : "",
		     (unsigned long long)(rel / 1000000000ull));
	td_buf_pad(b, head, (size_t)n, width > prec + 1 ? width - prec - 1 : 0);
	if (!prec)
		return;
	td_buf_char(b, '.');
	td_buf_digits(b, frac, prec);
}

/* The bottleneck path of m (td_voc_path()). */
static void bottleneck(const struct dump_ctx *d, const struct mview *m,
		       int mark[2])
{
	double value[TD_MAX_TREE];
	bool valid[TD_MAX_TREE];

	for (int i = 0; i < m->n; i++) {
		value[i] = m->m[i].value;
		valid[i] = m->m[i].valid;
	}
	td_voc_path(d->m_voc, value, valid, m->n, mark);
}

/* The line of the table, under print_header's titles: time_s with six
 * decimals, the fixed columns, " %*llu" (or <error>) per event, per
 * metric a percentage with one decimal (fractions) or the vocabulary's
 * decimals, '*' before each class of the bottleneck path, '!' after a
 * fraction outside 0..100%.
 */
static void put_plain(struct dump_ctx *d, const struct topdown_record *r,
		      const struct rcounts *rc, const struct mview *m,
		      const char *comm, size_t len, size_t cols,
		      const char *fl)
{
	struct td_buf *b = &d->out;
	int mark[2];

	bottleneck(d, m, mark);

	put_time_s(d, r->time_ns, 6, W_TIME);
	td_buf_char(b, ' ');
	td_buf_field(b, r->cpu, 3, ' ');
	td_buf_field(b, r->tgid, 7, ' ');
	td_buf_field(b, r->pid, 7, ' ');
	/* 16 characters wide: UTF-8 takes more bytes than columns */
	td_buf_pad(b, comm, len, -(int)(16 + len - cols));
	td_buf_char(b, ' ');
	td_buf_fixed(b, r->duration_ns / 1e3, 3, 10);
	td_buf_char(b, ' ');
	td_buf_pad(b, fl, strlen(fl), -4);
	if (d->rotated) {
		td_buf_char(b, ' ');
		td_buf_field(b, (uint64_t)(rc->group < 0 ? 0 : rc->group), 3,
			     ' ');
		b->p--;	/* td_buf_field()'s separator */
	}
	for (uint32_t i = 0; i < nr_ev(d); i++) {
		td_buf_char(b, ' ');
		if (rc->have & (1u << i))
			td_buf_u64(b, rc->c[i], d->ev_w[i]);
		else if (d->rotated && (rc->group < 0 ||
					(r->flags & TOPDOWN_REC_ROTATED) ||
					!in_group(d, rc->group, i)))
			td_buf_pad(b, "-", 1, d->ev_w[i]);
		else
			td_buf_pad(b, "<error>", 7, d->ev_w[i]);
	}
	for (int i = 0; i < m->n; i++) {
		char cell[TD_FMT_MAX + 4];
		int n = 0;

		td_buf_char(b, ' ');
		if (!m->m[i].valid) {
			td_buf_pad(b, "-", 1, d->m_w[i]);
			continue;
		}
		if (i == mark[0] || i == mark[1]) {
			cell[n++] = TD_VOC_MARK;
			d->marked = true;
			d->path |= i == mark[1];
		}
		if (d->m_fraction[i]) {
			n += td_fmt_fixed(cell + n, 100.0 * m->m[i].value, 1);
			cell[n++] = '%';
			if (m->m[i].flagged) {
				cell[n++] = TD_VOC_FLAG;
				d->flagged = true;
			}
		} else {
			n += td_fmt_fixed(cell + n, m->m[i].value,
					  td_voc_prec(m->m[i].name));
		}
		td_buf_pad(b, cell, (size_t)n, d->m_w[i]);
	}
	td_buf_char(b, '\n');
}

/* "%llu,%llu,%u,%u,%u,\"COMM\",%llu,%llu,\"%s\"", ",%llu" or "," per event,
 * the shortest text of the value or "," per metric; quotes doubled.
 */
static void put_csv(struct dump_ctx *d, const struct topdown_record *r,
		    const struct rcounts *rc, const struct mview *m,
		    const char *comm, const char *fl)
{
	struct td_buf *b = &d->out;

	td_buf_field(b, r->seq, 0, ',');
	td_buf_field(b, r->time_ns, 0, ',');
	put_time_s(d, r->time_ns, 9, 0);
	td_buf_char(b, ',');
	td_buf_field(b, r->cpu, 0, ',');
	td_buf_field(b, r->tgid, 0, ',');
	td_buf_field(b, r->pid, 0, ',');
	td_buf_char(b, '"');
	for (const char *c = comm; *c; c++) {
		if (*c == '"')
			td_buf_char(b, '"');
		td_buf_char(b, *c);
	}
	td_buf_mem(b, "\",", 2);
	td_buf_field(b, r->duration_ns, 0, ',');
	td_buf_field(b, r->cgroup_id, 0, ',');
	td_buf_char(b, '"');	/* text, quoted as every text field */
	td_buf_mem(b, fl, strlen(fl));
	td_buf_char(b, '"');
	if (d->rotated) {
		td_buf_char(b, ',');
		if (rc->group >= 0)
			td_buf_u64(b, (uint64_t)rc->group, 0);
	}
	for (uint32_t i = 0; i < nr_ev(d); i++) {
		td_buf_char(b, ',');
		if (rc->have & (1u << i))
			td_buf_u64(b, rc->c[i], 0);
	}
	for (int i = 0; i < m->n; i++) {
		td_buf_char(b, ',');
		if (m->m[i].valid)
			td_buf_shortest(b, m->m[i].value);
	}
	td_buf_char(b, '\n');
}

static void put_field(struct td_buf *b, const char *name_colon, size_t n,
		      uint64_t v)
{
	td_buf_mem(b, name_colon, n);
	td_buf_u64(b, v, 0);
}

#define PUT_FIELD(b, lit, v) put_field(b, lit, sizeof(lit) - 1, v)

/* A record as compact JSON, after sep (jsonw_raw_begin()'s separator);
 * inlined into both of print_record()'s calls: the compact one is the
 * per-record fast path.
 */
static inline __attribute__((always_inline))
void put_json(struct dump_ctx *d, const struct topdown_record *r,
	      const struct rcounts *rc, const struct mview *m, const char *sep)
{
	struct td_buf *b = &d->out;
	static const char *const tf[] = { "false", "true" };
	char comm[COMM_TEXT_SIZE];
	size_t n;

	td_buf_mem(b, sep, strlen(sep));
	PUT_FIELD(b, "{\"seq\":", r->seq);
	PUT_FIELD(b, ",\"time_ns\":", r->time_ns);
	td_buf_mem(b, ",\"time_s\":", 10);
	put_time_s(d, r->time_ns, 9, 0);
	PUT_FIELD(b, ",\"cpu\":", r->cpu);
	PUT_FIELD(b, ",\"pid\":", r->tgid);
	PUT_FIELD(b, ",\"tid\":", r->pid);
	td_buf_mem(b, ",\"comm\":", 8);
	td_buf_need(b, 6 * COMM_TEXT_SIZE + 2);
	n = comm_str(r, comm, NULL);
	b->p += jsonw_escape(b->p, comm, n);
	PUT_FIELD(b, ",\"duration_ns\":", r->duration_ns);
	PUT_FIELD(b, ",\"cgroup_id\":", r->cgroup_id);
	td_buf_mem(b, ",\"preempted\":", 13);
	n = !!(r->flags & TOPDOWN_REC_PREEMPTED);
	td_buf_mem(b, tf[n], 4 + !n);
	td_buf_mem(b, ",\"first\":", 9);
	n = !!(r->flags & TOPDOWN_REC_FIRST);
	td_buf_mem(b, tf[n], 4 + !n);
	td_buf_mem(b, ",\"idle\":", 8);
	n = !!(r->flags & TOPDOWN_REC_IDLE);
	td_buf_mem(b, tf[n], 4 + !n);
	if (d->rotated) {
		td_buf_mem(b, ",\"group\":", 9);
		if (rc->group >= 0)
			td_buf_u64(b, (uint64_t)rc->group, 0);
		else
			td_buf_mem(b, "null", 4);
		td_buf_mem(b, ",\"rotated\":", 11);
		n = !!(r->flags & TOPDOWN_REC_ROTATED);
		td_buf_mem(b, tf[n], 4 + !n);
	}
	td_buf_mem(b, ",\"counts\":{", 11);
	for (uint32_t i = 0; i < nr_ev(d); i++) {
		if (i)
			td_buf_char(b, ',');
		td_buf_mem(b, d->ev_json[i], d->ev_json_len[i]);
		if (rc->have & (1u << i))
			td_buf_u64(b, rc->c[i], 0);
		else
			td_buf_mem(b, "null", 4);
	}
	/* the nulls that are counts not read, not another group's events */
	td_buf_mem(b, "},\"unreadable\":[", 16);
	for (uint32_t i = 0, first = 1; rc->unread && i < nr_ev(d); i++) {
		if (!(rc->unread & (1u << i)))
			continue;
		if (!first)
			td_buf_char(b, ',');
		first = 0;
		/* the name without the ':' of "NAME": */
		td_buf_mem(b, d->ev_json[i], d->ev_json_len[i] - 1);
	}
	td_buf_mem(b, "],\"metrics\":{", 13);
	for (int i = 0; i < m->n; i++) {
		if (i)
			td_buf_char(b, ',');
		if (d->m_json_len[i] >= 0) {
			td_buf_mem(b, d->m_json[i], d->m_json_len[i]);
		} else {
			n = strlen(m->m[i].name);
			td_buf_need(b, 6 * n + 3);
			b->p += jsonw_escape(b->p, m->m[i].name, n);
			*b->p++ = ':';
		}
		if (m->m[i].valid && isfinite(m->m[i].value))
			td_buf_shortest(b, m->m[i].value);
		else
			td_buf_mem(b, "null", 4);
	}
	td_buf_mem(b, "}}", 2);
}

/* Streams (--follow) and pretty output: put_json()'s text, taken back
 * from the (just emptied) buffer, through the JSON writer. Not inlined:
 * print_record() stays as small as its fast paths.
 */
static __attribute__((noinline))
void print_json_writer(struct dump_ctx *d, const struct topdown_record *r,
		       const struct rcounts *rc, const struct mview *m)
{
	td_buf_flush(&d->out);
	put_json(d, r, rc, m, "");
	jsonw_raw_value(json_wtr, d->out.buf, d->out.p - d->out.buf);
	d->out.p = d->out.buf;
	if (d->follow)	/* one document per line while streaming */
		jsonw_newline(json_wtr);
}

/* Rotated groups: the metrics of the record's group, from its deltas
 * (td_gdecode()); the other groups' are not known for this slice, nor
 * any of a rotated slice or of one with an unreadable counter.
 */
static void rotated_metrics(struct dump_ctx *d, const struct topdown_record *r,
			    const struct rcounts *rc)
{
	uint64_t delta[TOPDOWN_MAX_EVENTS];
	struct td_metrics gm;

	for (int i = 0; i < d->nr_tree; i++) {
		d->rm[i].value = 0;
		d->rm[i].valid = false;
		d->rm[i].flagged = false;
	}
	if (rc->group < 0 || (r->flags & (TOPDOWN_REC_ROTATED |
					  TOPDOWN_REC_ERROR_MASK)))
		return;
	for (int j = 0; j < TOPDOWN_MAX_EVENTS; j++)
		delta[j] = r->delta[j];
	td_gdecode(&d->vc->gd, rc->group, delta, &gm);
	for (int i = 0; i < d->nr_tree; i++) {
		if (d->tree[i].group != rc->group || d->tree[i].index >= gm.n)
			continue;
		d->rm[i].value = gm.m[d->tree[i].index].value;
		d->rm[i].valid = gm.m[d->tree[i].index].valid;
		d->rm[i].flagged = gm.m[d->tree[i].index].flagged;
	}
}

static void print_record(struct dump_ctx *d, const struct topdown_record *r)
{
	char comm[COMM_TEXT_SIZE], fl[8];
	size_t len, cols;
	struct td_metrics tm;
	struct rcounts rc;
	struct mview m;
	const char *sep;

	record_counts(d, r, &rc);
	if (d->rotated) {
		rotated_metrics(d, r, &rc);
		m = (struct mview){ d->nr_tree, d->rm };
	} else {
		tm.n = 0;
		if (d->can_decode)
			td_decode(&d->dec, rc.c, &tm);
		/* An unreadable count is not 0: no metric of the slice is
		 * known, as none of a rotated group's slice with one is.
		 */
		for (int i = 0; (r->flags & TOPDOWN_REC_ERROR_MASK) && i < tm.n;
		     i++) {
			tm.m[i].valid = false;
			tm.m[i].flagged = false;
		}
		m = (struct mview){ tm.n, tm.m };
	}
	metric_names(d, &m);
	if (!json_output) {
		len = comm_str(r, comm, &cols);
		flags_str(r->flags, fl);
		if (csv_output)
			put_csv(d, r, &rc, &m, comm, fl);
		else
			put_plain(d, r, &rc, &m, comm, len, cols, fl);
		return;
	}
	sep = d->follow ? NULL : jsonw_raw_begin(json_wtr);
	if (sep)
		put_json(d, r, &rc, &m, sep);
	else
		print_json_writer(d, r, &rc, &m);
}

/* Print recs[0..n) in time order (the filter's records only). */
static int print_ordered(struct dump_ctx *d, const struct topdown_record *recs,
			 size_t n, uint32_t nr_cpus,
			 const struct td_filter *filter)
{
	const struct topdown_record *r;
	struct td_order o;

	if (td_order_init(&o, recs, n, nr_cpus, filter)) {
		td_order_free(&o);
		d->oom = true;
		return -1;
	}
	while ((r = td_order_next(&o)))
		print_record(d, r);
	d->printed += o.n;
	td_order_free(&o);
	td_buf_flush(&d->out);
	fflush(stdout);
	return 0;
}

static void flush_batch(struct dump_ctx *d)
{
	print_ordered(d, d->batch, d->n, (uint32_t)d->rd.nr_cpus, NULL);
	d->n = 0;
}

static const char dump_desc[] =
	"Print the time slices collected since the last read, oldest first:\n"
	"time, CPU, pid/tid, comm, slice length, flags (S blocked, P preempted,\n"
	"F first after start, I idle, E counter error), the raw counts and the\n"
	"metrics of the event set. Lost records are reported on stderr. With\n"
	"-i FILE, the slices of a record file, on any machine.\n";

/* Start the output: JSON array or the table's header. */
static int dump_begin(struct dump_ctx *d)
{
	if (td_buf_init(&d->out, stdout)) {
		p_err("out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < nr_ev(d); i++)
		d->ev_json_len[i] = json_name(d->ev_json[i], ev_name(d, i));
	if (json_output && !d->follow)
		jsonw_start_array(json_wtr);
	else if (json_output)
		jsonw_stream_begin(json_wtr);
	else if (!json_output)
		print_header(d);
	return 0;
}

/* A failed write leaves stdout's error set: main() reports it. */
static void dump_end(struct dump_ctx *d)
{
	td_buf_close(&d->out);

	if (json_output && !d->follow)
		jsonw_end_array(json_wtr);
	else if (json_output)
		jsonw_stream_end(json_wtr);
	/* The legend of the marks the table showed. */
	if (!json_output && !csv_output && (d->marked || d->flagged))
		printf("\n%s%s%s\n", !d->marked ? "" : d->path ?
		       TD_VOC_LEGEND_PATH : TD_VOC_LEGEND_MARK,
		       d->marked && d->flagged ? "\n" : "",
		       d->flagged ? TD_VOC_LEGEND_FLAG : "");
	free(d->batch);
}

static int dump_file(struct dump_ctx *d, const char *path, bool force)
{
	const struct topdown_record *recs;
	struct td_file_image img;
	struct td_lost lost;
	struct td_file f;

	if (td_input_load(path, NULL, &img, &f, NULL, NULL,
			  TD_FILE_GROUPS | (force ? TD_FILE_SALVAGE : 0)))
		return -1;
	if (dump_setup(d, &f.meta.cfg)) {
		td_file_unload(&img, &f);
		return -1;
	}
	d->base_ns = f.meta.start_ns;
	d->filter.base_ns = d->base_ns;
	td_filter_warn_cpus(&d->filter, f.meta.nr_cpus);
	td_file_lost(&f, &lost);
	td_lost_warn(&lost, "while recording");
	/* The records in place, or converted to the host's byte order. */
	recs = td_file_records(&f);
	if (!recs) {
		d->batch = malloc((f.nr_records ? f.nr_records : 1) *
				  sizeof(*d->batch));
		if (!d->batch) {
			td_file_unload(&img, &f);
			p_err("out of memory buffering records");
			return -1;
		}
		for (uint64_t i = 0; i < f.nr_records; i++)
			td_file_record(&f, i, &d->batch[i]);
		recs = d->batch;
	}
	if (dump_begin(d)) {
		td_file_unload(&img, &f);
		free(d->batch);
		return -1;
	}
	print_ordered(d, recs, f.nr_records, f.meta.nr_cpus,
		      d->filter.any ? &d->filter : NULL);
	dump_end(d);
	td_file_unload(&img, &f);
	if (d->oom) {
		p_err("out of memory ordering records");
		return -1;
	}
	return 0;
}

int do_dump(int argc, char **argv)
{
	struct dump_ctx d = { 0 };
	struct topdown_cpu_stats *stats = NULL;
	struct topdown_status st;
	unsigned long long duration = 0;
	const char *input = NULL;
	struct td_getopt g;
	uint64_t t0;
	bool force = false;
	int opt, ret = 0;

	td_filter_init(&d.filter);
	td_getopt_build(&g, "dump", dump_desc);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0) {
		int r = td_filter_opt(&d.filter, opt, optarg);

		if (r < 0)
			return -1;
		if (r)
			continue;
		switch (opt) {
		case 'i':
			input = optarg;
			break;
		case 'f':
			d.follow = true;
			break;
		case 'd':
			if (parse_u64("--duration", optarg, 86400 * 365, &duration))
				return -1;
			d.follow = true;
			break;
		case 'F':
			force = true;
			break;
		}
	}
	opt = td_getopt_end(opt, argc, argv, false);
	if (opt <= 0)
		return opt;
	if (td_filter_check(&d.filter))
		return -1;
	if (input && d.follow) {
		p_usage_error("--follow and --duration read the rings, not a file (-i)");
		return -1;
	}
	if (input) {
		ret = dump_file(&d, input, force);
		free(d.vc);
		return ret;
	}
	if (force) {
		p_usage_error("--force reads a record file (-i FILE)");
		return -1;
	}
	if (td_reader_open(&d.rd))
		return -1;
	if (dump_setup(&d, &d.rd.cfg)) {
		free(d.vc);
		td_reader_close(&d.rd);
		return -1;
	}
	/* time_s counts from the collection's start. */
	if (!td_reader_status(&d.rd, &st, &stats))
		d.base_ns = st.start_ns;
	d.filter.base_ns = d.base_ns;
	free(stats);
	if (dump_begin(&d)) {
		free(d.vc);
		td_reader_close(&d.rd);
		return -1;
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = td_now_ns();
	do {
		td_reader_drain(&d.rd, on_record, on_lost, &d);
		if (d.oom) {
			p_err("out of memory buffering records");
			ret = -1;
			break;
		}
		flush_batch(&d);
		if (!d.follow)
			break;
		if (duration &&
		    td_now_ns() - t0 >= duration * 1000000000ull)
			break;
		td_reader_wait(&d.rd, 200);
	} while (!stop_flag);
	if (d.follow) {
		/* Whatever arrived during the last wait, or before Ctrl-C. */
		td_reader_drain(&d.rd, on_record, on_lost, &d);
		flush_batch(&d);
	}

	dump_end(&d);
	free(d.vc);
	td_reader_close(&d.rd);
	return ret;
}
