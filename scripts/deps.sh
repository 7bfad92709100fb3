#!/usr/bin/env bash
# scripts/deps.sh [--rt] [--6.12] [--suites] [--perf]
#
# Installs the host packages the project needs (only when something is
# missing), then unpacks the guest kernels, the arm64 cross-build headers and
# the guest runtime files into build/deps/ (never into /), and writes
# build/deps/env.sh and build/deps/env.mk.  Idempotent; a second run with
# everything present only does a few dpkg/apt-cache look-ups (about a second).
#
#   --rt     also install linux-headers-<ver>-rt-amd64 on the host and unpack
#            linux-image-<ver>-rt-amd64 into build/deps/x86_64-rt/ and the
#            arm64 rt image and headers into build/deps/arm64-rt/ (and, with
#            --6.12 or --suites, the rt kernels of those series).
#   --6.12   also the 6.12 LTS series of Debian 12's security archive
#            (later runs keep it, up to date, without the option): the
#            cloud kernels (x86_64, arm64) with their headers, common
#            headers and linux-kbuild, all unpacked into build/deps/k6.12/
#            (6.12's headers packages depend on the kernel image, so they
#            are not installed into /); the headers' Makefile is pointed at
#            the unpacked common headers, scripts/ and tools/ at the
#            unpacked amd64 linux-kbuild (for the arm64 cross build too).
#   --suites also the kernels of Debian's other suites (scripts/series.sh):
#            5.10 (bullseye), 6.12-trixie (trixie) and 7.3
#            (trixie-backports), cloud (and with --rt, rt) for x86_64 and
#            arm64: images (7.x: linux-binary-* and linux-base-*, the
#            modules left out), headers, common headers and amd64
#            linux-kbuild, unpacked into build/deps/k<series>/ and fetched
#            with apt lists of their own (build/deps/apt/<suite>/; the
#            system's sources are not touched); and the debootstrap roots of
#            bullseye and trixie whose compilers build the module for them
#            (scripts/suite-root.sh, cached in /var/cache/topdown-roots),
#            made while the kernels download. Later runs keep them.
#   --perf   also the perf tool of Debian's linux-perf (perf 6.1; there is
#            no 6.12 one) with the shared libraries it needs, for both
#            guest architectures, unpacked into build/deps/perf-<arch>/
#            (make bench's perf stat peers; later runs keep it).
#
# The kernel versions (6.1.0-N, 6.12.N+deb12) are resolved from the
# metapackages linux-image-cloud-amd64 and linux-image-6.12-cloud-amd64 (and
# their arm64 twins) each run; they are never hard-coded.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEPS=$ROOT/build/deps
WANT_RT=0 WANT_612=0 WANT_PERF=0 WANT_SUITES=0

log() { printf 'deps: %s\n' "$*" >&2; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }

for a in "$@"; do
    case $a in
    --rt) WANT_RT=1 ;;
    --6.12) WANT_612=1 ;;
    --perf) WANT_PERF=1 ;;
    --suites) WANT_SUITES=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $a" ;;
    esac
done
# What an earlier run set up stays set up (and up to date): a plain run
# must not drop the 6.12 kernels from env.sh.
K612=$ROOT/build/deps/k6.12
[ -f "$K612/x86_64/.stamp" ] && WANT_612=1
WANT_RT612=$WANT_RT
[ -f "$ROOT/build/deps/perf-x86_64/.stamp" ] && WANT_PERF=1
[ -f "$K612/x86_64-rt/.stamp" ] && WANT_RT612=1
[ -f "$ROOT/build/deps/k7.3/x86_64/.stamp" ] && WANT_SUITES=1
# shellcheck source=scripts/series.sh
. "$ROOT/scripts/series.sh"

export DEBIAN_FRONTEND=noninteractive
export LC_ALL=C

SUDO=
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "not root and no sudo: cannot install packages"
    SUDO="sudo -n"
fi

mkdir -p "$DEPS"
# Serialise concurrent runs (two engineers / two make jobs).
exec 9>"$DEPS/.lock"
flock 9

APT_UPDATED=0
apt_update() {
    [ "$APT_UPDATED" = 1 ] && return 0
    log "apt-get update"
    $SUDO apt-get -q -y update >&2 || die "apt-get update failed"
    APT_UPDATED=1
}

is_installed() {
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}

