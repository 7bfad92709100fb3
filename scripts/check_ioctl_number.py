#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Is topdown's ioctl code free in the kernel's registry of ioctl codes?

scripts/check_ioctl_number.py [--need VER]... [RST]...

Reads TOPDOWN_IOC_MAGIC and the ioctl numbers of
include/uapi/linux/topdown.h and checks them against the table of
Documentation/userspace-api/ioctl/ioctl-number.rst of each kernel source
given (default: build/deps/ioctl-number/*.rst, which scripts/deps.sh
extracts from linux-source-6.1, -6.12 and, with --suites, -7.3): no row
may give that code to anyone else for a sequence number topdown uses. As a
check on the parser itself, each file must list 0xB7 (nsfs), the code
topdown's ABI version 1 took. --need VER: fail unless VER.rst is among
them. Prints PASS/FAIL lines and "N passed, N failed".
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = os.path.join(ROOT, "include/uapi/linux/topdown.h")
OLD_CODE = 0xB7

# A table row: code (0x12 or 'c'), then the sequence numbers ("all",
# "00-1F", "01", "80-8F ...").
ROW = re.compile(r"^(0x[0-9A-Fa-f]{1,2}|'.')\s+(\S+)")
SEQ = re.compile(r"^([0-9A-Fa-f]{2})(?:-([0-9A-Fa-f]{2}))?$")


def header_ioctls():
    text = open(HEADER).read()
    m = re.search(r"#define\s+TOPDOWN_IOC_MAGIC\s+(0x[0-9A-Fa-f]+)", text)
    if not m:
        sys.exit("no TOPDOWN_IOC_MAGIC in %s" % HEADER)
    nrs = {int(n, 16) for n in re.findall(
        r"TOPDOWN_IOC_MAGIC,\s*\\?\s*(0x[0-9A-Fa-f]+)", text)}
    if not nrs:
        sys.exit("no ioctl numbers found in %s" % HEADER)
    return int(m.group(1), 16), nrs


def rows(path):
    """(code, set of sequence numbers or None for all, line) per row."""
    for no, line in enumerate(open(path, encoding="utf-8"), 1):
        m = ROW.match(line)
        if not m:
            continue
        c = m.group(1)
        code = int(c, 16) if c.startswith("0x") else ord(c[1])
        s = SEQ.match(m.group(2))
        if s:
            lo = int(s.group(1), 16)
            hi = int(s.group(2), 16) if s.group(2) else lo
            seqs = set(range(lo, hi + 1))
        else:           # "all", or a form this script does not know
            seqs = None
        yield code, seqs, no, line.rstrip()


def main(argv):
    need, files = [], []
    i = 0
    while i < len(argv):
        if argv[i] == "--need" and i + 1 < len(argv):
            need.append(argv[i + 1])
            i += 2
        else:
            files.append(argv[i])
            i += 1
    if not files:
        files = sorted(glob.glob(os.path.join(ROOT, "build/deps/ioctl-number/*.rst")))
    magic, nrs = header_ioctls()
    passed = failed = 0

    def ok(cond, what):
        nonlocal passed, failed
        print("%s: %s" % ("PASS" if cond else "FAIL", what))
        if cond:
            passed += 1
        else:
            failed += 1

    have = {os.path.basename(f)[:-len(".rst")] for f in files}
    for v in need:
        ok(v in have, "ioctl-number.rst of Linux %s is there (scripts/deps.sh --suites)" % v)
    for f in files:
        ver = os.path.basename(f)[:-len(".rst")]
        table = list(rows(f))
        ok(any(code == OLD_CODE for code, _, _, _ in table),
           "Linux %s: the parser finds 0x%02X (nsfs) in %d rows" % (ver, OLD_CODE, len(table)))
        clash = [(no, line) for code, seqs, no, line in table
                 if code == magic and (seqs is None or seqs & nrs)]
        ok(not clash, "Linux %s: code 0x%02X, numbers %s, given to nobody else%s" % (
            ver, magic, ",".join("0x%02X" % n for n in sorted(nrs)),
            "".join("\n    line %d: %s" % c for c in clash)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not files else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
