# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# scripts/lib.sh: the counting of scripts/check.sh, scripts/check-debug.sh
# and scripts/check-litmus.sh (sourced). The caller sets ROOT (the
# repository) and LOGS (where each step's log goes) before using step.
PASS=0 FAIL=0 SKIP=0

pass() { PASS=$((PASS + 1)); echo "PASS: $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }

# step NAME CMD...: one counted test whose log is kept in $LOGS; on
# failure its last lines are shown and step returns 1.
step() {
    local name=$1 log
    shift
    log=$LOGS/$(echo "$name" | tr ' /' '__').log
    if "$@" >"$log" 2>&1; then
        pass "$name"
    else
        fail "$name (log: ${log#"$ROOT"/})"
        tail -n 30 "$log" | sed 's/^/    /'
        return 1
    fi
}

# tap NAME FILE: count a TAP stream's results.
tap() {
    local name=$1 file=$2 p f s
    p=$(grep -cE '^ok [0-9]+' "$file" | tr -d ' ')
    s=$(grep -cE '^ok [0-9]+.*# *SKIP' "$file" | tr -d ' ')
    f=$(grep -cE '^not ok [0-9]+' "$file" | tr -d ' ')
    p=$((p - s))
    PASS=$((PASS + p)) FAIL=$((FAIL + f)) SKIP=$((SKIP + s))
    echo "$name: $p passed, $f failed, $s skipped"
    grep -E '^not ok [0-9]+|^ok [0-9]+.*# *SKIP' "$file" | sed 's/^/    /'
}

# tally NAME FILE: count the "PASS:", "FAIL:" and "SKIP:" lines of a tier
# that reports in this file's own way (scripts/check-litmus.sh).
tally() {
    local name=$1 file=$2 p f s
    p=$(grep -c '^PASS: ' "$file" | tr -d ' ')
    f=$(grep -c '^FAIL: ' "$file" | tr -d ' ')
    s=$(grep -c '^SKIP: ' "$file" | tr -d ' ')
    PASS=$((PASS + p)) FAIL=$((FAIL + f)) SKIP=$((SKIP + s))
    echo "$name: $p passed, $f failed, $s skipped"
    grep -E '^(FAIL|SKIP): ' "$file" | sed 's/^/    /'
}

# finish: the closing line "N passed, N failed[, N skipped]" and exit,
# non-zero when anything failed.
finish() {
    echo
    if [ $SKIP -gt 0 ]; then
        echo "$PASS passed, $FAIL failed, $SKIP skipped"
    else
        echo "$PASS passed, $FAIL failed"
    fi
    [ $FAIL -eq 0 ]
    exit
}