install_missing() {
    local p missing=()
    for p in "$@"; do is_installed "$p" || missing+=("$p"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    apt_update
    log "installing: ${missing[*]}"
    $SUDO apt-get -q -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
        install --no-install-recommends "${missing[@]}" >&2 ||
        die "apt-get install ${missing[*]} failed"
}

# ---------------------------------------------------------------- arm64 arch
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    log "dpkg --add-architecture arm64"
    $SUDO dpkg --add-architecture arm64
    APT_UPDATED=0
    apt_update
fi

# ------------------------------------------------------------ kernel version
# apt-cache is slow here (~1 s a call: no pkgcache.bin), so one call for
# all metapackages.  Prints the version each one depends on, in order, "-"
# for none: e.g. "6.1.0-56 6.1.0-56 6.12.117+deb12 6.12.117+deb12".
META_PKGS=(linux-image-cloud-amd64 linux-image-cloud-arm64:arm64)
[ "$WANT_612" = 1 ] && META_PKGS+=(linux-image-6.12-cloud-amd64 linux-image-6.12-cloud-arm64:arm64)
meta_kvers() {
    apt-cache depends "${META_PKGS[@]}" 2>/dev/null | awk -v want="${META_PKGS[*]}" '
        /^[^ ]/ { pkg = $1; sub(/:(amd64|arm64)$/, "", pkg) }
        /^ *Depends: linux-image-.*-cloud-(amd64|arm64)(:amd64|:arm64)?$/ {
            v = $2; sub(/^linux-image-/, "", v); sub(/-cloud-(amd64|arm64)(:amd64|:arm64)?$/, "", v); ver[pkg] = v }
        END { n = split(want, w, " "); for (i = 1; i <= n; i++) { p = w[i]; sub(/:(amd64|arm64)$/, "", p)
            printf "%s%s", (p in ver ? ver[p] : "-"), (i < n ? " " : "\n") } }'
}
read -r KVER KVER_ARM64 KVER_612 KVER_ARM64_612 < <(meta_kvers) || true
if [ "${KVER:--}" = - ] || [ "${KVER_ARM64:--}" = - ] ||
    { [ "$WANT_612" = 1 ] && { [ "${KVER_612:--}" = - ] || [ "${KVER_ARM64_612:--}" = - ]; }; }; then
    apt_update
    read -r KVER KVER_ARM64 KVER_612 KVER_ARM64_612 < <(meta_kvers) || true
fi
[ "${KVER:--}" != - ] || die "cannot resolve the kernel version from 'apt-cache depends linux-image-cloud-amd64'"
[ "${KVER_ARM64:-}" = "$KVER" ] ||
    die "amd64 ($KVER) and arm64 (${KVER_ARM64:-none}) cloud kernels differ; run apt-get update (mirror mid-sync?)"
if [ "$WANT_612" = 1 ]; then
    [ "${KVER_612:--}" != - ] ||
        die "cannot resolve the 6.12 kernel version from 'apt-cache depends linux-image-6.12-cloud-amd64' (security archive in the apt sources?)"
    [ "${KVER_ARM64_612:-}" = "$KVER_612" ] ||
        die "amd64 ($KVER_612) and arm64 (${KVER_ARM64_612:-none}) 6.12 cloud kernels differ; run apt-get update (mirror mid-sync?)"
fi

KREL_X86_64=$KVER-cloud-amd64
KREL_ARM64=$KVER-cloud-arm64
KREL_X86_64_RT=$KVER-rt-amd64
KREL_ARM64_RT=$KVER-rt-arm64

# --------------------------------------------------------------- host packages
HOST_PKGS=(
    build-essential cpio kmod libkmod-dev pkg-config python3 xz-utils gzip
    linux-headers-cloud-amd64 "linux-headers-$KREL_X86_64" "linux-headers-$KVER-common" linux-kbuild-6.1
    qemu-system-x86 qemu-system-arm
    gcc-aarch64-linux-gnu libc6-dev-arm64-cross
    linux-source-6.1
    # perf's pmu-events JSON of 6.12 for selftests/host/test_perf_json.py
    # (6.1's comes from linux-source-6.1); bookworm-security
    linux-source-6.12
    prometheus  # tdctl serve's scrape test (selftests/host/test_serve.py)
    clang libbpf-dev bpftool  # the BPF backend: program, library, skeleton
    # tdctl serve: TLS (OpenSSL), --web.config.file (libyaml), bcrypt
    # (libxcrypt); its tests: openssl for certificates, wrk for load, and
    # AFL++ for make fuzz-http (libFuzzer comes with clang)
    libssl-dev libyaml-dev libcrypt-dev openssl wrk afl++
)
# Packaging: make deb (debhelper, dh_dkms, dh_bash-completion, rst2man),
# lintian, DKMS, and make check-packages (debootstrap, systemd-analyze).
HOST_PKGS+=(debhelper dh-dkms dkms bash-completion python3-docutils lintian debootstrap systemd)
# make lint (scripts/lint.sh).
HOST_PKGS+=(shellcheck pyflakes3 pycodestyle sparse)
# make check's short bench: the reader's instruction counts (callgrind).
HOST_PKGS+=(valgrind)
[ "$WANT_RT" = 1 ] && HOST_PKGS+=(linux-headers-rt-amd64 "linux-headers-$KREL_X86_64_RT")
# 6.12's headers ship vmlinux, so kbuild makes BTF for modules with pahole.
[ "$WANT_612" = 1 ] && HOST_PKGS+=(dwarves)
install_missing "${HOST_PKGS[@]}"

[ -d "/usr/src/linux-headers-$KREL_X86_64" ] || die "/usr/src/linux-headers-$KREL_X86_64 missing after install"
[ -d /usr/lib/linux-kbuild-6.1/scripts ] || die "/usr/lib/linux-kbuild-6.1 missing after install"
[ -e /usr/aarch64-linux-gnu/lib/libc.so.6 ] || die "cross libc (libc6-arm64-cross) missing"

# ------------------------------------------------------- unpacked .deb groups
# "pkg:arch=version" for each package, candidate versions from the apt lists.
# Fills VERS[pkg]=candidate version for all the given packages (one call).
# APT_OPTS: the apt options of the lists in use (empty: the system's; see
# suite_apt for the other suites').
declare -A VERS=()
APT_OPTS=()
resolve_versions() {
    local out i=0 v
    local args=("$@")
    for _ in 1 2; do
        VERS=()
        out=$(apt-cache ${APT_OPTS[@]+"${APT_OPTS[@]}"} policy "${args[@]}" 2>/dev/null |
            awk '/^[^ ]/ { n++ } /^  Candidate: / { c[n] = $2 } END { for (i = 1; i <= n; i++) print c[i] }')
        i=0
        while IFS= read -r v; do
            [ -n "$v" ] && [ "$v" != "(none)" ] && [ $i -lt ${#args[@]} ] && VERS[${args[i]}]=$v
            i=$((i + 1))
        done <<<"$out"
        [ ${#VERS[@]} = ${#args[@]} ] && return 0
        refresh_lists || break
    done
    for v in "${args[@]}"; do [ -n "${VERS[$v]:-}" ] || die "package $v not found in the apt lists"; done
}

pkg_versions() {
    local p
    for p in "$@"; do printf '%s=%s\n' "$p" "${VERS[$p]}"; done
}

# refresh_lists: apt-get update of the lists in use, once a run; fails
# when they were updated already.
refresh_lists() {
    if [ ${#APT_OPTS[@]} -gt 0 ]; then
        [ "$SUITE_UPDATED" = 1 ] && return 1
        suite_update
    else
        [ "$APT_UPDATED" = 1 ] && return 1
        apt_update
    fi
}

# Rewrites absolute symlinks inside an unpacked tree to point inside the tree.
fix_abs_symlinks() {
    local dir=$1 l t
    while IFS= read -r -d '' l; do
        t=$(readlink "$l")
        case $t in /*) ln -sfn "$dir$t" "$l" ;; esac
    done < <(find "$dir" -type l -print0)
}

# point_makefile KDIR SRCROOT: the headers' Makefile names the common
# headers (and, since 7.x, its own directory as KBUILD_OUTPUT=) by their
# installed paths under /usr/src; point them at the unpacked trees (the
# common headers unpacked under SRCROOT). Debian's Makefile is kept as
# Makefile.debian, so the rewrite is the same each run.
point_makefile() {
    local kdir=$1 srcroot=$2 want
    [ -f "$kdir/Makefile.debian" ] || cp "$kdir/Makefile" "$kdir/Makefile.debian"
    want=$(sed -e "s|^KBUILD_OUTPUT *= *.*|KBUILD_OUTPUT=$kdir|" \
        -e "s|^include /usr/src/|include $srcroot/usr/src/|" "$kdir/Makefile.debian")
    [ "$(cat "$kdir/Makefile")" = "$want" ] || printf '%s\n' "$want" >"$kdir/Makefile"
    grep -q "^include $srcroot/" "$kdir/Makefile" || die "$kdir/Makefile: no include of the common headers"
}

# unpack_group DIR PKG... : download + dpkg -x the packages into DIR unless
# DIR/.stamp already lists the same package versions.
unpack_group() {
    local dir=$1
    shift
    local want
    want=$(pkg_versions "$@")
    if [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$want" ]; then
        return 0
    fi
    log "unpacking into ${dir#"$ROOT"/}: $*"
    local dl=$DEPS/debs tmp=$dir.tmp
    rm -rf "$dl" "$tmp"
    mkdir -p "$dl" "$tmp"
    local specs=()
    mapfile -t specs <<<"$want"
    local sandbox=()
    [ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
    if ! (cd "$dl" && apt-get -q "${sandbox[@]}" ${APT_OPTS[@]+"${APT_OPTS[@]}"} download "${specs[@]}" >&2); then
        # Another suite's lists: the caller refreshes them and tries again.
        [ ${#APT_OPTS[@]} -gt 0 ] && { rm -rf "$dl" "$tmp"; return 1; }
        # Stale lists: the mirror keeps only the newest security update.
        [ "$APT_UPDATED" = 1 ] || [ -n "${TD_DEPS_RETRY:-}" ] && die "apt-get download ${specs[*]} failed"
        apt_update
        log "re-running after apt-get update"
        TD_DEPS_RETRY=1 exec "${BASH_SOURCE[0]}" "${ORIG_ARGS[@]}"
    fi
    local deb
    for deb in "$dl"/*.deb; do dpkg -x "$deb" "$tmp"; done
    rm -rf "$dl"
    fix_abs_symlinks "$tmp"
    printf '%s\n' "$want" >"$tmp/.stamp"
    rm -rf "$dir"
    mv "$tmp" "$dir"
}
ORIG_ARGS=("$@")

# x86_64 guest: kernel image + modules dir + busybox (not installed on the
# host: busybox-static conflicts with busybox, which some hosts have).
X86_64_PKGS=("linux-image-$KREL_X86_64:amd64" busybox-static:amd64)
# arm64 guest + cross headers + runtime libs for dynamically linked tools.
ARM64_PKGS=(
    "linux-image-$KREL_ARM64:arm64" "linux-headers-$KREL_ARM64:arm64" busybox-static:arm64
    libkmod2:arm64 libkmod-dev:arm64 liblzma5:arm64 libzstd1:arm64 libssl3:arm64
    libbpf1:arm64 libbpf-dev:arm64 libelf1:arm64 zlib1g:arm64
    libssl-dev:arm64 libyaml-0-2:arm64 libyaml-dev:arm64 libcrypt1:arm64 libcrypt-dev:arm64
)
RT_PKGS=("linux-image-$KREL_X86_64_RT:amd64")
RT_ARM64_PKGS=("linux-image-$KREL_ARM64_RT:arm64" "linux-headers-$KREL_ARM64_RT:arm64")
ALL_PKGS=("${X86_64_PKGS[@]}" "${ARM64_PKGS[@]}")
[ "$WANT_RT" = 1 ] && ALL_PKGS+=("${RT_PKGS[@]}" "${RT_ARM64_PKGS[@]}")
# 6.12: the common headers and the host's (amd64) kbuild in one group, then
# one group per guest kernel: its image and its headers.
if [ "$WANT_612" = 1 ]; then
    SRC612_PKGS=("linux-headers-$KVER_612-common:all" "linux-kbuild-$KVER_612:amd64")
    [ "$WANT_RT612" = 1 ] && SRC612_PKGS+=("linux-headers-$KVER_612-common-rt:all")
    G612=(x86_64 arm64)
    [ "$WANT_RT612" = 1 ] && G612+=(x86_64-rt arm64-rt)
    declare -A G612_PKGS=()
    for g in "${G612[@]}"; do
        case $g in x86_64*) a=amd64 ;; *) a=arm64 ;; esac
        case $g in *-rt) f=rt ;; *) f=cloud ;; esac
        G612_PKGS[$g]="linux-image-$KVER_612-$f-$a:$a linux-headers-$KVER_612-$f-$a:$a"
        read -ra gp <<<"${G612_PKGS[$g]}"
        ALL_PKGS+=("${gp[@]}")
    done
    ALL_PKGS+=("${SRC612_PKGS[@]}")
fi
# --perf: linux-perf and the packages of the libraries /usr/bin/perf loads
# (its NEEDED entries and theirs, C library aside), per guest architecture.
PERF_LIBS=(libbabeltrace1 libcap2 libdw1 libelf1 liblzma5 libnuma1 libopencsd1 libperl5.36
    libpython3.11 libslang2 libunwind8 libzstd1 zlib1g libcrypt1 libexpat1 libglib2.0-0
    libuuid1 libpcre2-8-0 libbz2-1.0 libstdc++6 libgcc-s1)
if [ "$WANT_PERF" = 1 ]; then
    PERF_PKGS_X86_64=(linux-perf:amd64 "${PERF_LIBS[@]/%/:amd64}")
    PERF_PKGS_ARM64=(linux-perf:arm64 "${PERF_LIBS[@]/%/:arm64}")
    ALL_PKGS+=("${PERF_PKGS_X86_64[@]}" "${PERF_PKGS_ARM64[@]}")
fi
resolve_versions "${ALL_PKGS[@]}"

unpack_group "$DEPS/x86_64" "${X86_64_PKGS[@]}"
unpack_group "$DEPS/arm64" "${ARM64_PKGS[@]}"
A=$DEPS/arm64
# The headers link scripts/ and tools/ to ../../lib/linux-kbuild-6.1/...;
# use the host's (x86-64) kbuild for the cross build.
if [ "$(readlink "$A/usr/lib/linux-kbuild-6.1" 2>/dev/null || true)" != /usr/lib/linux-kbuild-6.1 ]; then
    rm -rf "$A/usr/lib/linux-kbuild-6.1"
    mkdir -p "$A/usr/lib"
    ln -s /usr/lib/linux-kbuild-6.1 "$A/usr/lib/linux-kbuild-6.1"
fi
KDIR_ARM64=$A/usr/src/linux-headers-$KREL_ARM64
[ -e "$KDIR_ARM64/scripts/basic/fixdep" ] || die "$KDIR_ARM64/scripts does not resolve to the host's linux-kbuild-6.1"

# One flat folder with the arm64 shared libraries (relative symlinks), usable
# for -L/-rpath-link when cross-linking and as the guest's library source.
if [ ! -f "$A/sysroot-libs/.stamp" ] || ! cmp -s "$A/.stamp" "$A/sysroot-libs/.stamp"; then
    rm -rf "$A/sysroot-libs"
    mkdir -p "$A/sysroot-libs"
    for d in "$A/lib/aarch64-linux-gnu" "$A/usr/lib/aarch64-linux-gnu"; do
        [ -d "$d" ] || continue
        for f in "$d"/*.so "$d"/*.so.*; do
            [ -e "$f" ] || [ -L "$f" ] || continue
            n=${f##*/}
            if [ -L "$f" ]; then
                ln -sfn "$(basename "$(readlink "$f")")" "$A/sysroot-libs/$n"
            else
                cp "$f" "$A/sysroot-libs/$n"
            fi
        done
    done
    [ -e "$A/sysroot-libs/libkmod.so" ] || die "libkmod.so missing from $A/sysroot-libs"
    [ -e "$A/sysroot-libs/libbpf.so" ] || die "libbpf.so missing from $A/sysroot-libs"
    cp "$A/.stamp" "$A/sysroot-libs/.stamp"
fi

# QEMU's aarch64 -kernel loader takes a raw Image (and, since QEMU 2.x, a
# gzip-compressed one).  Debian's arm64 vmlinuz is a raw Image; should it
# ever be gzip'd, decompress it once here.  arm64_image VMLINUZ: prints
# the file to boot.
arm64_image() {
    local vmlinuz=$1 image
    image=$(dirname "$1")/Image-$(basename "$1")
    if gzip -t "$vmlinuz" 2>/dev/null; then
        if [ ! -s "$image" ] || [ "$vmlinuz" -nt "$image" ]; then
            gzip -dc "$vmlinuz" >"$image.tmp"
            mv "$image.tmp" "$image"
        fi
        vmlinuz=$image
    fi
    printf '%s\n' "$vmlinuz"
}
VMLINUZ_ARM64=$(arm64_image "$A/boot/vmlinuz-$KREL_ARM64")

# PREEMPT_RT flavour, on request: x86-64 (headers on the host) and arm64
# (headers unpacked, the host's kbuild and common-rt headers).
if [ "$WANT_RT" = 1 ]; then
    unpack_group "$DEPS/x86_64-rt" "${RT_PKGS[@]}"
    unpack_group "$DEPS/arm64-rt" "${RT_ARM64_PKGS[@]}"
    if [ "$(readlink "$DEPS/arm64-rt/usr/lib/linux-kbuild-6.1" 2>/dev/null || true)" != /usr/lib/linux-kbuild-6.1 ]; then
        rm -rf "$DEPS/arm64-rt/usr/lib/linux-kbuild-6.1"
        mkdir -p "$DEPS/arm64-rt/usr/lib"
        ln -s /usr/lib/linux-kbuild-6.1 "$DEPS/arm64-rt/usr/lib/linux-kbuild-6.1"
    fi
fi
HAVE_RT=0
if [ -f "$DEPS/x86_64-rt/boot/vmlinuz-$KREL_X86_64_RT" ] && [ -d "/usr/src/linux-headers-$KREL_X86_64_RT" ]; then
    HAVE_RT=1
fi
KDIR_ARM64_RT='' VMLINUZ_ARM64_RT='' MODDIR_ARM64_RT=''
if [ "$HAVE_RT" = 1 ] && [ -f "$DEPS/arm64-rt/boot/vmlinuz-$KREL_ARM64_RT" ]; then
    KDIR_ARM64_RT=$DEPS/arm64-rt/usr/src/linux-headers-$KREL_ARM64_RT
    VMLINUZ_ARM64_RT=$(arm64_image "$DEPS/arm64-rt/boot/vmlinuz-$KREL_ARM64_RT")
    MODDIR_ARM64_RT=$DEPS/arm64-rt/lib/modules/$KREL_ARM64_RT
fi

# perf for the guests: build/deps/perf-<arch>/usr/bin/perf; the runner
# (selftests/vm/run) finds its libraries through TD_LIBDIRS.
PERF_BIN_X86_64='' PERF_BIN_ARM64='' PERF_LIBDIRS_X86_64='' PERF_LIBDIRS_ARM64=''
if [ "$WANT_PERF" = 1 ]; then
    unpack_group "$DEPS/perf-x86_64" "${PERF_PKGS_X86_64[@]}"
    unpack_group "$DEPS/perf-arm64" "${PERF_PKGS_ARM64[@]}"
    for g in x86_64 arm64; do
        case $g in x86_64) t=x86_64-linux-gnu ;; *) t=aarch64-linux-gnu ;; esac
        [ -x "$DEPS/perf-$g/usr/bin/perf" ] || die "linux-perf unpacked without usr/bin/perf ($g)"
        printf -v "PERF_BIN_${g^^}" '%s' "$DEPS/perf-$g/usr/bin/perf"
        printf -v "PERF_LIBDIRS_${g^^}" '%s' "$DEPS/perf-$g/lib/$t:$DEPS/perf-$g/usr/lib/$t"
    done
fi

# ------------------------------------------------------------------ 6.12
# Variables of the 6.12 kernels, empty when not set up.
for v in KREL KDIR VMLINUZ MODDIR; do
    for g in X86_64 ARM64 X86_64_RT ARM64_RT; do printf -v "${v}_${g}_612" '%s' ''; done
done
HAVE_612=0 HAVE_RT_612=0
if [ "$WANT_612" = 1 ]; then
    unpack_group "$K612/src" "${SRC612_PKGS[@]}"
    KBUILD612=$K612/src/usr/lib/linux-kbuild-$KVER_612
    [ -x "$KBUILD612/scripts/basic/fixdep" ] || die "linux-kbuild-$KVER_612 unpacked without scripts/basic/fixdep"
    for g in "${G612[@]}"; do
        read -ra gp <<<"${G612_PKGS[$g]}"
        unpack_group "$K612/$g" "${gp[@]}"
        case $g in x86_64*) a=amd64 ;; *) a=arm64 ;; esac
        case $g in *-rt) f=rt common=common-rt ;; *) f=cloud common=common ;; esac
        krel=$KVER_612-$f-$a
        kdir=$K612/$g/usr/src/linux-headers-$krel
        # scripts/ and tools/ link to ../../lib/linux-kbuild-<ver>/...
        if [ "$(readlink "$K612/$g/usr/lib/linux-kbuild-$KVER_612" 2>/dev/null || true)" != "$KBUILD612" ]; then
            rm -rf "$K612/$g/usr/lib/linux-kbuild-$KVER_612"
            mkdir -p "$K612/$g/usr/lib"
            ln -s "$KBUILD612" "$K612/$g/usr/lib/linux-kbuild-$KVER_612"
        fi
        common_mk=$K612/src/usr/src/linux-headers-$KVER_612-$common/Makefile
        [ -f "$common_mk" ] || die "$common_mk missing"
        point_makefile "$kdir" "$K612/src"
        [ -e "$kdir/scripts/basic/fixdep" ] || die "$kdir/scripts does not resolve to the unpacked linux-kbuild-$KVER_612"
        G=${g^^}
        G=${G//-/_}
        printf -v "KREL_${G}_612" '%s' "$krel"
        printf -v "KDIR_${G}_612" '%s' "$kdir"
        printf -v "MODDIR_${G}_612" '%s' "$K612/$g/lib/modules/$krel"
        if [ "$a" = arm64 ]; then
            printf -v "VMLINUZ_${G}_612" '%s' "$(arm64_image "$K612/$g/boot/vmlinuz-$krel")"
        else
            printf -v "VMLINUZ_${G}_612" '%s' "$K612/$g/boot/vmlinuz-$krel"
        fi
        vz=VMLINUZ_${G}_612
        [ -f "${!vz}" ] || die "expected ${!vz} after unpacking"
    done
    HAVE_612=1
    [ "$WANT_RT612" = 1 ] && HAVE_RT_612=1
fi

# ------------------------------------------------------------ other suites
# --suites: the series of Debian's other suites (scripts/series.sh), from
# apt lists of their own; the system's sources are not touched.
SUITE_VARS=()
SUITE_NAME='' SUITE_UPDATED=0
# suite_apt NAME SUITE...: use the lists of build/deps/apt/NAME, made from
# the given suites of the host's mirror (the *-security ones of its
# security archive); updated when new or more than a day old.
suite_apt() {
    local name=$1 d=$DEPS/apt/$1 su
    shift
    mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
    for su in "$@"; do
        case $su in
        *-security) printf 'deb %s %s main\n' "$(td_mirror security)" "$su" ;;
        *) printf 'deb %s %s main\n' "$(td_mirror main)" "$su" ;;
        esac
    done >"$d/sources.list.tmp"
    if cmp -s "$d/sources.list.tmp" "$d/sources.list"; then
        rm -f "$d/sources.list.tmp"
    else
        mv "$d/sources.list.tmp" "$d/sources.list"
        rm -f "$d/.updated"
    fi
    # With a package cache of their own: this system's apt keeps none
    # (Dir::Cache::pkgcache ""), and without one each apt-cache call
    # parses the whole lists again (seconds each, minutes on a busy host).
    APT_OPTS=(-o "Dir::Etc::SourceList=$d/sources.list" -o Dir::Etc::SourceParts=/dev/null
        -o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" -o Acquire::Languages=none
        -o Dir::Cache::pkgcache=pkgcache.bin -o Dir::Cache::srcpkgcache=srcpkgcache.bin)
    SUITE_NAME=$name SUITE_UPDATED=0
    [ -n "$(find "$d/.updated" -mmin -1440 2>/dev/null)" ] || suite_update
}
suite_update() {
    log "apt-get update of the $SUITE_NAME lists (build/deps/apt/$SUITE_NAME)"
    apt-get -q "${APT_OPTS[@]}" update >&2 || die "apt-get update of the $SUITE_NAME lists failed"
    touch "$DEPS/apt/$SUITE_NAME/.updated"
    # New lists: try again what did not download with the old ones.
    rm -f "$DEPS/apt/$SUITE_NAME/unavailable"
    SUITE_UPDATED=1
}
# deps_of PKG...: "package dependency" lines (architecture qualifiers and
# the <> of virtual packages dropped).
deps_of() {
    apt-cache "${APT_OPTS[@]}" depends "$@" 2>/dev/null | awk '
        /^[^ ]/ { p = $1; sub(/:.*/, "", p) }
        /^ *\|?(Pre)?Depends: / { d = $2; gsub(/[<>]/, "", d); sub(/:.*/, "", d); print p, d }'
}

