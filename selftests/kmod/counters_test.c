// SPDX-License-Identifier: GPL-2.0
/*
 * What the module promises about its counters and their reporting, tested
 * from the UAPI header alone (the module loaded, collection stopped):
 *
 *   counter_recovers_after_holders_close
 *	every general-purpose counter of CPU 0 held by pinned perf events
 *	(the way the NMI watchdog or perf stat -a :D hold them): topdown's
 *	event is flagged in every slice on CPU 0; once they are closed it
 *	counts again without STOP/START, and the first good slice holds no
 *	delta older than the slice (needs a hardware PMU: the arm64 guest)
 *   status_reports_counter_states
 *	the same situation seen through STATUS: per-CPU event states, the
 *	events without a counter at START, the recovery
 *   status_stats_sizes
 *	STATUS accepts TOPDOWN_CPU_STATS_SIZE_VER0 (writes only that much
 *	per entry), VER1, VER2 and any entry size up to a page (the size is
 *	the authority), and refuses sizes below VER0 or over a page
 *   failed_start_leaves_nothing_behind
 *	a START that perf refuses on the last CPU arms no CPU: no record,
 *	sequence number or statistic anywhere
 *   failed_start_during_hotplug_leaves_nothing
 *	the same while CPU 1 goes offline and online again and again: the
 *	hotplug work does not arm a CPU after the failed START
 *   first_flag_survives_a_full_ring
 *	START into a full ring: the first record written carries FIRST
 *   error_retries_back_off
 *	a counter stuck in error (simulated PMU without room) is retried with
 *	a bounded back-off, reported in STATUS (retries, retry_delay_ms)
 *   error_gap_without_switch_is_flagged
 *	a counter that goes to ERROR and back while its CPU does not switch:
 *	the slice reports 0 with the error bit, not a delta across the gap
 *   group_in_error_recovers_per_group
 *	groups and rotation ("Groups and rotation" in the header): CPU 1's
 *	simulated PMU takes 2 events at once, group 0 has 2 and group 1 has
 *	3. Group 1's slices carry error bits and group 0's none, the CPU
 *	keeps rotating, STATUS counts the error slices per group; once the
 *	PMU has room, group 1 counts again without STOP/START. Every slice of
 *	the worker holds the whole units it did in that slice, or 0 with the
 *	error bit: never a delta spanning a turn in error; the turn that
 *	brought the counter back counts in STATUS' recoveries
 *   preempted_when_signal_keeps_task_runnable
 *	a task that calls schedule() in TASK_INTERRUPTIBLE with a signal
 *	pending stays runnable; its slices must carry TOPDOWN_REC_PREEMPTED
 *	(td_pmusim's debugfs sigsleep makes the kernel do exactly that)
 *   stop_and_configure_latency
 *	STOP and a CONFIGURE that replaces the rings wait for no RCU grace
 *	period (one is measured with membarrier(MEMBARRIER_CMD_GLOBAL)),
 *	let alone one per possible CPU (irq_work_sync() on PREEMPT_RT)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <linux/perf_event.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "td_common.h"
#include "td_groups.h"
#include "kselftest_harness.h"
#include "td_fixture.h"

#define MAX_CPUS	64
#define RING		(64u << 10)
#define NREC		(RING / TOPDOWN_RECORD_SIZE)

static int open_dev(void)
{
	int fd = open(TOPDOWN_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd >= 0)
		ioctl(fd, TOPDOWN_IOC_STOP);
	return fd;
}

static int perf_open(struct perf_event_attr *a, int cpu)
{
	return syscall(SYS_perf_event_open, a, -1, cpu, -1, 0);
}

static void hw_attr(struct perf_event_attr *a, int pinned)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_INSTRUCTIONS;
	a->pinned = pinned;
}

/*
 * Hold every general-purpose counter of @cpu with pinned instructions
 * events: open them until one lands in error (read() returns 0 for a
 * pinned event perf could not schedule), close that one. Returns how many
 * are held (fds in @fds), 0 when there is no hardware PMU, -1 if no
 * count of events filled the PMU.
 */
static int hold_counters(int cpu, int *fds, int max)
{
	struct perf_event_attr a;
	int n = 0;

	hw_attr(&a, 1);
	while (n < max) {
		uint64_t v;
		int fd = perf_open(&a, cpu);

		if (fd < 0)
			return n ? -1 : 0;
		if (read(fd, &v, sizeof(v)) == 0) {
			close(fd);
			return n;
		}
		fds[n++] = fd;
	}
	return -1;
}

/*
 * hold_counters() on CPU 0, then again until two fills 50 ms apart add
 * nothing (at most 1 s): a counter that another user holds at the first
 * fill and frees a moment later (the BPF backend's events after an
 * unload, released after a grace period) would be topdown's at START,
 * and its slices would be counted (arm64 rt 5.10, after
 * tdctl_backends_test: 5 held instead of 6). Returns as hold_counters().
 */
static int hold_counters_stable(int *fds, int max)
{
	int n = hold_counters(0, fds, max);

	for (int quiet = 0, k = 0; n > 0 && quiet < 2 && k < 20; k++) {
		int more;

		usleep(50000);
		more = hold_counters(0, fds + n, max - n);
		if (more < 0)
			break;
		quiet = more ? 0 : quiet + 1;
		n += more;
	}
	return n;
}

static void release_counters(int *fds, int n)
{
	while (n > 0)
		close(fds[--n]);
}

static void cfg_hw(struct topdown_config *cfg)
{
	td_cfg_init(cfg, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, RING);
}

/* Context switches on the current CPU: short sleeps. */
static void switch_some(int n)
{
	for (int i = 0; i < n; i++)
		usleep(500);
}

/* STATUS with entries @esize bytes apart into @buf (n entries). */
static int status_sized(int fd, struct topdown_status *st, void *buf,
			uint32_t n, uint32_t esize)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->stats_ptr = (uintptr_t)buf;
	st->nr_stats = n;
	st->stats_size = esize;
	return ioctl(fd, TOPDOWN_IOC_STATUS, st);
}

FIXTURE(held) {
	int fd;
	int held[64];
	int nheld;
	struct td_ring ring;
	bool mapped;
};

FIXTURE_SETUP(held)
{
	struct topdown_config cfg;

	self->fd = open_dev();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, td_pin_cpu(0));
	/*
	 * The counters of an earlier STOP are released by a work item after
	 * STOP returns; CONFIGURE waits for it (td_main.c). Without this, a
	 * collection another test stopped just before can still hold
	 * counters of CPU 0 below, and they are free again by START.
	 */
	ioctl(self->fd, TOPDOWN_IOC_STOP);
	cfg_hw(&cfg);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	self->nheld = hold_counters_stable(self->held, 64);
	if (self->nheld == 0)
		return;	/* the tests skip */
	ASSERT_LT(0, self->nheld) TH_LOG("could not fill CPU 0's PMU");
	TH_LOG("holding %d general-purpose counters of CPU 0", self->nheld);
	self->mapped = false;
}

FIXTURE_TEARDOWN(held)
{
	if (self->mapped)
		td_ring_unmap(&self->ring);
	if (self->nheld > 0)
		release_counters(self->held, self->nheld);
	ioctl(self->fd, TOPDOWN_IOC_STOP);
	close(self->fd);
}

