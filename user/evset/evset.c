// SPDX-License-Identifier: GPL-2.0
/*
 * The table of event sets and the generic machinery around it: choosing a
 * set (td_plan_for), the config label and its strict parser, building a
 * decoder and dispatching to the set's formula family (td_decode). Nothing
 * here knows a vendor: the sets live in evset_{intel,amd,arm,generic}.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/perf_event.h>

#include "evset/evset_priv.h"

/* Most specific first: the automatic choice takes the first TD_FIT_AUTO. */
const struct td_set *const td_sets[] = {
	&td_set_intel_adl_hybrid,
	&td_set_intel_spr,
	&td_set_intel_icl,
	&td_set_intel_skl,
	&td_set_intel_snb,
	&td_set_amd_zen5,
	&td_set_amd_zen4,
	&td_set_arm_neoverse_n2,
	&td_set_arm_neoverse_v1,
	&td_set_arm_neoverse_v2,
	&td_set_arm_stall_cycles,
	&td_set_generic,
	&td_set_software,
};

const int td_nr_sets = sizeof(td_sets) / sizeof(td_sets[0]);

const struct td_set *td_set_find(const char *name)
{
	for (int i = 0; i < td_nr_sets; i++)
		if (!strcmp(td_sets[i]->name, name))
			return td_sets[i];
	return NULL;
}

/* Does the space-separated list have the word w (n bytes), ignoring case? */
static bool has_word(const char *list, const char *w, size_t n)
{
	while (list && *list) {
		size_t len = strcspn(list, " ");

		if (len == n && !strncasecmp(list, w, n))
			return true;
		list += len;
		list += strspn(list, " ");
	}
	return false;
}

/* perf's modifiers after the last ':' ("instructions:u", "cycles:ukG"). */
static size_t strip_modifiers(const char *name, size_t len)
{
	for (size_t i = len; i-- > 0;) {
		if (name[i] == ':')
			return i && i + 1 < len ? i : len;
		if (name[i] == '/' || !strchr("ukhIGHpPSDWeb", name[i]))
			break;
	}
	return len;
}

static int name_index(const struct td_set *s, const char *name, size_t len)
{
	const char *inner = name, *slash;
	size_t pmu_len = 0, n;

	len = strip_modifiers(name, len);
	slash = memchr(name, '/', len);
	n = len;
	if (slash) {
		/* "pmu/event/" as perf prints it, or tdctl's "core/EVENT" */
		pmu_len = slash - name;
		inner = slash + 1;
		n = len - pmu_len - 1;
		if (n && inner[n - 1] == '/')
			n--;
		if (!n || memchr(inner, '/', n))
			return -1;
		/* perf's hybrid PMUs are tdctl's core/ and atom/ prefixes */
		if (pmu_len > 4 && !strncmp(name, "cpu_", 4)) {
			name += 4;
			pmu_len -= 4;
		}
	}
	for (int i = 0; i < s->nr_events; i++) {
		const struct td_ev_tmpl *t = &s->ev[i];
		const char *tn = t->name, *ts = strchr(tn, '/');

		if (ts) {
			/* a per-PMU event: the PMU must be the same */
			if (!pmu_len || (size_t)(ts - tn) != pmu_len ||
			    strncasecmp(tn, name, pmu_len))
				continue;
			tn = ts + 1;
		}
		if ((strlen(tn) == n && !strncasecmp(tn, inner, n)) ||
		    has_word(t->aliases, inner, n))
			return i;
	}
	return -1;
}

/* ---- raw encodings ---------------------------------------------------- */

/*
 * An event given by its encoding, as perf prints an event given so:
 * "rNNNN" (hex, the raw config), "raw 0xNNNN" (perf's name of a raw event
 * without one), PMU/TERMS/ with modifiers after it, or the bare TERMS of
 * a set's encoding as `tdctl list` shows them ("event=0xa4,umask=0x01").
 * TERMS are perf's x86 and Arm format terms that the sets' encodings use
 * (event, umask, cmask, edge, inv, any; absent ones 0) or config=N; they
 * are compared term by term with the template's encoding, a config with
 * the template's config, so that no PMU's format files are needed.
 */
