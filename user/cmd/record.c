// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl record: the selected records, and everything needed to decode them
 * elsewhere, into a record file (tdfile.h).
 * tdctl report: the groups of a record file, as stat prints them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "group/aggregate.h"
#include "live/collect.h"
#include "cli/tdctl.h"
#include "file/tdfile.h"

#define TD_DEFAULT_FILE "tdctl.data"

const struct td_opt record_opts[] = {
	{ "output", 'o', 'o', TD_ARG_FILE, "FILE",
	  "the record file (default " TD_DEFAULT_FILE "; - for stdout)" },
	TD_OPT_ALL,
	TD_OPT_PIDS,
	TD_OPT_DURATION,
	TD_OPT_HELP,
	TD_OPT_END,
};

static const char record_desc[] =
	"Write the records of the selected tasks to a record file, with what\n"
	"is needed to decode them on any machine: the event set and its events,\n"
	"the slot width, the CPU, the per-CPU lost counts and the start and stop\n"
	"times (Documentation/file-format.rst). Read it with 'tdctl report' or\n"
	"'tdctl dump -i'. Selection and stopping are as for 'tdctl stat'; a\n"
	"summary goes to stderr (to stdout with --json or --csv).\n";

struct record_ctx {
	struct td_live live;
	struct td_target tgt;
	struct td_file_writer w;
	FILE *out;
	int write_errno;
};

static void on_record(const struct topdown_record *r, void *ctx)
{
	struct record_ctx *c = ctx;

	if (c->write_errno)
		return;
	if (td_file_write_record(&c->w, r)) {
		c->write_errno = errno ? errno : EIO;
		c->live.stop = true;
	}
}

static void fill_meta(struct record_ctx *c, struct td_file_meta *m)
{
	const struct td_live *l = &c->live;
	struct utsname u;

	memset(m, 0, sizeof(*m));
	m->nr_cpus = l->rd.nr_cpus;
	m->start_ns = l->start_ns;
	m->start_realtime_ns = l->start_real_ns;
	m->slots = l->can_decode ? l->dec.slots : 0;
	m->cfg = l->rd.cfg;
	for (uint32_t i = 0; i < m->cfg.nr_events; i++) {
		m->cfg.events[i].cpus_ptr = 0;
		m->cfg.events[i].cpus_size = 0;
	}
	if (!uname(&u)) {
		snprintf(m->arch, sizeof(m->arch), "%.63s", u.machine);
		snprintf(m->kernel, sizeof(m->kernel), "%.63s", u.release);
		snprintf(m->host, sizeof(m->host), "%.63s", u.nodename);
	}
	td_cpu_description(m->cpu, sizeof(m->cpu));
	td_target_describe(&c->tgt, m->target, sizeof(m->target));
}

static void record_summary(const struct record_ctx *c, const char *path,
			   uint64_t elapsed)
{
	const struct td_live *l = &c->live;

	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "file", path);
		jsonw_uint_field(json_wtr, "records", l->records_kept);
		jsonw_uint_field(json_wtr, "records_read", l->records_read);
		jsonw_uint_field(json_wtr, "lost", l->lost_total);
		jsonw_uint_field(json_wtr, "elapsed_ns", elapsed);
		if (c->tgt.kind == TD_TGT_CMD)
			jsonw_int_field(json_wtr, "exit_status",
					td_target_exit_code(&c->tgt));
		jsonw_end_object(json_wtr);
	} else if (csv_output) {
		printf("file,records,records_read,lost,elapsed_ns\n\"%s\",%llu,%llu,%llu,%llu\n",
		       path, (unsigned long long)l->records_kept,
		       (unsigned long long)l->records_read,
		       (unsigned long long)l->lost_total,
		       (unsigned long long)elapsed);
	} else {
		fprintf(stderr, "%s: wrote %llu records (%llu read, %llu lost) in %.3f s to %s\n",
			bin_name, (unsigned long long)l->records_kept,
			(unsigned long long)l->records_read,
			(unsigned long long)l->lost_total, elapsed / 1e9, path);
	}
}

