#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest suites (guest_main.sh, guest_load.sh) from /selftests.
#
# x86-64 under TCG: flipping the sched_switch tracepoint's static key
# (jump-label text patching at every START and STOP) hangs this guest now
# and then under load (both vCPUs stuck, an RCU stall without backtrace,
# after 25 to 250 quick START/STOP cycles); not with the key kept on, not
# the arm64 guest, not the debug kernel (no JUMP_LABEL). Keep it on: the
# trace event enabled, tracing off. TD_FLIP_TRACEPOINT=1 to reproduce
# (it still does with START/STOP no longer going through CPU hotplug
# callbacks). Seen in a frozen guest (QEMU 7.2, monitor, nokaslr): guest
# memory at the patch site in __schedule holds the final 5-byte NOP, yet
# every online vCPU keeps trapping on an int3 there, i.e. TCG still runs a
# stale translation with the int3 text_poke_bp() wrote in between;
# poke_int3_handler() finds no patch in progress, kprobe_int3_handler()
# sees no int3 in memory and re-executes the instruction, which traps
# again, forever, with interrupts off: an emulator bug, not the module's.
# Debian's kernels only (*-amd64): on the debug kernel enabling a trace
# event would add lock dependencies (event_mutex -> cpu_hotplug_lock) that
# lockdep must judge the module without.
keep_sched_switch_key_on() {
	if [ "$(uname -m)" = x86_64 ] && [ "${TD_FLIP_TRACEPOINT:-0}" != 1 ] &&
		case $(uname -r) in *-amd64) true ;; *) false ;; esac &&
		echo 0 >/sys/kernel/tracing/tracing_on 2>/dev/null &&
		echo 1 >/sys/kernel/tracing/events/sched/sched_switch/enable 2>/dev/null; then
		echo "# sched_switch tracepoint kept enabled (x86-64 TCG jump-label workaround)"
	fi
}
