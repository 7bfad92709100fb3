/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * topdown: per-task performance counter slices collected at every context
 * switch, exported to user space through per-CPU rings on /dev/topdown.
 *
 * This header is the whole ABI between the topdown module and user space.
 * Every structure has a fixed layout with explicit padding; all are
 * naturally aligned and identical on 64-bit x86 and arm64.
 *
 * Object model
 * ------------
 * There is one global collection per machine. A privileged process
 * (CAP_PERFMON or CAP_SYS_ADMIN) opens /dev/topdown and
 *
 *   1. TOPDOWN_IOC_CONFIGURE: sets up to TOPDOWN_MAX_EVENTS perf events,
 *      each restricted to a set of CPUs, plus the ring size and overflow
 *      mode. This allocates one ring per possible CPU. Refused with EBUSY
 *      while collection runs or while any ring is still mapped. Only
 *      core CPU PMUs and software events are counted: PERF_TYPE_HARDWARE,
 *      _HW_CACHE, _RAW and _SOFTWARE, and a dynamic PMU type that perf
 *      schedules like a core PMU (in its hardware context). Tracepoint,
 *      breakpoint, kprobe, uprobe, uncore and other PMUs are refused with
 *      EOPNOTSUPP (so is an event perf refuses for a dynamic type's PMU
 *      with EINVAL or EOPNOTSUPP), a dynamic type no PMU has with ENOENT.
 *      Another error of perf's while checking a dynamic type, one that is
 *      not about the PMU (ENOMEM, EBUSY, a security module's EACCES or
 *      EPERM), is returned as perf gave it.
 *   2. TOPDOWN_IOC_START: creates one pinned per-CPU counter per event on
 *      every online CPU (and on CPUs that come online later) and attaches
 *      the sched_switch probe. From then on, every context switch writes
 *      one struct topdown_record for the task that leaves the CPU. A
 *      START that fails (perf refused a counter on some CPU: STATUS
 *      error_code, error_event, error_cpu) leaves nothing behind: no CPU
 *      counted, and no ring got a record, sequence number or statistic.
 *      A counter that perf creates but cannot put on a hardware counter
 *      (every counter taken by other pinned users) does not fail START:
 *      its deltas read 0 with the event's error bit, STATUS reports it
 *      (topdown_cpu_stats.ev_state and arm_errors), and the module
 *      retries it periodically until it gets a counter.
 *   3. TOPDOWN_IOC_STOP: detaches the probe and frees the counters. What
 *      the rings hold stays readable until the next CONFIGURE.
 *
 * Collection is not tied to the file that started it: a later open of
 * /dev/topdown can read the rings, query the status or stop it.
 *
 * Groups and rotation (TOPDOWN_CONFIG_SIZE_VER1)
 * ----------------------------------------------
 * A configuration may name more events than the PMU has counters, as up
 * to TOPDOWN_MAX_GROUPS groups of up to TOPDOWN_MAX_EVENTS events. With
 * nr_groups 0 (every VER0 caller) the configuration is one group made of
 * events[0 .. nr_events - 1], exactly as before: same counters, same
 * records, byte for byte. With nr_groups 1 .. TOPDOWN_MAX_GROUPS:
 *
 *  - The events form a pool of nr_events (1 .. TOPDOWN_MAX_POOL)
 *    entries: entry i is events[i] for i < TOPDOWN_MAX_EVENTS and
 *    more_events[i - TOPDOWN_MAX_EVENTS] after that. Group g counts the
 *    pool entries groups[g].events[0 .. groups[g].nr_events - 1]: distinct
 *    indexes below nr_events. Every pool entry belongs to at least one
 *    group, and may belong to several (an anchor such as cycles in every
 *    group, so that each group normalises itself). Each (group, entry) is
 *    a perf event of its own; only the running group's events hold
 *    counters.
 *  - Each CPU counts one group at a time and changes group only between
 *    two slices, never inside one: every record is measured whole by the
 *    group in its TOPDOWN_REC_GROUP() bits, and delta[j] counts pool entry
 *    groups[g].events[j]. Group 0 runs first (at START and when a CPU
 *    comes online); a CPU moves to the next group, in order and round
 *    robin, every rotate_ms milliseconds of its own. The slice in which
 *    the change happens carries TOPDOWN_REC_ROTATED, zero deltas and
 *    every error bit of the new group: no group measured it. Nothing is
 *    scaled in the kernel; readers know from the group bits exactly which
 *    slices each group saw.
 *  - One group (nr_groups 1) never rotates and writes the records a VER0
 *    configuration of the same events writes.
 *  - A CPU that comes online (and every CPU at START) begins with group 0,
 *    its first record flagged TOPDOWN_REC_FIRST. Counters perf put in
 *    error are retried while their group counts (a waiting group's
 *    counters are not retried: they are disabled, and a counter that had
 *    no hardware counter in its group's last turn stays in error until
 *    the next one); the error bits of a record are its group's, by
 *    position. Overwrite mode is unchanged.
 *  - No group's turn is skipped: a CPU changes group only after the
 *    slice that settled its last change (the TOPDOWN_REC_ROTATED record)
 *    and one slice after it, measured whole by the new group, have ended
 *    (written or dropped); at START and online, after one slice of group
 *    0. So, per CPU and in sequence order, two changes always have a
 *    record without TOPDOWN_REC_ROTATED between them, unless records were
 *    dropped there (a gap in seq).
 *  - rotate_ms is counted in the CPU's timer ticks (rounded up to whole
 *    ticks, at least two) from the tick of the last change, and the change
 *    waits for the CPU to be awake, for its work item to run (at a
 *    switch) and for the slices above, tried again every tick, so an
 *    interval may be longer, and the one after a late change shorter by
 *    less than a tick: an
 *    idle CPU, or a nohz_full CPU running one task without its tick,
 *    keeps its group until its tick runs again (the change is a work
 *    item on the CPU itself; it never wakes or interrupts a CPU for
 *    rotation alone). The records still say which group measured what.
 *    A CPU isolated from the kernel's housekeeping (isolcpus=, nohz_full=;
 *    TOPDOWN_CPU_ISOLATED in STATUS) never changes group: it counts group
 *    0 only (unless the module parameter isolated_work is set).
 *  - STATUS (TOPDOWN_CPU_STATS_SIZE_VER3) reports per CPU the group
 *    counting now, the changes so far and, per group, its records, the
 *    time it measured, its slices with unreadable counters and the state
 *    of each of its counters.
 *  - GET_CONFIG of a configuration with groups needs a size of at least
 *    TOPDOWN_CONFIG_SIZE_VER1 (EOVERFLOW otherwise): a program that
 *    knows only VER0 could not tell which event a record's delta[j]
 *    counts, nor hold a pool of more than TOPDOWN_MAX_EVENTS.
 *
 * Other users of the PMU
 * ----------------------
 * topdown's counters are pinned, like those of perf stat -a -e ...:D and
 * of the NMI watchdog, and perf gives a CPU's pinned events their
 * hardware counters in the order they were created. topdown never takes
 * a hardware counter from another user's event that is counting: each
 * time a group's turn begins, and before each retry of a counter in
 * error, topdown creates that counter anew (software events excepted:
 * they always get one), so it comes after every event already there and
 * gets a hardware counter only if one is left free. When none is, it is
 * topdown's counter that waits: the slices carry its error bit, STATUS
 * shows it in TOPDOWN_EVSTATE_ERROR, and it is retried (retries and
 * recoveries in struct topdown_cpu_stats). A new counter that perf
 * cannot create (memory) is left disabled: its slices carry the error
 * bit until its group's next turn. Another user's
 * event opened while topdown holds every counter gets none (perf puts it
 * in error, as it does for any pinned event that finds the counters
 * taken); perf does not retry it.
 *
 * Ring layout (one per possible CPU)
 * ----------------------------------
 * The rings are mapped with mmap() on /dev/topdown. CPU n's ring starts at
 * file offset TOPDOWN_MMAP_OFFSET(n) and consists of
 *
 *   page 0                  struct topdown_ring_consumer   (read-write)
 *   page 1                  struct topdown_ring_producer   (read-only)
 *   pages 2 .. 2+data/PAGE  record data, data_size bytes   (read-only)
 *
 * Only a file opened for writing can map the rings (EACCES otherwise,
 * as mmap() answers a descriptor whose mode does not allow a mapping). The
 * consumer page may only be mapped writable on its own (offset of the
 * ring, length one page) and only by the single reader: the first file to
 * map a consumer page writable becomes the reader; any other file gets
 * EBUSY until the reader's file is closed and unmapped. Everything else is
 * mapped read-only (MAP_SHARED, PROT_READ; mprotect() cannot add
 * PROT_WRITE). A mapping may not extend past its ring, cannot be grown
 * with mremap() and cannot be split by a partial munmap(). A mapping is
 * not inherited across fork() (as with MADV_DONTFORK): it stays in the
 * process that made it until munmap() or exit, and CONFIGURE is refused
 * with EBUSY while any exists.
 *
 * Rings exist for every possible CPU, not only the online or present
 * ones: a reader maps a fixed set once, and a CPU that comes online (or
 * is hot-added) counts from its first switch, with no allocation in the
 * hotplug path that could fail or wait. The cost is nr_cpus (STATUS: the
 * possible CPU ids; a virtual machine that allows CPU hot-add may have
 * several times more than it runs) times ring_size plus two pages:
 * choose ring_size for it. CONFIGURE refuses rings that would take more
 * than an eighth of the memory, and a shortage fails it with ENOMEM (the
 * kernel does not invoke the OOM killer for them), changing nothing.
 * The rings are charged to the memory cgroup of the process that calls
 * CONFIGURE, as BPF maps are (not to RLIMIT_MEMLOCK nor to perf's
 * perf_event_mlock_kb, which are per user and far smaller than the
 * rings of a large machine): over that cgroup's memory.max, CONFIGURE
 * fails with ENOMEM and changes nothing. The charge stays with that
 * cgroup until the rings are freed (the next CONFIGURE, or unload), also
 * after the process exits.
 *
 * Positions are byte counts that only grow; the byte at position p lives
 * at data offset (p & (data_size - 1)). Records are TOPDOWN_RECORD_SIZE
 * bytes and never straddle the end of the data area.
 *
 * Ordering
 * --------
 * The kernel writes a record, then publishes it with a store-release of
 * producer_pos. A reader loads producer_pos with load-acquire, copies the
 * records between consumer_pos and producer_pos, and then store-releases
 * the new consumer_pos. In TOPDOWN_OVERFLOW_DROP mode (the default) the
 * kernel loads consumer_pos with load-acquire before it reuses space, so a
 * record is never overwritten while the reader may still be copying it;
 * when the ring is full the new record is dropped and counted in
 * topdown_ring_producer.lost. The kernel does not trust consumer_pos: a
 * value that is not a position it handed out only makes it drop records.
 *
 * In TOPDOWN_OVERFLOW_OVERWRITE mode the kernel never looks at
 * consumer_pos and overwrites the oldest records. The slot at
 * producer_pos, which also holds the record at producer_pos - data_size,
 * is the one the kernel fills next and may be filling at any moment; the
 * kernel orders its publication of producer_pos before the stores of the
 * next fill (a full barrier). So for a value P of producer_pos only the
 * records at positions P - data_size + TOPDOWN_RECORD_SIZE .. P -
 * TOPDOWN_RECORD_SIZE are whole. The reader copies the record at position
 * p, then issues a read barrier (__atomic_thread_fence(__ATOMIC_ACQUIRE))
 * and loads producer_pos again; the copy is intact only if that value is
 * <= p + data_size - TOPDOWN_RECORD_SIZE. Otherwise the kernel may have
 * written into it while it was copied: the copy must be discarded (and
 * counted as lost by the reader).
 *
 * Every record carries a per-CPU sequence number that counts all records
 * the CPU produced since CONFIGURE, including dropped ones, so a gap in
 * sequence numbers always equals the number of records lost.
 *
 * poll() on any open file of the device, the reader's or another (the
 * unread data is the rings', whoever consumes them), reports EPOLLIN while
 * collecting when some ring holds at least `watermark` bytes of unread
 * data, and once stopped when some ring holds any unread data; stopped
 * with every ring drained (nothing more can arrive until a START) it
 * reports EPOLLHUP. Every poller, of every file, is woken while
 * collecting when a ring's unread data reaches the watermark, and again
 * each time another `watermark` bytes of records are written while it
 * stays at or above it (as perf's wakeup_watermark), so an edge-triggered
 * epoll reader (EPOLLET), or one that leaves the data to another
 * process, also hears of new data. The wake-ups are deferred through
 * irq_work; the scheduler path itself never wakes anybody. STOP wakes
 * every poller.
 *
 * No wake-up is lost if the reader store-releases consumer_pos (as above)
 * before it calls poll(), in program order; nothing more is needed on the
 * reader's side. The kernel issues a full barrier between its publication
 * of producer_pos and its load of consumer_pos (the watermark test), and
 * poll() issues one after it has registered the caller and before it
 * loads the positions; so either the kernel sees the new consumer_pos and
 * wakes the caller when the ring reaches the watermark again, or poll()
 * sees the record that reached it and returns EPOLLIN at once.
 *
 * Permissions
 * -----------
 * open() needs CAP_PERFMON (or CAP_SYS_ADMIN). STATUS, GET_CONFIG,
 * TOTALS and poll() work on any open file. Mapping the rings (EACCES
 * otherwise), CONFIGURE, START and STOP (EBADF otherwise) need a file
 * opened for writing, so a read-only descriptor reads no record and
 * cannot keep CONFIGURE out. CONFIGURE and START also need the calling process itself
 * to hold CAP_PERFMON or CAP_SYS_ADMIN (EPERM otherwise), so a descriptor
 * passed to an unprivileged process cannot start counting. START also
 * asks what perf_event_open() asks of a CPU-wide event where the kernel
 * lets a module ask it: perf_allow_cpu() (perf_event_paranoid and the
 * security module's PERF_SECURITY_CPU hook; exported from Linux 7.x on),
 * and, when an event counts in kernel mode, perf_allow_kernel()
 * (PERF_SECURITY_KERNEL; exported from 6.12 on). On older kernels only
 * the capabilities above are checked. The rings hold host pids:
 * open() and mmap() from a process outside the initial pid namespace are
 * refused with EACCES. That is checked where access is obtained: a
 * descriptor already open stays usable in a child created in a new pid
 * namespace (mapping through it is refused there), and a mapping is not
 * inherited by any child; a process that shares its memory (CLONE_VM)
 * with one in another namespace shares what it mapped, like any memory.
 *
 * Totals (TOPDOWN_CONFIG_SIZE_VER2)
 * --------------------------------
 * With TOPDOWN_CONFIG_TOTALS the module also keeps, from each START on,
 * the sum of every slice of every task: its slices, their time and, per
 * group, the slices the group measured whole, their time and the sum of
 * each of the group's deltas, exactly what the task's records would add
 * up to, including the records dropped because a ring was full. The sums
 * are made in the sched_switch probe, without allocation or lock: in a
 * pool of totals_tasks entries allocated at START (charged as the rings
 * are), keyed by the task itself (not its pid, so that a reused pid is
 * never merged with an earlier task). A task that finds no room in the
 * pool (a bounded search) is counted in topdown_totals.no_room and its
 * slices go to its CPU's TOPDOWN_TOTAL_OTHER entry. A task's last slice
 * (it has exited) makes its entry TOPDOWN_TOTAL_EXITED: still readable,
 * until a new task needs its room, when it is folded into that CPU's
 * TOPDOWN_TOTAL_OTHER entry (topdown_totals.reclaimed and generation
 * count those). An exited entry that no TOPDOWN_IOC_TOTALS (with
 * entries) begun after the exit has copied is folded only when a new
 * task finds no free slot in its search. So, exactly:
 *
 *   sum of TOPDOWN_TOTAL_TASK and _EXITED entries
 *     + sum of TOPDOWN_TOTAL_OTHER entries
 *   = every slice of every CPU since START (what the counters grew by
 *     while counting, lost records included)
 *
 * TOPDOWN_IOC_TOTALS copies the entries out: each one consistent (read
 * under the entry's sequence count while the probe may write it), the
 * whole a snapshot only when collection is stopped, or when generation
 * did not change during the call (no entry was folded meanwhile; slices
 * ending meanwhile may or may not be in it). The totals of the last
 * collection stay readable after STOP, until the next START or
 * CONFIGURE; ENODATA when there are none.
 *
 * ABI growth
 * ----------
 * TOPDOWN_ABI_VERSION changes only when something a program built for an
 * older version relies on changes meaning (the record or ring layout, the
 * ordering rules); a program must refuse to run against another version.
 * Everything else grows compatibly:
 *
 *  - struct topdown_config and struct topdown_status only grow at their
 *    end; a new field's zero value means the old behaviour. Their
 *    TOPDOWN_*_SIZE_VER0 sizes and the ioctl numbers (which carry the VER0
 *    size) never change; the `size` field is the authority.
 *  - Input: a size smaller than VER0 is EINVAL, larger than the page size
 *    E2BIG. Fields past the caller's size are taken as zero. Bytes past
 *    the module's own size must be zero (a newer program that uses a
 *    field this module does not know gets E2BIG); otherwise they are
 *    ignored.
 *  - Output: the module writes at most the caller's size and at most its
 *    own; bytes past what it writes are left untouched. GET_CONFIG
 *    returns the module's struct size in `size`, STATUS the number of
 *    bytes written.
 *  - New flags and new record flags only use bits that were zero; new
 *    ioctls get new numbers.
 */
#ifndef _UAPI_LINUX_TOPDOWN_H
#define _UAPI_LINUX_TOPDOWN_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define TOPDOWN_DEVICE			"/dev/topdown"
#define TOPDOWN_ABI_VERSION		2

#define TOPDOWN_MAX_EVENTS		8	/* per group */
#define TOPDOWN_MAX_GROUPS		8
#define TOPDOWN_MAX_POOL		32	/* events of all groups */
#define TOPDOWN_NAME_LEN		32
#define TOPDOWN_LABEL_LEN		64
#define TOPDOWN_COMM_LEN		16

/* Ring sizes: data area in bytes, a power of two, within these bounds. */
#define TOPDOWN_RING_MIN_SIZE		4096u
#define TOPDOWN_RING_MAX_SIZE		(64u << 20)
#define TOPDOWN_RING_DEFAULT_SIZE	(256u << 10)

/* mmap() file offset of CPU n's ring (see "Ring layout"). */
#define TOPDOWN_MMAP_CPU_SHIFT		32
#define TOPDOWN_MMAP_OFFSET(cpu)	((__u64)(cpu) << TOPDOWN_MMAP_CPU_SHIFT)
/* Page indexes inside one CPU's ring. */
#define TOPDOWN_RING_CONSUMER_PAGE	0
#define TOPDOWN_RING_PRODUCER_PAGE	1
#define TOPDOWN_RING_DATA_PAGE		2

/**
 * struct topdown_event - one counter, programmed on a set of CPUs
 * @type:	perf_event_attr.type (PERF_TYPE_* or a PMU's sysfs type id)
 * @flags:	TOPDOWN_EVENT_* bits; unknown bits are refused with EINVAL
 * @config:	perf_event_attr.config
 * @config1:	perf_event_attr.config1
 * @config2:	perf_event_attr.config2
 * @cpus_ptr:	user pointer to a CPU bitmap (bit n of 64-bit word n / 64
 *		is CPU n), or 0 for every CPU
 * @cpus_size:	size of that bitmap in bytes, a multiple of 8, at most
 *		TOPDOWN_CPUMASK_MAX_BYTES; bits of CPUs that cannot exist
 *		must be clear
 * @__reserved:	must be zero
 * @name:	opaque to the kernel, NUL-terminated; stored for readers
 */
struct topdown_event {
	__u32 type;
	__u32 flags;
	__u64 config;
	__u64 config1;
	__u64 config2;
	__aligned_u64 cpus_ptr;
	__u32 cpus_size;
	__u32 __reserved;
	char name[TOPDOWN_NAME_LEN];
};

#define TOPDOWN_EVENT_EXCLUDE_USER	(1u << 0)
#define TOPDOWN_EVENT_EXCLUDE_KERNEL	(1u << 1)
#define TOPDOWN_EVENT_FLAGS_ALL		(TOPDOWN_EVENT_EXCLUDE_USER | \
					 TOPDOWN_EVENT_EXCLUDE_KERNEL)

#define TOPDOWN_CPUMASK_MAX_BYTES	1024	/* 8192 CPUs */

/**
 * struct topdown_group - events counted together (see "Groups and rotation")
 * @nr_events:	1 .. TOPDOWN_MAX_EVENTS
 * @flags:	must be zero
 * @events:	pool indexes, distinct, below topdown_config.nr_events; a
 *		record of this group has in delta[j] the count of events[j];
 *		entries past nr_events must be zero
 */
struct topdown_group {
	__u32 nr_events;
	__u32 flags;
	__u8 events[TOPDOWN_MAX_EVENTS];
};

/**
 * struct topdown_config - the collection's configuration
 * @size:	sizeof(struct topdown_config) as user space knows it. A
 *		smaller (older) size is accepted if it covers the
 *		TOPDOWN_CONFIG_SIZE_VER0 fields; a larger one only if the
 *		bytes the kernel does not know are zero (E2BIG otherwise,
 *		and for more than a page). TOPDOWN_IOC_GET_CONFIG writes
 *		back the kernel's size (see "ABI growth").
 * @flags:	TOPDOWN_CONFIG_* bits
 * @nr_events:	1 .. TOPDOWN_MAX_EVENTS
 * @ring_size:	data bytes per CPU ring (power of two), 0 for the default
 * @watermark:	unread bytes that make poll() report EPOLLIN, 0 for a
 *		quarter of ring_size; at most ring_size
 * @__reserved:	must be zero
 * @label:	opaque to the kernel, NUL-terminated; user space stores the
 *		event set's name and decoding parameters here for readers
 * @events:	the events (with groups: pool entries 0 .. 7); entries past
 *		nr_events must be zero
 *
 * Fields below were appended in TOPDOWN_CONFIG_SIZE_VER1 (see "Groups and
 * rotation"); their zero values mean one group, as in VER0.
 *
 * @nr_groups:	0 (one group of events[0 .. nr_events - 1]) or
 *		1 .. TOPDOWN_MAX_GROUPS; with groups, @nr_events counts the
 *		pool, 1 .. TOPDOWN_MAX_POOL
 * @rotate_ms:	milliseconds a CPU counts one group before it moves to the
 *		next, TOPDOWN_ROTATE_MIN_MS .. TOPDOWN_ROTATE_MAX_MS, or 0 for
 *		TOPDOWN_ROTATE_DEFAULT_MS; must be 0 with fewer than 2 groups.
 *		GET_CONFIG returns the interval in use (the default resolved)
 * @more_events: pool entries TOPDOWN_MAX_EVENTS .. TOPDOWN_MAX_POOL - 1;
 *		entries past nr_events must be zero
 * @groups:	the groups; entries past nr_groups must be zero
 *
 * Fields below were appended in TOPDOWN_CONFIG_SIZE_VER2 ("Totals").
 *
 * @totals_tasks: with TOPDOWN_CONFIG_TOTALS, the task entries of the pool
 *		(a power of two, TOPDOWN_TOTALS_MIN_TASKS ..
 *		TOPDOWN_TOTALS_MAX_TASKS), or 0 for
 *		TOPDOWN_TOTALS_DEFAULT_TASKS; must be 0 without it.
 *		GET_CONFIG returns the number in use
 * @__reserved2: must be zero
 */
struct topdown_config {
	__u32 size;
	__u32 flags;
	__u32 nr_events;
	__u32 ring_size;
	__u32 watermark;
	__u32 __reserved;
	char label[TOPDOWN_LABEL_LEN];
	struct topdown_event events[TOPDOWN_MAX_EVENTS];
	/* TOPDOWN_CONFIG_SIZE_VER1 */
	__u32 nr_groups;
	__u32 rotate_ms;
	struct topdown_event more_events[TOPDOWN_MAX_POOL - TOPDOWN_MAX_EVENTS];
	struct topdown_group groups[TOPDOWN_MAX_GROUPS];
	/* TOPDOWN_CONFIG_SIZE_VER2 */
	__u32 totals_tasks;
	__u32 __reserved2;
};

/* Size of the first published struct topdown_config; never changes. */
#define TOPDOWN_CONFIG_SIZE_VER0	728
/* With groups (nr_groups .. groups). */
#define TOPDOWN_CONFIG_SIZE_VER1	2784
/* With totals (totals_tasks, __reserved2). */
#define TOPDOWN_CONFIG_SIZE_VER2	2792

#define TOPDOWN_TOTALS_MIN_TASKS	64
#define TOPDOWN_TOTALS_DEFAULT_TASKS	4096
#define TOPDOWN_TOTALS_MAX_TASKS	65536

#define TOPDOWN_ROTATE_MIN_MS		1
#define TOPDOWN_ROTATE_MAX_MS		60000
#define TOPDOWN_ROTATE_DEFAULT_MS	20

/* Overflow mode: drop new records (default) or overwrite the oldest. */
#define TOPDOWN_OVERFLOW_OVERWRITE	(1u << 0)
/* Keep every task's totals in the kernel ("Totals"). */
#define TOPDOWN_CONFIG_TOTALS		(1u << 1)
#define TOPDOWN_CONFIG_FLAGS_ALL	(TOPDOWN_OVERFLOW_OVERWRITE | \
					 TOPDOWN_CONFIG_TOTALS)

