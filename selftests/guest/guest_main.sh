#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Inside a guest: every guest test suite, in TAP. The host side
# (scripts/check.sh) counts the ok / not ok lines.
cd /selftests || exit 1
rc=0
. ./guest_common.sh
# check DESCRIPTION COMMAND...: one TAP line for a command's success.
# shellcheck source=selftests/lib/tap.sh
. ./tap.sh
T=$(mktemp -d)
hold_jump_labels
# Can the BPF backend run here? Asked before anything is loaded.
bpf_why=$(bpf_why_not)
# e2e module|bpf [LABEL]: the tdctl end-to-end scenarios on that
# backend, one script each, each from nothing loaded to nothing loaded.
e2e() {
	for s in unloaded load dump unload ring; do
		echo "# suite: tdctl end to end$2: $s (tdctl_e2e_${s}_test.sh)"
		TD_BACKEND=$1 ./tdctl_e2e_${s}_test.sh || rc=1
	done
}
e2e module
echo "# suite: tdctl stat, top, record and report on live data"
./tdctl_stat_test.sh || rc=1
echo "# suite: tdctl serve on live data"
./tdctl_serve_test.sh || rc=1
# The same suites on the BPF backend (tdctl load --backend bpf), where
# tdctl says it can run: it needs the kernel's BTF (the debug tier's
# kernels, scripts/debug-kernel.sh, have none), and refuses Debian's 5.10
# rt kernels (bpf.c, ring_lock_sleeps()).
if [ -z "$bpf_why" ]; then
	e2e bpf ", BPF backend"
	echo "# suite: tdctl stat, top, record and report on live data, BPF backend"
	TD_BACKEND=bpf ./tdctl_stat_test.sh || rc=1
	echo "# suite: tdctl serve on live data, BPF backend"
	TD_BACKEND=bpf ./tdctl_serve_test.sh || rc=1
	echo "# suite: the same counts from both backends (tdctl_backends_test.sh)"
	./tdctl_backends_test.sh || rc=1
else
	echo "# suite: tdctl on the BPF backend"
	bpf_refusal_checks "$bpf_why"
	skip_bpf "tdctl end to end, stat and serve on the BPF backend, the same counts from both" "$bpf_why"
fi
echo "# suite: kselftest topdown_test"
if tdctl load >/tmp/load.out 2>&1; then
	./topdown_test || rc=1
	tdctl unload || rc=1
else
	cat /tmp/load.out
	echo "not ok 1 - tdctl load for the kselftests"
	rc=1
fi
echo "# suite: beside other modules' static per-CPU data (percpu_reserve_test.sh)"
./percpu_reserve_test.sh || rc=1
echo "# suite: hostile input (hostile_test)"
if check "modprobe topdown for the hostile tests" modprobe topdown; then
	./hostile_test || rc=1
	echo "# suite: counter recovery and states, PREEMPTED, STOP latency (counters_test)"
	./counters_test || rc=1
	echo "# suite: ABI growth, permissions, poll, overwrite (abi_test)"
	./abi_test || rc=1
	echo "# suite: groups and rotation at switch boundaries (groups_test)"
	./groups_test || rc=1
	echo "# suite: an isolated CPU gets no work (isolated_test; SKIPs unless booted isolcpus=1 nohz_full=1)"
	./isolated_test || rc=1
	echo "# suite: other users' pinned counters through rotation and retries (neighbour_test)"
	./neighbour_test || rc=1
	echo "# suite: random-operation fuzzer (fuzz_test)"
	./fuzz_test || rc=1
	echo "# suite: poll wake-ups, unload after offline (wakeup_test)"
	./wakeup_test || rc=1
	check "module unloads after the fuzzer" rmmod topdown
fi
echo "# suite: tdctl load --events, exact per-task :u counts (events_test)"
./events_test || rc=1
echo "# suite: tdctl readers on an --events collection"
./tdctl_events_test.sh || rc=1
echo "# suite: events perf rejects, through tdctl (perf_reject_test.sh)"
./perf_reject_test.sh || rc=1
echo "# suite: simulated PMU, exact ground truth (pmusim_test)"
./pmusim_test || rc=1
# estimates_test: whole in the -icount guests (TD_ICOUNT=1: make check's
# arm64 guests; its pmusim part there without the hotplug run) and with
# TD_ESTIMATES=1 (make check-estimates). Not in the x86_64 guests of make
# check: under x86_64 TCG a rotated slice's time can be far from the work
# in it, and the anchor's count, extrapolated through time, was once 5.31
# errors off (Documentation/testing.rst).
if [ "${TD_ESTIMATES:-0}" = 1 ] || [ "${TD_ICOUNT:-0}" = 1 ]; then
	echo "# suite: estimates from rotated groups against exact per-task counts (estimates_test)"
	./estimates_test || rc=1
fi
# tdctl_level2_test.sh: in make check-level2 only (TD_LEVEL2=1): it takes
# 60 to 80 s in the x86_64 guest, more than make check can give it
# (Documentation/testing.rst).
if [ "${TD_LEVEL2:-0}" = 1 ]; then
	echo "# suite: tdctl load --level 2 and stat on every Level 2 set, simulated PMU (tdctl_level2_test.sh)"
	./tdctl_level2_test.sh || rc=1
fi
echo "# suite: tdctl on counters perf could not schedule, counter budget"
./tdctl_counters_test.sh || rc=1
echo "# suite: the same on the BPF backend: error bits, recovery by tdctl commands"
if [ -z "$bpf_why" ]; then
	TD_BACKEND=bpf ./tdctl_counters_test.sh || rc=1
else
	skip_bpf "tdctl_counters_test on the BPF backend" "$bpf_why"
fi
[ "$fails" -eq 0 ] || rc=1
exit $rc
