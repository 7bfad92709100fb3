#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unload/reload the module TD_RELOADS times (default 100, at most
# TD_RELOAD_SECS seconds, default 240) with collection running in between:
# each round loads and starts it (tdctl load), lets tasks switch, reads the
# status, now and then dumps records, then unloads it while it is running,
# alternately with a plain rmmod (the module stops itself) and tdctl unload.
# Every third round keeps totals in the kernel (load --totals) and reads
# them (status) before the unload: a pool to free with the module.
# TAP output; "# COUNT reloads N".
N=${TD_RELOADS:-100}
SECS=${TD_RELOAD_SECS:-240}
t0=$(date +%s)
i=0 bad=0 dumps=0 records=0 totals=0
# shellcheck source=selftests/lib/tap.sh
. "$(dirname "$0")/tap.sh"
tap_tmpdir
echo "TAP version 13"
rmmod topdown 2>/dev/null
while [ $i -lt "$N" ] && [ $(($(date +%s) - t0)) -lt "$SECS" ]; do
	opts=
	[ $((i % 3)) = 2 ] && opts=--totals
	# shellcheck disable=SC2086 # no option or one word
	if ! tdctl load $opts >"$T/reload.out" 2>&1; then
		echo "# round $i: tdctl load failed:"
		sed 's/^/#   /' "$T/reload.out"
		bad=$((bad + 1))
		rmmod topdown 2>/dev/null
		i=$((i + 1))
		continue
	fi
	# Some context switches while it runs.
	for _ in 1 2 3; do sleep 0.01; done
	if ! tdctl status >"$T/status" 2>"$T/reload.err"; then
		echo "# round $i: tdctl status failed: $(cat "$T/reload.err")"
		bad=$((bad + 1))
	elif [ -n "$opts" ]; then
		if grep -q "^totals: *in the kernel, [1-9][0-9]* of" "$T/status"; then
			totals=$((totals + 1))
		else
			echo "# round $i: no task entry in the totals:"
			sed 's/^/#   /' "$T/status"
			bad=$((bad + 1))
		fi
	fi
	if [ $((i % 10)) = 0 ]; then
		lines=$(tdctl dump 2>/dev/null | wc -l)
		records=$((records + lines))
		dumps=$((dumps + 1))
	fi
	if [ $((i % 2)) = 0 ]; then
		rmmod topdown || bad=$((bad + 1))
	else
		tdctl unload >/dev/null || bad=$((bad + 1))
	fi
	if grep -q '^topdown ' /proc/modules; then
		echo "# round $i: module still loaded"
		bad=$((bad + 1))
		rmmod topdown 2>/dev/null
	fi
	i=$((i + 1))
done
el=$(($(date +%s) - t0))
if [ $bad = 0 ] && [ $i -gt 0 ]; then
	ok "$i load/start/unload rounds in ${el}s, collection running at each unload ($totals with totals in use)"
else
	not_ok "$i load/start/unload rounds in ${el}s: $bad failures"
fi
if [ $dumps -gt 0 ] && [ $records -gt 0 ]; then
	ok "records readable after reloads ($records dump lines in $dumps dumps)"
else
	not_ok "no records dumped after reloads ($dumps dumps)"
fi
# Finally the module loads and unloads cleanly once more.
if modprobe topdown && rmmod topdown; then
	ok "module loads and unloads cleanly after $i rounds"
else
	not_ok "module does not load/unload cleanly after $i rounds"
fi
echo "# COUNT reloads $i"
tap_done
