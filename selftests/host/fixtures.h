/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TD_TEST_FIXTURES_H
#define TD_TEST_FIXTURES_H

#include <stdbool.h>

enum fx {
	FX_SKX, FX_BDW, FX_ICX, FX_SPR, FX_ADL,
	FX_ZEN3, FX_ZEN4, FX_ZEN5,
	FX_N1, FX_N2R0P0, FX_N2R0P3, FX_V1, FX_V2,
	FX_QEMU_ARM, FX_QEMU_X86,
	FX_TGL, FX_SNB, FX_ADL_PCORE, FX_V3, FX_N3,
	FX_NR
};

extern const char *const fx_names[FX_NR];

/* Create the fake tree of fx under root (a new or empty directory). */
int fx_make(const char *root, enum fx fx);
/* Write root/rel, creating directories. */
int fx_write(const char *root, const char *rel, const char *text);

#endif
