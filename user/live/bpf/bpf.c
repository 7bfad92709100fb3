// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF backend in user space: load and pin (tdctl load), unpin (tdctl
 * unload), and the reader and status every other command uses. See bpf.h,
 * topdown.bpf.c and Documentation/design.rst ("Two backends").
 *
 * Pins under TD_BPF_DIR: "link" (the attached program; its existence is
 * what makes the backend active, so it is pinned last and removed first),
 * "events" (the perf events), "ring", "cpu", "config", "lost_seen". One
 * reader at a time: it holds flock(LOCK_EX) on the pin folder, as the
 * module lets one file map the consumer pages.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/common.h"
#include "live/bpf/bpf.h"
#include "live/bpf/td_bpf.h"
#include "topdown.skel.h"

#define BPFFS		"/sys/fs/bpf"
#define BPF_FS_MAGIC_	0xcafe4a11
#define PIN(name)	TD_BPF_DIR "/" name

static const char *const td_pins[] = {
	"link", "events", "ring", "cpu", "config", "lost_seen", NULL,
};

const char *const td_bpf_differences[] = {
	"one ring buffer shared by all CPUs (--ring-size times the CPUs, rounded up to a power of two), not a ring per CPU",
	"no overwrite mode: a full ring buffer drops new records, counted per CPU as lost",
	"counters that perf put in error are not retried: their slices read as errors until the next load",
	"CPU hotplug: counters exist only on the CPUs online at load; a CPU that comes online later writes records without counts",
	"no CONFIGURE/START/STOP: load starts, unload stops and frees everything",
	"status reports a counter as counting or error from its last read, never multiplexed or off",
	"no event groups: load refuses --level 2, -M, -e '{a,b},{c,d}' and --rotate (exit 2), "
	"because rotating groups needs perf_event_disable/enable on every CPU every --rotate ms, "
	"done by the module's per-CPU work; once load returns no process is left to do it. "
	"So only Level 1 (or one event list of at most 8) is collected, records carry no group, "
	"and status has no per-group records, time or errors",
	NULL,
};

const char td_bpf_no_groups[] =
	"event groups are not available with the BPF backend: rotating groups needs "
	"perf_event_disable() and perf_event_enable() on every CPU every rotation interval, "
	"which the module does from a work item on each CPU; the BPF backend has no process "
	"left once load returns (use --backend module)";

struct td_bpf_reader {
	struct ring_buffer *rb;
	int ring_fd;
	int seen_fd;
	td_record_fn fn;
	void *ctx;
	long count;
	struct td_bpf_cpu *vals;	/* nr_cpus entries */
	uint64_t *seen;			/* nr_cpus entries */
};

