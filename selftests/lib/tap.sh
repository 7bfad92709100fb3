# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# TAP for the shell tests (POSIX sh: busybox in the guests, dash or bash on
# the host), sourced by the guest suites (installed next to them in the
# guest's /selftests), the host's test_*.sh and scripts/test-*.sh. A
# test sources it, calls tap_tmpdir for its scratch directory T (which
# check writes into), reports with ok, not_ok, skip, check and expect,
# and ends with tap_done:
#
#	. "$(dirname "$0")/tap.sh"
#	tap_tmpdir
#	check "status" tdctl status
#	tap_done
n=0
fails=0
# The backend the suite loads: TD_BACKEND=bpf runs it on the BPF backend
# (guest_main.sh's second pass), module otherwise.
TD_BACKEND=${TD_BACKEND:-module}

# is_bpf: the suite runs on the BPF backend
is_bpf() {
	[ "$TD_BACKEND" = bpf ]
}

# bpf_atomics: the running kernel is Linux 5.12 or later, which has the
# BPF atomic instructions that the BPF backend's per-CPU rings and its
# overwrite mode need (before, one ring buffer shared by all CPUs). From
# the kernel's version, not from tdctl: the tests check tdctl's own probe.
bpf_atomics() {
	# shellcheck disable=SC2046 # split into the version's numbers
	set -- $(uname -r | sed 's/[^0-9]/ /g')
	[ "$1" -gt 5 ] || { [ "$1" -eq 5 ] && [ "$2" -ge 12 ]; }
}

# tap_tmpdir: T, the script's scratch directory, removed with what it
# holds when the script exits (an EXIT trap: a script that sets its own
# removes "$T" in it).
tap_tmpdir() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/td.XXXXXX") || exit 2
	trap 'rm -rf "$T"' EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# skip NAME REASON: a check that does not apply to this backend
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# ok NAME: a pass
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}

# not_ok NAME [FILE...]: a failure, with the first lines of each FILE
not_ok() {
	n=$((n + 1))
	fails=$((fails + 1))
	echo "not ok $n - $1"
	shift
	for f in "$@"; do
		[ -f "$f" ] && sed 's/^/#   /' "$f" | head -n 30
	done
	return 0
}

# check NAME COMMAND...: passes when COMMAND succeeds; its output is in
# $T/out and $T/err, shown on failure. Returns COMMAND's status.
check() {
	name=$1
	shift
	if "$@" >"$T/out" 2>"$T/err"; then
		ok "$name"
	else
		set -- $?
		not_ok "$name" "$T/out" "$T/err"
		return "$1"
	fi
}

# expect NAME CONDITION-STATUS FILES...: ok when the condition held
expect() {
	name=$1
	st=$2
	shift 2
	if [ "$st" -eq 0 ]; then ok "$name"; else not_ok "$name" "$@"; fi
}

# wait_get URL FILE: GET URL into FILE (wget), tried every 0.2 s, 100
# times at most, while a server starts; status 0 once it answered.
wait_get() {
	_wg_tries=0
	while ! wget -q -O "$2" "$1" 2>/dev/null; do
		_wg_tries=$((_wg_tries + 1))
		[ $_wg_tries -lt 100 ] || return 1
		sleep 0.2
	done
}

# tap_done: the plan line; the suite's exit status
tap_done() {
	echo "1..$n"
	[ $fails -eq 0 ]
}
