// SPDX-License-Identifier: GPL-2.0
/* The vocabulary: every column tdctl prints (see vocab.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "output/vocab.h"

/* The commands that print an aggregation's buckets (agg/), and dump. */
#define AGG	"report top stat"
#define AGGD	"report top stat dump"
#define MET	"report top stat dump decode timeline"

#define KEY(n, t, c, w)		{ n, t, TD_VOC_KEY, 0, 0, 0, NULL, c, w }
#define TIME(n, t, p, c, w)	{ n, t, TD_VOC_TIME, 0, p, 0, NULL, c, w }
#define COUNT(n, t, c, w)	{ n, t, TD_VOC_COUNT, 0, 0, 0, NULL, c, w }
#define INFO(n, t, c, w)	{ n, t, TD_VOC_INFO, 0, 0, 0, NULL, c, w }
/* A metric of the TopDown tree: a fraction of the slots (or cycles);
 * like every metric, with its coverage and error where its group did not
 * run all the time (a rotated configuration).
 */
#define TMA(n, t, l, p, f, w) \
	{ n, t, TD_VOC_METRIC, TD_VOC_FRACTION | TD_VOC_COVERAGE | (f), 1, \
	  l, p, MET, w }
/* Arm's drill-down metrics (stage 2; outside the TopDown tree, level 0
 * as ipc): a share (miss ratio, operation mix) or a number per 1000
 * instructions.
 */
#define DRILL(n, t, w) \
	{ n, t, TD_VOC_METRIC, TD_VOC_FRACTION | TD_VOC_COVERAGE, 1, 0, NULL, \
	  MET, w }
#define PKI(n, t, w) \
	{ n, t, TD_VOC_METRIC, TD_VOC_COVERAGE, 2, 0, NULL, MET, w }

