// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF backend's STATUS, as the module's ioctl returns it, from the
 * loaded configuration and the per-CPU state blocks of the rings map.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/common.h"
#include "live/bpf/bpf_priv.h"

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

/* The status from the configuration and the mapped rings. */
static int fill_status(const struct td_bpf_config *bc,
		       const struct td_bpf_map *m, struct topdown_status *st,
		       struct topdown_cpu_stats **stats)
{
	*stats = calloc(bc->nr_cpus, sizeof(**stats));
	if (!*stats) {
		p_err("out of memory");
		return -1;
	}
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->state = TOPDOWN_STATE_RUNNING;
	st->abi_version = TOPDOWN_ABI_VERSION;
	st->nr_cpus = bc->nr_cpus;
	st->nr_stats = bc->nr_cpus;
	st->stats_size = sizeof(**stats);
	st->stats_ptr = (uintptr_t)*stats;
	st->record_size = TOPDOWN_RECORD_SIZE;
	st->reader = reader_present();
	st->start_ns = bc->start_ns;
	st->error_event = -1;
	st->error_cpu = -1;
	for (uint32_t cpu = 0; cpu < bc->nr_cpus; cpu++) {
		struct topdown_cpu_stats *o = &(*stats)[cpu];
		struct td_bpf_cpu c;
		uint32_t armed, want;

		memcpy(&c, td_bpf_cpu_state(m, cpu), sizeof(c));
		armed = TD_CTL_ARMED(c.ctl);
		want = TD_CTL_WANT(c.ctl);
		o->cpu = cpu;
		o->flags = (td_bpf_cpu_online(cpu) ? TOPDOWN_CPU_ONLINE : 0) |
			   (armed ? TOPDOWN_CPU_COUNTING : 0);
		o->records = c.pos / TOPDOWN_RECORD_SIZE;
		o->lost = c.lost;
		o->read_errors = c.read_errors;
		o->probe_count = c.probe_count;
		o->probe_ns = c.probe_ns;
		o->producer_pos = c.pos;
		o->arm_errors = (uint8_t)c.arm_errors;
		o->recoveries = c.recoveries;
		for (uint32_t i = 0; i < bc->cfg.nr_events && i < TOPDOWN_MAX_EVENTS; i++) {
			uint32_t bit = 1u << i;

			if (!(armed & bit))
				o->ev_state[i] = want & bit ? TOPDOWN_EVSTATE_OFF :
					TOPDOWN_EVSTATE_NONE;
			else if (c.resync & bit)
				o->ev_state[i] = TOPDOWN_EVSTATE_ERROR;
			else
				o->ev_state[i] = TOPDOWN_EVSTATE_COUNTING;
			o->ev_error_slices[i] = c.ev_err[i];
		}
	}
	return 0;
}

int td_bpf_get_status(const struct td_src *s, struct topdown_status *st,
		      struct topdown_cpu_stats **stats)
{
	struct td_bpf_map m = { 0 };
	struct td_bpf_config bc;
	int ret;

	*stats = NULL;
	if (td_bpf_read_config(s, &bc) ||
	    td_bpf_map_rings(s->cpu_fd, bc.nr_cpus, bc.cpu_blocks, &m))
		return -1;
	ret = fill_status(&bc, &m, st, stats);
	td_bpf_unmap_rings(&m);
	return ret;
}

/*
 * A reader's status from what it read and mapped at open: no bpf() call,
 * which a reader that dropped its privileges (serve) may not make any
 * more where kernel.unprivileged_bpf_disabled refuses every bpf()
 * command to it (Debian 11's 5.10; 6.1's __sys_bpf() refuses only
 * BPF_MAP_CREATE and BPF_PROG_LOAD).
 */
int td_bpf_reader_status(const struct td_reader *r, struct topdown_status *st,
			 struct topdown_cpu_stats **stats)
{
	*stats = NULL;
	if (fill_status(&r->bpf->bc, &r->bpf->m, st, stats))
		return -1;
	st->reader = true;	/* this one */
	return 0;
}
