#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest suites (guest_main.sh, guest_load.sh) from /selftests.
#
# x86-64 under QEMU 7.2 TCG, Debian's kernels: patching kernel text that
# other vCPUs are executing sometimes kills the guest. Seen in a frozen
# guest (QEMU monitor, nokaslr): guest memory at the patch site in
# __schedule holds the final 5-byte NOP, yet every vCPU keeps trapping on
# an int3 there with interrupts off, i.e. TCG still runs a stale
# translation holding the int3 text_poke_bp() wrote in between. An emulator
# bug: text_poke_bp() is correct on hardware, and the module patches
# nothing itself. Without topdown, td_swflip reproduces it:
#   selftests/vm/run -- sh -c 'for i in 1 2 3; do (while :; do echo;
#     done | while read l; do :; done) & done; /selftests/td_swflip 100000'
# flips perf_swevent_enabled[context-switches] each round; the cloud
# kernel panicked after about 7000, 14000 and 35000 rounds ("int3: 0000
# [#1]" at __schedule+0x281, the first byte of the patched jump), the rt
# kernel lasted 18000 (600 s); with td_keyhold run first, 60000 did not
# fail.
#
# What the suites would patch in __schedule: the sched_switch tracepoint's
# jump label (the module's probe alone: at every START and STOP), perf's
# software-event jump labels (hostile_test's random CONFIGUREs include
# context-switches, page-faults and other software events, and it STARTs
# some), and the tracepoint's inline static call (direct with one probe,
# the iterator with two or more: with the trace event as the only other
# probe, START and STOP switch it; 19000 rounds of "td_swflip N tracepoint"
# did not fail, but it is patched the same way). Keep all of them still:
# the trace event enabled with tracing off, and td_keyhold holding a
# disabled event of each software config plus perf's own probe on
# sched_switch. TD_FLIP_KEYS=1 leaves them alone, to reproduce. Not on
# arm64 (one 4-byte instruction written at once, no int3 in between; no
# such failure seen) nor on the debug kernel (no JUMP_LABEL; and enabling
# a trace event there would add lock dependencies, event_mutex ->
# cpu_hotplug_lock, that lockdep must judge the module without). A hung
# guest's vCPUs are shown by vm/run at its timeout (selftests/vm/hang-dump).
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
