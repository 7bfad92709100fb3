/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A live collection session for stat, record and top: become the reader
 * of the rings, start the collection if it is configured but stopped
 * (and stop it again at the end), pass on the records of the target that
 * end after the session started, count what was lost, and wait for data,
 * a deadline, the command's exit, a key or a signal.
 */
#ifndef TDCTL_COLLECT_H
#define TDCTL_COLLECT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "agg/aggregate.h"
#include "live/device.h"
#include "evset/evset.h"
#include "live/target.h"

struct td_live {
	struct td_reader rd;
	struct td_decoder dec;	/* with rotated groups, group 0's */
	bool can_decode;
	struct td_view_cfg *vc;	/* the decoders of the rings' configuration,
				 * for the views of stat and top
				 */
	bool started;		/* this session started the collection */
	bool discard;		/* the first drain: records from before */
	uint64_t start_ns;	/* CLOCK_MONOTONIC */
	uint64_t start_real_ns;	/* CLOCK_REALTIME */
	uint64_t records_read;	/* since the start, of every task */
	uint64_t records_kept;	/* passed on (the target's) */
	uint64_t lost_total;
	uint64_t *lost;		/* per CPU */
	bool lost_counted;	/* the counts shown have the lost records'
				 * (the module's totals): said at close
				 */
	struct td_target *tgt;
	td_record_fn fn;
	void *ctx;
	bool progress;		/* show a progress line on stderr */
	uint64_t progress_ns;
	/* The end of the current tick (-I block, top refresh): records that
	 * end later belong to the next one. UINT64_MAX without ticks.
	 */
	uint64_t tick_end;
	bool stop;		/* set by a callback to end td_live_run() */
};

/* How td_live_run() goes on. */
struct td_run {
	uint64_t duration_ns;	/* stop after this long (0: no limit) */
	uint64_t tick_ns;	/* call tick every tick_ns (0: never) */
	bool (*tick)(void *ctx, uint64_t end_ns);	/* true: stop */
	int key_fd;		/* call key when readable (-1: none) */
	bool (*key)(void *ctx);	/* true: stop */
	void *ctx;
};

/* The last of SIGINT, SIGTERM, SIGHUP received (0: none). */
extern volatile sig_atomic_t td_signal;

/* Catch those signals into td_signal (poll() returns with EINTR). */
void td_catch_signals(void);

/* Open the rings and start; the caller then starts the target's command
 * (td_target_spawn()), if any. -1 after p_err().
 */
int td_live_open(struct td_live *l, struct td_target *tgt, td_record_fn fn,
		 void *ctx);
/* Read everything available and pass the target's records to fn. */
void td_live_drain(struct td_live *l);
/* Sleep until deadline_ns (0: none), data past the watermark, the
 * command's exit, a signal, or extra_fd (-1: none) being readable; true
 * in that last case.
 */
bool td_live_wait(struct td_live *l, uint64_t deadline_ns, int extra_fd);
/* Collect until the command exits, every -p process is gone, the
 * duration is over, a signal (^C; with a command, other signals are
 * passed on to it and counting goes on until it exits), or a callback
 * says stop; then read what is left.
 */
void td_live_run(struct td_live *l, const struct td_run *run);
/* Stop the collection if this session started it, unmap, warn about
 * lost records.
 */
void td_live_close(struct td_live *l);

/* Progress on stderr, at most twice a second; end clears the line. */
void td_live_progress(struct td_live *l);
void td_live_progress_end(struct td_live *l);
/* Should a long collection show progress (stdout and stderr are
 * terminals, no JSON)?
 */
bool td_want_progress(void);

/* Decoder for a configuration's label and event names; false (after a
 * warning that only raw counts are shown) if it cannot be decoded.
 */
bool td_decoder_for(const struct topdown_config *cfg, struct td_decoder *d);

/* One line about this machine's CPU, from /proc/cpuinfo. */
void td_cpu_description(char *buf, size_t n);

#endif
