// SPDX-License-Identifier: GPL-2.0
/*
 * tdbench: the guest side of `make bench` (see Documentation/performance.rst).
 *
 *   tdbench pipe [options]   two tasks on one CPU pass a token through two
 *                            pipes (perf bench sched pipe); prints one JSON
 *                            line: ns per context switch for each repeat
 *   tdbench td-start SPEC [--ring-size B] [--label L] [--totals N]
 *                            configure /dev/topdown with SPEC and start
 *   tdbench td-stop          stop collecting (module stays loaded)
 *   tdbench td-events        print the current configuration as a SPEC
 *   tdbench spin-task N [-c CPU] --sync PREFIX
 *                            a known workload for the accuracy table: on CPU
 *                            (default 1), after the --sync hand-shake, N
 *                            iterations of the 2-instruction loop, then a
 *                            second hand-shake (PREFIX.done written, blocked
 *                            in open() of the FIFO PREFIX.end) before it
 *                            exits: the tools stop counting in between
 *   tdbench loop N           N iterations of a 2-instruction loop: prints
 *                            ns per instruction (and the INST_RETIRED count
 *                            when the PMU has one), to check that guest time
 *                            is the instruction count under -icount
 *
 * SPEC is a comma-separated list of perf events TYPE:CONFIG, numbers in
 * decimal or 0x hex (0:0x1 is PERF_TYPE_HARDWARE instructions, 1:0 is
 * cpu-clock, 8:0x11 armv8_pmuv3 CPU_CYCLES where that PMU's type is 8).
 *
 * pipe options:
 *   -n ROUNDS      round trips per repeat (default 20000); 2 switches each
 *   -r REPEATS     timed repeats (default 3)
 *   -w WARMUP      untimed round trips first (default 2000)
 *   -c CPU         the CPU both tasks are pinned to (default 1, or 0); both
 *                  run SCHED_BATCH, so no wake-up preemption: every switch
 *                  is a voluntary one (the JSON counts the involuntary
 *                  switches of the timing task per repeat: expect 0)
 *   -m NAME        mode name written into the JSON line
 *   --perf-task SPEC  per-task counters on both tasks (perf stat -p/-t)
 *   --perf-cpu SPEC   one CPU-wide group per online CPU (perf stat -a)
 *   --td-stats     per repeat, the topdown probe statistics of CPU (calls,
 *                  ns, records, lost; group changes and their time) from
 *                  TOPDOWN_IOC_STATUS
 *   --sync PREFIX  after the fork, write "PARENT,CHILD" to PREFIX.pids and
 *                  block until something writes to the FIFO PREFIX.go, so
 *                  that a tool can attach to both tasks first (perf stat -p)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <linux/topdown.h>

#define MAX_REPEATS	64
#define MAX_CPUS	256

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tdbench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct ev {
	uint32_t type;
	uint64_t config;
};

static int parse_spec(const char *spec, struct ev *ev, int max)
{
	char *s = strdup(spec), *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *end;

		if (!colon || n == max)
			die("bad event spec '%s' (TYPE:CONFIG,..., at most %d)",
			    spec, max);
		*colon = '\0';
		errno = 0;
		ev[n].type = (uint32_t)strtoul(tok, &end, 0);
		if (*end || errno)
			die("bad event type '%s'", tok);
		ev[n].config = strtoull(colon + 1, &end, 0);
		if (*end || errno)
			die("bad event config '%s'", colon + 1);
		n++;
	}
	free(s);
	if (!n)
		die("empty event spec");
	return n;
}

static int perf_open(const struct ev *e, pid_t pid, int cpu, int group,
		     bool pinned)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = e->type;
	a.config = e->config;
	a.pinned = pinned;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, group,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		die("perf_event_open(type %u config 0x%" PRIx64 " pid %d cpu %d): %s",
		    e->type, e->config, pid, cpu, strerror(errno));
	return fd;
}

/* Value of a counter; -1 if it never ran (could not be scheduled). */
static int64_t perf_value(int fd)
{
	uint64_t v[3];

	if (read(fd, v, sizeof(v)) != sizeof(v))
		die("reading a perf counter: %s", strerror(errno));
	return v[2] ? (int64_t)v[0] : -1;
}

