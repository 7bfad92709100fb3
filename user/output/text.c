// SPDX-License-Identifier: GPL-2.0
/*
 * Bytes from the kernel as text (see text.h).
 */
#include <stdbool.h>
#include <string.h>

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

size_t td_text(char *dst, const char *src, size_t len, size_t *cols)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	const char *nul = memchr(src, 0, len);
	size_t i = 0, nc = 0, end = nul ? (size_t)(nul - src) : len;
	char *p = dst;
	int k;

	while (i < end) {
		k = s[i] == '\\' ? 0 : td_utf8_char(s + i, end - i);
		if (k) {
			while (k--)
				*p++ = (char)s[i++];
		} else {
			*p++ = '\\';
			*p++ = 'x';
			*p++ = hex[s[i] >> 4];
			*p++ = hex[s[i] & 15];
			i++;
			nc += 3;
		}
		nc++;
	}
	*p = '\0';
	if (cols)
		*cols = nc;
	return (size_t)(p - dst);
}
