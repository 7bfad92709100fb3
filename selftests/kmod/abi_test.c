// SPDX-License-Identifier: GPL-2.0
/*
 * The promises of include/uapi/linux/topdown.h that a program relies on
 * to trust the device, written from the header alone:
 *
 *  - ABI growth: a larger struct with a zero tail works through an ioctl
 *    number that carries its size, a non-zero tail is E2BIG, VER0 is the
 *    smallest size; output is written up to the documented size only.
 *  - Permissions: a read-only descriptor cannot CONFIGURE, START or STOP;
 *    a descriptor handed to a process without CAP_PERFMON cannot start
 *    counting; a process in another pid namespace gets no access.
 *  - poll() after STOP reports the unread tail, then EPOLLHUP.
 *  - A CONFIGURE refused for lack of memory changes nothing; the rings
 *    are charged to the caller's memory cgroup (over its memory.max:
 *    ENOMEM, nothing left charged). mmap() of a read-only descriptor is
 *    EACCES.
 *  - Overwrite mode: a slow reader following the documented check never
 *    accepts a torn record, against a fast producer.
 *
 * Run as root in a guest with the module loaded and idle. Output fields
 * are poisoned before each call, so a field left unwritten shows.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/topdown.h>

#include "kselftest_harness.h"
#include "td_common.h"
#include "td_fixture.h"

#define POISON		0xa5

/* The ioctl number a program built against a struct of `size` bytes uses. */
static unsigned long cmd_sized(unsigned long cmd, unsigned int size)
{
	return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), size);
}

static bool all_bytes(const void *p, int c, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != (uint8_t)c)
			return false;
	return true;
}

/* ---- ABI growth ---------------------------------------------------------- */

/* A newer program's config: VER0 fields, then `extra` bytes of tail. */
static uint8_t *grown_config(size_t extra, int tail, uint32_t ring)
{
	struct topdown_config cfg;
	uint8_t *buf = malloc(TOPDOWN_CONFIG_SIZE_VER0 + extra);

	td_cfg_sw(&cfg, ring);
	cfg.size = TOPDOWN_CONFIG_SIZE_VER0 + extra;
	memcpy(buf, &cfg, TOPDOWN_CONFIG_SIZE_VER0);
	memset(buf + TOPDOWN_CONFIG_SIZE_VER0, tail, extra);
	return buf;
}

/*
 * A struct larger than the module's own (the size GET_CONFIG returns) with
 * a zero tail: what a newer program sends when it uses nothing new.
 */
TEST_F(dev, larger_config_zero_tail_accepted)
{
	size_t extras[] = { 8, 16, 64, 0 };	/* the last: up to a page */
	struct topdown_config base, mod;
	size_t own;

	td_cfg_sw(&base, 16384);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &base));
	memset(&mod, 0, sizeof(mod));
	mod.size = sizeof(mod);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_GET_CONFIG, &mod));
	own = mod.size;
	ASSERT_LE(TOPDOWN_CONFIG_SIZE_VER0, own);
	ASSERT_GT(4096, own + 64);
	extras[3] = 4096 - own;

	for (unsigned int i = 0; i < sizeof(extras) / sizeof(extras[0]); i++) {
		size_t size = own + extras[i];
		uint32_t ring = 8192u << i;
		uint8_t *buf = grown_config(size - TOPDOWN_CONFIG_SIZE_VER0, 0, ring);
		uint8_t *out = malloc(size);
		struct topdown_config got;

		/* The number a newer header's _IOW(.., struct) would give. */
		EXPECT_EQ(0, xioctl(self->fd, cmd_sized(TOPDOWN_IOC_CONFIGURE, size), buf))
			TH_LOG("CONFIGURE of %zu bytes, zero tail", size);
		EXPECT_EQ(ring, td_cur_ring_size(self->fd));
		/* And through the frozen number. */
		EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, buf));

		/* GET_CONFIG into the larger struct: the tail stays the caller's. */
		memset(out, POISON, size);
		memset(out, 0, TOPDOWN_CONFIG_SIZE_VER0);
		*(uint32_t *)out = size;
		EXPECT_EQ(0, xioctl(self->fd, cmd_sized(TOPDOWN_IOC_GET_CONFIG, size), out))
			TH_LOG("GET_CONFIG of %zu bytes", size);
		memcpy(&got, out, sizeof(got));
		EXPECT_LE(TOPDOWN_CONFIG_SIZE_VER0, got.size);
		EXPECT_GE(size, got.size);
		EXPECT_EQ(ring, got.ring_size);
		EXPECT_STREQ("set=selftest", got.label);
		EXPECT_TRUE(all_bytes(out + got.size, POISON, size - got.size));
		free(out);
		free(buf);
	}
}

/*
 * Bytes past the module's own struct (the size GET_CONFIG returns) must
 * be zero: a newer program asked for something this module cannot do.
 */
TEST_F(dev, larger_config_nonzero_tail_is_e2big)
{
	const size_t extras[] = { 8, 16, 100 };
	struct topdown_config base, got;
	size_t own;

	td_cfg_sw(&base, 16384);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &base));
	memset(&got, 0, sizeof(got));
	got.size = sizeof(got);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_GET_CONFIG, &got));
	own = got.size;
	ASSERT_LE(TOPDOWN_CONFIG_SIZE_VER0, own);
	for (unsigned int i = 0; i < sizeof(extras) / sizeof(extras[0]); i++) {
		size_t size = own + extras[i];
		uint8_t *buf = grown_config(size - TOPDOWN_CONFIG_SIZE_VER0, 0, 8192);

		/* One non-zero byte, last of the tail. */
		buf[size - 1] = 1;
		EXPECT_EQ(E2BIG, xioctl(self->fd, cmd_sized(TOPDOWN_IOC_CONFIGURE, size), buf))
			TH_LOG("CONFIGURE of %zu bytes, non-zero tail", size);
		EXPECT_EQ(E2BIG, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, buf));
		/* Refused: the old configuration is still there. */
		EXPECT_EQ(16384, td_cur_ring_size(self->fd));
		free(buf);
	}
}

