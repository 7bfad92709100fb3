#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Inside a guest (selftests/vm/run --add build/<arch>/bench): every mode of
# the context-switch benchmark, one "@@BENCH {json}" line each, in one boot.
# scripts/bench.sh collects the lines and builds the table.
#
# Environment: TD_BENCH_ROUNDS (round trips per repeat), TD_BENCH_REPEATS,
# TD_BENCH_CPU (the CPU both tasks share), TD_BENCH_RING (ring bytes).
D=$(dirname "$0")
B=$D/tdbench
N=${TD_BENCH_ROUNDS:-20000}
R=${TD_BENCH_REPEATS:-3}
CPU=${TD_BENCH_CPU:-1}
RING=${TD_BENCH_RING:-67108864}
PT=/sys/module/topdown/parameters/probe_time
rc=0

# Quiet the benchmark CPU (scripts/bench.sh also boots with isolcpus=CPU
# nowatchdog): no per-second vmstat work in the middle of a run.
echo 3600 >/proc/sys/vm/stat_interval 2>/dev/null

fail() { echo "@@BENCH-FAIL $*"; rc=1; }
# Closing a per-task perf event (the peers, the calibration loop) leaves
# perf's context-switch hooks enabled for one more second (the static key
# is dropped from delayed work): let that pass before every measurement.
# Under -icount an idle guest skips ahead, so the wait costs nothing.
run() {
	name=$1
	shift
	sleep 2
	out=$("$B" pipe -c "$CPU" -n "$N" -r "$R" -m "$name" "$@") || { fail "mode $name"; return; }
	echo "@@BENCH $out"
}
probe_time() { [ -w "$PT" ] && echo "$1" >"$PT"; }

case $(uname -m) in
aarch64)
	# 7 hardware counters (cycle counter + 6) and one software event:
	# the eighth hardware event would not fit and go to the ERROR state.
	t=$(cat /sys/bus/event_source/devices/armv8_pmuv3*/type | head -n1)
	ONE=0:0x0
	MAX=0:0x0,0:0x1,$t:0x23,$t:0x24,$t:0x3a,$t:0x3b,$t:0x3f,1:0x0
	SEVEN=0:0x0,0:0x1,$t:0x23,$t:0x24,$t:0x3a,$t:0x3b,$t:0x3f
	;;
*)
	# No PMU in the x86-64 guest: eight software events.
	ONE=1:0x0
	MAX=1:0x0,1:0x1,1:0x2,1:0x3,1:0x4,1:0x5,1:0x6,1:0x7
	SEVEN=
	;;
esac

echo "@@BENCH-META {\"arch\":\"$(uname -m)\",\"kernel\":\"$(uname -r)\",\"rounds\":$N,\"repeats\":$R,\"cpu\":$CPU,\"nr_cpus\":$(grep -c ^processor /proc/cpuinfo)}"
echo "@@BENCH-LOOP $("$B" loop 20000000)"

# 1. module not loaded
run baseline

# 2. the default set, chosen by tdctl as a user would get it
if tdctl load --ring-size "$RING" >/tmp/load.out 2>&1; then
	DEF=$("$B" td-events)
	SET=$(sed -n "s/^collecting with event set '\([^']*\)'.*/\1/p" /tmp/load.out)
	echo "@@BENCH-SET {\"default_set\":\"$SET\",\"default\":\"$DEF\",\"max\":\"$MAX\"}"
	run default --td-stats
	"$B" td-stop
	run stopped
	probe_time 0
	"$B" td-start "$DEF" --ring-size "$RING" --label "set=$SET"
	run default-noacct --td-stats
	"$B" td-stop
	probe_time 1
	"$B" td-start "$ONE" --ring-size "$RING" && run one --td-stats
	"$B" td-stop
	if [ -n "$SEVEN" ]; then
		"$B" td-start "$SEVEN" --ring-size "$RING" && run seven --td-stats
		"$B" td-stop
	fi
	"$B" td-start "$MAX" --ring-size "$RING" && run max --td-stats
	"$B" td-stop
	probe_time 0
	"$B" td-start "$MAX" --ring-size "$RING" && run max-noacct --td-stats
	"$B" td-stop
	probe_time 1
	tdctl unload >/dev/null || fail "tdctl unload"
else
	cat /tmp/load.out
	fail "tdctl load"
	DEF=$ONE
fi

# 3. the peers: the same events with perf_event_open
run perf-task-default --perf-task "$DEF"
run perf-task-max --perf-task "$MAX"
run perf-cpu-default --perf-cpu "$DEF"
run perf-cpu-max --perf-cpu "$MAX"

# 4. the floor: a probe that only reads the clock and the counters
if [ -f "$D/tdfloor.ko" ]; then
	floor() {
		name=$1
		shift
		if insmod "$D/tdfloor.ko" "$@"; then
			run "$name"
			rmmod tdfloor || fail "rmmod tdfloor"
			dmesg | tail -n 1 | grep -q 'tdfloor: 0 counter reads failed' ||
				fail "$name: counter reads failed"
		else
			fail "insmod tdfloor $*"
		fi
	}
	types() { echo "$1" | tr , "\n" | cut -d: -f1 | tr "\n" , | sed "s/,$//"; }
	configs() { echo "$1" | tr , "\n" | cut -d: -f2 | tr "\n" , | sed "s/,$//"; }
	floor floor-empty
	floor floor-clock clock=1
	floor floor-one clock=1 "ev_type=$(types "$ONE")" "ev_config=$(configs "$ONE")"
	floor floor-default clock=1 "ev_type=$(types "$DEF")" "ev_config=$(configs "$DEF")"
	if [ -n "$SEVEN" ]; then
		floor floor-seven clock=1 "ev_type=$(types "$SEVEN")" "ev_config=$(configs "$SEVEN")"
	fi
	floor floor-max clock=1 "ev_type=$(types "$MAX")" "ev_config=$(configs "$MAX")"
fi

# 5. module not loaded again: the baseline did not drift
run baseline-end
exit $rc