enum { ENC_EVENT, ENC_UMASK, ENC_CMASK, ENC_EDGE, ENC_INV, ENC_ANY, ENC_NR };

static const char *const enc_term[ENC_NR] = {
	"event", "umask", "cmask", "edge", "inv", "any",
};

struct enc {
	uint64_t v[ENC_NR];
	bool has_config;	/* a raw config, not terms */
	uint64_t config;
	const char *pmu;	/* NULL: none given */
	size_t pmu_len;
};

/* A number as perf's terms and rNNNN take it: 0x hex or decimal (hex
 * only with hex set); the whole of s[0..n), at most 64 bits.
 */
static bool enc_num(const char *s, size_t n, bool hex, uint64_t *v)
{
	int base = hex ? 16 : 10;

	if (!hex && n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
		base = 16;
	}
	if (!n)
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		int d = isdigit((unsigned char)s[i]) ? s[i] - '0' :
			base == 16 && isxdigit((unsigned char)s[i]) ?
			tolower((unsigned char)s[i]) - 'a' + 10 : -1;

		if (d < 0 || *v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false;
		*v = *v * base + (uint64_t)d;
	}
	return true;
}

/* "event=0xa4,umask=0x01" into e; false if anything else is in it. */
static bool enc_terms(const char *s, size_t n, struct enc *e)
{
	bool seen[ENC_NR] = { false }, any = false;

	while (n) {
		const char *comma = memchr(s, ',', n);
		size_t len = comma ? (size_t)(comma - s) : n;
		const char *eq = memchr(s, '=', len);
		size_t klen = eq ? (size_t)(eq - s) : len;
		uint64_t v = 1;		/* a flag term without a value */
		int k;

		if (eq && !enc_num(eq + 1, len - klen - 1, false, &v))
			return false;
		if (klen == 6 && !strncasecmp(s, "config", 6) && eq &&
		    !any && !e->has_config) {
			e->has_config = true;
			e->config = v;
		} else {
			for (k = 0; k < ENC_NR; k++)
				if (strlen(enc_term[k]) == klen &&
				    !strncasecmp(enc_term[k], s, klen))
					break;
			if (k == ENC_NR || seen[k] || e->has_config)
				return false;
			seen[k] = true;
			e->v[k] = v;
		}
		any = true;
		if (!comma)
			break;
		s += len + 1;
		n -= len + 1;
		if (!n)
			return false;	/* a trailing comma */
	}
	return any && (e->has_config || seen[ENC_EVENT]);
}

/* The encoding in name[0..len), or false if it is not one. */
static bool enc_parse(const char *name, size_t len, struct enc *e)
{
	const char *slash, *end;
	uint64_t v;

	memset(e, 0, sizeof(*e));
	len = strip_modifiers(name, len);
	if (len > 1 && name[0] == 'r' && enc_num(name + 1, len - 1, true, &v)) {
		e->has_config = true;
		e->config = v;
		return true;
	}
	if (len > 6 && !strncmp(name, "raw 0x", 6) &&
	    enc_num(name + 6, len - 6, true, &v)) {
		e->has_config = true;
		e->config = v;
		return true;
	}
	slash = memchr(name, '/', len);
	if (!slash)
		return enc_terms(name, len, e);
	/* PMU/TERMS/ and perf's modifiers after the closing slash */
	end = name + len;
	while (end > slash + 1 && end[-1] != '/') {
		if (!strchr("ukhIGHpPSDWeb", end[-1]))
			return false;
		end--;
	}
	if (end == slash + 1 || slash == name)
		return false;
	e->pmu = name;
	e->pmu_len = slash - name;
	return enc_terms(slash + 1, end - 1 - (slash + 1), e);
}

