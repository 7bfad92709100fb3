#!/usr/bin/env bash
# scripts/check.sh [--all-kernels]: the whole test suite (what `make check`
# runs; `make check-kernels` runs it with --all-kernels).
#
# Installs what is missing, builds everything, then runs and counts:
#   build      the module for every guest kernel (Debian 6.1 and 6.12,
#              cloud and PREEMPT_RT, x86-64 and arm64) with W=1 and no
#              warning, tdctl and the selftests for both architectures
#              and the man pages (rst2man); make install/uninstall into
#              a DESTDIR; make deb and lintian
#   style      make lint: checkpatch.pl --strict on all C, shellcheck on
#              all shell, pyflakes3 and pycodestyle on all Python
#   host       host unit tests (TAP), the fuzz corpora of the record file
#              reader and of tdctl decode's parsers under ASan/UBSan
#   guest      inside QEMU, the guest suites (tdctl end to end tests and
#              the kselftest-harness selftests, TAP) on
#                6.1:  x86_64, arm64 -icount, x86_64-rt
#                6.12: x86_64, arm64 -icount, x86_64-rt, arm64-rt -icount
#              and the load suite (4 vCPUs: hotplug, storm, reloads) on
#              x86_64 6.1; --all-kernels adds the load suite on x86_64
#              6.12 and both x86_64 rt kernels.
#              x86-64 has no PMU (software events); arm64 with -icount has
#              the emulated PMU. A guest whose console shows a kernel
#              splat fails; then the record files the guests wrote are
#              read back on the host
# and ends with "N passed, N failed, N skipped". Logs: build/check/.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
ALL_KERNELS=0
case ${1:-} in
"") ;;
--all-kernels) ALL_KERNELS=1 ;;
*) echo "usage: scripts/check.sh [--all-kernels]" >&2; exit 2 ;;
esac
LOGS=$ROOT/build/check
rm -rf "$LOGS"
mkdir -p "$LOGS"
# pass, fail, step, tap, finish
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

echo "== dependencies"
# --rt: also the PREEMPT_RT kernels, their headers and images (the rt
# guests); --6.12: the 6.12 kernels.
if ! scripts/deps.sh --rt --6.12 >"$LOGS/deps.log" 2>&1; then
    tail -n 40 "$LOGS/deps.log"
    echo "0 passed, 1 failed"
    exit 1
fi
# shellcheck source=/dev/null
. build/deps/env.sh

echo "== build"
J=-j$(nproc)
for arch in x86_64 arm64; do
    step "module $arch-6.1 builds with W=1, no warnings" scripts/kbuild.sh "$arch"
    step "tdctl $arch builds" make "$J" -C user ARCH="$arch" ARM64_SYSROOT_LIBS="$ARM64_SYSROOT_LIBS"
    step "selftests $arch build" make "$J" -C selftests ARCH="$arch" KSELFTEST_DIR="$KSELFTEST_DIR"
done
# The other guest kernels: "guest arch flavour series", named
# <arch>[-rt]-<series> in the results (build/<arch>[-rt][-6.12]/ on disk).
KERNELS=("x86_64-rt-6.1 x86_64 rt 6.1" "x86_64-6.12 x86_64 cloud 6.12" "arm64-6.12 arm64 cloud 6.12"
    "x86_64-rt-6.12 x86_64 rt 6.12" "arm64-rt-6.12 arm64 rt 6.12")
# kernel_selftests DIR ARCH FLAVOR SERIES: the guest runs the selftests of
# its arch, with the test-only simulated PMU module rebuilt for its kernel.
kernel_selftests() {
    rm -rf "build/$1/selftests" &&
        cp -a "build/$2/selftests" "build/$1/selftests" || return 1
    selftests/pmusim/build.sh --kernel "$4" "$2" "$ROOT/build/$1/selftests" "$3"
}
for k in "${KERNELS[@]}"; do
    read -r name arch flavor series <<<"$k"
    dir=$arch$([ "$flavor" = rt ] && echo -rt || true)$([ "$series" = 6.12 ] && echo -6.12 || true)
    step "module $name builds with W=1, no warnings" scripts/kbuild.sh --kernel "$series" "$arch" "$flavor"
    step "selftests for the $name guest" kernel_selftests "$dir" "$arch" "$flavor" "$series"