static int online_cpus(int *cpus)
{
	cpu_set_t set;
	int n = 0;
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	char buf[256];

	CPU_ZERO(&set);
	if (f && fgets(buf, sizeof(buf), f)) {
		char *p = buf;

		while (*p && *p != '\n') {
			int a = (int)strtol(p, &p, 10), b = a;

			if (*p == '-')
				b = (int)strtol(p + 1, &p, 10);
			for (int c = a; c <= b && c < MAX_CPUS; c++)
				cpus[n++] = c;
			if (*p == ',')
				p++;
		}
	}
	if (f)
		fclose(f);
	if (!n)
		die("cannot read /sys/devices/system/cpu/online");
	return n;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("pinning to CPU %d: %s", cpu, strerror(errno));
}

static void xwrite(int fd, const void *b, size_t n)
{
	if (write(fd, b, n) != (ssize_t)n)
		die("pipe write: %s", strerror(errno));
}

static void xread(int fd, void *b, size_t n)
{
	if (read(fd, b, n) != (ssize_t)n)
		die("pipe read: %s", strerror(errno));
}

static int td_open(void)
{
	int fd = open(TOPDOWN_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("open %s: %s", TOPDOWN_DEVICE, strerror(errno));
	return fd;
}

static int td_cpu_stats(int fd, int cpu, struct topdown_cpu_stats *out)
{
	static struct topdown_cpu_stats stats[MAX_CPUS];
	struct topdown_status st;

	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	st.stats_ptr = (uintptr_t)stats;
	st.nr_stats = MAX_CPUS;
	st.stats_size = sizeof(stats[0]);
	if (ioctl(fd, TOPDOWN_IOC_STATUS, &st))
		die("TOPDOWN_IOC_STATUS: %s", strerror(errno));
	if (cpu >= (int)st.nr_stats)
		die("no statistics for CPU %d", cpu);
	*out = stats[cpu];
	return (int)st.state;
}

static void print_u64_array(const char *name, const uint64_t *v, int n)
{
	printf(",\"%s\":[", name);
	for (int i = 0; i < n; i++)
		printf("%s%" PRIu64, i ? "," : "", v[i]);
	printf("]");
}

/*
 * The hand-shake of --sync: the pids go to PREFIX.OUT (written whole, by
 * rename), then the caller blocks in open() of the FIFO PREFIX.IN until a
 * writer opens it: no wake-ups, no time slices while a tool attaches.
 */
static void sync_wait(const char *prefix, const char *out, const char *in,
		      pid_t a, pid_t b)
{
	char path[512], tmp[512], go[512], c;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s.%s", prefix, out);
	snprintf(tmp, sizeof(tmp), "%s.%s.tmp", prefix, out);
	snprintf(go, sizeof(go), "%s.%s", prefix, in);
	unlink(go);
	if (mkfifo(go, 0600))
		die("mkfifo %s: %s", go, strerror(errno));
	f = fopen(tmp, "w");
	if (!f)
		die("%s: %s", tmp, strerror(errno));
	if (b > 0)
		fprintf(f, "%d,%d\n", (int)a, (int)b);
	else
		fprintf(f, "%d\n", (int)a);
	if (fclose(f) || rename(tmp, path))
		die("%s: %s", path, strerror(errno));
	fd = open(go, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("%s: %s", go, strerror(errno));
	while (read(fd, &c, 1) > 0)
		;
	close(fd);
}

static int cmd_pipe(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "perf-task", required_argument, NULL, 'T' },
		{ "perf-cpu", required_argument, NULL, 'C' },
		{ "td-stats", no_argument, NULL, 'S' },
		{ "sync", required_argument, NULL, 'Y' },
		{ NULL, 0, NULL, 0 },
	};
	long rounds = 20000, repeats = 3, warmup = 2000;
	const char *mode = "pipe", *task_spec = NULL, *cpu_spec = NULL;
	const char *sync_prefix = NULL;
	int cpu = -1, opt, p2c[2], c2p[2], nev = 0, ncpus, cpus[MAX_CPUS];
	int task_fd[2][TOPDOWN_MAX_EVENTS], cpu_fd[MAX_CPUS][TOPDOWN_MAX_EVENTS];
	uint64_t ns[MAX_REPEATS], calls[MAX_REPEATS], pns[MAX_REPEATS];
	uint64_t recs[MAX_REPEATS], lost[MAX_REPEATS], invol[MAX_REPEATS];
	uint64_t rots[MAX_REPEATS], rot_ns[MAX_REPEATS];
	struct ev ev[TOPDOWN_MAX_EVENTS];
	bool td_stats = false;
	int tdfd = -1, status;
	char tok = 'x';
	pid_t child;

	while ((opt = getopt_long(argc, argv, "n:r:w:c:m:", opts, NULL)) >= 0) {
		switch (opt) {
		case 'n':
			rounds = atol(optarg);
			break;
		case 'r':
			repeats = atol(optarg);
			break;
		case 'w':
			warmup = atol(optarg);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'm':
			mode = optarg;
			break;
		case 'T':
			task_spec = optarg;
			break;
		case 'C':
			cpu_spec = optarg;
			break;
		case 'S':
			td_stats = true;
			break;
		case 'Y':
			sync_prefix = optarg;
			break;
		default:
			die("usage: tdbench pipe [-n R] [-r N] [-w W] [-c CPU] [-m NAME]"
			    " [--perf-task SPEC|--perf-cpu SPEC] [--td-stats]"
			    " [--sync PREFIX]");
		}
	}
	if (rounds < 1 || repeats < 1 || repeats > MAX_REPEATS || warmup < 0)
		die("bad -n/-r/-w");
	ncpus = online_cpus(cpus);
	if (cpu < 0)
		cpu = ncpus > 1 ? 1 : cpus[0];
	pin(cpu);
	/*
	 * SCHED_BATCH (still CFS): a woken batch task never preempts the
	 * waker, so every switch is the same voluntary one, the waker
	 * blocking in read(). With SCHED_OTHER, wake-up preemption comes
	 * and goes with the two tasks' vruntimes and the path (and the time
	 * per switch) flips between two states some 2% apart.
	 */
	{
		struct sched_param sp = { .sched_priority = 0 };

		if (sched_setscheduler(0, SCHED_BATCH, &sp))
			die("SCHED_BATCH: %s", strerror(errno));
	}
	if (pipe(p2c) || pipe(c2p))
		die("pipe: %s", strerror(errno));

	child = fork();
	if (child < 0)
		die("fork: %s", strerror(errno));
	if (child == 0) {
		close(p2c[1]);
		close(c2p[0]);
		for (;;) {
			ssize_t r = read(p2c[0], &tok, 1);

			if (r == 0)
				_exit(0);
			if (r != 1)
				_exit(1);
			xwrite(c2p[1], &tok, 1);
		}
	}
	close(p2c[0]);
	close(c2p[1]);

	if (task_spec) {
		nev = parse_spec(task_spec, ev, TOPDOWN_MAX_EVENTS);
		for (int i = 0; i < nev; i++) {
			task_fd[0][i] = perf_open(&ev[i], 0, -1, -1, false);
			task_fd[1][i] = perf_open(&ev[i], child, -1, -1, false);
		}
	} else if (cpu_spec) {
		nev = parse_spec(cpu_spec, ev, TOPDOWN_MAX_EVENTS);
		for (int c = 0; c < ncpus; c++) {
			for (int i = 0; i < nev; i++)
				cpu_fd[c][i] = perf_open(&ev[i], -1, cpus[c],
							 i ? cpu_fd[c][0] : -1,
							 false);
		}
	}
	if (td_stats)
		tdfd = td_open();
	if (sync_prefix)
		sync_wait(sync_prefix, "pids", "go", getpid(), child);

	for (long i = 0; i < warmup; i++) {
		xwrite(p2c[1], &tok, 1);
		xread(c2p[0], &tok, 1);
	}
	for (long r = 0; r < repeats; r++) {
		struct topdown_cpu_stats s0, s1;
		struct rusage ru0, ru1;
		uint64_t t0, t1;

		if (td_stats)
			td_cpu_stats(tdfd, cpu, &s0);
		getrusage(RUSAGE_SELF, &ru0);
		t0 = now_ns();
		for (long i = 0; i < rounds; i++) {
			xwrite(p2c[1], &tok, 1);
			xread(c2p[0], &tok, 1);
		}
		t1 = now_ns();
		getrusage(RUSAGE_SELF, &ru1);
		ns[r] = t1 - t0;
		invol[r] = (uint64_t)(ru1.ru_nivcsw - ru0.ru_nivcsw);
		if (td_stats) {
			td_cpu_stats(tdfd, cpu, &s1);
			calls[r] = s1.probe_count - s0.probe_count;
			pns[r] = s1.probe_ns - s0.probe_ns;
			recs[r] = s1.records - s0.records;
			lost[r] = s1.lost - s0.lost;
			rots[r] = s1.rotations - s0.rotations;
			rot_ns[r] = s1.rotation_ns - s0.rotation_ns;
		}
	}
	close(p2c[1]);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("the pipe partner failed");

	printf("{\"mode\":\"%s\",\"cpu\":%d,\"rounds\":%ld,\"switches\":%ld",
	       mode, cpu, rounds, 2 * rounds);
	print_u64_array("ns", ns, (int)repeats);
	print_u64_array("involuntary", invol, (int)repeats);
	if (td_stats) {
		print_u64_array("probe_calls", calls, (int)repeats);
		print_u64_array("probe_ns", pns, (int)repeats);
		print_u64_array("records", recs, (int)repeats);
		print_u64_array("lost", lost, (int)repeats);
		print_u64_array("rotations", rots, (int)repeats);
		print_u64_array("rotation_ns", rot_ns, (int)repeats);
		close(tdfd);
	}
	if (task_spec || cpu_spec) {
		printf(",\"peer\":\"%s\",\"events\":\"%s\",\"counts\":[",
		       task_spec ? "per-task" : "cpu-wide",
		       task_spec ? task_spec : cpu_spec);
		for (int i = 0; i < nev; i++) {
			int64_t v = 0;

			if (task_spec) {
				int64_t a = perf_value(task_fd[0][i]);
				int64_t b = perf_value(task_fd[1][i]);

				v = a < 0 || b < 0 ? -1 : a + b;
			} else {
				for (int c = 0; c < ncpus && v >= 0; c++) {
					int64_t x = perf_value(cpu_fd[c][i]);

					v = x < 0 ? -1 : v + x;
				}
			}
			printf("%s%" PRId64, i ? "," : "", v);
		}
		printf("]");
	}
	printf("}\n");
	return 0;
}