TEST_F(dev, config_and_status_size_limits)
{
	struct topdown_config cfg;
	uint8_t *buf = calloc(1, 2 * TD_PAGE);
	struct topdown_status st;

	ASSERT_NE(NULL, buf);
	/* VER0 exactly works, one byte less is EINVAL. */
	td_cfg_sw(&cfg, 0);
	cfg.size = TOPDOWN_CONFIG_SIZE_VER0;
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	cfg.size = TOPDOWN_CONFIG_SIZE_VER0 - 1;
	EXPECT_EQ(EINVAL, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	cfg.size = 0;
	EXPECT_EQ(EINVAL, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	/* A page is the most, with any ioctl size. */
	td_cfg_sw(&cfg, 0);
	memcpy(buf, &cfg, sizeof(cfg));
	*(uint32_t *)buf = TD_PAGE;
	EXPECT_EQ(0, xioctl(self->fd, cmd_sized(TOPDOWN_IOC_CONFIGURE, TD_PAGE), buf));
	*(uint32_t *)buf = TD_PAGE + 1;
	EXPECT_EQ(E2BIG, xioctl(self->fd, cmd_sized(TOPDOWN_IOC_CONFIGURE, TD_PAGE), buf));
	*(uint32_t *)buf = 0xffffffff;
	EXPECT_EQ(E2BIG, xioctl(self->fd, cmd_sized(TOPDOWN_IOC_CONFIGURE, 16383), buf));
	/* GET_CONFIG takes the same sizes: "larger than the page size E2BIG". */
	memset(buf, 0, 2 * TD_PAGE);
	*(uint32_t *)buf = TD_PAGE;
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_GET_CONFIG, buf));
	*(uint32_t *)buf = TD_PAGE + 1;
	EXPECT_EQ(E2BIG, xioctl(self->fd, TOPDOWN_IOC_GET_CONFIG, buf));
	*(uint32_t *)buf = 0xffffffff;
	EXPECT_EQ(E2BIG, xioctl(self->fd, TOPDOWN_IOC_GET_CONFIG, buf));
	/* Size bits below VER0 are not our ioctls. */
	*(uint32_t *)buf = TOPDOWN_CONFIG_SIZE_VER0;
	EXPECT_EQ(ENOTTY, xioctl(self->fd,
				 cmd_sized(TOPDOWN_IOC_CONFIGURE, TOPDOWN_CONFIG_SIZE_VER0 - 1),
				 buf));
	EXPECT_EQ(ENOTTY, xioctl(self->fd, cmd_sized(TOPDOWN_IOC_GET_CONFIG, 8), buf));
	EXPECT_EQ(ENOTTY, xioctl(self->fd,
				 cmd_sized(TOPDOWN_IOC_STATUS, TOPDOWN_STATUS_SIZE_VER0 - 1),
				 buf));
	EXPECT_EQ(ENOTTY, xioctl(self->fd, cmd_sized(TOPDOWN_IOC_START, 8), buf));

	/* STATUS: VER0 - 1 is EINVAL, VER0 writes exactly VER0 bytes. */
	memset(&st, 0, sizeof(st));
	st.size = TOPDOWN_STATUS_SIZE_VER0 - 1;
	EXPECT_EQ(EINVAL, xioctl(self->fd, TOPDOWN_IOC_STATUS, &st));
	memset(buf, POISON, 2 * TD_PAGE);
	memset(buf, 0, TOPDOWN_STATUS_SIZE_VER0);
	*(uint32_t *)buf = TOPDOWN_STATUS_SIZE_VER0;
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STATUS, buf));
	memcpy(&st, buf, sizeof(st));
	EXPECT_EQ(TOPDOWN_STATUS_SIZE_VER0, st.size);
	EXPECT_EQ(TOPDOWN_ABI_VERSION, st.abi_version);
	EXPECT_TRUE(all_bytes(buf + TOPDOWN_STATUS_SIZE_VER0, POISON, TD_PAGE));
	free(buf);
}

TEST_F(dev, larger_status_written_up_to_size)
{
	const size_t size = TOPDOWN_STATUS_SIZE_VER0 + 64;
	uint8_t *buf = malloc(size);
	struct topdown_status st;

	/* STATUS reads its input too: the tail a newer program sends is zero. */
	memset(buf, 0, size);
	*(uint32_t *)buf = size;
	ASSERT_EQ(0, xioctl(self->fd, cmd_sized(TOPDOWN_IOC_STATUS, size), buf));
	memcpy(&st, buf, sizeof(st));
	EXPECT_LE(TOPDOWN_STATUS_SIZE_VER0, st.size);
	EXPECT_GE(size, st.size);
	EXPECT_EQ(TOPDOWN_ABI_VERSION, st.abi_version);
	EXPECT_EQ(TOPDOWN_RECORD_SIZE, st.record_size);
	EXPECT_EQ(self->ncpu, st.nr_cpus);
	EXPECT_TRUE(all_bytes(buf + st.size, 0, size - st.size));
	/* A non-zero tail is a request this module cannot honour. */
	buf[size - 1] = 1;
	*(uint32_t *)buf = size;
	EXPECT_EQ(E2BIG, xioctl(self->fd, cmd_sized(TOPDOWN_IOC_STATUS, size), buf));
	free(buf);
}

/* ---- permissions --------------------------------------------------------- */

TEST_F(dev, read_only_descriptor_cannot_change_state)
{
	struct topdown_config cfg;
	struct topdown_status st;
	int ro = open(TOPDOWN_DEVICE, O_RDONLY);

	ASSERT_LE(0, ro);
	td_cfg_sw(&cfg, 16384);
	EXPECT_EQ(EBADF, xioctl(ro, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_EQ(EBADF, xioctl(ro, TOPDOWN_IOC_START, NULL));
	ASSERT_EQ(0, td_status(ro, &st, NULL, 0));
	EXPECT_EQ(TOPDOWN_STATE_CONFIGURED, st.state);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
	EXPECT_EQ(EBADF, xioctl(ro, TOPDOWN_IOC_STOP, NULL));
	ASSERT_EQ(0, td_status(ro, &st, NULL, 0));
	EXPECT_EQ(TOPDOWN_STATE_RUNNING, st.state);
	/* Reading works read-only. */
	EXPECT_EQ(16384, td_cur_ring_size(ro));
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
	close(ro);
}

/* Drop every capability of this process (it stays uid 0). */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	return syscall(SYS_capset, &h, d);
}

TEST_F(dev, passed_descriptor_without_perfmon_cannot_start)
{
	struct topdown_config cfg;
	pid_t pid;
	int status;

	td_cfg_sw(&cfg, 16384);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct topdown_status st;
		int bad = 0;

		if (drop_caps())
			_exit(100);
		bad |= xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg) != EPERM;
		bad |= (xioctl(self->fd, TOPDOWN_IOC_START, NULL) != EPERM) << 1;
		bad |= (td_status(self->fd, &st, NULL, 0) != 0) << 2;
		bad |= (st.state != TOPDOWN_STATE_CONFIGURED) << 3;
		/* The opener may not reopen it. */
		bad |= (open(TOPDOWN_DEVICE, O_RDWR) >= 0 || errno != EPERM) << 4;
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("child without capabilities: failure bits %#x (1 CONFIGURE, 2 START, 4/8 "
		       "STATUS, 16 open)",
		       WEXITSTATUS(status));
}

