#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of tdctl's command line: prefix matching, help, errors, the
output options anywhere; that bash completion, the man pages and every
command's --help name the same commands and options; the bash completion
script itself; and `tdctl top` on a pseudo-terminal (ANSI drawing, keys,
terminal restored, serial-console size fallback). TAP.
"""
import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
import tdfile_gen  # noqa: E402
from tap import TDCTL, TOP, main, ok, require_tdctl, run, test  # noqa: E402

MANDIR = os.path.join(TOP, "Documentation/man")
OUTPUT_OPTS = {"json", "pretty", "csv", "output"}


# ---- the three descriptions of the grammar --------------------------------


def help_commands():
    _, out, _ = run("help")
    block = out.split("Commands:")[1].split("\n\n")[0]
    return {ln.split()[1] for ln in block.splitlines() if ln.strip()}


def completion_commands():
    _, out, _ = run("__complete", "")
    return set(out.split())


def man_commands():
    files = {f[len("tdctl-"):-len(".rst")] for f in os.listdir(MANDIR)
             if f.startswith("tdctl-") and f.endswith(".rst")}
    with open(os.path.join(MANDIR, "tdctl.rst")) as fh:
        text = fh.read()
    section = text.split("\nCOMMANDS\n")[1].split("\nOPTIONS\n")[0]
    listed = set(re.findall(r"^\*\*([a-z_]+)\*\*", section, re.M))
    return files, listed


# Option names: words and dashes, and dots between them (serve's
# --web.config.file, as exporter-toolkit names it).
LONG_OPT = re.compile(r"^\s*(?:-\w,\s+)?--([a-z][\w-]*(?:\.[\w-]+)*)")


def help_options(cmd):
    rc, out, err = run(cmd, "--help")
    opts = set()
    for ln in out.splitlines():
        m = LONG_OPT.match(ln)
        if m and ln.startswith(" "):
            opts.add(m.group(1))
    return opts


def completion_options(cmd):
    _, out, _ = run("__complete", cmd, "--")
    return {w[2:] for w in out.split() if w.startswith("--")}


def man_options(cmd):
    with open(os.path.join(MANDIR, "tdctl-%s.rst" % cmd)) as fh:
        text = fh.read()
    opts = set()
    for section in ("\nOPTIONS\n", "\nOUTPUT OPTIONS\n"):
        if section not in text:
            continue
        body = text.split(section)[1].split("\n\n\n")[0]
        body = re.split(r"\n[A-Z ]+\n=+\n", body)[0]
        for ln in body.splitlines():
            m = re.match(r"^(?:-\w, )?--([a-z][\w-]*(?:\.[\w-]+)*)", ln)
            if m:
                opts.add(m.group(1))
    return opts


@test
def test_grammar():
    cmds_help = help_commands()
    cmds_comp = completion_commands()
    files, listed = man_commands()
    ok(cmds_help == cmds_comp == files == listed and "stat" in cmds_help,
       "help, completion and the man pages name the same commands (%d)"
       % len(cmds_help),
       "help %s\ncompletion %s\nman files %s\ntdctl.rst %s" % (
           sorted(cmds_help), sorted(cmds_comp), sorted(files), sorted(listed)))
    for cmd in sorted(cmds_help):
        # record's and timeline's --output are their own: the files.
        strip = OUTPUT_OPTS - ({"output"} if cmd == "record" else set())
        h = help_options(cmd) - strip - {"help"}
        c = completion_options(cmd)
        m = man_options(cmd)
        own = c - strip - {"help"}
        # The output options too: those of the command's table (every
        # command takes --csv, but for timeline and serve, which say why
        # not), and its --help, completion and man page all say so.
        out_opts = help_options(cmd) & strip
        _, o, _ = run("help", cmd, "--json")
        table = {x["option"][2:] for x in json.loads(o)["options"]
                 if x["kind"] == "output"}
        ok(h == own == (m - strip - {"help"}) and
           c & strip == m & strip == out_opts == table and
           ("csv" in out_opts) == (cmd not in ("timeline", "serve")) and
           "help" in c and "help" in m,
           "%s: --help, completion and man page name the same options (%s)"
           % (cmd, " ".join(sorted(own)) or "none"),
           "help %s\ncompletion %s\nman %s" % (sorted(help_options(cmd)), sorted(c), sorted(m)))
    with open(os.path.join(MANDIR, "tdctl.rst")) as fh:
        text = fh.read()
    _, out, _ = run("--help")
    glob_help = set(re.findall(r"^\s+(?:-\w, )?--([\w-]+)", out, re.M))
    glob_man = set(re.findall(r"^(?:-\w, )?--([a-z][\w-]*)", text, re.M))
    _, out, _ = run("__complete", "--")
    glob_comp = {w[2:] for w in out.split()}
    ok(glob_help == glob_man == glob_comp,
       "global options: --help, completion and tdctl(8) agree",
       "%s\n%s\n%s" % (sorted(glob_help), sorted(glob_man), sorted(glob_comp)))


# ---- command line behaviour -----------------------------------------------

@test
def test_cli(tmp):
    rc, out, err = run("st")
    ok(rc == 2 and "ambiguous command 'st': could be status, stat" in err,
       "'tdctl st' is ambiguous and names stat and status", err)
    rc, out, err = run("--json", "st")
    ok(rc == 2 and json.loads(out) == {
        "error": "ambiguous command 'st': could be status, stat; "
                 "see 'tdctl --help'"} and not err,
       "in JSON mode the error is a JSON object", out + err)
    rc, out, err = run("re", "--json")
    ok(rc == 2 and "record, report" in json.loads(out)["error"],
       "'tdctl re --json': ambiguous, as JSON (record, report)", out + err)
    path = os.path.join(tmp, "g.td")
    tdfile_gen.generic().write(path)
    rc, out, err = run("dum", "-i", path, "--csv")
    ok(rc == 0 and out.startswith("seq,time_ns"), "'tdctl dum' runs dump", err)
    rc, out, err = run("rep", "-i", path)
    ok(rc == 0 and out.startswith("# record file"), "'tdctl rep' runs report", err)
    for cmd in ("report", "dump"):
        rc, out, err = run(cmd, "-i", path, "--cpu", "5")
        ok(rc == 0 and "--cpu 5: no such CPU here (CPUs 0..1): it matches nothing" in err,
           "%s --cpu 5 of a 2-CPU file: a warning that it matches nothing" % cmd, err)
    rc, out, err = run("frobnicate")
    ok(rc == 2 and "unknown command 'frobnicate'" in err, "unknown command", err)
    rc, out, err = run("__c", "")
    ok(rc == 2 and "unknown command" in err,
       "hidden __complete is not prefix-matched", err)
    a = run("help", "stat")
    b = run("stat", "--help")
    c = run("help", "sta")
    ok(a == b and a[0] == 0 and a[1].startswith("Usage: tdctl stat") and
       "tdctl-stat(8)" in a[1] and c[0] == 2,
       "tdctl help stat = tdctl stat --help; 'help sta' is ambiguous", a[1] + c[2])
    for cmd in ("top", "record", "report", "dump"):
        rc, out, err = run("help", cmd)
        ok(rc == 0 and out.startswith("Usage: tdctl " + cmd) and
           "Options:" in out and "--json" in out,
           "tdctl help %s: usage, options and the output options" % cmd, out + err)
    rc, out, err = run("dump", "--csv")
    ok(rc == 1 and out == "" and err.startswith(
        "tdctl: Error: the topdown module is not loaded and the BPF backend is not "
        "running (run 'tdctl load', or 'tdctl load --backend bpf|auto'") and
       err.count("\n") == 1,
       "an error in CSV mode: plain text on stderr, nothing on stdout", out + err)
    rc, out, err = run("--csv", "--json", "help")
    ok(rc == 2 and "--json and --csv exclude each other" in err,
       "--csv with --json is refused", err)
    test_usage_errors()
    # A bad value or a combination that cannot be: usage errors (exit 2,
    # the hint), whether getopt or the command found them.
    path = os.path.join(tmp, "g.td")
    for args, msg in ((("stat", "-I", "5"), "for --interval (expected an integer 10..86400000)"),
                      (("stat", "-I", "abc"), "for --interval (expected an integer 10..86400000)"),
                      (("decode", "-s", "generic", "--level", "0", "cycles=1"),
                       "for --level (expected an integer 1..2)"),
                      (("load", "--level", "0"), "for --level (expected an integer 1..2)"),
                      (("serve", "--max-connections", "1"),
                       "for --max-connections (expected an integer 2..65536)"),
                      (("stat", "--by", "thread"), "expected task, process, comm, cgroup or cpu"),
                      (("stat", "--duration", "1.5s"), "expected seconds"),
                      (("stat", "-p", "1,,2"), "PID[,PID..]"),
                      (("stat", "-p", "1", "--", "true"), "either -p PID or a COMMAND"),
                      (("top", "-d", "0"), "at least 0.01"),
                      (("top", "-d", "-1"), "expected seconds"),
                      (("record", "-o", "-", "--json"), "no room for --json"),
                      (("report", "-i", path, "--by", "bogus"), "invalid value 'bogus' for --by"),
                      (("report", "-i", path, "--cpu", "x"), "invalid value 'x' for --cpu"),
                      (("report", "-i", path, "--sort", "bogus"), "cannot sort by 'bogus'"),
                      (("decode", "cycles=1", "instructions=2"), "--set NAME is required"),
                      (("decode", "--set", "generic", "cyc=1"), "unknown event 'cyc'"),
                      (("dump", "-i", path, "--follow"), "not a file (-i)"),
                      (("timeline", "-i", path, "--duration", "1"), "exclude each other"),
                      (("timeline", "-i", path, "--from", "1.5", "--to", "0.5"),
                       "--to must be later than --from")):
        rc, out, err = run(*args)
        hint = "; see 'tdctl %s --help'\n" % args[0]
        if "--json" in args:        # the error is JSON, on stdout
            err = json.loads(out)["error"] + "\n" if out.startswith("{") else err
        ok(rc == 2 and msg in err and err.endswith(hint) and err.count("\n") == 1,
           "'tdctl %s': usage error, exit 2 with the hint: %s" % (" ".join(args), msg),
           "rc %d\n%s%s" % (rc, out, err))
    for args, msg in ((("load", "--backend", "ebpf"),
                       "--backend must be module, bpf or auto, not 'ebpf'"),
                      (("load", "--backend", "bpf", "--module", "x.ko"),
                       "--module does not apply to --backend bpf"),
                      # event groups: the BPF backend has none
                      (("load", "--backend", "bpf", "--level", "2"),
                       "event groups are not available with the BPF backend"),
                      (("load", "--backend", "bpf", "-M", "TopdownL2"),
                       "event groups are not available with the BPF backend"),
                      (("load", "--backend", "bpf", "-e",
                        "{cpu-clock,task-clock},{cpu-clock,page-faults}"),
                       "event groups are not available with the BPF backend"),
                      (("load", "--backend", "bpf", "-e", "{cpu-clock,task-clock}",
                        "--rotate", "10"),
                       "event groups are not available with the BPF backend"),
                      (("load", "--set", "bogus"), "unknown event set 'bogus'")):
        rc, out, err = run(*args)
        ok(rc == 2 and msg in out + err and "see 'tdctl load --help'" in err and
           not os.path.exists("/sys/fs/bpf/topdown"),
           "'tdctl %s': exit 2, loads nothing: %s" % (" ".join(args), msg), out + err)
    rc, out, err = run("stat", "--", "true")
    ok(rc == 1 and "not loaded" in err,
       "stat without the module: 'not loaded' (before running anything)", err)
    outf = os.path.join(tmp, "list.json")
    rc, out, err = run("help", "list", "-o", outf, "--json")
    with open(outf) as fh:
        content = fh.read()
    ok(rc == 0 and out == "" and content.startswith("{"),
       "-o FILE after a command that does not know it (help)", content[:200] + err)


@test
def test_not_running(tmp):
    """Without the module: status and load say what would run and how,
    exit 3; serve exits non-zero."""
    if os.path.exists("/sys/module/topdown") or os.path.exists("/sys/fs/bpf/topdown"):
        ok(True, "# SKIP a backend runs on this host")
        return
    rc, out, err = run("status")
    ok(rc == 3 and "state:      not running" in out and "cpu:" in out and
       "event set:" in out and "module:" in out and "bpf:" in out and
       "--backend" in out,
       "status without a backend: the CPU, the set, the backends, exit 3", out + err)
    rc, out, err = run("status", "--json")
    doc = json.loads(out) if out.startswith("{") else {}
    ok(rc == 3 and doc.get("state") == "not running" and doc.get("error", 0) is None and
       all(doc.get(k) for k in ("cpu", "set", "module", "bpf", "run")),
       "status --json without a backend: one object, exit 3", out + err)
    rc, out, err = run("load")
    ok(rc == 3 and "not found in /lib/modules" in err and "--backend" in out and
       "event set:" in out,
       "load without the module: what would run (--backend bpf|auto), exit 3",
       out + err)
    # auto with event groups: the module cannot load, the BPF backend has
    # no groups: neither can run this, exit 3 and why
    rc, out, err = run("load", "--backend", "auto", "-e",
                       "{cpu-clock,task-clock},{cpu-clock,page-faults}")
    ok(rc == 3 and "--backend auto: the module did not load, and event groups "
       "are not available with the BPF backend" in err and "event set:" in out and
       not os.path.exists("/sys/fs/bpf/topdown"),
       "load --backend auto with event groups, no module: neither backend can "
       "run it, exit 3 and why", out + err)
    rc, out, err = run("load", "--json")
    doc = json.loads(out) if out.startswith("{") else {}
    ok(rc == 3 and "not found" in (doc.get("error") or "") and doc.get("run"),
       "load --json without the module: the error and what would run", out + err)
    port = "127.0.0.1:%d" % (30000 + os.getpid() % 20000)
    rc, out, err = run("serve", "--duration", "0.3", "--listen", port)
    ok(rc == 1 and "nothing was collected" in err,
       "serve without a backend exits 1", err)
    outf = os.path.join(tmp, "serve.json")
    with open(outf, "w") as fh:
        fh.write("old\n")
    rc, out, err = run("serve", "--duration", "0.3", "--listen", port, "--json",
                       "-o", outf)
    with open(outf) as fh:
        kept = fh.read()
    ok(rc == 1 and "nothing was collected" in out and kept == "old\n",
       "serve --json -o FILE without a backend: exit 1, the error as JSON, FILE kept",
       out + err + kept)


def test_usage_errors():
    """A line that does not parse: one error line with a hint, as JSON with
    --json wherever it is, exit status 2; same for every command."""
    hint = "; see 'tdctl %s --help'"
    cases = (
        (("stat", "--bogus"), "unknown option '--bogus'" + hint % "stat"),
        (("stat", "-Z"), "unknown option '-Z'" + hint % "stat"),
        (("stat", "-p"), "option '-p' needs an argument" + hint % "stat"),
        (("report", "--input"), "option '--input' needs an argument"
         + hint % "report"),
        (("dump", "--follow=yes"), "option '--follow' takes no argument"
         + hint % "dump"),
        (("top", "--b"), "ambiguous option '--b': could be --by, --big-num, --batch"
         + hint % "top"),
        (("status", "extra"), "unexpected argument 'extra'" + hint % "status"),
        (("version", "--bogus"), "unknown option '--bogus'" + hint % "version"),
        (("unload", "-x"), "unknown option '-x'" + hint % "unload"),
        (("list", "--bogus"), "unknown option '--bogus'" + hint % "list"),
        (("decode", "--bogus"), "unknown option '--bogus'" + hint % "decode"),
        (("load", "--bogus"), "unknown option '--bogus'" + hint % "load"),
        (("load", "-O"), "unknown option '-O'" + hint % "load"),
        (("list", "-o"), "option '-o' needs an argument" + hint % "list"),
        (("report", "-o", "/nonexistent/a", "-o", "/nonexistent/b"),
         "-o/--output given twice ('/nonexistent/a' and '/nonexistent/b')"
         + hint % "report"),
        (("--bogus", "status"), "unknown option '--bogus'; see 'tdctl --help'"),
        (("help", "stat", "dump"), "help takes one command name" + hint % "help"),
        ((), "missing command; see 'tdctl --help'"),
    )
    for args, msg in cases:
        rc, out, err = run(*args)
        ok(rc == 2 and out == "" and err == "tdctl: Error: %s\n" % msg,
           "'tdctl %s': exit 2, one line: %s" % (" ".join(args), msg),
           "rc %d\n%s%s" % (rc, out, err))
        if not args:
            continue
        for line in ((args[0], "--json") + args[1:], ("--json",) + args,
                     args + ("--json",)):
            if line[-1] == "--json" and args[-1] in ("-p", "--input", "-o"):
                continue        # "--json" would be the option's argument
            rc, out, err = run(*line)
            try:
                obj = json.loads(out)
            except ValueError:
                obj = None
            ok(rc == 2 and obj == {"error": msg} and err == "",
               "'tdctl %s': the same error as one JSON object" % " ".join(line),
               "rc %d\n%s%s" % (rc, out, err))
    rc, out, err = run("-p", "version")
    ok(rc == 2 and "-p is --pid; --pretty has no short form" in err,
       "global -p is not --pretty: refused with the reason", err)
    rc, out, err = run("--pretty", "help")
    ok(rc == 0 and out.startswith('{\n    "commands": ['),
       "--pretty still indents the JSON", out[:80])


# A value no option of its kind takes.
BAD_VALUE = {"number": "x!", "cpu": "x!", "pid": "x!", "pids": "1,,x",
             "by": "bogus", "backend": "bogus", "set": "bogus", "sort": "bogus"}


@test
def test_walk(tmp):
    """Every command x every option: named by its --help, its man page and
    completion; a bad value of a checked kind, or a value given to a flag,
    is a usage error: exit 2, one line, the hint to the command's --help."""
    path = os.path.join(tmp, "walk.td")
    tdfile_gen.generic().write(path)
    _, out, _ = run("help", "--json")
    tried = 0
    for c in json.loads(out)["commands"]:
        cmd = c["command"]
        _, o, _ = run("help", cmd, "--json")
        _, helptext, _ = run(cmd, "--help")
        comp = completion_options(cmd)
        man = man_options(cmd)
        bad = []
        for opt in json.loads(o)["options"]:
            name = opt["option"]
            if name[2:] not in comp or name[2:] not in man or \
                    not re.search(r"(^|[ ,])%s\b" % re.escape(name), helptext, re.M):
                bad.append("%s: not in --help, man page or completion" % name)
            value = opt["value"]
            # Sets are checked where one is chosen (list -s shows any).
            if value in BAD_VALUE and not (cmd == "list" and value == "set"):
                line = [cmd, name, BAD_VALUE[value]]
                if value == "sort":
                    if cmd not in ("report", "top"):
                        continue
                    line += ["-i", path]
            elif value is None and opt["kind"] == "command" and name != "--help":
                line = [cmd, name + "=x"]
            else:
                continue
            rc, out_, err = run(*line)
            tried += 1
            hint = "; see 'tdctl %s --help'\n" % cmd
            # One error line (a file's warnings may come before it).
            if rc != 2 or not err.endswith(hint) or err.count("Error:") != 1 or out_:
                bad.append("%s: rc %d, %r" % (" ".join(line), rc, err))
        ok(not bad, "%s: every option documented three times; bad values exit 2 "
           "with the hint" % cmd, "\n".join(bad))
    ok(tried > 40, "the walk tried %d bad values" % tried)
    # An output option a command cannot honour is refused, before the
    # command or after it (it was accepted and ignored: timeline --csv).
    refused = []
    for c in json.loads(out)["commands"]:
        cmd = c["command"]
        _, o, _ = run("help", cmd, "--json")
        table = {x["option"] for x in json.loads(o)["options"]}
        for opt in ("--json", "--pretty", "--csv"):
            if opt in table:
                continue
            for line in ([cmd, opt], [opt, cmd]):
                rc, out_, err = run(*line)
                if rc != 2 or "does not apply to %s" % cmd not in out_ + err:
                    refused.append("%s: rc %d %s" % (" ".join(line), rc, out_ + err))
            refused.append(None)
    ok(refused.count(None) == 4 and not [r for r in refused if r],
       "timeline --csv/--pretty, serve --csv/--pretty: refused, exit 2",
       "\n".join(r for r in refused if r))
    nostatus = []
    for f in sorted(os.listdir(MANDIR)):
        if not f.endswith(".rst") or not f.startswith("tdctl"):
            continue
        with open(os.path.join(MANDIR, f)) as fh:
            text = fh.read()
        sec = text.split("\nEXIT STATUS\n")[1].split("\nSEE ALSO\n")[0] \
            if "\nEXIT STATUS\n" in text else ""
        if not all(re.search(r"\b%s\b" % c, sec) for c in "012") or "usage" not in sec:
            nostatus.append(f)
    ok(not nostatus, "every man page says the exit codes (0, 1, 2 usage)", nostatus)


