#!/usr/bin/env bash
# scripts/check-debug.sh [--kernel 6.1|6.12|6.12-kcsan]: the debug-kernel
# tier (what `make check-debug` runs), on all three debug kernels unless
# --kernel names one.
#
# For 6.1 and 6.12, builds (or takes from its cache outside the repository)
# a small x86-64 kernel from Debian's linux-source-6.1 / linux-source-6.12
# with lockdep (PROVE_LOCKING), DEBUG_ATOMIC_SLEEP, KASAN, KMEMLEAK and
# UBSAN (scripts/debug-kernel.sh), builds the module against it (W=1, no
# warning allowed), then boots it in
# QEMU with 4 vCPUs and runs the whole guest suite there: the tdctl end to
# end tests, the kselftests, the hostile-input tests, the fuzzer, CPU
# hotplug, the context-switch storm and 100 unload/reload rounds. Any
# lockdep, KASAN, UBSAN, sleeping-in-atomic or other splat on the console
# fails it, and so does a non-empty kmemleak scan after the suites.
#
# 6.12-kcsan does the same on the data-race detector's kernel
# (scripts/debug-kernel.sh --flavor kcsan: KCSAN, strict, which cannot be
# combined with KASAN): the module and the test modules are built with
# KCSAN's instrumentation, the same suites run, and every KCSAN report on
# the console is sorted: one where a racing access is the module's (the
# top frame of one of its stacks is in "[topdown]") fails the tier; those
# inside kernel functions the module called, and the core kernel's own,
# are counted and listed, not failed. Any other splat fails.
# Ends with "N passed, N failed". Logs: build/check-debug/.
#
# Environment: TD_DEBUG_KERNEL_CACHE (see scripts/debug-kernel.sh).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
SERIES_LIST=(6.1 6.12 6.12-kcsan)
case ${1:-} in
"") ;;
--kernel) SERIES_LIST=("${2:-}") ;;
--kernel=*) SERIES_LIST=("${1#*=}") ;;
*) echo "usage: scripts/check-debug.sh [--kernel 6.1|6.12|6.12-kcsan]" >&2; exit 2 ;;
esac
for s in "${SERIES_LIST[@]}"; do
    case $s in 6.1 | 6.12 | 6.12-kcsan) ;; *) echo "check-debug: unknown kernel '$s'" >&2; exit 2 ;; esac
done
LOGS=$ROOT/build/check-debug
rm -rf "$LOGS"
mkdir -p "$LOGS"
# pass, fail, step, tap, finish
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

echo "== dependencies"
step "dependencies" scripts/deps.sh || finish
# shellcheck source=/dev/null
. build/deps/env.sh

# kcsan_reports CONSOLE CLASS: the KCSAN reports of a console log of one
# class, a block each (from its "BUG: KCSAN:" line to the closing rule),
# timestamps cut, each report once. Classes: "module", a racing access in the module (the
# top frame of one of its stacks is in [topdown]); "via", the module only
# deeper in a stack (a race inside a kernel function the module called,
# whose other access the module did not make); "other", the rest.
kcsan_reports() {
    awk -v want="$2" '
        {
            line = $0; ts = ""
            if (match(line, /^\[ *[0-9]+\.[0-9]+\] ?/)) {
                ts = substr(line, 1, RLENGTH); line = substr(line, RLENGTH + 1)
            }
        }
        line ~ /BUG: KCSAN:/ { on = 1; key = ts line; blk = ""; mod = 0; via = 0; top = 0 }
        on && line ~ /^=+$/ {
            on = 0
            c = mod ? "module" : via ? "via" : "other"
            # A kernel log printed twice (dmesg) shows a report twice.
            if (c == want && !seen[key]++) printf "%s", blk
            next
        }
        on {
            blk = blk line "\n"
            if (top && line ~ /\[topdown\]/) mod = 1
            else if (line ~ /\[topdown\]/) via = 1
            top = line ~ / on cpu [0-9]+:$/
        }' "$1"
}

