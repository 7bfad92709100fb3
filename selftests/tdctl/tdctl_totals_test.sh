#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tdctl load --totals (busybox sh, as root, in a guest; TAP): the module
# keeps every task's totals while nobody reads a ring of one page, so
# records are lost and status says what the pool holds; --totals-tasks
# is checked; stat counts from the
# totals, exact whatever was lost, and says when it does not. The totals'
# exact values against ground truth are pmusim_test's (totals fixture).
# serve, stopped while a workload runs, exports every slice from them;
# top, stopped likewise, shows every slice in its intervals' rows.
# TD_BACKEND=bpf: the same with the BPF backend's totals, which a kernel
# without BPF atomic instructions (before 5.12) refuses, saying why.
# shellcheck source=selftests/tdctl/tdctl_e2e_common.sh
. "$(dirname "$0")/tdctl_e2e_common.sh"

# wait_pingpong: until td_pingpong runs (2 s at most).
wait_pingpong() {
	tries=0
	while [ $tries -lt 200 ] && ! grep -qx td_pingpong /proc/[0-9]*/comm 2>/dev/null; do
		sleep 0.01
		tries=$((tries + 1))
	done
}

echo "TAP version 13"

if "$TDCTL" load --backend "$TD_BACKEND" --totals-tasks 100 --totals >"$T/out" 2>"$T/err"; then
	not_ok "--totals-tasks 100 refused" "$T/out"
	"$TDCTL" unload >/dev/null 2>&1
else
	grep -q "power of two from 64 to 65536" "$T/err" &&
		ok "--totals-tasks 100 refused: a power of two from 64 to 65536" ||
		not_ok "--totals-tasks 100 refused with the range" "$T/err"
fi
if "$TDCTL" load --backend "$TD_BACKEND" --totals-tasks 128 >"$T/out" 2>"$T/err"; then
	not_ok "--totals-tasks without --totals refused" "$T/out"
	"$TDCTL" unload >/dev/null 2>&1
else
	grep -q "sizes the pool of --totals" "$T/err" &&
		ok "--totals-tasks without --totals refused" ||
		not_ok "--totals-tasks without --totals refused" "$T/err"
fi
if is_bpf && ! bpf_atomics; then
	bpf_refused "load --backend bpf --totals refused on $(uname -r): needs BPF atomics (5.12), nothing loaded" \
		"totals with the BPF backend needs per-CPU rings, which need BPF atomic instructions (Linux 5.12): this kernel has none" \
		"$TDCTL" load --backend bpf --totals
	e2e_done
	exit
fi

check "load --totals --totals-tasks 256 --ring-size 4096" \
	"$TDCTL" load --backend "$TD_BACKEND" --totals --totals-tasks 256 --ring-size 4096
switches >/dev/null 2>&1
workload
check "status --json" "$TDCTL" --json status
tr -d ' \n' <"$T/out" >"$T/flat"
pool=$(sed -n 's/.*"totals":{"pool_tasks":\([0-9]*\),.*/\1/p' "$T/flat")
tasks=$(sed -n 's/.*"totals":{[^}]*"tasks":\([0-9]*\).*/\1/p' "$T/flat")
[ "$pool" = 256 ] && ok "status: totals of 256 task entries" ||
	not_ok "status: totals of 256 task entries (pool_tasks $pool)" "$T/out"
[ -n "$tasks" ] && [ "$tasks" -gt 0 ] && [ "$tasks" -le 256 ] &&
	ok "status: $tasks task entries in use" ||
	not_ok "status: task entries in use ($tasks)" "$T/out"
lost=$(sed -n 's/.*"lost":\([1-9][0-9]*\).*/\1/p' "$T/flat" | head -n 1)
[ -n "$lost" ] && ok "records lost (nobody reads a ring of one page)" ||
	not_ok "records lost" "$T/out"
check "status" "$TDCTL" status
grep -q "^totals: *in the kernel, [0-9]* of 256 task entries in use" "$T/out" &&
	ok "status: the totals line" || not_ok "status: the totals line" "$T/out"

