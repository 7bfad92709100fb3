#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Writes the Level 2 perf stat fixtures of this folder (see README).

Counts are drawn at random (seeded) in range; every metric value in them
is perf's: its expression in the named pmu-events JSON of Debian's
linux-source, evaluated by test_perf_json.py's evaluator, printed as
tools/perf/util/stat-display.c prints it in that version. Rerun after
changing the counts: python3 mkfixtures_l2.py (needs the tarballs).
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
import test_perf_json as T  # noqa: E402

LIT = {"#SMT_on": 0.0, "#core_wide": 1.0, "#smt_on": 0.0, "#num_packages": 1.0,
       "#num_cores": 4.0, "#num_dies": 1.0, "#num_cpus_online": 4.0}


def perf_values(pdir, names, env, slots):
    lit = dict(LIT, **{"#slots": float(slots)})
    out = []
    for n in names:
        m = [x for x in pdir.metrics if x.get("MetricName") == n][0]
        v = T.metric_value(pdir, n, env, lit, lambda i: 0.0)
        su = m.get("ScaleUnit", "100%")
        unit = "%" if su.startswith("100%") else su.lstrip("0123456789.")
        shown = v * 100 if unit == "%" else v * float(su[:len(su) - len(unit)] or 1)
        if unit != "%" and "percent" in unit:
            shown = v * 100
        out.append((n, shown, unit))
    return out


def env_for(pdir_events):
    return {k.upper(): float(v) for k, v in pdir_events.items()}


def write_json(path, events, metrics, ver):
    with open(path, "w") as f:
        for name, v in events:
            f.write('{"counter-value" : "%d.000000", "unit" : "", "event" : "%s", '
                    '"event-runtime" : 1000000000, "pcnt-running" : 100.00, '
                    '"metric-value" : %s, "metric-unit" : ""}\n'
                    % (v, name, '"none"' if ver != "6.1" else "0.000000"))
        for n, v, unit in metrics:
            val = '"%f"' % v if ver != "6.1" else "%f" % v
            f.write('{"metric-value" : %s, "metric-unit" : "%s  %s"}\n' % (val, unit, n))


def write_csv(path, events, metrics, sep):
    with open(path, "w") as f:
        f.write("# started on Tue Nov 24 13:13:17 2026\n\n")
        ms = list(metrics)
        for name, v in events:
            if ms:
                n, mv, unit = ms.pop(0)
                f.write("%d%s%s%s%s1000000000%s100.00%s%.2f%s%s  %s\n"
                        % (v, sep, sep, name, sep, sep, sep, mv, sep, unit, n))
            else:
                f.write("%d%s%s%s%s1000000000%s100.00%s%s\n"
                        % (v, sep, sep, name, sep, sep, sep, sep))
        for n, mv, unit in ms:
            f.write("%s%s%s%s%s%.2f%s%s  %s\n" % (sep, sep, sep, sep, sep, mv, sep, unit, n))


def write_plain(path, events, metrics, what):
    with open(path, "w") as f:
        f.write("\n Performance counter stats for '%s':\n\n" % what)
        ms = list(metrics)
        for name, v in events:
            line = "%18s      %-32s" % ("{:,}".format(v), name)
            if ms:
                n, mv, unit = ms.pop(0)
                line += " # %8.*f %s  %s" % (1 if unit == "%" else 3, mv, unit, n)
            f.write(line.rstrip() + "\n")
        for n, mv, unit in ms:
            prec = 1 if unit == "%" else 3
            f.write("%s # %8.*f %s  %s\n" % (" " * 57, prec, mv, unit, n))
        f.write("\n       1.002003004 seconds time elapsed\n\n")


