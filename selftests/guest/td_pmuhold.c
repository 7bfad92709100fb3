// SPDX-License-Identifier: GPL-2.0
/*
 * td_pmuhold CPU: hold every general-purpose counter of CPU with pinned
 * CPU-wide instructions events, the way the NMI watchdog, perf stat -a
 * with :D or a guest's vPMU hold them, until killed.
 *
 * Opens pinned events until one lands in error (read() returns 0 for a
 * pinned event perf could not schedule), closes that one, prints
 * "held N" and sleeps. Exits 1 with "held 0" when there is no hardware
 * PMU (the event is refused).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	int cpu = argc > 1 ? atoi(argv[1]) : 0, n = 0;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.pinned = 1;
	for (;;) {
		int fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0);
		uint64_t v;

		if (fd < 0) {
			printf("held 0 (%s)\n", strerror(errno));
			return 1;
		}
		if (read(fd, &v, sizeof(v)) == 0) {
			close(fd);
			break;
		}
		if (++n > 64) {
			printf("held 0 (no count of events filled the PMU)\n");
			return 1;
		}
	}
	printf("held %d\n", n);
	fflush(stdout);
	for (;;)
		pause();
}
