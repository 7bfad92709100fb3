#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# scripts/version.sh [SRCDIR]
#
# Prints the version of the topdown sources in SRCDIR (default: the tree
# this script is in), the one string that tdctl --version, the module's
# MODULE_VERSION and the packages carry.  First match wins:
#   $TD_VERSION            set by the caller (debian/rules passes the
#                          debian/changelog version)
#   git describe --tags --always --dirty, when SRCDIR is the top of a git
#                          work tree (not a folder inside another project)
#   SRCDIR/VERSION         written into release tarballs and DKMS trees
#   the first version in SRCDIR/debian/changelog
#   0.0.0+unknown
# Without a tag, git describe gives only a hash: the answer is then the
# VERSION/changelog/0.0.0 one with "+g<hash>" appended, so that it still
# starts with a digit (Debian and DKMS need that); a tag "v1.2" gives 1.2
# (and "1.2-3-g<hash>" three commits later).
set -eu

SRC=${1:-$(cd "$(dirname "$0")/.." && pwd)}

# The version without git.
base() {
    if [ -s "$SRC/VERSION" ]; then
        tr -d ' \t\r\n' <"$SRC/VERSION"
        echo
        return
    fi
    if [ -s "$SRC/debian/changelog" ]; then
        v=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$SRC/debian/changelog")
        if [ -n "$v" ]; then
            printf '%s\n' "$v"
            return
        fi
    fi
    echo 0.0.0+unknown
}

if [ -n "${TD_VERSION:-}" ]; then
    printf '%s\n' "$TD_VERSION"
    exit 0
fi
if command -v git >/dev/null 2>&1 &&
    top=$(git -C "$SRC" rev-parse --show-toplevel 2>/dev/null) &&
    [ "$(cd "$top" && pwd -P)" = "$(cd "$SRC" && pwd -P)" ] &&
    v=$(git -C "$SRC" describe --tags --always --dirty 2>/dev/null) && [ -n "$v" ]; then
    # A tag is in the answer only if describe finds one without --always.
    if git -C "$SRC" describe --tags >/dev/null 2>&1; then
        v=${v#v}
    else
        b=$(base)
        v=${b%+unknown}+g$v
    fi
    printf '%s\n' "$v"
    exit 0
fi
base
