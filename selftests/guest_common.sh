#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest suites (guest_main.sh, guest_load.sh) from /selftests.
#
# x86-64 under QEMU 7.2 TCG, Debian's kernels: patching a jump label that
# other vCPUs are executing sometimes kills the guest. Flipping
# perf_swevent_enabled[context-switches] by opening and closing a plain
# CPU-wide perf event in a loop, with no topdown module loaded, panics the
# cloud kernel after about 7000 flips ("int3: 0000 [#1]" at
# __schedule+0x281, the first byte of the patched jump); in other runs both
# vCPUs spin forever with a silent console. Seen in a frozen guest (QEMU
# monitor, nokaslr): guest memory at the patch site in __schedule holds the
# final 5-byte NOP, yet every vCPU keeps trapping on an int3 there, i.e. TCG
# still runs a stale translation holding the int3 text_poke_bp() wrote in
# between. An emulator bug: text_poke_bp() is correct on hardware.
#
# What the suites would patch in __schedule: the sched_switch tracepoint's
# jump label (the module's probe is its only one: at every START and
# STOP), perf's software-event jump labels (hostile_test's random
# CONFIGUREs include context-switches, page-faults and other software
# events, and it STARTs some), and the tracepoint's inline static call
# (direct call with one probe, the iterator with two or more: with the
# trace event as the only other probe, START and STOP switch it; 19000 such
# switches did not fail, but they are patched the same way). Keep them all
# still: the trace event enabled with tracing off, and td_keyhold holding
# one disabled event of each software config plus perf's own probe on
# sched_switch. TD_FLIP_KEYS=1 leaves them alone, to reproduce. Not on arm64
# (no such failure seen) nor on the debug kernel (no JUMP_LABEL; and
# enabling a trace event there would add lock dependencies, event_mutex ->
# cpu_hotplug_lock, that lockdep must judge the module without).
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
