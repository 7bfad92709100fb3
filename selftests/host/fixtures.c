// SPDX-License-Identifier: GPL-2.0
/*
 * Fake /proc and /sys trees for the event-set tests, generated under a
 * temporary directory: one per machine kind that tdctl must recognise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fixtures.h"

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

int fx_write(const char *root, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (mkdirs(path))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void x86_cpuinfo(const char *root, const char *vendor, int family,
			int model, const char *name, int ncpu)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (int i = 0; i < ncpu; i++)
		fprintf(f,
			"processor\t: %d\nvendor_id\t: %s\ncpu family\t: %d\n"
			"model\t\t: %d\nmodel name\t: %s\nstepping\t: 4\n"
			"flags\t\t: fpu vme\n\n",
			i, vendor, family, model, name);
	fclose(f);
	fx_write(root, "proc/cpuinfo", buf);
	free(buf);
}

static void arm_cpuinfo(const char *root, int impl, int variant, int part,
			int rev, int ncpu, bool sysfs_midr)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (int i = 0; i < ncpu; i++) {
		fprintf(f,
			"processor\t: %d\nBogoMIPS\t: 50.00\n"
			"Features\t: fp asimd\nCPU implementer\t: 0x%02x\n"
			"CPU architecture: 8\nCPU variant\t: 0x%x\n"
			"CPU part\t: 0x%03x\nCPU revision\t: %d\n\n",
			i, impl, variant, part, rev);
		if (sysfs_midr) {
			char rel[128], v[64];

			snprintf(rel, sizeof(rel),
				 "sys/devices/system/cpu/cpu%d/regs/identification/midr_el1",
				 i);
			snprintf(v, sizeof(v), "0x%016x\n",
				 impl << 24 | variant << 20 | 0xf << 16 |
				 part << 4 | rev);
			fx_write(root, rel, v);
		}
	}
	fclose(f);
	fx_write(root, "proc/cpuinfo", buf);
	free(buf);
}

static void pmu(const char *root, const char *name, int type,
		const char *cpus, const char *slots)
{
	char rel[256], v[32];

	snprintf(rel, sizeof(rel), "sys/bus/event_source/devices/%s/type",
		 name);
	snprintf(v, sizeof(v), "%d\n", type);
	fx_write(root, rel, v);
	if (cpus) {
		snprintf(rel, sizeof(rel),
			 "sys/bus/event_source/devices/%s/cpus", name);
		fx_write(root, rel, cpus);
	}
	if (slots) {
		snprintf(rel, sizeof(rel),
			 "sys/bus/event_source/devices/%s/caps/slots", name);
		fx_write(root, rel, slots);
	}
}

static void common(const char *root, const char *possible)
{
	fx_write(root, "sys/devices/system/cpu/possible", possible);
	pmu(root, "software", 1, NULL, NULL);
	pmu(root, "tracepoint", 2, NULL, NULL);
	pmu(root, "breakpoint", 5, NULL, NULL);
}

static void intel(const char *root, int model, const char *name)
{
	x86_cpuinfo(root, "GenuineIntel", 6, model, name, 4);
	common(root, "0-3\n");
	pmu(root, "cpu", 4, NULL, NULL);
	pmu(root, "uncore_imc_0", 13, NULL, NULL);
	fx_write(root, "sys/bus/event_source/devices/uncore_imc_0/cpumask",
		 "0\n");
}

static void amd(const char *root, int family, int model)
{
	x86_cpuinfo(root, "AuthenticAMD", family, model, "AMD EPYC", 4);
	common(root, "0-3\n");
	pmu(root, "cpu", 4, NULL, NULL);
	pmu(root, "amd_df", 12, NULL, NULL);
}

static void neoverse(const char *root, int variant, int part, int rev,
		     const char *slots)
{
	arm_cpuinfo(root, 0x41, variant, part, rev, 4, true);
	common(root, "0-3\n");
	pmu(root, "armv8_pmuv3_0", 8, "0-3\n", slots);
	pmu(root, "arm_cmn_0", 9, NULL, NULL);
}

const char *const fx_names[FX_NR] = {
	[FX_SKX] = "skylake_server",
	[FX_BDW] = "broadwell",
	[FX_ICX] = "icelake_server",
	[FX_SPR] = "sapphire_rapids",
	[FX_ADL] = "alderlake_hybrid",
	[FX_ZEN3] = "amd_zen3",
	[FX_ZEN4] = "amd_zen4",
	[FX_ZEN5] = "amd_zen5",
	[FX_N1] = "neoverse_n1",
	[FX_N2R0P0] = "neoverse_n2_r0p0",
	[FX_N2R0P3] = "neoverse_n2_r0p3",
	[FX_V1] = "neoverse_v1",
	[FX_V2] = "neoverse_v2",
	[FX_QEMU_ARM] = "qemu_arm64_max",
	[FX_QEMU_X86] = "qemu_x86_max",
	[FX_TGL] = "tigerlake",
	[FX_SNB] = "sandybridge",
	[FX_ADL_PCORE] = "alderlake_pcore_only",
	[FX_V3] = "neoverse_v3",
	[FX_N3] = "neoverse_n3",
};

int fx_make(const char *root, enum fx fx)
{
	if (mkdir(root, 0755) && errno != EEXIST)
		return -1;
	switch (fx) {
	case FX_SKX:
		intel(root, 0x55, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz");
		break;
	case FX_BDW:
		intel(root, 0x4f, "Intel(R) Xeon(R) CPU E5-2680 v4");
		break;
	case FX_ICX:
		intel(root, 0x6a, "Intel(R) Xeon(R) Platinum 8380 CPU");
		break;
	case FX_SPR:
		intel(root, 0x8f, "Intel(R) Xeon(R) Platinum 8480+");
		break;
	case FX_ADL:
		x86_cpuinfo(root, "GenuineIntel", 6, 0x97,
			    "12th Gen Intel(R) Core(TM) i9-12900K", 24);
		common(root, "0-23\n");
		pmu(root, "cpu_core", 4, "0-15\n", NULL);
		pmu(root, "cpu_atom", 10, "16-23\n", NULL);
		fx_write(root,
			 "sys/bus/event_source/devices/cpu_core/caps/pmu_name",
			 "alderlake_hybrid\n");
		break;
	case FX_ZEN3:
		amd(root, 0x19, 0x21);
		break;
	case FX_ZEN4:
		amd(root, 0x19, 0x11);
		break;
	case FX_ZEN5:
		amd(root, 0x1a, 0x02);
		break;
	case FX_N1:
		neoverse(root, 3, 0xd0c, 1, NULL);
		break;
	case FX_N2R0P0:
		neoverse(root, 0, 0xd49, 0, "0x00000005\n");
		break;
	case FX_N2R0P3:
		neoverse(root, 0, 0xd49, 3, "0x00000005\n");
		break;
	case FX_V1:
		neoverse(root, 1, 0xd40, 1, "0x00000008\n");
		break;
	case FX_V2:
		neoverse(root, 0, 0xd4f, 1, "0x00000008\n");
		break;
	case FX_QEMU_ARM:
		/* QEMU 7.2 -cpu max: implementer 0, part 'Q' (0x051). */
		arm_cpuinfo(root, 0x00, 0, 0x051, 0, 2, true);
		common(root, "0-1\n");
		pmu(root, "armv8_pmuv3", 8, "0-1\n", "0x00000000\n");
		break;
	case FX_QEMU_X86:
		/* TCG "max": no architectural PMU, no cpu PMU in sysfs. */
		x86_cpuinfo(root, "AuthenticAMD", 6, 6,
			    "QEMU TCG CPU version 2.5+", 2);
		common(root, "0-1\n");
		pmu(root, "kprobe", 6, NULL, NULL);
		break;
	case FX_TGL:
		intel(root, 0x8c, "11th Gen Intel(R) Core(TM) i7-1185G7");
		break;
	case FX_SNB:
		intel(root, 0x2a, "Intel(R) Core(TM) i7-2600 CPU @ 3.40GHz");
		break;
	case FX_ADL_PCORE:
		/* E-cores off in the firmware: one "cpu" PMU, not hybrid */
		intel(root, 0x97, "12th Gen Intel(R) Core(TM) i9-12900K");
		break;
	case FX_V3:
		neoverse(root, 0, 0xd84, 1, "0x00000008\n");
		break;
	case FX_N3:
		neoverse(root, 0, 0xd8e, 1, "0x00000005\n");
		break;
	case FX_NR:
		return -1;
	}
	return 0;
}
