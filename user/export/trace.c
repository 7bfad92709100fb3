// SPDX-License-Identifier: GPL-2.0
/*
 * Records as Chrome Trace Event Format JSON (export/trace.h): the CPU
 * tracks' slices, lost records, the metadata, otherData, and the size's
 * estimate before anything is written. The threads' counter tracks are
 * trace_counters.c's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/trace_priv.h"
#include "file/lost.h"
#include "output/text.h"

/* A counter event, for the estimate (SIZE: about 190 bytes). */
#define TR_COUNTER_BYTES	190
/* Slices formatted to measure their mean size. */
#define TR_SAMPLE		1024

/* A comm as a JSON string of its text (output/text.h). */
static void put_jcomm(struct td_buf *b, const char *comm)
{
	char t[TD_TEXT_SIZE(TOPDOWN_COMM_LEN)];

	put_jstr(b, t, td_text(t, comm, TOPDOWN_COMM_LEN, NULL));
}

static void put_lost(struct tr_out *o, uint32_t cpu, uint64_t ns,
		     uint64_t count, const char *why)
{
	struct td_buf *b = &o->b;

	put_str(b, ",\n{\"ph\":\"i\",\"s\":\"t\",\"pid\":");
	td_buf_u64(b, TR_CPU_PID, 0);
	put_str(b, ",\"tid\":");
	td_buf_u64(b, TR_CPU_PID + 1 + (uint64_t)cpu, 0);
	put_str(b, ",\"ts\":");
	put_us(o, ns);
	put_str(b, ",\"name\":\"lost ");
	td_buf_u64(b, count, 0);
	put_str(b, count == 1 ? " record" : " records");
	put_str(b, "\",\"cat\":\"lost\",\"args\":{\"lost\":");
	td_buf_u64(b, count, 0);
	put_str(b, ",\"why\":\"");
	put_str(b, why);
	put_str(b, "\"}}");
	o->lost_events++;
}

/* ,"metrics":{...}: the valid, finite metrics of m. */
static void put_metrics(struct td_buf *b, const struct td_metrics *m)
{
	bool any = false;

	put_str(b, ",\"metrics\":{");
	for (int i = 0; i < m->n; i++) {
		if (!m->m[i].valid || !isfinite(m->m[i].value))
			continue;
		if (any)
			td_buf_char(b, ',');
		any = true;
		td_buf_char(b, '"');
		put_str(b, m->m[i].name);
		put_str(b, "\":");
		put_num(b, m->m[i].value);
	}
	td_buf_char(b, '}');
}

/*
 * ,"counts":{...}: delta[j] for j < n under the name of pool entry
 * pool[j] (pool NULL: entry j, a configuration without rotation), null
 * where its error bit says it could not be read.
 */
static void put_counts(struct tr_out *o, const struct topdown_record *r,
		       const __u8 *pool, uint32_t n)
{
	struct td_buf *b = &o->b;

	put_str(b, ",\"counts\":{");
	for (uint32_t j = 0; j < n; j++) {
		uint32_t p = pool ? pool[j] : j;

		if (p >= TOPDOWN_MAX_POOL)
			continue;	/* the file parser refuses these */
		if (j)
			td_buf_char(b, ',');
		td_buf_mem(b, o->ev_json[p], (size_t)o->ev_len[p]);
		td_buf_char(b, ':');
		if (r->flags & (1u << j))
			put_str(b, "null");	/* unreadable */
		else
			td_buf_u64(b, r->delta[j], 0);
	}
	td_buf_char(b, '}');
}

/*
 * Rotated groups: the slice's group (TOPDOWN_REC_GROUP(); for a rotated
 * slice, which no group measured, the group its CPU moved to), its name,
 * the counts of that group's events by pool name (null: unreadable) and
 * the metrics that group computes from them alone; none for a rotated
 * slice, nor for one with an unreadable counter.
 */
