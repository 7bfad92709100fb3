// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF backend's totals (load --backend bpf --totals): the program's
 * pool in the pinned "totals" map (td_bpf.h), mapped and copied out as
 * the module's TOPDOWN_IOC_TOTALS copies its own (kmod/td_totals.c,
 * td_totals_copy()): the CPUs' OTHER entries, then every task entry with
 * slices, each read consistently under its sequence count, again while an
 * entry was folded during the pass (a few times), so that every reader
 * (live/totals.c) takes either backend's totals alike.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "live/bpf/bpf.h"

struct td_bpf_totals {
	int fd;
	uint8_t *map;
	size_t len;
	uint32_t nr_cpus;
	uint32_t tasks;		/* task entries */
	uint32_t nr_events;
};

/* Passes of a copy while entries keep being folded (the module's). */
#define TOT_PASSES	4
/* Tries at an entry whose writer is inside its write section: the
 * program writes one with interrupts off, in well under a microsecond.
 */
#define TOT_SPINS	(1u << 20)

static struct td_bpf_tot *tot_at(const struct td_bpf_totals *t, uint32_t i)
{
	return (struct td_bpf_tot *)(t->map + (size_t)i * sizeof(struct td_bpf_tot));
}

static struct td_bpf_tot_hdr *tot_hdr(const struct td_bpf_totals *t)
{
	return (struct td_bpf_tot_hdr *)t->map;
}

int td_bpf_totals_open(struct td_bpf_totals **out)
{
	struct bpf_map_info info;
	uint32_t ilen = sizeof(info), elems;
	struct td_bpf_config bc;
	struct td_bpf_totals *t;
	long page = sysconf(_SC_PAGESIZE);
	int cfg, ret;

	*out = NULL;
	cfg = bpf_obj_get(TD_BPF_DIR "/config");
	if (cfg < 0)
		return -errno;
	ret = bpf_map_lookup_elem(cfg, &(uint32_t){ 0 }, &bc) ? -errno : 0;
	close(cfg);
	if (ret)
		return ret;
	if (!(bc.cfg.flags & TOPDOWN_CONFIG_TOTALS) || !bc.cfg.totals_tasks)
		return -ENODATA;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->nr_cpus = bc.nr_cpus;
	t->tasks = bc.cfg.totals_tasks;
	t->nr_events = bc.cfg.nr_events;
	t->fd = bpf_obj_get(TD_BPF_DIR "/totals");
	if (t->fd < 0) {
		/* Loaded by a tdctl that kept no totals there. */
		ret = errno == ENOENT ? -ENODATA : -errno;
		free(t);
		return ret;
	}
	memset(&info, 0, sizeof(info));
	elems = 1 + t->nr_cpus + t->tasks;
	if (bpf_obj_get_info_by_fd(t->fd, &info, &ilen)) {
		ret = -errno;
		goto fail;
	}
	if (info.value_size != sizeof(struct td_bpf_tot) ||
	    info.max_entries != elems || t->nr_events > TOPDOWN_MAX_EVENTS) {
		ret = -EPROTO;
		goto fail;
	}
	t->len = ((size_t)elems * sizeof(struct td_bpf_tot) + (size_t)page - 1) &
		 ~((size_t)page - 1);
	/* Writable: a copy counts itself in the header's reads. */
	t->map = mmap(NULL, t->len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (t->map == MAP_FAILED) {
		ret = -errno;
		goto fail;
	}
	*out = t;
	return 0;
fail:
	close(t->fd);
	free(t);
	return ret;
}

void td_bpf_totals_close(struct td_bpf_totals *t)
{
	if (!t)
		return;
	munmap(t->map, t->len);
	close(t->fd);
	free(t);
}

/*
 * @e copied consistently into @buf: the sequence count even and the same
 * before and after the copy (the program changes it with fully ordered
 * exchanges around its stores). -EAGAIN if it stayed odd.
 */
static int tot_read(const struct td_bpf_tot *e, struct td_bpf_tot *buf)
{
	for (uint32_t i = 0; i < TOT_SPINS; i++) {
		uint32_t s = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);

		if (s & 1) {
			if (i & 1023)
				continue;
			sched_yield();
			continue;
		}
		memcpy(buf, e, sizeof(*buf));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&e->seq, __ATOMIC_RELAXED) == s)
			return 0;
	}
	return -EAGAIN;
}

