#!/usr/bin/env bash
# scripts/bench.sh [--reader] [--short]: the performance benchmark (what
# `make bench` runs). Its own tier; make check runs only its short form
# (--short, below) so that it keeps working. See
# Documentation/performance.rst.
#
#   1. installs and builds what is missing (scripts/deps.sh --perf,
#      scripts/build.sh, valgrind), the guest helper selftests/bench/tdbench.c and the floor
#      module selftests/bench/floor/ for both architectures
#   2. boots the arm64 guest with -icount (guest time = instruction count)
#      and the x86-64 guest (TCG, wall clock) once each and runs every mode
#      of the context-switch benchmark in that one boot
#      (selftests/bench/guest_bench.sh), with the peers: perf_event_open()
#      counters, the perf tool of Debian's linux-perf (perf stat --per-thread
#      -p, perf stat -a), topdown's BPF backend; then the accuracy table
#   3. measures the reader on the host: tdctl dump -i (plain, CSV, JSON)
#      and report -i --by task/process/comm/cpu on large generated record
#      files, stat -a --by ... on the same records live (fake rings),
#      records/s on one core and instructions per record from callgrind
#      (selftests/bench/reader/rdfile.py)
#   4. prints the table and writes build/bench/bench.json; fails if a mode
#      is missing or a guest failed
#
# Environment:
#   TD_BENCH_ARCHES     guests to run (default "arm64 x86_64")
#   TD_BENCH_ROUNDS_ARM64, TD_BENCH_ROUNDS_X86_64   round trips per repeat
#                       (default 5000 and 1000)
#   TD_BENCH_REPEATS_ARM64, TD_BENCH_REPEATS_X86_64 (default 5 and 15)
#   TD_BENCH_READER     0 to skip the reader measurements
#   TD_BENCH_ONLY       groups: in the guests, only the baseline and the event
#                       group modes (selftests/bench/guest_bench.sh)
#   TD_BENCH_RECORDS    records of the reader's large files (default 4000000)
#   TD_BENCH_NCG        records of the smaller callgrind file (default 50000;
#                       the other has twice as many)
#   TD_BENCH_MODES      shell patterns of the guest modes to run (default all,
#                       see selftests/bench/guest_bench.sh), e.g.
#                       "baseline default max set-big bpf-* baseline-end"
#   TD_BENCH_BPF_BEFORE git revision whose tdctl the bpf-before-* modes run
#                       (default 9c2efce: the BPF backend before the work
#                       on its target, twice the module's added cost);
#                       built from `git archive`, SKIP without git history
#   TD_BENCH_SETS       the reader's event sets (mkfixture fixtures; default
#                       "qemu_arm64_max sapphire_rapids")
#   TD_BENCH_REPEAT     the reader's runs per figure, the best kept (3)
#   TD_BENCH_OUT        where the logs and JSON go (default build/bench;
#                       --short: build/check/bench)
#
# scripts/bench.sh --reader (make bench-reader) runs the reader part alone.
# --short is make check's run, a test that every part still works, not a
# measurement: the x86-64 guest alone with a few modes (the baseline, the
# module's default set without and with --totals and one event, the BPF
# backend, the floor, the module's accuracy run) at 200 round trips x 3, no perf tool and no
# tdctl-before (no scripts/deps.sh --perf, no scripts/build.sh: make check
# has built the rest), and the reader on 20000 records of one event set,
# one run each; with --reader only that part, with TD_BENCH_READER=0 only
# the guest. The variables above still override its choices.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
log() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }
READER_ONLY='' SHORT=''
for a in "$@"; do
    case $a in
    # --reader: only the host reader benchmark (a couple of minutes).
    --reader) READER_ONLY=1 ;;
    --short) SHORT=1 ;;
    *) die "usage: scripts/bench.sh [--reader] [--short]" ;;
    esac
done
if [ -n "$SHORT" ]; then
    OUT=${TD_BENCH_OUT:-$ROOT/build/check/bench}
    ARCHES=${TD_BENCH_ARCHES:-x86_64}
    : "${TD_BENCH_MODES:=baseline default default-totals one bpf-default bpf-totals-default floor-one acc-module baseline-end}"
    : "${TD_BENCH_ROUNDS_X86_64:=200}" "${TD_BENCH_REPEATS_X86_64:=3}"
    : "${TD_BENCH_ROUNDS_ARM64:=500}" "${TD_BENCH_REPEATS_ARM64:=2}"
    : "${TD_BENCH_RECORDS:=20000}" "${TD_BENCH_NCG:=2000}"
    : "${TD_BENCH_SETS:=sapphire_rapids}" "${TD_BENCH_REPEAT:=1}"
else
    OUT=${TD_BENCH_OUT:-$ROOT/build/bench}
    ARCHES=${TD_BENCH_ARCHES:-arm64 x86_64}
