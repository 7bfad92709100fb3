// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end tests of topdown against exact ground truth, with the
 * simulated PMU td_pmusim (selftests/pmusim/): counters, sched_switch
 * probe, rings, tdctl's event-set detection and plan, its ring reader
 * (dump --json) and its aggregation and decoding (decode), in a guest
 * that has no real PMU. Run as root in a QEMU guest; the module is
 * loaded from $TD_PMUSIM_KO (default /selftests/td_pmusim.ko) and removed
 * by the last test. topdown itself must not be loaded at the start.
 *
 * Each vendor test presents td_pmusim as that vendor's core PMU: in a
 * private mount namespace, a fake /proc/cpuinfo, /sys/devices/system/cpu
 * and /sys/bus/event_source/devices (whose core PMU has td_pmusim's type)
 * are bind-mounted over the real ones, the simulator is switched to the
 * vendor's event encodings, and plain `tdctl load` picks and programs the
 * set. Child tasks with known profiles then do known amounts of work
 * while a background timer adds counts to every other task, and the
 * records must give, exactly:
 *
 *   - for each profiled comm: the summed deltas == units * per-unit rate,
 *     every single record proportional to the profile, and the TopDown
 *     fractions (tdctl decode of its records, and each record's metrics)
 *     equal to the hand-computed ones;
 *   - for each CPU and event (conservation): the sum of the record deltas
 *     == the counter's growth over the session, from the value topdown
 *     took as its baseline at START to its value after STOP (the
 *     simulator logs the values its pmu->read() returned);
 *   - every slice of any other task counts a whole, non-zero number of
 *     background units (the simulator adds one at each read), so no
 *     record is lost or emptied, the first one after START included.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/topdown.h>

#include "kselftest_harness.h"
#include "td_common.h"
#include "td_json.h"

#define SIM_DIR		"/sys/kernel/debug/td_pmusim"
#define SIM_NR		8	/* counters of td_pmusim */
#define MAX_CPUS	64
#define MAX_EV		8
#define FAKE		"/tmp/pmusim-fake"
#define RING_SIZE	(4u << 20)
#define NOISE_US	"500"
#define EPS		1e-12

/* ---- small helpers ------------------------------------------------------ */

/*
 * Run argv with stdin from @in (or /dev/null), stdout to @out and stderr
 * to @out.err. Returns the exit status, or -1.
 */
static int run(const char *in, const char *out, const char *const argv[])
{
	char err[512];
	int status;
	pid_t pid;

	snprintf(err, sizeof(err), "%s.err", out);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int i = open(in ? in : "/dev/null", O_RDONLY);
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (i < 0 || o < 0 || e < 0)
			_exit(126);
		dup2(i, 0);
		dup2(o, 1);
		dup2(e, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Print a file as TAP diagnostics. */
static void show(const char *path)
{
	char *s = td_read_file(path);
	char *line, *save = NULL;
	int n = 0;

	if (!s)
		return;
	for (line = strtok_r(s, "\n", &save); line && n < 40;
	     line = strtok_r(NULL, "\n", &save), n++)
		fprintf(stderr, "#   %s: %.200s\n", path, line);
	free(s);
}

static int online_cpus(int *cpus)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int c = 0; c < CPU_SETSIZE && n < MAX_CPUS; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

static int unpin(const int *cpus, int n)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int i = 0; i < n; i++)
		CPU_SET(cpus[i], &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static bool module_loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return access(path, F_OK) == 0;
}

/*
 * Load topdown's test build, told to accept the simulator's type: the
 * shipped module counts core PMUs only, and the simulator is not one (it
 * has no hardware context). tdctl load and modprobe then find it loaded.
 */
static int allow_sim_type(int type)
{
	return td_load_hooks(type);
}

/* Raw counters of every CPU from debugfs counts and reads. */
struct sim_counts {
	uint64_t c[MAX_CPUS][SIM_NR];
	uint64_t ticks[MAX_CPUS];
	uint64_t units[MAX_CPUS];
	uint64_t first[MAX_CPUS][SIM_NR];	/* at each event's first read */
	uint64_t last[MAX_CPUS][SIM_NR];	/* at the latest read */
};

static int sim_read_counts(struct sim_counts *sc)
{
	char *s = td_read_file(SIM_DIR "/counts"), *line, *save = NULL;
	int lines = 0;

	if (!s)
		return -1;
	memset(sc, 0, sizeof(*sc));
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long u, t, r, v[SIM_NR];
		int cpu;

		if (sscanf(line, "cpu %d units %llu ticks %llu reads %llu %llu %llu %llu %llu "
				 "%llu %llu %llu %llu",
			   &cpu, &u, &t, &r, &v[0], &v[1], &v[2], &v[3], &v[4],
			   &v[5], &v[6], &v[7]) != 12 || cpu < 0 || cpu >= MAX_CPUS)
			continue;
		sc->units[cpu] = u;
		sc->ticks[cpu] = t;
		for (int i = 0; i < SIM_NR; i++)
			sc->c[cpu][i] = v[i];
		lines++;
	}
	free(s);
	if (!lines)
		return -1;

	s = td_read_file(SIM_DIR "/reads");
	if (!s)
		return -1;
	lines = 0;
	save = NULL;
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = line, *end;
		int cpu;

		if (sscanf(line, "cpu %d", &cpu) != 1 || cpu < 0 || cpu >= MAX_CPUS)
			continue;
		p = strstr(line, " first ");
		if (!p)
			continue;
		p += strlen(" first ");
		for (int i = 0; i < 2 * SIM_NR; i++) {
			uint64_t v;

			if (i == SIM_NR) {
				if (strncmp(p, " last", 5))
					break;
				p += 5;
			}
			v = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
			if (i < SIM_NR)
				sc->first[cpu][i] = v;
			else
				sc->last[cpu][i - SIM_NR] = v;
			if (i == 2 * SIM_NR - 1)
				lines++;
		}
	}
	free(s);
	return lines ? 0 : -1;
}

/* Index of counter @name in the simulator's current layout, or -1. */
static int sim_index(const char *name)
{
	char *s = td_read_file(SIM_DIR "/layout"), *line, *save = NULL;
	int ret = -1;

	if (!s)
		return -1;
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char n[64];
		int i;

		if (sscanf(line, "%d %63s", &i, n) == 2 && !strcmp(n, name)) {
			ret = i;
			break;
		}
	}
	free(s);
	return ret;
}

/* Work units the simulator counted for the profile of @comm. */
static long long sim_profile_units(const char *comm)
{
	char *s = td_read_file(SIM_DIR "/profiles"), *line, *save = NULL;
	long long ret = -1;
	char key[64];

	if (!s)
		return -1;
	snprintf(key, sizeof(key), "comm=%s units=", comm);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, key, strlen(key)))
			ret = atoll(line + strlen(key));
	free(s);
	return ret;
}

/* ---- machines, profiles and expectations -------------------------------- */

struct metric {
	const char *name;
	double value;
};

/*
 * A task profile: per unit of work, the rate of each event as the
 * simulator is told (true counts) and the raw increments the records must
 * show (the same, except where the modelled hardware has an erratum).
 */
struct profile {
	const char *comm;
	uint64_t rate[MAX_EV];
	uint64_t raw[MAX_EV];
	struct metric m[6];	/* hand-computed; ends at a NULL name */
};

struct machine {
	const char *set;	/* what tdctl must pick by itself */
	const char *layout;	/* td_pmusim layout */
	const char *label;	/* what tdctl must put in the config */
	const char *decode[4];	/* extra `tdctl decode` arguments */
	const char *cpuinfo;	/* one processor block; "%d" is the CPU */
	const char *pmu;	/* core PMU directory name */
	const char *slots;	/* caps/slots, or NULL */
	const char *midr;	/* midr_el1, or NULL */
	int nr;
	const char *ev[MAX_EV];	/* in tdctl's order = layout names */
	struct profile p[2];
};

static const char cpuinfo_skx[] =
	"processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
	"model\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Gold 6148 (td_pmusim)\n"
	"stepping\t: 4\n\n";
static const char cpuinfo_genoa[] =
	"processor\t: %d\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
	"model\t\t: 17\nmodel name\t: AMD EPYC 9654 (td_pmusim)\n"
	"stepping\t: 1\n\n";
static const char cpuinfo_n2_r0p0[] =
	"processor\t: %d\nBogoMIPS\t: 100.00\nFeatures\t: fp asimd\n"
	"CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\n"
	"CPU part\t: 0xd49\nCPU revision\t: 0\n\n";
static const char cpuinfo_n2_r0p3[] =
	"processor\t: %d\nBogoMIPS\t: 100.00\nFeatures\t: fp asimd\n"
	"CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\n"
	"CPU part\t: 0xd49\nCPU revision\t: 3\n\n";

