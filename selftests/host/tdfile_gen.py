# SPDX-License-Identifier: GPL-2.0
"""An independent writer of tdctl record files, from the specification in
Documentation/file-format.rst (not from user/file/tdfile.c), for the host tests:
scenarios with known records whose sums the tests compute here and compare
with what `tdctl report`, `dump -i` and `top -i` print.
"""
import struct
import zlib

MAGIC = b"\x89TDR\r\n\x1a\n"
END_MAGIC = b"\x89TDE\r\n\x1a\n"
START_NS = 5_000_000_000


def text(s, size):
    b = s.encode()
    assert len(b) < size
    return b + b"\0" * (size - len(b))


def comm_text(comm):
    """A comm as tdctl writes it in every format (the rule of
    user/output/text.h), from Python's own UTF-8 decoder: valid UTF-8
    characters pass, except control characters (C0, DEL, C1) and the
    backslash; every other byte is \\xNN. comm: str or bytes, up to a NUL."""
    b = comm.encode() if isinstance(comm, str) else bytes(comm)
    b = b.split(b"\0")[0]
    out, i = [], 0
    while i < len(b):
        for n in (1, 2, 3, 4):
            try:
                ch = b[i:i + n].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(ch) == 1:
                break
        else:
            ch, n = None, 1
        if ch is None or ch == "\\" or ord(ch) < 0x20 or 0x7f <= ord(ch) < 0xa0:
            out.append("".join("\\x%02x" % c for c in b[i:i + n]))
        else:
            out.append(ch)
        i += n
    return "".join(out)


class Rec:
    """One record; deltas in event order."""

    def __init__(self, cpu, pid, tgid, comm, time_ns, duration_ns, deltas,
                 cgroup=1, flags=0, seq=None):
        self.cpu, self.pid, self.tgid, self.comm = cpu, pid, tgid, comm
        self.time_ns, self.duration_ns = time_ns, duration_ns
        self.deltas, self.cgroup, self.flags, self.seq = deltas, cgroup, flags, seq

    def pack(self):
        d = list(self.deltas) + [0] * (8 - len(self.deltas))
        return (struct.pack("<QQQQIIII", self.seq, self.time_ns,
                            self.duration_ns, self.cgroup, self.cpu, self.pid,
                            self.tgid, self.flags)
                + text(self.comm, 16) + struct.pack("<8Q", *d))


