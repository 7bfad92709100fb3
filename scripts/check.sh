#!/usr/bin/env bash
# scripts/check.sh [--all-kernels]: the whole test suite (what `make check`
# runs; `make check-kernels` runs it with --all-kernels).
#
# Installs what is missing, builds everything, then runs and counts:
#   build      the module and the simulated PMU module (selftests/pmusim)
#              for the kernel of every guest below (--all-kernels: every
#              kernel, each series x arch x flavour) with W=1 -Werror and
#              no warning, each with the compiler Debian built it with
#              (scripts/series.sh), tdctl and the selftests for both
#              architectures and the man pages (rst2man); make
#              install/uninstall into a DESTDIR; make deb and lintian
#   style      make lint: checkpatch.pl --strict on all C, shellcheck on
#              all shell, pyflakes3 and pycodestyle on all Python, docutils
#              on all reStructuredText, tdctl's layers, each litmus
#              test's accesses and barriers against the marked regions of
#              the code it models (no herd7), sparse on the module (x86_64
#              and arm64, 6.1), commit subjects
#   litmus     the ring protocol's litmus tests under the kernel memory
#              model (make check-litmus); its sid root with herd7 is made
#              once (debootstrap, minutes) in the background while the
#              rest builds, and cached
#   host       host unit tests (TAP), the fuzz corpora of the record file
#              reader, tdctl decode's parsers, serve's request path and
#              its web configuration under ASan/UBSan
#   guest      inside QEMU, the guest suites (tdctl end to end tests and
#              the kselftest-harness selftests, TAP) on
#                5.10 (bullseye)          x86_64
#                6.1 (bookworm)           x86_64, arm64, and the load
#                                         suite (4 vCPUs: hotplug, storm,
#                                         reloads) on x86_64
#                6.12-trixie (gcc-14)     x86_64-rt
#                7.3 (trixie-backports)   x86_64-rt, arm64
#              and with --all-kernels (make check-kernels) on every kernel
#              Debian ships of those series: x86_64 and arm64, cloud and
#              rt, plus the load suite on x86_64 6.12, 7.3 and the x86_64
#              rt kernels of 6.1 and 6.12.
#              arm64 guests run with -icount (the emulated PMU counts
#              instructions only so); x86-64 has no PMU (software events).
#              A guest whose console shows a kernel splat fails; then the
#              record files the guests wrote are read back on the host.
#   bench      make bench's short form (scripts/bench.sh --short): that it
#              still runs, not a measurement. Its reader part (tdctl on
#              generated record files, stat and serve on fake rings, each
#              also under callgrind) after the host tests; its guest part
#              (the x86-64 6.1 guest, a few modes, 200 round trips x 3) as
#              the last job of the guest queue. Logs in build/check/bench/.
# and ends with "N passed, N failed, N skipped". Logs: build/check/
# (times in build/check/times and guest-times, printed after the guests,
# and the whole run's at the end).
#
# Where the time goes: a fresh clone's make check (testing.rst's CI
# procedure) on the 2-core build machine, quiet, 2026-12-02: 26.5 min in
# all. deps 61 s, then the 6.1 and 6.12 builds 144 s; deps --suites
# (the other suites' kernels and build roots) runs in the background
# from the end of deps, 717 s, while the host phase (packages, lint,
# litmus, host tests, fuzz corpora, the short bench's reader part) and
# the arm64 6.1 guest run; the 5.10, 6.12-trixie and 7.3 builds wait for
# it (83 s); the guests, two at a time from the arm64 6.1 guest's early
# start, 1379 s in all (arm64 7.3 437 s, arm64 6.1 287 s, the x86_64
# ones 120 to 231 s). The critical path is deps, the suites' download,
# their builds and the guest queue after them; what shortens the run is
# a shorter download or guest queue, not a faster host phase. Loaded by
# other work (CI's machine, or another make check beside it) the same
# run took 29 to 37 min.
#
# Why these guests in make check: make check must stay under 30 minutes
# on 2 cores from a fresh machine, installs included, and a guest suite
# is the most expensive part (CI's run of 2026-11-26 took 2122 s with 8
# guests: x86_64 108 to 133 s each, arm64 with -icount 239 s on 6.1 and
# 474 s as arm64-rt on 6.12-trixie). So make check keeps 7 guests, at
# least one of each series, chosen so that each axis is crossed
# somewhere: the oldest kernel (5.10, the shims of kmod/td_compat.h) and
# the newest (7.3: system_dfl_wq, the 7.x package layout); gcc-14's build
# of 6.12 (trixie); PREEMPT_RT on 6.12 and 7.3 (x86_64); the arm64 PMU
# (-icount) on 6.1 and 7.3; the load suite on the default kernel. Every
# module of make check-kernels' kernels is still built (W=1, no warning)
# for the guests above; bookworm's 6.12 (gcc-12) builds here and boots in
# make check-kernels with the other 13 kernels and 4 load suites (an hour
# or more). CI's run of the 7-guest matrix, one guest at a time, took
# 3192 s in all: the guests now run two at a time (TD_GUEST_JOBS), each
# on one QEMU thread, so the 2 cores are both used (CI: 1919 s in all).
# The arm64 6.1 guest starts as soon as it is built, beside the host
# phase, which leaves a core mostly idle (TD_GUEST_EARLY=0: not).
# What the other suites add to make check, measured from empty caches
# on the shared build machine (load 10 to 21 on its 2 cores from other
# engineers' builds and guests, so wall times are several times an idle
# machine's; CPU times do not depend on the load):
#   the build roots (scripts/suite-root.sh, both debootstraps at once)
#     bullseye 347 s, trixie 284 s wall, downloads included
#   scripts/deps.sh --suites (3 suites' apt lists, 12 kernels' images and
#     headers downloaded and unpacked)   849 s wall, 220 s CPU
#   a module build in a build root      25 to 146 s wall, 5 to 13 s CPU
#   make deb's arm64 tdctl and lintian of it: about 25 s CPU
#   tdctl serve on a network, at load 6 to 8: test_http 0.05 s,
#     test_serve_tls.py (Prometheus over TLS) 15 s, test_serve_load.py
#     (short run) 35 s, the http and webcfg replays 8 s with their build;
#     the guest serve suite 9 s per backend in the x86_64 6.1 guest
# The roots and the downloads run in the background (deps.sh --suites)
# while the host parts build and run (the first build that needs them
# waits), so what make check adds is mostly CPU contention.
# sparse (make lint's, two builds of the module with C=2): 102 s wall,
# 49 s CPU at load 8, in the style section beside the early arm64 guest.
# The short bench (scripts/bench.sh --short), measured on the shared
# build machine at load 2 to 3 beside another make check: the reader part
# 85 s wall, 34 s CPU (20000 records of one set; the serve and stat runs
# last a second each, 21 of them); the guest part 83 s wall (the floor
# module's build, one boot, 6 modes and the accuracy run), one QEMU
# thread. The guest part is queued after every guest, so it takes the
# first slot that frees up once all have started, and adds to the guest
# phase only what it runs past the other slot's last guest. In a make
# check at load 8 to 10 here (the guests 273 to 476 s, arm64 7.3 1247 s)
# the slots ended 90 s apart: the bench guest would have added nothing at
# its 85 s, 60 s at 150 s. The reader part runs before the guest phase,
# beside the early arm64 guest. Budget: about 3 minutes of one core for
# both parts; the guest part is cut off by bench.sh's guest timeout for
# --short (600 s) at worst.
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

