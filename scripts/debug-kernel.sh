#!/usr/bin/env bash
# scripts/debug-kernel.sh [--kernel 6.1|6.12] [--flavor kasan|kcsan]
#                         [--print-dir] [--force]
#
# Builds (once) a small x86-64 debug kernel from Debian's linux-source-6.1
# (or linux-source-6.12 with --kernel 6.12: its fragment lacks
# UBSAN_SANITIZE_ALL, which 6.9 removed, and turns SLUB_TINY off)
# for the debug test tier (make check-debug): tinyconfig plus what the guest
# and the module need, plus lockdep (PROVE_LOCKING), DEBUG_ATOMIC_SLEEP,
# KASAN (generic, inline, vmalloc; with SLUB), KMEMLEAK and UBSAN.
#
# --flavor kcsan (6.12 only) builds the data-race detector's kernel instead:
# KCSAN cannot be combined with KASAN (Kconfig: KCSAN depends on !KASAN),
# so it is a kernel of its own: the same base, DEBUG_ATOMIC_SLEEP, and KCSAN
# in strict mode (KCSAN_STRICT: the rules closest to the kernel memory
# model, with weak-memory modelling), each race reported once per run
# (KCSAN_REPORT_ONCE_IN_MS of an hour); without lockdep, KMEMLEAK and UBSAN,
# which the KASAN kernel covers, to keep the instrumented guest fast enough.
#
# The build lives outside the repository, in
#   ${TD_DEBUG_KERNEL_CACHE:-/var/cache/topdown-debug-kernel}/<key>/
# where <key> hashes the source package version, the config fragment below
# and the compiler version.  A finished build (it has a "done" stamp) is
# reused; an interrupted one resumes.  The directory holds
#   obj/                     the build tree (make -C obj M=... modules)
#   obj/arch/x86/boot/bzImage
#   obj/Module.symvers       the kernel's symbol versions
#   kernelrelease            `make kernelrelease`
#
#   --print-dir   print the cache directory of the current key and exit
#                 (0 if the build there is complete, 1 if not)
#   --force       rebuild from scratch
#
# Needs root for apt-get when packages are missing.  Takes about 8-15 min on
# 2 cores; prints the build directory on success (last line of stdout).
set -euo pipefail

note() { printf 'debug-kernel: %s\n' "$*" >&2; }
die() { printf 'debug-kernel: error: %s\n' "$*" >&2; exit 1; }

PRINT=0 FORCE=0 SERIES=6.1 FLAVOR=kasan
while [ $# -gt 0 ]; do
    case $1 in
    --print-dir) PRINT=1 ;;
    --force) FORCE=1 ;;
    --kernel) SERIES=${2:-}; shift ;;
    --kernel=*) SERIES=${1#*=} ;;
    --flavor) FLAVOR=${2:-}; shift ;;
    --flavor=*) FLAVOR=${1#*=} ;;
    -h | --help) sed -n '2,37s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown argument $1" ;;
    esac
    shift
done
case $SERIES in 6.1 | 6.12) ;; *) die "unknown kernel series '$SERIES' (6.1 or 6.12)" ;; esac
case $FLAVOR in
kasan) ;;
kcsan) [ "$SERIES" = 6.12 ] || die "the kcsan flavor is built for 6.12 only" ;;
*) die "unknown flavor '$FLAVOR' (kasan or kcsan)" ;;
esac

SRC_PKG=linux-source-$SERIES
SRC_TAR=/usr/src/$SRC_PKG.tar.xz
CACHE=${TD_DEBUG_KERNEL_CACHE:-/var/cache/topdown-debug-kernel}

# The configuration: tinyconfig, then these (y unless a value is given).
FRAGMENT='
64BIT
SMP
NR_CPUS=8
HOTPLUG_CPU
PREEMPT
PRINTK
BUG
EARLY_PRINTK
TTY
SERIAL_8250
SERIAL_8250_CONSOLE
UNIX98_PTYS
PCI
ACPI
BLK_DEV_INITRD
RD_GZIP
DEVTMPFS
DEVTMPFS_MOUNT
PROC_FS
PROC_SYSCTL
SYSFS
SHMEM
TMPFS
BINFMT_ELF
BINFMT_SCRIPT
MULTIUSER
FUTEX
EPOLL
SIGNALFD
TIMERFD
EVENTFD
POSIX_TIMERS
FILE_LOCKING
SYSVIPC
USERFAULTFD
CGROUPS
CGROUP_SCHED
FAIR_GROUP_SCHED
MODULES
MODULE_UNLOAD
PERF_EVENTS
FTRACE
ENABLE_DEFAULT_TRACERS
KALLSYMS
KALLSYMS_ALL
DEBUG_KERNEL
DEBUG_FS
MAGIC_SYSRQ
PROVE_LOCKING
DEBUG_ATOMIC_SLEEP
DEBUG_PREEMPT
DEBUG_LIST
SLUB
SLUB_DEBUG
KASAN
KASAN_GENERIC
KASAN_INLINE
KASAN_VMALLOC
DEBUG_KMEMLEAK
DEBUG_KMEMLEAK_MEM_POOL_SIZE=40000
UBSAN
UBSAN_BOUNDS
UBSAN_SHIFT
UBSAN_DIV_ZERO
UBSAN_BOOL
UBSAN_ENUM
UBSAN_SANITIZE_ALL
SOFTLOCKUP_DETECTOR
DETECT_HUNG_TASK
'
# Must stay off (checked after olddefconfig): a signed or compressed
# module, or a kmemleak that starts disabled, would defeat the tier.
OFF='MODULE_SIG DEBUG_KMEMLEAK_DEFAULT_OFF SLOB'
# 6.9 removed UBSAN_SANITIZE_ALL (commit 918327e9b7ff): UBSAN=y now
# instruments the whole kernel. The 6.1 fragment stays as it is (its
# cache key hashes it).
# tinyconfig selects SLUB_TINY (6.2, commit e240e53ae0ab), which KASAN and
# SLUB_DEBUG depend on not being set.
if [ "$SERIES" = 6.12 ]; then
    FRAGMENT=$(printf '%s\n' "$FRAGMENT" | grep -vx UBSAN_SANITIZE_ALL)
    OFF="$OFF SLUB_TINY"
