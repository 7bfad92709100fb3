#!/usr/bin/env bash
# scripts/build.sh: build everything for both guest architectures:
# the module (W=1, warnings fail), tdctl and the guest selftests, into
# build/x86_64/ and build/arm64/. Needs scripts/deps.sh to have run.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
[ -f build/deps/env.sh ] || { echo "build: run scripts/deps.sh first" >&2; exit 2; }
# shellcheck source=/dev/null
. build/deps/env.sh
J=-j$(nproc)

for arch in x86_64 arm64; do
    scripts/kbuild.sh "$arch" >/dev/null
    echo "build: $arch module: build/$arch/topdown.ko"
    make -s "$J" -C user ARCH="$arch" ARM64_SYSROOT_LIBS="$ARM64_SYSROOT_LIBS"
    echo "build: $arch tdctl: build/$arch/tdctl"
    make -s "$J" -C selftests ARCH="$arch" KSELFTEST_DIR="$KSELFTEST_DIR"
    echo "build: $arch selftests: build/$arch/selftests/"
done
