// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl stat: count while a command runs (or for a while, or until ^C)
 * and print one row per bucket (--by) with the raw counts and the TopDown
 * breakdown decoded from the summed counts; with -I, a block per
 * interval, as perf stat -I does.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "agg/aggregate.h"
#include "live/cgpath.h"
#include "live/collect.h"
#include "live/totals.h"
#include "cli/tdctl.h"

const struct td_opt stat_opts[] = {
	TD_OPT_ALL,
	TD_OPT_PIDS,
	{ "by", 0, 'B', TD_ARG_BY, "KEY",
	  "one row per task, process (default), comm, cgroup or cpu", 0 },
	{ "interval", 'I', 'I', TD_ARG_NUM, "MS",
	  "print a block every MS milliseconds (at least 10)", 0 },
	TD_OPT_FILTERS_NOPID,
	TD_OPT_SORT,
	TD_OPT_TABLE,
	TD_OPT_DURATION,
	TD_OPT_OUTPUT,
	TD_OPT_HELP,
	TD_OPT_END,
};

static const char stat_desc[] =
	"Count what the selected tasks do and print one row per task, process,\n"
	"comm, cgroup or CPU (--by): slices, run time, the raw counts of the\n"
	"event set and the TopDown breakdown decoded from the summed counts.\n"
	"Rows are sorted by cycles (the first event whose name contains 'cyc';\n"
	"for sets without one, such as the software set's cpu-clock, by the\n"
	"first event), then run time.\n"
	"\n"
	"With a COMMAND, only it and its descendants are counted (they run in\n"
	"a cgroup of their own), counting ends when it exits, and tdctl exits\n"
	"with its exit status (128+N if it was killed by signal N). Otherwise\n"
	"counting runs for --duration, until every -p process has exited, or\n"
	"until interrupted. The module must be loaded ('tdctl load'); if the\n"
	"collection is stopped, stat starts it and stops it again at the end.\n"
	"\n"
	"When the backend keeps every task's totals ('tdctl load --totals'), the\n"
	"counts are those totals, exact even when records were lost; otherwise\n"
	"(and with -I, filters, --by cpu or rotated groups) they are the sums of\n"
	"the records read. The header and JSON's \"exact\" say which.\n";

struct stat_ctx {
	struct td_live live;
	struct td_target tgt;
	struct td_filter filter;	/* --tid, --cpu, --cgroup, --comm */
	struct td_view view;
	struct td_agg cur;
	struct td_agg next;	/* -I: records that end after the block */
	uint64_t interval_ns;
	uint64_t blocks;
	char what[256];
	/* The module's totals: a snapshot at the start, the rows from them */
	struct td_totals_track tt;
	bool have_tt;
	bool exact;		/* cur holds the totals' rows */
	const char *why;	/* why not, NULL without totals */
	struct td_agg tot;
};

static void on_record(const struct topdown_record *r, void *ctx)
{
	struct stat_ctx *s = ctx;

	if (!td_filter_match(&s->filter, r))
		return;
	if (s->interval_ns && r->time_ns > s->live.tick_end)
		td_agg_add(&s->next, r);
	else
		td_agg_add(&s->cur, r);
}

static bool total_match(const struct topdown_record *r, void *ctx)
{
	struct stat_ctx *s = ctx;

	return td_target_match(&s->tgt, r);
}

static void totals_begin(struct stat_ctx *s)
{
	if (s->interval_ns) {
		if (s->live.rd.cfg.flags & TOPDOWN_CONFIG_TOTALS)
			s->why = "-I blocks are the records read in each";
		return;
	}
	s->have_tt = td_totals_begin(&s->tt, &s->live, &s->filter, s->view.by,
				     total_match, s, &s->why);
}

/* At the end: the rows from the totals, if they are exact. */
static void totals_end(struct stat_ctx *s)
{
	/* have_tt: td_totals_begin() said nothing at the start */
	if (s->why || !s->have_tt)
		return;
	if (s->tgt.kind == TD_TGT_CMD && !s->tgt.use_cgroup) {
		s->why = "the command has no cgroup of its own";
		return;
	}
	td_agg_init(&s->tot, s->view.by);
	if (td_view_agg(&s->view, &s->tot))
		s->why = "out of memory";
	else
		s->why = td_totals_rows(&s->tt, &s->tot,
					s->tgt.kind == TD_TGT_ALL,
					td_cgroup_root_id(),
					s->view.by == TD_BY_CGROUP ||
					s->tgt.use_cgroup);
	if (!s->why) {
		struct td_agg tmp = s->cur;

		s->cur = s->tot;
		s->tot = tmp;
		s->exact = true;
	}
}

