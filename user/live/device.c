// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "live/device.h"
#include "base/abi.h"
#include "base/common.h"
#include "evset/evset.h"

bool td_module_loaded(void)
{
	return access("/sys/module/topdown", F_OK) == 0;
}

/*
 * What must agree between tdctl and the module (see "ABI growth" in the
 * UAPI header): the ABI version, which only changes when the record or
 * ring layout or their rules change, and the record size. Larger or
 * smaller config and status structs are fine both ways: each side reads
 * what it knows. The per-CPU stats entry grows by known sizes: a module
 * with a larger entry also takes ours, and one whose entry is one of the
 * earlier TOPDOWN_CPU_STATS_SIZE_VERn is read with that size
 * (td_get_status()); any other size is not a module this tdctl can read.
 */
static bool known_stats_size(uint32_t size)
{
	return size == TOPDOWN_CPU_STATS_SIZE_VER0 ||
	       size == TOPDOWN_CPU_STATS_SIZE_VER1 ||
	       size == TOPDOWN_CPU_STATS_SIZE_VER2 ||
	       size == TOPDOWN_CPU_STATS_SIZE_VER3;
}

int td_abi_check(const struct topdown_status *st, char *err, size_t len)
{
	if (st->abi_version != TOPDOWN_ABI_VERSION) {
		snprintf(err, len,
			 "the topdown module speaks ABI version %u, this tdctl version %d: the module is %s; install a module and tdctl of the same release",
			 st->abi_version, TOPDOWN_ABI_VERSION,
			 st->abi_version > TOPDOWN_ABI_VERSION ? "newer" : "older");
		return -1;
	}
	if (st->size < TOPDOWN_STATUS_SIZE_VER0 ||
	    st->record_size != TOPDOWN_RECORD_SIZE) {
		snprintf(err, len,
			 "the topdown module reports a %u-byte status and %u-byte records, tdctl expects at least %d and %d: not a module this tdctl can read",
			 st->size, st->record_size, TOPDOWN_STATUS_SIZE_VER0,
			 TOPDOWN_RECORD_SIZE);
		return -1;
	}
	if (st->stats_size < sizeof(struct topdown_cpu_stats) &&
	    !known_stats_size(st->stats_size)) {
		snprintf(err, len,
			 "the topdown module's per-CPU statistics are %u bytes, tdctl reads %d, %d, %d or %zu: not a module this tdctl can read; install a module and tdctl of the same release",
			 st->stats_size, TOPDOWN_CPU_STATS_SIZE_VER0,
			 TOPDOWN_CPU_STATS_SIZE_VER1, TOPDOWN_CPU_STATS_SIZE_VER2,
			 sizeof(struct topdown_cpu_stats));
		return -1;
	}
	return 0;
}

/* Ask the module what it speaks before anything else is sent to it. */
static int check_module_abi(int fd)
{
	struct topdown_status st;
	char err[256];

	memset(&st, 0, sizeof(st));
	st.size = TOPDOWN_STATUS_SIZE_VER0;
	if (ioctl(fd, TOPDOWN_IOC_STATUS, &st)) {
		/* The ioctl code moved in ABI 2: an older module knows none. */
		if (errno == ENOTTY)
			p_err("the topdown module does not know this tdctl's ioctls (ENOTTY): it is older than ABI version %d; install a module and tdctl of the same release",
			      TOPDOWN_ABI_VERSION);
		else
			p_err("reading the module's status: %s", strerror(errno));
		return -1;
	}
	if (td_abi_check(&st, err, sizeof(err))) {
		p_err("%s", err);
		return -1;
	}
	return 0;
}

