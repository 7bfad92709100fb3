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
    def __init__(self, label, events, nr_cpus, records, slots=0,
                 duration_ns=2_000_000_000, lost=None, target="all tasks",
                 records_read=None):
        self.label, self.events, self.nr_cpus = label, events, nr_cpus
        self.records, self.slots = records, slots
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

    def header(self):
        n = len(self.events)
        h = MAGIC + struct.pack("<HHIIIII", 1, 0, 0x01020304, 704 + 64 * n,
                                128, self.nr_cpus, n)
        h += struct.pack("<QQIIII", self.start_ns, 1_790_000_000_000_000_000,
                         0, 262144, self.slots, 0)
        h += (text(self.label, 64) + text("aarch64", 64)
              + text("6.1.0-test-arm64", 64) + text("gen-host", 64)
              + text("CPU implementer 0x41, CPU part 0xd49", 128)
              + text(self.target, 256))
        for i, name in enumerate(self.events):
            h += struct.pack("<IIQQQ", 8, 0, 0x11 + i, 0, 0) + text(name, 32)
        assert len(h) == 704 + 64 * n
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
