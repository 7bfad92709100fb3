// SPDX-License-Identifier: GPL-2.0
/*
 * The table of event sets and the generic machinery around it: a set's
 * events by name or encoding, its fit and plan (td_plan_set), the config
 * label and its strict parser, a set's decoder and the dispatch to its
 * formula family (td_decode). Nothing here knows a vendor: the sets live
 * in evset_{intel,intel_icl,amd,arm,arm_n3v3,generic}.c, what their formulas use
 * in metrics.c; the choice of a set and of a decoder for any label is
 * plan.c's.
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
	&td_set_arm_neoverse_n3,
	&td_set_arm_neoverse_v3,
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

/* name (len bytes, modifiers stripped) as td_set_event_index() takes it:
 * *inner, *n the event without "pmu/.../", *pmu, *pmu_len its PMU.
 */
static bool split_pmu(const char *name, size_t len, const char **pmu,
		      size_t *pmu_len, const char **inner, size_t *n)
{
	const char *slash;

	len = strip_modifiers(name, len);
	slash = memchr(name, '/', len);
	*pmu = name;
	*pmu_len = 0;
	*inner = name;
	*n = len;
	if (!slash)
		return true;
	/* "pmu/event/" as perf prints it, or tdctl's "core/EVENT" */
	*pmu_len = slash - name;
	*inner = slash + 1;
	*n = len - *pmu_len - 1;
	if (*n && (*inner)[*n - 1] == '/')
		(*n)--;
	if (!*n || memchr(*inner, '/', *n))
		return false;
	/* perf's hybrid PMUs are tdctl's core/ and atom/ prefixes */
	if (*pmu_len > 4 && !strncmp(name, "cpu_", 4)) {
		*pmu += 4;
		*pmu_len -= 4;
	}
	return true;
}

static bool tmpl_is(const struct td_ev_tmpl *t, const char *pmu,
		    size_t pmu_len, const char *inner, size_t n)
{
	const char *tn = t->name, *ts = strchr(tn, '/');

	if (ts) {
		/* a per-PMU event: the PMU must be the same */
		if (!pmu_len || (size_t)(ts - tn) != pmu_len ||
		    strncasecmp(tn, pmu, pmu_len))
			return false;
		tn = ts + 1;
	}
	return (strlen(tn) == n && !strncasecmp(tn, inner, n)) ||
	       td_in_list(t->aliases, " ", inner, n);
}

static bool tmpl_name_is(const struct td_ev_tmpl *t, const char *name,
			 size_t len)
{
	const char *pmu, *inner;
	size_t pmu_len, n;

	return split_pmu(name, len, &pmu, &pmu_len, &inner, &n) &&
	       tmpl_is(t, pmu, pmu_len, inner, n);
}

