/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Giving up privileges for good once what needs them is open: another
 * user and group, no supplementary groups, no capabilities (effective,
 * permitted, inheritable, ambient and the bounding set), no_new_privs.
 *
 * A process that is not root cannot drop its bounding set without
 * CAP_SETPCAP (a user's login shell has it full): that set, and the
 * inheritable one, are then kept, which no_new_privs makes harmless (no
 * exec can gain a capability from them); the sets it could use
 * (permitted, effective, ambient) must still end empty.
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
/* Become u with no capabilities left and no_new_privs; then check that
 * it holds (the kernel's view in /proc/self/status). 0, after p_info()
 * of what a user without CAP_SETPCAP keeps; or -1 after p_err() naming
 * each capability left and the set holding it (for root: any, in any
 * set; for another user: permitted, effective or ambient).
 */
int td_drop_privileges(const struct td_user *u);
/* Does this process hold root's uid or a capability it can use
 * (permitted, effective, ambient)?
 */
bool td_privileged(void);

#endif
