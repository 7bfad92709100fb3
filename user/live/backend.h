/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the records come from: the topdown module (/dev/topdown and its
 * per-CPU rings, live/device.c) or the BPF backend (a sched_switch BPF
 * program writing the same records into a BPF ring buffer, live/bpf/).
 * Both produce struct topdown_record, struct topdown_config and struct
 * topdown_status, so every command works with either: it opens a
 * struct td_src for queries, or a struct td_reader (live/device.h) for
 * the records, and never asks which backend it got.
 *
 * At most one backend collects at a time: tdctl load refuses to start one
 * while the other runs. The BPF backend is active while its pins exist
 * under /sys/fs/bpf/topdown; otherwise the module is, if loaded.
 */
#ifndef TDCTL_BACKEND_H
#define TDCTL_BACKEND_H

#include <stdbool.h>

#include <linux/topdown.h>

enum td_backend {
	TD_BACKEND_NONE,
	TD_BACKEND_MODULE,
	TD_BACKEND_BPF,
};

/* tdctl load --backend: "module", "bpf", or "auto" (TD_BACKEND_NONE:
 * the module if it loads, else BPF). 0, or -1 for anything else.
 */
int td_backend_parse(const char *s, enum td_backend *b);
/* "none", "module", "bpf". */
const char *td_backend_name(enum td_backend b);
/* The backend that holds the collection now (see above). */
enum td_backend td_backend_active(void);

/* A handle for the status and the configuration of the active backend. */
struct td_src {
	enum td_backend kind;
	int fd;		/* module: /dev/topdown; BPF: the pin folder */
	int cfg_fd;	/* BPF: the pinned maps (-1 for the module) */
	int cpu_fd;
};

/* Open the active backend (write: the module's device for writing); -1
 * after p_err() saying why (nothing loaded, no permission, ...).
 */
int td_src_open(struct td_src *s, bool write);
int td_src_config(const struct td_src *s, struct topdown_config *cfg);
/* As td_get_status(): *stats is malloc()ed, st->nr_stats entries. */
int td_src_status(const struct td_src *s, struct topdown_status *st,
		  struct topdown_cpu_stats **stats);
void td_src_close(struct td_src *s);

#endif