static void put_group_slice(struct tr_out *o, const struct td_trace_src *s,
			    const struct topdown_record *r)
{
	struct td_buf *b = &o->b;
	uint32_t g = TOPDOWN_REC_GROUP(r->flags);
	const struct topdown_group *grp;
	uint64_t delta[TOPDOWN_MAX_EVENTS];
	struct td_metrics m;

	if (g >= s->cfg->nr_groups || g >= TOPDOWN_MAX_GROUPS) {
		/* the file parser refuses these */
		put_str(b, ",\"group\":null,\"counts\":{},\"metrics\":{}");
		return;
	}
	grp = &s->cfg->groups[g];
	put_str(b, ",\"group\":");
	td_buf_u64(b, g, 0);
	if (o->gd) {
		put_str(b, ",\"group_name\":");
		put_jstr(b, o->gd->g[g].name, sizeof(o->gd->g[g].name));
	}
	if (r->flags & TOPDOWN_REC_ROTATED) {
		put_str(b, ",\"rotated\":true,\"counts\":{},\"metrics\":{}");
		return;
	}
	put_str(b, ",\"rotated\":false");
	put_counts(o, r, grp->events,
		   grp->nr_events < TOPDOWN_MAX_EVENTS ? grp->nr_events :
		   TOPDOWN_MAX_EVENTS);
	if (!o->gd || (r->flags & TOPDOWN_REC_ERROR_MASK)) {
		put_str(b, ",\"metrics\":{}");
		return;
	}
	for (int j = 0; j < TOPDOWN_MAX_EVENTS; j++)
		delta[j] = r->delta[j];
	group_decode(o->gd, g, delta, &m);
	put_metrics(b, &m);
}

/* One slice: its X event on the CPU track and its thread's C event. */
static void put_slice(struct tr_out *o, const struct td_trace_src *s,
		      const struct td_decoder *dec,
		      const struct topdown_record *r, uint64_t start)
{
	struct td_buf *b = &o->b;
	const char *cg = s->cgroup_path && r->cgroup_id ?
			 s->cgroup_path(r->cgroup_id) : NULL;
	struct td_metrics m;

	put_str(b, ",\n{\"ph\":\"X\",\"pid\":");
	td_buf_u64(b, TR_CPU_PID, 0);
	put_str(b, ",\"tid\":");
	td_buf_u64(b, TR_CPU_PID + 1 + (uint64_t)r->cpu, 0);
	put_str(b, ",\"ts\":");
	put_us(o, start);
	put_str(b, ",\"dur\":");
	td_buf_u64(b, (r->time_ns - start) / 1000, 0);
	td_buf_char(b, '.');
	td_buf_digits(b, (r->time_ns - start) % 1000, 3);
	put_str(b, ",\"name\":");
	put_jcomm(b, r->comm);
	put_str(b, (r->flags & TOPDOWN_REC_IDLE) ? ",\"cat\":\"idle\"" :
		",\"cat\":\"task\"");
	put_str(b, ",\"args\":{\"pid\":");
	td_buf_u64(b, r->tgid, 0);
	put_str(b, ",\"tid\":");
	td_buf_u64(b, r->pid, 0);
	put_str(b, ",\"cgroup_id\":");
	td_buf_u64(b, r->cgroup_id, 0);
	if (cg) {
		put_str(b, ",\"cgroup\":");
		put_jstr(b, cg, strlen(cg));
	}
	/* the same keys in every slice's args, as the page lists them */
	put_str(b, (r->flags & TOPDOWN_REC_PREEMPTED) ?
		",\"preempted\":true" : ",\"preempted\":false");
	put_str(b, (r->flags & TOPDOWN_REC_FIRST) ?
		",\"first\":true" : ",\"first\":false");
	if (s->vc->rotated) {
		put_group_slice(o, s, r);
		put_str(b, "}}");
		o->slices++;
		return;
	}
	put_counts(o, r, NULL, s->cfg->nr_events);
	/* none if a counter was unreadable, as with rotated groups */
	if (dec && !(r->flags & TOPDOWN_REC_ERROR_MASK)) {
		uint64_t cnt[TOPDOWN_MAX_EVENTS];

		for (int e = 0; e < TOPDOWN_MAX_EVENTS; e++)
			cnt[e] = r->delta[e];
		td_decode(dec, cnt, &m);
		put_metrics(b, &m);
	} else {
		put_str(b, ",\"metrics\":{}");
	}
	put_str(b, "}}");
	o->slices++;
}