@test
def test_letters():
    """One letter, one meaning: every short option stands for the same long
    option on every command and among the global options."""
    meaning = {}
    clash = []
    _, out, _ = run("--help")
    for m in re.finditer(r"^\s+-(\w), --([\w-]+)", out, re.M):
        meaning.setdefault(m.group(1), set()).add(m.group(2))
    _, out, _ = run("help", "--json")
    for c in json.loads(out)["commands"]:
        _, o, _ = run("help", c["command"], "--json")
        for opt in json.loads(o)["options"]:
            if opt["short"]:
                meaning.setdefault(opt["short"][1:], set()).add(opt["option"][2:])
    clash = {k: v for k, v in meaning.items() if len(v) > 1}
    ok(not clash and meaning.get("p") == {"pid"} and len(meaning) > 8,
       "every short option has one meaning (%d letters; -p is --pid)"
       % len(meaning), repr(clash or meaning))


@test
def test_anywhere(tmp):
    """The output options anywhere on the line: after operands too, but
    never inside the COMMAND that stat or record runs."""
    for line in (("decode", "--set", "generic", "cycles=100",
                  "instructions=50", "--json"),
                 ("decode", "--json", "--set", "generic", "cycles=100",
                  "instructions=50"),
                 ("--json", "decode", "cycles=100", "--set", "generic",
                  "instructions=50")):
        rc, out, err = run(*line)
        ok(rc == 0 and json.loads(out)["metrics"] == {"ipc": 0.5},
           "'tdctl %s': JSON" % " ".join(line), out + err)
    outf = os.path.join(tmp, "dec.csv")
    rc, out, err = run("decode", "--set", "generic", "cycles=100", "-o", outf,
                       "instructions=50", "--csv")
    with open(outf) as fh:
        content = fh.read()
    ok(rc == 0 and out == "" and "ipc" in content,
       "decode: -o FILE and --csv between the operands", content + err)
    rc, out, err = run("help", "stat", "--json")
    ok(rc == 0 and json.loads(out)["command"] == "stat",
       "help COMMAND --json", out + err)