TEST_F_TIMEOUT(held, counter_recovers_after_holders_close, 120)
{
	struct topdown_record *recs = calloc(NREC, sizeof(*recs));
	struct topdown_config cfg;
	int n, flagged = 0, good = 0, rounds;
	bool seen_good = false;

	if (!self->nheld)
		SKIP(return, "no hardware PMU (instructions event refused)");

	ASSERT_NE(NULL, recs);
	cfg_hw(&cfg);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, td_ring_map(self->fd, 0, RING, &self->ring));
	self->mapped = true;
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));

	/* Every counter taken: every slice on CPU 0 flagged. */
	switch_some(40);
	n = td_ring_drain(&self->ring, recs, NREC);
	for (int i = 0; i < n; i++) {
		if (recs[i].flags & 1)
			flagged++;
		else
			TH_LOG("unflagged slice while held: delta %llu",
			       (unsigned long long)recs[i].delta[0]);
	}
	TH_LOG("held: %d slices, %d flagged", n, flagged);
	ASSERT_LT(0, n);
	ASSERT_EQ(n, flagged);

	release_counters(self->held, self->nheld);
	self->nheld = 0;

	/*
	 * Wait (at most 10 s) for slices that read again. The last flagged
	 * slice and the first good one must not carry a delta older than
	 * themselves: under -icount at most one instruction per ns.
	 */
	for (rounds = 0; rounds < 200 && good < 20; rounds++) {
		switch_some(100);
		n = td_ring_drain(&self->ring, recs, NREC);
		for (int i = 0; i < n; i++) {
			const struct topdown_record *r = &recs[i];

			if (r->flags & 1) {
				EXPECT_EQ(0, r->delta[0]);
				EXPECT_FALSE(seen_good) TH_LOG("flagged again after recovery");
				continue;
			}
			if (!seen_good)
				TH_LOG("first good slice: delta %llu in %llu ns",
				       (unsigned long long)r->delta[0],
				       (unsigned long long)r->duration_ns);
			if (getenv("TD_ICOUNT"))
				EXPECT_GE(r->duration_ns + 100000, r->delta[0])
					TH_LOG("stale delta %llu in a %llu ns slice",
					       (unsigned long long)r->delta[0],
					       (unsigned long long)r->duration_ns);
			seen_good = true;
			good++;
		}
	}
	TH_LOG("after closing the holders: %d good slices in %d rounds",
	       good, rounds);
	td_count("counter_recovery_rounds", rounds);
	ASSERT_TRUE(seen_good) TH_LOG("the counter never came back");
	free(recs);
}

TEST_F_TIMEOUT(held, status_reports_counter_states, 120)
{
	struct topdown_cpu_stats stats[MAX_CPUS];
	struct topdown_status st;
	struct topdown_config cfg;
	int nr = td_nr_cpus(self->fd), i;

	if (!self->nheld)
		SKIP(return, "no hardware PMU (instructions event refused)");
	ASSERT_LT(0, nr);
	if (nr > MAX_CPUS)
		nr = MAX_CPUS;
	cfg_hw(&cfg);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	switch_some(10);
	ASSERT_EQ(0, status_sized(self->fd, &st, stats, nr, sizeof(stats[0])));
	ASSERT_EQ(sizeof(stats[0]), st.stats_size);
	EXPECT_EQ(TOPDOWN_EVSTATE_ERROR, stats[0].ev_state[0]);
	EXPECT_EQ(1, stats[0].arm_errors) TH_LOG("START must say event 0 had no counter on CPU 0");
	EXPECT_LT(0, stats[0].ev_error_slices[0]);
	EXPECT_EQ(0, stats[0].recoveries);
	for (i = 1; i < nr; i++) {
		if (!(stats[i].flags & TOPDOWN_CPU_COUNTING))
			continue;
		EXPECT_EQ(TOPDOWN_EVSTATE_COUNTING, stats[i].ev_state[0])
			TH_LOG("CPU %d", i);
		EXPECT_EQ(0, stats[i].arm_errors);
	}

	release_counters(self->held, self->nheld);
	self->nheld = 0;
	for (i = 0; i < 100; i++) {
		switch_some(20);
		ASSERT_EQ(0, status_sized(self->fd, &st, stats, nr, sizeof(stats[0])));
		if (stats[0].ev_state[0] == TOPDOWN_EVSTATE_COUNTING)
			break;
	}
	EXPECT_EQ(TOPDOWN_EVSTATE_COUNTING, stats[0].ev_state[0]);
	EXPECT_EQ(1, stats[0].recoveries);
	/* What START saw stays reported. */
	EXPECT_EQ(1, stats[0].arm_errors);
}

TEST_F(dev, status_stats_sizes)
{
	const size_t v0 = TOPDOWN_CPU_STATS_SIZE_VER0;
	const size_t v1 = TOPDOWN_CPU_STATS_SIZE_VER1;
	const size_t v2 = TOPDOWN_CPU_STATS_SIZE_VER2;
	const size_t v3 = TOPDOWN_CPU_STATS_SIZE_VER3;
	const size_t big = v3 + 32;
	struct topdown_config cfg;
	struct topdown_status st;
	int nr = td_nr_cpus(self->fd);
	uint8_t *buf;

	ASSERT_LT(0, nr);
	ASSERT_EQ(v3, sizeof(struct topdown_cpu_stats));
	buf = malloc((nr + 1) * big);
	ASSERT_NE(NULL, buf);
	td_cfg_sw(&cfg, RING);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	switch_some(10);

	/* VER0: 56-byte entries, nothing written past them. */
	memset(buf, 0xa5, (nr + 1) * big);
	ASSERT_EQ(0, status_sized(self->fd, &st, buf, nr, v0));
	EXPECT_EQ(nr, st.nr_stats);
	EXPECT_EQ(v0, st.stats_size);
	for (int i = 0; i < nr; i++)
		EXPECT_EQ(i, ((struct topdown_cpu_stats *)(buf + i * v0))->cpu);
	for (size_t k = nr * v0; k < (nr + 1) * big; k++) {
		ASSERT_EQ(0xa5, buf[k]) TH_LOG("byte %zu written", k);
	}

	/* VER1: the event states. */
	memset(buf, 0xa5, (nr + 1) * big);
	ASSERT_EQ(0, status_sized(self->fd, &st, buf, nr, v1));
	EXPECT_EQ(v1, st.stats_size);
	for (int i = 0; i < nr; i++) {
		struct topdown_cpu_stats *s = (void *)(buf + i * v1);

		EXPECT_EQ(i, s->cpu);
		if (s->flags & TOPDOWN_CPU_COUNTING)
			EXPECT_EQ(TOPDOWN_EVSTATE_COUNTING, s->ev_state[0]);
		for (int e = 1; e < TOPDOWN_MAX_EVENTS; e++)
			EXPECT_EQ(TOPDOWN_EVSTATE_NONE, s->ev_state[e]);
		for (int k = 0; k < 7; k++)
			EXPECT_EQ(0, s->__reserved[k]);
	}
	EXPECT_EQ(0xa5, buf[nr * v1]);

	/* VER2: the retries, none here. */
	memset(buf, 0xa5, (nr + 1) * big);
	ASSERT_EQ(0, status_sized(self->fd, &st, buf, nr, v2));
	EXPECT_EQ(v2, st.stats_size);
	for (int i = 0; i < nr; i++) {
		struct topdown_cpu_stats *s = (void *)(buf + i * v2);

		EXPECT_EQ(i, s->cpu);
		EXPECT_EQ(0, s->retries);
		EXPECT_EQ(0, s->retry_delay_ms);
		EXPECT_EQ(0, s->__reserved2);
	}
	EXPECT_EQ(0xa5, buf[nr * v2]);

	/*
	 * "The size is the authority": any entry size from VER0 to the page
	 * size, entries that far apart, the leading min(size, ours) bytes of
	 * each written and the rest left as it was.
	 */
	for (size_t sz = v0 + 4; sz <= big; sz += sz < v3 ? 44 : 16) {
		size_t wrote = sz < v3 ? sz : v3;

		memset(buf, 0xa5, (nr + 1) * big);
		ASSERT_EQ(0, status_sized(self->fd, &st, buf, nr, sz))
			TH_LOG("entry size %zu: %s", sz, strerror(errno));
		EXPECT_EQ(wrote, st.stats_size) TH_LOG("entry size %zu", sz);
		for (int i = 0; i < nr; i++) {
			EXPECT_EQ(i, ((struct topdown_cpu_stats *)(buf + i * sz))->cpu)
				TH_LOG("entry size %zu", sz);
			for (size_t k = i * sz + wrote; k < (i + 1) * sz; k++) {
				ASSERT_EQ(0xa5, buf[k]) TH_LOG("size %zu: byte %zu", sz, k);
			}
		}
		EXPECT_EQ(0xa5, buf[nr * sz]);
	}
	/* Below VER0: EINVAL; over a page: E2BIG; nothing written. */
	memset(buf, 0xa5, (nr + 1) * big);
	EXPECT_EQ(-1, status_sized(self->fd, &st, buf, nr, v0 - 8));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, status_sized(self->fd, &st, buf, nr, getpagesize() + 8));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(0xa5, buf[0]);
	free(buf);
}