int do_record(int argc, char **argv)
{
	struct record_ctx *c = calloc(1, sizeof(*c));
	const char *path = TD_DEFAULT_FILE;
	struct td_file_meta m;
	struct td_getopt g;
	bool to_stdout;
	int opt, r, ret = -1;

	if (!c) {
		p_err("out of memory");
		return -1;
	}
	td_target_init(&c->tgt);
	td_getopt_build(&g, "record", record_desc);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0) {
		r = td_target_opt(&c->tgt, opt, optarg);
		if (r < 0)
			goto out_free;
		if (r)
			continue;
		switch (opt) {
		case 'o':
			path = optarg;
			break;
		}
	}
	ret = td_getopt_end(opt, argc, argv, true);
	if (ret <= 0)
		goto out_free;
	ret = -1;
	if (td_target_set_command(&c->tgt, argc - optind, argv + optind))
		goto out_free;
	to_stdout = !strcmp(path, "-");
	if (to_stdout && (json_output || csv_output)) {
		p_err("-o - writes the record file to stdout: no room for --json or --csv");
		goto out_free;
	}
	if (to_stdout && isatty(STDOUT_FILENO)) {
		p_err("not writing a binary record file to a terminal (-o FILE)");
		goto out_free;
	}
	c->out = to_stdout ? stdout : fopen(path, "wbe");
	if (!c->out) {
		p_err("cannot write %s: %s", path, strerror(errno));
		goto out_free;
	}
	if (td_live_open(&c->live, &c->tgt, on_record, c))
		goto out;
	c->live.progress = c->tgt.kind != TD_TGT_CMD && td_want_progress();
	fill_meta(c, &m);
	if (td_file_write_header(&c->w, c->out, &m)) {
		p_err("writing %s: %s", path, strerror(errno));
		goto out;
	}
	if (td_target_spawn(&c->tgt)) {
		ret = c->tgt.exited ? td_target_exit_code(&c->tgt) : -1;
		goto out;
	}
	td_live_run(&c->live, &(struct td_run){
		.duration_ns = c->tgt.duration_ns, .key_fd = -1 });
	m.stop_ns = td_now_ns();
	m.records_read = c->live.records_read;
	m.lost = c->live.lost;
	if (c->write_errno || td_file_write_trailer(&c->w, &m)) {
		p_err("writing %s: %s", path,
		      strerror(c->write_errno ? c->write_errno : errno));
		goto out;
	}
	record_summary(c, path, m.stop_ns - c->live.start_ns);
	ret = c->tgt.kind == TD_TGT_CMD ? td_target_exit_code(&c->tgt) : 0;
out:
	td_live_close(&c->live);
	td_target_cleanup(&c->tgt);
	if (c->out && !to_stdout && fclose(c->out) && ret == 0) {
		p_err("writing %s: %s", path, strerror(errno));
		ret = -1;
	}
	/* A file without its trailer would only fail to read later. */
	if (ret < 0 && !to_stdout)
		unlink(path);
out_free:
	free(c);
	return ret;
}

/* ---- report ----------------------------------------------------------- */

const struct td_opt report_opts[] = {
	{ "input", 'i', 'i', TD_ARG_FILE, "FILE",
	  "the record file (default " TD_DEFAULT_FILE "; - for stdin)" },
	{ "by", 0, 'B', TD_ARG_BY, "KEY",
	  "one row per task, process (default), comm, cgroup or cpu" },
	TD_OPT_SORT,
	TD_OPT_FILTERS,
	TD_OPT_HELP,
	TD_OPT_END,
};

static const char report_desc[] =
	"Read a record file of 'tdctl record' (from any machine or\n"
	"architecture) and print what it recorded, then one row per group as\n"
	"'tdctl stat' does: slices, run time, the summed raw counts and the\n"
	"TopDown breakdown decoded from the sums, sorted by cycles (or the\n"
	"first event when the set has no cycles event). A damaged or foreign\n"
	"file is refused with the byte offset of the first problem.\n";

static void format_time(uint64_t realtime_ns, char *buf, size_t n)
{
	time_t t = (time_t)(realtime_ns / 1000000000ull);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, n, "?");
}