/* Does r's thread get a counter track? Not the idle task, nor a slice
 * with an unreadable counter. With rotated groups every slice of a
 * thread goes to tr_put_counters(), which counts those that no group
 * measured in the thread's time only.
 */
static bool has_counters(const struct td_trace_src *s,
			 const struct topdown_record *r)
{
	return r->pid && !(r->flags & TOPDOWN_REC_IDLE) &&
	       (s->vc->rotated || !(r->flags & TOPDOWN_REC_ERROR_MASK));
}

/* Metadata naming a track: comm is a task's comm, or "CPU n". */
static void put_meta(struct td_buf *b, const char *what, uint64_t pid,
		     uint64_t tid, const char *comm)
{
	put_str(b, ",\n{\"ph\":\"M\",\"pid\":");
	td_buf_u64(b, pid, 0);
	put_str(b, ",\"tid\":");
	td_buf_u64(b, tid, 0);
	put_str(b, ",\"name\":\"");
	put_str(b, what);
	put_str(b, "\",\"args\":{\"name\":");
	put_jcomm(b, comm);
	put_str(b, "}}");
}

/* Rotated groups: "rotate_ms" and "groups": [{"group": g, "name",
 * "id" (when the label decodes), "events": [pool names]}, ...].
 */
static void put_groups(struct tr_out *o, const struct td_trace_src *s)
{
	struct td_buf *b = &o->b;

	put_str(b, ",\"rotate_ms\":");
	td_buf_u64(b, s->cfg->rotate_ms, 0);
	put_str(b, ",\"groups\":[");
	for (uint32_t g = 0; g < s->cfg->nr_groups && g < TOPDOWN_MAX_GROUPS;
	     g++) {
		const struct topdown_group *grp = &s->cfg->groups[g];

		put_str(b, g ? ",{\"group\":" : "{\"group\":");
		td_buf_u64(b, g, 0);
		if (o->gd) {
			put_str(b, ",\"name\":");
			put_jstr(b, o->gd->g[g].name, sizeof(o->gd->g[g].name));
			put_str(b, ",\"id\":");
			put_jstr(b, o->gd->g[g].id, sizeof(o->gd->g[g].id));
		}
		put_str(b, ",\"events\":[");
		for (uint32_t j = 0; j < grp->nr_events &&
		     j < TOPDOWN_MAX_EVENTS; j++) {
			uint32_t p = grp->events[j];

			if (p >= TOPDOWN_MAX_POOL)
				continue;
			if (j)
				td_buf_char(b, ',');
			td_buf_mem(b, o->ev_json[p], (size_t)o->ev_len[p]);
		}
		put_str(b, "]}");
	}
	td_buf_char(b, ']');
}

/* The trace's head: otherData (the source, its host and configuration,
 * ts 0, the number of records), then the traceEvents array opens.
 */
static void put_other(struct tr_out *o, const struct td_trace_src *s,
		      const struct td_file_meta *m, uint64_t records)
{
	struct td_buf *b = &o->b;

	put_str(b, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"tdctl timeline ");
	put_str(b, o->version);
	put_str(b, "\",\"source\":");
	put_jstr(b, s->what, strlen(s->what));
	if (m) {
		put_str(b, ",\"host\":");
		put_jstr(b, m->host, sizeof(m->host));
		put_str(b, ",\"arch\":");
		put_jstr(b, m->arch, sizeof(m->arch));
		put_str(b, ",\"kernel\":");
		put_jstr(b, m->kernel, sizeof(m->kernel));
		put_str(b, ",\"cpu\":");
		put_jstr(b, m->cpu, sizeof(m->cpu));
	}
	put_str(b, ",\"label\":");
	put_jstr(b, s->cfg->label, sizeof(s->cfg->label));
	if (s->vc->rotated)
		put_groups(o, s);
	put_str(b, ",\"ts0_monotonic_ns\":\"");
	td_buf_u64(b, o->base, 0);
	put_str(b, "\",\"start_realtime_ns\":\"");
	td_buf_u64(b, s->start_realtime_ns, 0);
	put_str(b, "\",\"records\":\"");
	td_buf_u64(b, records, 0);
	put_str(b, "\"},\n\"traceEvents\":[\n");
}

