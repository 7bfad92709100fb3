#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest suites (guest_main.sh, guest_load.sh) from /selftests.
#
# hold_jump_labels: on the x86-64 cloud and rt kernels, keep still the
# kernel text the suites would otherwise patch in __schedule() (the
# sched_switch tracepoint's jump label and static call, perf's
# software-event jump labels): QEMU's TCG sometimes runs a stale int3 after
# text_poke_bp() and the guest dies. Documentation/testing.rst describes
# the failure and how td_swflip reproduces it. TD_FLIP_KEYS=1 leaves the
# labels alone. Not needed on arm64; not done on the debug kernel (no
# JUMP_LABEL, and the trace event would add lock dependencies lockdep must
# judge the module without).
hold_jump_labels() {
	[ "$(uname -m)" = x86_64 ] && [ "${TD_FLIP_KEYS:-0}" != 1 ] || return 0
	case $(uname -r) in *-amd64) ;; *) return 0 ;; esac
	if echo 0 >/sys/kernel/tracing/tracing_on 2>/dev/null &&
		echo 1 >/sys/kernel/tracing/events/sched/sched_switch/enable 2>/dev/null; then
		echo "# sched_switch tracepoint kept enabled (x86-64 TCG jump-label workaround)"
	fi
	if n=$(./td_keyhold); then
		echo "# $n perf events held by td_keyhold (same workaround)"
	fi
}

# bpf_why_not: nothing when tdctl says its BPF backend can run on this
# kernel, else tdctl's reason (status with nothing loaded: its "bpf"
# field, "cannot run: ..."). Call it with neither backend loaded.
bpf_why_not() {
	tdctl status --json 2>/dev/null |
		sed -n 's/.*"bpf":"cannot run: \([^"]*\)".*/\1/p'
}

# skip_bpf NAME WHY: NAME does not run, the BPF backend being refused for
# WHY (bpf_why_not's answer)
skip_bpf() {
	skip "$1" "tdctl: the BPF backend cannot run: $2"
}

# bpf_refusal_checks WHY: where tdctl refuses its BPF backend because the
# kernel's BPF ring buffer lock sleeps, check that against the kernel
# (PREEMPT_RT, from uname, not from tdctl) and that load refuses, saying
# why, with nothing loaded. Other reasons: nothing to check.
bpf_refusal_checks() {
	case $1 in *"ring buffer lock sleeps"*) ;; *) return 0 ;; esac
	uname -v | grep -q PREEMPT_RT
	expect "BPF backend refused for its ring buffer's sleeping lock: the kernel is PREEMPT_RT ($(uname -r))" $?
	if tdctl load --backend bpf >"$T/bpf.out" 2>&1; then
		not_ok "load --backend bpf refused on $(uname -r)" "$T/bpf.out"
		tdctl unload >/dev/null 2>&1
	else
		grep -q "would deadlock\. Use the module$" "$T/bpf.out" && [ ! -e /sys/fs/bpf/topdown ] &&
			! grep -q '^topdown ' /proc/modules
		expect "load --backend bpf refused on $(uname -r), saying why, nothing loaded" $? "$T/bpf.out"
	fi
}

# The suites' names: each suite of guest_main.sh and guest_load.sh is
# one "if suite NAME HEADING ...; then" there, and NAME is what TD_SUITE
# selects (make guest SUITE=NAME). TD_SUITE unset or empty: every suite,
# as make check runs them. TD_SUITE="NAME..." (space-separated): only
# those, each with the setup it names. TD_SUITE=--list (the script's
# --list, which also runs on the host): print each name and its heading,
# run nothing.
suites_seen=

# suite NAME HEADING [SETUP...]: whether the suite NAME runs; if it
# does, runs SETUP (a command: a modprobe, say, through check) and then
# prints the suite's heading, "# suite: HEADING". A failed SETUP: the
# suite does not run (SETUP's TAP line says why).
suite() {
	suite_name=$1
	suite_heading=$2
	shift 2
	case ${TD_SUITE:-} in
	"") ;;
	--list)
		printf '%-30s %s\n' "$suite_name" "$suite_heading"
		return 1
		;;
	*)
		case " $TD_SUITE " in
		*" $suite_name "*) suites_seen="$suites_seen $suite_name" ;;
		*) return 1 ;;
		esac
		;;
	esac
	if [ $# -gt 0 ]; then
		"$@" || return 1
	fi
	echo "# suite: $suite_heading"
}

# suite_list: the script was asked for its suites' names (--list, or
# TD_SUITE=--list)
suite_list() {
	[ "${TD_SUITE:-}" = --list ]
}

# suites_chosen_missing: with TD_SUITE set, a failure for each name in it
# that no suite of this script answered to (a typing error, or a suite of
# the other script). Returns 1 if there was one.
suites_chosen_missing() {
	suites_missing=0
	for s in ${TD_SUITE:-}; do
		case "$suites_seen " in
		*" $s "*) ;;
		*)
			not_ok "TD_SUITE: no suite $s ran in $0 (its --list has the names)"
			suites_missing=1
			;;
		esac
	done
	return $suites_missing
}
