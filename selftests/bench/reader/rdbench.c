// SPDX-License-Identifier: GPL-2.0
/*
 * rdbench: the reader side of `make bench`, on the host.
 *
 * Runs the real tdctl command code (the user/ objects, linked in, main()
 * renamed tdctl_main) against a fake /dev/topdown: open, ioctl, mmap,
 * munmap, close and poll of the device are wrapped (ld --wrap) and served
 * from per-CPU rings this program fills with synthetic records. So
 * `rdbench ... -- dump` measures exactly what `tdctl dump` does with
 * records it drains from the rings: copy, sort by time, decode, format,
 * print.
 *
 *   rdbench --fixture DIR [--set NAME] [-n RECORDS] [--cpus N]
 *           [--repeat K] [--live] -- TDCTL-ARGS...
 *   rdbench --fixture DIR [--set NAME] [-n RECORDS] [--cpus N]
 *           [--chunk K] --write FILE
 *
 * DIR is a fake /proc + /sys tree (selftests/host's mkfixture) from which
 * the event set and its config label are chosen exactly as `tdctl load`
 * does on that machine. Each repeat refills the rings and runs
 * tdctl_main(TDCTL-ARGS) once; tdctl's output goes to stdout (send it to
 * /dev/null). One JSON line per repeat goes to stderr: records, wall and
 * CPU seconds, records per second.
 *
 * With --live --rate R, they appear R per second from its first wait on,
 * while the rest of its descriptors are polled for real: for tdctl serve,
 * which Prometheus scrapes meanwhile (selftests/host/test_serve.py).
 *
 * With --live, the rings are empty when tdctl opens the device and the
 * records appear during its first wait (poll), as they would while it
 * counts: for stat and top, which drop what the rings held before they
 * started. Later waits sleep their timeout, so `--live -- stat -a
 * --duration 1` spends its CPU time on the records only.
 *
 * With --groups G, GET_CONFIG returns the set's events as the pool of G
 * groups (include/uapi/linux/topdown.h, "Groups and rotation"): the first
 * event, the anchor, in every group, event i >= 1 in group (i - 1) % G;
 * each CPU moves to the next group every 16 records, the record of the
 * move rotated. For `tdctl record` (test_groups.py).
 *
 * With --comm NAME (repeatable), the tasks are named NAME, ... in turn
 * instead of the built-in names; with --cgroup-id ID (repeatable), their
 * cgroup ids are ID, ... in turn instead of 1 to 4 (real ids, for tdctl
 * serve's cgroup labels: test_serve.py).
 *
 * With --totals N, the configuration keeps totals (TOPDOWN_CONFIG_TOTALS)
 * and TOPDOWN_IOC_TOTALS returns an OTHER entry per CPU and N task
 * entries, every one of which has run again at each call (its sums grow)
 * as the module's do on a busy machine: for the cost of a reader that
 * refreshes from the totals (`-- stat -a`). The call does per entry what
 * the module's does (read it, copy it out); the JSON line says how many
 * calls copied entries and the CPU time they took, which stands for the
 * module's share.
 *
 * With --write, the same synthetic records go into a record file instead
 * (the format of `tdctl record`, written by tdctl's own writer), for
 * `tdctl dump -i FILE` and `tdctl report -i FILE`: the CPUs interleaved
 * in drains of K records (default 256) as the recorder stores them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/topdown.h>

#include "evset/evset.h"
#include "file/tdfile.h"
#include "live/device.h"

#define RDBENCH_USAGE \
	"usage: rdbench --fixture DIR [--set NAME] [-n RECORDS] [--cpus N] [--repeat K]" \
	" [--live [--rate R]] -- TDCTL-ARGS...\n" \
	"       rdbench --fixture DIR [--set NAME] [-n RECORDS] [--cpus N] [--chunk K]" \
	" --write FILE\n" \
	"       --groups G: the set's events as a pool in G rotated groups\n" \
	"       --comm NAME, --cgroup-id ID (repeatable): the tasks' names and cgroup ids\n" \
	"       --totals N: the module keeps totals, of N tasks that all run"

int tdctl_main(int argc, char **argv);

int __real_open(const char *path, int flags, ...);
int __real_close(int fd);
int __real_ioctl(int fd, unsigned long req, ...);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off);
int __real_munmap(void *addr, size_t len);
int __real_poll(struct pollfd *fds, nfds_t n, int timeout);

int __wrap_open(const char *path, int flags, ...);
int __wrap_close(int fd);
int __wrap_ioctl(int fd, unsigned long req, ...);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off);
int __wrap_munmap(void *addr, size_t len);
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout);

static struct {
	int fd;			/* the open fake device, or -1 */
	int nr_cpus;
	size_t page;
	uint32_t ring_size;
	struct topdown_config cfg;
	uint8_t **ring;		/* per CPU: consumer page, producer page, data */
	/* --live: the records are published at the first poll() */
	bool live, published;
	uint64_t per_cpu;
	double rate, t_first;	/* --rate: records per second */
	int groups;		/* --groups */
	/* --totals: the pool (nr_cpus OTHER entries, then the tasks') */
	uint32_t totals;
	struct topdown_total *pool;
	uint64_t totals_reads;
	double totals_cpu_s;
} fake = { .fd = -1 };

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rdbench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = va_arg(ap, int);
	va_end(ap);
	if (strcmp(path, TOPDOWN_DEVICE))
		return __real_open(path, flags, mode);
	fake.fd = __real_open("/dev/null", O_RDWR | O_CLOEXEC);
	return fake.fd;
}

