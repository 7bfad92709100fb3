// SPDX-License-Identifier: GPL-2.0
/*
 * td_touch COMM PAGES [COMM2 PAGES2]: name itself COMM and touch PAGES
 * fresh anonymous pages (one page fault each, huge pages off), then, with
 * COMM2, fork a child that names itself COMM2 and touches PAGES2 pages,
 * and wait for it. The page faults of each are a fixed count, whatever
 * the host's load: tdctl_stat_test.sh checks how tdctl stat attributes
 * them (page-faults, a software event) in guests without an exact
 * hardware counter.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int touch(const char *comm, long pages)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	if (prctl(PR_SET_NAME, comm, 0, 0, 0))
		return -1;
	p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	madvise(p, pages * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		p[i * page] = 1;
	return munmap(p, pages * page);
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if ((argc != 3 && argc != 5) || atol(argv[2]) <= 0 ||
	    (argc == 5 && atol(argv[4]) <= 0)) {
		fprintf(stderr, "usage: td_touch COMM PAGES [COMM2 PAGES2]\n");
		return 2;
	}
	if (touch(argv[1], atol(argv[2]))) {
		perror("td_touch");
		return 1;
	}
	if (argc == 3)
		return 0;
	pid = fork();
	if (pid < 0) {
		perror("td_touch: fork");
		return 1;
	}
	if (!pid)
		_exit(touch(argv[3], atol(argv[4])) ? 1 : 0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}
