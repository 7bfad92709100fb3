// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile and broken input for /dev/topdown: every ioctl with short,
 * oversized, misaligned, faulting and garbage arguments (checked against a
 * model of the documented rules, errno by errno), unknown flags, too many
 * events, events perf rejects, the state machine out of order, every mmap
 * protection/offset/length/flag combination, partial munmap, mremap,
 * mprotect, fork, garbage consumer positions, user memory that faults
 * while the kernel copies to it, and pinned events that cannot get a PMU
 * counter. Run as root in a guest with the module loaded and idle.
 *
 * The number of cases tried is printed as "# COUNT ioctl_cases N" and
 * "# COUNT mmap_cases N". The long tests have generous timeouts: the
 * debug-kernel tier (KASAN, lockdep) runs them several times slower.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/topdown.h>

#include "kselftest_harness.h"
#include "td_common.h"
#include "td_fixture.h"

#define PAGE		TD_PAGE
#define NSTATS		256

/*
 * A buffer of `avail` accessible bytes that ends exactly at a PROT_NONE
 * guard page, so the kernel faults on the first byte past it.
 */
struct guarded {
	uint8_t *base;
	size_t len;
};

static uint8_t *guarded_at(struct guarded *g, size_t avail)
{
	size_t pages = (avail + PAGE - 1) / PAGE + 1;

	g->len = (pages + 1) * PAGE;
	g->base = mmap(NULL, g->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->base == MAP_FAILED)
		return NULL;
	mprotect(g->base + pages * PAGE, PAGE, PROT_NONE);
	return g->base + pages * PAGE - avail;
}

static void guarded_free(struct guarded *g)
{
	munmap(g->base, g->len);
}

/* ---- ioctl numbers ------------------------------------------------------ */

/* An ioctl number with its size bits cleared. */
static unsigned long ioc_no_size(unsigned long cmd)
{
	return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), 0);
}

TEST_F_TIMEOUT(dev, unknown_ioctl_numbers_refused, 300)
{
	static const unsigned int dirs[] = { _IOC_NONE, _IOC_READ, _IOC_WRITE,
					     _IOC_READ | _IOC_WRITE };
	static const unsigned int sizes[] = { 0, 1, 8, 127,
		sizeof(struct topdown_config), sizeof(struct topdown_status),
		4096, 16383 };
	static const unsigned int types[] = { TOPDOWN_IOC_MAGIC, 0, 'T', 0x24 };
	const unsigned long known[] = { TOPDOWN_IOC_CONFIGURE,
		TOPDOWN_IOC_GET_CONFIG, TOPDOWN_IOC_START, TOPDOWN_IOC_STOP,
		TOPDOWN_IOC_STATUS, TOPDOWN_IOC_TOTALS };
	uint8_t *buf = calloc(1, 65536);
	unsigned long cases = 0, bad = 0;

	ASSERT_NE(NULL, buf);
	memset(buf, 0xa5, 65536);
	for (unsigned int t = 0; t < sizeof(types) / sizeof(types[0]); t++)
		for (unsigned int nr = 0; nr < 256; nr++)
			for (unsigned int d = 0; d < 4; d++)
				for (unsigned int s = 0; s < TD_NELEM(sizes); s++) {
					unsigned long cmd = _IOC(dirs[d], types[t], nr, sizes[s]);
					unsigned long base = ioc_no_size(cmd);
					bool is_known = false;
					int err;

					/* The struct ioctls: any size bits >= VER0. */
					for (unsigned int k = 0; k < TD_NELEM(known); k++)
						is_known |= cmd == known[k] ||
							    (_IOC_SIZE(known[k]) &&
							     base == ioc_no_size(known[k]) &&
							     sizes[s] >= _IOC_SIZE(known[k]));
					if (is_known)
						continue;
					/* Some generic ioctls (FIONREAD, FIOCLEX...) are
					 * handled by the VFS: only our magic must be ENOTTY.
					 */
					err = xioctl(self->fd, cmd, buf);
					cases++;
					if (types[t] == TOPDOWN_IOC_MAGIC && err != ENOTTY) {
						bad++;
						TH_LOG("cmd %#lx: %s", cmd, strerror(err));
					}
				}
	/* Nothing was started by all that. */
	{
		struct topdown_status st;

		ASSERT_EQ(0, td_status(self->fd, &st, NULL, 0));
		EXPECT_NE(TOPDOWN_STATE_RUNNING, st.state);
	}
	EXPECT_EQ(0, bad);
	td_count("ioctl_cases", cases);
	free(buf);
}

/* ---- size fields, short buffers, faults, misalignment ----------------- */

/* What CONFIGURE must answer for a config of `size` with `avail` readable
 * bytes (the content being a valid config followed by zero bytes).
 */
static int expect_configure(uint32_t size, size_t avail)
{
	if (avail < 4)
		return EFAULT;
	if (size < TOPDOWN_CONFIG_SIZE_VER0)
		return EINVAL;
	if (size > PAGE)
		return E2BIG;
	if (size > avail)
		return EFAULT;
	return 0;
}

static int expect_get_config(uint32_t size, size_t avail, bool writable)
{
	if (avail < 4)
		return EFAULT;
	if (size < TOPDOWN_CONFIG_SIZE_VER0)
		return EINVAL;
	if (size > PAGE)
		return E2BIG;
	/* It reads and writes back min(size, its own struct). */
	if (avail < (size < sizeof(struct topdown_config) ?
		     size : sizeof(struct topdown_config)))
		return EFAULT;
	if (!writable)
		return EFAULT;
	return 0;
}

static int expect_status(uint32_t size, size_t avail, bool writable)
{
	if (avail < 4)
		return EFAULT;
	if (size < TOPDOWN_STATUS_SIZE_VER0)
		return EINVAL;
	if (size > PAGE)
		return E2BIG;
	if (size > avail)
		return EFAULT;
	if (!writable)
		return EFAULT;
	return 0;
}

/*
 * One ioctl with every size field in size_vals[] and every number of
 * accessible bytes in avails[] (the struct ends at a guard page), in a
 * writable and a read-only buffer; @expect gives the error each must
 * return. A CONFIGURE struct starts from a valid configuration, the
 * others from zeroes. The number of cases run goes to *cases.
 */
static void size_avail_matrix(struct __test_metadata *_metadata, int fd,
			      unsigned long cmd, const char *name,
			      int (*expect)(uint32_t size, size_t avail, bool writable),
			      unsigned long *cases)
{
	const size_t csz = sizeof(struct topdown_config);
	const size_t ssz = sizeof(struct topdown_status);
	const uint32_t size_vals[] = { 0, 1, 4, csz - 8, csz - 1, csz, csz + 1,
		csz + 8, ssz - 8, ssz, ssz + 8, PAGE - 1, PAGE, PAGE + 1,
		1u << 20, 0x7fffffff, 0xffffffff };
	const size_t avails[] = { 0, 1, 3, 4, 8, ssz - 1, ssz, csz - 1, csz,
		csz + 8, PAGE, PAGE + 64 };
	struct topdown_config cfg;
	int err, want;

	td_cfg_sw(&cfg, 0);
	ASSERT_EQ(0, xioctl(fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	for (unsigned int a = 0; a < sizeof(avails) / sizeof(avails[0]); a++) {
		for (unsigned int s = 0; s < sizeof(size_vals) / sizeof(size_vals[0]); s++) {
			size_t avail = avails[a];
			uint32_t size = size_vals[s];
			struct guarded g;
			uint8_t *p;

			for (int ro = 0; ro < 2; ro++) {
				p = guarded_at(&g, avail);
				ASSERT_NE(NULL, p);
				if (cmd == TOPDOWN_IOC_CONFIGURE)
					memcpy(p, &cfg, avail < csz ? avail : csz);
				else
					memset(p, 0, avail);
				if (avail >= 4)
					memcpy(p, &size, 4);
				if (ro)
					mprotect(g.base, g.len - PAGE, PROT_READ);
				err = xioctl(fd, cmd, p);
				want = expect(size, avail, !ro);
				EXPECT_EQ(want, err) TH_LOG("%s size %u avail %zu ro %d: %s",
							    name, size, avail, ro, strerror(err));
				(*cases)++;
				guarded_free(&g);
			}
		}
	}
}

/* CONFIGURE only reads its struct: a read-only one is as good. */
static int expect_configure_rw(uint32_t size, size_t avail, bool writable)
{
	return expect_configure(size, avail);
}

TEST_F_TIMEOUT(dev, configure_short_oversized_and_faulting_structs, 300)
{
	unsigned long cases = 0;

	size_avail_matrix(_metadata, self->fd, TOPDOWN_IOC_CONFIGURE, "CONFIGURE",
			  expect_configure_rw, &cases);
	td_count("ioctl_cases", cases);
}

TEST_F_TIMEOUT(dev, get_config_short_oversized_and_faulting_structs, 300)
{
	unsigned long cases = 0;

	size_avail_matrix(_metadata, self->fd, TOPDOWN_IOC_GET_CONFIG, "GET_CONFIG",
			  expect_get_config, &cases);
	td_count("ioctl_cases", cases);
}

TEST_F_TIMEOUT(dev, status_short_oversized_and_faulting_structs, 300)
{
	unsigned long cases = 0;

	size_avail_matrix(_metadata, self->fd, TOPDOWN_IOC_STATUS, "STATUS",
			  expect_status, &cases);
	td_count("ioctl_cases", cases);
}

/* Misaligned but complete structs work. */
TEST_F(dev, misaligned_structs_work)
{
	struct topdown_config cfg;
	struct topdown_status st;
	unsigned long cases = 0;

	for (int off = 1; off < 16; off++) {
		uint8_t *buf = calloc(1, PAGE * 2);

		ASSERT_NE(NULL, buf);
		td_cfg_sw(&cfg, 0);
		memcpy(buf + off, &cfg, sizeof(cfg));
		EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, buf + off));
		memset(buf, 0, PAGE * 2);
		memcpy(buf + off, &(uint32_t){ sizeof(cfg) }, 4);
		EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_GET_CONFIG, buf + off));
		EXPECT_EQ(0, memcmp(buf + off + offsetof(struct topdown_config, label),
				    "set=selftest", 13));
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		memcpy(buf + off, &st, sizeof(st));
		EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STATUS, buf + off));
		cases += 3;
		free(buf);
	}
	td_count("ioctl_cases", cases);
}

