// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF backend's sched_switch program: the module's probe (kmod/
 * td_probe.c) as a tp_btf program, writing the same struct topdown_record.
 *
 * Built once with clang -target bpf for every architecture: a tp_btf
 * program's arguments are an array of u64 (BPF_PROG), so no
 * __TARGET_ARCH_* register layout is involved, and the kernel structures
 * it reads (a few fields of task_struct and the cgroup id chain) are
 * declared below with preserve_access_index, so libbpf relocates the
 * field offsets against the running kernel's BTF (/sys/kernel/btf/vmlinux),
 * with bpf_core_field_exists() where kernels differ (5.10 to 7.3, x86-64
 * and arm64 alike).
 *
 * Two programs, tdctl loads one (see td_bpf.h):
 *  - td_switch: per-CPU rings in an mmap()able array, written as the
 *    module writes its rings: no helper call for the record, no lock, the
 *    record published with an atomic exchange of producer_pos (BPF atomic
 *    instructions: Linux 5.12). Overwrite mode as the module's. Readers
 *    are woken through a small BPF ring buffer when a ring's unread data
 *    crosses the watermark.
 *  - td_switch_shared: the records in one BPF ring buffer for all CPUs
 *    (Linux 5.8), for kernels without BPF atomics; no overwrite mode.
 *
 * Counters: pinned per-CPU perf events created by tdctl, kept in
 * td_events (BPF_F_PRESERVE_ELEMS, so they outlive the file that put them
 * there), read with bpf_perf_event_read(): perf_event_read_local() on its
 * own CPU, without the enabled/running times that
 * bpf_perf_event_read_value() computes with a clock read per event. Its
 * value folds errors in: a negative errno as a u64 (see td_read()).
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/errno.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "td_bpf.h"

#define TD_PF_IDLE	0x00000002	/* include/linux/sched.h, 5.10 to 6.12 */
#define TD_TASK_DEAD	0x00000080	/* include/linux/sched.h, 5.10 to 7.3 */
#define TD_GOLDEN_RATIO_64 0x61C8864680B583EBull /* include/linux/hash.h */
#define TD_MAX_ERRNO	4095		/* include/linux/err.h */
/* A record in the shared ring buffer, with the ring buffer's header. */
#define TD_SHARED_REC	(sizeof(struct topdown_record) + BPF_RINGBUF_HDR_SZ)

struct kernfs_node {
	__u64 id;
} __attribute__((preserve_access_index));

struct cgroup {
	struct kernfs_node *kn;
} __attribute__((preserve_access_index));

struct css_set {
	struct cgroup *dfl_cgrp;
} __attribute__((preserve_access_index));

struct thread_info {
	__u32 cpu;
} __attribute__((preserve_access_index));

struct task_struct {
	struct thread_info thread_info;
	unsigned int __state;
	unsigned int flags;
	int pid;
	int tgid;
	__u64 start_time;
	struct css_set *cgroups;
	char comm[TOPDOWN_COMM_LEN];
} __attribute__((preserve_access_index));

/* Before 5.16 the CPU is task_struct.cpu; before 5.14 the state is
 * a long named state.
 */
struct task_struct___old {
	unsigned int cpu;
	long state;
} __attribute__((preserve_access_index));

char LICENSE[] SEC("license") = "GPL";

/* Set by tdctl load before the program is loaded. */
const volatile __u32 td_nr_events = 1;
const volatile __u32 td_nr_cpus = 1;
const volatile __u32 td_cpu_blocks = TD_BPF_HDR_BLOCKS;
const volatile __u32 td_ring_size = TD_BPF_BLOCK;
const volatile __u64 td_watermark = 1;
const volatile __u32 td_overwrite;
/* Benchmark only (TDCTL_BPF_READ=value): the older, slower read path. */
const volatile __u32 td_read_value;
/* --totals: the task entries of the totals map (a power of two), its log2. */
const volatile __u32 td_totals_tasks;
const volatile __u32 td_totals_bits;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(map_flags, BPF_F_PRESERVE_ELEMS);
} td_events SEC(".maps");

struct td_block {
	__u8 b[TD_BPF_BLOCK];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct td_block);
} td_rings SEC(".maps");

/* td_switch_shared: the records; td_switch: wake-up notes. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
} td_ring SEC(".maps");

/* --totals: the pool (td_bpf.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct td_bpf_tot);
} td_totals SEC(".maps");

/* For readers only: the configuration. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct td_bpf_config);
} td_config SEC(".maps");

/* Block blk of CPU cpu's part of the rings map (an inlined array lookup). */
static __always_inline void *td_block(__u32 cpu, __u32 blk)
{
	__u32 key = cpu * td_cpu_blocks + blk;

	return bpf_map_lookup_elem(&td_rings, &key);
}