static int cmd_td_start(int argc, char **argv)
{
	struct topdown_config cfg;
	struct ev ev[TOPDOWN_MAX_EVENTS];
	unsigned long ring = 0;
	const char *label = "set=bench";
	unsigned long totals = 0;
	int fd, n;

	if (argc < 2)
		die("usage: tdbench td-start SPEC [--ring-size B] [--label L] [--totals N]");
	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--ring-size"))
			ring = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--label"))
			label = argv[i + 1];
		else if (!strcmp(argv[i], "--totals"))	/* TOPDOWN_CONFIG_TOTALS, N entries */
			totals = strtoul(argv[i + 1], NULL, 0);
		else
			die("unknown option %s", argv[i]);
	}
	n = parse_spec(argv[1], ev, TOPDOWN_MAX_EVENTS);
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.nr_events = (uint32_t)n;
	cfg.ring_size = (uint32_t)ring;
	if (totals) {
		cfg.flags |= TOPDOWN_CONFIG_TOTALS;
		cfg.totals_tasks = (uint32_t)totals;
	}
	snprintf(cfg.label, sizeof(cfg.label), "%s", label);
	for (int i = 0; i < n; i++) {
		cfg.events[i].type = ev[i].type;
		cfg.events[i].config = ev[i].config;
		snprintf(cfg.events[i].name, TOPDOWN_NAME_LEN, "ev%d_%u_0x%" PRIx64,
			 i, ev[i].type, ev[i].config);
	}
	fd = td_open();
	if (ioctl(fd, TOPDOWN_IOC_CONFIGURE, &cfg))
		die("TOPDOWN_IOC_CONFIGURE: %s", strerror(errno));
	if (ioctl(fd, TOPDOWN_IOC_START))
		die("TOPDOWN_IOC_START: %s", strerror(errno));
	close(fd);
	return 0;
}

