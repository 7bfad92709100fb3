/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fast text output for the per-record paths (dump): numbers formatted by
 * hand into a large buffer that goes out with fwrite() in big chunks.
 *
 * Every formatter writes exactly what the printf() conversion it replaces
 * writes (named next to it), so output does not change with the speed-up;
 * values the exact integer method cannot handle (huge, tiny, NaN, inf)
 * go through snprintf() itself. selftests/host/test_fmt.c checks them
 * against snprintf() over edge values and millions of random ones.
 */
#ifndef TDCTL_FMT_H
#define TDCTL_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Longest output of one td_fmt_*() call: %.9f of the largest double. */
#define TD_FMT_MAX	352

/* Into dst, without a NUL; return the length. */
int td_fmt_u64(char *dst, uint64_t v);			/* "%llu" */
int td_fmt_fixed(char *dst, double v, int prec);	/* "%.*f", prec 0..9 */
int td_fmt_g17(char *dst, double v);			/* "%.17g" */
/* The shortest text that reads back as v (strtod): what JSON readers
 * expect (bpftool's, perf's); "%.17g" of a NaN or infinity.
 */
int td_fmt_shortest(char *dst, double v);

struct td_buf {
	FILE *f;
	char *p;		/* buf + len */
	char *end;		/* flush when a write may cross this */
	char *buf;
	size_t cap;
	bool err;		/* a write to f failed */
};

#define TD_BUF_SIZE	(1u << 20)

/* 0, or -1 if out of memory. */
int td_buf_init(struct td_buf *b, FILE *f);
/* Write out what is buffered; -1 if a write failed (now or before). */
int td_buf_flush(struct td_buf *b);
/* Flush, free; the result of the last flush. */
int td_buf_close(struct td_buf *b);

/* Room for n more bytes (n <= TD_BUF_SIZE). */
static inline void td_buf_need(struct td_buf *b, size_t n)
{
	if ((size_t)(b->end - b->p) < n)
		td_buf_flush(b);
}

static inline void td_buf_char(struct td_buf *b, char c)
{
	td_buf_need(b, 1);
	*b->p++ = c;
}

/* s[0..n): short ones inline, long ones (even beyond the buffer) here. */
void td_buf_big(struct td_buf *b, const char *s, size_t n);

static inline void td_buf_mem(struct td_buf *b, const char *s, size_t n)
{
	char *p;

	if (n > 8) {
		td_buf_big(b, s, n);
		return;
	}
	td_buf_need(b, n);
	p = b->p;
	for (size_t i = 0; i < n; i++)
		p[i] = s[i];
	b->p = p + n;
}

/* "%*llu": right-aligned in width (0: no padding). */
void td_buf_u64(struct td_buf *b, uint64_t v, int width);
/* "%*llu" and the separator after it. */
static inline void td_buf_field(struct td_buf *b, uint64_t v, int width,
				char sep)
{
	td_buf_u64(b, v, width);
	td_buf_char(b, sep);
}

/* "%0*llu" for v < 10^n: exactly n digits. */
void td_buf_digits(struct td_buf *b, uint64_t v, int n);
/* "%*.*f" */
void td_buf_fixed(struct td_buf *b, double v, int prec, int width);
/* "%.17g" */
void td_buf_g17(struct td_buf *b, double v);
/* td_fmt_shortest() */
void td_buf_shortest(struct td_buf *b, double v);
/* "%-*s" / "%*s" of n bytes: left- (width < 0) or right-aligned. */
void td_buf_pad(struct td_buf *b, const char *s, size_t n, int width);

#endif
