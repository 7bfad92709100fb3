// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of user/live/cgpath.c on this machine's cgroup2 mount: the
 * root and our own cgroup resolve to their paths, a cgroup made after
 * the first walk is found by the next and keeps its path once removed,
 * an unknown id does not resolve. Prints TAP; skips what this machine
 * does not allow (no cgroup2, a read-only cgroup2).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/cgpath.h"
#include "tap.h"

static bool own_cgroup(char *buf, size_t n)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[4096];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, n, "%s", line + 3);
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

static unsigned long long ino(const char *mnt, const char *rel)
{
	char path[4600];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", mnt, strcmp(rel, "/") ? rel : "");
	return stat(path, &st) ? 0 : (unsigned long long)st.st_ino;
}

int main(void)
{
	char mnt[512], own[4096], dir[700], rel[64];
	const char *p;
	bool busy;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!td_cgroup2_mount(mnt, sizeof(mnt), &busy)) {
		printf("1..0 # SKIP no cgroup2 mounted here\n");
		return 0;
	}
	p = td_cgroup_path(ino(mnt, "/"));
	ok(p && !strcmp(p, "/"), "the cgroup2 root (%s) is \"/\" (got %s)",
	   mnt, p ? p : "NULL");
	if (own_cgroup(own, sizeof(own)) && ino(mnt, own)) {
		p = td_cgroup_path(ino(mnt, own));
		ok(p && !strcmp(p, own), "our own cgroup resolves to %s (got %s)",
		   own, p ? p : "NULL");
	} else {
		ok(true, "# SKIP our cgroup is not under %s (a cgroup namespace?)",
		   mnt);
	}
	p = td_cgroup_path(0xfffffffffffull);
	ok(!p, "an unknown id does not resolve (got %s)", p ? p : "NULL");

	snprintf(rel, sizeof(rel), "/td-cgpath-test-%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s%s", mnt, rel);
	if (mkdir(dir, 0755)) {
		ok(true, "# SKIP cannot make a cgroup under %s", mnt);
	} else {
		unsigned long long id = ino(mnt, rel);

		td_cgroup_paths_refresh();
		p = td_cgroup_path(id);
		ok(p && !strcmp(p, rel), "a new cgroup is found by the next walk: %s (got %s)",
		   rel, p ? p : "NULL");
		rmdir(dir);
		td_cgroup_paths_refresh();
		p = td_cgroup_path(id);
		ok(p && !strcmp(p, rel), "a removed cgroup keeps its path (got %s)",
		   p ? p : "NULL");
	}
	td_cgroup_paths_free();
	return tap_done();
}
