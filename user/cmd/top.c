// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl top: a refreshing table of the busiest tasks of the last interval
 * with their TopDown breakdown. Plain ANSI (home, clear to end of line and
 * of screen) so that it works on a serial console; keys are read from a
 * terminal stdin in non-canonical mode. --batch (or output that is not a
 * terminal, or --json/--csv) prints snapshots without terminal control.
 * -i FILE replays a record file in intervals of its record times.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "agg/aggregate.h"
#include "live/cgpath.h"
#include "live/collect.h"
#include "live/totals.h"
#include "cli/tdctl.h"
#include "file/lost.h"
#include "file/tdfile.h"
#include "output/text.h"

const struct td_opt top_opts[] = {
	{ "by", 0, 'B', TD_ARG_BY, "KEY",
	  "one row per task (default), process, comm, cgroup or cpu", 0 },
	TD_OPT_SORT,
	TD_OPT_TABLE,
	{ "delay", 'd', 'd', TD_ARG_NUM, "SECS",
	  "refresh every SECS seconds (default 1, fractions allowed)", 0 },
	{ "iterations", 'n', 'n', TD_ARG_NUM, "N", "stop after N refreshes", 0 },
	{ "batch", 'b', 'b', TD_ARG_NONE, NULL,
	  "print snapshots one after the other, no terminal control, no keys", 0 },
	{ "limit", 0, 'L', TD_ARG_NUM, "N",
	  "at most N rows (default: what fits the screen; all in batch mode)", 0 },
	TD_OPT_FILTERS,
	{ "input", 'i', 'i', TD_ARG_FILE, "FILE",
	  "replay a record file instead of the live collection", 0 },
	TD_OPT_FORCE,
	TD_OPT_OUTPUT,
	TD_OPT_HELP,
	TD_OPT_END,
};

static const char top_desc[] =
	"Show the busiest tasks of the last interval with their run time (%CPU\n"
	"of one CPU), slices, counts and TopDown breakdown, refreshed every\n"
	"--delay seconds, sorted by cycles (the first event whose name contains\n"
	"'cyc', else the first event). Keys: < and > move the sort column,\n"
	"r reverses it, c sorts by cycles, t by run time, q quits (^C too).\n"
	"Works on any terminal, serial consoles included (plain ANSI codes;\n"
	"the size comes from the terminal, else LINES/COLUMNS, else 24x80).\n"
	"With --batch, --json, --csv, -o or when stdout is not a terminal,\n"
	"snapshots are printed one after the other, without terminal control.\n"
	"\n"
	"When the backend keeps every task's totals ('tdctl load --totals'), an\n"
	"interval's counts are what the totals grew by, exact even when records\n"
	"were lost; otherwise (and with filters, --by cpu, rotated groups or -i)\n"
	"they are the sums of the records read. The header and JSON's \"exact\"\n"
	"say which.\n";

struct top_ctx {
	struct td_live live;
	struct td_target tgt;
	struct td_filter filter;
	struct td_view view;
	struct td_agg cur, next, shown;
	const char *source;	/* "live" or the replayed file */
	bool replay;		/* -i FILE */
	const char *set;
	char label[TD_TEXT_SIZE(TOPDOWN_LABEL_LEN)];
	uint32_t nr_cpus;
	uint64_t start_ns;
	uint64_t prev_end;	/* end of the previous interval */
	uint64_t shown_end;
	uint64_t shown_records, shown_lost;
	uint64_t prev_lost;
	bool lost_unknown;	/* a file that does not say (never live) */
	unsigned long long iterations, count;
	size_t user_limit;
	bool batch;
	bool keys;		/* stdin is a terminal in raw mode */
	struct termios saved;
	/* Live, the module's totals: each interval's rows from what they
	 * grew by, read every every_ns (intervals of ivl_ns, a multiple)
	 */
	struct td_totals_track tt;
	bool have_tt;
	struct td_agg tot;	/* the rows from them, then the records' */
	uint64_t every_ns, ivl_ns, ivl_end;
	uint64_t root_cgroup;
	bool exact;		/* the rows shown are the totals' */
	bool inexact_seen;	/* some were not */
	const char *why;	/* why the rows shown are not (NULL: no totals) */
};

