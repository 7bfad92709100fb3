#!/usr/bin/env bash
# scripts/checkpatch.sh: the kernel's checkpatch.pl --strict over the module
# and the UAPI header. checkpatch.pl comes from Debian's linux-source-6.1
# tarball (extracted once into build/deps/checkpatch/, never committed).
# td_compat.h exists to hold version tests, so LINUX_VERSION_CODE (and the
# constant-on-the-left it implies) is allowed there and nowhere else.
# --unpack: only extract checkpatch.pl (scripts/lint.sh uses it alone).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CP=$ROOT/build/deps/checkpatch
TARBALL=/usr/src/linux-source-6.1.tar.xz

if [ ! -f "$CP/checkpatch.pl" ]; then
    [ -f "$TARBALL" ] || { echo "checkpatch: $TARBALL missing (scripts/deps.sh installs linux-source-6.1)" >&2; exit 2; }
    mkdir -p "$CP.tmp"
    tar -xJf "$TARBALL" -C "$CP.tmp" --strip-components=2 \
        linux-source-6.1/scripts/checkpatch.pl \
        linux-source-6.1/scripts/spelling.txt \
        linux-source-6.1/scripts/const_structs.checkpatch
    rm -rf "$CP" && mv "$CP.tmp" "$CP"
fi
[ "${1:-}" = --unpack ] && exit 0

cd "$ROOT"
CHK=(perl "$CP/checkpatch.pl" --no-tree --strict --terse --show-types)
rc=0
files=()
for f in kmod/*.c kmod/*.h include/uapi/linux/topdown.h; do
    [ "$f" = kmod/td_compat.h ] || files+=("$f")
done
"${CHK[@]}" -f "${files[@]}" || rc=1
"${CHK[@]}" --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f kmod/td_compat.h || rc=1
exit $rc
