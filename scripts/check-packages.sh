#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/check-packages.sh: what `make check-packages` runs (slow tier).
# Does what a user does with the packages of `make deb`:
#   1. a Debian 12 root file system made with debootstrap (minbase, the
#      mirror of the host's apt sources, plus bookworm-security for 6.12),
#      with the headers of both kernel series (linux-headers-cloud-amd64,
#      6.1, and linux-headers-6.12-cloud-amd64), dkms's dependencies and
#      openssl (for DKMS's MOK key).  Built once and kept in
#      /var/cache/topdown-packages/ (TD_PACKAGES_CACHE), refreshed when the
#      kernel versions of build/deps/env.sh change; each run works on a
#      fresh overlay of it (or copy) in build/packages/root.
#   2. in it: apt install ./topdown-dkms_*.deb ./tdctl_*.deb (the
#      postinst has DKMS build the module for the installed kernels), then
#      dkms autoinstall -k for each kernel (what the kernel packages' DKMS
#      hook runs); checks dkms status, the module's version and vermagic,
#      and its signature by DKMS's MOK key (/var/lib/dkms/mok.pub); that
#      tdctl-serve.service is installed and disabled, and that the system
#      user tdctl-serve was made.
#   3. boots each kernel (6.1 and 6.12, x86-64) in QEMU with that
#      DKMS-built module and the chroot's tdctl (selftests/vm/run with
#      TD_MODULE, TD_TDCTL) and runs selftests/packages/smoke.sh: load,
#      version, dump, stat, status, unload, and the commands of the
#      package's topdown.service with its /etc/default/topdown.
#   4. apt remove: the module is gone from /lib/modules.
# Ends with "N passed, N failed"; logs in build/check-packages/.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
LOGS=$ROOT/build/check-packages
rm -rf "$LOGS"
mkdir -p "$LOGS"
# pass, fail, step, tap, finish
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"
CACHE=${TD_PACKAGES_CACHE:-/var/cache/topdown-packages}
P=$ROOT/build/packages
R=$P/root
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

echo "== dependencies and packages"
if ! scripts/deps.sh --6.12 >"$LOGS/deps.log" 2>&1; then
    tail -n 30 "$LOGS/deps.log"
    fail "scripts/deps.sh --6.12"
    finish
fi
# shellcheck source=/dev/null
. build/deps/env.sh
K61=$KREL_X86_64
K612=${KREL_X86_64_612:-}
[ -n "$K612" ] || { fail "no 6.12 kernel in build/deps/env.sh"; finish; }
step "make deb" make -s deb || finish
VER=$(dpkg-deb -f build/deb/topdown-dkms_*_all.deb Version)
echo "packages $VER; kernels $K61 and $K612"

