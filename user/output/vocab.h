/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vocabulary: every column tdctl prints, once. Each entry names a
 * column in every format (the JSON key and CSV column, the plain table's
 * title), says what it is and which commands print it. Every command
 * takes its titles, decimals and marks from here, so that the same thing
 * has the same name in report, top, stat, dump, decode, status, serve
 * and timeline; selftests/host/test_vocab.py checks every command's
 * output against this table (`tdctl help --json` prints it).
 *
 * Event columns are the events' own names (perf's, as the set or -e gave
 * them) and are not listed; every metric an event set decodes is.
 *
 * A metric is one entry: its level in the TopDown tree, its parent, and
 * with TD_VOC_COVERAGE the two columns that go with it, NAME_coverage
 * (the fraction of the run time its events were counted) and NAME_error
 * (its error bound), untitled: a table shows them in the metric's cell
 * (td_voc_expand()).
 */
#ifndef TDCTL_VOCAB_H
#define TDCTL_VOCAB_H

#include <stdbool.h>
#include <stddef.h>

enum td_voc_kind {
	TD_VOC_KEY,	/* identifies a row: pid, comm, cpu, ... */
	TD_VOC_TIME,	/* a time or duration */
	TD_VOC_COUNT,	/* a count */
	TD_VOC_METRIC,	/* a TopDown metric (or IPC) */
	TD_VOC_INFO,	/* anything else: text, flags, settings */
};

/* td_voc.flags */
#define TD_VOC_FRACTION		0x1	/* 0..1, shown as a percentage */
#define TD_VOC_COVERAGE		0x2	/* with NAME_coverage, NAME_error */
#define TD_VOC_BOTTLENECK	0x4	/* a TopDown Level-1 class: the
					 * largest of a row is marked '*'
					 */

struct td_voc {
	const char *name;	/* JSON key and CSV column */
	const char *title;	/* plain table header; NULL: not in tables */
	enum td_voc_kind kind;
	unsigned int flags;	/* TD_VOC_* */
	int prec;		/* plain: decimals (of the percentage) */
	int level;		/* metrics: TopDown level (0: not in the tree) */
	const char *parent;	/* metrics: the class it splits */
	const char *commands;	/* the commands that print it */
	const char *what;	/* one line */
};

extern const struct td_voc td_vocab[];
extern const size_t td_vocab_len;

/* The entry of a column name, NULL if it is not in the table (an event). */
const struct td_voc *td_voc_find(const char *name);
/* A column's plain title: the table's, else the name itself (an event). */
const char *td_voc_title(const char *name);
/* Decimals of a metric in tables: the table's, else 2. */
int td_voc_prec(const char *name);
/*
 * The plain title of a metric's column in every command (report, top,
 * stat, dump, decode): the table's (td_voc_title()), a Level 2 class's
 * its parent's dot its own (BACKEND.MEM_BOUND, as toplev names its
 * nodes); the name itself where that title is one of the nr events
 * shown (-e may name an event anything), so that no table shows a title
 * twice.
 */
const char *td_voc_metric_title(const char *name, const char *const *events,
				int nr);
/* Does key (a --sort argument) name the column titled title (in any
 * case) or named name (JSON, CSV)? Either may be NULL.
 */
bool td_voc_is(const char *key, const char *title, const char *name);

/*
 * The bottleneck path of a row of n metrics, voc[i] the entry of metric
 * i (NULL: none), value[i] and valid[i] its value: mark[0] the largest
 * valid TopDown Level-1 class (TD_VOC_BOTTLENECK), mark[1] its largest
 * valid Level 2 class shown (an entry whose parent is mark[0]'s), -1
 * where none. Every command marks these two with '*' (TD_VOC_MARK).
 */
void td_voc_path(const struct td_voc *const *voc, const double *value,
		 const bool *valid, int n, int mark[2]);

/* One column of an entry (td_voc_expand()): its own, or the coverage or
 * error of a metric (kind "coverage" or "error"), which no plain table
 * prints as a column (a cell shows them: value±error [coverage]).
 */
struct td_voc_col {
	char name[48];
	const char *title;	/* plain title, NULL: no table prints it */
	const char *kind;	/* NULL: the entry's; "coverage", "error" */
	bool percent;		/* 0..1, shown as a percentage */
	int prec;		/* plain: decimals (of the percentage) */
	const char *commands;	/* the commands that print it */
	char what[160];		/* one line */
};

/*
 * The columns of one entry: the entry itself, then for TD_VOC_COVERAGE
 * its coverage and error columns (NAME_coverage, NAME_error: JSON's
 * objects coverage and error, CSV's columns), into cols (room for n).
 * The number of columns.
 */
int td_voc_expand(const struct td_voc *v, struct td_voc_col *cols, int n);

/*
 * The marks of a plain table's cell, one way in every command: '*'
 * right before the value of the bottleneck path (td_voc_path()), '!'
 * right after a fraction outside 0..100%: "*49.8%", "120.0%!".
 */
#define TD_VOC_MARK	'*'
#define TD_VOC_FLAG	'!'

/* The legend line of the marks a plain table may show ('*', '!'); where
 * a Level 2 class was marked, that of the path.
 */
#define TD_VOC_LEGEND_MARK \
	"* the largest TopDown Level-1 class of the row: the likely bottleneck"
#define TD_VOC_LEGEND_FLAG \
	"! outside 0..100% (counting skid): shown as computed, not clamped"
/* ... that of the path (a Level 2 class marked) and of an estimate. */
#define TD_VOC_LEGEND_PATH \
	"* the bottleneck path: the largest Level-1 class of the row, and its largest Level-2 class"
#define TD_VOC_LEGEND_EST \
	"v\u00b1e [c%] an estimate: one standard error e, from the c% of the row's run time its group(s) measured (rotated groups) with every counter read"
/* ... and of the Level 2 classes whose group is not their parent's,
 * after the list of those parents' columns ("RETIRING.*, BACKEND.*").
 */
#define TD_VOC_LEGEND_LEVEL2 \
	"Level 2 classes counted by another event group than their parent, so over other slices: they need not add up to it"
/* top on a terminal: the legends in short, on one line. */
#define TD_VOC_SHORT_MARK	"* bottleneck"
#define TD_VOC_SHORT_PATH	"* bottleneck path"
#define TD_VOC_SHORT_FLAG	"! outside 0..100%"
#define TD_VOC_SHORT_EST \
	"v\u00b1e [c%] estimate, 1 std error, c% of run time measured"
#define TD_VOC_SHORT_UNKNOWN	"unknown [c%] too few measured stretches"
#define TD_VOC_SHORT_LEVEL2	"Level 2 need not add up"
#define TD_VOC_LEGEND_UNKNOWN \
	"unknown [c%] too few measured stretches (or read slices) of the row to estimate (never shown as 0)"

#endif