/* A size in bytes as text: "1.4 GiB", "512 MiB", "900 bytes". */
static const char *size_text(char *buf, uint64_t v)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double x = (double)v;
	int u = -1;

	while (x >= 1024 && u < 3) {
		x /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, 32, "%llu bytes", (unsigned long long)v);
	else
		snprintf(buf, 32, x < 10 && x != (double)(uint64_t)x ?
			 "%.1f %s" : "%.0f %s", x, unit[u]);
	return buf;
}

/*
 * Before anything is written: the trace's size from the number of
 * slices it will show (shown, tracked of them with a counter track) and
 * the mean size of up to TR_SAMPLE of them, spread over the file,
 * formatted into o's buffer and dropped. --counters slice adds a counter
 * event per tracked slice; interval and change add fewer, not counted
 * (the estimate is then a floor). Above opt->max_size: a warning that
 * names what makes the trace smaller.
 */
static void size_check(struct tr_out *o, const struct td_trace_src *s,
		       const struct td_filter *filter,
		       const struct td_trace_opts *opt, uint64_t shown,
		       uint64_t tracked)
{
	const struct td_decoder *dec = s->vc->can_decode && !s->vc->rotated ?
				       &s->vc->dec : NULL;
	uint64_t step = shown / TR_SAMPLE + 1, k = 0, n = 0, bytes = 0;
	uint64_t last = 0, each, est, fit;
	struct topdown_record tmp;
	char a[32], b[32], c[48] = "";

	if (!opt->max_size || !shown)
		return;
	for (uint64_t i = 0; i < s->n && n < TR_SAMPLE; i++) {
		const struct topdown_record *r = tr_rec(s, i, &tmp);
		uint64_t start = r->duration_ns > r->time_ns ? 0 :
				 r->time_ns - r->duration_ns;
		char *p0 = o->b.p;

		if (r->cpu >= s->nr_cpus || !td_filter_match(filter, r) ||
		    r->duration_ns < opt->min_ns || k++ % step)
			continue;
		put_slice(o, s, dec, r, start);
		bytes += (uint64_t)(o->b.p - p0);
		o->b.p = p0;
		n++;
	}
	o->slices = 0;
	if (!n)
		return;
	each = (bytes + n - 1) / n;
	if (opt->counters == TD_TRACE_CNT_SLICE && s->vc->can_decode)
		last = tracked * TR_COUNTER_BYTES;
	est = shown * each + last;
	if (est <= opt->max_size)
		return;
	fit = opt->max_size / (each + last / shown);
	if (last)
		snprintf(c, sizeof(c), " and %llu counter events",
			 (unsigned long long)tracked);
	p_warn("the trace will be about %s (%llu slices of about %llu bytes%s), more than --max-size (%s): browsers cannot open a JSON trace over about 512 MiB (tdctl-timeline(8), SIZE). About %llu slices fit: make it smaller with --from/--to, --min-slice, --pid, --tid, --cpu, --cgroup, --comm or --counters none",
	       size_text(a, est), (unsigned long long)shown,
	       (unsigned long long)each,
	       c,
	       size_text(b, opt->max_size), (unsigned long long)fit);
}

