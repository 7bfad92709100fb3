#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest tests of the reader commands on live data: tdctl stat (a command
# with a known profile and its descendants, exit status pass-through, -I
# blocks, -a, -p), top --batch, record/report/dump -i. Runs as root in
# both guests (busybox sh): x86-64 with the software set (cpu-clock only),
# arm64 with -icount (generic set: cycles and instructions, counted
# exactly). Prints TAP. The module must not be loaded at the start.
#
# At the end, the record file of the arm64 guest is printed in base64
# between "# tdfile-begin" and "# tdfile-end" (with the guest's report),
# for scripts/check.sh to read it back on the host.
TDCTL=${TDCTL:-tdctl}
# ok, not_ok, check, expect, tap_done
# shellcheck source=selftests/lib/tap.sh
. "$(dirname "$0")/tap.sh"
tap_tmpdir

# The known profile: a shell renamed td_spin that counts to 4*N and starts
# a child renamed td_kid that counts to N, then exits with $1. (The
# trailing ':' keeps sh from exec'ing the last command.) N is large enough
# that the loops outweigh each process's fixed cost (fork, exec, page
# faults): td_spin/td_kid is (F + 4L) / (F + L), above 2 only while
# 2L > F. It is compared where it is counted exactly (instructions under
# -icount); cpu-clock, time, depends on the host's load (1.96 was seen on a
# loaded host), so the software set compares page faults instead (1b).
N=4000
# shellcheck disable=SC2016 # the profile's own shells expand $$, $i, $j
PROFILE='printf td_spin >/proc/$$/comm
i=0; while [ $i -lt '$((4 * N))' ]; do i=$((i + 1)); done
sh -c '\''printf td_kid >/proc/$$/comm; j=0
	while [ $j -lt '$N' ]; do j=$((j + 1)); done; :'\''
exit ${1:-0}'

# csv_col FILE COMM COLUMN: a column of the group row of COMM in stat's
# CSV (type,comm,slices,runtime_ns,read_errors,EVENTS...,METRICS...).
csv_col() {
	awk -F, -v comm="\"$2\"" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$1 == "\"group\"" && $2 == comm { print $c; found = 1 }
		END { if (!found) print 0 }' "$1"
}

# The first event (sort key): cycles on arm64, cpu-clock on x86-64.
csv_total() {
	awk -F, -v col="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$1 == "\"total\"" { print $c }' "$1"
}

csv_sum() {
	awk -F, -v col="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$1 == "\"group\"" { s += $c } END { print s + 0 }' "$1"
}

echo "TAP version 13"

if "$TDCTL" load --backend "$TD_BACKEND" >"$T/out" 2>"$T/err"; then
	ok "load"
else
	not_ok "load" "$T/out" "$T/err"
	tap_done
	exit 1
fi
set=$(sed -n "s/.*event set '\([a-z_0-9]*\)'.*/\1/p" "$T/out")
case $set in
generic) EV=cycles; EV2=instructions ;;
*) EV=cpu-clock; EV2= ;;
esac
echo "# event set: $set"

