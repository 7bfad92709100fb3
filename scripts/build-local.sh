#!/usr/bin/env bash
# scripts/build-local.sh: plain `make`. Builds what this machine can without
# installing anything: tdctl (build/<arch>/tdctl), the module for the
# running kernel's installed headers (kmod/topdown.ko, W=1, warnings are
# errors) and the man pages (build/man/), and says what is missing for the
# rest. `make deps` installs everything (scripts/deps.sh); `make demo` and
# `make check` do that themselves. Exits 1 if something could not be built.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
J=-j$(nproc)
missing=()
failed=0

have_header() { [ -f "/usr/include/$1" ]; }

# tdctl: libkmod, libbpf (headers and libraries), clang and bpftool for the
# BPF backend's program.
need=()
have_header libkmod.h || need+=("libkmod-dev")
have_header bpf/libbpf.h || need+=("libbpf-dev")
command -v "${BPF_CLANG:-clang}" >/dev/null || need+=("clang")
command -v "${BPFTOOL:-bpftool}" >/dev/null || need+=("bpftool")
command -v "${CC:-gcc}" >/dev/null || need+=("gcc")
if [ ${#need[@]} -eq 0 ]; then
    if make -s "$J" -C user; then
        echo "make: tdctl: build/$(uname -m)/tdctl"
    else
        failed=1
    fi
else
    missing+=("tdctl needs: ${need[*]}")
fi

# The module, for the running kernel's headers.
KDIR=${KDIR:-/lib/modules/$(uname -r)/build}
if [ -f "$KDIR/Makefile" ]; then
    if make -s -C kmod KDIR="$KDIR" KCFLAGS=-Werror; then
        echo "make: module: kmod/topdown.ko (for $(basename "$(dirname "$KDIR")"))"
    else
        failed=1
    fi
else
    missing+=("the module needs the headers of kernel $(uname -r): linux-headers-$(uname -r) (or KDIR=...)")
fi

# The man pages.
if [ -x /usr/bin/rst2man ]; then
    make -s -C Documentation/man && echo "make: man pages: build/man/" || failed=1
else
    missing+=("the man pages need: python3-docutils")
fi

for m in "${missing[@]}"; do
    echo "make: missing: $m" >&2
done
[ ${#missing[@]} -eq 0 ] || echo "make: 'make deps' installs what is missing (as root; scripts/deps.sh)" >&2
[ $failed -eq 0 ] && [ ${#missing[@]} -eq 0 ]
