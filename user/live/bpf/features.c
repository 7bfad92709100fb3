// SPDX-License-Identifier: GPL-2.0
/*
 * What the BPF backend can do on this kernel, and how it differs from the
 * module: the feature tests (BPF atomics, a sleeping ring buffer lock)
 * and the list status and version print.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "live/bpf/bpf_priv.h"

static const char *const td_diff_common[] = {
	"no resident process: counters in error and the counters of a CPU that comes online are (re)created when a tdctl command runs (any command that opens the backend, and dump, stat, top, record and serve every second while they run); until then their slices read as errors",
	"no CONFIGURE/START/STOP: load starts, unload stops and frees everything",
	"status reports a counter as counting or error from its last read (off: not created yet), never multiplexed",
	"no event groups: load refuses --level 2, -M, -e '{a,b},{c,d}' and --rotate (exit 2), "
	"because rotating groups needs perf_event_disable/enable on every CPU every --rotate ms, "
	"done by the module's per-CPU work; once load returns no process is left to do it. "
	"So only Level 1 (or one event list of at most 8) is collected, records carry no group, "
	"and status has no per-group records, time or errors",
};

bool td_bpf_percpu(const struct td_src *s)
{
	struct td_bpf_config bc;

	return bpf_map_lookup_elem(s->cfg_fd, &(uint32_t){ 0 }, &bc) ||
	       bc.ring != TD_BPF_RING_SHARED;
}

const char *const *td_bpf_differences(const struct td_src *s)
{
	static const char *list[8];
	size_t n = 0;

	if (td_bpf_percpu(s)) {
		list[n++] = "per-CPU rings as the module's, in a BPF array map "
			    "(overwrite mode and --totals too); "
			    "readers are woken through a BPF ring buffer";
	} else {
		list[n++] = "one ring buffer shared by all CPUs (--ring-size times the CPUs, "
			    "rounded up to a power of two), not a ring per CPU "
			    "(per-CPU rings need BPF atomic instructions: Linux 5.12)";
		list[n++] = "no overwrite mode: a full ring buffer drops new records, "
			    "counted per CPU as lost";
		list[n++] = "no totals (--totals): the program keeps them with BPF "
			    "atomic instructions, as the per-CPU rings";
	}
	for (size_t i = 0; i < sizeof(td_diff_common) / sizeof(td_diff_common[0]); i++)
		list[n++] = td_diff_common[i];
	list[n] = NULL;
	return list;
}

const char td_bpf_no_groups[] =
	"event groups are not available with the BPF backend: rotating groups needs "
	"perf_event_disable() and perf_event_enable() on every CPU every rotation interval, "
	"which the module does from a work item on each CPU; the BPF backend has no process "
	"left once load returns (use --backend module)";

/* The type of BTF id @id without typedefs and modifiers (NULL if none). */
static const struct btf_type *btf_resolve(const struct btf *btf, __u32 id,
					  const char **typedef_name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	for (int i = 0; t && i < 16; i++) {
		if (!btf_is_typedef(t) && !btf_is_mod(t))
			return t;
		if (btf_is_typedef(t) && typedef_name && !*typedef_name)
			*typedef_name = btf__name_by_offset(btf, t->name_off);
		t = btf__type_by_id(btf, t->type);
	}
	return NULL;
}

/*
 * Does the lock of the kernel's BPF ring buffer sleep? A feature test on
 * the kernel's BTF: struct bpf_ringbuf's member spinlock is a spinlock_t
 * whose struct holds an rt_mutex (PREEMPT_RT's sleeping spinlock_t), not
 * a raw_spinlock_t or rqspinlock_t. So it is in Debian's 5.10 rt kernels;
 * their 6.1, 6.12 and 7.3 rt kernels have a raw_spinlock_t or an
 * rqspinlock_t. 1 yes, 0 no, -1 cannot tell (no BTF, no such member).
 *
 * Why it matters: bpf_ringbuf_reserve() takes that lock, and
 * td_switch_shared calls it from sched_switch, inside __schedule() with
 * the runqueue locked. When two CPUs write at once, the sleeping lock
 * blocks, which schedules: __schedule() again, on a runqueue lock the CPU
 * holds. Seen on Debian's 5.10 rt (x86-64): both CPUs spinning with
 * interrupts off in native_queued_spin_lock_slowpath, the machine hung.
 * Per-CPU rings are never written by two CPUs and take no such lock.
 */