/* Null and kernel-half pointers fault; START and STOP ignore theirs. */
TEST_F(dev, null_and_kernel_pointers_fault)
{
	const uintptr_t ptrs[] = { 0, 8, 4095, (uintptr_t)-4096,
		(uintptr_t)0xffff888000000000ull, (uintptr_t)1 << 47 };
	struct topdown_config cfg;
	unsigned long cases = 0;

	td_cfg_sw(&cfg, 0);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &cfg));
	for (unsigned int i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++) {
		void *p = (void *)ptrs[i];

		EXPECT_EQ(EFAULT, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, p));
		EXPECT_EQ(EFAULT, xioctl(self->fd, TOPDOWN_IOC_GET_CONFIG, p));
		EXPECT_EQ(EFAULT, xioctl(self->fd, TOPDOWN_IOC_STATUS, p));
		EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, (void *)ptrs[i]));
		EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, (void *)ptrs[i]));
		cases += 5;
	}
	td_count("ioctl_cases", cases);
}

/* ---- every rule of CONFIGURE, against a model, with garbage ---------- */

struct model_env {
	int ncpu;
	uint64_t *good_mask;	/* a valid mask: CPU 0 */
	uint64_t *bad_mask;	/* an impossible CPU */
	uint64_t *empty_mask;
	uint8_t *unmapped;	/* PROT_NONE */
};

/* Pool entry i ("Groups and rotation"): events[], then more_events[]. */
static const struct topdown_event *pool_ev(const struct topdown_config *c,
					   unsigned int i)
{
	return i < TOPDOWN_MAX_EVENTS ? &c->events[i] :
	       &c->more_events[i - TOPDOWN_MAX_EVENTS];
}

/* The groups' rules of the header (EINVAL), 0 if they hold. */
static int model_groups(const struct topdown_config *c)
{
	static const struct topdown_group zero;
	uint64_t used = 0;

	for (unsigned int g = 0; g < TOPDOWN_MAX_GROUPS; g++) {
		const struct topdown_group *grp = &c->groups[g];
		uint64_t mine = 0;

		if (g >= c->nr_groups) {
			if (memcmp(grp, &zero, sizeof(zero)))
				return EINVAL;
			continue;
		}
		if (grp->nr_events < 1 || grp->nr_events > TOPDOWN_MAX_EVENTS ||
		    grp->flags)
			return EINVAL;
		for (unsigned int j = 0; j < TOPDOWN_MAX_EVENTS; j++) {
			unsigned int p = grp->events[j];

			if (j >= grp->nr_events) {
				if (p)
					return EINVAL;
				continue;
			}
			if (p >= c->nr_events || (mine >> p & 1))
				return EINVAL;
			mine |= 1ull << p;
		}
		used |= mine;
	}
	if (c->nr_groups && used != (c->nr_events == 64 ? ~0ull :
				     (1ull << c->nr_events) - 1))
		return EINVAL;
	if (c->nr_groups < 2)
		return c->rotate_ms ? EINVAL : 0;
	if (c->rotate_ms && (c->rotate_ms < TOPDOWN_ROTATE_MIN_MS ||
			     c->rotate_ms > TOPDOWN_ROTATE_MAX_MS))
		return EINVAL;
	return 0;
}

/*
 * The errno CONFIGURE must return for cfg (0 if accepted). The module
 * reads cfg->size bytes and takes what lies past them as zero: the rules
 * apply to that view of it (*eff).
 */
static int model_configure(const struct topdown_config *in,
			   const struct model_env *env,
			   struct topdown_config *eff)
{
	const struct topdown_config *c = eff;
	uint32_t ring, wm, pool;

	*eff = *in;
	if (in->size < TOPDOWN_CONFIG_SIZE_VER0)
		return EINVAL;
	if (in->size > PAGE)
		return E2BIG;
	if (in->size < sizeof(*eff))
		memset((uint8_t *)eff + in->size, 0, sizeof(*eff) - in->size);
	ring = c->ring_size ? c->ring_size : TOPDOWN_RING_DEFAULT_SIZE;
	pool = c->nr_groups ? TOPDOWN_MAX_POOL : TOPDOWN_MAX_EVENTS;
	if (c->flags & ~TOPDOWN_CONFIG_FLAGS_ALL || c->__reserved ||
	    c->__reserved2)
		return EINVAL;
	/* Totals (VER2): a power of two in range, 0 for the default. */
	if (!(c->flags & TOPDOWN_CONFIG_TOTALS)) {
		if (c->totals_tasks)
			return EINVAL;
	} else if (!c->totals_tasks) {
		eff->totals_tasks = TOPDOWN_TOTALS_DEFAULT_TASKS;
	} else if (c->totals_tasks & (c->totals_tasks - 1) ||
		   c->totals_tasks < TOPDOWN_TOTALS_MIN_TASKS ||
		   c->totals_tasks > TOPDOWN_TOTALS_MAX_TASKS) {
		return EINVAL;
	}
	if (c->nr_groups > TOPDOWN_MAX_GROUPS || c->nr_events < 1 ||
	    c->nr_events > pool)
		return EINVAL;
	if (!memchr(c->label, 0, sizeof(c->label)))
		return EINVAL;
	if (ring & (ring - 1) || ring < TOPDOWN_RING_MIN_SIZE ||
	    ring > TOPDOWN_RING_MAX_SIZE || ring < PAGE)
		return EINVAL;
	wm = c->watermark ? c->watermark : ring / 4;
	if (wm > ring)
		return EINVAL;
	for (unsigned int i = 0; i < TOPDOWN_MAX_POOL; i++) {
		const struct topdown_event *e = pool_ev(c, i);
		static const struct topdown_event zero;

		if (i >= c->nr_events) {
			if (memcmp(e, &zero, sizeof(zero)))
				return EINVAL;
			continue;
		}
		if (e->flags & ~TOPDOWN_EVENT_FLAGS_ALL || e->__reserved)
			return EINVAL;
		if (!memchr(e->name, 0, sizeof(e->name)))
			return EINVAL;
		if (!e->cpus_ptr != !e->cpus_size)
			return EINVAL;
	}
	if (model_groups(c))
		return EINVAL;
	for (unsigned int i = 0; i < c->nr_events; i++) {
		const struct topdown_event *e = pool_ev(c, i);
		const uint64_t *m = (const uint64_t *)(uintptr_t)e->cpus_ptr;

		if (!e->cpus_size)
			continue;
		if (e->cpus_size % 8 || e->cpus_size > TOPDOWN_CPUMASK_MAX_BYTES)
			return EINVAL;
		if (m != env->good_mask && m != env->bad_mask && m != env->empty_mask)
			return EFAULT;
		if (m != env->good_mask)
			return EINVAL;
	}
	/* Core CPU PMUs and software events only (the header's Permissions). */
	for (unsigned int i = 0; i < c->nr_events; i++) {
		switch (pool_ev(c, i)->type) {
		case PERF_TYPE_HARDWARE:
		case PERF_TYPE_SOFTWARE:
		case PERF_TYPE_HW_CACHE:
		case PERF_TYPE_RAW:
			continue;
		case PERF_TYPE_TRACEPOINT:
		case PERF_TYPE_BREAKPOINT:
			return EOPNOTSUPP;
		}
		return -2;	/* ENOENT, or EOPNOTSUPP: garbage types are no core PMU */
	}
	if (ring >= (8u << 20))
		return -1;	/* ENOMEM or 0, depending on the guest's memory */
	return 0;
}

/*
 * A configuration from garbage, with fields repaired: in "nice" rounds
 * (3 in 4) nearly all of them, so that each check is reached with the
 * others passing; otherwise about half. Masks point into @env.
 */