static const char *set_name(const struct stat_ctx *s)
{
	return s->live.can_decode ? s->live.dec.set : s->live.rd.cfg.label;
}

static void print_block(struct stat_ctx *s, uint64_t end_ns)
{
	double t = (end_ns - s->live.start_ns) / 1e9;
	struct td_agg tmp;

	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_float_field(json_wtr, "time_s", t);
	}
	td_agg_finish(&s->cur);
	/* CSV: its header (the first block's) says the columns */
	if (!csv_output || !s->blocks)
		td_view_note_errors(&s->view, &s->cur);
	td_table_print(stdout, &s->view, &s->cur, &(struct td_table_out){
		.header = !s->blocks, .total = true,
		.time_in = TD_IN_PLAIN | TD_IN_CSV, .time_s = t });
	if (json_output) {
		jsonw_end_object(json_wtr);
		jsonw_newline(json_wtr);
	}
	fflush(stdout);
	s->blocks++;
	/* Records that already belong to the next block move up. */
	tmp = s->cur;
	s->cur = s->next;
	s->next = tmp;
	td_agg_clear(&s->next);
}

static void print_table(struct stat_ctx *s)
{
	td_agg_finish(&s->cur);
	td_view_note_errors(&s->view, &s->cur);
	td_table_print(stdout, &s->view, &s->cur,
		       &(struct td_table_out){ .header = true, .total = true });
}

static void print_summary(struct stat_ctx *s, uint64_t end_ns)
{
	const struct td_live *l = &s->live;
	double t = (end_ns - l->start_ns) / 1e9;

	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "target", s->what);
		if (s->tgt.kind == TD_TGT_CMD)
			jsonw_int_field(json_wtr, "exit_status",
					td_target_exit_code(&s->tgt));
		jsonw_string_field(json_wtr, "by", td_by_names[s->view.by]);
		jsonw_string_field(json_wtr, "set", set_name(s));
		jsonw_string_field(json_wtr, "label", l->rd.cfg.label);
		jsonw_uint_field(json_wtr, "elapsed_ns", end_ns - l->start_ns);
		jsonw_uint_field(json_wtr, "records", l->records_kept);
		jsonw_uint_field(json_wtr, "records_read", l->records_read);
		jsonw_uint_field(json_wtr, "lost", l->lost_total);
		jsonw_bool_field(json_wtr, "exact", s->exact);
		if (s->why)
			jsonw_string_field(json_wtr, "not_exact", s->why);
		print_table(s);
		jsonw_end_object(json_wtr);
		return;
	}
	if (csv_output) {
		print_table(s);
		return;
	}
	printf("\n TopDown stats for ");
	if (s->tgt.kind == TD_TGT_CMD) {
		printf("'");
		for (char **a = s->tgt.argv; *a; a++)
			printf("%s%s", a == s->tgt.argv ? "" : " ", *a);
		printf("'");
	} else {
		printf("%s", s->what);
	}
	printf(" (event set %s, by %s):\n", set_name(s),
	       td_by_names[s->view.by]);
	if (s->exact)
		printf(" exact: the kernel's totals of every slice, lost records included\n");
	else if (s->why)
		printf(" not exact, the records read: %s\n", s->why);
	printf("\n");
	print_table(s);
	printf("\n %14.9f seconds time elapsed\n", t);
	printf(" %14llu slices counted of %llu read, %llu lost\n",
	       (unsigned long long)l->records_kept,
	       (unsigned long long)l->records_read,
	       (unsigned long long)l->lost_total);
	if (s->cur.total.read_errors)
		printf(" %14llu slices had a counter that could not be read (left out)\n",
		       (unsigned long long)s->cur.total.read_errors);
	if (s->tgt.kind == TD_TGT_CMD && td_target_exit_code(&s->tgt))
		printf(" %14d exit status of the command\n",
		       td_target_exit_code(&s->tgt));
	printf("\n");
}

