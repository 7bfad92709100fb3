// SPDX-License-Identifier: GPL-2.0
/*
 * Bytes from the kernel as text (see text.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "output/text.h"

int td_utf8_char(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	int len;

	if (c < 0x80)
		return c >= 0x20 && c != 0x7f;
	if (c < 0xc2)
		return 0;		/* continuation byte, or overlong */
	if (c < 0xe0) {
		len = 2;
		if (c == 0xc2)
			lo = 0xa0;	/* U+0080..U+009F: C1 controls */
	} else if (c < 0xf0) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (c == 0xed)
			hi = 0x9f;	/* UTF-16 surrogates */
	} else if (c < 0xf5) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;	/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;	/* beyond U+10FFFF */
	} else {
		return 0;
	}
	if ((size_t)len > n || s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* Bytes written as they are whatever follows: printable ASCII but '\\'. */
static const bool plain[256] = {
	[0x20 ... 0x5b] = true,		/* '\\' is 0x5c */
	[0x5d ... 0x7e] = true,
};

#define ONES	0x0101010101010101ull
#define HIGH	0x8080808080808080ull

/* 0x80 in each byte of w that is in plain[], 0 in the others. Bytes are
 * tested on their low 7 bits, where the additions cannot carry into the
 * next byte.
 */
static inline uint64_t plain8(uint64_t w)
{
	uint64_t x = w & ~HIGH;
	uint64_t ge20 = x + 0x60 * ONES;		/* x >= 0x20 */
	uint64_t ge7f = x + 0x01 * ONES;		/* x >= 0x7f */
	uint64_t ne5c = (x ^ 0x5c * ONES) + 0x7f * ONES;	/* x != '\\' */

	return ge20 & ~ge7f & ne5c & ~w & HIGH;
}

/* The code point of the valid UTF-8 character s of k bytes (k >= 2). */
static uint32_t code_point(const unsigned char *s, int k)
{
	uint32_t c = s[0] & (0x7f >> k);

	for (int i = 1; i < k; i++)
		c = c << 6 | (s[i] & 0x3f);
	return c;
}

/*
 * Columns a character takes on a terminal: 2 for the East Asian Wide and
 * Fullwidth ranges of Unicode's EastAsianWidth.txt (CJK, Hangul, kana,
 * fullwidth forms, emoji), 0 for combining marks, 1 otherwise; as
 * wcwidth() of a UTF-8 locale, without depending on the locale.
 */
static int columns(uint32_t c)
{
	static const uint32_t wide[][2] = {
		{ 0x1100, 0x115f }, { 0x231a, 0x231b }, { 0x2329, 0x232a },
		{ 0x23e9, 0x23ec }, { 0x2614, 0x2615 }, { 0x2e80, 0x303e },
		{ 0x3041, 0x33ff }, { 0x3400, 0x4dbf }, { 0x4e00, 0x9fff },
		{ 0xa000, 0xa4cf }, { 0xa960, 0xa97f }, { 0xac00, 0xd7a3 },
		{ 0xf900, 0xfaff }, { 0xfe10, 0xfe19 }, { 0xfe30, 0xfe6f },
		{ 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f },
		{ 0x1f900, 0x1f9ff }, { 0x20000, 0x3fffd },
	};

	if ((c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200f) ||
	    (c >= 0xfe00 && c <= 0xfe0f))
		return 0;
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		if (c >= wide[i][0] && c <= wide[i][1])
			return 2;
	return 1;
}

size_t td_text(char *dst, const char *src, size_t len, size_t *cols)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	/* bytes beyond the columns they take (UTF-8, wide characters) */
	size_t i = 0, extra = 0;
	char *p = dst;
	int k;

	/* the common case: a comm of printable ASCII, 8 bytes at a time */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (i + 8 <= len) {
		uint64_t w, m;

		memcpy(&w, s + i, 8);
		memcpy(p, &w, 8);	/* dst has room: only plain bytes count */
		m = ~plain8(w) & HIGH;
		if (m) {
			k = __builtin_ctzll(m) / 8;
			p += k;
			i += k;
			break;
		}
		p += 8;
		i += 8;
	}
#endif
	while (i < len) {
		if (plain[s[i]]) {
			*p++ = (char)s[i++];
			continue;
		}
		if (!s[i])
			break;
		/* a NUL is never a continuation byte: len - i is safe */
		k = s[i] == '\\' ? 0 : td_utf8_char(s + i, len - i);
		if (k) {
			/* bytes beyond the columns the character takes */
			extra += k - (k > 1 ? columns(code_point(s + i, k)) : 1);
			while (k--)
				*p++ = (char)s[i++];
		} else {
			*p++ = '\\';
			*p++ = 'x';
			*p++ = hex[s[i] >> 4];
			*p++ = hex[s[i] & 15];
			i++;
		}
	}
	*p = '\0';
	if (cols)
		*cols = (size_t)(p - dst) - extra;
	return (size_t)(p - dst);
}

size_t td_text_cut(char *dst, const char *src, size_t len, size_t max,
		   size_t *cols)
{
	size_t c, n, chars = 0;

	if (!cols)
		cols = &c;
	n = td_text(dst, src, len, cols);
	if (!max || *cols <= max)
		return n;
	/* the text is whole characters: cut before the (max+1)-th, and
	 * not inside a \xNN (a backslash starts one, and only one)
	 */
	for (size_t i = 0; i < n; i++) {
		if (((unsigned char)dst[i] & 0xc0) == 0x80)
			continue;
		if (chars++ == max) {
			size_t back = 0;

			while (back < 3 && back < i && dst[i - 1 - back] != '\\')
				back++;
			if (back < 3 && back < i)
				back++;		/* the backslash too */
			else
				back = 0;
			dst[i - back] = '\0';
			*cols = max - back;
			return i - back;
		}
	}
	return n;
}

static bool names_utf8(const char *v)
{
	for (; *v; v++)
		if (!strncasecmp(v, "utf-8", 5) || !strncasecmp(v, "utf8", 4))
			return true;
	return false;
}

bool td_locale_utf8(void)
{
	static int utf8 = -1;
	static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };

	if (utf8 >= 0)
		return utf8;
	utf8 = 0;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);

		if (v && *v) {
			utf8 = names_utf8(v);
			break;
		}
	}
	return utf8;
}

const char *td_pm(void)
{
	return td_locale_utf8() ? TD_PM_UTF8 : "+-";
}

const char *td_locale_text(const char *s)
{
	static char buf[1024];
	size_t n = 0;

	if (td_locale_utf8() || !strstr(s, TD_PM_UTF8))
		return s;
	while (*s && n < sizeof(buf) - 2) {
		if (!strncmp(s, TD_PM_UTF8, 2)) {
			buf[n++] = '+';
			buf[n++] = '-';
			s += 2;
		} else {
			buf[n++] = *s++;
		}
	}
	buf[n] = '\0';
	return buf;
}