# shellcheck source=scripts/series.sh
. "$ROOT/scripts/series.sh"

# A phase's wall time into build/check/times: since NAME T0.
since() {
    echo "$1: $(($(date +%s) - $2)) s" >>"$LOGS/times"
}
T_START=$(date +%s)

echo "== dependencies"
# --rt: also the PREEMPT_RT kernels, their headers and images (the rt
# guests); --6.12: the 6.12 kernels.
T_DEPS=$(date +%s)
if ! scripts/deps.sh --rt --6.12 >"$LOGS/deps.log" 2>&1; then
    tail -n 40 "$LOGS/deps.log"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "deps (host packages, 6.1 and 6.12): $(($(date +%s) - T_DEPS)) s" >"$LOGS/times"
# shellcheck source=/dev/null
. build/deps/env.sh
# --suites: the other suites' kernels and their build roots (debootstrap,
# once), in the background until the first build that needs them.
T_SUITES=$(date +%s)
scripts/deps.sh --rt --6.12 --suites >"$LOGS/deps-suites.log" 2>&1 &
SUITES_PID=$!
SUITES_OK=
# The litmus tier (make check-litmus) in the background too: its sid root
# with herd7 is made once (debootstrap, minutes), then the tests take
# seconds.
scripts/check-litmus.sh >"$LOGS/litmus.log" 2>&1 &
LITMUS_PID=$!
suites_ready() {
    if [ -z "$SUITES_OK" ]; then
        if wait "$SUITES_PID"; then SUITES_OK=1; else SUITES_OK=0; fi
        echo "deps --suites (other suites' kernels, build roots): $(($(date +%s) - T_SUITES)) s" \
            "(in the background)" >>"$LOGS/times"
        if [ "$SUITES_OK" = 1 ]; then
            pass "scripts/deps.sh --suites: the kernels of 5.10, 6.12-trixie, 7.3 and their build roots"
        else
            fail "scripts/deps.sh --suites (log: ${LOGS#"$ROOT"/}/deps-suites.log)"
            tail -n 20 "$LOGS/deps-suites.log" | sed 's/^/    /'
        fi
        # shellcheck source=/dev/null
        . build/deps/env.sh
    fi
    [ "$SUITES_OK" = 1 ]
}