TEST_F(dev, other_pid_namespace_refused)
{
	struct topdown_config cfg;
	pid_t pid;
	int status;

	/* /proc/PID/ns/pid exists where the kernel has pid namespaces. */
	if (access("/proc/self/ns/pid", F_OK))
		SKIP(return, "no pid namespaces in this kernel (CONFIG_PID_NS off)");
	td_cfg_sw(&cfg, 16384);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		pid_t inner;

		if (unshare(CLONE_NEWPID))
			_exit(100);
		inner = fork();
		if (inner < 0)
			_exit(101);
		if (!inner) {
			int bad = 0, fd;
			void *p;

			/* pid 1 of a new namespace, sees no host pids. */
			bad |= getpid() != 1;
			fd = open(TOPDOWN_DEVICE, O_RDONLY);
			bad |= (fd >= 0 || errno != EACCES) << 1;
			/* Nor through a descriptor opened outside. */
			p = mmap(NULL, TD_PAGE, PROT_READ, MAP_SHARED, self->fd,
				 TD_RING_OFF(0, 1));
			bad |= (p != MAP_FAILED || errno != EACCES) << 2;
			_exit(bad);
		}
		if (waitpid(inner, &status, 0) != inner || !WIFEXITED(status))
			_exit(102);
		_exit(WEXITSTATUS(status));
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("in a new pid namespace: failure bits %#x (1 pid, 2 open, 4 mmap; 100+ "
		       "setup)",
		       WEXITSTATUS(status));
}

/* Fork a child that reads @p: its exit status, or 128 + signal. */
static int child_reads(const volatile uint8_t *p)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(p[0] == 0xff ? 1 : 0);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/*
 * "Only a file opened for writing can map the rings", "A mapping is not
 * inherited across fork() ... and CONFIGURE is refused with EBUSY while
 * any exists": a read-only descriptor maps nothing (so it cannot keep
 * CONFIGURE out), a child has no copy of its parent's mapping (also one
 * forked into a new pid namespace), and CONFIGURE works again as soon as
 * the process that mapped unmaps, whatever its children do.
 */
TEST_F(dev, mappings_stay_with_writable_files_and_their_process)
{
	const size_t ring = 16384;
	struct topdown_config cfg;
	int ro = open(TOPDOWN_DEVICE, O_RDONLY), pfd[2], status;
	uint8_t *p;
	pid_t pid;
	char c;

	ASSERT_LE(0, ro);
	td_cfg_sw(&cfg, ring);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	p = mmap(NULL, TD_PAGE, PROT_READ, MAP_SHARED, ro, TD_RING_OFF(0, 1));
	EXPECT_EQ(MAP_FAILED, p) TH_LOG("a read-only descriptor mapped a ring");
	EXPECT_EQ(EACCES, errno) TH_LOG("mmap of a read-only descriptor: %s", strerror(errno));
	if (p != MAP_FAILED)
		munmap(p, TD_PAGE);
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	close(ro);

	/* Mapped by this process: a child sees no copy of it. */
	p = mmap(NULL, TD_PAGE + ring, PROT_READ, MAP_SHARED, self->fd, TD_RING_OFF(0, 1));
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(128 + SIGSEGV, child_reads(p)) TH_LOG("a child read its parent's mapping");

	/* A child that lives on does not keep CONFIGURE out after munmap. */
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pfd[1]);
		_exit(read(pfd[0], &c, 1) < 0);
	}
	close(pfd[0]);
	EXPECT_EQ(EBUSY, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	munmap(p, TD_PAGE + ring);
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg))
		TH_LOG("a child holds the rings after its parent unmapped them");
	close(pfd[1]);
	waitpid(pid, &status, 0);

	/* Nor into a new pid namespace (its mmap() is refused: see above). */
	if (access("/proc/self/ns/pid", F_OK))
		return;
	p = mmap(NULL, TD_PAGE + ring, PROT_READ, MAP_SHARED, self->fd, TD_RING_OFF(0, 1));
	ASSERT_NE(MAP_FAILED, p);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (unshare(CLONE_NEWPID))
			_exit(100);
		_exit(child_reads(p));
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(128 + SIGSEGV, WEXITSTATUS(status))
		TH_LOG("a child in a new pid namespace read the mapping (status %d)",
		       WEXITSTATUS(status));
	munmap(p, TD_PAGE + ring);
}

/* ---- which PMUs ------------------------------------------------------------ */

