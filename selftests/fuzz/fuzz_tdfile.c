// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target of the record file reader: td_file_parse() on any input,
 * and for inputs it accepts, what report and top do with them: every
 * record read back, grouped in every way, decoded, sorted by every column
 * and printed as a table, CSV and JSON (to /dev/null); and with event
 * groups (format 2.0, or one group of a 1.0 file) the per-group sums,
 * clusters and estimates of every row, aggregated in two halves merged.
 *
 * Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, which makes the
 * parser ignore a wrong checksum so that mutated files get past it.
 * An error message that does not start with "offset N: " is a bug too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "agg/aggregate.h"
#include "agg/estimate.h"
#include "file/tdfile.h"

int fuzz_parsed_ok;	/* for the replay driver */

static FILE *devnull;

/* Metrics of a group as an event set's decoder would compute them:
 * ratios to the group's first event, and one of them per unit of time.
 */
static void fuzz_metrics(const void *ctx, int group, const double *c, int k,
			 double time_ns, double *out, bool *valid)
{
	(void)ctx;
	(void)group;
	for (int j = 0; j < k; j++) {
		out[j] = j ? c[j] / c[0] : c[0] / time_ns;
		valid[j] = j ? c[0] > 0 : time_ns > 0;
	}
}

/* The event groups' sums, clusters and estimates of every row. */
static void use_groups(const struct td_file *f)
{
	const struct topdown_config *cfg = &f->meta.cfg;
	struct td_estimate e[TD_EST_MAX_METRICS];
	struct topdown_record r;
	struct td_agg a, half;

	for (int by = 0; by < TD_BY_NR; by++) {
		td_agg_init(&a, by);
		td_agg_init(&half, by);
		if (td_agg_groups(&a, cfg) || td_agg_groups(&half, cfg))
			abort();	/* the parser accepted cfg */
		for (uint64_t i = 0; i < f->nr_records; i++) {
			td_file_record(f, i, &r);
			td_agg_add(i < f->nr_records / 2 ? &a : &half, &r);
		}
		td_agg_finish(&a);
		td_agg_merge(&a, &half);
		for (size_t i = 0; i <= a.n; i++) {
			const struct td_bucket *b = i < a.n ? &a.bucket[i] : &a.total;

			for (uint32_t p = 0; p < cfg->nr_events; p++)
				td_est_count(&a, b, p, &e[0]);
			for (int k = 0; k < a.nr_groups; k++) {
				struct td_est_fn fn = { a.group_events[k],
							fuzz_metrics, NULL };

				td_est_metrics(&a, b, k, &fn, e);
				for (int m = 0; m < fn.nr; m++)
					if (e[m].kind != TD_EST_UNKNOWN &&
					    (!(e[m].error >= 0) ||
					     !(e[m].coverage > 0 &&
					       e[m].coverage <= 1)))
						abort();
			}
		}
		td_agg_free(&a);
		td_agg_free(&half);
	}
}

static void use(const struct td_file *f)
{
	char names[TOPDOWN_MAX_EVENTS][TOPDOWN_NAME_LEN];
	const struct topdown_config *cfg = &f->meta.cfg;
	struct topdown_record r;
	struct td_decoder dec;
	struct td_view v;
	struct td_agg a;
	char err[256];
	bool can;

	memset(names, 0, sizeof(names));
	for (uint32_t i = 0; i < cfg->nr_events; i++)
		memcpy(names[i], cfg->events[i].name, TOPDOWN_NAME_LEN);
	can = !td_decoder_from_label(&dec, cfg->label,
				     (const char (*)[TOPDOWN_NAME_LEN])names,
				     cfg->nr_events, err, sizeof(err));
	for (int by = 0; by < TD_BY_NR; by++) {
		td_agg_init(&a, by);
		for (uint64_t i = 0; i < f->nr_records; i++) {
			td_file_record(f, i, &r);
			td_agg_add(&a, &r);
		}
		td_view_init(&v, by, cfg, can ? &dec : NULL);
		for (int c = 0; c < v.nr_cols; c++) {
			json_writer_t *w = jsonw_new(devnull);

			v.sort_col = c;
			v.compact = c & 1;
			v.interval_ns = c & 2 ? 1000000 : 0;
			v.width = c & 4 ? 40 : 0;
			v.opts.metric_only = c & 8;
			v.opts.big_num = c & 16;
			/* The output format is the global one: each in turn. */
			td_table_print(devnull, &v, &a, &(struct td_table_out){
				.header = true, .total = true,
				.time_in = c & 1 ? TD_IN_PLAIN : 0,
				.time_s = 1.0 });
			csv_output = true;
			td_table_print(devnull, &v, &a, &(struct td_table_out){
				.header = true, .time_in = c & 1 ? TD_IN_CSV : 0,
				.time_s = 1.0 });
			csv_output = false;
			json_output = true;
			json_wtr = w;
			jsonw_start_object(w);
			td_table_print(devnull, &v, &a,
				       &(struct td_table_out){ 0 });
			jsonw_end_object(w);
			json_output = false;
			json_wtr = NULL;
			jsonw_destroy(&w);
		}
		td_agg_free(&a);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long long off;
	struct td_file f;
	char err[600];

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	fuzz_parsed_ok = 0;
	if (td_file_parse(&f, data, size, err, sizeof(err))) {
		if (sscanf(err, "offset %llu: ", &off) != 1 || off > size)
			abort();
		return 0;
	}
	fuzz_parsed_ok = 1;
	/* use() is the tables of a configuration without groups; files
	 * with event groups go through the estimator (tdctl timeline reads
	 * every corpus file, groups or not: selftests/host/test_timeline.py).
	 */
	if (!f.meta.cfg.nr_groups)
		use(&f);
	use_groups(&f);
	td_file_free(&f);
	return 0;
}