/* Does the PMU given (if any) count template t's event? */
static bool enc_pmu_fits(const struct enc *e, const struct td_ev_tmpl *t)
{
	const char *want = t->pmu == TD_PMU_CORE ? "cpu_core" :
			   t->pmu == TD_PMU_ATOM ? "cpu_atom" : NULL;

	if (!e->pmu)
		return true;
	if (want)
		return e->pmu_len == strlen(want) &&
		       !strncmp(e->pmu, want, e->pmu_len);
	return (e->pmu_len == 3 && !strncmp(e->pmu, "cpu", 3)) ||
	       (e->pmu_len > 4 && !strncmp(e->pmu, "armv", 4));
}

static int encoding_index(const struct td_set *s, const char *name,
			  size_t len)
{
	struct enc in, t;

	if (!enc_parse(name, len, &in))
		return -1;
	for (int i = 0; i < s->nr_events; i++) {
		const struct td_ev_tmpl *tm = &s->ev[i];
		const char *te = tm->encoding, *sp;

		if (tm->kind != TD_EV_RAW || !enc_pmu_fits(&in, tm))
			continue;
		if (in.has_config) {
			if (in.config == tm->config)
				return i;
			continue;
		}
		/* the template's "cpu_core event=..." */
		sp = strchr(te, ' ');
		if (sp)
			te = sp + 1;
		memset(&t, 0, sizeof(t));
		if (enc_terms(te, strlen(te), &t) && !t.has_config &&
		    !memcmp(t.v, in.v, sizeof(t.v)))
			return i;
	}
	return -1;
}

int td_set_event_index(const struct td_set *s, const char *name, size_t len)
{
	int i = name_index(s, name, len);

	return i >= 0 ? i : encoding_index(s, name, len);
}

bool td_set_exists(const char *name)
{
	return td_set_find(name);
}

int td_set_fit(const struct td_set *s, const struct td_cpu_info *ci,
	       char *why, size_t n)
{
	char dummy[8];

	if (!why) {
		why = dummy;
		n = sizeof(dummy);
	}
	why[0] = '\0';
	return s->match(s, ci, why, n);
}

/* ---- metrics ---------------------------------------------------------- */

static struct td_metric *next_metric(struct td_metrics *out)
{
	if (out->n >= TD_MAX_METRICS)
		return NULL;
	return &out->m[out->n++];
}

/* put_value() and put_ratio() are inlined into td_put_ratio() and
 * td_put_ipc(): every record's decode goes through them, and ipc's
 * constant fraction = false drops the range check.
 */
static inline __attribute__((always_inline))
void put_value(struct td_metrics *out, const char *name, long double v,
	       bool valid, bool fraction)
{
	struct td_metric *m = next_metric(out);

	if (!m)
		return;
	m->name = name;
	m->valid = valid;
	m->value = valid ? (double)v : 0.0;
	m->flagged = valid && fraction && (v < 0.0L || v > 1.0L);
}

void td_put_value(struct td_metrics *out, const char *name, long double v,
		  bool valid, bool fraction)
{
	put_value(out, name, v, valid, fraction);
}

static inline __attribute__((always_inline))
void put_ratio(struct td_metrics *out, const char *name, __int128 num,
	       unsigned __int128 den, bool fraction)
{
	if (!den) {
		put_value(out, name, 0, false, fraction);
		return;
	}
	/* Both fit 64 bits nearly always: the same exact conversions to
	 * long double without libgcc's 128-bit ones.
	 */
	if (num == (int64_t)num && !(den >> 64))
		put_value(out, name, (long double)(int64_t)num /
			  (long double)(uint64_t)den, true, fraction);
	else
		put_value(out, name, (long double)num / (long double)den,
			  true, fraction);
}

void td_put_ratio(struct td_metrics *out, const char *name, __int128 num,
		  unsigned __int128 den, bool fraction)
{
	put_ratio(out, name, num, den, fraction);
}

#define IPC_NAME	"ipc"

void td_put_ipc(struct td_metrics *out, uint64_t instructions,
		uint64_t cycles)
{
	put_ratio(out, IPC_NAME, instructions, cycles, false);
}

