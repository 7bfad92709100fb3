/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF backend's program (topdown.bpf.c) and tdctl share: the
 * per-CPU state and the configuration, both kept in pinned maps under
 * TD_BPF_DIR so that every tdctl command can read them.
 */
#ifndef TDCTL_TD_BPF_H
#define TDCTL_TD_BPF_H

#include <linux/types.h>
#include <linux/topdown.h>

#define TD_BPF_DIR	"/sys/fs/bpf/topdown"

/*
 * One CPU's state (a BPF_MAP_TYPE_PERCPU_ARRAY of one entry).
 * @armed:	events that have a counter on this CPU (set by tdctl load)
 * @resync:	events whose next readable slice reports 0 with the error
 *		bit: they could not be read, so the baseline is stale
 * @errors:	error bits of the last slice (tdctl status's counter state)
 * @started:	set once the CPU wrote (or dropped) its first record
 * @arm_errors:	events perf put on no counter at load (read() on the
 *		event reported no running time); as topdown_cpu_stats
 * @last, @enabled, @running: the previous read of each counter
 * @last_ns:	end of the previous slice; at load, when the CPU's counters
 *		took their baselines (a TOPDOWN_REC_FIRST record's start)
 * @seq:	records produced, dropped ones included
 * @lost:	records dropped because the ring buffer was full
 * The rest as struct topdown_cpu_stats.
 */
struct td_bpf_cpu {
	__u32 armed;
	__u32 resync;
	__u32 errors;
	__u32 started;
	__u32 arm_errors;
	__u32 __pad;
	__u64 last[TOPDOWN_MAX_EVENTS];
	__u64 enabled[TOPDOWN_MAX_EVENTS];
	__u64 running[TOPDOWN_MAX_EVENTS];
	__u64 last_ns;
	__u64 seq;
	__u64 lost;
	__u64 read_errors;
	__u64 probe_count;
	__u64 probe_ns;
	__u64 ev_err[TOPDOWN_MAX_EVENTS];
};

/*
 * The configuration for readers (a BPF_MAP_TYPE_ARRAY of one entry): the
 * event set as the module would report it (the cpus_ptr fields are 0),
 * when counting started, and the ring buffer's size.
 */
struct td_bpf_config {
	struct topdown_config cfg;
	__u64 start_ns;
	__u32 nr_cpus;
	__u32 ring_bytes;
};

#endif
