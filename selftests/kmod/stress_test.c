// SPDX-License-Identifier: GPL-2.0
/*
 * Context-switch storm (TAP output): thousands of threads in pipe
 * ping-pong pairs for a fixed time, with collection running.
 *
 *   1. The reader keeps up (large rings, a SCHED_FIFO reader draining on
 *      poll()): every record's sequence number must follow the previous
 *      one on its CPU (zero gaps) and the kernel must report zero lost.
 *   2. The reader cannot keep up (one-page rings, a reader that sleeps):
 *      records are lost, and the sequence gaps the reader sees must add up
 *      to exactly the lost count the kernel reports (STATUS and the
 *      producer page), per CPU.
 *   3. The guest stays responsive: a sleeping heartbeat thread is woken
 *      within a bound throughout (and is compared with a first run of the
 *      storm without collection), and the storm ends on time.
 *
 * Environment: TD_STORM_SECS (4 per phase), TD_STORM_PAIRS (500, i.e.
 * 1000 tasks), TD_STORM_MAX_DELAY_MS (30000: under TCG on a busy host a
 * sleeper among a thousand runnable tasks can wait seconds; the baseline
 * phase without collection shows how much of that is the guest's own).
 * TD_STORM_STOP_FIFO=1 (a diagnostic, off by default) issues STOP from
 * SCHED_FIFO, so that its time is the kernel's, not the time the caller
 * waits for a CPU among the storm's tasks.
 * TD_STORM_READER (a diagnostic) sets the reader of phase 1: "fifo" (the
 * default: SCHED_FIFO, drains on poll()), "other" (the same as
 * SCHED_OTHER) or "none" (no reader: the rings fill and then drop); with
 * anything but "fifo" tests 1 and 2 only report figures. Tells the
 * module's share of the heartbeat's oversleep from the reader's.
 * TD_STORM_PHASES=1 (a diagnostic) skips phase 2.
 * Figures: "# COUNT storm_switches N", "# COUNT storm_lost N", ...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/topdown.h>

#include "kselftest.h"
#include "td_common.h"

#define MAXCPU 64

static atomic_int stop_storm;
static atomic_int stop_reader;
static atomic_ulong round_trips;
static int ncpu, devfd;
static bool stop_fifo;	/* TD_STORM_STOP_FIFO: STOP from a SCHED_FIFO caller */
static const char *reader_mode = "fifo";	/* TD_STORM_READER */

struct pair {
	int ab[2], ba[2];
	pthread_t a, b;
};

/*
 * Every thread waits at the gate until all exist: creating thousands of
 * threads while the first ones already ping-pong would take the creator
 * a time quadratic in their number.
 */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_open;

static void gate_wait(void)
{
	pthread_mutex_lock(&gate_lock);
	while (!gate_open)
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
}