/* An entry as TOPDOWN_IOC_TOTALS gives it (its group 0 the only one). */
static void tot_out(const struct td_bpf_totals *t, const struct td_bpf_tot *b,
		    struct topdown_total *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = b->key & TD_TOT_EXITED ? TOPDOWN_TOTAL_EXITED : TOPDOWN_TOTAL_TASK;
	out->cpu = b->cpu;
	out->pid = b->pid;
	out->tgid = b->tgid;
	out->start_ns = b->start_ns;
	out->cgroup_id = b->cgroup_id;
	out->cgroup_moves = b->cgroup_moves;
	memcpy(out->comm, b->comm, sizeof(out->comm));
	out->slices = b->slices;
	out->time_ns = b->time_ns;
	out->unmeasured_ns = b->unmeasured_ns;
	out->grp_slices[0] = b->grp_slices;
	out->grp_time_ns[0] = b->grp_time_ns;
	for (uint32_t j = 0; j < t->nr_events; j++)
		out->grp_delta[0][j] = b->delta[j];
}

/* One pass: the CPUs' entries, then the tasks' while @cap lasts. */
static int tot_pass(const struct td_bpf_totals *t, struct topdown_totals *q,
		    struct topdown_total *to, uint32_t cap)
{
	struct td_bpf_tot b;
	uint32_t written = 0, tasks = 0;
	int ret;

	for (uint32_t c = 0; c < t->nr_cpus; c++) {
		ret = tot_read(tot_at(t, 1 + c), &b);
		if (ret)
			return ret;
		if (written < cap) {
			tot_out(t, &b, &to[written]);
			to[written].kind = TOPDOWN_TOTAL_OTHER;
			to[written].cpu = c;
			to[written].pid = 0;
			to[written].tgid = 0;
			to[written].start_ns = 0;
			to[written].cgroup_id = 0;
			to[written].cgroup_moves = 0;
			memset(to[written].comm, 0, sizeof(to[written].comm));
			written++;
		}
	}
	for (uint32_t i = 0; i < t->tasks; i++) {
		const struct td_bpf_tot *e = tot_at(t, 1 + t->nr_cpus + i);

		if (!__atomic_load_n(&e->key, __ATOMIC_RELAXED))
			continue;
		ret = tot_read(e, &b);
		if (ret)
			return ret;
		/* Free, or claimed and not yet cleared (see td_tot_read()). */
		if (!b.key || !b.slices)
			continue;
		tasks++;
		if (written < cap)
			tot_out(t, &b, &to[written++]);
	}
	q->nr_entries = written;
	q->nr_tasks = tasks;
	return 0;
}

/* As the module's TOPDOWN_IOC_TOTALS into @to (@cap entries; 0: counts). */
static int tot_copy(const struct td_bpf_totals *t, struct topdown_totals *q,
		    struct topdown_total *to, uint32_t cap)
{
	struct td_bpf_tot_hdr *h = tot_hdr(t);
	uint64_t gen = 0;
	int pass, ret = 0;

	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->entry_size = sizeof(*to);
	if (cap)
		__atomic_fetch_add(&h->reads, 1, __ATOMIC_SEQ_CST);
	for (pass = 0; pass < TOT_PASSES; pass++) {
		gen = __atomic_load_n(&h->generation, __ATOMIC_ACQUIRE);
		ret = tot_pass(t, q, to, cap);
		if (ret ||
		    __atomic_load_n(&h->generation, __ATOMIC_ACQUIRE) == gen)
			break;
	}
	if (ret)
		return ret;
	if (pass == TOT_PASSES)
		q->flags = TOPDOWN_TOTALS_MOVED;
	q->generation = gen;
	q->pool_tasks = t->tasks;
	q->no_room = __atomic_load_n(&h->no_room, __ATOMIC_RELAXED);
	q->reclaimed = __atomic_load_n(&h->reclaimed, __ATOMIC_RELAXED);
	return 0;
}

int td_bpf_totals_counts(struct td_bpf_totals *t, struct topdown_totals *q)
{
	return tot_copy(t, q, NULL, 0);
}

int td_bpf_totals_read(struct td_bpf_totals *t, struct topdown_totals *q,
		       struct topdown_total **buf, uint32_t *cap, uint32_t *n,
		       uint32_t *nr_cpus)
{
	uint32_t want;
	int ret;

	*n = 0;
	*nr_cpus = t->nr_cpus;
	ret = tot_copy(t, q, NULL, 0);
	/* New tasks may take entries between the passes: room for more. */
	for (int tries = 0; !ret && tries < 4; tries++) {
		want = t->nr_cpus + q->nr_tasks + q->nr_tasks / 4 + 64;
		if (want > t->nr_cpus + t->tasks)
			want = t->nr_cpus + t->tasks;
		if (want > *cap) {
			struct topdown_total *b = realloc(*buf, want * sizeof(*b));

			if (!b)
				return -ENOMEM;
			*buf = b;
			*cap = want;
		}
		ret = tot_copy(t, q, *buf, *cap);
		if (!ret && q->nr_entries == t->nr_cpus + q->nr_tasks) {
			*n = q->nr_entries;
			return 0;
		}
	}
	return ret ? ret : -EAGAIN;
}
