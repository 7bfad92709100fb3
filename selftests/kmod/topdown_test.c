// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests for /dev/topdown, run as root inside a QEMU guest with the
 * topdown module loaded. They speak the UAPI directly (no tdctl), so they
 * test the kernel side on its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/topdown.h>

#include "kselftest_harness.h"
#include "td_common.h"
#include "td_fixture.h"

/* ---- helpers ---------------------------------------------------------- */

/* Stop and forget any collection left by an earlier test. */
static void reset_collection(int fd)
{
	ioctl(fd, TOPDOWN_IOC_STOP);
}

/* STATUS with @st poisoned first: the kernel must write what it returns. */
static int get_status(int fd, struct topdown_status *st,
		      struct topdown_cpu_stats *stats, int n)
{
	return td_status_fill(fd, st, stats, n, 0xa5);
}

/* ---- privilege --------------------------------------------------------- */

TEST(open_unprivileged_refused)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };

	/*
	 * The harness runs each test in its own child: dropping is local.
	 * Stay uid 0 (the node's owner, so the 0600 mode lets us through)
	 * but drop every capability: the module itself must refuse.
	 */
	int fd, status;
	pid_t pid;

	/* Another user does not even get past the file mode. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(100);
		fd = open(TOPDOWN_DEVICE, O_RDWR);
		_exit(fd >= 0 ? 101 : errno);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(EACCES, WEXITSTATUS(status));

	ASSERT_EQ(0, syscall(SYS_capset, &hdr, data));
	fd = open(TOPDOWN_DEVICE, O_RDWR);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EPERM, errno);
}

/*
 * The device has no file position: the control interface is ioctl and the
 * data interface mmap, so lseek and positioned I/O fail with ESPIPE, on
 * every kernel (nonseekable_open(), td_compat.h).
 */
TEST(device_not_seekable)
{
	char c;
	int fd = open(TOPDOWN_DEVICE, O_RDWR);

	ASSERT_LE(0, fd) TH_LOG("open %s: %s", TOPDOWN_DEVICE, strerror(errno));
	EXPECT_EQ(-1, lseek(fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	EXPECT_EQ(-1, lseek(fd, 128, SEEK_CUR));
	EXPECT_EQ(ESPIPE, errno);
	EXPECT_EQ(-1, pread(fd, &c, 1, 0));
	EXPECT_EQ(ESPIPE, errno);
	EXPECT_EQ(-1, pwrite(fd, &c, 1, 0));
	EXPECT_EQ(ESPIPE, errno);
	close(fd);
}

/* ---- configuration ----------------------------------------------------- */

TEST_F(dev, config_start_stop_status)
{
	struct topdown_cpu_stats stats[64];
	struct topdown_config cfg, back;
	struct topdown_status st;

	td_cfg_sw(&cfg, 0);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, get_status(self->fd, &st, stats, 64));
	EXPECT_EQ(TOPDOWN_STATE_CONFIGURED, st.state);
	EXPECT_EQ(TOPDOWN_ABI_VERSION, st.abi_version);
	EXPECT_EQ(TOPDOWN_RECORD_SIZE, st.record_size);
	EXPECT_EQ(sizeof(st), st.size);
	EXPECT_EQ(0, st.__reserved);
	EXPECT_EQ(st.nr_cpus < 64 ? st.nr_cpus : 64, st.nr_stats);

	memset(&back, 0x5a, sizeof(back));
	back.size = sizeof(back);
	memset(back.events, 0, sizeof(back.events));
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_GET_CONFIG, &back));
	EXPECT_EQ(1, back.nr_events);
	EXPECT_EQ(TOPDOWN_RING_DEFAULT_SIZE, back.ring_size);
	EXPECT_EQ(TOPDOWN_RING_DEFAULT_SIZE / 4, back.watermark);
	EXPECT_STREQ("set=selftest", back.label);
	EXPECT_STREQ("ev0", back.events[0].name);
	EXPECT_EQ(PERF_TYPE_SOFTWARE, back.events[0].type);
	EXPECT_EQ(0, back.events[0].cpus_size);

	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_START));
	EXPECT_EQ(EBUSY, errno);
	/* Reconfiguring while running is refused. */
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EBUSY, errno);
	td_busy_ms(20);
	usleep(20000);
	ASSERT_EQ(0, get_status(self->fd, &st, stats, 64));
	EXPECT_EQ(TOPDOWN_STATE_RUNNING, st.state);
	EXPECT_NE(0, st.start_ns);
	EXPECT_EQ(0, st.error_code);
	for (unsigned int i = 0; i < st.nr_stats; i++) {
		if (!(stats[i].flags & TOPDOWN_CPU_ONLINE))
			continue;
		EXPECT_TRUE(stats[i].flags & TOPDOWN_CPU_COUNTING);
		EXPECT_EQ(i, stats[i].cpu);
	}
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_STOP));
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_STOP));
	EXPECT_EQ(EALREADY, errno);
	ASSERT_EQ(0, get_status(self->fd, &st, stats, 64));
	EXPECT_EQ(TOPDOWN_STATE_CONFIGURED, st.state);
	EXPECT_LE(st.start_ns, st.stop_ns);
	for (unsigned int i = 0; i < st.nr_stats; i++)
		EXPECT_FALSE(stats[i].flags & TOPDOWN_CPU_COUNTING);
}