@test
def test_tables():
    """The option tables are the only grammar: no getopt table of its own
    in any command, the synopses name only options the tables know, and
    library code does not include the CLI's header."""
    user = os.path.join(TOP, "user")
    srcs = []
    for d, _, files in os.walk(user):
        srcs += [os.path.join(d, f) for f in files if f.endswith((".c", ".h"))]
    own = [os.path.relpath(f, TOP) for f in srcs
           if "struct option " in open(f).read()
           and not f.endswith(("tdctl.h", "tdctl.c"))]
    ok(not own, "no command declares its own struct option table", own)
    upward = []
    for f in srcs:
        rel = os.path.relpath(f, user)
        if rel.startswith(("cli/", "cmd/")):
            continue
        for ln in open(f):
            if re.match(r'#include "(cli|cmd)/|#include "tdctl\.h"', ln):
                upward.append("%s: %s" % (rel, ln.strip()))
    ok(not upward, "library layers do not include the CLI (cli/, cmd/)", upward)
    _, out, _ = run("help", "--json")
    for c in json.loads(out)["commands"]:
        _, o, _ = run("help", c["command"], "--json")
        known = set()
        for opt in json.loads(o)["options"]:
            known.add(opt["option"])
            if opt["short"]:
                known.add(opt["short"])
        syn = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*(?:\.[\w-]+)*)", c["synopsis"]))
        with open(os.path.join(MANDIR, "tdctl-%s.rst" % c["command"])) as fh:
            text = fh.read()
        man = text.split("\nSYNOPSIS\n")[1].split("\nDESCRIPTION\n")[0]
        man = re.sub(r"[*\\]", "", man)
        mopts = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*(?:\.[\w-]+)*)", man))
        bad = (syn | mopts) - known
        ok(not bad, "%s: the --help and man page synopses name only its "
           "options (%d)" % (c["command"], len(syn | mopts)),
           "unknown %s\nhelp %s\nman %s" % (sorted(bad), sorted(syn), sorted(mopts)))


