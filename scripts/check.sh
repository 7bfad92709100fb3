#!/usr/bin/env bash
# scripts/check.sh: the whole test suite (what `make check` runs).
#
# Installs what is missing, builds everything, then runs and counts:
#   build      the module for x86-64 and arm64 with W=1 and no warning,
#              tdctl and the selftests for both
#              and the man pages (rst2man); make install/uninstall into
#              a DESTDIR; make deb and lintian
#   style      checkpatch.pl --strict on the kernel code
#   host       host unit tests (TAP), the fuzz corpus of the record file
#              reader under ASan/UBSan
#   guest      inside QEMU: x86-64 (no PMU: software events) and arm64
#              with -icount (emulated PMU), each running the tdctl end to
#              end tests and the kselftest-harness selftests (TAP); a guest
#              whose console shows a kernel splat fails; then the record
#              files the guests wrote are read back on the host
# and ends with "N passed, N failed, N skipped". Logs: build/check/.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
LOGS=$ROOT/build/check
rm -rf "$LOGS"
mkdir -p "$LOGS"
# pass, fail, step, tap, finish
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

echo "== dependencies"
# --rt: also the PREEMPT_RT kernel, its headers and image (the rt guest).
if ! scripts/deps.sh --rt >"$LOGS/deps.log" 2>&1; then
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
# rt_selftests: the rt guest runs the x86_64 selftests, with the test-only
# simulated PMU module rebuilt for the rt kernel.
rt_selftests() {
    rm -rf build/x86_64-rt/selftests &&
        cp -a build/x86_64/selftests build/x86_64-rt/selftests || return 1
    [ -f selftests/pmusim/Kbuild ] || return 0
    TD_KMOD_SRC=$ROOT/selftests/pmusim TD_INCLUDE_SRC=/nonexistent \
        TD_OUT=$ROOT/build/x86_64-rt/pmusim scripts/kbuild.sh x86_64 rt &&
        cp build/x86_64-rt/pmusim/td_pmusim.ko build/x86_64-rt/selftests/
}
if [ "$HAVE_RT" = 1 ]; then
    step "module x86_64 PREEMPT_RT builds with W=1, no warnings" scripts/kbuild.sh x86_64 rt
    step "selftests for the PREEMPT_RT guest" rt_selftests
else
    fail "PREEMPT_RT kernel not set up by scripts/deps.sh --rt"
fi

step "man pages render (rst2man, warnings are errors)" make -C Documentation/man
# Packaging: make install/uninstall into a DESTDIR (TAP).
scripts/test-install.sh >"$LOGS/install.tap" 2>&1
tap "make install/uninstall" "$LOGS/install.tap"
# Debian packages (scripts/deb.sh), lintian with every tag level: clean, or
# each tag justified in a debian/*lintian-overrides comment.
step "make deb: topdown-dkms, tdctl and the source package" make -s deb
step "lintian clean (all levels) on build/deb/*.changes" bash -c \
    'lintian --fail-on error,warning,info,pedantic,experimental -I -E --pedantic build/deb/*.changes'
# The packages' contents, the DKMS tree building alone, topdown.service
# through systemd-analyze verify (TAP).
scripts/test-deb.sh >"$LOGS/deb.tap" 2>&1
tap "Debian packages" "$LOGS/deb.tap"
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
# The record file reader's fuzz corpus, replayed under ASan and UBSan.
make -s -C selftests/fuzz run >"$LOGS/fuzz.tap" 2>&1
tap "fuzz corpus" "$LOGS/fuzz.tap"

# guest ARCH [runner options] -- COMMAND: run the guest suites in a fresh guest.
# GUEST_NAME (default ARCH) names it in the messages and the log files.
guest() {
    local arch=$1 log rc name
    name=${GUEST_NAME:-$1}
    log=$LOGS/guest-$name.tap
    shift
    if [ ! -x "build/$arch/tdctl" ] || [ ! -f "build/$arch/topdown.ko" ]; then
        fail "guest $name: nothing to run (build failed)"
        return
    fi
    selftests/vm/run --arch "$arch" --log "$LOGS/console-$name.log" "$@" \
        >"$log" 2>&1
    rc=$?
    tap "guest $name" "$log"
    case $rc in
    124) fail "guest $name: kernel splat on the console (see ${LOGS#"$ROOT"/}/console-$name.log)"
         grep -E 'BUG:|WARNING:|Oops|Call Trace:|lockdep|rcu|UBSAN|KASAN|panic' \
             "$LOGS/console-$name.log" | head -n 20 | sed 's/^/    /' ;;
    125) fail "guest $name: did not finish (see ${LOGS#"$ROOT"/}/console-$name.log)"
         tail -n 20 "$log" | sed 's/^/    /' ;;
    *)   pass "guest $name: booted, ran, console clean" ;;
    esac
}

echo "== guests"
guest x86_64 -- /selftests/guest_main.sh
# With -icount the emulated PMU counts instructions exactly.
guest arm64 --icount -- env TD_ICOUNT=1 /selftests/guest_main.sh
# The same suite on Debian's PREEMPT_RT kernel.
if [ "$HAVE_RT" = 1 ]; then
    TD_SELFTESTS_DIR=$ROOT/build/x86_64-rt/selftests GUEST_NAME=x86_64-rt \
        guest x86_64 --flavor rt -- /selftests/guest_main.sh
fi
# Faults and load: CPU hotplug (4 vCPUs), the context-switch storm, and
# unload/reload with collection running.
GUEST_NAME=x86_64-load guest x86_64 --smp 4 --timeout 1800 -- /selftests/guest_load.sh

echo "== figures (from the guests' '# COUNT' lines)"
cat "$LOGS"/guest-*.tap 2>/dev/null |
    awk '/^# COUNT / { s[$3] += $4 } END { for (k in s) printf "    %-26s %d\n", k, s[k] }' | sort

echo
# The record files the guests wrote, read back here (arm64's on x86-64).
python3 selftests/host/test_guest_file.py "$LOGS"/guest-x86_64.tap \
    "$LOGS"/guest-arm64.tap >"$LOGS/guest-files.tap" 2>&1
tap "guest record files on the host" "$LOGS/guest-files.tap"
finish
