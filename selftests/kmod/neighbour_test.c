// SPDX-License-Identifier: GPL-2.0
/*
 * topdown beside other users of the PMU (include/uapi/linux/topdown.h,
 * "Other users of the PMU"): a pinned counter that another program opened
 * and that is counting keeps counting while topdown changes groups and
 * retries its counters in error. It is topdown's counter that waits, and
 * its error bits and STATUS say so.
 *
 *   sim_rotation_*	the simulated PMU (selftests/pmusim) with room for
 *			four counters on CPU 1, so it runs in every guest:
 *			group 0 takes one, group 1 all four; another
 *			user's pinned event opened after START (while
 *			group 0 counts) or before it counts through 50
 *			group changes, and group 1 has error slices
 *   sim_retry_spares_younger
 *			no groups, room for two: topdown's second counter
 *			is in error because an older event holds the room;
 *			that one closes and a younger one takes the room;
 *			topdown's retries (10 of them) leave it counting
 *   hw_rotation_*	the same as sim_rotation_* on the arm64 PMU of the
 *			-icount guest (six general counters and a cycle
 *			counter): groups {cycles} and six raw events
 *			(0x08, 0x00 .. 0x04), and another user's pinned
 *			instructions on CPU 1
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/topdown.h>

#include "kselftest_harness.h"
#include "td_common.h"

#define MAX_CPUS	64
#define CPU		1		/* the CPU the tests fill */
#define ROTATIONS	50		/* group changes an event must survive */
#define RETRIES		10		/* retries (8 at 10 ms, then backing off) */
#define SIM_DIR		"/sys/kernel/debug/td_pmusim"
#define TD_PARAMS	"/sys/module/topdown/parameters"

/* What read() of another user's event returns (0 bytes: perf's ERROR). */
struct other_read {
	uint64_t value, enabled, running;
};

static int other_open(uint32_t type, uint64_t config)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = type, .config = config, .pinned = 1,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
	};

	return syscall(SYS_perf_event_open, &a, -1, CPU, -1, 0);
}

/* 1 and *@r when the event counts, 0 in perf's ERROR state, -1 on error. */
static int other_read(int fd, struct other_read *r)
{
	ssize_t n = read(fd, r, sizeof(*r));

	if (n == sizeof(*r))
		return 1;
	return n == 0 ? 0 : -1;
}

/*
 * Open another user's pinned event on CPU, retrying (at most 2 s) while it
 * finds no room: with groups, it must be opened while group 0 counts.
 */
static int other_open_counting(uint32_t type, uint64_t config)
{
	struct other_read r;

	for (int i = 0; i < 400; i++) {
		int fd = other_open(type, config);

		if (fd < 0)
			return -1;
		if (other_read(fd, &r) == 1)
			return fd;
		close(fd);
		usleep(5000);
	}
	errno = EBUSY;
	return -1;
}

static int cpu_stats(int fd, struct topdown_cpu_stats *s)
{
	static struct topdown_cpu_stats all[MAX_CPUS];
	struct topdown_status st;

	if (td_status(fd, &st, all, MAX_CPUS) || st.nr_stats <= CPU)
		return -1;
	*s = all[CPU];
	return 0;
}

/* Busy on CPU (ticks keep coming, so the rotation work runs there). */
static volatile int spin_stop;

static void *spin(void *arg)
{
	td_pin_cpu(CPU);
	while (!spin_stop) {
		td_busy_ms(1);
		usleep(100);
	}
	return NULL;
}

/*
 * Another user's event @ofd keeps counting while CPU changes group @want
 * times (or, with @retries, while topdown retries its counters in error
 * that many times): it is never in ERROR, and it runs the whole
 * time it is enabled. topdown's group @waits (if >= 0) had slices with
 * unreadable counters.
 */