# ------------------------------------------------------------ the root fs
MOUNTS=()
umount_all() {
    local i
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTS[i]}" 2>/dev/null; done
    MOUNTS=()
}
trap umount_all EXIT
mount_chroot() {
    local r=$1
    mount -t proc proc "$r/proc" && MOUNTS+=("$r/proc")
    mount --bind /dev "$r/dev" && MOUNTS+=("$r/dev")
    mount --bind /dev/pts "$r/dev/pts" && MOUNTS+=("$r/dev/pts")
    mount -t sysfs sysfs "$r/sys" && MOUNTS+=("$r/sys")
}
# safe_rm DIR: unmount whatever a killed run left mounted under DIR (its
# /dev is the host's), then remove it without crossing file systems.
safe_rm() {
    local m
    awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r |
        while read -r m; do umount -l "$m"; done
    rm -rf --one-file-system "$1"
}
in_root() { chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"; }

# The host's Debian mirror and security archive (deb822 or one-line
# sources): uri main|security.
mirror() {
    local m pat='security'
    m=$( {
        grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{ print $2 }'
        grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{ print $2 }'
    } | if [ "$1" = security ]; then grep "$pat"; else grep -v "$pat"; fi | head -n 1)
    if [ -z "$m" ]; then
        [ "$1" = security ] && m=http://deb.debian.org/debian-security || m=http://deb.debian.org/debian
    fi
    echo "$m"
}

# make_base DIR: debootstrap + headers of both series + dkms's needs.
make_base() {
    local b=$1 m
    m=$(mirror main)
    safe_rm "$b"
    debootstrap --variant=minbase bookworm "$b" "$m" || return 1
    printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s bookworm-security main\n' \
        "$m" "$m" "$(mirror security)" >"$b/etc/apt/sources.list"
    # No services in a chroot; no initramfs for the kernel images the 6.12
    # headers pull in (the guests boot their own initramfs).
    printf '#!/bin/sh\nexit 101\n' >"$b/usr/sbin/policy-rc.d"
    chmod 755 "$b/usr/sbin/policy-rc.d"
    mkdir -p "$b/etc/initramfs-tools"
    echo update_initramfs=no >"$b/etc/initramfs-tools/update-initramfs.conf"
    local save=$R
    R=$b
    mount_chroot "$b"
    in_root apt-get -q update &&
        in_root apt-get -q -y -o Dpkg::Options::=--force-confold install --no-install-recommends \
            "linux-headers-$K61" "linux-headers-$K612" \
            dkms openssl gcc make libc6-dev kmod libkmod2 dpkg-dev patch
    local rc=$?
    in_root apt-get clean
    umount_all
    R=$save
    return $rc
}

base=$CACHE/bookworm-$K61-$K612
mkdir -p "$CACHE"
exec 8>"$CACHE/.lock"
flock 8
if [ ! -f "$base/.done" ]; then
    echo "making the Debian 12 root file system in $base (once; several minutes)"
    for old in "$CACHE"/bookworm-*; do safe_rm "$old"; done
    if make_base "$base" >"$LOGS/debootstrap.log" 2>&1; then
        touch "$base/.done"
        pass "debootstrap bookworm + headers $K61, $K612 (cached in $base)"
    else
        tail -n 30 "$LOGS/debootstrap.log"
        fail "debootstrap bookworm + headers (log: build/check-packages/debootstrap.log)"
        finish
    fi
fi
flock -u 8
# The run's root: an overlay on the cached one (its changes in
# build/packages/upper), or a copy where overlayfs cannot be mounted.
safe_rm "$P"
mkdir -p "$R" "$P/upper" "$P/work"
if mount -t overlay overlay -o "lowerdir=$base,upperdir=$P/upper,workdir=$P/work" "$R" 2>/dev/null; then
    MOUNTS+=("$R")
else
    cp -a "$base/." "$R/" || { fail "copy of the root file system"; finish; }
fi
mount_chroot "$R"

echo "== install in the Debian 12 root"
cp build/deb/topdown-dkms_*_all.deb build/deb/tdctl_*_amd64.deb "$R/tmp/"
# The postinst builds for the installed kernels (in a chroot: those with
# headers); dkms autoinstall -k is what the kernel packages' hook
# (/etc/kernel/postinst.d/dkms) runs, and finds it done.
step "apt install ./topdown-dkms_$VER ./tdctl_$VER" \
    in_root apt-get -q -y install --no-install-recommends /tmp/topdown-dkms_"$VER"_all.deb /tmp/tdctl_"$VER"_amd64.deb
for k in "$K61" "$K612"; do
    step "dkms autoinstall -k $k" in_root dkms autoinstall -k "$k"
done
in_root dkms status >"$LOGS/dkms-status.log" 2>&1
cat "$LOGS/dkms-status.log"
for k in "$K61" "$K612"; do
    if grep -q "^topdown/$VER, $k, x86_64: installed" "$LOGS/dkms-status.log"; then
        pass "dkms status: topdown/$VER installed for $k"
    else
        fail "dkms status: topdown/$VER installed for $k"
    fi
done
tdctl_version_is() { in_root /usr/sbin/tdctl --version | grep -x "tdctl $VER (ABI [0-9]*)"; }
step "tdctl --version in the root is $VER" tdctl_version_is
# tdctl serve's unit, installed disabled, and the system user it drops to
# (the package's sysusers file, applied by its postinst).
serve_unit_disabled() {
    [ -f "$R/lib/systemd/system/tdctl-serve.service" ] &&
        [ "$(in_root systemctl is-enabled tdctl-serve.service)" = disabled ]
}
step "tdctl-serve.service installed, disabled" serve_unit_disabled
serve_user() { in_root getent passwd tdctl-serve | grep -E '^tdctl-serve:x:[1-9][0-9]{0,2}:.*:/usr/sbin/nologin$'; }
step "the system user tdctl-serve exists (nologin)" serve_user

# The DKMS-built module of each kernel, uncompressed for the guest.
KO_DIR=$P/ko
rm -rf "$KO_DIR"
mkdir -p "$KO_DIR"
for k in "$K61" "$K612"; do
    ko=''
    for f in "$R/lib/modules/$k/updates/dkms/"topdown.ko*; do
        [ -e "$f" ] && ko=$f && break
    done
    if [ -z "$ko" ]; then
        fail "DKMS module for $k in /lib/modules/$k/updates/dkms"
        continue
    fi
    case $ko in
    *.xz) xz -dc "$ko" >"$KO_DIR/topdown-$k.ko" ;;
    *.zst) zstd -qdc "$ko" >"$KO_DIR/topdown-$k.ko" ;;
    *.gz) gzip -dc "$ko" >"$KO_DIR/topdown-$k.ko" ;;
    *) cp "$ko" "$KO_DIR/topdown-$k.ko" ;;
    esac
    v=$(modinfo -F version "$KO_DIR/topdown-$k.ko")
    vm=$(modinfo -F vermagic "$KO_DIR/topdown-$k.ko")
    [ "$v" = "$VER" ] && [[ $vm == "$k "* ]] && pass "DKMS module for $k: version $v, vermagic $k" ||
        fail "DKMS module for $k: version '$v' (want $VER), vermagic '$vm'"
    signer=$(modinfo -F signer "$KO_DIR/topdown-$k.ko")
    if [ -f "$R/var/lib/dkms/mok.pub" ] && [ -n "$signer" ] &&
        openssl x509 -inform DER -in "$R/var/lib/dkms/mok.pub" -noout -subject 2>/dev/null |
        grep -qF "$signer"; then
        pass "DKMS module for $k signed by the MOK key /var/lib/dkms/mok.pub ($signer)"
    else
        fail "DKMS module for $k signed by /var/lib/dkms/mok.pub (signer '$signer')"
    fi
