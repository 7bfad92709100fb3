// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl timeline: the slices of a record file (or of a live collection of
 * --duration seconds) as Chrome Trace Event Format JSON, which
 * ui.perfetto.dev and chrome://tracing load. The options and the
 * records are here; the trace, its tracks and its size's estimate are
 * export/trace.h's (Documentation/man/tdctl-timeline.rst is the
 * reference).
 *
 * The trace goes to standard output, and so through every command's -o
 * FILE (base/'s output helper, td_outfile_open(): a regular file by a
 * temporary file renamed over it at the end, so a failure never leaves a
 * half-written FILE behind; a device or FIFO in place).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "live/cgpath.h"
#include "live/collect.h"
#include "export/trace.h"
#include "evset/evset.h"
#include "agg/aggregate.h"
#include "cli/tdctl.h"
#include "file/lost.h"
#include "file/tdfile.h"

const struct td_opt timeline_opts[] = {
	{ "input", 'i', 'i', TD_ARG_FILE, "FILE",
	  "the record file (default " TD_DEFAULT_FILE "; - for stdin)", 0 },
	TD_OPT_FORCE,
	{ "min-slice", 0, 'm', TD_ARG_NUM, "US",
	  "leave out slices shorter than US microseconds", 0 },
	TD_OPT_FILTERS,
	{ "duration", 0, 'D', TD_ARG_NUM, "S",
	  "record every task live for S seconds instead of reading a file", 0 },
	{ "counters", 0, 'c', TD_ARG_WORD, "MODE",
	  "per-thread counter events: interval[:S] (one per S seconds, the "
	  "default, S 0.1), change[:T] (when a value moves by more than T, "
	  "0.05), slice or none", 0 },
	{ "max-size", 0, 'Z', TD_ARG_NUM, "SIZE",
	  "warn before writing a trace estimated above SIZE bytes (K, M, G: "
	  "binary; default 512M, what a browser opens; 0: never)", 0 },
	TD_OPT_OUT_JSON,
	TD_OPT_OUT_FILE,
	TD_OPT_HELP,
	TD_OPT_END,
};

static const char timeline_desc[] =
	"Write the slices of a record file of 'tdctl record' (or, with\n"
	"--duration, of every task for S seconds, read live from the rings)\n"
	"as a Chrome Trace Event Format JSON file for ui.perfetto.dev or\n"
	"chrome://tracing: a track per CPU with one slice per time slice,\n"
	"named by comm, with its pid, tid, cgroup, counts and TopDown\n"
	"fractions; per-thread counter tracks of IPC and the TopDown\n"
	"fractions (--counters: per interval, the default, when they\n"
	"change, at every slice, or none); lost records as instant events.\n";

/* ---- live: every task for --duration seconds ---------------------------- */

struct tl_live {
	struct td_live live;
	struct td_target tgt;
	struct topdown_record *recs;
	uint64_t n, cap;
	bool oom;
};

static void tl_on_record(const struct topdown_record *r, void *ctx)
{
	struct tl_live *c = ctx;

	if (c->oom)
		return;
	if (c->n == c->cap) {
		uint64_t ncap = c->cap ? c->cap * 2 : 65536;
		struct topdown_record *n = realloc(c->recs, ncap * sizeof(*n));

		if (!n) {
			c->oom = true;
			c->live.stop = true;
			return;
		}
		c->recs = n;
		c->cap = ncap;
	}
	c->recs[c->n++] = *r;
}

/* --max-size SIZE: bytes, or K, M, G (binary) after the number. */
static int parse_size(const char *opt, const char *arg, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (end != arg && *end && !end[1])
		shift = *end == 'K' || *end == 'k' ? 10 :
			*end == 'M' || *end == 'm' ? 20 :
			*end == 'G' || *end == 'g' ? 30 : -1;
	else if (*end)
		shift = -1;
	if (errno || end == arg || *arg == '-' || shift < 0 ||
	    v > (UINT64_MAX >> shift)) {
		p_usage_error("%s: '%s' is not a size (a number of bytes, K, M or G after it)",
			      opt, arg);
		return -1;
	}
	*out = (uint64_t)v << shift;
	return 0;
}

/* --counters change[:T] | slice | interval[:S] | none */
static int parse_counters(const char *arg, struct td_trace_opts *opt)
{
	const char *colon = strchr(arg, ':');
	size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
	unsigned long long ns;
	char *end;

	if (len == 6 && !strncmp(arg, "change", 6)) {
		opt->counters = TD_TRACE_CNT_CHANGE;
		if (!colon)
			return 0;
		errno = 0;
		opt->threshold = strtod(colon + 1, &end);
		if (!errno && end != colon + 1 && !*end &&
		    opt->threshold >= 0 && opt->threshold <= 10)
			return 0;
		p_err("--counters change:T: T is a number from 0 to 10 (a fraction's change, or IPC's relative one), not '%s'",
		      colon + 1);
		return -1;
	}
	if (len == 8 && !strncmp(arg, "interval", 8)) {
		opt->counters = TD_TRACE_CNT_INTERVAL;
		if (!colon)
			return 0;
		if (parse_seconds("--counters interval", colon + 1, 3600, &ns))
			return -1;
		if (!ns) {
			p_err("--counters interval:S: S must be more than 0");
			return -1;
		}
		opt->interval_ns = ns;
		return 0;
	}
	if (!colon && !strcmp(arg, "slice")) {
		opt->counters = TD_TRACE_CNT_SLICE;
		return 0;
	}
	if (!colon && !strcmp(arg, "none")) {
		opt->counters = TD_TRACE_CNT_NONE;
		return 0;
	}
	p_err("--counters: '%s' is not change[:T], slice, interval[:S] or none",
	      arg);
	return -1;
}

