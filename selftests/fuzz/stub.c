// SPDX-License-Identifier: GPL-2.0
/* What the fuzz target needs from user/cli/tdctl.c, without its main(). */
#include <stdarg.h>
#include <stdlib.h>

#include "cli/tdctl.h"

bool json_output;
bool csv_output;
json_writer_t *json_wtr;
const char *bin_name = "tdctl";
int orig_stdout_fd = -1;

void p_err(const char *fmt, ...)
{
	(void)fmt;
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

void p_warn(const char *fmt, ...)
{
	(void)fmt;
}

void p_info(const char *fmt, ...)
{
	(void)fmt;
}
