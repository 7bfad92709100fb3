#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The recording rules of contrib/prometheus/topdown.rules.yml give, for
every event set that `tdctl load` picks on the fixture machines
(selftests/host's mkfixture) and that the rules cover, the same four
TopDown fractions as `tdctl decode` on the same counts. promtool test
rules evaluates them on synthetic counters of `tdctl serve`'s names that
grow by those counts every 15 s; each fraction must be within 1e-9 of
decode's. SKIP without promtool. TAP.
"""
import json
import os
import random
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
from tap import TDCTL, TOP, main, ok, require, test  # noqa: E402

OUT = os.environ.get("OUT") or os.path.join(TOP, "build/host/")
RULES = os.path.join(TOP, "contrib/prometheus/topdown.rules.yml")
FRACTIONS = ("retiring", "bad_speculation", "frontend_bound", "backend_bound")
# Fixture -> the rules' formula label for the set tdctl picks there.
COVERED = {
    "sapphire_rapids": "intel_spr",
    "icelake_server": "intel_icl",
    "skylake_server": "intel_4wide",
    "broadwell": "intel_4wide",
    "alderlake_hybrid": "intel_hybrid",
    "amd_zen4": "amd_zen",
    "amd_zen5": "amd_zen",
    "neoverse_n2_r0p3": "arm_stall_slot",
    "neoverse_v2": "arm_stall_slot",
    "neoverse_n3": "arm_stall_flush",
    "neoverse_v3": "arm_stall_flush",
}


def selected(fx):
    p = subprocess.run([TDCTL, "-j", "list", "--root", fx], capture_output=True,
                       text=True, check=True)
    sel = json.loads(p.stdout)["selected"]
    params = dict(kv.split("=", 1) for kv in sel["label"].split())
    return sel["set"], [e["name"] for e in sel["events"]], params


def counts_for(events, rnd):
    """Plausible counts: cycles/slots large, the parts smaller."""
    out = {}
    for e in events:
        low = e.lower()
        if "cyc" in low:
            out[e] = rnd.randint(4_000_000_000, 5_000_000_000)
        elif "flush" in low:
            out[e] = rnd.randint(10_000_000, 200_000_000)
        elif "slots_p" in low or e == "OP_SPEC":
            out[e] = rnd.randint(12_000_000_000, 16_000_000_000)
        else:
            out[e] = rnd.randint(1_000_000_000, 3_000_000_000)
    return out


def decode(setname, params, counts):
    args = [TDCTL, "-j", "decode", "--set", setname]
    if "slots" in params:
        args += ["--slots", params["slots"]]
    if "rev" in params:
        args += ["--revision", params["rev"]]
    p = subprocess.run(args + ["%s=%d" % kv for kv in counts.items()],
                       capture_output=True, text=True)
    return json.loads(p.stdout)["metrics"] if p.returncode == 0 else None


def rotated(tmp, fx, setname, cg, formula, series, counts, want, rnd):
    """Rotated groups: serve labels each count with its group (l1, and
    here a second group dt with the anchor and other counts); the
    fractions stay those of group l1 alone, within the group."""
    gseries = [s.replace('",cgroup=', '",group="l1",cgroup=')
               if "topdown_events_total" in s else s for s in series]
    other = {"CPU_CYCLES": counts["CPU_CYCLES"] * 3 + 12345,
             "INST_RETIRED": rnd.randint(1_000_000_000, 3_000_000_000),
             "L1D_TLB": rnd.randint(1_000_000_000, 3_000_000_000)}
    gseries += ['      - series: \'topdown_events_total{set="%s",event="%s",'
                'group="dt",cgroup="%s"}\'\n        values: "0+%dx20"\n'
                % (setname, e, cg, c) for e, c in other.items()]
    tests = ["      - expr: 'abs(cgroup:topdown_%s:ratio_rate1m - %.17g) < bool 1e-9'\n"
             "        eval_time: 4m\n"
             "        exp_samples:\n"
             "          - labels: '{cgroup=\"%s\", formula=\"%s\", group=\"l1\", "
             "set=\"%s\"}'\n"
             "            value: 1\n" % (f, want[f], cg, formula, setname)
             for f in FRACTIONS]
    p = promtool_test(os.path.join(tmp, fx + ".groups.test.yml"), gseries, tests)
    ok(p.returncode == 0,
       "%s, rotated groups l1 and dt: the fractions are group l1's alone "
       "(labelled group l1), the anchor of dt left out" % fx,
       p.stdout + p.stderr)


def promtool_test(path, series, tests):
    """promtool test rules of the rules on these input series and tests."""
    with open(path, "w") as fh:
        fh.write("rule_files: [%s]\nevaluation_interval: 15s\ntests:\n"
                 "  - interval: 15s\n    input_series:\n%s"
                 "    promql_expr_test:\n%s"
                 % (json.dumps(RULES), "".join(series), "".join(tests)))
    return subprocess.run(["promtool", "test", "rules", path],
                          capture_output=True, text=True)


def tools():
    require(shutil.which("promtool"), "promtool is not installed (scripts/deps.sh)")


@test
def rules(tmp):
    rnd = random.Random(13)
    fxdir = os.path.join(tmp, "fx")
    subprocess.run([os.path.join(OUT, "mkfixture"), fxdir] + list(COVERED),
                   check=True, stdout=subprocess.DEVNULL)
    for fx, formula in COVERED.items():
        setname, events, params = selected(os.path.join(fxdir, fx))
        counts = counts_for(events, rnd)
        want = decode(setname, params, counts)
        if not ok(want and all(f in want for f in FRACTIONS),
                  "%s: tdctl decode of set %s" % (fx, setname), want):
            continue
        cg = "/system.slice/%s.service" % fx
        series = ['      - series: \'topdown_events_total{set="%s",event="%s",cgroup="%s"}\'\n'
                  '        values: "0+%dx20"\n' % (setname, e, cg, c)
                  for e, c in counts.items()]
        series.append('      - series: \'topdown_slots_per_cycle{set="%s"}\'\n'
                      '        values: "%s+0x20"\n' % (setname, params.get("slots", "0")))
        tests = []
        for f in FRACTIONS:
            tests.append(
                "      - expr: 'abs(cgroup:topdown_%s:ratio_rate1m - %.17g) < bool 1e-9'\n"
                "        eval_time: 4m\n"
                "        exp_samples:\n"
                "          - labels: '{cgroup=\"%s\", formula=\"%s\", set=\"%s\"}'\n"
                "            value: 1\n" % (f, want[f], cg, formula, setname))
        p = promtool_test(os.path.join(tmp, fx + ".test.yml"), series, tests)
        ok(p.returncode == 0,
           "%s (set %s): the rules' four fractions equal tdctl decode's (%s)"
           % (fx, setname, ", ".join("%s %.4f" % (f, want[f]) for f in FRACTIONS)),
           p.stdout + p.stderr)
        if fx == "neoverse_n2_r0p3":
            rotated(tmp, fx, setname, cg, formula, series, counts, want, rnd)


if __name__ == "__main__":
    main(setup=tools)
