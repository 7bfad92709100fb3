# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# What the tdctl end-to-end scenarios (tdctl_e2e_*_test.sh) share, sourced
# from their directory (the guest's /selftests). Each scenario starts with
# nothing loaded, sets up what it needs and leaves nothing loaded.
# TD_BACKEND=bpf: the same with the BPF backend (tap.sh); what only the
# module has is skipped.
TDCTL=${TDCTL:-tdctl}
TD_DIR=$(dirname "$0")
# ok, not_ok, check, expect, skip, is_bpf, bpf_atomics, tap_done
# shellcheck source=selftests/lib/tap.sh
. "$TD_DIR/tap.sh"
tap_tmpdir

# Make some context switches with a recognisable comm: 20 short-lived
# tasks named td_work that compute a little and sleep once (the trailing
# ':' keeps sh from exec'ing usleep, which would rename the task).
workload() {
	i=0
	while [ $i -lt 20 ]; do
		sh -c 'printf td_work >/proc/$$/comm; j=0
			while [ $j -lt 200 ]; do j=$((j + 1)); done; usleep 1000; :'
		i=$((i + 1))
	done
}

# switches: td_pingpong's round trips, tens of thousands of context
# switches (enough for any ring to wrap many times).
switches() {
	"$TD_DIR/td_pingpong" 10000
}

# picked_set: the event set tdctl list says it would use (empty if none).
picked_set() {
	"$TDCTL" list 2>/dev/null | sed -n 's/^Using \([a-z0-9_]*\): .*/\1/p'
}

# csvjson NAME CSV JSON: both outputs of one command for the host, which
# parses the CSV and compares it with the JSON (test_guest_file.py).
csvjson() {
	echo "# csvjson-begin $1"
	sed 's/^/# /' "$2"
	echo "# csvjson-json"
	sed 's/^/# /' "$3"
	echo "# csvjson-end"
}

# bpf_refused NAME MESSAGE COMMAND...: COMMAND, a load the BPF backend
# must refuse, fails with MESSAGE (a grep pattern) on stderr and leaves
# nothing loaded (no pins in /sys/fs/bpf/topdown, no module). If it
# loads, the check fails and the load is undone.
bpf_refused() {
	name=$1 msg=$2
	shift 2
	if "$@" >"$T/out" 2>"$T/err"; then
		not_ok "$name" "$T/out"
		"$TDCTL" unload >/dev/null 2>&1
	else
		grep -q "$msg" "$T/err" && [ ! -e /sys/fs/bpf/topdown ] &&
			[ ! -e /sys/module/topdown ]
		expect "$name" $? "$T/err"
	fi
}

# e2e_done: remove the scratch directory, the plan line, the exit status.
e2e_done() {
	tap_done
}
