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