static void expect_counts_through(struct __test_metadata *_metadata, int tdfd,
				  int ofd, bool retries, uint64_t want, int waits)
{
	struct topdown_cpu_stats s0, s;
	struct other_read r0, r;
	uint64_t done, deadline = td_now_ns() + 120 * 1000000000ull;
	pthread_t th;

	ASSERT_EQ(0, cpu_stats(tdfd, &s0));
	ASSERT_EQ(1, other_read(ofd, &r0));
	spin_stop = 0;
	ASSERT_EQ(0, pthread_create(&th, NULL, spin, NULL));
	do {
		usleep(20000);
		ASSERT_EQ(0, cpu_stats(tdfd, &s));
		done = retries ? s.retries - s0.retries : s.rotations - s0.rotations;
	} while (done < want && td_now_ns() < deadline);
	spin_stop = 1;
	pthread_join(th, NULL);
	EXPECT_LE(want, done)
		TH_LOG("only %llu %s in 120 s", (unsigned long long)done,
		       retries ? "retries" : "group changes");
	ASSERT_EQ(1, other_read(ofd, &r))
		TH_LOG("the other user's event is in ERROR after %llu %s",
		       (unsigned long long)done, retries ? "retries" : "group changes");
	TH_LOG("other user's event over %llu %s: enabled %llu ns, running %llu ns, "
	       "count %llu; topdown: %llu retries, %llu recoveries, group 1 %llu error slices",
	       (unsigned long long)done, retries ? "retries" : "group changes",
	       (unsigned long long)(r.enabled - r0.enabled),
	       (unsigned long long)(r.running - r0.running),
	       (unsigned long long)(r.value - r0.value),
	       (unsigned long long)(s.retries - s0.retries),
	       (unsigned long long)(s.recoveries - s0.recoveries),
	       (unsigned long long)s.grp_error_slices[1]);
	/* Off its counter at most 1% of the time (perf reschedules it). */
	EXPECT_LE((r.enabled - r0.enabled) * 99, (r.running - r0.running) * 100);
	if (waits >= 0)
		EXPECT_LT(0, s.grp_error_slices[waits])
			TH_LOG("group %d never lacked a counter", waits);
}

/* ---- the simulated PMU ------------------------------------------------- */

/*
 * topdown's test build (the one that counts td_pmusim's type) in place of
 * the shipped module, as counters_test's sim fixture does, td_pmusim with
 * its "index" layout (config N on counter N) and no work counted.
 */
FIXTURE(sim) {
	int fd;
	int type;
	bool pmusim_here;
	const char *skip;	/* why the tests cannot run here */
};

/*
 * The harness of 6.1 runs a test's body after its setup SKIPped: the
 * setup says why in self->skip, and each body SKIPs with it.
 */