static void on_record(const struct topdown_record *r, void *ctx)
{
	struct top_ctx *t = ctx;
	/* with the totals, the ticks are their snapshots' */
	uint64_t end = t->have_tt ? t->ivl_end : t->live.tick_end;

	if (td_filter_match(&t->filter, r))
		td_agg_add(r->time_ns > end ? &t->next : &t->cur, r);
}

/* The terminal's size, for a serial console from LINES/COLUMNS. */
static void screen_size(int *rows, int *cols)
{
	struct winsize ws;
	const char *e;

	*rows = 24;
	*cols = 80;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
		return;
	}
	e = getenv("LINES");
	if (e && atoi(e) > 0)
		*rows = atoi(e);
	e = getenv("COLUMNS");
	if (e && atoi(e) > 0)
		*cols = atoi(e);
}

static const char *sort_name(const struct top_ctx *t)
{
	const struct td_col *c = &t->view.col[t->view.sort_col];

	return c->kind == TD_COL_RUNTIME ? "time" : c->name;
}

/* A status line, cut to the screen's width on a terminal. */
static void status_line(const struct top_ctx *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void status_line(const struct top_ctx *t, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!t->batch && t->view.width > 0 && t->view.width < (int)sizeof(buf))
		buf[t->view.width] = '\0';
	printf("%s%s", buf, t->batch ? "\n" : "\033[K\n");
}

/* The line that says whether the counts are exact (NULL: none, as
 * without totals), stat's words; the reason follows "not exact".
 */
static const char *exact_line(const struct top_ctx *t)
{
	if (t->exact)
		return "exact: the kernel's totals of every slice, lost records included";
	return !t->replay && t->why ? "not exact, the records read: " : NULL;
}

static void draw(struct top_ctx *t)
{
	uint64_t ivl = t->view.interval_ns;
	int rows = 0, cols = 0, lines;
	char lost[32];

	/* CSV: its header (the first snapshot's) says the columns */
	if (!csv_output || t->count == 1)
		td_view_note_errors(&t->view, &t->shown);
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_float_field(json_wtr, "time_s",
				  (t->shown_end - t->start_ns) / 1e9);
		jsonw_float_field(json_wtr, "interval_s", ivl / 1e9);
		jsonw_uint_field(json_wtr, "records", t->shown_records);
		if (t->lost_unknown)
			jsonw_null_field(json_wtr, "lost");
		else
			jsonw_uint_field(json_wtr, "lost", t->shown_lost);
		if (!t->replay) {
			jsonw_bool_field(json_wtr, "exact", t->exact);
			if (!t->exact && t->why)
				jsonw_string_field(json_wtr, "not_exact", t->why);
		}
		td_table_print(stdout, &t->view, &t->shown,
			       &(struct td_table_out){ 0 });
		jsonw_end_object(json_wtr);
		jsonw_newline(json_wtr);
		return;
	}
	if (csv_output) {
		td_table_print(stdout, &t->view, &t->shown,
			       &(struct td_table_out){
				.header = t->count == 1, .time_in = TD_IN_CSV,
				.time_s = (t->shown_end - t->start_ns) / 1e9 });
		fflush(stdout);
		return;
	}
	if (!t->batch) {
		screen_size(&rows, &cols);
		t->view.width = cols - 1;
		/* the status lines, the header and the legend's line */
		lines = 7 + !!exact_line(t);
		t->view.limit = rows > lines ? rows - lines : 1;
		if (t->user_limit && t->user_limit < t->view.limit)
			t->view.limit = t->user_limit;
		printf("\033[H");
	}
	status_line(t, "tdctl top - %s, %.1f s, set %s, by %s, %u CPUs, interval %.3f s",
		    t->source, (t->shown_end - t->start_ns) / 1e9, t->set,
		    td_by_names[t->view.by], t->nr_cpus, ivl / 1e9);
	if (t->lost_unknown)
		snprintf(lost, sizeof(lost), "lost unknown");
	else
		snprintf(lost, sizeof(lost), "%llu lost",
			 (unsigned long long)t->shown_lost);
	status_line(t, "%llu slices, %s, %zu %ss",
		    (unsigned long long)t->shown.total.slices, lost, t->shown.n,
		    td_by_names[t->view.by]);
	if (exact_line(t))
		status_line(t, "%s%s", exact_line(t), t->exact ? "" : t->why);
	if (!t->batch)
		status_line(t, "sort: %s%s (keys: < > column, r reverse, c cycles, t time, q quit)",
			    sort_name(t), t->view.ascending ? " ascending" : "");
	status_line(t, "%s", "");
	td_table_print(stdout, &t->view, &t->shown,
		       &(struct td_table_out){ .header = true,
			.legend = t->batch ? TD_LEGEND_FULL : TD_LEGEND_LINE });
	if (t->batch)
		printf("\n");
	else
		printf("\033[J");
	fflush(stdout);
}

