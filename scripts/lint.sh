#!/usr/bin/env bash
# scripts/lint.sh [--changed]
#     [c|shell|python|rst|layers|litmus|percpu|sparse|tracker|commits]...:
#     make lint
# (make check runs it too). Every file of the tree, by language, and the
# commit subjects (default: all ten):
#   c        checkpatch.pl --no-tree --strict. Kernel code (kmod/, the UAPI
#            header, the selftests' simulated PMU module) with the kernel's
#            rules (scripts/checkpatch.sh); user space (user/, selftests/)
#            with the exceptions listed in USER_IGNORE below
#   shell    shellcheck (files named *.sh or *.bash, or starting with a sh
#            or bash #! line), following sourced files; .shellcheckrc has
#            the project-wide exceptions, the others are inline
#   python   pyflakes3 and pycodestyle (lines up to 100 columns, as the C)
#   rst      every *.rst file parses with docutils without a warning
#            (scripts/rst_check.py: undefined substitutions, tables, ...)
#   layers   tdctl's layer rules of user/README: no #include of a layer
#            listed above the file's own (at any depth: "live/bpf/bpf.h"
#            is live/'s), evset_priv.h only in evset/, no ioctl() outside
#            live/ but a terminal's (TIOC...); user/README's picture of
#            the layers matches its list and is the one design.rst shows,
#            no .c or .h file of user/ over 1,000 lines
#            (scripts/check_layers.py); inside a folder no call cycle
#            between files, from the symbols of the host's tdctl objects,
#            built first (scripts/check_cycles.py)
#   litmus   each litmus test of selftests/litmus names the marked regions
#            of kmod/ and user/ it models and the ordered accesses and
#            barriers in them, which must be the code's: a barrier added or
#            removed without the test changing fails (scripts/litmus_code.py;
#            no herd7 needed, make check-litmus runs herd7)
#   percpu   every built topdown.ko (and the selftests' topdown_hooks.ko)
#            has at most 256 bytes of static per-CPU data (.data..percpu):
#            all modules share 8 KiB of it (PERCPU_MODULE_RESERVE); the
#            rest is alloc_percpu()'s. Checks what build/ holds, if any
#   sparse   sparse on the module (kmod/, make C=2 through scripts/kbuild.sh
#            with TD_SPARSE=1) for x86_64 and arm64 against Debian 12's
#            6.1 headers, the build's own: no finding. Into build/sparse/,
#            so the modules make check boots are not replaced
#   tracker  no tracker number (the word issue and a number, with or
#            without # or -) in code, scripts, tests or build files, that
#            is every file of the tree
#            but Documentation/ and the *.rst files. A comment says what
#            the number stood for (the target, the bug, the invariant),
#            which the reader has at hand; the documents may tell history
#   commits  the subjects of the commits after the rule's base commit:
#            "area: subject", at most 72 characters
#            (scripts/check_commits.sh, which says why that base)
# Prints every finding and exits 1 when there was one. Needs shellcheck,
# pyflakes3 and pycodestyle (scripts/deps.sh installs them).
#
# --changed (make test, the fast tier): c, shell, python and rst look only
# at the files that differ from where the branch left main (git merge-base
# HEAD main, or origin/main): committed, staged, unstaged or untracked;
# layers, litmus, percpu, tracker and commits look at everything, as they take a
# second; sparse runs if kmod/ or include/uapi/ changed. Without main or
# outside git it lints everything. make lint and make check lint every
# file.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2

CHANGED=
if [ "${1:-}" = --changed ]; then
    shift
    mb=
    for ref in main origin/main; do
        mb=$(git merge-base HEAD "$ref" 2>/dev/null) && break
    done
    if [ -n "$mb" ]; then
        CHANGED=$(mktemp)
        trap 'rm -f "$CHANGED"' EXIT
        { git diff --name-only --diff-filter=d "$mb"; git ls-files -o --exclude-standard; } |
            sort -u >"$CHANGED"
        echo "lint: the $(wc -l <"$CHANGED") files changed since ${mb:0:12} (git merge-base HEAD $ref)"
    else
        echo "lint: no main branch to compare with: every file"
    fi
