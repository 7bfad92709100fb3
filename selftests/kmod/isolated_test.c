// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU isolated from the kernel's housekeeping (include/uapi/linux/
 * topdown.h, TOPDOWN_CPU_ISOLATED): booted with isolcpus=1 (and with
 * nohz_full=1: make check boots both, selftests/vm/run --append), CPU 1 is
 * flagged in STATUS, counts, and with two groups never changes group,
 * while CPU 0 rotates; with the module parameter isolated_work=1 it
 * rotates too, unflagged. Elsewhere it SKIPs.
 */
#define _GNU_SOURCE
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
#include <unistd.h>

#include <linux/topdown.h>

#include "kselftest_harness.h"
#include "td_common.h"
#include "td_fixture.h"

#define MAX_CPUS	64

/* Does /sys/devices/system/cpu/@what list CPU 1 (as "1", "1-..." or ",1")? */
static bool cpu1_listed(const char *what)
{
	char path[96], *s;
	bool yes;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/%s", what);
	s = td_read_file(path);
	yes = s && (!strncmp(s, "1", 1) || strstr(s, ",1")) && strncmp(s, "10", 2);
	free(s);
	return yes;
}

static volatile int spin_stop;

/* Busy on CPU @arg with a sleep every millisecond: switches there. */
static void *spin(void *arg)
{
	td_pin_cpu((int)(intptr_t)arg);
	while (!spin_stop) {
		td_busy_ms(1);
		usleep(200);
	}
	return NULL;
}

#define PARAM	"/sys/module/topdown/parameters/isolated_work"

/*
 * Two software groups rotated every 10 ms, 1.5 s of switches on CPUs 0
 * and 1, then STATUS of every CPU into @s (STOPped afterwards).
 */
static void run_two_groups(struct __test_metadata *_metadata, int fd,
			   struct topdown_cpu_stats *s)
{
	struct topdown_status st;
	struct topdown_config c;
	pthread_t th[2];

	td_cfg_sw(&c, 64 << 10);
	c.flags = TOPDOWN_OVERFLOW_OVERWRITE;
	c.nr_events = 2;
	c.events[1] = c.events[0];
	c.events[1].config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	strcpy(c.events[1].name, "cs");
	c.nr_groups = 2;
	c.groups[0].nr_events = 1;
	c.groups[0].events[0] = 0;
	c.groups[1].nr_events = 1;
	c.groups[1].events[0] = 1;
	c.rotate_ms = 10;
	ASSERT_EQ(0, xioctl(fd, TOPDOWN_IOC_CONFIGURE, &c));
	ASSERT_EQ(0, xioctl(fd, TOPDOWN_IOC_START, NULL));
	spin_stop = 0;
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, spin, (void *)(intptr_t)i));
	usleep(1500000);
	spin_stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ASSERT_EQ(0, td_status(fd, &st, s, MAX_CPUS));
	ASSERT_LT(1, st.nr_stats);
	TH_LOG("CPU 0: flags %#x, %llu records, %llu group changes; "
	       "CPU 1: flags %#x, %llu records, %llu group changes, group %u",
	       s[0].flags, (unsigned long long)s[0].records,
	       (unsigned long long)s[0].rotations, s[1].flags,
	       (unsigned long long)s[1].records, (unsigned long long)s[1].rotations,
	       s[1].cur_group);
	ASSERT_EQ(0, xioctl(fd, TOPDOWN_IOC_STOP, NULL));
}

static bool cpu1_isolated(void)
{
	return cpu1_listed("isolated") || cpu1_listed("nohz_full");
}

TEST_F_TIMEOUT(dev, isolated_cpu_counts_group_0_only, 60)
{
	struct topdown_cpu_stats s[MAX_CPUS];

	if (!cpu1_isolated())
		SKIP(return, "CPU 1 is not isolated: boot with isolcpus=1 and/or nohz_full=1");
	ASSERT_EQ(0, td_write_file(PARAM, "0"));
	run_two_groups(_metadata, self->fd, s);
	EXPECT_FALSE(s[0].flags & TOPDOWN_CPU_ISOLATED);
	EXPECT_TRUE(s[1].flags & TOPDOWN_CPU_ISOLATED);
	EXPECT_TRUE(s[1].flags & TOPDOWN_CPU_COUNTING);
	EXPECT_LT(0, s[1].records);
	EXPECT_EQ(0, s[1].rotations);
	EXPECT_EQ(0, s[1].cur_group);
	EXPECT_LT(0, s[0].rotations);
}

/* isolated_work=1: the isolated CPU rotates as the others, unflagged. */
TEST_F_TIMEOUT(dev, isolated_work_rotates_there_too, 60)
{
	struct topdown_cpu_stats s[MAX_CPUS];

	if (!cpu1_isolated())
		SKIP(return, "CPU 1 is not isolated: boot with isolcpus=1 and/or nohz_full=1");
	ASSERT_EQ(0, td_write_file(PARAM, "1"));
	run_two_groups(_metadata, self->fd, s);
	td_write_file(PARAM, "0");
	EXPECT_FALSE(s[1].flags & TOPDOWN_CPU_ISOLATED);
	EXPECT_TRUE(s[1].flags & TOPDOWN_CPU_COUNTING);
	EXPECT_LT(0, s[1].records);
	EXPECT_LT(0, s[0].rotations);
	/*
	 * A change is a deferrable work item, run by the CPU's tick, which
	 * a nohz_full CPU mostly lacks (it had 0 to a few in 1.5 s).
	 */
	if (!cpu1_listed("nohz_full"))
		EXPECT_LT(0, s[1].rotations);
}

TEST_HARNESS_MAIN
