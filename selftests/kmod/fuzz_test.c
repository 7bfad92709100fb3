// SPDX-License-Identifier: GPL-2.0
/*
 * Random-operation fuzzer for /dev/topdown (TAP output).
 *
 * Several processes with several threads each do random open, close, dup,
 * every ioctl (valid and garbage arguments), mmap/munmap/mprotect/mremap,
 * consumer-position writes, record reads, poll, read/write, fork (the
 * child works on the inherited files and maps) and fork+exec, while a
 * churn process forks, execs and exits tasks and the parent SIGKILLs and
 * respawns workers. Bounded by a count of operations and by time; each
 * thread's operation sequence is derived from the seed (the interleaving
 * is up to the scheduler). Afterwards the collection must still be
 * usable: nothing left mapped, no stale reader, configure/start/stop work.
 * The guest script then unloads the module, and the runner fails on any
 * kernel splat.
 *
 * Environment: TD_FUZZ_SEED (1), TD_FUZZ_OPS (20000), TD_FUZZ_SECS (20),
 * TD_FUZZ_PROCS (3), TD_FUZZ_THREADS (3).
 *
 * Figures: "# COUNT fuzz_ops N", "# COUNT fuzz_forks N", ...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/topdown.h>

#include "kselftest.h"
#include "td_common.h"

enum {
	OP_OPEN, OP_CLOSE, OP_DUP, OP_CONFIGURE, OP_CONFIGURE_GARBAGE,
	OP_START, OP_STOP, OP_STATUS, OP_GET_CONFIG, OP_IOCTL_GARBAGE,
	OP_MMAP, OP_MUNMAP, OP_MPROTECT, OP_MREMAP, OP_READ_RECORDS,
	OP_CONSUMER, OP_POLL, OP_RW, OP_FORK, OP_EXEC, OP_YIELD, NR_OPS
};

static const char *const op_names[NR_OPS] = {
	"open", "close", "dup", "configure", "configure_garbage", "start",
	"stop", "status", "get_config", "ioctl_garbage", "mmap", "munmap",
	"mprotect", "mremap", "read_records", "consumer_pos", "poll",
	"read_write", "fork", "exec", "yield",
};

/* Shared by every process (MAP_SHARED anonymous). */
struct shared {
	atomic_ulong ops;
	atomic_ulong per_op[NR_OPS];
	atomic_ulong ok[NR_OPS];
	atomic_ulong violations;
	atomic_ulong forks, execs, exits, kills;
	uint64_t max_ops;
	uint64_t deadline_ns;
	char violation[256];
};

static struct shared *sh;
static int ncpu;
static char self_exe[256];

#define MAXFD	4
#define MAXMAP	8

struct map {
	uint8_t *addr;
	size_t len;
	int cpu;
	uint64_t page;
	int prot;
	int maywrite;
};

struct worker {
	uint64_t seed;
	int fds[MAXFD];
	struct map maps[MAXMAP];
};

static bool done(void)
{
	return atomic_load(&sh->ops) >= sh->max_ops || td_now_ns() >= sh->deadline_ns;
}

static void violation(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&sh->violations, 1) == 0) {
		va_start(ap, fmt);
		vsnprintf(sh->violation, sizeof(sh->violation), fmt, ap);
		va_end(ap);
	}
}

static int pick_fd(struct worker *w)
{
	int i = td_rand_below(&w->seed, MAXFD);

	for (int k = 0; k < MAXFD; k++, i = (i + 1) % MAXFD)
		if (w->fds[i] >= 0)
			return w->fds[i];
	return -1;
}