static void garbage_config(struct topdown_config *c, uint64_t *seedp,
			   const struct model_env *env)
{
	const uint32_t rings[] = { 0, 4096, 8192, 1u << 16, 4096 + 128, 2048,
		1u << 20, TOPDOWN_RING_MAX_SIZE, TOPDOWN_RING_MAX_SIZE * 2, 3,
		0x80000000u, 0xffffffffu };
	uint64_t seed = *seedp;
	bool nice = td_rand(&seed) & 3;
#define REPAIR() (nice ? td_rand_below(&seed, 24) != 0 : td_rand_below(&seed, 2))

	for (unsigned int i = 0; i < sizeof(*c) / 8; i++)
		((uint64_t *)c)[i] = td_rand(&seed);
	if (REPAIR())
		c->size = sizeof(*c);
	else if (REPAIR())
		c->size = (uint32_t)td_rand_below(&seed, PAGE + 64);
	if (REPAIR())
		c->flags &= TOPDOWN_CONFIG_FLAGS_ALL;
	if (REPAIR())
		c->__reserved = 0;
	/* Totals (VER2): off in most rounds; sizes in and out of range. */
	if (REPAIR())
		c->__reserved2 = 0;
	if (REPAIR()) {
		static const uint32_t tasks[] = { 0, 0, 64, 4096, 65536, 32,
			100, 1u << 17 };

		c->flags &= ~TOPDOWN_CONFIG_TOTALS;
		c->totals_tasks = 0;
		if (!td_rand_below(&seed, 4)) {
			c->flags |= TOPDOWN_CONFIG_TOTALS;
			c->totals_tasks = tasks[td_rand_below(&seed, TD_NELEM(tasks))];
		}
	}
	/* Groups (VER1): none in most rounds, as before. */
	if (REPAIR())
		c->nr_groups = td_rand_below(&seed, 2) ? 0 :
			td_rand_below(&seed, TOPDOWN_MAX_GROUPS + 2);
	if (REPAIR())
		c->nr_events = td_rand_below(&seed, (c->nr_groups ? TOPDOWN_MAX_POOL :
						    TOPDOWN_MAX_EVENTS) + 2);
	if (REPAIR()) {
		static const uint32_t ms[] = { 0, 0, 0, 1, 20, 60000, 60001 };

		c->rotate_ms = c->nr_groups < 2 && td_rand_below(&seed, 4) ? 0 :
			ms[td_rand_below(&seed, TD_NELEM(ms))];
	}
	for (unsigned int g = 0; g < TOPDOWN_MAX_GROUPS; g++) {
		struct topdown_group *grp = &c->groups[g];

		if (g >= c->nr_groups) {
			if (REPAIR())
				memset(grp, 0, sizeof(*grp));
			continue;
		}
		/* Nice: entry i in group i % nr_groups, then maybe more. */
		if (!REPAIR())
			continue;
		memset(grp, 0, sizeof(*grp));
		for (unsigned int p = g; p < c->nr_events && grp->nr_events < 8;
		     p += c->nr_groups)
			grp->events[grp->nr_events++] = p;
		if (!grp->nr_events || td_rand_below(&seed, 4) == 0)
			grp->events[grp->nr_events++ % 8] =
				td_rand_below(&seed, c->nr_events + 1);
		if (td_rand_below(&seed, 16) == 0)
			grp->flags = 1;
	}
	if (REPAIR())
		c->label[td_rand_below(&seed, sizeof(c->label))] = 0;
	if (REPAIR())
		c->ring_size = rings[td_rand_below(&seed, sizeof(rings) / sizeof(rings[0]))];
	if (REPAIR())
		c->watermark = td_rand_below(&seed, 3) ?
			td_rand_below(&seed, (c->ring_size ? c->ring_size : 1) + 2) : 0;
	for (unsigned int i = 0; i < TOPDOWN_MAX_POOL; i++) {
		struct topdown_event *e = (struct topdown_event *)pool_ev(c, i);
		uint64_t q = td_rand(&seed);

		if (i >= c->nr_events && REPAIR()) {
			memset(e, 0, sizeof(*e));
			if (!(q & 0xff))
				e->name[3] = 'x';
			continue;
		}
		if (REPAIR()) {
			e->type = PERF_TYPE_SOFTWARE;
			e->config = td_rand_below(&seed, 4) ? PERF_COUNT_SW_CPU_CLOCK :
				td_rand_below(&seed, 16);
		}
		if (REPAIR())
			e->flags &= TOPDOWN_EVENT_FLAGS_ALL;
		if (REPAIR())
			e->__reserved = 0;
		if (REPAIR())
			e->name[td_rand_below(&seed, sizeof(e->name))] = 0;
		switch (REPAIR() ? 0 : (q >> 4) & 7) {
		case 0: case 1: case 2:
			e->cpus_ptr = 0;
			e->cpus_size = 0;
			break;
		case 3:
			e->cpus_ptr = (uintptr_t)env->good_mask;
			e->cpus_size = 8 * (1 + td_rand_below(&seed, 3));
			break;
		case 4:
			e->cpus_ptr = (uintptr_t)env->bad_mask;
			e->cpus_size = TOPDOWN_CPUMASK_MAX_BYTES;
			break;
		case 5:
			e->cpus_ptr = (uintptr_t)env->empty_mask;
			e->cpus_size = 8 * td_rand_below(&seed, 4);
			break;
		case 6:
			e->cpus_ptr = (q & 128) ? (uintptr_t)env->unmapped :
				(uintptr_t)0xffff888000000000ull;
			e->cpus_size = 8;
			break;
		default:
			e->cpus_size = td_rand_below(&seed, 2 * TOPDOWN_CPUMASK_MAX_BYTES);
			break;
		}
	}
#undef REPAIR
	*seedp = seed;
}

/* GET_CONFIG gives back the effective configuration the model made. */
static void expect_read_back(struct __test_metadata *_metadata, int fd,
			     const struct topdown_config *eff)
{
	struct topdown_config back;

	memset(&back, 0, sizeof(back));
	back.size = sizeof(back);
	ASSERT_EQ(0, xioctl(fd, TOPDOWN_IOC_GET_CONFIG, &back));
	EXPECT_EQ(eff->nr_events, back.nr_events);
	EXPECT_EQ(eff->flags, back.flags);
	EXPECT_EQ(eff->totals_tasks, back.totals_tasks);
	EXPECT_EQ(0, memcmp(eff->label, back.label, sizeof(eff->label)));
	for (unsigned int i = 0; i < eff->nr_events; i++) {
		EXPECT_EQ(pool_ev(eff, i)->type, pool_ev(&back, i)->type);
		EXPECT_EQ(pool_ev(eff, i)->config, pool_ev(&back, i)->config);
		EXPECT_EQ(pool_ev(eff, i)->flags, pool_ev(&back, i)->flags);
	}
	EXPECT_EQ(eff->nr_groups, back.nr_groups);
	EXPECT_EQ(0, memcmp(eff->groups, back.groups, sizeof(eff->groups)));
	EXPECT_EQ(eff->nr_groups < 2 ? 0 : eff->rotate_ms ? eff->rotate_ms :
		  TOPDOWN_ROTATE_DEFAULT_MS, back.rotate_ms);
}

/*
 * START an accepted configuration: perf may refuse a garbage event, but
 * never leave the collection half started. True when it ran.
 */
static bool start_cleanly(struct __test_metadata *_metadata, int fd)
{
	struct topdown_status st;
	int err;

	err = xioctl(fd, TOPDOWN_IOC_START, NULL);
	ASSERT_EQ(0, td_status(fd, &st, NULL, 0));
	if (!err) {
		EXPECT_EQ(TOPDOWN_STATE_RUNNING, st.state);
		EXPECT_EQ(0, xioctl(fd, TOPDOWN_IOC_STOP, NULL));
	} else {
		EXPECT_EQ(TOPDOWN_STATE_CONFIGURED, st.state);
		EXPECT_EQ(-err, st.error_code);
		EXPECT_EQ(EALREADY, xioctl(fd, TOPDOWN_IOC_STOP, NULL));
	}
	return !err;
}

/*
 * CONFIGURE with garbage returns what the model of the header's rules
 * says; what it accepts reads back as the model's effective
 * configuration, and now and then it is started.
 */
