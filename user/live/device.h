/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Talking to /dev/topdown: open with clear errors, the ioctls, and the
 * ring reader (mmap of every CPU's ring, acquire/release as documented in
 * include/uapi/linux/topdown.h).
 */
#ifndef TDCTL_DEVICE_H
#define TDCTL_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/topdown.h>

#include "live/backend.h"

/* Open the device, for writing (CONFIGURE, START, STOP, reading the
 * rings) or read-only (STATUS, GET_CONFIG), and check that the module
 * speaks tdctl's ABI; on failure p_err() says why (not loaded, no
 * permission, another ABI, ...) and -1 is returned.
 */
int td_dev_open(bool write);
/* 0 if tdctl can work with a module reporting *st, else -1 and why. */
int td_abi_check(const struct topdown_status *st, char *err, size_t len);
/* The module's name for libkmod and /sys/module. */
#define TD_MODULE_NAME "topdown"

/* True if the module is loaded (whether or not the node exists yet). */
bool td_module_loaded(void);

/*
 * The ioctls one by one, without a message: 0, or -errno for the caller
 * to say what the error means to it. td_dev_status() is STATUS without
 * the per-CPU statistics (td_get_status() has them); td_dev_get_config()
 * fills *cfg, td_dev_configure() sends it.
 */
int td_dev_status(int fd, struct topdown_status *st);
int td_dev_get_config(int fd, struct topdown_config *cfg);
int td_dev_configure(int fd, const struct topdown_config *cfg);
int td_dev_start(int fd);
int td_dev_stop(int fd);

/*
 * TOPDOWN_IOC_TOTALS ("Totals" in the UAPI header): *q's counts, and the
 * entries, *n of them, in *buf, an array of *cap entries (NULL and 0 at
 * first) that is reused, grown with realloc() when it cannot hold them
 * all: the caller free()s it. Reusing it spares a reader of thousands of
 * tasks a new mapping, and its page faults, at every snapshot. 0,
 * -ENODATA without totals, or another -errno.
 */
struct topdown_totals;
struct topdown_total;
int td_dev_totals(int fd, struct topdown_totals *q, struct topdown_total **buf,
		  uint32_t *cap, uint32_t *n);
/* *q's counts alone; 0 or -errno as td_dev_totals(). */
int td_dev_totals_counts(int fd, struct topdown_totals *q);

/* GET_CONFIG, or -1 after p_err(). */
int td_get_config(int fd, struct topdown_config *cfg);
struct td_plan;

/* The CONFIGURE argument for an event set's plan (evset/evset.h). */
void td_config_from_plan(const struct td_plan *plan,
			 struct topdown_config *cfg);

/* *stats is malloc()ed, st->nr_stats entries. */
int td_get_status(int fd, struct topdown_status *st,
		  struct topdown_cpu_stats **stats);
const char *td_state_name(uint32_t state);

struct td_ring {
	struct topdown_ring_consumer *cons;
	const struct topdown_ring_producer *prod;
	const uint8_t *data;
	uint64_t size;
};

/*
 * The records of the active backend (live/backend.h): the module's rings,
 * or the BPF backend's ring buffer (@bpf). @fd is what poll() waits on for
 * data: /dev/topdown, or the ring buffer's epoll file; @src answers
 * td_reader_status().
 */
struct td_bpf_reader;
struct td_reader {
	int fd;
	int nr_cpus;
	bool overwrite;
	struct topdown_config cfg;
	struct td_ring *rings;
	struct td_src src;
	struct td_bpf_reader *bpf;
	bool pending;	/* BPF: a ring held the watermark after the drain */
};

/* Called for every record, in order within each CPU. */
typedef void (*td_record_fn)(const struct topdown_record *rec, void *ctx);
/* Called when records of a CPU were lost: count, and why. */
typedef void (*td_lost_fn)(int cpu, uint64_t count, const char *why, void *ctx);

/* Become the reader of the active backend: open the device and map every
 * ring, or take the BPF ring buffer. -1 after p_err().
 */
int td_reader_open(struct td_reader *r);
/* The status of the reader's backend (td_get_status()). */
int td_reader_status(struct td_reader *r, struct topdown_status *st,
		     struct topdown_cpu_stats **stats);
/* Consume everything unread; returns the number of records delivered. */
long td_reader_drain(struct td_reader *r, td_record_fn rec_fn,
		     td_lost_fn lost_fn, void *ctx);
/* Wait up to timeout_ms for the watermark, or for any unread record once
 * the collection stopped (poll); 1 ready, 0 timeout or stopped and drained.
 */
int td_reader_wait(struct td_reader *r, int timeout_ms);
void td_reader_close(struct td_reader *r);

/* The module's half of the above (live/backend.c dispatches). */
int td_dev_reader_open(struct td_reader *r);
long td_dev_reader_drain(struct td_reader *r, td_record_fn rec_fn,
			 td_lost_fn lost_fn, void *ctx);
void td_dev_reader_close(struct td_reader *r);

#endif
