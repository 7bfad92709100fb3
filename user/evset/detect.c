// SPDX-License-Identifier: GPL-2.0
/*
 * What CPU and which PMUs this machine has, read from /proc/cpuinfo,
 * /sys/devices/system/cpu and /sys/bus/event_source/devices under a root
 * directory ("" for the live system, a fake tree in the tests). Missing
 * files are normal: every field has a "not known" value.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evset/evset_priv.h"

/* Copy with truncation, always terminated. */
static void copy_str(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);

	memcpy(dst, src, l);
	dst[l] = '\0';
}

static int read_text(const char *root, const char *path, char *buf,
		     size_t len)
{
	char full[4096];
	size_t n;
	FILE *f;

	if (snprintf(full, sizeof(full), "%s%s", root, path) >=
	    (int)sizeof(full))
		return -1;
	f = fopen(full, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (int)n;
}

/* Whole string (bar one trailing newline) is a number, decimal or 0x hex. */
static int parse_uint(const char *s, int base, unsigned long long max,
		      unsigned long long *out)
{
	unsigned long long v;
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || end == s)
		return -1;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (*end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_num(const char *s, int base, unsigned long long max,
		     unsigned long long *out)
{
	if (base == 0 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return parse_uint(s + 2, 16, max, out);
	return parse_uint(s, base ? base : 10, max, out);
}

static void set_bit64(uint64_t *bits, int n)
{
	bits[n / 64] |= 1ull << (n % 64);
}

static bool test_bit64(const uint64_t *bits, int n)
{
	return bits[n / 64] >> (n % 64) & 1;
}

int td_parse_cpulist(const char *s, uint64_t *bits, int nwords)
{
	int count = 0;

	memset(bits, 0, nwords * sizeof(*bits));
	if (*s == '\n' && !s[1])
		return 0;
	if (!*s)
		return 0;
	for (;;) {
		unsigned long lo, hi;
		char *end;

		if (!isdigit((unsigned char)*s))
			return -1;
		errno = 0;
		lo = strtoul(s, &end, 10);
		if (errno || lo >= (unsigned long)nwords * 64)
			return -1;
		hi = lo;
		s = end;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return -1;
			hi = strtoul(s, &end, 10);
			if (errno || hi >= (unsigned long)nwords * 64 ||
			    hi < lo)
				return -1;
			s = end;
		}
		for (unsigned long i = lo; i <= hi; i++) {
			if (!test_bit64(bits, (int)i))
				count++;
			set_bit64(bits, (int)i);
		}
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s == '\n')
			s++;
		return *s ? -1 : count;
	}
}

char *td_format_cpulist(const uint64_t *bits, int nwords, char *buf,
			size_t len)
{
	size_t pos = 0;
	int n = nwords * 64;

	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		int j = i;
		int w;

		if (!test_bit64(bits, i))
			continue;
		while (j + 1 < n && test_bit64(bits, j + 1))
			j++;
		if (i == j)
			w = snprintf(buf + pos, len - pos, "%s%d",
				     pos ? "," : "", i);
		else
			w = snprintf(buf + pos, len - pos, "%s%d-%d",
				     pos ? "," : "", i, j);
		if (w < 0 || (size_t)w >= len - pos) {
			/* Truncated: end with "..." if it fits. */
			if (len >= 4)
				strcpy(buf + len - 4, "...");
			return buf;
		}
		pos += w;
		i = j;
	}
	return buf;
}