# debug_tier KERNEL: the whole tier on the debug kernel KERNEL (6.1, 6.12
# or 6.12-kcsan); returns non-zero when a step it cannot go on without
# failed.
debug_tier() {
    local S=$1 SERIES=${1%-kcsan} FLAVOR=kasan T0 KDIR KREL OUT B LOG CONSOLE rc n
    [ "$S" = "$SERIES" ] || FLAVOR=kcsan
    echo "== debug kernel $S"
    T0=$(date +%s)
    step "debug kernel $S builds (or is cached)" \
        scripts/debug-kernel.sh --kernel "$SERIES" --flavor "$FLAVOR" || return 1
    KDIR=$(scripts/debug-kernel.sh --kernel "$SERIES" --flavor "$FLAVOR" --print-dir)
    echo "    $KDIR ($(cat "$KDIR/kernelrelease"), $(($(date +%s) - T0)) s)"
    KREL=$(cat "$KDIR/kernelrelease")

    echo "== build ($S)"
    OUT=$ROOT/build/debug$([ "$S" = 6.1 ] || echo "-$S")
    B=$OUT/kmod-src
    rm -rf "$OUT"
    mkdir -p "$B" "$OUT/moddir"
    cp -a kmod/. "$B/"
    cp -a include "$B/include"
    # MODULE_VERSION, as scripts/kbuild.sh gives it (kmod/Kbuild reads it).
    "$ROOT/scripts/version.sh" >"$B/VERSION"
    find "$B" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' -o -name '.*.cmd' \
        -o -name modules.order -o -name Module.symvers \) -delete
    # kbuild_in DIR: build the module in DIR against the debug kernel; any
    # warning fails, as in scripts/kbuild.sh.
    kbuild_in() {
        local rc=0
        make -C "$KDIR/obj" M="$1" W=1 -j"$(nproc)" modules >"$1/kbuild.log" 2>&1 || rc=1
        cat "$1/kbuild.log"
        if grep -qi 'warning:' "$1/kbuild.log"; then
            echo "the build printed warnings (treated as errors)"
            rc=1
        fi
        return "$rc"
}
kbuild_debug() {
    kbuild_in "$B" && cp "$B/topdown.ko" "$OUT/topdown.ko"
}
step "module builds against the debug kernel $S, W=1, no warnings" kbuild_debug || return 1
for f in modules.builtin modules.builtin.modinfo modules.order; do
    if [ -f "$KDIR/obj/$f" ]; then cp "$KDIR/obj/$f" "$OUT/moddir/"; else : >"$OUT/moddir/$f"; fi
done
J=-j$(nproc)
step "tdctl x86_64 builds" make "$J" -C user ARCH=x86_64 || return 1
# The selftests into their own directory: its test-only modules (the
# simulated PMU) are rebuilt against the debug kernel below.
step "selftests x86_64 build" make "$J" -C selftests ARCH=x86_64 KSELFTEST_DIR="$KSELFTEST_DIR" \
    OUT="$OUT/selftests" || return 1
step "simulated PMU module builds against the debug kernel $S" \
    selftests/pmusim/build.sh --kdir "$KDIR/obj" x86_64 "$OUT/selftests" || return 1

# The KASAN kernels end with a kmemleak scan, the KCSAN kernel with its
# counters (its reports are sorted below, from the console).
local CHECK=kmemleak_check.sh IGNORE=
if [ $FLAVOR = kcsan ]; then
    CHECK=kcsan_check.sh IGNORE='BUG: KCSAN: '
fi
echo "== debug guest $S (4 vCPUs): every guest suite, then ${CHECK%_check.sh}"
LOG=$LOGS/guest-debug-$S.tap
CONSOLE=$LOGS/console-debug-$S.log
T0=$(date +%s)
# Timings stretch several times under KASAN and lockdep (or KCSAN): the
# reloads keep their count (100) with more time; the storm is smaller (300
# tasks), as 1000 runnable tasks starve the RCU grace-period kthread of
# this slow guest into an RCU stall warning (while STOP waits for a grace
# period).
# shellcheck disable=SC2016 # the guest's shell expands $rc
TD_KERNEL=$KDIR/obj/arch/x86/boot/bzImage TD_KREL=$KREL TD_MODDIR=$OUT/moddir \
    TD_MODULE=$OUT/topdown.ko TD_SELFTESTS_DIR=$OUT/selftests TD_SPLAT_IGNORE=$IGNORE \
    selftests/vm/run --arch x86_64 --smp 4 --mem 2048 --timeout 3600 --log "$CONSOLE" -- \
    sh -c "/selftests/$CHECK start; rc=0
        /selftests/guest_main.sh || rc=1
        TD_STORM_PAIRS=150 TD_RELOAD_SECS=1200 /selftests/guest_load.sh || rc=1
        /selftests/$CHECK report || rc=1
        exit \$rc" >"$LOG" 2>&1
rc=$?
echo "    guest ran $(($(date +%s) - T0)) s"
tap "debug guest $S" "$LOG"
if ! grep -qE '^(not )?ok [0-9]+' "$LOG"; then
    fail "debug guest $S: no test result at all (see ${LOG#"$ROOT"/})"
    tail -n 20 "$LOG" | sed 's/^/    /'
    rc=125
fi
case $rc in
124) fail "debug guest $S: kernel splat on the console (lockdep/KASAN/UBSAN/...; see ${CONSOLE#"$ROOT"/})"
     grep -E 'BUG:|WARNING:|Oops|Call Trace:|lockdep|circular|rcu|UBSAN|KASAN|panic' "$CONSOLE" |
         head -n 30 | sed 's/^/    /' ;;