TEST_F_TIMEOUT(dev, configure_garbage_matches_model, 600)
{
	uint64_t seed = td_env_long("TD_SEED", 1);
	long iters = td_env_long("TD_HOSTILE_ITERS", 3000);
	struct model_env env = { .ncpu = self->ncpu };
	struct topdown_config c, eff;
	unsigned long cases = 0, accepted = 0, started = 0, grouped = 0;
	uint8_t buf[2 * 65536] __attribute__((aligned(8)));
	uint64_t *masks;

	masks = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, masks);
	memset(masks, 0, 3 * PAGE);
	env.good_mask = masks;
	env.good_mask[0] = 1;
	env.bad_mask = masks + PAGE / 8;
	env.bad_mask[(TOPDOWN_CPUMASK_MAX_BYTES / 8) - 1] = 1ull << 63;
	env.empty_mask = masks + 2 * PAGE / 8;
	env.unmapped = (uint8_t *)masks + 3 * PAGE;
	mprotect(env.unmapped, PAGE, PROT_NONE);

	TH_LOG("seed %llu, %ld iterations (TD_SEED, TD_HOSTILE_ITERS)",
	       (unsigned long long)seed, iters);
	for (long it = 0; it < iters; it++) {
		int want, err;

		garbage_config(&c, &seed, &env);
		/* Bytes past sizeof(c), when size says more: zero. */
		memset(buf, 0, 2 * PAGE);
		memcpy(buf, &c, sizeof(c));
		want = model_configure(&c, &env, &eff);
		err = xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, buf);
		cases++;
		if (want == -1) {
			EXPECT_TRUE(err == 0 || err == ENOMEM)
				TH_LOG("it %ld: %s", it, strerror(err));
		} else if (want == -2) {
			EXPECT_TRUE(err == ENOENT || err == EOPNOTSUPP)
				TH_LOG("it %ld: %s", it, strerror(err));
		} else {
			EXPECT_EQ(want, err) TH_LOG("iteration %ld (seed %s): want %s, got %s",
						    it, getenv("TD_SEED") ?: "1",
						    strerror(want), strerror(err));
		}
		if (err)
			continue;
		accepted++;
		expect_read_back(_metadata, self->fd, &eff);
		grouped += !!eff.nr_groups;
		if (td_rand_below(&seed, 8) == 0) {
			started += start_cleanly(_metadata, self->fd);
			cases += 2;
		}
	}
	TH_LOG("%lu configs tried, %lu accepted (%lu with groups), %lu started", cases,
	       accepted, grouped, started);
	EXPECT_LT(0, accepted);
	EXPECT_LT(0, grouped);
	td_count("ioctl_cases", cases);
	munmap(masks, 4 * PAGE);
}

