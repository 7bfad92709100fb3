# SPDX-License-Identifier: GPL-2.0
"""Random counts of every event set's events, drawn in range (so that
perf's clamps do not bind), for test_perf_json.py's comparisons of
tdctl's formulas with perf's and perf-stat/mkfixtures_l2.py's fixtures:
counts_for() for Level 1, l2_counts() for the groups below it. Each
returns tdctl's event name -> count, and the substitutions of perf's
events that tdctl does not count (test_perf_json.DIFFERENCES)."""

# perf 7.3's Neoverse N3 and V3 tables write their width into frontend_bound
# and bad_speculation (neoverse-n3/metrics.json: 5, neoverse-v3: 10), where
# retiring and backend_bound are sbsa.json's over #slots (caps/slots): the
# sets that follow them are compared with --slots (and #slots) at that
# width and at another one.
WIDTH = {"arm_neoverse_n3": 5, "arm_neoverse_v3": 10}


def counts_for(setname, slots, rng):
    """tdctl event name -> count; plus the perf-side substitutions."""
    u = rng.uniform
    C = rng.randrange(10 ** 6, 10 ** 9)
    c, sub = {}, {}
    if setname in ("intel_snb", "intel_skl"):
        S = 4 * C
        ret = int(S * u(0.1, 0.4))
        c = {"cycles": C, "instructions": rng.randrange(1, 3 * C),
             "IDQ_UOPS_NOT_DELIVERED.CORE": int(S * u(0.05, 0.3)),
             "UOPS_RETIRED.RETIRE_SLOTS": ret,
             "UOPS_ISSUED.ANY": ret + int(S * u(0, 0.1)),
             "INT_MISC.RECOVERY_CYCLES": int(C * u(0, 0.03))}
        sub = {"INT_MISC.RECOVERY_CYCLES_ANY": 0}
    elif setname == "intel_icl":
        S = 5 * C
        fe, ret, be = (int(S * u(0.05, 0.3)) for _ in range(3))
        c = {"cycles": C, "instructions": rng.randrange(1, 3 * C),
             "TOPDOWN.SLOTS_P": S, "IDQ_UOPS_NOT_DELIVERED.CORE": fe,
             "UOPS_RETIRED.SLOTS": ret, "TOPDOWN.BACKEND_BOUND_SLOTS": be}
        sub = {"TOPDOWN.SLOTS": S, "TOPDOWN-FE-BOUND": fe,
               "TOPDOWN-RETIRING": ret, "TOPDOWN-BE-BOUND": be,
               "TOPDOWN-BAD-SPEC": S - fe - ret - be,
               "INT_MISC.UOP_DROPPING": 0, "INT_MISC.CLEARS_COUNT": 0,
               "INT_MISC.RECOVERY_CYCLES,CMASK=1,EDGE": 0}
    elif setname == "intel_spr":
        S = 6 * C
        fe, ret, be, bad = (int(S * u(0.05, 0.24)) for _ in range(4))
        brm, mem, heavy = int(bad * u(0, 1)), int(be * u(0, 1)), int(ret * u(0, 1))
        c = {"TOPDOWN.SLOTS_P": S, "IDQ_UOPS_NOT_DELIVERED.CORE": fe,
             "UOPS_RETIRED.SLOTS": ret, "TOPDOWN.BACKEND_BOUND_SLOTS": be,
             "TOPDOWN.BAD_SPEC_SLOTS": bad, "TOPDOWN.BR_MISPREDICT_SLOTS": brm,
             "TOPDOWN.MEMORY_BOUND_SLOTS": mem, "UOPS_RETIRED.HEAVY": heavy}
        # perf's L1 is normalised by the sum of the four classes: make the
        # sum the slots, so that the measured classes compare one to one
        bad = S - fe - ret - be
        c["TOPDOWN.BAD_SPEC_SLOTS"] = bad
        c["TOPDOWN.BR_MISPREDICT_SLOTS"] = brm = int(bad * u(0, 1))
        sub = {"TOPDOWN.SLOTS": S, "TOPDOWN-FE-BOUND": fe,
               "TOPDOWN-RETIRING": ret, "TOPDOWN-BE-BOUND": be,
               "TOPDOWN-BAD-SPEC": bad, "TOPDOWN-BR-MISPREDICT": brm,
               "TOPDOWN-MEM-BOUND": mem, "TOPDOWN-HEAVY-OPS": heavy,
               "TOPDOWN-FETCH-LAT": 0, "INT_MISC.UOP_DROPPING": 0}
    elif setname in ("amd_zen4", "amd_zen5"):
        S = slots * C
        ret = int(S * u(0.05, 0.3))
        c = {"ls_not_halted_cyc": C, "ex_ret_ops": ret,
             "de_src_op_disp.all": ret + int(S * u(0, 0.1)),
             "de_no_dispatch.no_ops_from_fe": int(S * u(0.05, 0.2)),
             "de_no_dispatch.backend_stalls": int(S * u(0.05, 0.2)),
             "de_no_dispatch.smt_contention": int(S * u(0, 0.1))}
    elif setname in WIDTH:
        w = WIDTH[setname]
        S = w * C
        fe, be = int(S * u(0.05, 0.4)), int(S * u(0.05, 0.4))
        spec = rng.randrange(10 ** 6, 10 ** 9)
        c = {"CPU_CYCLES": C, "OP_SPEC": spec,
             "OP_RETIRED": int(spec * u(0.5, 1)),
             "STALL_SLOT_FRONTEND": fe, "STALL_SLOT_BACKEND": be,
             "STALL_SLOT": fe + be,
             "STALL_FRONTEND_FLUSH": int(fe / w * u(0, 1))}
    elif setname.startswith("arm_neoverse"):
        S = slots * C
        fe, be = int(S * u(0.05, 0.4)), int(S * u(0.05, 0.4))
        spec = rng.randrange(10 ** 6, 10 ** 9)
        c = {"CPU_CYCLES": C, "OP_SPEC": spec,
             "OP_RETIRED": int(spec * u(0.5, 1)),
             "STALL_SLOT_FRONTEND": fe + C, "STALL_SLOT_BACKEND": be,
             "STALL_SLOT": fe + be + C}
        if setname == "arm_neoverse_v1":
            c["BR_MIS_PRED"] = int(C * u(0, 0.01))
        else:
            c["INST_RETIRED"] = rng.randrange(1, 3 * C)
            sub = {"BR_MIS_PRED": 0}
    return c, sub


