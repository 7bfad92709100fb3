// SPDX-License-Identifier: GPL-2.0
/*
 * serve's /metrics as text (export/openmetrics.h): the Prometheus text
 * format 0.0.4, or OpenMetrics 1.0 when the scraper asks for it. Both
 * are written by one code path: a family's HELP and TYPE (and UNIT in
 * OpenMetrics, which also leaves _total out of a counter family's name
 * and ends with "# EOF"), then its samples.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "base/common.h"
#include "export/openmetrics.h"
#include "output/text.h"

/* A label value: backslash, double quote and newline escaped as the
 * formats require; valid UTF-8
 * as it is; other bytes that are not printable ASCII as \\xHH, so the
 * text is always valid UTF-8.
 */
size_t td_om_label(char *dst, size_t cap, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	int k;

	n = strnlen(s, n);
	for (size_t i = 0; i < n && o + 6 < cap; i++) {
		unsigned char c = (unsigned char)s[i];

		k = c >= 0x80 && o + 4 < cap ?
		    td_utf8_char((const unsigned char *)s + i, n - i) : 0;
		if (k > 1) {
			memcpy(dst + o, s + i, k);
			o += k;
			i += k - 1;
		} else if (c == '\\' || c == '"') {
			dst[o++] = '\\';
			dst[o++] = (char)c;
		} else if (c == '\n') {
			dst[o++] = '\\';
			dst[o++] = 'n';
		} else if (c < 0x20 || c >= 0x7f) {
			dst[o++] = '\\';
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 15];
		} else {
			dst[o++] = (char)c;
		}
	}
	dst[o] = '\0';
	return o;
}

/* A cgroup's path as a label value, escaped: its text as a comm's
 * (output/text.h: a backslash and every byte that is not printable
 * UTF-8 as \xNN), so that two paths never give one value. A path too
 * long for the label keeps its first characters and ends in "\~" and
 * 32 hex digits of the SHA-256 of the whole path: td_text() writes a
 * backslash only before 'x', so no path that fits ends so.
 */
void td_om_cgroup_label(char *dst, size_t cap, const char *path)
{
	static const char hex[] = "0123456789abcdef";
	static char t[TD_TEXT_SIZE(TD_OM_PATH_MAX) + 40];
	size_t n = strlen(path), tl, o = 0, cut = 0;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdn = 0;

	tl = td_text(t, path, n < TD_OM_PATH_MAX ? n : TD_OM_PATH_MAX, NULL);
	/* td_om_label() writes the whole text if its escaped size leaves 7
	 * bytes of cap; else cut before the character that would not fit
	 * with the suffix (35 bytes escaped), never inside \xNN.
	 */
	for (size_t i = 0, k; i < tl; i += k) {
		k = t[i] == '\\' ? 4 : (unsigned char)t[i] < 0x80 ? 1 :
		    (unsigned char)t[i] < 0xe0 ? 2 :
		    (unsigned char)t[i] < 0xf0 ? 3 : 4;
		o += k + (t[i] == '\\' || t[i] == '"');
		if (o + 35 + 7 <= cap)
			cut = i + k;
	}
	if (n <= TD_OM_PATH_MAX && o + 7 <= cap) {
		td_om_label(dst, cap, t, tl);
		return;
	}
	if (!EVP_Digest(path, n, md, &mdn, EVP_sha256(), NULL) || mdn < 16)
		memset(md, 0, 16);
	t[cut++] = '\\';
	t[cut++] = '~';
	for (int i = 0; i < 16; i++) {
		t[cut++] = hex[md[i] >> 4];
		t[cut++] = hex[md[i] & 15];
	}
	td_om_label(dst, cap, t, cut);
}

static void out_add(struct td_om_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out_add(struct td_om_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < o->cap - o->len) {
			o->len += (size_t)n;
			return;
		}
		char *np = realloc(o->p, o->cap * 2);

		if (!np || n < 0) {
			o->oom = true;
			return;
		}
		o->p = np;
		o->cap *= 2;
	}
}

/* HELP and TYPE (and UNIT) of a family; counters end in _total, which
 * OpenMetrics leaves out of the family's name.
 */
static void family(struct td_om_out *o, bool om, const char *name,
		   const char *type, const char *unit, const char *help)
{
	size_t n = strlen(name);

	if (om && !strcmp(type, "counter") && n > 6 &&
	    !strcmp(name + n - 6, "_total"))
		n -= 6;
	out_add(o, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)n, name, help,
		(int)n, name, type);
	if (om && unit)
		out_add(o, "# UNIT %.*s %s\n", (int)n, name, unit);
}

