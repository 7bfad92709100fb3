// SPDX-License-Identifier: GPL-2.0
/* tdctl status: configuration, state and per-CPU statistics. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "evset/counters.h"
#include "live/backend.h"
#include "live/bpf/bpf.h"
#include "live/device.h"
#include "cli/tdctl.h"

static double mono_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define TD_MAX_BUDGETS 8

static void json_budgets(const struct topdown_config *cfg)
{
	struct td_budget b[TD_MAX_BUDGETS];
	int n = td_counter_budgets(cfg, b, TD_MAX_BUDGETS);

	jsonw_name(json_wtr, "counter_budget");
	jsonw_start_array(json_wtr);
	for (int i = 0; i < n; i++) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "pmu", b[i].pmu);
		if (b[i].gp >= 0) {
			jsonw_int_field(json_wtr, "general_purpose", b[i].gp);
			jsonw_int_field(json_wtr, "fixed", b[i].fixed);
		} else {
			jsonw_null_field(json_wtr, "general_purpose");
			jsonw_null_field(json_wtr, "fixed");
		}
		jsonw_string_field(json_wtr, "source", b[i].source);
		jsonw_int_field(json_wtr, "used", b[i].used);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
}

static void plain_budgets(const struct topdown_config *cfg)
{
	struct td_budget b[TD_MAX_BUDGETS];
	int n = td_counter_budgets(cfg, b, TD_MAX_BUDGETS);

	for (int i = 0; i < n; i++) {
		if (b[i].gp >= 0)
			printf("counters:   %s: %d general-purpose + %d fixed (%s), the event set uses %d\n",
			       b[i].pmu, b[i].gp, b[i].fixed, b[i].source,
			       b[i].used);
		else
			printf("counters:   %s: unknown (%s), the event set uses %d\n",
			       b[i].pmu, b[i].source, b[i].used);
	}
}

/* "name=state ..." of one CPU's events, for the CSV and plain output. */
static void ev_states(const struct topdown_status *st,
		      const struct topdown_config *cfg,
		      const struct topdown_cpu_stats *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (uint32_t e = 0; cfg && e < cfg->nr_events && off < len; e++)
		off += snprintf(buf + off, len - off, "%s%s=%s", e ? " " : "",
				cfg->events[e].name, td_evstate_name(st, s, e));
}

static void status_json(enum td_backend be, const struct topdown_status *st,
			const struct topdown_config *cfg,
			const struct topdown_cpu_stats *stats)
{
	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "backend", td_backend_name(be));
	if (be == TD_BACKEND_BPF) {
		jsonw_name(json_wtr, "differences");
		jsonw_start_array(json_wtr);
		for (int i = 0; td_bpf_differences[i]; i++)
			jsonw_string(json_wtr, td_bpf_differences[i]);
		jsonw_end_array(json_wtr);
	}
	jsonw_string_field(json_wtr, "state", td_state_name(st->state));
	jsonw_uint_field(json_wtr, "abi_version", st->abi_version);
	td_status_versions();
	jsonw_uint_field(json_wtr, "record_size", st->record_size);
	jsonw_uint_field(json_wtr, "nr_cpus", st->nr_cpus);
	jsonw_bool_field(json_wtr, "reader", st->reader);
	jsonw_uint_field(json_wtr, "start_ns", st->start_ns);
	jsonw_uint_field(json_wtr, "stop_ns", st->stop_ns);
	if (st->error_code) {
		jsonw_name(json_wtr, "last_error");
		jsonw_start_object(json_wtr);
		jsonw_int_field(json_wtr, "errno", -st->error_code);
		jsonw_string_field(json_wtr, "message", strerror(-st->error_code));
		jsonw_int_field(json_wtr, "event", st->error_event);
		jsonw_int_field(json_wtr, "cpu", st->error_cpu);
		jsonw_end_object(json_wtr);
	}
	if (cfg) {
		jsonw_string_field(json_wtr, "label", cfg->label);
		jsonw_uint_field(json_wtr, "ring_size", cfg->ring_size);
		jsonw_uint_field(json_wtr, "watermark", cfg->watermark);
		jsonw_string_field(json_wtr, "overflow",
				   cfg->flags & TOPDOWN_OVERFLOW_OVERWRITE ?
				   "overwrite" : "drop");
		jsonw_name(json_wtr, "events");
		jsonw_start_array(json_wtr);
		for (uint32_t i = 0; i < cfg->nr_events; i++) {
			const struct topdown_event *e = &cfg->events[i];

			jsonw_start_object(json_wtr);
			json_event_fields(e);
			jsonw_bool_field(json_wtr, "all_cpus", !e->cpus_size);
			jsonw_end_object(json_wtr);
		}
		jsonw_end_array(json_wtr);
	}
	jsonw_name(json_wtr, "cpus");
	jsonw_start_array(json_wtr);
	for (uint32_t i = 0; i < st->nr_stats; i++) {
		const struct topdown_cpu_stats *s = &stats[i];

		jsonw_start_object(json_wtr);
		jsonw_uint_field(json_wtr, "cpu", s->cpu);
		jsonw_bool_field(json_wtr, "online", s->flags & TOPDOWN_CPU_ONLINE);
		jsonw_bool_field(json_wtr, "counting", s->flags & TOPDOWN_CPU_COUNTING);
		jsonw_uint_field(json_wtr, "records", s->records);
		jsonw_uint_field(json_wtr, "lost", s->lost);
		jsonw_uint_field(json_wtr, "read_errors", s->read_errors);
		jsonw_uint_field(json_wtr, "probe_count", s->probe_count);
		jsonw_uint_field(json_wtr, "probe_ns", s->probe_ns);
		jsonw_float_field(json_wtr, "probe_ns_mean", s->probe_count ?
				  (double)s->probe_ns / s->probe_count : 0.0);
		if (cfg && td_stats_have_ev_state(st)) {
			jsonw_uint_field(json_wtr, "recoveries", s->recoveries);
			jsonw_name(json_wtr, "events");
			jsonw_start_array(json_wtr);
			for (uint32_t e = 0; e < cfg->nr_events; e++) {
				jsonw_start_object(json_wtr);
				jsonw_string_field(json_wtr, "name", cfg->events[e].name);
				jsonw_string_field(json_wtr, "state",
						   td_evstate_name(st, s, e));
				jsonw_bool_field(json_wtr, "no_counter_at_start",
						 s->arm_errors & (1u << e));
				jsonw_uint_field(json_wtr, "error_slices",
						 s->ev_error_slices[e]);
				jsonw_end_object(json_wtr);
			}
			jsonw_end_array(json_wtr);
		}
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
	if (cfg && td_events_without_counter(st, stats, false))
		jsonw_string_field(json_wtr, "no_counter_reason",
				   td_no_counter_reason());
	json_budgets(cfg);
	jsonw_end_object(json_wtr);
}

