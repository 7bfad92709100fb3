#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# topdown loads beside other modules' static per-CPU data: all of it comes
# out of one reserve (PERCPU_MODULE_RESERVE, 8 KiB), so with a module that
# holds 6.5 KiB of it loaded (td_percpu_hog.ko), topdown must still load,
# start and stop. TAP output.
cd "$(dirname "$0")" || exit 1
# shellcheck source=selftests/lib/tap.sh
. ./tap.sh
tap_tmpdir
echo "TAP version 13"
rmmod topdown 2>/dev/null
rmmod td_pmusim 2>/dev/null
check "td_percpu_hog.ko (6.5 KiB of static per-CPU data) loads" insmod ./td_percpu_hog.ko
check "topdown loads beside it" modprobe topdown
check "and collects: tdctl load, status, unload" sh -c 'tdctl load && tdctl status >/dev/null && tdctl unload'
check "td_percpu_hog unloads" rmmod td_percpu_hog
tap_done