/* ---- a failed START, a START into a full ring ----------------------- */

static volatile int busy_stop;

/* Runnable all the time on the CPU it is pinned to: switches there. */
static void *busy(void *arg)
{
	td_pin_cpu((int)(intptr_t)arg);
	while (!busy_stop)
		sched_yield();
	return NULL;
}

static int online_cpus(void)
{
	int n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > MAX_CPUS ? MAX_CPUS : n;
}

/*
 * "A START that fails ... leaves nothing behind": perf refuses the last
 * event on the last CPU only, after the other CPUs' counters were made,
 * while CPU 0 switches all the time. No ring may get a record, a lost one
 * or a sequence number, no CPU a statistic.
 */
TEST_F_TIMEOUT(dev, failed_start_leaves_nothing_behind, 120)
{
	uint64_t mask[TOPDOWN_CPUMASK_MAX_BYTES / 8] = { 0 };
	struct topdown_cpu_stats stats[MAX_CPUS];
	struct td_ring r[MAX_CPUS] = { 0 };
	int n = online_cpus(), last = n - 1, tries = 20, refused = 0;
	struct topdown_config cfg;
	struct topdown_status st;
	pthread_t th;

	if (n < 2)
		SKIP(return, "one CPU online: the failure needs a CPU after another");
	td_cfg_sw(&cfg, RING);
	/* Six more counters on the last CPU before the one perf refuses. */
	cfg.nr_events = TOPDOWN_MAX_EVENTS;
	mask[last / 64] = 1ull << (last % 64);
	for (int i = 1; i < TOPDOWN_MAX_EVENTS; i++) {
		cfg.events[i] = cfg.events[0];
		cfg.events[i].cpus_ptr = (uintptr_t)mask;
		cfg.events[i].cpus_size = sizeof(mask);
	}
	/* A software config perf does not have: refused by perf at START. */
	cfg.events[TOPDOWN_MAX_EVENTS - 1].config = 0x7fff;
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	for (int cpu = 0; cpu < n; cpu++)
		ASSERT_EQ(0, td_ring_map(self->fd, cpu, RING, &r[cpu]));
	ASSERT_EQ(0, td_pin_cpu(0));
	busy_stop = 0;
	ASSERT_EQ(0, pthread_create(&th, NULL, busy, (void *)0));
	for (int i = 0; i < tries; i++) {
		if (ioctl(self->fd, TOPDOWN_IOC_START) == 0) {
			ioctl(self->fd, TOPDOWN_IOC_STOP);
			break;
		}
		refused++;
	}
	busy_stop = 1;
	pthread_join(th, NULL);
	ASSERT_EQ(tries, refused) TH_LOG("perf accepted software config 0x7fff");
	ASSERT_EQ(0, td_status(self->fd, &st, stats, MAX_CPUS));
	EXPECT_EQ(TOPDOWN_STATE_CONFIGURED, st.state);
	EXPECT_EQ(last, st.error_cpu);
	EXPECT_EQ(TOPDOWN_MAX_EVENTS - 1, st.error_event);
	for (int cpu = 0; cpu < n; cpu++) {
		EXPECT_EQ(0, r[cpu].prod->producer_pos) TH_LOG("CPU %d's ring", cpu);
		EXPECT_EQ(0, r[cpu].prod->lost) TH_LOG("CPU %d's ring", cpu);
		EXPECT_EQ(0, stats[cpu].records) TH_LOG("CPU %d", cpu);
		EXPECT_EQ(0, stats[cpu].probe_count) TH_LOG("CPU %d", cpu);
		EXPECT_FALSE(stats[cpu].flags & TOPDOWN_CPU_COUNTING);
	}
	TH_LOG("%d failed STARTs: CPU 0's ring at %llu, %llu probe calls", refused,
	       (unsigned long long)r[0].prod->producer_pos,
	       (unsigned long long)stats[0].probe_count);
	for (int cpu = 0; cpu < n; cpu++)
		td_ring_unmap(&r[cpu]);
}

static volatile int toggle_stop;
static volatile long toggles;

/*
 * At most this many: each one logs a few kernel lines, and hundreds push
 * older ones out of the kernel log (tdctl reads the arm64 counter budget
 * from the PMU driver's line there).
 */
#define TOGGLES_MAX	30

/* Take CPU 1 offline and online again until told to stop. */
static void *toggle_cpu1(void *arg)
{
	while (!toggle_stop && toggles < TOGGLES_MAX) {
		if (td_set_online(1, 0) || td_set_online(1, 1))
			break;
		toggles++;
	}
	td_set_online(1, 1);
	return NULL;
}

/*
 * The same promise while CPU 1 comes and goes: a CPU that came online
 * during a START that fails must not be armed by the hotplug work after
 * START let go of its lock. perf refuses the event on CPU 0, the first
 * CPU START syncs; CPU 1 would count the others. For 20 s, START after
 * START fails while another thread toggles CPU 1 (TOGGLES_MAX times); no
 * CPU may have a record, a probe call or a ring position afterwards.
 */
TEST_F_TIMEOUT(dev, failed_start_during_hotplug_leaves_nothing, 120)
{
	uint64_t mask[TOPDOWN_CPUMASK_MAX_BYTES / 8] = { 0 };
	struct topdown_cpu_stats stats[MAX_CPUS];
	uint64_t end = td_now_ns() + 20 * 1000000000ull;
	struct topdown_config cfg;
	struct topdown_status st;
	long refused = 0, started = 0;
	pthread_t th;

	if (online_cpus() < 2 || access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "CPU 1 cannot go offline here");
	td_cfg_sw(&cfg, RING);
	cfg.nr_events = 2;
	cfg.events[1] = cfg.events[0];
	/* A software config perf does not have, on CPU 0 only. */
	mask[0] = 1;
	cfg.events[1].config = 0x7fff;
	cfg.events[1].cpus_ptr = (uintptr_t)mask;
	cfg.events[1].cpus_size = sizeof(mask);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	toggle_stop = 0;
	toggles = 0;
	ASSERT_EQ(0, pthread_create(&th, NULL, toggle_cpu1, NULL));
	while (td_now_ns() < end && toggles < TOGGLES_MAX) {
		if (ioctl(self->fd, TOPDOWN_IOC_START) == 0) {
			started++;
			ioctl(self->fd, TOPDOWN_IOC_STOP);
		} else {
			refused++;
		}
	}
	toggle_stop = 1;
	pthread_join(th, NULL);
	TH_LOG("%ld failed STARTs, %ld accepted, CPU 1 offline and online %ld times",
	       refused, started, toggles);
	ASSERT_EQ(0, started) TH_LOG("perf accepted software config 0x7fff");
	ASSERT_LT(10, toggles);
	/* A hotplug work item still queued would run now: give it time. */
	usleep(200000);
	ASSERT_EQ(0, td_status(self->fd, &st, stats, MAX_CPUS));
	EXPECT_EQ(TOPDOWN_STATE_CONFIGURED, st.state);
	for (unsigned int cpu = 0; cpu < st.nr_stats; cpu++) {
		EXPECT_EQ(0, stats[cpu].records) TH_LOG("CPU %u", cpu);
		EXPECT_EQ(0, stats[cpu].probe_count) TH_LOG("CPU %u", cpu);
		EXPECT_EQ(0, stats[cpu].producer_pos) TH_LOG("CPU %u", cpu);
		EXPECT_FALSE(stats[cpu].flags & TOPDOWN_CPU_COUNTING) TH_LOG("CPU %u", cpu);
	}
}

