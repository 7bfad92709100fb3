#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Inside a guest with 4 vCPUs (selftests/vm/run --smp 4): faults and load.
# CPU hotplug during collection (the module's, then the BPF backend's),
# the context-switch storm, then 100
# unload/reload rounds with collection running. TAP; scripts/check.sh
# counts the ok / not ok lines and adds up the "# COUNT" figures.
cd /selftests || exit 1
rc=0
. ./guest_common.sh
# shellcheck source=selftests/lib/tap.sh
. ./tap.sh
T=$(mktemp -d)
hold_jump_labels
# hotplug_test runs a tracepoint event through hotplug, which only the
# test build of the module (topdown_hooks.ko, test_pmu_type) lets through.
if check "insmod topdown_hooks.ko (the test build) for the hotplug suite" \
	insmod ./topdown_hooks.ko; then
	echo "# suite: CPU hotplug during collection (hotplug_test)"
	./hotplug_test || rc=1
	check "module unloads after hotplug" rmmod topdown
fi
if check "modprobe topdown for the storm suite" modprobe topdown; then
	echo "# suite: context-switch storm (stress_test)"
	./stress_test || rc=1
	check "module unloads after the storm" rmmod topdown
fi
echo "# suite: CPU hotplug with the BPF backend (tdctl_bpf_hotplug_test.sh)"
bpf_why=$(bpf_why_not)
if [ -z "$bpf_why" ]; then
	./tdctl_bpf_hotplug_test.sh || rc=1
else
	skip_bpf "CPU hotplug with the BPF backend" "$bpf_why"
fi
echo "# suite: unload/reload with collection running (reload_test.sh)"
./reload_test.sh || rc=1
[ "$fails" -eq 0 ] || rc=1
exit $rc
