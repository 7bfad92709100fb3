/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text that comes from the kernel or a record file as bytes (a task's
 * comm, a host, CPU or event name, a label), written the same way in
 * every output format. The rule:
 *   - valid UTF-8 passes through, character by character;
 *   - every other byte is written as \xNN (two lower-case hex digits):
 *     bytes that do not form valid UTF-8 (including a character cut by
 *     the kernel's 15-byte limit), control characters (C0, DEL and C1,
 *     each byte of them), and the backslash itself, so that the result
 *     reads back unambiguously.
 * Plain text, CSV, JSON and the Prometheus labels then quote the result
 * by their own rules; since it is valid UTF-8 without control
 * characters, nothing else changes it.
 */
#ifndef TDCTL_TEXT_H
#define TDCTL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Room for the text of len bytes, with its NUL. */
#define TD_TEXT_SIZE(len)	(4 * (len) + 1)

/*
 * The text of src[0..len) (up to a NUL), NUL-terminated in dst, which
 * holds TD_TEXT_SIZE(len) bytes. Returns its length in bytes; *cols (if
 * not NULL) gets the columns it takes on a terminal (a wide CJK character
 * two, a combining mark none), for padding.
 */
size_t td_text(char *dst, const char *src, size_t len, size_t *cols);

/*
 * As td_text(), cut after max characters (0: not cut): for a table's
 * titles, text from a record file (an event name) padded and cut by
 * characters.
 */
size_t td_text_cut(char *dst, const char *src, size_t len, size_t max,
		   size_t *cols);

/*
 * The length of the valid UTF-8 character at s (at most n bytes), which
 * is not a control character: 1..4, or 0. JSON output uses it too.
 */
int td_utf8_char(const unsigned char *s, size_t n);

/*
 * tdctl's own characters beyond ASCII ('\u00b1' of an estimate) in plain
 * output only where the locale's character set is UTF-8: the first of
 * LC_ALL, LC_CTYPE and LANG that is set names it ("C.UTF-8",
 * "en_US.utf8"); none set is the C locale, ASCII. Elsewhere '\u00b1' is
 * "+-", as in perf's ASCII output.
 */
#define TD_PM_UTF8	"\xc2\xb1"
bool td_locale_utf8(void);
/* "\u00b1" or "+-". */
const char *td_pm(void);
/* s, or (not UTF-8) a copy of s with each '\u00b1' as "+-", in a static
 * buffer (cut at 1023 bytes): for the legends.
 */
const char *td_locale_text(const char *s);

#endif
