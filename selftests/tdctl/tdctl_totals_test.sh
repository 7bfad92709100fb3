#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tdctl load --totals (busybox sh, as root, in a guest; TAP): the module
# keeps every task's totals while nobody reads a ring of one page, so
# records are lost and status says what the pool holds; --totals-tasks
# is checked, and the BPF backend refuses --totals. The totals' exact
# values against ground truth are pmusim_test's (totals fixture).
# shellcheck source=selftests/tdctl/tdctl_e2e_common.sh
. "$(dirname "$0")/tdctl_e2e_common.sh"

echo "TAP version 13"

if "$TDCTL" load --totals-tasks 100 --totals >"$T/out" 2>"$T/err"; then
	not_ok "--totals-tasks 100 refused" "$T/out"
	"$TDCTL" unload >/dev/null 2>&1
else
	grep -q "power of two from 64 to 65536" "$T/err" &&
		ok "--totals-tasks 100 refused: a power of two from 64 to 65536" ||
		not_ok "--totals-tasks 100 refused with the range" "$T/err"
fi
if "$TDCTL" load --totals-tasks 128 >"$T/out" 2>"$T/err"; then
	not_ok "--totals-tasks without --totals refused" "$T/out"
	"$TDCTL" unload >/dev/null 2>&1
else
	grep -q "sizes the pool of --totals" "$T/err" &&
		ok "--totals-tasks without --totals refused" ||
		not_ok "--totals-tasks without --totals refused" "$T/err"
fi
bpf_refused "--totals refused by the BPF backend" "BPF backend keeps no totals" \
	"$TDCTL" load --backend bpf --totals

check "load --totals --totals-tasks 256 --ring-size 4096" \
	"$TDCTL" load --totals --totals-tasks 256 --ring-size 4096
switches >/dev/null 2>&1
workload
check "status --json" "$TDCTL" --json status
tr -d ' \n' <"$T/out" >"$T/flat"
pool=$(sed -n 's/.*"totals":{"pool_tasks":\([0-9]*\),.*/\1/p' "$T/flat")
tasks=$(sed -n 's/.*"totals":{[^}]*"tasks":\([0-9]*\).*/\1/p' "$T/flat")
[ "$pool" = 256 ] && ok "status: totals of 256 task entries" ||
	not_ok "status: totals of 256 task entries (pool_tasks $pool)" "$T/out"
[ -n "$tasks" ] && [ "$tasks" -gt 0 ] && [ "$tasks" -le 256 ] &&
	ok "status: $tasks task entries in use" ||
	not_ok "status: task entries in use ($tasks)" "$T/out"
lost=$(sed -n 's/.*"lost":\([1-9][0-9]*\).*/\1/p' "$T/flat" | head -n 1)
[ -n "$lost" ] && ok "records lost (nobody reads a ring of one page)" ||
	not_ok "records lost" "$T/out"
check "status" "$TDCTL" status
grep -q "^totals: *in the kernel, [0-9]* of 256 task entries in use" "$T/out" &&
	ok "status: the totals line" || not_ok "status: the totals line" "$T/out"
check "unload" "$TDCTL" unload

# Without --totals: null.
check "load" "$TDCTL" load
check "status --json" "$TDCTL" --json status
tr -d ' \n' <"$T/out" | grep -q '"totals":null' && ok "status: totals null without --totals" ||
	not_ok "status: totals null without --totals" "$T/out"
check "unload" "$TDCTL" unload
rm -rf "$T"
tap_done
