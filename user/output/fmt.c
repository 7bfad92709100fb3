// SPDX-License-Identifier: GPL-2.0
/*
 * Fast text output, see fmt.h.
 *
 * The floating-point conversions are exact: a finite double is m * 2^e
 * with an integer m < 2^53, so v * 10^p is the integer m * 10^p shifted
 * right by -e bits, which 128-bit arithmetic holds for the values dump
 * prints (fractions, IPC, microseconds). The bits shifted out decide the
 * rounding, to nearest with ties to even, as glibc's printf() rounds in
 * the default rounding mode. Everything else goes to snprintf().
 */
#include <stdlib.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "output/fmt.h"

typedef unsigned __int128 u128;

static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233"
	"34353637383940414243444546474849505152535455565758596061626364656667"
	"6869707172737475767778798081828384858687888990919293949596979899";

static const uint64_t pow10_u64[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
	10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
	100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull,
	10000000000000000000ull,
};

/* Decimal digits of v: from its bit length, then one comparison. */
static int u64_len(uint64_t v)
{
	int t = (64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + 1 - ((v | 1) < pow10_u64[t]);
}

/* w in exactly n digits (w < 10^n, n <= 9), two at a time. */
static inline __attribute__((always_inline))
void fmt_digits32(char *dst, uint32_t w, int n)
{
	for (; n >= 2; n -= 2) {
		uint32_t q = w / 100;

		memcpy(dst + n - 2, digits2 + 2 * (w - 100 * q), 2);
		w = q;
	}
	if (n)
		dst[0] = (char)('0' + w % 10);
}

/* v in exactly n digits, leading zeros kept: eight at a time split off in
 * 64 bits, the rest in 32.
 */
static inline __attribute__((always_inline))
void fmt_digits(char *dst, uint64_t v, int n)
{
	for (; n > 9; n -= 8) {
		fmt_digits32(dst + n - 8, (uint32_t)(v % 100000000), 8);
		v /= 100000000;
	}
	fmt_digits32(dst, (uint32_t)v, n);
}

int td_fmt_u64(char *dst, uint64_t v)
{
	int n = u64_len(v);

	fmt_digits(dst, v, n);
	return n;
}

/* The parts of a finite double: |v| = m * 2^e. false for NaN and inf. */
static inline __attribute__((always_inline))
bool split(double v, uint64_t *m, int *e, bool *neg)
{
	uint64_t bits;
	int ex;

	memcpy(&bits, &v, sizeof(bits));
	ex = (int)(bits >> 52 & 0x7ff);
	*neg = bits >> 63;
	*m = bits & ((1ull << 52) - 1);
	if (ex == 0x7ff)
		return false;
	if (ex) {
		*m |= 1ull << 52;
		*e = ex - 1075;
	} else {
		*e = -1074;
	}
	return true;
}

/* n / 2^s rounded to nearest, ties to even; 1 <= s < 128. */
static u128 shift_round(u128 n, int s)
{
	u128 q = n >> s, r = n & (((u128)1 << s) - 1), half = (u128)1 << (s - 1);

	if (r > half || (r == half && (q & 1)))
		q++;
	return q;
}

static int slow(char *dst, const char *fmt, int prec, double v)
{
	char tmp[TD_FMT_MAX + 8];
	int n = snprintf(tmp, sizeof(tmp), fmt, prec, v);

	if (n < 0)
		n = 0;
	if (n > TD_FMT_MAX)
		n = TD_FMT_MAX;
	memcpy(dst, tmp, n);
	return n;
}

/* |v| * 10^prec rounded, when that fits 64 bits (and prec <= 9). */
static inline __attribute__((always_inline))
bool fixed_parts(double v, int prec, bool *neg, uint64_t *scaled)
{
	uint64_t m, n64;
	u128 q;
	int e;

	if (prec < 0 || prec > 9 || !split(v, &m, &e, neg) || e >= 0)
		return false;
	/* v * 10^prec = m * 10^prec / 2^-e, and m * 10^9 < 2^83 */
	if (-e < 64 && !__builtin_mul_overflow(m, pow10_u64[prec], &n64)) {
		/* the same in 64 bits */
		uint64_t r = n64 & ((1ull << -e) - 1), half = 1ull << (-e - 1);

		*scaled = n64 >> -e;
		if (r > half || (r == half && (*scaled & 1)))
			++*scaled;
		return true;
	}
	if (-e > 100)
		q = 0;		/* below 2^-47: rounds to zero, no tie */
	else
		q = shift_round((u128)m * pow10_u64[prec], -e);
	*scaled = (uint64_t)q;
	return !(q >> 64);
}

/* The fast "%.*f" of q = |v| * 10^prec: sign, integer part ip (of n
 * digits), '.', prec digits.
 */
static int put_fixed(char *dst, bool neg, uint64_t q, uint64_t ip, int n,
		     int prec)
{
	int len = 0;

	if (neg)
		dst[len++] = '-';
	fmt_digits(dst + len, ip, n);
	len += n;
	if (prec) {
		dst[len++] = '.';
		fmt_digits(dst + len, q - ip * pow10_u64[prec], prec);
		len += prec;
	}
	return len;
}

int td_fmt_fixed(char *dst, double v, int prec)
{
	uint64_t q, ip;
	bool neg;

	if (!fixed_parts(v, prec, &neg, &q))
		return slow(dst, "%.*f", prec, v);
	ip = q / pow10_u64[prec];
	return put_fixed(dst, neg, q, ip, u64_len(ip), prec);
}

/*
 * %.17g: the 17 significant digits of |v| rounded, and the decimal
 * exponent X of the first; %f style with trailing zeros removed when
 * -4 <= X < 17, else %e style (the same digits, trailing zeros removed,
 * an exponent of at least two digits). Done here for 1e-6 <= |v| < 2^52.
 */
int td_fmt_g17(char *dst, double v)
{
	char d[17];
	uint64_t m, q0 = 0;
	int e, x, len = 0, end, tries;
	bool neg;

	if (!split(v, &m, &e, &neg) || e >= 0)
		return slow(dst, "%.*g", 17, v);
	if (!m) {
		if (neg)
			dst[len++] = '-';
		dst[len++] = '0';
		return len;
	}
	/* The binary exponent of the leading bit, then X close below it. */
	x = (int)(((63 - __builtin_clzll(m)) + e) * 30103LL / 100000);
	if ((63 - __builtin_clzll(m)) + e < 0)
		x--;			/* floor, not truncation */
	for (tries = 0; tries < 4; tries++) {
		int k = 16 - x;
		u128 p, n;

		if (k < 0 || k > 22 || -e >= 128)
			return slow(dst, "%.*g", 17, v);
		p = k > 19 ? (u128)pow10_u64[19] * pow10_u64[k - 19] :
			     pow10_u64[k];
		n = (u128)m * p;	/* < 2^53 * 10^22 < 2^127 */
		if ((n >> -e) >= pow10_u64[17]) {
			x++;
			continue;
		}
		if ((n >> -e) < pow10_u64[16]) {
			x--;
			continue;
		}
		q0 = (uint64_t)shift_round(n, -e);
		break;
	}
	if (tries == 4)
		return slow(dst, "%.*g", 17, v);
	if (q0 == pow10_u64[17]) {
		q0 = pow10_u64[16];
		x++;
	}
	fmt_digits(d, q0, 17);
	for (end = 17; end > 1 && d[end - 1] == '0'; end--)
		;
	if (neg)
		dst[len++] = '-';
	if (x < -4 || x >= 17) {
		dst[len++] = d[0];
		if (end > 1) {
			dst[len++] = '.';
			memcpy(dst + len, d + 1, end - 1);
			len += end - 1;
		}
		dst[len++] = 'e';
		dst[len++] = x < 0 ? '-' : '+';
		x = x < 0 ? -x : x;
		if (x >= 100)
			dst[len++] = (char)('0' + x / 100);
		memcpy(dst + len, digits2 + 2 * (x % 100), 2);
		return len + 2;
	}
	if (x >= 0) {
		memcpy(dst + len, d, x + 1);
		len += x + 1;
		if (end > x + 1) {
			dst[len++] = '.';
			memcpy(dst + len, d + x + 1, end - x - 1);
			len += end - x - 1;
		}
		return len;
	}
	dst[len++] = '0';
	dst[len++] = '.';
	memset(dst + len, '0', -x - 1);
	len += -x - 1;
	memcpy(dst + len, d, end);
	return len + end;
}

/* ---- the buffer ------------------------------------------------------- */

int td_buf_init(struct td_buf *b, FILE *f)
{
	memset(b, 0, sizeof(*b));
	b->f = f;
	b->buf = malloc(TD_BUF_SIZE);
	if (!b->buf)
		return -1;
	b->cap = TD_BUF_SIZE;
	b->p = b->buf;
	b->end = b->buf + b->cap;
	return 0;
}

int td_buf_flush(struct td_buf *b)
{
	size_t n = b->p - b->buf;

	if (n && fwrite(b->buf, 1, n, b->f) != n)
		b->err = true;
	b->p = b->buf;
	return b->err ? -1 : 0;
}

int td_buf_close(struct td_buf *b)
{
	int ret = 0;

	if (b->buf)
		ret = td_buf_flush(b);
	free(b->buf);
	b->buf = NULL;
	b->p = NULL;
	b->end = NULL;
	return ret;
}

void td_buf_big(struct td_buf *b, const char *s, size_t n)
{
	if (n > b->cap) {
		td_buf_flush(b);
		if (fwrite(s, 1, n, b->f) != n)
			b->err = true;
		return;
	}
	td_buf_need(b, n);
	memcpy(b->p, s, n);
	b->p += n;
}

/* n spaces (none if n <= 0); 16 bytes of room beyond them. */
static void spaces(char **p, int n)
{
	char *q = *p;

	if (n <= 0)
		return;
	if (n <= 16) {
		memcpy(q, "                ", 16);
		*p = q + n;
		return;
	}
	while (n-- > 0)
		*q++ = ' ';
	*p = q;
}

void td_buf_pad(struct td_buf *b, const char *s, size_t n, int width)
{
	size_t w = (size_t)(width < 0 ? -width : width);
	size_t fill = w > n ? w - n : 0;
	char *p;

	if (n + fill > 256) {
		/* Long strings, absurd widths: the general way. */
		if (width > 0)
			for (; fill; fill--)
				td_buf_char(b, ' ');
		td_buf_mem(b, s, n);
		for (; fill; fill--)
			td_buf_char(b, ' ');
		return;
	}
	td_buf_need(b, n + fill + 16);
	p = b->p;
	if (width > 0)
		spaces(&p, (int)fill);
	for (size_t i = 0; i < n; i++)
		*p++ = s[i];
	if (width < 0)
		spaces(&p, (int)fill);
	b->p = p;
}

/*
 * Right-aligned fields of at most FIELD chars: the text is written
 * backwards to the end of a scratch line of spaces, and the field, the
 * last max(len, width) bytes of it, goes out as one copy of FIELD bytes
 * (the bytes after the field are spaces, overwritten by what follows).
 */
#define FIELD	32

struct field {
	char s[3 * FIELD];	/* the text ends at s + 2 * FIELD */
};

static inline char *field_end(struct field *f)
{
	memset(f->s + FIELD, ' ', 2 * FIELD);
	return f->s + 2 * FIELD;
}

/* The digits of v, ending at p; returns their start. */
static inline char *digits_back(char *p, uint64_t v)
{
	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, digits2 + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digits2 + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return p;
}

static inline void field_out(struct td_buf *b, struct field *f,
			     const char *start, int width)
{
	int len = (int)(f->s + 2 * FIELD - start);
	int w = len > width ? len : width;

	td_buf_need(b, FIELD);
	memcpy(b->p, f->s + 2 * FIELD - w, FIELD);
	b->p += w;
}

void td_buf_u64(struct td_buf *b, uint64_t v, int width)
{
	struct field f;

	if (width > FIELD) {
		char tmp[24];

		td_buf_pad(b, tmp, td_fmt_u64(tmp, v), width);
		return;
	}
	field_out(b, &f, digits_back(field_end(&f), v), width);
}

void td_buf_digits(struct td_buf *b, uint64_t v, int n)
{
	td_buf_need(b, n);
	fmt_digits(b->p, v, n);
	b->p += n;
}

void td_buf_fixed(struct td_buf *b, double v, int prec, int width)
{
	char tmp[TD_FMT_MAX];
	struct field f;
	uint64_t q;
	bool neg;
	char *p;
	int i;

	/* q < 2^64 is at most 20 digits, with sign and point 22 chars */
	if (width > FIELD || !fixed_parts(v, prec, &neg, &q)) {
		td_buf_pad(b, tmp, td_fmt_fixed(tmp, v, prec), width);
		return;
	}
	p = field_end(&f);
	for (i = 0; i + 2 <= prec; i += 2) {
		unsigned int r = (unsigned int)(q % 100);

		q /= 100;
		p -= 2;
		memcpy(p, digits2 + 2 * r, 2);
	}
	if (i < prec) {
		*--p = (char)('0' + q % 10);
		q /= 10;
	}
	if (prec)
		*--p = '.';
	p = digits_back(p, q);
	if (neg)
		*--p = '-';
	field_out(b, &f, p, width);
}

int td_fmt_shortest(char *dst, double v)
{
	char buf[TD_FMT_MAX + 1];

	if (!isfinite(v))
		return slow(dst, "%.*g", 17, v);
	/* A normal double has 15 to 17 significant digits: %.15g is the
	 * shortest form (trailing zeros removed) whenever one of at most 15
	 * digits reads back as v, else %.16g, else %.17g. A subnormal one
	 * has fewer: every width is tried.
	 */
	for (int p = fabs(v) < DBL_MIN ? 1 : 15; p < 17; p++) {
		int n = snprintf(buf, sizeof(buf), "%.*g", p, v);

		if (n > 0 && n < (int)sizeof(buf) && strtod(buf, NULL) == v) {
			memcpy(dst, buf, (size_t)n);
			return n;
		}
	}
	return td_fmt_g17(dst, v);
}

void td_buf_shortest(struct td_buf *b, double v)
{
	td_buf_need(b, TD_FMT_MAX);
	b->p += td_fmt_shortest(b->p, v);
}

void td_buf_g17(struct td_buf *b, double v)
{
	td_buf_need(b, TD_FMT_MAX);
	b->p += td_fmt_g17(b->p, v);
}
