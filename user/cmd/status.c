// SPDX-License-Identifier: GPL-2.0
/* tdctl status: configuration, state and per-CPU statistics. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/abi.h"
#include "evset/counters.h"
#include "live/backend.h"
#include "live/bpf/bpf.h"
#include "live/device.h"
#include "output/emit.h"
#include "output/vocab.h"
#include "cli/tdctl.h"

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
			printf("counters:   %s: %d general-purpose + %d fixed (%s), the event set "
			       "uses %d\n",
			       b[i].pmu, b[i].gp, b[i].fixed, b[i].source,
			       b[i].used);
		else
			printf("counters:   %s: unknown (%s), the event set uses %d\n",
			       b[i].pmu, b[i].source, b[i].used);
	}
}

/* The module reported the per-group statistics (TOPDOWN_CPU_STATS_SIZE_VER3). */
static bool have_groups(const struct topdown_status *st,
			const struct topdown_config *cfg)
{
	return cfg && cfg->nr_groups && st->stats_size >= TOPDOWN_CPU_STATS_SIZE_VER3;
}

/* The group whose events a CPU's per-position fields describe now. */
static uint32_t cur_group(const struct topdown_status *st,
			  const struct topdown_config *cfg,
			  const struct topdown_cpu_stats *s)
{
	return have_groups(st, cfg) && s->cur_group < td_cfg_nr_groups(cfg) ?
	       s->cur_group : 0;
}

/* Name of the event at position j of group g. */
static const char *pos_name(const struct topdown_config *cfg, uint32_t g,
			    uint32_t j)
{
	return td_cfg_event(cfg, td_cfg_group_event(cfg, g, j))->name;
}

/* "name=state ..." of one CPU's events (with groups, the current one's),
 * for the CSV and plain output.
 */
static void ev_states(const struct topdown_status *st,
		      const struct topdown_config *cfg,
		      const struct topdown_cpu_stats *s, char *buf, size_t len)
{
	uint32_t g = cur_group(st, cfg, s);
	size_t off = 0;

	buf[0] = '\0';
	for (uint32_t e = 0; cfg && e < td_cfg_group_nr(cfg, g) && off < len; e++)
		off += snprintf(buf + off, len - off, "%s%s=%s", e ? " " : "",
				pos_name(cfg, g, e), td_evstate_name(st, s, e));
}

/* "v0 v1 ..." of a per-group array, for the CSV. */
static void per_group(const struct topdown_config *cfg, const __u64 *v,
		      char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (uint32_t g = 0; g < td_cfg_nr_groups(cfg) && off < len; g++)
		off += snprintf(buf + off, len - off, "%s%llu", g ? " " : "",
				(unsigned long long)v[g]);
}

/* The per-CPU rows, in every format: CSV repeats the collection's state
 * and configuration in each row (empty when idle).
 */
enum {
	F_STATE, F_ABI, F_RECORD_SIZE, F_NR_CPUS, F_READER, F_START, F_STOP,
	F_ERROR, F_LABEL, F_RING, F_WATERMARK, F_OVERFLOW, F_CPU, F_ONLINE,
	F_COUNTING, F_CPU_STATE, F_RECORDS, F_LOST, F_READ_ERRORS,
	F_PROBE_COUNT, F_PROBE_NS, F_PROBE_MEAN, F_EV_STATES, F_RECOVERIES,
	F_RETRIES, F_RETRY_DELAY, F_BACKEND, F_CUR_GROUP, F_ROTATIONS,
	F_ROTATION_NS, F_GRP_RECORDS, F_GRP_TIME, F_GRP_ERRORS, F_NR
};

/* JSON key and CSV column, table title, formats, column, width, decimals */
#define FIELD(n_, t_, in_, col_, w_, prec_) \
	{ .name = n_, .title = t_, .in = in_, .col = col_, .width = w_, \
	  .prec = prec_ }
#define CSV_FIELD(n_)	FIELD(n_, NULL, TD_IN_CSV, -1, 0, 0)