const struct td_voc td_vocab[] = {
	/* rows and their keys */
	INFO("type", NULL, AGG,
	     "CSV: \"group\", a row of one key of --by, or \"total\""),
	TIME("time_s", "TIME_S", 6, AGGD " timeline",
	     "seconds into the recording (the collection's start), the time base of --from/--to"),
	TIME("time_ns", NULL, 0, "dump",
	     "the end of the slice, CLOCK_MONOTONIC nanoseconds"),
	COUNT("seq", NULL, "dump", "the record's sequence number on its CPU"),
	KEY("cpu", "CPU", AGGD " status", "the CPU (status without a backend: its description)"),
	KEY("pid", "PID", AGGD, "the process (thread group) id"),
	KEY("tid", "TID", AGGD, "the thread id"),
	KEY("comm", "COMM", AGGD, "the task's name (comm), by the one text rule"),
	KEY("cgroup_id", "CGROUP", AGGD, "the cgroup v2 id"),
	KEY("cgroup", "CGROUP", AGG, "the cgroup v2 path (null where it does not resolve)"),
	/* what a row sums */
	COUNT("slices", "SLICES", AGG, "time slices"),
	TIME("runtime_ns", "RUN_MS", 3, AGG " status",
	     "run time; milliseconds in tables, nanoseconds in JSON and CSV"),
	TIME("cpu_percent", "%CPU", 1, "top",
	     "run time as a percentage of one CPU over the interval (tables of top)"),
	TIME("duration_ns", "SLICE_US", 3, "dump",
	     "the slice's length; microseconds in tables, nanoseconds in JSON and CSV"),
	COUNT("read_errors", "ERRORS", AGG " status",
	      "slices with a counter that could not be read (not rotated "
	      "slices), left out of the row's sums: its values are estimates"),
	COUNT("rotated_slices", NULL, AGG,
	      "rotated groups: slices in which the CPU changed group, measured by no group"),
	INFO("flags", "FLG", "dump",
	     "S blocked, P preempted, F first after start, I idle, E counter error"),
	INFO("preempted", NULL, "dump", "JSON: the task was preempted"),
	INFO("first", NULL, "dump", "JSON: the first slice after the start"),
	INFO("idle", NULL, "dump", "JSON: the idle task"),
	INFO("counts", NULL, AGGD, "JSON: the event counts, by event name"),
	INFO("metrics", NULL, AGGD " decode", "JSON: the metrics, by name"),
	INFO("coverage", NULL, AGG " decode",
	     "JSON, rotated groups: the share of the row's run time the "
	     "group(s) of each count and metric measured, keyed as counts "
	     "and metrics"),
	INFO("rotated", NULL, "dump",
	     "JSON, rotated groups: the slice in which the CPU changed group, "
	     "measured by none"),
	INFO("unreadable", NULL, "dump",
	     "JSON: the events whose count could not be read (null in counts, "
	     "as the events of another group are)"),
	/* lost records: one rule (null when not known) */
	COUNT("records", "RECORDS", AGG " status record",
	      "records read (status: written by the CPU)"),
	COUNT("lost", "LOST", AGG " status record",
	      "records lost (a full ring); null where not known"),
	COUNT("lost_per_cpu", NULL, "report", "records lost per CPU; null where not known"),
	/* the TopDown tree and IPC */
	TMA("retiring", "RETIRING", 1, NULL, TD_VOC_BOTTLENECK,
	    "slots that retired an operation"),
	TMA("bad_speculation", "BAD_SPEC", 1, NULL, TD_VOC_BOTTLENECK,
	    "slots wasted on operations that did not retire"),
	TMA("frontend_bound", "FRONTEND", 1, NULL, TD_VOC_BOTTLENECK,
	    "slots the front end did not fill"),
	TMA("backend_bound", "BACKEND", 1, NULL, TD_VOC_BOTTLENECK,
	    "slots stalled for the back end"),
	TMA("smt_contention", "SMT_CONT", 1, NULL, 0,
	    "slots taken by the other SMT thread (AMD)"),
	TMA("fetch_latency", "FRONTEND.FETCH_LAT", 2, "frontend_bound", 0,
	    "front-end slots lost to instruction fetch latency"),
	TMA("fetch_bandwidth", "FRONTEND.FETCH_BW", 2, "frontend_bound", 0,
	    "front-end slots lost to decode or fetch bandwidth"),
	TMA("heavy_operations", "RETIRING.HEAVY_OPS", 2, "retiring", 0,
	    "retiring slots of microcoded operations"),
	TMA("light_operations", "RETIRING.LIGHT_OPS", 2, "retiring", 0,
	    "retiring slots of other operations"),
	TMA("branch_mispredicts", "BAD_SPEC.BR_MISPRED", 2, "bad_speculation", 0,
	    "bad speculation after mispredicted branches"),
	TMA("machine_clears", "BAD_SPEC.MACH_CLEAR", 2, "bad_speculation", 0,
	    "bad speculation after machine clears"),
	TMA("memory_bound", "BACKEND.MEM_BOUND", 2, "backend_bound", 0,
	    "back-end stalls on memory"),
	TMA("core_bound", "BACKEND.CORE_BOUND", 2, "backend_bound", 0,
	    "back-end stalls on execution units"),
	{ "frontend_stalled_cycles", "FE_STALL_CYC", TD_VOC_METRIC,
	  TD_VOC_FRACTION | TD_VOC_COVERAGE, 1, 0, NULL, MET,
	  "cycles the front end stalled (Arm cycle-based sets)" },
	{ "backend_stalled_cycles", "BE_STALL_CYC", TD_VOC_METRIC,
	  TD_VOC_FRACTION | TD_VOC_COVERAGE, 1, 0, NULL, MET,
	  "cycles the back end stalled (Arm cycle-based sets)" },
	{ "ipc", "IPC", TD_VOC_METRIC, TD_VOC_COVERAGE, 2, 0, NULL, MET,
	  "instructions per cycle" },
	/* Arm's stage 2 (Neoverse N2, V2, N3, V3): drill-down groups */
	PKI("dtlb_mpki", "DTLB_MPKI", "data TLB walks per 1000 instructions"),
	DRILL("dtlb_walk_ratio", "DTLB_WALK_RATIO", "data TLB walks per L1D TLB access"),
	DRILL("l1d_tlb_miss_ratio", "L1D_TLB_MISS", "L1 data TLB refills per access"),
	PKI("l1d_tlb_mpki", "L1D_TLB_MPKI", "L1 data TLB refills per 1000 instructions"),
	DRILL("l2_tlb_miss_ratio", "L2_TLB_MISS", "L2 TLB refills per access"),
	PKI("l2_tlb_mpki", "L2_TLB_MPKI", "L2 TLB refills per 1000 instructions"),
	PKI("itlb_mpki", "ITLB_MPKI", "instruction TLB walks per 1000 instructions"),
	DRILL("itlb_walk_ratio", "ITLB_WALK_RATIO", "instruction TLB walks per L1I TLB access"),
	DRILL("l1i_tlb_miss_ratio", "L1I_TLB_MISS", "L1 instruction TLB refills per access"),
	PKI("l1i_tlb_mpki", "L1I_TLB_MPKI", "L1 instruction TLB refills per 1000 instructions"),
	DRILL("branch_misprediction_ratio", "BR_MISS",
	      "mispredicted branches per branch executed"),
	PKI("branch_mpki", "BR_MPKI", "mispredicted branches per 1000 instructions"),
	PKI("branch_pki", "BR_PKI", "branches per 1000 instructions"),
	DRILL("l1d_cache_miss_ratio", "L1D_MISS", "L1 data cache refills per access"),
	PKI("l1d_cache_mpki", "L1D_MPKI", "L1 data cache refills per 1000 instructions"),
	DRILL("l1i_cache_miss_ratio", "L1I_MISS", "L1 instruction cache refills per access"),
	PKI("l1i_cache_mpki", "L1I_MPKI", "L1 instruction cache refills per 1000 instructions"),
	DRILL("l2_cache_miss_ratio", "L2_MISS", "L2 cache refills per access"),
	PKI("l2_cache_mpki", "L2_MPKI", "L2 cache refills per 1000 instructions"),
	DRILL("ll_cache_read_hit_ratio", "LLC_RD_HIT", "last-level cache read hits per read"),
	DRILL("ll_cache_read_miss_ratio", "LLC_RD_MISS", "last-level cache read misses per read"),
	PKI("ll_cache_read_mpki", "LLC_RD_MPKI",
	    "last-level cache read misses per 1000 instructions"),
	PKI("l3d_cache_mpki", "L3D_MPKI", "L3 data cache refills per 1000 instructions"),
	DRILL("l3d_cache_miss_ratio", "L3D_MISS", "L3 data cache refills per access"),
	DRILL("load_percentage", "LOAD_PCT", "loads among the operations executed"),
	DRILL("store_percentage", "STORE_PCT", "stores among the operations executed"),
	DRILL("integer_dp_percentage", "INT_DP_PCT",
	      "integer data processing among the operations executed"),
	DRILL("simd_percentage", "SIMD_PCT", "SIMD among the operations executed"),
	DRILL("scalar_fp_percentage", "SCALAR_FP_PCT",
	      "scalar floating point among the operations executed"),
	DRILL("branch_percentage", "BRANCH_PCT", "branches among the operations executed"),
	DRILL("crypto_percentage", "CRYPTO_PCT", "crypto among the operations executed"),
	DRILL("branch_immed_spec_rate", "BR_IMMED",
	      "immediate branches among the operations executed"),
	DRILL("branch_return_spec_rate", "BR_RETURN",
	      "returns among the operations executed"),
	DRILL("branch_indirect_spec_rate", "BR_INDIRECT",
	      "indirect branches among the operations executed"),
	DRILL("sve_all_percentage", "SVE_PCT",
	      "SVE operations among the operations executed"),
	DRILL("barrier_percentage", "BARRIER_PCT",
	      "barriers (ISB, DSB, DMB) among the operations executed"),
	DRILL("branch_direct_ratio", "BR_DIRECT", "direct branches per branch retired"),
	DRILL("branch_indirect_ratio", "BR_IND", "indirect branches per branch retired"),
	DRILL("branch_return_ratio", "BR_RET", "returns per branch retired"),
	/* Neoverse N3 and V3: the front and back end's stalled cycles split
	 * (perf's Topdown_Frontend and Topdown_Backend), shares of stalls
	 */
	DRILL("frontend_core_bound", "FE_CORE",
	      "front-end stalls not waiting for memory, per front-end stall"),
	DRILL("frontend_mem_bound", "FE_MEM",
	      "front-end stalls waiting for instruction fetch, per front-end stall"),
	DRILL("frontend_core_flow_bound", "FE_FLOW",
	      "front-end core stalls waiting for the branch predictor"),
	DRILL("frontend_core_flush_bound", "FE_FLUSH",
	      "front-end core stalls recovering from a pipeline flush"),
	DRILL("frontend_mem_cache_bound", "FE_MEM_CACHE",
	      "front-end memory stalls on instruction cache misses"),
	DRILL("frontend_mem_tlb_bound", "FE_MEM_TLB",
	      "front-end memory stalls on instruction TLB misses"),
	DRILL("frontend_cache_l1i_bound", "FE_L1I",
	      "instruction cache stalls on L1I misses"),
	DRILL("frontend_cache_l2i_bound", "FE_L2I",
	      "instruction cache stalls on L2 misses"),
	DRILL("backend_busy_bound", "BE_BUSY",
	      "back-end stalls with the issue queues full, per back-end stall"),
	DRILL("backend_core_bound", "BE_CORE",
	      "back-end stalls not waiting for memory, per back-end stall"),
	DRILL("backend_mem_bound", "BE_MEM",
	      "back-end stalls waiting for memory, per back-end stall"),
	DRILL("backend_core_rename_bound", "BE_RENAME",
	      "back-end core stalls without rename registers"),
	DRILL("backend_mem_cache_bound", "BE_MEM_CACHE",
	      "back-end memory stalls on data cache misses"),
	DRILL("backend_mem_store_bound", "BE_MEM_STORE",
	      "back-end memory stalls on stores waiting to commit"),
	DRILL("backend_mem_tlb_bound", "BE_MEM_TLB",
	      "back-end memory stalls on data TLB misses"),
	DRILL("backend_cache_l1d_bound", "BE_L1D",
	      "data cache stalls on L1D misses"),
	DRILL("backend_cache_l2d_bound", "BE_L2D",
	      "data cache stalls on L2 misses"),
	/* report's, top's and stat's header */
	TIME("interval_s", NULL, 3, "top", "the interval's length in seconds"),
	TIME("elapsed_ns", NULL, 0, "stat record", "the collection's length"),
	TIME("start_ns", NULL, 0, "report status", "the start, CLOCK_MONOTONIC"),
	TIME("stop_ns", NULL, 0, "report status", "the stop, CLOCK_MONOTONIC"),
	INFO("by", NULL, "report stat", "the key of the rows (--by)"),
	INFO("set", NULL, "report stat load decode status", "the event set"),
	INFO("label", NULL, "report stat load decode status", "the configuration's label"),
	INFO("target", NULL, "report stat", "what was counted"),
	INFO("exact", NULL, "stat",
	     "true: the counts are the module's per-task totals, every slice "
	     "counted, lost records included"),
	INFO("not_exact", NULL, "stat",
	     "why the kernel's totals could not stand for the records read"),
	/* status and load when nothing collects (exit 3); and in a row of
	 * rotated groups, beside "coverage"
	 */
	INFO("error", NULL, AGG " load decode",
	     "load: why load stopped (null: status); JSON rows of rotated "
	     "groups (and decode of their dump): one standard error of each "
	     "count and metric, keyed as counts and metrics, null when "
	     "unknown"),
	INFO("why", NULL, "status load", "why this event set"),
	INFO("module", NULL, "status load", "the module: installed or not"),
	INFO("bpf", NULL, "status load", "the BPF backend: can run or why not"),
	INFO("run", NULL, "status load", "the command that would start collecting"),
	/* status's per-CPU rows */
	INFO("state", "STATE", "status", "the collection's (or a CPU's) state"),
	COUNT("probe_count", "PROBE_CALLS", "status", "context switches probed"),
	TIME("probe_ns", "PROBE_NS", 0, "status", "time spent in the probe"),
	TIME("probe_ns_mean", "MEAN_NS", 1, "status", "mean time per probe call"),
	/* status's event groups (include/uapi/linux/topdown.h, "Groups and rotation") */
	KEY("group", "GRP", "dump status",
	    "an event group, by its index in the configuration: in dump, the "
	    "group that measured the slice (rotated groups)"),
	INFO("cur_group", NULL, "status",
	     "the group counting on the CPU now (the last one when it is not counting)"),
	COUNT("rotations", "ROTATIONS", "status",
	      "group changes on the CPU since the configuration"),
	TIME("rotation_ns", "ROT_US", 1, "status",
	     "time the CPU spent changing groups; microseconds per change in tables"),
	COUNT("group_records", NULL, "status",
	      "CSV: per group, in group order, the records it measured"),
	TIME("group_runtime_ns", NULL, 0, "status",
	     "CSV: per group, in group order, the run time its slices covered"),
	COUNT("group_error_slices", NULL, "status",
	      "CSV: per group, in group order, its slices with a counter that could not be read"),
	TIME("runtime_share", "%RUN", 1, "status",
	     "a group's share of the run time its CPU measured"),
	COUNT("error_slices", "ERR_SLICES", "status",
	      "slices with a counter that could not be read (of a group, of an event)"),
	/* decode's */
	COUNT("lines", NULL, "decode", "input lines that gave counts"),
	COUNT("skipped_lines", NULL, "decode", "input lines of other events"),
	INFO("flagged", NULL, "decode", "metrics outside 0..100%"),
	INFO("formula", NULL, "decode", "the formula of the set"),
	INFO("assumptions", NULL, "decode", "what the numbers assume"),
};