# 1. stat -- COMMAND: the command's row, its child's row, nothing else.
"$TDCTL" --csv stat --by comm -- sh -c "$PROFILE" >"$T/stat.csv" 2>"$T/err"
expect "stat -- COMMAND exits 0 like the command" $? "$T/err"
spin=$(csv_col "$T/stat.csv" td_spin slices)
kid=$(csv_col "$T/stat.csv" td_kid slices)
[ "$spin" -ge 1 ] && [ "$kid" -ge 1 ]
expect "stat --by comm: rows for td_spin ($spin slices) and its child td_kid ($kid)" $? "$T/stat.csv"
# Before they rename themselves the command and its child are "tdctl"
# (tdctl's child between entering the cgroup and the end of execve), "sh",
# or "exe" while busybox re-executes itself through /proc/self/exe.
others=$(awk -F, '$1 == "\"group\"" && $2 != "\"td_spin\"" && $2 != "\"td_kid\"" &&
	$2 != "\"sh\"" && $2 != "\"exe\"" && $2 != "\"tdctl\"" { print $2 }' \
	"$T/stat.csv" | tr '\n' ' ')
[ -z "$others" ]
expect "stat counts only the command and its descendants (others: '$others')" $? "$T/stat.csv"
a=$(csv_col "$T/stat.csv" td_spin "$EV")
b=$(csv_col "$T/stat.csv" td_kid "$EV")
if [ -n "$EV2" ]; then
	# -icount: cycles are instructions, the same count run after run.
	# (cpu-clock is time, which the host's load stretches as it likes:
	# see 1b for the software set.)
	[ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ "$a" -gt $((2 * b)) ]
	expect "td_spin counts 4x td_kid's loop: $EV $a > 2 x $b" $? "$T/stat.csv"
fi
sum=$(csv_sum "$T/stat.csv" "$EV")
tot=$(csv_total "$T/stat.csv" "$EV")
[ "$sum" = "$tot" ]
expect "the total row is the sum of the rows ($EV $sum = $tot)" $? "$T/stat.csv"
if [ -n "$EV2" ]; then
	ins=$(csv_col "$T/stat.csv" td_spin instructions)
	ipc=$(csv_col "$T/stat.csv" td_spin ipc)
	# -icount: about a thousand instructions per loop iteration of sh.
	[ "$ins" -gt $((4 * N * 200)) ] && [ -n "$ipc" ]
	expect "td_spin: $ins instructions (> $((4 * N * 200))), ipc $ipc" $? "$T/stat.csv"
else
	rt=$(csv_col "$T/stat.csv" td_spin runtime_ns)
	[ "$a" -gt $((rt / 2)) ] && [ "$a" -lt $((rt * 2)) ]
	expect "td_spin: cpu-clock $a ns within 2x of its run time $rt ns" $? "$T/stat.csv"
fi
# 1b. The software set has no exact counter for the loops (cpu-clock is
# time, and how long a loop takes depends on the host's load): the same
# attribution, td_spin four times td_kid, with page faults, a fixed count
# whatever the load. td_touch touches 4000 fresh pages as td_spin, then
# its child 1000 as td_kid; each adds only its own start-up's few faults.
if [ -z "$EV2" ]; then
	"$TDCTL" unload >"$T/out" 2>"$T/err" &&
		"$TDCTL" load --backend "$TD_BACKEND" -e cpu-clock,page-faults >"$T/out" 2>"$T/err"
	expect "load -e cpu-clock,page-faults for the page-fault profile" $? "$T/out" "$T/err"
	"$TDCTL" --csv stat --by comm -- "$(dirname "$0")/td_touch" td_spin 4000 td_kid 1000 \
		>"$T/pf.csv" 2>"$T/err"
	a=$(csv_col "$T/pf.csv" td_spin page-faults)
	b=$(csv_col "$T/pf.csv" td_kid page-faults)
	[ "$a" -ge 4000 ] && [ "$a" -lt 4200 ] && [ "$b" -ge 1000 ] && [ "$b" -lt 1200 ] &&
		[ "$a" -gt $((2 * b)) ]
	expect "td_spin counts 4x td_kid's pages: page-faults $a (4000 + start-up) > 2 x $b (1000 + start-up)" \
		$? "$T/pf.csv" "$T/err"
	"$TDCTL" unload >"$T/out" 2>"$T/err" &&
		"$TDCTL" load --backend "$TD_BACKEND" >"$T/out" 2>"$T/err"
	expect "load (the default set again)" $? "$T/out" "$T/err"
fi
"$TDCTL" stat -- sh -c "$PROFILE" >"$T/out" 2>"$T/err"
grep -q "TopDown stats for 'sh -c" "$T/out" && grep -q "^process\|^ *PID COMM" "$T/out" &&
	grep -q "td_spin" "$T/out" && grep -q "^total" "$T/out" &&
	grep -q "seconds time elapsed" "$T/out"
expect "stat (plain): title, table by process, total, elapsed time" $? "$T/out" "$T/err"
sed 's/^/# /' "$T/out"

# 2. Exit status pass-through.
"$TDCTL" stat -- sh -c "$PROFILE" sh 7 >"$T/out" 2>"$T/err"
st=$?
[ $st -eq 7 ] && grep -q "7 exit status of the command" "$T/out"
expect "stat -- COMMAND exiting 7 exits 7 and says so (got $st)" $? "$T/out" "$T/err"
"$TDCTL" stat -- sh -c 'kill -TERM $$' >"$T/out" 2>"$T/err"
st=$?
[ $st -eq 143 ]
expect "a command killed by SIGTERM: 128+15 (got $st)" $? "$T/out" "$T/err"
"$TDCTL" stat -- /no/such/command >"$T/out" 2>"$T/err"
st=$?
[ $st -eq 127 ] && grep -q "cannot run '/no/such/command'" "$T/err"
expect "a command that does not exist: 127 and a message (got $st)" $? "$T/err"
"$TDCTL" --json stat -- sh -c 'exit 3' >"$T/out" 2>"$T/err"
st=$?
[ $st -eq 3 ] && grep -q '"exit_status":3' "$T/out" && grep -q '"rows":\[' "$T/out"
expect "stat --json: exit status 3 passed through and in the object" $? "$T/out" "$T/err"

# 2b. --by cgroup: the command runs in a cgroup of its own, and the row
# shows that cgroup's v2 path, the one the command saw in /proc/self/cgroup.
CGPROFILE='cat /proc/self/cgroup >'"$T/cg"'
'"$PROFILE"
"$TDCTL" --csv stat --by cgroup -- sh -c "$CGPROFILE" >"$T/cg.csv" 2>"$T/err"
st=$?
own=$(sed -n 's/^0:://p' "$T/cg")
groups=$(awk -F, '$1 == "\"group\""' "$T/cg.csv" | wc -l)
path=$(awk -F, '$1 == "\"group\"" { print $3 }' "$T/cg.csv")
head -n 1 "$T/cg.csv" | grep -q '^type,cgroup_id,cgroup,slices,' &&
	[ $st -eq 0 ] && [ "$groups" -eq 1 ] && [ -n "$own" ] &&
	[ "$path" = "\"$own\"" ] && case $own in /tdctl-[0-9]*) true ;; *) false ;; esac
