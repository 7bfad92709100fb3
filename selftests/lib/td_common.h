/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest-side C tests share (the tests in selftests/kmod/ and the
 * helpers in selftests/guest/): the UAPI spoken directly (no tdctl):
 * configuration, STATUS, ring mapping and draining; CPU pinning, clocks,
 * a seeded random source, and small file helpers for sysfs, debugfs and
 * fake trees. Figures meant for the closing report are printed as
 * "# COUNT <name> <value>" lines; scripts/check.sh adds them up.
 *
 * It uses GNU extensions (sched_setaffinity, CPU_SET): every file that
 * includes it defines _GNU_SOURCE before its first #include.
 */
#ifndef TD_COMMON_H
#define TD_COMMON_H

#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before the first #include (td_common.h needs it)"
#endif

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/topdown.h>

#define TD_PAGE		((size_t)sysconf(_SC_PAGESIZE))
#define TD_NELEM(a)	(sizeof(a) / sizeof((a)[0]))
#define TD_RING_OFF(cpu, page) \
	(TOPDOWN_MMAP_OFFSET(cpu) + (uint64_t)(page) * TD_PAGE)

static inline void td_count(const char *name, unsigned long long v)
{
	printf("# COUNT %s %llu\n", name, v);
	fflush(stdout);
}

static inline uint64_t td_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

/* xorshift64*: small, seeded, reproducible. */
static inline uint64_t td_rand(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static inline uint64_t td_rand_below(uint64_t *s, uint64_t n)
{
	return n ? td_rand(s) % n : 0;
}

static inline void td_cfg_init(struct topdown_config *cfg, uint32_t type,
			       uint64_t config, uint32_t ring_size)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->nr_events = 1;
	cfg->ring_size = ring_size;
	strcpy(cfg->label, "set=selftest");
	cfg->events[0].type = type;
	cfg->events[0].config = config;
	strcpy(cfg->events[0].name, "ev0");
}

static inline void td_cfg_sw(struct topdown_config *cfg, uint32_t ring_size)
{
	td_cfg_init(cfg, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, ring_size);
}

/*
 * STATUS into @st and up to @n per-CPU entries of @stats (none when NULL).
 * td_status_fill() first fills @st with @fill, to see what the kernel
 * writes; td_status() with zeroes.
 */
static inline int td_status_fill(int fd, struct topdown_status *st,
				 struct topdown_cpu_stats *stats, unsigned int n,
				 int fill)
{
	memset(st, fill, sizeof(*st));
	st->size = sizeof(*st);
	st->stats_ptr = (uintptr_t)stats;
	st->nr_stats = stats ? n : 0;
	st->stats_size = sizeof(*stats);
	return ioctl(fd, TOPDOWN_IOC_STATUS, st);
}

static inline int td_status(int fd, struct topdown_status *st,
			    struct topdown_cpu_stats *stats, unsigned int n)
{
	return td_status_fill(fd, st, stats, n, 0);
}

/* The state letter of /proc/PID/stat (R, S, D...), '?' when unreadable. */
static inline char td_proc_state(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* The configured ring size (GET_CONFIG), 0 when the ioctl fails. */
static inline uint32_t td_cur_ring_size(int fd)
{
	struct topdown_config got;

	memset(&got, 0, sizeof(got));
	got.size = sizeof(got);
	if (ioctl(fd, TOPDOWN_IOC_GET_CONFIG, &got))
		return 0;
	return got.ring_size;
}

/* ioctl() as 0 or errno: EXPECT_EQ(EINVAL, xioctl(...)) names the error. */
static inline int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static inline int td_nr_cpus(int fd)
{
	struct topdown_status st;

	if (td_status(fd, &st, NULL, 0))
		return -1;
	return st.nr_cpus;
}

struct td_ring {
	struct topdown_ring_consumer *cons;
	const struct topdown_ring_producer *prod;
	const uint8_t *data;
	size_t data_size;
	size_t map_len;
};

/* Map CPU cpu's ring: consumer page writable, the rest read-only. */
static inline int td_ring_map(int fd, int cpu, size_t data_size,
			      struct td_ring *r)
{
	void *p;

	r->data_size = data_size;
	r->cons = mmap(NULL, TD_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       TD_RING_OFF(cpu, 0));
	if (r->cons == MAP_FAILED)
		return -1;
	r->map_len = TD_PAGE + data_size;
	p = mmap(NULL, r->map_len, PROT_READ, MAP_SHARED, fd, TD_RING_OFF(cpu, 1));
	if (p == MAP_FAILED) {
		munmap(r->cons, TD_PAGE);
		return -1;
	}
	r->prod = p;
	r->data = (const uint8_t *)p + TD_PAGE;
	return 0;
}

static inline void td_ring_unmap(struct td_ring *r)
{
	munmap(r->cons, TD_PAGE);
	munmap((void *)r->prod, r->map_len);
}

/*
 * Copy out up to max unread records and consume them (drop mode). Returns
 * the number copied.
 */
static inline int td_ring_drain(struct td_ring *r, struct topdown_record *out,
				int max)
{
	uint64_t cons = r->cons->consumer_pos;
	uint64_t prod = __atomic_load_n(&r->prod->producer_pos, __ATOMIC_ACQUIRE);
	int n = 0;

	while (cons < prod && n < max) {
		memcpy(&out[n++], r->data + (cons & (r->data_size - 1)),
		       sizeof(*out));
		cons += TOPDOWN_RECORD_SIZE;
	}
	__atomic_store_n(&r->cons->consumer_pos, cons, __ATOMIC_RELEASE);
	return n;
}

static inline void td_busy_ms(int ms)
{
	uint64_t end = td_now_ns() + ms * 1000000ull;

	while (td_now_ns() < end)
		;
}

/* Run the calling thread on @cpu only; 0 or -1 (errno). */
static inline int td_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Write a string to a sysfs/proc file; 0 or -errno. */
static inline int td_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * CPU @cpu online (@on) or offline; retried for up to a second while the
 * kernel answers EBUSY or EAGAIN (a hotplug in progress). 0 or -errno.
 */
static inline int td_set_online(int cpu, int on)
{
	char path[96];
	int ret;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	for (int tries = 0; tries < 50; tries++) {
		ret = td_write_file(path, on ? "1" : "0");
		if (ret != -EBUSY && ret != -EAGAIN)
			return ret;
		usleep(20000);
	}
	return ret;
}

/* td_write_file() of a formatted string (up to 1 KiB). */
static inline __attribute__((format(printf, 2, 3)))
int td_write_fmt(const char *path, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return td_write_file(path, buf);
}

/* A whole file, NUL-terminated, to free(); NULL on error. */
static inline char *td_read_file(const char *path)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *p = realloc(buf, cap * 2);

			if (!p)
				break;
			buf = p;
			cap *= 2;
		}
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* mkdir -p; 0 or -1 (errno). */
static inline int td_mkdirs(const char *path)
{
	char tmp[512];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(tmp, 0755) && errno != EEXIST ? -1 : 0;
}

