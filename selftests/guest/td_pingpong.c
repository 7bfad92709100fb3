// SPDX-License-Identifier: GPL-2.0
/*
 * td_pingpong N: N round trips of one byte between two processes over two
 * pipes, both on CPU 0: at least two context switches per round, so the
 * tdctl suites can fill and wrap a ring quickly.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	int ab[2], ba[2];
	cpu_set_t set;
	char c = 0;
	pid_t pid;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (n <= 0 || sched_setaffinity(0, sizeof(set), &set) ||
	    pipe(ab) || pipe(ba)) {
		perror("td_pingpong");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		if (pid == 0) {
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		} else if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
			return 1;
		}
	}
	if (pid == 0)
		_exit(0);
	return waitpid(pid, NULL, 0) == pid ? 0 : 1;
}
