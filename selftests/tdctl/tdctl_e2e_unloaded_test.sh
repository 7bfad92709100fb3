#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tdctl end to end, nothing loaded (busybox sh, as root, in a guest; TAP):
# status says what would run, bad loads are refused before anything
# loads, readers say nothing is loaded.
# shellcheck source=selftests/tdctl/tdctl_e2e_common.sh
. "$(dirname "$0")/tdctl_e2e_common.sh"

echo "TAP version 13"

# Not loaded: status says what would run and how, exit 3.
"$TDCTL" status >"$T/out" 2>"$T/err"
st=$?
[ $st -eq 3 ] && grep -q "^state: *not running" "$T/out" && grep -q "^event set:" "$T/out" &&
	grep -q "backend" "$T/out"
expect "status before load: not running, what would run, exit 3" $? "$T/out" "$T/err"
# The ring layout a BPF load would get here: per-CPU rings (overwrite
# mode too) from Linux 5.12 on, one shared ring buffer before.
if is_bpf; then
	if bpf_atomics; then
		grep -q "^ *bpf: can run .*: per-CPU rings as the module's, overwrite mode and totals too" "$T/out"
	else
		grep -q "^ *bpf: can run .*: one ring buffer shared by all CPUs, no overwrite mode, no totals (.*Linux 5.12" "$T/out"
	fi
	expect "status before load: the BPF ring layout of this kernel ($(uname -r))" $? "$T/out"
fi

# Unknown event set refused before anything is loaded.
if "$TDCTL" load --backend "$TD_BACKEND" --events no_such_set >"$T/out" 2>"$T/err"; then
	not_ok "unknown --events refused" "$T/out"
elif [ ! -e /sys/module/topdown ] && [ ! -e /sys/fs/bpf/topdown ] &&
	grep -qi "no_such_set" "$T/err"; then
	ok "unknown --events refused, module not loaded"
else
	not_ok "unknown --events refused with its name" "$T/err"
fi

# The BPF backend refuses event groups (the module rotates them from a
# work item on each CPU; no process stays behind a BPF load), saying why.
if is_bpf; then
	bpf_refused "event groups refused on the BPF backend, saying why, nothing loaded" \
		"event groups are not available with the BPF backend" \
		"$TDCTL" load --backend bpf -e '{cpu-clock,cs},{page-faults,task-clock}'
fi

# Nothing collects: status says what would run (a CSV row), exit 3.
"$TDCTL" --csv status >"$T/out" 2>"$T/err"
st=$?
[ $st -eq 3 ] && grep -q "^state,error,cpu,set,why,module,bpf,run$" "$T/out" &&
	grep -q '^"not running",' "$T/out"
expect "status --csv when not loaded: what would run, exit 3" $? "$T/out" "$T/err"
# An error in CSV mode: plain text on stderr, nothing on stdout.
"$TDCTL" --csv dump >"$T/out" 2>"$T/err"
st=$?
[ $st -eq 1 ] && [ ! -s "$T/out" ] && grep -q "^tdctl: Error: .*not loaded" "$T/err"
expect "dump --csv when not loaded: exit 1, the error on stderr as text" $? "$T/out" "$T/err"

e2e_done
