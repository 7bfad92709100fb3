// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl __complete WORD... : shell completion from the command table.
 *
 * The words are those after "tdctl" up to the cursor, the last one being
 * the word under completion (possibly empty). Candidates are printed one
 * per line, already filtered by that word's prefix; three markers ask the
 * shell to complete by itself: @files, @dirs, @commands. The bash side is
 * user/cli/tdctl-completion.bash.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "agg/aggregate.h"
#include "evset/sets.h"
#include "cli/tdctl.h"
#include "output/vocab.h"

static const char *cur_prefix;

static void cand(const char *s)
{
	if (!strncmp(s, cur_prefix, strlen(cur_prefix)))
		printf("%s\n", s);
}

static void pids(const char *head)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char buf[256];

	while (d && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(buf, sizeof(buf), "%s%s", head, e->d_name);
		cand(buf);
	}
	if (d)
		closedir(d);
}

/* --sort: the titles of the columns a table of report, top or stat may
 * sort by (output/vocab.h), as it prints them, their JSON names, and
 * cycles and time (td_view_sort_by() takes every one; a file's events
 * too, which only the file knows).
 */
static void sort_words(void)
{
	const char *last = "";

	cand("cycles");
	cand("time");
	for (size_t i = 0; i < td_vocab_len; i++) {
		const struct td_voc *v = &td_vocab[i];

		if (!v->title || (v->kind != TD_VOC_METRIC &&
				  v->kind != TD_VOC_KEY &&
				  strcmp(v->name, "slices") &&
				  strcmp(v->name, "runtime_ns") &&
				  strcmp(v->name, "cpu_percent")) ||
		    (!strstr(v->commands, "report") &&
		     !strstr(v->commands, "top")))
			continue;
		if (strcmp(v->title, last))
			cand(v->title);
		last = v->title;
		if (strcasecmp(v->title, v->name))
			cand(v->name);
	}
}

static void arg_values(enum td_arg kind)
{
	char head[256];
	const char *comma;
	long n;

	switch (kind) {
	case TD_ARG_FILE:
		printf("@files\n");
		break;
	case TD_ARG_DIR:
		printf("@dirs\n");
		break;
	case TD_ARG_PID:
		pids("");
		break;
	case TD_ARG_PIDS:
		/* Complete the last element of PID,PID,... */
		comma = strrchr(cur_prefix, ',');
		snprintf(head, sizeof(head), "%.*s",
			 comma ? (int)(comma - cur_prefix + 1) : 0, cur_prefix);
		pids(head);
		break;
	case TD_ARG_CPU:
		n = sysconf(_SC_NPROCESSORS_CONF);
		for (long c = 0; c < n && c < 4096; c++) {
			snprintf(head, sizeof(head), "%ld", c);
			cand(head);
		}
		break;
	case TD_ARG_SET:
		for (int i = 0; i < td_nr_sets; i++)
			cand(td_sets[i]->name);
		break;
	case TD_ARG_EVENTS:
		/* Complete the last event of EVENT,EVENT,... */
		comma = strrchr(cur_prefix, ',');
		snprintf(head, sizeof(head), "%.*s",
			 comma ? (int)(comma - cur_prefix + 1) : 0, cur_prefix);
		for (int i = 0; td_event_name(i); i++) {
			char ev[300];

			snprintf(ev, sizeof(ev), "%s%s", head, td_event_name(i));
			cand(ev);
		}
		break;
	case TD_ARG_BY:
		for (int i = 0; i < TD_BY_NR; i++)
			cand(td_by_names[i]);
		break;
	case TD_ARG_BACKEND:
		cand("module");
		cand("bpf");
		cand("auto");
		break;
	case TD_ARG_SORT:
		sort_words();
		break;
	default:
		break;
	}
}