done

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
echo "== style (make lint)"
step "C: checkpatch --strict clean (kernel rules for kmod/ and pmusim)" scripts/lint.sh c
step "shell: shellcheck clean" scripts/lint.sh shell
step "Python: pyflakes3 and pycodestyle clean" scripts/lint.sh python

echo "== host tests"
if [ -f selftests/host/Makefile ]; then
    make -s -C selftests/host run >"$LOGS/host.tap" 2>&1
    tap "host" "$LOGS/host.tap"
fi
# The fuzz corpora (record file reader, decode's parsers), replayed under
# ASan and UBSan.
make -s -C selftests/fuzz run >"$LOGS/fuzz.tap" 2>&1
tap "fuzz corpora" "$LOGS/fuzz.tap"

# guest NAME ARCH [runner options] -- COMMAND: run the guest suites in a
# fresh guest; NAME (<arch>[-rt]-<series>[-suite]) names it in the results
# and the log files. The runner's --kernel and --flavor pick the kernel, and
# with them the module and the selftests (build/<arch>[-rt][-6.12]/).
guest() {
    local name=$1 arch=$2 log rc t0 dir
    log=$LOGS/guest-$name.tap
    shift 2
    dir=$arch
    case " $* " in *" --flavor rt "*) dir=$dir-rt ;; esac
    case " $* " in *" --kernel 6.12 "*) dir=$dir-6.12 ;; esac
    if [ ! -x "build/$arch/tdctl" ] || [ ! -f "build/$dir/topdown.ko" ]; then
        fail "guest $name: nothing to run (build failed)"
        return
    fi
    t0=$(date +%s)
    selftests/vm/run --arch "$arch" --log "$LOGS/console-$name.log" "$@" \
        >"$log" 2>&1
    rc=$?
    echo "guest $name ran $(($(date +%s) - t0)) s" >>"$LOGS/guest-times"
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
T_GUESTS=$(date +%s)
: >"$LOGS/guest-times"
for series in 6.1 6.12; do
    K=(--kernel "$series")
    guest "x86_64-$series" x86_64 "${K[@]}" -- /selftests/guest_main.sh
    # With -icount the emulated PMU counts instructions exactly.
    guest "arm64-$series" arm64 "${K[@]}" --icount -- env TD_ICOUNT=1 /selftests/guest_main.sh
    # The same suite on Debian's PREEMPT_RT kernels.
    guest "x86_64-rt-$series" x86_64 "${K[@]}" --flavor rt -- /selftests/guest_main.sh
done
guest arm64-rt-6.12 arm64 --kernel 6.12 --flavor rt --icount -- env TD_ICOUNT=1 /selftests/guest_main.sh
# Faults and load: CPU hotplug (4 vCPUs), the context-switch storm, and
# unload/reload with collection running.
LOAD=(--smp 4 --timeout 1800 -- /selftests/guest_load.sh)
guest x86_64-6.1-load x86_64 --kernel 6.1 "${LOAD[@]}"
if [ "$ALL_KERNELS" = 1 ]; then
    guest x86_64-6.12-load x86_64 --kernel 6.12 "${LOAD[@]}"
    guest x86_64-rt-6.1-load x86_64 --kernel 6.1 --flavor rt "${LOAD[@]}"
    guest x86_64-rt-6.12-load x86_64 --kernel 6.12 --flavor rt "${LOAD[@]}"
fi
echo "guests: $(($(date +%s) - T_GUESTS)) s in all" >>"$LOGS/guest-times"
sed 's/^/    /' "$LOGS/guest-times"

echo "== figures (from the guests' '# COUNT' lines)"
cat "$LOGS"/guest-*.tap 2>/dev/null |
    awk '/^# COUNT / { s[$3] += $4 } END { for (k in s) printf "    %-26s %d\n", k, s[k] }' | sort

echo
# The record files the guests wrote, read back here (arm64's on x86-64).
python3 selftests/host/test_guest_file.py "$LOGS"/guest-x86_64-6.1.tap \
    "$LOGS"/guest-arm64-6.1.tap "$LOGS"/guest-x86_64-6.12.tap \
    "$LOGS"/guest-arm64-6.12.tap >"$LOGS/guest-files.tap" 2>&1
tap "guest record files on the host" "$LOGS/guest-files.tap"
finish