int td_dev_open(bool write)
{
	int fd, tries;

	/* udev may create the node a moment after the module loads. */
	for (tries = 0; tries < 50; tries++) {
		fd = open(TOPDOWN_DEVICE, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
		if (fd >= 0) {
			if (!check_module_abi(fd))
				return fd;
			close(fd);
			return -1;
		}
		if (errno != ENOENT || !td_module_loaded())
			break;
		usleep(20000);
	}
	switch (errno) {
	case ENOENT:
		if (td_module_loaded())
			p_err("%s does not exist although the topdown module is loaded",
			      TOPDOWN_DEVICE);
		else
			p_err("the topdown module is not loaded and the BPF backend is not running (run '%s load', or '%s load --backend bpf|auto'; '%s status' says what would run)",
			      bin_name, bin_name, bin_name);
		break;
	case EACCES:
		p_err("no access to %s from this pid namespace: the records carry the host's pids, so only the initial pid namespace may read them",
		      TOPDOWN_DEVICE);
		break;
	case EPERM:
		p_err("no permission to open %s: needs root with CAP_PERFMON or CAP_SYS_ADMIN",
		      TOPDOWN_DEVICE);
		break;
	default:
		p_err("cannot open %s: %s", TOPDOWN_DEVICE, strerror(errno));
	}
	return -1;
}

int td_dev_status(int fd, struct topdown_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(fd, TOPDOWN_IOC_STATUS, st) ? -errno : 0;
}

int td_dev_get_config(int fd, struct topdown_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	return ioctl(fd, TOPDOWN_IOC_GET_CONFIG, cfg) ? -errno : 0;
}

int td_dev_configure(int fd, const struct topdown_config *cfg)
{
	return ioctl(fd, TOPDOWN_IOC_CONFIGURE, cfg) ? -errno : 0;
}

int td_dev_start(int fd)
{
	return ioctl(fd, TOPDOWN_IOC_START) ? -errno : 0;
}

int td_dev_stop(int fd)
{
	return ioctl(fd, TOPDOWN_IOC_STOP) ? -errno : 0;
}

/* One TOTALS call with room for @cap entries at @buf (NULL: counts only). */
static int totals_call(int fd, struct topdown_totals *q, struct topdown_total *buf,
		       uint32_t cap)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->nr_entries = cap;
	q->entry_size = sizeof(*buf);
	q->entries_ptr = (uintptr_t)buf;
	return ioctl(fd, TOPDOWN_IOC_TOTALS, q) ? -errno : 0;
}

int td_dev_totals_counts(int fd, struct topdown_totals *q)
{
	return totals_call(fd, q, NULL, 0);
}

int td_dev_totals(int fd, struct topdown_totals *q, struct topdown_total **buf,
		  uint32_t *cap, uint32_t *n)
{
	struct topdown_status st;
	uint32_t want;
	int ret;

	*n = 0;
	ret = td_dev_status(fd, &st) ?: totals_call(fd, q, NULL, 0);
	/* New tasks may take entries between the calls: room for some more. */
	for (int tries = 0; !ret && tries < 4; tries++) {
		want = st.nr_cpus + q->nr_tasks + q->nr_tasks / 4 + 64;
		if (want > *cap) {
			/* No zeroing: the module writes every entry it counts. */
			struct topdown_total *b = realloc(*buf, want * sizeof(*b));

			if (!b)
				return -ENOMEM;
			*buf = b;
			*cap = want;
		}
		ret = totals_call(fd, q, *buf, *cap);
		if (!ret && q->nr_entries == st.nr_cpus + q->nr_tasks) {
			*n = q->nr_entries;
			return 0;
		}
	}
	return ret ? ret : -EAGAIN;
}

int td_get_config(int fd, struct topdown_config *cfg)
{
	int err = td_dev_get_config(fd, cfg);

	if (!err)
		return 0;
	if (err == -ENODATA)
		p_err("the collection is not configured (run '%s load')", bin_name);
	else
		p_err("reading the configuration: %s", strerror(-err));
	return -1;
}

/*
 * A module older than our struct topdown_cpu_stats takes only entries of
 * an older size (@esize): fetch those and spread them into @stats (the
 * newer fields stay zero; st->stats_size tells callers which fields are
 * there).
 */
static int status_sized(int fd, struct topdown_status *st,
			struct topdown_cpu_stats *stats, uint32_t n, uint32_t esize)
{
	uint8_t *buf = calloc(n ? n : 1, esize);
	int ret;

	if (!buf)
		return -1;
	st->size = sizeof(*st);
	st->stats_ptr = (uintptr_t)buf;
	st->nr_stats = n;
	st->stats_size = esize;
	ret = ioctl(fd, TOPDOWN_IOC_STATUS, st);
	if (!ret) {
		memset(stats, 0, (n ? n : 1) * sizeof(*stats));
		for (uint32_t i = 0; i < st->nr_stats; i++)
			memcpy(&stats[i], buf + (size_t)i * esize, esize);
		st->stats_ptr = (uintptr_t)stats;
		st->stats_size = esize;
	}
	free(buf);
	return ret;
}

int td_get_status(int fd, struct topdown_status *st,
		  struct topdown_cpu_stats **stats)
{
	uint32_t n;

