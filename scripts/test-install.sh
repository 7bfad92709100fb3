#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/test-install.sh [KVER]: make install / make uninstall into a
# DESTDIR, as TAP.  KVER: a kernel whose headers are installed (default:
# build/deps/env.sh's KREL_X86_64).  Checks the exact file list, the
# versions tdctl and the module carry, that uninstall leaves nothing, and
# that a kernel without headers installs user space only, with a message.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
KVER=${1:-}
if [ -z "$KVER" ] && [ -f build/deps/env.sh ]; then
    # shellcheck source=/dev/null
    . build/deps/env.sh
    KVER=$KREL_X86_64
fi
[ -n "$KVER" ] || { echo "usage: $0 KVER" >&2; exit 2; }

# ok, not_ok, tap_done
# shellcheck source=selftests/lib/tap.sh
. selftests/lib/tap.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/td-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
D=$T/root
mkdir -p "$D"
VER=$(scripts/version.sh)
ABI=$(sed -n 's/^#define TOPDOWN_ABI_VERSION[[:space:]]*\([0-9]*\).*/\1/p' include/uapi/linux/topdown.h)

echo "TAP version 13"
# The files make install must write, and only those.
{
    echo "lib/modules/$KVER/updates/topdown.ko"
    echo usr/local/sbin/tdctl
    echo usr/local/share/bash-completion/completions/tdctl
    echo usr/local/lib/systemd/system/topdown.service
    echo etc/default/topdown
    for f in Documentation/man/*.rst; do n8=${f##*/}; echo "usr/local/share/man/man8/${n8%.rst}.8"; done
} | LC_ALL=C sort >"$T/want"

if make -s install DESTDIR="$D" KVER="$KVER" >"$T/log" 2>&1; then
    ok "make install DESTDIR KVER=$KVER"
else
    not_ok "make install DESTDIR KVER=$KVER" "$T/log"
fi
(cd "$D" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$T/got"
if diff -u "$T/want" "$T/got" >"$T/diff"; then
    ok "installed exactly $(wc -l <"$T/want") files"
else
    not_ok "installed file list" "$T/diff"
fi
out=$("$D/usr/local/sbin/tdctl" --version 2>&1 | head -n 1)
[ "$out" = "tdctl $VER (ABI $ABI)" ] && ok "installed tdctl --version: $out" ||
    not_ok "installed tdctl --version: '$out', want 'tdctl $VER (ABI $ABI)'"
mv=$(modinfo -F version "$D/lib/modules/$KVER/updates/topdown.ko" 2>&1)
[ "$mv" = "$VER" ] && ok "installed module's MODULE_VERSION $mv" ||
    not_ok "installed module's MODULE_VERSION '$mv', want '$VER'"
# shellcheck disable=SC2016 # the unit's literal $TDCTL_LOAD_ARGS
grep -qx 'ExecStart=/usr/local/sbin/tdctl load $TDCTL_LOAD_ARGS' "$D/usr/local/lib/systemd/system/topdown.service" &&
    ok "topdown.service runs PREFIX's tdctl" ||
    not_ok "topdown.service runs PREFIX's tdctl" "$D/usr/local/lib/systemd/system/topdown.service"
mode=$(stat -c %a "$D/usr/local/sbin/tdctl" 2>/dev/null)
[ "$mode" = 755 ] && ok "tdctl mode 755" || not_ok "tdctl mode is '$mode'"

if make -s uninstall DESTDIR="$D" KVER="$KVER" >"$T/log" 2>&1; then
    ok "make uninstall"
else
    not_ok "make uninstall" "$T/log"
fi
left=$(cd "$D" && find . -mindepth 1)
[ -z "$left" ] && ok "uninstall leaves nothing in DESTDIR" ||
    { echo "$left" >"$T/left"; not_ok "uninstall leaves nothing in DESTDIR" "$T/left"; }

# Settings the user changed survive install and uninstall.
make -s install-user DESTDIR="$D" >"$T/log" 2>&1
echo 'TDCTL_LOAD_ARGS="--overwrite"' >"$D/etc/default/topdown"
make -s install-user DESTDIR="$D" >"$T/log" 2>&1
make -s uninstall-user DESTDIR="$D" >>"$T/log" 2>&1
if [ "$(cat "$D/etc/default/topdown" 2>/dev/null)" = 'TDCTL_LOAD_ARGS="--overwrite"' ] &&
    [ "$(cd "$D" && find . -type f)" = ./etc/default/topdown ]; then
    ok "a changed /etc/default/topdown is kept by install and uninstall"
else
    not_ok "a changed /etc/default/topdown is kept by install and uninstall" "$T/log"
fi
rm -rf "$D" && mkdir -p "$D"

# No headers for the kernel: user space installed, the module skipped
# with a message naming the kernel, exit status 0.
none=0.0.0-no-such-kernel
if make -s install DESTDIR="$D" KVER=$none >"$T/log" 2>&1; then
    ok "make install without the kernel's headers succeeds"
else
    not_ok "make install without the kernel's headers succeeds" "$T/log"
fi
grep -q "no headers for kernel $none.*NOT installed" "$T/log" &&
    ok "... and says the module is not installed" ||
    not_ok "... and says the module is not installed" "$T/log"
[ -x "$D/usr/local/sbin/tdctl" ] && [ ! -e "$D/lib" ] &&
    ok "... user space only" || not_ok "... user space only"
make -s uninstall DESTDIR="$D" KVER=$none >"$T/log" 2>&1
[ -z "$(cd "$D" && find . -mindepth 1)" ] && ok "uninstall again leaves nothing" ||
    not_ok "uninstall again leaves nothing" "$T/log"

# PREFIX and install-user.
if make -s install-user DESTDIR="$D" PREFIX=/opt/td >"$T/log" 2>&1 &&
    [ -x "$D/opt/td/sbin/tdctl" ] && [ -f "$D/opt/td/share/man/man8/tdctl.8" ] &&
    [ -f "$D/opt/td/lib/systemd/system/topdown.service" ] &&
    [ ! -e "$D/usr" ] && [ ! -e "$D/lib" ]; then
    ok "install-user PREFIX=/opt/td"
else
    not_ok "install-user PREFIX=/opt/td" "$T/log"
fi
make -s uninstall-user DESTDIR="$D" PREFIX=/opt/td >"$T/log" 2>&1
[ -z "$(cd "$D" && find . -mindepth 1)" ] && ok "uninstall-user PREFIX=/opt/td leaves nothing" ||
    not_ok "uninstall-user PREFIX=/opt/td leaves nothing" "$T/log"
tap_done