/* "key\t: value" -> value (trimmed), or NULL. */
static const char *cpuinfo_value(char *line, const char *key)
{
	size_t kl = strlen(key);
	char *v, *e;

	if (strncmp(line, key, kl))
		return NULL;
	v = line + kl;
	while (*v == ' ' || *v == '\t')
		v++;
	if (*v != ':')
		return NULL;
	v++;
	while (*v == ' ' || *v == '\t')
		v++;
	e = v + strlen(v);
	while (e > v && (e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return v;
}

struct cpuinfo_midr {
	bool seen[4];
	unsigned long long v[4];	/* implementer, variant, part, rev */
};

static void read_cpuinfo(const char *root, struct td_cpu_info *ci,
			 int *nr_processors)
{
	static const char *const arm_keys[4] = {
		"CPU implementer", "CPU variant", "CPU part", "CPU revision",
	};
	struct cpuinfo_midr first = { 0 }, cur = { 0 };
	bool in_first = true, x86_done = false;
	char path[4096], line[1024];
	FILE *f;

	*nr_processors = 0;
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		const char *val;

		val = cpuinfo_value(line, "processor");
		if (val) {
			if (*nr_processors > 0)
				in_first = false;
			(*nr_processors)++;
			if (!in_first && ci->vendor[0])
				x86_done = true;
			continue;
		}
		for (int k = 0; k < 4; k++) {
			val = cpuinfo_value(line, arm_keys[k]);
			if (!val || parse_num(val, 0, 0xffffffffull, &v))
				continue;
			if (in_first) {
				first.seen[k] = true;
				first.v[k] = v;
			} else if (first.seen[k] && first.v[k] != v) {
				cur.seen[k] = true;	/* differs */
			}
		}
		if (x86_done)
			continue;
		/* A line has one key ("model" does not match "model name"). */
		val = cpuinfo_value(line, "vendor_id");
		if (val)
			copy_str(ci->vendor, sizeof(ci->vendor), val);
		val = cpuinfo_value(line, "cpu family");
		if (val && !parse_num(val, 10, 0xffff, &v)) {
			ci->family = v;
			ci->has_fms = true;
		}
		val = cpuinfo_value(line, "model");
		if (val && !parse_num(val, 10, 0xffff, &v))
			ci->model = v;
		val = cpuinfo_value(line, "stepping");
		if (val && !parse_num(val, 10, 0xffff, &v))
			ci->stepping = v;
		val = cpuinfo_value(line, "model name");
		if (val)
			copy_str(ci->model_name, sizeof(ci->model_name), val);
	}
	fclose(f);

	if (ci->vendor[0]) {
		ci->arch = TD_ARCH_X86;
		return;
	}
	if (first.seen[0] && first.seen[2]) {
		ci->arch = TD_ARCH_ARM64;
		ci->has_midr = true;
		snprintf(ci->midr_src, sizeof(ci->midr_src), "/proc/cpuinfo");
		ci->implementer = first.v[0] & 0xff;
		ci->variant = first.seen[1] ? first.v[1] & 0xf : 0;
		ci->part = first.v[2] & 0xfff;
		ci->revision = first.seen[3] ? first.v[3] & 0xf : 0;
		ci->midr = ci->implementer << 24 | ci->variant << 20 |
			   0xf << 16 | ci->part << 4 | ci->revision;
		for (int k = 0; k < 4; k++)
			if (cur.seen[k])
				ci->midr_mixed = true;
	}
}

/* MIDR_EL1 of every possible CPU from sysfs; overrides /proc/cpuinfo. */
static void read_midr_sysfs(const char *root, struct td_cpu_info *ci)
{
	bool have = false;
	uint32_t first = 0;

	for (int cpu = 0; cpu < ci->nr_cpus; cpu++) {
		unsigned long long v;
		char path[128], buf[64];

		if (!test_bit64(ci->possible, cpu))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/regs/identification/midr_el1",
			 cpu);
		if (read_text(root, path, buf, sizeof(buf)) <= 0 ||
		    parse_num(buf, 0, ~0ull, &v))
			continue;
		if (!have) {
			have = true;
			first = (uint32_t)v;
		} else if ((uint32_t)v != first) {
			ci->midr_mixed = true;
		}
	}
	if (!have)
		return;
	ci->arch = TD_ARCH_ARM64;
	ci->has_midr = true;
	snprintf(ci->midr_src, sizeof(ci->midr_src), "midr_el1");
	ci->midr = first;
	ci->implementer = first >> 24 & 0xff;
	ci->variant = first >> 20 & 0xf;
	ci->part = first >> 4 & 0xfff;
	ci->revision = first & 0xf;
}

static bool is_core_pmu(const char *name)
{
	return !strcmp(name, "cpu") || !strcmp(name, "cpu_core") ||
	       !strcmp(name, "cpu_atom") || !strncmp(name, "armv8_", 6) ||
	       !strncmp(name, "armv9_", 6);
}

static int pmu_cmp(const void *a, const void *b)
{
	return strcmp(((const struct td_pmu *)a)->name,
		      ((const struct td_pmu *)b)->name);
}

