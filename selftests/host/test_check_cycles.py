#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/check_cycles.py (make lint's layers) on objects compiled
here: tdctl's own objects (TDCTL's, which make test builds) pass; two
files of one folder that call each other fail, named with the symbols
of each edge, and so do three in a ring; a call one way, one into
another folder, and a file calling itself pass; a folder without
objects is an error. TAP.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
from tap import TDCTL, TOP, main, ok, test, tmpdir  # noqa: E402

CHECK = os.path.join(TOP, "scripts", "check_cycles.py")

CASES = [
    # (name, {path: source}, lines expected in the output (None: passes))
    ("two files calling each other fail",
     {"evset/a.c": "int b(void);\nint a(void) { return b(); }\n",
      "evset/b.c": "int a(void);\nint b(void) { return a() + 1; }\n"},
     ["user/evset/: a call cycle between a.c, b.c",
      "    a.c -> b.c: b", "    b.c -> a.c: a"]),
    ("three in a ring fail, data as well as functions",
     {"agg/a.c": "extern int bv;\nint a(void) { return bv; }\n",
      "agg/b.c": "int c(void);\nint bv = 1;\nint b(void) { return c(); }\n",
      "agg/c.c": "int a(void);\nint c(void) { return a(); }\n"},
     ["user/agg/: a call cycle between a.c, b.c, c.c"]),
    ("calls one way pass",
     {"base/a.c": "int b(void);\nint a(void) { return b(); }\n",
      "base/b.c": "int c(void);\nint b(void) { return c(); }\n",
      "base/c.c": "int c(void) { return 0; }\n"}, None),
    ("calls across folders pass",
     {"cli/a.c": "int b(void);\nint a(void) { return b(); }\n",
      "cmd/b.c": "int a(void);\nint b(void) { return a(); }\n"}, None),
    ("a file calling its own functions passes",
     {"file/a.c": "int a2(void);\nint a(void) { return a2(); }\n"
      "int a2(void) { return a(); }\n"}, None),
]


def build(root, files):
    for path, text in files.items():
        src = os.path.join(root, "src", path)
        obj = os.path.join(root, "obj", path[:-2] + ".o")
        os.makedirs(os.path.dirname(src), exist_ok=True)
        os.makedirs(os.path.dirname(obj), exist_ok=True)
        with open(src, "w") as fh:
            fh.write(text)
        subprocess.run(["cc", "-c", "-o", obj, src], check=True)
    return os.path.join(root, "obj")


def run(objdir):
    p = subprocess.run([sys.executable, CHECK, objdir],
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


@test
def check_cycles():
    tdctl = os.path.join(os.path.dirname(TDCTL), "obj")
    rc, out = run(tdctl)
    ok(rc == 0 and "0 cycle(s)" in out, "tdctl's objects: no cycle (%s)" % tdctl,
       out.strip())
    for name, files, want in CASES:
        with tmpdir() as tmp:
            rc, out = run(build(tmp, files))
        lines = out.splitlines()
        if want is None:
            ok(rc == 0 and "0 cycle(s)" in out, name, out.strip())
        else:
            ok(rc == 1 and all(w in lines for w in want), name, out.strip())
    with tmpdir() as tmp:
        rc, out = run(tmp)
    ok(rc == 2 and "no objects" in out, "no objects: an error, exit 2", out.strip())


if __name__ == "__main__":
    main()
