#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""-o FILE of every command goes through the one output helper: a device
or a FIFO is written in place, never replaced by a regular file. Every
command that takes -o (all of them: the global -o, and record's and
timeline's own) runs against a character device node and a FIFO of this
test's own, made with mknod and mkfifo in a temporary directory (never
the system's /dev/null). TAP."""
import json
import os
import stat
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import tdfile_gen  # noqa: E402
from tap import main, ok, require_tdctl, run, skip_all, test  # noqa: E402


def command_lines(rec):
    """Each command with arguments that let it run as far as it can
    without the module (those that need it fail, exit 1)."""
    return {
        "load": ["load"],
        "unload": ["unload"],
        "status": ["status"],
        "dump": ["dump", "-i", rec],
        "stat": ["stat", "--duration", "0.1"],
        "top": ["top", "-i", rec, "--batch", "-n", "1"],
        "record": ["record", "--duration", "0.1"],
        "report": ["report", "-i", rec],
        "timeline": ["timeline", "-i", rec],
        "serve": ["serve", "--duration", "0.1", "--listen",
                  "127.0.0.1:%d" % (20000 + os.getpid() % 20000)],
        "list": ["list"],
        "decode": ["decode", "--set", "generic", "cycles=10",
                   "instructions=5"],
        "version": ["version"],
        "help": ["help"],
    }


def fifo_reader(path, box):
    with open(path, "rb") as fh:
        box.append(fh.read())


def run_to_fifo(line, fifo):
    box = []
    t = threading.Thread(target=fifo_reader, args=(fifo, box))
    t.start()
    rc, out, err = run(*line)
    # If tdctl never opened it (it failed first), or opened and closed it
    # before the reader came, let the reader go.
    for _ in range(100):
        if not t.is_alive():
            break
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:         # ENXIO: the reader is not there yet
            pass
        t.join(0.1)
    return rc, err, box[0] if box else b""


@test
def output_files(tmp):
    rec = os.path.join(tmp, "g.td")
    tdfile_gen.generic().write(rec)
    dev = os.path.join(tmp, "null")
    fifo = os.path.join(tmp, "fifo")
    try:
        # The numbers of /dev/null (1, 3): writes vanish, the node stays.
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        with open(dev, "w") as fh:
            fh.write("x")
    except OSError as e:
        skip_all("cannot make a character device node here: %s" % e)
    os.mkfifo(fifo)
    rdev = os.stat(dev).st_rdev
    _, out, _ = run("help", "--json")
    cmds = [c["command"] for c in json.loads(out)["commands"]]
    lines = command_lines(rec)
    ok(sorted(cmds) == sorted(lines),
       "every command is tried (%d)" % len(cmds), "%s\n%s" % (cmds, sorted(lines)))
    for cmd in cmds:
        line = lines.get(cmd, [cmd])
        rc, _, err = run(*(line + ["-o", dev]))
        st = os.stat(dev)
        ok(stat.S_ISCHR(st.st_mode) and st.st_rdev == rdev and rc in (0, 1, 3) and
           sorted(os.listdir(tmp)) == ["fifo", "g.td", "null"],
           "%s -o CHARDEV: exit %d, the node is still the device, no file left"
           % (cmd, rc), "%s\n%s" % (oct(st.st_mode), err))
        rc, err, data = run_to_fifo(line + ["-o", fifo], fifo)
        st = os.stat(fifo)
        # serve's output is HTTP: nothing on stdout.
        wrote = rc != 0 or len(data) > 0 or cmd == "serve"
        ok(stat.S_ISFIFO(st.st_mode) and rc in (0, 1, 3) and wrote and
           sorted(os.listdir(tmp)) == ["fifo", "g.td", "null"],
           "%s -o FIFO: exit %d, %d bytes through the FIFO, still a FIFO"
           % (cmd, rc, len(data)), "%s\n%s" % (oct(st.st_mode), err))
    # A regular file still goes through a temporary file: a failing
    # command leaves the old content.
    reg = os.path.join(tmp, "keep.json")
    with open(reg, "w") as fh:
        fh.write("old\n")
    rc, _, _ = run("report", "-i", os.path.join(tmp, "missing.td"), "-o", reg)
    with open(reg) as fh:
        ok(rc == 1 and fh.read() == "old\n",
           "a failed command leaves a regular -o FILE as it was")
    rc, _, _ = run("timeline", "-i", rec, "-o", reg)
    with open(reg) as fh:
        ok(rc == 0 and fh.read().startswith('{"displayTimeUnit"'),
           "timeline -o FILE replaces a regular file when complete")


if __name__ == "__main__":
    main(setup=require_tdctl)
