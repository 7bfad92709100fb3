// SPDX-License-Identifier: GPL-2.0
/*
 * What the fuzz targets need from user/base/common.c and user/cli/, without
 * their output: messages are formatted (a bad argument still shows under
 * ASan) and dropped; the option parsers the targets do not reach refuse.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/tdctl.h"

bool json_output;
bool csv_output;
json_writer_t *json_wtr;
const char *bin_name = "tdctl";
const char *td_cmd_name = "report";
int orig_stdout_fd = -1;
const char *td_cmd_name;
bool td_parsing_options;

void p_err(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
}

void p_usage_cmd(const char *cmd, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	(void)cmd;
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

int parse_u64_range(const char *opt, const char *s, unsigned long long min,
		    unsigned long long max, unsigned long long *out)
{
	(void)opt;
	(void)s;
	(void)min;
	(void)max;
	(void)out;
	return -1;
}

int parse_id_list(const char *opt, const char *meta, const char *s,
		  unsigned long long max, uint64_t *ids, int cap, int *n)
{
	(void)opt;
	(void)meta;
	(void)s;
	(void)max;
	(void)ids;
	(void)cap;
	(void)n;
	return -1;
}

int parse_seconds(const char *opt, const char *s, unsigned int max_s,
		  unsigned long long *ns)
{
	(void)opt;
	(void)s;
	(void)max_s;
	(void)ns;
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
