#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Inside a guest (selftests/vm/run --add build/<arch>/bench): every mode of
# the context-switch benchmark, one "@@BENCH {json}" line each, in one boot.
# scripts/bench.sh collects the lines and builds the table.
#
# Environment: TD_BENCH_ROUNDS (round trips per repeat), TD_BENCH_REPEATS,
# TD_BENCH_CPU (the CPU both tasks share), TD_BENCH_RING (ring bytes),
# TD_BENCH_PERF (the perf tool, default: perf on PATH; the perf stat modes
# say SKIP without it), TD_BENCH_SPIN (loop iterations of the accuracy
# workload), TD_BENCH_MODES (shell patterns of the modes to run, e.g.
# "baseline default max set-big bpf-* baseline-end"; the accuracy runs are
# acc-module, acc-bpf, acc-perf; default: all), TD_BENCH_TDCTL_BEFORE (a
# tdctl of an earlier tree, default tdctl-before beside this script:
# the bpf-before-* modes run its BPF backend), TD_BENCH_ONLY=groups (only
# the baseline, the event group modes and baseline-end, with no other
# load between them: the rotation's cost in a few minutes).
D=$(dirname "$0")
B=$D/tdbench
N=${TD_BENCH_ROUNDS:-20000}
R=${TD_BENCH_REPEATS:-3}
CPU=${TD_BENCH_CPU:-1}
RING=${TD_BENCH_RING:-67108864}
PT=/sys/module/topdown/parameters/probe_time
PERF=${TD_BENCH_PERF:-$(command -v perf)}
SPIN=${TD_BENCH_SPIN:-10000000}
SY=/tmp/tdbench-sync
MODES=${TD_BENCH_MODES:-*}
BEFORE=${TD_BENCH_TDCTL_BEFORE:-$D/tdctl-before}
rc=0

# want MODE: MODE is one of TD_BENCH_MODES (shell patterns). The patterns
# are split at blanks with globbing off: the default "*" expanded against
# the working directory (/ in the guest) would match no mode.
want() {
	set -f
	for p in $MODES; do
		# shellcheck disable=SC2254 # the patterns are meant to match
		case $1 in $p) set +f; return 0 ;; esac
	done
	set +f
	return 1
}

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
	want "$name" || return 0
	sleep 2
	out=$("$B" pipe -c "$CPU" -n "$N" -r "$R" -m "$name" "$@") || { fail "mode $name"; return; }
	echo "@@BENCH $out"
}
probe_time() { [ -w "$PT" ] && echo "$1" >"$PT"; }
# skip MODE REASON: a mode that cannot run here, and why.
skip() {
	want "$1" || return 0
	echo "SKIP: $1: $2"
	printf '@@BENCH-SKIP {"mode":"%s","reason":"%s"}\n' "$1" "$(echo "$2" | tr -d "\"\\\\")"
}