# stat counts from the totals: each of td_pingpong's two processes blocks
# at every one of its round trips (the child may not at its first), so
# each has at least N - 1 slices, however many records a ring of one page
# lost meanwhile; the records alone would have fewer.
# Whether stat's own reader keeps up is the guest's timing, so the test
# stops it (SIGSTOP) for a second once td_pingpong runs: records are lost.
rounds=20000
"$TDCTL" --json stat --by task -- "$TD_DIR/td_pingpong" $rounds \
	>"$T/out" 2>"$T/err" &
statpid=$!
wait_pingpong
kill -STOP $statpid
sleep 1
kill -CONT $statpid
if wait $statpid; then
	ok "stat --by task -- td_pingpong $rounds (totals), its reader stopped 1 s"
else
	not_ok "stat --by task -- td_pingpong $rounds (totals), its reader stopped 1 s" "$T/err"
fi
tr -d ' \n' <"$T/out" >"$T/flat"
grep -q '"exact":true' "$T/flat" && ok "stat: exact, from the totals" ||
	not_ok "stat: exact, from the totals" "$T/out"
lost=$(sed -n 's/.*"lost":\([0-9]*\).*/\1/p' "$T/flat" | head -n 1)
kept=$(sed -n 's/.*"records":\([0-9]*\).*/\1/p' "$T/flat" | head -n 1)
grep -oE '"comm":"td_pingpong",("cpu":[^,]*,)?"slices":[0-9]*' "$T/flat" |
	sed 's/.*://' >"$T/slices"
rows=$(wc -l <"$T/slices")
least=$(sort -n "$T/slices" | head -n 1)
sum=$(awk '{ s += $1 } END { print s + 0 }' "$T/slices")
[ "${lost:-0}" -gt 0 ] && ok "stat: $lost records lost" ||
	not_ok "stat: records lost with its reader stopped (lost ${lost:-?})" "$T/out"
[ "$rows" = 2 ] && [ "${least:-0}" -ge $((rounds - 1)) ] &&
	ok "stat: both td_pingpong tasks have at least $((rounds - 1)) slices ($(tr '\n' ' ' <"$T/slices"))" ||
	not_ok "stat: both td_pingpong tasks have at least $((rounds - 1)) slices" "$T/out"
[ "${kept:-0}" -lt "$sum" ] &&
	ok "stat: the records kept ($kept) are fewer than the tasks' slices ($sum)" ||
	not_ok "stat: the records kept ($kept) are fewer than the tasks' slices ($sum)" "$T/out"
check "stat (totals, plain)" "$TDCTL" stat -- "$TD_DIR/td_pingpong" 100
grep -q "^ exact: the kernel's totals of every slice" "$T/out" &&
	ok "stat: the plain header says exact" ||
	not_ok "stat: the plain header says exact" "$T/out"
check "stat -I 50 (records, not the totals)" \
	"$TDCTL" --json stat -I 50 -- "$TD_DIR/td_pingpong" 100
grep -q '"exact"' "$T/out" && not_ok "stat -I: no exact key per block" "$T/out" ||
	ok "stat -I: no exact key per block"
check "stat --by cpu (records, not the totals)" \
	"$TDCTL" --json stat --by cpu -- "$TD_DIR/td_pingpong" 100
tr -d '\n' <"$T/out" | grep -q '"exact": *false, *"not_exact": *"a task'"'"'s totals are not kept per CPU"' &&
	ok "stat --by cpu: not exact, and why" ||
	not_ok "stat --by cpu: not exact, and why" "$T/out"

# exec keeps the task, and its entry: one row per td_pingpong task, none
# left behind as sh.
check "stat --by task -- sh -c 'exec td_pingpong 2000'" \
	"$TDCTL" --json stat --by task -- sh -c "exec $TD_DIR/td_pingpong 2000"
tr -d ' \n' <"$T/out" >"$T/flat"
grep -oE '"comm":"[^"]*",("cpu":[^,]*,)?"slices":[0-9]*' "$T/flat" >"$T/rows"
grep -q '"exact":true' "$T/flat" &&
	[ "$(grep -c '"comm":"td_pingpong"' "$T/rows")" = 2 ] &&
	! grep -q '"comm":"sh"' "$T/rows" &&
	[ "$(sed 's/.*://' "$T/rows" | sort -n | head -n 1)" -ge 1999 ] &&
	ok "stat: exec keeps the task's totals (exact, two td_pingpong rows of 1999+ slices, no sh row)" ||
	not_ok "stat: exec keeps the task's totals" "$T/out"

