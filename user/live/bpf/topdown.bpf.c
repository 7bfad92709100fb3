// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF backend's sched_switch program: the module's probe (kmod/
 * td_probe.c) as a tp_btf program, writing the same struct topdown_record
 * into a BPF ring buffer.
 *
 * Built once with clang -target bpf for every architecture: a tp_btf
 * program's arguments are an array of u64 (BPF_PROG), so no
 * __TARGET_ARCH_* register layout is involved, and the only kernel
 * structure it reads (three fields of task_struct) is declared below with
 * preserve_access_index, so
 * libbpf relocates the field offsets against the running kernel's BTF
 * (/sys/kernel/btf/vmlinux) on 5.10 to 7.3, x86-64 and arm64 alike.
 *
 * Counters: one pinned per-CPU perf event per configured event, created by
 * tdctl load and kept in td_events at index event * nr_cpus + cpu (the
 * map is BPF_F_PRESERVE_ELEMS, so they outlive the file that put them
 * there). bpf_perf_event_read_value() reads them on their own CPU
 * (perf_event_read_local()); it fails for a pinned event perf could not
 * put on a counter, and reports enabled and running times, which differ
 * when the counter was off the PMU for part of the slice.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/errno.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "td_bpf.h"

#define TD_PF_IDLE	0x00000002	/* include/linux/sched.h, 6.1 and 6.12 */

struct task_struct {
	unsigned int __state;
	unsigned int flags;
	char comm[TOPDOWN_COMM_LEN];
} __attribute__((preserve_access_index));

/* Before 5.14 the state was the long task_struct.state. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

/* Zero when the task is runnable (TASK_RUNNING). */
static __always_inline long td_task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return t->__state;
	return ((struct task_struct___pre514 *)t)->state;
}

char LICENSE[] SEC("license") = "GPL";

/* Set by tdctl load before the program is loaded. */
const volatile __u32 td_nr_events = 1;
const volatile __u32 td_nr_cpus = 1;
const volatile __u64 td_watermark = 1;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(map_flags, BPF_F_PRESERVE_ELEMS);
} td_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
} td_ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct td_bpf_cpu);
} td_cpu SEC(".maps");

/* For readers only: the configuration, and per CPU the lost records
 * already reported (topdown_ring_consumer.lost_seen).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct td_bpf_config);
} td_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} td_lost_seen SEC(".maps");

/*
 * Read this CPU's counters into delta[]; returns the error bits. As the
 * module: an event without a counter on this CPU reads 0 without error;
 * one that cannot be read, or was not on the PMU for the whole slice,
 * reads 0 with its error bit, and so does the first slice after it could
 * be read again (the baseline is re-taken there).
 */
static __always_inline __u32 td_read(struct td_bpf_cpu *c, __u64 *delta,
				     __u32 cpu)
{
	__u32 failed = 0, i;

#pragma unroll
	for (i = 0; i < TOPDOWN_MAX_EVENTS; i++) {
		struct bpf_perf_event_value v;
		__u64 idx = (__u64)i * td_nr_cpus + cpu;
		__u32 bit = 1u << i;

		delta[i] = 0;
		if (i >= td_nr_events || !(c->armed & bit))
			continue;
		if (bpf_perf_event_read_value(&td_events, idx, &v, sizeof(v))) {
			failed |= bit;
			c->resync |= bit;
			continue;
		}
		if (c->resync & bit ||
		    v.enabled - c->enabled[i] != v.running - c->running[i]) {
			failed |= bit;
			c->resync &= ~bit;
		} else {
			delta[i] = v.counter - c->last[i];
		}
		c->last[i] = v.counter;
		c->enabled[i] = v.enabled;
		c->running[i] = v.running;
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

SEC("tp_btf/sched_switch")
int BPF_PROG(td_switch, _Bool preempt, struct task_struct *prev)
{
	__u64 now = bpf_ktime_get_ns(), pid_tgid, wake;
	struct topdown_record *rec;
	struct td_bpf_cpu *c;
	__u32 key = 0, cpu, flags;

	c = bpf_map_lookup_elem(&td_cpu, &key);
	if (!c)
		return 0;
	cpu = bpf_get_smp_processor_id();
	rec = bpf_ringbuf_reserve(&td_ring, sizeof(*rec), 0);
	if (!rec) {
		/* Lost; the counters are still read so that the next
		 * record's deltas cover only its own slice.
		 */
		__u64 scratch[TOPDOWN_MAX_EVENTS];

		flags = td_read(c, scratch, cpu);
		if (flags)
			td_count_errors(c, flags);
		c->lost++;
		c->seq++;
		goto out;
	}
	flags = td_read(c, rec->delta, cpu);
	c->errors = flags;
	if (flags)
		td_count_errors(c, flags);
	/* Still runnable (TASK_RUNNING is 0): see td_probe.c. */
	if (preempt || !td_task_state(prev))
		flags |= TOPDOWN_REC_PREEMPTED;
	if (!c->started)
		flags |= TOPDOWN_REC_FIRST;
	if (prev->flags & TD_PF_IDLE)
		flags |= TOPDOWN_REC_IDLE;
	/* current is still prev in the sched_switch tracepoint. */
	pid_tgid = bpf_get_current_pid_tgid();
	/*
	 * All 16 bytes, as the module: task->comm is NUL-padded, while
	 * bpf_get_current_comm() stops at the NUL and would leave the rest
	 * of the reused ring slot in the record.
	 */
	__builtin_memcpy(rec->comm, prev->comm, TOPDOWN_COMM_LEN);
	rec->seq = c->seq++;
	rec->time_ns = now;
	rec->duration_ns = now - c->last_ns;
	rec->cgroup_id = bpf_get_current_cgroup_id();
	rec->cpu = cpu;
	rec->pid = (__u32)pid_tgid;
	rec->tgid = pid_tgid >> 32;
	rec->flags = flags;
	/* Wake the reader only past the watermark, as the module. */
	wake = bpf_ringbuf_query(&td_ring, BPF_RB_AVAIL_DATA) + sizeof(*rec) >=
	       td_watermark ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	bpf_ringbuf_submit(rec, wake);
out:
	c->started = 1;
	c->probe_count++;
	c->last_ns = now;
	c->probe_ns += bpf_ktime_get_ns() - now;
	return 0;
}
