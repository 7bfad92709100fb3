#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the valid seed files of the fuzz corpora (corpus*/valid-*): record
files with the independent writer of the host tests (corpus/), and decode
inputs (corpus-decode/): perf stat output of the host tests' fixtures,
tdctl's JSON lines and dump --json slices, raw encodings as arguments.
Run again if a format changes."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../host"))
import tdfile_gen  # noqa: E402

for name, make in tdfile_gen.SCENARIOS.items():
    sc = make()
    sc.records = sc.records[:6]     # small seeds mutate faster
    sc.write(os.path.join(HERE, "corpus", "valid-%s.td" % name))
# Format 2.0 (groups): enough records for rotated slices, error slices and
# both groups on both CPUs.
for name, make in tdfile_gen.SCENARIOS_GROUPS.items():
    sc = make()
    sc.records = sc.records[:24]
    sc.write(os.path.join(HERE, "corpus", "valid-%s.td" % name))

# fuzz_decode.c's input: byte 0 the set (td_sets[], in this order), byte 1
# how: bits 0-1 the -x separator (, ; | ::), bits 2-3 the output (plain,
# JSON, CSV), bit 4 arguments instead of stdin, bit 5 slots and revision,
# bit 6 --level 2, bit 7 -M: the text's first line is its argument.
SETS = ["intel_adl_hybrid", "intel_spr", "intel_icl", "intel_skl",
        "intel_snb", "amd_zen5", "amd_zen4", "arm_neoverse_n2",
        "arm_neoverse_v1", "arm_neoverse_v2", "arm_neoverse_n3",
        "arm_neoverse_v3", "arm_stall_cycles", "generic", "software"]
SEP = {",": 0, ";": 1, "|": 2, "::": 3}
OUT = {"plain": 0, "json": 4, "csv": 8}
ARGS, SLOTS, LEVEL2, MGROUPS = 0x10, 0x20, 0x40, 0x80
FX = os.path.join(HERE, "../host/perf-stat")
DEC = os.path.join(HERE, "corpus-decode")


def seed(name, setname, how, text):
    with open(os.path.join(DEC, "valid-%s" % name), "wb") as fh:
        fh.write(bytes([SETS.index(setname), how]) + text.encode())


def fixture(f):
    with open(os.path.join(FX, f)) as fh:
        return fh.read()


os.makedirs(DEC, exist_ok=True)
seed("n2-plain", "arm_neoverse_n2", SLOTS, fixture("n2-seed003.txt"))
seed("n2-json", "arm_neoverse_n2", OUT["json"], fixture("n2-6.1.json"))
seed("n2-percpu-csv", "arm_neoverse_n2", OUT["csv"],
     fixture("n2-6.12-percpu.csv"))
seed("icl-interval-semicolon", "intel_icl", SEP[";"],
     fixture("icl-6.1-interval.csv"))
seed("adl-hybrid-json", "intel_adl_hybrid", 0, fixture("adl-6.12-hybrid.json"))
for ext, out in (("json", "json"), ("csv", "csv"), ("txt", "plain")):
    seed("icl-interval-raw-" + ext, "intel_icl", OUT[out],
         fixture("icl-6.12-interval-raw." + ext))
seed("icl-raw-args", "intel_icl", ARGS,
     "r01a4=4000\ncpu/event=0x9c,umask=0x01/u=800\n"
     "event=0xc2,umask=0x02=1,600\nraw 0x2a4=1.2e3\ncycles=1000\n")
seed("zen4-args", "amd_zen4", ARGS | OUT["csv"],
     "cycles=1000\nde_src_op_disp.all=3000\nex_ret_ops=2400\n"
     "de_no_dispatch_per_slot.no_ops_from_frontend=1200\n"
     "r100001ea0=0x5dc\nDE_NO_DISPATCH.SMT_CONTENTION=300\n")
seed("generic-lines", "generic", 0,
     '{"cycles": 600, "instructions": 900}\n\n# a comment\n'
     '{"instructions":"300","cycles":4e2}\n')
# Level 2: perf stat -M TopdownL2 / PipelineL2 (test_decode_l2.py)
seed("icl-topdownl2-json", "intel_icl", LEVEL2 | OUT["json"],
     fixture("icl-6.12-topdownl2.json"))
seed("icl-topdownl2-plain", "intel_icl", MGROUPS,
     "TopdownL2\n" + fixture("icl-6.1-topdownl2.txt"))
seed("skl-topdownl2-semicolon", "intel_skl", LEVEL2 | SEP[";"] | OUT["csv"],
     fixture("skl-6.1-topdownl2.csv"))
seed("zen4-pipelinel2-csv", "amd_zen4", LEVEL2,
     fixture("zen4-6.12-pipelinel2.csv"))
seed("n2-dtlb-mix", "arm_neoverse_n2", MGROUPS | SLOTS,
     "dtlb_effectiveness,operation_mix\n" +
     fixture("n2-6.12-dtlb-mix.txt"))
# dump --json: the array of dump -i FILE --json, the lines of --follow
sc = tdfile_gen.n2()
slices = [{"seq": r.seq, "time_ns": r.time_ns, "cpu": r.cpu, "pid": r.tgid,
           "tid": r.pid, "comm": r.comm, "duration_ns": r.duration_ns,
           "counts": dict(zip(sc.events, r.deltas))} for r in sc.records[:4]]
seed("n2-dump-array", "arm_neoverse_n2", SLOTS | OUT["json"],
     json.dumps(slices, separators=(",", ":")) + "\n")
seed("n2-dump-lines", "arm_neoverse_n2", SLOTS,
     "".join(json.dumps(s) + "\n" for s in slices))
# dump --json of a file with groups (N2's l1 and dt): each slice its
# group's counts, null for the others, "unreadable", rotated slices
N2_DT = ["L1D_TLB", "L1D_TLB_REFILL", "DTLB_WALK", "L2D_TLB", "L2D_TLB_REFILL"]
pool = tdfile_gen.N2_EVENTS + N2_DT
l1 = list(range(len(tdfile_gen.N2_EVENTS)))
dt = [0, 6] + [pool.index(e) for e in N2_DT]
rng = __import__("random").Random(7)
sc, _ = tdfile_gen.simulate(
    rng, pool, [l1, dt],
    [tdfile_gen.Task(100, 100, "g", [2000, 3500, 4000, 5000, 2000, 3000, 3000,
                                     1500, 30, 5, 30, 6], [0, 1])],
    nr_cpus=2, rotate_ms=1, duration_ns=20_000_000, p_error=0.1)
slices = []
for r in sc.records[:80]:
    g = (r.flags >> tdfile_gen.GROUP_SHIFT) & 0xf
    rot = bool(r.flags & tdfile_gen.REC_ROTATED)
    ev = [l1, dt][g]
    counts = {e: None for e in pool}
    bad = []
    for j, e in enumerate(ev):
        if rot:
            continue
        if r.flags & (1 << j):
            bad.append(pool[e])
        else:
            counts[pool[e]] = r.deltas[j]
    slices.append({"seq": r.seq, "time_ns": r.time_ns, "cpu": r.cpu,
                   "pid": r.tgid, "tid": r.pid, "duration_ns": r.duration_ns,
                   "group": g, "rotated": rot, "counts": counts,
                   "unreadable": bad})
seed("n2-dump-groups-l2", "arm_neoverse_n2", SLOTS | LEVEL2 | OUT["json"],
     json.dumps(slices, separators=(",", ":")) + "\n")
seed("n2-dump-groups-l1", "arm_neoverse_n2", SLOTS,
     "".join(json.dumps(s) + "\n" for s in slices))