/* The interval that ended at end_ns becomes the one shown. */
static void snapshot(struct top_ctx *t, uint64_t end_ns, uint64_t lost)
{
	struct td_agg tmp = t->shown;

	td_agg_finish(&t->cur);
	t->shown = t->cur;
	t->cur = t->next;
	t->next = tmp;
	td_agg_clear(&t->next);
	t->view.interval_ns = end_ns - t->prev_end;
	t->prev_end = end_ns;
	t->shown_end = end_ns;
	/* the records read: with the totals, the ones set aside */
	t->shown_records = (t->exact ? &t->tot : &t->shown)->total.slices;
	t->shown_lost = lost - t->prev_lost;
	t->prev_lost = lost;
	t->count++;
	draw(t);
}

/*
 * At the end of an interval: its rows from the totals, if they are
 * exact (the records' are then set aside in tot), and the totals'
 * snapshot becomes the next interval's start.
 */
static void totals_interval(struct top_ctx *t)
{
	struct td_agg tmp;

	t->exact = false;
	td_agg_clear(&t->tot);
	t->why = td_totals_rows(&t->tt, &t->tot, true, t->root_cgroup,
				t->view.by == TD_BY_CGROUP);
	if (td_totals_track_rebase(&t->tt)) {
		/* the next intervals' start is not known */
		t->why = "out of memory";
		t->have_tt = false;
		td_totals_track_free(&t->tt);
	}
	if (t->why) {
		t->inexact_seen = true;
		return;
	}
	tmp = t->cur;
	t->cur = t->tot;
	t->tot = tmp;
	t->exact = true;
}

static bool on_tick(void *ctx, uint64_t end_ns)
{
	struct top_ctx *t = ctx;

	if (t->have_tt) {
		if (end_ns < t->ivl_end) {
			/* see entries before they are folded */
			if (!t->tt.why)
				td_totals_track_update(&t->tt);
			return false;
		}
		t->ivl_end = t->start_ns + ((end_ns - t->start_ns) / t->ivl_ns + 1) *
					   t->ivl_ns;
		totals_interval(t);
	}
	snapshot(t, end_ns, t->live.lost_total);
	return t->iterations && t->count >= t->iterations;
}

/* Keys: true to quit. */
static bool on_key(void *ctx)
{
	struct top_ctx *t = ctx;
	struct td_view *v = &t->view;
	char buf[16];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
	bool redraw = false;

	if (n <= 0)
		return n == 0;	/* end of input: quit */
	for (ssize_t i = 0; i < n; i++) {
		switch (buf[i]) {
		case 'q':
		case 'Q':
			return true;
		case '<':
		case ',':
			v->sort_col = (v->sort_col + v->nr_cols - 1) % v->nr_cols;
			v->ascending = v->sort_col < v->nr_keys;
			break;
		case '>':
		case '.':
			v->sort_col = (v->sort_col + 1) % v->nr_cols;
			v->ascending = v->sort_col < v->nr_keys;
			break;
		case 'r':
		case 'R':
			v->ascending = !v->ascending;
			break;
		case 'c':
			td_view_sort_by(v, "cycles");
			break;
		case 't':
			td_view_sort_by(v, "time");
			break;
		default:
			continue;
		}
		redraw = true;
	}
	if (redraw && t->count)
		draw(t);
	return false;
}

