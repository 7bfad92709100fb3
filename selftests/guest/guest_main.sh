#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Inside a guest: every guest test suite, in TAP. The host side
# (scripts/check.sh) counts the ok / not ok lines.
# TD_SUITE="NAME...": only those suites, each with its setup (make guest
# SUITE=NAME); guest_main.sh --list: their names and headings, on the
# host too (suite() in guest_common.sh).
[ "${1:-}" = --list ] && TD_SUITE=--list
if [ "${TD_SUITE:-}" = --list ]; then
	cd "$(dirname "$0")" || exit 1
else
	cd /selftests || exit 1
fi
rc=0
. ./guest_common.sh
# check DESCRIPTION COMMAND...: one TAP line for a command's success.
# shellcheck source=selftests/lib/tap.sh
suite_list || . ./tap.sh
if suite_list; then
	bpf_why=
else
	T=$(mktemp -d)
	hold_jump_labels
	# Can the BPF backend run here? Asked before anything is loaded.
	bpf_why=$(bpf_why_not)
fi
# e2e module|bpf [LABEL SUFFIX]: the tdctl end-to-end scenarios on that
# backend, one script each, each from nothing loaded to nothing loaded;
# the suites tdctl_e2e_*_test[SUFFIX].
e2e() {
	for s in unloaded load dump unload ring; do
		if suite "tdctl_e2e_${s}_test$3" "tdctl end to end$2: $s (tdctl_e2e_${s}_test.sh)"; then
			TD_BACKEND=$1 ./tdctl_e2e_${s}_test.sh || rc=1
		fi
	done
}
e2e module
if suite tdctl_stat_test "tdctl stat, top, record and report on live data"; then
	./tdctl_stat_test.sh || rc=1
fi
if suite tdctl_serve_test "tdctl serve on live data"; then
	./tdctl_serve_test.sh || rc=1
fi
if suite tdctl_totals_test "tdctl load --totals: the kernel's totals (tdctl_totals_test.sh)"; then
	./tdctl_totals_test.sh || rc=1
fi
# The same suites on the BPF backend (tdctl load --backend bpf), where
# tdctl says it can run: it needs the kernel's BTF (the debug tier's
# kernels, scripts/debug-kernel.sh, have none), and refuses Debian's 5.10
# rt kernels (bpf.c, ring_lock_sleeps()).
if [ -z "$bpf_why" ]; then
	e2e bpf ", BPF backend" _bpf
	if suite tdctl_stat_test_bpf "tdctl stat, top, record and report on live data, BPF backend"; then
		TD_BACKEND=bpf ./tdctl_stat_test.sh || rc=1
	fi
	if suite tdctl_serve_test_bpf "tdctl serve on live data, BPF backend"; then
		TD_BACKEND=bpf ./tdctl_serve_test.sh || rc=1
	fi
	if suite tdctl_totals_test_bpf "tdctl load --totals: the BPF backend's totals"; then
		TD_BACKEND=bpf ./tdctl_totals_test.sh || rc=1
	fi
	if suite tdctl_backends_test "the same counts from both backends (tdctl_backends_test.sh)"; then
		./tdctl_backends_test.sh || rc=1
	fi
else
	# Refused here: the refusal is checked and the BPF suites skipped, in a
	# full run or when TD_SUITE names one of them.
	bpf_chosen=
	for s in ${TD_SUITE:-all}; do
		case $s in
		tdctl_counters_test_bpf) ;;
		all | *_bpf | tdctl_backends_test)
			bpf_chosen=1
			suites_seen="$suites_seen $s"
			;;
		esac
	done
	if [ -n "$bpf_chosen" ]; then
		echo "# suite: tdctl on the BPF backend"
		bpf_refusal_checks "$bpf_why"
		skip_bpf "tdctl end to end, stat and serve on the BPF backend, the same counts from both" "$bpf_why"
	fi
fi
if suite topdown_test "kselftest topdown_test"; then
	if tdctl load >/tmp/load.out 2>&1; then
		./topdown_test || rc=1
		tdctl unload || rc=1
	else
		cat /tmp/load.out
		echo "not ok 1 - tdctl load for the kselftests"
		rc=1
	fi
fi
if suite percpu_reserve_test "beside other modules' static per-CPU data (percpu_reserve_test.sh)"; then
	./percpu_reserve_test.sh || rc=1