/* libbpf's messages only with TDCTL_BPF_DEBUG set: tdctl says what failed. */
static int td_libbpf_print(enum libbpf_print_level level, const char *fmt,
			   va_list ap)
{
	if (level == LIBBPF_DEBUG || !getenv("TDCTL_BPF_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void td_libbpf_quiet(void)
{
	libbpf_set_print(td_libbpf_print);
}

bool td_bpf_active(void)
{
	return access(PIN("link"), F_OK) == 0;
}

int td_bpf_watch(void)
{
	if (!td_bpf_active())
		return -1;
	return open(TD_BPF_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

bool td_bpf_watching(int fd)
{
	struct stat st;

	/* A removed folder has no links left; fstat() needs no rights. */
	return fd >= 0 && !fstat(fd, &st) && st.st_nlink > 0;
}

int td_bpf_usable(char *err, size_t len)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, len,
			 "the kernel has no BTF (/sys/kernel/btf/vmlinux: %s): the BPF backend needs CONFIG_DEBUG_INFO_BTF",
			 strerror(errno));
		return -1;
	}
	return 0;
}

static int nr_possible_cpus(void)
{
	int n = libbpf_num_possible_cpus();

	if (n <= 0)
		p_err("cannot count the possible CPUs: %s", strerror(-n));
	return n;
}

/* As bpftool: mount the BPF file system where it belongs if it is not. */
static int bpffs_mount(void)
{
	struct statfs sfs;

	if (!statfs(BPFFS, &sfs) && sfs.f_type == BPF_FS_MAGIC_)
		return 0;
	if (mount("bpf", BPFFS, "bpf", 0, "mode=0700")) {
		p_err("mounting the BPF file system on %s: %s", BPFFS,
		      strerror(errno));
		return -1;
	}
	return 0;
}

/* Remove whatever pins exist, the link first (it stops the program). */
static void unpin_all(void)
{
	char path[128];

	for (int i = 0; td_pins[i]; i++) {
		snprintf(path, sizeof(path), PIN("%s"), td_pins[i]);
		unlink(path);
	}
	rmdir(TD_BPF_DIR);
}

static bool cpu_in_mask(const struct topdown_event *e, int cpu)
{
	const uint64_t *mask = (const uint64_t *)(uintptr_t)e->cpus_ptr;

	if (!e->cpus_ptr)
		return true;
	if ((uint32_t)cpu / 64 >= e->cpus_size / 8)
		return false;
	return mask[cpu / 64] >> (cpu % 64) & 1;
}

/*
 * Event i on one CPU: open it pinned, take its baseline as the module does
 * at START (so the first slice counts from here), and put it in the map.
 * 1 if the CPU is offline, -1 after p_err().
 */
static int open_counter(const struct topdown_event *e, int i, int cpu,
			int nr_cpus, int map_fd, struct td_bpf_cpu *c)
{
	struct perf_event_attr attr;
	uint64_t v[3];
	uint32_t key = (uint32_t)(i * nr_cpus + cpu);
	ssize_t n;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = e->type;
	attr.config = e->config;
	attr.config1 = e->config1;
	attr.config2 = e->config2;
	attr.pinned = 1;
	attr.exclude_user = !!(e->flags & TOPDOWN_EVENT_EXCLUDE_USER);
	attr.exclude_kernel = !!(e->flags & TOPDOWN_EVENT_EXCLUDE_KERNEL);
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		if (errno == ENODEV)
			return 1;
		p_err("perf refused event %s (type %u, config 0x%llx) on CPU %d: %s",
		      e->name, e->type, (unsigned long long)e->config, cpu,
		      strerror(errno));
		return -1;
	}
	n = read(fd, v, sizeof(v));
	if (n == 0) {
		/* End of file: pinned, but perf found no counter for it
		 * (state ERROR); its slices read as errors.
		 */
		c->arm_errors |= 1u << i;
	} else if (n == sizeof(v)) {
		c->last[i] = v[0];
		c->enabled[i] = v[1];
		c->running[i] = v[2];
	} else {
		p_err("reading event %s on CPU %d: %s", e->name, cpu,
		      n < 0 ? strerror(errno) : "short read");
		close(fd);
		return -1;
	}
	c->armed |= 1u << i;
	if (bpf_map_update_elem(map_fd, &key, &fd, BPF_ANY)) {
		p_err("putting event %s of CPU %d into the BPF map: %s", e->name,
		      cpu, strerror(errno));
		close(fd);
		return -1;
	}
	/* The map holds the event now (BPF_F_PRESERVE_ELEMS). */
	close(fd);
	return 0;
}

static int open_counters(const struct topdown_config *cfg, int nr_cpus,
			 int map_fd, int cpu_fd)
{
	struct td_bpf_cpu *vals = calloc((size_t)nr_cpus, sizeof(*vals));
	uint32_t key = 0;
	int ret = -1;

	if (!vals) {
		p_err("out of memory");
		return -1;
	}
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		for (uint32_t i = 0; i < cfg->nr_events; i++) {
			int r;

			if (!cpu_in_mask(&cfg->events[i], cpu))
				continue;
			r = open_counter(&cfg->events[i], (int)i, cpu, nr_cpus,
					 map_fd, &vals[cpu]);
			if (r < 0)
				goto out;
			if (r > 0)
				break;	/* offline */
		}
		vals[cpu].last_ns = td_now_ns();
		vals[cpu].resync = vals[cpu].arm_errors;
	}
	if (bpf_map_update_elem(cpu_fd, &key, vals, BPF_ANY)) {
		p_err("initialising the per-CPU state: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(vals);
	return ret;
}

static uint32_t ring_bytes_for(uint32_t per_cpu, int nr_cpus)
{
	uint64_t want = (uint64_t)(per_cpu ? per_cpu : TOPDOWN_RING_DEFAULT_SIZE) *
			(uint64_t)nr_cpus;
	uint64_t b = (uint64_t)sysconf(_SC_PAGESIZE);

	/* The BPF ring buffer: a power of two of pages, below 4 GiB. */
	while (b < want && b < (1ull << 31))
		b <<= 1;
	return (uint32_t)b;
}

static int pin_map(struct bpf_map *m, const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), PIN("%s"), name);
	if (bpf_map__pin(m, path)) {
		p_err("pinning %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void explain_load_error(int err)
{
	if (err == EPERM || err == EACCES)
		p_err("loading the BPF program: %s (needs root, or CAP_BPF and CAP_PERFMON; kernel.unprivileged_bpf_disabled does not matter for root)",
		      strerror(err));
	else
		p_err("loading the BPF program: %s (TDCTL_BPF_DEBUG=1 shows libbpf's and the verifier's messages)",
		      strerror(err));
}

int td_bpf_load(const struct topdown_config *cfg)
{
	struct td_bpf_config bc;
	struct topdown_bpf *skel;
	struct bpf_link *link;
	uint32_t key = 0;
	char err[256];
	int nr_cpus, e;

	td_libbpf_quiet();
	if (cfg->flags & TOPDOWN_OVERFLOW_OVERWRITE) {
		p_err("--overwrite is not available with the BPF backend: the BPF ring buffer only drops new records");
		return -1;
	}
	if (cfg->nr_groups) {
		p_err("%s", td_bpf_no_groups);
		return -1;
	}
	if (td_bpf_usable(err, sizeof(err))) {
		p_err("%s", err);
		return -1;
	}
	nr_cpus = nr_possible_cpus();
	if (nr_cpus <= 0 || bpffs_mount())
		return -1;
	if (td_bpf_active()) {
		p_err("collection is already running with the BPF backend (stop it with '%s unload')",
		      bin_name);
		return -1;
	}
	unpin_all();	/* what a failed load or a crash left behind */
	if (mkdir(TD_BPF_DIR, 0700)) {
		p_err("creating %s: %s", TD_BPF_DIR, strerror(errno));
		return -1;
	}

	memset(&bc, 0, sizeof(bc));
	bc.cfg = *cfg;
	bc.cfg.size = sizeof(bc.cfg);
	for (uint32_t i = 0; i < TOPDOWN_MAX_EVENTS; i++) {
		bc.cfg.events[i].cpus_ptr = 0;
		bc.cfg.events[i].cpus_size = 0;
	}
	bc.nr_cpus = (uint32_t)nr_cpus;
	bc.ring_bytes = ring_bytes_for(cfg->ring_size, nr_cpus);
	bc.cfg.ring_size = cfg->ring_size ? cfg->ring_size : TOPDOWN_RING_DEFAULT_SIZE;
	bc.cfg.watermark = cfg->watermark ? cfg->watermark : bc.cfg.ring_size / 4;

	skel = topdown_bpf__open();
	if (!skel) {
		p_err("opening the BPF program: %s", strerror(errno));
		goto fail_dir;
	}
	skel->rodata->td_nr_events = cfg->nr_events;
	skel->rodata->td_nr_cpus = (uint32_t)nr_cpus;
	/* The module wakes a reader when one CPU's ring holds watermark
	 * bytes; here all CPUs share the ring.
	 */
	skel->rodata->td_watermark = bc.cfg.watermark;
	if (bpf_map__set_max_entries(skel->maps.td_events,
				     TOPDOWN_MAX_EVENTS * (uint32_t)nr_cpus) ||
	    bpf_map__set_max_entries(skel->maps.td_ring, bc.ring_bytes)) {
		p_err("sizing the BPF maps: %s", strerror(errno));
		goto fail;
	}
	e = topdown_bpf__load(skel);
	if (e) {
		explain_load_error(-e);
		goto fail;
	}
	if (open_counters(cfg, nr_cpus, bpf_map__fd(skel->maps.td_events),
			  bpf_map__fd(skel->maps.td_cpu)))
		goto fail;
	bc.start_ns = td_now_ns();
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.td_config), &key, &bc,
				BPF_ANY)) {
		p_err("storing the configuration: %s", strerror(errno));
		goto fail;
	}
	if (pin_map(skel->maps.td_events, "events") ||
	    pin_map(skel->maps.td_ring, "ring") ||
	    pin_map(skel->maps.td_cpu, "cpu") ||
	    pin_map(skel->maps.td_config, "config") ||
	    pin_map(skel->maps.td_lost_seen, "lost_seen"))
		goto fail;
	link = bpf_program__attach(skel->progs.td_switch);
	if (!link) {
		p_err("attaching the BPF program to sched_switch: %s",
		      strerror(errno));
		goto fail;
	}
	if (bpf_link__pin(link, PIN("link"))) {
		p_err("pinning %s: %s", PIN("link"), strerror(errno));
		bpf_link__destroy(link);
		goto fail;
	}
	/* The pin keeps the program attached once tdctl exits. */
	bpf_link__disconnect(link);
	bpf_link__destroy(link);
	topdown_bpf__destroy(skel);
	return 0;
fail:
	topdown_bpf__destroy(skel);
fail_dir:
	unpin_all();
	return -1;
}