TEST_F(dev, config_rejects_bad_fields)
{
	struct { struct topdown_config c; uint64_t more; } big;
	struct topdown_config cfg;
	uint64_t mask[2] = { 0, 0 };

	td_cfg_sw(&cfg, 0);
	cfg.nr_events = 0;
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
	cfg.nr_events = TOPDOWN_MAX_EVENTS + 1;
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);

	td_cfg_sw(&cfg, 4096 + 128);		/* not a power of two */
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
	td_cfg_sw(&cfg, TOPDOWN_RING_MAX_SIZE * 2);
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
	td_cfg_sw(&cfg, TOPDOWN_RING_MIN_SIZE / 2);
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);

	td_cfg_sw(&cfg, 0);
	cfg.flags = 1u << 31;
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);

	td_cfg_sw(&cfg, 0);
	memset(cfg.label, 'x', sizeof(cfg.label));	/* no NUL */
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);

	td_cfg_sw(&cfg, 0);
	cfg.events[1].type = 1;	/* entry past nr_events not zero */
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);

	td_cfg_sw(&cfg, 0);
	cfg.events[0].cpus_ptr = (uintptr_t)mask;
	cfg.events[0].cpus_size = sizeof(mask);	/* empty mask */
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
	mask[1] = 1ull << 63;			/* CPU 127 */
	if (self->ncpu <= 127) {
		EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
		EXPECT_EQ(EINVAL, errno);
	}
	cfg.events[0].cpus_size = 12;		/* not a multiple of 8 */
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);

	/* A larger struct from a newer tdctl: zero tail ok, non-zero E2BIG. */
	td_cfg_sw(&big.c, 0);
	big.c.size = sizeof(big);
	big.more = 0;
	EXPECT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &big));
	big.more = 1;
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &big));
	EXPECT_EQ(E2BIG, errno);
	td_cfg_sw(&cfg, 0);
	cfg.size = TOPDOWN_CONFIG_SIZE_VER0 - 8;
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);

	EXPECT_EQ(-1, ioctl(self->fd, _IO(TOPDOWN_IOC_MAGIC, 0x7f)));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(dev, perf_rejected_event_reported)
{
	struct topdown_config cfg;
	struct topdown_status st;

	/* A PMU type id nobody registered: CONFIGURE asks perf already. */
	td_cfg_init(&cfg, 0x7ffffff0, 0, 0);
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(ENOENT, errno);
	/* A software event perf does not have: refused at START. */
	td_cfg_init(&cfg, PERF_TYPE_SOFTWARE, 0x7fff, 0);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_START));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, get_status(self->fd, &st, NULL, 0));
	EXPECT_EQ(TOPDOWN_STATE_CONFIGURED, st.state);
	EXPECT_EQ(-ENOENT, st.error_code);
	EXPECT_EQ(0, st.error_event);
	EXPECT_LE(0, st.error_cpu);
}