/**
 * struct topdown_record - one finished time slice of one task on one CPU
 * @seq:	per-CPU sequence number, from 0 at CONFIGURE, counting
 *		dropped records too
 * @time_ns:	end of the slice, CLOCK_MONOTONIC nanoseconds
 * @duration_ns: length of the slice; for the first slice after counting
 *		started on this CPU, the time since it started
 * @cgroup_id:	id of the task's cgroup in the cgroup v2 hierarchy: what
 *		name_to_handle_at() gives for its directory, 1 for the root
 *		cgroup, which is also every task's cgroup while no cgroup v2
 *		file system is mounted; 0 only from a kernel built without
 *		cgroups
 * @cpu:	the CPU
 * @pid:	thread id of the task that left the CPU (0: idle)
 * @tgid:	its thread group (process) id
 * @flags:	TOPDOWN_REC_* bits, bit i set in TOPDOWN_REC_ERROR_MASK
 *		when delta[i] could not be read (delta[i] is then 0), and
 *		the group that measured the slice (TOPDOWN_REC_GROUP())
 * @comm:	the task's comm, NUL-padded
 * @delta:	counter increments during the slice, one per event of the
 *		record's group in the group's order (without groups: the
 *		configured events in configuration order); unused entries
 *		are 0
 */
struct topdown_record {
	__u64 seq;
	__u64 time_ns;
	__u64 duration_ns;
	__u64 cgroup_id;
	__u32 cpu;
	__u32 pid;
	__u32 tgid;
	__u32 flags;
	char comm[TOPDOWN_COMM_LEN];
	__u64 delta[TOPDOWN_MAX_EVENTS];
};