def l2_counts(setname, slots, rng):
    """Counts of every event of the set's groups, in range (so that perf's
    clamps, max(0, ...) and min(cycles, ...), do not bind), and the
    substitutions of perf's events tdctl does not count (DIFFERENCES)."""
    u = rng.uniform
    C = rng.randrange(10 ** 6, 10 ** 9)
    c, sub = {}, {}
    if setname in ("intel_snb", "intel_skl"):
        c, sub = counts_for(setname, slots, rng)
        C = c["cycles"]
        S = 4 * C
        ret = c["UOPS_RETIRED.RETIRE_SLOTS"]
        inst = int(ret * u(0.6, 0.95))
        c.update({"instructions": inst,
                  "IDQ_NOT_DELIV.CYCLES_0_UOPS":
                      int(min(C, c["IDQ_UOPS_NOT_DELIVERED.CORE"] / 4) * u(0, 1)),
                  "UOPS_RETIRED.MACRO_FUSED": int(inst * u(0, 0.1)),
                  "IDQ.MS_UOPS": int(c["UOPS_ISSUED.ANY"] * u(0, 0.2))})
        assert S
    elif setname == "intel_icl":
        c, sub = counts_for(setname, slots, rng)
        C, S = c["cycles"], c["TOPDOWN.SLOTS_P"]
        fe, ret = c["IDQ_UOPS_NOT_DELIVERED.CORE"], c["UOPS_RETIRED.SLOTS"]
        stalls = int(C * u(0.1, 0.6))
        issued = int(ret * u(1, 1.3))
        mite = int(C * u(1, 3))
        dec0 = int(mite * u(0.2, 0.6))
        c.update({"IDQ_NOT_DELIV.CYCLES_0_UOPS": int(fe / 5 * u(0, 1)),
                  "BR_MISP_RETIRED.ALL_BRANCHES": rng.randrange(1, C // 100),
                  "MACHINE_CLEARS.COUNT": rng.randrange(1, C // 1000),
                  "CYCLE_ACTIVITY.STALLS_TOTAL": stalls,
                  "CYCLE_ACTIVITY.STALLS_MEM_ANY": int(stalls * u(0, 1)),
                  "EXE_ACTIVITY.BOUND_ON_STORES": int(C * u(0, 0.1)),
                  "EXE_ACTIVITY.1_PORTS_UTIL": int(C * u(0, 0.3)),
                  "EXE_ACTIVITY.2_PORTS_UTIL": int(C * u(0, 0.3)),
                  "UOPS_ISSUED.ANY": issued,
                  "IDQ.MS_UOPS": int(issued * u(0, 0.2)),
                  "IDQ.MITE_UOPS": mite, "UOPS_DECODED.DEC0": dec0,
                  "UOPS_DECODED.DEC0,cmask=1": int(dec0 * u(0.5, 1))})
        assert S
    elif setname in ("amd_zen4", "amd_zen5"):
        c, sub = counts_for(setname, slots, rng)
        w = slots
        nc = rng.randrange(10 ** 5, C)
        ret = c["ex_ret_ops"]
        lat = int(c["de_no_dispatch.no_ops_from_fe"] / w * u(0, 1))
        c.update({"de_no_dispatch.fe,cmask=%d" % w: lat,
                  "ex_no_retire.not_complete": nc,
                  "ex_no_retire.load_not_complete": int(nc * u(0, 1)),
                  "ex_ret_brn_misp": rng.randrange(1, C // 100),
                  "resyncs_or_nc_redirects" if setname == "amd_zen4" else
                  "bp_redirects.resync": rng.randrange(1, C // 1000),
                  "ex_ret_ucode_ops": int(ret * u(0, 0.2))})
    elif setname.startswith("arm_neoverse"):
        c, sub = counts_for(setname, slots, rng)
        inst = c["INST_RETIRED"] = rng.randrange(10 ** 6, 3 * C)
        spec = int(inst * u(1, 1.3))
        acc = {}
        for a, r in (("L1D_TLB", "L1D_TLB_REFILL"), ("L1I_TLB", "L1I_TLB_REFILL"),
                     ("L2D_TLB", "L2D_TLB_REFILL"), ("L1D_CACHE", "L1D_CACHE_REFILL"),
                     ("L1I_CACHE", "L1I_CACHE_REFILL"), ("L2D_CACHE", "L2D_CACHE_REFILL"),
                     ("L3D_CACHE", "L3D_CACHE_REFILL"), ("LL_CACHE_RD", "LL_CACHE_MISS_RD"),
                     ("BR_RETIRED", "BR_MIS_PRED_RETIRED")):
            acc[a] = rng.randrange(10 ** 4, inst)
            acc[r] = int(acc[a] * u(0, 0.5))
        acc["DTLB_WALK"] = int(acc["L1D_TLB_REFILL"] * u(0, 1))
        acc["ITLB_WALK"] = int(acc["L1I_TLB_REFILL"] * u(0, 1))
        acc["STALL_FRONTEND"] = int(C * u(0, 0.5))
        acc["STALL_BACKEND"] = int(C * u(0, 0.5))
        acc["INST_SPEC"] = spec
        for e in ("LD_SPEC", "ST_SPEC", "DP_SPEC", "ASE_SPEC", "VFP_SPEC",
                  "CRYPTO_SPEC", "BR_IMMED_SPEC", "BR_RETURN_SPEC",
                  "BR_INDIRECT_SPEC", "SVE_INST_SPEC"):
            acc[e] = int(spec * u(0, 0.2))
        c.update(acc)
        if setname in WIDTH:
            c.update(n3v3_counts(c, C, spec, rng))
    return c, sub


def n3v3_counts(c, C, spec, rng):
    """The counts of Neoverse N3's and V3's groups beyond N2's: the stall
    tree of Topdown_Frontend and Topdown_Backend, each split within its
    parent (STALL_FRONTEND_FLUSH as Level 1 drew it), the barriers,
    PC_WRITE_SPEC and the retired branches by kind."""
    u = rng.uniform
    out = {}
    flush = c["STALL_FRONTEND_FLUSH"]
    cpu = flush + int(C * u(0.01, 0.2))
    mem = rng.randrange(10 ** 4, C // 4)
    l1i = int(mem * u(0.01, 0.6))
    out.update({"STALL_FRONTEND": cpu + mem, "STALL_FRONTEND_CPUBOUND": cpu,
                "STALL_FRONTEND_FLOW": int((cpu - flush) * u(0, 1)),
                "STALL_FRONTEND_MEMBOUND": mem, "STALL_FRONTEND_L1I": l1i,
                "STALL_FRONTEND_MEM": int((mem - l1i) * u(0.01, 0.7)),
                "STALL_FRONTEND_TLB": int(mem * u(0, 0.3))})
    be = int(C * u(0.1, 0.5))
    mem = int(be * u(0.1, 0.9))
    cpu = be - mem
    l1d = int(mem * u(0.01, 0.6))
    out.update({"STALL_BACKEND": be, "STALL_BACKEND_CPUBOUND": cpu,
                "STALL_BACKEND_BUSY": int(cpu * u(0, 1)),
                "STALL_BACKEND_RENAME": int(cpu * u(0, 1)),
                "STALL_BACKEND_MEMBOUND": mem, "STALL_BACKEND_L1D": l1d,
                "STALL_BACKEND_MEM": int((mem - l1d) * u(0.01, 0.7)),
                "STALL_BACKEND_ST": int(mem * u(0, 0.2)),
                "STALL_BACKEND_TLB": int(mem * u(0, 0.2))})
    for e in ("PC_WRITE_SPEC", "ISB_SPEC", "DMB_SPEC"):
        out[e] = int(spec * u(0, 0.1))
    # N3's integer_dp_percentage takes DSB_SPEC out of DP_SPEC
    out["DSB_SPEC"] = int(c["DP_SPEC"] * u(0, 0.3))
    br = c["BR_RETIRED"]
    for e in ("BR_IMMED_RETIRED", "BR_IND_RETIRED", "BR_RETURN_RETIRED"):
        out[e] = int(br * u(0, 0.5))
    return out
