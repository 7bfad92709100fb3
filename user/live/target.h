/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What stat, record and top count: every task (-a), some processes
 * (-p PID[,PID..]) or a command and all its descendants (-- COMMAND).
 *
 * A command runs in a cgroup v2 of its own (tdctl-<pid> under the cgroup2
 * mount, mounted at /sys/fs/cgroup first if no cgroup2 is mounted):
 * descendants inherit it and every record carries the cgroup id, so even
 * children that live a microsecond are counted. Without cgroup v2, the
 * processes are found through /proc parent links when their records are
 * read, which misses descendants that exited (or were re-parented) by
 * then; the command's own process is always counted.
 */
#ifndef TDCTL_TARGET_H
#define TDCTL_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/topdown.h>

#define TD_TARGET_MAX_PIDS	64

enum td_target_kind { TD_TGT_ALL, TD_TGT_PIDS, TD_TGT_CMD };

struct td_known_tgid {
	uint32_t tgid;
	bool in;
};

struct td_target {
	enum td_target_kind kind;
	unsigned long long duration_ns;	/* --duration, 0: none */
	uint32_t pids[TD_TARGET_MAX_PIDS];
	int nr_pids;
	bool file_pids;			/* -p names processes of a record
					 * file: not looked up on this system
					 */
	char **argv;			/* TD_TGT_CMD */
	pid_t child;
	int pidfd;			/* readable when the child exits, or -1 */
	bool exited;
	int status;			/* waitpid() status */
	/* cgroup v2 */
	bool use_cgroup;
	char cg_mount[256];
	char cg_dir[320];
	uint64_t cg_id;
	/* /proc fallback: tgids already classified */
	struct td_known_tgid *known;
	size_t nknown, capknown;
};

/* The ids td_target_opt() takes: -a, -p, --duration (the CLI's
 * TD_OPT_ALL, TD_OPT_PIDS, TD_OPT_DURATION).
 */
enum { TD_TARGET_ALL = 'a', TD_TARGET_PIDS = 'p', TD_TARGET_DURATION = 'D' };

void td_target_init(struct td_target *t);
/* -a, -p, --duration: 1 if id was one of them, 0 if not, -1 after
 * p_err().
 */
int td_target_opt(struct td_target *t, int id, const char *arg);
/* After the options: the COMMAND in argv[0..argc), if any. -1 after
 * p_err() when -a/-p and a command are both given.
 */
int td_target_set_command(struct td_target *t, int argc, char **argv);

/* Start the command (stopped until its cgroup is set up) and let it run.
 * Returns 0, or -1 after p_err() (not started, or exec failed: then
 * td_target_exit_code() is 127 or 126 as in a shell).
 */
int td_target_spawn(struct td_target *t);
/* Does the record belong to the target? */
bool td_target_match(struct td_target *t, const struct topdown_record *r);
/* Reap without blocking: has the command exited, or are all the -p
 * processes gone? Always false for -a.
 */
bool td_target_done(struct td_target *t);
/* A file descriptor that becomes readable when the command exits, or -1. */
int td_target_fd(const struct td_target *t);
/* The command's exit status (128 + signal if it was killed). */
int td_target_exit_code(const struct td_target *t);
/* Forward a signal to the command, if one runs. */
void td_target_kill(struct td_target *t, int sig);
/* Remove the cgroup (moving any survivors to its parent). */
void td_target_cleanup(struct td_target *t);
/* "all tasks", "pids 12,13", "command: sh -c ..." */
void td_target_describe(const struct td_target *t, char *buf, size_t n);

#endif
