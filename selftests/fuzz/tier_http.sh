#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# selftests/fuzz/tier_http.sh: the HTTP tier (make fuzz-http), serve's
# outside input fuzzed hard:
#   1. libFuzzer (ASan, UBSan, leak detection at exit and every input
#      checked against a timeout of 5 s) runs FUZZ_RUNS executions of the
#      request path (fuzz_http) and of the web configuration parser
#      (fuzz_webcfg), from the committed seeds;
#   2. AFL++ (afl-clang-fast, ASan, persistent mode through AFL++'s
#      libFuzzer driver) fuzzes each for AFL_SECONDS.
# Any crash, leak, timeout or hang fails it. Figures (executions, time,
# executions per second, coverage) in $OUT/tier-http.txt; new inputs stay
# in $OUT (merge the interesting ones into corpus-http/, corpus-webcfg/).
# TIER_TARGETS (http webcfg) and TIER_ENGINES (libfuzzer afl) choose a
# part, to resume one that was stopped.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:?}
FUZZ_RUNS=${FUZZ_RUNS:-10000000}
AFL_SECONDS=${AFL_SECONDS:-300}
TIER_TARGETS=${TIER_TARGETS:-http webcfg}
TIER_ENGINES=${TIER_ENGINES:-libfuzzer afl}
REPORT=$OUT/tier-http.txt
: >"$REPORT"
fail=0

say() { printf '%s\n' "$*" | tee -a "$REPORT"; }

for t in $TIER_TARGETS; do
    [[ " $TIER_ENGINES " == *" libfuzzer "* ]] || break
    case $t in http) maxlen=9000 ;; *) maxlen=4096 ;; esac
    work=$OUT/tier-$t
    rm -rf "$work"
    mkdir -p "$work/corpus"
    cp "$HERE/corpus-$t"/* "$work/corpus/"
    t0=$(date +%s)
    if (cd "$work" && "$OUT/fuzz_$t" -runs="$FUZZ_RUNS" -max_len=$maxlen \
        -timeout=5 -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1 \
        corpus) >"$work/libfuzzer.log" 2>&1; then
        rc=0
    else
        rc=$?
    fi
    t1=$(date +%s)
    execs=$(awk '/stat::number_of_executed_units:/ { print $2 }' "$work/libfuzzer.log")
    cov=$(grep -o 'cov: [0-9]*' "$work/libfuzzer.log" | tail -n 1 || true)
    if [ "$rc" != 0 ] || [ "${execs:-0}" -lt "$FUZZ_RUNS" ]; then
        say "libFuzzer $t: FAILED (exit $rc, ${execs:-0} executions); log: $work/libfuzzer.log"
        grep -E 'ERROR|SUMMARY|timeout|leak' "$work/libfuzzer.log" | head -n 20 | tee -a "$REPORT"
        fail=1
    else
        s=$((t1 - t0))
        say "libFuzzer $t: $execs executions in ${s} s ($((execs / (s ? s : 1)))/s), no crash, leak or timeout; $cov, $(find "$work/corpus" -type f | wc -l) inputs in the corpus"
    fi
done

[[ " $TIER_ENGINES " == *" afl "* ]] || exit $fail
if ! command -v afl-fuzz >/dev/null; then
    say "AFL++: not installed (scripts/deps.sh installs afl++)"
    exit 1
fi
for t in $TIER_TARGETS; do
    work=$OUT/tier-afl-$t
    rm -rf "$work"
    mkdir -p "$work"
    # A shared build machine: no CPU binding, no frequency or core-dump
    # checks; ASan's own leak check stays on.
    if AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_SKIP_CPUFREQ=1 \
        AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_QUIET=1 \
        ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=1 \
        afl-fuzz -V "$AFL_SECONDS" -t 5000 -m none -i "$HERE/corpus-$t" \
        -o "$work/out" -- "$OUT/afl_$t" >"$work/afl.log" 2>&1; then
        rc=0
    else
        rc=$?
    fi
    st=$work/out/default/fuzzer_stats
    execs=$(awk -F' *: *' '$1 == "execs_done" { print $2 }' "$st" 2>/dev/null || true)
    crashes=$(find "$work/out/default/crashes" -type f -name 'id:*' 2>/dev/null | wc -l)
    hangs=$(find "$work/out/default/hangs" -type f -name 'id:*' 2>/dev/null | wc -l)
    edges=$(awk -F' *: *' '$1 == "edges_found" { print $2 }' "$st" 2>/dev/null || true)
    if [ "$rc" != 0 ] || [ -z "$execs" ] || [ "$crashes" != 0 ] || [ "$hangs" != 0 ]; then
        say "AFL++ $t: FAILED (exit $rc, ${execs:-?} executions, $crashes crashes, $hangs hangs); log: $work/afl.log"
        tail -n 20 "$work/afl.log" | tee -a "$REPORT"
        fail=1
    else
        say "AFL++ $t: $execs executions in $AFL_SECONDS s, no crash or hang; $edges edges"
    fi
done
exit $fail
