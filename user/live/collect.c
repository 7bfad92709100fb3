// SPDX-License-Identifier: GPL-2.0
/*
 * Live collection sessions. See collect.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "live/collect.h"
#include "output/text.h"
#include "base/common.h"

volatile sig_atomic_t td_signal;

static void on_signal(int sig)
{
	td_signal = sig;
}

/* Without SA_RESTART, so that poll() returns at once. */
void td_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

bool td_decoder_for(const struct topdown_config *cfg, struct td_decoder *d)
{
	char names[TOPDOWN_MAX_EVENTS][TOPDOWN_NAME_LEN];
	char err[256], text[TD_TEXT_SIZE(256)];

	memset(names, 0, sizeof(names));
	for (uint32_t i = 0; i < cfg->nr_events && i < TOPDOWN_MAX_EVENTS; i++)
		memcpy(names[i], cfg->events[i].name, TOPDOWN_NAME_LEN);
	if (!td_decoder_from_label(d, cfg->label,
				   (const char (*)[TOPDOWN_NAME_LEN])names,
				   cfg->nr_events, err, sizeof(err)))
		return true;
	/* the label and names are a file's: their text (output/text.h) */
	td_text(text, err, sizeof(err), NULL);
	p_warn("showing raw counts only: %s", text);
	return false;
}

static void on_record(const struct topdown_record *r, void *ctx)
{
	struct td_live *l = ctx;

	if (l->discard || r->time_ns < l->start_ns)
		return;
	l->records_read++;
	if (!td_target_match(l->tgt, r))
		return;
	l->records_kept++;
	l->fn(r, l->ctx);
}

static void on_lost(int cpu, uint64_t count, const char *why, void *ctx)
{
	struct td_live *l = ctx;

	(void)why;
	if (l->discard)
		return;
	l->lost[cpu] += count;
	l->lost_total += count;
}

void td_live_drain(struct td_live *l)
{
	td_reader_drain(&l->rd, on_record, on_lost, l);
}

int td_live_open(struct td_live *l, struct td_target *tgt, td_record_fn fn,
		 void *ctx)
{
	struct topdown_cpu_stats *stats = NULL;
	struct topdown_status st;

	memset(l, 0, sizeof(*l));
	l->tgt = tgt;
	l->fn = fn;
	l->ctx = ctx;
	if (td_reader_open(&l->rd))
		return -1;
	if (td_reader_status(&l->rd, &st, &stats))
		goto fail;
	free(stats);
	if (st.state == TOPDOWN_STATE_CONFIGURED) {
		int err = td_dev_start(l->rd.fd);

		if (!err) {
			l->started = true;
			p_info("the collection was stopped: started it, will stop it at the end");
		} else if (err != -EBUSY) {
			p_err("starting the stopped collection: %s (see '%s status')",
			      strerror(-err), bin_name);
			goto fail;
		}
	}
	l->lost = calloc(l->rd.nr_cpus ? l->rd.nr_cpus : 1, sizeof(*l->lost));
	if (!l->lost) {
		p_err("out of memory");
		goto fail;
	}
	l->vc = malloc(sizeof(*l->vc));
	if (!l->vc) {
		p_err("out of memory");
		goto fail;
	}
	if (td_view_cfg_init(l->vc, &l->rd.cfg))
		goto fail;
	l->can_decode = l->vc->can_decode;
	if (l->can_decode)
		l->dec = l->vc->rotated ? l->vc->gd.g[0].dec : l->vc->dec;
	td_catch_signals();
	/* What the rings hold from before this session is not ours. */
	l->discard = true;
	td_live_drain(l);
	l->discard = false;
	l->start_ns = td_now_ns();
	l->start_real_ns = realtime_ns();
	l->progress_ns = l->start_ns;
	l->tick_end = UINT64_MAX;
	return 0;
fail:
	td_live_close(l);
	return -1;
}

bool td_live_wait(struct td_live *l, uint64_t deadline_ns, int extra_fd)
{
	struct pollfd pfd[3] = {
		{ .fd = l->rd.fd, .events = POLLIN },
		{ .fd = td_target_fd(l->tgt), .events = POLLIN },
		{ .fd = extra_fd, .events = POLLIN },
	};
	uint64_t now = td_now_ns();
	/* Wake up now and then: progress, -p targets, no pidfd. */
	int64_t ms = 500;

	if (l->tgt->kind == TD_TGT_CMD && pfd[1].fd < 0)
		ms = 50;
	if (deadline_ns) {
		int64_t left = deadline_ns > now ?
			       (int64_t)((deadline_ns - now + 999999) / 1000000) : 0;

		if (left < ms)
			ms = left;
	}
	if (td_signal)
		return false;
	if (poll(pfd, 3, (int)ms) <= 0)
		return false;
	if (pfd[0].revents & POLLHUP) {
		/* Stopped and drained: wait for the others alone. */
		pfd[0].fd = -1;
		if (poll(pfd, 3, (int)ms) <= 0)
			return false;
	}
	return extra_fd >= 0 && (pfd[2].revents & (POLLIN | POLLHUP));
}