/*
 * intel_skl, 4 slots per cycle: S = 4*cycles, FE = IDQ/S,
 * RET = RETIRE_SLOTS/S, BAD = (ISSUED - RETIRE_SLOTS + 4*RECOVERY)/S,
 * BE = 1 - FE - BAD - RET.
 *   simA: S = 4000: FE 1000/4000, RET 2000/4000, BAD (2300-2000+200)/4000,
 *         BE 500/4000, ipc 1500/1000
 *   simB: S = 8000: FE 500/8000, RET 1000/8000, BAD (1400-1000+100)/8000,
 *         BE 6000/8000, ipc 800/2000
 */
static const struct machine m_intel_skl __attribute__((unused)) = {
	.set = "intel_skl", .layout = "intel_skl",
	.label = "set=intel_skl slots=4",
	.decode = { "--set", "intel_skl", "--slots", "4" },
	.cpuinfo = cpuinfo_skx, .pmu = "cpu",
	.nr = 6,
	.ev = { "cycles", "instructions", "IDQ_UOPS_NOT_DELIVERED.CORE",
		"UOPS_RETIRED.RETIRE_SLOTS", "UOPS_ISSUED.ANY",
		"INT_MISC.RECOVERY_CYCLES" },
	.p = {
		{ "simA", { 1000, 1500, 1000, 2000, 2300, 50 },
		  { 1000, 1500, 1000, 2000, 2300, 50 },
		  { { "retiring", 0.5 }, { "bad_speculation", 0.125 },
		    { "frontend_bound", 0.25 }, { "backend_bound", 0.125 },
		    { "ipc", 1.5 } } },
		{ "simB", { 2000, 800, 500, 1000, 1400, 25 },
		  { 2000, 800, 500, 1000, 1400, 25 },
		  { { "retiring", 0.125 }, { "bad_speculation", 0.0625 },
		    { "frontend_bound", 0.0625 }, { "backend_bound", 0.75 },
		    { "ipc", 0.4 } } },
	},
};

/*
 * amd_zen4, 6 dispatch slots: S = 6*cycles, RET = ex_ret_ops/S,
 * BAD = (disp.all - ex_ret_ops)/S, FE = no_ops_from_fe/S,
 * BE = backend_stalls/S, SMT = smt_contention/S.
 *   simA: S = 768: RET 384, BAD 480-384 = 96, FE 192, BE 48, SMT 48
 *   simB: S = 1536: RET 384, BAD 432-384 = 48, FE 192, BE 768, SMT 144
 */
static const struct machine m_amd_zen4 = {
	.set = "amd_zen4", .layout = "amd_zen4",
	.label = "set=amd_zen4 slots=6",
	.decode = { "--set", "amd_zen4", "--slots", "6" },
	.cpuinfo = cpuinfo_genoa, .pmu = "cpu",
	.nr = 6,
	.ev = { "ls_not_halted_cyc", "de_src_op_disp.all", "ex_ret_ops",
		"de_no_dispatch.no_ops_from_fe",
		"de_no_dispatch.backend_stalls",
		"de_no_dispatch.smt_contention" },
	.p = {
		{ "simA", { 128, 480, 384, 192, 48, 48 },
		  { 128, 480, 384, 192, 48, 48 },
		  { { "retiring", 0.5 }, { "bad_speculation", 0.125 },
		    { "frontend_bound", 0.25 }, { "backend_bound", 0.0625 },
		    { "smt_contention", 0.0625 } } },
		{ "simB", { 256, 432, 384, 192, 768, 144 },
		  { 256, 432, 384, 192, 768, 144 },
		  { { "retiring", 0.25 }, { "bad_speculation", 0.03125 },
		    { "frontend_bound", 0.125 }, { "backend_bound", 0.5 },
		    { "smt_contention", 0.09375 } } },
	},
};

/*
 * arm_neoverse_n2, 5 slots (caps/slots): S = 5*CPU_CYCLES; before r0p3
 * STALL_SLOT and STALL_SLOT_FRONTEND over-count by CPU_CYCLES, which the
 * decoder subtracts (FE', ST'). FE = FE'/S, BE = STALL_SLOT_BACKEND/S,
 * RET = OP_RETIRED/OP_SPEC * (1 - ST'/S), BAD = (1 - OP_RETIRED/OP_SPEC)
 * * (1 - ST'/S), ipc = INST_RETIRED/CPU_CYCLES.
 *   simA: S = 4000, FE' 1000, BE 1000, ST' 2000, OP 1200/1600 = 0.75:
 *         FE .25, BE .25, RET .75 * .5, BAD .25 * .5, ipc 1000/800
 *   simB: S = 8000, FE' 1000, BE 4000, ST' 5000, OP 1000/2000 = 0.5:
 *         FE .125, BE .5, RET .5 * .375, BAD .5 * .375, ipc 400/1600
 * r0p0 raw: STALL_SLOT = ST' + CPU_CYCLES, STALL_SLOT_FRONTEND = FE' +
 * CPU_CYCLES (simA 2800, 1800; simB 6600, 2600).
 */
#define N2_EVENTS { "CPU_CYCLES", "OP_RETIRED", "OP_SPEC", "STALL_SLOT", \
		    "STALL_SLOT_FRONTEND", "STALL_SLOT_BACKEND", "INST_RETIRED" }
#define N2_A_RATE { 800, 1200, 1600, 2000, 1000, 1000, 1000 }
#define N2_B_RATE { 1600, 1000, 2000, 5000, 1000, 4000, 400 }
#define N2_A_M { { "retiring", 0.375 }, { "bad_speculation", 0.125 }, \
		 { "frontend_bound", 0.25 }, { "backend_bound", 0.25 }, \
		 { "ipc", 1.25 } }
#define N2_B_M { { "retiring", 0.1875 }, { "bad_speculation", 0.1875 }, \
		 { "frontend_bound", 0.125 }, { "backend_bound", 0.5 }, \
		 { "ipc", 0.25 } }

static const struct machine m_n2_r0p0 = {
	.set = "arm_neoverse_n2", .layout = "arm_n2_r0p0",
	.label = "set=arm_neoverse_n2 slots=5 rev=r0p0",
	.decode = { "--set", "arm_neoverse_n2", "--revision", "r0p0" },
	.cpuinfo = cpuinfo_n2_r0p0, .pmu = "armv8_pmuv3_0",
	.slots = "0x00000005\n", .midr = "0x00000000410fd490\n",
	.nr = 7, .ev = N2_EVENTS,
	.p = {
		{ "simA", N2_A_RATE, { 800, 1200, 1600, 2800, 1800, 1000, 1000 },
		  N2_A_M },
		{ "simB", N2_B_RATE, { 1600, 1000, 2000, 6600, 2600, 4000, 400 },
		  N2_B_M },
	},
};

static const struct machine m_n2_r0p3 = {
	.set = "arm_neoverse_n2", .layout = "arm_n2_r0p3",
	.label = "set=arm_neoverse_n2 slots=5 rev=r0p3",
	.decode = { "--set", "arm_neoverse_n2", "--revision", "r0p3" },
	.cpuinfo = cpuinfo_n2_r0p3, .pmu = "armv8_pmuv3_0",
	.slots = "0x00000005\n", .midr = "0x00000000410fd493\n",
	.nr = 7, .ev = N2_EVENTS,
	.p = {
		{ "simA", N2_A_RATE, N2_A_RATE, N2_A_M },
		{ "simB", N2_B_RATE, N2_B_RATE, N2_B_M },
	},
};

/*
 * Straight through the UAPI (no tdctl plan): all 8 counters of the
 * "index" layout, raw counts only.
 */
static const struct machine m_index = {
	.layout = "index", .label = "set=pmusim_index",
	.nr = 8,
	.ev = { "ev0", "ev1", "ev2", "ev3", "ev4", "ev5", "ev6", "ev7" },
	.p = {
		{ "simA", { 1, 2, 3, 4, 5, 6, 7, 8 }, { 1, 2, 3, 4, 5, 6, 7, 8 } },
		{ "simB", { 24, 21, 18, 15, 12, 9, 6, 3 },
		  { 24, 21, 18, 15, 12, 9, 6, 3 } },
	},
};

/* ---- the workload -------------------------------------------------------- */

#define CHILDREN_PER_PROFILE	2
#define ITERATIONS		150

/* Units of iteration i: varied, known. */
static uint64_t units_of(int child, int i)
{
	return 1 + (uint64_t)(i * 37 + child * 11) % 97;
}

static uint64_t units_of_child(int child)
{
	uint64_t sum = 0;

	for (int i = 0; i < ITERATIONS; i++)
		sum += units_of(child, i);
	return sum;
}

/*
 * A child named @comm doing known work in many slices: it yields after
 * every unit batch, sleeps now and then and hops between CPUs, so slices
 * of both profiles interleave on every CPU and tasks migrate.
 *
 * It renames itself first, then says so on @ready and waits for a byte
 * on @go (EOF: the test died, it does nothing). The rename has to be over
 * before the collection starts and the background ticks run: the kernel
 * does not write a comm in one store (5.10's strlcpy() copies byte by
 * byte, 6.13 and later copy the name and then zero the rest), so a tick
 * inside prctl() can see "simAim_test", which has no profile. td_pmusim
 * then rightly counts a background unit there, topdown rightly gives it
 * to this task, and the slice's record carries the comm at its end,
 * "simA": a profiled record with a background unit in it.
 */