/* The CPU prev runs on: this one (it is still running here). */
static __always_inline __u32 td_task_cpu(struct task_struct *prev)
{
	if (bpf_core_field_exists(prev->thread_info.cpu))
		return prev->thread_info.cpu;
	return ((struct task_struct___old *)prev)->cpu;
}

/* Still runnable (TASK_RUNNING is 0): see td_probe.c. */
static __always_inline _Bool td_task_running(struct task_struct *prev)
{
	if (bpf_core_field_exists(prev->__state))
		return !prev->__state;
	return !((struct task_struct___old *)prev)->state;
}

/* cgroup v2 id, as bpf_get_current_cgroup_id() and the module compute it. */
static __always_inline __u64 td_cgroup_id(struct task_struct *prev)
{
	struct css_set *cs;
	struct cgroup *cg;
	struct kernfs_node *kn;

	if (!bpf_core_field_exists(prev->cgroups))
		return 0;
	cs = prev->cgroups;
	if (!cs)
		return 0;
	cg = cs->dfl_cgrp;
	if (!cg)
		return 0;
	kn = cg->kn;
	return kn ? kn->id : 0;
}

/*
 * One counter of this CPU: 0 and its count in *v; 1 and its count if it
 * was off the PMU for part of the slice (TDCTL_BPF_READ=value only); -1
 * if it cannot be read.
 *
 * bpf_perf_event_read() returns the count, or a negative errno as a u64:
 * -ENOENT (no event in the slot), -EINVAL (an event of another CPU),
 * -EBUSY (a pinned event not on the PMU: perf found no counter for it,
 * ERROR, or its CPU went offline since, OFF), -E2BIG, -EOPNOTSUPP
 * (kernel/trace/bpf_trace.c, perf_event_read_local() in
 * kernel/events/core.c, 5.10 to 6.12). Any value in the last MAX_ERRNO
 * of the u64 range is taken as an error: a count starts at 0 when tdctl
 * creates the event and would need 2^64 - 4095 increments to get there.
 */
static __always_inline int td_read_one(struct td_bpf_cpu *c, __u32 i,
				       __u32 idx, __u64 *v)
{
	if (td_read_value) {
		struct bpf_perf_event_value pv;
		__u64 en, run;

		/*
		 * *v written on failure too: left undefined, clang may copy
		 * an unset register, which the verifier rejects.
		 */
		if (bpf_perf_event_read_value(&td_events, idx, &pv, sizeof(pv))) {
			*v = 0;
			return -1;
		}
		*v = pv.counter;
		en = pv.enabled - c->enabled[i];
		run = pv.running - c->running[i];
		c->enabled[i] = pv.enabled;
		c->running[i] = pv.running;
		return en != run;
	}
	*v = bpf_perf_event_read(&td_events, idx);
	return *v >= (__u64)-TD_MAX_ERRNO ? -1 : 0;
}

/*
 * The slow half of td_read(): tdctl changed the counters (armed a CPU that
 * came online, replaced a counter in error), some event is not armed on
 * this CPU, or some counter could not be read at the last switch. As the
 * module: an event not configured on this CPU reads 0 without error; one
 * configured but not armed, or that cannot be read, reads 0 with its
 * error bit, and so does the first slice after it can be read again or
 * was replaced (the baseline is re-taken there), so no delta ever spans
 * a gap. A subprogram: the hot path stays short.
 */