static int cmd_td_stop(void)
{
	int fd = td_open();

	if (ioctl(fd, TOPDOWN_IOC_STOP) && errno != EALREADY)
		die("TOPDOWN_IOC_STOP: %s", strerror(errno));
	close(fd);
	return 0;
}

static int cmd_td_events(void)
{
	struct topdown_config cfg;
	int fd = td_open();

	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	if (ioctl(fd, TOPDOWN_IOC_GET_CONFIG, &cfg))
		die("TOPDOWN_IOC_GET_CONFIG: %s", strerror(errno));
	close(fd);
	for (uint32_t i = 0; i < cfg.nr_events; i++)
		printf("%s%u:0x%llx", i ? "," : "", cfg.events[i].type,
		       (unsigned long long)cfg.events[i].config);
	printf("\n");
	return 0;
}

/* n iterations of exactly two instructions (decrement, branch). */
static void spin(uint64_t n)
{
#if defined(__aarch64__)
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#elif defined(__x86_64__)
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#else
#error "tdbench: spin() for x86_64 and arm64 only"
#endif
}

static int cmd_loop(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000000ull;
	struct ev inst = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS };
	struct perf_event_attr a;
	uint64_t t0, t1, count = 0;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = inst.type;
	a.config = inst.config;
	a.exclude_kernel = 1;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd >= 0)
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	t0 = now_ns();
	spin(n);
	t1 = now_ns();
	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (read(fd, &count, sizeof(count)) != sizeof(count))
			count = 0;
		close(fd);
	}
	printf("{\"loop_iterations\":%" PRIu64 ",\"loop_insns\":%" PRIu64
	       ",\"ns\":%" PRIu64 ",\"ns_per_insn\":%.4f,\"user_insns_counted\":%" PRIu64 "}\n",
	       n, 2 * n, t1 - t0, (double)(t1 - t0) / (2.0 * n), count);
	return 0;
}

