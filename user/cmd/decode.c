// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl decode - the TopDown breakdown of counts given by hand, as JSON
 * lines, or as perf stat printed them, to check numbers from another tool.
 *
 * The counts are read by input/ (input/counts.h, whose perfstat.c says
 * which forms it takes); here are the options and the decoding of every
 * interval's counts with the set's formulas; the output is decode_out.c's
 * (decode_priv.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "cli/tdctl.h"
#include "cmd/decode_priv.h"
#include "evset/sets.h"
#include "agg/slices.h"
#include "input/counts.h"
#include "output/vocab.h"

const struct td_opt decode_opts[] = {
	{ "set", 's', 's', TD_ARG_SET, "NAME", "the event set", 0 },
	{ "level", 0, 'L', TD_ARG_NUM, "N",
	  "1 (default) or 2: the set's Level 2 groups too", 0 },
	{ "metrics", 'M', 'M', TD_ARG_WORD, "GROUP[,GROUP..]",
	  "perf's metric groups (perf stat -M): the set's groups for them", 0 },
	{ "slots", 'S', 'S', TD_ARG_NUM, "N", "slot width", 0 },
	{ "revision", 'r', 'r', TD_ARG_WORD, "rXpY", "CPU revision", 0 },
	{ "field-separator", 'x', 'x', TD_ARG_WORD, "SEP",
	  "stdin is perf stat -x SEP output (default ,)", 0 },
	TD_OPT_OUTPUT,
	TD_OPT_HELP,
	TD_OPT_END,
};

static const char decode_desc[] =
	"TopDown breakdown of the given counts with the formula of event set\n"
	"NAME (see 'tdctl list'); with --level 2 or -M, of its groups below\n"
	"Level 1 too, each metric under tdctl's and perf's name. Counts are\n"
	"EVENT=COUNT arguments or, without them, lines on stdin: tdctl's JSON lines ({\"EVENT\": COUNT, ...} or\n"
	"'tdctl dump --json' slices, summed), or perf stat output as printed:\n"
	"'perf stat -j', 'perf stat -x SEP' (give the same -x here; ',' by\n"
	"default) or plain 'perf stat'; with perf stat -I, one result per\n"
	"interval. EVENT is the set's name or perf's name for it, in any case,\n"
	"with or without a PMU ('cpu_core/topdown.slots_p/'), or its raw\n"
	"encoding as 'tdctl list' shows it or perf prints it ('r01a4',\n"
	"'cpu/event=0xa4,umask=0x01/'); COUNT may have digit groups, a\n"
	"fraction or an exponent (1,000,000  1e6  1000000.0). Every metric\n"
	"whose counts are given is computed; the others are left out, each\n"
	"named with the counts it lacks. The output names the formula and\n"
	"every assumption it made (slot width, revision).\n";
static char *all_set_names(void)
{
	char *list = NULL;

	for (int i = 0; i < td_nr_sets; i++)
		if (!td_str_add(&list, "%s%s", i ? ", " : "",
				td_sets[i]->name)) {
			free(list);
			return NULL;
		}
	return list;
}

/* ---- what ran --------------------------------------------------------- */

static void note(struct notes *nt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct notes *nt, const char *fmt, ...)
{
	va_list ap;

	if (nt->n >= MAX_NOTES)
		return;
	va_start(ap, fmt);
	if (vasprintf(&nt->s[nt->n], fmt, ap) >= 0)
		nt->n++;
	va_end(ap);
}

static void notes_free(struct notes *nt)
{
	for (int i = 0; i < nt->n; i++)
		free(nt->s[i]);
	nt->n = 0;
}

/* decode_in_given()'s notes. */
static void say(void *ctx, const char *text)
{
	note(ctx, "%s", text);
}

/* Every assumption behind the numbers, and how to choose otherwise. */
static void assumptions(const struct decode_in *in, const struct td_decoder *d,
			bool slots_given, bool rev_given, struct notes *nt)
{
	const struct td_set *s = in->s;
	char rev[16], fixed[16];

	if (s->def_slots)
		note(nt, slots_given ? "slot width %u (--slots)" :
		     "slot width %u, the set's default (give the CPU's with --slots N; "
		     "'tdctl list' shows a live machine's)", d->slots);
	if (s->has_rev) {
		bool on = d->revision < s->rev_fixed;

		td_format_revision(d->revision, rev, sizeof(rev));
		td_format_revision(s->rev_fixed, fixed, sizeof(fixed));
		note(nt,
		     "revision %s%s: erratum correction %s (%s; --revision %s or later turns it off)",
		     rev, rev_given ? "" : " assumed, no --revision",
		     on ? "ON" : "off", s->rev_rule, fixed);
	}
	for (int i = 0; i < in->nr_ev; i++)
		if (!in->seen[i] && in->ev[i]->optional)
			note(nt,
			     "no count for %s: the metrics that need it are left out",
			     in->ev[i]->name);
	for (int i = 0; i < in->nr_ev; i++)
		if (in->zeroed[i])
			note(nt,
			     "perf did not count %s (<not counted>): taken as 0, "
			     "the task did not run on that PMU's CPUs",
			     in->ev[i]->name);
	if (in->scaled)
		note(nt,
		     "perf scaled some counts (the counter ran part of the time): "
		     "the ratios assume the events behaved alike while not counted");
	if (in->unreadable)
		note(nt,
		     "%d dump slice%s with a count that could not be read (null) left out",
		     in->unreadable, in->unreadable == 1 ? "" : "s");
	if (in->slices)
		note(nt,
		     "a file with event groups: each metric estimated from its group's slices as tdctl report does: "
		     "value, one standard error, coverage (the share of the %d slices' time its group measured with every count read)",
		     in->slices);
	if (in->rotated)
		note(nt, "%d rotated slice%s: measured by no group, in the time only",
		     in->rotated, in->rotated == 1 ? "" : "s");
	if (in->other_group)
		note(nt, "%d slice%s of groups not decoded here: in the time only",
		     in->other_group, in->other_group == 1 ? "" : "s");
}

/* decode_in.slice: a slice of a dump of a file with groups. */
static void on_slice(void *ctx, const struct decode_slice *s)
{
	struct decoded *dd = ctx;

	if (!dd->sl_on) {
		dd->sl_on = true;
		td_slices_init(&dd->sl, dd->in->groups, dd->in->nr_groups,
			       dd->in->nr_ev);
	}
	td_slices_add(&dd->sl, s);
}

/* A dump with groups: a group without a slice read whole is left out
 * (keep[k] false), said so.
 */
static void sliced_groups(struct decoded *dd, const struct decode_in *in,
			  struct notes *nt)
{
	td_slices_finish(&dd->sl);
	for (int k = 0; k < dd->sl.nr_groups; k++) {
		dd->keep[k] = td_slices_read(&dd->sl, k) > 0;
		if (!dd->keep[k] && in->nr_groups)
			note(nt, "group %s left out: the dump has no slice of it %s",
			     in->grp[k]->name, "with every count read");
	}
}

/* The estimates of the metrics of a dump with groups, in the order of the
 * tree: each from its group's slices (agg/slices.h).
 */
static void slices_result(const struct decoded *dd, const struct decode_ivl *iv,
			  struct result *r)
{
	struct td_estimate est[TOPDOWN_MAX_GROUPS][TD_EST_MAX_METRICS];
	int nr[TOPDOWN_MAX_GROUPS];

	r->ivl = iv;
	r->n = 0;
	r->l1_left_out = false;
	r->lo = NULL;
	r->set_metrics = NULL;
	r->est = true;
	for (int g = 0; g < dd->gd.nr_groups; g++)
		nr[g] = td_slices_metrics(&dd->sl, dd->orig[g],
					  &dd->gd.g[g].dec, est[g]);
	for (int i = 0; i < dd->nr_tree && i < TD_MAX_TREE; i++) {
		const struct td_tree_node *t = &dd->tree[i];
		struct out_metric *o = &r->m[r->n];
		const struct td_estimate *x;

		if (t->index >= nr[t->group])
			continue;
		x = &est[t->group][t->index];
		o->info = t->info;
		o->depth = t->depth;
		o->est = *x;
		o->m.name = t->info->name;
		o->m.valid = x->kind != TD_EST_UNKNOWN;
		o->m.value = o->m.valid ? x->value : 0;
		o->m.flagged = o->m.valid && td_metric_is_fraction(o->m.name) &&
			       (x->value < 0 || x->value > 1);
		r->n++;
	}
}

/* The metrics of one interval's counts, in the order of the tree. */
static void decode_result(const struct decoded *dd, const struct decode_ivl *iv,
			  const struct decode_leftout *lo, struct result *r)
{
	r->ivl = iv;
	r->n = 0;
	r->l1_left_out = false;
	r->lo = lo;
	r->set_metrics = dd->in ? dd->in->s->metrics : NULL;
	for (int i = 0; i < dd->nr_tree && i < TD_MAX_TREE; i++) {
		const struct td_tree_node *t = &dd->tree[i];
		const struct td_gd_group *gg = &dd->gd.g[t->group];
		uint64_t delta[TOPDOWN_MAX_EVENTS] = { 0 };
		struct td_metrics m;

		for (int j = 0; j < gg->nr_events; j++)
			delta[j] = iv->counts[gg->pool[j]];
		td_gdecode(&dd->gd, t->group, delta, &m);
		if (t->index >= m.n)
			continue;
		if (decode_left_out(lo, m.m[t->index].name)) {
			const struct td_voc *v = td_voc_find(m.m[t->index].name);

			r->l1_left_out |= v && (v->flags & TD_VOC_BOTTLENECK);
			continue;
		}
		r->m[r->n].info = t->info;
		r->m[r->n].m = m.m[t->index];
		r->m[r->n].depth = t->depth;
		r->n++;
	}
}

/*
 * Decode the counts of in (its set, --level, -M and separator set) given
 * as EVENT=COUNT arguments argv[0..argc), or without them read from
 * stdin, and print the result (cli/tdctl.h). 0, or -1 after p_err().
 */
int decode_run(struct decode_in *in, const char *slots, const char *rev,
	       int argc, char **argv)
{
	char names[TOPDOWN_MAX_POOL][TOPDOWN_NAME_LEN];
	char label[TOPDOWN_LABEL_LEN + 64], err[512], ids[64];
	struct topdown_group groups[TOPDOWN_MAX_GROUPS];
	struct decoded *dd = NULL;
	struct result *res = NULL;
	struct notes nt = { 0 };
	struct td_decoder d;
	int n, ret = -1, nr_groups;

	if (decode_in_events(in, in->level ? in->level : 1, in->mg, groups,
			     &nr_groups, ids, sizeof(ids)))
		goto out;
	n = snprintf(label, sizeof(label), "set=%s%s%s%s%s%s%s", in->s->name,
		     slots ? " slots=" : "", slots ? slots : "",
		     rev ? " rev=" : "", rev ? rev : "",
		     nr_groups ? " g=" : "", ids);
	if (n < 0 || n >= TOPDOWN_LABEL_LEN) {
		p_err("decode: --slots/--revision too long");
		goto out;
	}
	dd = calloc(1, sizeof(*dd));
	if (!dd) {
		p_err("decode: out of memory");
		goto out;
	}
	/* The label's checks first: a bad --slots/--revision is reported
	 * before any count is read.
	 */
	memset(names, 0, sizeof(names));
	for (int i = 0; i < in->nr_ev; i++)
		snprintf(names[i], sizeof(names[i]), "%s", in->ev[i]->name);
	if (td_gdecoder_build(&dd->gd, label, (const char (*)[32])names,
			      in->nr_ev, nr_groups ? groups : NULL, nr_groups,
			      false, err, sizeof(err))) {
		p_err("decode: %s", err);
		goto out;
	}

	dd->in = in;
	in->slice = on_slice;
	in->slice_ctx = dd;
	if (argc && decode_in_args(in, argc, argv))
		goto out;
	td_parsing_options = false;	/* stdin's lines are input */
	if (!argc && decode_in_read(in))
		goto out;

	/* Every metric whose counts were given: an optional event given
	 * nowhere is left out of the decoders (the metrics that read it
	 * are, said so by assumptions()), the metrics that read another are
	 * left out by decode_in_given(), and with groups a group none of whose
	 * metrics is left (perf stat -M DTLB_Effectiveness has no Level 1
	 * counts), all said so.
	 */
	for (int i = 0; i < in->nr_ev; i++)
		if (!in->seen[i] && in->ev[i]->optional)
			names[i][0] = '\0';
	if (td_gdecoder_build(&dd->gd, label, (const char (*)[32])names,
			      in->nr_ev, nr_groups ? groups : NULL, nr_groups,
			      true, err, sizeof(err))) {
		p_err("decode: %s", err);
		goto out;
	}
	if (dd->sl_on && dd->sl.oom) {
		p_err("decode: out of memory");
		goto out;
	}
	if (dd->sl_on)
		sliced_groups(dd, in, &nt);
	else
		decode_in_given(in, &dd->gd, (const char (*)[32])names,
				dd->keep, &dd->lo, say, &nt);
	for (int k = 0, i = 0; k < (nr_groups ? nr_groups : 1); k++)
		if (dd->keep[k])
			dd->orig[i++] = k;
	if (!nr_groups && !dd->keep[0]) {
		char *list = NULL;

		for (int i = 0; i < in->nr_ev; i++)
			if (!in->seen[i] && !in->ev[i]->optional &&
			    !td_str_add(&list, "%s%s", list ? ", " : "",
					in->ev[i]->name))
				break;
		p_err("decode: missing counts for set %s: %s", in->s->name,
		      decode_named(list));
		free(list);
		goto out;
	}
	if (nr_groups && decode_in_keep_groups(in, groups, &nr_groups, ids,
					       sizeof(ids), dd->keep))
		goto out;
	if (nr_groups)
		snprintf(strstr(label, " g=") + 3,
			 sizeof(label) - (strstr(label, " g=") + 3 - label),
			 "%s", ids);
	/* What the formulas read is required in every interval, once an
	 * interval has it.
	 */
	for (int k = 0; k < in->nivl && !dd->sl_on; k++) {
		char *list;

		if (!decode_in_missing(in, &in->ivl[k], groups, nr_groups, ids,
				       &list))
			continue;
		if (in->timed > 0)
			p_err("decode: missing counts for set %s in interval %s s: %s",
			      in->s->name, in->ivl[k].time, decode_named(list));
		else
			p_err("decode: missing counts for set %s: %s",
			      in->s->name, decode_named(list));
		free(list);
		goto out;
	}
	if (td_gdecoder_build(&dd->gd, label, (const char (*)[32])names,
			      in->nr_ev, nr_groups ? groups : NULL, nr_groups,
			      true, err, sizeof(err))) {
		p_err("decode: %s", err);
		goto out;
	}
	dd->nr_tree = td_gdecoder_tree(&dd->gd, dd->tree, TD_MAX_TREE);
	res = calloc(in->nivl, sizeof(*res));
	if (!res) {
		p_err("decode: out of memory");
		goto out;
	}
	for (int k = 0; k < in->nivl; k++)
		if (dd->sl_on)
			slices_result(dd, &in->ivl[k], &res[k]);
		else
			decode_result(dd, &in->ivl[k], &dd->lo, &res[k]);
	d = dd->gd.g[0].dec;
	assumptions(in, &d, slots, rev, &nt);
	if (json_output || csv_output)
		decode_rows(dd, label, res, in->nivl, in, &nt);
	else
		decode_plain(dd, label, res, in->nivl, in, &nt);
	ret = 0;
out:
	notes_free(&nt);
	free(res);
	if (dd && dd->sl_on)
		td_slices_free(&dd->sl);
	free(dd);
	decode_in_free(in);
	return ret;
}

int do_decode(int argc, char **argv)
{
	const char *setname = NULL, *slots = NULL, *rev = NULL;
	struct decode_in in = { .sep = ",", .timed = -1 };
	unsigned long long level = 1;
	struct td_getopt g;
	char *sets;
	int opt;

	td_getopt_build(&g, "decode", decode_desc);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0) {
		switch (opt) {
		case 's':
			setname = optarg;
			break;
		case 'S':
			slots = optarg;
			break;
		case 'r':
			rev = optarg;
			break;
		case 'L':
			if (parse_u64_range("--level", optarg, 1, 2, &level))
				return -1;
			break;
		case 'M':
			in.mg = optarg;
			break;
		case 'x':
			if (!*optarg || strlen(optarg) >= sizeof(in.sep)) {
				p_err("decode: -x needs a separator of 1 to %zu characters",
				      sizeof(in.sep) - 1);
				return -1;
			}
			snprintf(in.sep, sizeof(in.sep), "%s", optarg);
			break;
		}
	}
	opt = td_getopt_end(opt, argc, argv, true);
	if (opt <= 0)
		return opt;
	/* The set, its label and the EVENT=COUNT operands are the command
	 * line: what is wrong with them is a usage error (stdin's lines are
	 * input, checked below).
	 */
	td_parsing_options = true;
	if (!setname) {
		sets = all_set_names();
		p_err("decode: --set NAME is required (one of: %s)",
		      decode_named(sets));
		free(sets);
		return -1;
	}
	in.s = td_set_find(setname);
	if (!in.s) {
		sets = all_set_names();
		p_err("decode: unknown event set '%s' (known: %s)", setname,
		      decode_named(sets));
		free(sets);
		return -1;
	}
	in.level = (int)level;
	return decode_run(&in, slots, rev, argc - optind, argv + optind);
}