/* Create @path (and its directories) holding the formatted text; 0 or -1. */
static inline __attribute__((format(printf, 2, 3)))
int td_put_file(const char *path, const char *fmt, ...)
{
	char dir[512], buf[8192];
	va_list ap;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	if (td_mkdirs(dir))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs(buf, f);
	return fclose(f);
}

/*
 * Load the selftests' simulated PMU module (selftests/pmusim/) unless it
 * is loaded: $TD_PMUSIM_KO, default /selftests/td_pmusim.ko. 0 or -errno.
 */
static inline int td_load_pmusim(void)
{
	const char *ko = getenv("TD_PMUSIM_KO");
	int fd, ret;

	if (access("/sys/module/td_pmusim", F_OK) == 0)
		return 0;
	fd = open(ko ? ko : "/selftests/td_pmusim.ko", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* The perf type of the simulated PMU (td_pmusim loaded), or -1. */
static inline int td_pmusim_type(void)
{
	char *s = td_read_file("/sys/bus/event_source/devices/td_pmusim/type");
	int t = s ? atoi(s) : -1;

	free(s);
	return t;
}

/*
 * Do user-mode instructions count here? A hardware PMU that counts them
 * (the arm64 guest under QEMU -icount; x86 TCG has none).
 */
static inline int td_instructions_count(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS, .exclude_kernel = 1,
	};
	uint64_t v = 0;
	int fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0)
		return 0;
	for (volatile int i = 0; i < 100000; i++)
		;
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	close(fd);
	return v > 100000;
}

/*
 * Load topdown's test build, the one with the test hooks (kmod/Kbuild,
 * TD_TEST_HOOKS), in place of the shipped module, which must not be
 * loaded: $TD_HOOKS_KO, default /selftests/topdown_hooks.ko, with
 * test_pmu_type=@pmu_type (-1: none). Its module name is "topdown", so
 * modprobe, tdctl load and rmmod then use it. 0 or -errno.
 */
static inline int td_load_hooks(int pmu_type)
{
	const char *ko = getenv("TD_HOOKS_KO");
	char params[32];
	int fd, ret;

	fd = open(ko ? ko : "/selftests/topdown_hooks.ko", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(params, sizeof(params), "test_pmu_type=%d", pmu_type);
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* The id of the sched:sched_switch trace event, or -1 without tracefs. */
static inline long td_sched_switch_id(void)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/events/sched/sched_switch/id",
		"/sys/kernel/debug/tracing/events/sched/sched_switch/id",
	};

	for (unsigned int i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		FILE *f = fopen(paths[i], "r");
		long id;

		if (!f)
			continue;
		if (fscanf(f, "%ld", &id) == 1) {
			fclose(f);
			return id;
		}
		fclose(f);
	}
	return -1;
}

/* A PREEMPT_RT kernel (its uname -v says so). */
static inline int td_preempt_rt(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.version, "PREEMPT_RT");
}

/* Environment knob with a default (bounds of the loops). */
static inline long td_env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 0) : def;
}

#endif /* TD_COMMON_H */
