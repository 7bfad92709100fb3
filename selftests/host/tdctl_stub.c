// SPDX-License-Identifier: GPL-2.0
/*
 * What the unit tests need from user/tdctl.c: the output globals, p_err,
 * p_info and parse_u64, so that evset_cmd.c links without the real main().
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tdctl.h"

bool json_output;
bool csv_output;
json_writer_t *json_wtr;
const char *bin_name = "tdctl";

void p_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (json_output && json_wtr) {
		char buf[1024];

		vsnprintf(buf, sizeof(buf), fmt, ap);
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "error", buf);
		jsonw_end_object(json_wtr);
	} else {
		fprintf(stderr, "%s: Error: ", bin_name);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

void p_info(const char *fmt, ...)
{
	va_list ap;

	if (json_output)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int parse_u64(const char *opt, const char *s, unsigned long long max,
	      unsigned long long *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ') {
		p_err("%s: '%s' is not a number", opt, s ? s : "");
		return -1;
	}
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max) {
		p_err("%s: '%s' is not a number up to %llu", opt, s, max);
		return -1;
	}
	*out = v;
	return 0;
}
