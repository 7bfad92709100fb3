#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests: files written for the user are never lost. -o writes a
temporary file and renames it over FILE only when the command succeeded;
-o naming the input is refused; record leaves an existing file alone when
it cannot start. TAP.
"""
import json
import os
import stat
import sys
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py here or in selftests/lib
import tdfile_gen  # noqa: E402
from tap import TDCTL, main, ok, require_tdctl, run, test  # noqa: E402


def read(path):
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def leftovers(d, keep):
    return sorted(set(os.listdir(d)) - set(keep))


def test_output_is_input(tmp):
    rec = os.path.join(tmp, "x.td")
    tdfile_gen.generic().write(rec)
    image = read(rec)
    for args in (("report", "-i", rec, "-o", rec),
                 ("report", "-i", rec, "--json", "-o", rec),
                 ("dump", "-i", rec, "-o", rec),
                 ("top", "-i", rec, "--batch", "-n", "1", "-o", rec),
                 ("timeline", "-i", rec, "-o", rec),
                 ("-o", rec, "timeline", "-i", rec)):
        tdfile_gen.generic().write(rec)
        rc, out, err = run(*args)
        ok(rc == 1 and read(rec) == image and "is the input file" in out + err,
           "'tdctl %s' is refused, the input is intact"
           % " ".join(a.replace(tmp + "/", "") for a in args),
           "rc %d, %d bytes left\n%s%s" % (rc, len(read(rec) or b""), out, err))
    # The default input (tdctl.data in the current directory).
    cwd = os.getcwd()
    os.chdir(tmp)
    try:
        tdfile_gen.generic().write("tdctl.data")
        rc, out, err = run("report", "-o", "tdctl.data")
        ok(rc == 1 and read("tdctl.data") == image and "is the input file" in err,
           "'tdctl report -o tdctl.data' (the default input) is refused", err)
        link = os.path.join(tmp, "link.td")
        os.symlink("tdctl.data", link)
        rc, out, err = run("report", "-o", link)
        ok(rc == 1 and read("tdctl.data") == image,
           "-o through a symlink to the input is refused", err)
        os.unlink(link)
    finally:
        os.chdir(cwd)
    ok(leftovers(tmp, ["x.td", "tdctl.data"]) == [],
       "no temporary file left behind", leftovers(tmp, ["x.td", "tdctl.data"]))


def test_failure_keeps_file(tmp):
    rec = os.path.join(tmp, "r.td")
    tdfile_gen.generic().write(rec)
    out_path = os.path.join(tmp, "out.txt")
    with open(out_path, "w") as fh:
        fh.write("the previous report\n")
    os.chmod(out_path, 0o640)
    missing = os.path.join(tmp, "missing.td")
    rc, out, err = run("report", "-i", missing, "-o", out_path)
    ok(rc == 1 and read(out_path) == b"the previous report\n" and
       "missing.td" in err,
       "a failing command leaves -o FILE as it was", "rc %d\n%s" % (rc, err))
    rc, out, err = run("report", "-i", missing, "-o", out_path, "--json")
    try:
        obj = json.loads(out)
    except ValueError:
        obj = None
    ok(rc == 1 and read(out_path) == b"the previous report\n" and
       obj and "missing.td" in obj.get("error", ""),
       "with --json the error still reaches stdout, FILE untouched",
       "rc %d\n%s%s" % (rc, out, err))
    rc, out, err = run("report", "-i", rec, "-o", out_path)
    data = read(out_path).decode()
    ok(rc == 0 and out == "" and data.startswith("# record file") and
       stat.S_IMODE(os.stat(out_path).st_mode) == 0o640,
       "success replaces FILE, keeping its mode", data[:100] + err)
    new = os.path.join(tmp, "new.csv")
    old_mask = os.umask(0o027)
    try:
        rc, out, err = run("report", "-i", rec, "--csv", "-o", new)
    finally:
        os.umask(old_mask)
    ok(rc == 0 and read(new).startswith(b"type,") and
       stat.S_IMODE(os.stat(new).st_mode) == 0o640,
       "a new -o FILE gets the mode the umask gives",
       oct(os.stat(new).st_mode) + err)
    target = os.path.join(tmp, "target.txt")
    link = os.path.join(tmp, "link.txt")
    with open(target, "w") as fh:
        fh.write("x")
    os.symlink("target.txt", link)
    rc, out, err = run("report", "-i", rec, "-o", link)
    ok(rc == 0 and os.path.islink(link) and
       read(target).startswith(b"# record file"),
       "-o through a symlink writes the file it names, keeps the link", err)
    rc, out, err = run("report", "-i", rec, "-o", "/dev/null")
    ok(rc == 0 and stat.S_ISCHR(os.stat("/dev/null").st_mode),
       "-o /dev/null is written in place, not replaced", err)
    rc, out, err = run("report", "-i", rec, "-o", os.path.join(tmp, "no/dir/x"))
    ok(rc == 1 and "cannot write" in err, "-o in a missing directory: error", err)
    ok(leftovers(tmp, ["r.td", "out.txt", "new.csv", "target.txt",
                       "link.txt"]) == [],
       "no temporary file left behind",
       leftovers(tmp, ["r.td", "out.txt", "new.csv", "target.txt", "link.txt"]))


def as_nobody():
    """For subprocess: run as user and group 65534 (only root can)."""
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def test_output_target(tmp):
    """-o follows a dangling symlink, keeps the owner and group of the
    file it replaces (or refuses), takes - as stdout in every command, and
    says when the temporary file cannot be created beside FILE."""
    rec = os.path.join(tmp, "r.td")
    tdfile_gen.generic().write(rec)
    os.chmod(rec, 0o644)
    want = run("report", "-i", rec)[1]
    sub = os.path.join(tmp, "sub")
    os.mkdir(sub)
    link = os.path.join(tmp, "dangling")
    os.symlink("sub/../sub/new.txt", link)
    rc, out, err = run("report", "-i", rec, "-o", link)
    ok(rc == 0 and os.path.islink(link) and
       os.readlink(link) == "sub/../sub/new.txt" and
       read(os.path.join(sub, "new.txt")) == want.encode(),
       "-o to a dangling symlink writes the file it names, keeps the link",
       "rc %d %s %s\n%s" % (rc, os.listdir(tmp), os.listdir(sub), err))
    chain = os.path.join(tmp, "chain")
    if not os.path.islink(link):
        os.unlink(link)
        os.symlink("sub/../sub/new.txt", link)
    os.symlink("dangling", chain)
    if os.path.exists(os.path.join(sub, "new.txt")):
        os.unlink(os.path.join(sub, "new.txt"))
    rc, out, err = run("-o", chain, "report", "-i", rec)
    ok(rc == 0 and os.path.islink(chain) and os.path.islink(link) and
       read(os.path.join(sub, "new.txt")) == want.encode(),
       "-o to a chain of links ending dangling writes its last target", err)
    for cmd in (["report", "-i", rec], ["timeline", "-i", rec],
                ["dump", "-i", rec, "--csv"],
                ["top", "-i", rec, "--batch", "-n", "1"]):
        for line in (cmd + ["-o", "-"], ["-o", "-"] + cmd):
            rc, out, err = run(*line, cwd=tmp)
            ok(rc == 0 and len(out) > 100 and not os.path.exists(
                os.path.join(tmp, "-")),
               "'tdctl %s' writes to stdout, creates no file '-'"
               % " ".join(line).replace(tmp + "/", ""),
               "rc %d, %d bytes\n%s" % (rc, len(out), err))
            if os.path.exists(os.path.join(tmp, "-")):
                os.unlink(os.path.join(tmp, "-"))
    # A name one can create, whose temporary name (.XXXXXX) is too long.
    long_name = os.path.join(tmp, "l" * 250)
    with open(long_name, "w") as fh:
        fh.write("old\n")
    rc, out, err = run("report", "-i", rec, "-o", long_name)
    ok(rc == 1 and read(long_name) == b"old\n" and
       "cannot create a temporary file beside it in %s" % tmp in err and
       "File name too long" in err,
       "no temporary file beside -o FILE: says so, FILE left as it was", err)
    os.unlink(long_name)
    if os.geteuid() != 0:
        ok(True, "# SKIP owner and group: needs root")
        ok(True, "# SKIP owner and group: needs root")
        return
    other = os.path.join(tmp, "other.txt")
    with open(other, "w") as fh:
        fh.write("old\n")
    os.chown(other, 65534, 65534)
    os.chmod(other, 0o640)
    rc, out, err = run("report", "-i", rec, "-o", other)
    st = os.stat(other)
    ok(rc == 0 and read(other) == want.encode() and
       (st.st_uid, st.st_gid) == (65534, 65534) and
       stat.S_IMODE(st.st_mode) == 0o640,
       "-o FILE of another user: replaced, owner, group and mode kept",
       "rc %d uid %d gid %d mode %o\n%s"
       % (rc, st.st_uid, st.st_gid, st.st_mode, err))
    # User 65534 may write root's file (mode 666) in its own directory,
    # but cannot give the new file root's ownership: refused, said so.
    for d in (os.path.dirname(tmp), tmp):     # mkdtemp()'s is 0700
        os.chmod(d, 0o755)
    mine = os.path.join(tmp, "nobody")
    os.mkdir(mine)
    os.chown(mine, 65534, 65534)
    roots = os.path.join(mine, "root.txt")
    with open(roots, "w") as fh:
        fh.write("old\n")
    os.chmod(roots, 0o666)
    p = subprocess.run([TDCTL, "report", "-i", rec, "-o", roots],
                       capture_output=True, text=True,
                       preexec_fn=as_nobody)
    st = os.stat(roots)
    ok(p.returncode == 1 and read(roots) == b"old\n" and st.st_uid == 0 and
       "cannot keep its owner and group (uid 0, gid 0)" in p.stderr and
       os.listdir(mine) == ["root.txt"],
       "-o FILE whose owner cannot be kept: refused, said so, FILE intact",
       "rc %d %s\n%s" % (p.returncode, os.listdir(mine), p.stderr))


def test_record_keeps_file(tmp):
    """Without the module (the host has none) record cannot start: the
    existing record file stays where it is, untouched, and no .old."""
    if os.path.exists("/dev/topdown"):
        ok(True, "# SKIP the module is loaded here")
        return
    d = os.path.join(tmp, "rec")
    os.mkdir(d)
    cwd = os.getcwd()
    os.chdir(d)
    try:
        tdfile_gen.generic().write("tdctl.data")
        image = read("tdctl.data")
        rc, out, err = run("record", "--", "true")
        ok(rc == 1 and "not loaded" in err and read("tdctl.data") == image and
           os.listdir(".") == ["tdctl.data"],
           "record without the module leaves tdctl.data untouched",
           "%s %s" % (os.listdir("."), err))
        rc, out, err = run("record", "-o", "x.td", "-a", "--duration", "1")
        ok(rc == 1 and os.listdir(".") == ["tdctl.data"],
           "record -o FILE that cannot start creates nothing", os.listdir("."))
    finally:
        os.chdir(cwd)


def test_force(tmp):
    """report/dump --force read an interrupted recording up to its last
    good record and say how much was not read."""
    sc = tdfile_gen.generic()
    head, body = sc.header(), sc.body()
    n = len(sc.records)
    k = n // 2
    bad = tdfile_gen.Rec(cpu=9, pid=1, tgid=1, comm="x",
                         time_ns=tdfile_gen.START_NS + 1, duration_ns=1,
                         deltas=[1, 1], seq=1).pack()
    cases = (("no trailer", head + body, n, 0),
             ("cut in a record", head + body[:128 * k + 50], k, 50),
             ("a bad record after k", head + body[:128 * k] + bad, k, 128),
             ("cut in the trailer", sc.image()[:-5], n,
              len(sc.trailer_without_crc()) + 3))
    path = os.path.join(tmp, "cut.td")
    for what, data, good, unread in cases:
        with open(path, "wb") as fh:
            fh.write(data)
        rc, out, err = run("report", "-i", path)
        ok(rc == 1 and "no trailer" in err and "--force reads it" in err,
           "%s: refused without --force, with the hint" % what, err)
        rc, out, err = run("report", "-i", path, "--force", "--json")
        try:
            total = json.loads(out)["total"]
        except (ValueError, KeyError):
            total = {}
        _, want = sc.sums("process", keep=lambda r: r in sc.records[:good])
        ok(rc == 0 and total.get("slices") == good == want["slices"] and
           total.get("runtime_ns") == want["runtime_ns"] and
           ("read %d records; %d bytes after them not read" % (good, unread))
           in err,
           "%s: report --force sums the %d good records, %d bytes not read"
           % (what, good, unread), "rc %d\n%s\n%s" % (rc, out[:300], err))
        rc, out, err = run("dump", "-i", path, "--force", "--csv")
        ok(rc == 0 and len(out.splitlines()) == good + 1 and
           "interrupted" in err,
           "%s: dump -i --force prints the %d good slices" % (what, good),
           "rc %d\n%s" % (rc, err))
        # Every command that offers --force has it.
        for cmd in ("top", "timeline"):
            line = [cmd, "-i", path] + (["--batch", "-n", "1"]
                                        if cmd == "top" else [])
            rc, out, err = run(*line)
            ok(rc == 1 and "--force reads it" in err,
               "%s: %s refuses it without --force, with the hint"
               % (what, cmd), err)
            rc, out, err = run(*(line + ["--force"]))
            read_n = "read %d records; %d bytes after them not read" % (
                good, unread)
            ok(rc == 0 and read_n in err and out and
               (cmd == "top" or "%d slices," % good in err),
               "%s: %s --force reads the %d good records" % (what, cmd, good),
               "rc %d\n%s" % (rc, err))
    with open(path, "wb") as fh:
        fh.write(head[:100])
    rc, out, err = run("report", "-i", path, "--force")
    ok(rc == 1 and "offset" in err, "--force does not read a cut header", err)
    with open(path, "wb") as fh:
        img = bytearray(sc.image())
        img[len(head) + 40] ^= 1        # a count: only the checksum sees it
        fh.write(img)
    rc, out, err = run("report", "-i", path, "--force")
    ok(rc == 1 and "checksum" in err,
       "--force does not read a corrupt file that has its trailer", err)
    rc, out, err = run("dump", "--force")
    ok(rc == 2 and "--force reads a record file" in err,
       "dump --force without -i is a usage error", err)
    rc, out, err = run("top", "--force", "--batch", "-n", "1")
    ok(rc == 2 and "--force reads a record file" in err,
       "top --force without -i is a usage error", err)
    rc, out, err = run("timeline", "--force", "--duration", "1")
    ok(rc == 2 and "--force reads a record file" in err,
       "timeline --force --duration is a usage error", err)


@test
def files(tmp):
    test_output_is_input(os.path.join(tmp))
    t2 = os.path.join(tmp, "fail")
    os.mkdir(t2)
    test_failure_keeps_file(t2)
    t3 = os.path.join(tmp, "target")
    os.mkdir(t3)
    test_output_target(t3)
    test_record_keeps_file(tmp)
    test_force(tmp)


if __name__ == "__main__":
    main(setup=require_tdctl)
