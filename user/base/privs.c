// SPDX-License-Identifier: GPL-2.0
/* Dropping root and every capability (see privs.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/common.h"
#include "base/privs.h"

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

int td_user_parse(const char *opt, const char *spec, struct td_user *u)
{
	char user[64], *colon;
	const char *group = NULL;
	struct passwd *pw;
	struct group *gr;
	unsigned long long v;

	if (strlen(spec) >= sizeof(user)) {
		p_err("%s: '%s' is too long", opt, spec);
		return -1;
	}
	strcpy(user, spec);
	colon = strchr(user, ':');
	if (colon) {
		*colon = '\0';
		group = colon + 1;
	}
	if (!*user || (group && !*group)) {
		p_err("%s: expected USER[:GROUP], not '%s'", opt, spec);
		return -1;
	}
	memset(u, 0, sizeof(*u));
	pw = getpwnam(user);
	if (pw) {
		u->uid = pw->pw_uid;
		u->gid = pw->pw_gid;
	} else if (all_digits(user) && !parse_u64(opt, user, 0x7ffffffe, &v)) {
		pw = getpwuid((uid_t)v);
		u->uid = (uid_t)v;
		u->gid = pw ? pw->pw_gid : (gid_t)v;
	} else {
		p_err("%s: no user '%s'", opt, user);
		return -1;
	}
	if (group) {
		gr = getgrnam(group);
		if (gr) {
			u->gid = gr->gr_gid;
		} else if (all_digits(group) &&
			   !parse_u64(opt, group, 0x7ffffffe, &v)) {
			u->gid = (gid_t)v;
		} else {
			p_err("%s: no group '%s'", opt, group);
			return -1;
		}
	}
	if (u->uid == 0 || u->gid == 0) {
		p_err("%s: '%s' is root's: name an unprivileged user", opt, spec);
		return -1;
	}
	snprintf(u->name, sizeof(u->name), "%s", spec);
	return 0;
}

int td_user_default(const char *const *names, struct td_user *u)
{
	for (; *names; names++) {
		struct passwd *pw = getpwnam(*names);

		if (pw && pw->pw_uid && pw->pw_gid) {
			u->uid = pw->pw_uid;
			u->gid = pw->pw_gid;
			snprintf(u->name, sizeof(u->name), "%s", *names);
			return 0;
		}
	}
	return -1;
}

/* The capability sets of /proc/self/status: true if all are empty. */
static bool caps_empty(char *why, size_t n)
{
	static const char *const keys[] = {
		"CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:",
	};
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int seen = 0;
	bool empty = true;

	if (!f) {
		snprintf(why, n, "cannot read /proc/self/status: %s",
			 strerror(errno));
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			if (strncmp(line, keys[i], strlen(keys[i])))
				continue;
			seen++;
			if (strtoull(line + strlen(keys[i]), NULL, 16)) {
				snprintf(why, n, "%.*s is not 0", (int)strlen(keys[i]) - 1,
					 keys[i]);
				empty = false;
			}
		}
	}
	fclose(f);
	if (seen != 5 && empty) {
		snprintf(why, n, "/proc/self/status lacks capability lines");
		return false;
	}
	return empty;
}

bool td_privileged(void)
{
	char why[128];

	return !geteuid() || !getuid() || !caps_empty(why, sizeof(why));
}

int td_drop_privileges(const struct td_user *u)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };
	char why[128];
	uid_t r, e, s;
	bool root = !geteuid();

	/* The bounding set first: it takes CAP_SETPCAP, which goes next.
	 * A process that is not root and lacks CAP_SETPCAP cannot empty it
	 * (the check below says so).
	 */
	for (int c = 0; prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL &&
		    (root || errno != EPERM)) {
			p_err("cannot drop capability %d from the bounding set: %s",
			      c, strerror(errno));
			return -1;
		}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if ((setgroups(0, NULL) && (root || errno != EPERM)) ||
	    setresgid(u->gid, u->gid, u->gid) ||
	    setresuid(u->uid, u->uid, u->uid)) {
		p_err("cannot become %s (uid %u, gid %u): %s", u->name,
		      (unsigned int)u->uid, (unsigned int)u->gid,
		      strerror(errno));
		return -1;
	}
	/* setresuid() away from 0 clears the permitted and effective sets;
	 * a process that was not root clears its own.
	 */
	if (syscall(SYS_capset, &hdr, data) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		p_err("cannot clear the capabilities: %s", strerror(errno));
		return -1;
	}
	if (getresuid(&r, &e, &s) || r != u->uid || e != u->uid || s != u->uid ||
	    !caps_empty(why, sizeof(why))) {
		p_err("privileges still held after the drop to %s: %s", u->name,
		      why);
		return -1;
	}
	return 0;
}