static __noinline __u32 td_read_slow(struct td_bpf_cpu *c, __u64 *delta,
				     __u32 cpu)
{
	__u32 ctl = *(volatile __u32 *)&c->ctl, failed = 0, armed, want, i;

	if (ctl != c->seen) {
		/* New baselines for what changed; the slots' elements. */
		__u32 ch = ctl ^ c->seen;

		c->resync |= (ch | ch >> 8) & 0xff;
		c->seen = ctl;
#pragma unroll
		for (i = 0; i < TOPDOWN_MAX_EVENTS; i++)
			c->idx[i] = (TD_CTL_SLOT(ctl, i) * TOPDOWN_MAX_EVENTS + i) *
				    td_nr_cpus + cpu;
	}
	armed = TD_CTL_ARMED(ctl);
	want = TD_CTL_WANT(ctl);
#pragma unroll
	for (i = 0; i < TOPDOWN_MAX_EVENTS; i++) {
		__u32 bit = 1u << i;
		__u64 v;
		int r;

		delta[i] = 0;
		if (i >= td_nr_events)
			continue;
		if (!(armed & bit)) {
			/* Configured here, but not armed yet. */
			if (want & bit)
				failed |= bit;
			continue;
		}
		/*
		 * idx depends on ctl (an address dependency): tdctl stores
		 * ctl after it put the counter into the slot.
		 */
		r = td_read_one(c, i, c->idx[i], &v);
		if (r < 0) {
			failed |= bit;
			c->resync |= bit;
			continue;
		}
		if (r || c->resync & bit) {
			failed |= bit;
			c->resync &= ~bit;
		} else {
			delta[i] = v - c->last[i];
		}
		c->last[i] = v;
	}
	return failed;
}

/*
 * Read this CPU's counters into delta[]; returns the error bits. The hot
 * path: every event armed, nothing changed, nothing to resynchronise; a
 * counter that fails here reads 0 with its error bit and is left to the
 * slow path from the next switch on. delta[] entries past the events are
 * not written. One loop per read helper, so that the verifier drops the
 * other one whole (td_read_value is constant once loaded).
 */
static __always_inline __u32 td_read(struct td_bpf_cpu *c, __u64 *delta,
				     __u32 cpu)
{
	__u32 ctl = *(volatile __u32 *)&c->ctl, n = td_nr_events, failed = 0, i;

	if (ctl != c->seen || c->resync || TD_CTL_ARMED(ctl) != (1u << n) - 1)
		return td_read_slow(c, delta, cpu);
	if (td_read_value) {
#pragma unroll
		for (i = 0; i < TOPDOWN_MAX_EVENTS; i++) {
			__u64 v;
			int r;

			if (i >= n)
				continue;
			r = td_read_one(c, i, c->idx[i], &v);
			if (r) {
				failed |= 1u << i;
				delta[i] = 0;
				if (r < 0)
					c->resync |= 1u << i;
				else
					c->last[i] = v;
				continue;
			}
			delta[i] = v - c->last[i];
			c->last[i] = v;
		}
		return failed;
	}
#pragma unroll
	for (i = 0; i < TOPDOWN_MAX_EVENTS; i++) {
		__u64 v;

		if (i >= n)
			continue;
		/* As td_read_one(), inline: a negative errno is no count. */
		v = bpf_perf_event_read(&td_events, c->idx[i]);
		if (v >= (__u64)-TD_MAX_ERRNO) {
			failed |= 1u << i;
			delta[i] = 0;
			c->resync |= 1u << i;
			continue;
		}
		delta[i] = v - c->last[i];
		c->last[i] = v;
	}
	return failed;
}

static __always_inline void td_count_errors(struct td_bpf_cpu *c, __u32 errors)
{
	__u32 i;

	c->read_errors++;
#pragma unroll
	for (i = 0; i < TOPDOWN_MAX_EVENTS; i++)
		if (errors & (1u << i))
			c->ev_err[i]++;
}

/* prev's last switch: its final schedule() set TASK_DEAD (see td_compat.h). */
static __always_inline _Bool td_task_dead(struct task_struct *prev)
{
	if (bpf_core_field_exists(prev->__state))
		return prev->__state == TD_TASK_DEAD;
	return ((struct task_struct___old *)prev)->state == TD_TASK_DEAD;
}

/* ---- totals: the module's kmod/td_totals.c, in the map of td_bpf.h ---- */

static __always_inline struct td_bpf_tot *td_tot_elem(__u32 i)
{
	return bpf_map_lookup_elem(&td_totals, &i);
}

static __always_inline struct td_bpf_tot_hdr *td_tot_hdr(void)
{
	return (struct td_bpf_tot_hdr *)td_tot_elem(0);
}

/*
 * An entry's sequence count, odd while it is written: an atomic exchange
 * (fully ordered, as the rings' publication) on both sides of the stores,
 * which readers pair with the acquire loads around their copy.
 */
static __always_inline void td_tot_seq(struct td_bpf_tot *e)
{
	__sync_lock_test_and_set(&e->seq, e->seq + 1);
}

