#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kcsan_check.sh start|report (the debug tier's KCSAN kernel guest).
#   start   KCSAN is on (its debugfs file says "enabled: 1"); prints its
#           counters as they are after boot
#   report  prints KCSAN's counters after the suites as "# COUNT kcsan_*"
#           lines, and a TAP line: KCSAN still enabled and watching (it
#           set up watchpoints during the suites)
# The races themselves are judged on the host, from the reports on the
# console (scripts/check-debug.sh): a report that involves the module
# fails the tier.
K=/sys/kernel/debug/kcsan
if [ ! -e $K ]; then
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
fi
if [ ! -r $K ]; then
	echo "not ok 1 - kcsan: $K missing (kernel without KCSAN?)"
	exit 1
fi
counter() { awk -v k="$1:" '$1 == k { print $2 }' $K; }
case $1 in
start)
	counter setup_watchpoints >/tmp/kcsan.start
	sed -n '1,12s/^/# kcsan at start: /p' $K
	if [ "$(counter enabled)" != 1 ]; then
		echo "not ok 1 - kcsan: not enabled"
		exit 1
	fi
	;;
report)
	sed -n '1,12s/^/# kcsan after the suites: /p' $K
	for c in data_races report_races races_unknown_origin assert_failures no_capacity \
		setup_watchpoints; do
		echo "# COUNT kcsan_$c $(counter $c)"
	done
	w0=$(cat /tmp/kcsan.start 2>/dev/null || echo 0)
	w1=$(counter setup_watchpoints)
	if [ "$(counter enabled)" = 1 ] && [ "${w1:-0}" -gt "$w0" ]; then
		echo "ok 1 - kcsan enabled through the suites ($((w1 - w0)) watchpoints set up)"
	else
		echo "not ok 1 - kcsan: enabled $(counter enabled), watchpoints $w0 -> $w1"
		exit 1
	fi
	;;
*)
	echo "usage: $0 start|report" >&2
	exit 2
	;;
esac
