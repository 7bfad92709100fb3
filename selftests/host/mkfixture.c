// SPDX-License-Identifier: GPL-2.0
/*
 * mkfixture DIR NAME...  - write the fake /proc + /sys tree NAME under
 * DIR/NAME (NAME "all" for every one); used by test_decode_cli.sh.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fixtures.h"

int main(int argc, char **argv)
{
	char root[4096];

	if (argc < 3) {
		fprintf(stderr, "usage: %s DIR NAME...|all\n", argv[0]);
		for (int i = 0; i < FX_NR; i++)
			fprintf(stderr, "  %s\n", fx_names[i]);
		return 2;
	}
	mkdir(argv[1], 0755);
	for (int a = 2; a < argc; a++) {
		bool found = false;

		for (int i = 0; i < FX_NR; i++) {
			if (strcmp(argv[a], "all") && strcmp(argv[a], fx_names[i]))
				continue;
			found = true;
			snprintf(root, sizeof(root), "%s/%s", argv[1],
				 fx_names[i]);
			if (fx_make(root, i)) {
				perror(root);
				return 1;
			}
		}
		if (!found) {
			fprintf(stderr, "unknown fixture %s\n", argv[a]);
			return 2;
		}
	}
	return 0;
}