/* @e's only writer, in its write section: one slice. */
static __always_inline void td_tot_sum(struct td_bpf_tot *e, __u32 flags,
				       const __u64 *delta, __u64 dur)
{
	__u32 i;

	e->slices++;
	e->time_ns += dur;
	if (flags & TOPDOWN_REC_ERROR_MASK) {
		e->unmeasured_ns += dur;
		return;
	}
	e->grp_slices++;
	e->grp_time_ns += dur;
#pragma unroll
	for (i = 0; i < TOPDOWN_MAX_EVENTS; i++)
		if (i < td_nr_events)
			e->delta[i] += delta[i];
}

static __always_inline void td_tot_add(struct td_bpf_tot *e, __u32 flags,
				       const __u64 *delta, __u64 dur)
{
	td_tot_seq(e);
	td_tot_sum(e, flags, delta, dur);
	td_tot_seq(e);
}

/*
 * @e (claimed: this CPU is its only writer) becomes the entry of the task
 * started at @start; its old sums, if any, folded into @other first.
 */
static __always_inline void td_tot_take(struct td_bpf_tot_hdr *h,
					struct td_bpf_tot *e,
					struct td_bpf_tot *other, __u64 start,
					_Bool had_sums)
{
	__u32 i;

	if (had_sums) {
		td_tot_seq(other);
		other->slices += e->slices;
		other->time_ns += e->time_ns;
		other->unmeasured_ns += e->unmeasured_ns;
		other->grp_slices += e->grp_slices;
		other->grp_time_ns += e->grp_time_ns;
#pragma unroll
		for (i = 0; i < TOPDOWN_MAX_EVENTS; i++)
			other->delta[i] += e->delta[i];
		td_tot_seq(other);
		__sync_fetch_and_add(&h->generation, 1);
	}
	td_tot_seq(e);
	e->start_ns = start;
	e->slices = 0;
	e->cgroup_moves = 0;
	e->time_ns = 0;
	e->unmeasured_ns = 0;
	e->grp_slices = 0;
	e->grp_time_ns = 0;
#pragma unroll
	for (i = 0; i < TOPDOWN_MAX_EVENTS; i++)
		e->delta[i] = 0;
	td_tot_seq(e);
}

/*
 * The element of the entry of the task at @key (its address), started at
 * @start, a free or exited one claimed for it if it has none; -1: no room
 * within TD_TOT_PROBES slots; -2: another CPU claimed the slot first (the
 * caller searches once more, as the module does). The module's
 * td_tot_find(): a slot goes from free to a task, to the task |
 * TD_TOT_EXITED after its last slice, and from there to a new task, the
 * claiming CPU folding the old sums into its OTHER entry; an exited
 * entry no copy begun after the exit has read is taken only when there
 * is no other room. The exchange that marked the exit and the claim's
 * compare-and-exchange are both fully ordered, so the folding CPU reads
 * the exited task's last sums.
 *
 * A global function: the verifier checks it once, on its own, instead of
 * again for every state its callers reach it in (with it inline, 7.3's
 * verifier gave up after a million instructions).
 */
__noinline int td_tot_find(__u64 key, __u64 start, __u32 cpu)
{
	struct td_bpf_tot_hdr *h = td_tot_hdr();
	struct td_bpf_tot *e, *other = td_tot_elem(1 + cpu);
	__u32 mask = td_totals_tasks - 1, base = 1 + td_nr_cpus, first, reads, n;
	__u64 k, old = 0, unread_old = 0;
	int room = -1, unread = -1;

	if (!h || !other || !td_totals_tasks)
		return -1;
	reads = (__u32)*(volatile __u64 *)&h->reads;
	first = (__u32)((key * TD_GOLDEN_RATIO_64) >> (64 - td_totals_bits));
	for (n = 0; n < TD_TOT_PROBES; n++) {
		__u32 i = base + ((first + n) & mask);

		e = td_tot_elem(i);
		if (!e)
			return -1;
		k = *(volatile __u64 *)&e->key;
		if (k == key) {
			if (e->start_ns == start)
				return i;
			/* An earlier task at this address, exited unseen. */
			td_tot_take(h, e, other, start, 1);
			__sync_fetch_and_add(&h->reclaimed, 1);
			return i;
		}
		if (!k) {
			if (room < 0)
				room = i;
			break;
		}
		if (!(k & TD_TOT_EXITED) || room >= 0)
			continue;
		if (reads - e->exit_read >= 2) {
			room = i;
			old = k;
		} else if (unread < 0) {
			unread = i;
			unread_old = k;
		}
	}
	if (room < 0) {
		room = unread;
		old = unread_old;
	}
	if (room < 0)
		return -1;
	e = td_tot_elem(room);
	if (!e)
		return -1;
	/* Another CPU may claim the same slot for its task: one wins. */
	if (__sync_val_compare_and_swap(&e->key, old, key) != old)
		return -2;
	td_tot_take(h, e, other, start, old != 0);
	if (old)
		__sync_fetch_and_add(&h->reclaimed, 1);
	return room;
}