TEST_F(dev, unknown_flags_reserved_and_too_many_events)
{
	const uint32_t nrs[] = { 0, TOPDOWN_MAX_EVENTS + 1, 255, 0x80000000u, 0xffffffffu };
	struct topdown_config c;
	unsigned long cases = 0;

	for (int b = 0; b < 32; b++) {
		td_cfg_sw(&c, 0);
		c.flags = 1u << b;
		EXPECT_EQ((1u << b) & TOPDOWN_CONFIG_FLAGS_ALL ? 0 : EINVAL,
			  xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
		td_cfg_sw(&c, 0);
		c.events[0].flags = 1u << b;
		EXPECT_EQ((1u << b) & TOPDOWN_EVENT_FLAGS_ALL ? 0 : EINVAL,
			  xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
		td_cfg_sw(&c, 0);
		c.__reserved = 1u << b;
		EXPECT_EQ(EINVAL, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
		td_cfg_sw(&c, 0);
		c.events[0].__reserved = 1u << b;
		EXPECT_EQ(EINVAL, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
		cases += 4;
	}
	for (unsigned int i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
		td_cfg_sw(&c, 0);
		c.nr_events = nrs[i];
		EXPECT_EQ(EINVAL, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
		cases++;
	}
	/* All eight is the maximum, and works. */
	td_cfg_sw(&c, 0);
	c.nr_events = TOPDOWN_MAX_EVENTS;
	for (int i = 1; i < TOPDOWN_MAX_EVENTS; i++)
		c.events[i] = c.events[0];
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
	usleep(2000);
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
	/* Watermark bounds. */
	td_cfg_sw(&c, 8192);
	c.watermark = 8193;
	EXPECT_EQ(EINVAL, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	c.watermark = 8192;
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	/* Names and label without NUL; a name is not looked at otherwise. */
	td_cfg_sw(&c, 0);
	memset(c.events[0].name, 0xff, sizeof(c.events[0].name));
	EXPECT_EQ(EINVAL, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	c.events[0].name[31] = 0;
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	/* CPU masks: bad pointer, huge, unaligned size. */
	td_cfg_sw(&c, 0);
	c.events[0].cpus_ptr = 16;
	c.events[0].cpus_size = 8;
	EXPECT_EQ(EFAULT, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	c.events[0].cpus_size = TOPDOWN_CPUMASK_MAX_BYTES + 8;
	EXPECT_EQ(EINVAL, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	c.events[0].cpus_size = 0;
	EXPECT_EQ(EINVAL, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	c.events[0].cpus_ptr = 0;
	c.events[0].cpus_size = 8;
	EXPECT_EQ(EINVAL, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	cases += 11;
	td_count("ioctl_cases", cases);
}

/* ---- the state machine out of order ----------------------------------- */

TEST_F_TIMEOUT(dev, state_machine_out_of_order, 300)
{
	struct topdown_config c, back;
	struct topdown_status st;
	struct sysinfo si;
	unsigned long cases = 0;
	uint32_t was;
	int fd2;
	void *p;

	/*
	 * A ring too big for this machine: ENOMEM changes nothing, so an
	 * unconfigured module stays unconfigured (and a configured one keeps
	 * its configuration, see trust_test).
	 */
	ASSERT_EQ(0, sysinfo(&si));
	ASSERT_EQ(0, td_status(self->fd, &st, NULL, 0));
	was = st.state;
	td_cfg_sw(&c, TOPDOWN_RING_MAX_SIZE);
	if ((uint64_t)TOPDOWN_RING_MAX_SIZE * self->ncpu >
	    (uint64_t)si.totalram * si.mem_unit / 8) {
		EXPECT_EQ(ENOMEM, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
		ASSERT_EQ(0, td_status(self->fd, &st, NULL, 0));
		EXPECT_EQ(was, st.state);
		cases += 2;
	}
	if (was == TOPDOWN_STATE_IDLE) {
		EXPECT_EQ(ENODATA, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
		EXPECT_EQ(EALREADY, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
		memset(&back, 0, sizeof(back));
		back.size = sizeof(back);
		EXPECT_EQ(ENODATA, xioctl(self->fd, TOPDOWN_IOC_GET_CONFIG, &back));
		p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd, TD_RING_OFF(0, 1));
		EXPECT_EQ(MAP_FAILED, p);
		EXPECT_EQ(ENODATA, errno);
		cases += 4;
	}

	td_cfg_sw(&c, 0);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	EXPECT_EQ(EALREADY, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
	EXPECT_EQ(EBUSY, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
	/* Configuration while running: refused, and the old one stays. */
	td_cfg_sw(&c, 8192);
	strcpy(c.label, "other");
	EXPECT_EQ(EBUSY, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	memset(&back, 0, sizeof(back));
	back.size = sizeof(back);
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_GET_CONFIG, &back));
	EXPECT_STREQ("set=selftest", back.label);
	EXPECT_EQ(TOPDOWN_RING_DEFAULT_SIZE, back.ring_size);
	/* From another file too. */
	fd2 = open(TOPDOWN_DEVICE, O_RDWR);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(EBUSY, xioctl(fd2, TOPDOWN_IOC_CONFIGURE, &c));
	EXPECT_EQ(EBUSY, xioctl(fd2, TOPDOWN_IOC_START, NULL));
	close(fd2);
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
	EXPECT_EQ(EALREADY, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
	cases += 10;
	/* Many quick restarts. */
	for (int i = 0; i < 30; i++) {
		EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
		EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
		cases += 2;
	}
	ASSERT_EQ(0, td_status(self->fd, &st, NULL, 0));
	EXPECT_EQ(TOPDOWN_STATE_CONFIGURED, st.state);
	td_count("ioctl_cases", cases);
}

/* ---- events perf rejects ---------------------------------------------- */

TEST_F(dev, perf_rejected_events_reported_exactly)
{
	struct {
		uint32_t type;
		uint64_t config;
		int last_cpu_only;
		const char *what;
		int configure_err;	/* refused before perf is asked */
	} bad[] = {
		{ 0x7ffffff0, 0, 0, "unregistered PMU type", ENOENT },
		{ PERF_TYPE_SOFTWARE, 0x7fff, 0, "software config out of range", 0 },
		{ PERF_TYPE_SOFTWARE, 0x7fff, 1, "... on the last CPU only", 0 },
		{ PERF_TYPE_TRACEPOINT, 0xffffffffull, 0, "tracepoint id that does not exist",
		  EOPNOTSUPP },
		{ PERF_TYPE_HW_CACHE, 0xffffff, 0, "cache event out of range", 0 },
		{ PERF_TYPE_BREAKPOINT, 0, 0, "breakpoint without address", EOPNOTSUPP },
	};
	struct topdown_cpu_stats stats[NSTATS];
	uint64_t mask[TOPDOWN_CPUMASK_MAX_BYTES / 8];
	struct topdown_config c;
	struct topdown_status st;
	unsigned long cases = 0;

	for (unsigned int b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
		int err;

		/* Three good events and the bad one at index 2. */
		td_cfg_sw(&c, 0);
		c.nr_events = 4;
		c.events[1] = c.events[0];
		c.events[3] = c.events[0];
		c.events[2].type = bad[b].type;
		c.events[2].config = bad[b].config;
		strcpy(c.events[2].name, "bad");
		if (bad[b].last_cpu_only) {
			memset(mask, 0, sizeof(mask));
			mask[(self->ncpu - 1) / 64] = 1ull << ((self->ncpu - 1) % 64);
			c.events[2].cpus_ptr = (uintptr_t)mask;
			c.events[2].cpus_size = sizeof(mask);
		}
		if (bad[b].configure_err) {
			EXPECT_EQ(bad[b].configure_err,
				  xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c))
				TH_LOG("%s", bad[b].what);
			cases++;
			continue;
		}
		ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
		err = xioctl(self->fd, TOPDOWN_IOC_START, NULL);
		cases++;
		if (!err) {
			/* This kernel accepts it after all: fine, as long as
			 * it is really running.
			 */
			TH_LOG("%s: accepted by perf here", bad[b].what);
			EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
			continue;
		}
		ASSERT_EQ(0, td_status(self->fd, &st, stats, NSTATS));
		EXPECT_EQ(TOPDOWN_STATE_CONFIGURED, st.state) TH_LOG("%s", bad[b].what);
		EXPECT_EQ(-err, st.error_code) TH_LOG("%s", bad[b].what);
		EXPECT_EQ(2, st.error_event) TH_LOG("%s", bad[b].what);
		if (bad[b].last_cpu_only) {
			EXPECT_EQ(self->ncpu - 1, st.error_cpu);
		} else {
			EXPECT_LE(0, st.error_cpu);
		}
		/* Nothing left counting anywhere. */
		for (unsigned int i = 0; i < st.nr_stats; i++)
			EXPECT_FALSE(stats[i].flags & TOPDOWN_CPU_COUNTING);
		EXPECT_EQ(EALREADY, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
	}
	/* A good configuration afterwards runs and clears the error. */
	td_cfg_sw(&c, 0);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
	ASSERT_EQ(0, td_status(self->fd, &st, NULL, 0));
	EXPECT_EQ(0, st.error_code);
	EXPECT_EQ(-1, st.error_event);
	EXPECT_EQ(-1, st.error_cpu);
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
	td_count("ioctl_cases", cases + 3);
}

TEST_F(dev, status_stats_buffer_bounds)
{
	struct topdown_status st;
	struct guarded g;
	struct topdown_cpu_stats *s;
	unsigned long cases = 0;

	/* Exactly nr_cpus entries before a guard page, capacity "huge". */
	s = (void *)guarded_at(&g, self->ncpu * sizeof(*s));
	ASSERT_NE(NULL, s);
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	st.stats_ptr = (uintptr_t)s;
	st.nr_stats = 0xffffffffu;
	st.stats_size = sizeof(*s);
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STATUS, &st));
	EXPECT_EQ(self->ncpu, st.nr_stats);
	for (int i = 0; i < self->ncpu; i++)
		EXPECT_EQ(i, s[i].cpu);
	/* One entry short: EFAULT, no crash. */
	guarded_free(&g);
	s = (void *)guarded_at(&g, (self->ncpu - 1) * sizeof(*s) + 8);
	st.size = sizeof(st);
	st.stats_ptr = (uintptr_t)s;
	st.nr_stats = self->ncpu;
	st.stats_size = sizeof(*s);
	EXPECT_EQ(EFAULT, xioctl(self->fd, TOPDOWN_IOC_STATUS, &st));
	guarded_free(&g);
	/* Wrong entry size; misaligned buffer; capacity 0; bad pointers. */
	{
		char *buf = malloc(NSTATS * sizeof(*s) + 8);

		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		st.stats_ptr = (uintptr_t)(buf + 3);
		st.nr_stats = NSTATS;
		/* Entries below VER0 or over a page: nothing is written. */
		st.stats_size = TOPDOWN_CPU_STATS_SIZE_VER0 - 8;
		EXPECT_EQ(EINVAL, xioctl(self->fd, TOPDOWN_IOC_STATUS, &st));
		st.stats_size = getpagesize() + 8;
		EXPECT_EQ(E2BIG, xioctl(self->fd, TOPDOWN_IOC_STATUS, &st));
		st.stats_size = sizeof(*s);
		EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STATUS, &st));
		st.nr_stats = 0;
		EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STATUS, &st));
		EXPECT_EQ(0, st.nr_stats);
		st.nr_stats = 1;
		st.stats_ptr = (uintptr_t)0xffff888000000000ull;
		EXPECT_EQ(EFAULT, xioctl(self->fd, TOPDOWN_IOC_STATUS, &st));
		st.stats_ptr = 8;
		EXPECT_EQ(EFAULT, xioctl(self->fd, TOPDOWN_IOC_STATUS, &st));
		/* A non-zero tail past the known size: E2BIG. */
		memset(buf, 0, 2 * sizeof(st));
		memcpy(buf, &(uint32_t){ sizeof(st) + 8 }, 4);
		buf[sizeof(st) + 3] = 1;
		EXPECT_EQ(E2BIG, xioctl(self->fd, TOPDOWN_IOC_STATUS, buf));
		free(buf);
	}
	cases += 11;
	td_count("ioctl_cases", cases);
}

/* ---- user memory that faults while the kernel copies into it --------- */

struct uffd_run {
	int fd;
	int which;		/* 0: STATUS, 1: GET_CONFIG */
	void *area;
	int ioctl_ret;
	volatile int mmap_done;
	pid_t mmap_tid;
	int ncpu;
};

static void *uffd_ioctl_thread(void *arg)
{
	struct uffd_run *u = arg;

	if (u->which == 0) {
		struct topdown_status st = { .size = sizeof(st) };

		st.stats_ptr = (uintptr_t)u->area;
		st.nr_stats = u->ncpu;
		st.stats_size = sizeof(struct topdown_cpu_stats);
		u->ioctl_ret = xioctl(u->fd, TOPDOWN_IOC_STATUS, &st);
	} else {
		struct topdown_config c;

		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		c.events[0].cpus_ptr = (uintptr_t)u->area;
		c.events[0].cpus_size = TOPDOWN_CPUMASK_MAX_BYTES;
		u->ioctl_ret = xioctl(u->fd, TOPDOWN_IOC_GET_CONFIG, &c);
	}
	return NULL;
}

static void *uffd_mmap_thread(void *arg)
{
	struct uffd_run *u = arg;
	void *p;

	u->mmap_tid = syscall(SYS_gettid);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, u->fd, TD_RING_OFF(0, 1));
	if (p != MAP_FAILED)
		munmap(p, PAGE);
	u->mmap_done = p != MAP_FAILED ? 1 : 2;
	return NULL;
}

static char task_state(pid_t tid)
{
	char path[64], buf[256], *q;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	q = strrchr(buf, ')');
	return q && q[1] && q[2] ? q[2] : '?';
}

/*
 * Child: the ioctl's copy to user memory faults into userfaultfd and waits;
 * meanwhile another thread mmap()s the device (mmap_lock held for writing,
 * then the driver's lock). If the driver still held its lock while copying,
 * resolving the fault (which needs mmap_lock) would deadlock.
 * Exit 0: fine; 77: no userfaultfd here; other: failure.
 */
static int uffd_child(int fd, int which, int ncpu)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffdio_copy cp;
	struct uffd_msg msg;
	struct uffd_run u = { .fd = fd, .which = which, .ncpu = ncpu };
	pthread_t ta, tb;
	struct pollfd pfd;
	void *src;
	int uffd;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		return 77;
	if (ioctl(uffd, UFFDIO_API, &api))
		return 77;
	u.area = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (u.area == MAP_FAILED)
		return 3;
	reg.range.start = (uintptr_t)u.area;
	reg.range.len = 4 * PAGE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		return 77;
	pthread_create(&ta, NULL, uffd_ioctl_thread, &u);
	pfd.fd = uffd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 5000) != 1 || read(uffd, &msg, sizeof(msg)) != sizeof(msg))
		return 4;	/* the kernel never touched the buffer */
	pthread_create(&tb, NULL, uffd_mmap_thread, &u);
	/* Wait until the mmap is done or blocked in the kernel. */
	for (int i = 0; i < 300 && !u.mmap_done; i++) {
		usleep(10000);
		if (u.mmap_tid && task_state(u.mmap_tid) == 'D')
			break;
	}
	src = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cp.dst = msg.arg.pagefault.address & ~(PAGE - 1);
	cp.src = (uintptr_t)src;
	cp.len = PAGE;
	cp.mode = 0;
	cp.copy = 0;
	/* The rest of the area: zero pages, so nothing else blocks. */
	ioctl(uffd, UFFDIO_COPY, &cp);
	for (uintptr_t a = (uintptr_t)u.area; a < (uintptr_t)u.area + 4 * PAGE; a += PAGE) {
		struct uffdio_zeropage z = { .range = { .start = a, .len = PAGE } };

		ioctl(uffd, UFFDIO_ZEROPAGE, &z);
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	if (u.ioctl_ret)
		return 5;
	if (u.mmap_done != 1)
		return 6;
	return 0;
}

static void uffd_case(struct __test_metadata *_metadata, int fd, int which, int ncpu)
{
	int status = 0, waited = 0;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(uffd_child(fd, which, ncpu));
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (++waited > 200) {	/* 10 s */
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			ASSERT_TRUE(0) TH_LOG("%s faulting into user memory blocked a "
					      "concurrent mmap(): deadlock (killed)",
					      which ? "GET_CONFIG" : "STATUS");
		}
		usleep(50000);
	}
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		SKIP(return, "no userfaultfd in this kernel");
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(dev, status_copy_fault_does_not_block_mmap)
{
	struct topdown_config c;

	td_cfg_sw(&c, 0);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	uffd_case(_metadata, self->fd, 0, self->ncpu);
}

TEST_F(dev, get_config_copy_fault_does_not_block_mmap)
{
	uint64_t mask[1] = { 1 };
	struct topdown_config c;

	td_cfg_sw(&c, 0);
	c.events[0].cpus_ptr = (uintptr_t)mask;
	c.events[0].cpus_size = sizeof(mask);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	uffd_case(_metadata, self->fd, 1, self->ncpu);
}

/* ---- poll() while START/STOP run -------------------------------------- */

struct cycler {
	int fd;
	volatile int stop;
	uint64_t busy_ns;
	unsigned long cycles;
};

static void *start_stop_loop(void *arg)
{
	struct cycler *cy = arg;

	while (!cy->stop) {
		uint64_t t = td_now_ns();

		ioctl(cy->fd, TOPDOWN_IOC_START);
		ioctl(cy->fd, TOPDOWN_IOC_STOP);
		cy->busy_ns += td_now_ns() - t;
		cy->cycles++;
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * A reader's poll() must answer at once while another thread starts and
 * stops the collection (which takes a while: every CPU's hotplug callback,
 * then waiting for the probe to be gone everywhere). If poll() waited for
 * those, a reader could not drain rings that are already filling.
 */
TEST_F_TIMEOUT(dev, poll_not_blocked_by_start_stop, 120)
{
	struct cycler cy = { .fd = self->fd };
	struct topdown_config c;
	struct pollfd pfd;
	uint64_t lat[2000], mean_cycle;
	pthread_t t;
	int n = 0;

	td_cfg_sw(&c, 1 << 16);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	pfd.fd = open(TOPDOWN_DEVICE, O_RDWR);
	ASSERT_LE(0, pfd.fd);
	pfd.events = POLLIN;
	pthread_create(&t, NULL, start_stop_loop, &cy);
	usleep(20000);
	for (uint64_t end = td_now_ns() + 2000000000ull; td_now_ns() < end && n < 2000; ) {
		uint64_t t0 = td_now_ns();

		poll(&pfd, 1, 0);
		lat[n++] = td_now_ns() - t0;
		usleep(500);
	}
	cy.stop = 1;
	pthread_join(t, NULL);
	close(pfd.fd);
	ASSERT_LT(0, cy.cycles);
	qsort(lat, n, sizeof(lat[0]), cmp_u64);
	mean_cycle = cy.busy_ns / cy.cycles;
	TH_LOG("%lu start/stop cycles, %llu us each; %d polls: median %llu us, 90%% %llu us",
	       cy.cycles, (unsigned long long)mean_cycle / 1000, n,
	       (unsigned long long)lat[n / 2] / 1000,
	       (unsigned long long)lat[n * 9 / 10] / 1000);
	EXPECT_GT(mean_cycle / 10, lat[n / 2]);
	td_count("ioctl_cases", 2 * cy.cycles + n);
}

/* ---- lock order: mmap() against START and perf's locks ---------------- */

/*
 * Builds, in one process, the lock chain lockdep reported on the debug
 * kernel: a read() of a CPU-wide perf event copies to user memory under
 * perf's context mutex (cpuctx_mutex -> mmap_lock), START takes
 * cpu_hotplug_lock under the driver's lock (and CPU hotplug orders
 * cpu_hotplug_lock -> pmus_lock -> cpuctx_mutex), and mmap() comes in
 * with mmap_lock held. mmap() must not take the lock START holds: on a
 * kernel with lockdep (make check-debug) that order is a "possible
 * circular locking dependency" splat; elsewhere this only has to work.
 */
TEST_F_TIMEOUT(dev, lock_order_mmap_start_perf_read, 120)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
	};
	struct topdown_config c;
	int pfd;

	pfd = syscall(SYS_perf_event_open, &a, -1, 0, -1, 0);
	ASSERT_LE(0, pfd) TH_LOG("perf_event_open: %s", strerror(errno));
	td_cfg_sw(&c, 4 * PAGE);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	for (int i = 0; i < 3; i++) {
		/* A fresh page each time: the copy faults for real. */
		uint64_t *buf = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		void *p;

		ASSERT_NE(MAP_FAILED, buf);
		EXPECT_EQ(8, read(pfd, buf, 8));
		munmap(buf, PAGE);
		ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
		p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd, TD_RING_OFF(0, 1));
		EXPECT_NE(MAP_FAILED, p);
		ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
		if (p != MAP_FAILED)
			munmap(p, PAGE);
	}
	close(pfd);
}

/* ---- mmap: every protection, flag, offset and length ------------------ */

static int model_mmap(int prot, int flags, bool fd_writable, uint64_t cpu,
		      uint64_t page, uint64_t len, int ncpu, uint64_t ring_pages,
		      bool other_reader)
{
	if (!len)
		return EINVAL;
	if ((flags & MAP_TYPE) != MAP_PRIVATE && (prot & PROT_WRITE) && !fd_writable)
		return EACCES;
	if ((flags & MAP_TYPE) == MAP_PRIVATE)
		return EINVAL;
	if (prot & PROT_EXEC)
		return EPERM;
	if (!fd_writable)
		return EACCES;
	if (cpu >= (uint64_t)ncpu)
		return EINVAL;
	if (page >= ring_pages || len > ring_pages - page)
		return EINVAL;
	if (prot & PROT_WRITE) {
		if (page != 0 || len != 1)
			return EPERM;
		if (other_reader)
			return EBUSY;
	}
	return 0;
}

TEST_F_TIMEOUT(dev, mmap_every_prot_flag_offset_length, 900)
{
	const int flag_set[] = { MAP_SHARED, MAP_PRIVATE, MAP_SHARED_VALIDATE };
	const size_t ring = 4 * PAGE;
	const uint64_t ring_pages = 2 + ring / PAGE;
	uint64_t cpus[] = { 0, self->ncpu - 1, self->ncpu, 4096, 0xffffffull };
	uint64_t pages[] = { 0, 1, 2, ring_pages - 1, ring_pages, ring_pages + 7 };
	uint64_t lens[] = { 1, 2, 3, ring_pages, ring_pages + 1 };
	const unsigned int nc = TD_NELEM(cpus), np = TD_NELEM(pages), nl = TD_NELEM(lens);
	int fds[3];	/* the reader, a read-only file, another writable file */
	struct topdown_config c;
	unsigned long cases = 0, mapped = 0;
	void *reader_map;

	td_cfg_sw(&c, ring);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	fds[0] = self->fd;
	fds[1] = open(TOPDOWN_DEVICE, O_RDONLY);
	fds[2] = open(TOPDOWN_DEVICE, O_RDWR);
	ASSERT_LE(0, fds[1]);
	ASSERT_LE(0, fds[2]);
	reader_map = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0],
			  TD_RING_OFF(0, 0));
	ASSERT_NE(MAP_FAILED, reader_map);

	/*
	 * Every combination of file, protection, flags, CPU, page and length
	 * (the length varying fastest).
	 */
	for (unsigned int i = 0; i < 3 * 8 * 3 * nc * np * nl; i++) {
		unsigned int li = i % nl, pi = i / nl % np, ci = i / (nl * np) % nc;
		unsigned int fl = i / (nl * np * nc) % 3;
		int prot = i / (nl * np * nc * 3) % 8, f = i / (nl * np * nc * 3 * 8);
		uint64_t cpu = cpus[ci], page = pages[pi], len = lens[li];
		int want, err;
		uint8_t *p;

		want = model_mmap(prot, flag_set[fl], f != 1, cpu, page, len,
				  self->ncpu, ring_pages, f == 2);
		p = mmap(NULL, len * PAGE, prot, flag_set[fl], fds[f],
			 TD_RING_OFF(cpu, page));
		err = p == MAP_FAILED ? errno : 0;
		cases++;
		if (cpu > (uint64_t)self->ncpu && want) {
			/* Offsets that large may be refused by the VFS first. */
			EXPECT_NE(0, err);
		} else {
			EXPECT_EQ(want, err)
				TH_LOG("fd %d prot %d flags %#x cpu %llu page %llu len %llu: %s",
				       f, prot, flag_set[fl], (unsigned long long)cpu,
				       (unsigned long long)page, (unsigned long long)len,
				       strerror(err));
		}
		if (err)
			continue;
		mapped++;
		if ((prot & PROT_READ) && page <= 1 && page + len > 1) {
			const struct topdown_ring_producer *pr =
				(const void *)(p + (1 - page) * PAGE);

			EXPECT_EQ(cpu, pr->cpu);
			EXPECT_EQ(ring, pr->data_size);
			EXPECT_EQ(TOPDOWN_RECORD_SIZE, pr->record_size);
		}
		/* A read-only map can never become writable. */
		if (!(prot & PROT_WRITE))
			EXPECT_NE(0, mprotect(p, len * PAGE, PROT_READ | PROT_WRITE));
		EXPECT_NE(0, mprotect(p, len * PAGE, PROT_READ | PROT_EXEC));
		EXPECT_EQ(0, munmap(p, len * PAGE));
	}
	munmap(reader_map, PAGE);
	close(fds[1]);
	close(fds[2]);
	/* Every map was counted back out: reconfiguring works. */
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	TH_LOG("%lu mmap cases, %lu mapped", cases, mapped);
	td_count("mmap_cases", cases);
}

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/* Read one byte; a SIGBUS or SIGSEGV is caught and ignored. */
static void __attribute__((noinline)) touch_catching_faults(const uint8_t *p)
{
	struct sigaction sa = { .sa_handler = on_fault }, old_bus, old_segv;
	volatile uint8_t v;

	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	if (!sigsetjmp(fault_jmp, 1))
		v = *(volatile const uint8_t *)p;
	(void)v;
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
}

/*
 * CPU 0's ring of @ring bytes after a short run, mapped read-only whole
 * (consumer page, producer page, data): @c is its configuration.
 */
static uint8_t *map_ring0_after_run(struct __test_metadata *_metadata, int fd,
				    size_t ring, struct topdown_config *c)
{
	uint8_t *p;

	td_cfg_sw(c, ring);
	ASSERT_EQ(0, xioctl(fd, TOPDOWN_IOC_CONFIGURE, c));
	ASSERT_EQ(0, xioctl(fd, TOPDOWN_IOC_START, NULL));
	usleep(5000);
	ASSERT_EQ(0, xioctl(fd, TOPDOWN_IOC_STOP, NULL));
	p = mmap(NULL, 2 * PAGE + ring, PROT_READ, MAP_SHARED, fd, TD_RING_OFF(0, 0));
	ASSERT_NE(MAP_FAILED, p);
	return p;
}

/* A ring mapping is not cut, grown, shrunk or made writable or executable. */
TEST_F(dev, mapping_not_split_resized_or_upgraded)
{
	const size_t ring = 4 * PAGE, whole = 2 * PAGE + ring;
	struct topdown_config c;
	uint8_t *p = map_ring0_after_run(_metadata, self->fd, ring, &c);

	/* Partial munmap: head, tail, middle. */
	EXPECT_EQ(-1, munmap(p, PAGE));
	EXPECT_EQ(-1, munmap(p + whole - PAGE, PAGE));
	EXPECT_EQ(-1, munmap(p + 2 * PAGE, PAGE));
	/* Partial mprotect, mprotect upgrade, exec. */
	EXPECT_EQ(-1, mprotect(p + PAGE, PAGE, PROT_NONE));
	EXPECT_EQ(-1, mprotect(p, whole, PROT_READ | PROT_WRITE));
	EXPECT_EQ(-1, mprotect(p, whole, PROT_READ | PROT_EXEC));
	/* Whole mprotect down and back up to read: allowed. */
	EXPECT_EQ(0, mprotect(p, whole, PROT_NONE));
	EXPECT_EQ(0, mprotect(p, whole, PROT_READ));
	/* mremap growth (in place and moving) and shrinking. */
	EXPECT_EQ(MAP_FAILED, mremap(p, whole, whole + PAGE, 0));
	EXPECT_EQ(MAP_FAILED, mremap(p, whole, whole + PAGE, MREMAP_MAYMOVE));
	EXPECT_EQ(MAP_FAILED, mremap(p, whole, whole - PAGE, 0));
	EXPECT_EQ(0, munmap(p, whole));
	td_count("mmap_cases", 11);
}

/*
 * A moved mapping stays intact and counted; madvise, mlock and msync
 * break nothing; a child does not inherit it.
 */
TEST_F(dev, moved_advised_and_forked_mapping)
{
	const size_t ring = 4 * PAGE, whole = 2 * PAGE + ring;
	struct topdown_config c;
	uint8_t *p = map_ring0_after_run(_metadata, self->fd, ring, &c), *q;
	pid_t pid;
	int status;

	q = mmap(NULL, whole, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, q);
	q = mremap(p, whole, whole, MREMAP_MAYMOVE | MREMAP_FIXED, q);
	if (q != MAP_FAILED) {
		p = q;
		EXPECT_EQ(0, ((struct topdown_ring_producer *)(void *)(p + PAGE))->cpu);
		EXPECT_EQ(ring, ((struct topdown_ring_producer *)(void *)(p + PAGE))->data_size);
	}
	EXPECT_EQ(EBUSY, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	EXPECT_EQ(0, mlock(p, whole));
	EXPECT_EQ(0, munlock(p, whole));
	madvise(p, whole, MADV_DONTFORK);
	madvise(p, whole, MADV_DOFORK);
	madvise(p, whole, MADV_DONTDUMP);
	madvise(p, whole, MADV_DONTNEED);
	madvise(p, whole, MADV_WILLNEED);
	msync(p, whole, MS_SYNC);
	/* Touching the mapping after MADV_DONTNEED may SIGBUS: that is the
	 * process's business; the kernel must just survive it.
	 */
	touch_catching_faults(p + PAGE);
	/* A child does not inherit the mapping: mprotect() finds none. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int r = mprotect(p, whole, PROT_READ | PROT_WRITE) == 0;

		_exit(r);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(EBUSY, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	EXPECT_EQ(0, munmap(p, whole));
	td_count("mmap_cases", 10);
}

/*
 * The consumer page: writable alone, not in a child (which faults on
 * it), the parent stays the reader.
 */
TEST_F(dev, consumer_page_not_writable_in_a_child)
{
	struct topdown_config c;
	uint8_t *p, *q;
	pid_t pid;
	int status;

	munmap(map_ring0_after_run(_metadata, self->fd, 4 * PAGE, &c), 6 * PAGE);
	p = mmap(NULL, PAGE, PROT_WRITE, MAP_SHARED, self->fd, TD_RING_OFF(0, 0));
	ASSERT_NE(MAP_FAILED, p);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		((struct topdown_ring_consumer *)(void *)p)->lost_seen = 42;
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	q = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd, TD_RING_OFF(0, 0));
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_EQ(0, ((struct topdown_ring_consumer *)(void *)q)->lost_seen);
	munmap(q, PAGE);
	munmap(p, PAGE);
	EXPECT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	td_count("mmap_cases", 3);
}

/* ---- garbage consumer positions --------------------------------------- */

static void switches(int n)
{
	for (int i = 0; i < n; i++)
		usleep(300);
}

/*
 * One START/STOP with the consumer position set to the g-th garbage value
 * (relative to where the producer is): the producer never writes past
 * the ring or over the @held bytes the reader still had (@snap).
 */
static void garbage_round(struct __test_metadata *_metadata, int fd,
			  struct td_ring *r, size_t ring, const uint8_t *snap,
			  uint64_t held, unsigned int g)
{
	uint64_t before = r->prod->producer_pos, lost_before = r->prod->lost, pos;
	/* Relative to where the producer is now. */
	const uint64_t garbage[12] = {
		before + TOPDOWN_RECORD_SIZE,		/* past the producer */
		before + ring, before + 2 * ring,	/* a ring or two ahead */
		~0ull, 1ull << 63,			/* "negative" */
		(uint64_t)-TOPDOWN_RECORD_SIZE,
		(uint64_t)-(int64_t)ring,
		before + 1, before + 127,		/* unaligned, ahead */
		3, 64,					/* unaligned, behind */
		0x5555555555555555ull,
	};

	r->cons->consumer_pos = garbage[g];
	ASSERT_EQ(0, xioctl(fd, TOPDOWN_IOC_START, NULL));
	switches(10);
	ASSERT_EQ(0, xioctl(fd, TOPDOWN_IOC_STOP, NULL));
	pos = r->prod->producer_pos;
	/* Never past the ring: nothing is overwritten. */
	EXPECT_GE(ring - TOPDOWN_RECORD_SIZE, pos)
		TH_LOG("garbage %#llx", (unsigned long long)garbage[g]);
	EXPECT_LE(before, pos);
	EXPECT_EQ(0, pos % TOPDOWN_RECORD_SIZE);
	/* The records the reader still had are intact. */
	EXPECT_EQ(0, memcmp(snap, r->data, held))
		TH_LOG("garbage %#llx overwrote held records",
		       (unsigned long long)garbage[g]);
	/* Ahead of the producer: every new record dropped. */
	if (garbage[g] > before && garbage[g] - before < (1ull << 62)) {
		EXPECT_EQ(before, pos);
		EXPECT_LT(lost_before, r->prod->lost);
	}
	TH_LOG("consumer_pos %#llx (producer at %#llx): %llu written, %llu dropped",
	       (unsigned long long)garbage[g], (unsigned long long)before,
	       (unsigned long long)(pos - before) / TOPDOWN_RECORD_SIZE,
	       (unsigned long long)(r->prod->lost - lost_before));
}

TEST_F_TIMEOUT(dev, consumer_garbage_keeps_held_records, 300)
{
	const size_t ring = 64 * PAGE;
	struct topdown_cpu_stats stats[NSTATS];
	struct topdown_status st;
	struct topdown_config c;
	struct topdown_record *all;
	struct td_ring r;
	uint64_t p0, pos, lost = 0, recs, next_seq;
	uint8_t *snap;
	int n;

	td_pin_cpu(0);
	td_cfg_sw(&c, ring);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_CONFIGURE, &c));
	ASSERT_EQ(0, td_ring_map(self->fd, 0, ring, &r));
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_START, NULL));
	switches(20);
	ASSERT_EQ(0, xioctl(self->fd, TOPDOWN_IOC_STOP, NULL));
	p0 = r.prod->producer_pos;
	ASSERT_LT(0, p0);
	ASSERT_GT(ring / 4, p0);
	snap = malloc(p0);
	memcpy(snap, r.data, p0);

	for (unsigned int g = 0; g < 12; g++)
		garbage_round(_metadata, self->fd, &r, ring, snap, p0, g);
	/* Exact accounting: kernel counters, producer page and sequence. */
	ASSERT_EQ(0, td_status(self->fd, &st, stats, NSTATS));
	pos = r.prod->producer_pos;
	EXPECT_EQ(stats[0].records * TOPDOWN_RECORD_SIZE, pos);
	EXPECT_EQ(stats[0].producer_pos, pos);
	EXPECT_EQ(stats[0].lost, r.prod->lost);
	EXPECT_LT(0, stats[0].lost);
	/* A sane consumer position again: everything readable, in order,
	 * and the sequence gaps add up to exactly the lost count.
	 */
	r.cons->consumer_pos = 0;
	all = calloc(ring / TOPDOWN_RECORD_SIZE, sizeof(*all));
	n = td_ring_drain(&r, all, ring / TOPDOWN_RECORD_SIZE);
	recs = n;
	EXPECT_EQ(stats[0].records, recs);
	next_seq = 0;
	for (int i = 0; i < n; i++) {
		EXPECT_EQ(0, all[i].cpu);
		EXPECT_LE(next_seq, all[i].seq);
		lost += all[i].seq - next_seq;
		next_seq = all[i].seq + 1;
	}
	/* Drops after the last record are not visible as a gap yet. */
	lost += stats[0].records + stats[0].lost - next_seq;
	EXPECT_EQ(stats[0].lost, lost);
	EXPECT_EQ(0, memcmp(snap, all, p0));
	td_count("consumer_garbage_values", 12);
	free(all);
	free(snap);
	td_ring_unmap(&r);
}

