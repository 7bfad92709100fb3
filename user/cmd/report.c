// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl report: the buckets (--by) of a record file, as stat prints them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg/aggregate.h"
#include "live/collect.h"
#include "cli/tdctl.h"
#include "file/lost.h"
#include "file/tdfile.h"
#include "output/text.h"

const struct td_opt report_opts[] = {
	{ "input", 'i', 'i', TD_ARG_FILE, "FILE",
	  "the record file (default " TD_DEFAULT_FILE "; - for stdin)", 0 },
	{ "by", 0, 'B', TD_ARG_BY, "KEY",
	  "one row per task, process (default), comm, cgroup or cpu", 0 },
	TD_OPT_SORT,
	TD_OPT_TABLE,
	TD_OPT_FILTERS,
	TD_OPT_FORCE,
	TD_OPT_OUTPUT,
	TD_OPT_HELP,
	TD_OPT_END,
};

static const char report_desc[] =
	"Read a record file of 'tdctl record' (from any machine or\n"
	"architecture) and print what it recorded, then one row per task,\n"
	"process, comm, cgroup or CPU (--by) as 'tdctl stat' does: slices,\n"
	"run time, the summed raw counts and the TopDown breakdown decoded\n"
	"from the sums, sorted by cycles (or the first event when the set has\n"
	"no cycles event). A damaged or foreign\n"
	"file is refused with the byte offset of the first problem.\n";

static void format_time(uint64_t realtime_ns, char *buf, size_t n)
{
	time_t t = (time_t)(realtime_ns / 1000000000ull);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, n, "?");
}

/* JSON: the event groups of a 2.x file and their rotation (pool
 * indexes, as the file stores them); nothing for 1.x.
 */
static void groups_json(const struct topdown_config *c)
{
	jsonw_name(json_wtr, "groups");
	if (!c->nr_groups) {
		jsonw_null(json_wtr);
		return;
	}
	jsonw_start_array(json_wtr);
	for (uint32_t g = 0; g < c->nr_groups && g < TOPDOWN_MAX_GROUPS; g++) {
		const struct topdown_group *grp = &c->groups[g];

		jsonw_start_array(json_wtr);
		for (uint32_t j = 0; j < grp->nr_events &&
		     j < TOPDOWN_MAX_EVENTS; j++)
			jsonw_uint(json_wtr, grp->events[j]);
		jsonw_end_array(json_wtr);
	}
	jsonw_end_array(json_wtr);
	jsonw_uint_field(json_wtr, "rotate_ms", c->rotate_ms);
}

