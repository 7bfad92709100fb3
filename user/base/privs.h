/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Giving up privileges for good once what needs them is open: another
 * user and group, no supplementary groups, no capabilities (effective,
 * permitted, inheritable, ambient and the bounding set), no_new_privs.
 */
#ifndef TDCTL_PRIVS_H
#define TDCTL_PRIVS_H

#include <stdbool.h>
#include <sys/types.h>

struct td_user {
	uid_t uid;
	gid_t gid;
	char name[64];
};

/*
 * USER[:GROUP], each a name or a number; without GROUP the user's
 * primary group (a number without a passwd entry: the same number).
 * 0 or -1 after p_err(). root (uid 0) is refused: it is not a drop.
 */
int td_user_parse(const char *opt, const char *spec, struct td_user *u);
/* The first of the names that exists (NULL-terminated list): 0, or -1. */
int td_user_default(const char *const *names, struct td_user *u);
/* Become u with no capabilities left; then check that it holds (the
 * kernel's view in /proc/self/status). 0 or -1 after p_err().
 */
int td_drop_privileges(const struct td_user *u);
/* Does this process hold any capability or root's uid? */
bool td_privileged(void);

#endif
