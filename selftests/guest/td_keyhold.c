// SPDX-License-Identifier: GPL-2.0
/*
 * td_keyhold: keep kernel text in __schedule() from being patched, then sleep.
 *
 * Test-guest helper for x86-64 under QEMU TCG (see guest_common.sh, which
 * also keeps the sched_switch trace event enabled). Two kinds of change
 * rewrite code in __schedule() through text_poke_bp(), and QEMU 7.2's TCG
 * sometimes keeps running the int3 that text_poke_bp() writes in between:
 * the guest dies ("int3: 0000 [#1]" in __schedule) or spins forever.
 *
 * - Every software event other than cpu-clock and task-clock takes a
 *   reference on the jump label perf_swevent_enabled[config] when it is
 *   created and drops it when it is freed (kernel/events/core.c,
 *   perf_swevent_init() and sw_perf_event_destroy()); the first reference
 *   and the last drop patch each perf_sw_event() site.
 * - A tracepoint's call sites are inline static calls (x86-64,
 *   HAVE_STATIC_CALL_INLINE): with one probe they call it directly, with
 *   two or more they call the iterator (kernel/tracepoint.c,
 *   tracepoint_update_call()). So with the trace event as the only other
 *   probe, adding and removing the module's sched_switch probe patches the
 *   call in __schedule() at every START and STOP; from two probes up it
 *   stays the iterator and nothing is patched.
 *
 * So it holds one disabled CPU-wide event of each such software config and
 * one perf tracepoint event on sched:sched_switch (perf's probe is the
 * second one).
 *
 * Forks: the child holds the events and sleeps until killed, in a session
 * of its own with its output on /dev/null; the parent prints how many
 * events the child holds and exits, 0 if it holds any, 1 if none.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "td_common.h"

/* Past the last config this kernel knows, perf_event_open() says ENOENT. */
#define TD_KEYHOLD_MAX_CONFIG 64

static int hold_all(void)
{
	struct perf_event_attr a;
	int held = 0;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.disabled = 1;
	for (int c = 0; c < TD_KEYHOLD_MAX_CONFIG; c++) {
		/* The clocks are hrtimer events: no jump label to hold. */
		if (c == PERF_COUNT_SW_CPU_CLOCK || c == PERF_COUNT_SW_TASK_CLOCK)
			continue;
		a.config = c;
		if (syscall(SYS_perf_event_open, &a, -1, 0, -1, 0) >= 0)
			held++;
		else if (errno != ENOENT && errno != EINVAL)
			fprintf(stderr, "td_keyhold: software event %d: %s\n",
				c, strerror(errno));
	}
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = td_sched_switch_id();
	if (a.config != (__u64)-1 &&
	    syscall(SYS_perf_event_open, &a, -1, 0, -1, 0) >= 0)
		held++;
	else
		fprintf(stderr, "td_keyhold: no perf event on sched:sched_switch: %s\n",
			a.config == (__u64)-1 ? "no tracefs" : strerror(errno));
	return held;
}

int main(void)
{
	int p[2], held = 0, nul;
	pid_t pid;

	if (pipe(p)) {
		perror("td_keyhold");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("td_keyhold");
		return 1;
	}
	if (pid) {
		close(p[1]);
		if (read(p[0], &held, sizeof(held)) != sizeof(held))
			held = 0;
		printf("%d\n", held);
		return held ? 0 : 1;
	}
	close(p[0]);
	setsid();
	held = hold_all();
	nul = open("/dev/null", O_RDWR);
	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
		close(nul);
	}
	if (write(p[1], &held, sizeof(held)) != sizeof(held) || !held)
		return 1;
	close(p[1]);
	for (;;)
		pause();
}
