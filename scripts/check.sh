#!/usr/bin/env bash
# scripts/check.sh: the whole test suite (what `make check` runs).
#
# Installs what is missing, builds everything, then runs and counts:
#   build      the module for x86-64 and arm64 with W=1 and no warning,
#              tdctl and the selftests for both
#   style      checkpatch.pl --strict on the kernel code
#   host       host unit tests (TAP)
#   guest      inside QEMU: x86-64 (no PMU: software events) and arm64
#              with -icount (emulated PMU), each running the tdctl end to
#              end tests and the kselftest-harness selftests (TAP); a guest
#              whose console shows a kernel splat fails
# and ends with "N passed, N failed, N skipped". Logs: build/check/.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
LOGS=$ROOT/build/check
rm -rf "$LOGS"
mkdir -p "$LOGS"
PASS=0 FAIL=0 SKIP=0

pass() { PASS=$((PASS + 1)); echo "PASS: $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }

# step NAME CMD...: one counted test whose log is kept.
step() {
    local name=$1 log
    shift
    log=$LOGS/$(echo "$name" | tr ' /' '__').log
    if "$@" >"$log" 2>&1; then
        pass "$name"
    else
        fail "$name (log: ${log#"$ROOT"/})"
        tail -n 30 "$log" | sed 's/^/    /'
    fi
}

# tap NAME FILE: count a TAP stream's results.
tap() {
    local name=$1 file=$2 p f s
    p=$(grep -cE '^ok [0-9]+' "$file" | tr -d ' ')
    s=$(grep -cE '^ok [0-9]+.*# *SKIP' "$file" | tr -d ' ')
    f=$(grep -cE '^not ok [0-9]+' "$file" | tr -d ' ')
    p=$((p - s))
    PASS=$((PASS + p)) FAIL=$((FAIL + f)) SKIP=$((SKIP + s))
    echo "$name: $p passed, $f failed, $s skipped"
    grep -E '^not ok [0-9]+|^ok [0-9]+.*# *SKIP' "$file" | sed 's/^/    /'
}

echo "== dependencies"
if ! scripts/deps.sh >"$LOGS/deps.log" 2>&1; then
    tail -n 40 "$LOGS/deps.log"
    echo "0 passed, 1 failed"
    exit 1
fi
# shellcheck source=/dev/null
. build/deps/env.sh

echo "== build"
J=-j$(nproc)
for arch in x86_64 arm64; do
    step "module $arch builds with W=1, no warnings" scripts/kbuild.sh "$arch"
    step "tdctl $arch builds" make $J -C user ARCH=$arch ARM64_SYSROOT_LIBS="$ARM64_SYSROOT_LIBS"
    step "selftests $arch build" make $J -C selftests ARCH=$arch KSELFTEST_DIR="$KSELFTEST_DIR"
done

echo "== style"
step "checkpatch --strict clean" scripts/checkpatch.sh
# The selftests' simulated PMU (checkpatch.pl is unpacked by the step above).
step "checkpatch --strict clean: selftests/pmusim" \
    perl build/deps/checkpatch/checkpatch.pl --no-tree --strict --terse -f selftests/pmusim/td_pmusim.c

echo "== host tests"
if [ -f selftests/host/Makefile ]; then
    make -s -C selftests/host run >"$LOGS/host.tap" 2>&1
    tap "host" "$LOGS/host.tap"
fi

# guest ARCH [runner options] -- COMMAND: run the guest suites in a fresh guest.
guest() {
    local arch=$1 log rc
    log=$LOGS/guest-$arch.tap
    shift
    if [ ! -x "build/$arch/tdctl" ] || [ ! -f "build/$arch/topdown.ko" ]; then
        fail "guest $arch: nothing to run (build failed)"
        return
    fi
    selftests/vm/run --arch "$arch" --log "$LOGS/console-$arch.log" "$@" \
        >"$log" 2>&1
    rc=$?
    tap "guest $arch" "$log"
    case $rc in
    124) fail "guest $arch: kernel splat on the console (see ${LOGS#"$ROOT"/}/console-$arch.log)"
         grep -E 'BUG:|WARNING:|Oops|Call Trace:|lockdep|rcu|UBSAN|KASAN|panic' \
             "$LOGS/console-$arch.log" | head -n 20 | sed 's/^/    /' ;;
    125) fail "guest $arch: did not finish (see ${LOGS#"$ROOT"/}/console-$arch.log)"
         tail -n 20 "$log" | sed 's/^/    /' ;;
    *)   pass "guest $arch: booted, ran, console clean" ;;
    esac
}

echo "== guests"
guest x86_64 -- /selftests/guest_main.sh
# With -icount the emulated PMU counts instructions exactly.
guest arm64 --icount -- env TD_ICOUNT=1 /selftests/guest_main.sh

echo
if [ $SKIP -gt 0 ]; then
    echo "$PASS passed, $FAIL failed, $SKIP skipped"
else
    echo "$PASS passed, $FAIL failed"
fi
[ $FAIL -eq 0 ]