fi
[ -n "$READER_ONLY" ] && ARCHES=
mkdir -p "$OUT"
# The logs' names in messages, relative to the tree where they are in it.
REL=${OUT#"$ROOT"/}

# ------------------------------------------------------------------ build
if [ -z "$SHORT" ]; then
    log "dependencies (scripts/deps.sh --perf; log $REL/deps.log)"
    scripts/deps.sh --perf >"$OUT/deps.log" 2>&1 || { tail -n 30 "$OUT/deps.log"; die "scripts/deps.sh failed"; }
fi
if ! command -v valgrind >/dev/null; then
    log "installing valgrind"
    apt-get -q -y install --no-install-recommends valgrind >"$OUT/valgrind-install.log" 2>&1 ||
        { apt-get -q -y update >/dev/null 2>&1 && apt-get -q -y install --no-install-recommends valgrind >>"$OUT/valgrind-install.log" 2>&1; } ||
        die "cannot install valgrind"
fi
# shellcheck source=/dev/null
. build/deps/env.sh
# build_before ARCH: tdctl of TD_BENCH_BPF_BEFORE for the guest, as
# build/ARCH/bench/tdctl-before (or tdctl-before.why: why there is none).
BEFORE_REV=${TD_BENCH_BPF_BEFORE:-9c2efceefa1ced5aea4e99ab17a5a06460b4a235}
build_before() {
    local arch=$1 src=$OUT/before-src dst=build/$1/bench
    rm -f "$dst/tdctl-before" "$dst/tdctl-before.why"
    if ! git -C "$ROOT" rev-parse -q --verify "$BEFORE_REV^{commit}" >/dev/null 2>&1; then
        echo "no git history with $BEFORE_REV here (TD_BENCH_BPF_BEFORE)" >"$dst/tdctl-before.why"
        return
    fi
    rm -rf "$src"
    mkdir -p "$src"
    git -C "$ROOT" archive "$BEFORE_REV" user include | tar -x -C "$src"
    make -s -C "$src/user" ARCH="$arch" OUT="$src/build/$arch" \
        TD_VERSION="0.0.0+before.${BEFORE_REV:0:12}" ARM64_SYSROOT_LIBS="$ARM64_SYSROOT_LIBS" \
        >>"$OUT/build.log" 2>&1 || die "tdctl of $BEFORE_REV does not build for $arch (build/bench/build.log)"
    cp "$src/build/$arch/tdctl" "$dst/tdctl-before"
}
if [ -n "$ARCHES" ]; then
    : >"$OUT/build.log"
    if [ -z "$SHORT" ]; then
        log "build (scripts/build.sh; log $REL/build.log)"
        scripts/build.sh >"$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; die "scripts/build.sh failed"; }
    fi
    for arch in $ARCHES; do
        make -s -C selftests/bench ARCH="$arch" >>"$OUT/build.log" 2>&1 || die "tdbench $arch does not build ($REL/build.log)"
        TD_KMOD_SRC=$ROOT/selftests/bench/floor TD_OUT=$ROOT/build/$arch/floor \
            scripts/kbuild.sh "$arch" >>"$OUT/build.log" 2>&1 || die "tdfloor.ko $arch does not build ($REL/build.log)"
        cp "build/$arch/floor/tdfloor.ko" "build/$arch/bench/"
        # The guests get copies: another build (make check) may replace the
        # originals while a guest is being staged.
        rm -rf "$OUT/stage/$arch"
        mkdir -p "$OUT/stage/$arch/selftests"
        cp "build/$arch/topdown.ko" "build/$arch/tdctl" "$OUT/stage/$arch/"
        mkdir -p "$OUT/stage/$arch/perf"
        if [ -n "$SHORT" ]; then
            rm -f "build/$arch/bench/tdctl-before"
            echo "not built by scripts/bench.sh --short" >"build/$arch/bench/tdctl-before.why"
            continue
        fi
        build_before "$arch"
        # Debian's perf for the guest; its libraries come from TD_LIBDIRS.
        pv=PERF_BIN_${arch^^}
        cp "${!pv}" "$OUT/stage/$arch/perf/perf"
    done
fi

# ------------------------------------------------------------------ guests
# The guests run for minutes; run a snapshot of the runner so that an edit
# of selftests/vm/run meanwhile cannot break a run in progress (bash reads
# a script as it goes; it sources scripts/series.sh and may run
# selftests/vm/hang-dump). The snapshot's
# build/ is the real one.
SNAP=$(mktemp -d /tmp/td-bench-runner.XXXXXX)
trap 'rm -rf "$SNAP"' EXIT
mkdir -p "$SNAP/selftests/vm"
mkdir -p "$SNAP/scripts"
cp selftests/vm/run "$SNAP/selftests/vm/run"
cp scripts/series.sh "$SNAP/scripts/series.sh"
cp selftests/vm/hang-dump "$SNAP/selftests/vm/hang-dump"
ln -s "$ROOT/build" "$SNAP/build"
GUEST_ARGS=()
ICOUNT_ARGS=()
# run_guest ARCH ROUNDS REPEATS [runner options]: every mode in one boot.
run_guest() {
    local arch=$1 rounds=$2 repeats=$3 rc=0 libdirs=PERF_LIBDIRS_${1^^} perf=/add/perf/perf
    shift 3
    [ -n "$SHORT" ] && perf=
    # isolcpus/nowatchdog: no load balancing, unbound kworkers or watchdog
    # thread on the CPU the two tasks share (CPU 1).
    TD_MODULE=$OUT/stage/$arch/topdown.ko TD_TDCTL=$OUT/stage/$arch/tdctl \
        TD_SELFTESTS_DIR=$OUT/stage/$arch/selftests TD_LIBDIRS=${!libdirs:-} \
        "$SNAP/selftests/vm/run" --arch "$arch" "$@" --mem 2048 --timeout "${SHORT:+600}${SHORT:-5400}" \
        --append "isolcpus=1 nowatchdog" \
        --log "$OUT/console-$arch.log" --add "build/$arch/bench" --add "$OUT/stage/$arch/perf" -- \
        env TD_BENCH_ROUNDS="$rounds" TD_BENCH_REPEATS="$repeats" TD_BENCH_PERF="$perf" \
        TD_BENCH_ONLY="${TD_BENCH_ONLY:-}" TD_BENCH_MODES="${TD_BENCH_MODES:-*}" \
        /add/bench/guest_bench.sh \
        >"$OUT/guest-$arch.log" 2>&1 || rc=$?
    if [ $rc != 0 ]; then
        log "$arch guest exited with $rc"
        tail -n 20 "$OUT/guest-$arch.log" >&2
        echo "@@BENCH-FAIL guest exit status $rc" >>"$OUT/guest-$arch.log"
    fi
    log "$arch guest done"
}
# The guests run side by side: the arm64 figures are instruction counts,
# whatever the host's load; the x86-64 ones are wall clock either way.
PIDS=()
for arch in $ARCHES; do
    case $arch in
    arm64)
        rounds=${TD_BENCH_ROUNDS_ARM64:-5000} repeats=${TD_BENCH_REPEATS_ARM64:-5}
        run_guest arm64 "$rounds" "$repeats" --icount &
        ICOUNT_ARGS+=(--icount arm64)
        ;;
    x86_64)
        # x86-64 does not boot under -icount with this QEMU: wall clock.
        rounds=${TD_BENCH_ROUNDS_X86_64:-1000} repeats=${TD_BENCH_REPEATS_X86_64:-15}
        run_guest x86_64 "$rounds" "$repeats" &
        ;;
    *) die "unknown arch $arch" ;;
    esac
    PIDS+=($!)
    log "$arch guest: every mode in one boot ($rounds round trips x $repeats; output $REL/guest-$arch.log)"
    GUEST_ARGS+=(--guest "$arch=$OUT/guest-$arch.log")
