#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CPU hotplug with the BPF backend, which has no resident process: the
# counters of a CPU that comes online (offline at load, or offline and
# back, which leaves its old counters OFF for good) are created by the
# next tdctl command that opens the backend (status here). Until then the
# CPU's slices carry the error bits, never counts; afterwards they count.
# Runs as root in a guest with at least 3 CPUs (busybox sh), prints TAP.
# Neither backend may be loaded at the start.
TDCTL=${TDCTL:-tdctl}
# ok, not_ok, check, expect, skip, tap_done
# shellcheck source=selftests/lib/tap.sh
. "$(dirname "$0")/tap.sh"
tap_tmpdir

echo "TAP version 13"
C=/sys/devices/system/cpu
if [ ! -w $C/cpu1/online ] || [ ! -w $C/cpu2/online ]; then
	skip "BPF backend and CPU hotplug" "CPUs 1 and 2 cannot go offline here"
	tap_done
	exit
fi

# busy CPU: context switches on CPU (sleeps of 1 ms)
busy() {
	# shellcheck disable=SC2016 # the inner shell expands $i
	taskset -c "$1" sh -c 'i=0; while [ $i -lt 200 ]; do usleep 1000; i=$((i + 1)); done'
}
# cpu_json CPU: the CPU's object of status --json, on one line
cpu_json() {
	"$TDCTL" --json status | tr -d '\n' | sed 's/{"cpu":/\n{"cpu":/g' | grep "^{\"cpu\":$1,"
}
# rows CPU FILE: the CPU's records as CSV, after a dump
rows() {
	"$TDCTL" --csv dump --cpu "$1" >"$2" 2>"$T/err"
}
# check_rows FILE EVENT: the records of FILE from the first error slice
# on (the CPU had no counters, or only dead ones): error slices without a
# count of EVENT, then only counted ones, and some of them
check_rows() {
	fc=$(head -n 1 "$1" | tr , "\n" | grep -nx flags | cut -d: -f1)
	ic=$(head -n 1 "$1" | tr , "\n" | grep -nx "$2" | cut -d: -f1)
	awk -F, -v fc="$fc" -v ic="$ic" 'NR > 1 {
			if ($fc ~ /E/) { err++; if ($ic != "" || good) bad++; next }
			if (!err) next
			good++
			if ($ic == "") bad++
		}
		END { exit !(good > 0 && err > 0 && bad == 0) }' "$1"
}

echo 0 >$C/cpu1/online
check "load --backend bpf with CPU 1 offline" "$TDCTL" load --backend bpf
ev=$("$TDCTL" --json status | sed -n 's/.*"events":\[{"name":"\([^"]*\)".*/\1/p')
cpu_json 1 >"$T/cpu1"
grep -q '"online":false' "$T/cpu1" && grep -q '"counting":false' "$T/cpu1" &&
	grep -q '"state":"off"' "$T/cpu1"
expect "status: CPU 1 offline, not counting, its events off" $? "$T/cpu1"
echo 1 >$C/cpu1/online
busy 1
rows 1 "$T/before1.csv"
expect "dump --cpu 1 (a command that opens the backend: it arms CPU 1)" $? "$T/err"
check "status" "$TDCTL" status
cpu_json 1 >"$T/cpu1"
grep -q '"online":true' "$T/cpu1" && grep -q '"counting":true' "$T/cpu1" &&
	! grep -q '"state":"off"' "$T/cpu1"
expect "status: CPU 1 online and counting" $? "$T/cpu1"
busy 1
cat "$T/before1.csv" >"$T/cpu1.csv"
rows 1 "$T/after1.csv"
tail -n +2 "$T/after1.csv" >>"$T/cpu1.csv"
check_rows "$T/cpu1.csv" "$ev"
expect "CPU 1's records: errors until armed, then counts of $ev" $? "$T/cpu1.csv"

# A CPU offline and back: its counters stay OFF, their reads fail.
busy 2
"$TDCTL" dump >/dev/null 2>&1
echo 0 >$C/cpu2/online
echo 1 >$C/cpu2/online
busy 2
rows 2 "$T/before2.csv"
fc=$(head -n 1 "$T/before2.csv" | tr , "\n" | grep -nx flags | cut -d: -f1)
awk -F, -v fc="$fc" 'NR > 1 && $fc ~ /E/ { e++ } END { exit !e }' "$T/before2.csv"
expect "CPU 2 back online: its slices read as errors" $? "$T/before2.csv"
check "status re-creates CPU 2's counters" "$TDCTL" status
cpu_json 2 >"$T/cpu2"
grep -q '"counting":true' "$T/cpu2" && ! grep -q '"state":"error"' "$T/cpu2" &&
	grep -q '"recoveries":[1-9]' "$T/cpu2"
expect "status: CPU 2 counting, recovered" $? "$T/cpu2"
busy 2
cat "$T/before2.csv" >"$T/cpu2.csv"
rows 2 "$T/after2.csv"
tail -n +2 "$T/after2.csv" >>"$T/cpu2.csv"
check_rows "$T/cpu2.csv" "$ev"
expect "CPU 2's records: errors until re-created, then counts of $ev" $? "$T/cpu2.csv"
check "unload" "$TDCTL" unload
tap_done