expect "stat --by cgroup --csv -- COMMAND: one row, its own cgroup's path $path (the command saw $own)" $? "$T/cg.csv" "$T/cg" "$T/err"
"$TDCTL" --json stat --by cgroup -- sh -c "$CGPROFILE" >"$T/out" 2>"$T/err"
own=$(sed -n 's/^0:://p' "$T/cg")
grep -q "\"cgroup\":\"$own\"" "$T/out" && grep -q '"cgroup_id":[1-9]' "$T/out"
expect "stat --by cgroup --json: cgroup_id and cgroup \"$own\"" $? "$T/out" "$T/err"
"$TDCTL" stat --by cgroup -- sh -c "$CGPROFILE" >"$T/out" 2>"$T/err"
own=$(sed -n 's/^0:://p' "$T/cg")
grep -q '^CGROUP ' "$T/out" && grep -q "^$own  *[0-9]" "$T/out"
expect "stat --by cgroup (plain): the row starts with $own" $? "$T/out" "$T/err"
sed 's/^/# /' "$T/out"

# 2c. Without cgroup v2 (none mounted, /sys/fs/cgroup taken by a tmpfs, in
# a mount namespace of its own): stat warns and follows the command
# through /proc. A process running alongside must not be counted.
cat >"$T/nocg.sh" <<'EOS'
for m in $(awk '$3 == "cgroup2" { print $2 }' /proc/self/mounts); do
	umount "$m" || exit 99
done
mount -t tmpfs tmpfs /sys/fs/cgroup || exit 99
exec "$@"
EOS
sh -c 'printf td_other >/proc/$$/comm; while :; do usleep 5000; :; done' &
bg=$!
unshare -m sh "$T/nocg.sh" "$TDCTL" --csv stat --by comm -- sh -c "$PROFILE" sh 5 \
	>"$T/nocg.csv" 2>"$T/err"