/* ---- pinned events that cannot get a counter -------------------------- */

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, 0);
}

/* Is this pinned CPU-wide event scheduled (read() gives a value)? */
static bool perf_running(int fd)
{
	uint64_t v[3];

	return read(fd, v, sizeof(v)) > 0;
}

/* Arm's INST_RETIRED as a pinned CPU-wide event: a generic counter. */
#define INST_RETIRED_PINNED {						\
	.size = sizeof(struct perf_event_attr),				\
	.type = PERF_TYPE_RAW,						\
	.config = 0x08,							\
	.pinned = 1,							\
	.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |			\
		       PERF_FORMAT_TOTAL_TIME_RUNNING,			\
}

struct held_counters {
	int fd[NSTATS][32];
	int n[NSTATS];
	int ncpu;
};

/* Why these tests cannot run here, NULL if they can. */
static const char *no_pmu_to_take(void)
{
	struct perf_event_attr a = INST_RETIRED_PINNED;
	static char why[128];
	int fd;

#if !defined(__aarch64__)
	return "needs the arm64 guest's emulated PMU (x86 TCG has none)";
#endif
	fd = perf_open(&a, -1, 0);
	if (fd < 0) {
		snprintf(why, sizeof(why), "no raw PMU events here: %s", strerror(errno));
		return why;
	}
	close(fd);
	return NULL;
}

