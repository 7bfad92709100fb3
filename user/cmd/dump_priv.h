/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmd/'s own: what tdctl dump's command (dump.c: options, the rings or a
 * record file, each record's counts and metrics) hands its output
 * (dump_out.c: the table, CSV, JSON). dump.c calls dump_out.c, never the
 * other way.
 */
#ifndef TDCTL_CMD_DUMP_PRIV_H
#define TDCTL_CMD_DUMP_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/topdown.h>

#include "agg/aggregate.h"
#include "evset/evset.h"
#include "live/device.h"
#include "output/fmt.h"
#include "output/vocab.h"

/* The metrics of one record: a decode (td_metrics), or with rotated
 * groups every metric of the configuration, valid where the record's
 * group computes it.
 */
struct mview {
	int n;
	const struct td_metric *m;
};

struct dump_ctx {
	struct td_reader rd;
	/* The rings' or the file's configuration; with one event group,
	 * that group's events in delta order (td_view_cfg); with rotated
	 * groups the pool, each record's deltas placed by its group.
	 */
	const struct topdown_config *cfg;
	struct td_view_cfg *vc;
	bool rotated;
	struct td_decoder dec;
	bool can_decode;
	/* rotated: the metrics in the tables' order (td_gdecoder_tree()) */
	int nr_tree;
	struct td_tree_node tree[TD_MAX_TREE];
	struct td_metric rm[TD_MAX_TREE];
	bool follow;
	struct td_filter filter;
	/* batch of records, printed in time order (order.h) */
	struct topdown_record *batch;
	size_t n, cap;
	bool oom;
	uint64_t printed;
	uint64_t lost;
	uint64_t base_ns;	/* time_s 0: the collection's start */
	bool marked, flagged;	/* plain: a '*' or '!' was printed */
	bool path;		/* ... a '*' on a Level 2 class */
	int ev_w[TOPDOWN_MAX_POOL];	/* plain: column widths */
	int m_w[TD_MAX_TREE];
	const struct td_voc *m_voc[TD_MAX_TREE];	/* its entry, NULL: none */
	/* the lines are formatted here (fmt.h), JSON names escaped once */
	struct td_buf out;
	char ev_json[TOPDOWN_MAX_POOL][6 * TOPDOWN_NAME_LEN + 4];
	int ev_json_len[TOPDOWN_MAX_POOL];
	const char *m_name[TD_MAX_TREE];	/* the names of m_* */
	char m_json[TD_MAX_TREE][6 * 64 + 4];	/* -1: longer */
	int m_json_len[TD_MAX_TREE];
	bool m_fraction[TD_MAX_TREE];
};

/* A record's counts by configuration event (pool entry with rotated
 * groups): the delta of those its group measured and could read.
 */
struct rcounts {
	uint64_t c[TOPDOWN_MAX_POOL];
	uint32_t have;		/* bit i: c[i] is a count */
	uint32_t unread;	/* bit i: its group measured event i, whose
				 * count could not be read
				 */
	int group;		/* rotated: the record's group, -1 none */
};

/*
 * The output, between dump_begin() (the JSON array, or stream with
 * --follow, or the table's header; 0, or -1 after p_err()) and
 * dump_end() (the end of the JSON, the legend of the table's marks; it
 * frees d->batch): per record, dump_put() with its counts rc and metrics
 * m, in the format of the output options.
 */
int dump_begin(struct dump_ctx *d);
void dump_put(struct dump_ctx *d, const struct topdown_record *r,
	      const struct rcounts *rc, const struct mview *m);
void dump_end(struct dump_ctx *d);

#endif /* TDCTL_CMD_DUMP_PRIV_H */
