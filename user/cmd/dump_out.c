// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl dump's output (dump.c reads the records, takes each one's counts
 * and metrics, then calls here): the table's header, its lines with the
 * bottleneck path marked and the legend of the marks, CSV rows and JSON
 * objects, formatted in dump_ctx's buffer (output/fmt.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/tdctl.h"
#include "cmd/dump_priv.h"
#include "evset/evset.h"
#include "output/fmt.h"
#include "output/text.h"
#include "output/vocab.h"

/* Rotated: whether group g counts pool entry p. */
static bool in_group(const struct dump_ctx *d, int g, uint32_t p)
{
	const struct topdown_group *grp = &d->cfg->groups[g];

	for (uint32_t j = 0; j < grp->nr_events && j < TOPDOWN_MAX_EVENTS; j++)
		if (grp->events[j] == p)
			return true;
	return false;
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
 * inlined into both of dump_put()'s calls: the compact one is the
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
 * dump_put() stays as small as its fast paths.
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

/* A record with its counts rc and metrics m (dump.c's print_record()):
 * the table's line, a CSV row or a JSON object.
 */
void dump_put(struct dump_ctx *d, const struct topdown_record *r,
	      const struct rcounts *rc, const struct mview *m)
{
	char comm[COMM_TEXT_SIZE], fl[8];
	size_t len, cols;
	const char *sep;

	metric_names(d, m);
	if (!json_output) {
		len = comm_str(r, comm, &cols);
		flags_str(r->flags, fl);
		if (csv_output)
			put_csv(d, r, rc, m, comm, fl);
		else
			put_plain(d, r, rc, m, comm, len, cols, fl);
		return;
	}
	sep = d->follow ? NULL : jsonw_raw_begin(json_wtr);
	if (sep)
		put_json(d, r, rc, m, sep);
	else
		print_json_writer(d, r, rc, m);
}

/* Start the output: JSON array or the table's header. */
int dump_begin(struct dump_ctx *d)
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
void dump_end(struct dump_ctx *d)
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