# ---- bash completion ------------------------------------------------------

def complete(line, cwd=None):
    script = os.path.join(TOP, "user/cli/tdctl-completion.bash")
    prog = r'''
source "$1"
COMP_LINE=$2; COMP_POINT=${#2}
read -ra COMP_WORDS <<<"$2"
[[ $2 == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
_tdctl
printf '%s\n' "${COMPREPLY[@]}"
'''
    p = subprocess.run(["bash", "-c", prog, "bash", script, TDCTL + " " + line],
                       capture_output=True, text=True, cwd=cwd)
    return p.stdout.split("\n")[:-1]


@test
def test_completion(tmp):
    ok(sorted(complete("st")) == ["stat", "status"], "complete 'st': stat, status",
       complete("st"))
    ok(complete("stat --by") == ["--by"], "complete 'stat --by': --by", complete("stat --by"))
    ok(complete("stat --by ") == ["task", "process", "comm", "cgroup", "cpu"],
       "complete 'stat --by ': the groupings", complete("stat --by "))
    ok(complete("load --backend ") == ["module", "bpf", "auto"],
       "complete 'load --backend ': the backends", complete("load --backend "))
    ok(complete("load --set gen") == ["generic"],
       "complete event set names", complete("load --set gen"))
    ok(complete("load -e cycles,instr") == ["cycles,instructions"],
       "complete the last of perf's event names in a list",
       complete("load -e cycles,instr"))
    ok("task-clock" in complete("load --events "),
       "complete perf's software event names", complete("load --events "))
    me = str(os.getpid())
    ok(me in complete("stat -p "), "complete 'stat -p ': running PIDs include ours")
    ok(("1," + me) in complete("top -p 1,"), "complete the last PID of a list")
    open(os.path.join(tmp, "rec-file.td"), "w").close()
    ok(complete("report -i rec-", cwd=tmp) == ["rec-file.td"],
       "complete 'report -i': file names", complete("report -i rec-", cwd=tmp))
    ok("ls" in complete("stat -- l"), "complete the COMMAND after 'stat --'")
    ok("ls" in complete("record -o x.td l"), "complete the COMMAND of record")
    ok(sorted(complete("--json sta")) == ["stat", "status"],
       "global options before the command", complete("--json sta"))
    ok(all("--csv" in complete(c + " --") for c in
           ("load", "unload", "status", "list", "decode", "help", "report")),
       "--csv offered to every command")
    ok(complete("help rep") == ["report"], "complete 'help rep': command names")
    ok(complete("decode --set generic cycles=1 --j") == ["--json"] and
       complete("decode cycles=1 --set gen") == ["generic"],
       "complete options after decode's operands",
       complete("decode --set generic cycles=1 --j"))
    ok("--pretty" in complete("--p") and "-p" not in complete("-"),
       "complete the global options from the table (no -p)", complete("-"))
    ok("--input" in complete("dump --"), "complete dump's new --input")
    ok(complete("serve --l") == ["--listen"], "complete 'serve --l': --listen",
       complete("serve --l"))
    ok(complete("timeline -i rec-", cwd=tmp) == ["rec-file.td"] and
       "--min-slice" in complete("timeline --"),
       "complete timeline's -i FILE and its options", complete("timeline --"))


