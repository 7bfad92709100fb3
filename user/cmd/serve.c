// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl serve: a Prometheus exporter. It is the rings' one reader: it
 * drains them continuously into per-series monotonic counters (raw event
 * counts, run time, slices, read errors; lost records per CPU) and serves
 * them on /metrics in the Prometheus text format 0.0.4, or OpenMetrics
 * 1.0 when the scraper's Accept header asks for it. The TopDown fractions
 * are left to PromQL (rate() of the counts, recording rules in
 * contrib/prometheus/topdown.rules.yml), so any window works. The text
 * of /metrics, its families and label values, is export/openmetrics.h's.
 *
 * One poll() loop: the rings, and the HTTP server of user/http/ (its
 * connections, TLS and basic authentication from --web.config.file, its
 * limits: http/server.h), which calls sv_answer() for each request. The
 * certificate, the socket and the rings are opened first; then serve
 * drops to --user and every capability (base/privs.h). SIGHUP reads the
 * web configuration and its certificates again, as that user.
 *
 * A series is a bucket of --by, keyed by its label values (a cgroup's
 * path, not its id: a cgroup re-created under the same path is the same
 * series). At most --max-series series exist; records of any further
 * one are added to the series "other" (cgroup="other", pid="other": no
 * path or pid is that; for --by comm, SV_OTHER_COMM, which no comm is).
 * Series are never removed, so a counter never goes backwards when its
 * tasks exit.
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
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/privs.h"
#include "agg/aggregate.h"
#include "http/server.h"
#include "live/cgpath.h"
#include "live/collect.h"
#include "live/bpf/bpf.h"
#include "live/device.h"
#include "live/totals.h"
#include "export/openmetrics.h"
#include "evset/evset.h"
#include "output/text.h"
#include "cli/tdctl.h"

#define SV_DEFAULT_PORT	"10642"
#define SV_CONNS	1024	/* --max-connections */
#define SV_USER		"tdctl-serve"	/* the package's system user */
#define SV_RETRY_MS	10000	/* reopen the device after this long */
/* The overflow series' comm: printable ASCII without a backslash and
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
	  "at most N series, the rest summed as 'other' (default 1000)", 0 },
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

struct sv {
	enum td_by by;
	/* the series and the event set's labels: /metrics shows them */
	struct td_om_counters c;
	/* label text -> series, and record key -> series (a cache) */
	uint32_t *lslot;
	size_t lcap;
	struct { uint64_t key; uint32_t series; } *kslot;
	size_t kcap, kn;
	bool provisional;	/* it holds labels that may change */
	uint64_t cache_since;
	/* the rings */
	struct td_reader rd;
	bool open, tried;
	uint64_t next_open;
	uint64_t opens;
	double last_scrape_s;
	int status_fd;		/* read-only /dev/topdown kept across the drop */
	int bpf_fd;		/* the BPF backend's pin folder, likewise */
	/* the kernel's totals (load --totals), when they count for the
	 * records: a snapshot every TD_TOTALS_EVERY_MS, its differences added
	 */
	struct td_totals_track tt;
	bool totals;
	uint64_t next_step;
	uint64_t root_cgroup;	/* the idle tasks' */
};

/* ---- series ----------------------------------------------------------------- */

/* The keyed hash (base/hash.h) of s, up to a NUL or n bytes: the label
 * text and comm keys. Keyed, so that no one can name tasks whose comms
 * share a key (and so one series) or crowd one run of the table.
 */
static uint64_t key_hash(const char *s, size_t n)
{
	return td_hash_bytes(s, strnlen(s, n));
}

/* The labels of r's group; false if they may change (a cgroup id that
 * does not resolve to a path yet).
 */
