#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/check-litmus.sh [--if-cached] [--refresh]: what `make check-litmus`
# runs. The ring protocol's litmus tests (selftests/litmus/*.litmus) under
# the Linux kernel memory model (LKMM), checked with herd7.
#
# herd7 comes from Debian's herdtools7, which only sid has: a sid root
# (debootstrap --variant=minbase --include=herdtools7, from the host's
# Debian mirror; the system's apt sources are not touched) is made once
# and kept in /var/cache/topdown-litmus/sid (TD_LITMUS_CACHE), and herd7
# runs in it with chroot. The model is tools/memory-model/ of Debian's
# linux-source-6.12, extracted at test time (into the root, per source
# version); nothing of it is in the repository.
#
# Each litmus file states its expected result in its comment, as the
# kernel's own litmus tests do ("Result: Never" or "Result: Sometimes"):
# the exists clause is the bad outcome, so a test of the code as it is
# says Never, and a test of the code without a barrier (a "before" test)
# says Sometimes. A test fails when herd7's observation differs, when
# herd7 flags a data race the file does not expect ("Flags: data-race"),
# and when a file does not name the code it models (a "Models" list of
# "path function(): what" lines up to the next empty comment line, each
# path and function checked against the tree). Whether each test follows
# the code (its "Code:" block against the marked regions it names) needs
# no herd7: scripts/litmus_code.py checks it in make lint and make check.
#
#   --if-cached   without a cached sid root, say so (SKIP) and exit 0
#                 instead of making one (make check uses this)
#   --refresh     make the sid root anew (a newer herdtools7)
#
# Ends with "N passed, N failed[, N skipped]"; logs in build/check-litmus/.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
IF_CACHED=0 REFRESH=0
for a in "$@"; do
    case $a in
    --if-cached) IF_CACHED=1 ;;
    --refresh) REFRESH=1 ;;
    -h | --help) sed -n '2,31s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "usage: scripts/check-litmus.sh [--if-cached] [--refresh]" >&2; exit 2 ;;
    esac
done
LOGS=$ROOT/build/check-litmus
rm -rf "$LOGS"
mkdir -p "$LOGS"
# pass, fail, step, finish
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"
skip() { SKIP=$((SKIP + 1)); echo "SKIP: $*"; }
CACHE=${TD_LITMUS_CACHE:-/var/cache/topdown-litmus}
R=$CACHE/sid
TESTS=$ROOT/selftests/litmus
SRC_PKG=linux-source-6.12
SRC_TAR=/usr/src/$SRC_PKG.tar.xz
export LC_ALL=C

# The host's Debian mirror (deb822 or one-line sources), as
# scripts/check-packages.sh finds it.
mirror() {
    local m
    m=$( {
        grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{ print $2 }'
        grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{ print $2 }'
    } | grep -v security | grep '/debian/*$' | head -n 1)
    echo "${m:-http://deb.debian.org/debian}"
}