static void random_config(struct worker *w, struct topdown_config *c)
{
	static const uint32_t rings[] = { 4096, 8192, 16384, 65536 };
	uint64_t mask[2] = { 0, 0 };

	td_cfg_sw(c, rings[td_rand_below(&w->seed, 4)]);
	c->nr_events = 1 + td_rand_below(&w->seed, TOPDOWN_MAX_EVENTS);
	c->flags = td_rand_below(&w->seed, 2) ? TOPDOWN_OVERFLOW_OVERWRITE : 0;
	c->watermark = td_rand_below(&w->seed, 2) ? TOPDOWN_RECORD_SIZE : 0;
	for (unsigned int i = 0; i < c->nr_events; i++) {
		c->events[i] = c->events[0];
		c->events[i].config = td_rand_below(&w->seed, 3) ?
			PERF_COUNT_SW_CPU_CLOCK : PERF_COUNT_SW_TASK_CLOCK;
		c->events[i].flags = td_rand_below(&w->seed, 4);
	}
	/* Sometimes a CPU mask (read by the kernel before we return). */
	if (td_rand_below(&w->seed, 3) == 0) {
		static __thread uint64_t m[2];

		mask[0] = td_rand(&w->seed) & ((ncpu >= 64) ? ~0ull : ((1ull << ncpu) - 1));
		if (!mask[0])
			mask[0] = 1;
		m[0] = mask[0];
		c->events[0].cpus_ptr = (uintptr_t)m;
		c->events[0].cpus_size = 8;
	}
}

static void garbage(struct worker *w, void *buf, size_t len)
{
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t v = td_rand(&w->seed);

		memcpy((uint8_t *)buf + i, &v, 8);
	}
}

static struct map *free_map(struct worker *w)
{
	for (int i = 0; i < MAXMAP; i++)
		if (!w->maps[i].addr)
			return &w->maps[i];
	return NULL;
}

static struct map *some_map(struct worker *w)
{
	int i = td_rand_below(&w->seed, MAXMAP);

	for (int k = 0; k < MAXMAP; k++, i = (i + 1) % MAXMAP)
		if (w->maps[i].addr)
			return &w->maps[i];
	return NULL;
}

/* A few operations of a forked child on what it inherited; syscalls only. */
static void child_ops(struct worker *w)
{
	struct topdown_status st;
	int fd = pick_fd(w);
	struct map *m = some_map(w);

	if (fd >= 0) {
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		ioctl(fd, TOPDOWN_IOC_STATUS, &st);
		if (td_rand_below(&w->seed, 4) == 0)
			ioctl(fd, TOPDOWN_IOC_STOP);
	}
	if (m && (m->prot & PROT_READ)) {
		volatile uint8_t v = m->addr[td_rand_below(&w->seed, m->len)];

		(void)v;
	}
	if (m && td_rand_below(&w->seed, 2))
		munmap(m->addr, m->len);
}

