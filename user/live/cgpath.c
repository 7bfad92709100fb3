// SPDX-License-Identifier: GPL-2.0
/* cgroup v2 paths of cgroup ids (see cgpath.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "base/common.h"
#include "live/cgpath.h"

#define CGROUP_DEFAULT_MOUNT "/sys/fs/cgroup"

struct cg_entry {
	uint64_t id;
	char *path;
};

static struct cg_entry *cg_map;
static size_t cg_n, cg_cap;
static double cg_last_walk = -1;	/* CLOCK_MONOTONIC seconds, -1: never */
static size_t cg_mount_len;

bool td_cgroup2_mount(char *mnt, size_t n, bool *default_busy)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	bool found = false;

	*default_busy = false;
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - "), *point, *save = NULL;

		if (!sep)
			continue;
		/* id parent major:minor root mount-point ... */
		strtok_r(line, " ", &save);
		for (int i = 0; i < 3; i++)
			strtok_r(NULL, " ", &save);
		point = strtok_r(NULL, " ", &save);
		if (!point)
			continue;
		if (!strcmp(point, CGROUP_DEFAULT_MOUNT))
			*default_busy = true;
		if (!strncmp(sep + 3, "cgroup2 ", 8)) {
			snprintf(mnt, n, "%s", point);
			found = true;
		}
	}
	fclose(f);
	return found;
}

uint64_t td_cgroup_root_id(void)
{
	char mnt[256];
	struct stat st;
	bool busy;

	if (td_cgroup2_mount(mnt, sizeof(mnt), &busy) && !stat(mnt, &st))
		return st.st_ino;
	return 1;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct cg_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static struct cg_entry *find(uint64_t id)
{
	struct cg_entry key = { id, NULL };

	return cg_n ? bsearch(&key, cg_map, cg_n, sizeof(*cg_map), cmp_entry) :
		      NULL;
}

/* nftw() callback: append every directory; refresh() sorts and drops the
 * ids already known.
 */
static int add_dir(const char *fpath, const struct stat *sb, int type,
		   struct FTW *ftw)
{
	const char *rel = fpath + cg_mount_len;
	struct cg_entry *e;

	(void)ftw;
	if (type != FTW_D)
		return 0;
	if (cg_n == cg_cap) {
		size_t cap = cg_cap ? 2 * cg_cap : 64;
		struct cg_entry *m = realloc(cg_map, cap * sizeof(*m));

		if (!m)
			return 1;	/* out of memory: stop, keep what we have */
		cg_map = m;
		cg_cap = cap;
	}
	e = &cg_map[cg_n];
	e->id = sb->st_ino;
	e->path = strdup(*rel ? rel : "/");
	if (!e->path)
		return 1;
	cg_n++;
	return 0;
}

/* Sort by id and keep one entry per id: the one known before the walk
 * (entries [0, old) are sorted and unique; an id is not reused while the
 * system runs).
 */
static void sort_unique(size_t old)
{
	size_t out = 0;

	for (size_t i = old; i < cg_n; i++)
		if (old && bsearch(&cg_map[i], cg_map, old, sizeof(*cg_map),
				   cmp_entry)) {
			free(cg_map[i].path);
			cg_map[i].path = NULL;
		}
	qsort(cg_map, cg_n, sizeof(*cg_map), cmp_entry);
	for (size_t i = 0; i < cg_n; i++) {
		if (!cg_map[i].path)
			continue;
		if (out && cg_map[out - 1].id == cg_map[i].id) {
			free(cg_map[i].path);
			continue;
		}
		cg_map[out++] = cg_map[i];
	}
	cg_n = out;
}

void td_cgroup_paths_refresh(void)
{
	char mnt[512];
	size_t old;
	bool busy;

	cg_last_walk = td_now_ns() / 1e9;
	if (!td_cgroup2_mount(mnt, sizeof(mnt), &busy))
		return;
	cg_mount_len = strlen(mnt);
	if (cg_mount_len == 1)	/* mounted at "/": paths keep their slash */
		cg_mount_len = 0;
	/* Directories only, this file system only, no symlinks followed. */
	old = cg_n;
	nftw(mnt, add_dir, 16, FTW_PHYS | FTW_MOUNT);
	sort_unique(old);
}

const char *td_cgroup_path(uint64_t id)
{
	struct cg_entry *e = find(id);

	if (!e && (cg_last_walk < 0 || td_now_ns() / 1e9 - cg_last_walk >= 1.0)) {
		td_cgroup_paths_refresh();
		e = find(id);
	}
	return e ? e->path : NULL;
}

void td_cgroup_paths_free(void)
{
	for (size_t i = 0; i < cg_n; i++)
		free(cg_map[i].path);
	free(cg_map);
	cg_map = NULL;
	cg_n = 0;
	cg_cap = 0;
	cg_last_walk = -1;
}