/* ---- records ----------------------------------------------------------- */

#define MAXREC 65536

struct collected {
	struct topdown_record *rec;
	int n;
};

/* Map every ring, drain into c, unmap. */
static int collect_all(int fd, int ncpu, size_t ring_size, struct collected *c)
{
	c->rec = calloc(MAXREC, sizeof(*c->rec));
	c->n = 0;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct td_ring r;

		if (td_ring_map(fd, cpu, ring_size, &r))
			return -1;
		c->n += td_ring_drain(&r, c->rec + c->n, MAXREC - c->n);
		td_ring_unmap(&r);
	}
	return 0;
}

/*
 * Blocked (not preempted) records of pid in the rings so far, read
 * without consuming them; -1 if a ring cannot be mapped.
 */
static int peek_blocked(int fd, int ncpu, size_t ring_size, pid_t pid)
{
	int blocked = 0;

	for (int cpu = 0; cpu < ncpu; cpu++) {
		uint64_t cons, prod;
		struct td_ring r;

		if (td_ring_map(fd, cpu, ring_size, &r))
			return -1;
		cons = r.cons->consumer_pos;
		prod = __atomic_load_n(&r.prod->producer_pos, __ATOMIC_ACQUIRE);
		for (; cons < prod; cons += TOPDOWN_RECORD_SIZE) {
			const struct topdown_record *rec = (const void *)
				(r.data + (cons & (r.data_size - 1)));

			blocked += rec->pid == (uint32_t)pid &&
				   !(rec->flags & TOPDOWN_REC_PREEMPTED);
		}
		td_ring_unmap(&r);
	}
	return blocked;
}

/*
 * A child that blocks `sleeps` times, then reports its own voluntary and
 * involuntary context switch counts (getrusage) through fd.
 */
static pid_t spawn_named(const char *comm, int busy, int sleeps, int fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct rusage ru;
		long cs[2];

		prctl(PR_SET_NAME, comm);
		for (int i = 0; i < sleeps; i++) {
			td_busy_ms(busy);
			usleep(1000);
		}
		getrusage(RUSAGE_SELF, &ru);
		cs[0] = ru.ru_nvcsw;
		cs[1] = ru.ru_nivcsw;
		if (write(fd, cs, sizeof(cs)) != sizeof(cs))
			_exit(1);
		_exit(0);
	}
	return pid;
}

