# SPDX-License-Identifier: GPL-2.0
"""The runner of the Python host tests: TAP lines, test registration, the
scratch directory and main(); and running tdctl.

A test program registers its tests with @test, in the order they run, and
ends with main():

    from tap import main, ok, run, test

    @test
    def help_lists_commands(tmp):   # tmp: the program's scratch directory
        rc, out, err = run("help")
        ok(rc == 0 and "Commands:" in out, "help lists the commands", err)

    if __name__ == "__main__":
        main()

main() runs the tests registered by the program itself (not those of a
test module it imports for its helpers), in that order. A test's
parameters are fixtures, by name: tmp is the program's scratch directory
(made by main() and always removed when the program ends, however it
ends); any other is a function registered with @fixture under that name,
called once a program with the fixtures its own parameters name, and its
value passed to every test that names it:

    @fixture
    def n2_file(tmp):
        path = os.path.join(tmp, "n2.td")
        tdfile_gen.n2().write(path)
        return path

A test that raises is a "not ok" line with the traceback, and the next
test runs. skip_all(WHY) (or require(COND, WHY)) ends the program as
skipped: "1..0 # SKIP WHY" when nothing was checked yet;
main(setup=require_tdctl) checks what the whole program needs before its
first test. After each test a comment line gives its time ("# NAME: 1.2
s"). The plan line comes last; the exit status is 1 when a check failed.
"""
import contextlib
import inspect
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

TOP = os.environ.get("TOP") or os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
TDCTL = os.environ.get("TDCTL") or os.path.join(TOP, "build/x86_64/tdctl")

n = 0
failed = 0
_tests = {}     # module name -> its tests, in the order registered
_fixtures = {}  # name -> the function that makes it


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


def skip(name, why):
    """A check that does not apply here: an "ok N - NAME # SKIP WHY" line."""
    ok(True, "%s # SKIP %s" % (name, why))


def note(text):
    """Comment lines ("# ...")."""
    for line in str(text).splitlines():
        print("# " + line)


def plan():
    """The plan line; the exit status of the test program."""
    print("1..%d" % n)
    return 1 if failed else 0


class SkipAll(Exception):
    """Raised by skip_all(): the rest of the program does not apply here."""


def skip_all(why):
    """Skip the rest of the program (what it needs is not here)."""
    raise SkipAll(why)


def require(cond, why):
    """skip_all(why) unless cond."""
    if not cond:
        raise SkipAll(why)


def require_tdctl():
    """Skip the program when tdctl is not built."""
    require(os.access(TDCTL, os.X_OK), "%s not built (make -C user)" % TDCTL)


def test(fn):
    """Register fn as a test of its program (decorator)."""
    _tests.setdefault(fn.__module__, []).append(fn)
    return fn


def fixture(fn):
    """Register fn as the fixture named after it (decorator)."""
    _fixtures[fn.__name__] = fn
    return fn


def _call(fn, made):
    """fn(...) with the fixtures its parameters name (made: those made)."""
    args = []
    for name, p in inspect.signature(fn).parameters.items():
        if p.default is not p.empty:
            continue
        if name not in made:
            made[name] = _call(_fixtures[name], made)
        args.append(made[name])
    return fn(*args)


@contextlib.contextmanager
def tmpdir(prefix="td."):
    """A scratch directory (mode 0700), removed with what it holds when
    the block ends, however it ends."""
    d = tempfile.mkdtemp(prefix=prefix)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main(setup=None):
    """Run the program's tests, print the plan and exit (see above).
    setup: a function called first, which may skip_all() (require_tdctl)."""
    prog = os.path.basename(sys.argv[0]).removesuffix(".py")
    status = 0
    with tmpdir("td_%s." % prog.removeprefix("test_")) as tmp:
        made = {"tmp": tmp}
        for fn in ([setup] if setup else []) + _tests.get("__main__", []):
            t0 = time.monotonic()
            try:
                _call(fn, made)
            except SkipAll as e:
                if n == 0 and not failed:
                    print("1..0 # SKIP %s" % e)
                    sys.exit(0)
                skip("%s and the rest" % fn.__name__, e)
                break
            except Exception as e:  # noqa: BLE001 - reported, the next one runs
                ok(False, "%s: %s: %s" % (fn.__name__, type(e).__name__, e),
                   traceback.format_exc())
            if fn is not setup:
                print("# %s: %.1f s" % (fn.__name__, time.monotonic() - t0))
        sys.stdout.flush()
        status = plan()
    sys.exit(status)


def run(*args, stdin=None, env=None, cwd=None):
    """tdctl ARGS: (exit status, stdout, stderr)."""
    p = subprocess.run([TDCTL] + list(args), capture_output=True, text=True,
                       input=stdin, env=env, cwd=cwd)
    return p.returncode, p.stdout, p.stderr