void td_om_events(struct td_om_counters *c, const struct td_view_cfg *vc,
		  const char *label)
{
	const struct topdown_config *cfg = &vc->cfg;
	const struct td_decoder *dec = vc->rotated ? &vc->gd.g[0].dec :
				       &vc->dec;

	c->nr_ev = cfg->nr_events < TOPDOWN_MAX_POOL ? cfg->nr_events :
		     TOPDOWN_MAX_POOL;
	for (uint32_t i = 0; i < c->nr_ev; i++) {
		const char *name = td_pool_event_c(cfg, i)->name;

		td_om_label(c->ev_label[i], sizeof(c->ev_label[i]), name,
			    TOPDOWN_NAME_LEN);
		/* Hybrid sets name each event after its core type's PMU
		 * (evset_intel.c): "core/..." counts on P-cores only,
		 * "atom/..." on E-cores only.
		 */
		c->ev_kind[i] = !strncmp(name, "core/", 5) ?
				",cpu_kind=\"core\"" :
				!strncmp(name, "atom/", 5) ?
				",cpu_kind=\"atom\"" : "";
	}
	c->nr_egroups = vc->rotated ? cfg->nr_groups : 0;
	for (uint32_t k = 0; k < c->nr_egroups; k++) {
		c->egroup[k] = cfg->groups[k];
		if (vc->can_decode && vc->gd.g[k].id[0])
			td_om_label(c->eg_label[k], sizeof(c->eg_label[k]),
				    vc->gd.g[k].id, sizeof(vc->gd.g[k].id));
		else
			snprintf(c->eg_label[k], sizeof(c->eg_label[k]), "%u",
				 k);
	}
	if (vc->can_decode && vc->rotated)
		td_om_label(c->set, sizeof(c->set), vc->gd.set,
			    sizeof(vc->gd.set));
	else if (vc->can_decode)
		td_om_label(c->set, sizeof(c->set), dec->set, sizeof(dec->set));
	else
		td_om_label(c->set, sizeof(c->set), label, TOPDOWN_LABEL_LEN);
	c->slots = vc->can_decode ? dec->slots : 0;
}

/* Rotated groups: the counts of exported group i, per event group, each
 * labelled with the group that measured it.
 */
static void group_counts(const struct td_om_counters *c,
			 struct td_om_out *o, size_t i)
{
	for (uint32_t k = 0; k < c->nr_egroups; k++) {
		const struct topdown_group *grp = &c->egroup[k];

		for (uint32_t j = 0; j < grp->nr_events &&
		     j < TOPDOWN_MAX_EVENTS; j++) {
			uint32_t e = grp->events[j];

			if (e >= c->nr_ev)
				continue;
			out_add(o, "topdown_events_total{set=\"%s\","
				"event=\"%s\",group=\"%s\"%s,%s} %llu\n",
				c->set, c->ev_label[e], c->eg_label[k],
				c->ev_kind[e], c->series[i].labels,
				(unsigned long long)c->gx[i].c[k][j]);
		}
	}
}