static void do_op(struct worker *w, int op)
{
	uint8_t buf[8192] __attribute__((aligned(8)));
	struct topdown_config c;
	struct map *m;
	int fd, ret = -1;

	atomic_fetch_add(&sh->per_op[op], 1);
	switch (op) {
	case OP_OPEN: {
		int slot = td_rand_below(&w->seed, MAXFD);
		int flags = td_rand_below(&w->seed, 3) ? O_RDWR : O_RDONLY;

		if (td_rand_below(&w->seed, 2))
			flags |= O_NONBLOCK;
		if (w->fds[slot] >= 0)
			close(w->fds[slot]);
		w->fds[slot] = open(TOPDOWN_DEVICE, flags);
		ret = w->fds[slot] >= 0 ? 0 : -1;
		break;
	}
	case OP_CLOSE: {
		int slot = td_rand_below(&w->seed, MAXFD);

		if (w->fds[slot] >= 0) {
			ret = close(w->fds[slot]);
			w->fds[slot] = -1;
		}
		break;
	}
	case OP_DUP: {
		int slot = td_rand_below(&w->seed, MAXFD);

		fd = pick_fd(w);
		if (fd >= 0 && w->fds[slot] < 0)
			ret = (w->fds[slot] = dup(fd)) >= 0 ? 0 : -1;
		break;
	}
	case OP_CONFIGURE:
		fd = pick_fd(w);
		if (fd < 0)
			break;
		random_config(w, &c);
		ret = ioctl(fd, TOPDOWN_IOC_CONFIGURE, &c);
		break;
	case OP_CONFIGURE_GARBAGE:
		fd = pick_fd(w);
		if (fd < 0)
			break;
		random_config(w, &c);
		memcpy(buf, &c, sizeof(c));
		/* Corrupt a few random bytes, maybe the size. */
		for (int i = td_rand_below(&w->seed, 4); i >= 0; i--)
			buf[td_rand_below(&w->seed, sizeof(c))] = td_rand(&w->seed);
		memset(buf + sizeof(c), 0, sizeof(buf) - sizeof(c));
		ret = ioctl(fd, TOPDOWN_IOC_CONFIGURE, buf);
		break;
	case OP_START:
		fd = pick_fd(w);
		if (fd >= 0)
			ret = ioctl(fd, TOPDOWN_IOC_START);
		break;
	case OP_STOP:
		fd = pick_fd(w);
		if (fd >= 0)
			ret = ioctl(fd, TOPDOWN_IOC_STOP);
		break;
	case OP_STATUS: {
		struct topdown_cpu_stats stats[64];
		struct topdown_status st;

		fd = pick_fd(w);
		if (fd < 0)
			break;
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		switch (td_rand_below(&w->seed, 4)) {
		case 0:
			break;
		case 1:
			st.stats_ptr = (uintptr_t)stats;
			st.nr_stats = td_rand_below(&w->seed, 65);
			st.stats_size = sizeof(stats[0]);
			break;
		case 2:
			st.stats_ptr = td_rand(&w->seed);
			st.nr_stats = td_rand(&w->seed);
			st.stats_size = sizeof(stats[0]);
			break;
		default:
			garbage(w, &st, sizeof(st));
			if (td_rand_below(&w->seed, 2))
				st.size = sizeof(st);
			break;
		}
		ret = ioctl(fd, TOPDOWN_IOC_STATUS, &st);
		if (!ret && st.state > TOPDOWN_STATE_RUNNING)
			violation("STATUS state %u", st.state);
		break;
	}
	case OP_GET_CONFIG: {
		uint64_t mask[16];

		fd = pick_fd(w);
		if (fd < 0)
			break;
		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		if (td_rand_below(&w->seed, 2)) {
			c.events[0].cpus_ptr = (uintptr_t)mask;
			c.events[0].cpus_size = sizeof(mask);
		}
		ret = ioctl(fd, TOPDOWN_IOC_GET_CONFIG, &c);
		if (!ret && (c.nr_events < 1 || c.nr_events > TOPDOWN_MAX_EVENTS))
			violation("GET_CONFIG nr_events %u", c.nr_events);
		break;
	}
	case OP_IOCTL_GARBAGE:
		fd = pick_fd(w);
		if (fd < 0)
			break;
		garbage(w, buf, 512);
		ret = ioctl(fd, _IOC(td_rand_below(&w->seed, 4), TOPDOWN_IOC_MAGIC,
				     td_rand_below(&w->seed, 8), td_rand_below(&w->seed, 512)),
			    td_rand_below(&w->seed, 8) ? (void *)buf :
			    (void *)(uintptr_t)td_rand(&w->seed));
		break;
	case OP_MMAP: {
		uint64_t page = td_rand_below(&w->seed, 6);
		size_t len = (1 + td_rand_below(&w->seed, 5)) * TD_PAGE;
		int cpu = td_rand_below(&w->seed, ncpu + 1);
		int prot = td_rand_below(&w->seed, 4) ? PROT_READ : (int)td_rand_below(&w->seed, 8);
		int flags = td_rand_below(&w->seed, 8) ? MAP_SHARED : MAP_PRIVATE;
		uint8_t *p;

		fd = pick_fd(w);
		m = fd >= 0 ? free_map(w) : NULL;
		if (fd < 0 || !m)
			break;
		if (td_rand_below(&w->seed, 3) == 0) {	/* the consumer page */
			page = 0;
			len = TD_PAGE;
			prot = PROT_READ | PROT_WRITE;
		}
		p = mmap(NULL, len, prot, flags, fd, TD_RING_OFF(cpu, page));
		if (p == MAP_FAILED)
			break;
		ret = 0;
		if ((prot & PROT_WRITE) && (page != 0 || len != TD_PAGE))
			violation("mmap page %llu len %zu writable", (unsigned long long)page, len);
		if (prot & PROT_EXEC)
			violation("mmap with PROT_EXEC succeeded");
		if (flags == MAP_PRIVATE)
			violation("MAP_PRIVATE mmap succeeded");
		m->addr = p;
		m->len = len;
		m->cpu = cpu;
		m->page = page;
		m->prot = prot;
		m->maywrite = prot & PROT_WRITE;
		break;
	}
	case OP_MUNMAP:
		m = some_map(w);
		if (!m)
			break;
		if (td_rand_below(&w->seed, 5) == 0 && m->len > TD_PAGE) {
			if (munmap(m->addr, TD_PAGE) == 0) {
				violation("partial munmap succeeded");
				m->addr += TD_PAGE;
				m->len -= TD_PAGE;
			}
			break;
		}
		ret = munmap(m->addr, m->len);
		m->addr = NULL;
		break;
	case OP_MPROTECT: {
		int prot = td_rand_below(&w->seed, 8);

		m = some_map(w);
		if (!m)
			break;
		ret = mprotect(m->addr, m->len, prot);
		if (!ret) {
			if ((prot & PROT_WRITE) && !m->maywrite)
				violation("mprotect added PROT_WRITE");
			if (prot & PROT_EXEC)
				violation("mprotect added PROT_EXEC");
			m->prot = prot;
		}
		break;
	}
	case OP_MREMAP: {
		size_t nlen;
		void *p;

		m = some_map(w);
		if (!m)
			break;
		nlen = td_rand_below(&w->seed, 2) ? m->len : m->len + TD_PAGE;
		p = mremap(m->addr, m->len, nlen, MREMAP_MAYMOVE);
		if (p == MAP_FAILED)
			break;
		ret = 0;
		if (nlen != m->len)
			violation("mremap grew a ring mapping");
		m->addr = p;
		m->len = nlen;
		break;
	}
	case OP_READ_RECORDS: {
		const struct topdown_ring_producer *pr;
		uint64_t pos, sum = 0;

		m = some_map(w);
		if (!m || !(m->prot & PROT_READ) ||
		    m->page > 1 || m->page + m->len / TD_PAGE < 2)
			break;
		pr = (const void *)(m->addr + (1 - m->page) * TD_PAGE);
		pos = __atomic_load_n(&pr->producer_pos, __ATOMIC_ACQUIRE);
		if (pr->cpu != (uint32_t)m->cpu || pr->record_size != TOPDOWN_RECORD_SIZE)
			violation("producer page of cpu %d says cpu %u", m->cpu, pr->cpu);
		if (pos % TOPDOWN_RECORD_SIZE)
			violation("producer_pos %llu not record aligned",
				  (unsigned long long)pos);
		/* Touch whatever data pages are mapped. */
		for (size_t off = (2 - m->page) * TD_PAGE; off < m->len; off += 64)
			sum += m->addr[off];
		(void)sum;
		ret = 0;
		break;
	}
	case OP_CONSUMER: {
		struct topdown_ring_consumer *cn;
		static const uint64_t vals[] = { 0, 1, 127, 128, ~0ull, 1ull << 63 };

		m = some_map(w);
		if (!m || m->page != 0 || !(m->prot & PROT_WRITE) ||
		    !(m->prot & PROT_READ))
			break;
		cn = (void *)m->addr;
		if (td_rand_below(&w->seed, 2))
			__atomic_store_n(&cn->consumer_pos, td_rand(&w->seed), __ATOMIC_RELEASE);
		else
			__atomic_store_n(&cn->consumer_pos,
					 vals[td_rand_below(&w->seed, 6)] + cn->consumer_pos,
					 __ATOMIC_RELEASE);
		ret = 0;
		break;
	}
	case OP_POLL: {
		struct pollfd p;

		p.fd = pick_fd(w);
		if (p.fd < 0)
			break;
		p.events = POLLIN | POLLOUT | POLLPRI;
		ret = poll(&p, 1, td_rand_below(&w->seed, 4));
		ret = ret < 0 ? -1 : 0;
		break;
	}
	case OP_RW:
		fd = pick_fd(w);
		if (fd < 0)
			break;
		if (td_rand_below(&w->seed, 2))
			ret = read(fd, buf, td_rand_below(&w->seed, sizeof(buf))) < 0 ? -1 : 0;
		else
			ret = write(fd, buf, td_rand_below(&w->seed, sizeof(buf))) < 0 ? -1 : 0;
		if (!ret)
			violation("read/write on /dev/topdown succeeded");
		lseek(fd, td_rand(&w->seed), SEEK_SET);
		break;
	case OP_FORK: {
		pid_t pid = fork();

		if (pid == 0) {
			child_ops(w);
			_exit(0);
		}
		if (pid > 0) {
			atomic_fetch_add(&sh->forks, 1);
			waitpid(pid, NULL, 0);
			ret = 0;
		}
		break;
	}
	case OP_EXEC: {
		pid_t pid = fork();

		if (pid == 0) {
			/* Exec with the files open and the rings mapped. */
			char *const argv[] = { self_exe, "--exit", NULL };

			execv(self_exe, argv);
			_exit(127);
		}
		if (pid > 0) {
			atomic_fetch_add(&sh->execs, 1);
			waitpid(pid, NULL, 0);
			ret = 0;
		}
		break;
	}
	default:
		if (td_rand_below(&w->seed, 2))
			sched_yield();
		else
			usleep(td_rand_below(&w->seed, 200));
		ret = 0;
		break;
	}
	if (!ret)
		atomic_fetch_add(&sh->ok[op], 1);
	atomic_fetch_add(&sh->ops, 1);
}