static int cmd_spin_task(int argc, char **argv)
{
	const char *sync_prefix = NULL;
	uint64_t n = 0;
	int cpu = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-c") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--sync") && i + 1 < argc)
			sync_prefix = argv[++i];
		else if (!n)
			n = strtoull(argv[i], NULL, 0);
		else
			die("usage: tdbench spin-task N [-c CPU] --sync PREFIX");
	}
	if (!n || !sync_prefix)
		die("usage: tdbench spin-task N [-c CPU] --sync PREFIX");
	pin(cpu);
	sync_wait(sync_prefix, "pids", "go", getpid(), 0);
	spin(n);
	sync_wait(sync_prefix, "done", "end", getpid(), 0);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		die("usage: tdbench pipe|td-start|td-stop|td-events|loop|spin-task ...");
	if (!strcmp(argv[1], "pipe"))
		return cmd_pipe(argc - 1, argv + 1);
	if (!strcmp(argv[1], "td-start"))
		return cmd_td_start(argc - 1, argv + 1);
	if (!strcmp(argv[1], "td-stop"))
		return cmd_td_stop();
	if (!strcmp(argv[1], "td-events"))
		return cmd_td_events();
	if (!strcmp(argv[1], "loop"))
		return cmd_loop(argc - 1, argv + 1);
	if (!strcmp(argv[1], "spin-task"))
		return cmd_spin_task(argc - 1, argv + 1);
	die("unknown command %s", argv[1]);
	return 1;
}