/*
 * TOPDOWN_REC_FIRST survives a full ring: START into a ring that is full
 * (drop mode, nobody reading) drops the first slices; the first record
 * written afterwards must carry the flag, right after the gap in seq.
 */
TEST_F_TIMEOUT(dev, first_flag_survives_a_full_ring, 120)
{
	const uint32_t small = 4096;	/* 32 records */
	struct topdown_record *recs = calloc(small / TOPDOWN_RECORD_SIZE, sizeof(*recs));
	struct topdown_config cfg;
	uint64_t lost0, last_seq = 0, first_new = ~0ull;
	struct td_ring ring;
	int n, nnew = 0, flagged = 0;

	ASSERT_NE(NULL, recs);
	if ((size_t)sysconf(_SC_PAGESIZE) > small)
		SKIP(return, "pages larger than the smallest ring");
	ASSERT_EQ(0, td_pin_cpu(0));
	td_cfg_sw(&cfg, small);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, td_ring_map(self->fd, 0, small, &ring));

	/* Fill CPU 0's ring until it drops. */
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	for (int i = 0; i < 2000 && !ring.prod->lost; i++)
		switch_some(1);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_STOP));
	ASSERT_LT(0, ring.prod->lost);
	lost0 = ring.prod->lost;

	/* START into the full ring: its first slices are dropped. */
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	for (int i = 0; i < 2000 && ring.prod->lost == lost0; i++)
		switch_some(1);
	ASSERT_LT(lost0, ring.prod->lost) TH_LOG("nothing dropped after the second START");
	/* Read the first session's records, then let new ones in. */
	n = td_ring_drain(&ring, recs, small / TOPDOWN_RECORD_SIZE);
	for (int i = 0; i < n; i++)
		if (recs[i].seq > last_seq)
			last_seq = recs[i].seq;
	switch_some(10);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_STOP));
	n = td_ring_drain(&ring, recs, small / TOPDOWN_RECORD_SIZE);
	for (int i = 0; i < n; i++) {
		if (recs[i].seq <= last_seq)
			continue;
		nnew++;
		if (recs[i].seq < first_new)
			first_new = recs[i].seq;
		if (recs[i].flags & TOPDOWN_REC_FIRST) {
			flagged++;
			EXPECT_EQ(first_new, recs[i].seq)
				TH_LOG("FIRST on seq %llu, not on the first record",
				       (unsigned long long)recs[i].seq);
		}
	}
	td_ring_unmap(&ring);
	ASSERT_LT(0, nnew);
	TH_LOG("first session up to seq %llu, %llu dropped in the second before its first "
	       "record (seq %llu), %d records after, %d flagged FIRST",
	       (unsigned long long)last_seq, (unsigned long long)(first_new - last_seq - 1),
	       (unsigned long long)first_new, nnew, flagged);
	/* A gap: the dropped first slices. */
	EXPECT_LT(last_seq + 1, first_new);
	EXPECT_EQ(1, flagged);
	free(recs);
}

/* ---- counters in error on a simulated PMU ------------------------------ */

#define SIM_DIR		"/sys/kernel/debug/td_pmusim"
#define TD_PARAMS	"/sys/module/topdown/parameters"

/*
 * The simulated PMU (selftests/pmusim), whose capacity per CPU the test
 * sets: pmu->add() refuses events beyond it, so a pinned event goes to
 * perf's ERROR state on x86-64 as on arm64. topdown's test build is
 * loaded in place of the shipped module for its type (it has no hardware
 * context, which the shipped module's policy requires); the shipped
 * module is loaded again afterwards.
 */
FIXTURE(sim) {
	int fd;
	int type;
	int ncpu;
	bool pmusim_here;
	struct td_ring ring;
	bool mapped;
};

FIXTURE_SETUP(sim)
{
	struct topdown_config cfg;

	self->fd = -1;
	self->ncpu = online_cpus();
	if (self->ncpu < 2)
		SKIP(return, "one CPU online");
	self->pmusim_here = access("/sys/module/td_pmusim", F_OK) != 0;
	if (td_load_pmusim())
		SKIP(return, "td_pmusim.ko not loadable");
	self->type = td_pmusim_type();
	ASSERT_LE(PERF_TYPE_MAX, self->type);
	if (!access("/sys/module/topdown", F_OK))
		ASSERT_EQ(0, syscall(SYS_delete_module, "topdown", O_NONBLOCK))
			TH_LOG("rmmod topdown: %s", strerror(errno));
	if (td_load_hooks(self->type))
		SKIP(return, "topdown_hooks.ko (the test build) not loadable");
	ASSERT_EQ(0, td_write_file(SIM_DIR "/layout", "index"));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/profiles", "clear"));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/profiles", "comm=td_gap ev0=1"));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/noise", "0"));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/read_tick", "0"));
	ASSERT_EQ(0, td_write_file(TD_PARAMS "/retry_ms", "10"));
	self->fd = open_dev();
	ASSERT_LE(0, self->fd);
	td_cfg_init(&cfg, self->type, 0, RING);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, td_ring_map(self->fd, 1, RING, &self->ring));
	self->mapped = true;
}

FIXTURE_TEARDOWN(sim)
{
	char cmd[32];

	for (int cpu = 0; cpu < self->ncpu; cpu++) {
		snprintf(cmd, sizeof(cmd), "%d -1", cpu);
		td_write_file(SIM_DIR "/capacity", cmd);
	}
	if (self->mapped)
		td_ring_unmap(&self->ring);
	if (self->fd >= 0) {
		ioctl(self->fd, TOPDOWN_IOC_STOP);
		close(self->fd);
	}
	syscall(SYS_delete_module, "topdown", O_NONBLOCK);
	if (system("modprobe topdown"))
		TH_LOG("modprobe topdown failed");
	if (self->pmusim_here)
		syscall(SYS_delete_module, "td_pmusim", O_NONBLOCK);
}

/*
 * STATUS of CPU @cpu, with entries of the current size, or of
 * TOPDOWN_CPU_STATS_SIZE_VER1 from an older module (the fields after it
 * then read 0).
 */
static int cpu_stats(int fd, int cpu, struct topdown_cpu_stats *out)
{
	static uint8_t buf[MAX_CPUS * sizeof(struct topdown_cpu_stats)];
	struct topdown_status st;
	uint32_t esize = sizeof(*out);

	if (status_sized(fd, &st, buf, MAX_CPUS, esize)) {
		esize = TOPDOWN_CPU_STATS_SIZE_VER1;
		if (errno != EINVAL || status_sized(fd, &st, buf, MAX_CPUS, esize))
			return -1;
	}
	if ((uint32_t)cpu >= st.nr_stats)
		return -1;
	memset(out, 0, sizeof(*out));
	memcpy(out, buf + cpu * esize, esize);
	return 0;
}