/* Weights: the cheap, interesting operations most often. */
static int pick_op(struct worker *w)
{
	static const unsigned char weight[NR_OPS] = {
		[OP_OPEN] = 4, [OP_CLOSE] = 3, [OP_DUP] = 1, [OP_CONFIGURE] = 4,
		[OP_CONFIGURE_GARBAGE] = 3, [OP_START] = 4, [OP_STOP] = 3,
		[OP_STATUS] = 6, [OP_GET_CONFIG] = 3, [OP_IOCTL_GARBAGE] = 3,
		[OP_MMAP] = 8, [OP_MUNMAP] = 6, [OP_MPROTECT] = 3, [OP_MREMAP] = 2,
		[OP_READ_RECORDS] = 8, [OP_CONSUMER] = 5, [OP_POLL] = 3,
		[OP_RW] = 2, [OP_FORK] = 1, [OP_EXEC] = 1, [OP_YIELD] = 3,
	};
	unsigned int total = 0, r;

	for (int i = 0; i < NR_OPS; i++)
		total += weight[i];
	r = td_rand_below(&w->seed, total);
	for (int i = 0; i < NR_OPS; i++) {
		if (r < weight[i])
			return i;
		r -= weight[i];
	}
	return OP_YIELD;
}

static void *thread_main(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < MAXFD; i++)
		w->fds[i] = -1;
	while (!done())
		do_op(w, pick_op(w));
	for (int i = 0; i < MAXMAP; i++)
		if (w->maps[i].addr)
			munmap(w->maps[i].addr, w->maps[i].len);
	for (int i = 0; i < MAXFD; i++)
		if (w->fds[i] >= 0)
			close(w->fds[i]);
	return NULL;
}

