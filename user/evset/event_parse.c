// SPDX-License-Identifier: GPL-2.0
/*
 * One event of perf's event syntax (events.c has the grammar, the list,
 * its groups and the label): a name perf knows (hardware, software,
 * cache, an alias of a core PMU's events/ or an event set's), rNNNN, or
 * PMU/terms/, with its modifiers, into a struct td_evsel for the module.
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
#include <strings.h>

#include <linux/perf_event.h>

#include "evset/evset_priv.h"

#define SYSFS_PMUS	"/sys/bus/event_source/devices"

struct named {
	const char *name;
	uint64_t config;
};

static const struct named hw_names[] = {
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const struct named sw_names[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_COUNT_SW_DUMMY },
	{ "cgroup-switches", 11 /* PERF_COUNT_SW_CGROUP_SWITCHES, 5.13 */ },
};

/* The i-th named hardware or software event, NULL past the last. */
const char *td_event_name(int i)
{
	int nhw = sizeof(hw_names) / sizeof(hw_names[0]);
	int nsw = sizeof(sw_names) / sizeof(sw_names[0]);

	if (i < 0 || i >= nhw + nsw)
		return NULL;
	return i < nhw ? hw_names[i].name : sw_names[i - nhw].name;
}

/* perf's names of the PERF_TYPE_HW_CACHE fields (tools/perf evsel.c). */
static const char *const cache_names[][4] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb" },
	{ "node" },
};

static const char *const cache_ops[][4] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};

static const char *const cache_results[][4] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};

/* Terms of perf's grammar that are about sampling or recording. */
static const char *const sampling_terms[] = {
	"period", "freq", "branch_type", "time", "call-graph", "stack-size",
	"max-stack", "inherit", "no-inherit", "overwrite", "no-overwrite",
	"percore", "aux-output", "aux-sample-size", "metric-id", "raw",
	"legacy-cache", "hardware", NULL,
};

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

/* ---- sysfs ------------------------------------------------------------ */

static int read_pmu_file(const char *root, const char *pmu, const char *rel,
			 char *buf, size_t len)
{
	char path[4096];
	size_t n;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s" SYSFS_PMUS "/%s/%s", root, pmu,
		     rel) >= (int)sizeof(path))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Find a file of PMU/dir/ by name, case-insensitively; its real name
 * into out. Names with a dot (events/x.scale, .unit) are not events.
 */
static int find_pmu_entry(const char *root, const char *pmu, const char *dir,
			  const char *name, char *out, size_t len)
{
	char path[4096];
	struct dirent *de;
	int ret = -1;
	DIR *d;

	snprintf(path, sizeof(path), "%s" SYSFS_PMUS "/%s/%s", root, pmu, dir);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strchr(de->d_name, '.') ||
		    strcasecmp(de->d_name, name))
			continue;
		snprintf(out, len, "%s", de->d_name);
		ret = 0;
		break;
	}
	closedir(d);
	return ret;
}

/* The names in PMU/format/, comma-separated, for error messages. */
static void list_formats(const char *root, const char *pmu, char *buf,
			 size_t len)
{
	char path[4096];
	struct dirent *de;
	size_t pos = 0;
	DIR *d;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s" SYSFS_PMUS "/%s/format", root, pmu);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && pos + 1 < len) {
		int w;

		if (de->d_name[0] == '.')
			continue;
		w = snprintf(buf + pos, len - pos, "%s%s", pos ? ", " : "",
			     de->d_name);
		if (w < 0 || (size_t)w >= len - pos)
			break;
		pos += w;
	}
	closedir(d);
}

static const struct td_pmu *pmu_by_name(const struct td_cpu_info *ci,
					const char *name)
{
	for (int i = 0; i < ci->nr_pmus; i++)
		if (!strcmp(ci->pmu[i].name, name))
			return &ci->pmu[i];
	return NULL;
}

static void core_pmu_names(const struct td_cpu_info *ci, char *buf,
			   size_t len)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; i < ci->nr_pmus; i++) {
		int w;

		if (!ci->pmu[i].core)
			continue;
		w = snprintf(buf + pos, len - pos, "%s%s", pos ? ", " : "",
			     ci->pmu[i].name);
		if (w < 0 || (size_t)w >= len - pos)
			break;
		pos += w;
	}
	if (!pos)
		snprintf(buf, len, "none here");
}

/* ---- numbers ---------------------------------------------------------- */

