#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Inside a guest with 4 vCPUs (selftests/vm/run --smp 4): faults and load.
# CPU hotplug during collection (the module's, then the BPF backend's),
# the context-switch storm, then 100
# unload/reload rounds with collection running. TAP; scripts/check.sh
# counts the ok / not ok lines and adds up the "# COUNT" figures.
# TD_SUITE="NAME...": only those suites (make guest SUITE=NAME);
# guest_load.sh --list: their names and headings (suite() in
# guest_common.sh).
[ "${1:-}" = --list ] && TD_SUITE=--list
if [ "${TD_SUITE:-}" = --list ]; then
	cd "$(dirname "$0")" || exit 1
else
	cd /selftests || exit 1
fi
rc=0
. ./guest_common.sh
# shellcheck source=selftests/lib/tap.sh
suite_list || . ./tap.sh
if ! suite_list; then
	T=$(mktemp -d)
	hold_jump_labels
fi
# hotplug_test runs a tracepoint event through hotplug, which only the
# test build of the module (topdown_hooks.ko, test_pmu_type) lets through.
if suite hotplug_test "CPU hotplug during collection (hotplug_test)" \
	check "insmod topdown_hooks.ko (the test build) for the hotplug suite" \
	insmod ./topdown_hooks.ko; then
	./hotplug_test || rc=1
	check "module unloads after hotplug" rmmod topdown
fi
if suite stress_test "context-switch storm (stress_test)" \
	check "modprobe topdown for the storm suite" modprobe topdown; then
	./stress_test || rc=1
	check "module unloads after the storm" rmmod topdown
fi
if suite tdctl_bpf_hotplug_test "CPU hotplug with the BPF backend (tdctl_bpf_hotplug_test.sh)"; then
	bpf_why=$(bpf_why_not)
	if [ -z "$bpf_why" ]; then
		./tdctl_bpf_hotplug_test.sh || rc=1
	else
		skip_bpf "CPU hotplug with the BPF backend" "$bpf_why"
	fi
fi
if suite reload_test "unload/reload with collection running (reload_test.sh)"; then
	./reload_test.sh || rc=1
fi
suite_list && exit 0
suites_chosen_missing || rc=1
[ "$fails" -eq 0 ] || rc=1
exit $rc