TEST_F(dev, records_of_known_child)
{
	struct topdown_config cfg;
	struct collected c;
	uint64_t last_seq[256];
	bool seen[256] = { false };
	int blocked = 0, preempted = 0, named = 0, pfd[2], waits;
	uint64_t child_ns = 0;
	struct timespec t0, t1;
	long cs[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(pfd));
	td_cfg_sw(&cfg, 1 << 20);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	pid = spawn_named("td_child", 2, 20, pfd[1]);
	ASSERT_LT(0, pid);
	ASSERT_EQ(sizeof(cs), read(pfd[0], cs, sizeof(cs)));
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	/*
	 * waitpid() returns once the child is a zombie; its final switch
	 * (do_task_dead()) may come a little later on its CPU, and STOP must
	 * not come before it. Wait up to 2 s for it: as many blocked records
	 * as its voluntary switches, plus that one.
	 */
	for (waits = 0; waits < 2000; waits++) {
		int n = peek_blocked(self->fd, self->ncpu, 1 << 20, pid);

		ASSERT_LE(0, n);
		if (n >= cs[0] + 1)
			break;
		usleep(1000);
	}
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_STOP));
	clock_gettime(CLOCK_MONOTONIC, &t1);

	ASSERT_EQ(0, collect_all(self->fd, self->ncpu, 1 << 20, &c));
	ASSERT_LT(0, c.n);
	for (int i = 0; i < c.n; i++) {
		struct topdown_record *r = &c.rec[i];
		uint64_t lo = t0.tv_sec * 1000000000ull + t0.tv_nsec;
		uint64_t hi = t1.tv_sec * 1000000000ull + t1.tv_nsec;

		ASSERT_LT(r->cpu, (unsigned int)self->ncpu);
		ASSERT_LT(r->cpu, 256);
		/* Per-CPU sequence numbers: from 0, no gaps. */
		EXPECT_EQ(seen[r->cpu] ? last_seq[r->cpu] + 1 : 0, r->seq);
		seen[r->cpu] = true;
		last_seq[r->cpu] = r->seq;
		EXPECT_LE(lo, r->time_ns);
		EXPECT_GE(hi, r->time_ns);
		EXPECT_GE(r->time_ns - lo + 1, r->duration_ns);
		EXPECT_NE(0, r->comm[0]);
		EXPECT_EQ(0, r->flags & TOPDOWN_REC_ERROR_MASK);
		for (int e = 1; e < TOPDOWN_MAX_EVENTS; e++)
			EXPECT_EQ(0, r->delta[e]);
		EXPECT_EQ(r->pid == 0, !!(r->flags & TOPDOWN_REC_IDLE));
		if (r->pid != (uint32_t)pid)
			continue;
		EXPECT_EQ((uint32_t)pid, r->tgid);
		/* Before its prctl() the child still has the parent's comm. */
		named += !strcmp(r->comm, "td_child");
		EXPECT_LT(0, r->duration_ns);
		/* cpu-clock counts ns (a very short slice may read 0 when the
		 * guest's TSC is unstable, so only the sum is checked).
		 */
		child_ns += r->delta[0];
		if (r->flags & TOPDOWN_REC_PREEMPTED)
			preempted++;
		else
			blocked++;
	}
	TH_LOG("child: %d blocked, %d preempted records; rusage %ld voluntary, %ld involuntary; "
	       "%d waits of 1 ms for its final switch",
	       blocked, preempted, cs[0], cs[1], waits);
	EXPECT_LT(0, named);
	/* 20 x 2 ms busy loops at least. */
	EXPECT_LT(40 * 1000 * 1000, child_ns);
	/*
	 * Every voluntary switch the child counted is a blocked record, plus
	 * its final switch after exit; it may be preempted after getrusage().
	 */
	EXPECT_LE(cs[0] + 1, blocked);
	EXPECT_GE(cs[0] + 2, blocked);
	EXPECT_LE(cs[1], preempted);
	free(c.rec);
}