# The guest matrix, "ARCH FLAVOR SERIES [load]": the guests make check
# runs (see the header for why these), then the ones only make
# check-kernels runs. arm64 guests run with -icount.
GUESTS=(
    "x86_64 cloud 5.10"
    "x86_64 cloud 6.1" "arm64 cloud 6.1" "x86_64 cloud 6.1 load"
    "x86_64 rt 6.12-trixie"
    "x86_64 rt 7.3" "arm64 cloud 7.3"
)
if [ "$ALL_KERNELS" = 1 ]; then
    GUESTS+=(
        "arm64 cloud 5.10" "x86_64 rt 5.10" "arm64 rt 5.10"
        "x86_64 rt 6.1" "arm64 rt 6.1" "x86_64 rt 6.1 load"
        "x86_64 cloud 6.12" "arm64 cloud 6.12" "x86_64 rt 6.12" "arm64 rt 6.12" "x86_64 cloud 6.12 load" "x86_64 rt 6.12 load"
        "x86_64 cloud 6.12-trixie" "arm64 cloud 6.12-trixie" "arm64 rt 6.12-trixie"
        "x86_64 cloud 7.3" "arm64 rt 7.3" "x86_64 cloud 7.3 load"
    )
fi
# The kernels they need, "ARCH FLAVOR SERIES", once each, in order;
# bookworm's 6.12 (gcc-12) is built even where no guest boots it.
KERNELS=()
for g in "${GUESTS[@]}" "x86_64 cloud 6.12"; do
    read -r arch flavor series _ <<<"$g"
    case " ${KERNELS[*]/%/;} " in *" $arch $flavor $series; "*) ;; *) KERNELS+=("$arch $flavor $series") ;; esac
done