const size_t td_vocab_len = sizeof(td_vocab) / sizeof(td_vocab[0]);

const struct td_voc *td_voc_find(const char *name)
{
	for (size_t i = 0; i < td_vocab_len; i++)
		if (!strcmp(td_vocab[i].name, name))
			return &td_vocab[i];
	return NULL;
}

const char *td_voc_title(const char *name)
{
	const struct td_voc *v = td_voc_find(name);

	return v && v->title ? v->title : name;
}

int td_voc_prec(const char *name)
{
	const struct td_voc *v = td_voc_find(name);

	return v ? v->prec : 2;
}

int td_voc_expand(const struct td_voc *v, struct td_voc_col *cols, int n)
{
	int k = v->flags & TD_VOC_COVERAGE ? 3 : 1;

	if (k > n)
		k = n;
	for (int i = 0; i < k; i++) {
		struct td_voc_col *c = &cols[i];

		*c = (struct td_voc_col){
			.title = v->title, .percent = v->flags & TD_VOC_FRACTION,
			.prec = v->prec, .commands = v->commands,
		};
		snprintf(c->name, sizeof(c->name), "%s%s", v->name,
			 i == 1 ? "_coverage" : i == 2 ? "_error" : "");
		snprintf(c->what, sizeof(c->what), "%s", v->what);
		if (!i)
			continue;
		/* JSON and CSV of report, top and stat with rotated groups
		 * or unreadable counts, and of decode of their dump
		 */
		c->title = NULL;
		c->commands = AGG " decode";
		if (i == 1) {
			c->kind = "coverage";
			c->percent = true;
			c->prec = 0;
			snprintf(c->what, sizeof(c->what),
				 "the share of the row's run time that the group(s) of %s measured with every count read; in tables [c%%] after its value",
				 v->name);
		} else {
			c->kind = "error";
			snprintf(c->what, sizeof(c->what),
				 "one standard error of %s (0: exact), null when unknown; in tables \u00b1e after its value",
				 v->name);
		}
	}
	return k;
}

const char *td_voc_metric_title(const char *name, const char *const *events,
				int nr)
{
	const char *t = td_voc_title(name);

	for (int e = 0; e < nr; e++)
		if (events[e] && !strcmp(events[e], t))
			return name;
	return t;
}

bool td_voc_is(const char *key, const char *title, const char *name)
{
	return (title && !strcasecmp(key, title)) ||
	       (name && !strcasecmp(key, name));
}

void td_voc_path(const struct td_voc *const *voc, const double *value,
		 const bool *valid, int n, int mark[2])
{
	int best = -1, child = -1;

	for (int i = 0; i < n; i++)
		if (voc[i] && (voc[i]->flags & TD_VOC_BOTTLENECK) && valid[i] &&
		    (best < 0 || value[i] > value[best]))
			best = i;
	for (int i = 0; best >= 0 && i < n; i++)
		if (voc[i] && voc[i]->parent && valid[i] &&
		    !strcmp(voc[i]->parent, voc[best]->name) &&
		    (child < 0 || value[i] > value[child]))
			child = i;
	mark[0] = best;
	mark[1] = child;
}
