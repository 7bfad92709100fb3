#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tdctl load and status about counters perf could not schedule, and the
# counter budget. Needs a hardware PMU (the arm64 guest); elsewhere only
# the budget lines and the JSON fields are checked. Runs as root in a guest
# (busybox sh), prints TAP. The module must not be loaded at the start.
TDCTL=${TDCTL:-tdctl}
T=$(mktemp -d)
# ok, not_ok, check, expect, tap_done
# shellcheck source=selftests/lib/tap.sh
. "$(dirname "$0")/tap.sh"
HOLD=$(dirname "$0")/td_pmuhold

echo "TAP version 13"

# Context switches on every CPU for a while.
switches() {
	s=0
	while [ $s -lt "$1" ]; do usleep 2000; s=$((s + 1)); done
}

# 1. The counter budget is shown, honestly "unknown" where nothing says it.
check "load" "$TDCTL" load
check "status" "$TDCTL" status
cp "$T/out" "$T/status1"
core=
for d in /sys/bus/event_source/devices/cpu /sys/bus/event_source/devices/cpu_core \
	/sys/bus/event_source/devices/armv8_*; do
	[ -e "$d" ] && core=$d
done
if [ -n "$core" ]; then
	grep -q "^counters: " "$T/out"
	expect "status shows the counter budget of the core PMU" $? "$T/out"
else
	n=$((n + 1))
	echo "ok $n # SKIP no core PMU: no counter budget to show"
fi
check "status --json" "$TDCTL" --json status
grep -q '"counter_budget":' "$T/out"
expect "status --json has counter_budget" $? "$T/out"
grep -q '"state":"counting"' "$T/out"
expect "status --json reports per-event counter states (counting)" $? "$T/out"
check "status --csv" "$TDCTL" --csv status
head -n 1 "$T/out" | grep -q "event_states"
expect "status --csv has an event_states column" $? "$T/out"
check "unload" "$TDCTL" unload

# 2. Every counter of CPU 0 held: load warns, status says "error" and why.
$HOLD 0 >"$T/hold" 2>&1 &
HP=$!
i=0
while [ ! -s "$T/hold" ] && [ $i -lt 100 ]; do usleep 20000; i=$((i + 1)); done
if ! grep -q "^held [1-9]" "$T/hold"; then
	kill $HP 2>/dev/null
	echo "ok $((n + 1)) # SKIP no hardware PMU to fill: $(cat "$T/hold")"
	n=$((n + 1))
	tap_done
	exit $?
fi
HELD=$(sed -n 's/^held \([0-9]*\).*/\1/p' "$T/hold")
grep -q "^counters: .*: $HELD general-purpose" "$T/status1"
expect "the budget's general-purpose count is what a CPU holds ($HELD)" $? "$T/status1"
check "load with CPU 0's counters held succeeds" "$TDCTL" load
grep -q "has no hardware counter on CPU 0 at start" "$T/err"
expect "load names the event and CPU without a counter" $? "$T/err"
grep -q "likely reason" "$T/err" && grep -q "retries every" "$T/err"
expect "load says the likely reason and that it retries" $? "$T/err"
switches 20
check "status while held" "$TDCTL" status
grep -q "CPU 0 counters: .*=error" "$T/out"
expect "status shows the event in error on CPU 0" $? "$T/out" "$T/err"
grep -q "has no hardware counter on CPU 0" "$T/err"
expect "status warns with the reason" $? "$T/err"
check "status --json while held" "$TDCTL" --json status
grep -q '"state":"error"' "$T/out" && grep -q '"no_counter_reason"' "$T/out"
expect "status --json: state error and a reason" $? "$T/out"

kill $HP
wait $HP 2>/dev/null
# retry_ms is 1000 by default: give it a few periods.
i=0
while [ $i -lt 20 ]; do
	switches 100
	"$TDCTL" --json status >"$T/out" 2>"$T/err"
	grep -q '"state":"error"' "$T/out" || break
	i=$((i + 1))
done
! grep -q '"state":"error"' "$T/out" && grep -q '"recoveries":1' "$T/out"
expect "the event counts again after the holder exits, without a restart" $? "$T/out"
check "unload" "$TDCTL" unload
tap_done
