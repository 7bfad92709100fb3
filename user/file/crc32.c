// SPDX-License-Identifier: GPL-2.0
/*
 * The record file's checksum, td_file_crc32() of tdfile.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "file/le.h"
#include "file/tdfile.h"

/*
 * CRC-32 (IEEE 802.3, as zlib's crc32()). Readers check it over the whole
 * file, so it is on the reader's hot path: eight bytes a step with eight
 * tables (slicing-by-8), and on x86-64 with PCLMULQDQ the carry-less
 * multiplication folding of Intel's "Fast CRC Computation for Generic
 * Polynomials Using PCLMULQDQ Instruction" (the constants are those of
 * the bit-reflected CRC-32 polynomial, as zlib and Linux use them).
 */
static uint32_t crc_table[8][256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = crc_table[0][crc_table[t - 1][i] & 0xff] ^
					  crc_table[t - 1][i] >> 8;
}

/* On the register (the inverted CRC). */
static uint32_t crc_sb8(uint32_t c, const uint8_t *p, size_t len)
{
	for (; len >= 8; p += 8, len -= 8) {
		uint32_t lo = c ^ get32(p), hi = get32(p + 4);

		c = crc_table[7][lo & 0xff] ^ crc_table[6][lo >> 8 & 0xff] ^
		    crc_table[5][lo >> 16 & 0xff] ^ crc_table[4][lo >> 24] ^
		    crc_table[3][hi & 0xff] ^ crc_table[2][hi >> 8 & 0xff] ^
		    crc_table[1][hi >> 16 & 0xff] ^ crc_table[0][hi >> 24];
	}
	while (len--)
		c = crc_table[0][(c ^ *p++) & 0xff] ^ c >> 8;
	return c;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* The register over len bytes, len a multiple of 16 and at least 64. */
__attribute__((target("pclmul,sse4.1")))
static uint32_t crc_clmul(uint32_t c, const uint8_t *p, size_t len)
{
	const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596ll, 0x0154442bd4ll);
	const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009ell, 0x01751997d0ll);
	const __m128i k5k0 = _mm_set_epi64x(0, 0x0163cd6124ll);
	const __m128i poly = _mm_set_epi64x(0x01f7011641ll, 0x01db710641ll);
	const __m128i mask32 = _mm_setr_epi32(~0, 0, ~0, 0);
	__m128i x1, x2, x3, x4, x5, x6, x7, x8;

	x1 = _mm_loadu_si128((const __m128i *)(p + 0x00));
	x2 = _mm_loadu_si128((const __m128i *)(p + 0x10));
	x3 = _mm_loadu_si128((const __m128i *)(p + 0x20));
	x4 = _mm_loadu_si128((const __m128i *)(p + 0x30));
	x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)c));
	p += 64;
	len -= 64;
	/* Four lanes of 128 bits, folded 512 bits ahead. */
	for (; len >= 64; p += 64, len -= 64) {
		x5 = _mm_clmulepi64_si128(x1, k1k2, 0x00);
		x6 = _mm_clmulepi64_si128(x2, k1k2, 0x00);
		x7 = _mm_clmulepi64_si128(x3, k1k2, 0x00);
		x8 = _mm_clmulepi64_si128(x4, k1k2, 0x00);
		x1 = _mm_clmulepi64_si128(x1, k1k2, 0x11);
		x2 = _mm_clmulepi64_si128(x2, k1k2, 0x11);
		x3 = _mm_clmulepi64_si128(x3, k1k2, 0x11);
		x4 = _mm_clmulepi64_si128(x4, k1k2, 0x11);
		x1 = _mm_xor_si128(_mm_xor_si128(x1, x5),
				   _mm_loadu_si128((const __m128i *)(p + 0x00)));
		x2 = _mm_xor_si128(_mm_xor_si128(x2, x6),
				   _mm_loadu_si128((const __m128i *)(p + 0x10)));
		x3 = _mm_xor_si128(_mm_xor_si128(x3, x7),
				   _mm_loadu_si128((const __m128i *)(p + 0x20)));
		x4 = _mm_xor_si128(_mm_xor_si128(x4, x8),
				   _mm_loadu_si128((const __m128i *)(p + 0x30)));
	}
	/* The four lanes into one, then 128 bits at a time. */
	x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
	x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
	x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
	x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, x3), x5);
	x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
	x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, x4), x5);
	for (; len >= 16; p += 16, len -= 16) {
		x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
		x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
		x1 = _mm_xor_si128(_mm_xor_si128(x1, x5),
				   _mm_loadu_si128((const __m128i *)p));
	}
	/* 128 bits to 64, then Barrett reduction to 32. */
	x2 = _mm_clmulepi64_si128(x1, k3k4, 0x10);
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
	x2 = _mm_srli_si128(x1, 4);
	x1 = _mm_and_si128(x1, mask32);
	x1 = _mm_clmulepi64_si128(x1, k5k0, 0x00);
	x1 = _mm_xor_si128(x1, x2);
	x2 = _mm_and_si128(x1, mask32);
	x2 = _mm_clmulepi64_si128(x2, poly, 0x10);
	x2 = _mm_and_si128(x2, mask32);
	x2 = _mm_clmulepi64_si128(x2, poly, 0x00);
	x1 = _mm_xor_si128(x1, x2);
	return (uint32_t)_mm_extract_epi32(x1, 1);
}

static bool have_clmul(void)
{
	static int have = -1;

	if (have < 0)
		have = __builtin_cpu_supports("pclmul") &&
		       __builtin_cpu_supports("sse4.1");
	return have;
}
#endif

/* CRC-32 of p[0..len), continued from crc (0 to start). */
uint32_t td_file_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t c = ~crc;

	if (!crc_table[0][1])
		crc_init();
#if defined(__x86_64__) && defined(__GNUC__)
	if (len >= 64 && have_clmul()) {
		size_t n = len & ~(size_t)15;

		c = crc_clmul(c, p, n);
		p += n;
		len -= n;
	}
#endif
	return ~crc_sb8(c, p, len);
}
