#!/usr/bin/env bash
# selftests/pmusim/build.sh ARCH [OUTDIR]
#
# Builds the test-only simulated PMU module td_pmusim.ko for the guest of
# ARCH (x86_64 or arm64) with scripts/kbuild.sh (clean build, W=1, any
# warning fails) and puts it into OUTDIR (default build/ARCH/selftests),
# which selftests/vm/run copies to /selftests in the guest. Never installed.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ $# -ge 1 ] && [ $# -le 2 ] || { sed -n '2,8s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2; exit 2; }
case $1 in
x86_64 | amd64) ARCH=x86_64 ;;
arm64 | aarch64) ARCH=arm64 ;;
*) echo "pmusim: unknown ARCH '$1' (x86_64 or arm64)" >&2; exit 2 ;;
esac
OUT=${2:-$ROOT/build/$ARCH/selftests}
# Called from make: the kernel build must not inherit make's flags (a
# jobserver it cannot use makes make print warnings, which fail the build).
unset MAKEFLAGS MFLAGS MAKELEVEL
WORK=$ROOT/build/$ARCH/pmusim
rm -f "$OUT/td_pmusim.ko"
TD_KMOD_SRC=$ROOT/selftests/pmusim TD_INCLUDE_SRC=/nonexistent TD_OUT=$WORK \
    "$ROOT/scripts/kbuild.sh" "$ARCH"
mkdir -p "$OUT"
cp "$WORK/td_pmusim.ko" "$OUT/td_pmusim.ko"
echo "pmusim: built ${OUT#"$ROOT"/}/td_pmusim.ko" >&2