GUEST_PIDS=()
STARTED=()
# Guests run TD_GUEST_JOBS at a time (default 2, for CI's 2 cores): each
# is one QEMU thread (x86_64 with thread=single, arm64 with -icount), so
# two share 2 cores without starving each other. The longest (the arm64
# -icount ones) start first; results are tallied in the matrix's order.
GUEST_JOBS=${TD_GUEST_JOBS:-2}
# guest_start NAME ARCH FLAVOR SERIES [runner options] -- COMMAND: start
# the guest suites in a fresh guest of that kernel (with the module and
# the selftests of build/<arch>[-rt][-<series>]/), in the background;
# NAME (<arch>[-rt][-<series>][-load]) names it in the results and the
# log files. Its exit code and run time go to $LOGS/guest-NAME.rc.
guest_start() {
    local name=$1 arch=$2 flavor=$3 series=$4 dir
    shift 4
    dir=$(td_guest "$arch" "$flavor" "$series")
    rm -f "$LOGS/guest-$name.rc"
    if [ ! -x "build/$arch/tdctl" ] || [ ! -f "build/$dir/topdown.ko" ]; then
        echo "nothing 0" >"$LOGS/guest-$name.rc"
        return
    fi
    # Only the guests count against TD_GUEST_JOBS (not the litmus and
    # --suites jobs that may still run when the first guest starts).
    while [ "$(guests_running)" -ge "$GUEST_JOBS" ]; do sleep 1; done
    (
        t0=$(date +%s)
        selftests/vm/run --arch "$arch" --flavor "$flavor" --kernel "$series" \
            --log "$LOGS/console-$name.log" "$@" >"$LOGS/guest-$name.tap" 2>&1
        echo "$? $(($(date +%s) - t0))" >"$LOGS/guest-$name.rc"
    ) &
    GUEST_PIDS+=("$!")
    STARTED+=("$name")
}
# guests_running: how many of the guests started are still running.
guests_running() {
    local p n=0
    for p in "${GUEST_PIDS[@]}"; do
        kill -0 "$p" 2>/dev/null && n=$((n + 1))
    done
    echo "$n"
}
# guest_tally NAME ARCH FLAVOR SERIES: its results, once it has finished.
guest_tally() {
    local name=$1 v krel label rc secs log=$LOGS/guest-$1.tap
    v=KREL_$(td_var_suffix "$2" "$3" "$4")
    krel=${!v:-?}
    label="$name ($krel)"
    read -r rc secs <"$LOGS/guest-$name.rc" 2>/dev/null || rc=missing
    if [ "$rc" = nothing ]; then
        fail "guest $label: nothing to run (build failed)"
        return
    fi
    echo "guest $label ran ${secs:-?} s" >>"$LOGS/guest-times"
    tap "guest $label" "$log"
    case $rc in
    124) fail "guest $label: kernel splat on the console (see ${LOGS#"$ROOT"/}/console-$name.log)"
         grep -E 'BUG:|WARNING:|Oops|Call Trace:|lockdep|rcu|UBSAN|KASAN|panic' \
             "$LOGS/console-$name.log" | head -n 20 | sed 's/^/    /' ;;
    125) fail "guest $label: did not finish (see ${LOGS#"$ROOT"/}/console-$name.log)"
         # The tasks of the guest a minute before its timeout (vm/run's
         # watchdog), then how it ended.
         grep -a '^# hang:' "$log" | head -n 120 | sed 's/^/    /'
         grep -av '^# hang:' "$log" | tail -n 20 | sed 's/^/    /' ;;
    missing) fail "guest $label: no exit status from its runner" ;;
    *)   pass "guest $label: booted, ran, console clean" ;;
    esac
}
# guest_each start [NAME]|tally: every guest of the matrix not started
# yet, or only NAME (arm64 first when starting), with the runner options
# its kind needs; tally: the results of every guest.
guest_each() {
    local g arch flavor series suite name pass lim
    for pass in arm64 other; do
        for g in "${GUESTS[@]}"; do
            read -r arch flavor series suite <<<"$g"
            if [ "$1" = start ]; then
                case $pass:$arch in arm64:arm64 | other:x86_64) ;; *) continue ;; esac
            elif [ "$pass" = other ]; then
                return
            fi
            name=$(td_guest "$arch" "$flavor" "$series")
            [ "$suite" = load ] && name=$name-load
            if [ "$1" = start ]; then
                # Started already (early), or only this one (early NAME).
                case " ${STARTED[*]} " in *" $name "*) continue ;; esac
                [ -n "${2:-}" ] && [ "$2" != "$name" ] && continue
            fi
            if [ "$1" = tally ]; then
                guest_tally "$name" "$arch" "$flavor" "$series"
                [ "$suite" = load ] || MAIN_TAPS+=("$LOGS/guest-$name.tap")
            elif [ "$suite" = load ]; then
                # Faults and load: CPU hotplug (4 vCPUs), the context-switch
                # storm, and unload/reload with collection running.
                guest_start "$name" "$arch" "$flavor" "$series" --smp 4 --timeout 1800 -- /selftests/guest_load.sh
            elif [ "$arch" = arm64 ]; then
                # With -icount the emulated PMU counts instructions exactly.
                # The slowest guests (239 s in CI, over 600 s on a loaded
                # machine): a longer limit than vm/run's default 600 s.
                # PREEMPT_RT's (check-kernels) took 1250 to 1470 s with
                # three guests at a time on 2 cores; 1500 s cut one short.
                lim=1500
                [ "$flavor" = rt ] && lim=2400
                guest_start "$name" "$arch" "$flavor" "$series" --icount --timeout "$lim" -- env TD_ICOUNT=1 /selftests/guest_main.sh
            else
                guest_start "$name" "$arch" "$flavor" "$series" -- /selftests/guest_main.sh
            fi
        done
    done
}