fi
# The suites from hostile_test to wakeup_test run with the module
# loaded by modprobe, once for the first of them that runs (module_up;
# hostile_test's heading comes before it), and unloaded after the last.
# If modprobe fails, none of them runs.
module=
module_up() {
	case $module in
	up) return 0 ;;
	failed) return 1 ;;
	esac
	module=failed
	check "modprobe topdown for ${TD_SUITE:-the hostile tests}" modprobe topdown || return 1
	module=up
}
if suite hostile_test "hostile input (hostile_test)" && module_up; then
	./hostile_test || rc=1
fi
if suite counters_test "counter recovery and states, PREEMPTED, STOP latency (counters_test)" module_up; then
	./counters_test || rc=1
fi
if suite abi_test "ABI growth, permissions, poll, overwrite (abi_test)" module_up; then
	./abi_test || rc=1
fi
if suite groups_test "groups and rotation at switch boundaries (groups_test)" module_up; then
	./groups_test || rc=1
fi
if suite isolated_test "an isolated CPU gets no work (isolated_test; SKIPs unless booted isolcpus=1 nohz_full=1)" module_up; then
	./isolated_test || rc=1
fi
if suite neighbour_test "other users' pinned counters through rotation and retries (neighbour_test)" module_up; then
	./neighbour_test || rc=1
fi
if suite fuzz_test "random-operation fuzzer (fuzz_test)" module_up; then
	./fuzz_test || rc=1
fi
if suite wakeup_test "poll wake-ups, unload after offline (wakeup_test)" module_up; then
	./wakeup_test || rc=1
fi
if [ "$module" = up ]; then
	check "module unloads after ${TD_SUITE:-the fuzzer}" rmmod topdown
fi
if suite events_test "tdctl load --events, exact per-task :u counts (events_test)"; then
	./events_test || rc=1
fi
if suite tdctl_events_test "tdctl readers on an --events collection"; then
	./tdctl_events_test.sh || rc=1
fi
if suite perf_reject_test "events perf rejects, through tdctl (perf_reject_test.sh)"; then
	./perf_reject_test.sh || rc=1
fi
if suite pmusim_test "simulated PMU, exact ground truth (pmusim_test)"; then
	./pmusim_test || rc=1
fi
# estimates_test: whole in the -icount guests (TD_ICOUNT=1: make check's
# arm64 guests; its pmusim part there without the hotplug run) and with
# TD_ESTIMATES=1 (make check-estimates). Not in the x86_64 guests of make
# check: under x86_64 TCG a rotated slice's time can be far from the work
# in it, and the anchor's count, extrapolated through time, was once 5.31
# errors off (Documentation/testing.rst). Chosen by TD_SUITE: anywhere.
if [ "${TD_ESTIMATES:-0}" = 1 ] || [ "${TD_ICOUNT:-0}" = 1 ] || [ -n "${TD_SUITE:-}" ]; then
	if suite estimates_test "estimates from rotated groups against exact per-task counts (estimates_test)"; then
		./estimates_test || rc=1
	fi
fi
# tdctl_level2_test.sh: in make check-level2 only (TD_LEVEL2=1): it takes
# 60 to 80 s in the x86_64 guest, more than make check can give it
# (Documentation/testing.rst). Chosen by TD_SUITE: anywhere.
if [ "${TD_LEVEL2:-0}" = 1 ] || [ -n "${TD_SUITE:-}" ]; then
	if suite tdctl_level2_test "tdctl load --level 2 and stat on every Level 2 set, simulated PMU (tdctl_level2_test.sh)"; then
		./tdctl_level2_test.sh || rc=1
	fi
fi
if suite tdctl_counters_test "tdctl on counters perf could not schedule, counter budget"; then
	./tdctl_counters_test.sh || rc=1
fi
if suite tdctl_counters_test_bpf "the same on the BPF backend: error bits, recovery by tdctl commands"; then
	if [ -z "$bpf_why" ]; then
		TD_BACKEND=bpf ./tdctl_counters_test.sh || rc=1
	else
		skip_bpf "tdctl_counters_test on the BPF backend" "$bpf_why"
	fi
fi
suite_list && exit 0
suites_chosen_missing || rc=1
[ "$fails" -eq 0 ] || rc=1
exit $rc
