// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl dump: drain the rings and print one line (or JSON object, or CSV
 * row) per time slice, with the raw deltas named after the configured
 * events and the metrics of the event set.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg/aggregate.h"
#include "live/collect.h"
#include "live/device.h"
#include "evset/evset.h"
#include "output/fmt.h"
#include "file/order.h"
#include "cmd/dump_priv.h"
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

/* A record's counts (record_counts()) and metrics, written by
 * dump_put() (dump_out.c).
 */
static void print_record(struct dump_ctx *d, const struct topdown_record *r)
{
	struct td_metrics tm;
	struct rcounts rc;
	struct mview m;

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
	dump_put(d, r, &rc, &m);
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