# The command is born in its cgroup (clone3's CLONE_INTO_CGROUP), so no
# task of it moved: --by cgroup is exact.
check "stat --by cgroup -- td_pingpong 2000" \
	"$TDCTL" --json stat --by cgroup -- "$TD_DIR/td_pingpong" 2000
tr -d ' \n' <"$T/out" | grep -q '"exact":true' &&
	ok "stat --by cgroup of a command: exact, none of its tasks moved" ||
	not_ok "stat --by cgroup of a command: exact, none of its tasks moved" "$T/out"

# A task that moves to another cgroup has all its totals in the last:
# stat --by cgroup says so and sums the records instead.
cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -n "$cg" ] && mkdir -p "$cg/td_tot_a" "$cg/td_tot_b" 2>/dev/null; then
	for by in cgroup task; do
		sh -c 'sleep 0.5; echo $$ >'"$cg/td_tot_a/cgroup.procs"'
			i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done
			echo $$ >'"$cg/td_tot_b/cgroup.procs"'
			i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done' &
		mover=$!
		check "stat -p MOVER --by $by" "$TDCTL" --json stat -p $mover --by $by
		wait $mover
		{ tr -d ' \n' <"$T/out"; echo; } >"$T/flat.$by"
	done
	grep -q '"exact":false,"not_exact":"ataskmovedtoanothercgroup' "$T/flat.cgroup" &&
		grep -q '"cgroup":"/td_tot_a"' "$T/flat.cgroup" &&
		grep -q '"cgroup":"/td_tot_b"' "$T/flat.cgroup" &&
		ok "stat --by cgroup: a task moved, not exact, the records' rows of both cgroups" ||
		not_ok "stat --by cgroup: a task moved, not exact, rows of both cgroups" "$T/flat.cgroup"
	grep -q '"exact":true' "$T/flat.task" &&
		ok "stat --by task: a task moved, exact all the same" ||
		not_ok "stat --by task: a task moved, exact all the same" "$T/flat.task"
	rmdir "$cg/td_tot_a" "$cg/td_tot_b" 2>/dev/null
else
	skip "stat --by cgroup with a task that moves" "no cgroup2 to make cgroups in"
	skip "stat --by task with a task that moves" "no cgroup2 to make cgroups in"
fi

# serve counts from the totals: stopped while td_pingpong runs, it lost
# records, yet each of the two processes' series has every slice.
if [ -d /proc/net ]; then
	ifconfig lo 127.0.0.1 up 2>/dev/null
	url=http://127.0.0.1:10643/metrics
	"$TDCTL" serve --listen 127.0.0.1:10643 --by process --user 65534:65534 \
		--duration 120 >"$T/serve.out" 2>&1 &
	sp=$!
	wait_get "$url" "$T/m"
	kill -STOP $sp
	"$TD_DIR/td_pingpong" $rounds >/dev/null 2>&1
	kill -CONT $sp
	wget -q -O "$T/m" "$url" 2>"$T/err" &&
		grep -q '^topdown_exporter_info{.*,counts="totals"} 1$' "$T/m" &&
		ok "serve: counts=\"totals\"" ||
		not_ok "serve: counts=\"totals\"" "$T/m" "$T/err" "$T/serve.out"
	lost=$(awk '/^topdown_lost_records_total\{/ { s += $2 } END { print s + 0 }' "$T/m")
	awk '/^topdown_slices_total\{pid="[0-9]*",comm="td_pingpong"\}/ { print $2 }' \
		"$T/m" >"$T/slices"
	rows=$(wc -l <"$T/slices")
	least=$(sort -n "$T/slices" | head -n 1)
	[ "$lost" -gt 0 ] && ok "serve: $lost records lost while stopped" ||
		not_ok "serve: records lost while stopped" "$T/m"
	[ "$rows" = 2 ] && [ "${least:-0}" -ge $((rounds - 1)) ] &&
		ok "serve: both td_pingpong processes have at least $((rounds - 1)) slices ($(tr '\n' ' ' <"$T/slices"))" ||
		not_ok "serve: both td_pingpong processes have at least $((rounds - 1)) slices" "$T/m"
	kill -TERM $sp
	wait $sp
	expect "serve exits on SIGTERM" $? "$T/serve.out"