static const struct td_field cpu_fields[F_NR] = {
	[F_STATE] = CSV_FIELD("state"),
	[F_ABI] = CSV_FIELD("abi_version"),
	[F_RECORD_SIZE] = CSV_FIELD("record_size"),
	[F_NR_CPUS] = CSV_FIELD("nr_cpus"),
	[F_READER] = CSV_FIELD("reader"),
	[F_START] = CSV_FIELD("start_ns"),
	[F_STOP] = CSV_FIELD("stop_ns"),
	[F_ERROR] = CSV_FIELD("last_error"),
	[F_LABEL] = CSV_FIELD("label"),
	[F_RING] = CSV_FIELD("ring_size"),
	[F_WATERMARK] = CSV_FIELD("watermark"),
	[F_OVERFLOW] = CSV_FIELD("overflow"),
	[F_CPU] = FIELD("cpu", "CPU", TD_IN_ALL, 0, 4, 0),
	[F_ONLINE] = FIELD("online", NULL, TD_IN_JSON | TD_IN_CSV, -1, 0,
			   0),
	[F_COUNTING] = FIELD("counting", NULL, TD_IN_JSON | TD_IN_CSV, -1, 0,
			     0),
	[F_CPU_STATE] = FIELD("state", "STATE", TD_IN_PLAIN, 1, -8, 0),
	[F_RECORDS] = FIELD("records", "RECORDS", TD_IN_ALL, 2, 12, 0),
	[F_LOST] = FIELD("lost", "LOST", TD_IN_ALL, 3, 10, 0),
	[F_READ_ERRORS] = FIELD("read_errors", "ERRORS", TD_IN_ALL, 4, 10,
				0),
	[F_PROBE_COUNT] = FIELD("probe_count", "PROBE_CALLS", TD_IN_ALL, 5, 12,
				0),
	[F_PROBE_NS] = FIELD("probe_ns", "PROBE_NS", TD_IN_ALL, 6, 14, 0),
	[F_PROBE_MEAN] = FIELD("probe_ns_mean", "MEAN_NS", TD_IN_ALL, 7, 9,
			       1),
	[F_EV_STATES] = CSV_FIELD("event_states"),
	/* JSON too where the module reports counter states */
	[F_RECOVERIES] = CSV_FIELD("recoveries"),
	/* JSON too where the module reports the retries' back-off */
	[F_RETRIES] = CSV_FIELD("retries"),
	[F_RETRY_DELAY] = CSV_FIELD("retry_delay_ms"),
	[F_BACKEND] = CSV_FIELD("backend"),
	/* With groups only (have_groups()): JSON and CSV; the plain output
	 * has a table of its own (group_rows()). Names from the vocabulary.
	 */
	[F_CUR_GROUP] = FIELD("cur_group", NULL, 0, -1, 0, 0),
	[F_ROTATIONS] = FIELD("rotations", NULL, 0, -1, 0, 0),
	[F_ROTATION_NS] = FIELD("rotation_ns", NULL, 0, -1, 0, 0),
	[F_GRP_RECORDS] = FIELD("group_records", NULL, 0, -1, 0, 0),
	[F_GRP_TIME] = FIELD("group_runtime_ns", NULL, 0, -1, 0, 0),
	[F_GRP_ERRORS] = FIELD("group_error_slices", NULL, 0, -1, 0, 0),
};

