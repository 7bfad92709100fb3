// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of tdctl's module compatibility check (user/live/device.c,
 * td_abi_check()): what a module reports in STATUS against what this
 * tdctl was built for. The same ABI passes; another ABI version, record
 * size or per-CPU stats entry size is refused with a message that says
 * which side is newer; larger or smaller status structs are fine, and so
 * are a newer module's larger stats entry and an older module's VER0 and
 * VER1 ones.
 */
#include <stdio.h>
#include <string.h>

#include "live/device.h"
#include "tap.h"

static struct topdown_status current(void)
{
	struct topdown_status st;

	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	st.abi_version = TOPDOWN_ABI_VERSION;
	st.record_size = TOPDOWN_RECORD_SIZE;
	st.stats_size = sizeof(struct topdown_cpu_stats);
	return st;
}

static void expect(const struct topdown_status *st, bool good,
		   const char *want, const char *what)
{
	char err[256] = "";
	int ret = td_abi_check(st, err, sizeof(err));

	ok(good ? ret == 0 : ret == -1 && strstr(err, want), "%s: %s", what,
	   ret ? err : "accepted");
}

int main(void)
{
	struct topdown_status st = current();

	expect(&st, true, NULL, "the same ABI");
	st.size = TOPDOWN_STATUS_SIZE_VER0;
	expect(&st, true, NULL, "an older module's VER0 status");
	st.size = sizeof(st) + 64;
	expect(&st, true, NULL, "a newer module's larger status");
	st = current();
	st.abi_version = TOPDOWN_ABI_VERSION + 1;
	expect(&st, false, "module is newer", "a newer ABI version");
	st.abi_version = TOPDOWN_ABI_VERSION - 1;
	expect(&st, false, "module is older", "an older ABI version");
	st = current();
	st.record_size = TOPDOWN_RECORD_SIZE * 2;
	expect(&st, false, "records", "another record size");
	st = current();
	st.size = TOPDOWN_STATUS_SIZE_VER0 - 8;
	expect(&st, false, "status", "a status smaller than VER0");
	st = current();
	st.stats_size += 8;
	expect(&st, true, NULL, "a newer module's larger per-CPU stats entry");
	st.stats_size = TOPDOWN_CPU_STATS_SIZE_VER0;
	expect(&st, true, NULL, "an older module's VER0 per-CPU stats entry");
	st.stats_size = TOPDOWN_CPU_STATS_SIZE_VER1;
	expect(&st, true, NULL, "an older module's VER1 per-CPU stats entry");
	st.stats_size = TOPDOWN_CPU_STATS_SIZE_VER0 - 8;
	expect(&st, false, "not a module this tdctl can read", "a stats entry smaller than VER0");
	st.stats_size = TOPDOWN_CPU_STATS_SIZE_VER0 + 8;
	expect(&st, false, "not a module this tdctl can read", "a stats entry of no known size");
	st.stats_size = sizeof(struct topdown_cpu_stats) - 8;
	expect(&st, false, "not a module this tdctl can read", "a stats entry just below ours");
	return tap_done();
}