# ---- top on a terminal ----------------------------------------------------

def pty_run(args, keys, rows=30, cols=120, env=None, timeout=15):
    """Run tdctl on a pty; keys is a list of (wait-for-text, bytes).
    Returns the exit status, everything it wrote, and the terminal's
    attributes after it exited."""
    pid, fd = pty.fork()
    if pid == 0:
        if env:
            os.environ.update(env)
        os.execv(TDCTL, [TDCTL] + args)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    out = b""
    deadline = time.time() + timeout
    keys = list(keys)
    while time.time() < deadline:
        if keys and keys[0][0].encode() in out:
            os.write(fd, keys.pop(0)[1])
        r, _, _ = select.select([fd], [], [], 0.1)
        if not r:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:         # EIO: the child closed the terminal
            data = b""
        if not data:
            break
        out += data
    status = -1
    while time.time() < deadline:
        wpid, st = os.waitpid(pid, os.WNOHANG)
        if wpid:
            status = os.waitstatus_to_exitcode(st)
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    try:
        attrs = termios.tcgetattr(fd)
    except termios.error:
        attrs = None
    os.close(fd)
    return status, out.decode(errors="replace"), attrs


@test
def test_top_pty(tmp):
    path = os.path.join(tmp, "top.td")
    tdfile_gen.generic().write(path)
    status, out, attrs = pty_run(
        ["top", "-i", path, "-d", "0.4"],
        [("sort: cycles", b">"), ("sort: instructions", b"r"),
         ("sort: instructions ascending", b"q")])
    ok(status == 0 and "\033[H" in out and "\033[2J" in out and "\033[K" in out,
       "top on a terminal: cursor home, clear screen, clear to end of line",
       repr(out[:300]))
    ok("sort: instructions" in out and "sort: instructions ascending" in out,
       "top keys: '>' moves the sort column, 'r' reverses it", repr(out[-600:]))
    ok(attrs is not None and attrs[3] & termios.ICANON and attrs[3] & termios.ECHO,
       "top restores the terminal (canonical mode, echo) when it quits")
    widest = max(len(ln) for ln in re.sub(r"\033\[[0-9;]*[A-Za-z]", "", out).split("\n"))
    ok(widest <= 120, "top fits the terminal width (%d <= 120)" % widest)
    # A serial console reports no size: LINES and COLUMNS, else 24x80.
    status, out, _ = pty_run(["top", "-i", path, "-d", "0.2", "-n", "1"], [],
                             rows=0, cols=0, env={"LINES": "9", "COLUMNS": "60"})
    plain = re.sub(r"\033\[[0-9;]*[A-Za-z]", "", out)
    lines = [ln for ln in plain.split("\n") if ln.strip()]
    ok(status == 0 and max(len(ln) for ln in lines) <= 60 and len(lines) <= 9,
       "no terminal size (serial console): LINES=9 COLUMNS=60 respected",
       plain)
    status, out, _ = pty_run(["top", "-i", path, "-d", "0.2", "-n", "2", "--batch"], [])
    ok(status == 0 and "\033" not in out and out.count("tdctl top - ") == 2,
       "top --batch on a terminal: no control codes, 2 snapshots", repr(out[:200]))


@test
def test_json_stream(tmp):
    """top's snapshots: one JSON object per line with --json (JSON
    Lines), one JSON document (an array of them) with --pretty, never
    indented objects run together."""
    path = os.path.join(tmp, "stream.td")
    tdfile_gen.generic().write(path)
    rc, out, err = run("top", "-i", path, "-n", "3", "-d", "0.5", "--json")
    try:
        lines = [json.loads(ln) for ln in out.splitlines()]
    except ValueError:
        lines = None
    ok(rc == 0 and lines and len(lines) == 3 and
       all(isinstance(x, dict) and "rows" in x for x in lines),
       "top -n 3 --json: three objects, one per line", out[:300] + err)
    rc, out, err = run("top", "-i", path, "-n", "3", "-d", "0.5", "--pretty")
    try:
        doc = json.loads(out)
    except ValueError:
        doc = None
    ok(rc == 0 and isinstance(doc, list) and len(doc) == 3 and
       all(isinstance(x, dict) and "rows" in x for x in doc) and
       "\n    " in out and doc == lines,
       "top -n 3 --pretty: one JSON document, an indented array of the "
       "three snapshots --json prints", out[:300] + err)


if __name__ == "__main__":
    main(setup=require_tdctl)
