#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kmemleak_check.sh start|report (debug kernel guests, DEBUG_KMEMLEAK).
#   start   scan once and forget what boot left (echo clear), so that a
#           later report shows only what the suites leaked
#   report  scan (twice: kmemleak reports an object only once it was
#           unreferenced in two scans) and print the leaks; TAP line
K=/sys/kernel/debug/kmemleak
if [ ! -e $K ]; then
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
fi
if [ ! -w $K ]; then
	echo "not ok 1 - kmemleak: $K missing (kernel without DEBUG_KMEMLEAK?)"
	exit 1
fi
case $1 in
start)
	echo scan >$K
	echo clear >$K
	echo "# kmemleak: boot-time reports cleared"
	;;
report)
	echo scan >$K
	sleep 6
	echo scan >$K
	cat $K >/tmp/kmemleak.txt
	n=$(grep -c '^unreferenced object' /tmp/kmemleak.txt)
	echo "# COUNT kmemleak_objects $n"
	if [ "$n" = 0 ]; then
		echo "ok 1 - kmemleak scan after the suites: no leak"
	else
		sed 's/^/# /' /tmp/kmemleak.txt | head -n 200
		echo "not ok 1 - kmemleak scan after the suites: $n unreferenced objects"
		exit 1
	fi
	;;
*)
	echo "usage: $0 start|report" >&2
	exit 2
	;;
esac
