// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF backend in user space: load and pin (tdctl load), unpin (tdctl
 * unload), the reader every other command uses, and the upkeep of the
 * counters (td_bpf_maintain()); its status is status.c's, its feature
 * tests features.c's. See bpf.h, td_bpf.h, topdown.bpf.c and
 * Documentation/design.rst ("Two backends").
 *
 * Pins under TD_BPF_DIR: "link" (the attached program; its existence is
 * what makes the backend active, so it is pinned last and removed first),
 * "events" (the perf events), "rings" (per-CPU rings and state), "ring"
 * (the BPF ring buffer: records or wake-up notes), "config", and the
 * folder "lock". One reader at a time: it holds flock(LOCK_EX) on the pin
 * folder, as the module lets one file map the consumer pages. The upkeep
 * of the counters holds flock(LOCK_EX) on "lock" while it replaces them.
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
#include <sys/mman.h>
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
#include "live/bpf/bpf_priv.h"
#include "live/bpf/td_bpf.h"
#include "topdown.skel.h"

#define BPFFS		"/sys/fs/bpf"
#define BPF_FS_MAGIC_	0xcafe4a11
#define PIN(name)	TD_BPF_DIR "/" name
#define LOCK_DIR	PIN("lock")

/* How often a running reader re-creates counters in error (the module's
 * retry_ms default).
 */
#define MAINTAIN_NS	1000000000ull

/* "cpu" and "lost_seen": pins that older tdctl versions left behind
 * (removed if found).
 */
