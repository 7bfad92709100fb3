/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keyed hashes for the hash tables whose keys come from outside (record
 * files, perf's output on stdin): cgroup ids, pids, comms. A fixed hash,
 * however well mixed, can be inverted and a file crafted whose keys all
 * land in one slot (65,535 cgroups would make report --by cgroup
 * quadratic). These are SipHash-1-3 (Aumasson and Bernstein,
 * "SipHash: a fast short-input PRF", 2012; 1 compression and 3
 * finalization rounds, as Rust's HashMap uses) with a key drawn from
 * getrandom() once per process: the slots differ from run to run, so
 * tables must not show their slot order (iterate in insertion order).
 * Fuzzing builds (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION) use a fixed
 * key, so that a crash reproduces.
 */
#ifndef TDCTL_HASH_H
#define TDCTL_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The process's key (hash.c), drawn before main(). */
extern uint64_t td_hash_key[2];

static inline uint64_t td_rotl(uint64_t x, int b)
{
	return x << b | x >> (64 - b);
}

/* One SipRound of the state v. */
static inline void td_sipround(uint64_t *v)
{
	v[0] += v[1];
	v[1] = td_rotl(v[1], 13) ^ v[0];
	v[0] = td_rotl(v[0], 32);
	v[2] += v[3];
	v[3] = td_rotl(v[3], 16) ^ v[2];
	v[0] += v[3];
	v[3] = td_rotl(v[3], 21) ^ v[0];
	v[2] += v[1];
	v[1] = td_rotl(v[1], 17) ^ v[2];
	v[2] = td_rotl(v[2], 32);
}

/* The state for the process's key. */
static inline void td_sipinit(uint64_t *v)
{
	v[0] = 0x736f6d6570736575ull ^ td_hash_key[0];
	v[1] = 0x646f72616e646f6dull ^ td_hash_key[1];
	v[2] = 0x6c7967656e657261ull ^ td_hash_key[0];
	v[3] = 0x7465646279746573ull ^ td_hash_key[1];
}

/* One compression round of the word m (SipHash-1-x). */
static inline void td_sipword(uint64_t *v, uint64_t m)
{
	v[3] ^= m;
	td_sipround(v);
	v[0] ^= m;
}

/* The finalization (SipHash-x-3): the hash. */
static inline uint64_t td_sipfinal(uint64_t *v)
{
	v[2] ^= 0xff;
	td_sipround(v);
	td_sipround(v);
	td_sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* SipHash-1-3 of the 16 bytes a, b (little-endian words). */
static inline uint64_t td_hash2(uint64_t a, uint64_t b)
{
	uint64_t v[4];

	td_sipinit(v);
	td_sipword(v, a);
	td_sipword(v, b);
	td_sipword(v, 16ull << 56);	/* the length, no tail */
	return td_sipfinal(v);
}

/* SipHash-1-3 of n bytes at p. */
uint64_t td_hash_bytes(const void *p, size_t n);

#endif
