#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/deb.sh: what `make deb` runs.  Builds the Debian packages
# topdown-dkms (all) and tdctl (this architecture) with dpkg-buildpackage
# from a copy of the tree in build/deb/src/ (the build never writes into
# the source tree), and leaves the binary packages, the native source
# package (.dsc, .tar.xz) and the .changes and .buildinfo files in
# build/deb/ (older ones removed first; the log in build/deb/build.log).
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
mv "$OUT"/src/*.deb "$OUT"/src/*.changes "$OUT"/src/*.buildinfo "$OUT"/src/*.dsc "$OUT"/src/*.tar.* "$OUT"/
rm -rf "$OUT/src"
printf '%s\n' "$OUT"/*.deb "$OUT"/*.changes | sed "s|^$ROOT/||"