# make_root: debootstrap sid with herdtools7 into $R (via a temporary
# directory, so that an interrupted run leaves no half root behind).
make_root() {
    local t=$R.tmp
    command -v debootstrap >/dev/null || apt-get -o DPkg::Lock::Timeout=900 install -y \
        --no-install-recommends debootstrap || return 1
    rm -rf --one-file-system "$t" "$R"
    mkdir -p "$CACHE"
    debootstrap --variant=minbase --include=herdtools7 sid "$t" "$(mirror)" || return 1
    chroot "$t" /usr/bin/herd7 -version >"$t/herd7-version" || return 1
    # Nothing of apt's downloads is needed any more.
    rm -rf "$t"/var/cache/apt/archives/*.deb "$t"/var/lib/apt/lists/*_Packages
    mv "$t" "$R"
}

echo "== herd7 in a sid root ($R)"
if [ $REFRESH = 1 ] || [ ! -x "$R/usr/bin/herd7" ]; then
    if [ $IF_CACHED = 1 ]; then
        skip "litmus tests: no cached sid root with herd7 in $R (make check-litmus makes it once)"
        finish
    fi
    T0=$(date +%s)
    step "debootstrap sid with herdtools7 (cached in $R)" make_root || finish
    echo "    made in $(($(date +%s) - T0)) s"
fi
echo "    $(head -n 1 "$R/herd7-version")"

echo "== the kernel memory model ($SRC_PKG, tools/memory-model)"
[ -f "$SRC_TAR" ] || {
    apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends "$SRC_PKG" \
        >"$LOGS/apt.log" 2>&1 || { fail "apt-get install $SRC_PKG"; finish; }
}
SRC_VER=$(dpkg-query -W -f='${Version}' "$SRC_PKG")
# In the root, where herd7 can read it; one per source version.
M=/td-litmus/lkmm-$SRC_VER
extract_model() {
    local t=$R$M.tmp
    rm -rf "$t"
    mkdir -p "$t"
    tar -xJf "$SRC_TAR" -C "$t" --strip-components=3 --wildcards '*/tools/memory-model/*' &&
        [ -f "$t/linux-kernel.cfg" ] && mv "$t" "$R$M"
}
if [ ! -f "$R$M/linux-kernel.cfg" ]; then
    T0=$(date +%s)
    step "extract tools/memory-model from $SRC_TAR" extract_model || finish
    echo "    extracted in $(($(date +%s) - T0)) s"
fi
echo "    $SRC_PKG $SRC_VER"

# The tests travel into the root at every run.
rm -rf "$R/td-litmus/tests"
mkdir -p "$R/td-litmus/tests"
cp "$TESTS"/*.litmus "$R/td-litmus/tests/"

# models FILE: each "path function()" line of the file's Models: list
# names a file of the tree that has that function; prints what does not.
models() {
    awk '/^ *\* *Models[ :(]/ { on = 1; next } on && !/^ *\* +[^ )]/ { exit }
         on { sub(/^ *\* */, ""); print }' "$1" | {
        local n=0 path fn
        while read -r path fn _; do
            n=$((n + 1))
            fn=${fn%%(*}
            if [ ! -f "$ROOT/$path" ]; then
                echo "no file $path"
            elif [ -n "$fn" ] && ! grep -qE "(^|[^A-Za-z0-9_])$fn\(" "$ROOT/$path"; then
                echo "no $fn() in $path"
            fi
        done
        [ $n -gt 0 ] || echo "no Models: list"
    }
}

echo "== litmus tests (selftests/litmus)"
T0=$(date +%s)
for f in "$TESTS"/*.litmus; do
    name=$(basename "$f" .litmus)
    log=$LOGS/$name.log
    want=$(sed -n 's/^ *\* *Result: *\([A-Za-z]*\).*/\1/p' "$f" | head -n 1)
    want_flag=$(sed -n 's/^ *\* *Flags: *\([a-z-]*\).*/\1/p' "$f" | head -n 1)
    bad=$(models "$f")
    if [ -n "$bad" ]; then
        fail "$name: the code it models: $bad"
        continue
    fi
    case $want in
    Never | Sometimes) ;;
    *) fail "$name: no 'Result: Never' or 'Result: Sometimes' in its comment"; continue ;;
    esac
    chroot "$R" /bin/sh -c "cd $M && exec /usr/bin/herd7 -conf linux-kernel.cfg \
        /td-litmus/tests/$name.litmus" >"$log" 2>&1
    got=$(awk '$1 == "Observation" { print $3 }' "$log")
    flag=$(awk '$1 == "Flag" { print $2 }' "$log" | sort -u | tr '\n' ' ')
    flag=${flag% }
    if [ -z "$got" ]; then
        fail "$name: herd7 gave no observation (log: ${log#"$ROOT"/})"
        tail -n 10 "$log" | sed 's/^/    /'
    elif [ "$got" != "$want" ]; then
        fail "$name: expected $want, herd7 says $got ($(awk '$1 == "Observation" { print $4, "of", $4 + $5 }' "$log") executions show the outcome)"
    elif [ "$flag" != "$want_flag" ]; then
        fail "$name: herd7 flags '${flag:-nothing}', the test expects '${want_flag:-nothing}'"
    else
        pass "$name: $got${flag:+ (flag $flag)}"
    fi
done
echo "    herd7 ran $(($(date +%s) - T0)) s"
finish
