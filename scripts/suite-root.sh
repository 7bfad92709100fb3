#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/suite-root.sh [--print-dir] SUITE: the build root of a Debian
# suite (bullseye or trixie), made once with debootstrap (minbase) and kept
# in /var/cache/topdown-roots/SUITE (TD_ROOTS_CACHE), outside the
# repository and never installed into /. It holds that suite's compilers
# (native and aarch64 cross), make, the C library headers and pahole:
# scripts/kbuild.sh builds the module for the kernels of that suite (5.10
# with bullseye's gcc-10; trixie's 6.12 and trixie-backports' 7.3 with
# trixie's gcc-14 and pahole 1.30) in a chroot of it. The kernel headers
# stay in build/deps/ (bind-mounted by kbuild.sh).
#
# When the package list below changes (the root's .packages file), the
# root gets the new packages with apt (made again if that fails);
# concurrent runs wait for each other (flock). Prints
# the root's path. Needs root (debootstrap, chroot). About 3 minutes a
# root on 2 cores, mostly downloads and dpkg.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/series.sh
. "$ROOT/scripts/series.sh"
die() { printf 'suite-root: error: %s\n' "$*" >&2; exit 1; }
PRINT_ONLY=0
[ "${1:-}" = --print-dir ] && { PRINT_ONLY=1; shift; }
[ $# = 1 ] || die "usage: scripts/suite-root.sh [--print-dir] bullseye|trixie"
SUITE=$1
case $SUITE in
bullseye) LIBS=libelf1,libssl1.1 ;;
trixie) LIBS=libelf1t64,libssl3t64 ;;
*) die "unknown suite '$SUITE' (bullseye or trixie)" ;;
esac
# What kbuild needs besides the compiler: libelf and libssl for the
# kbuild package's programs (objtool, sign-file), pahole for modules'
# BTF, perl for W=1's kernel-doc (6.12's needs Pod::Usage, not in
# perl-base).
PKGS=gcc,make,libc6-dev,gcc-aarch64-linux-gnu,dwarves,perl,$LIBS
CACHE=${TD_ROOTS_CACHE:-/var/cache/topdown-roots}
DIR=$CACHE/$SUITE
if [ "$PRINT_ONLY" = 1 ]; then
    printf '%s\n' "$DIR"
    exit 0
fi
[ "$(id -u)" = 0 ] || die "debootstrap needs root"
command -v debootstrap >/dev/null || die "debootstrap missing: run scripts/deps.sh"
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock-$SUITE"
flock 9
if [ -f "$DIR/.packages" ] && [ "$(cat "$DIR/.packages")" = "$PKGS" ]; then
    printf '%s\n' "$DIR"
    exit 0
fi
if [ -f "$DIR/.packages" ]; then
    printf 'suite-root: %s: installing %s\n' "$DIR" "$PKGS" >&2
    IFS=, read -ra list <<<"$PKGS"
    if chroot "$DIR" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive apt-get -q update >&2 &&
        chroot "$DIR" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
            apt-get -q -y install --no-install-recommends "${list[@]}" >&2; then
        chroot "$DIR" apt-get clean
        printf '%s\n' "$PKGS" >"$DIR/.packages"
        printf '%s\n' "$DIR"
        exit 0
    fi
    printf 'suite-root: apt-get in %s failed; making it again\n' "$DIR" >&2
fi
MIRROR=$(td_mirror main)
printf 'suite-root: debootstrap %s into %s (%s)\n' "$SUITE" "$DIR" "$PKGS" >&2
T0=$(date +%s)
rm -rf --one-file-system "$DIR.tmp"
debootstrap --variant=minbase --include="$PKGS" "$SUITE" "$DIR.tmp" "$MIRROR" >&2 ||
    die "debootstrap $SUITE failed (its log: $DIR.tmp/debootstrap/debootstrap.log)"
rm -rf "$DIR.tmp/var/cache/apt/archives/"*.deb
printf '%s\n' "$PKGS" >"$DIR.tmp/.packages"
rm -rf --one-file-system "$DIR"
mv "$DIR.tmp" "$DIR"
printf 'suite-root: %s made in %d s\n' "$SUITE" $(($(date +%s) - T0)) >&2
printf '%s\n' "$DIR"
