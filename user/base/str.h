/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Strings of any length, for messages that must not be cut (a list of
 * names in an error). Apart from common.c so that the fuzz targets, which
 * stub common.c, run the same code.
 */
#ifndef TDCTL_STR_H
#define TDCTL_STR_H

#include <stdbool.h>

/*
 * Appends printf()-style to *s, a malloc()ed string (NULL: empty, to
 * start). false if out of memory (*s is then as it was).
 */
bool td_str_add(char **s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