else
	skip "serve from the totals" "no networking in this kernel (no /proc/net)"
fi
check "unload" "$TDCTL" unload

# top reads the totals through the same code as stat (live/totals.c),
# whichever backend keeps them: run once, on the module, to keep the BPF
# backend's run of this suite short in make check's guests.
if ! is_bpf; then
	# top counts each interval from the totals: stopped (SIGSTOP) for a second
	# while td_pingpong runs, it lost records, yet its intervals' rows of
	# td_pingpong's cgroup have every slice. --by cgroup: the idle tasks are
	# one row, the root cgroup's, exact even when a new task reuses an exited
	# one's entry (--by task has a row per CPU's idle task, which that makes
	# unknown). The shell that becomes td_pingpong moves to the cgroup before
	# top starts, so no task moves while it counts.
	cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	if [ -n "$cg" ] && mkdir -p "$cg/td_tot_top" 2>/dev/null &&
		rm -f "$T/go" && mkfifo "$T/go"; then
		check "load --totals --ring-size 4096" \
			"$TDCTL" load --backend "$TD_BACKEND" --totals --ring-size 4096
		sh -c 'echo $$ >'"$cg/td_tot_top/cgroup.procs"'; read -r x <'"$T/go"'
			exec '"$TD_DIR/td_pingpong $rounds" >/dev/null 2>&1 &
		pp=$!
		sleep 0.5
		"$TDCTL" --json top --by cgroup -d 1 >"$T/top" 2>"$T/toperr" &
		toppid=$!
		# its first snapshot: counting since before td_pingpong starts
		tries=0
		while [ $tries -lt 100 ] && ! grep -q '"time_s"' "$T/top" 2>/dev/null; do
			sleep 0.1
			tries=$((tries + 1))
		done
		echo go >"$T/go"
		wait_pingpong
		kill -STOP $toppid
		sleep 1
		kill -CONT $toppid
		wait $pp
		# a whole interval after td_pingpong's end
		sleep 2.5
		kill -TERM $toppid
		wait $toppid
		expect "top --json --by cgroup -d 1, its reader stopped 1 s while td_pingpong $rounds ran" \
			$? "$T/toperr"
		snaps=$(grep -c '"time_s"' "$T/top")
		exact=$(grep -c '"exact":true' "$T/top")
		[ "$snaps" -gt 0 ] && [ "$exact" = "$snaps" ] &&
			ok "top: each of its $snaps snapshots exact, from the totals" ||
			not_ok "top: each snapshot exact, from the totals ($exact of $snaps)" "$T/top" "$T/toperr"
		lost=$(sed -n 's/.*"lost":\([0-9]*\).*/\1/p' "$T/top" |
			awk '{ s += $1 } END { print s + 0 }')
		records=$(sed -n 's/.*"records":\([0-9]*\).*/\1/p' "$T/top" |
			awk '{ s += $1 } END { print s + 0 }')
		sum=$(grep -oE '"cgroup":"/td_tot_top"[^{]*"slices":[0-9]*' "$T/top" |
			sed 's/.*"slices"://' | awk '{ s += $1 } END { print s + 0 }')
		[ "$lost" -gt 0 ] && ok "top: $lost records lost" ||
			not_ok "top: records lost with its reader stopped" "$T/top"
		[ "$sum" -ge $((2 * (rounds - 1))) ] &&
			ok "top: td_pingpong's cgroup has at least $((2 * (rounds - 1))) slices over the intervals ($sum)" ||
			not_ok "top: td_pingpong's cgroup has at least $((2 * (rounds - 1))) slices over the intervals ($sum)" "$T/top"
		# Every task's slices, from the totals, against every record read:
		# the records of other tasks count too (an RT kernel's threads have
		# more than td_pingpong has).
		all=$(grep -oE '"total":\{"slices":[0-9]*' "$T/top" |
			sed 's/.*"slices"://' | awk '{ s += $1 } END { print s + 0 }')
		[ "$records" -lt "$all" ] &&
			ok "top: the records read ($records in all) are fewer than the slices of the totals' rows ($all)" ||
			not_ok "top: the records read ($records in all) are fewer than the slices of the totals' rows ($all)" "$T/top"
		check "top -b -n 1 --by cgroup (totals, plain)" \
			"$TDCTL" top -b -n 1 -d 0.3 --by cgroup
		grep -q "^exact: the kernel's totals of every slice, lost records included" "$T/out" &&
			ok "top: the plain header says exact" ||
			not_ok "top: the plain header says exact" "$T/out"
		rmdir "$cg/td_tot_top" 2>/dev/null
	else
		check "load --totals --ring-size 4096" \
			"$TDCTL" load --backend "$TD_BACKEND" --totals --ring-size 4096
		for n in "top --by cgroup, stopped" "top: exact" "top: lost" \
			"top: every slice" "top: records fewer" "top -b (plain)" \
			"top: plain header"; do
			skip "$n" "no cgroup2 to make a cgroup in"
		done
	fi
	check "top --by cpu (records, not the totals)" \
		"$TDCTL" --json top --by cpu -n 1 -d 0.3
	grep -q '"exact":false,"not_exact":"a task'"'"'s totals are not kept per CPU"' "$T/out" &&
		ok "top --by cpu: not exact, and why" ||
		not_ok "top --by cpu: not exact, and why" "$T/out"
	check "unload" "$TDCTL" unload
