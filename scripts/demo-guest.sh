#!/bin/sh
# Runs inside the demo guest: load, run a small mixed workload, show what
# topdown saw.
set -e
echo "### tdctl list"
tdctl list || true
echo
echo "### tdctl load"
tdctl load
# A mixed workload: a CPU-bound shell loop, a pipe between two processes,
# and a task that mostly sleeps.
cp /bin/busybox /tmp/spin
cp /bin/busybox /tmp/sleeper
/tmp/spin sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' &
dd if=/dev/zero bs=4k count=2000 2>/dev/null | md5sum >/dev/null &
/tmp/sleeper sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do usleep 10000; done' &
wait
echo
echo "### tdctl status"
tdctl status
echo
echo "### tdctl dump (the workload's slices; idle and kernel threads filtered out)"
tdctl dump >/tmp/dump.txt
head -n 1 /tmp/dump.txt
grep -E ' (spin|sleeper|dd|md5sum) ' /tmp/dump.txt | head -n 40
echo "... $(wc -l </tmp/dump.txt) slices in all"
echo
echo "### tdctl --json dump | head -c 600"
tdctl dump >/dev/null
/tmp/spin sh -c 'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done'
tdctl --json dump --comm spin | head -c 600
echo
echo
echo "### tdctl unload"
tdctl unload