static void keys_restore(struct top_ctx *t)
{
	if (t->keys)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &t->saved);
	t->keys = false;
}

static void keys_raw(struct top_ctx *t)
{
	struct termios raw;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &t->saved))
		return;
	raw = t->saved;
	raw.c_lflag &= ~(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (!tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw))
		t->keys = true;
}

/* Rotated groups: each interval's sums and clusters of every group. */
static int top_agg_groups(struct top_ctx *t)
{
	if (td_view_agg(&t->view, &t->cur) || td_view_agg(&t->view, &t->next) ||
	    td_view_agg(&t->view, &t->shown) || td_view_agg(&t->view, &t->tot)) {
		p_err("out of memory");
		return -1;
	}
	return 0;
}

static int top_live(struct top_ctx *t)
{
	if (td_live_open(&t->live, &t->tgt, on_record, t))
		return -1;
	t->start_ns = t->live.start_ns;
	t->filter.base_ns = t->start_ns;
	t->prev_end = t->live.start_ns;
	t->nr_cpus = t->live.rd.nr_cpus;
	t->set = t->live.can_decode ? t->live.dec.set : t->live.rd.cfg.label;
	td_view_init_cfg(&t->view, t->view.by, t->live.vc, 0);
	t->view.cgroup_path = td_cgroup_path;	/* live: ids resolve here */
	if (top_agg_groups(t)) {
		td_live_close(&t->live);
		return -1;
	}
	t->have_tt = td_totals_begin(&t->tt, &t->live, &t->filter, t->view.by,
				     td_total_match_all, NULL, &t->why);
	t->root_cgroup = td_cgroup_root_id();
	return 0;
}

/* With the totals: a snapshot at most every TD_TOTALS_EVERY_MS, a whole
 * number of them an interval of about delay.
 */
static void totals_ticks(struct top_ctx *t, uint64_t delay)
{
	uint64_t every = TD_TOTALS_EVERY_MS * 1000000ull;
	uint64_t n = (delay + every - 1) / every;

	t->every_ns = delay / n;
	t->ivl_ns = t->every_ns * n;
	t->ivl_end = t->start_ns + t->ivl_ns;
}

struct stamp {
	uint64_t time_ns;
	uint64_t index;
};

