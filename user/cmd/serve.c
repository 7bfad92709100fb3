// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl serve: a Prometheus exporter. It is the rings' one reader: it
 * drains them continuously into per-group monotonic counters (raw event
 * counts, run time, slices, read errors; lost records per CPU) and serves
 * them on /metrics in the Prometheus text format 0.0.4, or OpenMetrics
 * 1.0 when the scraper's Accept header asks for it. The TopDown fractions
 * are left to PromQL (rate() of the counts, recording rules in
 * contrib/prometheus/topdown.rules.yml), so any window works.
 *
 * One poll() loop: the rings, and the HTTP server of user/http/ (its
 * connections, TLS and basic authentication from --web.config.file, its
 * limits: http/server.h), which calls sv_answer() for each request. The
 * certificate, the socket and the rings are opened first; then serve
 * drops to --user and every capability (base/privs.h). SIGHUP reads the
 * web configuration and its certificates again, as that user.
 *
 * Groups are keyed by their label values (a cgroup's path, not its id:
 * a cgroup re-created under the same path is the same series). At most
 * --max-series groups exist; records of any further group are added to
 * the group "other" (cgroup="other", pid="other": no path or pid is
 * that; for --by comm, SV_OTHER_COMM, which no comm is). Groups are
 * never removed, so a counter never goes backwards when its tasks exit.
 *
 * With rotated event groups (tdctl load --level 2, -M) each slice was
 * measured by one group: the counts are exported per event group, with a
 * group="ID" label, and so is the time each group measured
 * (topdown_group_run_seconds_total), so that PromQL can estimate a rate
 * over all the run time, and compute every metric within one group
 * (design.rst, "Estimates from rotated groups"). Nothing is scaled here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/hash.h"
#include "base/privs.h"
#include "group/aggregate.h"
#include "http/server.h"
#include "live/cgpath.h"
#include "live/collect.h"
#include "live/bpf/bpf.h"
#include "live/device.h"
#include "evset/evset.h"
#include "output/text.h"
#include "cli/tdctl.h"

#define SV_DEFAULT_PORT	"10642"
#define SV_CONNS	1024	/* --max-connections */
#define SV_USER		"tdctl-serve"	/* the package's system user */
#define SV_RETRY_MS	10000	/* reopen the device after this long */
#define SV_LABEL_MAX	512	/* a group's label values, escaped */
#define SV_PATH_MAX	4096	/* a cgroup path's bytes shown (PATH_MAX) */
/* The overflow group's comm: printable ASCII without a backslash and
 * longer than a comm (TOPDOWN_COMM_LEN bytes), so no comm's text
 * (output/text.h) is this.
 */
#define SV_OTHER_COMM	"(beyond --max-series)"

const struct td_opt serve_opts[] = {
	{ "listen", 'l', 'l', TD_ARG_WORD, "ADDR:PORT",
	  "listen there (default 127.0.0.1:" SV_DEFAULT_PORT ")", 0 },
	{ "by", 0, 'B', TD_ARG_BY, "KEY",
	  "series per cgroup (default), process or comm", 0 },
	{ "max-series", 0, 'N', TD_ARG_NUM, "N",
	  "at most N groups, the rest summed as 'other' (default 1000)", 0 },
	{ "web.config.file", 0, 'W', TD_ARG_FILE, "FILE",
	  "TLS and basic authentication: exporter-toolkit's web configuration", 0 },
	{ "user", 0, 'U', TD_ARG_WORD, "USER[:GROUP]",
	  "serve as USER once the rings are open (default for root: " SV_USER ", else nobody)", 0 },
	{ "max-connections", 0, 'C', TD_ARG_NUM, "N",
	  "at most N connections; the oldest idle one makes room (default 1024)", 0 },
	{ "duration", 0, 'D', TD_ARG_NUM, "S",
	  "exit after S seconds (default: until SIGINT or SIGTERM)", 0 },
	TD_OPT_OUT_JSON,
	TD_OPT_OUT_FILE,
	TD_OPT_HELP,
	TD_OPT_END,
};

static const char serve_desc[] =
	"Serve the counters of every task, summed per cgroup (or process, or\n"
	"comm), on http://ADDR:PORT/metrics for Prometheus: the raw counts of\n"
	"each event, run time, slices, read errors, lost records, and the\n"
	"exporter's own health. It reads the rings continuously (it is their\n"
	"one reader). Listens on the loopback address only unless told.\n";