# suite_guest SERIES GUEST KREL: download and unpack one guest's image and
# headers into build/deps/k<SERIES>/GUEST and its version's common headers
# and amd64 kbuild into build/deps/k<SERIES>/src-<version>; fails when a
# download fails. Sets SG_VARS.
suite_guest() {
    local S=$1 g=$2 krel=$3 K=$DEPS/k$1 a f ver out kb common d
    case $g in x86_64*) a=amd64 ;; *) a=arm64 ;; esac
    case $g in *-rt) f=rt ;; *) f=cloud ;; esac
    ver=${krel%-"$f-$a"}
    # 7.x images are metapackages over linux-binary-* (vmlinuz) and
    # linux-base-* (modules.builtin*, config); linux-modules-* is left
    # out: the guests load no module but topdown's.
    out=$(deps_of "linux-image-$krel:$a" "linux-headers-$krel:$a")
    kb=$(awk -v p="linux-headers-$krel" '$1 == p && $2 ~ /^linux-kbuild-/ { print $2; exit }' <<<"$out")
    common=$(awk -v p="linux-headers-$krel" '$1 == p && $2 ~ /^linux-headers-.*-common(-rt)?$/ { print $2; exit }' <<<"$out")
    [ -n "$kb" ] && [ -n "$common" ] || die "series $S: no linux-kbuild-* or common headers among the dependencies of linux-headers-$krel"
    local gp=("linux-image-$krel:$a" "linux-headers-$krel:$a") src=("$kb:amd64" "$common:all")
    while read -r d; do
        gp+=("$d:$a")
    done < <(awk -v p="linux-image-$krel" -v k="$krel" \
        '$1 == p && ($2 == "linux-binary-" k || $2 == "linux-base-" k) { print $2 }' <<<"$out")
    resolve_versions "${gp[@]}" "${src[@]}"
    # The kbuild package's name may not carry the ABI (linux-kbuild-5.10):
    # take the version of the headers.
    VERS[$kb:amd64]=${VERS[linux-headers-$krel:$a]}
    unpack_group "$K/src-$ver-$f" "${src[@]}" || return 1
    unpack_group "$K/$g" "${gp[@]}" || return 1
    local kbdir=$K/src-$ver-$f/usr/lib/$kb kdir=$K/$g/usr/src/linux-headers-$krel moddir vmlinuz
    d=$K/$g
    [ -x "$kbdir/scripts/basic/fixdep" ] || die "$kb unpacked without scripts/basic/fixdep"
    # scripts/ and tools/ link to ../../lib/linux-kbuild-<ver>/...
    if [ "$(readlink "$d/usr/lib/$kb" 2>/dev/null || true)" != "$kbdir" ]; then
        rm -rf "$d/usr/lib/$kb"
        mkdir -p "$d/usr/lib"
        ln -s "$kbdir" "$d/usr/lib/$kb"
    fi
    point_makefile "$kdir" "$K/src-$ver-$f"
    [ -e "$kdir/scripts/basic/fixdep" ] || die "$kdir/scripts does not resolve to the unpacked $kb"
    # 7.x: everything under /usr/lib/modules/KREL/, vmlinuz included.
    moddir=$d/usr/lib/modules/$krel
    [ -f "$moddir/modules.builtin" ] || moddir=$d/lib/modules/$krel
    [ -f "$moddir/modules.builtin" ] || die "no modules.builtin for $krel in $d"
    vmlinuz=$d/boot/vmlinuz-$krel
    [ -f "$vmlinuz" ] || vmlinuz=$moddir/vmlinuz
    [ -f "$vmlinuz" ] || die "no vmlinuz for $krel in $d"
    [ "$a" = arm64 ] && vmlinuz=$(arm64_image "$vmlinuz")
    SG_VARS=("$krel" "$kdir" "$vmlinuz" "$moddir")
}