/* Become the one reader; for unload, make sure there is none. */
static int lock_dir(int fd, bool unload)
{
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return 0;
	if (errno != EWOULDBLOCK)
		p_err("locking %s: %s", TD_BPF_DIR, strerror(errno));
	else if (unload)
		p_err("the BPF backend is in use: a reader ('%s dump', 'stat', 'top', 'record' or 'serve') is running",
		      bin_name);
	else
		p_err("another reader holds the BPF ring buffer (is another '%s dump', 'stat', 'top', 'record' or 'serve' running?)",
		      bin_name);
	return -1;
}

int td_bpf_unload(void)
{
	int fd = open(TD_BPF_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || !td_bpf_active()) {
		p_err("the BPF backend is not collecting");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (lock_dir(fd, true)) {
		close(fd);
		return -1;
	}
	unpin_all();
	close(fd);
	return 0;
}

static int obj_get(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), PIN("%s"), name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		p_err("opening %s: %s", path, strerror(errno));
	return fd;
}

int td_bpf_src_open(struct td_src *s)
{
	td_libbpf_quiet();
	s->kind = TD_BACKEND_BPF;
	s->fd = open(TD_BPF_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->fd < 0) {
		p_err("opening %s: %s", TD_BPF_DIR, strerror(errno));
		goto fail;
	}
	s->cfg_fd = obj_get("config");
	s->cpu_fd = obj_get("cpu");
	if (s->cfg_fd < 0 || s->cpu_fd < 0)
		goto fail;
	return 0;
fail:
	td_src_close(s);
	return -1;
}