done

echo "== guests with the DKMS-built module"
guest() {
    local series=$1 k=$2 log
    log=$LOGS/guest-$series.tap
    if [ ! -f "$KO_DIR/topdown-$k.ko" ]; then
        fail "guest $series: no DKMS module"
        return
    fi
    TD_MODULE=$KO_DIR/topdown-$k.ko TD_TDCTL=$R/usr/sbin/tdctl TD_SELFTESTS_DIR=/nonexistent \
        selftests/vm/run --arch x86_64 --kernel "$series" --log "$LOGS/console-$series.log" \
        --add selftests/packages/smoke.sh --add selftests/lib/tap.sh \
        --add "$R/lib/systemd/system/topdown.service" --add "$R/etc/default/topdown" -- env TD_VERSION="$VER" sh /add/smoke.sh >"$log" 2>&1
    local rc=$?
    tap "guest $series ($k)" "$log"
    case $rc in
    0) pass "guest $series: booted, smoke suite passed, console clean" ;;
    124) fail "guest $series: kernel splat (see build/check-packages/console-$series.log)" ;;
    *) fail "guest $series: exit $rc (see build/check-packages/console-$series.log)" ;;
    esac
}
guest 6.1 "$K61"
guest 6.12 "$K612"

echo "== remove"
step "apt remove topdown-dkms tdctl" in_root apt-get -q -y remove topdown-dkms tdctl
left=$(ls "$R"/lib/modules/*/updates/dkms/topdown.ko* 2>/dev/null)
[ -z "$left" ] && pass "apt remove: no topdown module left in /lib/modules" ||
    fail "apt remove left $left"
umount_all
# The run's root is kept only when something failed.
[ "$FAIL" = 0 ] && safe_rm "$P"
finish