# suite_series SERIES BUILD-ROOT-SUITE APT-NAME SUITE...: the kernels of
# one series into build/deps/k<SERIES>/, each guest (arch, flavour) at
# the newest version of its metapackage (linux-image-cloud-amd64, ...)
# whose packages the mirror serves: bullseye-security's arm64 5.10
# packages are listed but not served here (404), so arm64 5.10 is the
# newest bullseye point release's. Sets SUITE_VARS.
suite_series() {
    local S=$1 rootsuite=$2 tag g a f mv krel done_ G first=''
    shift 2
    suite_apt "$@"
    tag=$(td_series_tag "$S")
    local guests=(x86_64 arm64)
    [ "$WANT_RT_SUITES" = 1 ] && guests+=(x86_64-rt arm64-rt)
    for g in "${guests[@]}"; do
        case $g in x86_64*) a=amd64 ;; *) a=arm64 ;; esac
        case $g in *-rt) f=rt ;; *) f=cloud ;; esac
        done_=0
        # What a run with the same lists found (apt-cache is slow here:
        # a dozen calls a guest); looked up again once the lists change.
        local vf=$DEPS/k$S/.vars-$g
        if [ -f "$vf" ] && [ "$vf" -nt "$DEPS/apt/$SUITE_NAME/.updated" ]; then
            mapfile -t SG_VARS <"$vf"
            [ ${#SG_VARS[@]} = 4 ] && [ -f "${SG_VARS[2]}" ] && [ -f "${SG_VARS[1]}/Makefile" ] &&
                [ -f "${SG_VARS[3]}/modules.builtin" ] && done_=1 && krel=${SG_VARS[0]}
        fi
        [ $done_ = 1 ] ||
        for mv in $(apt-cache "${APT_OPTS[@]}" madison "linux-image-$f-$a:$a" 2>/dev/null |
            awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | sort -u -r -V | head -n 3); do
            krel=$(apt-cache "${APT_OPTS[@]}" show "linux-image-$f-$a:$a=$mv" 2>/dev/null |
                sed -n 's/^Depends:.*\(linux-image-[^ ,]*-'"$f-$a"'\).*/\1/p' | head -n 1)
            krel=${krel#linux-image-}
            [ -n "$krel" ] || continue
            # Known not to download with these lists (see below).
            grep -qxF "$krel" "$DEPS/apt/$SUITE_NAME/unavailable" 2>/dev/null && continue
            case $krel in
            "${S%%-*}".* | "${S%%-*}"-*) ;;
            *) die "series $S: $SUITE_NAME now ships $krel; rename the series in scripts/series.sh" ;;
            esac
            if suite_guest "$S" "$g" "$krel"; then
                done_=1
                break
            fi
            log "series $S: the packages of $krel do not download; trying an older version"
            printf '%s\n' "$krel" >>"$DEPS/apt/$SUITE_NAME/unavailable"
        done
        [ $done_ = 1 ] || die "series $S: no version of linux-image-$f-$a in the $SUITE_NAME lists downloads"
        printf '%s\n' "${SG_VARS[@]}" >"$vf"
        G=${g^^}
        G=${G//-/_}$tag
        SUITE_VARS+=("KREL_$G" "${SG_VARS[0]}" "KDIR_$G" "${SG_VARS[1]}" "VMLINUZ_$G" "${SG_VARS[2]}"
            "MODDIR_$G" "${SG_VARS[3]}")
        [ -n "$first" ] || first=${SG_VARS[0]%-cloud-amd64}
        log "series $S, $g: $krel"
    done
    SUITE_VARS+=("KVER$tag" "$first" "HAVE$tag" 1 "HAVE_RT$tag" "$WANT_RT_SUITES"
        "BUILDROOT$tag" "$("$ROOT/scripts/suite-root.sh" --print-dir "$rootsuite")")
    APT_OPTS=()
}

# ioctl_doc VER TARBALL: Documentation/userspace-api/ioctl/ioctl-number.rst
# of that linux-source tarball into build/deps/ioctl-number/VER.rst (once a
# tarball; scripts/check_ioctl_number.py reads them).
ioctl_doc() {
    local ver=$1 tarball=$2 d=$DEPS/ioctl-number want
    want="$(stat -c '%s %Y' "$tarball")"
    [ -f "$d/$ver.rst" ] && [ "$(cat "$d/$ver.stamp" 2>/dev/null)" = "$want" ] && return 0
    mkdir -p "$d"
    tar -xJf "$tarball" -O --occurrence=1 \
        "linux-source-$ver/Documentation/userspace-api/ioctl/ioctl-number.rst" >"$d/$ver.rst.tmp" ||
        die "no ioctl-number.rst in $tarball"
    mv "$d/$ver.rst.tmp" "$d/$ver.rst"
    printf '%s\n' "$want" >"$d/$ver.stamp"
}

# suite_source SERIES APT-NAME SUITE...: linux-source-SERIES of that suite,
# unpacked into build/deps/k<SERIES>/source, and its ioctl-number.rst.
# selftests/host/test_perf_json.py extracts perf's pmu-events JSON of the
# tarball into build/perf-json/<SERIES> (as it does 6.1's and 6.12's).
suite_source() {
    local S=$1
    shift
    suite_apt "$@"
    resolve_versions "linux-source-$S:all"
    unpack_group "$DEPS/k$S/source" "linux-source-$S:all" ||
        die "series $S: linux-source-$S does not download"
    APT_OPTS=()
    ioctl_doc "$S" "$DEPS/k$S/source/usr/src/linux-source-$S.tar.xz"
}

HAVE_SUITES=0
if [ "$WANT_SUITES" = 1 ]; then
    WANT_RT_SUITES=$WANT_RT
    [ -f "$DEPS/k7.3/x86_64-rt/.stamp" ] && WANT_RT_SUITES=1
    # The build roots, made (once) while the kernels download.
    ROOT_PIDS=()
    for r in bullseye trixie; do
        "$ROOT/scripts/suite-root.sh" "$r" >"$DEPS/suite-root-$r.log" 2>&1 &
        ROOT_PIDS+=("$r:$!")
    done
    suite_series 5.10 bullseye bullseye bullseye bullseye-security
    suite_series 6.12-trixie trixie trixie trixie trixie-security
    suite_series 7.3 trixie trixie-backports trixie-backports
    suite_source 7.3 trixie-backports trixie-backports
    for rp in "${ROOT_PIDS[@]}"; do
        wait "${rp#*:}" || { tail -n 20 "$DEPS/suite-root-${rp%%:*}.log" >&2; die "the ${rp%%:*} build root (scripts/suite-root.sh ${rp%%:*}) failed"; }
    done
    HAVE_SUITES=1
fi

# ------------------------------------------------------------ kselftest headers
KS=$DEPS/kselftest
SRC_TAR=/usr/src/linux-source-6.1.tar.xz
[ -f "$SRC_TAR" ] || die "$SRC_TAR missing (package linux-source-6.1)"
ks_want="$(dpkg-query -W -f='${Version}' linux-source-6.1) $(stat -c %s "$SRC_TAR")"
if [ ! -f "$KS/.stamp" ] || [ "$(cat "$KS/.stamp")" != "$ks_want" ]; then
    log "extracting kselftest headers from $SRC_TAR"
    rm -rf "$KS" "$KS.tmp"
    mkdir -p "$KS.tmp"
    prefix=linux-source-6.1/tools/testing/selftests
    members=("$prefix/kselftest_harness.h" "$prefix/kselftest.h")
    if ! tar -xJf "$SRC_TAR" -C "$KS.tmp" --occurrence=1 "${members[@]}" 2>/dev/null; then
        # Unexpected layout: find the prefix by listing (slow, once).
        log "member prefix not $prefix; listing the tarball"
        m=$(tar -tJf "$SRC_TAR" | grep -m1 '/tools/testing/selftests/kselftest_harness\.h$' || true)
        [ -n "$m" ] || die "kselftest_harness.h not found in $SRC_TAR"
        prefix=${m%/kselftest_harness.h}
        members=("$prefix/kselftest_harness.h" "$prefix/kselftest.h")
        tar -xJf "$SRC_TAR" -C "$KS.tmp" --occurrence=1 "${members[@]}"
    fi
    mv "$KS.tmp/$prefix/kselftest_harness.h" "$KS.tmp/$prefix/kselftest.h" "$KS.tmp/"
    rm -rf "${KS:?}.tmp/${prefix%%/*}"
    printf '%s\n' "$ks_want" >"$KS.tmp/.stamp"
    mv "$KS.tmp" "$KS"
fi

# The ioctl-number.rst of the host's kernel sources (the newest comes with
# --suites, suite_source).
ioctl_doc 6.1 /usr/src/linux-source-6.1.tar.xz
[ -f /usr/src/linux-source-6.12.tar.xz ] && ioctl_doc 6.12 /usr/src/linux-source-6.12.tar.xz

# ------------------------------------------------------------------ env files
if_rt() { if [ "$HAVE_RT" = 1 ]; then printf '%s' "$1"; fi; }
vars=(
    KVER "$KVER"
    KREL_X86_64 "$KREL_X86_64"
    KREL_ARM64 "$KREL_ARM64"
    KREL_X86_64_RT "$KREL_X86_64_RT"
    KREL_ARM64_RT "$(if_rt "$KREL_ARM64_RT")"
    KDIR_X86_64 "/usr/src/linux-headers-$KREL_X86_64"
    KDIR_ARM64 "$KDIR_ARM64"
    KDIR_X86_64_RT "$(if_rt "/usr/src/linux-headers-$KREL_X86_64_RT")"
    KDIR_ARM64_RT "$KDIR_ARM64_RT"
    HAVE_RT "$HAVE_RT"
    VMLINUZ_X86_64 "$DEPS/x86_64/boot/vmlinuz-$KREL_X86_64"
    VMLINUZ_ARM64 "$VMLINUZ_ARM64"
    VMLINUZ_X86_64_RT "$(if_rt "$DEPS/x86_64-rt/boot/vmlinuz-$KREL_X86_64_RT")"
    VMLINUZ_ARM64_RT "$VMLINUZ_ARM64_RT"
    MODDIR_X86_64 "$DEPS/x86_64/lib/modules/$KREL_X86_64"
    MODDIR_ARM64 "$A/lib/modules/$KREL_ARM64"
    MODDIR_X86_64_RT "$(if_rt "$DEPS/x86_64-rt/lib/modules/$KREL_X86_64_RT")"
    MODDIR_ARM64_RT "$MODDIR_ARM64_RT"
    BUSYBOX_X86_64 "$DEPS/x86_64/bin/busybox"
    BUSYBOX_ARM64 "$A/bin/busybox"
    CROSS_COMPILE_ARM64 aarch64-linux-gnu-
    ARM64_SYSROOT_LIBS "$A/sysroot-libs"
    ARM64_INCLUDE "$A/usr/include"
    ARM64_CROSS_LIBC /usr/aarch64-linux-gnu/lib
    KSELFTEST_DIR "$KS"
    HAVE_612 "$HAVE_612"
    HAVE_RT_612 "$HAVE_RT_612"
    KVER_612 "${KVER_612:-}"
    PERF_BIN_X86_64 "$PERF_BIN_X86_64"
    PERF_BIN_ARM64 "$PERF_BIN_ARM64"
    PERF_LIBDIRS_X86_64 "$PERF_LIBDIRS_X86_64"
    PERF_LIBDIRS_ARM64 "$PERF_LIBDIRS_ARM64"
)
for v in KREL KDIR VMLINUZ MODDIR; do
    for g in X86_64 ARM64 X86_64_RT ARM64_RT; do
        n=${v}_${g}_612
        vars+=("$n" "${!n}")
    done
done
vars+=(HAVE_SUITES "$HAVE_SUITES" ${SUITE_VARS[@]+"${SUITE_VARS[@]}"})
{
    echo "# Generated by scripts/deps.sh; do not edit.  Source from sh/bash."
    for ((i = 0; i < ${#vars[@]}; i += 2)); do printf "%s='%s'\n" "${vars[i]}" "${vars[i + 1]}"; done
} >"$DEPS/env.sh.tmp"
{
    echo "# Generated by scripts/deps.sh; do not edit.  Include from make."
    for ((i = 0; i < ${#vars[@]}; i += 2)); do printf '%s := %s\n' "${vars[i]}" "${vars[i + 1]}"; done
} >"$DEPS/env.mk.tmp"
for f in env.sh env.mk; do
    if cmp -s "$DEPS/$f.tmp" "$DEPS/$f"; then rm -f "$DEPS/$f.tmp"; else mv "$DEPS/$f.tmp" "$DEPS/$f"; fi
done

for f in "$DEPS/x86_64/boot/vmlinuz-$KREL_X86_64" "$VMLINUZ_ARM64" "$DEPS/x86_64/bin/busybox" "$A/bin/busybox" \
    "$KDIR_ARM64/Makefile" "$KS/kselftest_harness.h"; do
    [ -e "$f" ] || die "expected $f after unpacking"
done
log "ok: kernel $KVER$([ "$HAVE_612" = 1 ] && echo " and $KVER_612" || true)$([ "$HAVE_SUITES" = 1 ] && echo " and the other suites'" || true), env in ${DEPS#"$ROOT"/}/env.sh and env.mk$(if_rt ' (rt available)')"