static int sysfs_pmu_type(const char *name)
{
	char path[256];
	FILE *f;
	int type = -1;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

static bool core_pmu_name(const char *name)
{
	return !strcmp(name, "cpu") || !strcmp(name, "cpu_core") ||
	       !strcmp(name, "cpu_atom") || !strncmp(name, "armv8", 5) ||
	       !strncmp(name, "armv9", 5);
}

/* CONFIGURE of one event as 0 or errno; config1 may be a user pointer. */
static int configure_one(int fd, uint32_t type, uint64_t config, uint64_t config1)
{
	struct topdown_config c;

	td_cfg_sw(&c, 16384);
	c.nr_events = 2;
	c.events[1].type = type;
	c.events[1].config = config;
	c.events[1].config1 = config1;
	strcpy(c.events[1].name, "ev1");
	return xioctl(fd, TOPDOWN_IOC_CONFIGURE, &c);
}

TEST_F(dev, only_core_and_software_pmus_accepted)
{
	static const char func[] = "do_nanosleep", path[] = "/bin/busybox";
	struct dirent *d;
	DIR *dir;
	int type, err, others = 0, cores = 0;

	/* The fixed types that reach core PMUs and software events. */
	EXPECT_EQ(0, configure_one(self->fd, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0));
	EXPECT_EQ(0, configure_one(self->fd, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0));
	EXPECT_EQ(0, configure_one(self->fd, PERF_TYPE_HW_CACHE, 0, 0));
	EXPECT_EQ(0, configure_one(self->fd, PERF_TYPE_RAW, 0x11, 0));
	/* Tracepoints and breakpoints trace, they do not count. */
	EXPECT_EQ(EOPNOTSUPP, configure_one(self->fd, PERF_TYPE_TRACEPOINT,
					    td_sched_switch_id() > 0 ?
					    td_sched_switch_id() : 1, 0));
	EXPECT_EQ(EOPNOTSUPP, configure_one(self->fd, PERF_TYPE_BREAKPOINT, 0, 0));
	/* The refusals changed nothing. */
	EXPECT_EQ(16384, td_cur_ring_size(self->fd));

	/* kprobe and uprobe take a user pointer in config1. */
	type = sysfs_pmu_type("kprobe");
	if (type >= 0)
		EXPECT_EQ(EOPNOTSUPP, configure_one(self->fd, type, 0, (uintptr_t)func));
	type = sysfs_pmu_type("uprobe");
	if (type >= 0)
		EXPECT_EQ(EOPNOTSUPP, configure_one(self->fd, type, 0, (uintptr_t)path));

	/* Every other PMU of this machine: core ones pass, the rest not. */
	dir = opendir("/sys/bus/event_source/devices");
	ASSERT_NE(NULL, dir);
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		type = sysfs_pmu_type(d->d_name);
		if (type < PERF_TYPE_MAX)
			continue;
		if (core_pmu_name(d->d_name)) {
			/* Cycles: 0x11 on Arm, 0x3c on x86. */
			uint64_t cyc = strncmp(d->d_name, "cpu", 3) ? 0x11 : 0x3c;

			EXPECT_EQ(0, configure_one(self->fd, type, cyc, 0))
				TH_LOG("core PMU %s (type %d)", d->d_name, type);
			cores++;
			continue;
		}
		err = configure_one(self->fd, type, 0, 0);
		TH_LOG("PMU %s (type %d): %s", d->d_name, type, err ? strerror(err) : "accepted");
		EXPECT_TRUE(err == EOPNOTSUPP || err == ENOENT);
		others++;
	}
	closedir(dir);
	TH_LOG("%d core PMUs accepted, %d other dynamic PMUs refused", cores, others);
	EXPECT_LT(0, others);
}

/*
 * "a dynamic type no PMU has [is refused] with ENOENT": 0xffffffff too, and
 * nothing switches the policy off in the module shipped (a test-only
 * parameter of -1 once let exactly that type through). Run on the shipped
 * module, not on the selftests' test build.
 */
TEST_F(dev, pmu_type_all_ones_is_enoent)
{
	EXPECT_EQ(ENOENT, configure_one(self->fd, 0xffffffffu, 0, 0));
	EXPECT_EQ(ENOENT, configure_one(self->fd, 0xfffffffeu, 0, 0));
	EXPECT_NE(0, access("/sys/module/topdown/parameters/test_pmu_type", F_OK))
		TH_LOG("the module loaded here is a test build (test_pmu_type)");
}

/*
 * "Another error of perf's while checking a dynamic type, one that is not
 * about the PMU ... is returned as perf gave it": the simulated PMU's
 * event_init fails as told (init_error); only a refusal of the event
 * (EINVAL, EOPNOTSUPP) becomes EOPNOTSUPP, a missing PMU ENOENT.
 */
#define SIM_DIR		"/sys/kernel/debug/td_pmusim"

/* Context switches on every CPU for ms milliseconds. */
static void switch_for_ms(int ms)
{
	uint64_t end = td_now_ns() + ms * 1000000ull;

	while (td_now_ns() < end)
		usleep(100);
}

TEST_F(dev, perf_errors_not_about_the_pmu_are_returned)
{
	static const struct {
		int injected, want;
	} cases[] = {
		{ ENOMEM, ENOMEM }, { EBUSY, EBUSY }, { EACCES, EACCES },
		{ EPERM, EPERM }, { EINVAL, EOPNOTSUPP }, { EOPNOTSUPP, EOPNOTSUPP },
		{ ENOENT, ENOENT },
		{ 0, EOPNOTSUPP },	/* accepted by perf, but not a core PMU */
	};
	bool loaded_here = access("/sys/module/td_pmusim", F_OK) != 0;
	struct topdown_config cfg;
	int type;

	char *tp;

	if (td_load_pmusim())
		SKIP(return, "td_pmusim.ko not loadable");
	type = sysfs_pmu_type("td_pmusim");
	ASSERT_LE(PERF_TYPE_MAX, type);
	tp = td_read_file("/sys/module/topdown/parameters/test_pmu_type");
	if (tp && atoi(tp) == type) {
		free(tp);
		SKIP(return, "the test build of the module lets the simulator's type through");
	}
	free(tp);
	td_cfg_sw(&cfg, 16384);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char v[16];

		snprintf(v, sizeof(v), "%d", cases[i].injected);
		ASSERT_EQ(0, td_write_file(SIM_DIR "/init_error", v));
		EXPECT_EQ(cases[i].want, configure_one(self->fd, type, 0, 0))
			TH_LOG("perf failed with %s", strerror(cases[i].injected));
	}
	td_write_file(SIM_DIR "/init_error", "0");
	/* The refusals changed nothing. */
	EXPECT_EQ(16384, td_cur_ring_size(self->fd));
	if (loaded_here)
		EXPECT_EQ(0, syscall(SYS_delete_module, "td_pmusim", O_NONBLOCK));
}

/* ---- what STATUS, records and poll() say ------------------------------- */

/*
 * ev_state: OFF for every event configured for the CPU while stopped
 * (before the first START and after STOP), NONE for the others.
 */
