#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The reader benchmark on record files: tdctl dump -i and report -i.

    rdfile.py --tdctl TDCTL --rdbench RDBENCH --fixtures DIR --work DIR
              --out JSONL [--records N] [--cpus C] [--ncg N] [--repeat K]
              [--sets FIXTURE=NAME ...]

For each event set (a fixture of selftests/host's mkfixture, the set that
`tdctl load` picks there), rdbench --write makes a record file of N
synthetic records on C CPUs (in the order tdctl record stores them), and
two small ones of NCG and 2*NCG records. Then for every command:

  records/s    N / CPU time (user + system) of `tdctl ... -i FILE`, output
               to /dev/null, best of K runs: the whole command (load,
               checks, checksum, order, decode, format); one host core
  insn/record  instructions of the 2*NCG run minus those of the NCG run,
               divided by NCG, from valgrind --tool=callgrind: the
               repeatable figure (start-up and the fixed costs cancel)

And tdctl stat -a --by task|process|comm|cpu and tdctl serve --by
cgroup|process|comm (for one second, nobody scraping) on the same records
live:
rdbench --live serves them from fake rings during stat's first wait
(rdbench.c), records/s over the CPU time of stat itself (not of filling
the rings), instructions per record from callgrind as above, counted in
tdctl's main() only.

