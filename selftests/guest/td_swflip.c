// SPDX-License-Identifier: GPL-2.0
/*
 * td_swflip: reproduce the QEMU TCG text-patching failure without topdown.
 *
 *   td_swflip N [software|tracepoint]
 *
 * Opens and closes one CPU-wide perf event N times, alternating CPUs 0
 * and 1, and prints its progress every 1000 rounds:
 *   software    context-switches: each round flips the jump label
 *               perf_swevent_enabled[PERF_COUNT_SW_CONTEXT_SWITCHES]
 *               on and off (its sites include one in __schedule()),
 *               unless something else holds the event (td_keyhold).
 *   tracepoint  sched:sched_switch: each round adds and removes perf's
 *               probe on that tracepoint; with the trace event enabled as
 *               the only other probe, that switches the inline static call
 *               in __schedule() between direct and iterator.
 * Documentation/testing.rst has what was measured with it.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "td_common.h"

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	time_t t0 = time(NULL);
	char *end;
	long n;

	n = argc >= 2 ? strtol(argv[1], &end, 10) : 0;
	if (argc < 2 || argc > 3 || n <= 0 || *end) {
		fprintf(stderr, "usage: td_swflip N [software|tracepoint]\n");
		return 2;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	if (argc == 3 && !strcmp(argv[2], "tracepoint")) {
		long id = td_sched_switch_id();

		if (id < 0) {
			fprintf(stderr, "td_swflip: no sched:sched_switch id in tracefs\n");
			return 1;
		}
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = id;
	} else if (argc == 3 && strcmp(argv[2], "software")) {
		fprintf(stderr, "td_swflip: unknown kind '%s'\n", argv[2]);
		return 2;
	}
	for (long i = 0; i < n; i++) {
		int fd = syscall(SYS_perf_event_open, &a, -1, (int)(i & 1), -1, 0);

		if (fd < 0) {
			perror("td_swflip: perf_event_open");
			return 1;
		}
		close(fd);
		if (i % 1000 == 0) {
			printf("round %ld, %ld s\n", i, (long)(time(NULL) - t0));
			fflush(stdout);
		}
	}
	printf("%ld rounds in %ld s\n", n, (long)(time(NULL) - t0));
	return 0;
}
