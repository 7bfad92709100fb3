// SPDX-License-Identifier: GPL-2.0
/* Dropping root and every capability that can be dropped (see privs.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdint.h>
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

/* The capability sets and no_new_privs, as /proc/self/status shows them
 * (the kernel's view, whatever the calls that changed them returned).
 */
enum { CS_INH, CS_PRM, CS_EFF, CS_BND, CS_AMB, CS_NR };

struct caps {
	uint64_t set[CS_NR];
	bool nnp;
};

static const char *const cs_key[CS_NR] = {
	"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
};

static const char *const cs_name[CS_NR] = {
	"inheritable", "permitted", "effective", "bounding", "ambient",
};

/* capabilities(7)'s names, by number (linux/capability.h). */
static const char *const cap_name[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER",
	"CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP",
	"CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST",
	"CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
	"CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
	"CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD",
	"CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP",
	"CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
};

/* A capability's name; "capability N" for one newer than this table. */
static const char *cap_str(int cap, char *buf, size_t n)
{
	if (cap < (int)(sizeof(cap_name) / sizeof(cap_name[0])))
		return cap_name[cap];
	snprintf(buf, n, "capability %d", cap);
	return buf;
}

/* 0, or -1 with why. */
static int caps_read(struct caps *c, char *why, size_t n)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned int seen = 0, all = (1u << (CS_NR + 1)) - 1;
	char line[256], *colon;

	if (!f) {
		snprintf(why, n, "cannot read /proc/self/status: %s",
			 strerror(errno));
		return -1;
	}
	memset(c, 0, sizeof(*c));
	while (fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon++ = '\0';
		for (int i = 0; i < CS_NR; i++) {
			if (!strcmp(line, cs_key[i])) {
				c->set[i] = strtoull(colon, NULL, 16);
				seen |= 1u << i;
			}
		}
		if (!strcmp(line, "NoNewPrivs")) {
			c->nnp = strtoul(colon, NULL, 10) == 1;
			seen |= 1u << CS_NR;
		}
	}
	fclose(f);
	if (seen != all) {
		snprintf(why, n, "/proc/self/status lacks a capability set or NoNewPrivs");
		return -1;
	}
	return 0;
}

/* Each capability of the sets in mask (bits 1 << CS_*), by name, with
 * the sets that hold it: "CAP_NET_RAW (permitted, effective)".
 */
static void caps_describe(const struct caps *c, unsigned int mask,
			  char *buf, size_t n)
{
	size_t len = 0;
	char num[32];

	buf[0] = '\0';
	for (int cap = 0; cap < 64 && len < n; cap++) {
		const char *sep = " (";
		bool any = false;

		for (int i = 0; i < CS_NR; i++)
			any |= (mask >> i & 1) && (c->set[i] >> cap & 1);
		if (!any)
			continue;
		len += snprintf(buf + len, n - len, "%s%s", len ? "; " : "",
				cap_str(cap, num, sizeof(num)));
		for (int i = 0; i < CS_NR && len < n; i++) {
			if (!((mask >> i & 1) && (c->set[i] >> cap & 1)))
				continue;
			len += snprintf(buf + len, n - len, "%s%s", sep,
					cs_name[i]);
			sep = ", ";
		}
		if (len < n)
			len += snprintf(buf + len, n - len, ")");
	}
}

bool td_privileged(void)
{
	struct caps c;
	char why[128];

	return !geteuid() || !getuid() || caps_read(&c, why, sizeof(why)) ||
	       c.set[CS_PRM] || c.set[CS_EFF] || c.set[CS_AMB];
}

int td_drop_privileges(const struct td_user *u)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };
	/* What must be empty after the drop: every set for root; for
	 * another user what it could use (inheritable and bounding are
	 * harmless with no_new_privs, checked below).
	 */
	unsigned int held = 1u << CS_PRM | 1u << CS_EFF | 1u << CS_AMB;
	int capset_err = 0, nnp_err = 0;
	bool root = !geteuid();
	char why[128], desc[1024];
	uid_t r, e, s;
	struct caps c;

	if (root)
		held |= 1u << CS_INH | 1u << CS_BND;
	/* The bounding set first: it takes CAP_SETPCAP, which goes next.
	 * A process that is not root and lacks CAP_SETPCAP cannot empty it
	 * (EPERM): it keeps it, and no_new_privs makes it harmless.
	 */
	for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++) {
		if (!prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) || errno == EINVAL ||
		    (!root && errno == EPERM))
			continue;
		p_err("cannot drop %s from the bounding set: %s",
		      cap_str(cap, desc, sizeof(desc)), strerror(errno));
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
	 * a process that was not root clears its own. Which of them stay
	 * is told from what the kernel shows, below.
	 */
	if (syscall(SYS_capset, &hdr, data))
		capset_err = errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		nnp_err = errno;
	if (getresuid(&r, &e, &s) || r != u->uid || e != u->uid ||
	    s != u->uid) {
		p_err("privileges still held after the drop to %s: uid %u, euid %u, saved uid %u",
		      u->name, (unsigned int)r, (unsigned int)e,
		      (unsigned int)s);
		return -1;
	}
	if (caps_read(&c, why, sizeof(why))) {
		p_err("cannot check the drop to %s: %s", u->name, why);
		return -1;
	}
	for (int i = 0; i < CS_NR; i++) {
		if (!((held >> i & 1) && c.set[i]))
			continue;
		caps_describe(&c, held, desc, sizeof(desc));
		if (capset_err)
			p_err("cannot drop %s as %s: capset: %s", desc,
			      u->name, strerror(capset_err));
		else
			p_err("cannot drop %s as %s: still held after capset",
			      desc, u->name);
		return -1;
	}
	if (!c.nnp) {
		p_err("cannot set no_new_privs as %s: %s", u->name,
		      nnp_err ? strerror(nnp_err) : "not set after prctl");
		return -1;
	}
	/* Kept, and said: what a user without CAP_SETPCAP cannot drop. */
	if (c.set[CS_BND])
		p_info("as %s, %d capabilities stay in the bounding set (dropping them needs CAP_SETPCAP): harmless with no_new_privs, no exec can gain them",
		       u->name, __builtin_popcountll(c.set[CS_BND]));
	if (c.set[CS_INH]) {
		caps_describe(&c, 1u << CS_INH, desc, sizeof(desc));
		p_info("as %s, %s stays (capset: %s): harmless with no_new_privs, no exec can gain it",
		       u->name, desc, capset_err ? strerror(capset_err) :
		       "held after it");
	}
	return 0;
}