int __wrap_close(int fd)
{
	if (fd >= 0 && fd == fake.fd)
		fake.fd = -1;
	return __real_close(fd);
}

static int fake_status(struct topdown_status *st)
{
	struct topdown_cpu_stats *s = (void *)(uintptr_t)st->stats_ptr;
	uint32_t n = st->nr_stats;

	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->state = TOPDOWN_STATE_RUNNING;
	st->abi_version = TOPDOWN_ABI_VERSION;
	st->nr_cpus = (uint32_t)fake.nr_cpus;
	st->record_size = TOPDOWN_RECORD_SIZE;
	st->error_event = -1;
	st->error_cpu = -1;
	/* As the module: the entry size it speaks, asked for or not. */
	st->stats_size = sizeof(*s);
	if (s) {
		if (n > (uint32_t)fake.nr_cpus)
			n = (uint32_t)fake.nr_cpus;
		for (uint32_t i = 0; i < n; i++) {
			memset(&s[i], 0, sizeof(s[i]));
			s[i].cpu = i;
			s[i].flags = TOPDOWN_CPU_ONLINE | TOPDOWN_CPU_COUNTING;
		}
		st->nr_stats = n;
		st->stats_ptr = (uintptr_t)s;
	}
	return 0;
}

static double secs(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --totals: every task has run one more slice on CPU (pid % nr_cpus). */
static void totals_grow(struct topdown_total *e)
{
	uint64_t d = 100000 + e->pid % 977;

	e->slices++;
	e->time_ns += d;
	e->grp_slices[0]++;
	e->grp_time_ns[0] += d;
	for (uint32_t j = 0; j < fake.cfg.nr_events; j++)
		e->grp_delta[0][j] += d * 3 / (j + 1);
}

static int fake_totals(struct topdown_totals *q)
{
	uint32_t n = (uint32_t)fake.nr_cpus + fake.totals, cap = q->nr_entries;
	struct topdown_total *out = (void *)(uintptr_t)q->entries_ptr;
	double c0 = secs(CLOCK_THREAD_CPUTIME_ID);

	if (q->size < TOPDOWN_TOTALS_SIZE_VER0 || q->flags ||
	    q->entry_size < TOPDOWN_TOTAL_SIZE_VER0) {
		errno = EINVAL;
		return -1;
	}
	q->size = sizeof(*q);
	q->entry_size = sizeof(*out);
	q->nr_tasks = fake.totals;
	q->pool_tasks = fake.cfg.totals_tasks;
	q->generation = 0;
	q->no_room = 0;
	q->reclaimed = 0;
	if (!out) {
		q->nr_entries = n;
		return 0;
	}
	if (cap < n) {
		errno = ENOSPC;
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		totals_grow(&fake.pool[i]);
		memcpy(&out[i], &fake.pool[i], sizeof(*out));
	}
	q->nr_entries = n;
	fake.totals_reads++;
	fake.totals_cpu_s += secs(CLOCK_THREAD_CPUTIME_ID) - c0;
	return 0;
}

/* --totals N: the CPUs' OTHER entries and N tasks', 8 threads a process. */
static void totals_init(void)
{
	uint32_t n = (uint32_t)fake.nr_cpus + fake.totals;

	fake.pool = calloc(n, sizeof(*fake.pool));
	if (!fake.pool)
		die("out of memory");
	for (uint32_t i = 0; i < n; i++) {
		struct topdown_total *e = &fake.pool[i];

		if (i < (uint32_t)fake.nr_cpus) {
			e->kind = TOPDOWN_TOTAL_OTHER;
			e->cpu = i;
			continue;
		}
		e->kind = TOPDOWN_TOTAL_TASK;
		e->pid = 100000 + i;
		e->tgid = e->pid - e->pid % 8;
		e->cpu = e->pid % (uint32_t)fake.nr_cpus;
		e->start_ns = 1000000 + i;
		e->cgroup_id = 1 + e->tgid % 4;
		snprintf(e->comm, sizeof(e->comm), "w%u", i % 1000000u);
	}
	fake.cfg.flags |= TOPDOWN_CONFIG_TOTALS;
	fake.cfg.totals_tasks = TOPDOWN_TOTALS_MIN_TASKS;
	while (fake.cfg.totals_tasks < fake.totals)
		fake.cfg.totals_tasks *= 2;
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd < 0 || fd != fake.fd)
		return __real_ioctl(fd, req, arg);
	switch (req) {
	case TOPDOWN_IOC_GET_CONFIG:
		memcpy(arg, &fake.cfg, sizeof(fake.cfg));
		return 0;
	case TOPDOWN_IOC_STATUS:
		return fake_status(arg);
	case TOPDOWN_IOC_TOTALS:
		if (fake.totals)
			return fake_totals(arg);
		break;
	case TOPDOWN_IOC_STOP:
		errno = EALREADY;
		return -1;
	}
	errno = ENOTTY;
	return -1;
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off)
{
	uint64_t cpu, rel;

	if (fd < 0 || fd != fake.fd)
		return __real_mmap(addr, len, prot, flags, fd, off);
	cpu = (uint64_t)off >> TOPDOWN_MMAP_CPU_SHIFT;
	rel = (uint64_t)off & ((1ull << TOPDOWN_MMAP_CPU_SHIFT) - 1);
	if (cpu >= (uint64_t)fake.nr_cpus ||
	    rel + len > 2 * fake.page + fake.ring_size) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	return fake.ring[cpu] + rel;
}