/* The option a word names (without a value after '='), or NULL. */
static const struct td_opt *word_opt(const struct cmd *c, const char *w,
				     bool *has_value)
{
	/* A command's table has its output options; before the command,
	 * the global and output options.
	 */
	const struct td_opt *tables[2] = { c ? c->opts : td_global_opts,
					   c ? NULL : td_output_opts };

	*has_value = false;
	for (int t = 0; t < 2 && tables[t]; t++) {
		for (const struct td_opt *o = tables[t]; o->lng; o++) {
			size_t len = strlen(o->lng);

			if (w[1] == '-') {
				if (strncmp(w + 2, o->lng, len) ||
				    (w[2 + len] && w[2 + len] != '='))
					continue;
				*has_value = w[2 + len] == '=';
				return o;
			}
			if (o->shrt && w[1] == o->shrt) {
				*has_value = w[2] != '\0';
				return o;
			}
		}
	}
	return NULL;
}

static void options(const struct cmd *c)
{
	char buf[64];

	for (const struct td_opt *o = c ? c->opts : td_global_opts; o->lng;
	     o++) {
		snprintf(buf, sizeof(buf), "--%s", o->lng);
		cand(buf);
	}
	for (const struct td_opt *o = td_output_opts; !c && o->lng; o++) {
		snprintf(buf, sizeof(buf), "--%s", o->lng);
		cand(buf);
	}
}

int do_complete(int argc, char **argv)
{
	char **w = argv + 1;
	int n = argc - 1, i = 0, start = -1;
	const struct td_opt *o, *pending = NULL;
	const struct cmd *c = NULL;
	bool has_value;
	int nmatch;

	if (n < 1) {
		cur_prefix = "";
		options(NULL);
		return 0;
	}
	cur_prefix = w[n - 1];
	/* Global options, then the command. */
	for (; i < n - 1 && w[i][0] == '-' && w[i][1]; i++) {
		o = word_opt(NULL, w[i], &has_value);
		if (o && o->arg && !has_value && ++i == n - 1) {
			arg_values(o->arg);
			return 0;
		}
	}
	if (i == n - 1) {
		if (cur_prefix[0] == '-')
			options(NULL);
		else
			for (c = td_cmds; c->name; c++)
				if (!(c->flags & TD_CMD_HIDDEN))
					cand(c->name);
		return 0;
	}
	c = cmd_find(td_cmds, w[i], &nmatch);
	if (!c)
		return 0;
	/* The command's options, up to "--" or, for stat and record, the
	 * COMMAND; other commands take options after their operands too.
	 */
	pending = NULL;
	for (i++; i < n - 1; i++) {
		if (!strcmp(w[i], "--")) {
			start = i + 1;
			break;
		}
		if (w[i][0] != '-' || !w[i][1]) {
			if (!(c->flags & TD_CMD_ARGV))
				continue;
			start = i;
			break;
		}
		o = word_opt(c, w[i], &has_value);
		if (o && o->arg && !has_value) {
			if (i + 1 == n - 1)
				pending = o;
			i++;
		}
	}
	if (start >= 0) {
		if (c->flags & TD_CMD_ARGV)
			printf("%s\n", start == n - 1 ? "@commands" : "@files");
		return 0;
	}
	if (pending) {
		arg_values(pending->arg);
		return 0;
	}
	if (cur_prefix[0] == '-' && cur_prefix[1] == '-' &&
	    strchr(cur_prefix, '=')) {
		/* --opt=VALUE: the shell completes the part after '='. */
		o = word_opt(c, cur_prefix, &has_value);
		cur_prefix = strchr(cur_prefix, '=') + 1;
		if (o && o->arg)
			arg_values(o->arg);
		return 0;
	}
	if (cur_prefix[0] == '-') {
		options(c);
		return 0;
	}
	if (c->flags & TD_CMD_NAMEARG) {
		for (const struct cmd *k = td_cmds; k->name; k++)
			if (!(k->flags & TD_CMD_HIDDEN))
				cand(k->name);
	} else if (c->flags & TD_CMD_ARGV) {
		printf("@commands\n");
	}
	return 0;
}