static int name_index(const struct td_set *s, const char *name, size_t len)
{
	const char *pmu, *inner;
	size_t pmu_len, n;

	if (!split_pmu(name, len, &pmu, &pmu_len, &inner, &n))
		return -1;
	for (int i = 0; i < s->nr_events; i++)
		if (tmpl_is(&s->ev[i], pmu, pmu_len, inner, n))
			return i;
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

/* Is the encoding in counted by template tm? */
static bool enc_tmpl_is(const struct enc *in, const struct td_ev_tmpl *tm)
{
	const char *te = tm->encoding, *sp;
	struct enc t;

	if (tm->kind != TD_EV_RAW || !enc_pmu_fits(in, tm))
		return false;
	if (in->has_config)
		return in->config == tm->config;
	/* the template's "cpu_core event=..." */
	sp = strchr(te, ' ');
	if (sp)
		te = sp + 1;
	memset(&t, 0, sizeof(t));
	return enc_terms(te, strlen(te), &t) && !t.has_config &&
	       !memcmp(t.v, in->v, sizeof(t.v));
}

static int encoding_index(const struct td_set *s, const char *name,
			  size_t len)
{
	struct enc in;

	if (!enc_parse(name, len, &in))
		return -1;
	for (int i = 0; i < s->nr_events; i++)
		if (enc_tmpl_is(&in, &s->ev[i]))
			return i;
	return -1;
}

int td_set_event_index(const struct td_set *s, const char *name, size_t len)
{
	int i = name_index(s, name, len);

	return i >= 0 ? i : encoding_index(s, name, len);
}

bool td_tmpl_is(const struct td_ev_tmpl *t, const char *name, size_t len)
{
	struct enc in;

	return tmpl_name_is(t, name, len) ||
	       (enc_parse(name, len, &in) && enc_tmpl_is(&in, t));
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

/* ---- plan ------------------------------------------------------------- */

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

int td_tmpl_resolve(const struct td_cpu_info *ci, const struct td_set *s,
		    const struct td_ev_tmpl *t, struct td_evsel *e, char *err,
		    size_t errlen)
{
	const struct td_pmu *p;

	memset(e, 0, sizeof(*e));
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
	return 0;
}

const struct td_grp *td_grp_find(const struct td_set *s, const char *id,
				 size_t len)
{
	for (int i = 0; i < s->nr_groups; i++)
		if (strlen(s->groups[i].id) == len &&
		    !strncmp(s->groups[i].id, id, len))
			return &s->groups[i];
	return NULL;
}

/*
 * The plan of set s on ci without groups, its name and label first
 * (plan->why as the caller left it): 0, or -1 with err.
 */
int td_plan_label(const struct td_cpu_info *ci, const struct td_set *s,
		  struct td_plan *plan, char *err, size_t errlen)
{
	snprintf(plan->set, sizeof(plan->set), "%s", s->name);
	if (build_label(s, td_set_slots(s, ci), s->has_rev,
			ci->has_midr ? (ci->variant << 4 | ci->revision) : 0,
			plan->label, sizeof(plan->label))) {
		snprintf(err, errlen, "label for '%s' too long", s->name);
		return -1;
	}
	return 0;
}

int td_plan_set(const struct td_cpu_info *ci, const struct td_set *s,
		struct td_plan *plan, char *err, size_t errlen)
{
	if (td_plan_label(ci, s, plan, err, errlen))
		return -1;
	for (int i = 0; i < s->nr_events; i++)
		if (td_tmpl_resolve(ci, s, &s->ev[i], &plan->ev[i], err,
				    errlen))
			return -1;
	plan->nr_events = s->nr_events;
	return 0;
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

/* ---- label & decoder -------------------------------------------------- */

/* g=ID,ID,...: the set's groups in configuration order (a plan puts the
 * Level 1 group first; `tdctl decode` may leave it out).
 */
static int parse_group_ids(const struct td_set *s, const char *v,
			   struct td_label *l, char *err, size_t errlen)
{
	while (*v) {
		size_t n = strcspn(v, ",");
		const struct td_grp *g = td_grp_find(s, v, n);

		if (!g) {
			snprintf(err, errlen,
				 "label: '%.*s' is not a group of event set '%s'",
				 (int)n, v, s->name);
			return -1;
		}
		for (int i = 0; i < l->nr_groups; i++) {
			if (l->groups[i] == g) {
				snprintf(err, errlen,
					 "label: group '%s' given twice",
					 g->id);
				return -1;
			}
		}
		if (l->nr_groups == TOPDOWN_MAX_GROUPS) {
			snprintf(err, errlen, "label: more than %d groups",
				 TOPDOWN_MAX_GROUPS);
			return -1;
		}
		l->groups[l->nr_groups++] = g;
		v += n;
		if (*v == ',' && !*++v) {
			snprintf(err, errlen, "label: empty group id");
			return -1;
		}
	}
	return 0;
}

static int parse_slots(const char *v, unsigned int *out)
{
	unsigned int x;

	if (parse_small(&v, 255, &x) || *v || !x)
		return -1;
	*out = x;
	return 0;
}

/* Terminated, not empty, single spaces between items. */
static int label_well_formed(const char *label, char *err, size_t errlen)
{
	if (!label || strnlen(label, TOPDOWN_LABEL_LEN) >= TOPDOWN_LABEL_LEN) {
		snprintf(err, errlen, "label missing or not terminated");
		return -1;
	}
	if (!label[0] || label[0] == ' ' || strstr(label, "  ") ||
	    label[strlen(label) - 1] == ' ') {
		snprintf(err, errlen, "malformed label '%s'", label);
		return -1;
	}
	return 0;
}

bool td_label_is_events(const char *label, char *err, size_t errlen)
{
	return !label_well_formed(label, err, errlen) &&
	       !strncmp(label, "set=events", 10) &&
	       (!label[10] || label[10] == ' ');
}

int td_label_parse(const char *label, struct td_label *l, char *err,
		   size_t errlen)
{
	char buf[TOPDOWN_LABEL_LEN], *tok, *save = NULL;
	const struct td_set *s = NULL;
	bool first = true;

	memset(l, 0, sizeof(*l));
	if (label_well_formed(label, err, errlen))
		return -1;
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
			if (l->have_slots || !s->def_slots) {
				snprintf(err, errlen,
					 l->have_slots ? "slots= given twice" :
					 "event set '%s' takes no slots=",
					 s->name);
				return -1;
			}
			if (parse_slots(eq, &l->slots)) {
				snprintf(err, errlen,
					 "bad slots '%s' (1..255)", eq);
				return -1;
			}
			l->have_slots = true;
		} else if (!strcmp(tok, "rev")) {
			if (l->have_rev || !s->has_rev) {
				snprintf(err, errlen,
					 l->have_rev ? "rev= given twice" :
					 "event set '%s' takes no rev=",
					 s->name);
				return -1;
			}
			if (td_parse_revision(eq, &l->rev)) {
				snprintf(err, errlen,
					 "bad revision '%s' (want rXpY)", eq);
				return -1;
			}
			l->have_rev = true;
		} else if (!strcmp(tok, "g")) {
			if (l->nr_groups || !s->nr_groups) {
				snprintf(err, errlen,
					 l->nr_groups ? "g= given twice" :
					 "event set '%s' has no groups (g=)",
					 s->name);
				return -1;
			}
			if (parse_group_ids(s, eq, l, err, errlen))
				return -1;
		} else {
			snprintf(err, errlen, "unknown label item '%s'", tok);
			return -1;
		}
	}
	if (!s) {
		snprintf(err, errlen, "empty label");
		return -1;
	}
	l->s = s;
	return 0;
}

int td_decoder_map(struct td_decoder *d, const char *what,
		   const struct td_ev_tmpl *ev, int nev,
		   const char names[][TOPDOWN_NAME_LEN], int nr, bool partial,
		   char *err, size_t errlen)
{
	int required = 0;

	for (int i = 0; i < nev; i++)
		required += !(partial && ev[i].optional);
	if (nr != nev && !(partial && nr >= required && nr <= nev)) {
		snprintf(err, errlen, "%s has %d events, the config has %d",
			 what, nev, nr);
		return -1;
	}
	for (int r = 0; r < TOPDOWN_MAX_EVENTS; r++)
		d->idx[r] = -1;
	for (int j = 0; j < nr; j++) {
		bool known = !names[j][0] && partial;

		for (int i = 0; i < nev && !known; i++)
			known = !strncmp(names[j], ev[i].name,
					 TOPDOWN_NAME_LEN);
		if (!known) {
			snprintf(err, errlen, "%s has no event %.*s", what,
				 TOPDOWN_NAME_LEN, names[j]);
			return -1;
		}
	}
	for (int i = 0; i < nev; i++) {
		const struct td_ev_tmpl *t = &ev[i];
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
				 "%s needs event %s, not in the config",
				 what, t->name);
			return -1;
		}
		d->idx[t->role] = pos;
	}
	d->nr_events = nr;
	return 0;
}