st=$?
kill $bg
wait $bg 2>/dev/null
spin=$(csv_col "$T/nocg.csv" td_spin slices)
others=$(awk -F, '$1 == "\"group\"" && $2 != "\"td_spin\"" && $2 != "\"td_kid\"" &&
	$2 != "\"sh\"" && $2 != "\"exe\"" && $2 != "\"tdctl\"" { print $2 }' \
	"$T/nocg.csv" | tr '\n' ' ')
[ $st -eq 5 ] && [ "$spin" -ge 1 ] && [ -z "$others" ] && grep -q '^"total",' "$T/nocg.csv" &&
	grep -q "no cgroup v2 for the command (no cgroup2 mounted and /sys/fs/cgroup is in use): following its descendants through /proc" "$T/err"
expect "stat without cgroup v2: the /proc fallback says so, td_spin's row ($spin slices), nothing else ('$others'), exit 5 (got $st)" $? "$T/nocg.csv" "$T/err"
grep -q " cgroup2 " /proc/self/mounts
expect "the fallback's mount namespace left this one's cgroup2 mounted" $? /proc/self/mounts

# 3. -I: a block per interval. `sleep 1` with -I 200: a block at the end
# of every whole 200 ms interval (0.2, 0.4, ...) and a last, partial one
# at the time the command ended, which is at least 1 s and not later than
# the next boundary. Every block has a total row, even when nothing of the
# command ran in it. The count follows from the end time, so a slow guest
# (a debug kernel) gets more blocks, never wrong ones. tdctl woken late
# with the command gone prints the end block alone: the end may come up
# to 0.1 s past the next boundary (TCG guests on a loaded host wake tens
# of ms late), every other block within 20 ms of its boundary.
# interval_blocks INTERVAL TIMES...: the block times fit that rule.
interval_blocks() {
	echo "$*" | awk '{ n = NF - 1; iv = $1
		if (n < 2) exit 1
		for (i = 1; i < n; i++) { d = $(i + 1) - i * iv; if (d < -0.02 || d > 0.02) exit 1 }
		e = $(n + 1)
		if (e < 0.99 || e < (n - 1) * iv - 0.001 || e > n * iv + 0.1) exit 1 }'
}
"$TDCTL" stat -I 200 -- sleep 1 >"$T/out" 2>"$T/err"
st=$?
blocks=$(awk '$2 == "total"' "$T/out" | wc -l)
# shellcheck disable=SC2046 # one argument per time
[ $st -eq 0 ] && interval_blocks 0.2 $(awk '$2 == "total" { print $1 }' "$T/out")
expect "stat -I 200 -- sleep 1: $blocks blocks, one per 200 ms and the end" $? "$T/out" "$T/err"
sed 's/^/# /' "$T/out"
times=$(awk '$2 == "total" { print $1 }' "$T/out" | tr '\n' ' ')
echo "$times" | awk '{ for (i = 2; i <= NF; i++) if ($i <= $(i - 1)) exit 1;
	if ($1 < 0.19 || $1 > 0.21) exit 1 }'
expect "-I blocks at increasing times, the first at 0.2 s ($times)" $? "$T/out"
"$TDCTL" --csv stat -I 300 --by task -- sleep 1 >"$T/out" 2>"$T/err"
blocks=$(grep -c '^"total",' "$T/out")
# shellcheck disable=SC2046 # one argument per time
head -n 1 "$T/out" | grep -q '^type,time_s,pid,tid,comm,cpu,slices,runtime_ns' &&
	interval_blocks 0.3 $(awk -F, '$1 == "\"total\"" { print $2 }' "$T/out")
expect "stat -I 300 --csv: header with time_s, $blocks total rows, one per 300 ms and the end" $? "$T/out"
"$TDCTL" --json stat -I 250 -- sleep 1 >"$T/out" 2>"$T/err"
blocks=$(grep -c '^{"time_s":' "$T/out")
# shellcheck disable=SC2046 # one argument per time
[ "$(wc -l <"$T/out")" -eq "$blocks" ] &&
	interval_blocks 0.25 $(sed -n 's/^{"time_s":\([0-9.]*\).*/\1/p' "$T/out")
expect "stat -I 250 --json: one object per line and block ($blocks), one per 250 ms and the end" $? "$T/out"

# 4. -a for a while, -p a process.
"$TDCTL" --csv stat -a --duration 0.5 --by task >"$T/out" 2>"$T/err"
grep -q '"swapper/' "$T/out" && grep -q '^"total",' "$T/out"
expect "stat -a --duration 0.5: every task, idle included" $? "$T/out" "$T/err"
# Mostly asleep: under -icount a busy loop makes every guest second cost
# a billion emulated instructions.
sh -c 'printf td_bg >/proc/$$/comm; while :; do usleep 20000; :; done' &
bg=$!
"$TDCTL" --csv stat -p $bg --duration 0.5 --by task >"$T/out" 2>"$T/err"
pids=$(awk -F, '$1 == "\"group\"" { print $3 }' "$T/out" | sort -u | tr '\n' ' ')
[ "$pids" = "$bg " ] && grep -q '"td_bg"' "$T/out"
expect "stat -p PID: only that process ($pids)" $? "$T/out" "$T/err"
"$TDCTL" stat -p $bg --duration 3 >"$T/out" 2>"$T/err" &
spid=$!
sleep 1
"$TDCTL" top --batch -n 1 >"$T/top" 2>"$T/top.err"
st=$?
[ $st -ne 0 ] && grep -q "another reader" "$T/top.err"
expect "a second reader is refused while stat runs" $? "$T/top" "$T/top.err"
kill $bg
wait $spid
st=$?
[ $st -eq 0 ] && grep -q "td_bg" "$T/out"
expect "stat -p ends when the process exits" $? "$T/out" "$T/err"