int __wrap_munmap(void *addr, size_t len)
{
	for (int c = 0; c < fake.nr_cpus; c++) {
		uint8_t *p = addr;

		if (p >= fake.ring[c] &&
		    p < fake.ring[c] + 2 * fake.page + fake.ring_size)
			return 0;
	}
	return __real_munmap(addr, len);
}

/* Publish what the rings hold: what the module does as tasks switch. */
static void publish(void)
{
	for (int c = 0; c < fake.nr_cpus; c++) {
		struct topdown_ring_producer *prod =
			(void *)(fake.ring[c] + fake.page);

		prod->producer_pos = fake.per_cpu * TOPDOWN_RECORD_SIZE;
	}
	fake.published = true;
}

/*
 * --rate R (with --live): the records are published R per second (all
 * CPUs together) from the first poll() on, as a steady workload would
 * produce them; the device is readable when some were published, and
 * the other descriptors (tdctl serve's sockets) are really polled, for
 * at most 20 ms at a time.
 */
static int rate_poll(struct pollfd *fds, nfds_t n, int dev, int timeout)
{
	uint64_t want, pos;
	double now;
	int fd = fds[dev].fd, ret = 0, ready = 0;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	if (!fake.published) {
		fake.t_first = now;
		fake.published = true;
	}
	want = (uint64_t)((now - fake.t_first) * fake.rate / fake.nr_cpus);
	if (want > fake.per_cpu)
		want = fake.per_cpu;
	for (int c = 0; c < fake.nr_cpus; c++) {
		struct topdown_ring_producer *prod =
			(void *)(fake.ring[c] + fake.page);
		struct topdown_ring_consumer *cons = (void *)fake.ring[c];

		pos = want * TOPDOWN_RECORD_SIZE;
		if (pos > prod->producer_pos)
			__atomic_store_n(&prod->producer_pos, pos, __ATOMIC_RELEASE);
		if (prod->producer_pos > cons->consumer_pos)
			ready = 1;
	}
	if (n > 1) {
		fds[dev].fd = -1;	/* poll() skips negative descriptors */
		ret = __real_poll(fds, n, ready ? 0 :
				  (timeout < 0 || timeout > 20) ? 20 : timeout);
		fds[dev].fd = fd;
		if (ret < 0)
			return ret;
	} else if (!ready && timeout) {
		nanosleep(&(struct timespec){ 0, 20000000L }, NULL);
	}
	fds[dev].revents = ready ? POLLIN : 0;
	return ret + ready;
}

