#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tdctl end to end (busybox sh, as root, in a guest; TAP): list picks a
# set, load uses it, a second load is refused, status in every format,
# the versions of tdctl and the module.
# shellcheck source=selftests/tdctl/tdctl_e2e_common.sh
. "$(dirname "$0")/tdctl_e2e_common.sh"

echo "TAP version 13"

# tdctl list names the set it would pick, and why; load then uses it.
check "list" "$TDCTL" list
picked=$(sed -n 's/^Using \([a-z0-9_]*\): .*/\1/p' "$T/out")
[ -n "$picked" ] && ok "list picks a set: $picked" || not_ok "list says which set it uses" "$T/out"
echo "# $(grep '^Using' "$T/out")"

# Load by name through libkmod, default event set (the ring size of
# tdctl_e2e_dump_test.sh).
check "load" "$TDCTL" load --backend "$TD_BACKEND" --ring-size 1048576
grep -q "collecting with event set '$picked'" "$T/out" && ok "load uses the set list picked" ||
	not_ok "load uses the set list picked ($picked)" "$T/out"
if is_bpf; then
	[ -e /sys/fs/bpf/topdown/link ] && [ ! -e /sys/module/topdown ] &&
		ok "BPF backend pinned in /sys/fs/bpf/topdown, no module" ||
		not_ok "BPF backend pinned in /sys/fs/bpf/topdown, no module"
	skip "/dev/topdown mode 0600" "no device with the BPF backend"
else
	[ -c /dev/topdown ] && ok "/dev/topdown exists" || not_ok "/dev/topdown exists"
	mode=$(stat -c %a /dev/topdown 2>/dev/null)
	[ "$mode" = 600 ] && ok "/dev/topdown mode 0600" || not_ok "/dev/topdown mode is $mode"
fi

# Loading again while running is refused, with either backend.
for b in module bpf; do
	if "$TDCTL" load --backend "$b" >"$T/out" 2>"$T/err"; then
		not_ok "second load ($b) refused" "$T/out"
	else
		grep -q "already running" "$T/err" && ok "second load ($b) refused: already running" ||
			not_ok "second load ($b) says already running" "$T/err"
	fi
done

workload

# status
check "status" "$TDCTL" status
grep -q "^state: *running" "$T/out" && ok "status shows running" ||
	not_ok "status shows running" "$T/out"
check "status --json" "$TDCTL" --json status
grep -q '"state":"running"' "$T/out" && ok "status --json state" ||
	not_ok "status --json state" "$T/out"
cp "$T/out" "$T/status.json"
if is_bpf; then
	grep -q '"backend":"bpf","differences":\["' "$T/status.json" &&
		ok "status --json: backend bpf and its differences" ||
		not_ok "status --json: backend bpf and its differences" "$T/status.json"
	"$TDCTL" status >"$T/out" 2>&1
	# Per-CPU rings from Linux 5.12 on, else the shared ring buffer.
	if bpf_atomics; then
		grep -q "^  - per-CPU rings as the module's" "$T/out" &&
			grep -q "^ring: *[0-9]* bytes per CPU" "$T/out"
	else
		grep -q "^  - one ring buffer shared by all CPUs" "$T/out" &&
			grep -q "^  - no overwrite mode" "$T/out" &&
			grep -q "^ring: *one BPF ring buffer shared by all CPUs" "$T/out"
	fi && grep -q "^backend: *bpf" "$T/out" && grep -q "^  - no resident process" "$T/out" &&
		ok "status: the backend, its ring layout on $(uname -r), what it does differently" ||
		not_ok "status: the backend, its ring layout on $(uname -r), what it does differently" "$T/out"
else
	grep -q '"backend":"module",' "$T/status.json" &&
		ok "status --json: backend module" ||
		not_ok "status --json: backend module" "$T/status.json"
fi
# Versions: the module and tdctl come from the same tree, so the module's
# MODULE_VERSION (sysfs) is tdctl's; --version, version and status show both.
if is_bpf; then
	for c in "module version is tdctl's" "--version: the module's version and ABI" \
		 "version --json: both versions and ABIs" \
		 "status --json: tdctl_version, tdctl_abi_version, module_version" \
		 "status: the version line"; do
		skip "$c" "no module with the BPF backend"
	done
else
modver=$(cat /sys/module/topdown/version 2>/dev/null)
tdver=$("$TDCTL" --version | sed -n '1s/^tdctl \([^ ]*\) (ABI [0-9]*)$/\1/p')
[ -n "$modver" ] && [ "$modver" = "$tdver" ] &&
	ok "module version '$modver' is tdctl's" ||
	not_ok "module version '$modver' is tdctl's ('$tdver')"
"$TDCTL" --version >"$T/out" 2>&1
abi=$(sed -n 's/^tdctl .* (ABI \([0-9]*\))$/\1/p' "$T/out")
grep -qx "module $modver (ABI $abi)" "$T/out" &&
	ok "--version: the module's version and ABI" ||
	not_ok "--version: the module's version and ABI" "$T/out"
check "version --json" "$TDCTL" --json version
grep -q "\"tdctl_version\":\"$tdver\",\"abi_version\":$abi,\"module_version\":\"$modver\",\"module_abi_version\":$abi" "$T/out" &&
	ok "version --json: both versions and ABIs" ||
	not_ok "version --json: both versions and ABIs" "$T/out"
grep -q "\"tdctl_version\":\"$tdver\",\"tdctl_abi_version\":$abi,\"module_version\":\"$modver\"" "$T/status.json" &&
	ok "status --json: tdctl_version, tdctl_abi_version, module_version" ||
	not_ok "status --json: tdctl_version, tdctl_abi_version, module_version" "$T/status.json"
"$TDCTL" status >"$T/out" 2>&1
grep -qx "version: *tdctl $tdver (ABI $abi), module $modver" "$T/out" &&
	ok "status: the version line" || not_ok "status: the version line" "$T/out"
fi
check "status --csv" "$TDCTL" --csv status
cp "$T/out" "$T/status.csv"
rows=$(tail -n +2 "$T/status.csv" | grep -c '^"running",')
ncpu=$(grep -o '"cpu":' "$T/status.json" | wc -l)
head -n 1 "$T/status.csv" | grep -qx 'state,abi_version,record_size,nr_cpus,reader,start_ns,stop_ns,last_error,label,ring_size,watermark,overflow,cpu,online,counting,records,lost,read_errors,probe_count,probe_ns,probe_ns_mean,event_states,recoveries,retries,retry_delay_ms,backend' &&
	[ "$rows" -ge 1 ] && [ "$rows" -eq "$ncpu" ] &&
	[ "$(wc -l <"$T/status.csv")" -eq $((rows + 1)) ]
expect "status --csv: the header, one running row per CPU ($rows, JSON has $ncpu)" $? "$T/status.csv"
csvjson status "$T/status.csv" "$T/status.json"

check "unload" "$TDCTL" unload

e2e_done