# perf_names SPEC: the TYPE:CONFIG list as perf tool event names
# (hardware and software events by name, others as PMU/config=X/).
perf_names() {
	echo "$1" | tr , "\n" | while IFS=: read -r ty cf; do
		c=$((cf))
		case $ty in
		0) set -- cycles instructions cache-references cache-misses branches \
			branch-misses bus-cycles stalled-cycles-frontend stalled-cycles-backend ref-cycles ;;
		1) set -- cpu-clock task-clock page-faults context-switches cpu-migrations \
			minor-faults major-faults alignment-faults emulation-faults ;;
		*) set -- ;;
		esac
		if [ $# -gt "$c" ]; then
			shift "$c"
			echo "$1"
		else
			for d in /sys/bus/event_source/devices/*; do
				[ "$(cat "$d/type")" = "$ty" ] && echo "${d##*/}/config=$cf/" && break
			done
		fi
	done | tr "\n" , | sed "s/,$//"
}
nevents() { echo "$1" | tr , "\n" | grep -c .; }
# perf_fds PID: how many perf events process PID holds.
perf_fds() {
	k=0
	for f in "/proc/$1/fd/"*; do
		case $(readlink "$f") in *perf_event*) k=$((k + 1)) ;; esac
	done
	echo $k
}
# perf_ready PID N: wait (30 s at most) until process PID holds N perf events.
perf_ready() {
	i=0
	while [ "$(perf_fds "$1")" -lt "$2" ]; do
		kill -0 "$1" 2>/dev/null || return 1
		i=$((i + 1))
		[ $i -lt 300 ] || return 1
		sleep 0.1
	done
	sleep 1
}
# until_file FILE: wait (30 s at most) for FILE to have content.
until_file() {
	i=0
	while [ ! -s "$1" ]; do
		i=$((i + 1))
		[ $i -lt 300 ] || return 1
		sleep 0.1
	done
}
# sync_pids: the pids tdbench --sync wrote, once it wrote them.
sync_pids() { until_file $SY.pids && cat $SY.pids; }
# perf_csv FILE: perf stat -x, output as a JSON object {"EVENT": count, ...}
# (summed over the threads of --per-thread; msec as ns, as topdown counts
# cpu-clock), -1 for "<not counted>".
perf_csv() {
	awk -F, '
	/^#/ || NF < 3 { next }
	{
		if ($1 ~ /-[0-9]+$/) { v = $2; u = $3; e = $4 } else { v = $1; u = $2; e = $3 }
		if (v !~ /^[0-9.]+$/) bad[e] = 1
		else sum[e] += u == "msec" ? v * 1000000 : v
		if (!(e in seen)) { seen[e] = 1; order[n++] = e }
	}
	END {
		printf "{"
		for (i = 0; i < n; i++)
			printf "%s\"%s\":%s", i ? "," : "", order[i], (order[i] in bad) ? -1 : sprintf("%.17g", sum[order[i]])
		printf "}"
	}' "$1"
}
# run_perf_task NAME SPEC [perf stat options]: the benchmark with the perf
# tool counting the events of SPEC on both tasks (perf stat -p PARENT,CHILD).
run_perf_task() {
	name=$1 ev=$(perf_names "$2") n=$(nevents "$2")
	shift 2
	want "$name" || return 0
	sleep 2
	rm -f $SY.pids $SY.go /tmp/perf.out
	"$B" pipe -c "$CPU" -n "$N" -r "$R" -m "$name" --sync $SY >/tmp/pipe.out &
	bp=$!
	pids=$(sync_pids) || { fail "$name: tdbench did not start"; kill $bp; wait $bp; return; }
	"$PERF" stat "$@" -x, -e "$ev" -p "$pids" -o /tmp/perf.out &
	pp=$!
	# Per-task events on both tasks; bperf (--bpf-counters) opens its
	# events per CPU instead, at least one per event.
	want=$((2 * n))
	case " $* " in *" --bpf-counters "*) want=$n ;; esac
	if ! perf_ready $pp "$want"; then
		fail "$name: perf stat $* -e $ev -p $pids did not start"
		cat /tmp/perf.out
		kill $pp 2>/dev/null
		echo go >$SY.go
		wait $bp
		return
	fi
	echo go >$SY.go
	if wait $bp; then
		kill -INT $pp 2>/dev/null
		wait $pp
		out=$(cat /tmp/pipe.out)
		echo "@@BENCH ${out%\}},\"peer\":\"perf-tool\",\"perf_args\":\"$* -e $ev\",\"perf_counts\":$(perf_csv /tmp/perf.out)}"
	else
		kill -INT $pp 2>/dev/null
		wait $pp
		fail "mode $name"
	fi
}
# run_perf_all NAME SPEC: the benchmark while perf stat -a counts SPEC.
run_perf_all() {
	name=$1 ev=$(perf_names "$2") n=$(nevents "$2")
	want "$name" || return 0
	sleep 2
	rm -f /tmp/perf.out
	"$PERF" stat -a -x, -e "$ev" -o /tmp/perf.out &
	pp=$!
	if ! perf_ready $pp $((n * $(grep -c ^processor /proc/cpuinfo))); then
		fail "$name: perf stat -a -e $ev did not start"
		cat /tmp/perf.out
		kill $pp 2>/dev/null
		return
	fi
	out=$("$B" pipe -c "$CPU" -n "$N" -r "$R" -m "$name") || { fail "mode $name"; kill -INT $pp; wait $pp; return; }
	kill -INT $pp
	wait $pp
	echo "@@BENCH ${out%\}},\"peer\":\"perf-tool\",\"perf_args\":\"-a -e $ev\",\"perf_counts\":$(perf_csv /tmp/perf.out)}"
}

case $(uname -m) in
aarch64)
	# 7 hardware counters (cycle counter + 6) and one software event:
	# the eighth hardware event would not fit and go to the ERROR state.
	t=$(cat /sys/bus/event_source/devices/armv8_pmuv3*/type | head -n1)
	ONE=0:0x0
	MAX=0:0x0,0:0x1,$t:0x23,$t:0x24,$t:0x3a,$t:0x3b,$t:0x3f,1:0x0
	SEVEN=0:0x0,0:0x1,$t:0x23,$t:0x24,$t:0x3a,$t:0x3b,$t:0x3f
	# Event groups (perf's syntax for tdctl load -e): two groups of four
	# with the anchors in both, and the first alone.
	G1=cycles,instructions,r23,r24
	G2=cycles,instructions,r3a,r3b
	;;