static void worker_process(uint64_t seed, int threads)
{
	pthread_t t[16];
	struct worker *w = calloc(threads, sizeof(*w));

	for (int i = 0; i < threads; i++) {
		w[i].seed = seed * 1000003 + i + 1;
		pthread_create(&t[i], NULL, thread_main, &w[i]);
	}
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	_exit(0);
}

/* Tasks come and go: fork, exec, exit, all the time. */
static void churn_process(uint64_t seed)
{
	while (!done()) {
		pid_t pid = fork();

		if (pid == 0) {
			if (td_rand_below(&seed, 2)) {
				char *const argv[] = { self_exe, "--exit", NULL };

				execv(self_exe, argv);
			}
			td_busy_ms(td_rand_below(&seed, 3));
			_exit(0);
		}
		if (pid > 0) {
			atomic_fetch_add(&sh->forks, 1);
			atomic_fetch_add(&sh->exits, 1);
			waitpid(pid, NULL, 0);
		}
		td_rand(&seed);
	}
	_exit(0);
}

static pid_t spawn(void (*fn)(uint64_t, int), uint64_t seed, int threads)
{
	pid_t pid = fork();

	if (pid == 0)
		fn(seed, threads);
	return pid;
}

static void churn_entry(uint64_t seed, int unused)
{
	churn_process(seed);
}

