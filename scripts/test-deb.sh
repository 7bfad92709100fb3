#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/test-deb.sh [KVER]: checks the packages of make deb in
# build/deb/ (TAP), without installing them: control fields, the DKMS
# source tree (dkms.conf, VERSION, the UAPI header; dkms builds it for
# KVER, default build/deps/env.sh's KREL_X86_64, in private trees, and
# the module carries the package version and DKMS's signature), tdctl
# --version, topdown.service and tdctl-serve.service installed and not
# enabled, checked with systemd-analyze verify in a root made of the
# host's units and the tdctl package, and the system user tdctl-serve
# that the package's sysusers file makes (systemd-sysusers --root on a
# copy of the host's user database: no systemd needs to run).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
KVER=${1:-}
if [ -z "$KVER" ] && [ -f build/deps/env.sh ]; then
    # shellcheck source=/dev/null
    . build/deps/env.sh
    KVER=$KREL_X86_64
fi
# ok, not_ok, tap_done
# shellcheck source=selftests/lib/tap.sh
. selftests/lib/tap.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/td-deb.XXXXXX")
trap 'rm -rf "$T"' EXIT
echo "TAP version 13"

shopt -s nullglob
dkms=(build/deb/topdown-dkms_*_all.deb)
tdctl=(build/deb/tdctl_*_"$(dpkg --print-architecture)".deb)
if [ ${#dkms[@]} != 1 ] || [ ${#tdctl[@]} != 1 ]; then
    not_ok "one topdown-dkms and one tdctl package in build/deb (run make deb)"
    tap_done
    exit 1
fi
ok "build/deb has ${dkms[0]##*/} and ${tdctl[0]##*/}"
VER=$(dpkg-deb -f "${dkms[0]}" Version)
ABI=$(sed -n 's/^#define TOPDOWN_ABI_VERSION[[:space:]]*\([0-9]*\).*/\1/p' include/uapi/linux/topdown.h)

field() { dpkg-deb -f "$1" "$2"; }
[ "$(field "${dkms[0]}" Architecture)" = all ] && [[ $(field "${dkms[0]}" Depends) == dkms* ]] &&
    ok "topdown-dkms: Architecture all, Depends dkms" ||
    not_ok "topdown-dkms: Architecture all, Depends dkms ($(field "${dkms[0]}" Depends))"
# The libraries tdctl links (user/libs.mk), through shlibs: libkmod,
# libbpf, OpenSSL (serve's TLS), libyaml (its web config), libxcrypt.
depends_libs() {
    local d l
    d=$(field "$1" Depends)
    for l in libkmod2 libbpf1 libssl3 libyaml-0-2 libcrypt1; do
        [[ ", $d," == *", $l "* || ", $d," == *", $l,"* ]] || return 1
    done
}
[ "$(field "${tdctl[0]}" Version)" = "$VER" ] && depends_libs "${tdctl[0]}" &&
    [ "$(field "${tdctl[0]}" Recommends)" = topdown-dkms ] &&
    ok "tdctl $VER: Depends libkmod2, libbpf1, libssl3, libyaml-0-2, libcrypt1 (shlibs), Recommends topdown-dkms" ||
    not_ok "tdctl: version, Depends, Recommends ($(field "${tdctl[0]}" Depends))"

# The DKMS tree.
dpkg-deb -x "${dkms[0]}" "$T/dkms"
S=$T/dkms/usr/src/topdown-$VER
conf=$S/dkms.conf
if [ -f "$conf" ] && grep -qx "PACKAGE_VERSION=\"$VER\"" "$conf" &&
    grep -qx 'PACKAGE_NAME="topdown"' "$conf" && grep -qx 'BUILT_MODULE_NAME\[0\]="topdown"' "$conf" &&
    grep -qx 'AUTOINSTALL="yes"' "$conf"; then
    ok "dkms.conf in /usr/src/topdown-$VER with its version"
else
    not_ok "dkms.conf in /usr/src/topdown-$VER with its version" "$conf"
fi
[ "$(cat "$S/VERSION" 2>/dev/null)" = "$VER" ] && [ -f "$S/include/uapi/linux/topdown.h" ] &&
    [ -f "$S/Kbuild" ] && ok "the tree has VERSION, Kbuild and the UAPI header" ||
    not_ok "the tree has VERSION, Kbuild and the UAPI header"
# DKMS itself builds the package's tree (dkms.conf's MAKE and module
# name), in trees of its own and with a key of its own: nothing of the
# host's /var/lib/dkms or /usr/src is used.
if [ -n "$KVER" ] && [ -f "/lib/modules/$KVER/build/Makefile" ] && command -v dkms >/dev/null; then
    mkdir -p "$T/dkmstree"
    if mok_signing_key=$T/mok.key mok_certificate=$T/mok.pub \
        dkms build -m topdown -v "$VER" --sourcetree "$T/dkms/usr/src" --dkmstree "$T/dkmstree" \
        -k "$KVER" >"$T/log" 2>&1; then
        ok "dkms build topdown/$VER -k $KVER"
    else
        not_ok "dkms build topdown/$VER -k $KVER" "$T/log"
    fi
    ko=$(find "$T/dkmstree/topdown/$VER/$KVER" -name 'topdown.ko*' | head -n 1)
    if [ -n "$ko" ] && [ "$(modinfo -F version "$ko")" = "$VER" ] &&
        [ "$(modinfo -F signer "$ko")" = "DKMS module signing key" ]; then
        ok "DKMS's module: version $VER, signed with DKMS's MOK key"
    else
        not_ok "DKMS's module: version, signer ('${ko:-no module}')" "$T/log"
    fi
else
    ok "dkms build # SKIP no dkms or no headers for '$KVER'"
fi

# tdctl
dpkg-deb -x "${tdctl[0]}" "$T/root"
out=$("$T/root/usr/sbin/tdctl" --version 2>&1 | head -n 1)
[ "$out" = "tdctl $VER (ABI $ABI)" ] && ok "packaged tdctl --version: $out" ||
    not_ok "packaged tdctl --version: '$out'"
dpkg-deb -e "${tdctl[0]}" "$T/ctl"
grep -qx /etc/default/topdown "$T/ctl/conffiles" 2>/dev/null &&
    ok "/etc/default/topdown is a conffile" || not_ok "/etc/default/topdown is a conffile"
# dh_installsystemd --no-enable: enable only what was enabled before.
for unit in topdown.service tdctl-serve.service; do
    [ -f "$T/root/lib/systemd/system/$unit" ] &&
        grep -q "deb-systemd-helper debian-installed '$unit'" "$T/ctl/postinst" &&
        ! grep -q "deb-systemd-helper enable '$unit'.*|| true$" <(
            sed -n "/debian-installed/,\$!p" "$T/ctl/postinst") &&
        ok "$unit installed, not enabled on install (kept enabled only if it was)" ||
        not_ok "$unit installed, not enabled on install" "$T/ctl/postinst"
done

# The user serve drops to: the package's sysusers file, which postinst
# hands to systemd-sysusers. Made here in a copy of the host's user
# database, as systemd-sysusers --root does it for a root that is not
# running.
conf=$T/root/usr/lib/sysusers.d/tdctl.conf
if [ -f "$conf" ] && grep -q '^ *systemd-sysusers .* tdctl.conf$' "$T/ctl/postinst"; then
    ok "usr/lib/sysusers.d/tdctl.conf, applied by postinst"
else
    not_ok "usr/lib/sysusers.d/tdctl.conf, applied by postinst" "$T/ctl/postinst"
fi
mkdir -p "$T/users/etc" "$T/users/usr/lib/sysusers.d"
cp /etc/passwd /etc/group "$T/users/etc/"
cp "$conf" "$T/users/usr/lib/sysusers.d/" 2>/dev/null
if systemd-sysusers --root="$T/users" tdctl.conf >"$T/sysusers" 2>&1; then
    IFS=: read -r name _ uid gid _ home shell < <(grep '^tdctl-serve:' "$T/users/etc/passwd")
    if [ "${name:-}" = tdctl-serve ] && [ "$uid" -gt 0 ] && [ "$uid" -lt 1000 ] &&
        [ "$shell" = /usr/sbin/nologin ] && [ "$home" = / ] &&
        grep -q "^tdctl-serve:x:$gid:$" "$T/users/etc/group"; then
        ok "systemd-sysusers makes the system user tdctl-serve (uid $uid, gid $gid, nologin)"
    else
        not_ok "systemd-sysusers makes the system user tdctl-serve" "$T/users/etc/passwd"
    fi
else
    not_ok "systemd-sysusers --root with the package's tdctl.conf" "$T/sysusers"
fi

# systemd-analyze verify: the unit's keys, its ExecStart/ExecStop binary,
# its man pages, its dependencies, in a root of the host's units + tdctl
# + /bin/sh.
# The units may run what every Debian system has (the shell of the
# Essential package dash, for the reload of tdctl-serve.service).
mkdir -p "$T/root/bin"
cp -L /bin/sh "$T/root/bin/sh"
mkdir -p "$T/root/lib/systemd/system.host"
cp -a /lib/systemd/system/. "$T/root/lib/systemd/system.host/"
cp -an "$T/root/lib/systemd/system.host/." "$T/root/lib/systemd/system/"
for unit in topdown.service tdctl-serve.service; do
    if MANPATH=$T/root/usr/share/man systemd-analyze verify --root="$T/root" "$unit" \
        >"$T/verify" 2>&1 && [ ! -s "$T/verify" ]; then
        ok "systemd-analyze verify $unit: clean"
    else
        not_ok "systemd-analyze verify $unit" "$T/verify"
    fi
done
tap_done