struct sv_group {
	char labels[SV_LABEL_MAX];	/* e.g. cgroup="/system.slice" */
	uint64_t slices, runtime_ns, read_errors;
	uint64_t counts[TOPDOWN_MAX_EVENTS];
};

/* Rotated event groups: per group of the configuration, the time it
 * measured and its events' counts (in the group's order).
 */
struct sv_gx {
	uint64_t ns[TOPDOWN_MAX_GROUPS];
	uint64_t c[TOPDOWN_MAX_GROUPS][TOPDOWN_MAX_EVENTS];
};

struct sv {
	enum td_by by;
	size_t max_groups;
	struct sv_group *g;	/* g[0] is "other" */
	size_t n;
	/* label text -> group, and record key -> group (a cache) */
	uint32_t *lslot;
	size_t lcap;
	struct { uint64_t key; uint32_t group; } *kslot;
	size_t kcap, kn;
	bool provisional;	/* it holds labels that may change */
	uint64_t cache_since;
	/* the rings */
	struct td_reader rd;
	bool open, tried;
	uint64_t next_open;
	struct td_decoder dec;
	bool can_decode;
	char set[TOPDOWN_NAME_LEN * 2];
	/* the events by pool entry (delta order without rotation) */
	char ev_label[TOPDOWN_MAX_POOL][TOPDOWN_NAME_LEN * 6 + 1];
	const char *ev_kind[TOPDOWN_MAX_POOL];	/* ",cpu_kind=..." or "" */
	uint32_t nr_ev;
	/* rotated groups (2 or more; 0: none): the configuration's groups,
	 * their label values (the label's group ids, else their index),
	 * and per exported group the sums of each event group (gx[i] for
	 * g[i])
	 */
	uint32_t nr_egroups;
	struct topdown_group egroup[TOPDOWN_MAX_GROUPS];
	char eg_label[TOPDOWN_MAX_GROUPS][16];
	struct sv_gx *gx;
	uint64_t *lost;		/* per CPU */
	int lost_cpus;
	uint64_t records, opens;
	double last_scrape_s;
	int status_fd;		/* read-only /dev/topdown kept across the drop */
	int bpf_fd;		/* the BPF backend's pin folder, likewise */
};

/* ---- label values --------------------------------------------------------- */

/* A label value: backslash, double quote and newline escaped as the
 * formats require; valid UTF-8
 * as it is; other bytes that are not printable ASCII as \\xHH, so the
 * text is always valid UTF-8.
 */
static size_t esc_label(char *dst, size_t cap, const char *s, size_t n)
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

/* ---- groups ----------------------------------------------------------------- */

/* The keyed hash (base/hash.h) of s, up to a NUL or n bytes: the label
 * text and comm keys. Keyed, so that no one can name tasks whose comms
 * share a key (and so one group) or crowd one run of the table.
 */
static uint64_t key_hash(const char *s, size_t n)
{
	return td_hash_bytes(s, strnlen(s, n));
}

/* A cgroup's path as a label value, escaped: its text as a comm's
 * (output/text.h: a backslash and every byte that is not printable
 * UTF-8 as \xNN), so that two paths never give one value. A path too
 * long for the label keeps its first characters and ends in "\~" and
 * 32 hex digits of the SHA-256 of the whole path: td_text() writes a
 * backslash only before 'x', so no path that fits ends so.
 */