static void gate_set(int open)
{
	pthread_mutex_lock(&gate_lock);
	gate_open = open;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

static void *ping(void *arg)
{
	struct pair *p = arg;
	char c = 0;

	gate_wait();
	while (!atomic_load_explicit(&stop_storm, memory_order_relaxed)) {
		if (write(p->ab[1], &c, 1) != 1 || read(p->ba[0], &c, 1) != 1)
			break;
		atomic_fetch_add_explicit(&round_trips, 1, memory_order_relaxed);
	}
	close(p->ab[1]);	/* pong sees EOF */
	return NULL;
}

static void *pong(void *arg)
{
	struct pair *p = arg;
	char c;

	while (read(p->ab[0], &c, 1) == 1)
		if (write(p->ba[1], &c, 1) != 1)
			break;
	close(p->ba[1]);
	return NULL;
}

/* Heartbeat: sleeps 10 ms at a time, records the worst oversleep. */
static atomic_ulong worst_delay_ns;
static atomic_int stop_heart;

static void *heartbeat(void *arg)
{
	while (!atomic_load(&stop_heart)) {
		uint64_t t = td_now_ns(), d;

		usleep(10000);
		d = td_now_ns() - t - 10000000ull;
		if (d > atomic_load(&worst_delay_ns))
			atomic_store(&worst_delay_ns, d);
	}
	return NULL;
}

struct reader {
	struct td_ring r[MAXCPU];
	uint64_t next_seq[MAXCPU];
	uint64_t seen[MAXCPU];
	uint64_t gaps[MAXCPU];
	uint64_t bad[MAXCPU];
	int sleep_ms;		/* 0: drain on poll(); >0: stall between drains */
	size_t ring;
};

static void drain_all(struct reader *rd)
{
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct td_ring *r = &rd->r[cpu];
		uint64_t cons = r->cons->consumer_pos;
		uint64_t prod = __atomic_load_n(&r->prod->producer_pos, __ATOMIC_ACQUIRE);

		while (cons < prod) {
			const struct topdown_record *rec =
				(const void *)(r->data + (cons & (r->data_size - 1)));

			if (rec->seq < rd->next_seq[cpu] || rec->cpu != (uint32_t)cpu)
				rd->bad[cpu]++;
			else
				rd->gaps[cpu] += rec->seq - rd->next_seq[cpu];
			rd->next_seq[cpu] = rec->seq + 1;
			rd->seen[cpu]++;
			cons += TOPDOWN_RECORD_SIZE;
		}
		__atomic_store_n(&r->cons->consumer_pos, cons, __ATOMIC_RELEASE);
	}
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	struct pollfd p = { .fd = devfd, .events = POLLIN };
	uint64_t awake = td_now_ns();
	bool rt = td_preempt_rt();

	if (!rd->sleep_ms && !strcmp(reader_mode, "fifo")) {
		struct sched_param sp = { .sched_priority = 50 };

		pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	}
	while (!atomic_load(&stop_reader)) {
		if (rd->sleep_ms)
			usleep(rd->sleep_ms * 1000);
		else
			poll(&p, 1, 5);
		drain_all(rd);
		/*
		 * On PREEMPT_RT, RCU's callbacks run in the per-CPU rcuc
		 * threads (SCHED_FIFO 1): a FIFO 50 reader that a storm
		 * never lets block starves them, an RCU stall splat after
		 * 21 s (x86_64 rt 6.1, load suite). Sleep 0.5 ms every 4 ms
		 * awake there.
		 */
		if (rt && td_now_ns() - awake > 4000000) {
			usleep(500);
			awake = td_now_ns();
		}
	}
	return NULL;
}

struct phase_result {
	uint64_t switches, lost_kernel, lost_prod, lost_seen, gaps, bad, seen;
	uint64_t records, worst_delay_ms, stop_ms, stop_delay_ms;
	uint64_t stop_run_ms, stop_wait_ms;
	bool stop_split;	/* stop_run_ms, stop_wait_ms measured */
	double secs;
};

/*
 * This thread's time on a CPU and time runnable but waiting for one, in ns,
 * from @fd, this thread's /proc/thread-self/schedstat (one pread, so that
 * the measurement adds a single syscall); false without schedstats. Tells
 * a STOP that waits in the kernel from a STOP whose caller waits for a CPU
 * among the storm's runnable tasks.
 */
static bool thread_schedstat(int fd, uint64_t *run_ns, uint64_t *wait_ns)
{
	unsigned long long r, w;
	char buf[128];
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = 0;
	if (sscanf(buf, "%llu %llu", &r, &w) != 2)
		return false;
	*run_ns = r;
	*wait_ns = w;
	return true;
}

