#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tdctl end to end (busybox sh, as root, in a guest; TAP): dump in every
# format with its filters, one reader at a time, no unload while a file is
# open, clear errors for bad command lines.
# shellcheck source=selftests/tdctl/tdctl_e2e_common.sh
. "$(dirname "$0")/tdctl_e2e_common.sh"

echo "TAP version 13"

# The ring holds 8192 records per CPU: every record up to the first dump,
# which asks for td_work's slices, even on an RT guest, whose kernel
# threads switch many times per tick, and with the BPF backend's one
# shared ring. Overflow has its own tests (tdctl_e2e_ring_test.sh).
check "load" "$TDCTL" load --backend "$TD_BACKEND" --ring-size 1048576
workload

# dump: the workload's slices are there, with names and metrics.
check "dump" "$TDCTL" dump
cp "$T/out" "$T/dump1"
head -n 1 "$T/dump1" | grep -Eq "^ *TIME_S .*COMM.*SLICE_US" && ok "dump header" ||
	not_ok "dump header" "$T/dump1"
c=$(grep -c " td_work " "$T/dump1")
[ "$c" -ge 20 ] && ok "dump shows >= 20 td_work slices ($c)" ||
	not_ok "dump shows >= 20 td_work slices ($c)" "$T/dump1"
# A second dump only has what happened since the first.
check "dump again" "$TDCTL" dump
c=$(grep -c " td_work " "$T/out")
[ "$c" -eq 0 ] && ok "second dump has no old td_work slices" ||
	not_ok "second dump has no old td_work slices ($c)" "$T/out"

workload
check "dump --json" "$TDCTL" --json dump --comm td_work
head -c 1 "$T/out" | grep -q '\[' && tail -c 2 "$T/out" | grep -q '\]' &&
	ok "dump --json is one array" || not_ok "dump --json is one array" "$T/out"
c=$(grep -o '"comm":"td_work"' "$T/out" | wc -l)
o=$(grep -o '"comm":"' "$T/out" | wc -l)
[ "$c" -ge 20 ] && [ "$c" -eq "$o" ] && ok "dump --json --comm filters ($c objects)" ||
	not_ok "dump --json --comm filters ($c of $o)" "$T/out"

workload
check "dump --csv" "$TDCTL" --csv dump --cpu 0
head -n 1 "$T/out" | grep -q "^seq,time_ns,time_s,cpu,pid,tid,comm,duration_ns,cgroup_id,flags" &&
	ok "dump --csv header" || not_ok "dump --csv header" "$T/out"
bad=$(tail -n +2 "$T/out" | awk -F, '$4 != 0' | wc -l)
rows=$(tail -n +2 "$T/out" | wc -l)
[ "$rows" -gt 0 ] && [ "$bad" -eq 0 ] && ok "dump --csv --cpu 0 filters ($rows rows)" ||
	not_ok "dump --csv --cpu 0 filters ($bad of $rows on other CPUs)" "$T/out"

# One reader at a time.
"$TDCTL" dump --follow >"$T/follow" 2>"$T/follow.err" &
fpid=$!
sleep 1
if "$TDCTL" dump >"$T/out" 2>"$T/err"; then
	not_ok "second reader refused" "$T/out"
else
	grep -q "another reader" "$T/err" && ok "second reader refused: another reader" ||
		not_ok "second reader says another reader" "$T/err"
fi
# Unload while a file is open is refused.
if "$TDCTL" unload >"$T/out" 2>"$T/err"; then
	not_ok "unload while open refused" "$T/out"
else
	grep -q "in use" "$T/err" && ok "unload while open refused: in use" ||
		not_ok "unload while open says in use" "$T/err"
fi
workload
# Interrupted, it still prints what arrived before the signal.
kill -INT $fpid
wait $fpid
c=$(grep -c " td_work " "$T/follow")
[ "$c" -ge 20 ] && ok "dump --follow streamed td_work slices ($c)" ||
	not_ok "dump --follow streamed td_work slices ($c)" "$T/follow" "$T/follow.err"

# Bad arguments: clear error, non-zero exit.
for args in "dump --cpu x" "dump --pid -1" "dump --duration 1e3" "dump --bogus" \
	    "load --ring-size 1000" "dump extra" "frobnicate"; do
	# shellcheck disable=SC2086 # $args: the words of one command line
	if "$TDCTL" $args >"$T/out" 2>"$T/err"; then
		not_ok "'tdctl $args' fails" "$T/out"
	elif [ -s "$T/err" ]; then
		ok "'tdctl $args' fails with a message"
	else
		not_ok "'tdctl $args' prints a message" "$T/err"
	fi
done
"$TDCTL" --json dump --cpu x >"$T/out" 2>"$T/err"
grep -q '"error":' "$T/out" && ok "JSON mode errors are JSON" ||
	not_ok "JSON mode errors are JSON" "$T/out" "$T/err"
# Prefix matching.
check "prefix 'statu' runs status" "$TDCTL" statu
grep -q "^state:" "$T/out" && ok "prefix runs the right command" ||
	not_ok "prefix runs the right command" "$T/out"

check "unload" "$TDCTL" unload

e2e_done