class Scenario:
    """A record file. groups (a list of lists of pool indexes) makes it a
    2.0 file with rotate_ms; events is then the pool."""

    def __init__(self, label, events, nr_cpus, records, slots=0,
                 duration_ns=2_000_000_000, lost=None, target="all tasks",
                 records_read=None, groups=None, rotate_ms=20):
        self.label, self.events, self.nr_cpus = label, events, nr_cpus
        self.records, self.slots = records, slots
        self.groups, self.rotate_ms = groups, rotate_ms
        self.start_ns = START_NS
        self.stop_ns = START_NS + duration_ns
        self.lost = lost or [0] * nr_cpus
        self.target = target
        self.records_read = records_read
        seq = [0] * nr_cpus
        for r in self.records:       # per-CPU sequence numbers
            if r.seq is None:
                seq[r.cpu] += 1 + (r.pid % 3)    # gaps: other tasks' records
                r.seq = seq[r.cpu]

    def header_size(self):
        n = len(self.events)
        if self.groups is None:
            return 704 + 64 * n
        return 704 + 64 * n + 8 + 16 * len(self.groups)

    def header(self):
        n = len(self.events)
        major = 1 if self.groups is None else 2
        h = MAGIC + struct.pack("<HHIIIII", major, 0, 0x01020304,
                                self.header_size(), 128, self.nr_cpus, n)
        h += struct.pack("<QQIIII", self.start_ns, 1_790_000_000_000_000_000,
                         0, 262144, self.slots, 0)
        h += (text(self.label, 64) + text("aarch64", 64)
              + text("6.1.0-test-arm64", 64) + text("gen-host", 64)
              + text("CPU implementer 0x41, CPU part 0xd49", 128)
              + text(self.target, 256))
        for i, name in enumerate(self.events):
            h += struct.pack("<IIQQQ", 8, 0, 0x11 + i, 0, 0) + text(name, 32)
        if self.groups is not None:
            # The groups section of format 2.0 (file-format.rst, "Groups").
            h += struct.pack("<II", len(self.groups), self.rotate_ms)
            for g in self.groups:
                h += struct.pack("<II", len(g), 0) + bytes(g + [0] * (8 - len(g)))
        assert len(h) == self.header_size()
        return h

    def body(self):
        return b"".join(r.pack() for r in self.records)

    def trailer_without_crc(self):
        read = self.records_read
        if read is None:
            read = len(self.records) + 10
        return (END_MAGIC
                + struct.pack("<QQQ", len(self.records), self.stop_ns, read)
                + struct.pack("<%dQ" % self.nr_cpus, *self.lost))

    def image(self):
        data = self.header() + self.body() + self.trailer_without_crc()
        return data + struct.pack("<II", zlib.crc32(data), 0)

    def write(self, path):
        with open(path, "wb") as f:
            f.write(self.image())

    # ---- what the tests expect -------------------------------------------
    def key(self, r, by):
        if by == "task":
            return (r.tgid, r.pid, r.cpu if r.pid == 0 else 0)
        if by == "process":
            return (r.tgid, r.cpu if r.tgid == 0 else 0)
        if by == "comm":
            return r.comm
        if by == "cgroup":
            return r.cgroup
        return r.cpu

    def sums(self, by, keep=lambda r: True):
        """key -> {slices, runtime_ns, counts[]}; plus 'total'."""
        out = {}
        total = {"slices": 0, "runtime_ns": 0, "counts": [0] * len(self.events)}
        for r in self.records:
            if not keep(r):
                continue
            g = out.setdefault(self.key(r, by), {
                "slices": 0, "runtime_ns": 0,
                "counts": [0] * len(self.events)})
            for acc in (g, total):
                acc["slices"] += 1
                acc["runtime_ns"] += r.duration_ns
                for i in range(len(self.events)):
                    acc["counts"][i] += r.deltas[i]
        return out, total