int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	int dev = -1;

	for (nfds_t i = 0; i < n; i++) {
		if (fds[i].fd >= 0 && fds[i].fd == fake.fd)
			dev = (int)i;
		fds[i].revents = 0;
	}
	if (dev < 0)
		return __real_poll(fds, n, timeout);
	if (fake.rate > 0)
		return rate_poll(fds, n, dev, timeout);
	if (!fake.live)
		return 0;
	/* --live: the records arrive during the first wait; later waits
	 * wait (stat's CPU time is then its work, not a busy loop).
	 */
	if (!fake.published) {
		publish();
		fds[dev].revents = POLLIN;
		return 1;
	}
	if (timeout > 0)
		nanosleep(&(struct timespec){ timeout / 1000, (timeout % 1000) * 1000000L },
			  NULL);
	return 0;
}

/* --comm, --cgroup-id: the tasks' names and cgroup ids, if given */
static const char *opt_comms[64];
static unsigned int nr_opt_comms;
static uint64_t opt_cgroups[64];
static unsigned int nr_opt_cgroups;

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/*
 * Record i of CPU c; *t is the CPU's clock (the end of its last slice).
 * Time slices of a few hundred microseconds (whole microseconds, so that
 * CPUs often end slices at the same nanosecond) from a small population
 * of tasks, counts that make plausible metrics (cycles first, the rest
 * fractions), and the rarer cases every reader must get right: idle
 * slices, unreadable counters and comms with quotes, commas, backslashes,
 * control and non-ASCII bytes.
 */
static void gen_record(int c, uint64_t i, uint64_t *t,
		       struct topdown_record *rec)
{
	static const char *const comms[] = {
		"postgres", "nginx", "kworker/1:2", "swapper/0", "java",
		"rcu_sched", "sshd", "python3", "a \"quoted\", name",
		"back\\slash\ttab", "ctl\x01\x7f\xff\xc3\xa9", "exactly15chars!",
	};
	uint64_t d = 1000 * (20 + rnd() % 400);
	unsigned int task = (unsigned int)(rnd() % 64);
	uint64_t cyc = d * 3 + rnd() % 1000, roll = rnd() % 1000;