/* ring 0: the storm alone, no collection (the responsiveness baseline). */
static int run_phase(const char *name, size_t ring, int sleep_ms, int pairs,
		     int secs, struct phase_result *res)
{
	struct topdown_cpu_stats stats[MAXCPU];
	struct reader *rd = calloc(1, sizeof(*rd));
	struct topdown_status st;
	struct topdown_config c;
	struct pair *pp = calloc(pairs, sizeof(*pp));
	pthread_attr_t attr;
	pthread_t rt;
	uint64_t t0, t_create, t_stop, run0 = 0, wait0 = 0, run1 = 0, wait1 = 0;
	uint64_t t_b0, t_b1;
	bool sched_ok;
	int ssfd;
	int made = 0;

	memset(res, 0, sizeof(*res));
	if (!ring)
		goto storm;
	td_cfg_sw(&c, ring);
	c.watermark = ring / 8;
	if (ioctl(devfd, TOPDOWN_IOC_CONFIGURE, &c)) {
		printf("# %s: configure: %s\n", name, strerror(errno));
		return -1;
	}
	rd->sleep_ms = sleep_ms;
	rd->ring = ring;
	for (int cpu = 0; cpu < ncpu; cpu++)
		if (td_ring_map(devfd, cpu, ring, &rd->r[cpu])) {
			printf("# %s: map cpu %d: %s\n", name, cpu, strerror(errno));
			return -1;
		}

storm:
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	atomic_store(&stop_storm, 0);
	atomic_store(&stop_reader, 0);
	atomic_store(&round_trips, 0);
	gate_set(0);
	t_create = td_now_ns();
	for (int i = 0; i < pairs; i++) {
		if (pipe(pp[i].ab) || pipe(pp[i].ba))
			break;
		if (pthread_create(&pp[i].b, &attr, pong, &pp[i]))
			break;
		if (pthread_create(&pp[i].a, &attr, ping, &pp[i])) {
			close(pp[i].ab[1]);
			pthread_join(pp[i].b, NULL);
			break;
		}
		made++;
	}
	printf("# %s: %d threads created in %.1f s\n", name, 2 * made + 1,
	       (td_now_ns() - t_create) / 1e9);
	/* Start collecting, then open the gate: the storm proper. */
	if (ring) {
		if (!sleep_ms && !strcmp(reader_mode, "none"))
			atomic_store(&stop_reader, 1);	/* reads once, at the end */
		pthread_create(&rt, NULL, reader_main, rd);
		if (ioctl(devfd, TOPDOWN_IOC_START)) {
			printf("# %s: start: %s\n", name, strerror(errno));
			return -1;
		}
	}
	atomic_store(&worst_delay_ns, 0);
	t0 = td_now_ns();
	gate_set(1);
	sleep(secs);
	/* Responsiveness while collecting, and separately during STOP. */
	res->worst_delay_ms = atomic_load(&worst_delay_ns) / 1000000;
	atomic_store(&worst_delay_ns, 0);
	/*
	 * STOP alone is timed as ever; the split covers a bracket of one
	 * schedstat read on either side, itself timed, so that it adds up.
	 */
	ssfd = open("/proc/thread-self/schedstat", O_RDONLY);
	if (ring && stop_fifo) {
		struct sched_param sp = { .sched_priority = 60 };

		pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	}
	t_b0 = td_now_ns();
	sched_ok = thread_schedstat(ssfd, &run0, &wait0);
	t_stop = td_now_ns();
	if (ring && ioctl(devfd, TOPDOWN_IOC_STOP))
		printf("# %s: stop: %s\n", name, strerror(errno));
	res->stop_ms = (td_now_ns() - t_stop) / 1000000;
	sched_ok &= thread_schedstat(ssfd, &run1, &wait1);
	t_b1 = td_now_ns();
	if (ring && stop_fifo) {
		struct sched_param sp = { .sched_priority = 0 };

		pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	}
	if (ssfd >= 0)
		close(ssfd);
	if (ring && sched_ok) {
		res->stop_split = true;
		res->stop_run_ms = (run1 - run0) / 1000000;
		res->stop_wait_ms = (wait1 - wait0) / 1000000;
		printf("# %s: STOP took %llu ms; the %llu ms around it (STOP and a "
		       "schedstat read either side): %llu ms on a CPU, %llu ms "
		       "runnable waiting for one, the rest asleep in the kernel\n",
		       name, (unsigned long long)res->stop_ms,
		       (unsigned long long)((t_b1 - t_b0) / 1000000),
		       (unsigned long long)res->stop_run_ms,
		       (unsigned long long)res->stop_wait_ms);
	}
	res->secs = (td_now_ns() - t0) / 1e9;
	res->stop_delay_ms = atomic_load(&worst_delay_ns) / 1000000;
	atomic_store(&stop_storm, 1);
	atomic_store(&stop_reader, 1);
	if (ring)
		pthread_join(rt, NULL);
	for (int i = 0; i < made; i++) {
		pthread_join(pp[i].a, NULL);
		pthread_join(pp[i].b, NULL);
		close(pp[i].ab[0]);
		close(pp[i].ba[0]);
	}
	if (!ring) {
		printf("# %s: %d tasks, %.1f s, %llu round trips, worst oversleep of a "
		       "10 ms sleeper %llu ms\n", name, 2 * made, res->secs,
		       (unsigned long long)atomic_load(&round_trips),
		       (unsigned long long)res->worst_delay_ms);
		goto out;
	}
	drain_all(rd);	/* what is left after STOP */

	if (td_status(devfd, &st, stats, MAXCPU)) {
		printf("# %s: status: %s\n", name, strerror(errno));
		return -1;
	}
	for (int cpu = 0; cpu < ncpu; cpu++) {
		/* Records dropped after the last one read show no gap yet. */
		uint64_t produced = stats[cpu].records + stats[cpu].lost;

		res->records += stats[cpu].records;
		res->lost_kernel += stats[cpu].lost;
		res->lost_prod += rd->r[cpu].prod->lost;
		res->gaps += rd->gaps[cpu];
		res->lost_seen += rd->gaps[cpu] + (produced - rd->next_seq[cpu]);
		res->bad += rd->bad[cpu];
		res->seen += rd->seen[cpu];
		printf("#   cpu %d: %llu records, %llu lost (producer page %llu), "
		       "%llu read, %llu in sequence gaps\n", cpu,
		       (unsigned long long)stats[cpu].records,
		       (unsigned long long)stats[cpu].lost,
		       (unsigned long long)rd->r[cpu].prod->lost,
		       (unsigned long long)rd->seen[cpu],
		       (unsigned long long)rd->gaps[cpu]);
		td_ring_unmap(&rd->r[cpu]);
	}
	res->switches = res->records + res->lost_kernel;
	printf("# %s: %d tasks, %.1f s (STOP took %llu ms), %llu context switches "
	       "recorded, %llu round trips, worst oversleep of a 10 ms sleeper %llu ms "
	       "while collecting, %llu ms during STOP\n",
	       name, 2 * made, res->secs, (unsigned long long)res->stop_ms,
	       (unsigned long long)res->switches,
	       (unsigned long long)atomic_load(&round_trips),
	       (unsigned long long)res->worst_delay_ms,
	       (unsigned long long)res->stop_delay_ms);
out:
	free(pp);
	free(rd);
	return made;
}

