#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest tests of a collection loaded with `tdctl load --events`: stat,
# record/report, dump -i and top show its counts under the events' names,
# and IPC when it has cycles and instructions with the same modifiers.
# Runs as root in a guest (busybox sh); the module must not be loaded.
# Prints TAP.
TDCTL=${TDCTL:-tdctl}
# ok, not_ok, check, expect, tap_done
# shellcheck source=selftests/lib/tap.sh
. "$(dirname "$0")/tap.sh"
tap_tmpdir

# A process named td_spin running a shell loop, with a child td_kid.
# shellcheck disable=SC2016 # the profile's own shells expand $$, $i, $j
PROFILE='printf td_spin >/proc/$$/comm
i=0; while [ $i -lt 4000 ]; do i=$((i + 1)); done
sh -c '\''printf td_kid >/proc/$$/comm; j=0
	while [ $j -lt 1000 ]; do j=$((j + 1)); done; :'\''
:'

# csv_col FILE COMM COLUMN: a column of COMM's group row in stat's or
# report's CSV; "absent" without that column.
csv_col() {
	awk -F, -v comm="\"$2\"" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$1 == "\"group\"" && $2 == comm { found = 1; print c ? $c : "absent" }
		END { if (!found) print "absent" }' "$1"
}

echo "TAP version 13"
"$TDCTL" unload >/dev/null 2>&1

# 1. Hardware events (the arm64 guest): cycles and instructions give IPC.
if "$TDCTL" load -e cycles,instructions:u,instructions >"$T/out" 2>"$T/err"; then
	grep -q "event set 'events'.*IPC from instructions and cycles" "$T/out"
	expect "load -e cycles,instructions:u,instructions: IPC from instructions and cycles" $? "$T/out"
	"$TDCTL" --csv stat --by comm -- sh -c "$PROFILE" >"$T/stat.csv" 2>"$T/err"
	expect "stat -- COMMAND on the --events collection" $? "$T/err"
	cyc=$(csv_col "$T/stat.csv" td_spin cycles)
	insu=$(csv_col "$T/stat.csv" td_spin instructions:u)
	ins=$(csv_col "$T/stat.csv" td_spin instructions)
	ipc=$(csv_col "$T/stat.csv" td_spin ipc)
	# ipc = instructions / cycles, as stat prints it (awk's float).
	calc=$(awk -v i="$ins" -v c="$cyc" -v p="$ipc" 'BEGIN {
		d = i / c - p; if (d < 0) d = -d; print (d < 0.01) ? "yes" : "no" }')
	[ "$insu" -gt 0 ] && [ "$insu" -lt "$ins" ] && [ "$calc" = yes ]
	expect "stat: td_spin instructions:u $insu < instructions $ins, ipc $ipc = $ins / $cyc" $? "$T/stat.csv"

	"$TDCTL" record -o "$T/ev.td" -- sh -c "$PROFILE" >"$T/out" 2>"$T/err"
	expect "record -o FILE on the --events collection" $? "$T/err"
	"$TDCTL" --csv report -i "$T/ev.td" --by comm >"$T/rep.csv" 2>"$T/err"
	ipc=$(csv_col "$T/rep.csv" td_spin ipc)
	insu=$(csv_col "$T/rep.csv" td_spin instructions:u)
	[ "$ipc" != absent ] && [ -n "$ipc" ] && [ "$insu" -gt 0 ]
	expect "report -i: the events' columns and ipc (instructions:u $insu, ipc $ipc)" $? "$T/rep.csv" "$T/err"
	"$TDCTL" --json dump -i "$T/ev.td" >"$T/dump.json" 2>"$T/err"
	grep -q '"instructions:u"' "$T/dump.json" && grep -q '"ipc"' "$T/dump.json"
	expect "dump -i --json: instructions:u and ipc" $? "$T/err"
	"$TDCTL" top --batch -n 1 -i "$T/ev.td" >"$T/top" 2>"$T/err"
	grep -qi "ipc" "$T/top" && grep -q "td_spin" "$T/top"
	expect "top --batch -i: td_spin with ipc" $? "$T/top" "$T/err"
	"$TDCTL" unload >/dev/null 2>&1
	if [ "$(uname -m)" = aarch64 ]; then
		# Every event of arm_stall_cycles, by the PMU's sysfs names, in
		# another order: that set's formula applies.
		check "load -e inst_retired,stall_backend,cpu_cycles,stall_frontend" \
			"$TDCTL" --json load -e inst_retired,stall_backend,cpu_cycles,stall_frontend
		grep -q '"label": *"set=events of=arm_stall_cycles map=[0-3]*"' "$T/out"
		expect "the label names set arm_stall_cycles and where its events are" $? "$T/out"
		"$TDCTL" --csv stat --by comm -- sh -c "$PROFILE" >"$T/stat.csv" 2>"$T/err"
		fe=$(csv_col "$T/stat.csv" td_spin frontend_stalled_cycles)
		ins=$(csv_col "$T/stat.csv" td_spin inst_retired)
		cyc=$(csv_col "$T/stat.csv" td_spin cpu_cycles)
		ipc=$(csv_col "$T/stat.csv" td_spin ipc)
		calc=$(awk -v i="$ins" -v c="$cyc" -v p="$ipc" 'BEGIN {
			d = i / c - p; if (d < 0) d = -d; print (d < 0.01) ? "yes" : "no" }')
		[ "$fe" != absent ] && [ "$calc" = yes ]
		expect "stat: the set's metrics (frontend_stalled_cycles $fe, ipc $ipc = $ins / $cyc)" $? "$T/stat.csv" "$T/err"
		"$TDCTL" unload >/dev/null 2>&1
	fi
elif grep -q "perf refused event cycles" "$T/err"; then
	ok "load -e cycles without a hardware PMU: perf's refusal named # SKIP no hardware PMU"
	"$TDCTL" unload >/dev/null 2>&1
else
	not_ok "load -e cycles,instructions:u,instructions" "$T/out" "$T/err"
fi

# 2. Software events (every guest): counts only, no metrics.
check "load -e cpu-clock,page-faults:u,cs" "$TDCTL" --json load -e cpu-clock,page-faults:u,cs
grep -q '"label": *"set=events"' "$T/out"
expect "load --json: label set=events" $? "$T/out"
"$TDCTL" --csv stat --by comm -- sh -c "$PROFILE" >"$T/stat.csv" 2>"$T/err"
expect "stat -- COMMAND on software --events" $? "$T/err"
pf=$(csv_col "$T/stat.csv" td_spin page-faults:u)
clk=$(csv_col "$T/stat.csv" td_spin cpu-clock)
ipc=$(csv_col "$T/stat.csv" td_spin ipc)
[ "$pf" != absent ] && [ "$pf" -gt 0 ] && [ "$clk" -gt 0 ] && [ "$ipc" = absent ]
expect "stat: td_spin page-faults:u $pf, cpu-clock $clk, no ipc column" $? "$T/stat.csv"
check "unload" "$TDCTL" unload

tap_done