fi

# files PATTERN...: the tree's files matching a find -name pattern, sorted,
# without what the build makes and the fuzz corpus (data, not code); with
# --changed, only those changed.
files() {
    local args=() p
    for p in "$@"; do args+=(-o -name "$p"); done
    find . \( -path ./build -o -path ./.git -o -path "./selftests/fuzz/corpus*" \) -prune \
        -o -type f \( "${args[@]:1}" \) -print | sed 's|^\./||' | sort |
        if [ -n "$CHANGED" ]; then grep -Fx -f "$CHANGED"; else cat; fi
}

# The rules of checkpatch.pl that are about the kernel's own API and so do
# not apply to user-space C (user/, selftests/):
#   PREFER_KERNEL_TYPES      u64 and friends are kernel types; user space
#                            has <stdint.h>
#   PREFER_DEFINED_ATTRIBUTE_MACRO, BIT_MACRO, ARRAY_SIZE, SSCANF_TO_KSTRTO
#                            __printf, __packed, BIT(), ARRAY_SIZE(),
#                            kstrto*() exist only in the kernel
#   USE_NEGATIVE_ERRNO       errno and what tests compare with it are
#                            positive in user space
#   ENOSYS                   what the C library reports for a system call
#                            the running kernel lacks (membarrier, ...)
#   CAMELCASE                names fixed by C99 and libFuzzer (PRIu64,
#                            LLVMFuzzerTestOneInput)
#   CONSTANT_COMPARISON      the kselftest harness's EXPECT_EQ(expected,
#                            seen) puts the constant first
#   VOLATILE                 flags shared with signal handlers and threads
#                            (no READ_ONCE in user space)
#   SPLIT_STRING             messages are split at the line length; the
#                            rule keeps kernel log lines grep-able
#   ARCH_DEFINES             no Kconfig in user space: the compiler's
#                            __x86_64__ / __aarch64__ choose the SIMD code
USER_IGNORE=PREFER_KERNEL_TYPES,PREFER_DEFINED_ATTRIBUTE_MACRO,BIT_MACRO,ARRAY_SIZE
USER_IGNORE+=,SSCANF_TO_KSTRTO,USE_NEGATIVE_ERRNO,ENOSYS,CAMELCASE,CONSTANT_COMPARISON
USER_IGNORE+=,VOLATILE,SPLIT_STRING,ARCH_DEFINES

# Exceptions for some files only: "PATTERN TYPES", each with its reason.
FILE_IGNORE=(
    # The kselftest harness's EXPECT_*() and ASSERT_*() expand to two
    # statements (the check, then the for loop of its TH_LOG handler), so
    # one of them alone as the body of an if, else or for needs braces.
    "selftests/kmod/*.c BRACES"
    # checkpatch reads the minus of a float exponent (1e-12) as a binary
    # operator written without spaces.
    "selftests/host/test_evset.c SPACING"
    "selftests/host/test_fmt.c SPACING"
    "selftests/host/test_events.c SPACING"
    "selftests/host/test_estimate.c SPACING"
    "selftests/kmod/pmusim_test.c SPACING"
    # Declarations that belong to no header: the __real_ and __wrap_
    # functions of ld --wrap and tdctl's main (rdbench.c), the libFuzzer
    # entry point and the flag of stub.c (replay.c, the fuzz targets).
    "selftests/bench/reader/rdbench.c AVOID_EXTERNS"
    "selftests/fuzz/replay.c AVOID_EXTERNS"
    "selftests/fuzz/fuzz_*.c AVOID_EXTERNS"
    # The argument vector of a command's --help holds argv[1], not a
    # constant, and is passed as char ** (getopt permutes it).
    "user/cli/tdctl.c STATIC_CONST_CHAR_ARRAY"
    # The option-table macros expand to lists of initializers, which
    # parentheses would turn into one expression.
    "user/cli/tdctl.h COMPLEX_MACRO"
    # AMD_RAW() builds constant table initializers from constants; the
    # Neoverse N3/V3 metric and formula macros repeat string literals.
    "user/evset/evset_amd.c MACRO_ARG_REUSE"
    "user/evset/evset_arm_n3v3.c MACRO_ARG_REUSE"
    # checkpatch does not know the type unsigned __int128 and reads its
    # declarations as statements.
    "user/evset/evset_arm.c LINE_SPACING"
    "user/evset/evset_arm_n3v3.c LINE_SPACING"
    "user/evset/evset_intel.c LINE_SPACING"
    "user/evset/evset_intel_icl.c LINE_SPACING"
    # u128 names the compiler's unsigned __int128; the digit-pair table is
    # two strings of digits, not text to break at a space.
    "user/output/fmt.c NEW_TYPEDEFS,MISSING_SPACE"
    # json_writer_t: the JSON writer's opaque handle, the one typedef of
    # the user-space code, used by every output path.
    "user/output/json_writer.h NEW_TYPEDEFS"
)

