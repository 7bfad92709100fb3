/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF backend's own header, shared by its files (bpf.h is what the
 * rest of tdctl sees): bpf.c loads, unloads and reads; features.c says
 * what the backend can do on this kernel; status.c makes its STATUS.
 */
#ifndef TD_LIVE_BPF_PRIV_H
#define TD_LIVE_BPF_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live/bpf/bpf.h"
#include "live/bpf/td_bpf.h"

/* One mmap() of the rings map (see td_bpf.h). */
struct td_bpf_map {
	uint8_t *base;
	size_t len;
	uint32_t nr_cpus;
	uint32_t cpu_blocks;
};

struct ring_buffer;

struct td_bpf_reader {
	struct ring_buffer *rb;
	int ring_fd;
	int events_fd;
	int rings_fd;
	struct td_bpf_config bc;
	struct td_bpf_map m;
	td_record_fn fn;
	void *ctx;
	long count;
	uint64_t maintained_ns;
};

/* Feature tests (features.c), each run once per process: 1 yes, 0 no,
 * -1 cannot tell. The verifier takes BPF atomic instructions (Linux
 * 5.12); the kernel's BPF ring buffer lock sleeps (PREEMPT_RT 5.10).
 */
int td_bpf_has_atomics(void);
int td_bpf_ring_lock_sleeps(void);
/* Why a sleeping ring buffer lock rules the backend out (under 256 bytes). */
extern const char td_bpf_ring_lock_why[];

/* CPU cpu is online (a CPU that cannot go offline always is). */
bool td_bpf_cpu_online(uint32_t cpu);
/* Map the rings map fd of nr_cpus CPUs into *m; -1 after p_err(). */
int td_bpf_map_rings(int fd, uint32_t nr_cpus, uint32_t cpu_blocks,
		     struct td_bpf_map *m);
void td_bpf_unmap_rings(struct td_bpf_map *m);
/* CPU cpu's state block in a mapping. */
struct td_bpf_cpu *td_bpf_cpu_state(const struct td_bpf_map *m, uint32_t cpu);
/* The loaded configuration of source s; -1 after p_err(). */
int td_bpf_read_config(const struct td_src *s, struct td_bpf_config *bc);

#endif