/* Whole string, decimal or 0x hex, no sign, no overflow. */
static int parse_value(const char *s, uint64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

/* ---- one event -------------------------------------------------------- */

struct ev {
	struct td_evsel *e;
	const char *text;	/* the whole event as written, for messages */
	char name[TOPDOWN_NAME_LEN];	/* name= term, "" if none */
	uint64_t *field[3];	/* config, config1, config2 */
	uint64_t set_bits[3];	/* bits a term has set: no overlaps */
};

/*
 * PMU/format/TERM is "config:0-7", "config1:0-63" or "config:0-7,32-35":
 * the value's bits, lowest first, go into those bit ranges of that field
 * (perf's pmu_format_value()).
 */
static int put_format(struct ev *ev, const char *pmu, const char *term,
		      const char *fmt, uint64_t v, char *err, size_t errlen)
{
	const char *p = strchr(fmt, ':');
	uint64_t mask = 0, out = 0;
	int field, nbits = 0, vbit = 0;

	if (!p) {
		ERR("%s: %s/format/%s is not understood ('%s')", ev->text, pmu,
		    term, fmt);
		return -1;
	}
	if (!strncmp(fmt, "config:", 7)) {
		field = 0;
	} else if (!strncmp(fmt, "config1:", 8)) {
		field = 1;
	} else if (!strncmp(fmt, "config2:", 8)) {
		field = 2;
	} else {
		ERR("%s: %s/format/%s names a field topdown cannot set ('%s')",
		    ev->text, pmu, term, fmt);
		return -1;
	}
	p++;
	while (*p) {
		char *end;
		unsigned long lo, hi;

		lo = strtoul(p, &end, 10);
		hi = lo;
		if (end == p)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p)
				goto bad;
		}
		if (lo > hi || hi > 63)
			goto bad;
		for (unsigned long b = lo; b <= hi; b++) {
			mask |= 1ull << b;
			if (vbit < 64 && (v >> vbit & 1))
				out |= 1ull << b;
			vbit++;
			nbits++;
		}
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (nbits < 64 && v >> nbits) {
		ERR("%s: value 0x%llx too big for %s (%s, at most 0x%llx)",
		    ev->text, (unsigned long long)v, term, fmt,
		    (unsigned long long)((1ull << nbits) - 1));
		return -1;
	}
	if (ev->set_bits[field] & mask) {
		ERR("%s: term %s sets bits of %s that another term set",
		    ev->text, term, field ? (field == 1 ? "config1" : "config2") :
		    "config");
		return -1;
	}
	ev->set_bits[field] |= mask;
	*ev->field[field] |= out;
	return 0;
bad:
	ERR("%s: %s/format/%s is not understood ('%s')", ev->text, pmu, term,
	    fmt);
	return -1;
}

static int parse_terms(struct ev *ev, const char *root, const char *pmu,
		       char *terms, int depth, char *err, size_t errlen);