def main():
    arches = {v: T.extract(v)[0] for v in ("6.1", "6.12", "7.3")}
    rng = random.Random(20)

    # Ice Lake server, perf 6.12 -j -M TopdownL2: PERF_METRICS events
    c, sub = T.l2_counts("intel_icl", 5, rng)
    S, fe = c["TOPDOWN.SLOTS_P"], c["IDQ_UOPS_NOT_DELIVERED.CORE"]
    ret, be = c["UOPS_RETIRED.SLOTS"], c["TOPDOWN.BACKEND_BOUND_SLOTS"]
    common = [("IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", c["IDQ_NOT_DELIV.CYCLES_0_UOPS"]),
              ("BR_MISP_RETIRED.ALL_BRANCHES", c["BR_MISP_RETIRED.ALL_BRANCHES"]),
              ("MACHINE_CLEARS.COUNT", c["MACHINE_CLEARS.COUNT"]),
              ("CYCLE_ACTIVITY.STALLS_MEM_ANY", c["CYCLE_ACTIVITY.STALLS_MEM_ANY"]),
              ("EXE_ACTIVITY.BOUND_ON_STORES", c["EXE_ACTIVITY.BOUND_ON_STORES"]),
              ("CYCLE_ACTIVITY.STALLS_TOTAL", c["CYCLE_ACTIVITY.STALLS_TOTAL"]),
              ("EXE_ACTIVITY.1_PORTS_UTIL", c["EXE_ACTIVITY.1_PORTS_UTIL"]),
              ("EXE_ACTIVITY.2_PORTS_UTIL", c["EXE_ACTIVITY.2_PORTS_UTIL"]),
              ("UOPS_ISSUED.ANY", c["UOPS_ISSUED.ANY"]), ("IDQ.MS_UOPS", c["IDQ.MS_UOPS"]),
              ("UOPS_DECODED.DEC0", c["UOPS_DECODED.DEC0"]),
              ("cpu/UOPS_DECODED.DEC0,cmask=1/", c["UOPS_DECODED.DEC0,cmask=1"]),
              ("IDQ.MITE_UOPS", c["IDQ.MITE_UOPS"])]
    td = [("TOPDOWN.SLOTS", S), ("topdown-retiring", ret),
          ("topdown-bad-spec", S - fe - ret - be), ("topdown-fe-bound", fe),
          ("topdown-be-bound", be)]
    l2 = ["tma_fetch_latency", "tma_fetch_bandwidth", "tma_branch_mispredicts",
          "tma_machine_clears", "tma_memory_bound", "tma_core_bound",
          "tma_heavy_operations", "tma_light_operations"]
    l1 = ["tma_retiring", "tma_bad_speculation", "tma_frontend_bound", "tma_backend_bound"]
    events = td + [("INT_MISC.UOP_DROPPING", 0)] + common[:3] + \
        [("INT_MISC.CLEARS_COUNT", 0), ("TOPDOWN.SLOTS", S)] + common[3:] + \
        [("UOPS_RETIRED.SLOTS", ret)]
    env = env_for(dict(events))
    env.update({"UOPS_DECODED.DEC0,CMASK=1": c["UOPS_DECODED.DEC0,cmask=1"]})
    d = T.PerfDir(arches["6.12"], "x86/icelakex")
    write_json(os.path.join(HERE, "icl-6.12-topdownl2.json"), events,
               perf_values(d, l1 + l2, env, 5), "6.12")

    # Ice Lake client, perf 6.1 plain -M TopdownL2 (no UOPS_RETIRED.SLOTS)
    c, sub = T.l2_counts("intel_icl", 5, rng)
    S, fe = c["TOPDOWN.SLOTS_P"], c["IDQ_UOPS_NOT_DELIVERED.CORE"]
    ret, be = c["UOPS_RETIRED.SLOTS"], c["TOPDOWN.BACKEND_BOUND_SLOTS"]
    td = [("TOPDOWN.SLOTS", S), ("topdown-retiring", ret),
          ("topdown-bad-spec", S - fe - ret - be), ("topdown-fe-bound", fe),
          ("topdown-be-bound", be)]
    common = [(n, c[k]) for n, k in (
        ("IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", "IDQ_NOT_DELIV.CYCLES_0_UOPS"),
        ("BR_MISP_RETIRED.ALL_BRANCHES", "BR_MISP_RETIRED.ALL_BRANCHES"),
        ("MACHINE_CLEARS.COUNT", "MACHINE_CLEARS.COUNT"),
        ("CYCLE_ACTIVITY.STALLS_MEM_ANY", "CYCLE_ACTIVITY.STALLS_MEM_ANY"),
        ("EXE_ACTIVITY.BOUND_ON_STORES", "EXE_ACTIVITY.BOUND_ON_STORES"),
        ("CYCLE_ACTIVITY.STALLS_TOTAL", "CYCLE_ACTIVITY.STALLS_TOTAL"),
        ("EXE_ACTIVITY.1_PORTS_UTIL", "EXE_ACTIVITY.1_PORTS_UTIL"),
        ("EXE_ACTIVITY.2_PORTS_UTIL", "EXE_ACTIVITY.2_PORTS_UTIL"),
        ("UOPS_ISSUED.ANY", "UOPS_ISSUED.ANY"), ("IDQ.MS_UOPS", "IDQ.MS_UOPS"),
        ("UOPS_DECODED.DEC0", "UOPS_DECODED.DEC0"),
        ("UOPS_DECODED.DEC0,cmask=1", "UOPS_DECODED.DEC0,cmask=1"),
        ("IDQ.MITE_UOPS", "IDQ.MITE_UOPS"))]
    events = td + [("INT_MISC.UOP_DROPPING", 0),
                   ("cpu/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/", 0)] + common
    env = env_for(dict(events))
    env.update({"INT_MISC.RECOVERY_CYCLES,CMASK=1,EDGE": 0.0})
    d = T.PerfDir(arches["6.1"], "x86/icelake")
    write_plain(os.path.join(HERE, "icl-6.1-topdownl2.txt"), events,
                perf_values(d, l1 + l2, env, 5), "./app")

    # Skylake server, perf 6.1 -x';' -M TopdownL2: 4 of 8 metrics fit
    c, sub = T.l2_counts("intel_skl", 4, rng)
    C = c["cycles"]
    events = [("CPU_CLK_UNHALTED.THREAD", C),
              ("IDQ_UOPS_NOT_DELIVERED.CORE", c["IDQ_UOPS_NOT_DELIVERED.CORE"]),
              ("IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", c["IDQ_NOT_DELIV.CYCLES_0_UOPS"]),
              ("UOPS_ISSUED.ANY", c["UOPS_ISSUED.ANY"]),
              ("UOPS_RETIRED.RETIRE_SLOTS", c["UOPS_RETIRED.RETIRE_SLOTS"]),
              ("INT_MISC.RECOVERY_CYCLES", c["INT_MISC.RECOVERY_CYCLES"]),
              ("INT_MISC.RECOVERY_CYCLES_ANY", 0),
              ("CPU_CLK_UNHALTED.THREAD_ANY", 2 * C),
              ("BR_MISP_RETIRED.ALL_BRANCHES", C // 200),
              ("MACHINE_CLEARS.COUNT", C // 5000),
              ("CYCLE_ACTIVITY.STALLS_MEM_ANY", C // 5),
              ("EXE_ACTIVITY.BOUND_ON_STORES", C // 50),
              ("CYCLE_ACTIVITY.STALLS_TOTAL", C // 3),
              ("EXE_ACTIVITY.1_PORTS_UTIL", C // 7),
              ("EXE_ACTIVITY.2_PORTS_UTIL", C // 9),
              ("UOPS_RETIRED.MACRO_FUSED", c["UOPS_RETIRED.MACRO_FUSED"]),
              ("INST_RETIRED.ANY", c["instructions"])]
    env = env_for(dict(events))
    d = T.PerfDir(arches["6.1"], "x86/skylakex")
    write_csv(os.path.join(HERE, "skl-6.1-topdownl2.csv"), events,
              perf_values(d, l1 + l2, env, 4), ";")

    # Zen 4, perf 6.12 -x, -M PipelineL2; Zen 5, perf 6.12 -j
    zen_fixtures(arches, rng, (("amdzen4", 6, "6.12", "csv"), ("amdzen5", 8, "6.12", "json")))

    # Neoverse N2, perf 6.12 plain -M DTLB_Effectiveness,Operation_Mix
    c, sub = T.l2_counts("arm_neoverse_n2", 5, rng)
    evn = ["INST_RETIRED", "DTLB_WALK", "L1D_TLB", "L1D_TLB_REFILL", "L2D_TLB",
           "L2D_TLB_REFILL", "INST_SPEC", "LD_SPEC", "ST_SPEC", "DP_SPEC", "ASE_SPEC",
           "VFP_SPEC", "CRYPTO_SPEC", "BR_IMMED_SPEC", "BR_RETURN_SPEC", "BR_INDIRECT_SPEC"]
    events = [(n, c[n]) for n in evn]
    env = env_for(dict(events))
    d = T.PerfDir(arches["6.12"], "arm64/arm/neoverse-n2-v2")
    names = [m["MetricName"] for m in d.metrics
             if set((m.get("MetricGroup") or "").split(";")) &
             {"DTLB_Effectiveness", "Operation_Mix"}]
    write_plain(os.path.join(HERE, "n2-6.12-dtlb-mix.txt"), events,
                perf_values(d, names, env, 5), "./app")

    # Zen 6, perf 7.3 -j -M PipelineL2 (amdzen6: bp_fe_redir.resync)
    zen_fixtures(arches, rng, (("amdzen6", 8, "7.3", "json"),))

    # Neoverse V2, perf 7.3 -j -M Operation_Mix: sve_all_percentage
    c, sub = T.l2_counts("arm_neoverse_v2", 8, rng)
    evn = ["INST_SPEC", "LD_SPEC", "ST_SPEC", "DP_SPEC", "ASE_SPEC", "VFP_SPEC",
           "CRYPTO_SPEC", "BR_IMMED_SPEC", "BR_RETURN_SPEC", "BR_INDIRECT_SPEC",
           "SVE_INST_SPEC"]
    events = [(n, c[n]) for n in evn]
    env = env_for(dict(events))
    d = T.PerfDir(arches["7.3"], "arm64/arm/neoverse-n2-v2")
    names = [m["MetricName"] for m in d.metrics
             if "Operation_Mix" in (m.get("MetricGroup") or "").split(";")]
    write_json(os.path.join(HERE, "v2-7.3-operation-mix.json"), events,
               perf_values(d, names, env, 8), "7.3")

    # Neoverse N3, perf 7.3 -j -M TopdownL1,Operation_Mix: its own Level 1
    # (STALL_FRONTEND_FLUSH, width 5) and Operation_Mix (PC_WRITE_SPEC,
    # DP_SPEC - DSB_SPEC)
    c, sub = T.l2_counts("arm_neoverse_n3", 5, rng)
    evn = ["CPU_CYCLES", "OP_RETIRED", "OP_SPEC", "STALL_SLOT", "STALL_SLOT_FRONTEND",
           "STALL_SLOT_BACKEND", "STALL_FRONTEND_FLUSH", "INST_SPEC", "LD_SPEC", "ST_SPEC",
           "DP_SPEC", "DSB_SPEC", "ASE_SPEC", "VFP_SPEC", "PC_WRITE_SPEC", "CRYPTO_SPEC",
           "ISB_SPEC", "DMB_SPEC", "SVE_INST_SPEC"]
    events = [(n, c[n]) for n in evn]
    env = env_for(dict(events))
    d = T.PerfDir(arches["7.3"], "arm64/arm/neoverse-n3")
    names = [m["MetricName"] for m in d.metrics
             if set((m.get("MetricGroup") or "").split(";")) & {"TopdownL1", "Operation_Mix"}]
    write_json(os.path.join(HERE, "n3-7.3-topdownl1-mix.json"), events,
               perf_values(d, names, env, 5), "7.3")

    # Neoverse V3 (V3AE's tables), perf 7.3 plain -M TopdownL1,
    # Topdown_Frontend,Topdown_Backend,Cycle_Accounting: width 10, the
    # stall trees
    c, sub = T.l2_counts("arm_neoverse_v3", 10, rng)
    evn = ["CPU_CYCLES", "OP_RETIRED", "OP_SPEC", "STALL_SLOT", "STALL_SLOT_FRONTEND",
           "STALL_SLOT_BACKEND", "STALL_FRONTEND_FLUSH", "STALL_FRONTEND",
           "STALL_FRONTEND_CPUBOUND", "STALL_FRONTEND_FLOW", "STALL_FRONTEND_MEMBOUND",
           "STALL_FRONTEND_L1I", "STALL_FRONTEND_MEM", "STALL_FRONTEND_TLB", "STALL_BACKEND",
           "STALL_BACKEND_BUSY", "STALL_BACKEND_CPUBOUND", "STALL_BACKEND_RENAME",
           "STALL_BACKEND_MEMBOUND", "STALL_BACKEND_L1D", "STALL_BACKEND_MEM",
           "STALL_BACKEND_ST", "STALL_BACKEND_TLB"]
    events = [(n, c[n]) for n in evn]
    env = env_for(dict(events))
    d = T.PerfDir(arches["7.3"], "arm64/arm/neoverse-v3")
    names = [m["MetricName"] for m in d.metrics
             if set((m.get("MetricGroup") or "").split(";")) &
             {"TopdownL1", "Topdown_Frontend", "Topdown_Backend", "Cycle_Accounting"}]
    write_plain(os.path.join(HERE, "v3-7.3-topdown-stalls.txt"), events,
                perf_values(d, names, env, 10), "./app")


def zen_fixtures(arches, rng, which):
    for zen, w, ver, fmt in which:
        setname = "amd_zen4" if w == 6 else "amd_zen5"
        c, sub = T.l2_counts(setname, w, rng)
        # perf's name of tdctl's count of pipeline restarts
        rs = {"amdzen4": "resyncs_or_nc_redirects", "amdzen5": "bp_redirects.resync",
              "amdzen6": "bp_fe_redir.resync"}[zen]
        restarts = c["resyncs_or_nc_redirects" if w == 6 else "bp_redirects.resync"]
        events = [("ls_not_halted_cyc", c["ls_not_halted_cyc"]),
                  ("de_no_dispatch_per_slot.no_ops_from_frontend",
                   c["de_no_dispatch.no_ops_from_fe"]),
                  ("cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x%x/" % w,
                   c["de_no_dispatch.fe,cmask=%d" % w]),
                  ("de_src_op_disp.all", c["de_src_op_disp.all"]),
                  ("ex_ret_ops", c["ex_ret_ops"]),
                  ("ex_ret_brn_misp", c["ex_ret_brn_misp"]), (rs, restarts),
                  ("de_no_dispatch_per_slot.backend_stalls",
                   c["de_no_dispatch.backend_stalls"]),
                  ("ex_no_retire.load_not_complete", c["ex_no_retire.load_not_complete"]),
                  ("ex_no_retire.not_complete", c["ex_no_retire.not_complete"]),
                  ("ex_ret_ucode_ops", c["ex_ret_ucode_ops"])]
        env = env_for(dict(events))
        env["DE_NO_DISPATCH_PER_SLOT.NO_OPS_FROM_FRONTEND,CMASK=0X%X" % w] = \
            c["de_no_dispatch.fe,cmask=%d" % w]
        d = T.PerfDir(arches[ver], "x86/" + zen)
        names = [m["MetricName"] for m in d.metrics
                 if "PipelineL2" in (m.get("MetricGroup") or "")]
        vals = perf_values(d, names, env, w)
        path = os.path.join(HERE, "zen%s-%s-pipelinel2.%s" % (zen[-1], ver, fmt))
        if fmt == "csv":
            write_csv(path, events, vals, ",")
        else:
            write_json(path, events, vals, ver)


if __name__ == "__main__":
    main()