#define TOPDOWN_RECORD_SIZE		128
#define TOPDOWN_REC_ERROR_MASK		0xffu	/* per-event read errors */
#define TOPDOWN_REC_PREEMPTED		(1u << 8)	/* still runnable */
/*
 * TOPDOWN_REC_FIRST: the first record written since counting (re)started
 * on this CPU (START, or the CPU coming online): the counts before it do
 * not continue into it. If the ring was full then, the first slices were
 * dropped: they are the gap in seq just before this record, which carries
 * the flag all the same.
 */
#define TOPDOWN_REC_FIRST		(1u << 9)	/* first after start */
#define TOPDOWN_REC_IDLE		(1u << 10)	/* the idle task */
#define TOPDOWN_REC_ROTATED		(1u << 11)	/* group changed: no deltas */
/* The group that measured the slice (0 without groups): bits 16..19. */
#define TOPDOWN_REC_GROUP_SHIFT		16
#define TOPDOWN_REC_GROUP_MASK		(0xfu << TOPDOWN_REC_GROUP_SHIFT)
#define TOPDOWN_REC_GROUP(flags)	\
	(((flags) & TOPDOWN_REC_GROUP_MASK) >> TOPDOWN_REC_GROUP_SHIFT)

/**
 * struct topdown_ring_consumer - page 0 of a ring, written by the reader
 * @consumer_pos: position up to which the reader has consumed records
 * @lost_seen:	for readers' own bookkeeping (the value of
 *		topdown_ring_producer.lost already reported), so that
 *		successive readers report every loss exactly once; the
 *		kernel never reads it
 */