static bool on_tick(void *ctx, uint64_t end_ns)
{
	struct stat_ctx *s = ctx;

	if (s->interval_ns)
		print_block(s, end_ns);
	else if (s->have_tt && !s->tt.why)
		td_totals_track_update(&s->tt);	/* see entries before a fold */
	return false;
}

int do_stat(int argc, char **argv)
{
	struct stat_ctx *s = calloc(1, sizeof(*s));
	unsigned long long v;
	enum td_by by = TD_BY_PROCESS;
	const char *sort = NULL;
	struct td_table_opts topts = { 0 };
	struct td_getopt g;
	uint64_t end;
	int opt, r, ret = 0;

	if (!s) {
		p_err("out of memory");
		return -1;
	}
	td_target_init(&s->tgt);
	td_filter_init(&s->filter);
	td_getopt_build(&g, "stat", stat_desc);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0) {
		r = td_target_opt(&s->tgt, opt, optarg);
		if (!r)
			r = td_filter_opt(&s->filter, opt, optarg);
		if (r < 0)
			goto err;
		if (r || td_table_opt(&topts, opt))
			continue;
		switch (opt) {
		case 'B':
			if (td_by_parse("--by", optarg, &by))
				goto err;
			break;
		case 'I':
			if (parse_u64_range("--interval", optarg, 10, 86400000,
					    &v))
				goto err;
			s->interval_ns = v * 1000000ull;
			break;
		case 'S':
			sort = optarg;
			break;
		}
	}
	ret = td_getopt_end(opt, argc, argv, true);
	if (ret <= 0) {
		free(s);
		return ret;
	}
	ret = 0;
	/* COMMAND or -p, not both: a usage error */
	td_parsing_options = true;
	r = td_target_set_command(&s->tgt, argc - optind, argv + optind);
	td_parsing_options = false;
	if (r)
		goto err;
	td_target_describe(&s->tgt, s->what, sizeof(s->what));
	td_agg_init(&s->cur, by);
	td_agg_init(&s->next, by);
	s->live.progress = false;
	if (td_live_open(&s->live, &s->tgt, on_record, s)) {
		ret = -1;
		goto out;
	}
	/* Progress would mix with the command's own output. */
	s->live.progress = !s->interval_ns && s->tgt.kind != TD_TGT_CMD &&
			   td_want_progress();
	td_view_init_cfg(&s->view, by, s->live.vc, 0);
	/* rotated groups: the sums and clusters of each group, too */
	if (td_view_agg(&s->view, &s->cur) || td_view_agg(&s->view, &s->next)) {
		p_err("out of memory");
		ret = -1;
		goto out;
	}
	s->view.cgroup_path = td_cgroup_path;	/* live: ids resolve here */
	s->view.opts = topts;
	if (td_view_sort_by(&s->view, sort)) {
		ret = -1;
		goto out;
	}
	totals_begin(s);
	if (td_target_spawn(&s->tgt)) {
		ret = s->tgt.exited ? td_target_exit_code(&s->tgt) : -1;
		goto out;
	}
	if (json_output && s->interval_ns)
		jsonw_stream_begin(json_wtr);
	td_live_run(&s->live, &(struct td_run){
		.duration_ns = s->tgt.duration_ns,
		.tick_ns = s->interval_ns ?: (s->have_tt ? TD_TOTALS_EVERY_MS * 1000000ull : 0),
		.tick = on_tick, .key_fd = -1, .ctx = s });
	end = td_now_ns();
	td_agg_merge(&s->cur, &s->next);
	if (!s->interval_ns && !s->cur.oom && !s->next.oom)
		totals_end(s);
	if (s->cur.oom || s->next.oom) {
		p_err("out of memory grouping the records");
		ret = -1;
	} else if (s->interval_ns) {
		print_block(s, end);
	} else {
		print_summary(s, end);
	}
	if (json_output && s->interval_ns)
		jsonw_stream_end(json_wtr);
	if (s->tgt.kind == TD_TGT_CMD)
		ret = td_target_exit_code(&s->tgt);
out:
	s->live.lost_counted = s->exact;
	td_live_close(&s->live);
	td_target_cleanup(&s->tgt);
	td_agg_free(&s->cur);
	td_agg_free(&s->next);
	td_agg_free(&s->tot);
	td_totals_track_free(&s->tt);
	free(s);
	return ret;
err:
	free(s);
	return -1;
}