/* CSV: one row per CPU, each with the collection's state and
 * configuration (empty when idle); the events are in 'tdctl list'.
 */
static void status_csv(enum td_backend be, const struct topdown_status *st,
		       const struct topdown_config *cfg,
		       const struct topdown_cpu_stats *stats)
{
	static const char *const fields[] = {
		"state", "abi_version", "record_size", "nr_cpus", "reader",
		"start_ns", "stop_ns", "last_error", "label", "ring_size",
		"watermark", "overflow", "cpu", "online", "counting", "records",
		"lost", "read_errors", "probe_count", "probe_ns",
		"probe_ns_mean", "event_states", "recoveries", "backend", NULL,
	};
	struct csv_writer w;
	char err[160] = "";
	char evs[TOPDOWN_MAX_EVENTS * (TOPDOWN_NAME_LEN + 16)];

	if (st->error_code)
		snprintf(err, sizeof(err), "event %d on CPU %d: %s",
			 st->error_event, st->error_cpu,
			 strerror(-st->error_code));
	csvw_init(&w, stdout);
	csvw_header(&w, fields);
	for (uint32_t i = 0; i < st->nr_stats; i++) {
		const struct topdown_cpu_stats *s = &stats[i];

		csvw_str(&w, td_state_name(st->state));
		csvw_uint(&w, st->abi_version);
		csvw_uint(&w, st->record_size);
		csvw_uint(&w, st->nr_cpus);
		csvw_bool(&w, st->reader);
		csvw_uint(&w, st->start_ns);
		csvw_uint(&w, st->stop_ns);
		csvw_str(&w, err);
		if (cfg) {
			csvw_str(&w, cfg->label);
			csvw_uint(&w, cfg->ring_size);
			csvw_uint(&w, cfg->watermark);
			csvw_str(&w, cfg->flags & TOPDOWN_OVERFLOW_OVERWRITE ?
				 "overwrite" : "drop");
		} else {
			for (int k = 0; k < 4; k++)
				csvw_empty(&w);
		}
		csvw_uint(&w, s->cpu);
		csvw_bool(&w, s->flags & TOPDOWN_CPU_ONLINE);
		csvw_bool(&w, s->flags & TOPDOWN_CPU_COUNTING);
		csvw_uint(&w, s->records);
		csvw_uint(&w, s->lost);
		csvw_uint(&w, s->read_errors);
		csvw_uint(&w, s->probe_count);
		csvw_uint(&w, s->probe_ns);
		csvw_float(&w, s->probe_count ?
			   (double)s->probe_ns / s->probe_count : 0.0);
		ev_states(st, cfg, s, evs, sizeof(evs));
		csvw_str(&w, evs);
		csvw_uint(&w, s->recoveries);
		csvw_str(&w, td_backend_name(be));
		csvw_end_row(&w);
	}
}