bool td_metric_is_fraction(const char *name)
{
	return strcmp(name, IPC_NAME);
}

/* ---- revision --------------------------------------------------------- */

static int parse_small(const char **sp, unsigned int max, unsigned int *out)
{
	const char *s = *sp;
	unsigned int v = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	if (s[0] == '0' && isdigit((unsigned char)s[1]))
		return -1;	/* no leading zeros */
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (*s - '0');
		if (v > max)
			return -1;
		s++;
	}
	*sp = s;
	*out = v;
	return 0;
}

int td_parse_revision(const char *s, unsigned int *rev)
{
	unsigned int x, y;

	if (*s != 'r')
		return -1;
	s++;
	if (parse_small(&s, 15, &x) || *s != 'p')
		return -1;
	s++;
	if (parse_small(&s, 15, &y) || *s)
		return -1;
	*rev = x << 4 | y;
	return 0;
}

void td_format_revision(unsigned int rev, char *buf, size_t len)
{
	snprintf(buf, len, "r%up%u", rev >> 4 & 0xf, rev & 0xf);
}

/* ---- plan ------------------------------------------------------------- */

/* The names of the sets that fit ci (NULL: of every set). */
static void list_valid(const struct td_cpu_info *ci, char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; i < td_nr_sets; i++) {
		int w;

		if (ci && td_set_fit(td_sets[i], ci, NULL, 0) < TD_FIT_MANUAL)
			continue;
		w = snprintf(buf + pos, len - pos, "%s%s", pos ? ", " : "",
			     td_sets[i]->name);
		if (w < 0 || (size_t)w >= len - pos)
			break;
		pos += w;
	}
}

const struct td_pmu *td_sel_pmu(const struct td_cpu_info *ci,
				enum td_pmu_sel sel)
{
	int i = -1;

	switch (sel) {
	case TD_PMU_MAIN:
		i = ci->main_pmu >= 0 ? ci->main_pmu : ci->core_pmu;
		break;
	case TD_PMU_CORE:
		i = ci->core_pmu;
		break;
	case TD_PMU_ATOM:
		i = ci->atom_pmu;
		break;
	case TD_PMU_ANY:
		break;
	}
	return i >= 0 ? &ci->pmu[i] : NULL;
}

/* Does the PMU cover every possible CPU? */
bool td_pmu_covers_all(const struct td_cpu_info *ci, const struct td_pmu *p)
{
	if (!p->has_cpus)
		return true;
	for (int w = 0; w < TD_CPU_WORDS; w++)
		if ((ci->possible[w] & p->cpus[w]) != ci->possible[w])
			return false;
	return true;
}

/* Slot width a set uses on this machine (0: the set takes none). */
unsigned int td_set_slots(const struct td_set *s,
			  const struct td_cpu_info *ci)
{
	const struct td_pmu *p;

	if (!s->def_slots)
		return 0;
	if (s->slots_from_caps && ci) {
		p = td_sel_pmu(ci, TD_PMU_MAIN);
		if (p && p->slots)
			return p->slots;
	}
	return s->def_slots;
}

static int build_label(const struct td_set *s, unsigned int slots,
		       bool with_rev, unsigned int rev, char *buf, size_t len)
{
	char r[16];
	int w;

	w = snprintf(buf, len, "set=%s", s->name);
	if (slots && w > 0 && (size_t)w < len)
		w += snprintf(buf + w, len - w, " slots=%u", slots);
	if (with_rev && w > 0 && (size_t)w < len) {
		td_format_revision(rev, r, sizeof(r));
		w += snprintf(buf + w, len - w, " rev=%s", r);
	}
	return w > 0 && (size_t)w < len ? 0 : -1;
}

int td_plan_for(const struct td_cpu_info *ci, const char *set_name,
		struct td_plan *plan, char *err, size_t errlen)
{
	const struct td_set *s = NULL;
	char why[256], valid[512], all[512];
	int fit = TD_FIT_NO;

