#!/usr/bin/env bash
# scripts/kbuild.sh ARCH [cloud|rt]
#
# Builds the out-of-tree module in kmod/ against the Debian 6.1 headers.
#   ARCH    x86_64 (host headers) or arm64 (cross, unpacked headers)
#   flavour cloud (default) or rt (x86_64 only; needs scripts/deps.sh --rt)
#
# kmod/* and include/ are copied afresh into build/<arch>[-rt]/kmod-src/
# (include/ lands in kmod-src/include/, so kmod/Kbuild can use
# "ccflags-y += -I$(src)/include"), then
#   make -C $KDIR M=build/<arch>[-rt]/kmod-src W=1 modules
# runs there.  Every build is a clean one, so every warning is seen; the
# script fails if the log contains "warning:" (compiler or modpost).
# Output: build/<arch>[-rt]/*.ko (topdown.ko) and build/<arch>[-rt]/kbuild.log.
#
# Environment: TD_KMOD_SRC, TD_INCLUDE_SRC (defaults kmod/ and include/),
# TD_OUT (default build/<arch>[-rt]), JOBS (default nproc).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { printf 'kbuild: error: %s\n' "$*" >&2; exit 1; }
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }

[ $# -ge 1 ] && [ $# -le 2 ] || { usage >&2; exit 2; }
case $1 in -h | --help) usage; exit 0 ;; esac
ARCH=$1
FLAVOR=${2:-cloud}
case $ARCH in
x86_64 | amd64) ARCH=x86_64 ;;
arm64 | aarch64) ARCH=arm64 ;;
*) die "unknown ARCH '$1' (x86_64 or arm64)" ;;
esac
case $FLAVOR in
cloud | rt) ;;
*) die "unknown flavour '$FLAVOR' (cloud or rt)" ;;
esac
[ "$FLAVOR" = rt ] && [ "$ARCH" != x86_64 ] && die "the rt flavour exists for x86_64 only"

ENV=$ROOT/build/deps/env.sh
[ -f "$ENV" ] || die "$ENV missing: run scripts/deps.sh first"
# shellcheck source=/dev/null
. "$ENV"

MAKE_ARGS=()
case $ARCH-$FLAVOR in
x86_64-cloud) KDIR=$KDIR_X86_64 ;;
x86_64-rt)
    [ -n "$KDIR_X86_64_RT" ] || die "rt headers not set up: run scripts/deps.sh --rt"
    KDIR=$KDIR_X86_64_RT
    ;;
arm64-cloud)
    KDIR=$KDIR_ARM64
    MAKE_ARGS=(ARCH=arm64 "CROSS_COMPILE=$CROSS_COMPILE_ARM64")
    ;;
esac
[ -f "$KDIR/Makefile" ] || die "kernel headers $KDIR missing: run scripts/deps.sh"

SUFFIX=$ARCH$([ "$FLAVOR" = rt ] && echo -rt || true)
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

printf 'kbuild: %s %s: make -C %s M=%s W=1 modules\n' "$ARCH" "$FLAVOR" "$KDIR" "$B" >&2
set +e
make -C "$KDIR" M="$B" W=1 "${MAKE_ARGS[@]}" -j"${JOBS:-$(nproc)}" modules >"$LOG" 2>&1
rc=$?
set -e
cat "$LOG"
[ $rc = 0 ] || die "make failed (exit $rc); log in $LOG"
if grep -qi 'warning:' "$LOG"; then
    printf 'kbuild: error: the build printed warnings (treated as errors):\n' >&2
    grep -i 'warning:' "$LOG" >&2
    exit 1
fi

shopt -s nullglob
kos=("$B"/*.ko)
[ ${#kos[@]} -gt 0 ] || die "no .ko produced in $B"
for ko in "${kos[@]}"; do
    cp "$ko" "$OUT/"
    printf 'kbuild: built %s\n' "${OUT#"$ROOT"/}/${ko##*/}" >&2
done
