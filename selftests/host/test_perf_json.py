#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tdctl's event sets against perf's own tables.

perf's pmu-events JSON (tools/perf/pmu-events/arch) is extracted at test
time from Debian's linux-source-6.1, linux-source-6.12 and
linux-source-7.3 tarballs into build/perf-json/ (never into the
repository). Then, for every event set:

  claims    which CPU models the set is chosen for: tdctl list --root on
            fake /proc + /sys trees, for every Intel family 6 model (plain
            and hybrid PMUs), AMD family 0x17/0x19/0x1a model and Arm
            Neoverse/Cortex part; each claimed model is looked up in perf's
            mapfile.csv of both versions
  encodings every raw event of the set (event, umask, cmask, edge, inv,
            any; Arm: the event number) and its name (tdctl's name or one
            of its aliases) against the CPU's perf JSON; every alias that
            is a JSON name must have the same encoding. Models perf does
            not cover must be named in the set's source ("tdctl list").
  metrics   perf's TopdownL1 (and TopdownL2 where the set has L2) metric
            expressions evaluated on random counts against
            `tdctl decode --json`, with the documented differences
            (DIFFERENCES below, Documentation/event-sets.rst) applied to
            perf's side and printed.
  level 2   for the models where a set offers its groups below Level 1
            (tdctl list --root: selected.groups[].offered): every group's
            events (with perf's modifiers: NAME,cmask=N is perf's
            cpu@NAME,cmask=N@ without the escapes) against the JSON as above, and every
            metric of the groups that perf names (TopdownL2, PipelineL2,
            Arm's metric groups) evaluated on random in-range counts
            against `tdctl decode --level 2 / -M --json`, to 1e-12,
            perf's metric groups of it among tdctl's (what -M selects by).

TAP on stdout. Needs build/x86_64/tdctl and the three tarballs
(scripts/deps.sh installs linux-source-6.1 and linux-source-6.12 into
/usr/src; scripts/deps.sh --suites unpacks trixie-backports'
linux-source-7.3 into build/deps/k7.3/source). Without 7.3's, 7.3 is
skipped, unless build/deps/env.sh says the suites are there.
"""
import concurrent.futures
import json
import os
import random
import re
import shutil
import sys
import tarfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from tap import TOP, main, note, ok, require_tdctl, run, skip, test  # noqa: E402
from perf_counts import WIDTH, counts_for, l2_counts  # noqa: E402

CACHE = os.path.join(TOP, "build", "perf-json")
# TD_PERF_JSON_VERSIONS (space-separated) compares only those: make check
# compares 7.3 alone once the other suites' download is there.
VERSIONS = tuple(os.environ.get("TD_PERF_JSON_VERSIONS", "").split()) or ("6.1", "6.12", "7.3")

# What tdctl deliberately computes differently from perf, per set; the test
# applies these to perf's expressions (substitutions of perf's events by
# tdctl's) and prints them. Documentation/event-sets.rst explains each.
DIFFERENCES = {
    "intel_snb": "per thread with SMT off (#SMT_on = 0, #core_wide = 1)",
    "intel_skl": "per thread with SMT off (#SMT_on = 0, #core_wide = 1)",
    "intel_icl": "no PERF_METRICS (kernel counters cannot be grouped): "
                 "topdown-* = the TOPDOWN.*_SLOTS / UOPS_RETIRED.SLOTS / "
                 "IDQ_UOPS_NOT_DELIVERED.CORE general-counter events, "
                 "topdown-bad-spec = the rest of the slots; "
                 "INT_MISC.UOP_DROPPING and INT_MISC.CLEARS_COUNT / "
                 "RECOVERY_CYCLES adjustments = 0",
    "intel_spr": "no PERF_METRICS: topdown-* = the TOPDOWN.*_SLOTS / "
                 "UOPS_RETIRED.SLOTS / UOPS_RETIRED.HEAVY / "
                 "IDQ_UOPS_NOT_DELIVERED.CORE events; INT_MISC.UOP_DROPPING "
                 "= 0; no max(0, ...) clamping",
    "intel_adl_hybrid": "no PERF_METRICS on cpu_core (as intel_icl); "
                        "cpu_atom slots = the sum of the four TOPDOWN_*.ALL "
                        "(perf: 5 * CPU_CLK_UNHALTED.CORE); compared per "
                        "PMU (the other PMU's counts 0)",
    "arm_neoverse_n2": "no BR_MIS_PRED terms (perf 6.12 neoverse-n2-v2: "
                       "BR_MIS_PRED = 0)",
    "arm_neoverse_v2": "no BR_MIS_PRED terms (perf 6.12 neoverse-n2-v2: "
                       "BR_MIS_PRED = 0)",
}

# (set, perf version, CPU directory) whose metrics tdctl does not compute
# as perf does yet, with the reason (Documentation/event-sets.rst): their
# metrics and Level 2 groups are reported skipped, not compared; the
# Level 1 encodings still are.
NOT_YET = {}

# tdctl's metrics that perf has from a version on (N2/V2 Operation_Mix's
# sve_all_percentage came with 7.3): not looked for in older versions.
SINCE = {"sve_all_percentage": "7.3"}


def older(ver, than):
    return tuple(map(int, ver.split("."))) < tuple(map(int, than.split(".")))


# perf versions whose mapfile sends the set's CPUs to an older core's
# tables: perf 6.1 maps every AMD family 0x19 model to amdzen3 and every
# family 0x1a one to nothing (Zen 4 and 5 tables came later).
TOO_OLD = {"amd_zen4": "6.1", "amd_zen5": "6.1"}


# ---- perf's JSON ----------------------------------------------------------

def tarball(ver):
    """linux-source-VER's tarball: the host's package's, or the one
    scripts/deps.sh --suites unpacks into build/deps/k<VER>/source."""
    name = "linux-source-%s.tar.xz" % ver
    for tar in (os.path.join("/usr/src", name),
                os.path.join(TOP, "build", "deps", "k" + ver, "source", "usr", "src", name)):
        if os.path.exists(tar):
            return tar
    return None


def have_suites():
    """build/deps/env.sh says scripts/deps.sh --suites ran."""
    try:
        with open(os.path.join(TOP, "build", "deps", "env.sh")) as f:
            return "HAVE_SUITES='1'" in f.read().split()
    except OSError:
        return False


def extract(ver):
    """tools/perf/pmu-events/arch of linux-source-VER into build/perf-json."""
    tar = tarball(ver)
    if tar is None:
        return None, "no linux-source-%s.tar.xz in /usr/src or build/deps/k%s/source " \
            "(scripts/deps.sh%s installs it)" % (ver, ver, " --suites" if ver == "7.3" else "")
    dest = os.path.join(CACHE, ver)
    stamp = os.path.join(dest, ".stamp")
    want = "%d %d" % (os.path.getsize(tar), int(os.path.getmtime(tar)))
    arch = os.path.join(dest, "arch")
    if os.path.exists(stamp) and open(stamp).read() == want:
        return arch, None
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    prefix = "linux-source-%s/tools/perf/pmu-events/arch/" % ver
    with tarfile.open(tar) as t:
        for m in t:
            if not m.name.startswith(prefix) or not m.isfile():
                continue
            rel = m.name[len(prefix):]
            if not (rel.startswith("x86/") or rel.startswith("arm64/")):
                continue
            out = os.path.join(arch, rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with t.extractfile(m) as src, open(out, "wb") as dst:
                dst.write(src.read())
    open(stamp, "w").write(want)
    return arch, None


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return []


class PerfDir:
    """The events and metrics of one CPU directory of one perf version."""

    def __init__(self, arch, rel):
        self.rel = rel
        self.events = {}        # upper-case name -> [event dicts]
        self.metrics = []
        std = {}
        if rel.startswith("arm64/"):
            for f in ("common-and-microarch.json", "recommended.json"):
                for e in load_json(os.path.join(arch, "arm64", f)):
                    if isinstance(e, dict) and "EventName" in e:
                        std[e["EventName"].upper()] = e
            for e in load_json(os.path.join(arch, "arm64", "sbsa.json")):
                if isinstance(e, dict) and "MetricName" in e:
                    std["METRIC:" + e["MetricName"]] = e
        d = os.path.join(arch, rel)
        overridden = set()
        for f in sorted(os.listdir(d)):
            if not f.endswith(".json"):
                continue
            for e in load_json(os.path.join(d, f)):
                if not isinstance(e, dict):
                    continue
                if "ArchStdEvent" in e:
                    name = e["ArchStdEvent"]
                    base = std.get("METRIC:" + name)
                    if base is not None:
                        m = dict(base)
                        m.update({k: v for k, v in e.items() if k != "ArchStdEvent"})
                        self.metrics.append(m)
                        overridden.add(name)
                        continue
                    base = dict(std.get(name.upper(), {}))
                    base.update({k: v for k, v in e.items() if k != "ArchStdEvent"})
                    base.setdefault("EventName", name)
                    e = base
                if "MetricName" in e:
                    self.metrics.append(e)
                elif "EventName" in e:
                    self.events.setdefault(e["EventName"].upper(), []).append(e)
        if rel.startswith("arm64/"):
            # sbsa.json's metrics apply to every Arm core (jevents: arch std)
            for k, m in std.items():
                if k.startswith("METRIC:") and m["MetricName"] not in overridden:
                    self.metrics.append(m)


def x86_mapfile(arch):
    rows = []
    for line in open(os.path.join(arch, "x86", "mapfile.csv")):
        f = line.strip().split(",")
        if len(f) < 4 or f[0] == "Family-model" or f[3] != "core":
            continue
        rx = f[0].replace("[[:xdigit:]]", "[0-9A-Fa-f]")
        # without a stepping the model is matched without one
        # (strcmp_cpuid_str, tools/perf/arch/x86/util/header.c)
        full = f[0].count("-") >= 3
        rows.append((re.compile(rx), "x86/" + f[2], full))
    return rows


def arm_mapfile(arch):
    rows = {}
    for line in open(os.path.join(arch, "arm64", "mapfile.csv")):
        f = line.strip().split(",")
        if len(f) < 4 or not f[0].startswith("0x") or f[3] != "core":
            continue
        midr = int(f[0], 16)
        rows[(midr >> 24 & 0xff, midr >> 4 & 0xfff)] = "arm64/" + f[2]
    return rows


# ---- tdctl ----------------------------------------------------------------

class Root:
    """A fake /proc and /sys tree (the layout of fixtures.c)."""

    def __init__(self, base, name, kind):
        self.dir = os.path.join(base, name)
        self.kind = kind
        self.w("sys/devices/system/cpu/possible", "0-3\n")
        self.pmu("software", 1)
        if kind == "intel":
            self.pmu("cpu", 4)
        elif kind == "hybrid":
            self.pmu("cpu_core", 4, "0-1\n")
            self.pmu("cpu_atom", 10, "2-3\n")
        elif kind == "amd":
            self.pmu("cpu", 4)
        else:
            self.pmu("armv8_pmuv3_0", 8, "0-3\n", "8\n")

    def w(self, rel, text):
        p = os.path.join(self.dir, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)

    def pmu(self, name, typ, cpus=None, slots=None):
        d = "sys/bus/event_source/devices/" + name
        self.w(d + "/type", "%d\n" % typ)
        if cpus:
            self.w(d + "/cpus", cpus)
        if slots:
            self.w(d + "/caps/slots", slots)

    def x86(self, vendor, family, model):
        self.w("proc/cpuinfo", "".join(
            "processor\t: %d\nvendor_id\t: %s\ncpu family\t: %d\n"
            "model\t\t: %d\nmodel name\t: test\nstepping\t: 4\n\n"
            % (i, vendor, family, model) for i in range(4)))

    def arm(self, part, variant=0, rev=0):
        self.w("proc/cpuinfo", "".join(
            "processor\t: %d\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
            "CPU variant\t: 0x%x\nCPU part\t: 0x%03x\nCPU revision\t: %d\n\n"
            % (i, variant, part, rev) for i in range(4)))
        for i in range(4):
            self.w("sys/devices/system/cpu/cpu%d/regs/identification/midr_el1" % i,
                   "0x%016x\n" % (0x41 << 24 | variant << 20 | 0xf << 16 |
                                  part << 4 | rev))

    def chosen(self):
        """The set chosen here, and whether it offers Level 2 here."""
        rc, out, err = run("--json", "list", "--root", self.dir)
        if rc:
            raise RuntimeError("tdctl list --root failed: " + err + out)
        sel = json.loads(out)["selected"]
        groups = sel.get("groups") or []
        return sel["set"], bool(groups) and all(g["offered"] for g in groups)


def claims(base):
    """{set: [(kind, key, l2)]}: key is (vendor, family, model) or ('arm',
    part), l2 whether the set offers Level 2 there. One fake tree per
    machine, tdctl run on them four at a time."""
    jobs = []
    for kind in ("intel", "hybrid"):
        for model in range(256):
            jobs.append((kind, ("GenuineIntel", 6, model)))
    for family in (0x17, 0x19, 0x1a):
        for model in range(256):
            jobs.append(("amd", ("AuthenticAMD", family, model)))
    for part in range(0xd00, 0xe00):
        jobs.append(("arm", ("arm", part)))

    def one(job):
        kind, key = job
        r = Root(base, "%s-%s" % (kind, "-".join(str(k) for k in key)), kind)
        if kind == "arm":
            r.arm(key[1])
        else:
            r.x86(*key)
        return r.chosen()

    out = {}
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for job, (chosen, l2) in zip(jobs, pool.map(one, jobs)):
            out.setdefault(chosen, []).append(job + (l2,))
    return out


def set_info(name):
    rc, out, err = run("--json", "list", "--events", name)
    if rc:
        raise RuntimeError("tdctl list --events %s: %s%s" % (name, err, out))
    return json.loads(out)["selected"]


# ---- encodings ------------------------------------------------------------

def num(v, default=0):
    if v is None or v == "":
        return default
    return int(str(v).split(",")[0].strip(), 0)


def perf_fields(e, vendor):
    """(event, umask, cmask, edge, inv, any) of a perf JSON event."""
    return (num(e.get("EventCode")), num(e.get("UMask")),
            num(e.get("CounterMask")), num(e.get("EdgeDetect")),
            num(e.get("Invert")), num(e.get("AnyThread")))


def tdctl_fields(config, vendor):
    if vendor == "arm":
        return (config, 0, 0, 0, 0, 0)
    ev = config & 0xff
    if vendor == "amd":
        ev |= (config >> 32 & 0xf) << 8
    return (ev, config >> 8 & 0xff, config >> 24 & 0xff, config >> 18 & 1,
            config >> 23 & 1, config >> 21 & 1)


# tdctl aliases that name the same count on another counter: the fixed
# counter twins of Intel's general-counter events, never compared by
# encoding (the kernel picks the counter).
FIXED_TWINS = {"TOPDOWN.SLOTS", "CPU_CLK_UNHALTED.THREAD",
               "CPU_CLK_UNHALTED.CORE", "INST_RETIRED.ANY"}


MODIFIER = re.compile(r"^([^,]+)((?:,(?:cmask|inv|edge|any)(?:=\w+)?)+)$", re.I)


def modified(pdir, name, vendor):
    """NAME,cmask=N[,edge][,inv]: perf's base event with the terms
    applied, as perf's cpu@NAME\\,cmask\\=N@; None if not that form."""
    m = MODIFIER.match(name)
    if not m or m.group(1).upper() not in pdir.events:
        return None
    f = list(perf_fields(pdir.events[m.group(1).upper()][0], vendor))
    for term in m.group(2).split(",")[1:]:
        k, _, v = term.partition("=")
        f[{"cmask": 2, "edge": 3, "inv": 4, "any": 5}[k.lower()]] = int(v or "1", 0)
    return tuple(f)


def all_events(info, groups):
    """The set's Level 1 events, and with groups those of its groups."""
    evs = list(info["events"])
    names = {e["name"] for e in evs}
    for g in (info.get("groups") or []) if groups else []:
        for e in g["events"]:
            if e["name"] not in names:
                names.add(e["name"])
                evs.append(e)
    return evs


def check_encodings(setname, info, pdir, vendor, groups=False):
    errs = []
    for ev in all_events(info, groups):
        name = ev["name"]
        pmu = None
        base = name
        if "/" in name:
            pmu, base = name.split("/", 1)
            pmu = "cpu_" + pmu
        aliases = ev["aliases"]
        names = [base] + aliases
        mine = tdctl_fields(ev["config"], vendor)
        found = []
        for nm in names:
            for pe in pdir.events.get(nm.upper(), []):
                unit = pe.get("Unit")
                if pmu and unit and unit != pmu:
                    continue
                found.append(nm)
                if ev["pmu"] == "hardware" or nm.upper() in FIXED_TWINS:
                    continue
                theirs = perf_fields(pe, vendor)
                if theirs != mine:
                    enc = "event=%#x umask=%#x cmask=%d edge=%d inv=%d any=%d"
                    errs.append(("%s: perf's %s is " + enc + ", tdctl's %s " + enc)
                                % (pdir.rel, nm, *theirs, name, *mine))
        for nm in names if not found else []:
            theirs = modified(pdir, nm, vendor)
            if theirs is None:
                continue
            found.append(nm)
            if theirs != mine:
                enc = "event=%#x umask=%#x cmask=%d edge=%d inv=%d any=%d"
                errs.append(("%s: perf's %s is " + enc + ", tdctl's %s " + enc)
                            % (pdir.rel, nm, *theirs, name, *mine))
        if not found:
            errs.append("%s: none of %s is a perf event of %s"
                        % (name, " ".join(names), pdir.rel))
    return errs


# ---- perf's metric expressions ---------------------------------------------

TOKEN = re.compile(r"""\s*(?:
    (?P<hex>0x[0-9a-fA-F]+)
  | (?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE]-?[0-9]+)?)
  | (?P<lit>\#[0-9a-zA-Z_\\\-]+)
  | (?P<id>(?:\\.|[0-9a-zA-Z_.:@?])+)
  | (?P<op>[-+*/%<>&|^(),!])
)""", re.X)

KEYWORDS = {"if", "else", "min", "max", "d_ratio", "source_count",
            "has_event", "strcmp_cpuid_str"}


def tokens(expr):
    pos, out = 0, []
    while pos < len(expr):
        if expr[pos:].strip() == "":
            break
        m = TOKEN.match(expr, pos)
        if not m:
            raise ValueError("cannot tokenize %r at %d" % (expr, pos))
        pos = m.end()
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
    return out


class Eval:
    """perf's expr.y grammar: 'if else' lowest, then | ^ & < > + - * / %."""

    BP = {"if": 1, "|": 2, "^": 3, "&": 4, "<": 5, ">": 5, "+": 6, "-": 6,
          "*": 7, "/": 7, "%": 7}

    def __init__(self, resolve, literal, cpuid):
        self.resolve, self.literal, self.cpuid = resolve, literal, cpuid

    def run(self, expr):
        self.t = tokens(expr)
        self.i = 0
        v = self.expr(0)
        if self.i != len(self.t):
            raise ValueError("trailing tokens in %r" % expr)
        return v

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else (None, None)

    def take(self, want=None):
        tok = self.peek()
        if want and tok[1] != want:
            raise ValueError("want %s, got %s" % (want, tok))
        self.i += 1
        return tok

    def expr(self, minbp):
        left = self.unary()
        while True:
            kind, val = self.peek()
            op = val if kind in ("op", "id") else None
            if op not in self.BP or self.BP[op] <= minbp:
                return left
            self.take()
            bp = self.BP[op]
            if op == "if":
                cond = self.expr(bp)
                self.take("else")
                other = self.expr(bp)
                left = left if cond else other
                continue
            right = self.expr(bp)
            left = self.binop(op, left, right)

    @staticmethod
    def binop(op, a, b):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a / b if b else float("nan")
        if op == "%":
            return float(int(a) % int(b))
        if op == "<":
            return float(a < b)
        if op == ">":
            return float(a > b)
        if op == "&":
            return float(bool(a) and bool(b))
        if op == "|":
            return float(bool(a) or bool(b))
        if op == "^":
            return float(bool(a) != bool(b))
        raise ValueError(op)

    def args(self, count):
        self.take("(")
        vals = [self.expr(0)]
        while self.peek()[1] == ",":
            self.take()
            vals.append(self.expr(0))
        self.take(")")
        if len(vals) != count:
            raise ValueError("want %d arguments" % count)
        return vals

    def unary(self):
        kind, val = self.take()
        if val == "-":
            return -self.expr(8)
        if val == "!":
            return float(not self.expr(8))
        if val == "(":
            v = self.expr(0)
            self.take(")")
            return v
        if kind == "num":
            return float(val)
        if kind == "lit":
            return self.literal(val)
        if val in ("min", "max"):
            a, b = self.args(2)
            return min(a, b) if val == "min" else max(a, b)
        if val == "d_ratio":
            a, b = self.args(2)
            return a / b if b else 0.0
        if val == "strcmp_cpuid_str":
            self.take("(")
            _, ident = self.take()
            self.take(")")
            return self.cpuid(ident)
        if kind == "id":
            return self.resolve(val)
        raise ValueError("unexpected %r" % val)


def arm_cpuid_match(map_id, cpu_id):
    """1 when cpu_id is the part of map_id at its version or later
    (strcmp_cpuid_str of tools/perf/arch/arm64/util/header.c, 6.12)."""
    fields = ~(0xf << 20 | 0xf)
    if map_id & fields != cpu_id & fields:
        return 0.0
    mv, mr = map_id >> 20 & 0xf, map_id & 0xf
    cv, cr = cpu_id >> 20 & 0xf, cpu_id & 0xf
    return float(cv > mv or (cv == mv and cr >= mr))


def clean_id(ident):
    ident = ident.replace("\\", "")
    m = re.match(r"^(cpu|cpu_core|cpu_atom)@(.*)@$", ident)
    pmu = None
    if m:
        pmu, ident = m.group(1), m.group(2)
    return pmu, ident.upper()


def metric_value(pdir, mname, env, literals, cpuid, unit=None):
    """perf's metric mname of pdir (unit: cpu_core/cpu_atom for 6.1 hybrid),
    as a fraction."""
    def find(name):
        cands = [m for m in pdir.metrics if m.get("MetricName") == name]
        if unit:
            cands = [m for m in cands if m.get("Unit") in (unit, None)] or cands
        return cands[0] if cands else None

    missing = []

    def resolve(ident):
        pmu, name = clean_id(ident)
        m = find(ident.replace("\\", ""))
        if m is not None:
            return Eval(resolve, lambda lit: literals[lit], cpuid).run(m["MetricExpr"])
        if name in env:
            return env[name]
        # perf drops the events of an 'if' branch not taken: only a
        # missing event that reaches the result is an error
        missing.append(ident)
        return float("nan")

    ev = Eval(resolve, lambda lit: literals[lit], cpuid)
    m = find(mname)
    if m is None:
        return None
    v = ev.run(m["MetricExpr"])
    if v != v and missing:
        raise KeyError(" ".join(sorted(set(missing))))
    scale = re.match(r"([0-9.]+)\s*(%|percent)?", m.get("ScaleUnit", "100%"))
    if not scale:
        raise ValueError("%s: ScaleUnit %r" % (mname, m.get("ScaleUnit")))
    if scale.group(2):
        return v * float(scale.group(1)) / 100.0
    return v * float(scale.group(1))


PERF_NAMES = {
    "frontend_bound": "tma_frontend_bound", "backend_bound": "tma_backend_bound",
    "retiring": "tma_retiring", "bad_speculation": "tma_bad_speculation",
    "branch_mispredicts": "tma_branch_mispredicts",
    "machine_clears": "tma_machine_clears", "memory_bound": "tma_memory_bound",
    "core_bound": "tma_core_bound", "heavy_operations": "tma_heavy_operations",
    "light_operations": "tma_light_operations",
}


def perf_metric_name(pdir, name):
    if any(m.get("MetricName") == name for m in pdir.metrics):
        return name
    return PERF_NAMES.get(name)


def decode(setname, counts, extra=()):
    args = ["--json", "decode", "--set", setname] + list(extra)
    args += ["%s=%d" % kv for kv in counts.items()]
    rc, out, err = run(*args)
    if rc:
        raise RuntimeError("tdctl %s: %s%s" % (" ".join(args), err, out))
    return json.loads(out)["metrics"]


def env_of(info, counts, sub, groups=False):
    env = {}
    for ev in all_events(info, groups):
        base = ev["name"].split("/", 1)[-1]
        if ev["name"] not in counts:
            continue
        for nm in [base] + ev["aliases"]:
            env[nm.upper()] = float(counts[ev["name"]])
    env.update({k.upper(): float(v) for k, v in sub.items()})
    return env


def compare_metrics(setname, info, pdir, rng, key):
    """Errors, and how many metrics were compared."""
    errs, compared = [], 0
    literals = {"#SMT_on": 0.0, "#core_wide": 1.0, "#smt_on": 0.0,
                "#num_packages": 1.0, "#num_cores": 4.0, "#num_dies": 1.0,
                "#num_cpus_online": 4.0}
    if setname == "intel_adl_hybrid":
        return compare_hybrid(info, pdir, rng)
    revisions = [None]
    if setname == "arm_neoverse_n2":
        revisions = ["r0p0", "r0p2", "r0p3", "r1p0"]
    widths = [{"amd_zen4": 6, "amd_zen5": 8, "arm_neoverse_n2": 5,
               "arm_neoverse_v1": 8, "arm_neoverse_v2": 8}.get(setname, 0)]
    if setname in WIDTH:
        widths = [WIDTH[setname], 8]
    for rev, slots in [(r, w) for r in revisions for w in widths]:
        for _ in range(20):
            counts, sub = counts_for(setname, slots, rng)
            extra = ["--revision", rev] if rev else []
            if setname.startswith("arm_neoverse"):
                extra += ["--slots", str(slots)]
                literals["#slots"] = float(slots)
            mine = decode(setname, counts, extra)
            midr = 0
            if key[0] == "arm":
                var, r = (0, 0)
                if rev:
                    var, r = int(rev[1]), int(rev[3])
                midr = 0x41 << 24 | var << 20 | 0xf << 16 | key[1] << 4 | r

            def cpuid(ident, midr=midr):
                return arm_cpuid_match(int(ident, 16), midr)

            # a hybrid part's tables: the big cores' metrics
            unit = "cpu_core" if any(m.get("Unit") == "cpu_core"
                                     for m in pdir.metrics) else None

            env = env_of(info, counts, sub)
            for name, val in mine.items():
                pname = perf_metric_name(pdir, name)
                if not pname or val is None:
                    continue
                try:
                    theirs = metric_value(pdir, pname, env, literals, cpuid,
                                          unit=unit)
                except KeyError as e:
                    errs.append("%s %s: perf's %s needs %s, which tdctl does not count"
                                % (pdir.rel, name, pname, e))
                    continue
                if theirs is None:
                    continue
                compared += 1
                if abs(theirs - val) > 1e-9 * max(1.0, abs(theirs)):
                    errs.append("%s %s%s slots %d: perf %.12f, tdctl %.12f (counts %s)"
                                % (pdir.rel, name, " " + rev if rev else "", slots,
                                   theirs, val, counts))
    return errs, compared


def compare_hybrid(info, pdir, rng):
    errs, compared = [], 0
    literals = {"#SMT_on": 0.0, "#core_wide": 1.0}
    for half in ("cpu_core", "cpu_atom"):
        for _ in range(20):
            C = rng.randrange(10 ** 6, 10 ** 9)
            u = rng.uniform
            counts = {e["name"]: 0 for e in info["events"]}
            sub = {}
            if half == "cpu_core":
                S = 6 * C
                fe, ret, be = (int(S * u(0.05, 0.3)) for _ in range(3))
                counts.update({"core/TOPDOWN.SLOTS_P": S,
                               "core/IDQ_UOPS_NOT_DELIV.CORE": fe,
                               "core/UOPS_RETIRED.SLOTS": ret,
                               "core/TOPDOWN.BE_BOUND_SLOTS": be})
                sub = {"TOPDOWN.SLOTS": S, "TOPDOWN-FE-BOUND": fe,
                       "TOPDOWN-RETIRING": ret, "TOPDOWN-BE-BOUND": be,
                       "TOPDOWN-BAD-SPEC": S - fe - ret - be,
                       "INT_MISC.UOP_DROPPING": 0}
            else:
                parts = [int(C * u(0.5, 2)) for _ in range(4)]
                counts.update(dict(zip(
                    ["atom/TOPDOWN_FE_BOUND.ALL", "atom/TOPDOWN_BAD_SPEC.ALL",
                     "atom/TOPDOWN_BE_BOUND.ALL", "atom/TOPDOWN_RETIRING.ALL"],
                    parts)))
                sub = {"CPU_CLK_UNHALTED.CORE": sum(parts) / 5.0,
                       "CLKS": sum(parts) / 5.0}
            mine = decode("intel_adl_hybrid", counts)
            env = env_of(info, counts, sub)
            for name, val in mine.items():
                cands = [m for m in pdir.metrics
                         if m.get("MetricName") == PERF_NAMES.get(name) and
                         (m.get("Unit") == half or half + "@" in m["MetricExpr"])]
                if not cands or val is None:
                    continue
                try:
                    theirs = metric_value(pdir, PERF_NAMES[name], env, literals,
                                          lambda i: 0.0, unit=half)
                except KeyError as e:
                    errs.append("%s %s (%s): perf needs %s" % (pdir.rel, name, half, e))
                    continue
                compared += 1
                if abs(theirs - val) > 1e-9:
                    errs.append("%s %s (%s): perf %.12f, tdctl %.12f"
                                % (pdir.rel, name, half, theirs, val))
    return errs, compared


# ---- Level 2 ----------------------------------------------------------------

def selections(info):
    """(decode arguments, events) of each selection that together decode
    every group: --level 2, and -M NAME for the groups only -M takes, one
    selection per name (the first of their aliases), so that each stays
    within the 8 groups and 32 events of a configuration."""
    groups = info.get("groups") or []
    out = []
    chosen = [g for g in groups if g["in_level2"]]
    out.append((["--level", "2"], chosen))
    extra = [g for g in groups if not g["in_level2"]]
    for mg in sorted({g["aliases"][0] for g in extra}):
        out.append((["-M", mg], [groups[0]] + [g for g in extra
                                               if g["aliases"][0] == mg]))
    return [(args, {e["name"] for g in gs for e in g["events"]}) for args, gs in out]


def compare_l2(setname, info, pdir, rng, key, vendor, ver):
    """Errors, and how many Level 2 metrics were compared."""
    errs, compared, seen = [], 0, set()
    minfo = {m["name"]: m for m in info.get("metric_info") or []}
    slots = {"amd_zen4": 6, "amd_zen5": 8, "arm_neoverse_n2": 5, "arm_neoverse_v2": 8,
             "intel_snb": 4, "intel_skl": 4, **WIDTH}.get(setname, 0)
    literals = {"#SMT_on": 0.0, "#core_wide": 1.0, "#smt_on": 0.0,
                "#num_packages": 1.0, "#num_cores": 4.0, "#num_dies": 1.0,
                "#num_cpus_online": 4.0, "#slots": float(slots)}
    unit = "cpu_core" if any(m.get("Unit") == "cpu_core" for m in pdir.metrics) else None
    midr = 0
    if key[0] == "arm":
        midr = 0x41 << 24 | 0 << 20 | 0xf << 16 | key[1] << 4 | 3

    def cpuid(ident):
        return arm_cpuid_match(int(ident, 16), midr)

    for _ in range(20):
        counts, sub = l2_counts(setname, slots, rng)
        env = env_of(info, counts, sub, groups=True)
        for args, events in selections(info):
            extra = list(args)
            if setname.startswith("arm_neoverse"):
                extra += ["--slots", str(slots)]
            if setname == "arm_neoverse_n2":
                extra += ["--revision", "r0p3"]
            mine = decode(setname, {k: v for k, v in counts.items() if k in events},
                          extra)
            for name, val in mine.items():
                m = minfo.get(name)
                if not m or m["level"] < 2 or not m["perf_name"] or val is None:
                    continue
                pm = [x for x in pdir.metrics if x.get("MetricName") == m["perf_name"]]
                if not pm and name in SINCE and older(ver, SINCE[name]):
                    continue
                if not pm:
                    errs.append("%s: perf has no metric %s (tdctl's %s)"
                                % (pdir.rel, m["perf_name"], name))
                    continue
                if name not in seen:
                    seen.add(name)
                    theirs_g = set((pm[0].get("MetricGroup") or "").split(";")) - {""}
                    mine_g = set(m["perf_groups"])
                    if not theirs_g <= mine_g:
                        errs.append("%s %s: perf's metric groups %s not in tdctl's"
                                    % (pdir.rel, name, sorted(theirs_g - mine_g)))
                try:
                    theirs = metric_value(pdir, m["perf_name"], env, literals, cpuid,
                                          unit=unit)
                except KeyError as e:
                    errs.append("%s %s: perf's %s needs %s, which tdctl does not count"
                                % (pdir.rel, name, m["perf_name"], e))
                    continue
                compared += 1
                if abs(theirs - val) > 1e-12 * max(1.0, abs(theirs)):
                    errs.append("%s %s: perf %.15g, tdctl %.15g (counts %s)"
                                % (pdir.rel, name, theirs, val, counts))
    return errs, compared


@test
def perf_tables(tmp):
    arches = {}
    for ver in VERSIONS:
        if ver == "7.3" and tarball(ver) is None and not have_suites():
            # its tarball comes with the other suites' kernels, which
            # make check fetches in the background
            note("perf %s not compared: no linux-source-%s (scripts/deps.sh --suites)"
                 % (ver, ver))
            continue
        arch, err = extract(ver)
        ok(arch is not None, "perf %s pmu-events extracted into build/perf-json" % ver, err)
        if arch:
            arches[ver] = arch
    if not arches:
        return
    xmaps = {v: x86_mapfile(a) for v, a in arches.items()}
    amaps = {v: arm_mapfile(a) for v, a in arches.items()}
    dirs = {}

    def pdir(ver, rel):
        if (ver, rel) not in dirs:
            dirs[(ver, rel)] = PerfDir(arches[ver], rel)
        return dirs[(ver, rel)]

    claimed = claims(tmp)
    rng = random.Random(15)
    for setname in sorted(claimed):
        if setname in ("generic", "software"):
            continue
        try:
            info = set_info(setname)
        except RuntimeError as e:
            ok(False, "%s: tdctl list --events shows it on any machine" % setname, e)
            continue
        if setname in DIFFERENCES:
            note("%s differs from perf on purpose: %s" % (setname, DIFFERENCES[setname]))
        # the perf directories of every model the set is chosen for
        targets, uncovered, l2_targets = {}, [], set()
        for kind, key, l2 in claimed[setname]:
            vendor = "arm" if kind == "arm" else ("amd" if key[0] == "AuthenticAMD" else "intel")
            hit = False
            for ver in arches:
                if kind == "arm":
                    rel = amaps[ver].get((0x41, key[1]))
                    rels = [rel] if rel else []
                else:
                    rels = {rel for st in range(16) for rx, rel, full in xmaps[ver]
                            if rx.fullmatch(("%s-%d-%X-%X" if full else "%s-%d-%X")
                                            % ((key[0], key[1], key[2], st)
                                               if full else key))}
                for rel in rels:
                    targets.setdefault((ver, rel), (vendor, key))
                    if l2:
                        l2_targets.add((ver, rel))
                    hit = True
            if not hit and key not in uncovered:
                uncovered.append(key)
        if uncovered:
            what = ", ".join("part 0x%03x" % k[1] if k[0] == "arm" else
                             "%s family %#x model %#x" % k for k in uncovered)
            ok(info["source"] and ("neither" in info["source"] or
                                   "no " in info["source"] or
                                   "architecture" in info["source"].lower()),
               "%s: models perf's JSON does not cover are named in its source" % setname,
               "%s claims %s; its source says: %s" % (setname, what, info["source"]))
        for (ver, rel), (vendor, key) in sorted(targets.items()):
            if TOO_OLD.get(setname) == ver:
                note("%s: perf %s maps its CPUs to %s, older tables (not compared)"
                     % (setname, ver, rel))
                continue
            d = pdir(ver, rel)
            errs = check_encodings(setname, info, d, vendor)
            ok(not errs, "%s on perf %s %s: encodings and names" % (setname, ver, rel),
               "\n".join(errs))
            if setname == "arm_stall_cycles":
                continue
            if (setname, ver, rel) in NOT_YET:
                skip("%s on perf %s %s: TopDown metrics" % (setname, ver, rel),
                     NOT_YET[(setname, ver, rel)])
                continue
            if not any("TopdownL1" in (m.get("MetricGroup") or "") or
                       "PipelineL1" in (m.get("MetricGroup") or "")
                       for m in d.metrics):
                note("%s on perf %s %s: perf has no TopdownL1 metrics here" % (setname, ver, rel))
                continue
            errs, compared = compare_metrics(setname, info, d, rng, key)
            ok(not errs and compared > 0,
               "%s on perf %s %s: TopDown metrics equal perf's (%d compared)"
               % (setname, ver, rel, compared), "\n".join(errs[:20]))
        for (ver, rel) in sorted(l2_targets):
            vendor, key = targets[(ver, rel)]
            if TOO_OLD.get(setname) == ver:
                continue
            if (setname, ver, rel) in NOT_YET:
                skip("%s on perf %s %s: Level 2 groups" % (setname, ver, rel),
                     NOT_YET[(setname, ver, rel)])
                continue
            d = pdir(ver, rel)
            errs = check_encodings(setname, info, d, vendor, groups=True)
            ok(not errs, "%s on perf %s %s: Level 2 groups' encodings and names"
               % (setname, ver, rel), "\n".join(errs))
            if not any(m.get("MetricName") in
                       {x["perf_name"] for x in info.get("metric_info") or []
                        if x["level"] > 1} for m in d.metrics):
                note("%s on perf %s %s: perf has none of its Level 2 metrics here"
                     % (setname, ver, rel))
                continue
            errs, compared = compare_l2(setname, info, d, rng, key, vendor, ver)
            ok(not errs and compared > 0,
               "%s on perf %s %s: Level 2 metrics equal perf's to 1e-12 (%d compared)"
               % (setname, ver, rel, compared), "\n".join(errs[:20]))
        if setname == "arm_stall_cycles":
            note("arm_stall_cycles is not TopDown (stalled-cycle shares): "
                 "no perf metric to compare")


if __name__ == "__main__":
    main(setup=require_tdctl)
