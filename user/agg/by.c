// SPDX-License-Identifier: GPL-2.0
/*
 * --by KEY and the one filter set (--pid, --tid, --cpu, --cgroup, --comm,
 * --from, --to).
 * See aggregate.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/common.h"
#include "agg/aggregate.h"

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
	memset(f, 0, sizeof(*f));
}

/* --cgroup ID or PATH: a path of this machine's cgroup v2 hierarchy is
 * its directory's inode number, the id the records carry.
 */
static int cgroup_id(const char *s, uint64_t *id)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/fs/cgroup%s%s",
		 *s == '/' ? "" : "/", s);
	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		p_err("--cgroup: '%s' is neither a cgroup id nor a cgroup v2 path here (%s)",
		      s, path);
		return -1;
	}
	*id = st.st_ino;
	return 0;
}

int td_filter_opt(struct td_filter *f, int id, const char *arg)
{
	unsigned long long v;

	switch (id) {
	case TD_FILTER_PID:
		if (parse_id_list("--pid", "PID[,PID..]", arg, 0xffffffffu,
				  f->pid, TD_FILTER_MAX, &f->nr_pids))
			return -1;
		break;
	case TD_FILTER_TID:
		if (parse_id_list("--tid", "TID[,TID..]", arg, 0xffffffffu,
				  f->tid, TD_FILTER_MAX, &f->nr_tids))
			return -1;
		break;
	case TD_FILTER_CPU:
		if (parse_id_list("--cpu", "CPU[,CPU..]", arg, TD_MAX_CPUS - 1,
				  f->cpu, TD_FILTER_MAX, &f->nr_cpus))
			return -1;
		break;
	case TD_FILTER_CGROUP:
		if (*arg >= '0' && *arg <= '9') {
			if (parse_id_list("--cgroup", "ID[,ID..] or a cgroup path",
					  arg, UINT64_MAX, f->cgroup,
					  TD_FILTER_MAX, &f->nr_cgroups))
				return -1;
			break;
		}
		if (f->nr_cgroups == TD_FILTER_MAX) {
			p_err("--cgroup: at most %d values", TD_FILTER_MAX);
			return -1;
		}
		if (cgroup_id(arg, &f->cgroup[f->nr_cgroups]))
			return -1;
		f->nr_cgroups++;
		break;
	case TD_FILTER_COMM:
		if (strlen(arg) >= TOPDOWN_COMM_LEN) {
			p_err("--comm '%s' is longer than a comm (%d characters)",
			      arg, TOPDOWN_COMM_LEN - 1);
			return -1;
		}
		f->comm = arg;
		break;
	case TD_FILTER_FROM:
	case TD_FILTER_TO:
		if (parse_seconds(id == TD_FILTER_FROM ? "--from" : "--to", arg,
				  1000000000, &v))
			return -1;
		if (id == TD_FILTER_FROM) {
			f->from_ns = v;
			f->from_set = true;
		} else {
			f->to_ns = v;
			f->to_set = true;
		}
		break;
	default:
		return 0;
	}
	f->any = true;
	return 1;
}

int td_filter_check(const struct td_filter *f)
{
	if (f->to_set && f->to_ns <= f->from_ns) {
		p_usage_error("--to must be later than --from");
		return -1;
	}
	return 0;
}

void td_filter_warn_cpus(const struct td_filter *f, uint32_t nr_cpus)
{
	for (int i = 0; i < f->nr_cpus; i++)
		if (f->cpu[i] >= nr_cpus)
			p_warn("--cpu %llu: no such CPU here (CPUs 0..%u): it matches nothing",
			       (unsigned long long)f->cpu[i], nr_cpus - 1);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

void td_filter_window(const struct td_filter *f, uint64_t *from,
		      uint64_t *to)
{
	*from = f->from_set ? sat_add(f->base_ns, f->from_ns) : 0;
	*to = f->to_set ? sat_add(f->base_ns, f->to_ns) : UINT64_MAX;
}

static bool in_list(const uint64_t *l, int n, uint64_t v)
{
	for (int i = 0; i < n; i++)
		if (l[i] == v)
			return true;
	return false;
}

bool td_filter_match(const struct td_filter *f, const struct topdown_record *r)
{
	if (!f->any)
		return true;
	if (f->nr_cpus && !in_list(f->cpu, f->nr_cpus, r->cpu))
		return false;
	if (f->nr_pids && !in_list(f->pid, f->nr_pids, r->pid) &&
	    !in_list(f->pid, f->nr_pids, r->tgid))
		return false;
	if (f->nr_tids && !in_list(f->tid, f->nr_tids, r->pid))
		return false;
	if (f->nr_cgroups && !in_list(f->cgroup, f->nr_cgroups, r->cgroup_id))
		return false;
	if (f->comm && strncmp(r->comm, f->comm, TOPDOWN_COMM_LEN))
		return false;
	if (f->from_set || f->to_set) {
		uint64_t from, to, start = r->duration_ns > r->time_ns ? 0 :
					   r->time_ns - r->duration_ns;

		td_filter_window(f, &from, &to);
		if (r->time_ns <= from || start >= to)
			return false;
	}
	return true;
}