	memset(rec, 0, sizeof(*rec));
	*t += d;
	rec->seq = i;
	rec->time_ns = *t;
	rec->duration_ns = d;
	rec->cgroup_id = nr_opt_cgroups ? opt_cgroups[task % nr_opt_cgroups] :
			 1 + task % 4;
	rec->cpu = (uint32_t)c;
	rec->pid = 1000 + task;
	rec->tgid = 1000 + task / 4 * 4;
	rec->flags = (rnd() & 1) ? TOPDOWN_REC_PREEMPTED : 0;
	snprintf(rec->comm, sizeof(rec->comm), "%s", nr_opt_comms ?
		 opt_comms[task % nr_opt_comms] :
		 comms[task % (sizeof(comms) / sizeof(comms[0]))]);
	if (roll < 40) {		/* 4%: the idle task */
		rec->pid = 0;
		rec->tgid = 0;
		rec->flags |= TOPDOWN_REC_IDLE;
		snprintf(rec->comm, sizeof(rec->comm), "swapper/%u",
			 (unsigned int)c % 10000);
	}
	if (i == 0)
		rec->flags |= TOPDOWN_REC_FIRST;
	rec->delta[0] = cyc;
	for (uint32_t e = 1; e < fake.cfg.nr_events; e++)
		rec->delta[e] = rnd() % (cyc + 1);
	if (fake.groups) {
		/* The CPU's group, 16 records at a time; delta[j] is the
		 * group's j-th event.
		 */
		uint32_t g = (uint32_t)((i / 16) % fake.groups);
		const struct topdown_group *grp = &fake.cfg.groups[g];
		uint64_t pool[TOPDOWN_MAX_POOL] = { 0 };

		memcpy(pool, rec->delta, sizeof(rec->delta));
		memset(rec->delta, 0, sizeof(rec->delta));
		rec->flags |= g << TOPDOWN_REC_GROUP_SHIFT;
		if (i && i % 16 == 0) {
			rec->flags |= TOPDOWN_REC_ROTATED |
				      ((1u << grp->nr_events) - 1);
			return;
		}
		for (uint32_t j = 0; j < grp->nr_events; j++)
			rec->delta[j] = pool[grp->events[j]];
		return;
	}
	if (roll >= 990 && fake.cfg.nr_events > 1) {	/* 1%: unreadable */
		uint32_t e = 1 + (uint32_t)(rnd() % (fake.cfg.nr_events - 1));

		rec->flags |= 1u << e;
		rec->delta[e] = 0;
	}
}

/* Fill every ring with per_cpu records, CPUs interleaved in time; for
 * --live, after the moment tdctl starts (it drops older records).
 */
static void fill_rings(uint64_t per_cpu)
{
	uint64_t t0 = 1000000000000ull;
	struct timespec now;

	if (fake.live && !clock_gettime(CLOCK_MONOTONIC, &now))
		t0 = (uint64_t)now.tv_sec * 1000000000ull + 60000000000ull;

	for (int c = 0; c < fake.nr_cpus; c++) {
		uint8_t *ring = fake.ring[c];
		struct topdown_ring_consumer *cons = (void *)ring;
		struct topdown_ring_producer *prod = (void *)(ring + fake.page);
		struct topdown_record *rec = (void *)(ring + 2 * fake.page);
		uint64_t t = t0 + (uint64_t)c * 777000;

		memset(cons, 0, sizeof(*cons));
		memset(prod, 0, sizeof(*prod));
		prod->data_size = fake.ring_size;
		prod->record_size = TOPDOWN_RECORD_SIZE;
		prod->cpu = (uint32_t)c;
		for (uint64_t i = 0; i < per_cpu; i++, rec++)
			gen_record(c, i, &t, rec);
		prod->producer_pos = fake.live ? 0 : per_cpu * TOPDOWN_RECORD_SIZE;
	}
	fake.published = !fake.live;
}

/*
 * --write FILE: the same records as a record file of `tdctl record`, in
 * the order its reader stores them: per CPU in sequence order, the CPUs
 * interleaved in drains of up to 'chunk' records each.
 */