static void read_pmus(const char *root, struct td_cpu_info *ci)
{
	char path[4096];
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices", root);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir)) && ci->nr_pmus < TD_MAX_PMUS) {
		struct td_pmu *p = &ci->pmu[ci->nr_pmus];
		unsigned long long v;
		char rel[512], buf[16384];
		int n;

		if (de->d_name[0] == '.' ||
		    strlen(de->d_name) >= sizeof(p->name))
			continue;
		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "%s", de->d_name);
		snprintf(rel, sizeof(rel),
			 "/sys/bus/event_source/devices/%s/type", p->name);
		if (read_text(root, rel, buf, sizeof(buf)) <= 0 ||
		    parse_num(buf, 10, 0xffffffffull, &v))
			continue;	/* no usable type: not a PMU for us */
		p->type = (uint32_t)v;
		p->core = is_core_pmu(p->name);
		snprintf(rel, sizeof(rel),
			 "/sys/bus/event_source/devices/%s/cpus", p->name);
		if (read_text(root, rel, buf, sizeof(buf)) >= 0) {
			n = td_parse_cpulist(buf, p->cpus, TD_CPU_WORDS);
			if (n >= 0) {
				p->has_cpus = true;
				p->nr_cpus = n;
			}
		}
		snprintf(rel, sizeof(rel),
			 "/sys/bus/event_source/devices/%s/caps/slots",
			 p->name);
		if (read_text(root, rel, buf, sizeof(buf)) > 0 &&
		    !parse_num(buf, 0, 0xffffffffull, &v)) {
			p->has_slots = true;
			p->slots = v > 0xffff ? 0 : (unsigned int)v;
		}
		snprintf(rel, sizeof(rel),
			 "/sys/bus/event_source/devices/%s/caps/pmu_name",
			 p->name);
		if (read_text(root, rel, buf, sizeof(buf)) > 0) {
			buf[strcspn(buf, "\n")] = '\0';
			copy_str(p->pmu_name, sizeof(p->pmu_name), buf);
		}
		ci->nr_pmus++;
	}
	closedir(dir);
	qsort(ci->pmu, ci->nr_pmus, sizeof(ci->pmu[0]), pmu_cmp);
	for (int i = 0; i < ci->nr_pmus; i++) {
		const char *name = ci->pmu[i].name;

		if (!strcmp(name, "cpu_core"))
			ci->core_pmu = i;
		else if (!strcmp(name, "cpu_atom"))
			ci->atom_pmu = i;
		else if (!strcmp(name, "cpu"))
			ci->main_pmu = i;
	}
	if (ci->main_pmu < 0) {
		for (int i = 0; i < ci->nr_pmus; i++) {
			if (ci->pmu[i].core &&
			    (!strncmp(ci->pmu[i].name, "armv8_", 6) ||
			     !strncmp(ci->pmu[i].name, "armv9_", 6))) {
				ci->main_pmu = i;
				break;
			}
		}
	}
}

struct td_cpu_info *td_detect(const char *root, char *err, size_t errlen)
{
	struct td_cpu_info *ci;
	char buf[16384];
	int nproc, n;

	if (!root)
		root = "";
	ci = calloc(1, sizeof(*ci));
	if (!ci) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ci->main_pmu = -1;
	ci->core_pmu = -1;
	ci->atom_pmu = -1;

	read_cpuinfo(root, ci, &nproc);

	n = -1;
	if (read_text(root, "/sys/devices/system/cpu/possible", buf,
		      sizeof(buf)) > 0)
		n = td_parse_cpulist(buf, ci->possible, TD_CPU_WORDS);
	if (n <= 0) {
		memset(ci->possible, 0, sizeof(ci->possible));
		if (nproc > TD_MAX_CPUS)
			nproc = TD_MAX_CPUS;
		for (int i = 0; i < nproc; i++)
			set_bit64(ci->possible, i);
	}
	for (int i = 0; i < TD_MAX_CPUS; i++)
		if (test_bit64(ci->possible, i))
			ci->nr_cpus = i + 1;

	read_midr_sysfs(root, ci);
	read_pmus(root, ci);

	if (ci->nr_cpus == 0 && ci->nr_pmus == 0 && ci->arch ==
	    TD_ARCH_UNKNOWN) {
		snprintf(err, errlen,
			 "found neither %s/proc/cpuinfo nor %s/sys: nothing to detect",
			 root, root);
		free(ci);
		return NULL;
	}
	return ci;
}

void td_cpu_info_free(struct td_cpu_info *ci)
{
	free(ci);
}
