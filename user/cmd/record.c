// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl record: the selected records, and everything needed to decode them
 * elsewhere, into a record file (tdfile.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "agg/aggregate.h"
#include "live/collect.h"
#include "cli/tdctl.h"
#include "file/tdfile.h"

const struct td_opt record_opts[] = {
	{ "output", 'o', 'o', TD_ARG_FILE, "FILE",
	  "the record file (default " TD_DEFAULT_FILE "; - for stdout)", 0 },
	TD_OPT_ALL,
	TD_OPT_PIDS,
	TD_OPT_DURATION,
	TD_OPT_OUTPUT_NO_FILE,
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

/*
 * Once a second the records so far reach the file, so that a recording
 * killed without its trailer keeps them ('report -i FILE --force').
 */
static bool record_flush(void *ctx, uint64_t end_ns)
{
	struct record_ctx *c = ctx;

	(void)end_ns;
	if (!c->write_errno && fflush(c->out))
		c->write_errno = errno ? errno : EIO;
	return c->write_errno != 0;
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
	/* The module's configuration as GET_CONFIG returned it: with
	 * groups (TOPDOWN_CONFIG_SIZE_VER1) the writer stores the pool, the
	 * groups and the rotation (format 2.0).
	 */
	for (uint32_t i = 0; i < m->cfg.nr_events && i < TOPDOWN_MAX_POOL;
	     i++) {
		td_pool_event(&m->cfg, i)->cpus_ptr = 0;
		td_pool_event(&m->cfg, i)->cpus_size = 0;
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

/*
 * The record file is never lost: it is written through base/'s output
 * helper (td_outfile_open(): a temporary file next to FILE; a device or
 * FIFO such as -o /dev/null in place), and the temporary file becomes FILE
 * once the collection has started, an existing FILE being kept as
 * FILE.old (as perf does; an older FILE.old is replaced). If recording
 * then fails, the new FILE is removed and the old one put back.
 */
struct record_file {
	const char *path;
	struct td_outfile of;
	char *old;		/* path.old, once an existing path was moved there */
	bool placed;		/* path is the new file */
};

static FILE *record_file_open(struct record_file *rf)
{
	FILE *f;

	if (td_outfile_open(&rf->of, rf->path))
		return NULL;
	f = fdopen(rf->of.fd, "wb");
	if (!f) {
		p_err("cannot write %s: %s", rf->path, strerror(errno));
		td_outfile_abort(&rf->of);
	}
	return f;
}

/* The collection has started: the temporary file becomes path. */
static int record_file_place(struct record_file *rf)
{
	const char *final = rf->of.final;
	struct stat st;

	if (td_outfile_in_place(&rf->of))
		return 0;
	if (!lstat(final, &st)) {
		if (asprintf(&rf->old, "%s.old", final) < 0) {
			rf->old = NULL;
			p_err("out of memory");
			return -1;
		}
		if (rename(final, rf->old)) {
			p_err("keeping %s as %s: %s", rf->path, rf->old,
			      strerror(errno));
			free(rf->old);
			rf->old = NULL;
			return -1;
		}
	}
	if (rename(rf->of.tmp, final)) {
		p_err("renaming %s to %s: %s", rf->of.tmp, rf->path,
		      strerror(errno));
		return -1;
	}
	free(rf->of.tmp);
	rf->of.tmp = NULL;
	rf->placed = true;
	if (rf->old)
		p_info("the previous %s is now %s", rf->path, rf->old);
	return 0;
}

/* After recording (the stream closed): on failure, remove what was
 * written, put back the old file.
 */
static void record_file_close(struct record_file *rf, bool failed)
{
	const char *final = rf->of.final ? rf->of.final : rf->path;

	rf->of.fd = -1;		/* closed with the stream */
	if (failed && rf->placed) {
		unlink(final);
		if (rf->old && rename(rf->old, final))
			p_warn("the previous %s is %s: %s", rf->path, rf->old,
			       strerror(errno));
	}
	td_outfile_abort(&rf->of);	/* a temporary file left: removed */
	free(rf->old);
}

int do_record(int argc, char **argv)
{
	struct record_ctx *c = calloc(1, sizeof(*c));
	struct record_file rf = { .path = TD_DEFAULT_FILE, .of.fd = -1 };
	const char *path;
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
			rf.path = optarg;
			break;
		}
	}
	ret = td_getopt_end(opt, argc, argv, true);
	if (ret <= 0)
		goto out_free;
	ret = -1;
	/* COMMAND or -p, not both: a usage error */
	td_parsing_options = true;
	r = td_target_set_command(&c->tgt, argc - optind, argv + optind);
	td_parsing_options = false;
	if (r)
		goto out_free;
	path = rf.path;
	to_stdout = !strcmp(path, "-");
	if (to_stdout && (json_output || csv_output)) {
		p_usage_error("-o - writes the record file to stdout: no room for --json or --csv");
		goto out_free;
	}
	if (to_stdout && isatty(STDOUT_FILENO)) {
		p_usage_error("not writing a binary record file to a terminal (-o FILE)");
		goto out_free;
	}
	c->out = to_stdout ? stdout : record_file_open(&rf);
	if (!c->out)
		goto out_free;
	if (td_live_open(&c->live, &c->tgt, on_record, c))
		goto out;
	if (!to_stdout && record_file_place(&rf))
		goto out;
	c->live.progress = c->tgt.kind != TD_TGT_CMD && td_want_progress();
	fill_meta(c, &m);
	if (td_file_write_header(&c->w, c->out, &m) || fflush(c->out)) {
		p_err("writing %s: %s", path, strerror(errno));
		goto out;
	}
	if (td_target_spawn(&c->tgt)) {
		ret = c->tgt.exited ? td_target_exit_code(&c->tgt) : -1;
		goto out;
	}
	td_live_run(&c->live, &(struct td_run){
		.duration_ns = c->tgt.duration_ns, .key_fd = -1,
		.tick_ns = 1000000000, .tick = record_flush, .ctx = c });
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
	record_file_close(&rf, ret < 0);
out_free:
	free(c);
	return ret;
}