/* Per CPU, per group: its records, time, errors and counters (JSON). */
static void json_groups(json_writer_t *w, const struct topdown_status *st,
			const struct topdown_config *cfg,
			const struct topdown_cpu_stats *s)
{
	jsonw_name(w, "groups");
	jsonw_start_array(w);
	for (uint32_t g = 0; g < td_cfg_nr_groups(cfg); g++) {
		jsonw_start_object(w);
		jsonw_uint_field(w, "group", g);
		jsonw_uint_field(w, "records", s->grp_records[g]);
		jsonw_uint_field(w, "runtime_ns", s->grp_time_ns[g]);
		jsonw_uint_field(w, "error_slices", s->grp_error_slices[g]);
		jsonw_name(w, "events");
		jsonw_start_array(w);
		for (uint32_t j = 0; j < td_cfg_group_nr(cfg, g); j++) {
			jsonw_start_object(w);
			jsonw_string_field(w, "name", pos_name(cfg, g, j));
			jsonw_string_field(w, "state",
					   st->state != TOPDOWN_STATE_RUNNING ? "off" :
					   td_evstate_str(s->grp_ev_state[g][j]));
			jsonw_uint_field(w, "error_slices",
					 s->grp_ev_error_slices[g][j]);
			jsonw_end_object(w);
		}
		jsonw_end_array(w);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

static void cpu_rows(struct td_emit *e, enum td_backend be,
		     const struct topdown_status *st,
		     const struct topdown_config *cfg,
		     const struct topdown_cpu_stats *stats)
{
	struct td_field f[F_NR];
	char err[160] = "";
	char evs[TOPDOWN_MAX_EVENTS * (TOPDOWN_NAME_LEN + 16)];
	bool ev_state = cfg && td_stats_have_ev_state(st);

	memcpy(f, cpu_fields, sizeof(f));
	if (ev_state)
		f[F_RECOVERIES].in |= TD_IN_JSON;
	if (ev_state && td_stats_have_retries(st)) {
		f[F_RETRIES].in |= TD_IN_JSON;
		f[F_RETRY_DELAY].in |= TD_IN_JSON;
	}
	if (have_groups(st, cfg)) {
		for (int k = F_CUR_GROUP; k <= F_ROTATION_NS; k++)
			f[k].in = TD_IN_JSON | TD_IN_CSV;
		for (int k = F_GRP_RECORDS; k <= F_GRP_ERRORS; k++)
			f[k].in = TD_IN_CSV;
	}
	if (st->error_code)
		snprintf(err, sizeof(err), "event %d on CPU %d: %s",
			 st->error_event, st->error_cpu,
			 strerror(-st->error_code));
	td_emit_header(e, f, F_NR, NULL);
	td_emit_list_begin(e, "cpus");
	for (uint32_t i = 0; i < st->nr_stats; i++) {
		const struct topdown_cpu_stats *s = &stats[i];
		json_writer_t *w;

		td_emit_begin(e, NULL, NULL);
		td_emit_str(e, &f[F_STATE], td_state_name(st->state), SIZE_MAX);
		td_emit_uint(e, &f[F_ABI], st->abi_version);
		td_emit_uint(e, &f[F_RECORD_SIZE], st->record_size);
		td_emit_uint(e, &f[F_NR_CPUS], st->nr_cpus);
		td_emit_bool(e, &f[F_READER], st->reader);
		td_emit_uint(e, &f[F_START], st->start_ns);
		td_emit_uint(e, &f[F_STOP], st->stop_ns);
		td_emit_str(e, &f[F_ERROR], err, SIZE_MAX);
		if (cfg) {
			td_emit_str(e, &f[F_LABEL], cfg->label,
				    sizeof(cfg->label));
			td_emit_uint(e, &f[F_RING], cfg->ring_size);
			td_emit_uint(e, &f[F_WATERMARK], cfg->watermark);
			td_emit_str(e, &f[F_OVERFLOW],
				    cfg->flags & TOPDOWN_OVERFLOW_OVERWRITE ?
				    "overwrite" : "drop", SIZE_MAX);
		} else {
			for (int k = F_LABEL; k <= F_OVERFLOW; k++)
				td_emit_skip(e, &f[k]);
		}
		td_emit_uint(e, &f[F_CPU], s->cpu);
		td_emit_bool(e, &f[F_ONLINE], s->flags & TOPDOWN_CPU_ONLINE);
		td_emit_bool(e, &f[F_COUNTING], s->flags & TOPDOWN_CPU_COUNTING);
		td_emit_word(e, &f[F_CPU_STATE],
			     s->flags & TOPDOWN_CPU_COUNTING ? "counting" :
			     s->flags & TOPDOWN_CPU_ONLINE ? "online" :
			     "offline");
		td_emit_uint(e, &f[F_RECORDS], s->records);
		td_emit_uint(e, &f[F_LOST], s->lost);
		td_emit_uint(e, &f[F_READ_ERRORS], s->read_errors);
		td_emit_uint(e, &f[F_PROBE_COUNT], s->probe_count);
		td_emit_uint(e, &f[F_PROBE_NS], s->probe_ns);
		td_emit_float(e, &f[F_PROBE_MEAN], s->probe_count ?
			      (double)s->probe_ns / s->probe_count : 0.0,
			      true);
		ev_states(st, cfg, s, evs, sizeof(evs));
		td_emit_str(e, &f[F_EV_STATES], evs, sizeof(evs));
		td_emit_uint(e, &f[F_RECOVERIES], s->recoveries);
		td_emit_uint(e, &f[F_RETRIES], s->retries);
		td_emit_uint(e, &f[F_RETRY_DELAY], s->retry_delay_ms);
		td_emit_str(e, &f[F_BACKEND], td_backend_name(be), SIZE_MAX);
		if (have_groups(st, cfg)) {
			char v[TOPDOWN_MAX_GROUPS * 24];

			td_emit_uint(e, &f[F_CUR_GROUP], s->cur_group);
			td_emit_uint(e, &f[F_ROTATIONS], s->rotations);
			td_emit_uint(e, &f[F_ROTATION_NS], s->rotation_ns);
			per_group(cfg, s->grp_records, v, sizeof(v));
			td_emit_word(e, &f[F_GRP_RECORDS], v);
			per_group(cfg, s->grp_time_ns, v, sizeof(v));
			td_emit_word(e, &f[F_GRP_TIME], v);
			per_group(cfg, s->grp_error_slices, v, sizeof(v));
			td_emit_word(e, &f[F_GRP_ERRORS], v);
		}
		w = td_emit_json(e);
		if (w && have_groups(st, cfg))
			json_groups(w, st, cfg, s);
		if (w && ev_state) {
			uint32_t g = cur_group(st, cfg, s);

			/* With groups: the group counting now, by position. */
			jsonw_name(w, "events");
			jsonw_start_array(w);
			for (uint32_t k = 0; k < td_cfg_group_nr(cfg, g); k++) {
				jsonw_start_object(w);
				jsonw_string_field(w, "name", pos_name(cfg, g, k));
				jsonw_string_field(w, "state",
						   td_evstate_name(st, s, k));
				jsonw_bool_field(w, "no_counter_at_start",
						 s->arm_errors & (1u << k));
				jsonw_uint_field(w, "error_slices",
						 s->ev_error_slices[k]);
				jsonw_end_object(w);
			}
			jsonw_end_array(w);
		}
		td_emit_end(e);
	}
	td_emit_list_end(e);
}

/* What the BPF backend does differently (NULL for the module), and
 * whether it has per-CPU rings.
 */
static const char *const *bpf_diffs;
static bool bpf_percpu;
/* The counts of the active backend's totals: 0 or -errno. */
static int totals_counts(const struct td_src *src, struct topdown_totals *q)
{
	struct td_bpf_totals *bt;
	int ret;

	if (src->kind != TD_BACKEND_BPF)
		return td_dev_totals_counts(src->fd, q);
	ret = td_bpf_totals_open(&bt);
	if (!ret)
		ret = td_bpf_totals_counts(bt, q);
	td_bpf_totals_close(bt);
	return ret;
}

/* The backend's totals (load --totals), NULL without them. */
static const struct topdown_totals *totals;

static void json_totals(void)
{
	jsonw_name(json_wtr, "totals");
	if (!totals) {
		jsonw_null(json_wtr);
		return;
	}
	jsonw_start_object(json_wtr);
	jsonw_uint_field(json_wtr, "pool_tasks", totals->pool_tasks);
	jsonw_uint_field(json_wtr, "tasks", totals->nr_tasks);
	jsonw_uint_field(json_wtr, "no_room", totals->no_room);
	jsonw_uint_field(json_wtr, "reclaimed", totals->reclaimed);
	jsonw_uint_field(json_wtr, "generation", totals->generation);
	jsonw_end_object(json_wtr);
}

/* The groups of the configuration, and how they rotate (plain). */
static void plain_groups(const struct topdown_config *cfg)
{
	if (!cfg->nr_groups)
		return;
	if (cfg->nr_groups > 1)
		printf("groups:     %u, each CPU moves to the next every %u ms "
		       "(between two slices)\n", cfg->nr_groups, cfg->rotate_ms);
	else
		printf("groups:     1 (no rotation)\n");
	for (uint32_t g = 0; g < cfg->nr_groups; g++) {
		printf("  %u:", g);
		for (uint32_t j = 0; j < td_cfg_group_nr(cfg, g); j++)
			printf(" %s", pos_name(cfg, g, j));
		printf("\n");
	}
}

/*
 * Plain: one row per CPU and group: whether it counts now, its records,
 * the run time it measured and its share of the CPU's, its slices with
 * errors; the CPU's group changes on its group 0 row. Names and titles
 * are the vocabulary's (td_voc_title()).
 */
enum {
	G_CPU, G_GROUP, G_STATE, G_RECORDS, G_TIME, G_SHARE, G_ERRORS,
	G_ROTATIONS, G_ROT_US, G_NR
};

static const struct td_field group_fields[G_NR] = {
	[G_CPU] = FIELD("cpu", NULL, TD_IN_PLAIN, 0, 4, 0),
	[G_GROUP] = FIELD("group", NULL, TD_IN_PLAIN, 1, 6, 0),
	[G_STATE] = FIELD("state", NULL, TD_IN_PLAIN, 2, -9, 0),
	[G_RECORDS] = FIELD("records", NULL, TD_IN_PLAIN, 3, 12, 0),
	[G_TIME] = FIELD("runtime_ns", NULL, TD_IN_PLAIN, 4, 12, 0),
	[G_SHARE] = FIELD("runtime_share", NULL, TD_IN_PLAIN, 5, 6, 0),
	[G_ERRORS] = FIELD("error_slices", NULL, TD_IN_PLAIN, 6, 11, 0),
	[G_ROTATIONS] = FIELD("rotations", NULL, TD_IN_PLAIN, 7, 10, 0),
	[G_ROT_US] = FIELD("rotation_ns", NULL, TD_IN_PLAIN, 8, 8, 0),
};

static void group_rows(struct td_emit *e, const struct topdown_status *st,
		       const struct topdown_config *cfg,
		       const struct topdown_cpu_stats *stats)
{
	struct td_field f[G_NR];

	memcpy(f, group_fields, sizeof(f));
	for (int k = 0; k < G_NR; k++) {
		f[k].title = td_voc_title(f[k].name);
		f[k].prec = td_voc_prec(f[k].name);
	}
	td_emit_header(e, f, G_NR, NULL);
	for (uint32_t i = 0; i < st->nr_stats; i++) {
		const struct topdown_cpu_stats *s = &stats[i];
		uint64_t total = 0;

		for (uint32_t g = 0; g < td_cfg_nr_groups(cfg); g++)
			total += s->grp_time_ns[g];
		if (!total && !s->rotations && !(s->flags & TOPDOWN_CPU_ONLINE))
			continue;
		for (uint32_t g = 0; g < td_cfg_nr_groups(cfg); g++) {
			bool now = s->cur_group == g &&
				   s->flags & TOPDOWN_CPU_COUNTING;

			td_emit_begin(e, NULL, NULL);
			td_emit_uint(e, &f[G_CPU], s->cpu);
			td_emit_uint(e, &f[G_GROUP], g);
			td_emit_word(e, &f[G_STATE], now ? "counting" : "waiting");
			td_emit_uint(e, &f[G_RECORDS], s->grp_records[g]);
			/* milliseconds in tables (the vocabulary's RUN_MS) */
			td_emit_float(e, &f[G_TIME], s->grp_time_ns[g] / 1e6, true);
			td_emit_float(e, &f[G_SHARE], total ?
				      100.0 * s->grp_time_ns[g] / total : 0, total);
			td_emit_uint(e, &f[G_ERRORS], s->grp_error_slices[g]);
			if (g) {
				td_emit_null(e, &f[G_ROTATIONS]);
				td_emit_null(e, &f[G_ROT_US]);
			} else {
				td_emit_uint(e, &f[G_ROTATIONS], s->rotations);
				/* microseconds per change (ROT_US) */
				td_emit_float(e, &f[G_ROT_US], s->rotations ?
					      s->rotation_ns / 1e3 / s->rotations : 0,
					      s->rotations);
			}
			td_emit_end(e);
		}
	}
}

static void status_json(enum td_backend be, const struct topdown_status *st,
			const struct topdown_config *cfg,
			const struct topdown_cpu_stats *stats)
{
	struct td_emit out;

	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "backend", td_backend_name(be));
	if (be == TD_BACKEND_BPF) {
		jsonw_name(json_wtr, "differences");
		jsonw_start_array(json_wtr);
		for (int i = 0; bpf_diffs[i]; i++)
			jsonw_string(json_wtr, bpf_diffs[i]);
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
	json_totals();
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
			const struct topdown_event *e = td_cfg_event(cfg, i);

			jsonw_start_object(json_wtr);
			jsonw_event_fields(json_wtr, e);
			jsonw_bool_field(json_wtr, "all_cpus", !e->cpus_size);
			jsonw_end_object(json_wtr);
		}
		jsonw_end_array(json_wtr);
		/* Groups: pool indexes into "events", in record order. */
		jsonw_uint_field(json_wtr, "nr_groups", cfg->nr_groups);
		jsonw_uint_field(json_wtr, "rotate_ms", cfg->rotate_ms);
		jsonw_name(json_wtr, "groups");
		jsonw_start_array(json_wtr);
		for (uint32_t g = 0; g < cfg->nr_groups; g++) {
			jsonw_start_object(json_wtr);
			jsonw_name(json_wtr, "events");
			jsonw_start_array(json_wtr);
			for (uint32_t j = 0; j < td_cfg_group_nr(cfg, g); j++)
				jsonw_uint(json_wtr, td_cfg_group_event(cfg, g, j));
			jsonw_end_array(json_wtr);
			jsonw_end_object(json_wtr);
		}
		jsonw_end_array(json_wtr);
	}
	td_emit_init(&out, stdout);
	cpu_rows(&out, be, st, cfg, stats);
	if (cfg && td_events_without_counter(st, stats, false))
		jsonw_string_field(json_wtr, "no_counter_reason",
				   td_no_counter_reason());
	json_budgets(cfg);
	jsonw_end_object(json_wtr);
}

