#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/deb.sh: what `make deb` runs.  Builds the Debian packages
# topdown-dkms (all) and tdctl (this architecture) with dpkg-buildpackage
# from a copy of the tree in build/deb/src/ (the build never writes into
# the source tree), then tdctl for arm64, cross-built (dpkg-buildpackage
# -a arm64 -B, against the arm64 libraries scripts/deps.sh unpacked; with
# the native package's library dependencies, checked to be the same
# libraries), and leaves the binary packages, the native source
# package (.dsc, .tar.xz) and the .changes and .buildinfo files in
# build/deb/ (older ones removed first; the logs in build/deb/build.log
# and build-arm64.log). TD_DEB_ARM64=0 skips the arm64 package.
#
# The version is debian/changelog's.  When git describes the tree as
# something else (commits after the release, local changes), the copy's
# changelog gets a snapshot entry on top:
#   <changelog version>+git<commit time YYYYmmddHHMMSS>.<hash>[.dirty]
# so that each rebuild sorts after the one before and apt upgrades to it.
# TD_DEB_VERSION=... sets the version outright.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/build/deb
die() { printf 'deb: error: %s\n' "$*" >&2; exit 1; }

for t in dpkg-buildpackage dpkg-parsechangelog dh dh_dkms dh_bash-completion rst2man; do
    command -v "$t" >/dev/null || die "$t missing: run scripts/deps.sh"
done

CL=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
VER=${TD_DEB_VERSION:-}
if [ -z "$VER" ]; then
    VER=$CL
    if git -C "$ROOT" rev-parse --show-toplevel >/dev/null 2>&1 &&
        [ "$("$ROOT/scripts/version.sh")" != "$CL" ]; then
        when=$(git -C "$ROOT" log -1 --format=%cd --date=format-local:%Y%m%d%H%M%S)
        VER=$CL+git$when.$(git -C "$ROOT" rev-parse --short HEAD)
        git -C "$ROOT" diff --quiet HEAD -- 2>/dev/null || VER=$VER.dirty
    fi
fi

rm -rf "$OUT"
mkdir -p "$OUT/src"
S=$OUT/src/topdown-$VER
mkdir -p "$S"
tar -C "$ROOT" --exclude=./build --exclude=./.git -cf - . | tar -C "$S" -xf -
if [ "$VER" != "$CL" ]; then
    entry=$(
        printf 'topdown (%s) unstable; urgency=medium\n\n' "$VER"
        printf '  * Snapshot of %s.\n\n' "$("$ROOT/scripts/version.sh")"
        printf ' -- %s  %s\n\n' "$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Maintainer)" "$(date -R)"
    )
    printf '%s\n\n' "$entry" | cat - "$ROOT/debian/changelog" >"$S/debian/changelog"
fi

echo "deb: building topdown $VER in ${S#"$ROOT"/}" >&2
(cd "$S" && dpkg-buildpackage -us -uc) >"$OUT/build.log" 2>&1 || {
    tail -n 40 "$OUT/build.log" >&2
    die "dpkg-buildpackage failed; log in ${OUT#"$ROOT"/}/build.log"
}

# tdctl for arm64 (Debian 12 and 13 run on both architectures).
if [ "${TD_DEB_ARM64:-1}" = 1 ] && [ "$(dpkg --print-architecture)" = amd64 ]; then
    [ -f "$ROOT/build/deps/env.sh" ] || die "build/deps/env.sh missing: run scripts/deps.sh (the arm64 libraries)"
    # shellcheck source=/dev/null
    . "$ROOT/build/deps/env.sh"
    shl=$(sed -n 's/^shlibs:Depends=//p' "$S/debian/tdctl.substvars")
    [ -n "$shl" ] || die "no shlibs:Depends in the amd64 build's debian/tdctl.substvars"
    # The libraries each binary needs; the dynamic loader (which the arm64
    # link names, the x86-64 one does not) is libc6's on both.
    needed() { readelf -dW "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -v '^ld-linux' | sort; }
    want=$(needed "$S/debian/build/tdctl")
    echo "deb: cross-building tdctl for arm64" >&2
    (cd "$S" && TD_ARM64_SYSROOT_LIBS=$ARM64_SYSROOT_LIBS TD_CROSS_SHLIBS=$shl \
        dpkg-buildpackage -a arm64 -B -d -us -uc) >"$OUT/build-arm64.log" 2>&1 || {
        tail -n 40 "$OUT/build-arm64.log" >&2
        die "dpkg-buildpackage -a arm64 failed; log in ${OUT#"$ROOT"/}/build-arm64.log"
    }
    got=$(needed "$S/debian/build/tdctl")
    [ "$got" = "$want" ] ||
        die "the arm64 tdctl needs other libraries than the amd64 one: $(echo "$got" | tr '\n' ' ')vs $(echo "$want" | tr '\n' ' ')"
fi
mv "$OUT"/src/*.deb "$OUT"/src/*.changes "$OUT"/src/*.buildinfo "$OUT"/src/*.dsc "$OUT"/src/*.tar.* "$OUT"/
rm -rf "$OUT/src"
printf '%s\n' "$OUT"/*.deb "$OUT"/*.changes | sed "s|^$ROOT/||"
