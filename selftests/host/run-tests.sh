#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# run-tests.sh JOBS TEST...: run the host tests TEST (test_NAME, the
# program built into $OUT, or test_NAME.sh or test_NAME.py of this
# folder), JOBS at a time (make test's fast tier: selftests/host/Makefile,
# run-fast). Each test's TAP is printed whole, in the order given, once
# all have run; then a line with the count, the failures, the time and
# the CPU time the tests took, and one with the five longest tests (wall
# and CPU seconds: a test whose CPU time is far below its wall time
# mostly waits). Exits 1 if a test failed. Environment: OUT and TOP,
# passed on to the tests; WAITING, names among the TESTs that mostly
# wait (on a server, a timer): each starts at once beside the JOBS
# others, so that a CPU is not held by a test that sleeps.
#
# The tests that run the reader benchmark's rdbench make it first (make
# reader, selftests/bench), which links it only when out of date: the
# Makefile makes it before the tests run, so none rewrites it under
# another.
if [ "${1:-}" = --one ]; then
	# --one DIR TEST: one test, its output in DIR/TEST.tap, status in
	# DIR/TEST.rc
	dir=$2 t=$3
	case $t in
	*.sh) set -- sh "./$t" ;;
	*.py) set -- env PYTHONPATH=../lib python3 "./$t" ;;
	*) set -- "$OUT$t" ;;
	esac
	s=$(date +%s.%N)
	"$@" >"$dir/$t.tap" 2>&1
	echo $? >"$dir/$t.rc"
	# wall seconds, then the test's user + system seconds: "times" (in
	# this shell, not a subshell) prints the shell's, then its children's
	# as "0m1.25s 0m0.50s"
	times >"$dir/$t.cpu"
	awk -v w="$(date +%s.%N) $s" '
		NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); c += a[1] * 60 + a[2] } }
		END { split(w, t, " "); printf "%.1f %.1f\n", t[1] - t[2], c }' "$dir/$t.cpu" >"$dir/$t.time"
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
for t in ${WAITING:-}; do
	sh ./run-tests.sh --one "$dir" "$t" &
done
for t in "$@"; do
	case " ${WAITING:-} " in
	*" $t "*) ;;
	*) echo "$t" ;;
	esac
done | xargs -P "$jobs" -I{} sh ./run-tests.sh --one "$dir" {}
wait
failed=
for t in "$@"; do
	cat "$dir/$t.tap"
	[ "$(cat "$dir/$t.rc" 2>/dev/null)" = 0 ] || failed="$failed $t"
done
cpu=$(cat "$dir"/*.time 2>/dev/null | awk '{ c += $2 } END { printf "%.0f", c }')
echo "# host tests: $# run, $jobs at a time, in $(($(date +%s) - t0)) s (CPU $cpu s);" \
	"failed:${failed:- none}"
for t in "$@"; do
	echo "$(cat "$dir/$t.time" 2>/dev/null) $t"
done | sort -rn | head -n 5 | awk '{ l = l sep $3 " " $1 " s (CPU " $2 ")"; sep = ", " }
	END { print "# the longest: " l }'
[ -z "$failed" ]