	if (td_dev_status(fd, st))
		goto err;
	n = st->nr_cpus;
	*stats = calloc(n ? n : 1, sizeof(**stats));
	if (!*stats) {
		p_err("out of memory");
		return -1;
	}
	st->size = sizeof(*st);
	st->stats_ptr = (uintptr_t)*stats;
	st->nr_stats = n;
	st->stats_size = sizeof(**stats);
	if (ioctl(fd, TOPDOWN_IOC_STATUS, st) &&
	    (errno != EINVAL ||
	     (status_sized(fd, st, *stats, n, TOPDOWN_CPU_STATS_SIZE_VER2) &&
	      (errno != EINVAL ||
	       (status_sized(fd, st, *stats, n, TOPDOWN_CPU_STATS_SIZE_VER1) &&
		(errno != EINVAL ||
		 status_sized(fd, st, *stats, n, TOPDOWN_CPU_STATS_SIZE_VER0))))))) {
		free(*stats);
		*stats = NULL;
		goto err;
	}
	return 0;
err:
	p_err("reading the status: %s", strerror(errno));
	return -1;
}

const char *td_state_name(uint32_t state)
{
	switch (state) {
	case TOPDOWN_STATE_IDLE:
		return "idle";
	case TOPDOWN_STATE_CONFIGURED:
		return "stopped";
	case TOPDOWN_STATE_RUNNING:
		return "running";
	}
	return "unknown";
}

static int map_ring(struct td_reader *r, int cpu, size_t page)
{
	struct td_ring *ring = &r->rings[cpu];
	off_t off = (off_t)TOPDOWN_MMAP_OFFSET(cpu);
	size_t len = page + r->cfg.ring_size;
	void *p;

	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, off);
	if (p == MAP_FAILED) {
		if (errno == EBUSY)
			p_err("another reader holds the rings (is another '%s dump' or 'stat' running?)",
			      bin_name);
		else
			p_err("mapping the consumer page of CPU %d: %s", cpu,
			      strerror(errno));
		return -1;
	}
	ring->cons = p;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, r->fd, off + page);
	if (p == MAP_FAILED) {
		p_err("mapping the ring of CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	ring->prod = p;
	ring->data = (const uint8_t *)p + page;
	ring->size = r->cfg.ring_size;
	return 0;
}

int td_dev_reader_open(struct td_reader *r)
{
	struct topdown_cpu_stats *stats = NULL;
	struct topdown_status st;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(r, 0, sizeof(*r));
	r->src.fd = -1;
	r->src.cfg_fd = -1;
	r->src.cpu_fd = -1;
	/* Writable: the reader stores its consumer_pos in the ring. */
	r->fd = td_dev_open(true);
	if (r->fd < 0)
		return -1;
	r->src.kind = TD_BACKEND_MODULE;
	if (td_get_config(r->fd, &r->cfg) || td_get_status(r->fd, &st, &stats))
		goto fail;
	free(stats);
	r->nr_cpus = st.nr_cpus;
	r->overwrite = r->cfg.flags & TOPDOWN_OVERFLOW_OVERWRITE;
	r->rings = calloc(r->nr_cpus, sizeof(*r->rings));
	if (!r->rings) {
		p_err("out of memory");
		goto fail;
	}
	for (int cpu = 0; cpu < r->nr_cpus; cpu++) {
		if (map_ring(r, cpu, page)) {
			/* CPU ids that cannot exist have no ring. */
			if (errno == EINVAL && cpu > 0 && !json_output)
				continue;
			goto fail;
		}
	}
	return 0;
fail:
	td_dev_reader_close(r);
	return -1;
}

static void drain_ring(struct td_reader *r, int cpu, td_record_fn rec_fn,
		       td_lost_fn lost_fn, void *ctx, long *count)
{
	struct td_ring *ring = &r->rings[cpu];
	uint64_t cons, prod, lost;
	struct topdown_record rec;

	/*
	 * Overwrite mode: only the records after the slot at producer_pos
	 * (which the kernel may be filling) are whole, see the UAPI header.
	 */
	uint64_t whole = ring->size - TOPDOWN_RECORD_SIZE;

	if (!ring->cons)
		return;
	/* litmus: drain-ring begin */
	cons = ring->cons->consumer_pos;
	prod = __atomic_load_n(&ring->prod->producer_pos, __ATOMIC_ACQUIRE);
	if (r->overwrite && prod - cons > whole) {
		/* The kernel overwrote what we had not read yet. */
		uint64_t skip = prod - whole - cons;

		cons = prod - whole;
		if (lost_fn)
			lost_fn(cpu, skip / TOPDOWN_RECORD_SIZE,
				"overwritten before it was read", ctx);
	}
	while (cons < prod) {
		memcpy(&rec, ring->data + (cons & (ring->size - 1)), sizeof(rec));
		if (r->overwrite) {
			uint64_t now;

			/* The copy's loads come before the check's. */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			now = __atomic_load_n(&ring->prod->producer_pos,
					      __ATOMIC_RELAXED);
			if (now - cons > whole) {
				/* Torn copy: count it and resynchronise. */
				uint64_t skip = now - whole - cons;

				if (lost_fn)
					lost_fn(cpu, skip / TOPDOWN_RECORD_SIZE,
						"overwritten while it was read", ctx);
				cons = now - whole;
				prod = now;
				continue;
			}
		}
		cons += TOPDOWN_RECORD_SIZE;
		rec_fn(&rec, ctx);
		(*count)++;
	}
	__atomic_store_n(&ring->cons->consumer_pos, cons, __ATOMIC_RELEASE);

	/* Drop mode: report what the kernel dropped since any reader last
	 * reported it (the bookkeeping lives in our consumer page).
	 */
	lost = __atomic_load_n(&ring->prod->lost, __ATOMIC_RELAXED);
	if (lost != ring->cons->lost_seen && lost_fn)
		lost_fn(cpu, lost - ring->cons->lost_seen, "ring full", ctx);
	ring->cons->lost_seen = lost;
	/* litmus: drain-ring end */
}

long td_dev_reader_drain(struct td_reader *r, td_record_fn rec_fn,
			 td_lost_fn lost_fn, void *ctx)
{
	long count = 0;

	for (int cpu = 0; cpu < r->nr_cpus; cpu++)
		drain_ring(r, cpu, rec_fn, lost_fn, ctx, &count);
	return count;
}

int td_reader_wait(struct td_reader *r, int timeout_ms)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	int ret;

	/* The BPF backend's wake-ups are edges: data the last drain left. */
	if (r->pending)
		return 1;
	ret = poll(&pfd, 1, timeout_ms);

	/* Stopped and drained: nothing arrives until a START, so wait. */
	if (ret > 0 && !(pfd.revents & POLLIN)) {
		poll(NULL, 0, timeout_ms);
		return 0;
	}
	return ret > 0 ? 1 : 0;
}