static void report_meta_json(const char *path, const struct td_file *f,
			     const struct td_decoder *dec, uint64_t kept)
{
	const struct td_file_meta *m = &f->meta;
	uint64_t lost = 0;

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
	if (dec)
		jsonw_string_field(json_wtr, "set", dec->set);
	else
		jsonw_null_field(json_wtr, "set");
	jsonw_uint_field(json_wtr, "slots", m->slots);
	jsonw_name(json_wtr, "events");
	jsonw_start_array(json_wtr);
	for (uint32_t i = 0; i < m->cfg.nr_events; i++) {
		const struct topdown_event *e = &m->cfg.events[i];

		jsonw_start_object(json_wtr);
		json_event_fields(e);
		jsonw_uint_field(json_wtr, "flags", e->flags);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
	jsonw_uint_field(json_wtr, "start_ns", m->start_ns);
	jsonw_uint_field(json_wtr, "stop_ns", m->stop_ns);
	jsonw_uint_field(json_wtr, "duration_ns", m->stop_ns - m->start_ns);
	jsonw_uint_field(json_wtr, "start_realtime_ns", m->start_realtime_ns);
	jsonw_uint_field(json_wtr, "records_in_file", f->nr_records);
	jsonw_uint_field(json_wtr, "records", kept);
	jsonw_uint_field(json_wtr, "records_read", m->records_read);
	jsonw_name(json_wtr, "lost_per_cpu");
	jsonw_start_array(json_wtr);
	for (uint32_t c = 0; c < m->nr_cpus; c++) {
		jsonw_uint(json_wtr, m->lost[c]);
		lost += m->lost[c];
	}
	jsonw_end_array(json_wtr);
	jsonw_uint_field(json_wtr, "lost", lost);
}

static void report_meta_plain(const char *path, const struct td_file *f,
			      uint64_t kept)
{
	const struct td_file_meta *m = &f->meta;
	char when[64];
	uint64_t lost = 0;

	for (uint32_t c = 0; c < m->nr_cpus; c++)
		lost += m->lost[c];
	format_time(m->start_realtime_ns, when, sizeof(when));
	printf("# record file %s (format %u.%u)\n", path, m->version_major,
	       m->version_minor);
	printf("# recorded on %s (%s, Linux %s, %u CPUs), %s\n",
	       *m->host ? m->host : "?", *m->arch ? m->arch : "?",
	       *m->kernel ? m->kernel : "?", m->nr_cpus, when);
	if (*m->cpu)
		printf("# cpu: %s\n", m->cpu);
	printf("# target: %s\n", *m->target ? m->target : "?");
	printf("# event set: %s; events:", m->cfg.label);
	for (uint32_t i = 0; i < m->cfg.nr_events; i++)
		printf("%s %s", i ? "," : "", m->cfg.events[i].name);
	printf("\n# %.3f s, %llu records in the file (%llu read), %llu lost; %llu shown\n\n",
	       (m->stop_ns - m->start_ns) / 1e9,
	       (unsigned long long)f->nr_records,
	       (unsigned long long)m->records_read,
	       (unsigned long long)lost, (unsigned long long)kept);
}

struct report_ctx {
	struct td_agg *agg;
	const struct td_filter *filter;
	bool filtered;
};

/* Records first..first+n of the file, just checked: into their groups. */
static void report_block(const struct td_file *f, uint64_t first, uint64_t n,
			 void *ctx)
{
	const struct topdown_record *recs = td_file_records(f);
	struct report_ctx *rc = ctx;
	struct topdown_record r;

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
	struct td_decoder dec;
	struct td_getopt g;
	struct td_view view;
	struct td_agg agg;
	struct td_file f;
	bool can_decode;
	char err[600];
	int opt, ret = 0;

	td_filter_init(&filter);
	td_getopt_build(&g, "report", report_desc);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0) {
		int fr = td_filter_opt(&filter, opt, optarg);

		if (fr < 0)
			return -1;
		if (fr)
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
		}
	}
	opt = td_getopt_end(opt, argc, argv, false);
	if (opt <= 0)
		return opt;
	/* The records are grouped as the file is checked, block by block. */
	td_agg_init(&agg, by);
	rc.agg = &agg;
	rc.filter = &filter;
	rc.filtered = filter.cpu >= 0 || filter.pid >= 0 || filter.comm;
	if (td_file_load_each(path, &img, &f, err, sizeof(err), report_block,
			      &rc)) {
		p_err("%s", err);
		td_agg_free(&agg);
		return -1;
	}
	can_decode = td_decoder_for(&f.meta.cfg, &dec);
	td_view_init(&view, by, &f.meta.cfg, can_decode ? &dec : NULL);
	if (td_view_sort_by(&view, sort)) {
		td_agg_free(&agg);
		td_file_unload(&img, &f);
		return -1;
	}
	for (uint32_t c = 0; c < f.meta.nr_cpus; c++)
		if (f.meta.lost[c])
			p_warn("CPU %u: %llu records were lost while recording: the counts are low",
			       c, (unsigned long long)f.meta.lost[c]);
	if (agg.oom) {
		p_err("out of memory grouping the records");
		ret = -1;
	} else if (json_output) {
		jsonw_start_object(json_wtr);
		report_meta_json(path, &f, can_decode ? &dec : NULL,
				 agg.total.slices);
		jsonw_string_field(json_wtr, "by", td_by_names[by]);
		td_print_json(json_wtr, &view, &agg);
		jsonw_end_object(json_wtr);
	} else if (csv_output) {
		td_print_csv_header(stdout, &view, false);
		td_print_csv(stdout, &view, &agg, NULL);
	} else {
		report_meta_plain(path, &f, agg.total.slices);
		td_print_header(stdout, &view, NULL);
		td_print_rows(stdout, &view, &agg, NULL, true);
	}
	td_agg_free(&agg);
	td_file_unload(&img, &f);
	return ret;
}