int td_trace_write(FILE *out, const struct td_trace_src *s,
		   const struct td_file_meta *meta,
		   const struct td_trace_opts *opt)
{
	const struct td_decoder *dec = &s->vc->dec;
	bool can_decode = s->vc->can_decode;
	uint64_t *last_end = calloc(s->nr_cpus + 1, sizeof(uint64_t));
	bool *used = calloc(s->nr_cpus + 1, sizeof(bool));
	struct td_gaps gaps = { 0 };
	struct tr_threads th = { 0 }, named = { 0 };
	struct tr_cslice *cs = NULL;
	size_t ncs = 0, cs_cap = 0;
	uint64_t shown = 0, tracked = 0;
	bool track;
	struct topdown_record tmp;
	struct td_filter filter, nowin;
	uint64_t from, to;
	struct tr_out *o = calloc(1, sizeof(*o));
	int ret = -1;

	if (!last_end || !used || !o ||
	    td_gaps_init(&gaps, s->nr_cpus, s->lost, s->all_tasks) ||
	    td_buf_init(&o->b, out)) {
		p_err("out of memory");
		goto out;
	}
	o->version = opt->version;
	for (uint32_t e = 0; e < s->cfg->nr_events && e < TOPDOWN_MAX_POOL; e++) {
		const char *name = td_pool_event_c(s->cfg, e)->name;

		o->ev_len[e] = (int)jsonw_escape(o->ev_json[e], name,
						 strnlen(name, TOPDOWN_NAME_LEN));
	}
	if (s->vc->rotated && can_decode && tr_counters_init(o, s, opt)) {
		p_err("out of memory");
		goto out;
	}
	/* The filters, --from and --to in seconds into the recording. */
	filter = opt->filter;
	filter.base_ns = s->start_ns;
	td_filter_window(&filter, &from, &to);
	/* the other filters alone: a slice they keep that filter does not
	 * is outside the window
	 */
	nowin = filter;
	nowin.from_set = false;
	nowin.to_set = false;
	/* ts 0: the earliest slice start (a first slice can begin before
	 * the recording did), so that every ts is positive; the slices
	 * shown, for the size's estimate.
	 */
	o->base = s->start_ns;
	for (uint64_t i = 0; i < s->n; i++) {
		const struct topdown_record *r = tr_rec(s, i, &tmp);
		uint64_t st = r->duration_ns > r->time_ns ? 0 :
			      r->time_ns - r->duration_ns;

		if (st < o->base)
			o->base = st;
		if (r->cpu < s->nr_cpus && td_filter_match(&filter, r) &&
		    r->duration_ns >= opt->min_ns) {
			int g = o->gd ? measured_by(s, r) : 0;

			shown++;
			/* --counters slice: an event per slice of a
			 * thread (with rotation, measured by a group
			 * with a series)
			 */
			if (has_counters(s, r) && g >= 0 &&
			    (!o->gd || tr_group_series(o, (uint32_t)g)))
				tracked++;
		}
	}
	size_check(o, s, &filter, opt, shown, tracked);
	put_other(o, s, meta, s->n);

	put_str(&o->b, "{\"ph\":\"M\",\"pid\":");
	td_buf_u64(&o->b, TR_CPU_PID, 0);
	put_str(&o->b, ",\"tid\":");
	td_buf_u64(&o->b, TR_CPU_PID, 0);
	put_str(&o->b, ",\"name\":\"process_name\",\"args\":{\"name\":\"CPUs\"}}");

	for (uint64_t i = 0; i < s->n && !th.oom; i++) {
		const struct topdown_record *r = tr_rec(s, i, &tmp);
		uint32_t c = r->cpu;
		uint64_t start = r->duration_ns > r->time_ns ? 0 :
				 r->time_ns - r->duration_ns, gap;

		if (!(i & 0xffff) && opt->stop && *opt->stop) {
			p_err("interrupted: no trace written");
			goto out;
		}

		if (c >= s->nr_cpus)
			continue;	/* the file parser refuses these */
		used[c] = true;
		/* Records lost in a gap of the CPU's sequence (file/lost.h). */
		gap = td_gaps_before(&gaps, r);
		if (gap && start >= from && start < to)
			put_lost(o, c, start, gap, "ring full");
		if (!td_filter_match(&filter, r)) {
			if (td_filter_match(&nowin, r))
				o->outside++;
			else
				o->filtered++;
			continue;
		}
		if (r->duration_ns < opt->min_ns) {
			o->short_skipped++;
			continue;
		}
		/* Slices of one CPU never overlap; a damaged file's would
		 * break the track's nesting, so they are cut.
		 */
		if (start < last_end[c]) {
			if (r->time_ns < last_end[c]) {
				o->clipped++;
				continue;
			}
			start = last_end[c];
		}
		last_end[c] = r->time_ns;
		put_slice(o, s, can_decode && !s->vc->rotated ? dec : NULL, r,
			  start);
		if (r->pid && !(r->flags & TOPDOWN_REC_IDLE)) {
			struct tr_thread *t =
				tr_thread(&th, (uint64_t)r->tgid << 32 | r->pid);

			if (t)
				memcpy(t->comm, r->comm, TOPDOWN_COMM_LEN);
		}
		/* its counter event, once every slice is known; with
		 * errors, every slice for the estimator's clusters
		 */
		track = can_decode && opt->counters != TD_TRACE_CNT_NONE &&
			has_counters(s, r);
		if (track || o->est_on) {
			if (ncs == cs_cap) {
				size_t cap = cs_cap ? 2 * cs_cap : 4096;
				struct tr_cslice *n = realloc(cs, cap * sizeof(*n));

				if (!n) {
					th.oom = true;
					break;
				}
				cs = n;
				cs_cap = cap;
			}
			cs[ncs++] = (struct tr_cslice){ start, i, track };
		}
	}
	if (!th.oom && ncs)
		tr_put_counters(o, s, dec, &th, cs, ncs, opt);
	if (th.oom) {
		p_err("out of memory");
		goto out;
	}
	/* What the trailer counts beyond the gaps: lost, at the end. */
	for (uint32_t c = 0; c < s->nr_cpus; c++)
		if (td_gaps_rest(&gaps, c)) {
			put_lost(o, c, s->stop_ns > o->base ? s->stop_ns : o->base,
				 td_gaps_rest(&gaps, c), "time unknown");
			used[c] = true;	/* its track needs its name */
		}
	for (uint32_t c = 0; c < s->nr_cpus; c++) {
		char name[24];

		if (!used[c])
			continue;
		snprintf(name, sizeof(name), "CPU %u", c);
		put_meta(&o->b, "thread_name", TR_CPU_PID, TR_CPU_PID + 1 + c,
			 name);
		put_str(&o->b, ",\n{\"ph\":\"M\",\"pid\":");
		td_buf_u64(&o->b, TR_CPU_PID, 0);
		put_str(&o->b, ",\"tid\":");
		td_buf_u64(&o->b, TR_CPU_PID + 1 + c, 0);
		put_str(&o->b, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":");
		td_buf_u64(&o->b, c, 0);
		put_str(&o->b, "}}");
	}
	/* A process is named after its main thread, else its first thread
	 * in the table.
	 */
	for (size_t k = 0; k < th.n; k++) {
		const struct tr_thread *t = &th.t[k];
		uint32_t tgid = (uint32_t)(t->key >> 32), tid = (uint32_t)t->key;
		const struct tr_thread *main_t;

		put_meta(&o->b, "thread_name", tgid, tid, t->comm);
		main_t = tr_find(&th, (uint64_t)tgid << 32 | tgid);
		if (main_t && main_t != t)
			continue;
		if (!main_t) {
			struct tr_thread *p = tr_thread(&named, tgid | 1ull << 63);

			if (!p || p->comm[0])
				continue;
			p->comm[0] = 1;
		}
		put_meta(&o->b, "process_name", tgid, tgid, t->comm);
	}
	if (named.oom) {
		p_err("out of memory");
		goto out;
	}
	put_str(&o->b, "\n]}\n");
	if (td_buf_close(&o->b)) {
		p_err("writing the trace: %s", strerror(errno));
		goto out_nobuf;
	}
	if (o->clipped)
		p_warn("%llu slices overlapped earlier ones of their CPU and were left out",
		       (unsigned long long)o->clipped);
	p_info("%llu slices, %llu counter events, %llu lost-record events; %llu left out by the filters, %llu outside the window, %llu shorter than --min-slice",
	       (unsigned long long)o->slices,
	       (unsigned long long)o->counters,
	       (unsigned long long)o->lost_events,
	       (unsigned long long)o->filtered,
	       (unsigned long long)o->outside,
	       (unsigned long long)o->short_skipped);
	ret = 0;
	goto out_nobuf;
out:
	if (o)
		td_buf_close(&o->b);
out_nobuf:
	tr_threads_free(&th);
	tr_threads_free(&named);
	free(cs);
	free(last_end);
	td_gaps_free(&gaps);
	free(used);
	if (o)
		td_agg_free(&o->est);
	free(o);
	return ret;
}
