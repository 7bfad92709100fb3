#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# scripts/dkms-tree.sh DEST [VERSION]
#
# Lays out the module's stand-alone source tree in DEST (created; must not
# exist or be empty): the files of kmod/, include/uapi/linux/topdown.h
# (kmod/Kbuild looks in $(src)/include), VERSION (MODULE_VERSION; default
# scripts/version.sh) and dkms.conf with its version filled in. It builds
# with "make -C KDIR M=DEST modules" without the rest of the project: the
# tree DKMS uses (/usr/src/topdown-VERSION), and the one make install
# builds from.  With TD_DKMS_CONF=0 there is no dkms.conf (dh_dkms
# installs it in the package).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 DEST [VERSION]" >&2; exit 2; }
DEST=$1
VERSION=${2:-$("$ROOT/scripts/version.sh")}
if [ -e "$DEST" ] && [ -n "$(ls -A "$DEST")" ]; then
    echo "dkms-tree: $DEST exists and is not empty" >&2
    exit 1
fi
mkdir -p "$DEST/include/uapi/linux"
for f in "$ROOT"/kmod/Kbuild "$ROOT"/kmod/Makefile "$ROOT"/kmod/*.mk "$ROOT"/kmod/*.c "$ROOT"/kmod/*.h; do
    cp "$f" "$DEST/"
done
cp "$ROOT/include/uapi/linux/topdown.h" "$DEST/include/uapi/linux/"
printf '%s\n' "$VERSION" >"$DEST/VERSION"
if [ "${TD_DKMS_CONF:-1}" != 0 ]; then
    sed "s/#MODULE_VERSION#/$VERSION/" "$ROOT/dkms.conf" >"$DEST/dkms.conf"
fi
