#!/usr/bin/env bash
# scripts/kbuild.sh [--kernel 6.1|6.12] ARCH [cloud|rt]
#
# Builds the out-of-tree module in kmod/ against Debian's kernel headers.
#   ARCH      x86_64 or arm64 (cross-built)
#   flavour   cloud (default) or rt (needs scripts/deps.sh --rt; for 6.1
#             x86_64 only)
#   --kernel  the kernel series: 6.1 (default; host headers for x86_64,
#             unpacked ones for arm64) or 6.12 (unpacked headers; needs
#             scripts/deps.sh --6.12)
#
# kmod/* and include/ are copied afresh into build/<guest>/kmod-src/, where
# <guest> is <arch>[-rt] for 6.1 and <arch>[-rt]-6.12 for 6.12 (include/
# lands in kmod-src/include/, so kmod/Kbuild can use
# "ccflags-y += -I$(src)/include"), then
#   make -C $KDIR M=build/<guest>/kmod-src W=1 modules
# runs there, with KCFLAGS=-Werror: every warning of the compiler, W=1's
# included, is an error (and a clean build sees every one).
# Output: build/<guest>/*.ko (topdown.ko) and build/<guest>/kbuild.log.
#
# Environment: TD_KMOD_SRC, TD_INCLUDE_SRC (defaults kmod/ and include/),
# TD_OUT (default build/<guest>), JOBS (default nproc), TD_KDIR (a kernel
# build tree to use instead of Debian's headers: the debug kernel).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { printf 'kbuild: error: %s\n' "$*" >&2; exit 1; }
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }

SERIES=6.1
args=()
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --kernel) SERIES=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
    --kernel=*) SERIES=${1#*=}; shift ;;
    *) args+=("$1"); shift ;;
    esac
done
set -- "${args[@]}"
[ $# -ge 1 ] && [ $# -le 2 ] || { usage >&2; exit 2; }
ARCH=$1
FLAVOR=${2:-cloud}
case $SERIES in
6.1 | 6.12) ;;
*) die "unknown kernel series '$SERIES' (6.1 or 6.12)" ;;
esac
case $ARCH in
x86_64 | amd64) ARCH=x86_64 ;;
arm64 | aarch64) ARCH=arm64 ;;
*) die "unknown ARCH '$1' (x86_64 or arm64)" ;;
esac
case $FLAVOR in
cloud | rt) ;;
*) die "unknown flavour '$FLAVOR' (cloud or rt)" ;;
esac
[ "$FLAVOR-$ARCH-$SERIES" = rt-arm64-6.1 ] && die "the rt flavour of 6.1 is set up for x86_64 only"

ENV=$ROOT/build/deps/env.sh
[ -f "$ENV" ] || die "$ENV missing: run scripts/deps.sh first"
# shellcheck source=/dev/null
. "$ENV"

# KDIR_<ARCH>[_RT][_612] in env.sh
V=KDIR_${ARCH^^}$([ "$FLAVOR" = rt ] && echo _RT || true)$([ "$SERIES" = 6.12 ] && echo _612 || true)
KDIR=${TD_KDIR:-${!V:-}}
DEPS_ARGS=$([ "$FLAVOR" = rt ] && echo ' --rt' || true)$([ "$SERIES" = 6.12 ] && echo ' --6.12' || true)
[ -n "$KDIR" ] || die "$SERIES $FLAVOR headers for $ARCH not set up: run scripts/deps.sh$DEPS_ARGS"
MAKE_ARGS=()
[ "$ARCH" = arm64 ] && MAKE_ARGS=(ARCH=arm64 "CROSS_COMPILE=$CROSS_COMPILE_ARM64")
[ -f "$KDIR/Makefile" ] || die "kernel headers $KDIR missing: run scripts/deps.sh$DEPS_ARGS"

SUFFIX=$ARCH$([ "$FLAVOR" = rt ] && echo -rt || true)$([ "$SERIES" = 6.12 ] && echo -6.12 || true)
OUT=${TD_OUT:-$ROOT/build/$SUFFIX}
SRC=${TD_KMOD_SRC:-$ROOT/kmod}
INC=${TD_INCLUDE_SRC:-$ROOT/include}
[ -d "$SRC" ] || die "module sources $SRC missing"
[ -e "$SRC/Kbuild" ] || [ -e "$SRC/Makefile" ] || die "$SRC has neither Kbuild nor Makefile"

B=$OUT/kmod-src
LOG=$OUT/kbuild.log
mkdir -p "$OUT"
rm -f "$OUT"/*.ko # never leave a stale module behind a failed build
rm -rf "$B"
mkdir -p "$B"
cp -a "$SRC"/. "$B"/
if [ -d "$INC" ]; then
    rm -rf "$B/include"
    cp -a "$INC" "$B/include"
fi
# MODULE_VERSION (kmod/Kbuild reads it).
"$ROOT/scripts/version.sh" >"$B/VERSION"
# Stale objects copied from a source tree someone built in would hide warnings.
find "$B" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' -o -name '.*.cmd' \
    -o -name modules.order -o -name Module.symvers \) -delete

printf 'kbuild: %s %s %s: make -C %s M=%s W=1 KCFLAGS=-Werror modules\n' "$ARCH" "$FLAVOR" "$SERIES" "$KDIR" "$B" >&2
set +e
make -C "$KDIR" M="$B" W=1 KCFLAGS=-Werror "${MAKE_ARGS[@]}" -j"${JOBS:-$(nproc)}" modules \
    >"$LOG" 2>&1
rc=$?
set -e
cat "$LOG"
[ $rc = 0 ] || die "make failed (exit $rc); log in $LOG"

shopt -s nullglob
kos=("$B"/*.ko)
[ ${#kos[@]} -gt 0 ] || die "no .ko produced in $B"
for ko in "${kos[@]}"; do
    cp "$ko" "$OUT/"
    printf 'kbuild: built %s\n' "${OUT#"$ROOT"/}/${ko##*/}" >&2
done