125) fail "debug guest $S: did not finish (see ${CONSOLE#"$ROOT"/})" ;;
*) pass "debug guest $S: booted, ran every suite, console clean (no lockdep, KASAN, UBSAN splat)" ;;
esac
if [ $FLAVOR = kcsan ]; then
    for c in module via other; do
        kcsan_reports "$CONSOLE" $c >"$LOGS/kcsan-$c-$S.txt"
    done
    n=$(grep -c 'BUG: KCSAN:' "$LOGS/kcsan-via-$S.txt")
    echo "    KCSAN reports in kernel functions the module called: $n (${LOGS#"$ROOT"/}/kcsan-via-$S.txt)"
    grep 'BUG: KCSAN:' "$LOGS/kcsan-via-$S.txt" | sort | uniq -c | sed 's/^/    /'
    n=$(grep -c 'BUG: KCSAN:' "$LOGS/kcsan-other-$S.txt")
    echo "    KCSAN reports elsewhere in the kernel: $n (${LOGS#"$ROOT"/}/kcsan-other-$S.txt)"
    grep 'BUG: KCSAN:' "$LOGS/kcsan-other-$S.txt" | sort | uniq -c | sed 's/^/    /'
    n=$(grep -c 'BUG: KCSAN:' "$LOGS/kcsan-module-$S.txt")
    if [ "$n" = 0 ]; then
        pass "debug guest $S: no KCSAN report with a frame in the module"
    else
        fail "debug guest $S: $n KCSAN reports with a frame in the module (${LOGS#"$ROOT"/}/kcsan-module-$S.txt)"
        sed 's/^/    /' "$LOGS/kcsan-module-$S.txt" | head -n 60
    fi
fi
}

for S in "${SERIES_LIST[@]}"; do
    debug_tier "$S"
done
echo "== figures"
for S in "${SERIES_LIST[@]}"; do
    LOG=$LOGS/guest-debug-$S.tap
    [ -f "$LOG" ] || continue
    echo "  $S"
    awk '/^# COUNT / { s[$3] += $4 } END { for (k in s) printf "    %s %d\n", k, s[k] }' "$LOG" | sort
done
finish