And tdctl stat -a refreshing from the module's totals (load --totals) of
--totals-tasks tasks (default 10,000) that all run between two reads:
rdbench --totals serves TOPDOWN_IOC_TOTALS, doing per entry what the
module does (read it, copy it out). ms/refresh is the CPU time of the
whole run (start, every read, the end's table; the fake device's work
included, standing for the module's) over the reads of the totals, best
of K; the device's share is given too.

One JSON object per measurement goes to JSONL.
"""
import argparse
import atexit
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time

COMMANDS = [
    # (command, format, tdctl arguments before -i, after, target records/s)
    ("dump", "plain", ["dump"], [], 2e6),
    ("dump", "csv", ["--csv", "dump"], [], None),
    ("dump", "json", ["-j", "dump"], [], None),
    ("report", "task", ["report"], ["--by", "task"], 10e6),
    ("report", "process", ["report"], ["--by", "process"], 10e6),
    ("report", "comm", ["report"], ["--by", "comm"], 10e6),
    ("report", "cpu", ["report"], ["--by", "cpu"], 10e6),
    ("timeline", "chrome", ["timeline"], [], None),
]


def run_cpu(argv):
    """CPU and wall seconds of one run, output to /dev/null."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.monotonic()
    with open(os.devnull, "w") as null:
        subprocess.run(argv, stdout=null, stderr=subprocess.DEVNULL,
                       check=True)
    wall = time.monotonic() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


# tdctl serve, run as root, becomes an unprivileged user (tdctl-serve or
# nobody) once its rings are open, and callgrind writes its output file
# when the program ends, as that user: the file is made beforehand,
# writable by anyone, in a directory anyone may enter (in /tmp: the work
# directory's parents may be closed to others), then moved to its place.
CG_DIR = None


def callgrind_ir(argv, out, opts=()):
    global CG_DIR
    if CG_DIR is None:
        CG_DIR = tempfile.mkdtemp(prefix="td-callgrind.")
        atexit.register(shutil.rmtree, CG_DIR, ignore_errors=True)
        os.chmod(CG_DIR, 0o711)
    tmp = os.path.join(CG_DIR, "callgrind.out")
    with open(tmp, "w"):
        pass
    os.chmod(tmp, 0o666)
    with open(os.devnull, "w") as null:
        subprocess.run(["valgrind", "--tool=callgrind", "--vgdb=no",
                        f"--callgrind-out-file={tmp}", *opts] + argv,
                       stdout=null, stderr=subprocess.DEVNULL, check=True)
    shutil.move(tmp, out)
    with open(out) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError(f"no instruction total in {out}")


def rdbench_stat(a, fixture, n, by, repeat):
    """Best CPU seconds of stat -a over n live records."""
    p = subprocess.run([a.rdbench, "--live", "--fixture",
                        os.path.join(a.fixtures, fixture), "-n", str(n),
                        "--cpus", str(a.cpus), "--repeat", str(repeat), "--",
                        "stat", "-a", "--by", by, "--duration", "1"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, check=True)
    runs = [json.loads(ln) for ln in p.stderr.splitlines() if ln.startswith("{")]
    return min(runs, key=lambda r: r["cpu_s"])


def rdbench_totals(a, fixture, tasks, repeat):
    """Best run of stat -a on the totals of `tasks` tasks: CPU per read."""
    p = subprocess.run([a.rdbench, "--live", "--fixture",
                        os.path.join(a.fixtures, fixture), "-n", "1000",
                        "--cpus", str(a.cpus), "--totals", str(tasks),
                        "--repeat", str(repeat), "--",
                        "stat", "-a", "--duration", "1"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, check=True)
    runs = [json.loads(ln) for ln in p.stderr.splitlines() if ln.startswith("{")]
    best = min(runs, key=lambda r: r["cpu_s"] / max(r["totals_reads"], 1))
    if not best["totals_reads"]:
        raise RuntimeError("stat -a did not read the totals")
    return best


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def serve_argv(a, fixture, n, by):
    """tdctl serve for 1 s, the records all in the rings at its first
    wait (--rate far above what it reads), nobody scraping."""
    return [a.rdbench, "--live", "--rate", "1e15", "--fixture",
            os.path.join(a.fixtures, fixture), "-n", str(n), "--cpus",
            str(a.cpus), "--", "serve", "--listen", "127.0.0.1:%d" % free_port(),
            "--by", by, "--duration", "1"]


def rdbench_serve(a, fixture, n, by, repeat):
    """Best CPU seconds of serve over n live records."""
    runs = []
    for _ in range(repeat):
        p = subprocess.run(serve_argv(a, fixture, n, by), stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, check=True)
        runs += [json.loads(ln) for ln in p.stderr.splitlines() if ln.startswith("{")]
    return min(runs, key=lambda r: r["cpu_s"])


def stat_ir(a, fixture, n, by, out):
    """Instructions of stat -a over n live records, in tdctl's main()."""
    return callgrind_ir([a.rdbench, "--live", "--fixture",
                         os.path.join(a.fixtures, fixture), "-n", str(n),
                         "--cpus", str(a.cpus), "--", "stat", "-a", "--by", by,
                         "--duration", "1"],
                        out, ["--toggle-collect=tdctl_main"])


def make_file(a, fixture, n, path):
    if not os.path.exists(path):
        subprocess.run([a.rdbench, "--fixture", os.path.join(a.fixtures, fixture),
                        "-n", str(n), "--cpus", str(a.cpus), "--write", path],
                       check=True)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tdctl", required=True)
    ap.add_argument("--rdbench", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--records", type=int, default=4000000)
    ap.add_argument("--cpus", type=int, default=8)
    ap.add_argument("--ncg", type=int, default=50000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--totals-tasks", type=int, default=10000)
    ap.add_argument("--sets", nargs="*",
                    default=["qemu_arm64_max", "sapphire_rapids"])
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    with open(a.out, "a") as out:
        for fx in a.sets:
            big = make_file(a, fx, a.records,
                            os.path.join(a.work, f"{fx}-{a.records}.td"))
            small = [make_file(a, fx, n, os.path.join(a.work, f"{fx}-{n}.td"))
                     for n in (a.ncg, 2 * a.ncg)]
            # The set's name and events, as the file says.
            meta = json.loads(subprocess.run(
                [a.tdctl, "-j", "report", "-i", small[0]], check=True,
                capture_output=True, text=True).stdout)
            for cmd, fmt, pre, post, target in COMMANDS:
                best = None
                for _ in range(a.repeat):
                    cpu, wall = run_cpu([a.tdctl] + pre + ["-i", big] + post)
                    if best is None or cpu < best[0]:
                        best = (cpu, wall)
                ir = [callgrind_ir([a.tdctl] + pre + ["-i", f] + post,
                                   f"{f}.{cmd}-{fmt}.callgrind") for f in small]
                r = {
                    "command": cmd, "format": fmt, "set": meta["set"],
                    "events": len(meta["events"]), "cpus": a.cpus,
                    "records": a.records, "file_bytes": os.path.getsize(big),
                    "cpu_s": round(best[0], 4), "wall_s": round(best[1], 4),
                    "records_per_s": round(a.records / best[0]),
                    "insn_per_record": round((ir[1] - ir[0]) / a.ncg, 1),
                    "target": target,
                }
                print(json.dumps(r), file=out, flush=True)
                print(f"rdfile: {cmd} {fmt} {r['set']}: {r['records_per_s']:,} records/s, "
                      f"{r['insn_per_record']} insn/record", file=sys.stderr)
            for by in ("task", "process", "comm", "cpu"):
                best = rdbench_stat(a, fx, a.records, by, a.repeat)
                ir = [stat_ir(a, fx, n, by, os.path.join(
                    a.work, f"{fx}-{n}.stat-{by}.callgrind"))
                    for n in (a.ncg, 2 * a.ncg)]
                r = {
                    "command": "stat", "format": by, "set": meta["set"],
                    "events": len(meta["events"]), "cpus": a.cpus,
                    "records": best["records"], "file_bytes": os.path.getsize(big),
                    "cpu_s": round(best["cpu_s"], 4),
                    "wall_s": round(best["wall_s"], 4),
                    "records_per_s": round(best["records"] / best["cpu_s"]),
                    "insn_per_record": round((ir[1] - ir[0]) / a.ncg, 1),
                    "target": 10e6, "live": True,
                }
                print(json.dumps(r), file=out, flush=True)
                print(f"rdfile: stat {by} {r['set']}: {r['records_per_s']:,} records/s, "
                      f"{r['insn_per_record']} insn/record", file=sys.stderr)
            for by in ("cgroup", "process", "comm"):
                best = rdbench_serve(a, fx, a.records, by, a.repeat)
                ir = [callgrind_ir(serve_argv(a, fx, n, by), os.path.join(
                    a.work, f"{fx}-{n}.serve-{by}.callgrind"),
                    ["--toggle-collect=tdctl_main"]) for n in (a.ncg, 2 * a.ncg)]
                r = {
                    "command": "serve", "format": by, "set": meta["set"],
                    "events": len(meta["events"]), "cpus": a.cpus,
                    "records": best["records"], "file_bytes": os.path.getsize(big),
                    "cpu_s": round(best["cpu_s"], 4),
                    "wall_s": round(best["wall_s"], 4),
                    "records_per_s": round(best["records"] / best["cpu_s"]),
                    "insn_per_record": round((ir[1] - ir[0]) / a.ncg, 1),
                    "target": None, "live": True,
                }
                print(json.dumps(r), file=out, flush=True)
                print(f"rdfile: serve {by} {r['set']}: {r['records_per_s']:,} records/s, "
                      f"{r['insn_per_record']} insn/record", file=sys.stderr)
            best = rdbench_totals(a, fx, a.totals_tasks, a.repeat)
            reads = best["totals_reads"]
            r = {
                "command": "stat", "format": "totals", "set": meta["set"],
                "events": len(meta["events"]), "cpus": a.cpus,
                "tasks": a.totals_tasks, "refreshes": reads,
                "cpu_s": round(best["cpu_s"], 4),
                "ms_per_refresh": round(best["cpu_s"] * 1e3 / reads, 3),
                "device_ms_per_refresh":
                    round(best["totals_device_cpu_s"] * 1e3 / reads, 3),
                "target_ms": 10, "live": True,
            }
            print(json.dumps(r), file=out, flush=True)
            print(f"rdfile: stat -a on the totals of {a.totals_tasks:,} tasks "
                  f"{r['set']}: {r['ms_per_refresh']} ms of CPU a refresh "
                  f"({r['device_ms_per_refresh']} ms the device's)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
