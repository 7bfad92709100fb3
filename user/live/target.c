// SPDX-License-Identifier: GPL-2.0
/*
 * Target selection and the command runner. See target.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/sched.h>	/* struct clone_args, CLONE_INTO_CGROUP */

#include "live/cgpath.h"
#include "live/target.h"
#include "base/common.h"

#define CGROUP_DEFAULT_MOUNT "/sys/fs/cgroup"

void td_target_init(struct td_target *t)
{
	memset(t, 0, sizeof(*t));
	t->kind = TD_TGT_ALL;
	t->child = -1;
	t->pidfd = -1;
}

/* -p PID[,PID..]: the one list parser (base/common.h), then what a
 * target needs: no idle task, processes that exist here.
 */
static int parse_pids(struct td_target *t, const char *opt, const char *s)
{
	uint64_t v[TD_TARGET_MAX_PIDS];
	int n = 0;

	if (parse_id_list(opt, "PID[,PID..]", s, 0x3fffffff, v,
			  TD_TARGET_MAX_PIDS - t->nr_pids, &n))
		return -1;
	for (int i = 0; i < n; i++) {
		if (!v[i]) {
			p_err("%s: pid 0 is the idle task, not a process", opt);
			return -1;
		}
		if (!t->file_pids && kill((pid_t)v[i], 0) && errno == ESRCH) {
			p_err("%s: no process %llu", opt,
			      (unsigned long long)v[i]);
			return -1;
		}
		t->pids[t->nr_pids++] = (uint32_t)v[i];
	}
	return 0;
}

int td_target_opt(struct td_target *t, int id, const char *arg)
{
	switch (id) {
	case TD_TARGET_ALL:
		if (t->kind == TD_TGT_PIDS)
			goto both;
		t->kind = TD_TGT_ALL;
		return 1;
	case TD_TARGET_PIDS:
		t->kind = TD_TGT_PIDS;
		return parse_pids(t, "--pid", arg) ? -1 : 1;
	case TD_TARGET_DURATION:
		return parse_seconds("--duration", arg, 86400 * 365,
				     &t->duration_ns) ? -1 : 1;
	}
	return 0;
both:
	p_err("-a and -p exclude each other");
	return -1;
}

int td_target_set_command(struct td_target *t, int argc, char **argv)
{
	if (argc <= 0)
		return 0;
	if (t->kind == TD_TGT_PIDS) {
		p_err("give either -p PID or a COMMAND, not both");
		return -1;
	}
	t->kind = TD_TGT_CMD;
	t->argv = argv;
	return 0;
}

void td_target_describe(const struct td_target *t, char *buf, size_t n)
{
	size_t pos;

	switch (t->kind) {
	case TD_TGT_ALL:
		snprintf(buf, n, "all tasks");
		return;
	case TD_TGT_PIDS:
		pos = snprintf(buf, n, "pid%s ", t->nr_pids > 1 ? "s" : "");
		for (int i = 0; i < t->nr_pids && pos < n; i++)
			pos += snprintf(buf + pos, n - pos, "%s%u", i ? "," : "",
					t->pids[i]);
		return;
	case TD_TGT_CMD:
		pos = snprintf(buf, n, "command:");
		for (char **a = t->argv; *a && pos < n; a++)
			pos += snprintf(buf + pos, n - pos, " %s", *a);
		return;
	}
}

