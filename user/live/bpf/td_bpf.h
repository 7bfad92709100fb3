/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF backend's program (topdown.bpf.c) and tdctl share: the
 * layout of the per-CPU rings and state, and the configuration, all in
 * pinned maps under TD_BPF_DIR so that every tdctl command can read them.
 *
 * The rings map ("rings", a BPF_MAP_TYPE_ARRAY with BPF_F_MMAPABLE of
 * TD_BPF_BLOCK-byte elements) holds, for CPU n, td_bpf_config.cpu_blocks
 * elements from element n * cpu_blocks:
 *
 *   block 0      struct topdown_ring_consumer   written by the reader
 *   block 1      struct td_bpf_cpu              the producer page and state
 *   blocks 2..   record data, ring_size bytes   written by the program
 *
 * i.e. the module's ring layout (include/uapi/linux/topdown.h) in blocks
 * of TD_BPF_BLOCK bytes instead of pages, read by the same reader code
 * (live/device.c) through one mmap() of the map. With the shared ring
 * buffer (TD_BPF_RING_SHARED, kernels without BPF atomics) the records go
 * to the "ring" BPF ring buffer instead and each CPU has blocks 0 and 1
 * only.
 */
#ifndef TDCTL_TD_BPF_H
#define TDCTL_TD_BPF_H

#include <linux/types.h>
#include <linux/topdown.h>

#define TD_BPF_DIR	"/sys/fs/bpf/topdown"

#define TD_BPF_BLOCK		4096u
#define TD_BPF_HDR_BLOCKS	2u

/* td_bpf_config.ring: where the records go. */
#define TD_BPF_RING_PERCPU	0	/* per-CPU rings in the rings map */
#define TD_BPF_RING_SHARED	1	/* one BPF ring buffer for all CPUs */

/*
 * td_bpf_cpu.ctl, written by tdctl only, one 32-bit store: bits 0-7 the
 * events that have a counter in td_events on this CPU (armed), bits 8-15
 * which of the two slots of each event holds it, bits 16-23 the events
 * configured on this CPU (wanted). A wanted event that is not armed (the
 * CPU came online after the load and no tdctl command armed it yet) reads
 * as an error. Counter i of CPU n, slot s, is td_events element
 * s * TOPDOWN_MAX_EVENTS * nr_cpus + i * nr_cpus + n.
 */
#define TD_CTL_ARMED(ctl)	((ctl) & 0xffu)
#define TD_CTL_SLOT(ctl, i)	(((ctl) >> (8 + (i))) & 1u)
#define TD_CTL_WANT(ctl)	(((ctl) >> 16) & 0xffu)
#define TD_CTL(armed, slots, want) \
	((armed) | (__u32)(slots) << 8 | (__u32)(want) << 16)

/*
 * Block 1 of a CPU.
 * @prod:	the module's producer page: producer_pos (published with a
 *		fully ordered exchange after the record), lost, data_size,
 *		record_size, cpu, flags
 * Written by tdctl (at load, and when a tdctl command re-creates a
 * counter), read by the program:
 * @ctl:	see TD_CTL_*
 * @arm_errors:	events perf put on no counter when tdctl armed them (their
 *		read() reported end of file); as topdown_cpu_stats
 * @recoveries:	counters in error that tdctl replaced by one that got a
 *		hardware counter
 * Written by the program only (tdctl initialises them at load):
 * @seen:	ctl as the program last applied it (tdctl leaves a CPU alone
 *		until the program caught up with its last change)
 * @idx:	td_events element of each event's counter (from @seen)
 * @resync:	events whose next readable slice reports 0 with the error
 *		bit: the last read failed or the counter changed, so the
 *		baseline is stale
 * @started:	set once the CPU wrote (or dropped) its first record
 * @pos:	the program's own producer position (the published one is
 *		only written, never trusted): records published * 128
 * @last, @enabled, @running: the previous read of each counter (enabled
 *		and running only with TDCTL_BPF_READ=value, a benchmark mode)
 * @last_ns:	end of the previous slice; at load, when the CPU's counters
 *		took their baselines (a TOPDOWN_REC_FIRST record's start)
 * @seq:	records produced, dropped ones included
 * @lost:	records dropped because the ring was full
 * The rest as struct topdown_cpu_stats.
 */
struct td_bpf_cpu {
	struct topdown_ring_producer prod;
	__u32 ctl;
	__u32 arm_errors;
	__u64 recoveries;
	__u64 __pad0[2];
	__u32 seen;
	__u32 resync;
	__u32 started;
	__u32 __pad1;
	__u32 idx[TOPDOWN_MAX_EVENTS];
	__u64 pos;
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
 * when counting started, where the records go and the maps' geometry.
 */
struct td_bpf_config {
	struct topdown_config cfg;
	__u64 start_ns;
	__u32 nr_cpus;
	__u32 ring_bytes;	/* the shared ring buffer's size */
	__u32 ring;		/* TD_BPF_RING_* */
	__u32 cpu_blocks;	/* blocks of the rings map per CPU */
	__u32 read_value;	/* the benchmark's old read path */
	__u32 __pad;
};

/*
 * Totals (tdctl load --backend bpf --totals): the module's pool ("Totals"
 * in the UAPI header, kmod/td_totals.c) kept by the program in the
 * "totals" map, a BPF_MAP_TYPE_ARRAY with BPF_F_MMAPABLE of
 * struct td_bpf_tot elements, which every reader maps:
 *
 *   element 0                 struct td_bpf_tot_hdr in its place
 *   elements 1 .. nr_cpus     CPU n's TOPDOWN_TOTAL_OTHER entry at 1 + n
 *   the next totals_tasks     the task entries, searched from a hash of
 *                             the task_struct's address
 *
 * (one element in all without --totals). As in the module: a task's entry
 * is written by the CPU the task leaves, a CPU's OTHER entry by that CPU
 * only; @seq is odd while the program writes the entry (changed with an
 * atomic exchange, fully ordered, before and after the stores), and a
 * reader copies the entry again while it was odd or changed. @key is the
 * task's address, | TD_TOT_EXITED after its last slice (set with an
 * atomic exchange after the sums), 0 while free; a claim is a
 * compare-and-exchange. One group: grp_slices, grp_time_ns and delta are
 * the entry's group 0.
 */
#define TD_TOT_EXITED	1ull
#define TD_TOT_PROBES	32

struct td_bpf_tot {
	__u32 seq;
	__u32 cpu;
	__u64 key;
	__u64 start_ns;
	__u32 pid;
	__u32 tgid;
	__u64 cgroup_id;
	__u64 cgroup_moves;
	char comm[TOPDOWN_COMM_LEN];
	__u64 slices;
	__u64 time_ns;
	__u64 unmeasured_ns;
	__u64 grp_slices;
	__u64 grp_time_ns;
	__u64 delta[TOPDOWN_MAX_EVENTS];
	__u32 exit_read;	/* hdr.reads at the task's last slice */
	__u32 __pad;
	__u64 __pad2[2];	/* 192 bytes: three cache lines */
};

/*
 * Element 0 of the totals map. @reads: copies of the entries begun
 * (readers add 1 atomically before one); the others as struct
 * topdown_totals, counted by the program with atomic adds.
 */
struct td_bpf_tot_hdr {
	__u64 reads;
	__u64 generation;
	__u64 no_room;
	__u64 reclaimed;
};

#endif
