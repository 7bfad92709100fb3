#!/usr/bin/env bash
# scripts/kbuild.sh [--kernel SERIES] ARCH [cloud|rt]
#
# Builds the out-of-tree module in kmod/ against Debian's kernel headers.
#   ARCH      x86_64 or arm64 (cross-built)
#   flavour   cloud (default) or rt (needs scripts/deps.sh --rt)
#   --kernel  the kernel series (scripts/series.sh): 6.1 (default; host
#             headers for x86_64, unpacked ones for arm64), 6.12
#             (bookworm's; scripts/deps.sh --6.12), 5.10, 6.12-trixie or
#             7.3 (scripts/deps.sh --suites)
#
# kmod/* and include/ are copied afresh into build/<guest>/kmod-src/, where
# <guest> is <arch>[-rt] for 6.1 and <arch>[-rt]-<series> for the others
# (include/ lands in kmod-src/include/, so kmod/Kbuild can use
# "ccflags-y += -I$(src)/include"), then
#   make -C $KDIR M=build/<guest>/kmod-src W=1 modules
# runs there, with KCFLAGS=-Werror: every warning of the compiler, W=1's
# included, is an error (and a clean build sees every one). The compiler
# is the host's for 6.1 and 6.12 (gcc-12, what Debian built them with),
# and that of the suite's build root for the others (a chroot of
# scripts/suite-root.sh's root; the repository bind-mounted at its own
# path in a private mount namespace), so that 5.10 gets bullseye's gcc-10
# and trixie's 6.12 and 7.3 get gcc-14 and pahole 1.30.
# Output: build/<guest>/*.ko (topdown.ko) and build/<guest>/kbuild.log.
#
# Environment: TD_KMOD_SRC, TD_INCLUDE_SRC (defaults kmod/ and include/),
# TD_OUT (default build/<guest>), JOBS (default nproc), TD_KDIR (a kernel
# build tree to use instead of Debian's headers: the debug kernel),
# TD_TEST_HOOKS=y (the selftests' build of the module, with its test hooks:
# see kmod/Kbuild; only selftests/pmusim/build.sh sets it), TD_SPARSE=1
# (also run sparse on every file, make's C=2; its findings are warnings
# in the log, which scripts/lint.sh sparse fails on).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/series.sh
. "$ROOT/scripts/series.sh"
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
td_series_ok "$SERIES" || die "unknown kernel series '$SERIES' (${TD_SERIES[*]})"
case $ARCH in
x86_64 | amd64) ARCH=x86_64 ;;
arm64 | aarch64) ARCH=arm64 ;;
*) die "unknown ARCH '$1' (x86_64 or arm64)" ;;
esac
case $FLAVOR in
cloud | rt) ;;
*) die "unknown flavour '$FLAVOR' (cloud or rt)" ;;
esac

ENV=$ROOT/build/deps/env.sh
[ -f "$ENV" ] || die "$ENV missing: run scripts/deps.sh first"
# shellcheck source=/dev/null
. "$ENV"

# KDIR_<ARCH>[_RT][_<series>] in env.sh
V=KDIR_$(td_var_suffix "$ARCH" "$FLAVOR" "$SERIES")
KDIR=${TD_KDIR:-${!V:-}}
DEPS_ARGS=$(td_deps_args "$SERIES" "$FLAVOR")
# The build root of another suite's series (BUILDROOT_<series> in env.sh).
BR=BUILDROOT$(td_series_tag "$SERIES")
BUILDROOT=${!BR:-}
[ -n "${TD_KDIR:-}" ] && BUILDROOT=''
if [ -n "$BUILDROOT" ]; then
    [ -x "$BUILDROOT/usr/bin/make" ] || die "build root $BUILDROOT missing: run scripts/deps.sh$DEPS_ARGS"
fi
[ -n "$KDIR" ] || die "$SERIES $FLAVOR headers for $ARCH not set up: run scripts/deps.sh$DEPS_ARGS"
MAKE_ARGS=()
[ "$ARCH" = arm64 ] && MAKE_ARGS=(ARCH=arm64 "CROSS_COMPILE=$CROSS_COMPILE_ARM64")
# Given to make explicitly, and never inherited from the environment.
[ "${TD_TEST_HOOKS:-}" = y ] && MAKE_ARGS+=(TD_TEST_HOOKS=y)
unset TD_TEST_HOOKS
[ "${TD_SPARSE:-}" = 1 ] && MAKE_ARGS+=(C=2)
[ -f "$KDIR/Makefile" ] || die "kernel headers $KDIR missing: run scripts/deps.sh$DEPS_ARGS"

SUFFIX=$(td_guest "$ARCH" "$FLAVOR" "$SERIES")
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
MAKE_CMD=(make -C "$KDIR" M="$B" W=1 KCFLAGS=-Werror "${MAKE_ARGS[@]}" -j"${JOBS:-$(nproc)}" modules)
set +e
if [ -n "$BUILDROOT" ]; then
    # The headers and the sources are under the repository, which is
    # bind-mounted at its own path; the mounts vanish with the namespace.
    for d in "$KDIR" "$B"; do
        case $(readlink -f "$d")/ in "$ROOT"/*) ;; *) die "$d is outside $ROOT: cannot build it in $BUILDROOT" ;; esac
    done
    [ "$(id -u)" = 0 ] || die "the build in $BUILDROOT needs root (chroot)"
    printf 'kbuild: in the build root %s (%s)\n' "$BUILDROOT" "gcc $(chroot "$BUILDROOT" gcc -dumpfullversion 2>/dev/null || echo "?")" >&2
    # shellcheck disable=SC2016 # expanded by the inner shell
    unshare -m -- sh -c 'set -e; r=$1 root=$2; shift 2
        mkdir -p "$r$root"
        mount --bind "$root" "$r$root"
        mount --bind /dev "$r/dev"
        mount -t proc proc "$r/proc"
        exec chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 "$@"' \
        sh "$BUILDROOT" "$ROOT" "${MAKE_CMD[@]}" >"$LOG" 2>&1
else
    "${MAKE_CMD[@]}" >"$LOG" 2>&1
fi
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