static uint64_t proc_ctxt(void)
{
	char buf[8192];
	unsigned long long v = 0;
	int fd = open("/proc/stat", O_RDONLY);
	ssize_t n;
	char *p;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strstr(buf, "\nctxt ");
	if (p)
		sscanf(p + 6, "%llu", &v);
	return v;
}

int main(void)
{
	int secs = td_env_long("TD_STORM_SECS", 4);
	int pairs = td_env_long("TD_STORM_PAIRS", 500);
	long max_delay_ms = td_env_long("TD_STORM_MAX_DELAY_MS", 30000);
	struct rlimit rl = { 65536, 65536 };
	struct phase_result base, a, b;
	pthread_t hb;
	uint64_t ctxt0, ctxt1, t_end;
	int made;

	stop_fifo = td_env_long("TD_STORM_STOP_FIFO", 0);
	if (getenv("TD_STORM_READER"))
		reader_mode = getenv("TD_STORM_READER");
	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(4);
	setrlimit(RLIMIT_NOFILE, &rl);
	devfd = open(TOPDOWN_DEVICE, O_RDWR);
	if (devfd < 0) {
		ksft_test_result(false, "storm: open: %s\n", strerror(errno));
		return ksft_exit_fail();
	}
	ioctl(devfd, TOPDOWN_IOC_STOP);
	ncpu = td_nr_cpus(devfd);
	if (ncpu > MAXCPU)
		ncpu = MAXCPU;
	ctxt0 = proc_ctxt();
	pthread_create(&hb, NULL, heartbeat, NULL);

	/* 0. The storm without collection: how responsive the guest is anyway. */
	run_phase("baseline, not collecting", 0, 0, pairs, secs, &base);

	/* 1. The reader keeps up. */
	made = run_phase("keeps up", 2u << 20, 0, pairs, secs, &a);
	if (made <= 0) {
		ksft_test_result(false, "storm, reader keeps up: setup failed\n");
	} else if (strcmp(reader_mode, "fifo")) {
		ksft_test_result_skip("reader '%s' (diagnostic): %llu switches, %llu lost, worst "
				      "oversleep %llu ms\n",
				      reader_mode, (unsigned long long)a.switches,
				      (unsigned long long)a.lost_kernel,
				      (unsigned long long)a.worst_delay_ms);
	} else if (a.gaps || a.lost_kernel || a.bad || a.seen != a.records) {
		ksft_test_result(false, "storm, reader keeps up: %llu gaps, %llu lost, "
				 "%llu bad, %llu read of %llu\n", (unsigned long long)a.gaps,
				 (unsigned long long)a.lost_kernel, (unsigned long long)a.bad,
				 (unsigned long long)a.seen, (unsigned long long)a.records);
	} else {
		ksft_test_result(true, "storm, reader keeps up: %d tasks, %llu switches, "
				 "0 sequence gaps, 0 lost\n", 2 * made,
				 (unsigned long long)a.switches);
	}

	/* 2. The reader cannot keep up: the losses are counted exactly. */
	memset(&b, 0, sizeof(b));
	made = td_env_long("TD_STORM_PHASES", 3) & 2 ?
	       run_phase("stalled reader", 4096, 200, pairs, secs, &b) : 0;
	if (!(td_env_long("TD_STORM_PHASES", 3) & 2)) {
		ksft_test_result_skip("TD_STORM_PHASES (diagnostic)\n");
	} else if (made <= 0) {
		ksft_test_result(false, "storm, stalled reader: setup failed\n");
	} else if (!b.lost_kernel || b.lost_seen != b.lost_kernel ||
		   b.lost_prod != b.lost_kernel || b.bad || b.seen != b.records) {
		ksft_test_result(false, "storm, stalled reader: kernel lost %llu, "
				 "producer page %llu, reader saw %llu missing, %llu bad, "
				 "%llu read of %llu\n", (unsigned long long)b.lost_kernel,
				 (unsigned long long)b.lost_prod, (unsigned long long)b.lost_seen,
				 (unsigned long long)b.bad, (unsigned long long)b.seen,
				 (unsigned long long)b.records);
	} else {
		ksft_test_result(true, "storm, stalled reader: %llu switches, %llu lost, "
				 "exactly the %llu missing sequence numbers\n",
				 (unsigned long long)b.switches, (unsigned long long)b.lost_kernel,
				 (unsigned long long)b.lost_seen);
	}

	/* 3. Responsive throughout: no lock-up, within a bound of the baseline. */
	t_end = td_now_ns();
	atomic_store(&stop_heart, 1);
	pthread_join(hb, NULL);
	ctxt1 = proc_ctxt();
	{
		uint64_t worst = a.worst_delay_ms > b.worst_delay_ms ?
			a.worst_delay_ms : b.worst_delay_ms;

		uint64_t stopw = a.stop_delay_ms > b.stop_delay_ms ?
			a.stop_delay_ms : b.stop_delay_ms;

		if (stopw > worst)
			worst = stopw;
		ksft_test_result(worst <= (uint64_t)max_delay_ms,
				 "guest responsive: worst oversleep of a 10 ms sleeper "
				 "%llu ms collecting, %llu ms during STOP, %llu ms not collecting "
				 "(bound %ld ms)\n",
				 (unsigned long long)(a.worst_delay_ms > b.worst_delay_ms ?
						      a.worst_delay_ms : b.worst_delay_ms),
				 (unsigned long long)stopw,
				 (unsigned long long)base.worst_delay_ms, max_delay_ms);
	}
	/* 4. The storm ended when told (threads joined promptly). */
	ksft_test_result((td_now_ns() - t_end) / 1000000000ull <= 10, "storm ended on time\n");
	printf("# /proc/stat: %llu context switches in the guest during the storm\n",
	       (unsigned long long)(ctxt1 - ctxt0));
	td_count("storm_tasks", 2ull * pairs);
	td_count("storm_switches", a.switches + b.switches);
	td_count("storm_switches_keepup", a.switches);
	td_count("storm_lost_keepup", a.lost_kernel);
	td_count("storm_gaps_keepup", a.gaps);
	td_count("storm_switches_stalled", b.switches);
	td_count("storm_lost_reported", b.lost_kernel);
	td_count("storm_lost_seen", b.lost_seen);
	td_count("storm_worst_delay_ms_collecting",
		 a.worst_delay_ms > b.worst_delay_ms ? a.worst_delay_ms : b.worst_delay_ms);
	td_count("storm_worst_delay_ms_baseline", base.worst_delay_ms);
	td_count("storm_stop_ms_max", a.stop_ms > b.stop_ms ? a.stop_ms : b.stop_ms);
	if (a.stop_split && b.stop_split)	/* not without schedstats */
		td_count("storm_stop_wait_for_cpu_ms_max",
			 a.stop_wait_ms > b.stop_wait_ms ? a.stop_wait_ms : b.stop_wait_ms);
	td_count("storm_worst_delay_ms_during_stop",
		 a.stop_delay_ms > b.stop_delay_ms ? a.stop_delay_ms : b.stop_delay_ms);
	close(devfd);
	ksft_finished();
}
