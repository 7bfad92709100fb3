// SPDX-License-Identifier: GPL-2.0
/*
 * td_percpu_hog - test-only: a module that holds 6.5 KiB of static per-CPU
 * data, as other modules loaded beside topdown may. Modules' static
 * per-CPU data all comes out of PERCPU_MODULE_RESERVE (8 KiB), so
 * topdown's own static per-CPU data must fit in what is left
 * (selftests/kmod/percpu_reserve_test.sh).
 */
#include <linux/module.h>
#include <linux/percpu.h>

#define TD_HOG_BYTES	6656

struct td_hog {
	u8 bytes[TD_HOG_BYTES];
};

static DEFINE_PER_CPU(struct td_hog, td_hog);

static int __init td_hog_init(void)
{
	/* Touch it, so that the section is not dropped. */
	this_cpu_write(td_hog.bytes[0], 1);
	return 0;
}

static void __exit td_hog_exit(void)
{
}

module_init(td_hog_init);
module_exit(td_hog_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("topdown selftests: 6.5 KiB of static per-CPU data");