void td_om_write(struct td_om_out *o, const struct td_om_counters *c,
		 const struct td_om_scrape *sc)
{
	static const char *const states[] = {
		"unloaded", "idle", "stopped", "running",
	};
	bool om = sc->om;

	family(o, om, "topdown_up", "gauge", NULL,
	       "1 if the exporter reads the rings of /dev/topdown, else 0.");
	out_add(o, "topdown_up %d\n", sc->up ? 1 : 0);
	family(o, om, "topdown_module_state", "gauge", NULL,
	       "State of the topdown collection: 1 for the current state.");
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		out_add(o, "topdown_module_state{state=\"%s\"} %d\n", states[i],
			!strcmp(states[i], sc->state));
	family(o, om, "topdown_records_total", "counter", NULL,
	       "Records (time slices) read from the rings.");
	out_add(o, "topdown_records_total %llu\n",
		(unsigned long long)c->records);
	family(o, om, "topdown_lost_records_total", "counter", NULL,
	       "Records lost per CPU: dropped by the module with a full ring or overwritten before the exporter read them.");
	for (int cpu = 0; cpu < c->lost_cpus; cpu++)
		out_add(o, "topdown_lost_records_total{cpu=\"%d\"} %llu\n",
			cpu, (unsigned long long)c->lost[cpu]);
	family(o, om, "topdown_series_groups", "gauge", NULL,
	       "Series exported, including 'other'.");
	out_add(o, "topdown_series_groups %zu\n", c->n);
	family(o, om, "topdown_series_limit", "gauge", NULL,
	       "--max-series: series beyond it are summed into 'other'.");
	out_add(o, "topdown_series_limit %zu\n", c->max_series);

	family(o, om, "topdown_events_total", "counter", NULL,
	       "Count of each event of the event set, summed over the group's slices.");
	for (size_t i = 0; i < c->n && sc->up; i++) {
		const struct td_om_series *se = &c->series[i];

		if (!se->slices)
			continue;
		if (c->nr_egroups) {
			group_counts(c, o, i);
			continue;
		}
		for (uint32_t e = 0; e < c->nr_ev && e < TOPDOWN_MAX_EVENTS;
		     e++)
			out_add(o, "topdown_events_total{set=\"%s\",event=\"%s\"%s,%s} %llu\n",
				c->set, c->ev_label[e], c->ev_kind[e], se->labels,
				(unsigned long long)se->counts[e]);
	}
	if (c->nr_egroups && sc->up) {
		family(o, om, "topdown_group_run_seconds_total", "counter",
		       "seconds",
		       "Rotated event groups: on-CPU time of the group's tasks that event group 'group' measured; a rate of topdown_events_total{group} over its rate, times topdown_run_seconds_total's, estimates the event's rate over all the run time.");
		for (size_t i = 0; i < c->n; i++)
			for (uint32_t k = 0; c->series[i].slices &&
			     k < c->nr_egroups; k++)
				out_add(o, "topdown_group_run_seconds_total"
					"{group=\"%s\",%s} %llu.%09llu\n",
					c->eg_label[k], c->series[i].labels,
					(unsigned long long)(c->gx[i].ns[k] /
							     1000000000ull),
					(unsigned long long)(c->gx[i].ns[k] %
							     1000000000ull));
	}
	family(o, om, "topdown_run_seconds_total", "counter", "seconds",
	       "On-CPU time of the group's tasks.");
	for (size_t i = 0; i < c->n; i++)
		if (c->series[i].slices)
			out_add(o, "topdown_run_seconds_total{%s} %llu.%09llu\n",
				c->series[i].labels,
				(unsigned long long)(c->series[i].runtime_ns / 1000000000ull),
				(unsigned long long)(c->series[i].runtime_ns % 1000000000ull));
	family(o, om, "topdown_slices_total", "counter", NULL,
	       "Time slices of the group's tasks.");
	for (size_t i = 0; i < c->n; i++)
		if (c->series[i].slices)
			out_add(o, "topdown_slices_total{%s} %llu\n",
				c->series[i].labels,
				(unsigned long long)c->series[i].slices);
	family(o, om, "topdown_read_errors_total", "counter", NULL,
	       "Slices with a counter that could not be read (its count is missing).");
	for (size_t i = 0; i < c->n; i++)
		if (c->series[i].slices)
			out_add(o, "topdown_read_errors_total{%s} %llu\n",
				c->series[i].labels,
				(unsigned long long)c->series[i].read_errors);
	family(o, om, "topdown_exporter_info", "gauge", NULL,
	       "The exporter: version, grouping, event set, and whether the counters are the kernel's totals (exact whatever records were lost) or the records' sums.");
	out_add(o, "topdown_exporter_info{version=\"%s\",by=\"%s\",set=\"%s\",counts=\"%s\"} 1\n",
		sc->version, sc->by, sc->up ? c->set : "",
		sc->up && sc->counts ? sc->counts : "");
	family(o, om, "topdown_slots_per_cycle", "gauge", NULL,
	       "Slot width of the event set's TopDown formula (0: none), for the recording rules.");
	if (sc->up)
		out_add(o, "topdown_slots_per_cycle{set=\"%s\"} %u\n", c->set,
			c->slots);
	family(o, om, "topdown_scrape_duration_seconds", "gauge", "seconds",
	       "Time this scrape took to read the rings and format the metrics.");
	out_add(o, "topdown_scrape_duration_seconds %.6f\n",
		(double)(td_now_ns() - sc->t0_ns) / 1e9);
	if (om)
		out_add(o, "# EOF\n");
}
