// SPDX-License-Identifier: GPL-2.0
/*
 * td_bpftotals: the BPF backend's totals (tdctl load --backend bpf
 * --totals) against its own count of sched_switch calls, once the
 * program has stopped: the conservation that pmusim_test checks for the
 * module, "every slice is in exactly one entry".
 *
 * Opens the pinned maps (user/live/bpf/td_bpf.h) with raw bpf() calls,
 * prints "ready", and waits until the "link" pin is gone (tdctl unload
 * detached the program; the maps stay while this process holds them),
 * then 0.2 s more (a program still running on another CPU ends within
 * an RCU grace period). Then it sums every entry's slices, the CPUs'
 * OTHER entries and the tasks' (exited or not), against the probe calls
 * of every CPU (td_bpf_cpu.probe_count: each call is one slice), and
 * prints both with the pool's counters. Exit 0 when they are equal, 1
 * when not, 2 on an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "live/bpf/td_bpf.h"

static int sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

static int obj_get(const char *name)
{
	char path[128];
	union bpf_attr a;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", TD_BPF_DIR, name);
	memset(&a, 0, sizeof(a));
	a.pathname = (uintptr_t)path;
	fd = sys_bpf(BPF_OBJ_GET, &a);
	if (fd < 0)
		fprintf(stderr, "td_bpftotals: %s: %s\n", path, strerror(errno));
	return fd;
}

static int lookup(int fd, uint32_t key, void *val)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)val;
	if (!sys_bpf(BPF_MAP_LOOKUP_ELEM, &a))
		return 0;
	fprintf(stderr, "td_bpftotals: element %u: %s\n", key, strerror(errno));
	return -1;
}

static uint8_t block[TD_BPF_BLOCK];

int main(void)
{
	int cfg = obj_get("config"), rings = obj_get("rings"), tot = obj_get("totals");
	struct td_bpf_tot_hdr h;
	struct td_bpf_config bc;
	struct td_bpf_tot e;
	uint64_t probes = 0, other = 0, live = 0, exited = 0;
	uint32_t tasks = 0, nexited = 0;
	struct timespec ts = { 0, 200000000 };

	if (cfg < 0 || rings < 0 || tot < 0 || lookup(cfg, 0, &bc))
		return 2;
	if (!bc.cfg.totals_tasks) {
		fprintf(stderr, "td_bpftotals: the backend keeps no totals\n");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	while (!access(TD_BPF_DIR "/link", F_OK))
		usleep(20000);
	nanosleep(&ts, NULL);

	for (uint32_t c = 0; c < bc.nr_cpus; c++) {
		const struct td_bpf_cpu *p = (const void *)block;

		if (lookup(rings, c * bc.cpu_blocks + 1, block))
			return 2;
		probes += p->probe_count;
	}
	if (lookup(tot, 0, &e))
		return 2;
	memcpy(&h, &e, sizeof(h));
	for (uint32_t i = 1; i < 1 + bc.nr_cpus + bc.cfg.totals_tasks; i++) {
		if (lookup(tot, i, &e))
			return 2;
		if (e.seq & 1) {
			fprintf(stderr, "td_bpftotals: entry %u left odd (%u)\n", i, e.seq);
			return 2;
		}
		if (i <= bc.nr_cpus) {
			other += e.slices;
		} else if (e.key & TD_TOT_EXITED) {
			exited += e.slices;
			nexited++;
		} else if (e.key) {
			live += e.slices;
			tasks++;
		}
	}
	printf("probe calls %llu; slices %llu: ", (unsigned long long)probes,
	       (unsigned long long)(live + exited + other));
	printf("tasks %llu (%u entries), exited %llu (%u), other %llu; ",
	       (unsigned long long)live, tasks, (unsigned long long)exited, nexited,
	       (unsigned long long)other);
	printf("no_room %llu reclaimed %llu generation %llu\n",
	       (unsigned long long)h.no_room, (unsigned long long)h.reclaimed,
	       (unsigned long long)h.generation);
	return probes == live + exited + other ? 0 : 1;
}