/*
 * One slice of prev (the current task: the tracepoint runs before the
 * switch) on @cpu, with its record's @flags and @delta, @dur long, in
 * @cgroup_id. Without --totals the verifier drops all of it.
 */
static __always_inline void td_tot_slice(struct task_struct *prev, __u32 cpu,
					 __u32 flags, const __u64 *delta,
					 __u64 dur, __u64 cgroup_id)
{
	struct td_bpf_tot_hdr *h;
	struct td_bpf_tot *e, *other;
	__u64 key;
	int i;

	if (!td_totals_tasks)
		return;
	other = td_tot_elem(1 + cpu);
	if (!other)
		return;
	if (prev->flags & TD_PF_IDLE) {
		td_tot_add(other, flags, delta, dur);
		return;
	}
	/* The address as a number (the verifier allows no hashing of a
	 * pointer): prev is current here. Not before the test above: a
	 * helper call is not dropped with the code it does not serve.
	 */
	key = bpf_get_current_task();
	i = td_tot_find(key, prev->start_time, cpu);
	if (i == -2)
		i = td_tot_find(key, prev->start_time, cpu);
	e = i < 0 ? (void *)0 : td_tot_elem(i);
	if (!e) {
		h = td_tot_hdr();
		if (h)
			__sync_fetch_and_add(&h->no_room, 1);
		td_tot_add(other, flags, delta, dur);
		return;
	}
	/* Who it is now, with the sums it has now. */
	td_tot_seq(e);
	e->cpu = cpu;
	e->pid = prev->pid;
	e->tgid = prev->tgid;
	if (e->slices && e->cgroup_id != cgroup_id)
		e->cgroup_moves++;
	e->cgroup_id = cgroup_id;
	__builtin_memcpy(e->comm, prev->comm, TOPDOWN_COMM_LEN);
	td_tot_sum(e, flags, delta, dur);
	td_tot_seq(e);
	/* Its last slice: readable as exited until a task needs the room. */
	if (td_task_dead(prev)) {
		h = td_tot_hdr();
		e->exit_read = h ? (__u32)*(volatile __u64 *)&h->reads : 0;
		__sync_lock_test_and_set(&e->key, key | TD_TOT_EXITED);
	}
}

/*
 * No room: the record is lost, but the counters are still read so that
 * the next record's deltas cover only its own slice; with @totals (the
 * per-CPU rings' program: the shared ring buffer's runs where there are
 * no BPF atomics) the totals count it.
 */
static __always_inline void td_drop(struct td_bpf_cpu *c, __u32 cpu,
				    struct task_struct *prev, __u64 now,
				    _Bool totals)
{
	__u64 scratch[TOPDOWN_MAX_EVENTS];
	__u32 errors = td_read(c, scratch, cpu);

	if (errors)
		td_count_errors(c, errors);
	if (totals && td_totals_tasks)
		td_tot_slice(prev, cpu, errors, scratch, now - c->last_ns,
			     td_cgroup_id(prev));
	c->lost++;
	c->seq++;
	*(volatile __u64 *)&c->prod.lost = c->lost;
}

/* Everything but seq, as td_probe.c. */
static __always_inline void td_fill(struct topdown_record *rec,
				    struct td_bpf_cpu *c,
				    struct task_struct *prev, _Bool preempt,
				    __u32 cpu, __u64 now)
{
	__u32 flags = td_read(c, rec->delta, cpu);

	if (flags)
		td_count_errors(c, flags);
	if (preempt || td_task_running(prev))
		flags |= TOPDOWN_REC_PREEMPTED;
	if (!c->started)
		flags |= TOPDOWN_REC_FIRST;
	if (prev->flags & TD_PF_IDLE)
		flags |= TOPDOWN_REC_IDLE;
	rec->time_ns = now;
	rec->duration_ns = now - c->last_ns;
	rec->cgroup_id = td_cgroup_id(prev);
	rec->cpu = cpu;
	rec->pid = prev->pid;
	rec->tgid = prev->tgid;
	rec->flags = flags;
	/* All 16 bytes, NUL-padded as in the task, as the module. */
	__builtin_memcpy(rec->comm, prev->comm, TOPDOWN_COMM_LEN);
}

