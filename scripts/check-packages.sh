#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/check-packages.sh: what `make check-packages` runs (slow tier).
# Does what a user does with the packages of `make deb`, on Debian 12
# (bookworm) and Debian 13 (trixie):
#   1. a root file system made with debootstrap (minbase, the mirror of
#      the host's apt sources) with the headers of the kernels below,
#      dkms's dependencies and openssl (for DKMS's MOK key):
#        bookworm: 6.1 (linux-headers-<6.1.0-N>-cloud-amd64) and 6.12
#                  (bookworm-security's linux-headers-<6.12.N+deb12>-...)
#        trixie:   6.12 (trixie's, built with gcc-14) and 7.3
#                  (trixie-backports')
#      at the versions of build/deps/env.sh (the guests boot those).
#      Built once per suite and kept in /var/cache/topdown-packages/
#      (TD_PACKAGES_CACHE), made again when those versions change; each
#      run works on a fresh overlay of it (or copy) in
#      build/packages/<suite>/root.
#   2. in it: apt install ./topdown-dkms_*.deb ./tdctl_*.deb (the
#      postinst has DKMS build the module for the installed kernels), then
#      dkms autoinstall -k for each kernel (what the kernel packages' DKMS
#      hook runs); checks dkms status, the module's version and vermagic,
#      and its signature by DKMS's MOK key (/var/lib/dkms/mok.pub); that
#      tdctl-serve.service is installed and disabled, that the system
#      user tdctl-serve was made, and that the suite's own systemd-analyze
#      security scores the installed unit "OK" or better.
#   3. boots each kernel (x86-64) in QEMU with that DKMS-built module and
#      the root's tdctl, with the root's libraries (selftests/vm/run with
#      TD_MODULE, TD_TDCTL, TD_SYSROOT) and runs
#      selftests/packages/smoke.sh: load, version, dump, stat, status,
#      unload, and the commands of the package's topdown.service with its
#      /etc/default/topdown.
#   4. apt remove: the module is gone from /lib/modules.
#   5. tdctl's arm64 package: apt resolves its dependencies for a fresh
#      arm64 system of the suite (apt-get -s with arm64 lists).
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
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

echo "== dependencies and packages"
if ! scripts/deps.sh --6.12 --suites >"$LOGS/deps.log" 2>&1; then
    tail -n 30 "$LOGS/deps.log"
    fail "scripts/deps.sh --6.12 --suites"
    finish
fi
# shellcheck source=/dev/null
. build/deps/env.sh
# shellcheck source=scripts/series.sh
. scripts/series.sh
for v in KREL_X86_64_612 KREL_X86_64_612_TRIXIE KREL_X86_64_73; do
    [ -n "${!v:-}" ] || { fail "no $v in build/deps/env.sh"; finish; }
