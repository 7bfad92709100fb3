// SPDX-License-Identifier: GPL-2.0
/*
 * user/base/hash.h: SipHash-1-3. The expected values come from a Python
 * SipHash-c-d written from the paper (Aumasson and Bernstein, 2012) and
 * checked against the paper's SipHash-2-4 vector (key 00..0f, message
 * 00..0e: 0xa129ca6149be45e5) before its 1-3 values were taken. And the
 * process's key is drawn at random: two runs differ. TAP on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "testlib.h"

int main(int argc, char **argv)
{
	static const struct {
		size_t n;
		uint64_t h;
	} v[] = {
		{ 0, 0xabac0158050fc4dcull }, { 7, 0xd3927d989bb11140ull },
		{ 8, 0x369095118d299a8eull }, { 15, 0xd320d86d2a519956ull },
		{ 16, 0xcc4fdd1a7d908b66ull }, { 33, 0x4d54b9e57a8ff9bfull },
	};
	uint64_t key[2] = { td_hash_key[0], td_hash_key[1] };
	unsigned char msg[64];
	char cmd[4200];
	FILE *p;
	unsigned long long other[2] = { 0, 0 };
	int bad = 0;

	if (argc > 1 && !strcmp(argv[1], "--key")) {
		printf("%llx %llx\n", (unsigned long long)key[0],
		       (unsigned long long)key[1]);
		return 0;
	}
	for (int i = 0; i < 64; i++)
		msg[i] = (unsigned char)i;
	td_hash_key[0] = 0x0706050403020100ull;
	td_hash_key[1] = 0x0f0e0d0c0b0a0908ull;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (td_hash_bytes(msg, v[i].n) != v[i].h) {
			bad++;
			printf("# %zu bytes: %llx, not %llx\n", v[i].n,
			       (unsigned long long)td_hash_bytes(msg, v[i].n),
			       (unsigned long long)v[i].h);
		}
	ok(!bad, "SipHash-1-3 of 0, 7, 8, 15, 16 and 33 bytes: the reference values");
	ok(td_hash2(0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull) ==
	   0xcc4fdd1a7d908b66ull,
	   "td_hash2() of two words is td_hash_bytes() of their 16 bytes");
	/* a second run of this program draws another key */
	snprintf(cmd, sizeof(cmd), "'%s' --key", argv[0]);
	p = popen(cmd, "r");
	if (!p || fscanf(p, "%llx %llx", &other[0], &other[1]) != 2) {
		other[0] = 0;
		other[1] = 0;
	}
	if (p)
		pclose(p);
	ok((other[0] || other[1]) &&
	   (other[0] != key[0] || other[1] != key[1]),
	   "the key is drawn per process: %llx%llx, then %llx%llx",
	   (unsigned long long)key[0], (unsigned long long)key[1],
	   other[0], other[1]);
	return tap_done();
}