TEST_F(dev, cpu_mask_restricts_event)
{
	uint64_t mask[1] = { 1 }, back_mask[16];
	struct topdown_config cfg, back;
	struct collected c;
	int on0 = 0, on1 = 0, status = -1;
	cpu_set_t one;
	pid_t child;

	if (self->ncpu < 2)
		SKIP(return, "needs 2 CPUs");
	/* Event 0 everywhere, event 1 only on CPU 0. */
	td_cfg_sw(&cfg, 1 << 20);
	cfg.nr_events = 2;
	cfg.events[1] = cfg.events[0];
	strcpy(cfg.events[1].name, "ev1");
	cfg.events[1].cpus_ptr = (uintptr_t)mask;
	cfg.events[1].cpus_size = sizeof(mask);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));

	memset(&back, 0, sizeof(back));
	memset(back_mask, 0xff, sizeof(back_mask));
	back.size = sizeof(back);
	back.events[1].cpus_ptr = (uintptr_t)back_mask;
	back.events[1].cpus_size = sizeof(back_mask);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_GET_CONFIG, &back));
	EXPECT_EQ(0, back.events[0].cpus_size);
	EXPECT_EQ(((self->ncpu + 63) / 64) * 8, back.events[1].cpus_size);
	EXPECT_EQ(1, back_mask[0]);

	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	/*
	 * Switches on CPU 0 and on CPU 1 for sure: a CPU may otherwise stay
	 * idle through the whole window (nothing else runs in the guest).
	 */
	child = fork();
	ASSERT_LE(0, child);
	CPU_ZERO(&one);
	CPU_SET(child ? 0 : 1, &one);
	if (child == 0) {
		if (sched_setaffinity(0, sizeof(one), &one))
			_exit(1);
		for (int i = 0; i < 50; i++)
			usleep(500);
		_exit(0);
	}
	/* The test runs in its own process: the pinning ends with it. */
	EXPECT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	for (int i = 0; i < 50; i++)
		usleep(500);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_STOP));
	EXPECT_EQ(0, status);
	ASSERT_EQ(0, collect_all(self->fd, self->ncpu, 1 << 20, &c));
	for (int i = 0; i < c.n; i++) {
		const struct topdown_record *r = &c.rec[i];

		EXPECT_EQ(0, r->flags & TOPDOWN_REC_ERROR_MASK);
		if (r->cpu == 1)
			on1++;
		if (r->cpu == 0) {
			on0 += r->delta[1] > 0;
		} else {
			EXPECT_EQ(0, r->delta[1]);
		}
	}
	EXPECT_LT(0, on0);
	EXPECT_LT(0, on1);
	free(c.rec);
}

TEST_F(dev, drop_mode_exact_lost_count)
{
	const unsigned int cap = 4096 / TOPDOWN_RECORD_SIZE;
	struct topdown_cpu_stats stats[256], before[256];
	struct topdown_config cfg;
	struct topdown_status st;
	struct topdown_record *rec = calloc(MAXREC, sizeof(*rec));
	uint64_t lost_total = 0;

	td_cfg_sw(&cfg, 4096);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	for (int i = 0; i < 200; i++)
		usleep(200);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_STOP));
	ASSERT_EQ(0, get_status(self->fd, &st, stats, 256));

	for (unsigned int cpu = 0; cpu < st.nr_stats; cpu++) {
		struct td_ring r;
		int n;

		if (!stats[cpu].records)
			continue;
		ASSERT_EQ(0, td_ring_map(self->fd, cpu, 4096, &r));
		/* Full ring: exactly cap records kept, the rest counted lost. */
		EXPECT_GE(cap, stats[cpu].records);
		if (stats[cpu].lost)
			EXPECT_EQ(cap, stats[cpu].records);
		EXPECT_EQ(stats[cpu].lost, r.prod->lost);
		EXPECT_EQ(stats[cpu].records * TOPDOWN_RECORD_SIZE,
			  r.prod->producer_pos);
		n = td_ring_drain(&r, rec, MAXREC);
		EXPECT_EQ(stats[cpu].records, n);
		for (int i = 0; i < n; i++)
			EXPECT_EQ(i, rec[i].seq);
		lost_total += stats[cpu].lost;
		td_ring_unmap(&r);
	}
	EXPECT_LT(0, lost_total) TH_LOG("200 sleeps did not overflow a %u-record ring", cap);

	/* After a drain, the next record's sequence number jumps by exactly
	 * the number lost.
	 */
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	usleep(5000);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_STOP));
	memcpy(before, stats, sizeof(before));
	ASSERT_EQ(0, get_status(self->fd, &st, stats, 256));
	for (unsigned int cpu = 0; cpu < st.nr_stats; cpu++) {
		struct td_ring r;
		int n;

		if (stats[cpu].records == before[cpu].records)
			continue;
		ASSERT_EQ(0, td_ring_map(self->fd, cpu, 4096, &r));
		n = td_ring_drain(&r, rec, MAXREC);
		ASSERT_LT(0, n);
		/* The drained ring starts with the next sequence number; if
		 * this short run filled the ring again (a busier kernel, e.g.
		 * PREEMPT_RT), its own drops come after the last record.
		 */
		EXPECT_EQ(before[cpu].records + before[cpu].lost, rec[0].seq);
		EXPECT_EQ(rec[n - 1].seq + 1 + (stats[cpu].lost - before[cpu].lost),
			  stats[cpu].records + stats[cpu].lost);
		td_ring_unmap(&r);
	}
	free(rec);
}