static void child_work(const char *comm, int child, const int *cpus, int ncpu,
		       int ready, int go)
{
	char buf[32];
	int fd;

	prctl(PR_SET_NAME, comm);
	fd = open(SIM_DIR "/work", O_WRONLY);
	if (fd < 0)
		_exit(10);
	if (write(ready, "r", 1) != 1 || read(go, buf, 1) != 1)
		_exit(12);
	close(ready);
	close(go);
	for (int i = 0; i < ITERATIONS; i++) {
		int len = snprintf(buf, sizeof(buf), "%llu",
				   (unsigned long long)units_of(child, i));

		if (i % 8 == 0 && ncpu > 1)
			td_pin_cpu(cpus[(child + i / 8) % ncpu]);
		if (write(fd, buf, len) != len)
			_exit(11);
		if (i % 5 == 4)
			usleep(100);
		else
			sched_yield();
	}
	_exit(0);
}

/* ---- one collection ------------------------------------------------------ */

struct rec_sum {
	uint64_t sum[MAX_EV];
	int records;
	uint64_t cpus_with_counts;	/* bitmask */
};

struct session {
	const struct machine *m;
	int cpus[MAX_CPUS], ncpu;
	int idx[MAX_EV];		/* simulator counter of event i */
	struct sim_counts t0, t1;
	struct jv *dump;
	uint64_t units[2];		/* expected units per profile */
	char dir[64];
	pid_t pids[2 * CHILDREN_PER_PROFILE];	/* the workload's children */
	int nchildren;
	int go;				/* their start pipe (write end), or -1 */
};

static void cmd_path(const struct session *s, char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", s->dir, name);
}

/* Per-unit rates of the background profile ("*"): every other task. */
static uint64_t bg_rate(int i)
{
	return 3 + 2 * i;
}

static int set_profiles(const struct machine *m, const char *self_comm)
{
	char cmd[512];
	int ret;

	ret = td_write_file(SIM_DIR "/profiles", "clear");
	/* The test, and its children until they rename: counted as nothing. */
	ret = ret ?: td_write_fmt(SIM_DIR "/profiles", "comm=%s", self_comm);
	for (int p = 0; p < 2 && !ret; p++) {
		int n = snprintf(cmd, sizeof(cmd), "comm=%s", m->p[p].comm);

		for (int i = 0; i < m->nr; i++)
			n += snprintf(cmd + n, sizeof(cmd) - n, " %s=%llu", m->ev[i],
				      (unsigned long long)m->p[p].rate[i]);
		ret = td_write_file(SIM_DIR "/profiles", cmd);
	}
	/* Background: every other task, idle included, at timer ticks. */
	if (!ret) {
		int n = snprintf(cmd, sizeof(cmd), "comm=*");

		for (int i = 0; i < m->nr; i++)
			n += snprintf(cmd + n, sizeof(cmd) - n, " %s=%llu", m->ev[i],
				      (unsigned long long)bg_rate(i));
		ret = td_write_file(SIM_DIR "/profiles", cmd);
	}
	return ret;
}

/*
 * Fork the children of both profiles and wait until each has its name
 * (see child_work()); they wait for run_workload(). Returns 0 or -1.
 */
static int spawn_workload(struct session *s)
{
	int ready[2], go[2], n = 2 * CHILDREN_PER_PROFILE, got = 0;
	char c;

	s->units[0] = 0;
	s->units[1] = 0;
	s->nchildren = 0;
	if (pipe(ready))
		return -1;
	if (pipe(go)) {
		close(ready[0]);
		close(ready[1]);
		return -1;
	}
	for (int child = 0; child < n; child++) {
		int p = child / CHILDREN_PER_PROFILE;
		pid_t pid = fork();

		if (pid < 0)
			break;
		if (pid == 0) {
			close(ready[0]);
			close(go[1]);
			child_work(s->m->p[p].comm, child, s->cpus, s->ncpu, ready[1],
				   go[0]);
		}
		s->pids[s->nchildren++] = pid;
		s->units[p] += units_of_child(child);
	}
	close(ready[1]);
	close(go[0]);
	s->go = go[1];
	while (got < s->nchildren && read(ready[0], &c, 1) == 1)
		got++;
	close(ready[0]);
	return s->nchildren == n && got == n ? 0 : -1;
}

/* Start the children; returns 0 when all of them did their work. */
static int run_workload(struct session *s)
{
	int bad = 0;

	for (int i = 0; i < s->nchildren; i++)
		if (write(s->go, "g", 1) != 1)
			bad++;
	close(s->go);
	s->go = -1;
	for (int i = 0; i < s->nchildren; i++) {
		int st;

		if (waitpid(s->pids[i], &st, 0) != s->pids[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			bad++;
	}
	s->nchildren = 0;
	return bad ? -1 : 0;
}

/*
 * Stop the background counting, then switch once on every CPU: from then
 * on no counter changes, and every CPU's last probe read saw its final
 * values. Only after that is the collection stopped.
 */
static int quiesce(struct session *s)
{
	int ret = td_write_file(SIM_DIR "/noise", "0");

	for (int i = 0; i < s->ncpu && !ret; i++) {
		ret = td_pin_cpu(s->cpus[i]);
		usleep(2000);
	}
	return ret ?: unpin(s->cpus, s->ncpu);
}

static int td_stop(void)
{
	int fd = open(TOPDOWN_DEVICE, O_RDWR), ret;

	if (fd < 0)
		return -errno;
	ret = ioctl(fd, TOPDOWN_IOC_STOP) ? -errno : 0;
	close(fd);
	return ret;
}

/* Fake /proc/cpuinfo and sysfs in a private mount namespace. */
static int fake_machine(const struct machine *m, int type, int ncpu_possible)
{
	char path[256], *possible, *online;
	char cpuinfo[8192] = "";
	size_t len = 0;

	if (unshare(CLONE_NEWNS))
		return -1;
	mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL);
	if (td_mkdirs(FAKE) || mount("tmpfs", FAKE, "tmpfs", 0, "mode=0755"))
		return -1;

	for (int c = 0; c < ncpu_possible; c++)
		len += snprintf(cpuinfo + len, sizeof(cpuinfo) - len, m->cpuinfo, c);
	if (td_put_file(FAKE "/cpuinfo", "%s", cpuinfo))
		return -1;

	possible = td_read_file("/sys/devices/system/cpu/possible");
	online = td_read_file("/sys/devices/system/cpu/online");
	if (!possible || !online ||
	    td_put_file(FAKE "/cpu/possible", "%s", possible) ||
	    td_put_file(FAKE "/cpu/present", "%s", possible) ||
	    td_put_file(FAKE "/cpu/online", "%s", online))
		return -1;
	for (int c = 0; m->midr && c < ncpu_possible; c++) {
		snprintf(path, sizeof(path),
			 FAKE "/cpu/cpu%d/regs/identification/midr_el1", c);
		if (td_put_file(path, "%s", m->midr))
			return -1;
	}
	snprintf(path, sizeof(path), FAKE "/pmus/%s/type", m->pmu);
	if (td_put_file(path, "%d\n", type))
		return -1;
	if (m->slots) {
		snprintf(path, sizeof(path), FAKE "/pmus/%s/caps/slots", m->pmu);
		if (td_put_file(path, "%s", m->slots))
			return -1;
		snprintf(path, sizeof(path), FAKE "/pmus/%s/cpus", m->pmu);
		if (td_put_file(path, "%s", possible))
			return -1;
	}
	free(possible);
	free(online);

	if (mount(FAKE "/cpuinfo", "/proc/cpuinfo", NULL, MS_BIND, NULL) ||
	    mount(FAKE "/cpu", "/sys/devices/system/cpu", NULL, MS_BIND, NULL) ||
	    mount(FAKE "/pmus", "/sys/bus/event_source/devices", NULL, MS_BIND, NULL))
		return -1;
	return 0;
}

/*
 * Configure topdown through the UAPI with the simulator's own type, rings
 * of @ring bytes and the configuration @flags, and start.
 */
static int td_configure_index(const struct machine *m, int type, uint32_t ring,
			      uint32_t flags)
{
	struct topdown_config cfg;
	int fd, ret;

	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.flags = flags;
	cfg.nr_events = m->nr;
	cfg.ring_size = ring;
	snprintf(cfg.label, sizeof(cfg.label), "%s", m->label);
	for (int i = 0; i < m->nr; i++) {
		cfg.events[i].type = type;
		cfg.events[i].config = i;
		snprintf(cfg.events[i].name, sizeof(cfg.events[i].name), "%s", m->ev[i]);
	}
	fd = open(TOPDOWN_DEVICE, O_RDWR);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, TOPDOWN_IOC_CONFIGURE, &cfg) || ioctl(fd, TOPDOWN_IOC_START) ?
	      -errno : 0;
	close(fd);
	return ret;
}

static bool near(double a, double b)
{
	return fabs(a - b) <= EPS * (fabs(b) > 1 ? fabs(b) : 1);
}