static void report_meta_json(const char *path, const struct td_file *f,
			     const char *set, uint64_t kept)
{
	const struct td_file_meta *m = &f->meta;
	struct td_lost lost;

	td_file_lost(f, &lost);
	jsonw_string_field(json_wtr, "file", path);
	jsonw_name(json_wtr, "format");
	jsonw_start_object(json_wtr);
	jsonw_uint_field(json_wtr, "major", m->version_major);
	jsonw_uint_field(json_wtr, "minor", m->version_minor);
	jsonw_end_object(json_wtr);
	jsonw_string_field(json_wtr, "host", m->host);
	jsonw_string_field(json_wtr, "arch", m->arch);
	jsonw_string_field(json_wtr, "kernel", m->kernel);
	jsonw_string_field(json_wtr, "cpu", m->cpu);
	jsonw_uint_field(json_wtr, "nr_cpus", m->nr_cpus);
	jsonw_string_field(json_wtr, "target", m->target);
	jsonw_string_field(json_wtr, "label", m->cfg.label);
	if (set)
		jsonw_string_field(json_wtr, "set", set);
	else
		jsonw_null_field(json_wtr, "set");
	jsonw_uint_field(json_wtr, "slots", m->slots);
	jsonw_name(json_wtr, "events");
	jsonw_start_array(json_wtr);
	for (uint32_t i = 0; i < m->cfg.nr_events && i < TOPDOWN_MAX_POOL;
	     i++) {
		const struct topdown_event *e = td_pool_event_c(&m->cfg, i);

		jsonw_start_object(json_wtr);
		jsonw_event_fields(json_wtr, e);
		jsonw_uint_field(json_wtr, "flags", e->flags);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
	groups_json(&m->cfg);
	jsonw_uint_field(json_wtr, "start_ns", m->start_ns);
	jsonw_uint_field(json_wtr, "stop_ns", m->stop_ns);
	jsonw_uint_field(json_wtr, "duration_ns", m->stop_ns - m->start_ns);
	jsonw_uint_field(json_wtr, "start_realtime_ns", m->start_realtime_ns);
	jsonw_uint_field(json_wtr, "records_in_file", f->nr_records);
	jsonw_uint_field(json_wtr, "records", kept);
	jsonw_uint_field(json_wtr, "records_read", m->records_read);
	td_json_lost(json_wtr, &lost, true);
}

/* The text of a file's string (output/text.h), "?" when empty, in buf
 * (TD_TEXT_SIZE(TD_FILE_TARGET_LEN) bytes).
 */
static const char *meta_text(char *buf, const char *s, size_t size)
{
	td_text(buf, s, size, NULL);
	return *buf ? buf : "?";
}

static void report_meta_plain(const char *path, const struct td_file *f,
			      uint64_t kept)
{
	const struct td_file_meta *m = &f->meta;
	char t1[TD_TEXT_SIZE(TD_FILE_TARGET_LEN)];
	char t2[TD_TEXT_SIZE(TD_FILE_TARGET_LEN)];
	char t3[TD_TEXT_SIZE(TD_FILE_TARGET_LEN)];
	char when[64], lost_text[32];
	struct td_lost lost;

	td_file_lost(f, &lost);
	format_time(m->start_realtime_ns, when, sizeof(when));
	printf("# record file %s (format %u.%u)\n", path, m->version_major,
	       m->version_minor);
	/* Every string of the file as text: the one rule of output/text.h. */
	printf("# recorded on %s (%s, Linux %s, %u CPUs), %s\n",
	       meta_text(t1, m->host, sizeof(m->host)),
	       meta_text(t2, m->arch, sizeof(m->arch)),
	       meta_text(t3, m->kernel, sizeof(m->kernel)), m->nr_cpus, when);
	if (*m->cpu)
		printf("# cpu: %s\n", meta_text(t1, m->cpu, sizeof(m->cpu)));
	printf("# target: %s\n", meta_text(t1, m->target, sizeof(m->target)));
	printf("# event set: %s; events:",
	       meta_text(t1, m->cfg.label, sizeof(m->cfg.label)));
	for (uint32_t i = 0; i < m->cfg.nr_events && i < TOPDOWN_MAX_POOL; i++)
		printf("%s %s", i ? "," : "",
		       meta_text(t1, td_pool_event_c(&m->cfg, i)->name,
				 TOPDOWN_NAME_LEN));
	printf("\n");
	if (m->cfg.nr_groups) {
		printf("# %u event groups, rotated every %u ms at a context switch:",
		       m->cfg.nr_groups, m->cfg.rotate_ms);
		for (uint32_t g = 0; g < m->cfg.nr_groups &&
		     g < TOPDOWN_MAX_GROUPS; g++) {
			const struct topdown_group *grp = &m->cfg.groups[g];

			printf("%s {", g ? "," : "");
			for (uint32_t j = 0; j < grp->nr_events &&
			     j < TOPDOWN_MAX_EVENTS; j++) {
				uint32_t p = grp->events[j];
				const char *name = p < TOPDOWN_MAX_POOL ?
					td_pool_event_c(&m->cfg, p)->name : "";

				printf("%s%s", j ? "," : "",
				       meta_text(t1, name, TOPDOWN_NAME_LEN));
			}
			printf("}");
		}
		printf("\n");
	}
	printf("# %.3f s, %llu records in the file (%llu read), %s; %llu shown\n\n",
	       (m->stop_ns - m->start_ns) / 1e9,
	       (unsigned long long)f->nr_records,
	       (unsigned long long)m->records_read,
	       td_lost_text(&lost, lost_text, sizeof(lost_text)),
	       (unsigned long long)kept);
}

struct report_ctx {
	struct td_agg *agg;
	struct td_filter *filter;
	bool filtered;
};

/* Records first..first+n of the file, just checked: into their buckets. */
static void report_block(const struct td_file *f, uint64_t first, uint64_t n,
			 void *ctx)
{
	const struct topdown_record *recs = td_file_records(f);
	struct report_ctx *rc = ctx;
	struct topdown_record r;

	if (!first)
		td_filter_warn_cpus(rc->filter, f->meta.nr_cpus);
	rc->filter->base_ns = f->meta.start_ns;	/* --from/--to */
	/* The sums and clusters of each event group (one without
	 * rotation), from the first record on (the configuration is known
	 * once the header is): the estimates of rotated groups and of rows
	 * with unreadable counts.
	 */
	if (!rc->agg->nr_groups && td_agg_groups(rc->agg, &f->meta.cfg))
		rc->agg->oom = true;
	for (uint64_t i = first; i < first + n && !rc->agg->oom; i++) {
		const struct topdown_record *rp = recs ? &recs[i] : &r;

		if (!recs)
			td_file_record(f, i, &r);
		if (rc->filtered && !td_filter_match(rc->filter, rp))
			continue;
		td_agg_add(rc->agg, rp);
	}
}

int do_report(int argc, char **argv)
{
	const char *path = TD_DEFAULT_FILE, *sort = NULL;
	struct report_ctx rc;
	struct td_file_image img;
	enum td_by by = TD_BY_PROCESS;
	struct td_filter filter;
	struct td_view_cfg *vc;
	struct td_table_out table = { .header = true, .total = true };
	struct td_table_opts topts = { 0 };
	struct td_getopt g;
	struct td_view view;
	struct td_agg agg;
	struct td_lost lost;
	struct td_file f;
	const char *set;
	bool force = false;
	int opt, ret = 0;

	td_filter_init(&filter);
	td_getopt_build(&g, "report", report_desc);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0) {
		int fr = td_filter_opt(&filter, opt, optarg);

		if (fr < 0)
			return -1;
		if (fr || td_table_opt(&topts, opt))
			continue;
		switch (opt) {
		case 'i':
			path = optarg;
			break;
		case 'B':
			if (td_by_parse("--by", optarg, &by))
				return -1;
			break;
		case 'S':
			sort = optarg;
			break;
		case 'F':
			force = true;
			break;
		}
	}
	opt = td_getopt_end(opt, argc, argv, false);
	if (opt <= 0)
		return opt;
	if (td_filter_check(&filter))
		return -1;
	/* The records are aggregated as the file is checked, block by block. */
	td_agg_init(&agg, by);
	rc.agg = &agg;
	rc.filter = &filter;
	rc.filtered = filter.any;
	if (td_input_load(path, NULL, &img, &f, report_block, &rc,
			  TD_FILE_GROUPS | (force ? TD_FILE_SALVAGE : 0))) {
		td_agg_free(&agg);
		return -1;
	}
	vc = malloc(sizeof(*vc));
	if (!vc || td_view_cfg_init(vc, &f.meta.cfg)) {
		if (!vc)
			p_err("out of memory");
		free(vc);
		td_agg_free(&agg);
		td_file_unload(&img, &f);
		return -1;
	}
	td_view_init_cfg(&view, by, vc, 0);
	set = !vc->can_decode ? NULL : vc->rotated ? vc->gd.set : vc->dec.set;
	view.opts = topts;
	/* a file without records: no block was read */
	if (!agg.nr_groups && !agg.oom && td_view_agg(&view, &agg))
		agg.oom = true;
	td_agg_finish(&agg);
	td_view_note_errors(&view, &agg);
	if (td_view_sort_by(&view, sort)) {
		free(vc);
		td_agg_free(&agg);
		td_file_unload(&img, &f);
		return -1;
	}
	td_file_lost(&f, &lost);
	td_lost_warn(&lost, "while recording");
	if (agg.oom) {
		p_err("out of memory summing the records");
		ret = -1;
	} else if (json_output) {
		jsonw_start_object(json_wtr);
		report_meta_json(path, &f, set, agg.total.slices);
		jsonw_string_field(json_wtr, "by", td_by_names[by]);
		td_table_print(stdout, &view, &agg, &table);
		jsonw_end_object(json_wtr);
	} else {
		if (!csv_output)
			report_meta_plain(path, &f, agg.total.slices);
		td_table_print(stdout, &view, &agg, &table);
	}
	free(vc);
	td_agg_free(&agg);
	td_file_unload(&img, &f);
	return ret;
}