static bool sv_labels(struct sv *s, const struct topdown_record *r,
		      char *buf, size_t cap)
{
	char v[TD_OM_LABEL_MAX - 40], t[TD_TEXT_SIZE(TOPDOWN_COMM_LEN)];
	const char *cg;

	switch (s->by) {
	case TD_BY_PROCESS:
		/* a comm: its text (output/text.h), then escaped */
		td_om_label(v, sizeof(v), t,
			    td_text(t, r->comm, TOPDOWN_COMM_LEN, NULL));
		snprintf(buf, cap, "pid=\"%u\",comm=\"%s\"", r->tgid, v);
		return true;
	case TD_BY_COMM:
		td_om_label(v, sizeof(v), t,
			    td_text(t, r->comm, TOPDOWN_COMM_LEN, NULL));
		snprintf(buf, cap, "comm=\"%s\"", v);
		return true;
	default:
		cg = r->cgroup_id ? td_cgroup_path(r->cgroup_id) : NULL;
		if (cg)
			td_om_cgroup_label(v, sizeof(v), cg);
		else
			snprintf(v, sizeof(v), "id:%llu",
				 (unsigned long long)r->cgroup_id);
		snprintf(buf, cap, "cgroup=\"%s\"", v);
		return cg || !r->cgroup_id;
	}
}