*)
	# No PMU in the x86-64 guest: eight software events.
	ONE=1:0x0
	MAX=1:0x0,1:0x1,1:0x2,1:0x3,1:0x4,1:0x5,1:0x6,1:0x7
	SEVEN=
	G1=cpu-clock,task-clock,page-faults,context-switches
	G2=cpu-clock,task-clock,cpu-migrations,minor-faults
	;;
esac

# 2c. event groups (target: rotated within 2% of one group per switch):
# one group of four events, then two groups of four rotated at the
# default interval and at the shortest one. The probe reads the running
# group's counters only, so a switch costs what it costs with one group;
# what rotation adds is the group changes (a work item on the CPU: two
# more switches and the disable/enable of the counters), amortised over
# the switches. CPU 1 is isolated (isolcpus=1): isolated_work=1 has the
# module rotate there as on any other CPU.
groups_modes() {
	modprobe topdown isolated_work=1 || fail "modprobe topdown isolated_work=1"
	if tdctl load -e "{$G1}" --ring-size "$RING" >/tmp/load.out 2>&1; then
		run groups-one --td-stats
		tdctl unload >/dev/null || fail "tdctl unload"
	else
		cat /tmp/load.out
		fail "tdctl load -e {$G1}"
	fi
	for m in "groups-rot:" "groups-rot-fast:--rotate 1"; do
		modprobe topdown isolated_work=1 || fail "modprobe topdown isolated_work=1"
		# shellcheck disable=SC2086 # the options are words
		if tdctl load -e "{$G1},{$G2}" ${m#*:} --ring-size "$RING" >/tmp/load.out 2>&1; then
			rms=$(tdctl --json status | sed -n 's/.*"rotate_ms":\([0-9]*\).*/\1/p' | head -n 1)
			echo "@@BENCH-GROUPS {\"mode\":\"${m%%:*}\",\"groups\":\"{$G1},{$G2}\",\"rotate_ms\":${rms:-null}}"
			run "${m%%:*}" --td-stats
			tdctl unload >/dev/null || fail "tdctl unload"
		else
			cat /tmp/load.out
			fail "tdctl load -e {$G1},{$G2} ${m#*:}"
		fi
	done
}

echo "@@BENCH-META {\"arch\":\"$(uname -m)\",\"kernel\":\"$(uname -r)\",\"rounds\":$N,\"repeats\":$R,\"cpu\":$CPU,\"nr_cpus\":$(grep -c ^processor /proc/cpuinfo),\"modes\":\"$MODES\"}"
echo "@@BENCH-LOOP $("$B" loop 20000000)"

# 1. module not loaded
run baseline

if [ "${TD_BENCH_ONLY:-}" = groups ]; then
	echo '@@BENCH-ONLY {"only":"groups"}'
	groups_modes
	run baseline-end
	exit $rc
fi

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
	# The kernel's totals (load --totals): the same, plus the pool.
	"$B" td-start "$DEF" --ring-size "$RING" --label "set=$SET" --totals 4096 &&
		run default-totals --td-stats
	"$B" td-stop
	"$B" td-start "$MAX" --ring-size "$RING" --totals 4096 && run max-totals --td-stats
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

groups_modes

# 2b. the largest named event set the module loads here besides the
# default one (the BPF backend takes named sets only, not the raw events
# of MAX): the module's side of the BPF comparison with more events.
BIG=
if [ -n "$SET" ]; then
	for s in $(tdctl --csv list 2>/dev/null | awk -F, 'NR > 1 { gsub(/"/, "", $1); print $2, $1 }' |
		sort -rn | awk '{ print $2 }'); do
		[ "$s" = "$SET" ] && break
		if tdctl load --events "$s" --ring-size "$RING" >/tmp/load.out 2>&1; then
			BIG=$s
			echo "@@BENCH-BIGSET {\"set\":\"$BIG\",\"events\":\"$("$B" td-events)\"}"
			run set-big --td-stats
			tdctl unload >/dev/null || fail "tdctl unload"
			break
		fi
	done
fi
[ -n "$BIG" ] || skip set-big "no named event set larger than '$SET' loads here"

# 3. the peers: the same events with perf_event_open
run perf-task-default --perf-task "$DEF"
run perf-task-max --perf-task "$MAX"
run perf-cpu-default --perf-cpu "$DEF"
run perf-cpu-max --perf-cpu "$MAX"

# 3b. the peers: the perf tool (Debian's linux-perf) with the same events
if [ -n "$PERF" ] && "$PERF" version >/dev/null 2>&1; then
	echo "@@BENCH-PERF {\"version\":\"$("$PERF" version)\"}"
	run_perf_task perf-stat-thread-default "$DEF" --per-thread
	run_perf_task perf-stat-thread-max "$MAX" --per-thread
	run_perf_all perf-stat-all-default "$DEF"
	run_perf_all perf-stat-all-max "$MAX"
	# bperf: per-task counting by BPF programs reading per-CPU counters.
	if "$PERF" stat --bpf-counters -e cpu-clock true 2>&1 | grep -q "unknown option"; then
		why="$("$PERF" version) is built without BUILD_BPF_SKEL=1: no --bpf-counters"
		skip perf-stat-bpf-default "$why"
		skip perf-stat-bpf-max "$why"
	else
		run_perf_task perf-stat-bpf-default "$DEF" --bpf-counters
		run_perf_task perf-stat-bpf-max "$MAX" --bpf-counters
	fi
else
	for m in perf-stat-thread-default perf-stat-thread-max perf-stat-all-default \
		perf-stat-all-max perf-stat-bpf-default perf-stat-bpf-max; do
		skip $m "no perf tool in the guest (TD_BENCH_PERF)"
	done
fi

# 3c. topdown's BPF backend (tdctl load --backend bpf), the same events,
# as it is (bpf-*), the read path and ring it had before its target (at
# most twice the module's added cost) one at a time (bpf-value-*:
# bpf_perf_event_read_value(), per-CPU rings; bpf-shared-*:
# bpf_perf_event_read(), one shared BPF ring buffer, the fallback for
# kernels without BPF atomics), and the BPF backend of an earlier tdctl
# (bpf-before-*, TD_BENCH_TDCTL_BEFORE).
# bpf_mode MODE TDCTL ENV [load options]: load the BPF backend with TDCTL
# and the environment ENV (VAR=VALUE, or -), run MODE, unload.
bpf_mode() {
	mode=$1 tdc=$2 ev=$3
	shift 3
	want "$mode" || return 0
	[ "$ev" = - ] && ev=
	# shellcheck disable=SC2086 # ev is one word or none
	if env $ev "$tdc" load --backend bpf --ring-size "$RING" "$@" >/tmp/load.out 2>&1; then
		[ "$mode" = bpf-default ] &&
			echo "@@BENCH-BPF {\"default\":\"$(tr -d "\"\\\\" </tmp/load.out | head -n 1)\"}"
		run "$mode"
		"$tdc" unload >/dev/null || fail "tdctl unload ($mode)"
	else
		cat /tmp/load.out
		fail "$tdc load --backend bpf $* ($mode)"
	fi
}
# bpf_modes PREFIX TDCTL ENV: PREFIX-default, PREFIX-max, PREFIX-set-big
bpf_modes() {
	pre=$1 tdc=$2 ev=$3
	bpf_mode "$pre-default" "$tdc" "$ev"
	# The 8 events of MAX in perf's syntax (tdctl load --events).
	if want "$pre-max"; then
		if "$tdc" load --backend bpf --ring-size "$RING" --events "$(perf_names "$MAX")" \
			>/tmp/load.out 2>&1; then
			"$tdc" unload >/dev/null
			bpf_mode "$pre-max" "$tdc" "$ev" --events "$(perf_names "$MAX")"
		else
			skip "$pre-max" "tdctl load --backend bpf --events $(perf_names "$MAX"): $(head -n 1 /tmp/load.out)"
		fi
	fi
	[ "$pre" = bpf-value ] || [ "$pre" = bpf-shared ] && return
	if [ -z "$BIG" ]; then
		skip "$pre-set-big" "no named event set larger than '$SET' loads here"
	else
		bpf_mode "$pre-set-big" "$tdc" "$ev" --events "$BIG"
	fi
}
if tdctl load -h 2>&1 | grep -q -- --backend; then
	bpf_modes bpf tdctl -
	# The BPF backend's totals (load --totals): the same, plus the pool.
	bpf_mode bpf-totals-default tdctl - --totals
	if want bpf-totals-max; then
		if tdctl load --backend bpf --ring-size "$RING" --totals \
			--events "$(perf_names "$MAX")" >/tmp/load.out 2>&1; then
			tdctl unload >/dev/null
			bpf_mode bpf-totals-max tdctl - --totals --events "$(perf_names "$MAX")"
		else
			skip bpf-totals-max "tdctl load --backend bpf --totals --events $(perf_names "$MAX"): $(head -n 1 /tmp/load.out)"
		fi
	fi
	bpf_modes bpf-value tdctl TDCTL_BPF_READ=value
	bpf_modes bpf-shared tdctl TDCTL_BPF_RING=shared
