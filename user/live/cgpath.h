/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 paths of cgroup ids, on the live system.
 *
 * A record carries its task's cgroup id: in cgroup v2, the inode number
 * of the cgroup's directory under the cgroup2 mount. The first lookup
 * walks that mount once and maps every directory's inode number to its
 * path relative to the mount ("/", "/system.slice/foo.service",
 * "/tdctl-123"); a later miss walks it again, at most once a second, so
 * that cgroups created since are found. Entries are never dropped: a
 * cgroup removed after a walk keeps its path (stat's own cgroup is gone
 * when the table is printed). Ids from another machine or boot (a record
 * file) must not be looked up here: the caller shows the id instead.
 */
#ifndef TDCTL_CGPATH_H
#define TDCTL_CGPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The cgroup2 mount point from /proc/self/mountinfo: true and its path in
 * mnt, or false. *default_busy says whether something else is mounted at
 * /sys/fs/cgroup.
 */
bool td_cgroup2_mount(char *mnt, size_t n, bool *default_busy);

/* The id of the cgroup2 root (its inode number), the idle tasks'
 * cgroup: 1 without cgroup2.
 */
uint64_t td_cgroup_root_id(void);

/* The path of cgroup id, or NULL when it cannot be resolved (no cgroup2,
 * no such directory). The string lives until td_cgroup_paths_free().
 */
const char *td_cgroup_path(uint64_t id);
/* Walk the cgroup2 mount now (e.g. while a cgroup about to be removed
 * still exists). Quietly does nothing without cgroup2.
 */
void td_cgroup_paths_refresh(void);
void td_cgroup_paths_free(void);

#endif
