// SPDX-License-Identifier: GPL-2.0
/*
 * Counter states, the reasons a counter may be missing, and the counter
 * budget of each core PMU (see counters.h).
 *
 * Where the number of general-purpose counters comes from: perf's sysfs
 * does not expose it (x86's caps/ has max_precise and pmu_name, Arm's
 * armv8_pmuv3 caps/ has slots, bus_slots, bus_width). On x86 it is CPUID:
 * leaf 0xA on Intel (EAX[15:8] general, EDX[4:0] fixed, asked on a CPU of
 * the PMU, so each PMU of a hybrid part answers for its own cores), leaf
 * 0x80000022 EBX[3:0] on AMD with PerfMonV2, else 6 with PerfCtrExtCore
 * (0x80000001 ECX bit 23), else 4. In a virtual machine that is what the
 * hypervisor exposes, which is what perf can use. On Arm it is only in
 * the kernel log line of the PMU driver ("enabled with <pmu> PMU driver,
 * N counters available", N counting the cycle counter), read from
 * /dev/kmsg; once that line has left the log the count is "unknown".
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "evset/counters.h"
#include "evset/evset.h"
#include "evset/evset_priv.h"
#include "base/abi.h"
#include "base/common.h"

bool td_stats_have_ev_state(const struct topdown_status *st)
{
	return st->stats_size >= TOPDOWN_CPU_STATS_SIZE_VER1;
}

bool td_stats_have_retries(const struct topdown_status *st)
{
	return st->stats_size >= TOPDOWN_CPU_STATS_SIZE_VER2;
}

const char *td_evstate_str(uint8_t v)
{
	static const char *const names[] = {
		[TOPDOWN_EVSTATE_NONE] = "none",
		[TOPDOWN_EVSTATE_COUNTING] = "counting",
		[TOPDOWN_EVSTATE_ERROR] = "error",
		[TOPDOWN_EVSTATE_MULTIPLEXED] = "multiplexed",
		[TOPDOWN_EVSTATE_OFF] = "off",
	};

	return v < sizeof(names) / sizeof(names[0]) ? names[v] : "unknown";
}

const char *td_evstate_name(const struct topdown_status *st,
			    const struct topdown_cpu_stats *s, uint32_t ev)
{
	if (!td_stats_have_ev_state(st) || ev >= TOPDOWN_MAX_EVENTS)
		return "unknown";
	return td_evstate_str(s->ev_state[ev]);
}

uint32_t td_events_without_counter(const struct topdown_status *st,
				   const struct topdown_cpu_stats *stats,
				   bool at_start)
{
	uint32_t mask = 0;

	if (!td_stats_have_ev_state(st))
		return 0;
	for (uint32_t c = 0; c < st->nr_stats; c++) {
		const struct topdown_cpu_stats *s = &stats[c];

		if (at_start) {
			mask |= s->arm_errors;
			continue;
		}
		for (uint32_t i = 0; i < TOPDOWN_MAX_EVENTS; i++)
			if (s->ev_state[i] == TOPDOWN_EVSTATE_ERROR ||
			    s->ev_state[i] == TOPDOWN_EVSTATE_MULTIPLEXED)
				mask |= 1u << i;
	}
	return mask;
}

unsigned int td_retry_ms(void)
{
	FILE *f = fopen("/sys/module/topdown/parameters/retry_ms", "r");
	unsigned int v = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%u", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* /proc/sys/kernel/nmi_watchdog is 1 (it holds a counter per CPU on x86). */
static bool nmi_watchdog_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/nmi_watchdog", "r");
	int v = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v != 0;
}

/* x86 CPUID's hypervisor bit, as /proc/cpuinfo shows it. */
static bool in_vm(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	bool vm = false;

	if (!f)
		return false;
	while (!vm && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5) && strstr(line, " hypervisor"))
			vm = true;
	fclose(f);
	return vm;
}

const char *td_no_counter_reason(void)
{
	if (nmi_watchdog_on())
		return "the NMI watchdog holds a counter on every CPU "
		       "(/proc/sys/kernel/nmi_watchdog is 1); or another pinned perf user; "
		       "or a hypervisor exposing fewer counters";
	if (in_vm())
		return "another pinned perf user holds counters, or the hypervisor exposes "
		       "fewer counters than the event set needs";
	return "another pinned perf user (perf stat -a with :D, a KVM guest's vPMU, "
	       "another profiler) holds the counters";
}