TEST_F(dev, ev_state_off_when_stopped)
{
	uint64_t mask[TOPDOWN_CPUMASK_MAX_BYTES / 8] = { 1 };	/* CPU 0 */
	int n = self->ncpu < 64 ? self->ncpu : 64;
	struct topdown_cpu_stats stats[64];
	struct topdown_config cfg;
	struct topdown_status st;

	td_cfg_sw(&cfg, 16384);
	cfg.nr_events = 2;
	cfg.events[1] = cfg.events[0];
	cfg.events[1].cpus_ptr = (uintptr_t)mask;
	cfg.events[1].cpus_size = sizeof(mask);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	for (int round = 0; round < 3; round++) {
		const char *when = round == 0 ? "before START" :
				   round == 1 ? "running" : "after STOP";

		if (round == 1)
			ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
		if (round == 2) {
			usleep(10000);
			ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
		}
		ASSERT_EQ(0, td_status(self->fd, &st, stats, n));
		for (int cpu = 0; cpu < n; cpu++) {
			uint8_t want0 = round == 1 ? TOPDOWN_EVSTATE_COUNTING : TOPDOWN_EVSTATE_OFF;
			uint8_t want1 = cpu ? TOPDOWN_EVSTATE_NONE : want0;

			if (round == 1 && !(stats[cpu].flags & TOPDOWN_CPU_COUNTING))
				continue;	/* offline */
			EXPECT_EQ(want0, stats[cpu].ev_state[0]) TH_LOG("%s, CPU %d", when, cpu);
			EXPECT_EQ(want1, stats[cpu].ev_state[1]) TH_LOG("%s, CPU %d", when, cpu);
			for (int e = 2; e < TOPDOWN_MAX_EVENTS; e++)
				EXPECT_EQ(TOPDOWN_EVSTATE_NONE, stats[cpu].ev_state[e]);
		}
	}
}

/*
 * The id name_to_handle_at() gives for a cgroup directory, 0 on error
 * (errno set: ENOSYS or EOPNOTSUPP where the kernel has no file handles,
 * CONFIG_FHANDLE off, as in the debug tier's kernels).
 */
static uint64_t cgroup_handle_id(const char *path)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	int mnt;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mnt, 0))
		return 0;
	return h.id;
}

/* cgroup_id of this thread's own records over a few switches. */
static int own_cgroup_ids(int fd, int ncpu, uint64_t *ids, int max)
{
	struct td_ring *r = calloc(ncpu, sizeof(*r));
	struct topdown_record rec[256];
	pid_t tid = gettid();
	int n = 0;

	if (!r)
		return -1;
	for (int cpu = 0; cpu < ncpu; cpu++)
		if (td_ring_map(fd, cpu, 1u << 18, &r[cpu]))
			return -1;
	if (ioctl(fd, TOPDOWN_IOC_START))
		return -1;
	switch_for_ms(20);
	ioctl(fd, TOPDOWN_IOC_STOP);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int k;

		while ((k = td_ring_drain(&r[cpu], rec, 256)) > 0)
			for (int i = 0; i < k; i++)
				if (rec[i].pid == (uint32_t)tid && n < max)
					ids[n++] = rec[i].cgroup_id;
		td_ring_unmap(&r[cpu]);
	}
	free(r);
	return n;
}

/*
 * cgroup_id: the id of the task's cgroup v2 directory (name_to_handle_at),
 * 1 for the root, also while no cgroup v2 file system is mounted.
 */
TEST_F_TIMEOUT(dev, cgroup_id_is_the_cgroup2_directory_id, 60)
{
	char mnt[] = "/tmp/td-cg2.XXXXXX", child[64], procs[96], rootprocs[96];
	struct topdown_config cfg;
	uint64_t ids[64], want;
	char *own;
	int n;

	own = td_read_file("/proc/self/cgroup");
	ASSERT_NE(NULL, own);
	td_cfg_sw(&cfg, 1u << 18);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	if (strstr(own, "0::/\n") && !strstr(own, "\n1:")) {
		/* In the root cgroup: id 1, whether cgroup2 is mounted or not. */
		n = own_cgroup_ids(self->fd, self->ncpu, ids, 64);
		ASSERT_LT(0, n);
		for (int i = 0; i < n; i++) {
			EXPECT_EQ(1, ids[i]) TH_LOG("root cgroup, record %d", i);
		}
	}
	free(own);
	if (!mkdtemp(mnt))
		SKIP(return, "mkdtemp: %s", strerror(errno));
	if (mount("none", mnt, "cgroup2", 0, NULL)) {
		rmdir(mnt);
		SKIP(return, "no cgroup v2 here: %s", strerror(errno));
	}
	want = cgroup_handle_id(mnt);
	if (!want && (errno == ENOSYS || errno == EOPNOTSUPP)) {
		int err = errno;

		umount(mnt);
		rmdir(mnt);
		SKIP(return, "no file handles here (CONFIG_FHANDLE): name_to_handle_at: %s",
		     strerror(err));
	}
	EXPECT_EQ(1, want);
	snprintf(child, sizeof(child), "%s/td-abi", mnt);
	snprintf(rootprocs, sizeof(rootprocs), "%s/cgroup.procs", mnt);
	ASSERT_EQ(0, mkdir(child, 0755) && errno != EEXIST);
	want = cgroup_handle_id(child);
	ASSERT_LT(1, want);
	/* This process into the child cgroup, its records with its id. */
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", child);
	ASSERT_EQ(0, td_write_fmt(procs, "%d", getpid()));
	n = own_cgroup_ids(self->fd, self->ncpu, ids, 64);
	td_write_fmt(rootprocs, "%d", getpid());
	rmdir(child);
	umount(mnt);
	rmdir(mnt);
	ASSERT_LT(0, n);
	for (int i = 0; i < n; i++) {
		EXPECT_EQ(want, ids[i]) TH_LOG("child cgroup, record %d", i);
	}
}

/*
 * poll() works on any open file of the device, not only the reader's: a
 * read-only file that maps nothing sees the rings' unread data too.
 */