TEST_F(dev, overwrite_mode_keeps_newest)
{
	struct topdown_cpu_stats stats[256];
	struct topdown_config cfg;
	struct topdown_status st;

	td_cfg_sw(&cfg, 4096);
	cfg.flags = TOPDOWN_OVERFLOW_OVERWRITE;
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	for (int i = 0; i < 200; i++)
		usleep(200);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_STOP));
	ASSERT_EQ(0, get_status(self->fd, &st, stats, 256));
	for (unsigned int cpu = 0; cpu < st.nr_stats; cpu++) {
		const struct topdown_record *first, *last;
		struct td_ring r;
		uint64_t prod;

		if (stats[cpu].records <= 32)
			continue;
		EXPECT_EQ(0, stats[cpu].lost);
		ASSERT_EQ(0, td_ring_map(self->fd, cpu, 4096, &r));
		prod = r.prod->producer_pos;
		EXPECT_EQ(stats[cpu].records * TOPDOWN_RECORD_SIZE, prod);
		/* The ring holds the newest 32 records, in order. */
		first = (const void *)(r.data + (prod & 4095));
		last = (const void *)(r.data + ((prod - 128) & 4095));
		EXPECT_EQ(stats[cpu].records - 32, first->seq);
		EXPECT_EQ(stats[cpu].records - 1, last->seq);
		td_ring_unmap(&r);
	}
}

/* ---- mmap ABI ---------------------------------------------------------- */

FIXTURE(mapped) {
	int fd;
	size_t ring;
};

FIXTURE_SETUP(mapped)
{
	struct topdown_config cfg;

	self->fd = open(TOPDOWN_DEVICE, O_RDWR);
	ASSERT_LE(0, self->fd);
	reset_collection(self->fd);
	self->ring = 4 * TD_PAGE;
	td_cfg_sw(&cfg, self->ring);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
}

FIXTURE_TEARDOWN(mapped)
{
	close(self->fd);
}

TEST_F(mapped, data_pages_not_writable)
{
	void *p;

	for (int page = 1; page < 6; page++) {
		p = mmap(NULL, TD_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
			 self->fd, TD_RING_OFF(0, page));
		EXPECT_EQ(MAP_FAILED, p) TH_LOG("page %d mapped writable", page);
		EXPECT_EQ(EPERM, errno);
	}
	/* The consumer page only alone. */
	p = mmap(NULL, 2 * TD_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		 TD_RING_OFF(0, 0));
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, TD_PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, self->fd,
		 TD_RING_OFF(0, 1));
	EXPECT_EQ(MAP_FAILED, p);
}

TEST_F(mapped, mprotect_upgrade_refused)
{
	void *p = mmap(NULL, 2 * TD_PAGE, PROT_READ, MAP_SHARED, self->fd,
		       TD_RING_OFF(0, 1));
	void *c;

	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, 2 * TD_PAGE, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	/* A read-only mapping of the consumer page cannot be upgraded either. */
	c = mmap(NULL, TD_PAGE, PROT_READ, MAP_SHARED, self->fd, TD_RING_OFF(0, 0));
	ASSERT_NE(MAP_FAILED, c);
	EXPECT_EQ(-1, mprotect(c, TD_PAGE, PROT_READ | PROT_WRITE));
	munmap(c, TD_PAGE);
	/* Partial munmap / mprotect of a ring mapping is refused. */
	EXPECT_EQ(-1, munmap(p, TD_PAGE));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, mprotect(p, TD_PAGE, PROT_NONE));
	EXPECT_EQ(0, munmap(p, 2 * TD_PAGE));
}