struct topdown_ring_consumer {
	__u64 consumer_pos;
	__u64 lost_seen;
};

/**
 * struct topdown_ring_producer - page 1 of a ring, written by the kernel
 * @producer_pos: position after the last published record
 * @lost:	records dropped because the ring was full (drop mode)
 * @data_size:	size of the data area in bytes
 * @record_size: TOPDOWN_RECORD_SIZE
 * @cpu:	the CPU this ring belongs to
 * @flags:	the configuration's TOPDOWN_CONFIG_* flags
 */
struct topdown_ring_producer {
	__u64 producer_pos;
	__u64 lost;
	__u32 data_size;
	__u32 record_size;
	__u32 cpu;
	__u32 flags;
};

/**
 * struct topdown_cpu_stats - per-CPU counters of the collection
 * @cpu:	the CPU
 * @flags:	TOPDOWN_CPU_* bits
 * @records:	records published into the ring
 * @lost:	records dropped because the ring was full
 * @read_errors: slices with at least one counter that could not be read
 * @probe_count: probe invocations that did any work
 * @probe_ns:	total time spent in those invocations
 * @producer_pos: current producer position of the ring
 *
 * Fields below were appended in TOPDOWN_CPU_STATS_SIZE_VER1; a caller that
 * passes stats_size TOPDOWN_CPU_STATS_SIZE_VER0 does not get them.
 *
 * @ev_state:	per configured event, TOPDOWN_EVSTATE_* of its counter on
 *		this CPU now (entries past nr_events are 0)
 * @arm_errors:	bit i set when event i had no counter at the moment the
 *		CPU started counting (START, or the CPU coming online): the
 *		events perf could not schedule; they are retried (see
 *		@recoveries)
 * @__reserved:	written as zero
 * @recoveries:	counters in TOPDOWN_EVSTATE_ERROR that the module re-enabled
 *		and that then got a hardware counter, since CONFIGURE (like
 *		@ev_error_slices and the counts above). The module retries
 *		the counters in error until they get a counter or collection
 *		stops: every retry_ms (module parameter, 1000 ms by default)
 *		for the first 8 retries, then, for a CPU whose counters stay
 *		in error, twice as long after each retry, up to retry_max_ms
 *		(60000 ms by default; see @retries). The slice in which a
 *		counter came back reports 0 with the event's error bit set,
 *		never a delta spanning the gap, also when the CPU did not
 *		switch while the counter was in error.
 * @ev_error_slices: per event, slices (records written or dropped) in
 *		which it could not be read
 *
 * With groups, the per-event fields above (@ev_state, @arm_errors,
 * @ev_error_slices) are per position j of a record's delta[]: the event
 * of the CPU's current group at j (@ev_state), group 0's events when the
 * CPU started counting (@arm_errors), whatever group's event was at j
 * (@ev_error_slices). Without groups that is the configured event j.
 *
 * Fields below were appended in TOPDOWN_CPU_STATS_SIZE_VER2.
 *
 * @retries:	re-enables of counters in error on this CPU since CONFIGURE,
 *		successful or not (each one reschedules every perf event of
 *		the CPU, other users' too). With groups, the turn of a group
 *		whose counter was in error when it last ran re-enables that
 *		counter: a retry too, and a recovery (@recoveries) when it
 *		gets a counter
 * @retry_delay_ms: while collecting, how long this CPU now waits between
 *		retries of its counters in error (retry_ms, or more when it
 *		backs off); 0 when none is in error
 * @__reserved2: written as zero
 *
 * Fields below were appended in TOPDOWN_CPU_STATS_SIZE_VER3 ("Groups and
 * rotation"); without groups everything is group 0's.
 *
 * @cur_group:	the group counting on this CPU now (the last one, when the
 *		CPU is not counting)
 * @__reserved3: written as zero
 * @rotations:	group changes on this CPU since CONFIGURE
 * @rotation_ns: total time of those changes, from the work item's first
 *		disable to its last enable (the switches into and out of the
 *		work item, and its ROTATED slice, are not included)
 * @grp_records: per group, records published with that group in their
 *		TOPDOWN_REC_GROUP() bits, TOPDOWN_REC_ROTATED ones included
 *		(the sum over groups is @records)
 * @grp_time_ns: per group, the time it measured: the sum of duration_ns
 *		of its slices, written or dropped, TOPDOWN_REC_ROTATED ones
 *		excluded
 * @grp_error_slices: per group, its slices (written or dropped) with at
 *		least one counter that could not be read; TOPDOWN_REC_ROTATED
 *		slices are not counted (their error bits say that no group
 *		measured them, not that a counter failed)
 * @grp_ev_state: per group and position j in its records, the
 *		TOPDOWN_EVSTATE_* of that counter on this CPU now: the
 *		groups not counting are TOPDOWN_EVSTATE_OFF, or ERROR when
 *		their counter had none the last time the group ran
 * @grp_ev_error_slices: per group and position j, its slices in which
 *		delta[j] could not be read (TOPDOWN_REC_ROTATED excluded)
 */