	memset(plan, 0, sizeof(*plan));
	if (set_name) {
		s = td_set_find(set_name);
		if (!s) {
			list_valid(ci, valid, sizeof(valid));
			list_valid(NULL, all, sizeof(all));
			snprintf(err, errlen,
				 "unknown event set '%s' (the %d sets: %s); valid here: %s",
				 set_name, td_nr_sets, all, valid);
			return -1;
		}
		fit = td_set_fit(s, ci, why, sizeof(why));
		if (fit < TD_FIT_MANUAL) {
			list_valid(ci, valid, sizeof(valid));
			snprintf(err, errlen,
				 "event set '%s' does not fit this CPU (%s); valid here: %s",
				 set_name, why, valid);
			return -1;
		}
		snprintf(plan->why, sizeof(plan->why), "requested by name: %s",
			 why);
	} else {
		for (int i = 0; i < td_nr_sets && !s; i++) {
			fit = td_set_fit(td_sets[i], ci, why, sizeof(why));
			if (fit >= TD_FIT_AUTO)
				s = td_sets[i];
		}
		if (!s) {
			/* The table ends with generic and software, which
			 * always report TD_FIT_AUTO when they are the
			 * fallback; reaching here means the table is broken.
			 */
			snprintf(err, errlen, "no event set fits this machine");
			return -1;
		}
		snprintf(plan->why, sizeof(plan->why), "%s", why);
	}

	snprintf(plan->set, sizeof(plan->set), "%s", s->name);
	if (build_label(s, td_set_slots(s, ci), s->has_rev,
			ci->has_midr ? (ci->variant << 4 | ci->revision) : 0,
			plan->label, sizeof(plan->label))) {
		snprintf(err, errlen, "label for '%s' too long", s->name);
		return -1;
	}

	for (int i = 0; i < s->nr_events; i++) {
		const struct td_ev_tmpl *t = &s->ev[i];
		struct td_evsel *e = &plan->ev[i];
		const struct td_pmu *p;

		snprintf(e->name, sizeof(e->name), "%s", t->name);
		e->config = t->config;
		e->all_cpus = true;
		switch (t->kind) {
		case TD_EV_HW:
			e->type = PERF_TYPE_HARDWARE;
			break;
		case TD_EV_SW:
			e->type = PERF_TYPE_SOFTWARE;
			break;
		case TD_EV_RAW:
			p = td_sel_pmu(ci, t->pmu);
			if (!p) {
				snprintf(err, errlen,
					 "event set '%s': no PMU for event %s",
					 s->name, t->name);
				return -1;
			}
			e->type = p->type;
			if (!td_pmu_covers_all(ci, p)) {
				e->all_cpus = false;
				memcpy(e->cpus, p->cpus, sizeof(e->cpus));
			}
			break;
		}
	}
	plan->nr_events = s->nr_events;
	return 0;
}

/* ---- label & decoder -------------------------------------------------- */

static int parse_slots(const char *v, unsigned int *out)
{
	unsigned int x;

	if (parse_small(&v, 255, &x) || *v || !x)
		return -1;
	*out = x;
	return 0;
}

