// SPDX-License-Identifier: GPL-2.0
/*
 * Replays fuzz inputs through the fuzz target without a fuzzing engine:
 * `replay FILE...` (built with ASan and UBSan by the Makefile) is what
 * `make check` runs over the committed corpus. Prints TAP; a crash or a
 * sanitizer report ends the process and fails the test. Files named
 * valid-* must be accepted by the parser.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern int fuzz_parsed_ok;

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n = -1;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END))
		n = ftell(f);
	if (n >= 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc(n ? n : 1);	/* exact size: ASan sees overreads */
		if (buf && fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = n;
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	int accepted = 0, valid = 0, valid_bad = 0, unreadable = 0;
	int first = 1, from = 0;
	const char *what = "fuzz corpus";

	/* --tap-from=N: number the two lines from N, no plan (the Makefile
	 * prints it after every corpus); --what=NAME: whose corpus.
	 */
	for (; first < argc && !strncmp(argv[first], "--", 2); first++) {
		if (!strncmp(argv[first], "--tap-from=", 11))
			from = atoi(argv[first] + 11);
		else if (!strncmp(argv[first], "--what=", 7))
			what = argv[first] + 7;
	}
	for (int i = first; i < argc; i++) {
		const char *base = strrchr(argv[i], '/');
		size_t len = 0;
		uint8_t *buf = slurp(argv[i], &len);

		base = base ? base + 1 : argv[i];
		if (!buf) {
			unreadable++;
			continue;
		}
		LLVMFuzzerTestOneInput(buf, len);
		accepted += fuzz_parsed_ok;
		if (!strncmp(base, "valid-", 6)) {
			valid++;
			if (!fuzz_parsed_ok) {
				valid_bad++;
				printf("# %s is not accepted\n", argv[i]);
			}
		}
		free(buf);
	}
	printf("%sok %d - %s: %d inputs replayed under ASan and UBSan "
	       "without a crash (%d accepted)\n", unreadable ? "not " : "",
	       from ? from : 1, what, argc - first, accepted);
	printf("%sok %d - %s: the %d valid-* seeds parse\n",
	       valid_bad || !valid ? "not " : "", from ? from + 1 : 2, what, valid);
	if (!from)
		printf("1..2\n");
	return unreadable || valid_bad || !valid;
}