/* ---- fixtures ------------------------------------------------------------ */

FIXTURE(pmusim) {
	struct session s;
	char self_comm[16];
	int type;
};

FIXTURE_VARIANT(pmusim) {
	const struct machine *m;
	bool through_tdctl;	/* tdctl detects and loads; else the UAPI */
};

#if defined(__x86_64__)
/*
 * cycles and instructions are PERF_TYPE_HARDWARE events: they reach
 * td_pmusim only where no real core PMU takes them first (x86-64 TCG).
 */
FIXTURE_VARIANT_ADD(pmusim, intel_skl) {
	.m = &m_intel_skl, .through_tdctl = true,
};
#endif

FIXTURE_VARIANT_ADD(pmusim, amd_zen4) {
	.m = &m_amd_zen4, .through_tdctl = true,
};

FIXTURE_VARIANT_ADD(pmusim, arm_neoverse_n2_r0p0) {
	.m = &m_n2_r0p0, .through_tdctl = true,
};

FIXTURE_VARIANT_ADD(pmusim, arm_neoverse_n2_r0p3) {
	.m = &m_n2_r0p3, .through_tdctl = true,
};

FIXTURE_VARIANT_ADD(pmusim, uapi_index_8_events) {
	.m = &m_index, .through_tdctl = false,
};

/*
 * The simulator loaded with machine @m's layout and profiles, topdown not;
 * @self_comm (TOPDOWN_COMM_LEN bytes) gets the test's comm, @type the
 * simulator's PMU type.
 */
static void session_setup(struct __test_metadata *_metadata, struct session *s,
			  const struct machine *m, char *self_comm, int *type)
{
	char *comm;

	memset(s, 0, sizeof(*s));
	s->m = m;
	s->go = -1;
	ASSERT_EQ(0, td_load_pmusim()) TH_LOG("loading td_pmusim.ko");
	if (module_loaded("topdown")) {	/* left by an earlier suite */
		const char *const unload[] = { "tdctl", "unload", NULL };

		run(NULL, "/tmp/pmusim.unload", unload);
	}
	ASSERT_FALSE(module_loaded("topdown")) TH_LOG("topdown is loaded already");
	*type = td_pmusim_type();
	ASSERT_LT(0, *type);
	/*
	 * topdown counts core PMUs only; the simulator is not one (it has no
	 * hardware context): the test build of the module is told its type.
	 */
	ASSERT_EQ(0, allow_sim_type(*type)) TH_LOG("loading topdown_hooks.ko");
	s->ncpu = online_cpus(s->cpus);
	ASSERT_LT(0, s->ncpu);
	comm = td_read_file("/proc/self/comm");
	ASSERT_NE(NULL, comm);
	comm[strcspn(comm, "\n")] = '\0';
	snprintf(self_comm, TOPDOWN_COMM_LEN, "%s", comm);
	free(comm);
	snprintf(s->dir, sizeof(s->dir), "/tmp/pmusim.%d", getpid());
	ASSERT_EQ(0, td_mkdirs(s->dir));

	ASSERT_EQ(0, td_write_file(SIM_DIR "/noise", "0"));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/read_tick", "1"));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/layout", s->m->layout));
	ASSERT_EQ(0, set_profiles(s->m, self_comm));
	for (int i = 0; i < s->m->nr; i++) {
		s->idx[i] = sim_index(s->m->ev[i]);
		ASSERT_LE(0, s->idx[i])
			TH_LOG("%s not in layout %s", s->m->ev[i], s->m->layout);
	}
}

static void session_teardown(struct session *s)
{
	const char *const unload[] = { "tdctl", "unload", NULL };
	char out[128];

	td_write_file(SIM_DIR "/noise", "0");
	td_write_file(SIM_DIR "/read_tick", "0");
	jfree(s->dump);
	if (s->go >= 0) {		/* not started: EOF makes them leave */
		close(s->go);
		for (int i = 0; i < s->nchildren; i++)
			waitpid(s->pids[i], NULL, 0);
	}
	snprintf(out, sizeof(out), "%s/teardown", s->dir);
	if (module_loaded("topdown"))
		run(NULL, out, unload);
}

FIXTURE_SETUP(pmusim)
{
	session_setup(_metadata, &self->s, variant->m, self->self_comm, &self->type);
}

FIXTURE_TEARDOWN(pmusim)
{
	session_teardown(&self->s);
}

/* Per-profile and per-CPU sums of the dumped records. */
static void sum_records(struct __test_metadata *_metadata, struct session *s,
			const char *self_comm, struct rec_sum *per_prof,
			uint64_t (*per_cpu)[MAX_EV], int *others)
{
	const struct machine *m = s->m;
	const struct jv *d = s->dump;

	for (int r = 0; r < d->n; r++) {
		const struct jv *rec = d->kids[r], *counts = jget(rec, "counts");
		const char *comm = jstr(jget(rec, "comm"));
		uint64_t cpu, v[MAX_EV];
		bool nonzero = false;
		int p;

		ASSERT_TRUE(ju64(jget(rec, "cpu"), &cpu));
		ASSERT_GT(MAX_CPUS, cpu);
		ASSERT_NE(NULL, comm);
		ASSERT_NE(NULL, counts);
		for (int i = 0; i < m->nr; i++) {
			ASSERT_TRUE(ju64(jget(counts, m->ev[i]), &v[i]))
				TH_LOG("record %d: %s is not a count", r, m->ev[i]);
			per_cpu[cpu][i] += v[i];
			nonzero |= v[i] != 0;
		}
		for (p = 0; p < 2; p++)
			if (!strcmp(comm, m->p[p].comm))
				break;
		if (p == 2 && !strcmp(comm, self_comm)) {
			/* The test itself (its children have their names already). */
			EXPECT_FALSE(nonzero) TH_LOG("record %d of %s counted", r, comm);
			continue;
		}
		if (p == 2) {
			/* Anybody else: whole background units, at least one. */
			(*others)++;
			EXPECT_LE(bg_rate(0), v[0])
				TH_LOG("record %d (%s on CPU %llu): %s=%llu, no background unit",
				       r, comm, (unsigned long long)cpu, m->ev[0],
				       (unsigned long long)v[0]);
			EXPECT_EQ(0, v[0] % bg_rate(0));
			continue;
		}
		per_prof[p].records++;
		if (nonzero)
			per_prof[p].cpus_with_counts |= 1ull << cpu;
		EXPECT_EQ(0, v[0] % m->p[p].raw[0])
			TH_LOG("%s record %d: %s=%llu is not whole units", comm, r,
			       m->ev[0], (unsigned long long)v[0]);
		for (int i = 0; i < m->nr; i++) {
			per_prof[p].sum[i] += v[i];
			/* Every slice is a whole number of this profile's units. */
			EXPECT_EQ(v[i] * m->p[p].raw[0], v[0] * m->p[p].raw[i])
				TH_LOG("%s record %d on CPU %llu: %s=%llu with %s=%llu is not the "
				       "profile",
				       comm, r, (unsigned long long)cpu, m->ev[i],
				       (unsigned long long)v[i], m->ev[0],
				       (unsigned long long)v[0]);
		}
		/* Its metrics, decoded by tdctl per record, are the profile's. */
		for (int k = 0; nonzero && m->p[p].m[k].name; k++) {
			double got;

			ASSERT_TRUE(jdbl(jget(jget(rec, "metrics"), m->p[p].m[k].name), &got))
				TH_LOG("%s record %d: no metric %s", comm, r, m->p[p].m[k].name);
			EXPECT_TRUE(near(got, m->p[p].m[k].value))
				TH_LOG("%s record %d: %s %.17g, expected %.17g", comm, r,
				       m->p[p].m[k].name, got, m->p[p].m[k].value);
		}
	}
}

/* tdctl decode of the summed counts of one profile's records. */
static void check_decode(struct __test_metadata *_metadata, struct session *s, int p,
			 int records)
{
	const struct machine *m = s->m;
	char lines[128], out[128];
	const char *argv[12] = { "tdctl", "--json", "decode" };
	struct jv *res, *metrics;
	uint64_t nlines = 0;
	FILE *f;
	int a = 3;

	cmd_path(s, lines, sizeof(lines), "lines");
	cmd_path(s, out, sizeof(out), "decode");
	f = fopen(lines, "w");
	ASSERT_NE(NULL, f);
	for (int r = 0; r < s->dump->n; r++) {
		const struct jv *rec = s->dump->kids[r], *counts = jget(rec, "counts");

		if (strcmp(jstr(jget(rec, "comm")), m->p[p].comm))
			continue;
		fputc('{', f);
		for (int i = 0; i < m->nr; i++)
			fprintf(f, "%s\"%s\": %s", i ? ", " : "", m->ev[i],
				jget(counts, m->ev[i])->s);
		fputs("}\n", f);
	}
	ASSERT_EQ(0, fclose(f));

	for (int i = 0; i < 4 && m->decode[i]; i++)
		argv[a++] = m->decode[i];
	ASSERT_EQ(0, run(lines, out, argv)) show(out), show(strcat(out, ".err"));
	res = jparse_file(out);
	ASSERT_NE(NULL, res) show(out);
	EXPECT_TRUE(ju64(jget(res, "lines"), &nlines));
	EXPECT_EQ(records, nlines);
	metrics = jget(res, "metrics");
	for (int k = 0; m->p[p].m[k].name; k++) {
		double got = NAN;

		EXPECT_TRUE(jdbl(jget(metrics, m->p[p].m[k].name), &got))
			TH_LOG("%s: no metric %s", m->p[p].comm, m->p[p].m[k].name);
		EXPECT_TRUE(near(got, m->p[p].m[k].value))
			TH_LOG("%s: %s %.17g, expected %.17g", m->p[p].comm,
			       m->p[p].m[k].name, got, m->p[p].m[k].value);
		TH_LOG("%s %s = %.17g (expected %.17g)", m->p[p].comm,
		       m->p[p].m[k].name, got, m->p[p].m[k].value);
	}
	EXPECT_EQ(0, jget(res, "flagged") ? jget(res, "flagged")->n : 0);
	jfree(res);
}