static __always_inline void td_account(struct td_bpf_cpu *c, __u64 now)
{
	c->started = 1;
	c->probe_count++;
	c->last_ns = now;
	c->probe_ns += bpf_ktime_get_ns() - now;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(td_switch, _Bool preempt, struct task_struct *prev)
{
	__u64 now = bpf_ktime_get_ns(), pos, next, cons_pos;
	__u32 cpu = td_task_cpu(prev);
	struct topdown_ring_consumer *cons;
	struct topdown_record *rec;
	struct td_bpf_cpu *c;
	void *blk;

	c = td_block(cpu, 1);
	cons = td_block(cpu, 0);
	if (!c || !cons)
		return 0;
	pos = c->pos;
	if (!td_overwrite) {
		/*
		 * Untrusted, as in the module: a bad value only drops
		 * records. The stores into the slot below depend on this
		 * comparison (a branch), which orders them after the load.
		 */
		cons_pos = *(volatile __u64 *)&cons->consumer_pos;
		if (pos - cons_pos > td_ring_size - TOPDOWN_RECORD_SIZE) {
			td_drop(c, cpu, prev, now, 1);
			goto out;
		}
	}
	/*
	 * In overwrite mode the previous publication (a fully ordered
	 * exchange) orders itself before this fill's stores, as the smp_mb()
	 * after each of the module's publications does (see the UAPI header).
	 */
	blk = td_block(cpu, TD_BPF_HDR_BLOCKS +
			    ((pos & (td_ring_size - 1)) / TD_BPF_BLOCK));
	if (!blk)
		goto out;
	rec = blk + (pos & (TD_BPF_BLOCK - TOPDOWN_RECORD_SIZE));
	td_fill(rec, c, prev, preempt, cpu, now);
	td_tot_slice(prev, cpu, rec->flags, rec->delta, rec->duration_ns,
		     rec->cgroup_id);
	rec->seq = c->seq++;
	next = pos + TOPDOWN_RECORD_SIZE;
	c->pos = next;
	/* Publish: a store-release at least (readers load-acquire it). */
	__sync_lock_test_and_set(&c->prod.producer_pos, next);
	/* Wake a reader only when unread data crosses the watermark. */
	cons_pos = *(volatile __u64 *)&cons->consumer_pos;
	if (pos - cons_pos < td_watermark && next - cons_pos >= td_watermark) {
		__u64 note = cpu;

		bpf_ringbuf_output(&td_ring, &note, sizeof(note),
				   BPF_RB_FORCE_WAKEUP);
	}
out:
	td_account(c, now);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(td_switch_shared, _Bool preempt, struct task_struct *prev)
{
	__u64 now = bpf_ktime_get_ns(), wake, avail;
	__u32 cpu = td_task_cpu(prev);
	struct topdown_record *rec;
	struct td_bpf_cpu *c;

	c = td_block(cpu, 1);
	if (!c)
		return 0;
	rec = bpf_ringbuf_reserve(&td_ring, sizeof(*rec), 0);
	if (!rec) {
		td_drop(c, cpu, prev, now, 0);
		goto out;
	}
	td_fill(rec, c, prev, preempt, cpu, now);
	/* A reserved slot holds old data: the unused entries are 0. */
#pragma unroll
	for (__u32 i = 0; i < TOPDOWN_MAX_EVENTS; i++)
		if (i >= td_nr_events)
			rec->delta[i] = 0;
	rec->seq = c->seq++;
	/* producer_pos stays 0: the rings map has no data here. */
	c->pos += TOPDOWN_RECORD_SIZE;
	/*
	 * Wake the reader when the unread data (our record and its header
	 * included since the reserve) crosses a multiple of the watermark,
	 * as the module wakes at the crossing; a multiple, so that a
	 * crossing another CPU's reserve hid from this query is made up at
	 * the next one. Not at every record past the watermark: with no
	 * reader, or a slow one, that forced a wake-up per switch, and on
	 * PREEMPT_RT the ring buffer's wake-up (an irq_work) runs in the
	 * CPU's irq_work thread, so each was two more switches, each with
	 * its own record and wake-up: the ring filled with them.
	 */
	avail = bpf_ringbuf_query(&td_ring, BPF_RB_AVAIL_DATA);
	wake = avail >= TD_SHARED_REC &&
	       avail / td_watermark != (avail - TD_SHARED_REC) / td_watermark ?
	       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	bpf_ringbuf_submit(rec, wake);
out:
	td_account(c, now);
	return 0;
}
