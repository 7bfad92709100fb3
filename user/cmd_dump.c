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

#include "aggregate.h"
#include "collect.h"
#include "device.h"
#include "evset.h"
#include "tdctl.h"
#include "tdfile.h"

const struct td_opt dump_opts[] = {
	{ "input", 'i', 'i', TD_ARG_FILE, "FILE",
	  "read a record file of 'tdctl record' instead of the rings" },
	{ "follow", 'f', 'f', TD_ARG_NONE, NULL,
	  "keep reading until interrupted (or --duration)" },
	{ "duration", 0, 'd', TD_ARG_NUM, "S",
	  "stop following after S seconds (implies --follow)" },
	TD_OPT_FILTERS,
	TD_OPT_HELP,
	TD_OPT_END,
};

struct dump_ctx {
	struct td_reader rd;
	const struct topdown_config *cfg;	/* the rings' or the file's */
	struct td_decoder dec;
	bool can_decode;
	bool follow;
	struct td_filter filter;
	/* batch of records, sorted by time before printing */
	struct topdown_record *batch;
	size_t n, cap;
	bool oom;
	uint64_t printed;
	uint64_t lost;
};

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
	p_warn("CPU %d: %llu records lost (%s)", cpu,
	       (unsigned long long)count, why);
}

static int by_time(const void *a, const void *b)
{
	const struct topdown_record *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static void flags_str(uint32_t f, char *buf)
{
	char *p = buf;

	*p++ = f & TOPDOWN_REC_PREEMPTED ? 'P' : 'S';
	if (f & TOPDOWN_REC_FIRST)
		*p++ = 'F';
	if (f & TOPDOWN_REC_IDLE)
		*p++ = 'I';
	if (f & TOPDOWN_REC_ERROR_MASK)
		*p++ = 'E';
	*p = '\0';
}

static void comm_str(const struct topdown_record *r, char *buf)
{
	memcpy(buf, r->comm, TOPDOWN_COMM_LEN);
	buf[TOPDOWN_COMM_LEN] = '\0';
}

static void print_header(const struct dump_ctx *d)
{
	const struct topdown_config *cfg = d->cfg;
	struct td_metrics m = { 0 };
	uint64_t zero[TOPDOWN_MAX_EVENTS] = { 0 };

	if (d->can_decode)
		td_decode(&d->dec, zero, &m);
	if (csv_output) {
		printf("seq,time_ns,cpu,pid,tid,comm,duration_ns,cgroup_id,flags");
		for (uint32_t i = 0; i < cfg->nr_events; i++)
			printf(",%s", cfg->events[i].name);
		for (int i = 0; i < m.n; i++)
			printf(",%s", m.m[i].name);
		printf("\n");
		return;
	}
	printf("%-17s %3s %7s %7s %-16s %10s %-4s", "TIME", "CPU", "PID", "TID",
	       "COMM", "SLICE_US", "FLG");
	for (uint32_t i = 0; i < cfg->nr_events; i++)
		printf(" %14.14s", cfg->events[i].name);
	for (int i = 0; i < m.n; i++)
		printf(" %10.10s", m.m[i].name);
	printf("\n");
}

static void print_json(const struct dump_ctx *d, const struct topdown_record *r,
		       const struct td_metrics *m)
{
	const struct topdown_config *cfg = d->cfg;

	jsonw_start_object(json_wtr);
	jsonw_uint_field(json_wtr, "seq", r->seq);
	jsonw_uint_field(json_wtr, "time_ns", r->time_ns);
	jsonw_uint_field(json_wtr, "cpu", r->cpu);
	jsonw_uint_field(json_wtr, "pid", r->tgid);
	jsonw_uint_field(json_wtr, "tid", r->pid);
	jsonw_name(json_wtr, "comm");
	jsonw_string_n(json_wtr, r->comm, TOPDOWN_COMM_LEN);
	jsonw_uint_field(json_wtr, "duration_ns", r->duration_ns);
	jsonw_uint_field(json_wtr, "cgroup_id", r->cgroup_id);
	jsonw_bool_field(json_wtr, "preempted", r->flags & TOPDOWN_REC_PREEMPTED);
	jsonw_bool_field(json_wtr, "first", r->flags & TOPDOWN_REC_FIRST);
	jsonw_bool_field(json_wtr, "idle", r->flags & TOPDOWN_REC_IDLE);
	jsonw_name(json_wtr, "counts");
	jsonw_start_object(json_wtr);
	for (uint32_t i = 0; i < cfg->nr_events; i++) {
		if (r->flags & (1u << i))
			jsonw_null_field(json_wtr, cfg->events[i].name);
		else
			jsonw_uint_field(json_wtr, cfg->events[i].name, r->delta[i]);
	}
	jsonw_end_object(json_wtr);
	jsonw_name(json_wtr, "metrics");
	jsonw_start_object(json_wtr);
	for (int i = 0; i < m->n; i++) {
		if (m->m[i].valid)
			jsonw_float_field(json_wtr, m->m[i].name, m->m[i].value);
		else
			jsonw_null_field(json_wtr, m->m[i].name);
	}
	jsonw_end_object(json_wtr);
	jsonw_end_object(json_wtr);
}

static bool is_fraction(const char *name)
{
	return strcmp(name, "ipc") && strcmp(name, "cpi");
}

static void print_record(struct dump_ctx *d, const struct topdown_record *r)
{
	const struct topdown_config *cfg = d->cfg;
	struct td_metrics m = { 0 };
	char comm[TOPDOWN_COMM_LEN + 1], fl[8];
	uint64_t counts[TOPDOWN_MAX_EVENTS];

	for (int i = 0; i < TOPDOWN_MAX_EVENTS; i++)
		counts[i] = r->delta[i];
	if (d->can_decode)
		td_decode(&d->dec, counts, &m);
	if (json_output) {
		print_json(d, r, &m);
		if (d->follow)	/* one document per line while streaming */
			jsonw_newline(json_wtr);
		return;
	}
	comm_str(r, comm);
	flags_str(r->flags, fl);
	if (csv_output) {
		/* comm may hold any byte but a NUL: quote it. */
		printf("%llu,%llu,%u,%u,%u,", (unsigned long long)r->seq,
		       (unsigned long long)r->time_ns, r->cpu, r->tgid, r->pid);
		csv_quote(stdout, comm, sizeof(comm));
		printf(",%llu,%llu,%s", (unsigned long long)r->duration_ns,
		       (unsigned long long)r->cgroup_id, fl);
		for (uint32_t i = 0; i < cfg->nr_events; i++) {
			if (r->flags & (1u << i))
				printf(",");
			else
				printf(",%llu", (unsigned long long)r->delta[i]);
		}
		for (int i = 0; i < m.n; i++) {
			if (m.m[i].valid)
				printf(",%.6f", m.m[i].value);
			else
				printf(",");
		}
		printf("\n");
		return;
	}
	for (char *c = comm; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			*c = '?';
	printf("%8llu.%06llu %3u %7u %7u %-16s %10.3f %-4s",
	       (unsigned long long)(r->time_ns / 1000000000ull),
	       (unsigned long long)(r->time_ns % 1000000000ull / 1000),
	       r->cpu, r->tgid, r->pid, comm, r->duration_ns / 1e3, fl);
	for (uint32_t i = 0; i < cfg->nr_events; i++) {
		if (r->flags & (1u << i))
			printf(" %14s", "<error>");
		else
			printf(" %14llu", (unsigned long long)r->delta[i]);
	}
	for (int i = 0; i < m.n; i++) {
		if (!m.m[i].valid)
			printf(" %10s", "-");
		else if (is_fraction(m.m[i].name))
			printf(" %9.1f%%%s", 100.0 * m.m[i].value,
			       m.m[i].flagged ? "!" : "");
		else
			printf(" %10.3f", m.m[i].value);
	}
	printf("\n");
}

static void flush_batch(struct dump_ctx *d)
{
	qsort(d->batch, d->n, sizeof(*d->batch), by_time);
	for (size_t i = 0; i < d->n; i++)
		print_record(d, &d->batch[i]);
	d->printed += d->n;
	d->n = 0;
	fflush(stdout);
}

static const char dump_desc[] =
	"Print the time slices collected since the last read, oldest first:\n"
	"time, CPU, pid/tid, comm, slice length, flags (S blocked, P preempted,\n"
	"F first after start, I idle, E counter error), the raw counts and the\n"
	"metrics of the event set. Lost records are reported on stderr. With\n"
	"-i FILE, the slices of a record file, on any machine.\n";

/* Start the output: JSON array or the table's header. */
static void dump_begin(struct dump_ctx *d)
{
	if (json_output && !d->follow)
		jsonw_start_array(json_wtr);
	else if (!json_output)
		print_header(d);
}

static void dump_end(struct dump_ctx *d)
{
	if (json_output && !d->follow)
		jsonw_end_array(json_wtr);
	free(d->batch);
}

static int dump_file(struct dump_ctx *d, const char *path)
{
	struct td_file_image img;
	struct topdown_record r;
	struct td_file f;
	char err[600];

	if (td_file_load(path, &img, &f, err, sizeof(err))) {
		p_err("%s", err);
		return -1;
	}
	d->cfg = &f.meta.cfg;
	d->can_decode = td_decoder_for(d->cfg, &d->dec);
	for (uint32_t cpu = 0; cpu < f.meta.nr_cpus; cpu++)
		if (f.meta.lost[cpu])
			on_lost(cpu, f.meta.lost[cpu], "while recording", d);
	dump_begin(d);
	for (uint64_t i = 0; i < f.nr_records && !d->oom; i++) {
		td_file_record(&f, i, &r);
		on_record(&r, d);
	}
	if (!d->oom)
		flush_batch(d);
	dump_end(d);
	td_file_unload(&img, &f);
	if (d->oom) {
		p_err("out of memory buffering records");
		return -1;
	}
	return 0;
}

int do_dump(int argc, char **argv)
{
	struct dump_ctx d = { 0 };
	unsigned long long duration = 0;
	const char *input = NULL;
	struct td_getopt g;
	struct timespec t0, now;
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
		}
	}
	opt = td_getopt_end(opt, argc, argv, false);
	if (opt <= 0)
		return opt;
	if (input && d.follow) {
		p_err("--follow and --duration read the rings, not a file (-i)");
		return -1;
	}
	if (input)
		return dump_file(&d, input);
	if (td_reader_open(&d.rd))
		return -1;
	d.cfg = &d.rd.cfg;
	d.can_decode = td_decoder_for(d.cfg, &d.dec);
	dump_begin(&d);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	clock_gettime(CLOCK_MONOTONIC, &t0);
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
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (duration && (uint64_t)(now.tv_sec - t0.tv_sec) >= duration)
			break;
		td_reader_wait(&d.rd, 200);
	} while (!stop_flag);
	if (d.follow) {
		/* Whatever arrived during the last wait, or before Ctrl-C. */
		td_reader_drain(&d.rd, on_record, on_lost, &d);
		flush_batch(&d);
	}

	dump_end(&d);
	td_reader_close(&d.rd);
	return ret;
}