void td_dev_reader_close(struct td_reader *r)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (int cpu = 0; r->rings && cpu < r->nr_cpus; cpu++) {
		if (r->rings[cpu].cons)
			munmap(r->rings[cpu].cons, page);
		if (r->rings[cpu].prod)
			munmap((void *)r->rings[cpu].prod, page + r->rings[cpu].size);
	}
	free(r->rings);
	r->rings = NULL;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/*
 * The plan's events are the pool and its groups the configuration's
 * (include/uapi/linux/topdown.h, "Groups and rotation"); a plan without
 * groups leaves every VER1 field zero, which any module takes.
 */
void td_config_from_plan(const struct td_plan *plan,
			 struct topdown_config *cfg)
{
	int n = plan->nr_events;

	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	/* the pool: events[], then more_events[] (topdown.h, "Groups") */
	if (n > (plan->nr_groups ? TOPDOWN_MAX_POOL : TOPDOWN_MAX_EVENTS))
		n = plan->nr_groups ? TOPDOWN_MAX_POOL : TOPDOWN_MAX_EVENTS;
	cfg->nr_events = n;
	snprintf(cfg->label, sizeof(cfg->label), "%s", plan->label);
	cfg->nr_groups = plan->nr_groups;
	cfg->rotate_ms = plan->nr_groups > 1 ? plan->rotate_ms : 0;
	for (int g = 0; g < plan->nr_groups && g < TOPDOWN_MAX_GROUPS; g++) {
		cfg->groups[g].nr_events = plan->groups[g].nr;
		for (int k = 0; k < plan->groups[g].nr &&
		     k < TOPDOWN_MAX_EVENTS; k++)
			cfg->groups[g].events[k] = plan->groups[g].ev[k];
	}
	for (int i = 0; i < n; i++) {
		const struct td_evsel *ev = &plan->ev[i];
		struct topdown_event *e = td_cfg_event_w(cfg, i);

		e->type = ev->type;
		e->flags = ev->flags;
		e->config = ev->config;
		e->config1 = ev->config1;
		e->config2 = ev->config2;
		snprintf(e->name, sizeof(e->name), "%s", ev->name);
		if (!ev->all_cpus) {
			e->cpus_ptr = (uintptr_t)ev->cpus;
			e->cpus_size = sizeof(ev->cpus);
		}
	}
}