fi
# The KCSAN kernel: the base (everything up to DEBUG_ATOMIC_SLEEP but
# lockdep), then KCSAN. Its own fragment, so its own cache key; the kasan
# fragments above stay as they are (their keys hash them).
if [ "$FLAVOR" = kcsan ]; then
    FRAGMENT=$(printf '%s\n' "$FRAGMENT" | sed -n '/^PROVE_LOCKING$/q; p' | grep -v '^$')
    FRAGMENT="$FRAGMENT
DEBUG_ATOMIC_SLEEP
DEBUG_PREEMPT
DEBUG_LIST
SLUB
KCSAN
KCSAN_STRICT
KCSAN_WEAK_MEMORY
KCSAN_REPORT_ONCE_IN_MS=3600000
SOFTLOCKUP_DETECTOR
DETECT_HUNG_TASK"
    OFF='MODULE_SIG SLOB SLUB_TINY KASAN'
fi

[ -f "$SRC_TAR" ] || {
    note "installing $SRC_PKG"
    apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends "$SRC_PKG" >&2 ||
        die "apt-get install $SRC_PKG failed"
}
need=()
for p in build-essential bc bison flex libelf-dev libssl-dev xz-utils cpio; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
    note "installing ${need[*]}"
    apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends "${need[@]}" >&2 || die "apt-get install ${need[*]} failed"
fi

SRC_VER=$(dpkg-query -W -f='${Version}' "$SRC_PKG")
KEY=$({
    echo "$SRC_VER"
    echo "$FRAGMENT"
    echo "$OFF"
    gcc --version | head -n1
} | sha256sum | cut -c1-16)
DIR=$CACHE/$KEY
OBJ=$DIR/obj

if [ $PRINT = 1 ]; then
    echo "$DIR"
    [ -f "$DIR/done" ]
    exit
fi
if [ $FORCE = 1 ]; then rm -rf "$DIR"; fi
if [ -f "$DIR/done" ] && [ -f "$OBJ/arch/x86/boot/bzImage" ]; then
    note "cached: $DIR ($(cat "$DIR/kernelrelease"))"
    echo "$DIR"
    exit 0
fi

mkdir -p "$DIR"
SRC=$CACHE/src-$SRC_VER
if [ ! -f "$SRC/.unpacked" ]; then
    note "unpacking $SRC_TAR ($SRC_PKG $SRC_VER)"
    rm -rf "$SRC" "$SRC.tmp"
    mkdir -p "$SRC.tmp"
    tar -xJf "$SRC_TAR" -C "$SRC.tmp" --strip-components=1
    mv "$SRC.tmp" "$SRC"
    : >"$SRC/.unpacked"
fi

mkdir -p "$OBJ"
M=(make -C "$SRC" O="$OBJ" ARCH=x86_64 -j"${JOBS:-$(nproc)}")
if [ ! -f "$OBJ/.config" ] || [ ! -f "$DIR/config-done" ]; then
    note "configuring in $OBJ"
    "${M[@]}" tinyconfig >&2
    args=()
    while IFS= read -r l; do
        [ -n "$l" ] || continue
        case $l in
        *=*) args+=(--set-val "${l%%=*}" "${l#*=}") ;;
        *) args+=(--enable "$l") ;;
        esac
    done <<<"$FRAGMENT"
    for o in $OFF; do args+=(--disable "$o"); done
    "$SRC/scripts/config" --file "$OBJ/.config" "${args[@]}"
    # Twice: options whose dependencies the first pass enabled.
    "${M[@]}" olddefconfig >&2
    "$SRC/scripts/config" --file "$OBJ/.config" "${args[@]}"
    "${M[@]}" olddefconfig >&2
    missing=
    while IFS= read -r l; do
        [ -n "$l" ] || continue
        o=${l%%=*}
        grep -q "^CONFIG_$o=" "$OBJ/.config" || missing="$missing $o"
    done <<<"$FRAGMENT"
    for o in $OFF; do grep -q "^CONFIG_$o=y" "$OBJ/.config" && missing="$missing !$o"; done
    [ -z "$missing" ] || die "config options not as asked after olddefconfig:$missing"
    : >"$DIR/config-done"
fi

note "building bzImage and modules in $OBJ (log: $DIR/build.log)"
T0=$(date +%s)
if ! "${M[@]}" bzImage modules >"$DIR/build.log" 2>&1; then
    tail -n 40 "$DIR/build.log" >&2
    die "kernel build failed (log: $DIR/build.log)"
fi
# The module build needs the kernel's symbol versions in Module.symvers
# (`make modules` writes it; older trees leave them in vmlinux.symvers).
if [ -f "$OBJ/vmlinux.symvers" ] && [ ! -s "$OBJ/Module.symvers" ]; then
    cp "$OBJ/vmlinux.symvers" "$OBJ/Module.symvers"
fi
[ -s "$OBJ/Module.symvers" ] || die "no Module.symvers in $OBJ"
"${M[@]}" -s kernelrelease >"$DIR/kernelrelease"
cp "$OBJ/.config" "$DIR/config"
: >"$DIR/done"
note "built $(cat "$DIR/kernelrelease") in $(($(date +%s) - T0)) s: $DIR"
echo "$DIR"