int main(int argc, char **argv)
{
	uint64_t seed = td_env_long("TD_FUZZ_SEED", 1);
	long max_ops = td_env_long("TD_FUZZ_OPS", 20000);
	long secs = td_env_long("TD_FUZZ_SECS", 20);
	int nproc = td_env_long("TD_FUZZ_PROCS", 3);
	int nthr = td_env_long("TD_FUZZ_THREADS", 3);
	pid_t workers[16], churn;
	struct topdown_config c;
	struct topdown_status st;
	uint64_t t0, gen = 0, kseed;
	int fd;
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "--exit"))
		return 0;
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0) {
		ksft_test_result(false, "fuzz: no /proc/self/exe\n");
		return ksft_exit_fail();
	}
	self_exe[n] = 0;
	if (nproc > 16)
		nproc = 16;
	if (nthr > 16)
		nthr = 16;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(2);
	printf("# fuzz: seed %llu, at most %ld operations and %ld s, %d processes x %d threads\n",
	       (unsigned long long)seed, max_ops, secs, nproc, nthr);

	fd = open(TOPDOWN_DEVICE, O_RDWR);
	if (fd < 0) {
		ksft_test_result(false, "fuzz: open %s: %s\n", TOPDOWN_DEVICE, strerror(errno));
		return ksft_exit_fail();
	}
	ncpu = td_nr_cpus(fd);
	close(fd);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	sh->max_ops = max_ops;
	t0 = td_now_ns();
	sh->deadline_ns = t0 + secs * 1000000000ull;
	signal(SIGPIPE, SIG_IGN);

	churn = spawn(churn_entry, seed ^ 0xc0ffee, 0);
	for (int i = 0; i < nproc; i++)
		workers[i] = spawn(worker_process, seed + i, nthr);
	/* Kill and respawn a random worker now and then, mid-operation. */
	kseed = seed ^ 0xdead;
	while (!done()) {
		usleep(300000);
		if (done())
			break;
		if (td_rand_below(&kseed, 2) == 0) {
			int i = td_rand_below(&kseed, nproc);

			kill(workers[i], SIGKILL);
			waitpid(workers[i], NULL, 0);
			atomic_fetch_add(&sh->kills, 1);
			workers[i] = spawn(worker_process, seed + 1000 * ++gen + i, nthr);
		}
	}
	for (int i = 0; i < nproc; i++)
		waitpid(workers[i], NULL, 0);
	waitpid(churn, NULL, 0);

	printf("# fuzz: %lu operations in %.1f s (%lu forks, %lu execs, %lu workers killed)\n",
	       atomic_load(&sh->ops), (td_now_ns() - t0) / 1e9, atomic_load(&sh->forks),
	       atomic_load(&sh->execs), atomic_load(&sh->kills));
	for (int i = 0; i < NR_OPS; i++)
		printf("#   %-18s %8lu tried %8lu succeeded\n", op_names[i],
		       atomic_load(&sh->per_op[i]), atomic_load(&sh->ok[i]));
	td_count("fuzz_ops", atomic_load(&sh->ops));
	td_count("fuzz_forks", atomic_load(&sh->forks));
	td_count("fuzz_execs", atomic_load(&sh->execs));
	td_count("fuzz_kills", atomic_load(&sh->kills));
	if (atomic_load(&sh->violations)) {
		ksft_test_result(false, "fuzz: %lu ABI violations, first: %s\n",
				 atomic_load(&sh->violations), sh->violation);
	} else {
		ksft_test_result(true, "fuzz: %lu operations, no ABI violation (seed %llu)\n",
				 atomic_load(&sh->ops), (unsigned long long)seed);
	}

	/* Whatever happened, the collection must still work. */
	fd = open(TOPDOWN_DEVICE, O_RDWR);
	ioctl(fd, TOPDOWN_IOC_STOP);
	td_cfg_sw(&c, 0);
	if (fd < 0 || ioctl(fd, TOPDOWN_IOC_CONFIGURE, &c) ||
	    ioctl(fd, TOPDOWN_IOC_START) || (usleep(10000), ioctl(fd, TOPDOWN_IOC_STOP)) ||
	    td_status(fd, &st, NULL, 0) || st.state != TOPDOWN_STATE_CONFIGURED || st.reader) {
		ksft_test_result_fail("after the fuzz: configure/start/stop: %s "
				      "(state %u reader %u)\n",
				      strerror(errno), st.state, st.reader);
	} else {
		ksft_test_result_pass("after the fuzz: nothing mapped, no reader, "
				      "configure/start/stop work\n");
	}
	close(fd);
	ksft_finished();
}