# 5. top --batch
"$TDCTL" top --batch -n 2 -d 0.5 >"$T/out" 2>"$T/err"
st=$?
c=$(grep -c "^tdctl top - live" "$T/out")
[ $st -eq 0 ] && [ "$c" -eq 2 ] && grep -q "PID *TID COMM" "$T/out" &&
	! grep -q "$(printf '\033')" "$T/out"
expect "top --batch -n 2: two snapshots, no terminal control codes" $? "$T/out" "$T/err"
sed 's/^/# /' "$T/out"
"$TDCTL" --json top -n 3 -d 0.2 >"$T/out" 2>"$T/err"
c=$(grep -c '^{"time_s":' "$T/out")
[ "$c" -eq 3 ]
expect "top --json -n 3: three snapshot objects" $? "$T/out" "$T/err"

# 6. record, then report and dump -i of the file.
"$TDCTL" record -o "$T/rec.td" -- sh -c "$PROFILE" sh 5 >"$T/out" 2>"$T/err"
st=$?
[ $st -eq 5 ] && grep -q "wrote [0-9]* records" "$T/err" && [ -s "$T/rec.td" ]
expect "record -o FILE -- COMMAND: exit status 5, a summary" $? "$T/out" "$T/err"
"$TDCTL" --csv report -i "$T/rec.td" --by comm >"$T/rep.csv" 2>"$T/err"
expect "report -i the recorded file" $? "$T/err"
spin=$(csv_col "$T/rep.csv" td_spin slices)
kid=$(csv_col "$T/rep.csv" td_kid slices)
[ "$spin" -ge 1 ] && [ "$kid" -ge 1 ]
expect "report: the recorded command's rows (td_spin $spin, td_kid $kid slices)" $? "$T/rep.csv"
all=$(csv_total "$T/rep.csv" slices)
lines=$("$TDCTL" --csv dump -i "$T/rec.td" | tail -n +2 | wc -l)
[ "$all" -eq "$lines" ] && [ "$lines" -gt 0 ]
expect "dump -i: one line per record ($lines = report's $all slices)" $? "$T/rep.csv"
"$TDCTL" report -i "$T/rec.td" --by comm >"$T/rep.txt" 2>&1
grep -q "^# target: command: sh -c" "$T/rep.txt"
expect "report shows what was recorded" $? "$T/rep.txt"

# 7. record never loses a file: a second recording to the same FILE keeps
# the first as FILE.old, byte for byte.
cp "$T/rec.td" "$T/first.td"
$TDCTL record -o "$T/rec.td" -- true >"$T/out" 2>"$T/err"
cmp -s "$T/first.td" "$T/rec.td.old" && $TDCTL report -i "$T/rec.td" >/dev/null 2>&1 &&
	grep -q "rec.td is now .*rec.td.old" "$T/err"
expect "record onto an existing FILE keeps it as FILE.old" $? "$T/out" "$T/err"
rm -f "$T/rec.td" "$T/rec.td.old"
cp "$T/first.td" "$T/rec.td"

# 8. A recording killed without its trailer: refused, then read with
# --force up to its last good record, saying what was not read.
$TDCTL record -a -o "$T/kill.td" >"$T/out" 2>"$T/err" &
rpid=$!
sleep 2
kill -9 $rpid
wait $rpid 2>/dev/null
! $TDCTL report -i "$T/kill.td" >"$T/out" 2>"$T/err" && grep -q -- "--force" "$T/err"
expect "a killed recording: report refuses it and names --force" $? "$T/err"
$TDCTL report -i "$T/kill.td" --force >"$T/out" 2>"$T/err" &&
	grep -q "interrupted: read [0-9]* records" "$T/err" &&
	$TDCTL dump -i "$T/kill.td" --force --csv >"$T/out" 2>/dev/null
expect "a killed recording: report/dump --force read it, saying what was lost" $? "$T/err"

check_unload() {
	if "$TDCTL" unload >"$T/out" 2>"$T/err"; then ok "unload"; else not_ok "unload" "$T/err"; fi
}
check_unload

# For the host: the file and what this guest made of it.
echo "# tdfile-report-begin"
"$TDCTL" --json report -i "$T/rec.td" --by comm | sed 's/^/# /'
echo "# tdfile-report-end"
echo "# tdfile-begin"
base64 "$T/rec.td" | sed 's/^/# /'
echo "# tdfile-end"

tap_done
