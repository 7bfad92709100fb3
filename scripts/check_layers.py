#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/check_layers.py: user/README's layer rules, checked (make lint).

The layers are the folders of user/ in the order user/README lists them,
top first; a file may include its own layer's headers and those of the
layers listed after its own (cli/ and cmd/ are one layer), never those of
a layer before it; a layer's *_priv.h (evset/evset_priv.h,
export/trace_priv.h, cmd/decode_priv.h) is that layer's alone. An
include path names its layer by its first folder, however deep
("live/bpf/bpf.h" is live/'s). The module's ioctls are live/'s: outside
live/, an ioctl() call is an error unless its request is a terminal's
(TIOC...), and so is naming a TOPDOWN_IOC_ request (comments and strings
aside). The picture of the layers in user/README names the same layers
in the same order as its list, and Documentation/design.rst shows that
picture by including it, not a copy of its own. No .c or .h file of
user/ is longer than MAX_LINES lines (wc -l's count, and a last line
without a newline): a longer one is split along a seam, its folder's
*_priv.h holding what the parts share. Prints every violation, exits 1
if there was one."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
USER = os.path.join(ROOT, "user")


DESIGN = os.path.join(ROOT, "Documentation", "design.rst")
# design.rst's include of the picture (its options follow on the next lines).
INCLUDE = ".. include:: ../user/README"
# The most lines a file of user/ may have (user/README).
MAX_LINES = 1000


def readme():
    with open(os.path.join(USER, "README")) as fh:
        return fh.read()


def layers(text):
    order = re.findall(r"^([a-z]+)/ {2,}\S", text, re.M)
    return {name: (0 if name in ("cli", "cmd") else i)
            for i, name in enumerate(order)}


def picture(text, rank):
    """The picture's violations: its lines "    a/ [b/ ...]  text", top
    first, must name the list's layers in the list's order (the ones of a
    line are one layer), and design.rst must include it."""
    bad = []
    rows = re.findall(r"^ {4}((?:[a-z]+/ )*[a-z]+/) {2,}\S", text, re.M)
    if not rows:
        return ["user/README: no picture of the layers"]
    drawn = [[n.rstrip("/") for n in r.split()] for r in rows]
    listed = sorted(rank, key=lambda k: (rank[k], list(rank).index(k)))
    if [n for r in drawn for n in r] != listed:
        bad.append("user/README: the picture's layers %s are not the list's %s"
                   % (" > ".join("+".join(r) for r in drawn), " > ".join(listed)))
    for r in drawn:
        if len({rank.get(n) for n in r}) != 1:
            bad.append("user/README: the picture draws %s as one layer, the list not"
                       % " ".join(n + "/" for n in r))
    with open(DESIGN) as fh:
        design = fh.read()
    if INCLUDE not in design:
        bad.append("Documentation/design.rst: does not include user/README's "
                   "picture (%s)" % INCLUDE)
    elif re.search(r"^ +[a-z]+/ {2,}.*\n +\|", design, re.M):
        bad.append("Documentation/design.rst: a picture of the layers of its own")
    return bad


# C comments, strings and character constants, for code().
NOT_CODE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                      re.S)


def code(text):
    """text without its comments and strings (blanked, lines kept)."""
    return NOT_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def call_args(text, start):
    """The arguments of the call whose "(" is at text[start], split at its
    top-level commas, and where the call ends."""
    args, depth, cur = [], 0, start + 1
    for i in range(start, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if not depth:
                return args + [text[cur:i].strip()], i
        elif text[i] == "," and depth == 1:
            args.append(text[cur:i].strip())
            cur = i + 1
    return args + [text[cur:].strip()], len(text)


def ioctls(rel, text):
    """The violations of the ioctl rule in user/@rel (outside live/)."""
    bad, calls = [], []
    text = code(text)

    def where(pos):
        return "user/%s:%d" % (rel, text.count("\n", 0, pos) + 1)
    for m in re.finditer(r"\bioctl\s*\(", text):
        args, end = call_args(text, m.end() - 1)
        req = args[1] if len(args) > 1 else ""
        if not re.fullmatch(r"TIOC[A-Z0-9_]+", req):
            calls.append((m.start(), end))
            bad.append("%s: ioctl(%s) outside live/: the module's ioctls are "
                       "live/device.c's (td_dev_*())"
                       % (where(m.start()), " ".join(req.split())))
    for m in re.finditer(r"\bTOPDOWN_IOC_\w+", text):
        if any(a < m.start() < b for a, b in calls):
            continue    # the ioctl() above said it
        bad.append("%s: %s outside live/: the module's ioctls are live/device.c's"
                   % (where(m.start()), m.group()))
    return bad


def main():
    text = readme()
    rank = layers(text)
    bad = picture(text, rank)
    missing = sorted(d for d in os.listdir(USER)
                     if os.path.isdir(os.path.join(USER, d)) and d not in rank)
    for d in missing:
        bad.append("user/%s/: not a layer of user/README" % d)
    for d, _, files in os.walk(USER):
        rel = os.path.relpath(d, USER)
        own = rel.split(os.sep)[0]
        if own not in rank:
            continue
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(d, f)
            with open(path, errors="replace") as fh:
                text = fh.read()
            lines = text.count("\n") + (not text.endswith("\n") and text != "")
            if lines > MAX_LINES:
                bad.append("user/%s: %d lines, more than %d: split it along a seam (user/README)"
                           % (os.path.relpath(path, USER), lines, MAX_LINES))
            if own != "live":
                bad.extend(ioctls(os.path.relpath(path, USER), text))
            for n, line in enumerate(text.split("\n"), 1):
                m = re.match(r'\s*#\s*include\s+"([a-z]+)/([\w./-]+)"', line)
                if not m:
                    continue
                layer, header = m.groups()
                where = "user/%s:%d" % (os.path.relpath(path, USER), n)
                if layer not in rank:
                    bad.append('%s: #include "%s/%s": no such layer'
                               % (where, layer, header))
                elif rank[layer] < rank[own]:
                    bad.append('%s: %s/ includes "%s/%s", a layer above it'
                               % (where, own, layer, header))
                if header.endswith("_priv.h") and own != layer:
                    bad.append('%s: %s/%s outside %s/'
                               % (where, layer, header, layer))
    for b in bad:
        print(b)
    print("layers: %s: %d violation(s)" % (" > ".join(
        sorted(rank, key=lambda k: (rank[k], k))), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