/* ---- cgroup v2 -------------------------------------------------------- */

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t len = strlen(s), n;

	if (fd < 0)
		return -1;
	n = write(fd, s, len);
	if (n != len) {
		int e = n < 0 ? errno : EIO;

		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

/* Make tdctl-<pid> under the cgroup2 mount. false with the reason in why. */
static bool cgroup_create(struct td_target *t, char *why, size_t n)
{
	bool busy;
	struct stat st;

	if (!td_cgroup2_mount(t->cg_mount, sizeof(t->cg_mount), &busy)) {
		if (busy) {
			snprintf(why, n, "no cgroup2 mounted and %s is in use",
				 CGROUP_DEFAULT_MOUNT);
			return false;
		}
		if (mount("cgroup2", CGROUP_DEFAULT_MOUNT, "cgroup2",
			  MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
			snprintf(why, n, "mounting cgroup2 at %s: %s",
				 CGROUP_DEFAULT_MOUNT, strerror(errno));
			return false;
		}
		p_info("mounted cgroup2 at %s", CGROUP_DEFAULT_MOUNT);
		snprintf(t->cg_mount, sizeof(t->cg_mount), "%s",
			 CGROUP_DEFAULT_MOUNT);
	}
	snprintf(t->cg_dir, sizeof(t->cg_dir), "%s/tdctl-%d", t->cg_mount,
		 (int)getpid());
	if (mkdir(t->cg_dir, 0755) && (errno != EEXIST || rmdir(t->cg_dir) ||
				       mkdir(t->cg_dir, 0755))) {
		snprintf(why, n, "creating %s: %s", t->cg_dir, strerror(errno));
		return false;
	}
	/* A cgroup's id is its directory's inode number in cgroup2. */
	if (stat(t->cg_dir, &st)) {
		snprintf(why, n, "%s: %s", t->cg_dir, strerror(errno));
		rmdir(t->cg_dir);
		return false;
	}
	t->cg_id = st.st_ino;
	return true;
}

static bool cgroup_enter(struct td_target *t, pid_t pid, char *why, size_t n)
{
	char path[400], num[24];

	snprintf(path, sizeof(path), "%s/cgroup.procs", t->cg_dir);
	snprintf(num, sizeof(num), "%d", (int)pid);
	if (!write_file(path, num))
		return true;
	snprintf(why, n, "moving pid %d into %s: %s", (int)pid, t->cg_dir,
		 strerror(errno));
	return false;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

void td_target_cleanup(struct td_target *t)
{
	char path[400], parent[400], line[32];

	if (!t->use_cgroup)
		goto out;
	/* Exiting tasks leave the cgroup a moment after their parent saw
	 * them exit; survivors (daemons) are moved up.
	 */
	for (int tries = 0; tries < 100; tries++) {
		FILE *f;

		if (!rmdir(t->cg_dir) || errno != EBUSY)
			break;
		if (tries < 20) {
			sleep_ms(10);
			continue;
		}
		snprintf(path, sizeof(path), "%s/cgroup.procs", t->cg_dir);
		snprintf(parent, sizeof(parent), "%s/cgroup.procs", t->cg_mount);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			write_file(parent, line);
		}
		if (f)
			fclose(f);
		sleep_ms(10);
	}
	t->use_cgroup = false;
out:
	free(t->known);
	t->known = NULL;
	t->nknown = 0;
	t->capknown = 0;
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
}

/* ---- running the command ---------------------------------------------- */

/*
 * A child born in the cgroup at @dir (clone3()'s CLONE_INTO_CGROUP, Linux
 * 5.7), so that none of its slices is in another cgroup (the module's
 * totals keep a task's sums in the cgroup of its last slice); as fork()
 * returns, or -1 where the kernel cannot, with no child.
 */
static pid_t fork_into(const char *dir)
{
#ifdef SYS_clone3
	struct clone_args ca;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long pid;

	if (fd < 0)
		return -1;
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_INTO_CGROUP;
	ca.exit_signal = SIGCHLD;
	ca.cgroup = (__u64)fd;
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid)
		close(fd);
	return (pid_t)pid;
#else
	(void)dir;
	return -1;
#endif
}

int td_target_spawn(struct td_target *t)
{
	int go[2], res[2], err = 0;
	char why[512] = "";
	bool born_in;
	ssize_t n;

	if (t->kind != TD_TGT_CMD)
		return 0;
	t->use_cgroup = cgroup_create(t, why, sizeof(why));
	if (!t->use_cgroup)
		p_warn("no cgroup v2 for the command (%s): following its descendants through /proc, which misses those that exit quickly",
		       why);
	if (pipe2(go, O_CLOEXEC) || pipe2(res, O_CLOEXEC)) {
		p_err("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	t->child = t->use_cgroup ? fork_into(t->cg_dir) : -1;
	born_in = t->child >= 0;
	if (!born_in)
		t->child = fork();
	if (t->child < 0) {
		p_err("fork: %s", strerror(errno));
		return -1;
	}
	if (t->child == 0) {
		char c;

		close(go[1]);
		close(res[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		if (orig_stdout_fd >= 0)
			dup2(orig_stdout_fd, STDOUT_FILENO);
		/* Wait until the parent has put us into the cgroup. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(t->argv[0], t->argv);
		err = errno;
		n = write(res[1], &err, sizeof(err));
		(void)n;
		_exit(127);
	}
	close(go[0]);
	close(res[1]);
#ifdef SYS_pidfd_open
	t->pidfd = (int)syscall(SYS_pidfd_open, t->child, 0);
#endif
	if (t->use_cgroup && !born_in &&
	    !cgroup_enter(t, t->child, why, sizeof(why))) {
		p_warn("%s: following the command's descendants through /proc",
		       why);
		rmdir(t->cg_dir);
		t->use_cgroup = false;
	}
	if (write(go[1], "g", 1) != 1)
		err = errno;
	close(go[1]);
	/* The pipe closes on exec; otherwise it carries exec's errno. */
	do {
		n = read(res[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(res[0]);
	if (n == (ssize_t)sizeof(err)) {
		while (waitpid(t->child, &t->status, 0) < 0 && errno == EINTR)
			;
		t->exited = true;
		t->status = (err == ENOENT ? 127 : 126) << 8;
		p_err("cannot run '%s': %s", t->argv[0], strerror(err));
		return -1;
	}
	return 0;
}

int td_target_fd(const struct td_target *t)
{
	return t->exited ? -1 : t->pidfd;
}

bool td_target_done(struct td_target *t)
{
	int alive = 0;

	switch (t->kind) {
	case TD_TGT_ALL:
		return false;
	case TD_TGT_PIDS:
		for (int i = 0; i < t->nr_pids; i++)
			if (!kill((pid_t)t->pids[i], 0) || errno != ESRCH)
				alive++;
		return !alive;
	case TD_TGT_CMD:
		if (!t->exited && t->child > 0 &&
		    waitpid(t->child, &t->status, WNOHANG) == t->child)
			t->exited = true;
		return t->exited;
	}
	return false;
}

int td_target_exit_code(const struct td_target *t)
{
	if (WIFSIGNALED(t->status))
		return 128 + WTERMSIG(t->status);
	return WEXITSTATUS(t->status);
}

void td_target_kill(struct td_target *t, int sig)
{
	if (t->kind == TD_TGT_CMD && t->child > 0 && !t->exited)
		kill(t->child, sig);
}

/* ---- matching --------------------------------------------------------- */

/* The parent of a process from /proc/PID/stat, or 0. */
static uint32_t parent_of(uint32_t pid)
{
	char path[64], buf[512], *p;
	unsigned int ppid = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* pid (comm) state ppid: comm may hold spaces and parentheses. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %u", &ppid) != 1)
		return 0;
	return ppid;
}

static bool descends_from_child(struct td_target *t, uint32_t tgid)
{
	struct td_known_tgid *k;
	uint32_t p = tgid;
	bool in = false;

	for (size_t i = 0; i < t->nknown; i++)
		if (t->known[i].tgid == tgid)
			return t->known[i].in;
	for (int depth = 0; p > 1 && depth < 64; depth++) {
		if (p == (uint32_t)t->child) {
			in = true;
			break;
		}
		p = parent_of(p);
	}
	if (t->nknown == t->capknown) {
		size_t cap = t->capknown ? 2 * t->capknown : 64;

		k = realloc(t->known, cap * sizeof(*k));
		if (!k)
			return in;
		t->known = k;
		t->capknown = cap;
	}
	t->known[t->nknown++] = (struct td_known_tgid){ tgid, in };
	return in;
}

bool td_target_match(struct td_target *t, const struct topdown_record *r)
{
	switch (t->kind) {
	case TD_TGT_ALL:
		return true;
	case TD_TGT_PIDS:
		for (int i = 0; i < t->nr_pids; i++)
			if (r->tgid == t->pids[i] || r->pid == t->pids[i])
				return true;
		return false;
	case TD_TGT_CMD:
		if (t->use_cgroup)
			return r->cgroup_id == t->cg_id;
		if (!r->tgid)
			return false;
		return r->tgid == (uint32_t)t->child ||
		       descends_from_child(t, r->tgid);
	}
	return false;
}