static int read_config(const struct td_src *s, struct td_bpf_config *bc)
{
	uint32_t key = 0;

	if (bpf_map_lookup_elem(s->cfg_fd, &key, bc)) {
		p_err("reading the BPF backend's configuration: %s",
		      strerror(errno));
		return -1;
	}
	if (!bc->nr_cpus || !bc->cfg.nr_events) {
		p_err("the BPF backend is not configured yet (is '%s load' running?)",
		      bin_name);
		return -1;
	}
	return 0;
}

int td_bpf_get_config(const struct td_src *s, struct topdown_config *cfg,
		      uint64_t *start_ns)
{
	struct td_bpf_config bc;

	if (read_config(s, &bc))
		return -1;
	*cfg = bc.cfg;
	if (start_ns)
		*start_ns = bc.start_ns;
	return 0;
}

static bool cpu_online(uint32_t cpu)
{
	char path[64];
	FILE *f;
	int c;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online", cpu);
	f = fopen(path, "r");
	if (!f)		/* not hot-pluggable (often CPU 0): always online */
		return true;
	c = fgetc(f);
	fclose(f);
	return c == '1';
}

static int read_cpus(const struct td_src *s, struct td_bpf_cpu *vals)
{
	uint32_t key = 0;

	if (bpf_map_lookup_elem(s->cpu_fd, &key, vals)) {
		p_err("reading the BPF backend's per-CPU state: %s",
		      strerror(errno));
		return -1;
	}
	return 0;
}

