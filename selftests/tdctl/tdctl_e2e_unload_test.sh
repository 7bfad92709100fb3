#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tdctl end to end (busybox sh, as root, in a guest; TAP): unload leaves
# nothing behind, reloads work, load and unload in CSV and JSON.
# shellcheck source=selftests/tdctl/tdctl_e2e_common.sh
. "$(dirname "$0")/tdctl_e2e_common.sh"

echo "TAP version 13"

picked=$(picked_set)
check "load" "$TDCTL" load --backend "$TD_BACKEND"
# Unload: stops, removes, leaves nothing.
check "unload" "$TDCTL" unload
[ ! -e /sys/module/topdown ] && ok "module gone after unload" ||
	not_ok "module gone after unload"
[ ! -e /dev/topdown ] && ok "/dev/topdown gone after unload" ||
	not_ok "/dev/topdown gone after unload"
[ ! -e /sys/fs/bpf/topdown ] && ok "BPF pins gone after unload" ||
	not_ok "BPF pins gone after unload"
# Reload and unload again, twice: nothing left behind blocks it. With
# --csv, then --json: the same fields.
check "reload (--csv)" "$TDCTL" --csv load --backend "$TD_BACKEND"
cp "$T/out" "$T/load.csv"
head -n 1 "$T/load.csv" | grep -qx 'set,why,label,events,no_counter,backend' &&
	[ "$(wc -l <"$T/load.csv")" -eq 2 ] && grep -q "^\"$picked\",.*,\"$TD_BACKEND\"\$" "$T/load.csv"
expect "load --csv: the header and one row with the set ($picked) and backend ($TD_BACKEND)" $? "$T/load.csv"
check "unload again (--csv)" "$TDCTL" --csv unload
cp "$T/out" "$T/unload.csv"
[ "$(cat "$T/unload.csv")" = "$(printf 'unloaded\ntrue')" ]
expect "unload --csv: unloaded, true" $? "$T/unload.csv"
check "reload (--json)" "$TDCTL" --json load --backend "$TD_BACKEND"
cp "$T/out" "$T/load.json"
check "unload again (--json)" "$TDCTL" --json unload
cp "$T/out" "$T/unload.json"
csvjson load "$T/load.csv" "$T/load.json"
csvjson unload "$T/unload.csv" "$T/unload.json"

e2e_done
