// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl load --events with the real module: the configuration tdctl
 * programs for perf's event syntax, a bad list changing nothing, and
 * exact per-task attribution. With instructions:u (arm64 guest with
 * -icount, where INST_RETIRED is exact) or page-faults:u (any guest),
 * every task's user-mode count in the rings equals a perf counter opened
 * on that task alone (perf_event_open(pid), exclude_kernel) over the same
 * span: from the task's block on a pipe, while the counter is opened,
 * through the sleeps of its work, to its block on another pipe once the
 * work is done.
 *
 * tdctl must be on PATH (or in $TDCTL); the module must not be loaded.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/topdown.h>

#include "kselftest_harness.h"
#include "td_common.h"

#define NCHILD		3
#define MAXCPU		64
#define MAXREC		65536
#define ROUNDS		4

static const char *tdctl(void)
{
	const char *t = getenv("TDCTL");

	return t && *t ? t : "tdctl";
}

/* Run "tdctl ARGS >/tmp/ev.out 2>&1"; its exit status. */
static int run_tdctl(const char *args)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s >/tmp/ev.out 2>&1", tdctl(), args);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void show_output(void)
{
	char line[512];
	FILE *f = fopen("/tmp/ev.out", "r");

	while (f && fgets(line, sizeof(line), f))
		printf("#   %s", line);
	if (f)
		fclose(f);
}

static bool output_has(const char *s)
{
	char buf[8192];
	FILE *f = fopen("/tmp/ev.out", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return strstr(buf, s);
}

static void unload(void)
{
	if (!access("/sys/module/topdown", F_OK))
		run_tdctl("unload");
}

static int get_config(struct topdown_config *cfg)
{
	int fd = open(TOPDOWN_DEVICE, O_RDONLY);
	int ret;

	if (fd < 0)
		return -1;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	ret = ioctl(fd, TOPDOWN_IOC_GET_CONFIG, cfg);
	close(fd);
	return ret;
}

static long perf_open(struct perf_event_attr *a, pid_t pid)
{
	return syscall(SYS_perf_event_open, a, pid, -1, -1, 0);
}

TEST(load_events_programs_perf_syntax)
{
	static const struct {
		uint32_t type, flags;
		uint64_t config;
		const char *name;
	} want[] = {
		{ PERF_TYPE_SOFTWARE, 0, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock" },
		{ PERF_TYPE_SOFTWARE, TOPDOWN_EVENT_EXCLUDE_USER,
		  PERF_COUNT_SW_CONTEXT_SWITCHES, "cs:k" },
		{ PERF_TYPE_SOFTWARE, TOPDOWN_EVENT_EXCLUDE_KERNEL,
		  PERF_COUNT_SW_PAGE_FAULTS, "Page-Faults:u" },
		{ PERF_TYPE_SOFTWARE, 0, PERF_COUNT_SW_TASK_CLOCK,
		  "task-clock:uk" },
	};
	struct topdown_config cfg;
	int st;

	unload();
	st = run_tdctl("load -e cpu-clock,cs:k -e Page-Faults:u,task-clock:uk");
	if (st)
		show_output();
	ASSERT_EQ(0, st);
	ASSERT_EQ(0, get_config(&cfg));
	EXPECT_STREQ("set=events", cfg.label);
	ASSERT_EQ(4, cfg.nr_events);
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(want[i].type, cfg.events[i].type);
		EXPECT_EQ(want[i].config, cfg.events[i].config);
		EXPECT_EQ(want[i].flags, cfg.events[i].flags);
		EXPECT_STREQ(want[i].name, cfg.events[i].name);
	}
	unload();
}

TEST(bad_event_lists_change_nothing)
{
	static const char *const bad[][2] = {
		{ "-e cycles:p", "modifier 'p'" },
		/* Groups are accepted now (groups_test); a broken one is not. */
		{ "-e '{cycles,instructions'", "without its '}'" },
		{ "-e sched:sched_switch", "tracepoint" },
		{ "-e no_such_event", "unknown event 'no_such_event'" },
		{ "-e r1,r2,r3,r4,r5,r6,r7,r8,r9", "at most 8" },
		{ "--set generic -e cycles", "exclude each other" },
		{ "--set no_such_set", "no_such_set" },
	};
	char args[256];

	unload();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(args, sizeof(args), "load %s", bad[i][0]);
		EXPECT_NE(0, run_tdctl(args)) TH_LOG("%s accepted", args);
		EXPECT_TRUE(output_has(bad[i][1]))
		{
			TH_LOG("tdctl %s: no '%s' in:", args, bad[i][1]);
			show_output();
		}
		EXPECT_NE(0, access("/sys/module/topdown", F_OK))
			TH_LOG("tdctl %s loaded the module", args);
	}
}

/* ---- exact per-task attribution ---------------------------------------- */