static const char *const td_pins[] = {
	"link", "events", "rings", "ring", "config", "totals", "cpu", "lost_seen",
	NULL,
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
	rmdir(LOCK_DIR);
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

bool td_bpf_cpu_online(uint32_t cpu)
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

int td_bpf_map_rings(int fd, uint32_t nr_cpus, uint32_t cpu_blocks,
		     struct td_bpf_map *m)
{
	m->nr_cpus = nr_cpus;
	m->cpu_blocks = cpu_blocks;
	m->len = (size_t)nr_cpus * cpu_blocks * TD_BPF_BLOCK;
	m->base = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		p_err("mapping the BPF backend's rings: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void td_bpf_unmap_rings(struct td_bpf_map *m)
{
	if (m->base)
		munmap(m->base, m->len);
	m->base = NULL;
}

static uint8_t *cpu_block(const struct td_bpf_map *m, uint32_t cpu, uint32_t blk)
{
	return m->base + ((size_t)cpu * m->cpu_blocks + blk) * TD_BPF_BLOCK;
}

struct td_bpf_cpu *td_bpf_cpu_state(const struct td_bpf_map *m, uint32_t cpu)
{
	return (struct td_bpf_cpu *)cpu_block(m, cpu, 1);
}

/* Element of counter i of CPU cpu in the given slot of td_events. */
static uint32_t event_key(uint32_t slot, uint32_t i, uint32_t cpu,
			  uint32_t nr_cpus)
{
	return (slot * TOPDOWN_MAX_EVENTS + i) * nr_cpus + cpu;
}

/*
 * Event e on one CPU, pinned: its fd, and in *v its first read() (the
 * count, or end of file: *have 0, perf found no counter for it, ERROR).
 * -ENODEV if the CPU is offline; another -errno after p_err() if @loud.
 */
static int open_counter(const struct topdown_event *e, int cpu, uint64_t *v,
			bool *have, bool loud)
{
	struct perf_event_attr attr;
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
	fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		if (err != ENODEV && loud)
			p_err("perf refused event %s (type %u, config 0x%llx) on CPU %d: %s",
			      e->name, e->type, (unsigned long long)e->config,
			      cpu, strerror(err));
		return -err;
	}
	n = read(fd, v, sizeof(*v));
	if (n == 0) {
		*have = false;
		*v = 0;
	} else if (n == sizeof(*v)) {
		*have = true;
	} else {
		int err = n < 0 ? errno : EIO;

		if (loud)
			p_err("reading event %s on CPU %d: %s", e->name, cpu,
			      n < 0 ? strerror(err) : "short read");
		close(fd);
		return -err;
	}
	return fd;
}

/*
 * Put a counter into td_events (which keeps it: BPF_F_PRESERVE_ELEMS) and
 * close our file. -1 after p_err() if @loud.
 */
static int install_counter(int map_fd, uint32_t key, int fd, bool loud,
			   const char *name, int cpu)
{
	int ret = bpf_map_update_elem(map_fd, &key, &fd, BPF_ANY);

	if (ret && loud)
		p_err("putting event %s of CPU %d into the BPF map: %s", name,
		      cpu, strerror(errno));
	close(fd);
	return ret ? -1 : 0;
}

/*
 * Load time: every event on every online CPU of its mask, in slot 0, with
 * the baselines the module takes at START (so the first slice counts from
 * here), and the state of every possible CPU. Before the program runs.
 */
static int init_cpus(const struct topdown_config *cfg, int nr_cpus,
		     uint32_t ring_size, bool percpu, int map_fd,
		     struct td_bpf_map *m)
{
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		struct td_bpf_cpu *c = td_bpf_cpu_state(m, (uint32_t)cpu);
		uint32_t armed = 0, want = 0;

		memset(cpu_block(m, (uint32_t)cpu, 0), 0, 2 * TD_BPF_BLOCK);
		c->prod.data_size = percpu ? ring_size : 0;
		c->prod.record_size = TOPDOWN_RECORD_SIZE;
		c->prod.cpu = (uint32_t)cpu;
		c->prod.flags = cfg->flags;
		/* The elements the program reads while ctl == seen (slot 0). */
		for (uint32_t i = 0; i < TOPDOWN_MAX_EVENTS; i++)
			c->idx[i] = event_key(0, i, (uint32_t)cpu, (uint32_t)nr_cpus);
		for (uint32_t i = 0; i < cfg->nr_events; i++) {
			const struct topdown_event *e = &cfg->events[i];
			uint64_t v;
			bool have;
			int fd;

			if (!cpu_in_mask(e, cpu))
				continue;
			want |= 1u << i;
			fd = open_counter(e, cpu, &v, &have, true);
			if (fd == -ENODEV)
				continue;	/* offline: armed when it comes online */
			if (fd < 0)
				return -1;
			c->last[i] = v;
			if (!have) {
				/* ERROR: its slices read as errors. */
				c->arm_errors |= 1u << i;
				c->resync |= 1u << i;
			}
			if (install_counter(map_fd, event_key(0, i, (uint32_t)cpu,
							      (uint32_t)nr_cpus),
					    fd, true, e->name, cpu))
				return -1;
			armed |= 1u << i;
		}
		c->ctl = TD_CTL(armed, 0, want);
		c->seen = c->ctl;
		c->last_ns = td_now_ns();
	}
	return 0;
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

/*
 * Where the records go: per-CPU rings where the kernel has BPF atomics,
 * else the shared ring buffer. TDCTL_BPF_RING=shared|percpu overrides it
 * (tests, benchmark). -1 after p_err().
 */
static int choose_ring(uint32_t flags, uint32_t *ring)
{
	const char *env = getenv("TDCTL_BPF_RING");
	bool atomics = td_bpf_has_atomics() == 1;

	if (env && strcmp(env, "shared") && strcmp(env, "percpu")) {
		p_err("TDCTL_BPF_RING must be percpu or shared, not '%s'", env);
		return -1;
	}
	if (env && !strcmp(env, "percpu") && !atomics) {
		p_err("TDCTL_BPF_RING=percpu: this kernel has no BPF atomic instructions (Linux 5.12)");
		return -1;
	}
	if (atomics && !(env && !strcmp(env, "shared")))
		*ring = TD_BPF_RING_PERCPU;
	else
		*ring = TD_BPF_RING_SHARED;
	if (*ring == TD_BPF_RING_SHARED && td_bpf_ring_lock_sleeps() == 1) {
		p_err("%s%s", atomics ? "TDCTL_BPF_RING=shared: " : "", td_bpf_ring_lock_why);
		return -1;
	}
	if (*ring == TD_BPF_RING_SHARED && (flags & TOPDOWN_OVERFLOW_OVERWRITE)) {
		p_err("--overwrite with the BPF backend needs per-CPU rings, which need BPF atomic instructions (Linux 5.12)%s",
		      atomics ? " (TDCTL_BPF_RING=shared)" : ": this kernel has none");
		return -1;
	}
	if (*ring == TD_BPF_RING_SHARED && (flags & TOPDOWN_CONFIG_TOTALS)) {
		p_err("--totals with the BPF backend needs per-CPU rings, which need BPF atomic instructions (Linux 5.12)%s",
		      atomics ? " (TDCTL_BPF_RING=shared)" : ": this kernel has none");
		return -1;
	}
	return 0;
}

int td_bpf_load(const struct topdown_config *cfg)
{
	const char *rv = getenv("TDCTL_BPF_READ");
	struct td_bpf_map m = { 0 };
	struct td_bpf_config bc;
	struct topdown_bpf *skel;
	struct bpf_link *link;
	uint32_t key = 0, ring, page = (uint32_t)sysconf(_SC_PAGESIZE);
	char err[256];
	int nr_cpus, e;
	bool percpu;

	td_libbpf_quiet();
	if (cfg->nr_groups) {
		p_err("%s", td_bpf_no_groups);
		return -1;
	}
	if (td_bpf_usable(err, sizeof(err))) {
		p_err("%s", err);
		return -1;
	}
	if (rv && strcmp(rv, "value")) {
		p_err("TDCTL_BPF_READ must be 'value' (the benchmark's old read path) or unset, not '%s'",
		      rv);
		return -1;
	}
	if (choose_ring(cfg->flags, &ring))
		return -1;
	percpu = ring == TD_BPF_RING_PERCPU;
	nr_cpus = nr_possible_cpus();
	if (nr_cpus <= 0 || bpffs_mount())
		return -1;
	if (td_bpf_active()) {
		p_err("collection is already running with the BPF backend (stop it with '%s unload')",
		      bin_name);
		return -1;
	}
	unpin_all();	/* what a failed load or a crash left behind */
	if (mkdir(TD_BPF_DIR, 0700) || mkdir(LOCK_DIR, 0700)) {
		p_err("creating %s: %s", LOCK_DIR, strerror(errno));
		unpin_all();
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
	bc.cfg.ring_size = cfg->ring_size ? cfg->ring_size : TOPDOWN_RING_DEFAULT_SIZE;
	bc.cfg.watermark = cfg->watermark ? cfg->watermark : bc.cfg.ring_size / 4;
	bc.ring = ring;
	bc.read_value = !!rv;
	/* Records in the shared ring buffer, or only wake-up notes. */
	bc.ring_bytes = percpu ? page : ring_bytes_for(cfg->ring_size, nr_cpus);
	bc.cpu_blocks = TD_BPF_HDR_BLOCKS +
			(percpu ? bc.cfg.ring_size / TD_BPF_BLOCK : 0);
	if (cfg->flags & TOPDOWN_CONFIG_TOTALS) {
		if (!bc.cfg.totals_tasks)
			bc.cfg.totals_tasks = TOPDOWN_TOTALS_DEFAULT_TASKS;
		if (bc.cfg.totals_tasks < TOPDOWN_TOTALS_MIN_TASKS ||
		    bc.cfg.totals_tasks > TOPDOWN_TOTALS_MAX_TASKS ||
		    bc.cfg.totals_tasks & (bc.cfg.totals_tasks - 1)) {
			p_err("the totals' pool must be a power of two from %u to %u tasks",
			      TOPDOWN_TOTALS_MIN_TASKS, TOPDOWN_TOTALS_MAX_TASKS);
			goto fail_dir;
		}
	} else {
		bc.cfg.totals_tasks = 0;
	}

	skel = topdown_bpf__open();
	if (!skel) {
		p_err("opening the BPF program: %s", strerror(errno));
		goto fail_dir;
	}
	skel->rodata->td_nr_events = cfg->nr_events;
	skel->rodata->td_nr_cpus = (uint32_t)nr_cpus;
	skel->rodata->td_cpu_blocks = bc.cpu_blocks;
	skel->rodata->td_ring_size = bc.cfg.ring_size;
	skel->rodata->td_overwrite = !!(cfg->flags & TOPDOWN_OVERFLOW_OVERWRITE);
	skel->rodata->td_read_value = bc.read_value;
	skel->rodata->td_totals_tasks = bc.cfg.totals_tasks;
	skel->rodata->td_totals_bits = bc.cfg.totals_tasks ?
		(uint32_t)__builtin_ctz(bc.cfg.totals_tasks) : 0;
	/* The module wakes a reader when one CPU's ring holds watermark
	 * bytes; the shared ring buffer when all CPUs' records do.
	 */
	skel->rodata->td_watermark = bc.cfg.watermark;
	if (bpf_program__set_autoload(skel->progs.td_switch, percpu) ||
	    bpf_program__set_autoload(skel->progs.td_switch_shared, !percpu) ||
	    bpf_map__set_max_entries(skel->maps.td_events,
				     2 * TOPDOWN_MAX_EVENTS * (uint32_t)nr_cpus) ||
	    bpf_map__set_max_entries(skel->maps.td_rings,
				     bc.cpu_blocks * (uint32_t)nr_cpus) ||
	    bpf_map__set_max_entries(skel->maps.td_ring, bc.ring_bytes) ||
	    bpf_map__set_max_entries(skel->maps.td_totals, bc.cfg.totals_tasks ?
				     1 + (uint32_t)nr_cpus + bc.cfg.totals_tasks : 1)) {
		p_err("sizing the BPF maps: %s", strerror(errno));
		goto fail;
	}
	e = topdown_bpf__load(skel);
	if (e) {
		explain_load_error(-e);
		goto fail;
	}
	if (td_bpf_map_rings(bpf_map__fd(skel->maps.td_rings),
			     (uint32_t)nr_cpus, bc.cpu_blocks, &m) ||
	    init_cpus(cfg, nr_cpus, bc.cfg.ring_size, percpu,
		      bpf_map__fd(skel->maps.td_events), &m))
		goto fail;
	bc.start_ns = td_now_ns();
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.td_config), &key, &bc,
				BPF_ANY)) {
		p_err("storing the configuration: %s", strerror(errno));
		goto fail;
	}
	if (pin_map(skel->maps.td_events, "events") ||
	    pin_map(skel->maps.td_rings, "rings") ||
	    pin_map(skel->maps.td_ring, "ring") ||
	    pin_map(skel->maps.td_config, "config") ||
	    pin_map(skel->maps.td_totals, "totals"))
		goto fail;
	link = bpf_program__attach(percpu ? skel->progs.td_switch :
					    skel->progs.td_switch_shared);
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
	td_bpf_unmap_rings(&m);
	topdown_bpf__destroy(skel);
	return 0;
fail:
	td_bpf_unmap_rings(&m);
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
		p_err("another reader holds the BPF backend's rings (is another '%s dump', 'stat', 'top', 'record' or 'serve' running?)",
		      bin_name);
	return -1;
}