FIXTURE_SETUP(sim)
{
	self->fd = -1;
	self->skip = NULL;
	self->pmusim_here = false;
	if (sysconf(_SC_NPROCESSORS_ONLN) <= CPU) {
		self->skip = "CPU 1 is not online";
		return;
	}
	self->pmusim_here = access("/sys/module/td_pmusim", F_OK) != 0;
	if (td_load_pmusim()) {
		self->skip = "td_pmusim.ko not loadable";
		return;
	}
	self->type = td_pmusim_type();
	ASSERT_LE(PERF_TYPE_MAX, self->type);
	if (!access("/sys/module/topdown", F_OK))
		ASSERT_EQ(0, syscall(SYS_delete_module, "topdown", O_NONBLOCK))
			TH_LOG("rmmod topdown: %s", strerror(errno));
	if (td_load_hooks(self->type)) {
		self->skip = "topdown_hooks.ko (the test build) not loadable";
		return;
	}
	ASSERT_EQ(0, td_write_file(SIM_DIR "/layout", "index"));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/profiles", "clear"));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/noise", "0"));
	ASSERT_EQ(0, td_write_file(SIM_DIR "/read_tick", "0"));
	ASSERT_EQ(0, td_write_file(TD_PARAMS "/retry_ms", "10"));
	self->fd = open(TOPDOWN_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(sim)
{
	char cmd[32];

	snprintf(cmd, sizeof(cmd), "%d -1", CPU);
	td_write_file(SIM_DIR "/capacity", cmd);
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

static void sim_capacity(int n)
{
	char cmd[32];

	snprintf(cmd, sizeof(cmd), "%d %d", CPU, n);
	td_write_file(SIM_DIR "/capacity", cmd);
}

/*
 * A pool of @npool events of @types[i]/@configs[i] in two groups, {0} and
 * {1 .. npool - 1}, changing every 10 ms.
 */
static void cfg_two_groups(struct topdown_config *c, uint32_t npool,
			   const uint32_t *types, const uint64_t *configs)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->ring_size = 64 << 10;
	c->flags = TOPDOWN_OVERFLOW_OVERWRITE;	/* nobody reads */
	strcpy(c->label, "set=neighbour_test");
	c->nr_events = npool;
	for (uint32_t i = 0; i < npool; i++) {
		c->events[i].type = types[i];
		c->events[i].config = configs[i];
		snprintf(c->events[i].name, sizeof(c->events[i].name), "e%u", i);
	}
	c->nr_groups = 2;
	c->groups[0].nr_events = 1;
	c->groups[0].events[0] = 0;
	c->groups[1].nr_events = npool - 1;
	for (uint32_t i = 1; i < npool; i++)
		c->groups[1].events[i - 1] = i;
	c->rotate_ms = 10;
}

static void sim_cfg(struct topdown_config *c, int type)
{
	const uint32_t t[5] = { type, type, type, type, type };
	const uint64_t cfg[5] = { 0, 1, 2, 3, 4 };

	cfg_two_groups(c, 5, t, cfg);
}

TEST_F_TIMEOUT(sim, sim_rotation_spares_younger, 180)
{
	struct topdown_config c;
	int ofd;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	sim_capacity(4);
	sim_cfg(&c, self->type);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	ofd = other_open_counting(self->type, 5);
	ASSERT_LE(0, ofd) TH_LOG("no room for another user's event: %s", strerror(errno));
	expect_counts_through(_metadata, self->fd, ofd, false, ROTATIONS, 1);
	close(ofd);
}

TEST_F_TIMEOUT(sim, sim_rotation_spares_older, 180)
{
	struct topdown_config c;
	int ofd;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	sim_capacity(4);
	ofd = other_open_counting(self->type, 5);
	ASSERT_LE(0, ofd) TH_LOG("%s", strerror(errno));
	sim_cfg(&c, self->type);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	expect_counts_through(_metadata, self->fd, ofd, false, ROTATIONS, 1);
	close(ofd);
}

TEST_F_TIMEOUT(sim, sim_retry_spares_younger, 180)
{
	struct topdown_cpu_stats s;
	struct topdown_config c;
	struct other_read r;
	int older, younger = -1, tries;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	sim_capacity(2);
	td_cfg_init(&c, self->type, 0, 64 << 10);
	c.flags = TOPDOWN_OVERFLOW_OVERWRITE;
	c.nr_events = 2;
	c.events[1] = c.events[0];
	c.events[1].config = 1;
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	/*
	 * The older event holds one place, topdown's first event the other;
	 * its second is in error. Then the older one closes, and a younger
	 * one opens at once. If topdown's retry ran in between, its counter
	 * took the room first (fair): try again. Closing and opening take
	 * an IPI to CPU each, which under TCG can take as long as the
	 * fixture's 10 ms retry period: retries come every 100 ms here.
	 */
	ASSERT_EQ(0, td_write_file(TD_PARAMS "/retry_ms", "100"));
	for (tries = 0; tries < 10; tries++) {
		older = other_open_counting(self->type, 5);
		ASSERT_LE(0, older) TH_LOG("%s", strerror(errno));
		ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
		ASSERT_EQ(0, cpu_stats(self->fd, &s));
		ASSERT_EQ(TOPDOWN_EVSTATE_COUNTING, s.ev_state[0]);
		ASSERT_EQ(TOPDOWN_EVSTATE_ERROR, s.ev_state[1]);
		close(older);
		younger = other_open(self->type, 6);
		ASSERT_LE(0, younger);
		if (other_read(younger, &r) == 1)
			break;
		close(younger);
		younger = -1;
		ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_STOP));
	}
	ASSERT_LE(0, younger) TH_LOG("topdown's retry won the room 10 times in a row");
	TH_LOG("the younger event got the room at try %d", tries + 1);
	expect_counts_through(_metadata, self->fd, younger, true, RETRIES, -1);
	ASSERT_EQ(0, cpu_stats(self->fd, &s));
	EXPECT_EQ(TOPDOWN_EVSTATE_ERROR, s.ev_state[1]);
	close(younger);
}

