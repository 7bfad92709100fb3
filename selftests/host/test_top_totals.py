#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tdctl top, live, on the module's totals (load --totals).

rdbench --totals N (selftests/bench/reader/rdbench.c) serves
TOPDOWN_IOC_TOTALS from N tasks each of which ran one more slice at
every read: task tid T's slice is 100000 + T % 977 ns long. So an
interval of top holds, for every task, as many slices as the totals
were read in it, each of that length: the rows must say exactly that,
and say they are exact; with a filter they come from the records and
say why not.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
from tap import TOP, fixture, main, ok, skip_all, test  # noqa: E402

RDBENCH = os.path.join(TOP, "build/host/bench/rdbench")
MKFIXTURE = os.path.join(TOP, "build/host/mkfixture")
TASKS = 100


@fixture
def machine(tmp):
    """rdbench built, and a fake machine whose set it loads (in tmp)."""
    b = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "selftests/bench"),
                        "reader"], capture_output=True, text=True)
    if not ok(b.returncode == 0, "rdbench builds (the fake device)", b.stderr):
        skip_all("no rdbench")
    d = os.path.join(tmp, "fixtures")
    subprocess.run([MKFIXTURE, d, "sapphire_rapids"], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(d, "sapphire_rapids")


def top(fx, *args):
    p = subprocess.run([RDBENCH, "--fixture", fx, "--cpus", "2", "-n", "1000", "--live",
                        "--totals", str(TASKS), "--", "--json", "top", *args],
                       capture_output=True, text=True, timeout=60)
    snaps = [json.loads(ln) for ln in p.stdout.splitlines() if ln.startswith("{")]
    return p, snaps


@test
def intervals_from_the_totals(machine):
    p, snaps = top(machine, "-d", "0.3", "-n", "3")
    ok(p.returncode == 0 and len(snaps) == 3, "top -d 0.3 -n 3: three snapshots",
       p.stderr + p.stdout)
    for i, s in enumerate(snaps):
        rows = [r for r in s.get("rows", []) if r.get("pid")]
        n = {r["slices"] for r in rows}
        bad = [r["tid"] for r in rows
               if r["runtime_ns"] != r["slices"] * (100000 + r["tid"] % 977)]
        ok(s.get("exact") is True and "not_exact" not in s,
           f"snapshot {i}: \"exact\": true", json.dumps(s)[:400])
        ok(len(rows) == TASKS and len(n) == 1 and min(n) > 0 and not bad,
           f"snapshot {i}: each of the {TASKS} tasks its interval's slices "
           f"({sorted(n)}), each of its length", f"{len(rows)} rows, bad {bad[:5]}")
        ok(s["total"]["slices"] == sum(r["slices"] for r in s["rows"]),
           f"snapshot {i}: the total is the rows' sum", json.dumps(s["total"])[:300])


@test
def a_filter_counts_the_records(machine):
    p, snaps = top(machine, "-d", "0.3", "-n", "2", "--comm", "w101")
    ok(p.returncode == 0 and snaps and all(s.get("exact") is False for s in snaps) and
       all("filters" in s.get("not_exact", "") for s in snaps),
       "top --comm: not exact, the filters named as the reason",
       "\n".join(json.dumps({k: v for k, v in s.items() if k != "rows"}) for s in snaps)
       + p.stderr)


if __name__ == "__main__":
    main()
