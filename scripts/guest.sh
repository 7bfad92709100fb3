#!/usr/bin/env bash
# scripts/guest.sh [--arch x86_64|arm64] [--kernel SERIES] [--flavor cloud|rt]
#     [--append ARGS] [NAME...|list]: make guest. Builds what one guest needs and boots it
# to run only the guest suites NAME (guest_main.sh's, or guest_load.sh's:
# all of one script), with their setup.
#   --arch     default x86_64; arm64 guests run with -icount and
#              TD_ICOUNT=1, as make check's do
#   --kernel   the series (scripts/series.sh), default 6.1
#   --flavor   cloud (default) or rt
#   --append   kernel command-line arguments ("isolcpus=1 nohz_full=1"
#              for isolated_test, as make check boots it)
#   list       (or no NAME) the suites' names and headings
# A NAME may end in .sh (tdctl_stat_test.sh is tdctl_stat_test). The
# names are those of the "suite" lines of selftests/guest/guest_main.sh
# and guest_load.sh (their --list), the one place they are written.
# Built first, each only when out of date: the module for that kernel
# (scripts/kbuild.sh), tdctl and the selftests for ARCH, and, for a guest
# other than ARCH's 6.1 cloud one, the selftests' test modules for its
# kernel (selftests/pmusim/build.sh), as make check builds them. The
# exit status is the guest's (selftests/vm/run: 124 a kernel splat, 125
# no end), or 2 for an unknown name or option.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/series.sh
. "$ROOT/scripts/series.sh"
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }
die() { printf 'make guest: %s\n' "$*" >&2; exit 2; }

ARCH=x86_64 SERIES=6.1 FLAVOR=cloud
NAMES=()
APPEND=
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --arch) ARCH=${2:-}; shift 2 || die "--arch needs a value" ;;
    --kernel) SERIES=${2:-}; shift 2 || die "--kernel needs a value" ;;
    --flavor) FLAVOR=${2:-}; shift 2 || die "--flavor needs a value" ;;
    --append) APPEND=${2:-}; shift 2 || die "--append needs a value" ;;
    -*) usage >&2; exit 2 ;;
    *) NAMES+=("${1%.sh}"); shift ;;
    esac
done
case $ARCH in
x86_64 | amd64) ARCH=x86_64 ;;
arm64 | aarch64) ARCH=arm64 ;;
*) die "unknown ARCH=$ARCH (x86_64 or arm64)" ;;
esac
td_series_ok "$SERIES" || die "unknown KERNEL=$SERIES (${TD_SERIES[*]})"
case $FLAVOR in cloud | rt) ;; *) die "unknown FLAVOR=$FLAVOR (cloud or rt)" ;; esac

# suites: "SCRIPT NAME HEADING" for every suite of both scripts
suites() {
    local s
    for s in main load; do
        sh "selftests/guest/guest_$s.sh" --list | sed "s/^/$s /"
    done
}

if [ ${#NAMES[@]} -eq 0 ] || [ "${NAMES[*]}" = list ]; then
    echo "make guest SUITE=NAME [ARCH=x86_64|arm64] [KERNEL=$(IFS='|'; echo "${TD_SERIES[*]}")] [FLAVOR=cloud|rt]"
    echo "The suites of selftests/guest/guest_main.sh:"
    suites | sed -n 's/^main /  /p'
    echo "and of guest_load.sh (4 vCPUs):"
    suites | sed -n 's/^load /  /p'
    exit 0
fi
SCRIPT=
for n in "${NAMES[@]}"; do
    s=$(suites | awk -v n="$n" '$2 == n { print $1; exit }')
    [ -n "$s" ] || die "no guest suite '$n' (make guest SUITE=list shows them)"
    [ -z "$SCRIPT" ] || [ "$SCRIPT" = "$s" ] ||
        die "the suites of guest_main.sh and guest_load.sh run in different guests: one make guest each"
    SCRIPT=$s
done

[ -f build/deps/env.sh ] || die "build/deps/env.sh missing: run make deps first"
# shellcheck source=/dev/null
. build/deps/env.sh
GUEST=$(td_guest "$ARCH" "$FLAVOR" "$SERIES")
J=-j$(nproc)

# stale KO SOURCE...: the module KO (built by scripts/kbuild.sh) is
# missing, older than a file of SOURCE, or of another version than the
# tree's (tdctl refuses a module of another version than its own).
VERSION=$(scripts/version.sh)
stale() {
    local f=$1 v
    shift
    v=$(cat "$(dirname "$f")/kmod-src/VERSION" 2>/dev/null) || v=
    [ ! -f "$f" ] || [ "$v" != "$VERSION" ] || [ -n "$(find "$@" -newer "$f" -print -quit)" ]
}

echo "make guest: building for the $GUEST guest"
if stale "build/$GUEST/topdown.ko" kmod include scripts/kbuild.sh; then
    scripts/kbuild.sh --kernel "$SERIES" "$ARCH" "$FLAVOR" >/dev/null
fi
make -s "$J" -C user ARCH="$ARCH" ARM64_SYSROOT_LIBS="${ARM64_SYSROOT_LIBS:-}"
make -s "$J" -C selftests ARCH="$ARCH" KSELFTEST_DIR="$KSELFTEST_DIR"
# Another kernel than ARCH's 6.1 cloud one: the selftests of ARCH with
# the test modules built for that kernel (scripts/check.sh does the same).
if [ "$GUEST" != "$ARCH" ]; then
    dir=build/$GUEST/selftests
    mkdir -p "$dir"
    for f in "build/$ARCH/selftests"/*; do
        case $f in *.ko) ;; *) cp -a "$f" "$dir/" ;; esac
    done
    # Where pmusim/build.sh builds them (build/GUEST/pmusim*/).
    if stale "build/$GUEST/pmusim/td_pmusim.ko" selftests/pmusim kmod include ||
        stale "build/$GUEST/pmusim-hooks/topdown.ko" selftests/pmusim kmod include ||
        [ ! -f "$dir/td_pmusim.ko" ] || [ ! -f "$dir/topdown_hooks.ko" ] ||
        [ ! -f "$dir/td_percpu_hog.ko" ]; then
        selftests/pmusim/build.sh --kernel "$SERIES" "$ARCH" "$ROOT/$dir" "$FLAVOR" >/dev/null
    fi
fi

# The runner's options as make check gives them to this kind of guest.
RUN=(selftests/vm/run --arch "$ARCH" --flavor "$FLAVOR" --kernel "$SERIES")
[ -z "$APPEND" ] || RUN+=(--append "$APPEND")
ENV=(env "TD_SUITE=${NAMES[*]}")
if [ "$SCRIPT" = load ]; then
    RUN+=(--smp 4 --timeout 1800)
fi
if [ "$ARCH" = arm64 ]; then
    # -icount: the emulated PMU counts instructions exactly only so.
    lim=1500
    [ "$FLAVOR" = rt ] && lim=2400
    [ "$SCRIPT" = load ] && lim=$((lim + 1800))
    RUN+=(--icount --timeout "$lim")
    ENV+=(TD_ICOUNT=1)
fi
echo "make guest: ${RUN[*]} -- ${ENV[*]} /selftests/guest_$SCRIPT.sh"
exec "${RUN[@]}" -- "${ENV[@]}" "/selftests/guest_$SCRIPT.sh"