static void cg_label(char *dst, size_t cap, const char *path)
{
	static const char hex[] = "0123456789abcdef";
	static char t[TD_TEXT_SIZE(SV_PATH_MAX) + 40];
	size_t n = strlen(path), tl, o = 0, cut = 0;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdn = 0;

	tl = td_text(t, path, n < SV_PATH_MAX ? n : SV_PATH_MAX, NULL);
	/* esc_label() writes the whole text if its escaped size leaves 7
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
	if (n <= SV_PATH_MAX && o + 7 <= cap) {
		esc_label(dst, cap, t, tl);
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
	esc_label(dst, cap, t, cut);
}

/* The labels of r's group; false if they may change (a cgroup id that
 * does not resolve to a path yet).
 */
static bool sv_labels(struct sv *s, const struct topdown_record *r,
		      char *buf, size_t cap)
{
	char v[SV_LABEL_MAX - 40], t[TD_TEXT_SIZE(TOPDOWN_COMM_LEN)];
	const char *cg;

	switch (s->by) {
	case TD_BY_PROCESS:
		/* a comm: its text (output/text.h), then escaped */
		esc_label(v, sizeof(v), t,
			  td_text(t, r->comm, TOPDOWN_COMM_LEN, NULL));
		snprintf(buf, cap, "pid=\"%u\",comm=\"%s\"", r->tgid, v);
		return true;
	case TD_BY_COMM:
		esc_label(v, sizeof(v), t,
			  td_text(t, r->comm, TOPDOWN_COMM_LEN, NULL));
		snprintf(buf, cap, "comm=\"%s\"", v);
		return true;
	default:
		cg = r->cgroup_id ? td_cgroup_path(r->cgroup_id) : NULL;
		if (cg)
			cg_label(v, sizeof(v), cg);
		else
			snprintf(v, sizeof(v), "id:%llu",
				 (unsigned long long)r->cgroup_id);
		snprintf(buf, cap, "cgroup=\"%s\"", v);
		return cg || !r->cgroup_id;
	}
}

/* The group of these labels; "other" (0) when the table is full. */
static uint32_t sv_group_of(struct sv *s, const char *labels)
{
	size_t i = td_hash_bytes(labels, strlen(labels)) & (s->lcap - 1);

	while (s->lslot[i]) {
		if (!strcmp(s->g[s->lslot[i] - 1].labels, labels))
			return s->lslot[i] - 1;
		i = (i + 1) & (s->lcap - 1);
	}
	if (s->n >= s->max_groups + 1)
		return 0;
	memset(&s->g[s->n], 0, sizeof(s->g[s->n]));
	snprintf(s->g[s->n].labels, SV_LABEL_MAX, "%s", labels);
	s->n++;
	s->lslot[i] = (uint32_t)s->n;
	return (uint32_t)(s->n - 1);
}

static uint64_t sv_key(const struct sv *s, const struct topdown_record *r)
{
	switch (s->by) {
	case TD_BY_PROCESS:
		return (uint64_t)r->tgid + 1;
	case TD_BY_COMM:
		return key_hash(r->comm, TOPDOWN_COMM_LEN) | 1;
	default:
		return r->cgroup_id + 1;
	}
}

static void sv_on_record(const struct topdown_record *r, void *ctx)
{
	struct sv *s = ctx;
	uint64_t key = sv_key(s, r);
	size_t i = (key * 0x9e3779b97f4a7c15ull >> 24) & (s->kcap - 1);
	struct sv_group *g;
	uint32_t gi;

	/* The cache of key -> group (cgroup id, pid or comm hash). A key
	 * whose labels are not final (a cgroup id not resolved yet) is
	 * cached too, but the whole cache is dropped a second later
	 * (sv_cache_expire()), so that it is looked up again.
	 */
	while (s->kslot[i].key && s->kslot[i].key != key)
		i = (i + 1) & (s->kcap - 1);
	if (s->kslot[i].key) {
		gi = s->kslot[i].group;
	} else {
		char labels[SV_LABEL_MAX];

		if (s->kn * 2 >= s->kcap) {	/* a cache: start over */
			memset(s->kslot, 0, s->kcap * sizeof(*s->kslot));
			s->kn = 0;
			i = (key * 0x9e3779b97f4a7c15ull >> 24) & (s->kcap - 1);
		}
		bool final = sv_labels(s, r, labels, sizeof(labels));

		gi = sv_group_of(s, labels);
		s->kslot[i].key = key;
		s->kslot[i].group = gi;
		s->kn++;
		if (!final)
			s->provisional = true;
	}
	g = &s->g[gi];
	g->slices++;
	g->runtime_ns += r->duration_ns;
	s->records++;
	if (s->nr_egroups) {
		/* a slice of one group, or of none (rotated, unreadable) */
		uint32_t k = TOPDOWN_REC_GROUP(r->flags);
		struct sv_gx *x = &s->gx[gi];

		if (r->flags & TOPDOWN_REC_ROTATED)
			return;
		if (r->flags & TOPDOWN_REC_ERROR_MASK) {
			g->read_errors++;
			return;
		}
		if (k >= s->nr_egroups)
			return;
		x->ns[k] += r->duration_ns;
		for (uint32_t j = 0; j < s->egroup[k].nr_events &&
		     j < TOPDOWN_MAX_EVENTS; j++)
			x->c[k][j] += r->delta[j];
		return;
	}
	/* A count that could not be read is not a 0: the slice is left
	 * out of every count, as a rotated group's is, so that all counts
	 * cover the same slices (their ratios are the metrics).
	 */
	if (r->flags & TOPDOWN_REC_ERROR_MASK) {
		g->read_errors++;
		return;
	}
	for (int e = 0; e < TOPDOWN_MAX_EVENTS; e++)
		g->counts[e] += r->delta[e];
}

static void sv_cache_expire(struct sv *s, uint64_t now)
{
	if (!s->provisional) {
		s->cache_since = now;
		return;
	}
	if (now - s->cache_since < 1000000000ull)
		return;
	memset(s->kslot, 0, s->kcap * sizeof(*s->kslot));
	s->kn = 0;
	s->provisional = false;
	s->cache_since = now;
}

static void sv_on_lost(int cpu, uint64_t count, const char *why, void *ctx)
{
	struct sv *s = ctx;

	(void)why;
	if (cpu >= 0 && cpu < s->lost_cpus)
		s->lost[cpu] += count;
}

/* ---- the rings -------------------------------------------------------------- */

static void sv_open(struct sv *s, uint64_t now)
{
	struct td_view_cfg *vc;
	const struct topdown_config *c;

	/* After a failure, try again only once the module is there (quietly
	 * otherwise: one error, not one every SV_RETRY_MS).
	 */
	if (s->open || now < s->next_open || (s->tried && td_backend_active() == TD_BACKEND_NONE))
		return;
	s->next_open = now + SV_RETRY_MS * 1000000ull;
	s->tried = true;
	if (td_reader_open(&s->rd))
		return;
	if (s->lost_cpus && s->rd.nr_cpus > s->lost_cpus) {
		td_reader_close(&s->rd);	/* more CPUs than at first */
		return;
	}
	if (!s->lost) {
		s->lost = calloc((size_t)s->rd.nr_cpus, sizeof(*s->lost));
		if (!s->lost) {
			td_reader_close(&s->rd);
			return;
		}
		s->lost_cpus = s->rd.nr_cpus;
	}
	/* The events as the records count them: one group is its events in
	 * delta order; rotated groups, the pool (td_view_cfg_init()).
	 */
	vc = malloc(sizeof(*vc));
	if (!vc || td_view_cfg_init(vc, &s->rd.cfg)) {
		free(vc);
		td_reader_close(&s->rd);
		return;
	}
	c = &vc->cfg;
	if (vc->rotated && !s->gx) {
		s->gx = calloc(s->max_groups + 1, sizeof(*s->gx));
		if (!s->gx) {
			p_err("out of memory for the event groups' counters");
			free(vc);
			td_reader_close(&s->rd);
			return;
		}
	}
	s->nr_ev = c->nr_events < TOPDOWN_MAX_POOL ? c->nr_events :
		   TOPDOWN_MAX_POOL;
	for (uint32_t i = 0; i < s->nr_ev; i++) {
		const char *name = td_pool_event_c(c, i)->name;

		esc_label(s->ev_label[i], sizeof(s->ev_label[i]), name,
			  TOPDOWN_NAME_LEN);
		/* Hybrid sets name each event after its core type's PMU
		 * (evset_intel.c): "core/..." counts on P-cores only,
		 * "atom/..." on E-cores only.
		 */
		s->ev_kind[i] = !strncmp(name, "core/", 5) ?
				",cpu_kind=\"core\"" :
				!strncmp(name, "atom/", 5) ?
				",cpu_kind=\"atom\"" : "";
	}
	s->nr_egroups = vc->rotated ? c->nr_groups : 0;
	for (uint32_t k = 0; k < s->nr_egroups; k++) {
		s->egroup[k] = c->groups[k];
		if (vc->can_decode && vc->gd.g[k].id[0])
			esc_label(s->eg_label[k], sizeof(s->eg_label[k]),
				  vc->gd.g[k].id, sizeof(vc->gd.g[k].id));
		else
			snprintf(s->eg_label[k], sizeof(s->eg_label[k]), "%u",
				 k);
	}
	s->can_decode = vc->can_decode;
	if (s->can_decode)
		s->dec = vc->rotated ? vc->gd.g[0].dec : vc->dec;
	if (s->can_decode && vc->rotated)
		esc_label(s->set, sizeof(s->set), vc->gd.set,
			  sizeof(vc->gd.set));
	else if (s->can_decode)
		esc_label(s->set, sizeof(s->set), s->dec.set, sizeof(s->dec.set));
	else
		esc_label(s->set, sizeof(s->set), s->rd.cfg.label,
			  sizeof(s->rd.cfg.label));
	free(vc);
	s->open = true;
	s->opens++;
	p_info("serving the rings of %d CPUs, event set %s", s->rd.nr_cpus,
	       s->set);
}

/* ---- the metrics ------------------------------------------------------------ */

struct sv_out {
	char *p;
	size_t len, cap;
	bool oom;
};

static void out_add(struct sv_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out_add(struct sv_out *o, const char *fmt, ...)
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
static void family(struct sv_out *o, bool om, const char *name,
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

static double mono_s(void)
{
	return (double)td_now_ns() / 1e9;
}

/* Rotated groups: the counts of exported group i, per event group, each
 * labelled with the group that measured it.
 */
static void sv_group_counts(struct sv *s, struct sv_out *o, size_t i)
{
	for (uint32_t k = 0; k < s->nr_egroups; k++) {
		const struct topdown_group *grp = &s->egroup[k];

		for (uint32_t j = 0; j < grp->nr_events &&
		     j < TOPDOWN_MAX_EVENTS; j++) {
			uint32_t e = grp->events[j];

			if (e >= s->nr_ev)
				continue;
			out_add(o, "topdown_events_total{set=\"%s\","
				"event=\"%s\",group=\"%s\"%s,%s} %llu\n",
				s->set, s->ev_label[e], s->eg_label[k],
				s->ev_kind[e], s->g[i].labels,
				(unsigned long long)s->gx[i].c[k][j]);
		}
	}
}

static void sv_metrics(struct sv *s, struct sv_out *o, bool om)
{
	double t0 = mono_s();
	struct topdown_cpu_stats *stats = NULL;
	struct topdown_status st;
	const char *state = "unloaded";
	static const char *const states[] = {
		"unloaded", "idle", "stopped", "running",
	};
	const char *lbl = s->by == TD_BY_PROCESS ? "process" :
			  s->by == TD_BY_COMM ? "comm" : "cgroup";

	if (s->open) {
		td_reader_drain(&s->rd, sv_on_record, sv_on_lost, s);
		if (!td_reader_status(&s->rd, &st, &stats))
			state = td_state_name(st.state);
		else if (s->bpf_fd >= 0 && td_bpf_watching(s->bpf_fd))
			/* Reading the BPF backend's rings, its status maps
			 * refused (seen on 5.10 after the drop of
			 * privileges): loaded is running.
			 */
			state = "running";
		free(stats);
	} else if (s->bpf_fd >= 0 ? td_bpf_watching(s->bpf_fd) :
		   td_backend_active() == TD_BACKEND_BPF) {
		state = "running";	/* loaded is running */
	} else if (td_module_loaded()) {
		/* Another reader holds the rings: a read-only file may ask
		 * (the one opened before the drop of privileges, if any).
		 */
		int fd = s->status_fd >= 0 ? s->status_fd :
			 open(TOPDOWN_DEVICE, O_RDONLY | O_CLOEXEC);
		struct topdown_status q;

		state = "idle";
		if (fd >= 0 && !td_dev_status(fd, &q))
			state = td_state_name(q.state);
		if (fd >= 0 && fd != s->status_fd)
			close(fd);
	}

	family(o, om, "topdown_up", "gauge", NULL,
	       "1 if the exporter reads the rings of /dev/topdown, else 0.");
	out_add(o, "topdown_up %d\n", s->open ? 1 : 0);
	family(o, om, "topdown_module_state", "gauge", NULL,
	       "State of the topdown collection: 1 for the current state.");
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		out_add(o, "topdown_module_state{state=\"%s\"} %d\n", states[i],
			!strcmp(states[i], state));
	family(o, om, "topdown_records_total", "counter", NULL,
	       "Records (time slices) read from the rings.");
	out_add(o, "topdown_records_total %llu\n",
		(unsigned long long)s->records);
	family(o, om, "topdown_lost_records_total", "counter", NULL,
	       "Records lost per CPU: dropped by the module with a full ring or overwritten before the exporter read them.");
	for (int c = 0; c < s->lost_cpus; c++)
		out_add(o, "topdown_lost_records_total{cpu=\"%d\"} %llu\n", c,
			(unsigned long long)s->lost[c]);
	family(o, om, "topdown_series_groups", "gauge", NULL,
	       "Groups exported, including 'other'.");
	out_add(o, "topdown_series_groups %zu\n", s->n);
	family(o, om, "topdown_series_limit", "gauge", NULL,
	       "--max-series: groups beyond it are summed into 'other'.");
	out_add(o, "topdown_series_limit %zu\n", s->max_groups);

	family(o, om, "topdown_events_total", "counter", NULL,
	       "Count of each event of the event set, summed over the group's slices.");
	for (size_t i = 0; i < s->n && s->open; i++) {
		const struct sv_group *g = &s->g[i];

		if (!g->slices)
			continue;
		if (s->nr_egroups) {
			sv_group_counts(s, o, i);
			continue;
		}
		for (uint32_t e = 0; e < s->nr_ev && e < TOPDOWN_MAX_EVENTS;
		     e++)
			out_add(o, "topdown_events_total{set=\"%s\",event=\"%s\"%s,%s} %llu\n",
				s->set, s->ev_label[e], s->ev_kind[e], g->labels,
				(unsigned long long)g->counts[e]);
	}
	if (s->nr_egroups && s->open) {
		family(o, om, "topdown_group_run_seconds_total", "counter",
		       "seconds",
		       "Rotated event groups: on-CPU time of the group's tasks that event group 'group' measured; a rate of topdown_events_total{group} over its rate, times topdown_run_seconds_total's, estimates the event's rate over all the run time.");
		for (size_t i = 0; i < s->n; i++)
			for (uint32_t k = 0; s->g[i].slices &&
			     k < s->nr_egroups; k++)
				out_add(o, "topdown_group_run_seconds_total"
					"{group=\"%s\",%s} %llu.%09llu\n",
					s->eg_label[k], s->g[i].labels,
					(unsigned long long)(s->gx[i].ns[k] /
							     1000000000ull),
					(unsigned long long)(s->gx[i].ns[k] %
							     1000000000ull));
	}
	family(o, om, "topdown_run_seconds_total", "counter", "seconds",
	       "On-CPU time of the group's tasks.");
	for (size_t i = 0; i < s->n; i++)
		if (s->g[i].slices)
			out_add(o, "topdown_run_seconds_total{%s} %llu.%09llu\n",
				s->g[i].labels,
				(unsigned long long)(s->g[i].runtime_ns / 1000000000ull),
				(unsigned long long)(s->g[i].runtime_ns % 1000000000ull));
	family(o, om, "topdown_slices_total", "counter", NULL,
	       "Time slices of the group's tasks.");
	for (size_t i = 0; i < s->n; i++)
		if (s->g[i].slices)
			out_add(o, "topdown_slices_total{%s} %llu\n",
				s->g[i].labels,
				(unsigned long long)s->g[i].slices);
	family(o, om, "topdown_read_errors_total", "counter", NULL,
	       "Slices with a counter that could not be read (its count is missing).");
	for (size_t i = 0; i < s->n; i++)
		if (s->g[i].slices)
			out_add(o, "topdown_read_errors_total{%s} %llu\n",
				s->g[i].labels,
				(unsigned long long)s->g[i].read_errors);
	family(o, om, "topdown_exporter_info", "gauge", NULL,
	       "The exporter: version, grouping, event set.");
	out_add(o, "topdown_exporter_info{version=\"%s\",by=\"%s\",set=\"%s\"} 1\n",
		tdctl_version, lbl, s->open ? s->set : "");
	family(o, om, "topdown_slots_per_cycle", "gauge", NULL,
	       "Slot width of the event set's TopDown formula (0: none), for the recording rules.");
	if (s->open)
		out_add(o, "topdown_slots_per_cycle{set=\"%s\"} %u\n", s->set,
			s->can_decode ? s->dec.slots : 0);
	family(o, om, "topdown_scrape_duration_seconds", "gauge", "seconds",
	       "Time this scrape took to read the rings and format the metrics.");
	out_add(o, "topdown_scrape_duration_seconds %.6f\n", mono_s() - t0);
	if (om)
		out_add(o, "# EOF\n");
	s->last_scrape_s = mono_s() - t0;
}

/* ---- HTTP (user/http/server.c serves, this answers) ---------------------- */

static void sv_answer(void *ctx, const struct td_http_req *r,
		      struct td_http_reply *rep)
{
	static const char text_type[] = "text/plain; version=0.0.4; charset=utf-8";
	static const char om_type[] =
		"application/openmetrics-text; version=1.0.0; charset=utf-8";
	static const char index[] =
		"<html><head><title>topdown exporter</title></head><body>"
		"<h1>topdown exporter</h1><p><a href=\"/metrics\">Metrics</a></p>"
		"</body></html>\n";
	struct sv *s = ctx;

	if (!strcmp(r->path, "/metrics")) {
		struct sv_out o = { .cap = 65536 };

		o.p = malloc(o.cap);
		o.oom = !o.p;
		sv_metrics(s, &o, r->openmetrics);
		if (o.oom) {
			free(o.p);
			rep->status = 500;
			return;
		}
		rep->ctype = r->openmetrics ? om_type : text_type;
		rep->body = o.p;
		rep->len = o.len;
	} else if (!strcmp(r->path, "/")) {
		rep->ctype = "text/html; charset=utf-8";
		rep->body = strdup(index);
		rep->len = sizeof(index) - 1;
		if (!rep->body)
			rep->status = 500;
	} else {
		rep->status = 404;
	}
}

/* SIGHUP: read --web.config.file again (sv_reload()). */
static volatile sig_atomic_t sv_hup;

static void sv_on_hup(int sig)
{
	(void)sig;
	sv_hup = 1;
}

/* The web configuration and its certificates, read again as the user
 * serve now is; the old ones stay if they do not load.
 */
static void sv_reload(struct td_http *http, const char *file)
{
	struct td_webcfg w;
	char err[512];

	if (!file) {
		p_info("SIGHUP: no --web.config.file to reload");
		return;
	}
	if (td_webcfg_load(file, &w, err, sizeof(err))) {
		p_err("SIGHUP: cannot reload --web.config.file %s: %s; serving with the old one",
		      file, err);
		return;
	}
	if (td_http_reload(http, &w))
		p_err("SIGHUP: cannot reload --web.config.file %s; serving with the old one",
		      file);
	else
		p_info("SIGHUP: reloaded --web.config.file %s", file);
}

/* Who serve becomes once the rings are open (base/privs.h): --user, or
 * for root the package's system user, else nobody. A process that is not
 * root keeps its user and sheds its capabilities.
 */
static int sv_pick_user(const char *spec, struct td_user *u)
{
	static const char *const defaults[] = { SV_USER, "nobody", NULL };

	if (spec)
		return td_user_parse("--user", spec, u);
	if (geteuid()) {
		u->uid = geteuid();
		u->gid = getegid();
		snprintf(u->name, sizeof(u->name), "uid %u", (unsigned int)u->uid);
		return 0;
	}
	if (!td_user_default(defaults, u))
		return 0;
	p_err("no user %s or nobody to serve as: name one with --user USER[:GROUP]",
	      SV_USER);
	return -1;
}

int do_serve(int argc, char **argv)
{
	const char *listen_addr = "127.0.0.1:" SV_DEFAULT_PORT;
	const char *web_file = NULL, *user_spec = NULL;
	unsigned long long v, dur = 0;
	struct sv *s = calloc(1, sizeof(*s));
	struct pollfd *pfd = NULL;
	struct td_webcfg web = { 0 };
	struct td_http_opts ho = { 0 };
	struct td_http *http = NULL;
	struct td_user user;
	bool rings_hup = false;
	char err[512];
	uint64_t end;
	struct td_getopt g;
	int opt, ret = -1;

	if (!s) {
		p_err("out of memory");
		return -1;
	}
	s->by = TD_BY_CGROUP;
	s->max_groups = 1000;
	s->status_fd = -1;
	s->bpf_fd = -1;
	td_getopt_build(&g, "serve", serve_desc);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0) {
		switch (opt) {
		case 'l':
			listen_addr = optarg;
			break;
		case 'W':
			web_file = optarg;
			break;
		case 'U':
			user_spec = optarg;
			break;
		case 'B':
			if (td_by_parse("--by", optarg, &s->by))
				goto out;
			if (s->by != TD_BY_CGROUP && s->by != TD_BY_PROCESS &&
			    s->by != TD_BY_COMM) {
				p_err("--by: serve groups by cgroup, process or comm");
				goto out;
			}
			break;
		case 'N':
			if (parse_u64("--max-series", optarg, 100000, &v))
				goto out;
			if (!v) {
				p_err("--max-series must be at least 1");
				goto out;
			}
			s->max_groups = v;
			break;
		case 'C':
			if (parse_u64("--max-connections", optarg, 65536, &v))
				goto out;
			if (v < 2) {
				p_err("--max-connections must be at least 2");
				goto out;
			}
			ho.max_conns = v;
			break;
		case 'D':
			if (parse_seconds("--duration", optarg, 1000000, &dur))
				goto out;
			break;
		}
	}
	ret = td_getopt_end(opt, argc, argv, false);
	if (ret <= 0)
		goto out;
	ret = -1;
	if (sv_pick_user(user_spec, &user))
		goto out;
	if (web_file && td_webcfg_load(web_file, &web, err, sizeof(err))) {
		p_err("--web.config.file %s: %s", web_file, err);
		goto out;
	}
	s->g = calloc(s->max_groups + 1, sizeof(*s->g));
	for (s->lcap = 64; s->lcap < 2 * (s->max_groups + 1); s->lcap *= 2)
		;
	s->lslot = calloc(s->lcap, sizeof(*s->lslot));
	s->kcap = 4 * s->lcap;
	s->kslot = calloc(s->kcap, sizeof(*s->kslot));
	if (!s->g || !s->lslot || !s->kslot) {
		p_err("out of memory");
		goto out;
	}
	/* Group 0: what does not fit. */
	snprintf(s->g[0].labels, SV_LABEL_MAX, "%s",
		 s->by == TD_BY_PROCESS ? "pid=\"other\",comm=\"other\"" :
		 s->by == TD_BY_COMM ? "comm=\"" SV_OTHER_COMM "\"" :
		 "cgroup=\"other\"");
	s->n = 1;
	/* With root's rights still: the certificate and key, the socket,
	 * the rings; then nothing of them is left.
	 */
	ho.listen = listen_addr;
	ho.web = web_file ? &web : NULL;
	if (!ho.max_conns)
		ho.max_conns = SV_CONNS;
	ho.fn = sv_answer;
	ho.ctx = s;
	http = td_http_open(&ho);
	if (!http)
		goto out;
	pfd = calloc(td_http_nfds(http) + 1, sizeof(*pfd));
	if (!pfd) {
		p_err("out of memory");
		goto out;
	}
	sv_open(s, td_now_ns());
	/* Keep the BPF backend's pin folder to see it go, which the
	 * unprivileged user could not open or look into: when not the
	 * reader (another one is), and when the reader's status maps refuse
	 * (as on 5.10 after the drop). For the module, a read-only file
	 * asks its state.
	 */
	if (td_backend_active() == TD_BACKEND_BPF)
		s->bpf_fd = td_bpf_watch();
	else if (!s->open && td_module_loaded())
		s->status_fd = open(TOPDOWN_DEVICE, O_RDONLY | O_CLOEXEC);
	if (td_drop_privileges(&user))
		goto out;
	if (s->open)
		p_info("serving as %s, without capabilities", user.name);
	else
		p_info("serving as %s, without capabilities; no backend ran, and as %s serve cannot open the rings later: restart it once the collection runs",
		       user.name, user.name);
	td_catch_signals();
	signal(SIGHUP, sv_on_hup);
	p_info("listening on %s/metrics%s", td_http_url(http),
	       web.nusers ? " (basic authentication)" : "");
	end = dur ? td_now_ns() + dur : UINT64_MAX;

	while (!td_signal) {
		uint64_t now = td_now_ns();
		int rings = -1;
		size_t n;

		if (now >= end)
			break;
		if (sv_hup) {
			sv_hup = 0;
			sv_reload(http, web_file);
		}
		sv_open(s, now);
		sv_cache_expire(s, now);
		if (s->open)
			td_reader_drain(&s->rd, sv_on_record, sv_on_lost, s);
		n = td_http_pollfds(http, pfd, now);
		/* Stopped and drained (POLLHUP): look again after the timeout. */
		if (s->open && !rings_hup) {
			pfd[n].fd = s->rd.fd;
			pfd[n].events = POLLIN;
			pfd[n].revents = 0;
			rings = (int)n;
		}
		rings_hup = false;
		if (poll(pfd, rings >= 0 ? n + 1 : n, 250) <= 0)
			continue;
		rings_hup = rings >= 0 &&
			    (pfd[rings].revents & (POLLIN | POLLHUP)) == POLLHUP;
		td_http_events(http, pfd, n, td_now_ns());
	}
	ret = 0;
	/* An exporter that never had a backend to read exported nothing. */
	if (!s->opens) {
		p_err("no backend ran while serving: nothing was collected (run '%s load', or '%s load --backend bpf|auto')",
		      bin_name, bin_name);
		ret = -1;
	}
out:
	if (http) {
		const struct td_http_stats *st = td_http_get_stats(http);

		p_info("%llu records read, %llu requests",
		       (unsigned long long)s->records,
		       (unsigned long long)st->requests);
	}
	td_http_close(http);
	if (s->open) {
		td_reader_drain(&s->rd, sv_on_record, sv_on_lost, s);
		td_reader_close(&s->rd);
	}
	if (s->status_fd >= 0)
		close(s->status_fd);
	if (s->bpf_fd >= 0)
		close(s->bpf_fd);
	td_webcfg_free(&web);
	free(pfd);
	free(s->g);
	free(s->gx);
	free(s->lslot);
	free(s->kslot);
	free(s->lost);
	free(s);
	return ret;
}
