#!/usr/bin/env bash
# scripts/check_commits.sh [REV]: the subjects of the commits after BASE
# up to REV (default HEAD), as the kernel writes them (make lint, through
# scripts/lint.sh commits):
#   - "area: subject": an area (a file, folder or subsystem name, no
#     blanks; "a, b: " and "a: b: " for more than one), a colon, a blank,
#     then the subject
#   - at most 72 characters in all
# Merge commits are not checked: git writes their subjects. Nor is the
# area of git revert's subject, Revert "SUBJECT" (the kernel's own
# reverts read so): SUBJECT is the reverted commit's, checked when it
# was made; the length is.
# Prints each commit that breaks a rule and exits 1 if there was one.
#
# BASE is the main branch's head when the rule was adopted: the commits
# before it were written under no rule (64% of their subjects are longer
# than 72 characters), and history is not rewritten. Commits after it,
# whatever branch they come from, follow the rule. BASE_TIME is its
# committer time (git log -1 --format=%ct BASE), for a shallow clone that
# lacks BASE: then the commits present that were committed after it are
# checked (a clone of depth 1 checks its one commit).
# Outside a git work tree (a release tarball) there is nothing to check.
set -uo pipefail
BASE=e66bdc0f1735e146ac6b6c00ec97189fc52406d9
BASE_TIME=1795769124
MAX=72
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
REV=${1:-HEAD}

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "commits: not a git work tree, nothing to check"
    exit 0
fi
if git cat-file -e "$BASE^{commit}" 2>/dev/null; then
    range=("$BASE..$REV")
    what="after ${BASE:0:12}"
elif [ "$(git rev-parse --is-shallow-repository)" = true ]; then
    range=("$REV" --since-as-filter="@$BASE_TIME")
    what="committed after ${BASE:0:12}'s time (a shallow clone without it)"
    # git before 2.37 has no --since-as-filter; --since stops at the
    # first older commit, which in a shallow history is near enough.
    git rev-list -n 1 "${range[@]}" >/dev/null 2>&1 || range=("$REV" --since="@$BASE_TIME")
else
    echo "commits: ${BASE:0:12} is not in this repository: fetch it, or the whole history"
    exit 1
fi

# area: a token of letters, digits and _ . + / * - ; more areas after
# ", " or ": ".
AREA='[A-Za-z0-9_.+/*-]+'
RE="^$AREA((, |: )$AREA)*: [^ ]"
n=0 bad=0
while IFS= read -r line; do
    hash=${line%% *} subject=${line#* }
    n=$((n + 1))
    why=
    [[ $subject =~ $RE || $subject =~ ^Revert\ \".*\"$ ]] || why="not 'area: subject'"
    [ "${#subject}" -le "$MAX" ] || why="${why:+$why; }${#subject} characters, more than $MAX"
    if [ -n "$why" ]; then
        bad=$((bad + 1))
        printf '%s %s\n    %s\n' "${hash:0:12}" "$subject" "$why"
    fi
done < <(git log --no-merges --format='%H %s' "${range[@]}")
echo "commits: $n $what, $bad breaking the subject rules"
[ "$bad" -eq 0 ]