struct topdown_cpu_stats {
	__u32 cpu;
	__u32 flags;
	__u64 records;
	__u64 lost;
	__u64 read_errors;
	__u64 probe_count;
	__u64 probe_ns;
	__u64 producer_pos;
	/* TOPDOWN_CPU_STATS_SIZE_VER1 */
	__u8 ev_state[TOPDOWN_MAX_EVENTS];
	__u8 arm_errors;
	__u8 __reserved[7];
	__u64 recoveries;
	__u64 ev_error_slices[TOPDOWN_MAX_EVENTS];
	/* TOPDOWN_CPU_STATS_SIZE_VER2 */
	__u64 retries;
	__u32 retry_delay_ms;
	__u32 __reserved2;
	/* TOPDOWN_CPU_STATS_SIZE_VER3 */
	__u32 cur_group;
	__u32 __reserved3;
	__u64 rotations;
	__u64 rotation_ns;
	__u64 grp_records[TOPDOWN_MAX_GROUPS];
	__u64 grp_time_ns[TOPDOWN_MAX_GROUPS];
	__u64 grp_error_slices[TOPDOWN_MAX_GROUPS];
	__u8 grp_ev_state[TOPDOWN_MAX_GROUPS][TOPDOWN_MAX_EVENTS];
	__u64 grp_ev_error_slices[TOPDOWN_MAX_GROUPS][TOPDOWN_MAX_EVENTS];
};