/* One term of PMU/.../: "name=value", "name" (value 1), or an alias. */
static int parse_term(struct ev *ev, const char *root, const char *pmu,
		      char *term, int depth, char *err, size_t errlen)
{
	char *eq = strchr(term, '='), real[256], buf[1024];
	uint64_t v = 1;

	if (eq)
		*eq++ = '\0';
	if (!*term) {
		ERR("%s: empty term", ev->text);
		return -1;
	}
	if (!strcmp(term, "name")) {
		if (!eq || !*eq || depth) {
			ERR("%s: name= needs a value", ev->text);
			return -1;
		}
		if (strlen(eq) >= TOPDOWN_NAME_LEN) {
			ERR("%s: name '%s' longer than %d bytes", ev->text, eq,
			    TOPDOWN_NAME_LEN - 1);
			return -1;
		}
		snprintf(ev->name, sizeof(ev->name), "%s", eq);
		return 0;
	}
	for (int i = 0; sampling_terms[i]; i++) {
		if (!strcmp(term, sampling_terms[i])) {
			ERR("%s: term '%s' is not supported: topdown counts each event per CPU, "
			    "it does not sample or record",
			    ev->text, term);
			return -1;
		}
	}
	if (eq && parse_value(eq, &v)) {
		ERR("%s: bad value '%s' for %s (a number, decimal or 0x hex)",
		    ev->text, eq, term);
		return -1;
	}
	for (int f = 0; f < 3; f++) {
		static const char *const fields[] = {
			"config", "config1", "config2",
		};

		if (strcmp(term, fields[f]))
			continue;
		if (!eq) {
			ERR("%s: %s needs a value", ev->text, term);
			return -1;
		}
		if (ev->set_bits[f]) {
			ERR("%s: %s set twice", ev->text, term);
			return -1;
		}
		ev->set_bits[f] = ~0ull;
		*ev->field[f] = v;
		return 0;
	}
	if (!find_pmu_entry(root, pmu, "format", term, real, sizeof(real)) &&
	    !strcmp(real, term)) {
		snprintf(buf, sizeof(buf), "format/%s", real);
		if (read_pmu_file(root, pmu, buf, buf, sizeof(buf))) {
			ERR("%s: cannot read %s/format/%s", ev->text, pmu, real);
			return -1;
		}
		return put_format(ev, pmu, term, buf, v, err, errlen);
	}
	/* An alias of PMU/events/: its own terms, e.g. "event=0x11". */
	if (!eq && !depth &&
	    !find_pmu_entry(root, pmu, "events", term, real, sizeof(real))) {
		snprintf(buf, sizeof(buf), "events/%s", real);
		if (read_pmu_file(root, pmu, buf, buf, sizeof(buf)) || !*buf) {
			ERR("%s: cannot read %s/events/%s", ev->text, pmu, real);
			return -1;
		}
		return parse_terms(ev, root, pmu, buf, depth + 1, err, errlen);
	}
	list_formats(root, pmu, buf, sizeof(buf));
	ERR("%s: PMU %s has no term '%s' (its format terms: %s; also config, config1, config2, "
	    "name=, and its events/ aliases)",
	    ev->text, pmu, term, *buf ? buf : "none");
	return -1;
}

static int parse_terms(struct ev *ev, const char *root, const char *pmu,
		       char *terms, int depth, char *err, size_t errlen)
{
	char *save = NULL, *t;

	if (!*terms) {
		ERR("%s: no terms between the slashes", ev->text);
		return -1;
	}
	if (terms[strlen(terms) - 1] == ',' || *terms == ',' ||
	    strstr(terms, ",,")) {
		ERR("%s: empty term", ev->text);
		return -1;
	}
	for (t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (parse_term(ev, root, pmu, t, depth, err, errlen))
			return -1;
	return 0;
}

/* perf's u/k modifiers: naming a level excludes the others. */
static int parse_mods(struct ev *ev, const char *mods, char *err,
		      size_t errlen)
{
	bool u = false, k = false;
	const char *m;

	for (m = mods; *m; m++) {
		switch (*m) {
		case 'u':
			if (u)
				goto twice;
			u = true;
			break;
		case 'k':
			if (k)
				goto twice;
			k = true;
			break;
		case 'h':
		case 'G':
		case 'H':
			ERR("%s: modifier '%c' is not supported: topdown counts user (u) and "
			    "kernel (k) mode of the host",
			    ev->text, *m);
			return -1;
		case 'p':
		case 'P':
		case 'S':
		case 'D':
		case 'I':
		case 'W':
		case 'e':
		case 'b':
		case 'R':
			ERR("%s: modifier '%c' is not supported: topdown counts each event per "
			    "CPU, it does not sample, pin, group or record",
			    ev->text, *m);
			return -1;
		default:
			ERR("%s: unknown modifier '%c' (topdown takes u, k or uk)",
			    ev->text, *m);
			return -1;
		}
	}
	if (u && !k)
		ev->e->flags = TOPDOWN_EVENT_EXCLUDE_KERNEL;
	else if (k && !u)
		ev->e->flags = TOPDOWN_EVENT_EXCLUDE_USER;
	return 0;
twice:
	ERR("%s: modifier '%c' given twice", ev->text, *m);
	return -1;
}

static bool is_mods(const char *s)
{
	return *s && strspn(s, "ukhGHpPSDIWebR") == strlen(s);
}

static bool lookup(const struct named *t, size_t n, const char *name,
		   uint64_t *config)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcasecmp(t[i].name, name)) {
			*config = t[i].config;
			return true;
		}
	}
	return false;
}

