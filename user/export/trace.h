/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records as Chrome Trace Event Format JSON, which ui.perfetto.dev and
 * chrome://tracing load (tdctl timeline's output).
 *
 * Tracks (Documentation/man/tdctl-timeline.rst is the reference):
 *   - one synthetic process "CPUs", pid TR_CPU_PID, whose thread
 *     TR_CPU_PID + 1 + n is "CPU n": an X (complete) event per slice
 *     on CPU n, named by the task's comm, with its pid/tid, cgroup, counts
 *     and metrics as args; lost records as instant (i) events there.
 *     Linux pids stay below 2^22 (PID_MAX_LIMIT), so these ids never
 *     collide with a real one.
 *   - per thread of each real process: counter (C) events named "tid N"
 *     with IPC and the TopDown fractions as their series (--counters):
 *     once per interval of the slices in it (the default), when a value
 *     moved by more than a threshold since the thread's last one, at
 *     every slice, or none. With rotated groups, per interval also
 *     "tid N coverage" (the share each group measured) and "tid N
 *     error" (each series' standard error, report's estimator).
 *   - process_name / thread_name metadata (M) for every pid and tid used.
 * Timestamps are microseconds since the earliest slice start (or the
 * recording's start), written with all nine decimal digits of the
 * nanosecond values as three decimals.
 *
 * Before anything is written, the trace's size is estimated from the
 * slices it will show: above max_size (by default what a browser can
 * open) a warning says so and what makes it smaller.
 */
#ifndef TDCTL_EXPORT_TRACE_H
#define TDCTL_EXPORT_TRACE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/topdown.h>

#include "file/tdfile.h"
#include "agg/aggregate.h"

/* Where the records come from: a checked record file or a live buffer. */
struct td_trace_src {
	/* The configuration as the records show it (td_view_cfg_init()):
	 * without rotation, cfg's events in delta order and dec; with
	 * rotated groups, the pool, its groups and their decoders (gd).
	 */
	const struct td_view_cfg *vc;
	const struct topdown_config *cfg;	/* &vc->cfg */
	uint32_t nr_cpus;
	const uint64_t *lost;		/* per CPU, NULL: none known */
	uint64_t start_ns, stop_ns, start_realtime_ns;
	/* ids of this boot: a cgroup id's path, or NULL; NULL: ids only */
	const char *(*cgroup_path)(uint64_t id);
	bool all_tasks;			/* no selection: seq gaps are losses */
	const struct td_file *f;	/* NULL: recs */
	const struct topdown_record *recs;
	uint64_t n;
	const char *what;		/* the file name, or "live" */
};

enum td_trace_counters {
	TD_TRACE_CNT_CHANGE,	/* when a value moves by more than threshold */
	TD_TRACE_CNT_SLICE,	/* at every slice */
	TD_TRACE_CNT_INTERVAL,	/* once per thread per interval_ns */
	TD_TRACE_CNT_NONE,
};

struct td_trace_opts {
	uint64_t min_ns;
	struct td_filter filter;	/* --from/--to too */
	enum td_trace_counters counters;
	double threshold;		/* TD_TRACE_CNT_CHANGE */
	uint64_t interval_ns;		/* TD_TRACE_CNT_INTERVAL */
	uint64_t max_size;		/* warn above it, 0: never */
	const char *version;		/* the generator's, in otherData */
	/* non-zero (a signal): stop, no trace written; NULL: never */
	const volatile sig_atomic_t *stop;
};

/* Browsers read a JSON trace as one string: V8's hold 2^29 - 24
 * characters (tdctl-timeline(8), SIZE). The default of max_size.
 */
#define TD_TRACE_MAX_SIZE	(512ull << 20)

/*
 * Write the whole trace of s's records into out (through output/fmt.h's
 * buffer, closed at the end); meta: the record file's, NULL for a live
 * collection. 0, or -1 after p_err().
 */
int td_trace_write(FILE *out, const struct td_trace_src *s,
		   const struct td_file_meta *meta,
		   const struct td_trace_opts *opt);

#endif