/*
 * Take every generic counter on every CPU with pinned events, as long as
 * perf schedules them: at least one on CPU 0, else the test fails.
 */
static void hold_counters(struct __test_metadata *_metadata, int ncpu,
			  struct held_counters *h)
{
	struct perf_event_attr a = INST_RETIRED_PINNED;
	int fd, total = 0;

	memset(h, 0, sizeof(*h));
	h->ncpu = ncpu < NSTATS ? ncpu : NSTATS;
	for (int cpu = 0; cpu < h->ncpu; cpu++) {
		for (int i = 0; i < 32; i++) {
			fd = perf_open(&a, -1, cpu);
			if (fd < 0)
				break;
			if (!perf_running(fd)) {
				close(fd);
				break;
			}
			h->fd[cpu][h->n[cpu]++] = fd;
		}
		total += h->n[cpu];
	}
	TH_LOG("holding %d pinned counters (%d on CPU 0)", total, h->n[0]);
	ASSERT_LT(0, h->n[0]);
}

static void release_counters(struct held_counters *h)
{
	for (int cpu = 0; cpu < h->ncpu; cpu++)
		for (int i = 0; i < h->n[cpu]; i++)
			close(h->fd[cpu][i]);
	memset(h->n, 0, sizeof(h->n));
}

/*
 * cpu-clock (software), which always works, and two INST_RETIRED, which
 * cannot get a counter while they are all held: configure, run 30
 * switches, stop.
 */