/* A reader holds the lock on the pin folder. */
static bool reader_present(void)
{
	int fd = open(TD_BPF_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool busy;

	if (fd < 0)
		return false;
	busy = flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK;
	close(fd);	/* drops the lock if we got it */
	return busy;
}

int td_bpf_get_status(const struct td_src *s, struct topdown_status *st,
		      struct topdown_cpu_stats **stats)
{
	struct td_bpf_config bc;
	struct td_bpf_cpu *vals;

	*stats = NULL;
	if (read_config(s, &bc))
		return -1;
	vals = calloc(bc.nr_cpus, sizeof(*vals));
	*stats = calloc(bc.nr_cpus, sizeof(**stats));
	if (!vals || !*stats) {
		p_err("out of memory");
		goto fail;
	}
	if (read_cpus(s, vals))
		goto fail;
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->state = TOPDOWN_STATE_RUNNING;
	st->abi_version = TOPDOWN_ABI_VERSION;
	st->nr_cpus = bc.nr_cpus;
	st->nr_stats = bc.nr_cpus;
	st->stats_size = sizeof(**stats);
	st->stats_ptr = (uintptr_t)*stats;
	st->record_size = TOPDOWN_RECORD_SIZE;
	st->reader = reader_present();
	st->start_ns = bc.start_ns;
	st->error_event = -1;
	st->error_cpu = -1;
	for (uint32_t cpu = 0; cpu < bc.nr_cpus; cpu++) {
		struct topdown_cpu_stats *o = &(*stats)[cpu];
		const struct td_bpf_cpu *c = &vals[cpu];

		o->cpu = cpu;
		o->flags = (cpu_online(cpu) ? TOPDOWN_CPU_ONLINE : 0) |
			   (c->armed ? TOPDOWN_CPU_COUNTING : 0);
		o->records = c->seq - c->lost;
		o->lost = c->lost;
		o->read_errors = c->read_errors;
		o->probe_count = c->probe_count;
		o->probe_ns = c->probe_ns;
		o->producer_pos = o->records * TOPDOWN_RECORD_SIZE;
		o->arm_errors = (uint8_t)c->arm_errors;
		for (uint32_t i = 0; i < bc.cfg.nr_events && i < TOPDOWN_MAX_EVENTS; i++) {
			if (!(c->armed & (1u << i)))
				o->ev_state[i] = TOPDOWN_EVSTATE_NONE;
			else if ((c->errors | c->resync) & (1u << i))
				o->ev_state[i] = TOPDOWN_EVSTATE_ERROR;
			else
				o->ev_state[i] = TOPDOWN_EVSTATE_COUNTING;
			o->ev_error_slices[i] = c->ev_err[i];
		}
	}
	free(vals);
	return 0;
fail:
	free(vals);
	free(*stats);
	*stats = NULL;
	return -1;
}

static int on_sample(void *ctx, void *data, size_t size)
{
	struct td_reader *r = ctx;
	struct td_bpf_reader *b = r->bpf;
	struct topdown_record rec;

	if (size < sizeof(rec))
		return 0;
	memcpy(&rec, data, sizeof(rec));
	b->fn(&rec, b->ctx);
	b->count++;
	return 0;
}

int td_bpf_reader_open(struct td_reader *r)
{
	struct td_bpf_reader *b;
	struct td_bpf_config bc;

	r->fd = -1;
	if (td_bpf_src_open(&r->src))
		return -1;
	b = calloc(1, sizeof(*b));
	if (!b) {
		p_err("out of memory");
		td_src_close(&r->src);
		return -1;
	}
	r->bpf = b;
	b->ring_fd = -1;
	b->seen_fd = -1;
	if (lock_dir(r->src.fd, false) || read_config(&r->src, &bc))
		goto fail;
	r->cfg = bc.cfg;
	r->nr_cpus = (int)bc.nr_cpus;
	r->overwrite = false;
	b->vals = calloc(bc.nr_cpus, sizeof(*b->vals));
	b->seen = calloc(bc.nr_cpus, sizeof(*b->seen));
	if (!b->vals || !b->seen) {
		p_err("out of memory");
		goto fail;
	}
	b->ring_fd = obj_get("ring");
	b->seen_fd = obj_get("lost_seen");
	if (b->ring_fd < 0 || b->seen_fd < 0)
		goto fail;
	b->rb = ring_buffer__new(b->ring_fd, on_sample, r, NULL);
	if (!b->rb) {
		p_err("mapping the BPF ring buffer: %s", strerror(errno));
		goto fail;
	}
	r->fd = ring_buffer__epoll_fd(b->rb);
	return 0;
fail:
	td_bpf_reader_close(r);
	return -1;
}

long td_bpf_reader_drain(struct td_reader *r, td_record_fn rec_fn,
			 td_lost_fn lost_fn, void *ctx)
{
	struct td_bpf_reader *b = r->bpf;
	uint32_t key = 0;
	bool changed = false;

	b->fn = rec_fn;
	b->ctx = ctx;
	b->count = 0;
	ring_buffer__consume(b->rb);
	/* Records dropped since any reader last reported them. */
	if (read_cpus(&r->src, b->vals) ||
	    bpf_map_lookup_elem(b->seen_fd, &key, b->seen))
		return b->count;
	for (int cpu = 0; cpu < r->nr_cpus; cpu++) {
		uint64_t lost = b->vals[cpu].lost;

		if (lost == b->seen[cpu])
			continue;
		if (lost_fn)
			lost_fn(cpu, lost - b->seen[cpu], "ring buffer full", ctx);
		b->seen[cpu] = lost;
		changed = true;
	}
	if (changed)
		bpf_map_update_elem(b->seen_fd, &key, b->seen, BPF_ANY);
	return b->count;
}

void td_bpf_reader_close(struct td_reader *r)
{
	struct td_bpf_reader *b = r->bpf;

	if (b) {
		ring_buffer__free(b->rb);	/* closes the epoll file */
		if (b->ring_fd >= 0)
			close(b->ring_fd);
		if (b->seen_fd >= 0)
			close(b->seen_fd);
		free(b->vals);
		free(b->seen);
		free(b);
	}
	r->bpf = NULL;
	r->fd = -1;
	td_src_close(&r->src);	/* drops the reader's lock */
}