done
step "make deb" make -s deb || finish
VER=$(dpkg-deb -f build/deb/topdown-dkms_*_all.deb Version)
echo "packages $VER"

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
R=
in_root() { chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"; }

# make_base DIR SUITE SOURCES KREL...: debootstrap SUITE, the apt
# SOURCES lines, the headers of each KREL and dkms's needs.
make_base() {
    local b=$1 suite=$2 sources=$3 m k hdrs=()
    shift 3
    for k in "$@"; do hdrs+=("linux-headers-$k"); done
    m=$(td_mirror main)
    safe_rm "$b"
    debootstrap --variant=minbase "$suite" "$b" "$m" || return 1
    printf '%s\n' "$sources" >"$b/etc/apt/sources.list"
    # No services in a chroot; no initramfs for kernel images the headers
    # may pull in (the guests boot their own initramfs).
    printf '#!/bin/sh\nexit 101\n' >"$b/usr/sbin/policy-rc.d"
    chmod 755 "$b/usr/sbin/policy-rc.d"
    mkdir -p "$b/etc/initramfs-tools"
    echo update_initramfs=no >"$b/etc/initramfs-tools/update-initramfs.conf"
    local save=$R
    R=$b
    mount_chroot "$b"
    # Backports are not installed by default: name the headers' release.
    in_root apt-get -q update &&
        in_root apt-get -q -y -o Dpkg::Options::=--force-confold install --no-install-recommends \
            dkms openssl gcc make libc6-dev kmod dpkg-dev patch &&
        in_root apt-get -q -y -o Dpkg::Options::=--force-confold install --no-install-recommends \
            ${BACKPORTS:+-t "$BACKPORTS"} "${hdrs[@]}"
    local rc=$?
    in_root apt-get clean
    umount_all
    R=$save
    return $rc
}

# packages SUITE SOURCES "SERIES KREL"...: steps 1 to 4 in a root of SUITE
# whose apt SOURCES have the headers of each kernel KREL of SERIES.
packages() {
    local suite=$1 sources=$2 base sk series k krels=() P
    shift 2
    for sk in "$@"; do krels+=("${sk#* }"); done
    echo "== Debian $suite: kernels ${krels[*]}"
    CACHE=${TD_PACKAGES_CACHE:-/var/cache/topdown-packages}
    base=$CACHE/$suite-$(printf '%s\n' "${krels[@]}" | sha256sum | cut -c1-12)
    mkdir -p "$CACHE"
    exec 8>"$CACHE/.lock"
    flock 8
    if [ ! -f "$base/.done" ]; then
        echo "making the Debian $suite root file system in $base (once; several minutes)"
        for old in "$CACHE/$suite"-*; do safe_rm "$old"; done
        local t0
        t0=$(date +%s)
        if make_base "$base" "$suite" "$sources" "${krels[@]}" >"$LOGS/debootstrap-$suite.log" 2>&1; then
            touch "$base/.done"
            pass "debootstrap $suite + headers ${krels[*]} (cached in $base; $(($(date +%s) - t0)) s)"
        else
            tail -n 30 "$LOGS/debootstrap-$suite.log"
            fail "debootstrap $suite + headers (log: build/check-packages/debootstrap-$suite.log)"
            flock -u 8
            return
        fi
    fi
    flock -u 8
    # The run's root: an overlay on the cached one (its changes in
    # build/packages/<suite>/upper), or a copy where overlayfs cannot be
    # mounted.
    P=$ROOT/build/packages/$suite
    R=$P/root
    safe_rm "$P"
    mkdir -p "$R" "$P/upper" "$P/work"
    if mount -t overlay overlay -o "lowerdir=$base,upperdir=$P/upper,workdir=$P/work" "$R" 2>/dev/null; then
        MOUNTS+=("$R")
    else
        cp -a "$base/." "$R/" || { fail "copy of the $suite root file system"; return; }
    fi
    mount_chroot "$R"

    cp build/deb/topdown-dkms_*_all.deb build/deb/tdctl_*_amd64.deb "$R/tmp/"
    # The postinst builds for the installed kernels (in a chroot: those
    # with headers); dkms autoinstall -k is what the kernel packages' hook
    # (/etc/kernel/postinst.d/dkms) runs, and finds it done.
    step "$suite: apt install ./topdown-dkms_$VER ./tdctl_$VER" \
        in_root apt-get -q -y install --no-install-recommends /tmp/topdown-dkms_"$VER"_all.deb /tmp/tdctl_"$VER"_amd64.deb
    for k in "${krels[@]}"; do
        step "$suite: dkms autoinstall -k $k" in_root dkms autoinstall -k "$k"
    done
    in_root dkms status >"$LOGS/dkms-status-$suite.log" 2>&1
    cat "$LOGS/dkms-status-$suite.log"
    for k in "${krels[@]}"; do
        if grep -q "^topdown/$VER, $k, x86_64: installed" "$LOGS/dkms-status-$suite.log"; then
            pass "$suite: dkms status: topdown/$VER installed for $k"
        else
            fail "$suite: dkms status: topdown/$VER installed for $k"
        fi
    done
    tdctl_version_is() { in_root /usr/sbin/tdctl --version | grep -x "tdctl $VER (ABI [0-9]*)"; }
    step "$suite: tdctl --version in the root is $VER" tdctl_version_is
    # tdctl serve's unit, installed disabled, and the system user it drops
    # to (the package's sysusers file, applied by its postinst).
    serve_unit_disabled() {
        { [ -f "$R/lib/systemd/system/tdctl-serve.service" ] ||
            [ -f "$R/usr/lib/systemd/system/tdctl-serve.service" ]; } &&
            [ "$(in_root systemctl is-enabled tdctl-serve.service)" = disabled ]
    }
    step "$suite: tdctl-serve.service installed, disabled" serve_unit_disabled
    serve_user() { in_root getent passwd tdctl-serve | grep -E '^tdctl-serve:x:[1-9][0-9]{0,2}:.*:/usr/sbin/nologin$'; }
    step "$suite: the system user tdctl-serve exists (nologin)" serve_user
    # Its hardening as the suite's own systemd scores it (252 in Debian
    # 12, 257 in Debian 13: each version weighs more settings): "OK" or
    # better, i.e. an exposure below 5.0 of 10.
    local sec score level
    sec=$LOGS/security-$suite.log
    in_root systemd-analyze security --offline=yes tdctl-serve.service >"$sec" 2>&1
    read -r score level < <(sed -n 's/^.*Overall exposure level for tdctl-serve.service: \([0-9.]*\) \([A-Z]*\).*/\1 \2/p' "$sec")
    case ${level:-} in
    OK | SAFE | PERFECT)
        pass "$suite: systemd-analyze security tdctl-serve.service: $score $level ($(in_root systemd-analyze --version | sed -n '1s/ (.*//p'))" ;;
    *)
        fail "$suite: systemd-analyze security tdctl-serve.service: '${score:-}' '${level:-}', want OK or better (log: ${sec#"$ROOT"/})"
        tail -n 30 "$sec" | sed 's/^/    /' ;;
    esac

    # The DKMS-built module of each kernel, uncompressed for the guest.
    local KO_DIR=$P/ko ko f v vm signer
    rm -rf "$KO_DIR"
    mkdir -p "$KO_DIR"
    for k in "${krels[@]}"; do
        ko=''
        for f in "$R/lib/modules/$k/updates/dkms/"topdown.ko*; do
            [ -e "$f" ] && ko=$f && break
        done
        if [ -z "$ko" ]; then
            fail "$suite: DKMS module for $k in /lib/modules/$k/updates/dkms"
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
        [ "$v" = "$VER" ] && [[ $vm == "$k "* ]] && pass "$suite: DKMS module for $k: version $v, vermagic $k" ||
            fail "$suite: DKMS module for $k: version '$v' (want $VER), vermagic '$vm'"
        signer=$(modinfo -F signer "$KO_DIR/topdown-$k.ko")
        if [ -f "$R/var/lib/dkms/mok.pub" ] && [ -n "$signer" ] &&
            openssl x509 -inform DER -in "$R/var/lib/dkms/mok.pub" -noout -subject 2>/dev/null |
            grep -qF "$signer"; then
            pass "$suite: DKMS module for $k signed by the MOK key /var/lib/dkms/mok.pub ($signer)"
        else
            fail "$suite: DKMS module for $k signed by /var/lib/dkms/mok.pub (signer '$signer')"
        fi
    done

    # The guests: the DKMS-built module, the root's tdctl and libraries.
    local log rc name unit
    unit=$R/lib/systemd/system/topdown.service
    [ -f "$unit" ] || unit=$R/usr/lib/systemd/system/topdown.service
    for sk in "$@"; do
        series=${sk%% *} k=${sk#* }
        name=$suite-$series
        log=$LOGS/guest-$name.tap
        if [ ! -f "$KO_DIR/topdown-$k.ko" ]; then
            fail "guest $name: no DKMS module"
            continue
        fi
        TD_MODULE=$KO_DIR/topdown-$k.ko TD_TDCTL=$R/usr/sbin/tdctl TD_SYSROOT=$R TD_SELFTESTS_DIR=/nonexistent \
            selftests/vm/run --arch x86_64 --kernel "$series" --log "$LOGS/console-$name.log" \
            --add selftests/packages/smoke.sh --add selftests/lib/tap.sh \
            --add "$unit" --add "$R/etc/default/topdown" -- env TD_VERSION="$VER" sh /add/smoke.sh >"$log" 2>&1
        rc=$?
        tap "guest $name ($k)" "$log"
        case $rc in
        0) pass "guest $name ($k): booted, smoke suite passed, console clean" ;;
        124) fail "guest $name ($k): kernel splat (see build/check-packages/console-$name.log)" ;;
        *) fail "guest $name ($k): exit $rc (see build/check-packages/console-$name.log)" ;;
        esac
    done

    step "$suite: apt remove topdown-dkms tdctl" in_root apt-get -q -y remove topdown-dkms tdctl
    local left
    left=$(ls "$R"/lib/modules/*/updates/dkms/topdown.ko* 2>/dev/null)
    [ -z "$left" ] && pass "$suite: apt remove: no topdown module left in /lib/modules" ||
        fail "$suite: apt remove left $left"

    # tdctl's arm64 package (cross-built): apt resolves its dependencies
    # on a fresh arm64 system of the suite (a simulation, apt-get -s: the
    # root cannot run arm64 binaries), with arm64 lists of the same
    # sources and an empty dpkg status of their own under /tmp.
    cp build/deb/tdctl_"$VER"_arm64.deb "$R/tmp/"
    arm64_resolves() {
        local o=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64
            -o Dir::State::Lists=/tmp/arm64/lists -o Dir::State::status=/tmp/arm64/status
            -o Dir::Cache=/tmp/arm64/cache)
        mkdir -p "$R/tmp/arm64/lists/partial" "$R/tmp/arm64/cache/archives/partial" &&
            : >"$R/tmp/arm64/status" &&
            in_root apt-get -q "${o[@]}" update &&
            in_root apt-get -s "${o[@]}" install --no-install-recommends /tmp/tdctl_"$VER"_arm64.deb |
            tee /dev/stderr | grep "^Inst tdctl ($VER .*\[arm64\])"
    }
    step "$suite: apt-get -s install ./tdctl_${VER}_arm64.deb resolves on a fresh arm64 $suite" arm64_resolves
    umount_all
}

M=$(td_mirror main)
S=$(td_mirror security)
BACKPORTS='' packages bookworm "deb $M bookworm main
deb $M bookworm-updates main
deb $S bookworm-security main" "6.1 $KREL_X86_64" "6.12 $KREL_X86_64_612"
BACKPORTS=trixie-backports packages trixie "deb $M trixie main
deb $M trixie-updates main
deb $S trixie-security main
deb $M trixie-backports main" "6.12-trixie $KREL_X86_64_612_TRIXIE" "7.3 $KREL_X86_64_73"
# The runs' roots are kept only when something failed.
[ "$FAIL" = 0 ] && safe_rm "$ROOT/build/packages"
finish