static void status_plain(enum td_backend be, const struct topdown_status *st,
			 const struct topdown_config *cfg,
			 const struct topdown_cpu_stats *stats)
{
	if (be == TD_BACKEND_BPF) {
		printf("backend:    bpf (%s), unlike the module:\n", TD_BPF_DIR);
		for (int i = 0; td_bpf_differences[i]; i++)
			printf("  - %s\n", td_bpf_differences[i]);
	} else {
		printf("backend:    module (%s)\n", TOPDOWN_DEVICE);
	}
	printf("state:      %s", td_state_name(st->state));
	if (st->state == TOPDOWN_STATE_RUNNING && st->start_ns)
		printf(" for %.3f s", mono_now_s() - st->start_ns / 1e9);
	printf("\nabi:        %u (record %u bytes)\n", st->abi_version,
	       st->record_size);
	td_status_versions();
	printf("reader:     %s\n", st->reader ? "attached" : "none");
	if (st->error_code)
		printf("last error: event %d on CPU %d: %s\n", st->error_event,
		       st->error_cpu, strerror(-st->error_code));
	if (cfg) {
		printf("label:      %s\n", cfg->label);
		if (be == TD_BACKEND_BPF)
			printf("ring:       one BPF ring buffer of %u bytes per CPU (%u records) times the CPUs, drop new when full, wake-up at %u bytes\n",
			       cfg->ring_size, cfg->ring_size / TOPDOWN_RECORD_SIZE,
			       cfg->watermark);
		else
			printf("ring:       %u bytes per CPU (%u records), %s when full, wake-up at %u bytes\n",
			       cfg->ring_size, cfg->ring_size / TOPDOWN_RECORD_SIZE,
			       cfg->flags & TOPDOWN_OVERFLOW_OVERWRITE ?
			       "overwrite oldest" : "drop new",
			       cfg->watermark);
		printf("events:\n");
		for (uint32_t i = 0; i < cfg->nr_events; i++) {
			const struct topdown_event *e = &cfg->events[i];

			printf("  %-24s type %-3u config 0x%llx%s\n", e->name,
			       e->type, (unsigned long long)e->config,
			       e->cpus_size ? " (some CPUs)" : "");
		}
	}
	printf("\n%4s %-8s %12s %10s %10s %12s %14s %9s\n", "CPU", "STATE",
	       "RECORDS", "LOST", "ERRORS", "PROBE_CALLS", "PROBE_NS", "MEAN_NS");
	for (uint32_t i = 0; i < st->nr_stats; i++) {
		const struct topdown_cpu_stats *s = &stats[i];
		const char *state = s->flags & TOPDOWN_CPU_COUNTING ? "counting" :
				    s->flags & TOPDOWN_CPU_ONLINE ? "online" :
				    "offline";

		printf("%4u %-8s %12llu %10llu %10llu %12llu %14llu %9.1f\n",
		       s->cpu, state, (unsigned long long)s->records,
		       (unsigned long long)s->lost,
		       (unsigned long long)s->read_errors,
		       (unsigned long long)s->probe_count,
		       (unsigned long long)s->probe_ns,
		       s->probe_count ? (double)s->probe_ns / s->probe_count : 0.0);
	}
	if (!cfg)
		return;
	printf("\n");
	plain_budgets(cfg);
	if (st->state != TOPDOWN_STATE_RUNNING)
		return;
	if (!td_stats_have_ev_state(st)) {
		printf("counter states: not reported by this module\n");
		return;
	}
	/* Per CPU, only the events that are not simply counting. */
	for (uint32_t i = 0; i < st->nr_stats; i++) {
		const struct topdown_cpu_stats *s = &stats[i];
		char evs[TOPDOWN_MAX_EVENTS * (TOPDOWN_NAME_LEN + 16)];
		bool odd = s->recoveries;

		for (uint32_t e = 0; e < cfg->nr_events; e++)
			odd |= s->ev_state[e] != TOPDOWN_EVSTATE_COUNTING &&
			       s->flags & TOPDOWN_CPU_COUNTING;
		if (!odd)
			continue;
		ev_states(st, cfg, s, evs, sizeof(evs));
		printf("CPU %u counters: %s (recovered %llu)\n", s->cpu, evs,
		       (unsigned long long)s->recoveries);
	}
	td_warn_no_counter(st, stats, cfg,
			   td_events_without_counter(st, stats, false), false);
}

int do_status(int argc, char **argv)
{
	struct topdown_cpu_stats *stats = NULL;
	struct topdown_config cfg;
	struct topdown_status st;
	enum td_backend src_kind;
	struct td_src src;
	bool have_cfg;
	int ret;

	ret = td_no_options(argc, argv,
			   "Show the collection's state, configuration and per-CPU statistics\n"
			   "(records, lost, read errors, time spent in the probe).\n");
	if (ret <= 0)
		return ret;
	if (td_src_open(&src, false))
		return -1;
	src_kind = src.kind;
	if (td_src_status(&src, &st, &stats)) {
		td_src_close(&src);
		return -1;
	}
	have_cfg = st.state != TOPDOWN_STATE_IDLE && !td_src_config(&src, &cfg);
	td_src_close(&src);
	if (json_output)
		status_json(src_kind, &st, have_cfg ? &cfg : NULL, stats);
	else if (csv_output)
		status_csv(src_kind, &st, have_cfg ? &cfg : NULL, stats);
	else
		status_plain(src_kind, &st, have_cfg ? &cfg : NULL, stats);
	free(stats);
	return 0;
}