static void run_sw_and_two_inst(struct __test_metadata *_metadata, int fd)
{
	struct topdown_config c;

	td_cfg_sw(&c, 1 << 18);
	c.nr_events = 3;
	for (int i = 1; i < 3; i++) {
		c.events[i].type = PERF_TYPE_RAW;
		c.events[i].config = 0x08;
		snprintf(c.events[i].name, sizeof(c.events[i].name), "inst%d", i);
	}
	ASSERT_EQ(0, xioctl(fd, TOPDOWN_IOC_CONFIGURE, &c));
	ASSERT_EQ(0, xioctl(fd, TOPDOWN_IOC_START, NULL));
	switches(30);
	ASSERT_EQ(0, xioctl(fd, TOPDOWN_IOC_STOP, NULL));
}

/* CPU @cpu's records of the run (at most 4096), in @rec; their number. */
static int drain_cpu(struct __test_metadata *_metadata, int fd, int cpu,
		     struct topdown_record *rec)
{
	struct td_ring r;
	int n;

	ASSERT_EQ(0, td_ring_map(fd, cpu, 1 << 18, &r));
	n = td_ring_drain(&r, rec, 4096);
	td_ring_unmap(&r);
	return n;
}

/* Every slice of events without a counter says so, and counts nothing. */
TEST_F_TIMEOUT(dev, pinned_events_without_counter_are_flagged, 300)
{
	struct topdown_cpu_stats stats[NSTATS];
	struct topdown_status st;
	struct held_counters h = { 0 };
	struct topdown_record *rec;
	const char *why = no_pmu_to_take();
	unsigned long flagged = 0, slices = 0;

	if (why)
		SKIP(return, "%s", why);
	rec = calloc(4096, sizeof(*rec));
	ASSERT_NE(NULL, rec);
	hold_counters(_metadata, self->ncpu, &h);
	run_sw_and_two_inst(_metadata, self->fd);
	ASSERT_EQ(0, td_status(self->fd, &st, stats, NSTATS));
	for (int cpu = 0; cpu < self->ncpu; cpu++) {
		int n = drain_cpu(_metadata, self->fd, cpu, rec);

		for (int i = 0; i < n; i++) {
			slices++;
			if ((rec[i].flags & TOPDOWN_REC_ERROR_MASK) == 0x6)
				flagged++;
			EXPECT_EQ(0x6, rec[i].flags & TOPDOWN_REC_ERROR_MASK)
				TH_LOG("cpu %d seq %llu flags %#x", cpu,
				       (unsigned long long)rec[i].seq, rec[i].flags);
			EXPECT_EQ(0, rec[i].delta[1]);
			EXPECT_EQ(0, rec[i].delta[2]);
			for (int e = 3; e < TOPDOWN_MAX_EVENTS; e++)
				EXPECT_EQ(0, rec[i].delta[e]);
		}
		if (n && cpu < NSTATS && h.n[cpu])
			EXPECT_LT(0, stats[cpu].read_errors);
	}
	EXPECT_LT(0, flagged);
	TH_LOG("%lu of %lu slices flagged while the counters were taken", flagged, slices);
	td_count("pmu_flagged_slices", flagged);
	release_counters(&h);
	free(rec);
}

/* Once the counters are let go, the next run's slices are clean. */
TEST_F_TIMEOUT(dev, released_counters_give_clean_slices, 300)
{
	struct held_counters h = { 0 };
	struct topdown_record *rec;
	const char *why = no_pmu_to_take();
	unsigned long clean = 0;

	if (why)
		SKIP(return, "%s", why);
	rec = calloc(4096, sizeof(*rec));
	ASSERT_NE(NULL, rec);
	hold_counters(_metadata, self->ncpu, &h);
	run_sw_and_two_inst(_metadata, self->fd);
	release_counters(&h);
	run_sw_and_two_inst(_metadata, self->fd);
	for (int cpu = 0; cpu < self->ncpu; cpu++) {
		int n = drain_cpu(_metadata, self->fd, cpu, rec);

		for (int i = 0; i < n; i++) {
			if (!(rec[i].flags & TOPDOWN_REC_FIRST))
				EXPECT_EQ(0, rec[i].flags & TOPDOWN_REC_ERROR_MASK);
			clean += !(rec[i].flags & TOPDOWN_REC_ERROR_MASK);
		}
	}
	EXPECT_LT(0, clean);
	TH_LOG("%lu clean slices after the counters were let go", clean);
	free(rec);
}

TEST_HARNESS_MAIN