/* The alias at the start of *s among up to 4 spellings, longest first. */
static int cache_word(const char **s, const char *const (*tab)[4], int n)
{
	int best = -1;
	size_t blen = 0;

	for (int i = 0; i < n; i++) {
		for (int j = 0; j < 4 && tab[i][j]; j++) {
			size_t l = strlen(tab[i][j]);

			if (l > blen && !strncasecmp(*s, tab[i][j], l) &&
			    ((*s)[l] == '-' || !(*s)[l])) {
				best = i;
				blen = l;
			}
		}
	}
	if (best >= 0) {
		*s += blen;
		if (**s == '-')
			(*s)++;
	}
	return best;
}

/* CACHE[-OP][-RESULT] (perf: op defaults to load, result to access). */
static bool lookup_cache(const char *name, uint64_t *config)
{
	const char *s = name;
	int c, op = -1, res = -1;

	c = cache_word(&s, cache_names, 7);
	if (c < 0)
		return false;
	while (*s) {
		int o = op < 0 ? cache_word(&s, cache_ops, 3) : -1;

		if (o >= 0) {
			op = o;
			continue;
		}
		if (res >= 0)
			return false;
		res = cache_word(&s, cache_results, 2);
		if (res < 0)
			return false;
	}
	*config = (uint64_t)c | (uint64_t)(op < 0 ? 0 : op) << 8 |
		  (uint64_t)(res < 0 ? 0 : res) << 16;
	return true;
}

static void restrict_cpus(const struct td_cpu_info *ci,
			  const struct td_pmu *p, struct td_evsel *e)
{
	e->all_cpus = td_pmu_covers_all(ci, p);
	if (!e->all_cpus)
		memcpy(e->cpus, p->cpus, sizeof(e->cpus));
}

/*
 * A name perf knows for this CPU, case-insensitively: an alias in a core
 * PMU's sysfs events/ directory (the main PMU first), then an event of a
 * set that fits this CPU (`tdctl list`). The lookup hook for further
 * tables of perf's names. 0 with e's type, config and CPUs, or -1.
 */
int td_event_alias(const struct td_cpu_info *ci, const char *root,
		   const char *name, struct td_evsel *e, char *err,
		   size_t errlen)
{
	const struct td_pmu *mp = td_sel_pmu(ci, TD_PMU_MAIN);
	char real[256], terms[1024], rel[300];

	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < ci->nr_pmus; i++) {
			const struct td_pmu *p = &ci->pmu[i];
			struct ev ev = {
				.e = e, .text = name,
				.field = { &e->config, &e->config1,
					   &e->config2 },
			};

			bool is_main = p == mp;

			if (!p->core || !pass != is_main ||
			    find_pmu_entry(root, p->name, "events", name, real,
					   sizeof(real)))
				continue;
			snprintf(rel, sizeof(rel), "events/%s", real);
			if (read_pmu_file(root, p->name, rel, terms,
					  sizeof(terms)) || !*terms)
				continue;
			e->type = p->type;
			e->config = 0;
			e->config1 = 0;
			e->config2 = 0;
			if (parse_terms(&ev, root, p->name, terms, 1, err,
					errlen))
				return -1;
			restrict_cpus(ci, p, e);
			return 0;
		}
	}
	for (int i = 0; i < td_nr_sets; i++) {
		const struct td_set *s = td_sets[i];

		if (td_set_fit(s, ci, NULL, 0) < TD_FIT_MANUAL)
			continue;
		for (int j = 0; j < s->nr_events; j++) {
			const struct td_ev_tmpl *t = &s->ev[j];

			/* the set's name or perf's (td_ev_tmpl.aliases) */
			if (t->kind != TD_EV_RAW || t->pmu != TD_PMU_MAIN ||
			    !mp || td_set_event_index(s, name, strlen(name)) != j)
				continue;
			e->type = mp->type;
			e->config = t->config;
			e->config1 = 0;
			e->config2 = 0;
			/* the name if perf's is too long for the module */
			snprintf(e->name, sizeof(e->name), "%s", t->name);
			restrict_cpus(ci, mp, e);
			return 0;
		}
	}
	ERR("unknown event '%s' (not a perf hardware, software or cache event name, rNNNN, "
	    "PMU/terms/, nor an event of this CPU's PMUs or event sets)",
	    name);
	return -1;
}