void td_warn_no_counter(const struct topdown_status *st,
			const struct topdown_cpu_stats *stats,
			const struct topdown_config *cfg, uint32_t mask,
			bool at_start, bool bpf)
{
	unsigned int retry = td_retry_ms();

	for (uint32_t i = 0; i < TOPDOWN_MAX_EVENTS; i++) {
		char cpus[256] = "";
		size_t len = 0;

		if (!(mask & (1u << i)))
			continue;
		for (uint32_t c = 0; c < st->nr_stats && len < sizeof(cpus) - 16; c++) {
			const struct topdown_cpu_stats *s = &stats[c];
			bool hit = at_start ? s->arm_errors & (1u << i) :
				   s->ev_state[i] == TOPDOWN_EVSTATE_ERROR ||
				   s->ev_state[i] == TOPDOWN_EVSTATE_MULTIPLEXED;

			if (hit)
				len += snprintf(cpus + len, sizeof(cpus) - len,
						"%s%u", len ? "," : "", s->cpu);
		}
		/* With groups, position i of group 0 (at start) or of the
		 * group each CPU counts now.
		 */
		if (cfg && cfg->nr_groups && !at_start)
			p_warn("event at position %u of the group counting on CPU %s has no hardware counter: its slices read as errors (0) until one is free",
			       i, cpus);
		else
			p_warn("event %s has no hardware counter on CPU %s%s: its slices read as errors (0) until one is free",
			       cfg && i < td_cfg_group_nr(cfg, 0) ?
			       td_cfg_event(cfg, td_cfg_group_event(cfg, 0, i))->name : "?",
			       cpus, at_start ? " at start" : "");
	}
	if (!mask)
		return;
	p_warn("likely reason: %s", td_no_counter_reason());
	if (nmi_watchdog_on())
		p_warn("to free the watchdog's counter: sysctl kernel.nmi_watchdog=0");
	if (bpf)
		p_warn("the BPF backend has no resident process: every %s command that opens it (status, dump, stat, top, record, serve) retries, and the readers every second while they run; it counts again, without a restart, once a counter is free",
		       bin_name);
	else if (retry)
		p_warn("the module retries every %u ms (/sys/module/topdown/parameters/retry_ms), less often while none is free (retry_max_ms), and counts again, without a restart, once a counter is free",
		       retry);
	else
		p_warn("a module without retries (older than this tdctl) counts again only after '%s unload' and '%s load'",
		       bin_name, bin_name);
	p_warn("a smaller event set ('%s list', 'load --events SET') needs fewer counters",
	       bin_name);
}

/* ---- counter budget ---------------------------------------------------- */

/*
 * Arm's PMU driver logs "hw perfevents: enabled with NAME PMU driver, N
 * counters available" (6.1; N counts the cycle counter) or ", N (MASK)
 * counters available" (6.12, "%*pb" of the driver's cntr_mask:
 * hexadecimal 32-bit words, the most significant first, comma-separated;
 * bits 0-30 are the general-purpose counters, 31 and up the cycle and
 * instruction ones). Parses the text after "PMU driver, ".
 */
int td_parse_arm_counters(const char *p, int *gp, int *fixed)
{
	unsigned long word = 0;
	const char *l;
	int total;

	if (sscanf(p, "%d", &total) != 1 || total < 1)
		return -1;
	while (isdigit((unsigned char)*p))
		p++;
	if (strncmp(p, " (", 2)) {
		*gp = total - 1;
		*fixed = 1;
		return 0;
	}
	/* The last word before ')' holds bits 0-31. */
	for (l = p + 2; *l != ')'; l++) {
		char *end;

		word = strtoul(l, &end, 16);
		if (end == l || (*end != ',' && *end != ')'))
			return -1;
		l = end;
		if (*l == ')')
			break;
	}
	word = __builtin_popcountl(word & 0x7fffffffUL);
	if ((int)word > total)
		return -1;
	*gp = word;
	*fixed = total - word;
	return 0;
}

