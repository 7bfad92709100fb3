// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug during collection (TAP output; run in a guest with 4 vCPUs).
 *
 *   1. With collection running and a reader draining, CPUs 1..N-1 go
 *      offline and online in turn: while a CPU is offline STATUS shows it
 *      neither online nor counting and its ring gets no record; when it
 *      returns it is counting again (its counters were recreated), its
 *      first record carries TOPDOWN_REC_FIRST, and a task pinned to it is
 *      recorded there with the sequence continuing without a gap.
 *   2. START with a CPU offline, then bring it online: it starts counting.
 *      STOP with a CPU offline, START, online: counting everywhere.
 *   3. START/STOP in a loop in one thread while another takes CPUs offline
 *      and online at random: no deadlock, a consistent state afterwards.
 *   4. The same offline/online cycles and the same race with a tracepoint
 *      event (PERF_TYPE_TRACEPOINT, sched:sched_switch) in the set. Creating
 *      such an event takes event_mutex and then cpu_hotplug_lock; the
 *      module once created counters in its CPU-online callback, under
 *      cpu_hotplug_lock, which lockdep reported as a possible deadlock (the
 *      debug kernel of make check-debug fails on such a report). The event
 *      counts context switches on its CPU, so every slice that is not a
 *      CPU's first must show exactly 1. The module refuses tracepoint
 *      events; its test build (topdown_hooks.ko, which guest_load.sh loads
 *      for this test) accepts the type its parameter test_pmu_type names,
 *      which this section sets for its own run.
 *   5. The module's totals (TOPDOWN_CONFIG_TOTALS) across offline/online
 *      cycles, with every record kept (a reader drains, none lost): each
 *      task's entry holds exactly the sums of its records (slices, time,
 *      unmeasured time, the event's deltas), whether the task's slices
 *      were on a CPU that went away or not; meanwhile another thread
 *      reads the totals (TOPDOWN_IOC_TOTALS) in a loop and every entry it
 *      gets is whole: its time is its measured time plus its unmeasured
 *      time. Those reads let new tasks take the entries of exited ones
 *      they read (the UAPI header's "reclaimed"), whose sums go to the
 *      claiming CPU's OTHER entry: so each OTHER entry holds at least its
 *      CPU's idle records, and all of them together exactly the idle
 *      records and those of the tasks without an entry, one such task
 *      per entry reclaimed.
 *
 * A CPU coming online is armed by a work item shortly after its online
 * callback, not within it (td_counters.c): the test waits for it to count,
 * at most TD_HP_ARM_MS, and reports the longest wait.
 *
 * Nothing leaked: the guest script unloads the module afterwards (and the
 * debug kernel's kmemleak scan runs after the suite).
 * Environment: TD_HP_CYCLES (24), TD_HP_SECS (60), TD_HP_RACE_SECS (8),
 * TD_HP_ARM_MS (10000), TD_HP_TP_CYCLES (8), TD_HP_TOT_CYCLES (8).
 * Figures: "# COUNT hotplug_cycles N", "# COUNT hotplug_race_cycles N",
 * "# COUNT hotplug_arm_wait_ms_max N", "# COUNT hotplug_tp_slices N",
 * "# COUNT hotplug_totals_reads N".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/topdown.h>

#include "kselftest.h"
#include "td_common.h"

#define MAXCPU	16
#define RING	(1u << 18)

static int fd, ncpu;
static long arm_ms;
static uint64_t arm_wait_max_ns;
static struct td_ring rings[MAXCPU];
static uint64_t next_seq[MAXCPU], gaps[MAXCPU], foreign[MAXCPU];
static atomic_int stop_load;

static bool can_hotplug(int cpu)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return access(path, W_OK) == 0;
}

/*
 * Drain every ring through td_ring_drain(), calling fn for each record
 * with the CPU whose ring held it.
 */
static void drain_each(void (*fn)(int cpu, const struct topdown_record *rec,
				  void *arg), void *arg)
{
	static struct topdown_record batch[256];
	const int max = sizeof(batch) / sizeof(batch[0]);

	for (int cpu = 0; cpu < ncpu; cpu++) {
		int n;

		do {
			n = td_ring_drain(&rings[cpu], batch, max);
			for (int i = 0; i < n; i++)
				fn(cpu, &batch[i], arg);
		} while (n == max);
	}
}

struct drain_check {
	uint64_t *last_flags;
	pid_t *last_pid;
};

static void check_record(int cpu, const struct topdown_record *rec, void *arg)
{
	struct drain_check *d = arg;

	if (rec->cpu != (uint32_t)cpu)
		foreign[cpu]++;
	if (rec->seq != next_seq[cpu])
		gaps[cpu] += rec->seq - next_seq[cpu];
	next_seq[cpu] = rec->seq + 1;
	if (d->last_flags)
		d->last_flags[cpu] |= rec->flags;
	if (d->last_pid && rec->pid == (uint32_t)d->last_pid[cpu])
		d->last_pid[cpu] = -1;	/* seen */
}

/* Drain every ring; count sequence gaps and records naming another CPU. */
static void drain(uint64_t *last_flags, pid_t *last_pid)
{
	struct drain_check d = { last_flags, last_pid };

	drain_each(check_record, &d);
}

static int cpu_flags(int cpu)
{
	struct topdown_cpu_stats stats[MAXCPU];
	struct topdown_status st;

	if (td_status(fd, &st, stats, MAXCPU) || cpu >= (int)st.nr_stats)
		return -1;
	return stats[cpu].flags;
}

/*
 * Flags of a CPU that has just come online, once it counts: it is armed
 * asynchronously. Gives up after arm_ms and returns the flags it saw.
 */
static int wait_counting(int cpu)
{
	uint64_t t0 = td_now_ns(), end = t0 + arm_ms * 1000000ull;
	int f;

	for (;;) {
		f = cpu_flags(cpu);
		if (f >= 0 && (f & TOPDOWN_CPU_COUNTING))
			break;
		if (td_now_ns() >= end)
			return f;
		usleep(1000);
	}
	if (td_now_ns() - t0 > arm_wait_max_ns)
		arm_wait_max_ns = td_now_ns() - t0;
	return f;
}

/* Unpinned sleepers: context switches on every online CPU. */
static void *load(void *arg)
{
	while (!atomic_load(&stop_load))
		usleep(1000);
	return NULL;
}

struct pinned {
	int cpu;
	pid_t tid;
	int ok;
};

static void *pinned_sleeper(void *arg)
{
	struct pinned *p = arg;

	p->tid = syscall(SYS_gettid);
	p->ok = td_pin_cpu(p->cpu) == 0;
	for (int i = 0; i < 5; i++)
		usleep(1000);
	return NULL;
}

static bool all_online(void)
{
	for (int cpu = 1; cpu < ncpu; cpu++)
		if (can_hotplug(cpu) && td_set_online(cpu, 1))
			return false;
	return true;
}

static atomic_int race_stop;
static atomic_ulong race_start_stop;

static void *start_stop_loop(void *arg)
{
	while (!atomic_load(&race_stop)) {
		ioctl(fd, TOPDOWN_IOC_START);
		usleep(1000);
		ioctl(fd, TOPDOWN_IOC_STOP);
		atomic_fetch_add(&race_start_stop, 1);
	}
	return NULL;
}

/*
 * Take random hotplug CPUs offline and back online until `end`, while
 * start_stop_loop() STARTs and STOPs; each(arg), if given, after every
 * round. Then STOP. Returns the offline/online cycles; *ok stays true if
 * every CPU came back, all are online and none counts after the STOP.
 */
static int race_hotplug(const int *hp, int nhp, uint64_t *seed, uint64_t end,
			void (*each)(void *arg), void *arg, bool *ok)
{
	struct topdown_cpu_stats stats[MAXCPU];
	struct topdown_status st;
	int cycles = 0;
	pthread_t t;

	atomic_store(&race_stop, 0);
	pthread_create(&t, NULL, start_stop_loop, NULL);
	while (td_now_ns() < end) {
		int cpu = hp[td_rand_below(seed, nhp)];

		if (td_set_online(cpu, 0) == 0) {
			usleep(td_rand_below(seed, 3000));
			if (td_set_online(cpu, 1))
				*ok = false;
			cycles++;
		}
		if (each)
			each(arg);
	}
	atomic_store(&race_stop, 1);
	pthread_join(t, NULL);
	*ok &= all_online();
	ioctl(fd, TOPDOWN_IOC_STOP);
	*ok &= td_status(fd, &st, stats, MAXCPU) == 0;
	for (unsigned int i = 0; *ok && i < st.nr_stats && i < MAXCPU; i++)
		*ok &= !(stats[i].flags & TOPDOWN_CPU_COUNTING);
	return cycles;
}

struct tp_check {
	uint64_t slices, first, bad;
};

static void check_tp_record(int cpu, const struct topdown_record *rec,
			    void *arg)
{
	struct tp_check *t = arg;

	if (rec->cpu != (uint32_t)cpu ||
	    (rec->flags & TOPDOWN_REC_ERROR_MASK) ||
	    (!(rec->flags & TOPDOWN_REC_FIRST) && rec->delta[1] != 1)) {
		if (t->bad++ < 5)
			printf("# cpu %d seq %llu: cpu %u flags %#x, "
			       "sched_switch delta %llu\n", cpu,
			       (unsigned long long)rec->seq, rec->cpu,
			       rec->flags, (unsigned long long)rec->delta[1]);
	} else if (rec->flags & TOPDOWN_REC_FIRST) {
		t->first++;
	} else {
		t->slices++;
	}
}

/*
 * Drain every ring of a collection whose event 1 counts sched_switch: a
 * slice that is not its CPU's first after arming must count exactly one
 * switch (the one that ended the previous slice or this one, depending on
 * the order of the tracepoint's probes, but always one).
 */
static void drain_tp(struct tp_check *t)
{
	drain_each(check_tp_record, t);
}

/* 4. Hotplug and START/STOP racing hotplug, with a tracepoint event. */
static void drain_tp_cb(void *t)
{
	drain_tp(t);
}

#define TP_PARAM	"/sys/module/topdown/parameters/test_pmu_type"

static void tp_section(const int *hp, int nhp, long cycles, long race_secs,
		       unsigned long *slices)
{
	uint64_t seed = 11, end;
	long id = td_sched_switch_id();
	struct topdown_config c;
	struct tp_check t = { 0 };
	int done = 0, bad_online = 0, race = 0;
	unsigned long race_ss;
	pthread_t lt[4];
	bool ok = true;

	if (id < 0) {
		ksft_test_result_skip("no sched:sched_switch trace event (tracefs)\n");
		ksft_test_result_skip("no sched:sched_switch trace event (tracefs)\n");
		return;
	}
	/*
	 * topdown refuses tracepoint events; its test-only parameter lets
	 * this one through, to keep the lock chain above exercised.
	 */
	if (td_write_file(TP_PARAM, "2")) {
		ksft_test_result(false, "tracepoint event: cannot set %s (not the test build "
				 "topdown_hooks.ko?)\n", TP_PARAM);
		ksft_test_result(false, "tracepoint event: not run\n");
		return;
	}
	td_cfg_sw(&c, RING);
	c.nr_events = 2;
	c.events[1].type = PERF_TYPE_TRACEPOINT;
	c.events[1].config = id;
	strcpy(c.events[1].name, "sched_switch");
	ok &= ioctl(fd, TOPDOWN_IOC_CONFIGURE, &c) == 0;
	for (int cpu = 0; ok && cpu < ncpu; cpu++)
		ok &= td_ring_map(fd, cpu, RING, &rings[cpu]) == 0;
	if (!ok) {
		ksft_test_result_fail("tracepoint event: configure and map: %s\n",
				      strerror(errno));
		ksft_test_result(false, "tracepoint event: not run\n");
		td_write_file(TP_PARAM, "-1");
		return;
	}
	atomic_store(&stop_load, 0);
	for (int i = 0; i < 4; i++)
		pthread_create(&lt[i], NULL, load, NULL);

	ok = ioctl(fd, TOPDOWN_IOC_START) == 0;
	if (!ok)
		printf("# tracepoint event: start: %s\n", strerror(errno));
	for (long i = 0; ok && i < cycles; i++) {
		int cpu = hp[i % nhp], f;

		if (td_set_online(cpu, 0) || td_set_online(cpu, 1)) {
			bad_online++;
			continue;
		}
		f = wait_counting(cpu);
		if (f < 0 || !(f & TOPDOWN_CPU_COUNTING)) {
			printf("# tracepoint event: cpu %d back online but flags %#x\n", cpu, f);
			bad_online++;
		}
		usleep(10000);
		drain_tp(&t);
		done++;
	}
	ok &= ioctl(fd, TOPDOWN_IOC_STOP) == 0;
	drain_tp(&t);
	ksft_test_result(ok && done == cycles && !bad_online && !t.bad && t.slices > 0,
			 "%d offline/online cycles with a tracepoint event (sched:sched_switch) in "
			 "the set: back online counting (%d bad), %llu slices counted exactly one "
			 "switch, %llu did not\n", done, bad_online, (unsigned long long)t.slices,
			 (unsigned long long)t.bad);

	*slices = t.slices;
	memset(&t, 0, sizeof(t));
	ok = true;
	race_ss = atomic_load(&race_start_stop);
	end = td_now_ns() + race_secs * 1000000000ull;
	race = race_hotplug(hp, nhp, &seed, end, drain_tp_cb, &t, &ok);
	race_ss = atomic_load(&race_start_stop) - race_ss;
	drain_tp(&t);
	ksft_test_result(ok && race > 0 && !t.bad,
			 "tracepoint event: %d offline/online cycles racing %lu start/stop cycles: "
			 "no hang, nothing counting after stop, %llu slices counted exactly one "
			 "switch, %llu did not\n", race, race_ss, (unsigned long long)t.slices,
			 (unsigned long long)t.bad);

	atomic_store(&stop_load, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(lt[i], NULL);
	for (int cpu = 0; cpu < ncpu; cpu++)
		td_ring_unmap(&rings[cpu]);
	*slices += t.slices;
	td_write_file(TP_PARAM, "-1");
}

/* 5. Totals across hotplug. */

#define TOT_RING	(1u << 20)
#define TOT_PIDS	8192	/* a power of two */

/* The sums of one task's records, or of one CPU's idle records. */
struct tot_sum {
	uint32_t pid;		/* 0: free (tasks) */
	uint64_t slices, measured, time_ns, unmeasured_ns, delta;
};

struct tot_check {
	struct tot_sum task[TOT_PIDS];
	struct tot_sum idle[MAXCPU];
	uint64_t records, full;	/* full: no slot for a pid */
};

static void tot_add(struct tot_sum *s, const struct topdown_record *rec)
{
	s->slices++;
	s->time_ns += rec->duration_ns;
	if (rec->flags & (TOPDOWN_REC_ERROR_MASK | TOPDOWN_REC_ROTATED)) {
		s->unmeasured_ns += rec->duration_ns;
	} else {
		s->measured++;
		s->delta += rec->delta[0];
	}
}

static void tot_add_sum(struct tot_sum *to, const struct tot_sum *s)
{
	to->slices += s->slices;
	to->measured += s->measured;
	to->time_ns += s->time_ns;
	to->unmeasured_ns += s->unmeasured_ns;
	to->delta += s->delta;
}

static struct tot_sum *tot_task(struct tot_check *t, uint32_t pid)
{
	for (uint32_t n = 0, i = pid & (TOT_PIDS - 1); n < TOT_PIDS;
	     n++, i = (i + 1) & (TOT_PIDS - 1)) {
		if (t->task[i].pid == pid)
			return &t->task[i];
		if (!t->task[i].pid) {
			t->task[i].pid = pid;
			return &t->task[i];
		}
	}
	return NULL;
}

static void tot_record(int cpu, const struct topdown_record *rec, void *arg)
{
	struct tot_check *t = arg;
	struct tot_sum *s;

	t->records++;
	if (rec->flags & TOPDOWN_REC_IDLE)
		s = &t->idle[cpu];
	else
		s = tot_task(t, rec->pid);
	if (s)
		tot_add(s, rec);
	else
		t->full++;
}

static void tot_drain_cb(void *t)
{
	drain_each(tot_record, t);
}

/* TOPDOWN_IOC_TOTALS into @e (@cap entries): 0 or -errno. */
static int tot_read(int dev, struct topdown_totals *q, struct topdown_total *e,
		    uint32_t cap)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->nr_entries = cap;
	q->entry_size = sizeof(*e);
	q->entries_ptr = (uintptr_t)e;
	return ioctl(dev, TOPDOWN_IOC_TOTALS, q) ? -errno : 0;
}

/*
 * An entry read while its task runs is whole: one group, so its time is
 * the group's time plus the time no group measured, and its slices the
 * group's plus the unmeasured ones (at least the group's).
 */
static bool tot_whole(const struct topdown_total *e)
{
	return e->time_ns == e->grp_time_ns[0] + e->unmeasured_ns &&
	       e->slices >= e->grp_slices[0];
}

struct tot_reader {
	atomic_int stop;
	uint32_t cap;
	unsigned long reads, torn, failed;
};

static void *tot_reader(void *arg)
{
	struct tot_reader *r = arg;
	struct topdown_total *e = calloc(r->cap, sizeof(*e));
	struct topdown_totals q;
	int dev = open(TOPDOWN_DEVICE, O_RDONLY);

	if (!e || dev < 0) {
		r->failed++;
		goto out;
	}
	while (!atomic_load(&r->stop)) {
		if (tot_read(dev, &q, e, r->cap)) {
			r->failed++;
			break;
		}
		r->reads++;
		for (uint32_t i = 0; i < q.nr_entries; i++)
			if (!tot_whole(&e[i]) && r->torn++ < 5)
				printf("# totals read %lu: entry %u (pid %u) not whole: "
				       "%llu ns, %llu measured + %llu unmeasured\n",
				       r->reads, i, e[i].pid,
				       (unsigned long long)e[i].time_ns,
				       (unsigned long long)e[i].grp_time_ns[0],
				       (unsigned long long)e[i].unmeasured_ns);
		usleep(2000);
	}
out:
	if (dev >= 0)
		close(dev);
	free(e);
	return NULL;
}

/* One entry against the sums of its records; false, said, if they differ. */
static bool tot_same(const char *who, const struct topdown_total *e,
		     const struct tot_sum *s)
{
	bool same = e->slices == s->slices && e->time_ns == s->time_ns &&
		    e->unmeasured_ns == s->unmeasured_ns &&
		    e->grp_slices[0] == s->measured &&
		    e->grp_time_ns[0] == s->time_ns - s->unmeasured_ns &&
		    e->grp_delta[0][0] == s->delta;

	if (!same)
		printf("# %s: totals %llu slices, %llu ns (%llu unmeasured), delta %llu; "
		       "records %llu slices, %llu ns (%llu unmeasured), delta %llu\n", who,
		       (unsigned long long)e->slices, (unsigned long long)e->time_ns,
		       (unsigned long long)e->unmeasured_ns,
		       (unsigned long long)e->grp_delta[0][0],
		       (unsigned long long)s->slices, (unsigned long long)s->time_ns,
		       (unsigned long long)s->unmeasured_ns, (unsigned long long)s->delta);
	return same;
}

static void totals_section(const int *hp, int nhp, long cycles, unsigned long *reads)
{
	struct tot_check *t = calloc(1, sizeof(*t));
	struct topdown_cpu_stats stats[MAXCPU];
	struct tot_reader r = { .cap = MAXCPU + TOPDOWN_TOTALS_DEFAULT_TASKS };
	struct topdown_total *e = calloc(r.cap, sizeof(*e));
	struct topdown_totals q;
	struct topdown_status st = { 0 };
	struct topdown_config c;
	uint64_t lost = 0;
	int done = 0, bad = 0, err, nr_tasks = 0, differ = 0, folded = 0;
	struct tot_sum other = { 0 }, idle = { 0 }, gone = { 0 };
	pthread_t lt[4], rt;
	bool ok = t && e;

	td_cfg_sw(&c, TOT_RING);
	c.flags |= TOPDOWN_CONFIG_TOTALS;
	ok = ok && ioctl(fd, TOPDOWN_IOC_CONFIGURE, &c) == 0;
	for (int cpu = 0; ok && cpu < ncpu; cpu++)
		ok &= td_ring_map(fd, cpu, TOT_RING, &rings[cpu]) == 0;
	if (!ok) {
		ksft_test_result_fail("totals: configure and map: %s\n", strerror(errno));
		ksft_test_result(false, "totals: concurrent reads not run\n");
		goto out;
	}
	atomic_store(&stop_load, 0);
	for (int i = 0; i < 4; i++)
		pthread_create(&lt[i], NULL, load, NULL);
	ok = ioctl(fd, TOPDOWN_IOC_START) == 0;
	pthread_create(&rt, NULL, tot_reader, &r);
	for (long i = 0; ok && i < cycles; i++) {
		int cpu = hp[i % nhp], f;
		struct pinned p = { .cpu = cpu };
		pthread_t pt;

		tot_drain_cb(t);
		if (td_set_online(cpu, 0) || td_set_online(cpu, 1)) {
			bad++;
			continue;
		}
		f = wait_counting(cpu);
		if (f < 0 || !(f & TOPDOWN_CPU_COUNTING))
			bad++;
		/* A task that lives and dies on the CPU that came back. */
		pthread_create(&pt, NULL, pinned_sleeper, &p);
		pthread_join(pt, NULL);
		tot_drain_cb(t);
		done++;
	}
	atomic_store(&r.stop, 1);
	pthread_join(rt, NULL);
	atomic_store(&stop_load, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(lt[i], NULL);
	ok &= ioctl(fd, TOPDOWN_IOC_STOP) == 0;
	tot_drain_cb(t);
	ok &= td_status(fd, &st, stats, MAXCPU) == 0;
	for (unsigned int i = 0; i < st.nr_stats && i < MAXCPU; i++)
		lost += stats[i].lost;
	err = tot_read(fd, &q, e, r.cap);
	ok &= !err && q.no_room == 0 && !t->full;
	if (err)
		printf("# totals: TOPDOWN_IOC_TOTALS: %s\n", strerror(-err));
	for (uint32_t i = 0; !err && i < q.nr_entries; i++) {
		char who[64];
		struct tot_sum *s;

		if (e[i].kind == TOPDOWN_TOTAL_OTHER) {
			if (e[i].cpu >= MAXCPU)
				continue;
			s = &t->idle[e[i].cpu];
			/* At least the CPU's idle records. */
			if (e[i].slices < s->slices || e[i].time_ns < s->time_ns) {
				printf("# cpu %u: OTHER %llu slices, %llu ns; idle records "
				       "%llu, %llu ns\n", e[i].cpu,
				       (unsigned long long)e[i].slices,
				       (unsigned long long)e[i].time_ns,
				       (unsigned long long)s->slices,
				       (unsigned long long)s->time_ns);
				differ++;
			}
			other.slices += e[i].slices;
			other.time_ns += e[i].time_ns;
			other.unmeasured_ns += e[i].unmeasured_ns;
			other.delta += e[i].grp_delta[0][0];
			tot_add_sum(&idle, s);
			continue;
		}
		nr_tasks++;
		snprintf(who, sizeof(who), "pid %u (%.16s)", e[i].pid, e[i].comm);
		s = tot_task(t, e[i].pid);
		if (!s) {		/* t->full: said below */
			differ++;
			break;
		}
		if (!tot_same(who, &e[i], s) && differ++ > 10)
			break;
		/* Met: a second entry of the pid would differ. */
		memset(&s->slices, 0, sizeof(*s) - offsetof(struct tot_sum, slices));
	}
	/* The tasks without an entry: folded, their sums in OTHER entries. */
	for (int i = 0; !err && i < TOT_PIDS; i++)
		if (t->task[i].pid && t->task[i].slices) {
			folded++;
			tot_add_sum(&gone, &t->task[i]);
		}
	tot_add_sum(&idle, &gone);
	if (!err && (other.slices != idle.slices || other.time_ns != idle.time_ns ||
		     other.unmeasured_ns != idle.unmeasured_ns || other.delta != idle.delta ||
		     (uint64_t)folded != q.reclaimed)) {
		printf("# OTHER entries: %llu slices, %llu ns, delta %llu; idle records and "
		       "%d tasks without an entry: %llu slices, %llu ns, delta %llu; "
		       "%llu reclaimed\n", (unsigned long long)other.slices,
		       (unsigned long long)other.time_ns, (unsigned long long)other.delta,
		       folded, (unsigned long long)idle.slices,
		       (unsigned long long)idle.time_ns, (unsigned long long)idle.delta,
		       (unsigned long long)q.reclaimed);
		differ++;
	}
	ksft_test_result(ok && done == cycles && !bad && !lost && !differ,
			 "totals across %d offline/online cycles: %d task entries equal the sums "
			 "of their records; the %u CPUs' OTHER entries those of the idle records "
			 "and of the %d tasks whose entries were reclaimed (%llu); %llu records "
			 "(%d differ, %llu lost, %d bad cycles, no_room %llu)\n", done, nr_tasks,
			 err ? 0 : st.nr_cpus, folded, err ? 0ull : (unsigned long long)q.reclaimed,
			 (unsigned long long)t->records, differ, (unsigned long long)lost, bad,
			 err ? 0ull : (unsigned long long)q.no_room);
	ksft_test_result(r.reads > 0 && !r.torn && !r.failed,
			 "totals read %lu times during the cycles: every entry whole (%lu "
			 "torn, %lu failed reads)\n", r.reads, r.torn, r.failed);
	*reads = r.reads;
	for (int cpu = 0; cpu < ncpu; cpu++)
		td_ring_unmap(&rings[cpu]);
out:
	free(e);
	free(t);
}

int main(void)
{
	long cycles = td_env_long("TD_HP_CYCLES", 24);
	long secs = td_env_long("TD_HP_SECS", 60);
	long race_secs = td_env_long("TD_HP_RACE_SECS", 8);
	long tp_cycles = td_env_long("TD_HP_TP_CYCLES", 8);
	long tot_cycles = td_env_long("TD_HP_TOT_CYCLES", 8);
	unsigned long tp_slices = 0, tot_reads = 0;
	int hp[MAXCPU], nhp = 0, done = 0, bad_offline = 0, bad_online = 0;
	int bad_first = 0, bad_pinned = 0, race_cycles = 0;
	uint64_t deadline, t0;
	struct topdown_config c;
	pthread_t lt[4];

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	fd = open(TOPDOWN_DEVICE, O_RDWR);
	if (fd < 0) {
		ksft_set_plan(1);
		ksft_test_result(false, "hotplug: open: %s\n", strerror(errno));
		return ksft_exit_fail();
	}
	ioctl(fd, TOPDOWN_IOC_STOP);
	ncpu = td_nr_cpus(fd);
	if (ncpu > MAXCPU)
		ncpu = MAXCPU;
	for (int cpu = 1; cpu < ncpu; cpu++)
		if (can_hotplug(cpu))
			hp[nhp++] = cpu;
	arm_ms = td_env_long("TD_HP_ARM_MS", 10000);
	ksft_set_plan(10);
	if (!nhp) {
		for (int i = 0; i < 10; i++)
			ksft_test_result_skip("no CPU can go offline here (%d CPUs)\n", ncpu);
		ksft_finished();
	}
	printf("# %d CPUs, %d can go offline, at most %ld cycles / %ld s\n",
	       ncpu, nhp, cycles, secs);

	td_cfg_sw(&c, RING);
	if (ioctl(fd, TOPDOWN_IOC_CONFIGURE, &c)) {
		ksft_test_result(false, "configure: %s\n", strerror(errno));
		return ksft_exit_fail();
	}
	for (int cpu = 0; cpu < ncpu; cpu++)
		if (td_ring_map(fd, cpu, RING, &rings[cpu])) {
			ksft_test_result(false, "map cpu %d: %s\n", cpu, strerror(errno));
			return ksft_exit_fail();
		}
	for (int i = 0; i < 4; i++)
		pthread_create(&lt[i], NULL, load, NULL);

	/* 1. Offline and online during collection. */
	if (ioctl(fd, TOPDOWN_IOC_START)) {
		ksft_test_result(false, "start: %s\n", strerror(errno));
		return ksft_exit_fail();
	}
	t0 = td_now_ns();
	deadline = t0 + secs * 1000000000ull;
	for (long i = 0; i < cycles && td_now_ns() < deadline; i++) {
		int cpu = hp[i % nhp], f;
		uint64_t pos, flags[MAXCPU] = { 0 };
		pid_t want[MAXCPU];
		struct pinned p = { .cpu = cpu };
		pthread_t pt;

		drain(NULL, NULL);
		if (td_set_online(cpu, 0)) {
			printf("# cycle %ld: cpu %d offline: %s\n", i, cpu, strerror(errno));
			bad_offline++;
			continue;
		}
		f = cpu_flags(cpu);
		if (f < 0 || (f & (TOPDOWN_CPU_ONLINE | TOPDOWN_CPU_COUNTING)))
			bad_offline++;
		drain(NULL, NULL);
		pos = rings[cpu].prod->producer_pos;
		usleep(20000);	/* the load keeps switching elsewhere */
		if (rings[cpu].prod->producer_pos != pos) {
			printf("# cycle %ld: cpu %d wrote records while offline\n", i, cpu);
			bad_offline++;
		}
		if (td_set_online(cpu, 1)) {
			printf("# cycle %ld: cpu %d online: %s\n", i, cpu, strerror(errno));
			bad_online++;
			break;
		}
		f = wait_counting(cpu);
		if (f < 0 || !(f & TOPDOWN_CPU_ONLINE) || !(f & TOPDOWN_CPU_COUNTING)) {
			printf("# cycle %ld: cpu %d back online but flags %#x\n", i, cpu, f);
			bad_online++;
		}
		pthread_create(&pt, NULL, pinned_sleeper, &p);
		pthread_join(pt, NULL);
		for (int k = 0; k < ncpu; k++)
			want[k] = 0;
		want[cpu] = p.tid;
		drain(flags, want);
		if (!(flags[cpu] & TOPDOWN_REC_FIRST))
			bad_first++;
		if (!p.ok || want[cpu] != -1)
			bad_pinned++;
		done++;
	}
	atomic_store(&stop_load, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(lt[i], NULL);
	ioctl(fd, TOPDOWN_IOC_STOP);
	drain(NULL, NULL);
	{
		uint64_t g = 0, fr = 0;

		for (int cpu = 0; cpu < ncpu; cpu++) {
			g += gaps[cpu];
			fr += foreign[cpu];
		}
		ksft_test_result(done > 0 && !bad_offline && !bad_online && !g && !fr,
				 "%d offline/online cycles in %.1f s during collection: offline CPUs "
				 "idle and not counting (%d bad), back online counting (%d bad), "
				 "%llu sequence gaps, %llu records from another CPU\n",
				 done, (td_now_ns() - t0) / 1e9, bad_offline, bad_online,
				 (unsigned long long)g, (unsigned long long)fr);
		ksft_test_result(done > 0 && !bad_first && !bad_pinned,
				 "a returning CPU's first record is flagged FIRST (%d missing) and a task "
				 "pinned to it is recorded there (%d missing)\n",
				 bad_first, bad_pinned);
	}

	/* 2. START with a CPU offline; STOP with one offline. */
	{
		int cpu = hp[0], f1, f2, f3;
		bool ok = true;

		ok &= td_set_online(cpu, 0) == 0;
		ok &= ioctl(fd, TOPDOWN_IOC_START) == 0;
		f1 = cpu_flags(cpu);
		ok &= td_set_online(cpu, 1) == 0;
		f2 = wait_counting(cpu);
		ok &= td_set_online(cpu, 0) == 0;
		ok &= ioctl(fd, TOPDOWN_IOC_STOP) == 0;
		ok &= ioctl(fd, TOPDOWN_IOC_START) == 0;
		ok &= td_set_online(cpu, 1) == 0;
		f3 = wait_counting(cpu);
		ok &= ioctl(fd, TOPDOWN_IOC_STOP) == 0;
		ksft_test_result(ok && !(f1 & TOPDOWN_CPU_COUNTING) &&
				 (f2 & TOPDOWN_CPU_COUNTING) && (f3 & TOPDOWN_CPU_COUNTING),
				 "start with cpu %d offline: not counting (%#x), counting once online "
				 "(%#x); stop/start while offline then online: counting (%#x)\n",
				 cpu, f1, f2, f3);
		done += 2;
	}

	/* 3. Hotplug racing START/STOP. */
	{
		uint64_t seed = 7, end = td_now_ns() + race_secs * 1000000000ull;
		bool ok = true;

		race_cycles = race_hotplug(hp, nhp, &seed, end, NULL, NULL, &ok);
		ksft_test_result(ok && race_cycles > 0,
				 "%d offline/online cycles racing %lu start/stop cycles: no hang, all "
				 "back online, nothing counting after stop\n", race_cycles,
				 atomic_load(&race_start_stop));
	}

	/* After all that: a normal run works on every CPU. */
	{
		bool ok = ioctl(fd, TOPDOWN_IOC_START) == 0;
		int counting = 0, online = 0;

		usleep(20000);
		for (int cpu = 0; cpu < ncpu; cpu++) {
			int f = cpu_flags(cpu);

			online += !!(f & TOPDOWN_CPU_ONLINE);
			counting += !!(f & TOPDOWN_CPU_COUNTING);
		}
		ok &= ioctl(fd, TOPDOWN_IOC_STOP) == 0;
		ksft_test_result(ok && online == ncpu && counting == ncpu,
				 "afterwards: %d of %d CPUs online and counting\n", counting, ncpu);
	}
	for (int cpu = 0; cpu < ncpu; cpu++)
		td_ring_unmap(&rings[cpu]);
	td_cfg_sw(&c, 0);
	ksft_test_result(ioctl(fd, TOPDOWN_IOC_CONFIGURE, &c) == 0,
			 "reconfigure after unmapping: nothing left mapped\n");
	tp_section(hp, nhp, tp_cycles, (race_secs + 1) / 2, &tp_slices);
	totals_section(hp, nhp, tot_cycles, &tot_reads);
	close(fd);
	td_count("hotplug_cycles", done + race_cycles);
	td_count("hotplug_race_cycles", race_cycles);
	td_count("hotplug_race_start_stop", atomic_load(&race_start_stop));
	td_count("hotplug_arm_wait_ms_max", arm_wait_max_ns / 1000000);
	td_count("hotplug_tp_slices", tp_slices);
	td_count("hotplug_totals_reads", tot_reads);
	ksft_finished();
}
