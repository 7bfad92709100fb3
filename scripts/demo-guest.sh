#!/bin/sh
# Runs inside the demo guest: load, run a small mixed workload, show what
# topdown saw. Under QEMU -icount the emulated CPU_CYCLES advance with the
# instruction count, so IPC reads exactly 1.000 here; on real hardware the
# same commands show real cycles and the vendor's TopDown breakdown.
set -e
# name COMM CMD...: run a shell command as a task called COMM.
name() {
	comm=$1
	shift
	sh -c "printf $comm >/proc/\$\$/comm; $*; :"
}
echo "### tdctl list"
tdctl list
echo
echo "### tdctl load --ring-size 4194304"
tdctl load --ring-size 4194304
# A mixed workload: a CPU-bound shell loop, a pipe between two processes,
# and a task that mostly sleeps.
# shellcheck disable=SC2016 # the guest task's own shell expands $i
name spin 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' &
dd if=/dev/zero bs=4k count=500 2>/dev/null | md5sum >/dev/null &
name sleeper 'for i in 1 2 3 4 5 6 7 8 9 10; do usleep 10000; done' &
wait
echo
echo "### tdctl status"
tdctl status
echo
echo "### tdctl dump (the workload's slices)"
tdctl dump >/tmp/dump.txt
head -n 1 /tmp/dump.txt
grep -E ' (spin|sleeper|dd|md5sum) ' /tmp/dump.txt | head -n 30
echo "... $(($(wc -l </tmp/dump.txt) - 1)) slices in all, of which:"
for c in spin sleeper dd md5sum swapper/0 swapper/1; do
	echo "    $c: $(grep -c " $c " /tmp/dump.txt)"
done
echo
echo "### tdctl --json dump --comm spin (first 700 bytes)"
# shellcheck disable=SC2016 # the guest task's own shell expands $i
name spin 'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done'
tdctl --json dump --comm spin | head -c 700
echo
echo
echo "### tdctl unload"
tdctl unload
