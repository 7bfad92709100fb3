#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test of tdctl serve with the real module (busybox sh, as root):
# the exporter reads the rings while a workload runs in a cgroup of its
# own, and its /metrics (fetched with busybox wget on the loopback
# address) must show the collection running, that cgroup by its path
# with slices, run time and each event's count, as many slices in all as
# records read, and OpenMetrics with "# EOF" when asked; while serve runs
# it is the rings' one reader (tdctl stat is refused), and it exits
# cleanly on SIGTERM. Once the rings are open serve runs as uid and gid
# 65534 (--user; the guest has no passwd) with no capability in any set
# and no_new_privs, read from /proc/PID/status; with --web.config.file's
# basic_auth_users (bcrypt through the guest's libcrypt) it refuses a
# scrape without the password and answers one with it. Started while
# another reader holds the rings, serve reports the collection's state
# (topdown_up 0), and on the BPF backend sees it unloaded. Prints TAP.
# The module must not be loaded at the start.
TDCTL=${TDCTL:-tdctl}
# ok, not_ok, check, expect, tap_done
# shellcheck source=selftests/lib/tap.sh
. "$(dirname "$0")/tap.sh"
tap_tmpdir
PORT=10642
URL=http://127.0.0.1:$PORT/metrics

# A kernel without networking (the debug tier's tinyconfig kernel has no
# CONFIG_NET) has no sockets to serve on.
if [ ! -d /proc/net ]; then
	ok "tdctl serve # SKIP no networking in this kernel (no /proc/net, CONFIG_NET off)"
	tap_done
	exit
fi
ifconfig lo 127.0.0.1 up 2>/dev/null
check "tdctl load" "$TDCTL" load --backend "$TD_BACKEND"
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -z "$CG" ]; then
	CG=/sys/fs/cgroup
	mount -t cgroup2 none "$CG"
fi
mkdir -p "$CG/td_serve_test"

# While another reader holds the rings: up 0, and the module's state.
"$TDCTL" dump --follow --duration 30 >/dev/null 2>&1 &
DP=$!
sleep 1
"$TDCTL" serve --listen 127.0.0.1:$PORT --user 65534:65534 --duration 30 >"$T/serve.out" 2>&1 &
SP=$!
wait_get "$URL" "$T/m0"
grep -q '^topdown_up 0$' "$T/m0" &&
	grep -q '^topdown_module_state{state="running"} 1$' "$T/m0" &&
	grep -q "another reader" "$T/serve.out"
expect "another reader holds the rings: topdown_up 0, state running" $? "$T/m0" "$T/serve.out"
kill -TERM $DP
wait $DP
# The collection goes while serve, unprivileged, is not its reader: the
# BPF backend's pins are root's, yet serve sees the state change.
if is_bpf; then
	"$TDCTL" unload >"$T/out" 2>&1 && wget -q -O "$T/m0" "$URL" 2>>"$T/out" &&
		grep -q '^topdown_module_state{state="unloaded"} 1$' "$T/m0"
	expect "the backend unloaded under serve: state unloaded" $? "$T/m0" "$T/out"
	check "tdctl load again" "$TDCTL" load --backend "$TD_BACKEND"
else
	skip "the backend unloaded under serve: state unloaded" \
		"serve keeps /dev/topdown open to ask its state: the module stays"
	skip "tdctl load again" "nothing was unloaded"
fi
kill -TERM $SP
wait $SP

"$TDCTL" serve --listen 127.0.0.1:$PORT --user 65534:65534 --duration 120 >"$T/serve.out" 2>&1 &
SP=$!
wait_get "$URL" "$T/m0"
expect "serve answers on 127.0.0.1:$PORT" $? "$T/serve.out"
awk '$1 == "Uid:" || $1 == "Gid:" { if ($2 != 65534 || $3 != 65534 || $4 != 65534 || $5 != 65534) bad = 1 }
	$1 ~ /^Cap(Inh|Prm|Eff|Bnd|Amb):$/ { n++; if ($2 != "0000000000000000") bad = 1 }
	$1 == "NoNewPrivs:" { nnp = $2 }
	END { exit !(n == 5 && nnp == 1 && !bad) }' "/proc/$SP/status"