static void status_plain(enum td_backend be, const struct topdown_status *st,
			 const struct topdown_config *cfg,
			 const struct topdown_cpu_stats *stats)
{
	struct td_emit out;

	if (be == TD_BACKEND_BPF) {
		printf("backend:    bpf (%s), unlike the module:\n", TD_BPF_DIR);
		for (int i = 0; bpf_diffs[i]; i++)
			printf("  - %s\n", bpf_diffs[i]);
	} else {
		printf("backend:    module (%s)\n", TOPDOWN_DEVICE);
	}
	printf("state:      %s", td_state_name(st->state));
	if (st->state == TOPDOWN_STATE_RUNNING && st->start_ns)
		printf(" for %.3f s", ((double)td_now_ns() - (double)st->start_ns) / 1e9);
	printf("\nabi:        %u (record %u bytes)\n", st->abi_version,
	       st->record_size);
	td_status_versions();
	printf("reader:     %s\n", st->reader ? "attached" : "none");
	if (st->error_code)
		printf("last error: event %d on CPU %d: %s\n", st->error_event,
		       st->error_cpu, strerror(-st->error_code));
	if (cfg) {
		printf("label:      %s\n", cfg->label);
		if (be == TD_BACKEND_BPF && !bpf_percpu)
			printf("ring:       one BPF ring buffer shared by all CPUs: "
			       "%u bytes (%u records) times the CPUs, rounded up to a "
			       "power of two; drop new when full, wake-up at %u bytes\n",
			       cfg->ring_size, cfg->ring_size / TOPDOWN_RECORD_SIZE,
			       cfg->watermark);
		else
			printf("ring:       %u bytes per CPU (%u records), %s when full, "
			       "wake-up at %u bytes\n",
			       cfg->ring_size, cfg->ring_size / TOPDOWN_RECORD_SIZE,
			       cfg->flags & TOPDOWN_OVERFLOW_OVERWRITE ?
			       "overwrite oldest" : "drop new",
			       cfg->watermark);
		if (totals)
			printf("totals:     in the kernel, %u of %u task entries in use; "
			       "%llu slices found no room, %llu exited tasks' entries "
			       "folded to make room\n",
			       totals->nr_tasks, totals->pool_tasks,
			       (unsigned long long)totals->no_room,
			       (unsigned long long)totals->reclaimed);
		else if (cfg->flags & TOPDOWN_CONFIG_TOTALS)
			printf("totals:     in the kernel, from the next start on (%u task "
			       "entries)\n", cfg->totals_tasks);
		printf("events:\n");
		for (uint32_t i = 0; i < cfg->nr_events; i++) {
			const struct topdown_event *e = td_cfg_event(cfg, i);

			printf("  %-24s type %-3u config 0x%llx%s\n", e->name,
			       e->type, (unsigned long long)e->config,
			       e->cpus_size ? " (some CPUs)" : "");
		}
		plain_groups(cfg);
	}
	printf("\n");
	td_emit_init(&out, stdout);
	cpu_rows(&out, be, st, cfg, stats);
	if (!cfg)
		return;
	if (have_groups(st, cfg)) {
		printf("\n");
		td_emit_init(&out, stdout);
		group_rows(&out, st, cfg, stats);
	}
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

		for (uint32_t e = 0; e < td_cfg_group_nr(cfg, cur_group(st, cfg, s)); e++)
			odd |= s->ev_state[e] != TOPDOWN_EVSTATE_COUNTING &&
			       s->flags & TOPDOWN_CPU_COUNTING;
		if (!odd)
			continue;
		ev_states(st, cfg, s, evs, sizeof(evs));
		printf("CPU %u counters: %s (recovered %llu", s->cpu, evs,
		       (unsigned long long)s->recoveries);
		if (td_stats_have_retries(st) && s->retries)
			printf(", %llu retries", (unsigned long long)s->retries);
		if (td_stats_have_retries(st) && s->retry_delay_ms)
			printf(", backing off: %u ms between retries",
			       s->retry_delay_ms);
		printf(")\n");
	}
	td_warn_no_counter(st, stats, cfg,
			   td_events_without_counter(st, stats, false), false,
			   be == TD_BACKEND_BPF);
}

