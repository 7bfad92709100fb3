// SPDX-License-Identifier: GPL-2.0
/*
 * Strings of any length (see str.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"

bool td_str_add(char **s, const char *fmt, ...)
{
	size_t len = *s ? strlen(*s) : 0;
	char *part, *grown;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&part, fmt, ap);
	va_end(ap);
	if (n < 0)
		return false;
	grown = realloc(*s, len + n + 1);
	if (grown)
		memcpy(grown + len, part, n + 1);
	free(part);
	if (!grown)
		return false;
	*s = grown;
	return true;
}