TEST_F_TIMEOUT(dev, poll_on_any_file, 60)
{
	struct td_ring *r = calloc(self->ncpu, sizeof(*r));
	struct topdown_config cfg;
	struct pollfd pfd = { .events = POLLIN };
	int ro = open(TOPDOWN_DEVICE, O_RDONLY);

	ASSERT_LE(0, ro);
	pfd.fd = ro;
	td_cfg_sw(&cfg, 1u << 18);
	cfg.watermark = TOPDOWN_RECORD_SIZE;
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	for (int cpu = 0; cpu < self->ncpu; cpu++)
		ASSERT_EQ(0, td_ring_map(self->fd, cpu, 1u << 18, &r[cpu]));
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
	switch_for_ms(20);
	EXPECT_EQ(1, poll(&pfd, 1, 3000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
	for (int cpu = 0; cpu < self->ncpu; cpu++)
		r[cpu].cons->consumer_pos = r[cpu].prod->producer_pos;
	pfd.revents = 0;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLHUP, pfd.revents & (POLLIN | POLLHUP));
	for (int cpu = 0; cpu < self->ncpu; cpu++)
		td_ring_unmap(&r[cpu]);
	free(r);
	close(ro);
}

/* ---- poll() after STOP --------------------------------------------------- */

TEST_F_TIMEOUT(dev, poll_after_stop_reports_tail_then_hup, 60)
{
	/* 8192 records a CPU: far more than the switches below make. */
	const uint32_t ring = 1u << 20;
	struct topdown_config cfg;
	struct td_ring *r = calloc(self->ncpu, sizeof(*r));
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	uint64_t unread = 0, t0;
	int n;

	td_cfg_sw(&cfg, ring);
	cfg.watermark = ring;	/* far above what a short run leaves */
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	for (int cpu = 0; cpu < self->ncpu; cpu++)
		ASSERT_EQ(0, td_ring_map(self->fd, cpu, ring, &r[cpu]));
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
	switch_for_ms(50);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
	for (int cpu = 0; cpu < self->ncpu; cpu++)
		unread += r[cpu].prod->producer_pos - r[cpu].cons->consumer_pos;
	ASSERT_LT(0, unread);
	ASSERT_GT(ring, unread / self->ncpu);

	t0 = td_now_ns();
	n = poll(&pfd, 1, 3000);
	EXPECT_EQ(1, n) TH_LOG("poll after STOP with %llu unread bytes: %d after %llu ms",
			       (unsigned long long)unread, n,
			       (unsigned long long)(td_now_ns() - t0) / 1000000);
	EXPECT_TRUE(pfd.revents & POLLIN);
	EXPECT_FALSE(pfd.revents & POLLHUP);

	/* Drain every ring but one record: still readable. */
	for (int cpu = 0; cpu < self->ncpu; cpu++)
		r[cpu].cons->consumer_pos = r[cpu].prod->producer_pos;
	for (int cpu = 0; cpu < self->ncpu; cpu++) {
		if (r[cpu].prod->producer_pos) {
			r[cpu].cons->consumer_pos -= TOPDOWN_RECORD_SIZE;
			break;
		}
	}
	pfd.revents = 0;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLIN, pfd.revents & (POLLIN | POLLHUP));

	/* All drained: end of data. */
	for (int cpu = 0; cpu < self->ncpu; cpu++)
		r[cpu].cons->consumer_pos = r[cpu].prod->producer_pos;
	pfd.revents = 0;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLHUP, pfd.revents & (POLLIN | POLLHUP));

	/* Running again, below the watermark: neither. */
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
	pfd.revents = 0;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
	for (int cpu = 0; cpu < self->ncpu; cpu++)
		td_ring_unmap(&r[cpu]);
	free(r);
}

/* ---- a refused CONFIGURE changes nothing ---------------------------------- */

/* A field of /proc/meminfo in KiB, or -1. */
static long meminfo_kb(const char *field)
{
	char *s = td_read_file("/proc/meminfo"), *p;
	long v = -1;

	p = s ? strstr(s, field) : NULL;
	if (p)
		v = strtol(p + strlen(field) + 1, NULL, 10);
	free(s);
	return v;
}

/* A counter of /proc/vmstat, or -1. */
static long vmstat_count(const char *name)
{
	char *s = td_read_file("/proc/vmstat"), *line, *save = NULL;
	long v = -1;
	size_t n = strlen(name);

	for (line = s ? strtok_r(s, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, name, n) && line[n] == ' ')
			v = strtol(line + n + 1, NULL, 10);
	free(s);
	return v;
}

/*
 * Child: take anonymous memory until less than @left_kb is available,
 * first in line for the OOM killer; tell the parent, then sleep.
 */
static void hog(int ready, long left_kb)
{
	const size_t chunk = 1 << 20;
	char c = 1;

	td_write_file("/proc/self/oom_score_adj", "1000");
	while (meminfo_kb("MemAvailable:") > left_kb) {
		char *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		memset(p, 1, chunk);
	}
	if (write(ready, &c, 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/*
 * "a shortage fails it with ENOMEM (the kernel does not invoke the OOM
 * killer for them)": with a process holding all but 8 MiB of the memory,
 * a CONFIGURE of rings that fit the module's limit (an eighth of the
 * memory) but not what is left fails with ENOMEM, changes nothing, and
 * the OOM killer kills nobody.
 */
TEST_F_TIMEOUT(dev, configure_under_memory_pressure_kills_nobody, 300)
{
	long total = meminfo_kb("MemTotal:"), left = 8 << 10;
	struct topdown_config cfg, big;
	uint32_t ring = 16u << 20;
	int pfd[2], status, err;
	long kills;
	pid_t pid;
	char c;

	ASSERT_LT(0, total);
	if (vmstat_count("oom_kill") < 0)
		SKIP(return, "no oom_kill count in /proc/vmstat");
	/* The largest ring the module's limit lets through on every CPU. */
	while ((uint64_t)ring * 2 <= TOPDOWN_RING_MAX_SIZE &&
	       ((uint64_t)ring * 2 + 2 * TD_PAGE) * self->ncpu <= total * 1024ull / 8)
		ring *= 2;
	if (((uint64_t)ring + 2 * TD_PAGE) * self->ncpu > total * 1024ull / 8 ||
	    ring / 1024 < 2 * left)
		SKIP(return, "too little memory for a ring larger than what is left free");
	td_cfg_sw(&cfg, 16384);
	strcpy(cfg.label, "set=keep-me");
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pfd[0]);
		hog(pfd[1], left);
	}
	close(pfd[1]);
	/* 0: the hog died taking the memory (the OOM killer, on its own). */
	ASSERT_EQ(1, read(pfd[0], &c, 1));
	TH_LOG("%ld KiB available of %ld, rings of %u KiB on %d CPUs",
	       meminfo_kb("MemAvailable:"), total, ring >> 10, self->ncpu);
	td_cfg_sw(&big, ring);
	kills = vmstat_count("oom_kill");
	err = xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &big);
	EXPECT_EQ(kills, vmstat_count("oom_kill"))
		TH_LOG("the OOM killer killed %ld processes during CONFIGURE",
		       vmstat_count("oom_kill") - kills);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(pfd[0]);
	EXPECT_EQ(ENOMEM, err) TH_LOG("CONFIGURE: %s", err ? strerror(err) : "succeeded");
	if (!err)
		return;
	EXPECT_EQ(16384, td_cur_ring_size(self->fd));
}

