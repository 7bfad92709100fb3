// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of the counter budget's Arm source (user/evset/counters.c,
 * td_parse_arm_counters()): the PMU driver's "N counters available" line
 * as Linux 6.1 and 6.12 print it, and text that must not be understood.
 */
#include <stdio.h>

#include "evset/counters.h"
#include "tap.h"

static void expect(const char *line, int rc, int gp, int fixed)
{
	int g = -7, f = -7;
	int ret = td_parse_arm_counters(line, &g, &f);

	if (rc)
		ok(ret == -1, "'%s' is refused (got %d, gp %d fixed %d)", line,
		   ret, g, f);
	else
		ok(ret == 0 && g == gp && f == fixed,
		   "'%s': %d general-purpose + %d fixed (got %d: %d + %d)",
		   line, gp, fixed, ret, g, f);
}

int main(void)
{
	/* 6.1: N counts the cycle counter. */
	expect("7 counters available", 0, 6, 1);
	expect("7 counters available, using NMIs", 0, 6, 1);
	/* 6.12: "%*pb" of cntr_mask, most significant word first. */
	expect("7 (0,8000003f) counters available", 0, 6, 1);
	expect("8 (1,8000003f) counters available", 0, 6, 2);
	expect("21 (0,800fffff) counters available", 0, 20, 1);
	expect("7 (8000003f) counters available", 0, 6, 1);
	expect("2 (0,80000001) counters available", 0, 1, 1);
	/* Not understood: no number, a mask with fewer bits than N, junk. */
	expect("counters available", -1, 0, 0);
	expect("0 counters available", -1, 0, 0);
	expect("3 (0,3f) counters available", -1, 0, 0);
	expect("7 (0,zz) counters available", -1, 0, 0);
	expect("7 (0,8000003f counters available", -1, 0, 0);
	expect("7 (", -1, 0, 0);
	return tap_done();
}