int do_timeline(int argc, char **argv)
{
	const char *in = NULL;
	struct td_trace_opts opt = {
		.counters = TD_TRACE_CNT_INTERVAL, .threshold = 0.05,
		.interval_ns = 100000000, .max_size = TD_TRACE_MAX_SIZE,
		.version = tdctl_version, .stop = &td_signal,
	};
	struct tl_live *lv = NULL;
	struct td_view_cfg *vc = NULL;
	const struct topdown_config *cfg = NULL;
	struct td_file_image img = { 0 };
	struct td_file f = { 0 };
	struct td_trace_src src = { 0 };
	struct td_lost lost;
	unsigned long long v, dur = 0;
	bool loaded = false, force = false;
	struct td_getopt g;
	int o, ret = -1;

	/* ^C from the start (-o's temporary file exists once the options
	 * are read): no trace, the temporary file removed, any old trace
	 * kept.
	 */
	td_catch_signals();
	td_filter_init(&opt.filter);
	td_getopt_build(&g, "timeline", timeline_desc);
	while ((o = td_getopt_next(&g, argc, argv)) >= 0) {
		int r = td_filter_opt(&opt.filter, o, optarg);

		if (r < 0)
			return -1;
		if (r)
			continue;
		switch (o) {
		case 'i':
			in = optarg;
			break;
		case 'm':
			if (parse_u64("--min-slice", optarg, 1000000000ull, &v))
				return -1;
			opt.min_ns = v * 1000;
			break;
		case 'c':
			if (parse_counters(optarg, &opt))
				return -1;
			break;
		case 'D':
			if (parse_seconds("--duration", optarg, 86400, &dur))
				return -1;
			if (!dur) {
				p_err("--duration must be more than 0");
				return -1;
			}
			break;
		case 'F':
			force = true;
			break;
		case 'Z':
			if (parse_size("--max-size", optarg, &opt.max_size))
				return -1;
			break;
		}
	}
	o = td_getopt_end(o, argc, argv, false);
	if (o <= 0)
		return o;
	if (in && dur) {
		p_usage_error("-i FILE and --duration exclude each other");
		return -1;
	}
	if (force && dur) {
		p_usage_error("--force reads a record file, --duration the rings");
		return -1;
	}
	if (td_filter_check(&opt.filter))
		return -1;
	if (!in && !dur)
		in = TD_DEFAULT_FILE;

	if (in) {
		if (td_input_load(in, NULL, &img, &f, NULL, NULL,
				  TD_FILE_GROUPS | (force ? TD_FILE_SALVAGE : 0)))
			return -1;
		loaded = true;
		cfg = &f.meta.cfg;
		src.nr_cpus = f.meta.nr_cpus;
		td_filter_warn_cpus(&opt.filter, src.nr_cpus);
		src.lost = f.interrupted ? NULL : f.meta.lost;
		td_file_lost(&f, &lost);
		td_lost_warn(&lost, "while recording");
		src.start_ns = f.meta.start_ns;
		src.stop_ns = f.meta.stop_ns;
		src.start_realtime_ns = f.meta.start_realtime_ns;
		src.f = &f;
		src.recs = td_file_records(&f);
		src.n = f.nr_records;
		src.what = in;
		src.all_tasks = !strcmp(f.meta.target, "all tasks");
	} else {
		lv = calloc(1, sizeof(*lv));
		if (!lv) {
			p_err("out of memory");
			return -1;
		}
		td_target_init(&lv->tgt);
		lv->tgt.duration_ns = dur;
		if (td_live_open(&lv->live, &lv->tgt, tl_on_record, lv))
			goto out;
		td_live_run(&lv->live, &(struct td_run){
			.duration_ns = dur, .key_fd = -1 });
		if (lv->oom) {
			p_err("out of memory after %llu records",
			      (unsigned long long)lv->n);
			goto out;
		}
		src.nr_cpus = (uint32_t)lv->live.rd.nr_cpus;
		src.lost = lv->live.lost;
		src.start_ns = lv->live.start_ns;
		src.stop_ns = td_now_ns();
		src.start_realtime_ns = lv->live.start_real_ns;
		src.cgroup_path = td_cgroup_path;
		src.all_tasks = true;
		src.recs = lv->recs;
		src.n = lv->n;
		src.what = "live";
	}

	/* The live collection has its view of the rings' configuration. */
	if (lv) {
		src.vc = lv->live.vc;
	} else {
		vc = malloc(sizeof(*vc));
		if (!vc) {
			p_err("out of memory");
			goto out;
		}
		if (td_view_cfg_init(vc, cfg))
			goto out;
		src.vc = vc;
	}
	src.cfg = &src.vc->cfg;
	/* A live collection ended at the first ^C: a second one stops the
	 * writing.
	 */
	if (lv)
		td_signal = 0;
	if (td_trace_write(stdout, &src, loaded ? &f.meta : NULL, &opt))
		goto out;
	ret = 0;
out:
	free(vc);
	if (loaded)
		td_file_unload(&img, &f);
	if (lv) {
		td_live_close(&lv->live);
		td_target_cleanup(&lv->tgt);
		free(lv->recs);
		free(lv);
	}
	return ret;
}