def _time(i, n):
    return START_NS + 1_000_000 + i * (1_990_000_000 // n)


def generic():
    """Set generic on 2 CPUs: processes with threads, idle tasks, cgroups."""
    tasks = [  # (tgid, pid, comm, cgroup, cycles per slice, instructions)
        (100, 100, "alpha", 11, 3_000_000, 6_000_000),
        (100, 101, "alpha-worker", 11, 2_000_000, 1_000_000),
        (200, 200, "beta", 12, 5_000_000, 2_500_000),
        (300, 300, "gamma", 12, 700_000, 2_100_000),
        (0, 0, "swapper/0", 1, 100, 0),
        (400, 400, "beta", 13, 1_000, 1_000),      # same comm as 200
    ]
    recs = []
    n = 60
    for i in range(n):
        tgid, pid, comm, cg, cyc, ins = tasks[i % len(tasks)]
        cpu = (i // 2) % 2
        if pid == 0:
            comm = "swapper/%d" % cpu
        k = 1 + i % 4                           # vary per slice
        recs.append(Rec(cpu, pid, tgid, comm, _time(i, n), 100_000 * k,
                        [cyc * k, ins * k], cgroup=cg,
                        flags=0x400 if pid == 0 else (0x100 if i % 5 == 0 else 0)))
    return Scenario("set=generic", ["cycles", "instructions"], 2, recs,
                    lost=[0, 3])


def software():
    """Set software (cpu-clock only): sorting falls back to the first event."""
    recs = []
    for i in range(12):
        pid = 10 + i % 3
        recs.append(Rec(i % 2, pid, pid, "sw%d" % pid, _time(i, 12),
                        (pid - 9) * 1_000_000, [(pid - 9) * 1_000_000]))
    return Scenario("set=software", ["cpu-clock"], 2, recs)


N2_EVENTS = ["CPU_CYCLES", "OP_RETIRED", "OP_SPEC", "STALL_SLOT",
             "STALL_SLOT_FRONTEND", "STALL_SLOT_BACKEND", "INST_RETIRED"]


def n2():
    """Neoverse N2 with TopDown: metrics must come from summed counts."""
    recs = []
    # Two very different slices of one task: averaging their percentages
    # would give another answer than decoding the sums.
    shapes = [
        [1_000_000, 3_000_000, 3_100_000, 1_500_000, 500_000, 900_000, 2_900_000],
        [9_000_000, 1_000_000, 1_200_000, 40_000_000, 15_000_000, 24_000_000, 950_000],
    ]
    for i in range(8):
        pid = 500 + i % 2
        recs.append(Rec(i % 4, pid, pid, "n2task%d" % (i % 2), _time(i, 8),
                        1_000_000, shapes[(i // 2) % 2]))
    return Scenario("set=arm_neoverse_n2 slots=5 rev=r0p0", N2_EVENTS, 4,
                    recs, slots=5)


SCENARIOS = {"generic": generic, "software": software, "n2": n2}


def columns(text):
    """Columns text takes on a terminal: wide (W) and fullwidth (F)
    characters two, combining marks none (as tdctl pads comms)."""
    import unicodedata
    n = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        n += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return n


def pad(text, width):
    """text left-aligned in width columns."""
    return text + " " * max(0, width - columns(text))


# ---- recordings with event groups and rotation ----------------------------
#
# A simulation, slice by slice, of what the module writes with groups
# (include/uapi/linux/topdown.h, "Groups and rotation"): each CPU counts
# one group at a time and moves to the next every rotate_ms; the slice
# during which it moves is rotated (no counts, every error bit of the new
# group). Every task has true counts for every pool event in every slice,
# whichever group measured it, so the truth of each task is known exactly.

REC_PREEMPTED, REC_IDLE, REC_ROTATED = 0x100, 0x400, 0x800
GROUP_SHIFT = 16


class Task:
    """rates: counts per microsecond of each pool event; phases: a list of
    (start fraction of the recording, rates) that replace them from then
    on; period_ns: the rates alternate between rates and alt_rates every
    period_ns of wall time (a task in step with the rotation); slice_ns:
    mean slice length; cv: spread of one slice's counts around its rate;
    rho: how much of a slice's deviation carries to the next slice of the
    task (behaviour that drifts)."""

    def __init__(self, pid, tgid, comm, rates, cpus, slice_ns=500_000,
                 phases=(), cv=0.3, rho=0.6, period_ns=0, alt_rates=None,
                 weight=1.0):
        self.pid, self.tgid, self.comm = pid, tgid, comm
        self.rates, self.cpus, self.slice_ns = rates, cpus, slice_ns
        self.phases, self.cv, self.rho = list(phases), cv, rho
        self.period_ns, self.alt_rates = period_ns, alt_rates
        self.weight = weight
        self.drift = None

    def rates_at(self, t, frac):
        r = self.rates
        for start, rates in self.phases:
            if frac >= start:
                r = rates
        if self.period_ns and (t // self.period_ns) % 2:
            r = self.alt_rates
        return r


def simulate(rng, events, groups, tasks, nr_cpus=4, rotate_ms=20,
             duration_ns=2_000_000_000, p_error=0.0, idle_ns=200_000,
             cpu_phase=True, label="set=sim"):
    """Slices of every CPU from START_NS for duration_ns. Returns the
    Scenario (format 2.0) and the truth: pid -> {"time_ns", "counts"
    (true count of every pool event over all the task's slices),
    "measured_ns" (per group: time of the slices it measured),
    "slices", "rotated"}."""
    import math
    npool = len(events)
    recs, truth = [], {}
    rot_ns = rotate_ms * 1_000_000
    for cpu in range(nr_cpus):
        mine = [t for t in tasks if cpu in t.cpus]
        t = START_NS
        group = 0
        # Each CPU rotates on its own clock: a phase of its own.
        due = t + (rng.randrange(rot_ns) if cpu_phase else rot_ns)
        while t < START_NS + duration_ns:
            task = None
            if mine and rng.random() < 0.9:
                task = rng.choices(mine, [x.weight for x in mine])[0]
            if task is None:
                dur = max(1000, int(rng.expovariate(1 / idle_ns)))
            else:
                dur = max(1000, int(rng.expovariate(1 / task.slice_ns)))
            end = min(t + dur, START_NS + duration_ns)
            dur = end - t
            if dur <= 0:
                break
            rotated = t >= due and len(groups) > 1   # one group: no rotation
            if rotated:
                # A per-CPU timer, due every rotate_ms; the group moves at
                # the first switch after it (the slice that starts there).
                group = (group + 1) % len(groups)
                while due <= t:
                    due += rot_ns
            if task is None:
                true = [dur // 1000] * npool
                pid, tgid, comm, flags = 0, 0, "swapper/%d" % cpu, REC_IDLE
            else:
                frac = (t - START_NS) / duration_ns
                rates = task.rates_at(t, frac)
                if task.drift is None:
                    task.drift = [0.0] * npool
                true = []
                for e in range(npool):
                    sd = math.sqrt(math.log(1 + task.cv ** 2))
                    task.drift[e] = (task.rho * task.drift[e] +
                                     math.sqrt(1 - task.rho ** 2) * rng.gauss(0, sd))
                    mult = math.exp(task.drift[e] - sd * sd / 2)
                    true.append(int(round(rates[e] * dur / 1000 * mult)))
                pid, tgid, comm = task.pid, task.tgid, task.comm
                flags = REC_PREEMPTED if rng.random() < 0.3 else 0
            gev = groups[group]
            flags |= group << GROUP_SHIFT
            if rotated:
                flags |= REC_ROTATED | ((1 << len(gev)) - 1)
                deltas = [0] * len(gev)
            else:
                deltas = [true[e] for e in gev]
                if p_error and rng.random() < p_error:
                    j = rng.randrange(len(gev))
                    flags |= 1 << j
                    deltas[j] = 0
            recs.append(Rec(cpu, pid, tgid, comm, end, dur, deltas,
                            cgroup=10 + tgid % 3, flags=flags))
            if pid:
                tr = truth.setdefault(pid, {
                    "tgid": tgid, "time_ns": 0, "counts": [0] * npool,
                    "measured_ns": [0] * len(groups), "slices": 0,
                    "rotated": 0})
                tr["time_ns"] += dur
                tr["slices"] += 1
                for e in range(npool):
                    tr["counts"][e] += true[e]
                if rotated:
                    tr["rotated"] += 1
                elif not flags & 0xff:
                    tr["measured_ns"][group] += dur
            t = end
    recs.sort(key=lambda r: (r.time_ns, r.cpu))
    for r in recs:
        r.seq = None
    # One group is a configuration without groups: format 1.0, the
    # group's events in delta order.
    one = len(groups) == 1
    sc = Scenario(label, [events[e] for e in groups[0]] if one else events,
                  nr_cpus, recs, duration_ns=duration_ns,
                  groups=None if one else groups, rotate_ms=rotate_ms)
    return sc, truth


def grouped_small():
    """A small 2.0 file: a pool of 3 events in two groups with the anchor
    (cycles) in both, two CPUs, two tasks; for the format tests."""
    import random
    rng = random.Random(20)
    tasks = [Task(100, 100, "alpha", [3000, 6000, 40], [0, 1]),
             Task(101, 100, "alpha-w", [2000, 1000, 300], [1])]
    sc, _ = simulate(rng, ["cycles", "instructions", "branch-misses"],
                     [[0, 1], [0, 2]], tasks, nr_cpus=2, rotate_ms=2,
                     duration_ns=20_000_000, p_error=0.05)
    return sc


def grouped_wide():
    """A pool past 8 events (more_events) in groups of 8, 5 and 2."""
    import random
    rng = random.Random(21)
    pool = ["ev%02d" % i for i in range(12)]
    tasks = [Task(300, 300, "wide", [1000 + 100 * i for i in range(12)], [0]),
             Task(301, 300, "wide-2", [500 + 50 * i for i in range(12)], [0])]
    sc, _ = simulate(rng, pool, [list(range(8)), [0, 8, 9, 10, 11], [11, 3]],
                     tasks, nr_cpus=1, rotate_ms=1, duration_ns=8_000_000,
                     p_error=0.05)
    return sc


SCENARIOS_GROUPS = {"grouped": grouped_small, "grouped-wide": grouped_wide}