static int probe_ring_lock_sleeps(void)
{
	const struct btf_type *rb, *lk, *mt;
	const struct btf_member *m;
	const char *tname = NULL, *name;
	struct btf *btf = btf__load_vmlinux_btf();
	int id, ret = -1;

	if (libbpf_get_error(btf))
		return -1;
	id = btf__find_by_name_kind(btf, "bpf_ringbuf", BTF_KIND_STRUCT);
	rb = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (int i = 0; rb && i < btf_vlen(rb); i++) {
		m = btf_members(rb) + i;
		if (strcmp(btf__name_by_offset(btf, m->name_off), "spinlock"))
			continue;
		lk = btf_resolve(btf, m->type, &tname);
		if (!lk || !btf_is_struct(lk))
			break;
		ret = 0;
		if (!tname || strcmp(tname, "spinlock_t"))
			break;
		for (int j = 0; j < btf_vlen(lk); j++) {
			mt = btf_resolve(btf, btf_members(lk)[j].type, NULL);
			name = mt && btf_is_struct(mt) ?
			       btf__name_by_offset(btf, mt->name_off) : "";
			if (!strncmp(name, "rt_mutex", 8))
				ret = 1;
		}
		break;
	}
	btf__free(btf);
	return ret;
}

/* Under 256 bytes: the callers' buffers. */
const char td_bpf_ring_lock_why[] =
	"this PREEMPT_RT kernel's BPF ring buffer lock sleeps (a spinlock_t), "
	"and the BPF backend takes it in sched_switch (no BPF atomics, Linux "
	"5.12): two CPUs at once would deadlock. Use the module";

/*
 * The two feature tests, each run once per process (load asks both in
 * td_bpf_usable() and again in choose_ring(), status a third time); what
 * they find does not change while tdctl runs. 1, 0 or -1 as the probes;
 * TD_UNPROBED before the first call (a race between threads only probes
 * twice).
 */
#define TD_UNPROBED	(-2)

static int probe_once(int *cache, int (*probe)(void))
{
	int v = __atomic_load_n(cache, __ATOMIC_RELAXED);

	if (v == TD_UNPROBED) {
		v = probe();
		__atomic_store_n(cache, v, __ATOMIC_RELAXED);
	}
	return v;
}

static int probe_bpf_atomics(void);

int td_bpf_has_atomics(void)
{
	static int v = TD_UNPROBED;

	return probe_once(&v, probe_bpf_atomics);
}

int td_bpf_ring_lock_sleeps(void)
{
	static int v = TD_UNPROBED;

	return probe_once(&v, probe_ring_lock_sleeps);
}

int td_bpf_usable(char *err, size_t len)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, len,
			 "the kernel has no BTF (/sys/kernel/btf/vmlinux: %s): the BPF backend needs CONFIG_DEBUG_INFO_BTF",
			 strerror(errno));
		return -1;
	}
	/* Without root, td_bpf_has_atomics() cannot tell; load checks again. */
	if (td_bpf_has_atomics() == 0 && td_bpf_ring_lock_sleeps() == 1) {
		snprintf(err, len, "%s", td_bpf_ring_lock_why);
		return -1;
	}
	return 0;
}

/*
 * Does the verifier take BPF atomic instructions (BPF_XCHG: Linux 5.12)?
 * A feature test: a program of one exchange on the stack. 1 yes, 0 no
 * (the verifier refuses the instruction: EINVAL), -1 cannot tell (not
 * allowed to load a program: EPERM without root, ...).
 */
static int probe_bpf_atomics(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1 },
		{ .code = BPF_STX | BPF_DW | BPF_MEM, .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1, .off = -8 },
		{ .code = BPF_STX | BPF_DW | BPF_ATOMIC, .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1, .off = -8, .imm = BPF_XCHG },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	if (fd < 0)
		return errno == EINVAL ? 0 : -1;
	close(fd);
	return 1;
}

const char *td_bpf_rings_here(void)
{
	switch (td_bpf_has_atomics()) {
	case 1:
		return "per-CPU rings as the module's, overwrite mode and totals too";
	case 0:
		return "one ring buffer shared by all CPUs, no overwrite mode, "
		       "no totals (per-CPU rings and totals need BPF atomic instructions: Linux 5.12; "
		       "this kernel has none)";
	default:
		return "its ring layout needs root to tell (per-CPU rings where "
		       "the kernel has BPF atomic instructions, Linux 5.12, else "
		       "one shared ring buffer)";
	}
}
