// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target of tdctl decode's parsers (user/input/, entered through
 * user/cmd/decode.c's decode_run(), both linked): perf stat's plain, -x
 * SEP and -j output with -I intervals and -A fields, tdctl's JSON lines
 * and dump --json slices (lines and arrays), event names, perf's aliases
 * and raw encodings (rNNNN, PMU/TERMS/, raw 0xNNN), counts in every form,
 * and the three outputs.
 *
 * The input: byte 0 picks the event set (td_sets[], in order); byte 1
 * how it is read: bits 0-1 the -x separator (',' ';' '|' and "::"),
 * bits 2-3 the output (plain, JSON, CSV, plain), bit 4 the rest are
 * EVENT=COUNT arguments, one per line, instead of stdin, bit 5 a slot
 * width and a revision where the set takes them, bit 6 --level 2, bit 7
 * -M: the text's first line is its argument (GROUP[,GROUP..]). The rest
 * is the text.
 * An input named valid-* in the corpus must decode (replay.c checks it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/tdctl.h"
#include "evset/sets.h"
#include "input/counts.h"

int fuzz_parsed_ok;	/* for the replay driver */

/* cli/tdctl.c's option parser: decode_run() does not use it. */
void td_getopt_build(struct td_getopt *g, const char *cmd, const char *desc)
{
	(void)g;
	(void)cmd;
	(void)desc;
	abort();
}

int td_getopt_next(struct td_getopt *g, int argc, char **argv)
{
	(void)g;
	(void)argc;
	(void)argv;
	abort();
}

int td_getopt_end(int opt, int argc, char **argv, bool operands)
{
	(void)opt;
	(void)argc;
	(void)argv;
	(void)operands;
	abort();
}

#define MAX_ARGS	64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const seps[] = { ",", ";", "|", "::" };
	static FILE *devnull;
	struct decode_in in = { .timed = -1 };
	char *text, *body, *nl, *argv[MAX_ARGS], *save = NULL;
	FILE *saved_in = stdin, *saved_out = stdout, *f;
	json_writer_t *w = NULL;
	int argc = 0, ret;
	size_t blen;
	uint8_t how;

	fuzz_parsed_ok = 0;
	if (size < 2)
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	in.s = td_sets[data[0] % td_nr_sets];
	how = data[1];
	snprintf(in.sep, sizeof(in.sep), "%s", seps[how & 3]);
	in.level = how & 0x40 ? 2 : 1;
	text = malloc(size - 1);
	if (!text)
		return 0;
	memcpy(text, data + 2, size - 2);
	text[size - 2] = '\0';
	body = text;
	blen = size - 2;
	if (how & 0x80) {
		/* -M's argument: the first line */
		nl = memchr(text, '\n', blen);
		in.mg = text;
		body = nl ? nl + 1 : text + blen;
		if (nl)
			*nl = '\0';
		blen -= body - text;
	}
	json_output = ((how >> 2) & 3) == 1;
	csv_output = ((how >> 2) & 3) == 2;
	if (json_output) {
		w = jsonw_new(devnull);
		json_wtr = w;
	}
	stdout = devnull;
	if (how & 0x10) {
		/* arguments: the lines of the text (not empty ones) */
		for (char *a = strtok_r(body, "\n", &save); a && argc < MAX_ARGS;
		     a = strtok_r(NULL, "\n", &save))
			argv[argc++] = a;
		f = NULL;
	} else {
		/* stdin: the text, NUL bytes and all (fmemopen needs one) */
		f = fmemopen(body, blen ? blen : 1, "r");
		if (!f)
			goto out;
		stdin = f;
	}
	ret = decode_run(&in, how & 0x20 && in.s->def_slots ? "5" : NULL,
			 how & 0x20 && in.s->has_rev ? "r0p0" : NULL,
			 argc, argv);
	fuzz_parsed_ok = !ret;
	if (f)
		fclose(f);
out:
	stdin = saved_in;
	stdout = saved_out;
	if (w)
		jsonw_destroy(&w);
	json_wtr = NULL;
	json_output = false;
	csv_output = false;
	free(text);
	return 0;
}
