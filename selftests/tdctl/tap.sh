# SPDX-License-Identifier: GPL-2.0
# TAP helpers of the tdctl guest suites (busybox sh), sourced by
# tdctl_test.sh and tdctl_stat_test.sh, which set T (a scratch directory)
# before using check. Installed next to them in the guest's /selftests.
n=0
fails=0
# The backend the suite loads: TD_BACKEND=bpf runs it on the BPF backend
# (guest_main.sh's second pass), module otherwise.
TD_BACKEND=${TD_BACKEND:-module}
TD_LOAD="--backend $TD_BACKEND"

# is_bpf: the suite runs on the BPF backend
is_bpf() {
	[ "$TD_BACKEND" = bpf ]
}

# skip NAME REASON: a check that does not apply to this backend
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

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
}

# check NAME COMMAND...: passes when COMMAND succeeds; its output is in
# $T/out and $T/err
check() {
	name=$1
	shift
	if "$@" >"$T/out" 2>"$T/err"; then ok "$name"; else not_ok "$name" "$T/out" "$T/err"; fi
}

# expect NAME CONDITION-STATUS FILES...: ok when the condition held
expect() {
	name=$1
	st=$2
	shift 2
	if [ "$st" -eq 0 ]; then ok "$name"; else not_ok "$name" "$@"; fi
}

# tap_done: the plan line; the suite's exit status
tap_done() {
	echo "1..$n"
	[ $fails -eq 0 ]
}