else
	for m in bpf-default bpf-max bpf-totals-default bpf-totals-max bpf-set-big \
		bpf-value-default bpf-value-max bpf-shared-default bpf-shared-max; do
		skip $m "tdctl has no --backend bpf"
	done
fi
if [ -x "$BEFORE" ]; then
	echo "@@BENCH-BEFORE {\"version\":\"$("$BEFORE" --version | head -n 1)\"}"
	bpf_modes bpf-before "$BEFORE" -
else
	why=$(cat "$D/tdctl-before.why" 2>/dev/null || echo "no $BEFORE")
	for m in bpf-before-default bpf-before-max bpf-before-set-big; do
		skip $m "$why"
	done
fi

# 4. the floor: a probe that only reads the clock and the counters
if [ -f "$D/tdfloor.ko" ]; then
	floor() {
		name=$1
		shift
		want "$name" || return 0
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

# 6. accuracy: one known workload (tdbench spin-task: SPIN iterations of a
# 2-instruction loop, alone on CPU), counted per task from its wake-up to
# the point where it blocks after the loop: the tools attach while it waits
# before the loop and stop (SIGINT) while it waits after it, so the exit
# path, which perf stops counting early in do_exit(), is in no count.
# acc RUN TOOL...: one run of the workload counted by the tools together
# (topdown: module or bpf, whichever is loaded; perf), one "@@BENCH-ACC"
# line per tool.
acc() {
	run=$1
	shift
	want "acc-${run%%+*}" || return 0
	sleep 2
	rm -f $SY.pids $SY.go $SY.done $SY.end /tmp/acc.*
	"$B" spin-task "$SPIN" -c "$CPU" --sync $SY &
	wp=$!
	pid=$(sync_pids) || { fail "accuracy $run: the workload did not start"; kill $wp; return; }
	tps=
	for tool in "$@"; do
		if [ "$tool" = perf ]; then
			"$PERF" stat --per-thread -x, -e "$(perf_names "$DEF")" -p "$pid" -o /tmp/acc.perf &
			tps="$tps $!"
			perf_ready $! "$(nevents "$DEF")" || fail "accuracy $run: perf stat did not start"
		else
			tdctl -j stat -p "$pid" --by task -o "/tmp/acc.$tool" &
			tps="$tps $!"
			sleep 2
		fi
	done
	echo go >$SY.go
	until_file $SY.done || fail "accuracy $run: the workload did not finish its loop"
	sleep 1
	for tp in $tps; do
		kill -INT "$tp"
		# perf stat re-raises SIGINT after its summary: no status to check
		wait "$tp"
	done
	echo end >$SY.end
	wait $wp || fail "accuracy $run: the workload failed"
	for tool in "$@"; do
		if [ "$tool" = perf ]; then
			res=$(perf_csv /tmp/acc.perf)
		else
			res=$(tr -d "\n" <"/tmp/acc.$tool")
		fi
		[ -n "$res" ] || { fail "accuracy $run: no result from $tool"; continue; }
		echo "@@BENCH-ACC {\"run\":\"$run\",\"tool\":\"$tool\",\"iterations\":$SPIN,\"pid\":$pid,\"events\":\"$DEF\",\"result\":$res}"
	done
}
if tdctl load --ring-size "$RING" >/tmp/load.out 2>&1; then
	acc module module
	[ -n "$PERF" ] && acc module+perf module perf
	tdctl unload >/dev/null || fail "tdctl unload"
else
	cat /tmp/load.out
	fail "tdctl load (accuracy)"
fi
if tdctl load -h 2>&1 | grep -q -- --backend; then
	if tdctl load --backend bpf --ring-size "$RING" >/tmp/load.out 2>&1; then
		acc bpf bpf
		[ -n "$PERF" ] && acc bpf+perf bpf perf
		tdctl unload >/dev/null || fail "tdctl unload (bpf)"
	else
		cat /tmp/load.out
		fail "tdctl load --backend bpf (accuracy)"
	fi
else
	skip acc-bpf "tdctl has no --backend bpf"
fi
if [ -n "$PERF" ]; then
	acc perf perf
else
	skip acc-perf "no perf tool in the guest (TD_BENCH_PERF)"
fi
exit $rc