static void write_file(const char *path, uint64_t per_cpu, uint64_t chunk)
{
	uint64_t t0 = 1000000000000ull, *t, *next;
	struct td_file_writer w;
	struct td_file_meta m;
	struct topdown_record rec;
	uint64_t left = per_cpu * fake.nr_cpus, stop = 0;
	FILE *out = fopen(path, "w");

	t = calloc((size_t)fake.nr_cpus, sizeof(*t));
	next = calloc((size_t)fake.nr_cpus, sizeof(*next));
	if (!out || !t || !next)
		die("%s: %s", path, strerror(errno));
	memset(&m, 0, sizeof(m));
	m.nr_cpus = (uint32_t)fake.nr_cpus;
	m.start_ns = t0 - 1;
	m.start_realtime_ns = 1790000000000000000ull;
	m.cfg = fake.cfg;
	snprintf(m.arch, sizeof(m.arch), "benchmark");
	snprintf(m.host, sizeof(m.host), "rdbench");
	snprintf(m.target, sizeof(m.target), "all tasks");
	if (td_file_write_header(&w, out, &m))
		die("%s: %s", path, strerror(errno));
	for (int c = 0; c < fake.nr_cpus; c++)
		t[c] = t0 + (uint64_t)c * 777000;
	while (left) {
		for (int c = 0; c < fake.nr_cpus; c++) {
			for (uint64_t k = 0; k < chunk && next[c] < per_cpu;
			     k++, left--) {
				gen_record(c, next[c]++, &t[c], &rec);
				if (td_file_write_record(&w, &rec))
					die("%s: %s", path, strerror(errno));
			}
			if (t[c] > stop)
				stop = t[c];
		}
	}
	m.stop_ns = stop;
	m.records_read = per_cpu * fake.nr_cpus;
	if (td_file_write_trailer(&w, &m) || fclose(out))
		die("%s: %s", path, strerror(errno));
	free(t);
	free(next);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fixture", required_argument, NULL, 'f' },
		{ "set", required_argument, NULL, 's' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "write", required_argument, NULL, 'w' },
		{ "chunk", required_argument, NULL, 'k' },
		{ "live", no_argument, NULL, 'l' },
		{ "rate", required_argument, NULL, 'R' },
		{ "groups", required_argument, NULL, 'g' },
		{ "comm", required_argument, NULL, 'C' },
		{ "cgroup-id", required_argument, NULL, 'G' },
		{ "totals", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	const char *fixture = NULL, *set = NULL, *write = NULL;
	long records = 1000000, repeat = 1, chunk = 256;
	struct td_cpu_info *ci;
	struct td_plan plan;
	uint64_t per_cpu;
	char err[512];
	int opt, first;

	fake.nr_cpus = 4;
	while ((opt = getopt_long(argc, argv, "+n:", opts, NULL)) >= 0) {
		switch (opt) {
		case 'f':
			fixture = optarg;
			break;
		case 's':
			set = optarg;
			break;
		case 'n':
			records = atol(optarg);
			break;
		case 'c':
			fake.nr_cpus = atoi(optarg);
			break;
		case 'r':
			repeat = atol(optarg);
			break;
		case 'w':
			write = optarg;
			break;
		case 'k':
			chunk = atol(optarg);
			break;
		case 'l':
			fake.live = true;
			break;
		case 'R':
			fake.rate = atof(optarg);
			break;
		case 'g':
			fake.groups = atoi(optarg);
			break;
		case 'C':
			if (nr_opt_comms == 64)
				die("at most 64 --comm");
			opt_comms[nr_opt_comms++] = optarg;
			break;
		case 'G':
			if (nr_opt_cgroups == 64)
				die("at most 64 --cgroup-id");
			opt_cgroups[nr_opt_cgroups++] = strtoull(optarg, NULL, 0);
			break;
		case 'T':
			fake.totals = (uint32_t)atol(optarg);
			if (!fake.totals || fake.totals > TOPDOWN_TOTALS_MAX_TASKS)
				die("--totals: 1 to %u tasks", TOPDOWN_TOTALS_MAX_TASKS);
			break;
		default:
			die(RDBENCH_USAGE);
		}
	}
	if (!fixture || (optind >= argc && !write) || records < 1 ||
	    fake.nr_cpus < 1 || repeat < 1 || chunk < 1)
		die(RDBENCH_USAGE);

	first = optind;
	ci = td_detect(fixture, err, sizeof(err));
	if (!ci)
		die("detect %s: %s", fixture, err);
	if (td_plan_for(ci, set, &plan, err, sizeof(err)))
		die("plan: %s", err);
	td_cpu_info_free(ci);
	td_config_from_plan(&plan, &fake.cfg);
	if (fake.groups) {
		if (fake.groups < 2 || fake.groups > TOPDOWN_MAX_GROUPS ||
		    (int)fake.cfg.nr_events < fake.groups + 1)
			die("--groups %d: 2..%d groups of the anchor and one more "
			    "of the set's %u events", fake.groups,
			    TOPDOWN_MAX_GROUPS, fake.cfg.nr_events);
		fake.cfg.nr_groups = (uint32_t)fake.groups;
		fake.cfg.rotate_ms = 5;
		for (int g = 0; g < fake.groups; g++) {
			struct topdown_group *grp = &fake.cfg.groups[g];

			grp->events[grp->nr_events++] = 0;
			for (uint32_t e = 1; e < fake.cfg.nr_events; e++)
				if ((int)((e - 1) % fake.groups) == g)
					grp->events[grp->nr_events++] = (uint8_t)e;
		}
	}

	if (fake.totals)
		totals_init();
	per_cpu = ((uint64_t)records + fake.nr_cpus - 1) / fake.nr_cpus;
	fake.per_cpu = per_cpu;
	if (write) {
		write_file(write, per_cpu, (uint64_t)chunk);
		return 0;
	}
	fake.ring_size = TOPDOWN_RING_MIN_SIZE;
	while ((uint64_t)fake.ring_size < per_cpu * TOPDOWN_RECORD_SIZE)
		fake.ring_size *= 2;
	if (fake.ring_size > TOPDOWN_RING_MAX_SIZE)
		die("%ld records do not fit %d rings of at most %u bytes: use more --cpus",
		    records, fake.nr_cpus, TOPDOWN_RING_MAX_SIZE);
	fake.cfg.ring_size = fake.ring_size;
	fake.cfg.watermark = fake.ring_size / 4;
	fake.page = (size_t)sysconf(_SC_PAGESIZE);
	fake.ring = calloc((size_t)fake.nr_cpus, sizeof(*fake.ring));
	if (!fake.ring)
		die("out of memory");
	for (int c = 0; c < fake.nr_cpus; c++) {
		fake.ring[c] = aligned_alloc(fake.page,
					     2 * fake.page + fake.ring_size);
		if (!fake.ring[c])
			die("out of memory");
	}

	for (long r = 0; r < repeat; r++) {
		double w0, c0, w1, c1;
		char **args;
		int ret, n = argc - first + 1;

		fill_rings(per_cpu);
		/* getopt state and argv are tdctl's now. */
		args = calloc((size_t)n + 1, sizeof(*args));
		if (!args)
			die("out of memory");
		args[0] = (char *)"tdctl";
		for (int i = 1; i < n; i++)
			args[i] = argv[first + i - 1];
		optind = 0;
		fflush(stdout);
		w0 = secs(CLOCK_MONOTONIC);
		c0 = secs(CLOCK_PROCESS_CPUTIME_ID);
		ret = tdctl_main(n, args);
		fflush(stdout);
		c1 = secs(CLOCK_PROCESS_CPUTIME_ID);
		w1 = secs(CLOCK_MONOTONIC);
		free(args);
		if (ret)
			die("tdctl %s exited with %d", argv[first], ret);
		fprintf(stderr,
			"{\"command\":\"%s\",\"set\":\"%s\",\"events\":%d,\"records\":%llu,\"wall_s\":%.6f,\"cpu_s\":%.6f,\"records_per_s\":%.0f",
			argv[first], plan.set, plan.nr_events,
			(unsigned long long)(per_cpu * fake.nr_cpus), w1 - w0,
			c1 - c0, (double)(per_cpu * fake.nr_cpus) / (c1 - c0));
		if (fake.totals)
			fprintf(stderr, ",\"totals_tasks\":%u,\"totals_reads\":%llu,"
				"\"totals_device_cpu_s\":%.6f",
				fake.totals, (unsigned long long)fake.totals_reads,
				fake.totals_cpu_s);
		fprintf(stderr, "}\n");
		fake.totals_reads = 0;
		fake.totals_cpu_s = 0;
	}
	return 0;
}