/* Sizes of struct topdown_cpu_stats that the kernel accepts in stats_size. */
#define TOPDOWN_CPU_STATS_SIZE_VER0	56	/* up to producer_pos */
#define TOPDOWN_CPU_STATS_SIZE_VER1	144	/* up to ev_error_slices */
#define TOPDOWN_CPU_STATS_SIZE_VER2	160	/* up to __reserved2 */
#define TOPDOWN_CPU_STATS_SIZE_VER3	952	/* up to grp_ev_error_slices */

#define TOPDOWN_CPU_ONLINE		(1u << 0)
#define TOPDOWN_CPU_COUNTING		(1u << 1)
/*
 * TOPDOWN_CPU_ISOLATED: the CPU is outside the kernel's housekeeping CPUs
 * (isolcpus=, nohz_full=). topdown sends it no work and no IPI of its own
 * while it counts: it counts group 0 only (no rotation), and its counters
 * perf put in error are not retried (their slices keep the error bit).
 * Not set, and the CPU treated as any other, with the module parameter
 * isolated_work=1 (read when the CPU is armed).
 */
#define TOPDOWN_CPU_ISOLATED		(1u << 2)

/*
 * topdown_cpu_stats.ev_state: what perf did with the event's counter.
 * While running, NONE means the event is not configured for this CPU or
 * the CPU has no counters now (offline, or just back online and not
 * armed yet). While stopped (STATE_CONFIGURED, before the first START or
 * after STOP), every event configured for the CPU reads OFF (no counter
 * exists), the others NONE; not configured (STATE_IDLE), all read NONE.
 */
