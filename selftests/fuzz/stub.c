// SPDX-License-Identifier: GPL-2.0
/* What the fuzz target needs from user/cli/tdctl.c, without its main(). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/tdctl.h"

bool json_output;
bool csv_output;
json_writer_t *json_wtr;
const char *bin_name = "tdctl";
int orig_stdout_fd = -1;

/* Formatted and dropped: a bad argument still shows under ASan. */
void p_err(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
}

int parse_u64(const char *opt, const char *s, unsigned long long max,
	      unsigned long long *out)
{
	(void)opt;
	(void)s;
	(void)max;
	(void)out;
	return -1;
}