int do_status(int argc, char **argv)
{
	struct topdown_cpu_stats *stats = NULL;
	struct topdown_config cfg;
	struct topdown_status st;
	struct topdown_totals tq;
	enum td_backend src_kind;
	struct td_src src;
	bool have_cfg;
	int ret;

	ret = td_no_options(argc, argv,
			    "Show the collection's state, configuration and per-CPU "
			    "statistics\n"
			    "(records, lost, read errors, time spent in the probe).\n"
			    "When nothing collects, what 'tdctl load' would run here and\n"
			    "how (the CPU, the event set, the backends), exit status 3.\n");
	if (ret <= 0)
		return ret;
	/* Nothing collects: what would run, and how (exit 3). */
	if (td_backend_active() == TD_BACKEND_NONE && !td_module_loaded())
		return td_explain_not_running(NULL);
	if (td_src_open(&src, false))
		return -1;
	src_kind = src.kind;
	if (src_kind == TD_BACKEND_BPF) {
		bpf_diffs = td_bpf_differences(&src);
		bpf_percpu = td_bpf_percpu(&src);
	}
	if (td_src_status(&src, &st, &stats)) {
		td_src_close(&src);
		return -1;
	}
	have_cfg = st.state != TOPDOWN_STATE_IDLE && !td_src_config(&src, &cfg);
	if (have_cfg && cfg.flags & TOPDOWN_CONFIG_TOTALS && !totals_counts(&src, &tq))
		totals = &tq;
	td_src_close(&src);
	if (json_output) {
		status_json(src_kind, &st, have_cfg ? &cfg : NULL, stats);
	} else if (csv_output) {
		struct td_emit out;

		td_emit_init(&out, stdout);
		cpu_rows(&out, src_kind, &st, have_cfg ? &cfg : NULL, stats);
	} else {
		status_plain(src_kind, &st, have_cfg ? &cfg : NULL, stats);
	}
	free(stats);
	return 0;
}
