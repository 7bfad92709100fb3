# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# scripts/series.sh: the guest kernel series and how their files and
# variables are named (sourced by scripts/deps.sh, scripts/kbuild.sh,
# scripts/check.sh, selftests/vm/run and selftests/pmusim/build.sh).
#
#   series       Debian suite                   built with  scripts/deps.sh
#   5.10         bullseye, bullseye-security    gcc-10      --suites
#   6.1          bookworm (the host's)          gcc-12      always
#   6.12         bookworm-security              gcc-12      --6.12
#   6.12-trixie  trixie, trixie-security        gcc-14      --suites
#   7.3          trixie-backports               gcc-14      --suites
#
# Each in the flavours cloud and rt, for x86_64 and arm64. The series of
# other suites are built with that suite's compiler in a debootstrap root
# (scripts/suite-root.sh), never with the host's.
TD_SERIES=(5.10 6.1 6.12 6.12-trixie 7.3)

# td_series_ok SERIES: is SERIES one of TD_SERIES?
td_series_ok() {
    local s
    for s in "${TD_SERIES[@]}"; do [ "$s" = "$1" ] && return 0; done
    return 1
}

# td_guest ARCH FLAVOR SERIES: the guest's name and build/ folder,
# <arch>[-rt][-<series>] (6.1 has no series part): x86_64, arm64-rt-6.12,
# x86_64-7.3, arm64-6.12-trixie.
td_guest() {
    local g=$1
    [ "$2" = rt ] && g=$g-rt
    [ "$3" = 6.1 ] || g=$g-$3
    printf '%s\n' "$g"
}

# td_series_tag SERIES: the series part of env.sh's variable names: empty
# for 6.1, _612, _510, _612_TRIXIE, _73.
td_series_tag() {
    local s=${1//./}
    s=${s//-/_}
    [ "$1" = 6.1 ] || printf '_%s\n' "${s^^}"
}

# td_var_suffix ARCH FLAVOR SERIES: the suffix of env.sh's per-guest
# variables (KDIR_, KREL_, VMLINUZ_, MODDIR_): X86_64, ARM64_RT_612,
# X86_64_73, ARM64_RT_612_TRIXIE.
td_var_suffix() {
    local v=${1^^}
    [ "$2" = rt ] && v=${v}_RT
    printf '%s%s\n' "$v" "$(td_series_tag "$3")"
}

# td_deps_args SERIES FLAVOR: the scripts/deps.sh options that set it up.
td_deps_args() {
    local a=''
    [ "$2" = rt ] && a=' --rt'
    case $1 in
    6.12) a="$a --6.12" ;;
    5.10 | 6.12-trixie | 7.3) a="$a --suites" ;;
    esac
    printf '%s\n' "$a"
}

# td_mirror main|security: the host's Debian mirror (or security archive)
# from its apt sources (deb822 or one-line), deb.debian.org's otherwise;
# the other suites come from the same place.
td_mirror() {
    local m pat=security
    m=$( {
        grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{ print $2 }'
        grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{ print $2 }'
    } | if [ "$1" = security ]; then grep "$pat"; else grep -v "$pat"; fi | head -n 1)
    if [ -z "$m" ]; then
        [ "$1" = security ] && m=http://deb.debian.org/debian-security || m=http://deb.debian.org/debian
    fi
    printf '%s\n' "$m"
}
