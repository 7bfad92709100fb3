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
echo "TAP version 13"
echo "1..3"
if [ "$(uname -m)" != x86_64 ]; then
	for i in 1 2 3; do echo "ok $i # SKIP this guest has a hardware PMU (x86-64 TCG has none)"; done
	exit 0
fi
rc=0
if tdctl load --events generic >/tmp/pr.out 2>/tmp/pr.err; then
	echo "not ok 1 - tdctl load of hardware events refused by perf: it succeeded"
	rc=1
else
	echo "ok 1 - tdctl load of hardware events refused by perf fails"
fi
sed 's/^/# stderr: /' /tmp/pr.err
if grep -q 'perf refused event .* (type 0, config 0x[0-9a-f]*) on CPU [0-9]*: ' /tmp/pr.err ||
	grep -q "event set 'generic' does not fit this CPU (.*)" /tmp/pr.err; then
	echo "ok 2 - a clear message: the set or event, and why"
else
	echo "not ok 2 - no clear message naming the set or event and the reason"
	rc=1
fi
# Nothing is left running; the module goes away.
# The state, not a word of the explanation ("not running: ..." without
# a backend).
if tdctl status --json 2>/dev/null | grep -q '"state":"running"'; then
	echo "not ok 3 - collection running after a refused start"
	rc=1
elif grep -q '^topdown ' /proc/modules && ! rmmod topdown; then
	echo "not ok 3 - module cannot be removed after a refused start"
	rc=1
else
	echo "ok 3 - nothing running after the refused start, module removable"
fi
exit $rc
