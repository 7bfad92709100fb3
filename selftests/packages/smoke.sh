#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The smoke suite of make check-packages (scripts/check-packages.sh): in a
# guest booted with the module that DKMS built from the topdown-dkms
# package and the tdctl of the tdctl package, what a user does first:
# load, look at the version, dump, stat a command, status, unload; then
# the commands of the package's topdown.service with settings as an
# administrator writes them in /etc/default/topdown. TAP.
# TD_VERSION: the packages' version. Needs /add/tap.sh (selftests/tdctl),
# and /add/topdown.service, /add/topdown (the packaged unit and
# /etc/default/topdown).
TDCTL=${TDCTL:-tdctl}
# ok, not_ok, check, tap_done, tap_tmpdir
# shellcheck source=selftests/lib/tap.sh
. /add/tap.sh
tap_tmpdir

echo "TAP version 13"
check "tdctl load: the module by name from /lib/modules" "$TDCTL" load
v=$(cat /sys/module/topdown/version 2>/dev/null)
[ -n "$v" ] && [ "$v" = "$TD_VERSION" ] && ok "the loaded module is the package's: $v" ||
	not_ok "the loaded module is the package's: '$v', want '$TD_VERSION'"
check "tdctl version" "$TDCTL" version
grep -q "^tdctl $TD_VERSION (ABI [0-9]*)$" "$T/out" &&
	grep -q "^module $TD_VERSION (ABI [0-9]*)$" "$T/out" &&
	ok "tdctl version: tdctl and module $TD_VERSION" ||
	not_ok "tdctl version: tdctl and module $TD_VERSION" "$T/out"

# Context switches to record.
i=0
while [ $i -lt 20 ]; do
	sh -c 'usleep 1000; :'
	i=$((i + 1))
done
check "tdctl dump" "$TDCTL" dump
lines=$(wc -l <"$T/out")
[ "$lines" -gt 5 ] && ok "tdctl dump: $lines lines of slices" ||
	not_ok "tdctl dump: slices" "$T/out"
check "tdctl stat -- true" "$TDCTL" stat -- true
grep -q "true" "$T/out" && ok "tdctl stat -- true: a row for true" ||
	not_ok "tdctl stat -- true: a row for true" "$T/out"
check "tdctl status" "$TDCTL" status
grep -q "^state: *running" "$T/out" && grep -q "^version: *tdctl $TD_VERSION (ABI [0-9]*), module $TD_VERSION$" "$T/out" &&
	ok "tdctl status: running, both versions" || not_ok "tdctl status: running, both versions" "$T/out"
check "tdctl unload" "$TDCTL" unload
[ ! -e /sys/module/topdown ] && ok "module removed" || not_ok "module removed"

# topdown.service: ExecStart and ExecStop as systemd runs them ($VAR
# split into words), TDCTL_LOAD_ARGS from the packaged settings file,
# then as an administrator sets it.
start=$(sed -n 's/^ExecStart=//p' /add/topdown.service)
stop=$(sed -n 's/^ExecStop=//p' /add/topdown.service)
TDCTL_LOAD_ARGS='unset'
# shellcheck source=/dev/null # the package's /etc/default/topdown
. /add/topdown
[ -n "$start" ] && [ -n "$stop" ] && [ -z "$TDCTL_LOAD_ARGS" ] &&
	ok "topdown.service: ExecStart, ExecStop; /etc/default/topdown sets TDCTL_LOAD_ARGS=\"\"" ||
	not_ok "topdown.service: ExecStart '$start', ExecStop '$stop', TDCTL_LOAD_ARGS '$TDCTL_LOAD_ARGS'"
TDCTL_LOAD_ARGS="--ring-size 1048576 --overwrite"
eval "set -- $start"
check "ExecStart with TDCTL_LOAD_ARGS=\"$TDCTL_LOAD_ARGS\": $*" "$@"
"$TDCTL" status >"$T/out" 2>&1
grep -q "^ring: *1048576 bytes per CPU .*overwrite oldest" "$T/out" &&
	ok "the service's collection has the configured ring and overflow" ||
	not_ok "the service's collection has the configured ring and overflow" "$T/out"
eval "set -- $stop"
check "ExecStop: $*" "$@"
[ ! -e /sys/module/topdown ] && ok "ExecStop removed the module" ||
	not_ok "ExecStop removed the module"
tap_done