#if defined(__x86_64__) || defined(__i386__)
/* CPUID on @cpu (the calling thread moves there and back). */
static int x86_counters(int cpu, int *gp, int *fixed, const char **src)
{
	unsigned int a, b, c, d, max;
	cpu_set_t old, one;
	char vendor[13];
	int ret = -1;

	if (sched_getaffinity(0, sizeof(old), &old))
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return -1;
	__cpuid(0, max, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (!strcmp(vendor, "GenuineIntel") && max >= 0xa) {
		__cpuid(0xa, a, b, c, d);
		if (a & 0xff) {
			*gp = a >> 8 & 0xff;
			*fixed = (a & 0xff) > 1 ? (int)(d & 0x1f) : 0;
			*src = "CPUID leaf 0xA";
			ret = 0;
		}
	} else if (!strcmp(vendor, "AuthenticAMD") ||
		   !strcmp(vendor, "HygonGenuine")) {
		__cpuid(0x80000000, max, b, c, d);
		if (max >= 0x80000022) {
			__cpuid(0x80000022, a, b, c, d);
			if (a & 1) {	/* PerfMonV2 */
				*gp = b & 0xf;
				*fixed = 0;
				*src = "CPUID leaf 0x80000022";
				ret = 0;
			}
		}
		if (ret && max >= 0x80000001) {
			__cpuid(0x80000001, a, b, c, d);
			*gp = c & (1u << 23) ? 6 : 4;
			*fixed = 0;
			*src = "CPUID 0x80000001 PerfCtrExtCore";
			ret = 0;
		}
	}
	sched_setaffinity(0, sizeof(old), &old);
	return ret;
}
#else
/* Arm: the driver's line in the kernel log (td_parse_arm_counters()). */
static int arm_counters(const char *pmu, int *gp, int *fixed, const char **src)
{
	char buf[8192], key[96];
	int fd, ret = -1;
	ssize_t n;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	snprintf(key, sizeof(key), "enabled with %s PMU driver, ", pmu);
	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		const char *p;

		if (n < 0)
			continue;	/* overwritten record: go on */
		buf[n] = '\0';
		p = strstr(buf, key);
		if (!p || td_parse_arm_counters(p + strlen(key), gp, fixed))
			continue;
		*src = "kernel log (hw perfevents)";
		ret = 0;
	}
	close(fd);
	return ret;
}
#endif

static bool hw_type(uint32_t type)
{
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE ||
	       type == PERF_TYPE_RAW;
}

int td_counter_budgets(const struct topdown_config *cfg, struct td_budget *b,
		       int max)
{
	struct td_cpu_info *ci;
	char err[256];
	int n = 0, ncore = 0;

	ci = td_detect("", err, sizeof(err));
	if (!ci)
		return 0;
	for (int i = 0; i < ci->nr_pmus; i++)
		ncore += ci->pmu[i].core;
	for (int i = 0; i < ci->nr_pmus && n < max; i++) {
		const struct td_pmu *p = &ci->pmu[i];
		struct td_budget *d = &b[n];
		int cpu = 0;

		if (!p->core)
			continue;
		memset(d, 0, sizeof(*d));
		snprintf(d->pmu, sizeof(d->pmu), "%s", p->name);
		d->gp = -1;
		d->fixed = -1;
		d->source = "not exposed to user space on this machine";
		for (int k = 0; p->has_cpus && k < TD_CPU_WORDS * 64; k++) {
			if (p->cpus[k / 64] >> (k % 64) & 1) {
				cpu = k;
				break;
			}
		}
#if defined(__x86_64__) || defined(__i386__)
		if (x86_counters(cpu, &d->gp, &d->fixed, &d->source)) {
			d->gp = -1;
			d->fixed = -1;
		}
#else
		(void)cpu;
		if (arm_counters(p->name, &d->gp, &d->fixed, &d->source)) {
			d->gp = -1;
			d->fixed = -1;
			d->source = "not in sysfs; the driver's kernel log line is gone";
		}
#endif
		/* With groups, what one group needs at a time: the most. */
		for (uint32_t g = 0; cfg && g < td_cfg_nr_groups(cfg); g++) {
			int used = 0;

			for (uint32_t j = 0; j < td_cfg_group_nr(cfg, g); j++) {
				const struct topdown_event *ev =
					td_cfg_event(cfg, td_cfg_group_event(cfg, g, j));
				uint32_t ext = ev->config >> 32;

				/* Hybrid: the PMU type in the config's high bits. */
				if (ev->type == p->type ||
				    (hw_type(ev->type) &&
				     (ncore == 1 || !ext || ext == p->type)))
					used++;
			}
			if (used > d->used)
				d->used = used;
		}
		n++;
	}
	td_cpu_info_free(ci);
	return n;
}