TEST_F(mapped, bad_lengths_and_offsets)
{
	size_t total = 2 * TD_PAGE + self->ring;
	void *p;

	/* Whole ring read-only: fine. One page more: refused. */
	p = mmap(NULL, total, PROT_READ, MAP_SHARED, self->fd, TD_RING_OFF(0, 0));
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, total);
	p = mmap(NULL, total + TD_PAGE, PROT_READ, MAP_SHARED, self->fd,
		 TD_RING_OFF(0, 0));
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* Last page alone fine, past the end refused. */
	p = mmap(NULL, TD_PAGE, PROT_READ, MAP_SHARED, self->fd,
		 TD_RING_OFF(0, total / TD_PAGE - 1));
	EXPECT_NE(MAP_FAILED, p);
	munmap(p, TD_PAGE);
	p = mmap(NULL, TD_PAGE, PROT_READ, MAP_SHARED, self->fd,
		 TD_RING_OFF(0, total / TD_PAGE));
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* Misaligned offset. */
	p = mmap(NULL, TD_PAGE, PROT_READ, MAP_SHARED, self->fd, 128);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* A CPU that cannot exist. */
	p = mmap(NULL, TD_PAGE, PROT_READ, MAP_SHARED, self->fd,
		 TOPDOWN_MMAP_OFFSET(100000));
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* MAP_PRIVATE refused. */
	p = mmap(NULL, TD_PAGE, PROT_READ, MAP_PRIVATE, self->fd, TD_RING_OFF(0, 1));
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* mremap growth refused. */
	p = mmap(NULL, TD_PAGE, PROT_READ, MAP_SHARED, self->fd, TD_RING_OFF(0, 1));
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(MAP_FAILED, mremap(p, TD_PAGE, 2 * TD_PAGE, MREMAP_MAYMOVE));
	munmap(p, TD_PAGE);
}

TEST_F(mapped, reconfigure_while_mapped_refused)
{
	struct topdown_config cfg;
	void *p = mmap(NULL, TD_PAGE, PROT_READ, MAP_SHARED, self->fd,
		       TD_RING_OFF(0, 1));

	ASSERT_NE(MAP_FAILED, p);
	td_cfg_sw(&cfg, 0);
	EXPECT_EQ(-1, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EBUSY, errno);
	munmap(p, TD_PAGE);
	EXPECT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
}

TEST_F(mapped, second_reader_busy)
{
	int fd2 = open(TOPDOWN_DEVICE, O_RDWR);
	void *p, *q;

	ASSERT_LE(0, fd2);
	p = mmap(NULL, TD_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		 TD_RING_OFF(0, 0));
	ASSERT_NE(MAP_FAILED, p);
	q = mmap(NULL, TD_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd2,
		 TD_RING_OFF(0, 0));
	EXPECT_EQ(MAP_FAILED, q);
	EXPECT_EQ(EBUSY, errno);
	/* Read-only observers are fine. */
	q = mmap(NULL, TD_PAGE, PROT_READ, MAP_SHARED, fd2, TD_RING_OFF(0, 1));
	EXPECT_NE(MAP_FAILED, q);
	munmap(q, TD_PAGE);
	/* The reader lets go when its file is gone and unmapped. */
	munmap(p, TD_PAGE);
	close(self->fd);
	self->fd = fd2;
	q = mmap(NULL, TD_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd2,
		 TD_RING_OFF(0, 0));
	EXPECT_NE(MAP_FAILED, q);
	munmap(q, TD_PAGE);
}