fi

# The BPF backend: every slice in exactly one entry (pmusim_test checks
# it for the module). A pool of 64 entries and a few hundred short-lived
# tasks, so that exited tasks' entries are folded to make room; once
# unload has stopped the program, td_bpftotals sums every entry's slices
# against the program's count of its calls.
if is_bpf; then
	check "load --totals --totals-tasks 64 --ring-size 4096" \
		"$TDCTL" load --backend bpf --totals --totals-tasks 64 --ring-size 4096
	"$TD_DIR/td_bpftotals" >"$T/cons" 2>&1 &
	cp=$!
	tries=0
	while [ $tries -lt 200 ] && ! grep -q ready "$T/cons"; do
		sleep 0.01
		tries=$((tries + 1))
	done
	(
		i=0
		while [ $i -lt 300 ]; do
			sh -c : &
			i=$((i + 1))
		done
		wait
	)
	"$TD_DIR/td_pingpong" 2000 >/dev/null 2>&1
	check "unload (the program stops)" "$TDCTL" unload
	wait $cp
	expect "conservation: the entries' slices equal the program's calls ($(sed -n 's/^probe calls \([0-9]*\);.*/\1/p' "$T/cons"))" \
		$? "$T/cons"
	rec=$(sed -n 's/.* reclaimed \([0-9]*\) .*/\1/p' "$T/cons")
	[ "${rec:-0}" -gt 0 ] &&
		ok "conservation with $rec exited tasks' entries folded to make room" ||
		not_ok "exited tasks' entries folded in a pool of 64 (reclaimed ${rec:-?})" "$T/cons"
	sed 's/^/# /' "$T/cons"
fi

# Without --totals: null.
check "load" "$TDCTL" load --backend "$TD_BACKEND"
check "status --json" "$TDCTL" --json status
tr -d ' \n' <"$T/out" | grep -q '"totals":null' && ok "status: totals null without --totals" ||
	not_ok "status: totals null without --totals" "$T/out"
check "stat without totals" "$TDCTL" --json stat -- "$TD_DIR/td_pingpong" 100
tr -d ' \n' <"$T/out" >"$T/flat"
grep -q '"exact":false' "$T/flat" && ! grep -q '"not_exact"' "$T/flat" &&
	ok "stat: not exact without totals, no reason needed" ||
	not_ok "stat: not exact without totals, no reason needed" "$T/out"
check "unload" "$TDCTL" unload
tap_done