/* Wait (at most @ms) until event 0 of @cpu is in state @state; 0 or -1. */
static int wait_ev_state(int fd, int cpu, uint8_t state, int ms)
{
	struct topdown_cpu_stats s;

	for (int i = 0; i < ms; i++) {
		if (!cpu_stats(fd, cpu, &s) && s.ev_state[0] == state)
			return 0;
		usleep(1000);
	}
	return -1;
}

/* pmu->add() calls td_pmusim saw on @cpu ("capacity"), or -1. */
static long sim_adds(int cpu)
{
	char *s = td_read_file(SIM_DIR "/capacity"), *line, *save = NULL;
	long adds = -1;

	for (line = s ? strtok_r(s, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		int c, max, active;
		unsigned long long a, r;

		if (sscanf(line, "cpu %d max %d active %d adds %llu refused %llu", &c, &max,
			   &active, &a, &r) == 5 && c == cpu)
			adds = a;
	}
	free(s);
	return adds;
}

static long thread_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/*
 * A counter stuck in error is retried with a bounded back-off, and STATUS
 * says so: CPU 1's PMU takes no event from START on. With retry_ms 10 and
 * retry_max_ms 160, three seconds hold about 20 retries (10, then 20, 40,
 * 80 and every 160 ms), not 300; each is a pmu->add() on CPU 1 (perf
 * rescheduling that CPU). Once the PMU takes events again, the counter
 * recovers within the longest wait, and the back-off is reset.
 */
TEST_F_TIMEOUT(sim, error_retries_back_off, 120)
{
	struct topdown_cpu_stats s0, s1;
	long adds0, adds;
	uint64_t t0;

	if (td_write_file(TD_PARAMS "/retry_max_ms", "160"))
		TH_LOG("no retry_max_ms: a module without the back-off");
	ASSERT_EQ(0, td_write_file(SIM_DIR "/capacity", "1 0"));
	adds0 = sim_adds(1);
	ASSERT_LE(0, adds0);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	t0 = td_now_ns();
	usleep(3000000);
	adds = sim_adds(1) - adds0;
	ASSERT_EQ(0, cpu_stats(self->fd, 1, &s1));
	ASSERT_EQ(0, cpu_stats(self->fd, 0, &s0));
	TH_LOG("%llu ms in error: %llu retries, %ld pmu->add() on CPU 1, waiting %u ms "
	       "between retries", (unsigned long long)(td_now_ns() - t0) / 1000000,
	       (unsigned long long)s1.retries, adds, s1.retry_delay_ms);
	td_count("error_retries_3s", s1.retries);
	td_count("error_pmu_adds_3s", adds);
	EXPECT_EQ(TOPDOWN_EVSTATE_ERROR, s1.ev_state[0]);
	EXPECT_EQ(1, s1.arm_errors);
	/* Bounded: still retrying, but backing off to the longest wait. */
	EXPECT_LE(5, s1.retries);
	EXPECT_GE(40, s1.retries);
	EXPECT_GE(40, adds);
	EXPECT_EQ(160, s1.retry_delay_ms);
	EXPECT_EQ(0, s0.retries);
	EXPECT_EQ(0, s0.retry_delay_ms);

	/* The PMU takes events again: back within the longest wait or so. */
	ASSERT_EQ(0, td_write_file(SIM_DIR "/capacity", "1 -1"));
	t0 = td_now_ns();
	ASSERT_EQ(0, wait_ev_state(self->fd, 1, TOPDOWN_EVSTATE_COUNTING, 5000));
	TH_LOG("recovered %llu ms after the PMU had room",
	       (unsigned long long)(td_now_ns() - t0) / 1000000);
	ASSERT_EQ(0, cpu_stats(self->fd, 1, &s1));
	EXPECT_EQ(1, s1.recoveries);
	EXPECT_EQ(0, s1.retry_delay_ms);
	td_write_file(TD_PARAMS "/retry_max_ms", "60000");
}

/*
 * Groups with a counter in error (the header: "Counters perf put in error
 * are retried while their group counts ...; the error bits of a record
 * are its group's, by position"). td_pmusim's index layout, the worker's
 * profile counting 1, 2, 3 and 5 per unit on counters 0..3; group 0 is
 * {ev0, ev1}, group 1 is {ev0, ev2, ev3}, rotated every 20 ms. CPU 1's
 * PMU takes at most 2 events for the first second, then any number.
 */
#define GR_UNITS	1000
#define GR_RING		(1u << 20)
#define GR_MAX_RECS	(1 << 16)

static const unsigned int gr_rate[4] = { 1, 2, 3, 5 };

static void cfg_sim_groups(struct topdown_config *c, int type)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->ring_size = GR_RING;
	strcpy(c->label, "set=counters_test");
	c->nr_events = 4;
	for (int i = 0; i < 4; i++) {
		c->events[i].type = type;
		c->events[i].config = i;
		snprintf(c->events[i].name, sizeof(c->events[i].name), "ev%d", i);
	}
	c->nr_groups = 2;
	c->groups[0].nr_events = 2;
	c->groups[0].events[0] = 0;
	c->groups[0].events[1] = 1;
	c->groups[1].nr_events = 3;
	c->groups[1].events[0] = 0;
	c->groups[1].events[1] = 2;
	c->groups[1].events[2] = 3;
	c->rotate_ms = 20;
}

/*
 * On CPU 1: "td_grp" does a batch of GR_UNITS, passes a token to its
 * peer (no profile: counts nothing) and waits for it back, so every one
 * of its slices holds at most one batch: the peer runs only when it is
 * off the CPU.
 */