#define OUT_LEN	128	/* the output paths of run() (cmd_path()) */

/*
 * Load and start with tdctl's automatic choice: the set is detected on
 * the faked machine, with its label and events. @out: OUT_LEN bytes.
 */
static void load_tdctl(struct __test_metadata *_metadata, struct session *s, int type,
		       char *out)
{
	const struct machine *m = s->m;
	char ring[32];
	const char *const load[] = { "tdctl", "--json", "load", "--ring-size", ring, NULL };
	struct jv *res, *evs;

	snprintf(ring, sizeof(ring), "%u", RING_SIZE);
	ASSERT_EQ(0, fake_machine(m, type, s->ncpu))
		TH_LOG("faking the machine: %s", strerror(errno));
	ASSERT_EQ(0, sim_read_counts(&s->t0));
	ASSERT_EQ(0, run(NULL, out, load)) {
		show(out);
		show(strcat(out, ".err"));
	}
	res = jparse_file(out);
	ASSERT_NE(NULL, res) show(out);
	EXPECT_STREQ(m->set, jstr(jget(res, "set")));
	EXPECT_STREQ(m->label, jstr(jget(res, "label")));
	evs = jget(res, "events");
	ASSERT_NE(NULL, evs);
	EXPECT_EQ(m->nr, evs->n);
	for (int i = 0; i < m->nr && i < evs->n; i++)
		EXPECT_STREQ(m->ev[i], jstr(evs->kids[i]));
	TH_LOG("tdctl picked %s: %s", jstr(jget(res, "set")), jstr(jget(res, "why")));
	jfree(res);
}

/* After STOP: nothing lost, nothing unreadable; then tdctl's dump (@out: OUT_LEN). */
static void status_and_dump(struct __test_metadata *_metadata, struct session *s, char *out)
{
	const char *const dump[] = { "tdctl", "--json", "dump", NULL };
	struct topdown_cpu_stats stats[MAX_CPUS];
	struct topdown_status st;
	int dev = open(TOPDOWN_DEVICE, O_RDWR);

	ASSERT_LE(0, dev);
	ASSERT_EQ(0, td_status(dev, &st, stats, MAX_CPUS));
	close(dev);
	for (unsigned int c = 0; c < st.nr_stats; c++) {
		EXPECT_EQ(0, stats[c].lost) TH_LOG("CPU %u lost records", c);
		EXPECT_EQ(0, stats[c].read_errors) TH_LOG("CPU %u read errors", c);
	}
	cmd_path(s, out, OUT_LEN, "dump");
	ASSERT_EQ(0, run(NULL, out, dump)) show(strcat(out, ".err"));
	s->dump = jparse_file(out);
	ASSERT_NE(NULL, s->dump);
	ASSERT_EQ(J_ARR, s->dump->t);
	TH_LOG("%d records", s->dump->n);
}

/* Exact per task: units done * the profile's raw increments. */
static void check_exact(struct __test_metadata *_metadata, struct session *s,
			const struct rec_sum *per_prof)
{
	const struct machine *m = s->m;

	for (int p = 0; p < 2; p++) {
		const struct profile *pr = &m->p[p];

		EXPECT_EQ(s->units[p], sim_profile_units(pr->comm));
		EXPECT_LE(CHILDREN_PER_PROFILE, per_prof[p].records);
		if (s->ncpu > 1)	/* they migrated: counts on several CPUs */
			EXPECT_LT(1, __builtin_popcountll(per_prof[p].cpus_with_counts));
		for (int i = 0; i < m->nr; i++) {
			EXPECT_EQ(s->units[p] * pr->raw[i], per_prof[p].sum[i])
				TH_LOG("%s %s: records sum to %llu, expected %llu units * %llu",
				       pr->comm, m->ev[i],
				       (unsigned long long)per_prof[p].sum[i],
				       (unsigned long long)s->units[p],
				       (unsigned long long)pr->raw[i]);
		}
		TH_LOG("%s: %d records, %llu units, %s = %llu", pr->comm,
		       per_prof[p].records, (unsigned long long)s->units[p],
		       m->ev[0], (unsigned long long)per_prof[p].sum[0]);
		if (pr->m[0].name)
			check_decode(_metadata, s, p, per_prof[p].records);
	}
}

/*
 * Conservation: per CPU, the records add up to the counter's growth from
 * topdown's baseline at START (the first read) to its value after STOP,
 * which the session's last read already saw. Returns the background
 * units counted.
 */
static uint64_t check_conservation(struct __test_metadata *_metadata, struct session *s,
				   uint64_t per_cpu[][MAX_EV])
{
	const struct machine *m = s->m;
	uint64_t ticks = 0;

	for (int c = 0; c < s->ncpu; c++) {
		int cpu = s->cpus[c], x0 = s->idx[0];

		ticks += s->t1.ticks[cpu] - s->t0.ticks[cpu];
		for (int i = 0; i < m->nr; i++) {
			int x = s->idx[i];
			uint64_t grew = s->t1.c[cpu][x] - s->t1.first[cpu][x];

			EXPECT_EQ(s->t1.c[cpu][x], s->t1.last[cpu][x])
				TH_LOG("CPU %d %s: %llu counted after the last read",
				       cpu, m->ev[i],
				       (unsigned long long)(s->t1.c[cpu][x] - s->t1.last[cpu][x]));
			EXPECT_LE(s->t0.c[cpu][x], s->t1.first[cpu][x]);
			EXPECT_EQ(grew, per_cpu[cpu][i])
				TH_LOG("CPU %d %s: records sum to %llu, counter grew by %llu",
				       cpu, m->ev[i], (unsigned long long)per_cpu[cpu][i],
				       (unsigned long long)grew);
		}
		TH_LOG("CPU %d: %s grew by %llu (%llu background units), records agree",
		       cpu, m->ev[0], (unsigned long long)(s->t1.c[cpu][x0] - s->t1.first[cpu][x0]),
		       (unsigned long long)(s->t1.ticks[cpu] - s->t0.ticks[cpu]));
	}
	return ticks;
}

TEST_F_TIMEOUT(pmusim, exact_per_task_and_conservation, 300)
{
	struct session *s = &self->s;
	uint64_t per_cpu[MAX_CPUS][MAX_EV] = { { 0 } };
	struct rec_sum per_prof[2];
	char out[OUT_LEN];
	int others = 0;

	memset(per_prof, 0, sizeof(per_prof));
	/* Named before anything counts: see child_work(). */
	ASSERT_EQ(0, spawn_workload(s));
	cmd_path(s, out, sizeof(out), "load");
	if (variant->through_tdctl) {
		load_tdctl(_metadata, s, self->type, out);
	} else {
		const char *const modprobe[] = { "modprobe", "topdown", NULL };

		ASSERT_EQ(0, run(NULL, out, modprobe)) show(strcat(out, ".err"));
		ASSERT_EQ(0, sim_read_counts(&s->t0));
		ASSERT_EQ(0, td_configure_index(s->m, self->type, RING_SIZE, 0));
	}
	ASSERT_EQ(0, td_write_file(SIM_DIR "/noise", NOISE_US));
	ASSERT_EQ(0, run_workload(s));
	ASSERT_EQ(0, quiesce(s));
	ASSERT_EQ(0, td_stop());
	ASSERT_EQ(0, sim_read_counts(&s->t1));
	status_and_dump(_metadata, s, out);
	sum_records(_metadata, s, self->self_comm, per_prof, per_cpu, &others);
	check_exact(_metadata, s, per_prof);
	/* The background really counted, and not on the profiled tasks. */
	EXPECT_LT(0, check_conservation(_metadata, s, per_cpu));
	EXPECT_LT(0, others);
}

/* ---- the simulator on its own, through perf_event_open() ---------------- */

static int perf_open(struct perf_event_attr *a, int cpu)
{
	return syscall(SYS_perf_event_open, a, -1, cpu, -1, 0);
}