/* The series of these labels; "other" (0) when the table is full. */
static uint32_t sv_series_of(struct sv *s, const char *labels)
{
	size_t i = td_hash_bytes(labels, strlen(labels)) & (s->lcap - 1);

	while (s->lslot[i]) {
		if (!strcmp(s->c.series[s->lslot[i] - 1].labels, labels))
			return s->lslot[i] - 1;
		i = (i + 1) & (s->lcap - 1);
	}
	if (s->c.n >= s->c.max_series + 1)
		return 0;
	memset(&s->c.series[s->c.n], 0, sizeof(s->c.series[s->c.n]));
	snprintf(s->c.series[s->c.n].labels, TD_OM_LABEL_MAX, "%s", labels);
	s->c.n++;
	s->lslot[i] = (uint32_t)s->c.n;
	return (uint32_t)(s->c.n - 1);
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

/* The series of r's task (r's labels), through the key cache. */
static uint32_t sv_series_for(struct sv *s, const struct topdown_record *r)
{
	uint64_t key = sv_key(s, r);
	size_t i = (key * 0x9e3779b97f4a7c15ull >> 24) & (s->kcap - 1);
	uint32_t si;

	/* The cache of key -> series (cgroup id, pid or comm hash). A key
	 * whose labels are not final (a cgroup id not resolved yet) is
	 * cached too, but the whole cache is dropped a second later
	 * (sv_cache_expire()), so that it is looked up again.
	 */
	while (s->kslot[i].key && s->kslot[i].key != key)
		i = (i + 1) & (s->kcap - 1);
	if (s->kslot[i].key) {
		si = s->kslot[i].series;
	} else {
		char labels[TD_OM_LABEL_MAX];

		if (s->kn * 2 >= s->kcap) {	/* a cache: start over */
			memset(s->kslot, 0, s->kcap * sizeof(*s->kslot));
			s->kn = 0;
			i = (key * 0x9e3779b97f4a7c15ull >> 24) & (s->kcap - 1);
		}
		bool final = sv_labels(s, r, labels, sizeof(labels));

		si = sv_series_of(s, labels);
		s->kslot[i].key = key;
		s->kslot[i].series = si;
		s->kn++;
		if (!final)
			s->provisional = true;
	}
	return si;
}

static void sv_on_record(const struct topdown_record *r, void *ctx)
{
	struct sv *s = ctx;
	struct td_om_series *se;
	uint32_t si;

	s->c.records++;
	/* With the totals, a record is only read, to keep the rings moving. */
	if (s->totals)
		return;
	si = sv_series_for(s, r);
	se = &s->c.series[si];
	se->slices++;
	se->runtime_ns += r->duration_ns;
	if (s->c.nr_egroups) {
		/* a slice of one group, or of none (rotated, unreadable) */
		uint32_t k = TOPDOWN_REC_GROUP(r->flags);
		struct td_om_gx *x = &s->c.gx[si];

		if (r->flags & TOPDOWN_REC_ROTATED)
			return;
		if (r->flags & TOPDOWN_REC_ERROR_MASK) {
			se->read_errors++;
			return;
		}
		if (k >= s->c.nr_egroups)
			return;
		x->ns[k] += r->duration_ns;
		for (uint32_t j = 0; j < s->c.egroup[k].nr_events &&
		     j < TOPDOWN_MAX_EVENTS; j++)
			x->c[k][j] += r->delta[j];
		return;
	}
	/* A count that could not be read is not a 0: the slice is left
	 * out of every count, as a rotated group's is, so that all counts
	 * cover the same slices (their ratios are the metrics).
	 */
	if (r->flags & TOPDOWN_REC_ERROR_MASK) {
		se->read_errors++;
		return;
	}
	for (int e = 0; e < TOPDOWN_MAX_EVENTS; e++)
		se->counts[e] += r->delta[e];
}

static void sv_on_lost(int cpu, uint64_t count, const char *why, void *ctx)
{
	struct sv *s = ctx;

	(void)why;
	if (cpu >= 0 && cpu < s->c.lost_cpus)
		s->c.lost[cpu] += count;
}

/* A task's difference since the last snapshot of the totals (or the
 * idle tasks' and folded ones', as CPU 0's idle task): one group, no
 * rotation, so group 0's sums are the slices measured whole; the others
 * had an unreadable count, left out as a record's is (sv_on_record()).
 */
static void sv_on_total(const struct topdown_total *d, void *ctx)
{
	struct sv *s = ctx;
	struct topdown_record r;
	struct td_om_series *se;

	memset(&r, 0, sizeof(r));
	if (d->kind == TOPDOWN_TOTAL_OTHER) {
		r.cgroup_id = s->root_cgroup;
		r.flags = TOPDOWN_REC_IDLE;
		snprintf(r.comm, sizeof(r.comm), "swapper/0");
	} else {
		r.pid = d->pid;
		r.tgid = d->tgid;
		r.cgroup_id = d->cgroup_id;
		memcpy(r.comm, d->comm, sizeof(r.comm));
	}
	se = &s->c.series[sv_series_for(s, &r)];
	se->slices += d->slices;
	se->runtime_ns += d->time_ns;
	se->read_errors += d->slices - d->grp_slices[0];
	for (int e = 0; e < TOPDOWN_MAX_EVENTS; e++)
		se->counts[e] += d->grp_delta[0][e];
}

/* Every TD_TOTALS_EVERY_MS and at each scrape: the totals' news. Once they
 * cannot be read, the records count again, from then on.
 */
static void sv_totals_step(struct sv *s, uint64_t now, bool force)
{
	int ret;

	if (!s->totals || (!force && now < s->next_step))
		return;
	s->next_step = now + TD_TOTALS_EVERY_MS * 1000000ull;
	ret = td_totals_track_step(&s->tt, sv_on_total, s);
	if (!ret)
		return;
	p_warn("reading the kernel's totals: %s; counting the records from now on",
	       ret == -ESTALE ? "the collection was configured again" :
	       strerror(-ret));
	/* What the rings hold from now is counted, what they held is not. */
	td_reader_drain(&s->rd, sv_on_record, sv_on_lost, s);
	s->totals = false;
	td_totals_track_free(&s->tt);
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

/* ---- the rings -------------------------------------------------------------- */

static void sv_open(struct sv *s, uint64_t now)
{
	struct td_view_cfg *vc;

	/* After a failure, try again only once the module is there (quietly
	 * otherwise: one error, not one every SV_RETRY_MS).
	 */
	if (s->open || now < s->next_open || (s->tried && td_backend_active() == TD_BACKEND_NONE))
		return;
	s->next_open = now + SV_RETRY_MS * 1000000ull;
	s->tried = true;
	if (td_reader_open(&s->rd))
		return;
	if (s->c.lost_cpus && s->rd.nr_cpus > s->c.lost_cpus) {
		td_reader_close(&s->rd);	/* more CPUs than at first */
		return;
	}
	if (!s->c.lost) {
		s->c.lost = calloc((size_t)s->rd.nr_cpus, sizeof(*s->c.lost));
		if (!s->c.lost) {
			td_reader_close(&s->rd);
			return;
		}
		s->c.lost_cpus = s->rd.nr_cpus;
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
	if (vc->rotated && !s->c.gx) {
		s->c.gx = calloc(s->c.max_series + 1, sizeof(*s->c.gx));
		if (!s->c.gx) {
			p_err("out of memory for the event groups' counters");
			free(vc);
			td_reader_close(&s->rd);
			return;
		}
	}
	td_om_events(&s->c, vc, s->rd.cfg.label);
	/* The totals are the counts when there is one group: with rotated
	 * groups, the records tell rotated slices from unreadable ones.
	 */
	if (!vc->rotated &&
	    (s->rd.cfg.flags & TOPDOWN_CONFIG_TOTALS) &&
	    !td_totals_track_open(&s->tt, &s->rd, td_total_match_all, NULL)) {
		s->totals = true;
		s->root_cgroup = td_cgroup_root_id();
		s->next_step = now + TD_TOTALS_EVERY_MS * 1000000ull;
	}
	free(vc);
	s->open = true;
	s->opens++;
	p_info("serving the rings of %d CPUs, event set %s, counts from %s",
	       s->rd.nr_cpus, s->c.set,
	       s->totals ? "the kernel's totals" : "the records");
}

/* ---- the metrics ------------------------------------------------------------ */

/* A scrape: the rings drained, the collection's state asked, then every
 * family written (export/openmetrics.h).
 */
static void sv_metrics(struct sv *s, struct td_om_out *o, bool om)
{
	uint64_t t0 = td_now_ns();
	struct topdown_cpu_stats *stats = NULL;
	struct topdown_status st;
	const char *state = "unloaded";
	struct td_om_scrape sc;
	const char *lbl = s->by == TD_BY_PROCESS ? "process" :
			  s->by == TD_BY_COMM ? "comm" : "cgroup";

	if (s->open) {
		td_reader_drain(&s->rd, sv_on_record, sv_on_lost, s);
		sv_totals_step(s, t0, true);
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
	sc = (struct td_om_scrape){
		.om = om, .up = s->open, .state = state, .by = lbl,
		.version = tdctl_version, .t0_ns = t0,
		.counts = s->totals ? "totals" : "records",
	};
	td_om_write(o, &s->c, &sc);
	s->last_scrape_s = (double)(td_now_ns() - t0) / 1e9;
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
		struct td_om_out o = { .cap = 65536 };

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
	s->c.max_series = 1000;
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
				p_err("--by: serve sums by cgroup, process or comm");
				goto out;
			}
			break;
		case 'N':
			if (parse_u64_range("--max-series", optarg, 1, 100000,
					    &v))
				goto out;
			s->c.max_series = v;
			break;
		case 'C':
			if (parse_u64_range("--max-connections", optarg, 2, 65536,
					    &v))
				goto out;
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
	s->c.series = calloc(s->c.max_series + 1, sizeof(*s->c.series));
	for (s->lcap = 64; s->lcap < 2 * (s->c.max_series + 1); s->lcap *= 2)
		;
	s->lslot = calloc(s->lcap, sizeof(*s->lslot));
	s->kcap = 4 * s->lcap;
	s->kslot = calloc(s->kcap, sizeof(*s->kslot));
	if (!s->c.series || !s->lslot || !s->kslot) {
		p_err("out of memory");
		goto out;
	}
	/* Series 0: what does not fit. */
	snprintf(s->c.series[0].labels, TD_OM_LABEL_MAX, "%s",
		 s->by == TD_BY_PROCESS ? "pid=\"other\",comm=\"other\"" :
		 s->by == TD_BY_COMM ? "comm=\"" SV_OTHER_COMM "\"" :
		 "cgroup=\"other\"");
	s->c.n = 1;
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
		if (s->open) {
			td_reader_drain(&s->rd, sv_on_record, sv_on_lost, s);
			sv_totals_step(s, now, false);
		}
		n = td_http_pollfds(http, pfd, now);
		/* Stopped and drained (POLLHUP): look again after the timeout. */
		if (s->open && !rings_hup) {
			pfd[n].fd = s->rd.fd;
			pfd[n].events = POLLIN;
			pfd[n].revents = 0;
			rings = (int)n;
		}
		rings_hup = false;
		if (poll(pfd, rings >= 0 ? n + 1 : n,
			 s->totals ? TD_TOTALS_EVERY_MS : 250) <= 0)
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
		       (unsigned long long)s->c.records,
		       (unsigned long long)st->requests);
	}
	td_http_close(http);
	if (s->open) {
		td_reader_drain(&s->rd, sv_on_record, sv_on_lost, s);
		td_reader_close(&s->rd);
	}
	td_totals_track_free(&s->tt);
	if (s->status_fd >= 0)
		close(s->status_fd);
	if (s->bpf_fd >= 0)
		close(s->bpf_fd);
	td_webcfg_free(&web);
	free(pfd);
	free(s->c.series);
	free(s->c.gx);
	free(s->lslot);
	free(s->kslot);
	free(s->c.lost);
	free(s);
	return ret;
}
