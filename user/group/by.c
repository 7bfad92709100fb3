// SPDX-License-Identifier: GPL-2.0
/*
 * --by KEY and the filters of dump and report (--cpu, --pid, --comm).
 * See aggregate.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/common.h"
#include "group/aggregate.h"

const char *const td_by_names[TD_BY_NR] = {
	[TD_BY_TASK] = "task",
	[TD_BY_PROCESS] = "process",
	[TD_BY_COMM] = "comm",
	[TD_BY_CGROUP] = "cgroup",
	[TD_BY_CPU] = "cpu",
};

int td_by_parse(const char *opt, const char *s, enum td_by *by)
{
	for (int i = 0; i < TD_BY_NR; i++) {
		if (!strcmp(s, td_by_names[i])) {
			*by = i;
			return 0;
		}
	}
	p_err("invalid value '%s' for %s (expected task, process, comm, cgroup or cpu)",
	      s, opt);
	return -1;
}

void td_filter_init(struct td_filter *f)
{
	f->cpu = -1;
	f->pid = -1;
	f->comm = NULL;
}

int td_filter_opt(struct td_filter *f, int id, const char *arg)
{
	unsigned long long v;

	switch (id) {
	case TD_FILTER_CPU:
		if (parse_u64("--cpu", arg, TD_MAX_CPUS - 1, &v))
			return -1;
		f->cpu = (long)v;
		return 1;
	case TD_FILTER_PID:
		if (parse_u64("--pid", arg, 0x7fffffff, &v))
			return -1;
		f->pid = (long)v;
		return 1;
	case TD_FILTER_COMM:
		if (strlen(arg) >= TOPDOWN_COMM_LEN) {
			p_err("--comm '%s' is longer than a comm (%d characters)",
			      arg, TOPDOWN_COMM_LEN - 1);
			return -1;
		}
		f->comm = arg;
		return 1;
	}
	return 0;
}

bool td_filter_match(const struct td_filter *f, const struct topdown_record *r)
{
	if (f->cpu >= 0 && r->cpu != (uint32_t)f->cpu)
		return false;
	if (f->pid >= 0 && r->pid != (uint32_t)f->pid &&
	    r->tgid != (uint32_t)f->pid)
		return false;
	if (f->comm && strncmp(r->comm, f->comm, TOPDOWN_COMM_LEN))
		return false;
	return true;
}
