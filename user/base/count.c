// SPDX-License-Identifier: GPL-2.0
/*
 * Counts in the forms perf stat prints them (base/count.h). The value is
 * computed from the decimal digits, not through a double, so a 64-bit
 * count survives "18446744073709551615.000000" and "1.8446744073709551615e19"
 * unchanged.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/count.h"

#define MAX_DIGITS	400

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Digits of an integer part, with or without thousands separators. */
static int int_digits(const char *s, size_t n, size_t *pos, char *dig,
		      size_t *nd)
{
	size_t i = *pos, run = 0;	/* digits since the last comma */
	bool seps = false;

	while (i < n && (isdigit((unsigned char)s[i]) || s[i] == ',')) {
		if (s[i] == ',') {
			/* "1,000": 1-3 digits first, then runs of 3 */
			if ((!seps && (run < 1 || run > 3)) ||
			    (seps && run != 3))
				return -1;
			seps = true;
			run = 0;
		} else {
			if (*nd >= MAX_DIGITS)
				return -1;
			dig[(*nd)++] = s[i];
			run++;
		}
		i++;
	}
	if (seps && run != 3)
		return -1;
	*pos = i;
	return 0;
}

static int parse_hex(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (!n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int d;

		if (!isxdigit((unsigned char)s[i]))
			return -1;
		d = isdigit((unsigned char)s[i]) ? s[i] - '0' :
		    (tolower((unsigned char)s[i]) - 'a' + 10);
		if (v >> 60)
			return -2;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

int td_parse_count(const char *s, size_t len, uint64_t *out, char *err,
		   size_t errlen)
{
	char dig[MAX_DIGITS];
	size_t i = 0, nd = 0, nint;
	long exp = 0;
	uint64_t v = 0;
	bool round_up;
	long point;

	while (len && blank(s[len - 1]))
		len--;
	while (i < len && blank(s[i]))
		i++;
	s += i;
	len -= i;
	i = 0;
	if (len && (s[0] == '-' || s[0] == '+')) {
		snprintf(err, errlen, "'%.*s' is not a count (%s)", (int)len, s,
			 s[0] == '-' ? "negative" : "no sign allowed");
		return -1;
	}
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		int r = parse_hex(s + 2, len - 2, out);

		if (r == -2)
			snprintf(err, errlen, "'%.*s' exceeds 64 bits",
				 (int)len, s);
		else if (r)
			snprintf(err, errlen, "'%.*s' is not a count",
				 (int)len, s);
		return r ? -1 : 0;
	}
	if (int_digits(s, len, &i, dig, &nd))
		goto bad;
	nint = nd;
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && isdigit((unsigned char)s[i])) {
			if (nd >= MAX_DIGITS)
				goto bad;
			dig[nd++] = s[i++];
		}
	}
	if (!nd)
		goto bad;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		bool neg = false, any = false;

		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			neg = s[i++] == '-';
		while (i < len && isdigit((unsigned char)s[i])) {
			if (exp < 100000)
				exp = exp * 10 + (s[i] - '0');
			any = true;
			i++;
		}
		if (!any)
			goto bad;
		if (neg)
			exp = -exp;
	}
	if (i != len)
		goto bad;

	/* The decimal point moves by the exponent; digits left of it make
	 * the integer, the first one right of it rounds.
	 */
	point = (long)nint + exp;
	for (long k = 0; k < point; k++) {
		unsigned int d = k < (long)nd ? (unsigned int)(dig[k] - '0') : 0;

		if (v > (UINT64_MAX - d) / 10)
			goto big;
		v = v * 10 + d;
	}
	round_up = point >= 0 && point < (long)nd && dig[point] >= '5';
	if (round_up) {
		if (v == UINT64_MAX)
			goto big;
		v++;
	}
	*out = v;
	return 0;
big:
	snprintf(err, errlen, "'%.*s' exceeds 64 bits", (int)len, s);
	return -1;
bad:
	snprintf(err, errlen,
		 "'%.*s' is not a count (want e.g. 1000000, 1,000,000, 1e6 or 1000000.0)",
		 (int)len, s);
	return -1;
}