expect "serving, it is uid/gid 65534 with no capability and no_new_privs" $? "/proc/$SP/status"

# The workload, in its cgroup: a shell loop, then it exits (its last
# slice is written when it leaves the CPU).
sh -c 'echo $$ >'"$CG/td_serve_test/cgroup.procs"'
	i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done'
sleep 1
wget -q -O "$T/m" "$URL" 2>"$T/err"
expect "GET /metrics" $? "$T/err"

grep -q '^topdown_up 1$' "$T/m"
expect "topdown_up 1" $? "$T/m"
grep -q '^topdown_module_state{state="running"} 1$' "$T/m"
expect "module state running" $? "$T/m"
slices=$(awk '/^topdown_slices_total\{cgroup="\/td_serve_test"\}/ { print $2 }' "$T/m")
[ "${slices:-0}" -ge 1 ]
expect "the workload's cgroup by its path: ${slices:-0} slices" $? "$T/m"
awk '/^topdown_run_seconds_total\{cgroup="\/td_serve_test"\}/ { found = $2 > 0 }
	END { exit !found }' "$T/m"
expect "the workload's run time" $? "$T/m"
nev=$(grep '^topdown_events_total{' "$T/m" | sed 's/.*event="\([^"]*\)".*/\1/' | sort -u | wc -l)
cnt=$(grep -c '^topdown_events_total{.*cgroup="/td_serve_test"}' "$T/m")
[ "$cnt" -ge 1 ] && [ "$cnt" -eq "$nev" ]
expect "a count per event for the cgroup ($cnt of $nev)" $? "$T/m"
awk '/^topdown_slices_total\{/ { s += $2 } /^topdown_records_total / { r = $2 }
	END { exit !(s == r && r > 0) }' "$T/m"
expect "slices of all groups = records read" $? "$T/m"

wget -q -O "$T/om" --header 'Accept: application/openmetrics-text; version=1.0.0' \
	"$URL" 2>"$T/err"
[ "$(tail -n 1 "$T/om")" = "# EOF" ] && grep -q '^# TYPE topdown_events counter$' "$T/om"
expect "OpenMetrics when asked (# EOF, family names)" $? "$T/om" "$T/err"

! "$TDCTL" stat -a --duration 0.1 >"$T/out" 2>"$T/err" && grep -q "another reader" "$T/err"
expect "while serve runs, it is the only reader (stat refused)" $? "$T/err"

kill -TERM $SP
wait $SP
expect "serve exits 0 on SIGTERM" $? "$T/serve.out"
# Basic authentication: the hash is bcrypt (cost 4) of "secret".
cat >"$T/web.yml" <<'EOF'
basic_auth_users:
  prom: $2b$04$h.oAUvs/p5Y3MmRH.E5bZeXLqlUXBVtzgepkiOcu8m04D8Zur8PLO
EOF
"$TDCTL" serve --listen 127.0.0.1:$PORT --user 65534:65534 --web.config.file "$T/web.yml" \
	--duration 60 >"$T/serve.out" 2>&1 &
SP=$!
wait_get "http://prom:secret@127.0.0.1:$PORT/metrics" "$T/m1"
grep -q '^topdown_up 1$' "$T/m1"
expect "basic auth: the right password is served" $? "$T/m1" "$T/serve.out"
! wget -q -O "$T/m2" "$URL" 2>"$T/err" && ! wget -q -O "$T/m2" "http://prom:wrong@127.0.0.1:$PORT/metrics" 2>>"$T/err"
expect "basic auth: no password and a wrong one are refused" $? "$T/err"
kill -TERM $SP
wait $SP
check "tdctl unload" "$TDCTL" unload
rmdir "$CG/td_serve_test" 2>/dev/null
tap_done