lint_c() {
    local rc=0 cp=build/deps/checkpatch/checkpatch.pl f e pat types ign out
    local -A groups=()
    # Unpacks checkpatch.pl from linux-source-6.1 the first time.
    scripts/checkpatch.sh --unpack || return 1
    if [ -z "$CHANGED" ] || files '*.c' '*.h' | grep -qE '^(kmod/|include/uapi/)'; then
        scripts/checkpatch.sh || rc=1
    fi
    if [ -z "$CHANGED" ] || grep -qFx selftests/pmusim/td_pmusim.c "$CHANGED"; then
        perl "$cp" --no-tree --strict --terse --show-types -f selftests/pmusim/td_pmusim.c || rc=1
    fi
    # User space, grouped by the exceptions that apply.
    while read -r f; do
        ign=$USER_IGNORE
        for e in "${FILE_IGNORE[@]}"; do
            read -r pat types <<<"$e"
            # shellcheck disable=SC2053 # $pat is a glob on purpose
            [[ $f == $pat ]] && ign+=,$types
        done
        groups[$ign]+="$f "
    done < <(files '*.c' '*.h' | grep -E '^(user|selftests)/' | grep -v '^selftests/pmusim/')
    [ ${#groups[@]} -gt 0 ] || return $rc
    for ign in "${!groups[@]}"; do
        # shellcheck disable=SC2086 # the list of paths (no spaces in them)
        out=$(perl "$cp" --no-tree --strict --terse --show-types --ignore "$ign" \
            -f ${groups[$ign]} 2>&1) || rc=1
        grep -v '^total: 0 errors, 0 warnings, 0 checks' <<<"$out"
    done
    return $rc
}

lint_shell() {
    local f sh=()
    while read -r f; do
        case $f in
        *.sh | *.bash) sh+=("$f") ;;
        *.c | *.h | *.py | *.rst | *.json | *.td) ;;
        *) head -n 1 "$f" | grep -qE '^#!.*[/ ](ba)?sh( |$)' && sh+=("$f") ;;
        esac
    done < <(files '*')
    [ ${#sh[@]} -eq 0 ] || shellcheck -x "${sh[@]}"
}

lint_rst() {
    local rst=()
    mapfile -t rst < <(files '*.rst')
    [ ${#rst[@]} -eq 0 ] || python3 scripts/rst_check.py "${rst[@]}"
}

lint_sparse() {
    local arch log n rc=0 want
    if [ -n "$CHANGED" ] && ! files '*' | grep -qE '^(kmod/|include/uapi/)'; then
        return 0
    fi
    command -v sparse >/dev/null || { echo "sparse: not installed (scripts/deps.sh installs it)"; return 1; }
    want=$(find kmod -maxdepth 1 -name '*.c' | wc -l)
    for arch in x86_64 arm64; do
        log=build/sparse/$arch/kbuild.log
        # Not make's flags of a caller (make test runs this under make -s,
        # and Kbuild then says nothing of the files it checks).
        MAKEFLAGS='' TD_SPARSE=1 TD_OUT=$ROOT/build/sparse/$arch scripts/kbuild.sh "$arch" >/dev/null 2>&1 || {
            echo "sparse: $arch: the module does not build (${log})"
            tail -n 20 "$log"
            rc=1
            continue
        }
        # Kbuild says CHECK for each file sparse looks at; it skips sparse
        # silently when it finds none that it can run.
        n=$(grep -c '^  CHECK ' "$log")
        if [ "$n" -ne "$want" ]; then
            echo "sparse: $arch: ran on $n of the $want files of kmod/ ($log)"
            rc=1
        fi
        if grep -E '^[^ :]+:[0-9]+:[0-9]+: (warning|error):' "$log" |
            sed "s|^$ROOT/build/sparse/$arch/kmod-src/include/|include/|; s|^$ROOT/build/sparse/$arch/kmod-src/|kmod/|" |
            grep .; then
            rc=1
        fi
        echo "sparse: $arch: $n files checked"
    done
    return $rc
}

lint_python() {
    local f py=() rc=0
    while read -r f; do
        case $f in
        *.py) py+=("$f") ;;
        *.c | *.h | *.sh | *.rst | *.json | *.td) ;;
        *) head -n 1 "$f" | grep -qE '^#!.*python' && py+=("$f") ;;
        esac
    done < <(files '*')
    [ ${#py[@]} -gt 0 ] || return 0
    pyflakes3 "${py[@]}" || rc=1
    pycodestyle --max-line-length=100 "${py[@]}" || rc=1
    return $rc
}

# No tracker numbers outside the documents (see tracker above). The
# pattern is written so that this file does not match it.
TRACKER_RE='\bissues?[-_ ]*#?[0-9]'
lint_tracker() {
    local rc=0
    # grep -H: file:line:text; exits 1 when nothing matched.
    if CHANGED='' files '*' | grep -vE '^Documentation/|\.rst$' |
        xargs -d '\n' grep -nIiHE "$TRACKER_RE" |
        sed 's|$|   <- a tracker number: say what it stands for instead|' | grep .; then
        rc=1
    fi
    echo "tracker: no tracker numbers in code, scripts and tests $([ $rc = 0 ] && echo ok || echo FAILED)"
    return $rc
}

# The static per-CPU data of every module built (readelf, any arch).
PERCPU_MAX=256
lint_percpu() {
    local ko size n=0 rc=0
    while IFS= read -r -d '' ko; do
        # "[Nr] Name Type Address Off Size ...": the size, in hex.
        size=$(readelf -SW "$ko" |
            sed -n 's/.*\] \.data\.\.percpu  *[A-Z]*  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
        size=$((16#${size:-0}))
        n=$((n + 1))
        if [ "$size" -gt "$PERCPU_MAX" ]; then
            echo "${ko#"$ROOT"/}: $size bytes of static per-CPU data (.data..percpu), at most $PERCPU_MAX"
            rc=1
        fi
    # Not build/vm: the guests' copies, which come and go while they run.
    done < <(find "$ROOT/build" -path "$ROOT/build/vm" -prune -o \
        \( -name topdown.ko -o -name topdown_hooks.ko \) -print0 2>/dev/null)
    echo "percpu: $n modules built, each at most $PERCPU_MAX bytes of static per-CPU data" \
        "$([ $rc = 0 ] && echo ok || echo FAILED)"
    return $rc
}

[ $# -gt 0 ] || set -- c shell python rst layers litmus percpu sparse tracker commits
rc=0
for what in "$@"; do
    case $what in
    c) lint_c || rc=1 ;;
    shell) lint_shell || rc=1 ;;
    python) lint_python || rc=1 ;;
    rst) lint_rst || rc=1 ;;
    layers)
        python3 scripts/check_layers.py || rc=1
        if make -s -C user >/dev/null; then
            python3 scripts/check_cycles.py || rc=1
        else
            echo "cycles: tdctl does not build" && rc=1
        fi ;;
    litmus) python3 scripts/litmus_code.py || rc=1 ;;
    percpu) lint_percpu || rc=1 ;;
    sparse) lint_sparse || rc=1 ;;
    tracker) lint_tracker || rc=1 ;;
    commits) scripts/check_commits.sh || rc=1 ;;
    *) echo "usage: scripts/lint.sh [--changed] [c|shell|python|rst|layers|litmus|percpu|sparse|tracker|commits]..." >&2; exit 2 ;;
    esac
done
exit $rc
