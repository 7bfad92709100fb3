// SPDX-License-Identifier: GPL-2.0
/*
 * Replays fuzz inputs through a fuzz target without a fuzzing engine:
 * `replay-NAME [--first N] FILE...` (built with ASan and UBSan by the
 * Makefile, one per target) is what `make check` runs over the committed
 * corpora. Prints two TAP lines numbered from N (default 1), no plan; a
 * crash or a sanitizer report ends the process and fails the test. Files
 * named valid-* must be accepted by the target.
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
	const char *name = strrchr(argv[0], '/');
	int first = 1, arg0 = 1;

	name = name ? name + 1 : argv[0];
	if (!strncmp(name, "replay-", 7))
		name += 7;
	if (argc > 2 && !strcmp(argv[1], "--first")) {
		first = atoi(argv[2]);
		arg0 = 3;
	}
	for (int i = arg0; i < argc; i++) {
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
	printf("%sok %d - fuzz corpus %s: %d inputs replayed under ASan and "
	       "UBSan without a crash (%d accepted)\n", unreadable ? "not " : "",
	       first, name, argc - arg0, accepted);
	printf("%sok %d - fuzz corpus %s: the %d valid-* seeds are accepted\n",
	       valid_bad || !valid ? "not " : "", first + 1, name, valid);
	return unreadable || valid_bad || !valid;
}