#define TOPDOWN_EVSTATE_NONE		0	/* no counter on this CPU */
#define TOPDOWN_EVSTATE_COUNTING	1	/* on a hardware counter */
#define TOPDOWN_EVSTATE_ERROR		2	/* pinned, no counter free */
#define TOPDOWN_EVSTATE_MULTIPLEXED	3	/* enabled, off a counter now */
#define TOPDOWN_EVSTATE_OFF		4	/* stopped, disabled or detached */

/**
 * struct topdown_status - state of the collection
 * @size:	sizeof(struct topdown_status) as user space knows it (in,
 *		see "ABI growth"), the number of bytes the kernel wrote (out)
 * @state:	TOPDOWN_STATE_* (out)
 * @abi_version: TOPDOWN_ABI_VERSION (out)
 * @nr_cpus:	number of CPU slots, i.e. possible CPU ids (out)
 * @nr_stats:	capacity of the stats array in entries (in); entries
 *		written (out), min(capacity, nr_cpus)
 * @stats_size:	size of one stats entry (in): the entries are that far
 *		apart, and it is the authority, as a struct's size is ("ABI
 *		growth"): at least TOPDOWN_CPU_STATS_SIZE_VER0 (EINVAL
 *		otherwise), at most the page size (E2BIG otherwise); the
 *		module writes the leading min(stats_size, its own size)
 *		bytes of each entry and leaves the rest of it untouched.
 *		Out: those bytes per entry, or sizeof(struct
 *		topdown_cpu_stats) without stats_ptr. (Modules of ABI 1
 *		took only the TOPDOWN_CPU_STATS_SIZE_VERn sizes.)
 * @stats_ptr:	user pointer to the stats array, or 0 (in)
 * @record_size: TOPDOWN_RECORD_SIZE (out)
 * @reader:	1 if a reader holds the rings (out)
 * @start_ns:	CLOCK_MONOTONIC time of the last START, 0 if never (out)
 * @stop_ns:	CLOCK_MONOTONIC time of the last STOP, 0 if never (out)
 * @error_code:	negative errno of the last failed START, 0 if none (out)
 * @error_event: index of the event perf refused in that START (with
 *		groups: its pool index), or -1
 * @error_cpu:	CPU on which it was refused, or -1
 * @__reserved:	written as zero
 */
struct topdown_status {
	__u32 size;
	__u32 state;
	__u32 abi_version;
	__u32 nr_cpus;
	__u32 nr_stats;
	__u32 stats_size;
	__aligned_u64 stats_ptr;
	__u32 record_size;
	__u32 reader;
	__u64 start_ns;
	__u64 stop_ns;
	__s32 error_code;
	__s32 error_event;
	__s32 error_cpu;
	__u32 __reserved;
};

/* Size of the first published struct topdown_status; never changes. */
#define TOPDOWN_STATUS_SIZE_VER0	72

/**
 * struct topdown_total - the totals of a task or a CPU ("Totals")
 * @kind:	TOPDOWN_TOTAL_*
 * @cpu:	the CPU (of a task: the CPU of its last slice)
 * @pid:	a task's thread id (0 for a CPU's entries)
 * @tgid:	its thread group (process) id
 * @start_ns:	a task's start, CLOCK_MONOTONIC nanoseconds: with @pid, the
 *		task (a pid may be reused)
 * @cgroup_id:	a task's cgroup at its last slice (topdown_record.cgroup_id)
 * @comm:	a task's comm at its last slice, NUL-padded
 * @slices:	slices ended, their records written or dropped
 * @time_ns:	their duration_ns
 * @unmeasured_ns: the time of those no group measured whole (their records
 *		have TOPDOWN_REC_ROTATED or an error bit): in no group's sums
 * @grp_slices:	per group, the slices it measured whole
 * @grp_time_ns: per group, their time
 * @grp_delta:	per group and position j, the sum of those slices' delta[j]
 *		(the event the group has at j); 0 past the group's events
 * @cgroup_moves: (TOPDOWN_TOTAL_SIZE_VER1) a task's slices that were in
 *		another cgroup than its slice before: its sums are all in
 *		@cgroup_id's, so per-cgroup sums of task entries are exact
 *		only while this is 0. A reader that gets an @entry_size of
 *		VER0 from the module does not know it
 */
struct topdown_total {
	__u32 kind;
	__u32 cpu;
	__u32 pid;
	__u32 tgid;
	__u64 start_ns;
	__u64 cgroup_id;
	char comm[TOPDOWN_COMM_LEN];
	__u64 slices;
	__u64 time_ns;
	__u64 unmeasured_ns;
	__u64 grp_slices[TOPDOWN_MAX_GROUPS];
	__u64 grp_time_ns[TOPDOWN_MAX_GROUPS];
	__u64 grp_delta[TOPDOWN_MAX_GROUPS][TOPDOWN_MAX_EVENTS];
	__u64 cgroup_moves;
};

