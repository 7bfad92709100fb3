// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: the estimates of a record file with event groups, as JSON,
 * through the reader (user/file/) and the estimator (user/agg/), for
 * the Python tests that know the truth of the recording they generated
 * (test_groups.py). Not a tdctl command: the commands show estimates once
 * they are integrated; this prints everything the estimator returns.
 *
 *   tdestimate FILE [--by task|process|comm|cgroup|cpu]
 *   tdestimate FILE --rewrite OUT     parse, write back through the writer
 *   tdestimate FILE --bench K         CPU time per record of td_agg_add()
 *                                     without and with td_agg_groups()
 *                                     (and td_agg_finish), best of K rounds,
 *                                     alternating
 *
 * Metrics (defined here, as an event set's decoder would): for group g
 * and each of its events j >= 1, "g<g>:<event j>/<event 0>", the ratio to
 * the group's first event (its anchor); for groups of 3 events or more
 * also "g<g>:(<1>-<2>)/<0>", a difference of two ratios.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/common.h"
#include "file/tdfile.h"
#include "agg/aggregate.h"
#include "agg/estimate.h"

static void metric_fn(const void *ctx, int group, const double *c, int k,
		      double time_ns, double *out, bool *valid)
{
	int n = 0;

	(void)ctx;
	(void)group;
	(void)time_ns;
	for (int j = 1; j < k; j++, n++) {
		out[n] = c[j] / c[0];
		valid[n] = c[0] > 0;
	}
	if (k >= 3) {
		out[n] = (c[1] - c[2]) / c[0];
		valid[n] = c[0] > 0;
	}
}

static int nr_metrics(int k)
{
	return k - 1 + (k >= 3);
}

static void put_est(const char *name, const struct td_estimate *e,
		    bool comma)
{
	static const char *const kind[] = { "unknown", "exact", "estimated" };

	printf("%s\"%s\":{\"kind\":\"%s\",\"coverage\":%.17g,\"clusters\":%llu",
	       comma ? "," : "", name, kind[e->kind], e->coverage,
	       (unsigned long long)e->clusters);
	if (e->kind != TD_EST_UNKNOWN)
		printf(",\"value\":%.17g,\"error\":%.17g", e->value, e->error);
	printf("}");
}

/* A comm as a JSON string: bytes outside printable ASCII as \u00XX. */
static void put_comm(const char *c)
{
	putchar('"');
	for (int i = 0; i < TOPDOWN_COMM_LEN && c[i]; i++) {
		unsigned char b = (unsigned char)c[i];

		if (b < 0x20 || b >= 0x7f || b == '"' || b == '\\')
			printf("\\u%04x", b);
		else
			putchar(b);
	}
	putchar('"');
}

static void put_row(const struct td_agg *a, const struct topdown_config *cfg,
		    const struct td_bucket *b, bool total)
{
	const struct td_grow *gr = td_agg_grow(a, b);
	struct td_estimate est[TD_EST_MAX_METRICS];
	char name[128];
	bool first = true;

	if (total) {
		printf("{\"total\":true");
	} else {
		printf("{\"pid\":%u,\"tid\":%u,\"cpu\":%u,\"cgroup\":%llu,\"comm\":",
		       b->pid, b->tid, b->cpu,
		       (unsigned long long)b->cgroup_id);
		put_comm(b->comm);
	}
	printf(",\"time_ns\":%llu,\"slices\":%llu,"
	       "\"rotated\":%llu,\"rotated_ns\":%llu,\"groups\":[",
	       (unsigned long long)b->runtime_ns,
	       (unsigned long long)b->slices,
	       (unsigned long long)gr->rotated,
	       (unsigned long long)gr->rotated_ns);
	for (int k = 0; k < a->nr_groups; k++) {
		const struct td_gsum *s = &gr->g[k];

		printf("%s{\"slices\":%llu,\"time_ns\":%llu,"
		       "\"errors\":%llu,\"error_ns\":%llu,"
		       "\"clusters\":%llu,\"counts\":[",
		       k ? "," : "", (unsigned long long)s->slices,
		       (unsigned long long)s->time_ns,
		       (unsigned long long)s->errors,
		       (unsigned long long)s->error_ns,
		       (unsigned long long)s->mom.n);
		for (int j = 0; j < a->group_events[k]; j++)
			printf("%s%llu", j ? "," : "",
			       (unsigned long long)s->counts[j]);
		printf("]}");
	}
	printf("],\"counts\":{");
	for (uint32_t e = 0; e < cfg->nr_events; e++) {
		td_est_count(a, b, e, &est[0]);
		put_est(td_pool_event_c(cfg, e)->name, &est[0], e > 0);
	}
	printf("},\"metrics\":{");
	for (int k = 0; k < a->nr_groups; k++) {
		int ne = a->group_events[k];
		struct td_est_fn fn = { nr_metrics(ne), metric_fn, NULL };
		const char *ev[TOPDOWN_MAX_EVENTS];

		for (int j = 0; j < ne; j++)
			ev[j] = td_pool_event_c(cfg, cfg->nr_groups ?
						cfg->groups[k].events[j] :
						(unsigned int)j)->name;
		td_est_metrics(a, b, k, &fn, est);
		for (int m = 0; m < fn.nr; m++) {
			if (m < ne - 1)
				snprintf(name, sizeof(name), "g%d:%s/%s", k,
					 ev[m + 1], ev[0]);
			else
				snprintf(name, sizeof(name), "g%d:(%s-%s)/%s",
					 k, ev[1], ev[2], ev[0]);
			put_est(name, &est[m], !first);
			first = false;
		}
	}
	printf("}}");
}

static int rewrite(const struct td_file *f, const char *path)
{
	struct td_file_writer w;
	struct topdown_record r;
	FILE *out = fopen(path, "wb");

	if (!out)
		return -1;
	if (td_file_write_header(&w, out, &f->meta))
		return -1;
	for (uint64_t i = 0; i < f->nr_records; i++) {
		td_file_record(f, i, &r);
		if (td_file_write_record(&w, &r))
			return -1;
	}
	if (td_file_write_trailer(&w, &f->meta))
		return -1;
	return fclose(out);
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* td_agg_add() of every record, without and with the groups. */
static int bench(const struct td_file *f, enum td_by by, int rounds)
{
	double best[2] = { 1e30, 1e30 };
	struct topdown_record r;

	for (int k = 0; k < rounds; k++) {
		for (int grouped = 0; grouped < 2; grouped++) {
			struct td_agg a;
			double t0;

			td_agg_init(&a, by);
			if (grouped && td_agg_groups(&a, &f->meta.cfg))
				return 1;
			t0 = cpu_s();
			for (uint64_t i = 0; i < f->nr_records; i++) {
				td_file_record(f, i, &r);
				td_agg_add(&a, &r);
			}
			td_agg_finish(&a);
			t0 = cpu_s() - t0;
			if (t0 < best[grouped])
				best[grouped] = t0;
			td_agg_free(&a);
		}
	}
	printf("{\"records\":%llu,\"groups\":%u,\"by\":\"%s\","
	       "\"ns_per_record\":%.1f,\"ns_per_record_groups\":%.1f}\n",
	       (unsigned long long)f->nr_records, f->meta.cfg.nr_groups,
	       td_by_names[by], best[0] * 1e9 / f->nr_records,
	       best[1] * 1e9 / f->nr_records);
	return 0;
}

int main(int argc, char **argv)
{
	enum td_by by = TD_BY_TASK;
	const char *out = NULL;
	int rounds = 0;
	struct td_file_image img;
	const struct td_bucket **rows;
	struct topdown_record r;
	struct td_file f;
	struct td_agg a;
	char err[600];
	size_t n;

	if (argc < 2) {
		fprintf(stderr, "usage: tdestimate FILE [--by KEY] [--rewrite OUT]\n");
		return 2;
	}
	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--by")) {
			if (td_by_parse("--by", argv[i + 1], &by))
				return 2;
		} else if (!strcmp(argv[i], "--rewrite")) {
			out = argv[i + 1];
		} else if (!strcmp(argv[i], "--bench")) {
			rounds = atoi(argv[i + 1]);
		}
	}
	if (td_file_load_flags(argv[1], &img, &f, err, sizeof(err), NULL, NULL,
			       TD_FILE_GROUPS)) {
		fprintf(stderr, "tdestimate: %s\n", err);
		return 1;
	}
	if (out) {
		int ret = rewrite(&f, out);

		td_file_unload(&img, &f);
		if (ret)
			perror(out);
		return ret ? 1 : 0;
	}
	if (rounds > 0) {
		int ret = bench(&f, by, rounds);

		td_file_unload(&img, &f);
		return ret;
	}
	td_agg_init(&a, by);
	if (td_agg_groups(&a, &f.meta.cfg)) {
		fprintf(stderr, "tdestimate: td_agg_groups failed\n");
		return 1;
	}
	for (uint64_t i = 0; i < f.nr_records; i++) {
		td_file_record(&f, i, &r);
		if (!td_agg_add(&a, &r)) {
			fprintf(stderr, "tdestimate: out of memory\n");
			return 1;
		}
	}
	td_agg_finish(&a);
	printf("{\"nr_groups\":%d,\"rows\":[", a.nr_groups);
	rows = calloc(a.n ? a.n : 1, sizeof(*rows));
	for (size_t i = 0; i < a.n; i++)
		rows[i] = &a.bucket[i];
	n = a.n;
	for (size_t i = 0; i < n; i++) {
		if (i)
			printf(",\n");
		put_row(&a, &f.meta.cfg, rows[i], false);
	}
	printf("],\n\"total\":");
	put_row(&a, &f.meta.cfg, &a.total, true);
	printf("}\n");
	free(rows);
	td_agg_free(&a);
	td_file_unload(&img, &f);
	return 0;
}