TEST(sim_counts_exactly_and_refuses_what_it_cannot_do)
{
	struct perf_event_attr a;
	uint64_t v0, v1;
	int type, fd0, fd1, fd;

	ASSERT_EQ(0, td_load_pmusim());
	type = td_pmusim_type();
	ASSERT_LT(0, type);
	ASSERT_EQ(0, td_write_file(SIM_DIR "/noise", "0"));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/read_tick", "0"));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/layout", "index"));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/profiles", "clear"));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/profiles", "comm=simself ev0=3 ev1=7"));
	ASSERT_EQ(0, prctl(PR_SET_NAME, "simself"));
	ASSERT_EQ(0, td_pin_cpu(0));

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = 0;
	fd0 = perf_open(&a, 0);
	ASSERT_LE(0, fd0) TH_LOG("perf_event_open: %s", strerror(errno));
	a.config = 1;
	fd1 = perf_open(&a, 0);
	ASSERT_LE(0, fd1);
	ASSERT_EQ(0, td_write_file(SIM_DIR "/work", "1000"));
	ASSERT_EQ(sizeof(v0), read(fd0, &v0, sizeof(v0)));
	ASSERT_EQ(sizeof(v1), read(fd1, &v1, sizeof(v1)));
	EXPECT_EQ(3000, v0);
	EXPECT_EQ(7000, v1);

	/* The layout cannot change under live events. */
	EXPECT_EQ(-EBUSY, td_write_file(SIM_DIR "/layout", "amd_zen4"));
	close(fd0);
	close(fd1);

	/* Per-CPU counting only, no sampling, known configs only. */
	a.config = 0;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	EXPECT_EQ(-1, fd);
	a.sample_period = 1000;
	fd = perf_open(&a, 0);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EOPNOTSUPP, errno);
	a.sample_period = 0;
	a.config = 8;
	fd = perf_open(&a, 0);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EINVAL, errno);
	a.config = 0;
	a.config1 = 1;
	fd = perf_open(&a, 0);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EINVAL, errno);

	/* A vendor encoding is accepted only in its layout. */
	a.config1 = 0;
	a.config = 0x1000001a0ull;
	fd = perf_open(&a, 0);
	EXPECT_EQ(-1, fd);
	ASSERT_EQ(0, td_write_file(SIM_DIR "/layout", "amd_zen4"));
	fd = perf_open(&a, 0);
	EXPECT_LE(0, fd);
	if (fd >= 0)
		close(fd);
	ASSERT_EQ(0, td_write_file(SIM_DIR "/layout", "index"));
	EXPECT_EQ(-ENOENT, td_write_file(SIM_DIR "/layout", "no_such_layout"));
	EXPECT_EQ(-EINVAL, td_write_file(SIM_DIR "/profiles", "ev0=1"));
	EXPECT_EQ(-ENOENT, td_write_file(SIM_DIR "/profiles", "comm=x no_such_event=1"));
	EXPECT_EQ(-ERANGE, td_write_file(SIM_DIR "/work", "0"));
}

/*
 * Last (fixtures run in the order they are defined, plain TESTs first):
 * nothing holds the simulator any more (events, files, modules).
 */
/* ---- totals kept in the kernel ------------------------------------------ */

/*
 * TOPDOWN_CONFIG_TOTALS ("Totals" in the UAPI header) with rings of one
 * page that nobody reads: most records are dropped, and the totals must
 * still be exact. The index layout through the UAPI, one group.
 */
FIXTURE(totals) {
	struct session s;
	char self_comm[TOPDOWN_COMM_LEN];
	int type;
};

FIXTURE_SETUP(totals)
{
	session_setup(_metadata, &self->s, &m_index, self->self_comm, &self->type);
}

FIXTURE_TEARDOWN(totals)
{
	session_teardown(&self->s);
}

#define TOTALS_RING	4096u

/* What counter @x grew by on every CPU while topdown counted (@sc after STOP). */
static uint64_t sim_growth(const struct session *s, const struct sim_counts *sc, int x)
{
	uint64_t grew = 0;

	for (int c = 0; c < s->ncpu; c++)
		grew += sc->c[s->cpus[c]][x] - sc->first[s->cpus[c]][x];
	return grew;
}

/* TOPDOWN_IOC_TOTALS into a new array of @cap entries; *err 0 or -errno. */
static struct topdown_total *read_totals(struct topdown_totals *q, uint32_t cap, int *err)
{
	struct topdown_total *t = calloc(cap, sizeof(*t));
	int fd = open(TOPDOWN_DEVICE, O_RDONLY);

	*err = fd < 0 ? -errno : 0;
	if (fd < 0)
		return t;
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->nr_entries = cap;
	q->entry_size = sizeof(*t);
	q->entries_ptr = (uintptr_t)t;
	*err = ioctl(fd, TOPDOWN_IOC_TOTALS, q) ? -errno : 0;
	close(fd);
	return t;
}

/*
 * After waitpid(): wait, at most 2 s, until @n entries of @pid are
 * EXITED. waitpid() returns once the child has notified its exit, which
 * may be before its last switch (on PREEMPT_RT the parent's wake-up can
 * preempt it there); its entry is EXITED once that switch is counted.
 * 0, or -ETIMEDOUT, or the TOTALS call's -errno.
 */
static int wait_exited(pid_t pid, int n)
{
	struct topdown_totals q;
	struct topdown_total *t;
	int err;

	for (int tries = 0; tries < 200; tries++) {
		int exited = 0;

		t = read_totals(&q, 4096, &err);
		for (uint32_t k = 0; !err && k < q.nr_entries; k++)
			exited += (pid_t)t[k].pid == pid && t[k].kind == TOPDOWN_TOTAL_EXITED;
		free(t);
		if (err || exited >= n)
			return err;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

TEST_F_TIMEOUT(totals, exact_with_records_lost, 300)
{
	struct session *s = &self->s;
	const struct machine *m = s->m;
	struct topdown_cpu_stats stats[MAX_CPUS];
	uint64_t grew[MAX_EV] = { 0 }, sum[MAX_EV] = { 0 }, lost = 0;
	const char *const modprobe[] = { "modprobe", "topdown", NULL };
	pid_t pids[2 * CHILDREN_PER_PROFILE];
	struct topdown_totals q;
	struct topdown_total *t;
	struct topdown_status st;
	char out[OUT_LEN];
	uint32_t cap;
	int dev, n, err;

	ASSERT_EQ(0, spawn_workload(s));
	n = s->nchildren;
	memcpy(pids, s->pids, sizeof(pids));
	cmd_path(s, out, sizeof(out), "load");
	ASSERT_EQ(0, run(NULL, out, modprobe)) show(strcat(out, ".err"));
	ASSERT_EQ(0, sim_read_counts(&s->t0));
	ASSERT_EQ(0, td_configure_index(m, self->type, TOTALS_RING, TOPDOWN_CONFIG_TOTALS));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/noise", NOISE_US));
	ASSERT_EQ(0, run_workload(s));
	ASSERT_EQ(0, quiesce(s));
	ASSERT_EQ(0, td_stop());
	ASSERT_EQ(0, sim_read_counts(&s->t1));

	dev = open(TOPDOWN_DEVICE, O_RDONLY);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, td_status(dev, &st, stats, MAX_CPUS));
	close(dev);
	for (unsigned int c = 0; c < st.nr_stats; c++)
		lost += stats[c].lost;
	EXPECT_LT(0, lost) TH_LOG("no record was lost: the test proves nothing");
	TH_LOG("%llu records lost", (unsigned long long)lost);

	cap = st.nr_cpus + TOPDOWN_TOTALS_DEFAULT_TASKS;
	t = read_totals(&q, cap, &err);
	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, err) TH_LOG("TOTALS: %s", strerror(-err));
	EXPECT_EQ(0, q.flags);
	EXPECT_EQ(TOPDOWN_TOTALS_DEFAULT_TASKS, q.pool_tasks);
	EXPECT_EQ(0, q.no_room);
	EXPECT_EQ(sizeof(*t), q.entry_size);
	ASSERT_EQ(st.nr_cpus + q.nr_tasks, q.nr_entries);

	/* Each child: its own work, exactly, though its records were lost. */
	for (int child = 0; child < n; child++) {
		const struct profile *pr = &m->p[child / CHILDREN_PER_PROFILE];
		uint64_t units = units_of_child(child);
		int found = 0;

		for (uint32_t k = st.nr_cpus; k < q.nr_entries; k++) {
			const struct topdown_total *e = &t[k];

			if ((pid_t)e->pid != pids[child])
				continue;
			found++;
			EXPECT_EQ(TOPDOWN_TOTAL_EXITED, e->kind) TH_LOG("pid %d", e->pid);
			EXPECT_STREQ(pr->comm, e->comm);
			EXPECT_EQ(e->slices, e->grp_slices[0]);
			EXPECT_EQ(0, e->unmeasured_ns);
			EXPECT_EQ(e->time_ns, e->grp_time_ns[0]);
			for (int i = 0; i < m->nr; i++) {
				EXPECT_EQ(units * pr->raw[i], e->grp_delta[0][i])
					TH_LOG("%s %d %s: totals %llu, expected %llu units * %llu",
					       pr->comm, e->pid, m->ev[i],
					       (unsigned long long)e->grp_delta[0][i],
					       (unsigned long long)units,
					       (unsigned long long)pr->raw[i]);
			}
			TH_LOG("%s %d: %llu slices, %s = %llu", pr->comm, e->pid,
			       (unsigned long long)e->slices, m->ev[0],
			       (unsigned long long)e->grp_delta[0][0]);
		}
		EXPECT_EQ(1, found) TH_LOG("entries of child %d", pids[child]);
	}

	/*
	 * Conservation: the tasks' entries and the OTHER entries add up to
	 * what the counters grew by on every CPU, from topdown's baseline at
	 * START to their values after STOP.
	 */
	for (uint32_t k = 0; k < q.nr_entries; k++) {
		for (int i = 0; i < m->nr; i++)
			sum[i] += t[k].grp_delta[0][i];
		if (k < st.nr_cpus)
			EXPECT_EQ(TOPDOWN_TOTAL_OTHER, t[k].kind) TH_LOG("entry %u", k);
	}
	for (int i = 0; i < m->nr; i++) {
		grew[i] = sim_growth(s, &s->t1, s->idx[i]);
		EXPECT_EQ(grew[i], sum[i])
			TH_LOG("%s: the entries %llu, the counters grew by %llu", m->ev[i],
			       (unsigned long long)sum[i], (unsigned long long)grew[i]);
	}
	TH_LOG("%u task entries; %s: %llu in all", q.nr_tasks, m->ev[0],
	       (unsigned long long)grew[0]);
	free(t);
}

