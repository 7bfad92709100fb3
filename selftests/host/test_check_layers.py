#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/check_layers.py (make lint's layers) on a copy of the tree:
the tree passes; an ioctl() of the module or a TOPDOWN_IOC_ request
outside user/live/ fails, with its file and line, however the call is
written; a terminal's ioctl (TIOC...), one in live/, and one in a
comment or a string pass; an #include of a layer above still fails; a
file of user/ longer than 1,000 lines fails, with its length, one of
1,000 lines passes.
TAP.
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
from tap import TOP, main, ok, test  # noqa: E402

CASES = [
    # (name, file under user/, its text, the violation expected or None)
    ("a module ioctl in cmd/ fails", "cmd/zz_case.c",
     "int f(int fd)\n{\n\treturn ioctl(fd, TOPDOWN_IOC_STOP);\n}\n",
     "user/cmd/zz_case.c:3: ioctl(TOPDOWN_IOC_STOP) outside live/"),
    ("an ioctl over lines, its request in a variable, fails", "cli/zz_case.c",
     "int f(int fd, unsigned long req, void *p)\n{\n\treturn ioctl(fd,\n"
     "\t\t     req, p);\n}\n",
     "user/cli/zz_case.c:3: ioctl(req) outside live/"),
    ("an ioctl in a lower layer's header fails", "base/zz_case.h",
     "static inline int f(int fd)\n{\n\treturn ioctl (fd, 0x1234);\n}\n",
     "user/base/zz_case.h:3: ioctl(0x1234) outside live/"),
    ("a TOPDOWN_IOC_ request named outside live/ fails", "cmd/zz_case.c",
     "static const unsigned long req = TOPDOWN_IOC_START;\n",
     "user/cmd/zz_case.c:1: TOPDOWN_IOC_START outside live/"),
    ("a terminal's ioctl outside live/ passes", "output/zz_case.c",
     "int f(struct winsize *ws)\n{\n\treturn ioctl(1, TIOCGWINSZ, ws);\n}\n",
     None),
    ("a module ioctl in live/ passes", "live/zz_case.c",
     "int f(int fd)\n{\n\treturn ioctl(fd, TOPDOWN_IOC_START);\n}\n", None),
    ("ioctl() in comments and strings passes", "cmd/zz_case.c",
     "/* ioctl(fd, TOPDOWN_IOC_STOP) */\n// ioctl(fd, x)\n"
     "static const char *s = \"ioctl(fd, TOPDOWN_IOC_STOP)\";\n"
     "static const char c = '(';\n", None),
    ("a lower layer including a higher one still fails", "base/zz_case.c",
     '#include "cmd/tdctl.h"\n',
     'user/base/zz_case.c:1: base/ includes "cmd/tdctl.h", a layer above it'),
    ("a file of 1,001 lines fails", "output/zz_case.c", "/* a line */\n" * 1001,
     "user/output/zz_case.c: 1001 lines, more than 1000"),
    ("a header of 1,001 lines, its last without a newline, fails", "live/bpf/zz_case.h",
     "/* a line */\n" * 1000 + "/* one more */",
     "user/live/bpf/zz_case.h: 1001 lines, more than 1000"),
    ("a file of 1,000 lines passes", "cmd/zz_case.c", "/* a line */\n" * 1000, None),
]


def copy_tree(dst):
    """What check_layers.py reads: itself, user/ and design.rst."""
    os.makedirs(os.path.join(dst, "scripts"))
    os.makedirs(os.path.join(dst, "Documentation"))
    shutil.copy(os.path.join(TOP, "scripts", "check_layers.py"),
                os.path.join(dst, "scripts"))
    shutil.copy(os.path.join(TOP, "Documentation", "design.rst"),
                os.path.join(dst, "Documentation"))
    shutil.copytree(os.path.join(TOP, "user"), os.path.join(dst, "user"),
                    ignore=shutil.ignore_patterns("*.o", "*.d"))


def check(root):
    p = subprocess.run([sys.executable, os.path.join(root, "scripts", "check_layers.py")],
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


@test
def check_layers(tmp):
    copy_tree(tmp)
    rc, out = check(tmp)
    ok(rc == 0, "the tree passes", out)
    for name, rel, text, want in CASES:
        path = os.path.join(tmp, "user", rel)
        with open(path, "w") as fh:
            fh.write(text)
        rc, out = check(tmp)
        os.unlink(path)
        if want is None:
            ok(rc == 0, name, out)
        else:
            lines = out.splitlines()
            ok(rc == 1 and any(line.startswith(want) for line in lines)
               and "1 violation(s)" in lines[-1], name, out)


if __name__ == "__main__":
    main()