#define TOPDOWN_TOTAL_SIZE_VER0		712
#define TOPDOWN_TOTAL_SIZE_VER1		720

#define TOPDOWN_TOTAL_TASK		1	/* a task, alive at its last slice */
#define TOPDOWN_TOTAL_EXITED		2	/* a task whose last slice ended it */
/* 3 is not used: a CPU's total is not kept (it cost the probe a second
 * entry's sums at every switch).
 */
/* @cpu's slices in no task's entry: the idle task's, those of tasks that
 * found no room, exited tasks' entries folded to make room.
 */
#define TOPDOWN_TOTAL_OTHER		4

/**
 * struct topdown_totals - TOPDOWN_IOC_TOTALS's argument
 * @size:	sizeof(struct topdown_totals) as user space knows it (in),
 *		the bytes the kernel wrote (out), as STATUS's
 * @flags:	must be zero (in); TOPDOWN_TOTALS_MOVED or 0 (out)
 * @nr_entries:	capacity of the entries array (in); entries written (out):
 *		first a TOPDOWN_TOTAL_OTHER entry per possible CPU, in CPU
 *		order, then the tasks'
 * @entry_size:	size of one entry (in), as STATUS's stats_size: at least
 *		TOPDOWN_TOTAL_SIZE_VER0 (EINVAL), at most the page size
 *		(E2BIG); the bytes written per entry (out)
 * @entries_ptr: user pointer to the entries array, or 0 (in)
 * @generation:	how many times a task's entry has been folded into a
 *		CPU's TOPDOWN_TOTAL_OTHER entry, when the entries were read
 *		(out). The module reads them again, a few times, while
 *		folds happen during the read; TOPDOWN_TOTALS_MOVED says the
 *		last read had one too (counts may be in two entries, or in
 *		none)
 * @nr_tasks:	task entries in use (out): the entries a call needs are
 *		STATUS nr_cpus + nr_tasks
 * @pool_tasks: the pool's task entries (out)
 * @no_room:	slices of tasks that found no room in the pool (out)
 * @reclaimed:	exited tasks' entries folded to make room (out)
 */
struct topdown_totals {
	__u32 size;
	__u32 flags;
	__u32 nr_entries;
	__u32 entry_size;
	__aligned_u64 entries_ptr;
	__u64 generation;
	__u32 nr_tasks;
	__u32 pool_tasks;
	__u64 no_room;
	__u64 reclaimed;
};

/* Size of the first published struct topdown_totals; never changes. */
#define TOPDOWN_TOTALS_SIZE_VER0	56

#define TOPDOWN_TOTALS_MOVED		(1u << 0)

#define TOPDOWN_STATE_IDLE		0	/* loaded, not configured */
#define TOPDOWN_STATE_CONFIGURED	1	/* rings allocated, stopped */
#define TOPDOWN_STATE_RUNNING		2	/* collecting */

/*
 * Ioctls. The numbers of the three ioctls that take a struct carry the
 * struct's VER0 size and never change, whatever the struct grows to: the
 * struct's own size field says which version the caller passes. The
 * module dispatches on direction, type and number, and accepts any size
 * bits of at least the VER0 size, so a program that builds the number
 * with _IOW()/_IOWR() of a grown struct is understood as well.
 *
 * CONFIGURE, START and STOP change the collection: they need a file
 * opened for writing (O_WRONLY or O_RDWR), EBADF otherwise. GET_CONFIG,
 * STATUS and TOTALS work on any open file.
 *
 * The code 0xBD is one that Documentation/userspace-api/ioctl/
 * ioctl-number.rst leaves free (checked against Linux 6.1, 6.12 and 7.3).
 * ABI version 1 used 0xB7, which that file gives to nsfs and remoteproc
 * (its START was NS_GET_NSTYPE, its STOP NS_GET_OWNER_UID), and the move
 * is why the ABI is version 2: the structs, records and rings are as in
 * version 1. A program built for version 1 gets ENOTTY from every ioctl
 * of this module, and a program built with this header gets ENOTTY from
 * a module of version 1 (STATUS first: tdctl then says the module is
 * older than itself); the two can only be used with their own kind.
 */
#define TOPDOWN_IOC_MAGIC		0xBD
/* Configure events, rings and mode; EBUSY while running or mapped. */
#define TOPDOWN_IOC_CONFIGURE	_IOC(_IOC_WRITE, TOPDOWN_IOC_MAGIC, 0x01, \
				     TOPDOWN_CONFIG_SIZE_VER0)
/* Read back the configuration; ENODATA when not configured, EOVERFLOW
 * for a size below TOPDOWN_CONFIG_SIZE_VER1 when it has groups.
 */
#define TOPDOWN_IOC_GET_CONFIG	_IOC(_IOC_READ | _IOC_WRITE, TOPDOWN_IOC_MAGIC, \
				     0x02, TOPDOWN_CONFIG_SIZE_VER0)
/* Start collecting; EBUSY if running, ENODATA if not configured. */
#define TOPDOWN_IOC_START	_IO(TOPDOWN_IOC_MAGIC, 0x03)
/* Stop collecting; EALREADY if not running. */
#define TOPDOWN_IOC_STOP	_IO(TOPDOWN_IOC_MAGIC, 0x04)
/* Query the state and per-CPU statistics. */
#define TOPDOWN_IOC_STATUS	_IOC(_IOC_READ | _IOC_WRITE, TOPDOWN_IOC_MAGIC, \
				     0x05, TOPDOWN_STATUS_SIZE_VER0)
/* Copy out the totals ("Totals"); ENODATA without them. */
#define TOPDOWN_IOC_TOTALS	_IOC(_IOC_READ | _IOC_WRITE, TOPDOWN_IOC_MAGIC, \
				     0x06, TOPDOWN_TOTALS_SIZE_VER0)

#endif /* _UAPI_LINUX_TOPDOWN_H */
