#!/usr/bin/env bash
# scripts/check-debug.sh [--kernel 6.1|6.12]: the debug-kernel tier (what
# `make check-debug` runs), on both kernel series unless --kernel names one.
#
# For each series, builds (or takes from its cache outside the repository)
# a small x86-64 kernel from Debian's linux-source-6.1 / linux-source-6.12
# with lockdep (PROVE_LOCKING), DEBUG_ATOMIC_SLEEP, KASAN, KMEMLEAK and
# UBSAN (scripts/debug-kernel.sh), builds the module against it (W=1, no
# warning allowed), then boots it in
# QEMU with 4 vCPUs and runs the whole guest suite there: the tdctl end to
# end tests, the kselftests, the hostile-input tests, the fuzzer, CPU
# hotplug, the context-switch storm and 100 unload/reload rounds. Any
# lockdep, KASAN, UBSAN, sleeping-in-atomic or other splat on the console
# fails it, and so does a non-empty kmemleak scan after the suites.
# Ends with "N passed, N failed". Logs: build/check-debug/.
#
# Environment: TD_DEBUG_KERNEL_CACHE (see scripts/debug-kernel.sh).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
SERIES_LIST=(6.1 6.12)
case ${1:-} in
"") ;;
--kernel) SERIES_LIST=("${2:-}") ;;
--kernel=*) SERIES_LIST=("${1#*=}") ;;
*) echo "usage: scripts/check-debug.sh [--kernel 6.1|6.12]" >&2; exit 2 ;;
esac
for s in "${SERIES_LIST[@]}"; do
    case $s in 6.1 | 6.12) ;; *) echo "check-debug: unknown kernel series '$s'" >&2; exit 2 ;; esac
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

# debug_tier SERIES: the whole tier on the debug kernel of SERIES; returns
# non-zero when a step it cannot go on without failed.
debug_tier() {
    local S=$1 T0 KDIR KREL OUT B LOG CONSOLE rc
    echo "== debug kernel $S"
    T0=$(date +%s)
    step "debug kernel $S builds (or is cached)" scripts/debug-kernel.sh --kernel "$S" || return 1
    KDIR=$(scripts/debug-kernel.sh --kernel "$S" --print-dir)
    echo "    $KDIR ($(cat "$KDIR/kernelrelease"), $(($(date +%s) - T0)) s)"
    KREL=$(cat "$KDIR/kernelrelease")

    echo "== build ($S)"
    OUT=$ROOT/build/debug$([ "$S" = 6.12 ] && echo -6.12 || true)
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

echo "== debug guest $S (4 vCPUs): every guest suite, then kmemleak"
LOG=$LOGS/guest-debug-$S.tap
CONSOLE=$LOGS/console-debug-$S.log
T0=$(date +%s)
# Timings stretch several times under KASAN and lockdep: the reloads keep
# their count (100) with more time; the storm is smaller (300 tasks), as
# 1000 runnable tasks starve the RCU grace-period kthread of this slow guest
# into an RCU stall warning (while STOP waits for a grace period).
# shellcheck disable=SC2016 # the guest's shell expands $rc
TD_KERNEL=$KDIR/obj/arch/x86/boot/bzImage TD_KREL=$KREL TD_MODDIR=$OUT/moddir \
    TD_MODULE=$OUT/topdown.ko TD_SELFTESTS_DIR=$OUT/selftests \
    selftests/vm/run --arch x86_64 --smp 4 --mem 2048 --timeout 3600 --log "$CONSOLE" -- \
    sh -c '/selftests/kmemleak_check.sh start; rc=0
        /selftests/guest_main.sh || rc=1
        TD_STORM_PAIRS=150 TD_RELOAD_SECS=1200 /selftests/guest_load.sh || rc=1
        /selftests/kmemleak_check.sh report || rc=1
        exit $rc' >"$LOG" 2>&1
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
