#!/usr/bin/env bash
# selftests/pmusim/build.sh [--kernel SERIES | --kdir DIR] ARCH [OUTDIR [FLAVOR]]
#
# Builds the selftests' test-only modules for the guest of ARCH (x86_64 or
# arm64), kernel series --kernel (default 6.1; any of
# scripts/series.sh, built as the module is) and FLAVOR (cloud, the
# default, or rt), or against the kernel build tree DIR (the debug kernel),
# with scripts/kbuild.sh (clean build, W=1, any warning fails), and puts
# them into OUTDIR (default build/ARCH/selftests), which selftests/vm/run
# copies to /selftests in the guest:
#   td_pmusim.ko       the simulated PMU
#   topdown_hooks.ko   the topdown module built with its test hooks
#                      (TD_TEST_HOOKS=y, see kmod/Kbuild): the parameter
#                      test_pmu_type that lets the simulated PMU's type
#                      through; loaded by the tests that need it instead of
#                      the shipped module (its module name is "topdown")
# Never installed. The one way they are built: selftests/Makefile,
# scripts/check.sh and scripts/check-debug.sh call this script.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/series.sh
. "$ROOT/scripts/series.sh"
usage() { sed -n '2,18s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2; exit 2; }
SERIES=6.1
KDIR=
case ${1:-} in
--kernel) SERIES=${2:-}; shift 2 || usage ;;
--kernel=*) SERIES=${1#*=}; shift ;;
--kdir) KDIR=${2:-}; shift 2 || usage ;;
esac
[ $# -ge 1 ] && [ $# -le 3 ] || usage
case $1 in
x86_64 | amd64) ARCH=x86_64 ;;
arm64 | aarch64) ARCH=arm64 ;;
*) echo "pmusim: unknown ARCH '$1' (x86_64 or arm64)" >&2; exit 2 ;;
esac
FLAVOR=${3:-cloud}
GUEST=$(td_guest "$ARCH" "$FLAVOR" "$SERIES")
OUT=${2:-$ROOT/build/$ARCH/selftests}
# Called from make: the kernel build must not inherit make's flags (a
# jobserver it cannot use makes make print warnings, which fail the build).
unset MAKEFLAGS MFLAGS MAKELEVEL
WORK=$ROOT/build/$GUEST/pmusim
# Another kernel tree: the build goes beside OUTDIR, not into it (the
# guest gets OUTDIR).
[ -z "$KDIR" ] || WORK=$(dirname "$OUT")/pmusim
rm -f "$OUT/td_pmusim.ko" "$OUT/td_percpu_hog.ko"
# The module's kmod/td_compat.h (td_hrtimer_setup()) and its feature
# tests (td_compat.mk), as include/.
INC=$WORK-include
rm -rf "$INC"
mkdir -p "$INC"
cp "$ROOT/kmod/td_compat.h" "$ROOT/kmod/td_compat.mk" "$INC/"
TD_KDIR=$KDIR TD_KMOD_SRC=$ROOT/selftests/pmusim TD_INCLUDE_SRC=$INC TD_OUT=$WORK \
    "$ROOT/scripts/kbuild.sh" --kernel "$SERIES" "$ARCH" "$FLAVOR"
mkdir -p "$OUT"
cp "$WORK/td_pmusim.ko" "$WORK/td_percpu_hog.ko" "$OUT/"
echo "pmusim: built ${OUT#"$ROOT"/}/td_pmusim.ko and td_percpu_hog.ko ($GUEST)" >&2
rm -f "$OUT/topdown_hooks.ko"
TD_KDIR=$KDIR TD_TEST_HOOKS=y TD_OUT=$WORK-hooks \
    "$ROOT/scripts/kbuild.sh" --kernel "$SERIES" "$ARCH" "$FLAVOR"
cp "$WORK-hooks/topdown.ko" "$OUT/topdown_hooks.ko"
echo "pmusim: built ${OUT#"$ROOT"/}/topdown_hooks.ko ($GUEST)" >&2