echo "== build"
J=-j$(nproc)
T_BUILD=$(date +%s)
for arch in x86_64 arm64; do
    step "module $arch-6.1 builds with W=1, no warnings" scripts/kbuild.sh "$arch"
    step "tdctl $arch builds" make "$J" -C user ARCH="$arch" ARM64_SYSROOT_LIBS="$ARM64_SYSROOT_LIBS"
    step "selftests $arch build" make "$J" -C selftests ARCH="$arch" KSELFTEST_DIR="$KSELFTEST_DIR"
done
# kernel_selftests DIR ARCH FLAVOR SERIES: the guest runs the selftests of
# its arch, with the test-only simulated PMU module rebuilt for its kernel.
kernel_selftests() {
    rm -rf "build/$1/selftests" &&
        cp -a "build/$2/selftests" "build/$1/selftests" || return 1
    selftests/pmusim/build.sh --kernel "$4" "$2" "$ROOT/build/$1/selftests" "$3"
}
# build_kernels 6.1|6.12|other: the module and pmusim for the guest
# kernels of bookworm's series, or of the other suites' (after their
# download); named <arch>[-rt][-<series>] (their build/ folder).
build_kernels() {
    local k arch flavor series name
    for k in "${KERNELS[@]}"; do
        read -r arch flavor series <<<"$k"
        case $1:$series in 6.1:6.1 | 6.12:6.12 | other:5.10 | other:6.12-trixie | other:7.3) ;; *) continue ;; esac
        name=$(td_guest "$arch" "$flavor" "$series")
        [ "$name" = "$arch" ] && continue # built above
        step "module $name builds with W=1, no warnings" scripts/kbuild.sh --kernel "$series" "$arch" "$flavor"
        step "selftests for the $name guest" kernel_selftests "$name" "$arch" "$flavor" "$series"
    done
}
build_kernels 6.1
build_kernels 6.12
echo "build (6.1, 6.12): $(($(date +%s) - T_BUILD)) s" >>"$LOGS/times"
# The longest guest (arm64 6.1 with -icount, about 8 min of one core)
# starts now, beside the host phase (man pages to fuzz corpora, about 9
# min, mostly on one core) instead of after it. TD_GUEST_EARLY=0: not.
T_GUESTS=$(date +%s)
[ "${TD_GUEST_EARLY:-1}" = 1 ] && guest_each start arm64

T_PHASE=$(date +%s)
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
since "man pages, install, Debian packages" "$T_PHASE"
T_PHASE=$(date +%s)
echo "== style (make lint)"
step "C: checkpatch --strict clean (kernel rules for kmod/ and pmusim)" scripts/lint.sh c
step "shell: shellcheck clean" scripts/lint.sh shell
step "Python: pyflakes3 and pycodestyle clean" scripts/lint.sh python
step "reStructuredText: every *.rst parses without a docutils warning" scripts/lint.sh rst
step "layers: tdctl's includes and picture follow user/README" scripts/lint.sh layers
step "litmus tests: each one's accesses and barriers are its marked code's" scripts/lint.sh litmus
step "sparse: the module (kmod/) x86_64 and arm64 6.1, no finding" scripts/lint.sh sparse
step "commits: subjects are 'area: subject', at most 72 characters" scripts/lint.sh commits
since "style (make lint)" "$T_PHASE"

echo "== litmus tests (herd7, kernel memory model; make check-litmus)"
T_PHASE=$(date +%s)
wait "$LITMUS_PID"
tally "litmus" "$LOGS/litmus.log"
grep -qE '^(PASS|FAIL|SKIP): ' "$LOGS/litmus.log" ||
    fail "litmus: no result (log: build/check/litmus.log)"
since "litmus (waited for)" "$T_PHASE"

echo "== host tests"
T_PHASE=$(date +%s)
if [ -f selftests/host/Makefile ]; then
    make -s -C selftests/host run >"$LOGS/host.tap" 2>&1
    rc=$?
    tap "host" "$LOGS/host.tap"
    [ "$rc" = 0 ] || fail "host: make -C selftests/host run exited $rc (log: ${LOGS#"$ROOT"/}/host.tap)"
