// SPDX-License-Identifier: GPL-2.0
/*
 * The vocabulary (user/output/vocab.h): every metric that any event set
 * decodes is in the table, with a title no other column has, a level and
 * a parent in the table; and a metric with coverage and error columns is
 * one entry that gives its three columns. TAP.
 */
#include <stdio.h>
#include <string.h>

#include "evset/evset_priv.h"
#include "output/vocab.h"
#include "testlib.h"

int main(void)
{
	int missing = 0, names = 0, dup = 0, tree = 0;

	for (int i = 0; i < td_nr_sets; i++) {
		const struct td_set *s = td_sets[i];
		char ev[TOPDOWN_MAX_EVENTS][TOPDOWN_NAME_LEN] = { { 0 } };
		static const unsigned int slots[] = { 0, 4, 5, 6, 8 };
		uint64_t c[TOPDOWN_MAX_EVENTS] = { 0 };
		char label[128], err[256];
		struct td_decoder d;
		struct td_metrics m;
		size_t j;

		for (int k = 0; k < s->nr_events; k++)
			snprintf(ev[k], sizeof(ev[k]), "%s", s->ev[k].name);
		for (j = 0; j < sizeof(slots) / sizeof(slots[0]); j++) {
			snprintf(label, sizeof(label), slots[j] ?
				 "set=%s slots=%u" : "set=%s", s->name,
				 slots[j]);
			if (!td_decoder_from_label(&d, label,
						   (const char (*)[32])ev,
						   s->nr_events, err,
						   sizeof(err)))
				break;
		}
		if (j == sizeof(slots) / sizeof(slots[0]))
			continue;
		td_decode(&d, c, &m);
		for (int k = 0; k < m.n; k++) {
			const struct td_voc *v = td_voc_find(m.m[k].name);

			names++;
			if (!v || v->kind != TD_VOC_METRIC || !v->title ||
			    !strstr(v->commands, "report")) {
				diag("set %s: metric %s is not in the vocabulary",
				     s->name, m.m[k].name);
				missing++;
				continue;
			}
			if (!!(v->flags & TD_VOC_FRACTION) !=
			    td_metric_is_fraction(v->name)) {
				diag("%s: percent or not, the table and the decoder differ",
				     v->name);
				missing++;
			}
		}
	}
	ok(names > 20 && !missing,
	   "every metric of every event set is in the vocabulary (%d seen)",
	   names);

	for (size_t i = 0; i < td_vocab_len; i++) {
		const struct td_voc *a = &td_vocab[i];

		for (size_t k = i + 1; k < td_vocab_len; k++) {
			const struct td_voc *b = &td_vocab[k];

			if (!strcmp(a->name, b->name) ||
			    (a->title && b->title && !strcmp(a->title, b->title) &&
			     a->kind == TD_VOC_METRIC)) {
				diag("%s and %s share a name or a title",
				     a->name, b->name);
				dup++;
			}
		}
		if (a->kind == TD_VOC_METRIC && a->level > 1 &&
		    (!a->parent || !td_voc_find(a->parent) ||
		     td_voc_find(a->parent)->level != a->level - 1)) {
			diag("%s: level %d under %s", a->name, a->level,
			     a->parent ? a->parent : "nothing");
			tree++;
		}
	}
	ok(!dup, "no two columns share a name, no two metrics a title");
	ok(!tree, "every Level-2 metric names its Level-1 parent");

	{
		/* What a Level-2 metric with coverage and error adds: one
		 * entry, three columns.
		 */
		static const struct td_voc l2 = {
			"fetch_latency", "FE_LAT", TD_VOC_METRIC,
			TD_VOC_FRACTION | TD_VOC_COVERAGE, 1, 2,
			"frontend_bound", "report", "a Level-2 metric",
		};
		struct td_voc_col c[3];
		int k = td_voc_expand(&l2, c, 3);

		ok(k == 3 && !strcmp(c[1].name, "fetch_latency_coverage") &&
		   !strcmp(c[2].name, "fetch_latency_error") &&
		   !c[1].title && !c[2].title && !strcmp(c[1].kind, "coverage") &&
		   !strcmp(c[2].kind, "error"),
		   "one entry with coverage gives NAME, NAME_coverage, NAME_error (%d)",
		   k);
		/* every metric may be estimated (rotated groups), a time
		 * never is
		 */
		k = td_voc_expand(td_voc_find("runtime_ns"), c, 3);
		ok(k == 1 && !strcmp(c[0].name, "runtime_ns"),
		   "an entry without coverage gives one column");
	}
	return tap_done();
}