static pid_t gr_worker(uint64_t until_ns)
{
	int to_peer[2], to_worker[2];
	pid_t pid = fork(), peer;
	char t = 'x';

	if (pid)
		return pid;
	if (td_pin_cpu(1) || pipe(to_peer) || pipe(to_worker))
		_exit(1);
	peer = fork();
	if (peer == 0) {
		prctl(PR_SET_NAME, "td_grp_peer");
		close(to_peer[1]);
		close(to_worker[0]);
		while (read(to_peer[0], &t, 1) == 1)
			if (write(to_worker[1], &t, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(to_peer[0]);
	close(to_worker[1]);
	if (peer < 0 || prctl(PR_SET_NAME, "td_grp"))
		_exit(1);
	while (td_now_ns() < until_ns) {
		if (td_write_file(SIM_DIR "/work", "1000") ||
		    write(to_peer[1], &t, 1) != 1 || read(to_worker[0], &t, 1) != 1)
			_exit(1);
		usleep(1000);
	}
	close(to_peer[1]);
	waitpid(peer, NULL, 0);
	_exit(0);
}

/* What CPU 1's records of the run showed. */
struct gr_tally {
	long flagged1;		/* first second: group 1 slices with an error bit */
	long clean0;		/* first second: group 0 slices without one */
	long changes;		/* first second: ROTATED records */
	long late_clean1;	/* from room + 300 ms: group 1 slices clean */
	long late_bad1;		/* ... and flagged */
	long worker, whole;	/* the worker's slices, those of whole batches */
	long bad;		/* anything else (logged) */
};

/*
 * A worker slice: every readable delta the same whole number (0 or 1) of
 * batches times its event's rate, an unreadable one 0; a delta carried
 * over a turn in error would be more.
 */
static bool gr_whole(const struct topdown_config *c, const struct topdown_record *r)
{
	uint32_t g = TOPDOWN_REC_GROUP(r->flags), err = r->flags & TOPDOWN_REC_ERROR_MASK;
	int64_t m = -1;

	for (uint32_t j = 0; j < c->groups[g].nr_events; j++) {
		uint64_t unit = (uint64_t)GR_UNITS * gr_rate[c->groups[g].events[j]];

		if (err & (1u << j)) {
			if (r->delta[j])
				return false;
			continue;
		}
		if (r->delta[j] % unit || (m >= 0 && r->delta[j] != (uint64_t)m * unit))
			return false;
		m = r->delta[j] / unit;
	}
	return m == 0 || m == 1 || (m == -1 && err);
}

static void gr_count(struct __test_metadata *_metadata, const struct topdown_config *c,
		     const struct topdown_record *recs, int n, pid_t worker,
		     uint64_t t_restore, struct gr_tally *t)
{
	for (int i = 0; i < n; i++) {
		const struct topdown_record *r = &recs[i];
		uint32_t g = TOPDOWN_REC_GROUP(r->flags), err = r->flags & TOPDOWN_REC_ERROR_MASK;

		if (r->flags & (TOPDOWN_REC_ROTATED | TOPDOWN_REC_FIRST)) {
			if ((r->flags & TOPDOWN_REC_ROTATED) && r->time_ns < t_restore)
				t->changes++;
			continue;
		}
		/* The first second: the PMU had room for 2 events. */
		if (r->time_ns < t_restore) {
			if (g == 1 && err)
				t->flagged1++;
			else if (g == 0 && !err)
				t->clean0++;
			else if (t->bad++ < 8)
				TH_LOG("seq %llu group %u error bits 0x%x (CPU 1's PMU takes 2)",
				       (unsigned long long)r->seq, g, err);
		} else if (g == 1 && r->time_ns - r->duration_ns > t_restore + 300000000ull) {
			if (err)
				t->late_bad1++;
			else
				t->late_clean1++;
		}
		if (strcmp(r->comm, "td_grp") || r->pid != (uint32_t)worker)
			continue;
		t->worker++;
		if (gr_whole(c, r))
			t->whole++;
		else if (t->bad++ < 8)
			TH_LOG("worker seq %llu group %u flags 0x%x: %llu %llu %llu, not 1 batch",
			       (unsigned long long)r->seq, g, r->flags,
			       (unsigned long long)r->delta[0], (unsigned long long)r->delta[1],
			       (unsigned long long)r->delta[2]);
	}
}

/*
 * CPU 1's records until @until, drained every 10 ms into @recs (from @n,
 * at most GR_MAX_RECS): the pair switches thousands of times a second
 * (7125 slices in the first second on arm64 rt 5.10), more than the ring
 * holds.
 */
static int gr_collect(struct td_ring *ring, struct topdown_record *recs, int n,
		      uint64_t until)
{
	do {
		n += td_ring_drain(ring, recs + n, GR_MAX_RECS - n);
		usleep(10000);
	} while (td_now_ns() < until && n < GR_MAX_RECS);
	return n;
}

TEST_F_TIMEOUT(sim, group_in_error_recovers_per_group, 120)
{
	struct topdown_cpu_stats st;
	struct topdown_config cfg;
	struct topdown_record *recs;
	struct td_grp_sums sums = { 0 };
	struct gr_tally t = { 0 };
	uint64_t t_start, t_restore;
	int n, status;
	pid_t pid;

	recs = calloc(GR_MAX_RECS, sizeof(*recs));
	ASSERT_NE(NULL, recs);
	ASSERT_EQ(0, td_write_file(SIM_DIR "/profiles", "comm=td_grp ev0=1 ev1=2 ev2=3 ev3=5"));
	/* The fixture's configuration is mapped: a new one needs it gone. */
	td_ring_unmap(&self->ring);
	self->mapped = false;
	cfg_sim_groups(&cfg, self->type);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg))
		TH_LOG("CONFIGURE with groups: %s", strerror(errno));
	ASSERT_EQ(0, td_ring_map(self->fd, 1, GR_RING, &self->ring));
	self->mapped = true;
	ASSERT_EQ(0, td_write_file(SIM_DIR "/capacity", "1 2"));
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	t_start = td_now_ns();
	pid = gr_worker(t_start + 2000000000ull);
	ASSERT_LT(0, pid);
	n = gr_collect(&self->ring, recs, 0, t_start + 1000000000ull);
	t_restore = td_now_ns();
	ASSERT_EQ(0, td_write_file(SIM_DIR "/capacity", "1 -1"));
	n = gr_collect(&self->ring, recs, n, t_start + 2000000000ull);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	ASSERT_EQ(0, cpu_stats(self->fd, 1, &st));
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_STOP));
	n += td_ring_drain(&self->ring, recs + n, GR_MAX_RECS - n);
	ASSERT_LT(0, n);
	/* Nothing dropped: every slice of the run is in the tally. */
	EXPECT_EQ(n, (int)(recs[n - 1].seq - recs[0].seq + 1))
		TH_LOG("seq %llu to %llu in %d records",
		       (unsigned long long)recs[0].seq, (unsigned long long)recs[n - 1].seq, n);
	td_grp_check(&cfg, recs, n, &sums);
	EXPECT_EQ(0, sums.bad) TH_LOG("%llu violations of the rotation rules",
				      (unsigned long long)sums.bad);
	gr_count(_metadata, &cfg, recs, n, pid, t_restore, &t);
	TH_LOG("CPU 1: %d records in %llu ms; first second: %ld group 1 slices flagged, "
	       "%ld group 0 slices clean, %ld changes; after room + 300 ms: group 1 %ld "
	       "clean, %ld flagged; worker %ld slices, %ld whole; STATUS error slices "
	       "%llu / %llu, recoveries %llu, retries %llu", n,
	       (unsigned long long)(td_now_ns() - t_start) / 1000000, t.flagged1, t.clean0,
	       t.changes, t.late_clean1, t.late_bad1, t.worker, t.whole,
	       (unsigned long long)st.grp_error_slices[0],
	       (unsigned long long)st.grp_error_slices[1],
	       (unsigned long long)st.recoveries, (unsigned long long)st.retries);
	EXPECT_EQ(0, t.bad);
	/* The CPU kept rotating while group 1 was in error. */
	EXPECT_LE(5, t.changes);
	EXPECT_LE(5, t.flagged1);
	EXPECT_LE(5, t.clean0);
	/* Recovered without STOP/START, and stays so. */
	EXPECT_LE(5, t.late_clean1);
	EXPECT_EQ(0, t.late_bad1);
	EXPECT_LE(100, t.worker);
	EXPECT_EQ(t.worker, t.whole);
	/* STATUS: group 1's error slices, group 0 none; group 1's counter came
	 * back at one of its turns: a retry that got a counter.
	 */
	EXPECT_EQ(0, st.grp_error_slices[0]);
	EXPECT_LE((uint64_t)t.flagged1, st.grp_error_slices[1]);
	EXPECT_LE(1, st.recoveries);
	EXPECT_LE(st.recoveries, st.retries);
	free(recs);
}

/* Shared by the victim on CPU 1 and the driver on CPU 0. */
static volatile int gap_phase;

struct gap_args {
	int fd;
	int holder;
};