void td_decoder_params(struct td_decoder *d, const struct td_label *l)
{
	d->family = l->s;
	d->slots = l->have_slots ? l->slots : l->s->def_slots;
	d->revision = l->rev;	/* r0p0 when not given */
	snprintf(d->set, sizeof(d->set), "%s", l->s->name);
}

int td_set_decoder(struct td_decoder *d, const char *label,
		   const char names[][TOPDOWN_NAME_LEN], int nr, bool partial,
		   char *err, size_t errlen)
{
	struct td_label l;
	char what[TOPDOWN_NAME_LEN + 16];

	memset(d, 0, sizeof(*d));
	if (td_label_parse(label, &l, err, errlen))
		return -1;
	if (l.nr_groups) {
		snprintf(err, errlen,
			 "label '%s' is of a configuration with groups: decode each group's records (td_gdecoder_init)",
			 label);
		return -1;
	}
	snprintf(what, sizeof(what), "event set '%s'", l.s->name);
	if (td_decoder_map(d, what, l.s->ev, l.s->nr_events, names, nr,
			   partial, err, errlen))
		return -1;
	td_decoder_params(d, &l);
	return 0;
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
	if (d->grp)
		((const struct td_grp *)d->grp)->fam->decode(d, counts, out);
	else if (s->fam && s->fam->decode)
		s->fam->decode(d, counts, out);
}
