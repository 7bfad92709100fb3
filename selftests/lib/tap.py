# SPDX-License-Identifier: GPL-2.0
"""TAP output and running tdctl, for the Python host tests."""
import os
import subprocess

TOP = os.environ.get("TOP") or os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
TDCTL = os.environ.get("TDCTL") or os.path.join(TOP, "build/x86_64/tdctl")

n = 0
failed = 0


def ok(cond, name, detail=""):
    """One TAP line; the detail is shown as a comment when cond is false."""
    global n, failed
    n += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, name))
    if not cond:
        failed += 1
        for line in str(detail).splitlines()[:25]:
            print("#   " + line)
    return cond


def plan():
    """The plan line; the exit status of the test program."""
    print("1..%d" % n)
    return 1 if failed else 0


def run(*args, stdin=None, env=None, cwd=None):
    """tdctl ARGS: (exit status, stdout, stderr)."""
    p = subprocess.run([TDCTL] + list(args), capture_output=True, text=True,
                       input=stdin, env=env, cwd=cwd)
    return p.returncode, p.stdout, p.stderr