static int by_stamp(const void *a, const void *b)
{
	const struct stamp *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The end of the k-th interval (k >= 1) of `delay` from start, at most
 * stop: computed without wrapping, whatever the file's times.
 */
static uint64_t ivl_end(uint64_t start, uint64_t stop, uint64_t delay,
			uint64_t k)
{
	if (k > (stop - start) / delay)
		return stop;
	return start + k * delay;
}

/* The interval (k >= 1) that time t (start <= t) ends up in. */
static uint64_t ivl_of(uint64_t start, uint64_t delay, uint64_t t)
{
	uint64_t k = (t - start) / delay + !!((t - start) % delay);

	return k ? k : 1;
}

/*
 * Replay a file: intervals of `delay` in the records' own time. An
 * interval without records is not shown (but the last): the snapshots are
 * at most one per record, whatever the time the file spans. With --from
 * or --to, only the intervals from the first slice in the window to the
 * last one are (one, the last, if none is): nothing outside the window.
 * Records lost while recording are counted in the interval of their gap
 * in the CPU's sequence numbers, the rest in the file's last one
 * (file/lost.h).
 */
static int top_replay(struct top_ctx *t, const struct td_file *f,
		      uint64_t delay)
{
	uint64_t start = t->start_ns, stop = f->meta.stop_ns, end, ivl, last;
	uint64_t first = 1, file_last, from, to, tmin = UINT64_MAX, tmax = 0;
	struct topdown_record r;
	struct stamp *order;
	struct td_gaps gaps;
	uint64_t i = 0, lost = 0;

	order = malloc((f->nr_records ? f->nr_records : 1) * sizeof(*order));
	if (!order || td_gaps_init_file(&gaps, f)) {
		free(order);
		p_err("out of memory");
		return -1;
	}
	t->lost_unknown = !gaps.lost;
	/* Records are stored per CPU in drain order: sort by time. */
	td_filter_window(&t->filter, &from, &to);
	for (uint64_t k = 0; k < f->nr_records; k++) {
		td_file_record(f, k, &r);
		order[k] = (struct stamp){ r.time_ns, k };
		/* the window's slices: end after from, start before to */
		if (r.time_ns > from && (r.duration_ns >= r.time_ns ||
					 r.time_ns - r.duration_ns < to)) {
			tmin = r.time_ns < tmin ? r.time_ns : tmin;
			tmax = r.time_ns > tmax ? r.time_ns : tmax;
		}
	}
	qsort(order, f->nr_records, sizeof(*order), by_stamp);
	td_catch_signals();
	/* The parser keeps every record within start..stop. */
	file_last = stop > start ? ivl_of(start, delay, stop) : 1;
	last = file_last;
	if (t->filter.from_set || t->filter.to_set) {
		if (tmin <= tmax) {
			first = tmin > start ? ivl_of(start, delay, tmin) : 1;
			last = tmax > start ? ivl_of(start, delay, tmax) : 1;
		} else {
			first = last;
		}
	}
	/* Before the window: the records are read for their lost count,
	 * which the first snapshot does not show.
	 */
	end = ivl_end(start, stop, delay, first - 1);
	for (; first > 1 && i < f->nr_records && order[i].time_ns <= end; i++) {
		td_file_record(f, order[i].index, &r);
		lost += td_gaps_before(&gaps, &r);
	}
	t->prev_lost = lost;
	for (ivl = first;; ivl++) {
		uint64_t next = ivl_of(start, delay, i < f->nr_records ?
				       order[i].time_ns : stop);

		/* Empty intervals are skipped: to the next record's, or to
		 * the last one.
		 */
		if (next > ivl)
			ivl = next < last ? next : last;
		end = ivl_end(start, stop, delay, ivl);
		for (; i < f->nr_records && order[i].time_ns <= end; i++) {
			td_file_record(f, order[i].index, &r);
			lost += td_gaps_before(&gaps, &r);
			if (td_filter_match(&t->filter, &r))
				td_agg_add(&t->cur, &r);
		}
		if (ivl >= file_last)
			for (uint32_t c = 0; c < f->meta.nr_cpus; c++)
				lost += td_gaps_rest(&gaps, c);
		t->prev_end = ivl_end(start, stop, delay, ivl - 1);
		snapshot(t, end, lost);
		if (ivl >= last || td_signal ||
		    (t->iterations && t->count >= t->iterations))
			break;
		if (!t->batch) {
			struct pollfd p = { t->keys ? STDIN_FILENO : -1, POLLIN, 0 };

			if (poll(&p, 1, (int)(delay / 1000000)) > 0 && on_key(t))
				break;
			if (td_signal)
				break;
		}
	}
	free(order);
	td_gaps_free(&gaps);
	return 0;
}

int do_top(int argc, char **argv)
{
	struct top_ctx *t = calloc(1, sizeof(*t));
	unsigned long long delay = 1000000000ull, v;
	const char *input = NULL, *sort = NULL;
	struct td_table_opts topts = { 0 };
	struct td_file_image img;
	struct td_lost lost;
	struct td_file f;
	struct td_getopt g;
	bool force = false;
	int opt, ret = -1;

	if (!t) {
		p_err("out of memory");
		return -1;
	}
	td_target_init(&t->tgt);
	td_filter_init(&t->filter);
	t->view.by = TD_BY_TASK;
	td_getopt_build(&g, "top", top_desc);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0) {
		int r = td_filter_opt(&t->filter, opt, optarg);

		if (r < 0)
			goto out;
		if (r || td_table_opt(&topts, opt))
			continue;
		switch (opt) {
		case 'B':
			if (td_by_parse("--by", optarg, &t->view.by))
				goto out;
			break;
		case 'S':
			sort = optarg;
			break;
		case 'd':
			if (parse_seconds("--delay", optarg, 3600, &delay))
				goto out;
			if (delay < 10000000ull) {
				p_err("--delay must be at least 0.01 s");
				goto out;
			}
			break;
		case 'n':
			if (parse_u64("--iterations", optarg, 1u << 30,
				      &t->iterations))
				goto out;
			break;
		case 'b':
			t->batch = true;
			break;
		case 'L':
			if (parse_u64("--limit", optarg, 1u << 30, &v))
				goto out;
			t->user_limit = v;
			break;
		case 'i':
			input = optarg;
			break;
		case 'F':
			force = true;
			break;
		}
	}
	ret = td_getopt_end(opt, argc, argv, false);
	if (ret <= 0)
		goto out;
	ret = -1;
	if (td_filter_check(&t->filter))
		goto out;
	if (force && !input) {
		p_usage_error("--force reads a record file (-i FILE)");
		goto out;
	}
	if (json_output || csv_output || orig_stdout_fd >= 0 ||
	    !isatty(STDOUT_FILENO))
		t->batch = true;
	td_agg_init(&t->cur, t->view.by);
	td_agg_init(&t->next, t->view.by);
	td_agg_init(&t->shown, t->view.by);
	td_agg_init(&t->tot, t->view.by);
	if (input) {
		if (td_input_load(input, NULL, &img, &f, NULL, NULL,
				  TD_FILE_GROUPS | (force ? TD_FILE_SALVAGE : 0)))
			goto out;
		/* On a terminal the screen shows them (and would wipe a
		 * warning): the status line counts them per interval.
		 */
		td_file_lost(&f, &lost);
		if (t->batch)
			td_lost_warn(&lost, "while recording");
		t->source = input;
		t->replay = true;
		t->start_ns = f.meta.start_ns;
		t->filter.base_ns = t->start_ns;
		t->prev_end = f.meta.start_ns;
		t->nr_cpus = f.meta.nr_cpus;
		td_filter_warn_cpus(&t->filter, t->nr_cpus);
		/* the file's label as text (output/text.h) */
		td_text(t->label, f.meta.cfg.label, sizeof(f.meta.cfg.label),
			NULL);
		t->set = t->label;
		t->live.vc = malloc(sizeof(*t->live.vc));
		if (!t->live.vc) {
			p_err("out of memory");
			goto close;
		}
		if (td_view_cfg_init(t->live.vc, &f.meta.cfg))
			goto close;
		if (t->live.vc->can_decode)
			t->set = t->live.vc->rotated ? t->live.vc->gd.set :
				 t->live.vc->dec.set;
		td_view_init_cfg(&t->view, t->view.by, t->live.vc, 0);
		if (top_agg_groups(t))
			goto close;
	} else {
		t->source = "live";
		if (top_live(t))
			goto out;
	}
	if (td_view_sort_by(&t->view, sort))
		goto close;
	t->view.compact = true;
	t->view.opts = topts;
	if (t->batch)
		t->view.limit = t->user_limit;
	else
		keys_raw(t);
	if (!t->batch)
		printf("\033[H\033[2J");
	if (json_output)
		jsonw_stream_begin(json_wtr);
	if (input) {
		ret = top_replay(t, &f, delay);
	} else {
		if (t->have_tt)
			totals_ticks(t, delay);
		td_live_run(&t->live, &(struct td_run){
			.tick_ns = t->have_tt ? t->every_ns : delay,
			.tick = on_tick,
			.key_fd = t->keys ? STDIN_FILENO : -1, .key = on_key,
			.ctx = t });
		ret = 0;
	}
	if (json_output)
		jsonw_stream_end(json_wtr);
	keys_restore(t);
	if (!t->batch)
		printf("\n");
close:
	if (input) {
		td_file_unload(&img, &f);
		free(t->live.vc);
	} else {
		/* said at close: whether the counts have the lost records */
		t->live.lost_counted = t->have_tt && !t->inexact_seen;
		td_live_close(&t->live);
		td_totals_track_free(&t->tt);
	}
out:
	td_agg_free(&t->tot);
	td_agg_free(&t->cur);
	td_agg_free(&t->next);
	td_agg_free(&t->shown);
	free(t);
	return ret;
}