TEST_F(mapped, garbage_consumer_pos_is_harmless)
{
	struct topdown_cpu_stats stats[256];
	struct topdown_status st;
	struct td_ring r;
	uint64_t garbage[] = { ~0ull, 1ull << 63, 3, 0x123456789abcdefull };

	ASSERT_EQ(0, td_ring_map(self->fd, 0, self->ring, &r));
	for (unsigned int g = 0; g < sizeof(garbage) / sizeof(garbage[0]); g++) {
		r.cons->consumer_pos = garbage[g];
		ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
		usleep(2000);
		ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_STOP));
	}
	/* The kernel's own position is untouched by what we wrote. */
	ASSERT_EQ(0, get_status(self->fd, &st, stats, 256));
	EXPECT_EQ(stats[0].producer_pos, r.prod->producer_pos);
	EXPECT_EQ(stats[0].records * TOPDOWN_RECORD_SIZE, r.prod->producer_pos);
	EXPECT_LE(stats[0].producer_pos, self->ring);
	td_ring_unmap(&r);
}

/* ---- module lifetime --------------------------------------------------- */

TEST(unload_while_open_refused)
{
	int fd = open(TOPDOWN_DEVICE, O_RDWR);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, syscall(SYS_delete_module, "topdown", O_NONBLOCK));
	EXPECT_EQ(EWOULDBLOCK, errno);
	close(fd);
}

/* ---- counts against perf_event_open ------------------------------------ */

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, 0);
}

/* A loop with a known, fixed instruction count per iteration. */
static void __attribute__((noinline)) known_loop(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		__asm__ volatile("" ::: "memory");
}

TEST_F(dev, instructions_match_perf_within_1pct)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
	};
	struct topdown_config cfg;
	struct collected c;
	uint64_t perf_count = 0, ours = 0;
	int pfd[2], probe;
	pid_t pid;

	probe = perf_open(&a, 0, -1);
	if (probe < 0)
		SKIP(return, "no hardware instructions counter here (%s)",
		     strerror(errno));
	close(probe);
	if (!getenv("TD_ICOUNT"))
		SKIP(return, "needs a guest with -icount (TD_ICOUNT=1)");

	td_cfg_init(&cfg, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1 << 20);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, pipe(pfd));
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	pid = fork();
	if (pid == 0) {
		uint64_t v = 0;
		int fd;

		prctl(PR_SET_NAME, "td_loop");
		a.disabled = 0;
		fd = perf_open(&a, 0, -1);
		known_loop(20 * 1000 * 1000);
		if (fd >= 0 && read(fd, &v, sizeof(v)) != sizeof(v))
			v = 0;
		if (write(pfd[1], &v, sizeof(v)) != sizeof(v))
			_exit(1);
		_exit(0);
	}
	ASSERT_LT(0, pid);
	ASSERT_EQ(sizeof(perf_count), read(pfd[0], &perf_count, sizeof(perf_count)));
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_STOP));
	ASSERT_LT(0, perf_count);

	ASSERT_EQ(0, collect_all(self->fd, self->ncpu, 1 << 20, &c));
	for (int i = 0; i < c.n; i++) {
		if (c.rec[i].pid == (uint32_t)pid) {
			EXPECT_EQ(0, c.rec[i].flags & TOPDOWN_REC_ERROR_MASK);
			ours += c.rec[i].delta[0];
		}
	}
	TH_LOG("perf_event_open: %llu instructions, topdown: %llu (%+.3f%%)",
	       (unsigned long long)perf_count, (unsigned long long)ours,
	       100.0 * ((double)ours - perf_count) / perf_count);
	/* topdown also counts fork-return and exit around the perf window. */
	EXPECT_LE(perf_count, ours);
	EXPECT_GE(perf_count + perf_count / 100, ours);
	free(c.rec);
}

TEST_HARNESS_MAIN