/* ---- the arm64 PMU under -icount --------------------------------------- */

FIXTURE(hw) {
	int fd;
	const char *skip;
};

/* An Arm PMU (armv8_pmuv3, or armv8_pmuv3_0 on device-tree machines). */
static bool arm_pmu_present(void)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d)))
		found = !strncmp(e->d_name, "armv8_pmuv3", 11);
	closedir(d);
	return found;
}

FIXTURE_SETUP(hw)
{
	self->fd = -1;
	if (sysconf(_SC_NPROCESSORS_ONLN) <= CPU)
		self->skip = "CPU 1 is not online";
	else if (!arm_pmu_present())
		self->skip = "no armv8_pmuv3 PMU: the arm64 guest's six counters are the test";
	else if (!td_instructions_count())
		self->skip = "instructions do not count here (a PMU under QEMU -icount needed)";
	else if (access("/sys/module/topdown", F_OK) && system("modprobe topdown"))
		self->skip = "modprobe topdown failed";
	else
		self->skip = NULL;
	if (self->skip)
		return;
	self->fd = open(TOPDOWN_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ioctl(self->fd, TOPDOWN_IOC_STOP);
}

FIXTURE_TEARDOWN(hw)
{
	if (self->fd >= 0) {
		ioctl(self->fd, TOPDOWN_IOC_STOP);
		close(self->fd);
	}
}

/* {cycles}, {r08, r00, r01, r02, r03, r04}: every general counter. */
static void hw_cfg(struct topdown_config *c)
{
	const uint32_t t[7] = { PERF_TYPE_HARDWARE, PERF_TYPE_RAW, PERF_TYPE_RAW,
				PERF_TYPE_RAW, PERF_TYPE_RAW, PERF_TYPE_RAW,
				PERF_TYPE_RAW };
	const uint64_t cfg[7] = { PERF_COUNT_HW_CPU_CYCLES, 0x08, 0x00, 0x01,
				  0x02, 0x03, 0x04 };

	cfg_two_groups(c, 7, t, cfg);
}

TEST_F_TIMEOUT(hw, hw_rotation_spares_younger, 300)
{
	struct topdown_config c;
	int ofd;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	hw_cfg(&c);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	ofd = other_open_counting(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	ASSERT_LE(0, ofd) TH_LOG("no room for another user's event: %s", strerror(errno));
	expect_counts_through(_metadata, self->fd, ofd, false, ROTATIONS, 1);
	close(ofd);
}

TEST_F_TIMEOUT(hw, hw_rotation_spares_older, 300)
{
	struct topdown_config c;
	int ofd;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ofd = other_open_counting(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	ASSERT_LE(0, ofd) TH_LOG("%s", strerror(errno));
	hw_cfg(&c);
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	ASSERT_EQ(0, ioctl(self->fd, TOPDOWN_IOC_START));
	expect_counts_through(_metadata, self->fd, ofd, false, ROTATIONS, 1);
	close(ofd);
}

TEST_HARNESS_MAIN