TEST_F_TIMEOUT(dev, configure_enomem_keeps_everything, 60)
{
	const uint32_t ring = 16384;
	struct topdown_config cfg, big, got;
	struct topdown_cpu_stats before[64], after[64];
	struct topdown_status st;
	uint8_t *copy[64];
	int n = self->ncpu < 64 ? self->ncpu : 64, err;
	struct td_ring r;

	td_cfg_sw(&cfg, ring);
	strcpy(cfg.label, "set=keep-me");
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
	switch_for_ms(50);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
	ASSERT_EQ(0, td_status(self->fd, &st, before, n));
	for (int cpu = 0; cpu < n; cpu++) {
		copy[cpu] = malloc(ring);
		ASSERT_EQ(0, td_ring_map(self->fd, cpu, ring, &r));
		memcpy(copy[cpu], r.data, ring);
		td_ring_unmap(&r);
	}

	/* The largest ring: more than the module allows on a small guest. */
	td_cfg_sw(&big, TOPDOWN_RING_MAX_SIZE);
	err = xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &big);
	if (err == 0)
		SKIP(return, "%u-byte rings on %d CPUs fit in this machine's memory",
		     TOPDOWN_RING_MAX_SIZE, self->ncpu);
	ASSERT_EQ(ENOMEM, err);

	memset(&got, POISON, sizeof(got));
	got.size = sizeof(got);
	for (int i = 0; i < TOPDOWN_MAX_EVENTS; i++) {
		got.events[i].cpus_ptr = 0;
		got.events[i].cpus_size = 0;
	}
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_GET_CONFIG, &got))
		TH_LOG("the refused CONFIGURE lost the configuration");
	EXPECT_EQ(ring, got.ring_size);
	EXPECT_STREQ("set=keep-me", got.label);
	EXPECT_EQ(1, got.nr_events);
	ASSERT_EQ(0, td_status(self->fd, &st, after, n));
	EXPECT_EQ(TOPDOWN_STATE_CONFIGURED, st.state);
	for (int cpu = 0; cpu < n; cpu++) {
		EXPECT_EQ(before[cpu].producer_pos, after[cpu].producer_pos);
		EXPECT_EQ(before[cpu].records, after[cpu].records);
		ASSERT_EQ(0, td_ring_map(self->fd, cpu, ring, &r));
		EXPECT_EQ(0, memcmp(copy[cpu], r.data, ring)) TH_LOG("cpu %d data", cpu);
		EXPECT_EQ(before[cpu].producer_pos, r.prod->producer_pos);
		td_ring_unmap(&r);
		free(copy[cpu]);
	}
	/* And it still works. */
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
}

/* ---- overwrite mode: a slow reader against a fast producer --------------- */

struct pinger {
	int cpu;
	int rfd, wfd;
	volatile int *stop;
};

/* Two of these, pinned to one CPU, bounce a byte: a switch each time. */
static void *ping(void *arg)
{
	struct pinger *p = arg;
	char c = 0;

	td_pin_cpu(p->cpu);
	while (!*p->stop) {
		if (write(p->wfd, &c, 1) != 1 || read(p->rfd, &c, 1) != 1)
			break;
	}
	return NULL;
}

/*
 * A deliberately slow copy, 8 bytes at a time, from the end: the kernel
 * fills a slot from the counter deltas at the end to the sequence number
 * at the start, so a copy that ends on the first bytes just before the
 * check is the one most likely to see a fill in progress.
 */
static void slow_copy(void *dst, const volatile uint64_t *src, unsigned int spin)
{
	uint64_t *d = dst;

	for (int i = TOPDOWN_RECORD_SIZE / 8 - 1; i >= 0; i--) {
		d[i] = src[i];
		for (volatile unsigned int s = 0; s < spin; s++)
			;
	}
}

/*
 * The check the header documents: a copy of the record at p is intact if,
 * after a read barrier, producer_pos is still at most p + data_size -
 * TOPDOWN_RECORD_SIZE. TD_OLD_OVERWRITE_RULE builds the check the header
 * documented before (p + data_size), to measure what that accepted.
 */
#ifdef TD_OLD_OVERWRITE_RULE
#define WHOLE(size)	(size)
#else
#define WHOLE(size)	((size) - TOPDOWN_RECORD_SIZE)
#endif