static int parse_pmu_event(struct ev *ev, const struct td_cpu_info *ci,
			   const char *root, char *tok, char *err,
			   size_t errlen)
{
	char *slash = strchr(tok, '/'), *close, *mods;
	const struct td_pmu *p;
	char list[512];

	*slash = '\0';
	close = strrchr(slash + 1, '/');
	if (!close) {
		ERR("%s: PMU terms not closed with '/'", ev->text);
		return -1;
	}
	*close = '\0';
	mods = close + 1;
	if (*mods == ':')
		mods++;
	p = pmu_by_name(ci, tok);
	if (!p) {
		core_pmu_names(ci, list, sizeof(list));
		ERR("%s: no PMU '%s' in " SYSFS_PMUS " (core PMUs: %s)",
		    ev->text, tok, list);
		return -1;
	}
	if (!p->core) {
		core_pmu_names(ci, list, sizeof(list));
		ERR("%s: PMU '%s' is not a core CPU PMU: topdown counts core PMU events (%s) and "
		    "software events only",
		    ev->text, tok, list);
		return -1;
	}
	ev->e->type = p->type;
	restrict_cpus(ci, p, ev->e);
	if (parse_terms(ev, root, p->name, slash + 1, 0, err, errlen))
		return -1;
	return parse_mods(ev, mods, err, errlen);
}

static int parse_named_event(struct ev *ev, const struct td_cpu_info *ci,
			     const char *root, char *tok, char *err,
			     size_t errlen)
{
	char *colon = strchr(tok, ':');
	struct td_evsel *e = ev->e;
	const char *mods = "";

	if (colon) {
		*colon = '\0';
		mods = colon + 1;
		if (!strcmp(tok, "mem")) {
			ERR("%s: breakpoints are not counted: topdown counts core PMU and "
			    "software events",
			    ev->text);
			return -1;
		}
		if (!is_mods(mods)) {
			ERR("%s: '%s:%s' looks like a tracepoint, which topdown does not count "
			    "(core PMU and software events only)",
			    ev->text, tok, mods);
			return -1;
		}
	}
	if (!*tok) {
		ERR("%s: empty event name", ev->text);
		return -1;
	}
	e->all_cpus = true;
	if (lookup(hw_names, sizeof(hw_names) / sizeof(hw_names[0]), tok,
		   &e->config)) {
		e->type = PERF_TYPE_HARDWARE;
	} else if (lookup(sw_names, sizeof(sw_names) / sizeof(sw_names[0]),
			  tok, &e->config)) {
		e->type = PERF_TYPE_SOFTWARE;
	} else if (!strcasecmp(tok, "bpf-output")) {
		ERR("%s: bpf-output is not a counter", ev->text);
		return -1;
	} else if (lookup_cache(tok, &e->config)) {
		e->type = PERF_TYPE_HW_CACHE;
	} else if (tok[0] == 'r' && tok[1] && strlen(tok) <= 17 &&
		   strspn(tok + 1, "0123456789abcdefABCDEF") ==
		   strlen(tok + 1)) {
		e->type = PERF_TYPE_RAW;
		e->config = strtoull(tok + 1, NULL, 16);
	} else if (td_event_alias(ci, root, tok, e, err, errlen)) {
		return -1;
	}
	return parse_mods(ev, mods, err, errlen);
}

/* One event of the list (tok, modified in place) into e (evset_priv.h). */
int td_parse_event(const struct td_cpu_info *ci, const char *root,
		   char *tok, struct td_evsel *e, char *err, size_t errlen)
{
	char text[512];
	struct ev ev = {
		.e = e, .text = text,
		.field = { &e->config, &e->config1, &e->config2 },
	};
	int ret;

	memset(e, 0, sizeof(*e));
	snprintf(text, sizeof(text), "%s", tok);
	if (strchr(tok, '/'))
		ret = parse_pmu_event(&ev, ci, root, tok, err, errlen);
	else
		ret = parse_named_event(&ev, ci, root, tok, err, errlen);
	if (ret)
		return -1;
	if (ev.name[0]) {
		memcpy(e->name, ev.name, sizeof(e->name));
		return 0;
	}
	/* perf's longer name of a set's event: the set's name */
	if (strlen(text) >= TOPDOWN_NAME_LEN && e->name[0])
		return 0;
	if (strlen(text) >= TOPDOWN_NAME_LEN) {
		ERR("event '%s' is longer than the %d bytes the module keeps as its name: name it "
		    "with the name= term (PMU/...,name=NAME/)",
		    text, TOPDOWN_NAME_LEN - 1);
		return -1;
	}
	snprintf(e->name, sizeof(e->name), "%s", text);
	return 0;
}