/* On CPU 0: make CPU 1's counter go to ERROR and come back. */
static void *gap_driver(void *arg)
{
	struct gap_args *g = arg;

	td_pin_cpu(0);
	while (gap_phase < 1)
		usleep(100);
	/* Room for one event on CPU 1; the older holder gets it. */
	td_write_file(SIM_DIR "/capacity", "1 1");
	ioctl(g->holder, PERF_EVENT_IOC_ENABLE, 0);
	wait_ev_state(g->fd, 1, TOPDOWN_EVSTATE_ERROR, 5000);
	gap_phase = 2;		/* the task works while ours is in ERROR */
	while (gap_phase < 3)
		usleep(100);
	close(g->holder);
	td_write_file(SIM_DIR "/capacity", "1 -1");
	wait_ev_state(g->fd, 1, TOPDOWN_EVSTATE_COUNTING, 5000);
	gap_phase = 4;
	return NULL;
}

static void sim_work(int fd, unsigned int units)
{
	char b[16];
	int n = snprintf(b, sizeof(b), "%u", units);

	if (write(fd, b, n) != n)
		abort();
}

/*
 * Spin (no switch) until the driver reaches phase @p, at most until
 * @deadline (the attempt's start plus GAP_SPIN_NS): a SCHED_FIFO task
 * that spins longer is throttled, or starves CPU 1's per-CPU kthreads
 * (rcuc, irq_work, ksoftirqd on PREEMPT_RT), which is an RCU stall splat
 * after 21 s; if the driver's step needs one of them it never comes. On
 * timeout: back to SCHED_OTHER, sleep until the phase, return false (the
 * attempt switched, so it tests nothing).
 */
static bool wait_phase(int p, uint64_t deadline)
{
	struct sched_param other = { 0 };

	while (gap_phase < p)
		if (td_now_ns() > deadline) {
			sched_setscheduler(0, SCHED_OTHER, &other);
			while (gap_phase < p)
				usleep(1000);
			return false;
		}
	return true;
}

/*
 * A counter that goes to ERROR and comes back while its CPU does not
 * switch: an older pinned event (created disabled before START, as perf
 * stat -a -D does) is enabled on CPU 1, whose PMU has room for one event:
 * it takes the PMU, topdown's goes to ERROR; it is closed, and topdown's
 * retry brings ours back. A task on CPU 1 spins through all of it, doing
 * known work before (W1), during (W2, while the holder is on the PMU) and
 * after (W3) the gap. Before the fix the slice said W1 + W3 without the
 * error bit. Its slice
 * must not report a delta that spans the gap: "the slice in which a
 * counter came back reports 0 with the event's error bit set". If the
 * task switched meanwhile (nothing tested), the attempt is repeated.
 */
/* One attempt of the gap test, and what it saw. */
struct gap_try {
	bool spun;		/* the task never waited for a phase */
	long switches;		/* its switches from W1 to W3 */
	bool found;		/* its slice was in the ring */
	bool flagged;		/* with event 0's error bit */
	uint64_t delta;		/* and that delta */
	char ran[TOPDOWN_COMM_LEN];	/* a task that ran on CPU 1 meanwhile */
};

#define GAP_W1	1000u
#define GAP_W2	100000u
#define GAP_W3	10u
/*
 * The most td_gap spins through the phases, under the 950 ms of 1 s
 * that RT throttling lets a SCHED_FIFO task run (sched_rt_runtime_us): a
 * driver step that needs one of CPU 1's per-CPU kthreads otherwise ends
 * in a throttled switch, in every attempt (arm64 rt 5.10), not in a
 * stall.
 */
#define GAP_SPIN_NS	800000000ull

/*
 * START, a driver thread on CPU 0 (@on_cpu0), the task (on CPU 1,
 * SCHED_FIFO) doing W1, W2 in the gap, W3; STOP and find its slice.
 */
static void gap_attempt(struct __test_metadata *_metadata, int fd, struct td_ring *ring,
			struct perf_event_attr *a, int work, pthread_attr_t *on_cpu0,
			struct gap_try *t)
{
	struct sched_param fifo = { .sched_priority = 1 }, other = { 0 };
	static struct topdown_record recs[NREC];
	int holder = syscall(SYS_perf_event_open, a, -1, 1, -1, 0), n;
	pid_t tid = gettid();
	struct gap_args ga;
	long sw0, sw1;
	uint64_t t0, t1;
	pthread_t th;

	memset(t, 0, sizeof(*t));
	ASSERT_LE(0, holder) TH_LOG("perf_event_open on td_pmusim: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, TOPDOWN_IOC_START));
	ASSERT_EQ(0, wait_ev_state(fd, 1, TOPDOWN_EVSTATE_COUNTING, 5000));
	gap_phase = 0;
	ga.fd = fd;
	ga.holder = holder;
	ASSERT_EQ(0, pthread_create(&th, on_cpu0, gap_driver, &ga));
	prctl(PR_SET_NAME, "td_gap");
	/* Real-time: no other task (a kworker) preempts it on CPU 1. */
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_FIFO, &fifo));
	usleep(2000);		/* a fresh slice */
	t0 = td_now_ns();
	sw0 = thread_switches();
	sim_work(work, GAP_W1);
	gap_phase = 1;		/* driver: the holder takes the PMU */
	t->spun = wait_phase(2, t0 + GAP_SPIN_NS);
	sim_work(work, GAP_W2);	/* ours in ERROR, the holder on the PMU */
	gap_phase = 3;		/* driver: close the holder, wait for the retry */
	t->spun = wait_phase(4, t0 + GAP_SPIN_NS) && t->spun;
	sim_work(work, GAP_W3);
	sw1 = thread_switches();
	t1 = td_now_ns();
	usleep(2000);		/* the slice ends */
	sched_setscheduler(0, SCHED_OTHER, &other);
	prctl(PR_SET_NAME, "counters_test");
	pthread_join(th, NULL);
	ASSERT_EQ(0, ioctl(fd, TOPDOWN_IOC_STOP));
	n = td_ring_drain(ring, recs, NREC);
	t->switches = sw1 - sw0;
	/* Who else ran on CPU 1 while td_gap spun (for the log). */
	for (int i = 0; i < n && !t->ran[0]; i++)
		if (recs[i].pid != (uint32_t)tid &&
		    recs[i].time_ns - recs[i].duration_ns > t0 && recs[i].time_ns < t1)
			memcpy(t->ran, recs[i].comm, sizeof(t->ran));
	for (int i = 0; i < n && !t->found; i++) {
		if (recs[i].pid != (uint32_t)tid || recs[i].time_ns < t0 ||
		    strcmp(recs[i].comm, "td_gap"))
			continue;
		t->flagged = recs[i].flags & (1u << 0);	/* event 0 */
		t->delta = recs[i].delta[0];
		t->found = true;
	}
}

