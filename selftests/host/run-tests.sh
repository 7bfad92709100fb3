#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# run-tests.sh JOBS TEST...: run the host tests TEST (test_NAME, the
# program built into $OUT, or test_NAME.sh or test_NAME.py of this
# folder), JOBS at a time (make test's fast tier: selftests/host/Makefile,
# run-fast). Each test's TAP is printed whole, in the order given, once
# all have run; then a line with the count, the failures and the time,
# and one with the five longest tests.
# Exits 1 if a test failed. Environment: OUT and TOP, passed on to the
# tests.
#
# The tests that build and run the reader benchmark's rdbench (their
# source names selftests/bench) take turns (flock): its make relinks it
# every time.
if [ "${1:-}" = --one ]; then
	# --one DIR TEST: one test, its output in DIR/TEST.tap, status in
	# DIR/TEST.rc
	dir=$2 t=$3
	case $t in
	*.sh) set -- sh "./$t" ;;
	*.py) set -- env PYTHONPATH=../lib python3 "./$t" ;;
	*) set -- "$OUT$t" ;;
	esac
	case $t in
	*.sh | *.py) grep -q selftests/bench "$t" && set -- flock "$dir/rdbench.lock" "$@" ;;
	esac
	s=$(date +%s.%N)
	"$@" >"$dir/$t.tap" 2>&1
	echo $? >"$dir/$t.rc"
	echo "$(date +%s.%N) $s" | awk '{ printf "%.1f\n", $1 - $2 }' >"$dir/$t.time"
	exit 0
fi
cd "$(dirname "$0")" || exit 2
jobs=$1
shift
: "${OUT:?}" "${TOP:?}"
export OUT TOP
dir=${OUT}tap
rm -rf "$dir"
mkdir -p "$dir"
t0=$(date +%s)
printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh ./run-tests.sh --one "$dir" {}
failed=
for t in "$@"; do
	cat "$dir/$t.tap"
	[ "$(cat "$dir/$t.rc" 2>/dev/null)" = 0 ] || failed="$failed $t"
done
echo "# host tests: $# run, $jobs at a time, in $(($(date +%s) - t0)) s; failed:${failed:- none}"
for t in "$@"; do
	echo "$(cat "$dir/$t.time" 2>/dev/null) $t"
done | sort -rn | head -n 5 | awk '{ l = l sep $2 " " $1 " s"; sep = ", " }
	END { print "# the longest: " l }'
[ -z "$failed" ]