done
wait "${PIDS[@]}"

# ------------------------------------------------------------------ reader
# reader_bench: tdctl dump -i / report -i on large generated record files,
# stat on the same records live (selftests/bench/reader/rdfile.py), into
# $OUT/reader.jsonl.
reader_bench() {
    local work=$OUT/reader
    local sets=${TD_BENCH_SETS:-qemu_arm64_max sapphire_rapids} log=$OUT/reader-build.log
    log "reader: host benchmark of tdctl on record files (log $REL/reader.log)"
    : >"$log"
    make -s -C user >>"$log" 2>&1 || die "tdctl does not build for the host ($REL/reader-build.log)"
    make -s -C selftests/bench reader >>"$log" 2>&1 || die "rdbench does not build ($REL/reader-build.log)"
    make -s -C selftests/host >>"$log" 2>&1 || die "selftests/host does not build (mkfixture)"
    rm -rf "$OUT/fixtures" "$work"
    # shellcheck disable=SC2086 # the fixtures' names are words
    build/host/mkfixture "$OUT/fixtures" $sets >/dev/null
    # shellcheck disable=SC2086
    python3 selftests/bench/reader/rdfile.py --tdctl "build/$(uname -m)/tdctl" \
        --rdbench build/host/bench/rdbench --fixtures "$OUT/fixtures" \
        --work "$work" --out "$READER" --records "${TD_BENCH_RECORDS:-4000000}" \
        --cpus 8 --ncg "${TD_BENCH_NCG:-50000}" --repeat "${TD_BENCH_REPEAT:-3}" \
        --sets $sets 2>"$OUT/reader.log" ||
        { tail -n 20 "$OUT/reader.log"; die "reader benchmark failed ($REL/reader.log)"; }
    # The files are large (128 bytes a record): only the figures stay.
    rm -rf "$work"
}

READER_ARGS=()
if [ "${TD_BENCH_READER:-1}" != 0 ]; then
    READER=$OUT/reader.jsonl
    : >"$READER"
    reader_bench
    READER_ARGS=(--reader "$READER")
fi

# ------------------------------------------------------------------ report
# --reader alone does not replace the last full run's JSON.
python3 selftests/bench/report.py \
    --out "$OUT/bench${READER_ONLY:+-reader}.json" "${GUEST_ARGS[@]}" \
    "${ICOUNT_ARGS[@]}" "${READER_ARGS[@]}"
