#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Events that cannot be counted here: the error reaches tdctl as a clear
# message. On the x86-64 TCG guest there is no hardware PMU, so perf would
# refuse the "generic" set (hardware cycles and instructions); tdctl load
# must fail with a message naming the set or event and the reason (tdctl
# checks the set against the CPU first: "does not fit this CPU"; should a
# set pass that check, the kernel's refusal must come out as "perf refused
# event NAME (type, config) on CPU N: reason"), and leave nothing running.
# The kernel side of that report (error code, event, CPU in STATUS) is
# checked exactly by hostile_test. Needs the module unloaded on entry;
# leaves it unloaded. TAP.
# shellcheck source=selftests/lib/tap.sh
. "$(dirname "$0")/tap.sh"
tap_tmpdir
echo "TAP version 13"
if [ "$(uname -m)" != x86_64 ]; then
	for what in "tdctl load of hardware events refused by perf" \
		"a clear message: the set or event, and why" \
		"nothing running after the refused start, module removable"; do
		skip "$what" "this guest has a hardware PMU (x86-64 TCG has none)"
	done
	tap_done
	exit
fi
if tdctl load --events generic >"$T/pr.out" 2>"$T/pr.err"; then
	not_ok "tdctl load of hardware events refused by perf: it succeeded"
else
	ok "tdctl load of hardware events refused by perf fails"
fi
sed 's/^/# stderr: /' "$T/pr.err"
if grep -q 'perf refused event .* (type 0, config 0x[0-9a-f]*) on CPU [0-9]*: ' "$T/pr.err" ||
	grep -q "event set 'generic' does not fit this CPU (.*)" "$T/pr.err"; then
	ok "a clear message: the set or event, and why"
else
	not_ok "no clear message naming the set or event and the reason"
fi
# Nothing is left running; the module goes away.
# The state, not a word of the explanation ("not running: ..." without
# a backend).
if tdctl status --json 2>/dev/null | grep -q '"state":"running"'; then
	not_ok "collection running after a refused start"
elif grep -q '^topdown ' /proc/modules && ! rmmod topdown; then
	not_ok "module cannot be removed after a refused start"
else
	ok "nothing running after the refused start, module removable"
fi
tap_done