fi
# The fuzz corpora (record file reader, decode's parsers, serve's request
# path, serve's web configuration), replayed under ASan and UBSan.
make -s -C selftests/fuzz run >"$LOGS/fuzz.tap" 2>&1
rc=$?
tap "fuzz corpora" "$LOGS/fuzz.tap"
# A build that fails prints no TAP line: a failure all the same.
[ "$rc" = 0 ] || fail "fuzz corpora: make -C selftests/fuzz run exited $rc (log: ${LOGS#"$ROOT"/}/fuzz.tap)"
since "host tests and fuzz corpora" "$T_PHASE"
T_PHASE=$(date +%s)
# make bench's reader part, short (see the header).
step "bench --short: the reader part (tdctl on record files, callgrind)" \
    scripts/bench.sh --short --reader
since "bench --short, reader part" "$T_PHASE"

# The other suites' kernels (5.10, 6.12-trixie, 7.3): built once their
# packages and build roots are there.
T_BUILD=$(date +%s)
if suites_ready; then
    build_kernels other
    echo "build (5.10, 6.12-trixie, 7.3): $(($(date +%s) - T_BUILD)) s" >>"$LOGS/times"
    # The ioctl code against the registry of the newest kernel (7.3's
    # source comes with the other suites) and of 6.1 and 6.12.
    step "ioctl code free in ioctl-number.rst of Linux 6.1, 6.12 and 7.3" \
        python3 scripts/check_ioctl_number.py --need 6.1 --need 6.12 --need 7.3
    # The event sets against perf 7.3's pmu-events JSON, which comes with
    # 7.3's source: when the host tests ran before it was there (a fresh
    # machine), now (about a minute).
    if ! grep -q '^ok .*perf 7.3 pmu-events extracted' "$LOGS/host.tap" 2>/dev/null; then
        TD_PERF_JSON_VERSIONS=7.3 python3 selftests/host/test_perf_json.py >"$LOGS/perf-json-7.3.tap" 2>&1
        tap "event sets against perf 7.3's JSON" "$LOGS/perf-json-7.3.tap"
    fi
fi

echo "== guests ($GUEST_JOBS at a time)"
: >"$LOGS/guest-times"
MAIN_TAPS=()
guest_each start
# make bench's guest part, short, last in the queue (see the header).
while [ "$(guests_running)" -ge "$GUEST_JOBS" ]; do sleep 1; done
(
    t0=$(date +%s)
    TD_BENCH_READER=0 scripts/bench.sh --short >"$LOGS/bench-guest.log" 2>&1
    echo "$? $(($(date +%s) - t0))" >"$LOGS/bench-guest.rc"
) &
GUEST_PIDS+=("$!")
wait
guest_each tally
read -r rc secs <"$LOGS/bench-guest.rc" 2>/dev/null || rc=missing
echo "bench --short, guest part ran ${secs:-?} s" >>"$LOGS/guest-times"
if [ "$rc" = 0 ]; then
    pass "bench --short: the guest part (x86_64 6.1, every mode asked has a result)"
else
    fail "bench --short: the guest part (log: ${LOGS#"$ROOT"/}/bench-guest.log)"
    tail -n 20 "$LOGS/bench-guest.log" | sed 's/^/    /'
fi
# Guests whose CPU 1 is isolated: topdown sends it no work (isolated_test;
# about 12 s each). isolcpus=1 alone keeps the tick, so a rotation there
# would show; with nohz_full=1 as well (what latency-sensitive machines
# boot).
if [ -f build/x86_64/topdown.ko ]; then
    for iso in "isolcpus=1" "isolcpus=1 nohz_full=1"; do
        step "x86_64 guest with CPU 1 isolated ($iso): isolated_test" \
            selftests/vm/run --arch x86_64 --append "$iso" \
            --log "$LOGS/console-isolated.log" -- sh -c 'modprobe topdown && /selftests/isolated_test'
    done
fi
echo "guests: $(($(date +%s) - T_GUESTS)) s in all" >>"$LOGS/guest-times"
sed 's/^/    /' "$LOGS/guest-times" "$LOGS/times"

echo "== figures (from the guests' '# COUNT' lines)"
cat "$LOGS"/guest-*.tap 2>/dev/null |
    awk '/^# COUNT / { s[$3] += $4 } END { for (k in s) printf "    %-26s %d\n", k, s[k] }' | sort

echo
# The record files the guests wrote, read back here (arm64's on x86-64).
python3 selftests/host/test_guest_file.py "${MAIN_TAPS[@]}" >"$LOGS/guest-files.tap" 2>&1
tap "guest record files on the host" "$LOGS/guest-files.tap"
echo "    make check: $(($(date +%s) - T_START)) s in all"
finish