/* The configuration's and TOPDOWN_IOC_TOTALS's fields, each checked. */
TEST_F(totals, refuses_bad_input)
{
	const char *const modprobe[] = { "modprobe", "topdown", NULL };
	struct topdown_config cfg;
	struct topdown_totals q;
	struct topdown_total one;
	char out[OUT_LEN];
	int fd;

	cmd_path(&self->s, out, sizeof(out), "load");
	ASSERT_EQ(0, run(NULL, out, modprobe)) show(strcat(out, ".err"));
	fd = open(TOPDOWN_DEVICE, O_RDWR);
	ASSERT_LE(0, fd);
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.nr_events = 1;
	cfg.events[0].type = self->type;
	snprintf(cfg.events[0].name, sizeof(cfg.events[0].name), "ev0");
	snprintf(cfg.label, sizeof(cfg.label), "set=pmusim_index");

	/* Nothing configured, then configured without totals: ENODATA. */
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	EXPECT_EQ(-1, ioctl(fd, TOPDOWN_IOC_TOTALS, &q));
	EXPECT_EQ(ENODATA, errno);
	ASSERT_EQ(0, ioctl(fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, ioctl(fd, TOPDOWN_IOC_START));
	EXPECT_EQ(-1, ioctl(fd, TOPDOWN_IOC_TOTALS, &q));
	EXPECT_EQ(ENODATA, errno);
	ASSERT_EQ(0, ioctl(fd, TOPDOWN_IOC_STOP));

	/* totals_tasks: without the flag, not a power of two, out of range. */
	cfg.totals_tasks = 128;
	EXPECT_EQ(-1, ioctl(fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
	cfg.flags = TOPDOWN_CONFIG_TOTALS;
	for (unsigned int i = 0; i < 4; i++) {
		static const uint32_t bad[] = {
			100, TOPDOWN_TOTALS_MIN_TASKS / 2, TOPDOWN_TOTALS_MAX_TASKS * 2, 3,
		};

		cfg.totals_tasks = bad[i];
		EXPECT_EQ(-1, ioctl(fd, TOPDOWN_IOC_CONFIGURE, &cfg)) TH_LOG("%u", bad[i]);
		EXPECT_EQ(EINVAL, errno);
	}
	cfg.totals_tasks = 0;
	cfg.__reserved2 = 1;
	EXPECT_EQ(-1, ioctl(fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EINVAL, errno);
	cfg.__reserved2 = 0;
	ASSERT_EQ(0, ioctl(fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	/* GET_CONFIG: the default resolved. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	ASSERT_EQ(0, ioctl(fd, TOPDOWN_IOC_GET_CONFIG, &cfg));
	EXPECT_EQ(TOPDOWN_TOTALS_DEFAULT_TASKS, cfg.totals_tasks);
	EXPECT_EQ(TOPDOWN_CONFIG_TOTALS, cfg.flags);
	/* Configured, never started: no totals yet. */
	EXPECT_EQ(-1, ioctl(fd, TOPDOWN_IOC_TOTALS, &q));
	EXPECT_EQ(ENODATA, errno);
	ASSERT_EQ(0, ioctl(fd, TOPDOWN_IOC_START));

	/* The query: its size, flags and entry size. */
	memset(&q, 0, sizeof(q));
	q.size = TOPDOWN_TOTALS_SIZE_VER0 - 8;
	EXPECT_EQ(-1, ioctl(fd, TOPDOWN_IOC_TOTALS, &q));
	EXPECT_EQ(EINVAL, errno);
	q.size = sizeof(q);
	q.flags = 1;
	EXPECT_EQ(-1, ioctl(fd, TOPDOWN_IOC_TOTALS, &q));
	EXPECT_EQ(EINVAL, errno);
	q.flags = 0;
	q.entries_ptr = (uintptr_t)&one;
	q.nr_entries = 1;
	q.entry_size = TOPDOWN_TOTAL_SIZE_VER0 - 8;
	EXPECT_EQ(-1, ioctl(fd, TOPDOWN_IOC_TOTALS, &q));
	EXPECT_EQ(EINVAL, errno);
	q.entry_size = 2 * getpagesize();
	EXPECT_EQ(-1, ioctl(fd, TOPDOWN_IOC_TOTALS, &q));
	EXPECT_EQ(E2BIG, errno);
	/* A bad pointer: EFAULT, nothing else. */
	q.entry_size = sizeof(one);
	q.entries_ptr = 8;
	EXPECT_EQ(-1, ioctl(fd, TOPDOWN_IOC_TOTALS, &q));
	EXPECT_EQ(EFAULT, errno);
	/* Room for one entry: CPU 0's TOPDOWN_TOTAL_OTHER; the counts say the rest. */
	usleep(20000);		/* this test's slices, at least one */
	memset(&one, 0xa5, sizeof(one));
	q.entries_ptr = (uintptr_t)&one;
	ASSERT_EQ(0, ioctl(fd, TOPDOWN_IOC_TOTALS, &q));
	EXPECT_EQ(1, q.nr_entries);
	EXPECT_EQ(TOPDOWN_TOTAL_OTHER, one.kind);
	EXPECT_EQ(0, one.cpu);
	EXPECT_EQ(TOPDOWN_TOTALS_DEFAULT_TASKS, q.pool_tasks);
	EXPECT_LT(0, q.nr_tasks);	/* this test, at least */
	/* No array: the counts alone. */
	q.entries_ptr = 0;
	q.nr_entries = 5;
	ASSERT_EQ(0, ioctl(fd, TOPDOWN_IOC_TOTALS, &q));
	EXPECT_EQ(0, q.nr_entries);
	EXPECT_EQ(sizeof(one), q.entry_size);
	/* The read-only descriptor reads them too. */
	close(fd);
	fd = open(TOPDOWN_DEVICE, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, TOPDOWN_IOC_TOTALS, &q));
	close(fd);
	ASSERT_EQ(0, td_stop());
}

/*
 * The totals of a collection stay readable, unchanged, after STOP; the
 * next START begins a new pool: a task that exited in the collection
 * before is not in it, and nothing was folded.
 */
TEST_F(totals, stop_keeps_them_start_begins_anew)
{
	const char *const modprobe[] = { "modprobe", "topdown", NULL };
	struct topdown_totals q, q2;
	struct topdown_total *t, *t2;
	const struct topdown_total *was = NULL;
	char out[OUT_LEN];
	int err, fd;
	pid_t kid;

	cmd_path(&self->s, out, sizeof(out), "load");
	ASSERT_EQ(0, run(NULL, out, modprobe)) show(strcat(out, ".err"));
	ASSERT_EQ(0, td_configure_index(self->s.m, self->type, TOTALS_RING,
					TOPDOWN_CONFIG_TOTALS));
	kid = fork();
	ASSERT_LE(0, kid);
	if (!kid) {
		for (int i = 0; i < 5; i++)
			usleep(1000);
		_exit(0);
	}
	ASSERT_EQ(kid, waitpid(kid, NULL, 0));
	ASSERT_EQ(0, wait_exited(kid, 1));
	ASSERT_EQ(0, td_stop());

	t = read_totals(&q, 4096, &err);
	ASSERT_EQ(0, err) TH_LOG("TOTALS after STOP: %s", strerror(-err));
	for (uint32_t k = 0; k < q.nr_entries; k++)
		if ((pid_t)t[k].pid == kid && t[k].kind != TOPDOWN_TOTAL_OTHER)
			was = &t[k];
	ASSERT_NE(NULL, was) TH_LOG("no entry of the child %d after STOP", kid);
	EXPECT_EQ(TOPDOWN_TOTAL_EXITED, was->kind);
	EXPECT_LT(0, was->slices);
	usleep(20000);
	t2 = read_totals(&q2, 4096, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(q.nr_entries, q2.nr_entries);
	EXPECT_EQ(0, memcmp(t, t2, q.nr_entries * sizeof(*t)))
		TH_LOG("the totals changed while stopped");
	free(t2);

	fd = open(TOPDOWN_DEVICE, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, TOPDOWN_IOC_START)) TH_LOG("START: %s", strerror(errno));
	close(fd);
	ASSERT_EQ(0, td_stop());
	t2 = read_totals(&q2, 4096, &err);
	ASSERT_EQ(0, err);
	for (uint32_t k = 0; k < q2.nr_entries; k++)
		EXPECT_NE(kid, (pid_t)t2[k].pid) TH_LOG("the child's entry outlived START");
	EXPECT_EQ(0, q2.generation);
	EXPECT_EQ(0, q2.reclaimed);
	TH_LOG("child %d: %llu slices before; %u task entries after START, %u before",
	       kid, (unsigned long long)was->slices, q2.nr_tasks, q.nr_tasks);
	free(t2);
	free(t);
}

/* A child that sleeps @naps times 1 ms and exits; its pid, or -1. */
static pid_t napper(int naps)
{
	pid_t kid = fork();

	if (!kid) {
		for (int i = 0; i < naps; i++)
			usleep(1000);
		_exit(0);
	}
	return kid;
}

/*
 * A pid used again by a new task: the totals key on the task, so the
 * new one has an entry of its own, not the old one's sums. The second
 * child is given the first one's pid through ns_last_pid (root, as the
 * guests run).
 */
TEST_F(totals, pid_reuse_keeps_two_tasks)
{
	const char *const modprobe[] = { "modprobe", "topdown", NULL };
	const struct topdown_total *e[2];
	struct topdown_totals q;
	struct topdown_total *t;
	char out[OUT_LEN], last[32];
	pid_t a, b = -1;
	int err, n = 0;

	cmd_path(&self->s, out, sizeof(out), "load");
	ASSERT_EQ(0, run(NULL, out, modprobe)) show(strcat(out, ".err"));
	ASSERT_EQ(0, td_configure_index(self->s.m, self->type, TOTALS_RING,
					TOPDOWN_CONFIG_TOTALS));
	a = napper(5);
	ASSERT_LT(0, a);
	ASSERT_EQ(a, waitpid(a, NULL, 0));
	ASSERT_EQ(0, wait_exited(a, 1));
	/* Another task may take the pid first: a few tries. */
	for (int tries = 0; tries < 20 && b != a; tries++) {
		snprintf(last, sizeof(last), "%d", a - 1);
		err = td_write_file("/proc/sys/kernel/ns_last_pid", last);
		if (err)
			SKIP(return, "cannot write /proc/sys/kernel/ns_last_pid: %s",
			     strerror(-err));
		b = napper(9);
		ASSERT_LT(0, b);
		if (b != a)
			ASSERT_EQ(b, waitpid(b, NULL, 0));
	}
	ASSERT_EQ(a, b) TH_LOG("pid %d not given again", a);
	ASSERT_EQ(b, waitpid(b, NULL, 0));
	ASSERT_EQ(0, wait_exited(a, 2));
	ASSERT_EQ(0, td_stop());

	t = read_totals(&q, 4096, &err);
	ASSERT_EQ(0, err) TH_LOG("TOTALS: %s", strerror(-err));
	for (uint32_t k = 0; k < q.nr_entries; k++)
		if ((pid_t)t[k].pid == a && t[k].kind != TOPDOWN_TOTAL_OTHER && n < 2)
			e[n++] = &t[k];
	ASSERT_EQ(2, n) TH_LOG("entries of pid %d", a);
	EXPECT_NE(e[0]->start_ns, e[1]->start_ns);
	for (int i = 0; i < 2; i++) {
		EXPECT_EQ(TOPDOWN_TOTAL_EXITED, e[i]->kind);
		EXPECT_LT(0, e[i]->slices);
	}
	/* Neither folded into the other's slot. */
	EXPECT_EQ(0, q.reclaimed);
	EXPECT_EQ(0, q.generation);
	TH_LOG("pid %d twice: entries of %llu and %llu slices", a,
	       (unsigned long long)e[0]->slices, (unsigned long long)e[1]->slices);
	free(t);
}

/*
 * A pool of TOPDOWN_TOTALS_MIN_TASKS entries: short-lived tasks, many more
 * than its room one after another, reuse the rooms of the exited ones
 * (reclaimed); as many alive at once as the pool holds find no room
 * (no_room). Either way the counts stay: conservation, exactly.
 */
TEST_F_TIMEOUT(totals, small_pool_reclaims_and_overflows, 300)
{
	const char *const modprobe[] = { "modprobe", "topdown", NULL };
	uint64_t grew, sum = 0;
	struct topdown_config cfg;
	struct topdown_totals q;
	struct topdown_total *t;
	int fd, err, hold[2];
	char out[OUT_LEN];
	pid_t kids[2 * TOPDOWN_TOTALS_MIN_TASKS];

	cmd_path(&self->s, out, sizeof(out), "load");
	ASSERT_EQ(0, run(NULL, out, modprobe)) show(strcat(out, ".err"));
	fd = open(TOPDOWN_DEVICE, O_RDWR);
	ASSERT_LE(0, fd);
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.flags = TOPDOWN_CONFIG_TOTALS;
	cfg.totals_tasks = TOPDOWN_TOTALS_MIN_TASKS;
	cfg.ring_size = TOTALS_RING;
	cfg.nr_events = 1;
	cfg.events[0].type = self->type;
	snprintf(cfg.events[0].name, sizeof(cfg.events[0].name), "ev0");
	snprintf(cfg.label, sizeof(cfg.label), "set=pmusim_index");
	ASSERT_EQ(0, ioctl(fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, ioctl(fd, TOPDOWN_IOC_START));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/noise", NOISE_US));

	/* One after another: four pools' worth of tasks. */
	for (int i = 0; i < 4 * TOPDOWN_TOTALS_MIN_TASKS; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid) {
			usleep(200);
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	}
	/* Then twice the pool alive at once, each switching a few times. */
	ASSERT_EQ(0, pipe(hold));
	for (int i = 0; i < 2 * TOPDOWN_TOTALS_MIN_TASKS; i++) {
		kids[i] = fork();
		ASSERT_LE(0, kids[i]);
		if (!kids[i]) {
			char c;

			close(hold[1]);
			for (int k = 0; k < 4; k++)
				usleep(500);
			_exit(read(hold[0], &c, 1) == 0 ? 0 : 1);
		}
	}
	close(hold[0]);
	usleep(100000);
	close(hold[1]);
	for (int i = 0; i < 2 * TOPDOWN_TOTALS_MIN_TASKS; i++)
		ASSERT_EQ(kids[i], waitpid(kids[i], NULL, 0));
	ASSERT_EQ(0, quiesce(&self->s));
	ASSERT_EQ(0, ioctl(fd, TOPDOWN_IOC_STOP));
	close(fd);
	ASSERT_EQ(0, sim_read_counts(&self->s.t1));

	t = read_totals(&q, 4096, &err);
	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, err) TH_LOG("TOTALS: %s", strerror(-err));
	EXPECT_EQ(TOPDOWN_TOTALS_MIN_TASKS, q.pool_tasks);
	EXPECT_GE(TOPDOWN_TOTALS_MIN_TASKS, q.nr_tasks);
	EXPECT_LT(0, q.reclaimed);
	EXPECT_LT(0, q.no_room);
	EXPECT_LE(q.reclaimed, q.generation);
	EXPECT_EQ(0, q.flags);
	for (uint32_t k = 0; k < q.nr_entries; k++)
		sum += t[k].grp_delta[0][0];
	grew = sim_growth(&self->s, &self->s.t1, sim_index("ev0"));
	EXPECT_LT(0, grew);
	EXPECT_EQ(grew, sum);
	TH_LOG("%u task entries, %llu reclaimed, %llu slices found no room; ev0 %llu in all",
	       q.nr_tasks, (unsigned long long)q.reclaimed,
	       (unsigned long long)q.no_room, (unsigned long long)grew);
	free(t);
}

FIXTURE(last) {
	int unused;
};

FIXTURE_SETUP(last)
{
}

FIXTURE_TEARDOWN(last)
{
}

TEST_F(last, sim_unloads_cleanly)
{
	char *ev;

	ASSERT_FALSE(module_loaded("topdown"));
	ev = td_read_file(SIM_DIR "/events");
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, atoi(ev));
	free(ev);
	EXPECT_EQ(0, syscall(SYS_delete_module, "td_pmusim", O_NONBLOCK))
		TH_LOG("rmmod td_pmusim: %s", strerror(errno));
	EXPECT_FALSE(module_loaded("td_pmusim"));
}

TEST_HARNESS_MAIN
