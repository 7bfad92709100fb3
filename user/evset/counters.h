/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of the module's counters as STATUS reports it (per CPU and per
 * event: counting, in error, multiplexed), why a counter may be missing,
 * and the counter budget of each core PMU.
 */
#ifndef TD_COUNTERS_H
#define TD_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/topdown.h>

/* A TOPDOWN_EVSTATE_* value's name, "unknown" for any other. */
const char *td_evstate_str(uint8_t v);
/* "counting", "error", "multiplexed", "off", "none" or "unknown". */
const char *td_evstate_name(const struct topdown_status *st,
			    const struct topdown_cpu_stats *s, uint32_t ev);

/* The module filled the TOPDOWN_CPU_STATS_SIZE_VER1 fields. */
bool td_stats_have_ev_state(const struct topdown_status *st);
/* The module filled the TOPDOWN_CPU_STATS_SIZE_VER2 fields (retries). */
bool td_stats_have_retries(const struct topdown_status *st);

/*
 * Events that have no hardware counter on some CPU now (or, with
 * @at_start, had none when their CPU started counting), as a bit mask.
 */
uint32_t td_events_without_counter(const struct topdown_status *st,
				   const struct topdown_cpu_stats *stats,
				   bool at_start);

/*
 * Warn on stderr about each event in @mask: on which CPUs it has no
 * counter, the likely reasons on this machine and what to do; @bpf: the
 * BPF backend collects (it retries differently from the module).
 */
void td_warn_no_counter(const struct topdown_status *st,
			const struct topdown_cpu_stats *stats,
			const struct topdown_config *cfg, uint32_t mask,
			bool at_start, bool bpf);

/* One line naming the likely reasons, for JSON/CSV output. */
const char *td_no_counter_reason(void);

/* Module parameter retry_ms, or 0 if unknown. */
unsigned int td_retry_ms(void);

/* Counter budget of one core PMU. */
struct td_budget {
	char pmu[32];
	int gp;			/* general-purpose counters, -1 unknown */
	int fixed;		/* fixed counters, -1 unknown */
	const char *source;	/* where gp came from, or why unknown */
	/* Events of the configuration on this PMU (with groups: of the
	 * group that needs the most).
	 */
	int used;
};

/*
 * The counters of Arm's PMU driver from its kernel log line, given the
 * text after "PMU driver, "; 0, or -1 if it is not understood.
 */
int td_parse_arm_counters(const char *p, int *gp, int *fixed);

/* Fill up to @max budgets; returns how many. */
int td_counter_budgets(const struct topdown_config *cfg, struct td_budget *b,
		       int max);

#endif /* TD_COUNTERS_H */
