/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF backend: tdctl load --backend bpf loads topdown.bpf.c (libbpf,
 * CO-RE against the running kernel's BTF), creates the pinned per-CPU
 * perf events, attaches the program to sched_switch and pins the link and
 * the maps under TD_BPF_DIR, so that collection goes on after tdctl exits
 * and every later tdctl reads it (live/backend.h). tdctl unload removes
 * the pins, which detaches the program and frees the counters.
 */
#ifndef TDCTL_BPF_H
#define TDCTL_BPF_H

#include <stdbool.h>
#include <stdint.h>

#include "live/backend.h"
#include "live/bpf/td_bpf.h"
#include "live/device.h"

/* Is the BPF backend collecting (its link is pinned)? */
bool td_bpf_active(void);
/* For a process about to drop its privileges (serve, not the reader):
 * td_bpf_watch() opens the pin folder while the backend is active (-1
 * if it is not), and td_bpf_watching(fd) later tells, without rights on
 * /sys/fs/bpf, whether that folder still exists (tdctl unload removes
 * it; a new load makes another one, which this fd does not see).
 */
int td_bpf_watch(void);
bool td_bpf_watching(int fd);
/* Why the BPF backend cannot run here (no BTF, no bpf(), ...), in err;
 * 0 if it can be tried.
 */
int td_bpf_usable(char *err, size_t len);
/* Where a load here would put the records, and whether --overwrite works
 * (a feature probe of the running kernel), for status when nothing runs.
 */
const char *td_bpf_rings_here(void);

/* Load and start with cfg (as for TOPDOWN_IOC_CONFIGURE; overwrite mode
 * needs the per-CPU rings, i.e. BPF atomics). -1 after p_err(), with
 * nothing left behind.
 */
int td_bpf_load(const struct topdown_config *cfg);
/* Stop and remove the pins; refused while a reader runs. */
int td_bpf_unload(void);

/* Open the pins; also re-creates counters in error and arms CPUs that
 * came online (maintain() in bpf.c), as every reader does every
 * second while it runs.
 */
int td_bpf_src_open(struct td_src *s);
/* The configuration; start_ns (may be NULL): when counting started. */
int td_bpf_get_config(const struct td_src *s, struct topdown_config *cfg,
		      uint64_t *start_ns);
int td_bpf_get_status(const struct td_src *s, struct topdown_status *st,
		      struct topdown_cpu_stats **stats);

int td_bpf_reader_open(struct td_reader *r);
/* As td_bpf_get_status(), from what the reader read at open. */
int td_bpf_reader_status(const struct td_reader *r, struct topdown_status *st,
			 struct topdown_cpu_stats **stats);
long td_bpf_reader_drain(struct td_reader *r, td_record_fn rec_fn,
			 td_lost_fn lost_fn, void *ctx);
void td_bpf_reader_close(struct td_reader *r);

/*
 * The totals (load --totals), as the module's TOPDOWN_IOC_TOTALS gives
 * its own (live/device.h, td_dev_totals()): open maps the pinned pool
 * (-ENODATA when the backend keeps none, else 0 or -errno); read fills
 * *buf (grown to *cap) with *n entries, the TOPDOWN_TOTAL_OTHER entries
 * of the *nr_cpus possible CPUs first; counts fills only *q's counts.
 */
struct td_bpf_totals;
int td_bpf_totals_open(struct td_bpf_totals **t);
int td_bpf_totals_read(struct td_bpf_totals *t, struct topdown_totals *q,
		       struct topdown_total **buf, uint32_t *cap, uint32_t *n,
		       uint32_t *nr_cpus);
int td_bpf_totals_counts(struct td_bpf_totals *t, struct topdown_totals *q);
void td_bpf_totals_close(struct td_bpf_totals *t);

/* What the BPF backend running from s does differently from the module,
 * one line each, NULL-terminated (tdctl status, Documentation/design.rst).
 */
const char *const *td_bpf_differences(const struct td_src *s);
/* The records are in per-CPU rings (else in the shared ring buffer). */
bool td_bpf_percpu(const struct td_src *s);
/* Why a configuration with groups is refused (load, td_bpf_load()). */
extern const char td_bpf_no_groups[];

#endif