TEST_F_TIMEOUT(dev, overwrite_slow_reader_never_accepts_torn_records, 300)
{
	const uint32_t ring = 4096 > TD_PAGE ? 4096 : TD_PAGE;
	long iters = td_env_long("TD_OVERWRITE_ITERS", 300000);
	/* The arm64 -icount guest is far slower: bound the time as well. */
	uint64_t end = td_now_ns() + td_env_long("TD_OVERWRITE_SECS", 30) * 1000000000ull;
	unsigned int spin = td_env_long("TD_OVERWRITE_SPIN", 20);
	int pcpu = self->ncpu > 1 ? 1 : 0;
	volatile int stop = 0;
	struct pinger pg[2];
	int ab[2], ba[2];
	pthread_t th[2];
	struct topdown_config cfg;
	unsigned long accepted = 0, rejected = 0, torn = 0, chains = 0;
	struct td_ring r;

	if (self->ncpu < 2)
		SKIP(return, "needs two CPUs: a reader and a producer");
	td_cfg_sw(&cfg, ring);
	cfg.flags = TOPDOWN_OVERFLOW_OVERWRITE;
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	ASSERT_EQ(0, td_ring_map(self->fd, pcpu, ring, &r));
	ASSERT_EQ(0, pipe(ab));
	ASSERT_EQ(0, pipe(ba));
	pg[0] = (struct pinger){ pcpu, ba[0], ab[1], &stop };
	pg[1] = (struct pinger){ pcpu, ab[0], ba[1], &stop };
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
	td_pin_cpu(0);
	pthread_create(&th[0], NULL, ping, &pg[0]);
	pthread_create(&th[1], NULL, ping, &pg[1]);
	while (__atomic_load_n(&r.prod->producer_pos, __ATOMIC_ACQUIRE) < 2 * ring)
		usleep(1000);

	long i;

	for (i = 0; i < iters && (i & 1023 || td_now_ns() < end); i++) {
		uint64_t q = __atomic_load_n(&r.prod->producer_pos, __ATOMIC_ACQUIRE);
		/* The oldest record the rule calls whole, and the next one. */
		uint64_t p = q - WHOLE(ring), now;
		uint64_t wa[TOPDOWN_RECORD_SIZE / 8], wb[TOPDOWN_RECORD_SIZE / 8];
		struct topdown_record a, b;

		slow_copy(wb, (const volatile uint64_t *)(r.data + ((p + 128) & (ring - 1))),
			  spin);
		slow_copy(wa, (const volatile uint64_t *)(r.data + (p & (ring - 1))), spin);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		now = __atomic_load_n(&r.prod->producer_pos, __ATOMIC_RELAXED);
		if (now > p + WHOLE(ring)) {
			rejected++;
			continue;
		}
		accepted++;
		memcpy(&a, wa, sizeof(a));
		memcpy(&b, wb, sizeof(b));
		/* Seq counts every record, so it names the position. */
		if (a.seq * TOPDOWN_RECORD_SIZE != p || b.seq != a.seq + 1 ||
		    a.cpu != pcpu || b.cpu != pcpu ||
		    b.time_ns - b.duration_ns != a.time_ns) {
			if (torn < 5)
				TH_LOG("accepted torn record at %llu: seq %llu/%llu cpu %u/%u, "
				       "time %llu, next starts at %llu",
				       (unsigned long long)p, (unsigned long long)a.seq,
				       (unsigned long long)b.seq, a.cpu, b.cpu,
				       (unsigned long long)a.time_ns,
				       (unsigned long long)(b.time_ns - b.duration_ns));
			torn++;
		} else {
			chains++;
		}
	}
	stop = 1;
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
	/* Unblock the pingers. */
	close(ab[1]);
	close(ba[1]);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	close(ab[0]);
	close(ba[0]);
	TH_LOG("%ld tries: %lu accepted (%lu torn), %lu discarded; %llu records produced",
	       i, accepted, torn, rejected,
	       (unsigned long long)r.prod->producer_pos / TOPDOWN_RECORD_SIZE);
	td_count("overwrite_accepted", accepted);
	td_count("overwrite_torn_accepted", torn);
	td_ring_unmap(&r);
	EXPECT_EQ(0, torn);
	/* The reader must keep up sometimes, or nothing was tested. */
	EXPECT_LT(100, chains);
}

/* ---- memory accounting ------------------------------------------------- */

#define MEMCG		"/sys/fs/cgroup/td_memcg_test"

static long long memcg_current(void)
{
	char *s = td_read_file(MEMCG "/memory.current");
	long long v = s ? atoll(s) : -1;

	free(s);
	return v;
}

/* CONFIGURE @ring in a child inside MEMCG: 0 or the child's errno. */
static int configure_in_memcg(int fd, uint32_t ring)
{
	struct topdown_config cfg;
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		td_cfg_sw(&cfg, ring);
		if (td_write_file(MEMCG "/cgroup.procs", "0"))
			_exit(250);
		_exit(ioctl(fd, TOPDOWN_IOC_CONFIGURE, &cfg) ? errno : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 251;
	return WEXITSTATUS(status);
}

/*
 * "The rings are charged to the memory cgroup of the process that calls
 * CONFIGURE": over the cgroup's memory.max (4 MiB) CONFIGURE of 8 MiB
 * rings fails with ENOMEM, keeps the configuration and leaves nothing
 * charged; 256 KiB rings succeed and are charged there until the next
 * CONFIGURE frees them.
 */
TEST_F(dev, configure_charged_to_memory_cgroup)
{
	const uint32_t big = 8 << 20, small = 256 << 10;
	struct topdown_config cfg;
	long long base, after;
	char *ctl;
	int ret;

	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK)) {
		mkdir("/sys/fs/cgroup", 0755);
		mount("none", "/sys/fs/cgroup", "cgroup2", 0, NULL);
	}
	ctl = td_read_file("/sys/fs/cgroup/cgroup.controllers");
	if (!ctl || !strstr(ctl, "memory")) {
		free(ctl);
		SKIP(return, "no cgroup v2 memory controller here");
	}
	free(ctl);
	td_write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	rmdir(MEMCG);
	ASSERT_EQ(0, mkdir(MEMCG, 0755)) TH_LOG("mkdir %s: %s", MEMCG, strerror(errno));
	ASSERT_EQ(0, td_write_file(MEMCG "/memory.max", "4194304"));
	td_cfg_sw(&cfg, 8192);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	base = memcg_current();
	ASSERT_LE(0, base);

	ret = configure_in_memcg(self->fd, big);
	after = memcg_current();
	TH_LOG("%d CPUs, 8 MiB rings in a 4 MiB cgroup: %s; charged %lld -> %lld bytes",
	       self->ncpu, ret ? strerror(ret) : "accepted", base, after);
	EXPECT_EQ(ENOMEM, ret);
	EXPECT_EQ(8192, td_cur_ring_size(self->fd));
	EXPECT_GE(base + (1 << 20), after) TH_LOG("the failed CONFIGURE left memory charged");

	ret = configure_in_memcg(self->fd, small);
	after = memcg_current();
	TH_LOG("256 KiB rings: %s; charged %lld -> %lld bytes", ret ? strerror(ret) : "accepted",
	       base, after);
	EXPECT_EQ(0, ret);
	EXPECT_LE(base + (long long)self->ncpu * small * 9 / 10, after)
		TH_LOG("the rings were not charged to the caller's cgroup");
	/* Freed by the next CONFIGURE (from outside the cgroup): uncharged. */
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	EXPECT_GE(base + (1 << 20), memcg_current());
	EXPECT_EQ(0, rmdir(MEMCG));
}

TEST_HARNESS_MAIN