/* A loop with a fixed instruction count per iteration. */
static void __attribute__((noinline)) spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		__asm__ volatile("" ::: "memory");
}

/*
 * Child i's work: ROUNDS rounds of a loop and fresh pages touched, each
 * ending in a short sleep, so that its counts span several slices.
 */
static void work(int i)
{
	size_t pages = 16 * (i + 1), pg = TD_PAGE;
	char *m = mmap(NULL, pages * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	for (int round = 0; round < ROUNDS; round++) {
		spin(100000 * (i + 1));
		for (size_t p = round; m != MAP_FAILED && p < pages; p += ROUNDS)
			m[p * pg] = 1;
		sched_yield();
		usleep(1000);
	}
}

struct rings {
	int fd, ncpu;
	struct td_ring r[MAXCPU];
	pid_t pid[NCHILD];
	struct topdown_record *rec;	/* the children's, in arrival order */
	int n;
};

/* Consume every ring; keep the children's records. */
static void drain(struct rings *rs)
{
	struct topdown_record buf[256];
	int got;

	for (int cpu = 0; cpu < rs->ncpu; cpu++) {
		while ((got = td_ring_drain(&rs->r[cpu], buf, 256)) > 0) {
			for (int k = 0; k < got; k++) {
				for (int c = 0; c < NCHILD; c++) {
					if (buf[k].pid != (uint32_t)rs->pid[c] ||
					    rs->n >= MAXREC)
						continue;
					rs->rec[rs->n++] = buf[k];
				}
			}
		}
	}
}

/* pid's blocking (not preempted) slices that ended after time t. */
static int blocked_after(const struct rings *rs, pid_t pid, uint64_t t)
{
	int n = 0;

	for (int k = 0; k < rs->n; k++)
		n += rs->rec[k].pid == (uint32_t)pid &&
		     rs->rec[k].time_ns > t &&
		     !(rs->rec[k].flags & TOPDOWN_REC_PREEMPTED);
	return n;
}

/* Until pid sleeps and the rings hold a blocking slice after time t. */
static int wait_blocked(struct rings *rs, pid_t pid, uint64_t t)
{
	for (int tries = 0; tries < 10000; tries++) {
		drain(rs);
		if (blocked_after(rs, pid, t) && td_proc_state(pid) == 'S')
			return 0;
		usleep(1000);
	}
	printf("# pid %d: no blocking slice after %llu, state %c, %d records\n",
	       pid, (unsigned long long)t, td_proc_state(pid), rs->n);
	return -1;
}

static int cmp_time(const void *a, const void *b)
{
	const struct topdown_record *x = a, *y = b;

	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/*
 * pid's count from the rings over the perf counter's span: the slices
 * after its first blocking slice (in read(go), before the counter was
 * opened), up to and including its first blocking slice that ended after
 * time done (in read(rel): the work, its sleeps included, ended at done).
 */
static uint64_t window_sum(struct rings *rs, pid_t pid, uint64_t done,
			   int *slices, int *errors)
{
	bool in = false;
	uint64_t sum = 0;

	qsort(rs->rec, rs->n, sizeof(rs->rec[0]), cmp_time);
	*slices = 0;
	*errors = 0;
	for (int k = 0; k < rs->n; k++) {
		const struct topdown_record *r = &rs->rec[k];
		bool blocked = !(r->flags & TOPDOWN_REC_PREEMPTED);

		if (r->pid != (uint32_t)pid)
			continue;
		if (in) {
			sum += r->delta[0];
			(*slices)++;
			*errors += !!(r->flags & TOPDOWN_REC_ERROR_MASK);
			if (blocked && r->time_ns > done)
				break;
		}
		in |= blocked;
	}
	return sum;
}

static void exact(struct __test_metadata *_metadata, const char *event,
		  uint32_t type, uint64_t config)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = type, .config = config,
		.exclude_kernel = 1, .exclude_hv = 1,
	};
	int go[NCHILD][2], done[NCHILD][2], rel[NCHILD][2];
	long pfd[NCHILD];
	uint64_t want[NCHILD], done_ns[NCHILD];
	struct topdown_config cfg;
	struct topdown_status st;
	struct rings rs;
	size_t ring_size;
	char args[128], b = 0;
	long probe;
	int ret;

	probe = perf_open(&a, 0);
	if (probe < 0)
		SKIP(return, "perf_event_open(%s) refused here: %s", event,
		     strerror(errno));
	close(probe);

	unload();
	snprintf(args, sizeof(args), "load -e %s", event);
	ret = run_tdctl(args);
	if (ret)
		show_output();
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, get_config(&cfg));
	ASSERT_EQ(1, cfg.nr_events);
	EXPECT_EQ(type, cfg.events[0].type);
	EXPECT_EQ(config, cfg.events[0].config);
	EXPECT_EQ(TOPDOWN_EVENT_EXCLUDE_KERNEL, cfg.events[0].flags);
	EXPECT_STREQ(event, cfg.events[0].name);

	memset(&rs, 0, sizeof(rs));
	rs.rec = calloc(MAXREC, sizeof(*rs.rec));
	ASSERT_NE(NULL, rs.rec);
	rs.fd = open(TOPDOWN_DEVICE, O_RDWR);
	ASSERT_LE(0, rs.fd);
	ASSERT_EQ(0, td_status(rs.fd, &st, NULL, 0));
	rs.ncpu = st.nr_cpus < MAXCPU ? (int)st.nr_cpus : MAXCPU;
	ring_size = cfg.ring_size ? cfg.ring_size : TOPDOWN_RING_DEFAULT_SIZE;
	for (int cpu = 0; cpu < rs.ncpu; cpu++) {
		ASSERT_EQ(0, td_ring_map(rs.fd, cpu, ring_size, &rs.r[cpu]));
	}
	drain(&rs);

	for (int i = 0; i < NCHILD; i++) {
		ASSERT_EQ(0, pipe(go[i]));
		ASSERT_EQ(0, pipe(done[i]));
		ASSERT_EQ(0, pipe(rel[i]));
		rs.pid[i] = fork();
		ASSERT_LE(0, rs.pid[i]);
		if (!rs.pid[i]) {
			char c;

			prctl(PR_SET_NAME, "td_exact");
			if (read(go[i][0], &c, 1) != 1)
				_exit(1);
			uint64_t t;

			work(i);
			t = td_now_ns();
			if (write(done[i][1], &t, sizeof(t)) != sizeof(t))
				_exit(1);
			if (read(rel[i][0], &c, 1) != 1)
				_exit(1);
			_exit(0);
		}
	}
	/* Each child has blocked in read(go): open its counter now. */
	for (int i = 0; i < NCHILD; i++) {
		ASSERT_EQ(0, wait_blocked(&rs, rs.pid[i], 0))
			TH_LOG("child %d never blocked", rs.pid[i]);
		pfd[i] = perf_open(&a, rs.pid[i]);
		ASSERT_LE(0, pfd[i]) TH_LOG("perf_event_open(pid %d): %s",
					    rs.pid[i], strerror(errno));
	}
	for (int i = 0; i < NCHILD; i++) {
		ASSERT_EQ(1, write(go[i][1], &b, 1));
	}
	/* Each child has done its work and blocked in read(rel). */
	for (int i = 0; i < NCHILD; i++) {
		ASSERT_EQ(sizeof(done_ns[i]),
			  read(done[i][0], &done_ns[i], sizeof(done_ns[i])));
		ASSERT_EQ(0, wait_blocked(&rs, rs.pid[i], done_ns[i]))
			TH_LOG("child %d never blocked again", rs.pid[i]);
		ASSERT_EQ(sizeof(want[i]), read(pfd[i], &want[i], sizeof(want[i])));
		close(pfd[i]);
	}
	for (int i = 0; i < NCHILD; i++) {
		ASSERT_EQ(1, write(rel[i][1], &b, 1));
		ASSERT_EQ(rs.pid[i], waitpid(rs.pid[i], NULL, 0));
	}
	drain(&rs);
	for (int cpu = 0; cpu < rs.ncpu; cpu++) {
		EXPECT_EQ(0, rs.r[cpu].prod->lost)
			TH_LOG("CPU %d lost records", cpu);
	}
	ASSERT_LT(rs.n, MAXREC);

	for (int i = 0; i < NCHILD; i++) {
		int slices, errors;
		uint64_t got = window_sum(&rs, rs.pid[i], done_ns[i], &slices,
					  &errors);

		TH_LOG("task %d: %s perf %llu, topdown %llu in %d slices",
		       rs.pid[i], event, (unsigned long long)want[i],
		       (unsigned long long)got, slices);
		td_count("exact_user_count", got);
		EXPECT_EQ(0, errors);
		EXPECT_LE(2, slices) TH_LOG("the work's sleeps made no slices");
		EXPECT_LT(0, want[i]);
		EXPECT_EQ(want[i], got);
	}
	for (int cpu = 0; cpu < rs.ncpu; cpu++)
		td_ring_unmap(&rs.r[cpu]);
	close(rs.fd);
	free(rs.rec);
	unload();
}

TEST(instructions_u_per_task_equals_perf)
{
	if (!getenv("TD_ICOUNT"))
		SKIP(return, "needs a guest with -icount (TD_ICOUNT=1): INST_RETIRED is exact "
			     "only there");
	exact(_metadata, "instructions:u", PERF_TYPE_HARDWARE,
	      PERF_COUNT_HW_INSTRUCTIONS);
}

TEST(page_faults_u_per_task_equals_perf)
{
	exact(_metadata, "page-faults:u", PERF_TYPE_SOFTWARE,
	      PERF_COUNT_SW_PAGE_FAULTS);
}

TEST_HARNESS_MAIN