TEST_F_TIMEOUT(sim, error_gap_without_switch_is_flagged, 300)
{
	struct perf_event_attr a = { .size = sizeof(a), .pinned = 1, .disabled = 1 };
	pthread_attr_t on_cpu0;
	struct gap_try t = { 0 };
	int attempts = 0, stalled = 0, work;
	long switched = 0;
	cpu_set_t cpu0;

	td_write_file(TD_PARAMS "/retry_max_ms", "40");
	a.type = self->type;
	work = open(SIM_DIR "/work", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, work);
	/* The driver starts on CPU 0: CPU 1 is the spinning task's alone. */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	ASSERT_EQ(0, pthread_attr_init(&on_cpu0));
	ASSERT_EQ(0, pthread_attr_setaffinity_np(&on_cpu0, sizeof(cpu0), &cpu0));
	ASSERT_EQ(0, td_pin_cpu(1));
	while (attempts++ < 10) {
		gap_attempt(_metadata, self->fd, &self->ring, &a, work, &on_cpu0, &t);
		stalled += !t.spun;
		/* Switched (or waited): the probe saw the gap; again. */
		if (!t.switches && t.spun && t.found)
			break;
		switched += t.switches;
		if (t.switches || !t.spun)
			TH_LOG("attempt %d: %ld switches, %s; on CPU 1 meanwhile: %.16s",
			       attempts, t.switches, t.spun ? "never waited" : "stalled",
			       t.ran[0] ? t.ran : "(no record)");
		t.found = false;
	}
	close(work);
	pthread_attr_destroy(&on_cpu0);
	td_write_file(TD_PARAMS "/retry_max_ms", "60000");
	if (!t.found && stalled == attempts - 1)
		SKIP(return, "the driver on CPU 0 never got past a phase while td_gap spun at "
		     "SCHED_FIFO on CPU 1 (%d attempts, 0.8 s each): its step needs a per-CPU "
		     "kthread of CPU 1 on this kernel", stalled);
	if (!t.found && td_preempt_rt())
		SKIP(return, "PREEMPT_RT: td_gap switched in every attempt (%d, %ld switches, %d "
		     "stalled, logged above): on arm64 rt 5.10 it slept with no other task on "
		     "CPU 1, or the driver's step came only after it stopped spinning",
		     attempts - 1, switched, stalled);
	ASSERT_TRUE(t.found) TH_LOG("no switch-free attempt in %d (%ld switches, %d stalled)",
				    attempts - 1, switched, stalled);
	TH_LOG("attempt %d: the slice of W1 %u + W2 %u (in the gap) + W3 %u units: delta %llu, "
	       "error bit %s", attempts, GAP_W1, GAP_W2, GAP_W3, (unsigned long long)t.delta,
	       t.flagged ? "set" : "clear");
	/* Never the work around the gap as if nothing had happened. */
	EXPECT_TRUE(t.flagged);
	EXPECT_EQ(0, t.delta);
}

/* ---- PREEMPTED with a signal pending ---------------------------------- */

#define SIGSLEEP	"/sys/kernel/debug/td_pmusim/sigsleep"

static volatile int hog_stop;

static void *hog(void *arg)
{
	td_pin_cpu(0);
	while (!hog_stop)
		;
	return NULL;
}

static void on_usr1(int sig)
{
}

static long voluntary_switches(void)
{
	FILE *f = fopen("/proc/thread-self/status", "r");
	char line[256];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

TEST_F_TIMEOUT(dev, preempted_when_signal_keeps_task_runnable, 300)
{
	struct topdown_record *recs = calloc(NREC, sizeof(*recs));
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct topdown_config cfg;
	struct td_ring ring;
	uint64_t t0, t1;
	long v0, v1;
	pthread_t th;
	int sfd, n, mine = 0, unflagged = 0;
	pid_t tid = gettid();
	bool loaded;

	ASSERT_NE(NULL, recs);
	loaded = access("/sys/module/td_pmusim", F_OK) != 0;
	if (td_load_pmusim())
		SKIP(return, "td_pmusim.ko not loadable");
	sfd = open(SIGSLEEP, O_WRONLY | O_CLOEXEC);
	if (sfd < 0)
		SKIP(return, "no %s (debugfs not mounted?)", SIGSLEEP);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, td_pin_cpu(0));
	ASSERT_EQ(0, setpriority(PRIO_PROCESS, tid, 19));
	td_cfg_sw(&cfg, RING);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, td_ring_map(self->fd, 0, RING, &ring));
	hog_stop = 0;
	ASSERT_EQ(0, pthread_create(&th, NULL, hog, NULL));
	usleep(10000);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));

	/*
	 * Whether the writer loses the pick depends on the scheduler's
	 * accounting at that moment: retry (at most 20 writes) until it has.
	 */
	v0 = voluntary_switches();
	t0 = td_now_ns();
	for (int k = 0; k < 20; k++) {
		ASSERT_EQ(3, write(sfd, "50\n", 3));
		if (voluntary_switches() > v0)
			break;
	}
	t1 = td_now_ns();
	v1 = voluntary_switches();
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_STOP));
	hog_stop = 1;
	pthread_join(th, NULL);
	close(sfd);

	n = td_ring_drain(&ring, recs, NREC);
	for (int i = 0; i < n; i++) {
		const struct topdown_record *r = &recs[i];

		if (r->pid != (uint32_t)tid || r->time_ns < t0 || r->time_ns > t1)
			continue;
		mine++;
		if (!(r->flags & TOPDOWN_REC_PREEMPTED))
			unflagged++;
	}
	td_ring_unmap(&ring);
	if (loaded)
		syscall(SYS_delete_module, "td_pmusim", O_NONBLOCK);
	TH_LOG("%ld voluntary switches in the sigsleep write, %d slices of the writer, %d not "
	       "flagged PREEMPTED",
	       v1 - v0, mine, unflagged);
	/* The scenario happened: schedule() with the signal pending switched. */
	ASSERT_LT(0, v1 - v0) TH_LOG("the writer never lost the pick: nothing tested");
	EXPECT_EQ(0, unflagged);
	free(recs);
}

/* ---- STOP and CONFIGURE latency ----------------------------------------- */

static uint64_t median(uint64_t *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[n / 2];
}

/*
 * One RCU grace period as user space can wait for it: MEMBARRIER_CMD_GLOBAL
 * is synchronize_rcu() when more than one CPU is online.
 */
static int64_t grace_period_ns(void)
{
	uint64_t v[7];

	for (int i = 0; i < 7; i++) {
		uint64_t t = td_now_ns();

		if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
			return -1;
		v[i] = td_now_ns() - t;
	}
	return median(v, 7);
}

TEST_F_TIMEOUT(dev, stop_and_configure_latency, 300)
{
	uint64_t stop[7], conf[7], gp, bound, ms, mc;
	struct topdown_config cfg;
	int nr = td_nr_cpus(self->fd);
	int64_t g;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU online: membarrier does not wait for a grace period");
	g = grace_period_ns();
	if (g < 0 && errno == ENOSYS)
		SKIP(return, "no membarrier() in this kernel (CONFIG_MEMBARRIER off): no grace "
			     "period to compare with");
	ASSERT_LT(0, g);
	gp = g;
	td_cfg_sw(&cfg, RING);
	for (int i = 0; i < 7; i++) {
		uint64_t t;

		/*
		 * The first CONFIGURE after a STOP waits for the probe's
		 * tracepoint to be unregistered for good (RCU, by design);
		 * the second one only swaps the rings.
		 */
		ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
		t = td_now_ns();
		ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
		conf[i] = td_now_ns() - t;
		ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
		switch_some(5);
		t = td_now_ns();
		ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_STOP));
		stop[i] = td_now_ns() - t;
	}
	ms = median(stop, 7);
	mc = median(conf, 7);
	/*
	 * Neither STOP nor a CONFIGURE that only swaps the rings has to wait
	 * for a grace period: IPIs, the hotplug state, vmalloc. One grace
	 * period and 10 ms leave room for that; waiting for one grace period
	 * per possible CPU (irq_work_sync() on PREEMPT_RT: two or more) does
	 * not fit.
	 */
	bound = gp + 10000000ull;
	TH_LOG("%d possible CPUs, grace period %llu us, STOP %llu us, CONFIGURE %llu us (bound "
	       "%llu us)",
	       nr, (unsigned long long)gp / 1000, (unsigned long long)ms / 1000,
	       (unsigned long long)mc / 1000, (unsigned long long)bound / 1000);
	td_count("stop_us", ms / 1000);
	td_count("configure_us", mc / 1000);
	td_count("grace_period_us", gp / 1000);
	EXPECT_GE(bound, ms);
	EXPECT_GE(bound, mc);
}

TEST_HARNESS_MAIN