static int decoder_build(struct td_decoder *d, const char *label,
			 const char names[][TOPDOWN_NAME_LEN], int nr,
			 bool partial, char *err, size_t errlen)
{
	bool have_slots = false, have_rev = false;
	char buf[TOPDOWN_LABEL_LEN], *tok, *save = NULL;
	const struct td_set *s = NULL;
	unsigned int slots = 0, rev = 0;
	bool first = true;

	memset(d, 0, sizeof(*d));
	if (!label || strnlen(label, TOPDOWN_LABEL_LEN) >= TOPDOWN_LABEL_LEN) {
		snprintf(err, errlen, "label missing or not terminated");
		return -1;
	}
	if (!label[0] || label[0] == ' ' || strstr(label, "  ") ||
	    label[strlen(label) - 1] == ' ') {
		snprintf(err, errlen, "malformed label '%s'", label);
		return -1;
	}
	if (!strncmp(label, "set=events", 10) &&
	    (!label[10] || label[10] == ' '))
		return td_events_decoder(d, label, nr, err, errlen);
	strcpy(buf, label);
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok || !eq[1]) {
			snprintf(err, errlen, "malformed label item '%s'", tok);
			return -1;
		}
		*eq++ = '\0';
		if (first) {
			if (strcmp(tok, "set")) {
				snprintf(err, errlen,
					 "label must start with set=NAME");
				return -1;
			}
			s = td_set_find(eq);
			if (!s) {
				snprintf(err, errlen,
					 "label names unknown event set '%s'",
					 eq);
				return -1;
			}
			first = false;
		} else if (!strcmp(tok, "slots")) {
			if (have_slots || !s->def_slots) {
				snprintf(err, errlen,
					 have_slots ? "slots= given twice" :
					 "event set '%s' takes no slots=",
					 s->name);
				return -1;
			}
			if (parse_slots(eq, &slots)) {
				snprintf(err, errlen,
					 "bad slots '%s' (1..255)", eq);
				return -1;
			}
			have_slots = true;
		} else if (!strcmp(tok, "rev")) {
			if (have_rev || !s->has_rev) {
				snprintf(err, errlen,
					 have_rev ? "rev= given twice" :
					 "event set '%s' takes no rev=",
					 s->name);
				return -1;
			}
			if (td_parse_revision(eq, &rev)) {
				snprintf(err, errlen,
					 "bad revision '%s' (want rXpY)", eq);
				return -1;
			}
			have_rev = true;
		} else {
			snprintf(err, errlen, "unknown label item '%s'", tok);
			return -1;
		}
	}
	if (!s) {
		snprintf(err, errlen, "empty label");
		return -1;
	}

	if (nr != s->nr_events) {
		snprintf(err, errlen,
			 "event set '%s' has %d events, the config has %d",
			 s->name, s->nr_events, nr);
		return -1;
	}
	for (int r = 0; r < TOPDOWN_MAX_EVENTS; r++)
		d->idx[r] = -1;
	for (int i = 0; i < s->nr_events; i++) {
		const struct td_ev_tmpl *t = &s->ev[i];
		int pos = -1;

		for (int j = 0; j < nr; j++) {
			if (strnlen(names[j], TOPDOWN_NAME_LEN) >=
			    TOPDOWN_NAME_LEN)
				continue;
			if (!strcmp(names[j], t->name)) {
				if (pos >= 0) {
					snprintf(err, errlen,
						 "event %s appears twice",
						 t->name);
					return -1;
				}
				pos = j;
			}
		}
		if (pos < 0 && !(partial && t->optional)) {
			snprintf(err, errlen,
				 "event set '%s' needs event %s, not in the config",
				 s->name, t->name);
			return -1;
		}
		d->idx[t->role] = pos;
	}
	d->family = s;
	d->nr_events = nr;
	d->slots = have_slots ? slots : s->def_slots;
	d->revision = rev;	/* r0p0 when not given */
	snprintf(d->set, sizeof(d->set), "%s", s->name);
	return 0;
}

int td_decoder_from_label(struct td_decoder *d, const char *label,
			  const char names[][TOPDOWN_NAME_LEN], int nr,
			  char *err, size_t errlen)
{
	return decoder_build(d, label, names, nr, false, err, errlen);
}

int td_decoder_partial(struct td_decoder *d, const char *label,
		       const char names[][TOPDOWN_NAME_LEN], int nr,
		       char *err, size_t errlen)
{
	return decoder_build(d, label, names, nr, true, err, errlen);
}

void td_decode(const struct td_decoder *d, const uint64_t *counts,
	       struct td_metrics *out)
{
	const struct td_set *s;

	/* Every metric appended is set in full (td_put_value). */
	out->n = 0;
	if (!d || !d->family || !counts)
		return;
	s = d->family;
	if (s->fam && s->fam->decode)
		s->fam->decode(d, counts, out);
}