int td_bpf_unload(void)
{
	int fd = open(TD_BPF_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int lk;

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
	/* Wait for an upkeep pass of another command to finish. */
	lk = open(LOCK_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lk >= 0)
		flock(lk, LOCK_EX);
	unpin_all();
	if (lk >= 0)
		close(lk);
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

static int read_config_fd(int cfg_fd, struct td_bpf_config *bc)
{
	uint32_t key = 0;

	if (bpf_map_lookup_elem(cfg_fd, &key, bc)) {
		p_err("reading the BPF backend's configuration: %s",
		      strerror(errno));
		return -1;
	}
	if (!bc->nr_cpus || !bc->cfg.nr_events || bc->cpu_blocks < TD_BPF_HDR_BLOCKS) {
		p_err("the BPF backend is not configured yet (is '%s load' running?)",
		      bin_name);
		return -1;
	}
	return 0;
}

int td_bpf_read_config(const struct td_src *s, struct td_bpf_config *bc)
{
	return read_config_fd(s->cfg_fd, bc);
}

/*
 * The upkeep of the counters, done by tdctl commands since nothing else
 * runs (the module does it from a delayed work and its CPU hotplug
 * callbacks): on every online CPU, a counter that the program's last read
 * found in error (perf found no counter for it, or its CPU went offline
 * since it was created, which leaves it OFF for good) is replaced by a new
 * one if that one gets a hardware counter, and the counters of a CPU that
 * was offline at load are created. A replacement goes into the event's
 * other slot, then ctl says so (one store, after the map update); the
 * program re-takes the baseline at the change (one slice with the error
 * bit), so no delta spans the gap. A CPU whose program has not applied
 * the last change yet is left alone. Silent: what is still in error shows
 * in the status. Skipped while another command does it (flock on "lock").
 */
static void maintain(int events_fd, const struct td_bpf_config *bc,
		     const struct td_bpf_map *m)
{
	int lk = open(LOCK_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (lk < 0)
		return;
	if (flock(lk, LOCK_EX | LOCK_NB)) {
		close(lk);
		return;
	}
	for (uint32_t cpu = 0; cpu < bc->nr_cpus; cpu++) {
		struct td_bpf_cpu *c = td_bpf_cpu_state(m, cpu);
		uint32_t ctl = __atomic_load_n(&c->ctl, __ATOMIC_RELAXED);
		uint32_t armed = TD_CTL_ARMED(ctl), slots = (ctl >> 8) & 0xff;
		uint32_t want = TD_CTL_WANT(ctl), need, old = 0;

		if (__atomic_load_n(&c->seen, __ATOMIC_RELAXED) != ctl ||
		    !td_bpf_cpu_online(cpu))
			continue;
		need = (want & ~armed) |
		       (armed & __atomic_load_n(&c->resync, __ATOMIC_RELAXED));
		for (uint32_t i = 0; i < bc->cfg.nr_events && need; i++) {
			uint32_t bit = 1u << i, slot = (slots >> i) & 1;
			uint64_t v;
			bool have;
			int fd;

			if (!(need & bit))
				continue;
			fd = open_counter(&bc->cfg.events[i], (int)cpu, &v,
					  &have, false);
			if (fd < 0)
				continue;
			if (!have && (armed & bit)) {
				close(fd);	/* still no counter: keep the old */
				continue;
			}
			if (armed & bit)
				slot ^= 1;
			if (install_counter(events_fd,
					    event_key(slot, i, cpu, bc->nr_cpus),
					    fd, false, NULL, (int)cpu))
				continue;
			if (armed & bit) {
				old |= bit;
				c->recoveries++;
			} else if (!have) {
				c->arm_errors |= bit;
			}
			armed |= bit;
			slots = (slots & ~bit) | slot << i;
		}
		if (TD_CTL(armed, slots, want) == ctl)
			continue;
		/* After the map updates (syscalls): the program's read of the
		 * slot depends on this value.
		 */
		__atomic_store_n(&c->ctl, TD_CTL(armed, slots, want),
				 __ATOMIC_RELEASE);
		/* The replaced counters: a program that still reads one gets
		 * -ENOENT, an error, as it got from the counter itself.
		 */
		for (uint32_t i = 0; i < bc->cfg.nr_events; i++) {
			uint32_t key;

			if (!(old & (1u << i)))
				continue;
			key = event_key(((slots >> i) & 1) ^ 1, i, cpu, bc->nr_cpus);
			bpf_map_delete_elem(events_fd, &key);
		}
	}
	close(lk);
}

/* One upkeep pass for a command that is not a reader (td_src). */
static void maintain_once(const struct td_src *s)
{
	struct td_bpf_config bc;
	struct td_bpf_map m = { 0 };
	int events_fd;

	if (bpf_map_lookup_elem(s->cfg_fd, &(uint32_t){ 0 }, &bc) ||
	    !bc.nr_cpus || bc.cpu_blocks < TD_BPF_HDR_BLOCKS)
		return;
	events_fd = bpf_obj_get(PIN("events"));
	if (events_fd < 0)
		return;
	if (!td_bpf_map_rings(s->cpu_fd, bc.nr_cpus, bc.cpu_blocks, &m)) {
		maintain(events_fd, &bc, &m);
		td_bpf_unmap_rings(&m);
	}
	close(events_fd);
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
	s->cpu_fd = obj_get("rings");
	if (s->cfg_fd < 0 || s->cpu_fd < 0)
		goto fail;
	maintain_once(s);
	return 0;
fail:
	td_src_close(s);
	return -1;
}

int td_bpf_get_config(const struct td_src *s, struct topdown_config *cfg,
		      uint64_t *start_ns)
{
	struct td_bpf_config bc;

	if (td_bpf_read_config(s, &bc))
		return -1;
	*cfg = bc.cfg;
	if (start_ns)
		*start_ns = bc.start_ns;
	return 0;
}

/* Records of the shared ring buffer; the per-CPU rings' wake-up notes are
 * only consumed.
 */
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
	b->events_fd = -1;
	if (lock_dir(r->src.fd, false) || td_bpf_read_config(&r->src, &b->bc))
		goto fail;
	r->cfg = b->bc.cfg;
	r->nr_cpus = (int)b->bc.nr_cpus;
	r->overwrite = b->bc.ring == TD_BPF_RING_PERCPU &&
		       (b->bc.cfg.flags & TOPDOWN_OVERFLOW_OVERWRITE);
	if (td_bpf_map_rings(r->src.cpu_fd, b->bc.nr_cpus, b->bc.cpu_blocks, &b->m))
		goto fail;
	r->rings = calloc(b->bc.nr_cpus, sizeof(*r->rings));
	if (!r->rings) {
		p_err("out of memory");
		goto fail;
	}
	/* The module's ring layout in blocks (td_bpf.h): the module's
	 * reader code drains them (td_dev_reader_drain()). With the shared
	 * ring buffer the data area is empty and only the losses are read.
	 */
	for (uint32_t cpu = 0; cpu < b->bc.nr_cpus; cpu++) {
		struct td_ring *ring = &r->rings[cpu];

		ring->cons = (struct topdown_ring_consumer *)cpu_block(&b->m, cpu, 0);
		ring->prod = &td_bpf_cpu_state(&b->m, cpu)->prod;
		if (b->bc.ring == TD_BPF_RING_PERCPU) {
			ring->data = cpu_block(&b->m, cpu, TD_BPF_HDR_BLOCKS);
			ring->size = b->bc.cfg.ring_size;
		} else {
			/* producer_pos stays 0: nothing is read here */
			ring->data = NULL;
			ring->size = TOPDOWN_RECORD_SIZE;
		}
	}
	b->ring_fd = obj_get("ring");
	b->events_fd = obj_get("events");
	if (b->ring_fd < 0 || b->events_fd < 0)
		goto fail;
	b->rb = ring_buffer__new(b->ring_fd, on_sample, r, NULL);
	if (!b->rb) {
		p_err("mapping the BPF ring buffer: %s", strerror(errno));
		goto fail;
	}
	r->fd = ring_buffer__epoll_fd(b->rb);
	b->maintained_ns = td_now_ns();
	return 0;
fail:
	td_bpf_reader_close(r);
	return -1;
}

/* Does some CPU's ring hold the watermark (drained by the caller)? */
static bool rings_pending(const struct td_reader *r)
{
	const struct td_bpf_reader *b = r->bpf;

	if (b->bc.ring != TD_BPF_RING_PERCPU)
		return false;
	for (int cpu = 0; cpu < r->nr_cpus; cpu++) {
		const struct td_ring *ring = &r->rings[cpu];
		uint64_t prod = __atomic_load_n(&ring->prod->producer_pos,
						__ATOMIC_ACQUIRE);

		if (prod - ring->cons->consumer_pos >= b->bc.cfg.watermark)
			return true;
	}
	return false;
}

long td_bpf_reader_drain(struct td_reader *r, td_record_fn rec_fn,
			 td_lost_fn lost_fn, void *ctx)
{
	struct td_bpf_reader *b = r->bpf;
	uint64_t now = td_now_ns();

	b->fn = rec_fn;
	b->ctx = ctx;
	b->count = 0;
	if (now - b->maintained_ns >= MAINTAIN_NS) {
		maintain(b->events_fd, &b->bc, &b->m);
		b->maintained_ns = now;
	}
	/*
	 * The wake-up notes first, then the rings: a crossing of the
	 * watermark after this leaves a note for the next poll().
	 */
	ring_buffer__consume(b->rb);
	/* Per-CPU rings: the records; the shared ring buffer: the losses. */
	b->count += td_dev_reader_drain(r, rec_fn, lost_fn, ctx);
	/*
	 * The program decides on a wake-up from consumer_pos after its
	 * exchange of producer_pos; we stored consumer_pos, and now load
	 * producer_pos: with a full barrier on both sides, either it saw
	 * our consumer_pos (and wakes us when the unread data crosses the
	 * watermark again) or we see its record here and do not sleep.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	r->pending = rings_pending(r);
	return b->count;
}

void td_bpf_reader_close(struct td_reader *r)
{
	struct td_bpf_reader *b = r->bpf;

	if (b) {
		ring_buffer__free(b->rb);	/* closes the epoll file */
		if (b->ring_fd >= 0)
			close(b->ring_fd);
		if (b->events_fd >= 0)
			close(b->events_fd);
		td_bpf_unmap_rings(&b->m);
		free(b);
	}
	free(r->rings);
	r->rings = NULL;
	r->bpf = NULL;
	r->fd = -1;
	td_src_close(&r->src);	/* drops the reader's lock */
}