/* The first tick boundary after now. */
static uint64_t next_tick(const struct td_live *l, const struct td_run *run,
			  uint64_t now)
{
	uint64_t k = (now - l->start_ns) / run->tick_ns + 1;

	return l->start_ns + k * run->tick_ns;
}

void td_live_run(struct td_live *l, const struct td_run *run)
{
	uint64_t stop = run->duration_ns ? l->start_ns + run->duration_ns : 0;
	bool cmd = l->tgt->kind == TD_TGT_CMD;

	l->tick_end = run->tick_ns ? l->start_ns + run->tick_ns : UINT64_MAX;
	while (!l->stop) {
		uint64_t wake = stop, now;
		bool key;

		if (run->tick_ns && (!wake || l->tick_end < wake))
			wake = l->tick_end;
		key = td_live_wait(l, wake, run->key_fd);
		td_live_drain(l);
		td_live_progress(l);
		now = td_now_ns();
		if (key && run->key(run->ctx))
			l->stop = true;
		if (td_signal) {
			/* A command got ^C from the terminal as well. */
			if (!cmd)
				l->stop = true;
			else if (td_signal != SIGINT)
				td_target_kill(l->tgt, td_signal);
			td_signal = 0;
		}
		if (stop && now >= stop) {
			if (cmd)	/* as perf stat --timeout */
				td_target_kill(l->tgt, SIGTERM);
			else
				l->stop = true;
		}
		if (td_target_done(l->tgt))
			l->stop = true;
		if (run->tick_ns && now >= l->tick_end) {
			uint64_t end = l->tick_end;

			l->tick_end = next_tick(l, run, now);
			if (run->tick(run->ctx, end))
				l->stop = true;
		}
	}
	/* A task's last slice is written as it switches out for the last
	 * time, which may be a moment after its parent saw it exit.
	 */
	if (cmd)
		nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	l->tick_end = UINT64_MAX;
	td_live_drain(l);
	td_live_progress_end(l);
}

bool td_want_progress(void)
{
	int out = orig_stdout_fd >= 0 ? orig_stdout_fd : STDOUT_FILENO;

	return !json_output && isatty(STDERR_FILENO) && isatty(out);
}

void td_live_progress(struct td_live *l)
{
	uint64_t now = td_now_ns();

	if (!l->progress || now - l->progress_ns < 500000000ull)
		return;
	l->progress_ns = now;
	fprintf(stderr, "\r%s: %.1f s, %llu records read, %llu kept, %llu lost ",
		bin_name, (now - l->start_ns) / 1e9,
		(unsigned long long)l->records_read,
		(unsigned long long)l->records_kept,
		(unsigned long long)l->lost_total);
	fflush(stderr);
}

void td_live_progress_end(struct td_live *l)
{
	if (l->progress && l->progress_ns != l->start_ns)
		fprintf(stderr, "\r\033[K");
	l->progress = false;
}

void td_live_close(struct td_live *l)
{
	td_live_progress_end(l);
	if (l->started && l->rd.fd >= 0) {
		int err = td_dev_stop(l->rd.fd);

		if (err && err != -EALREADY)
			p_warn("stopping the collection again: %s",
			       strerror(-err));
		l->started = false;
	}
	for (int cpu = 0; l->lost && cpu < l->rd.nr_cpus; cpu++)
		if (l->lost[cpu] && l->lost_counted)
			p_info("CPU %d: %llu %s lost (ring full or overwritten): the counts, the kernel's totals, have them",
			       cpu, (unsigned long long)l->lost[cpu],
			       td_records(l->lost[cpu]));
		else if (l->lost[cpu])
			p_warn("CPU %d: %llu %s lost (ring full or overwritten): the counts are low; see '%s load --ring-size'",
			       cpu, (unsigned long long)l->lost[cpu],
			       td_records(l->lost[cpu]), bin_name);
	free(l->lost);
	l->lost = NULL;
	free(l->vc);
	l->vc = NULL;
	if (l->rd.rings || l->rd.fd > 0)
		td_reader_close(&l->rd);
}

void td_cpu_description(char *buf, size_t n)
{
	static const char *const keys[] = {
		"model name", "CPU implementer", "CPU part", "CPU variant",
		"CPU revision",
	};
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	size_t pos = 0;
	bool seen[5] = { false };

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && pos < n) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			char *v = colon + 1;

			if (seen[k] || strncmp(line, keys[k], strlen(keys[k])))
				continue;
			seen[k] = true;
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			pos += snprintf(buf + pos, n - pos, "%s%s%s%s",
					pos ? ", " : "", k ? keys[k] : "",
					k ? " " : "", v);
		}
	}
	fclose(f);
}
