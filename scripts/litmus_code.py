#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/litmus_code.py [--show] [-v]: the litmus tests against the code.

Each litmus test of the code as it is (selftests/litmus/*.litmus) names,
in a "Code:" block of its comment, the marked regions of the C code that
its processes model and, for each, the sequence of ordered accesses and
barriers the region holds:

 * Code:
 *   P0 ring-write: WRITE_ONCE(pos) smp_store_release(producer_pos)
 *      smp_mb() READ_ONCE(consumer_pos)
 *   P1 drain-ring: __atomic_load_n(producer_pos,ACQUIRE)

A region is the code between two marker comments, in kmod/ (kernel) or
user/ (the reader):

    /* litmus: ring-write begin */ ... /* litmus: ring-write end */

This script extracts each region's sequence (below) and fails when a
test's list differs from it, when a test names a region that does not
exist, when a marker has no partner or a region no test, and when a test
has neither a Code: block nor a "Variant of: NAME" line naming a test
that has one (a variant models the code as it would be without some
barrier, so there is no code to compare it with). A barrier or marked
access added to, removed from or moved within a region without the tests
that model it changing fails here; herd7 (make check-litmus) then says
whether the changed tests still hold.

The sequence: every call, in the order of the text, of the primitives in
PRIMS (marked accesses, acquire and release, barriers, atomics, C11
__atomic builtins, locks, RCU and tracepoint grace periods, vfree, the
wake-up calls, IPIs), comments and strings left out, written NAME(TARGET)
with TARGET the last field or variable of the accessed location
(&c->prod->producer_pos: producer_pos), NAME(TARGET,ORDER) for the
__atomic builtins (__ATOMIC_ACQUIRE: ACQUIRE) and NAME() without an
operand. Textual: a helper that issues a primitive inside itself is not
seen where it is called, so a region lies in the function that issues
the primitives it covers. Plain accesses are not part of it.

  --show   print every region's sequence (to write a Code: block)
  -v       print every test's result, not only the failures
Ends with "litmus code: N tests, N regions: ..."; exits 1 on a failure.
"""
import difflib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = 'selftests/litmus'
CODE_DIRS = ('kmod', 'user')

PRIMS = re.compile(r'(?<![A-Za-z0-9_])(' + '|'.join([
    r'READ_ONCE', r'WRITE_ONCE',
    r'smp_load_acquire', r'smp_store_release', r'smp_cond_load_\w+',
    r'smp_mb__\w+', r'smp_mb', r'smp_rmb', r'smp_wmb',
    r'(?:atomic|atomic64|atomic_long)_\w+', r'(?:try_)?cmpxchg\w*', r'xchg\w*',
    r'__atomic_\w+', r'__sync_\w+',
    r'rcu_read_lock\w*', r'rcu_read_unlock\w*', r'rcu_dereference\w*',
    r'rcu_assign_pointer', r'synchronize_\w*rcu\w*', r'call_rcu\w*',
    r'tracepoint_synchronize_unregister', r'tracepoint_probe_\w+',
    r'(?:raw_)?spin_(?:lock|unlock|trylock)\w*', r'mutex_(?:lock|unlock|trylock)\w*',
    r'vfree', r'kvfree', r'irq_work_queue\w*', r'irq_work_sync', r'wake_up\w*',
    r'poll_wait', r'on_each_cpu\w*', r'smp_call_function\w*',
]) + r')\s*\(')

# The argument that names the location (default: the first).
ARG = {'poll_wait': 1, 'smp_call_function_single': 1, 'smp_call_function_many': 1}

MARKER = re.compile(r'litmus:\s*([A-Za-z0-9_.-]+)\s+(begin|end)\b')


def strip_c(text):
    """Comments and string/char literals blanked, newlines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(' ' * (j + 1 - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def call_args(text, start):
    """The top-level arguments of the call whose '(' is at text[start]."""
    depth, args, cur = 0, [], []
    for i in range(start, len(text)):
        c = text[i]
        if c in '([{':
            depth += 1
            if depth == 1:
                continue
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                args.append(''.join(cur).strip())
                return [a for a in args if a]
        elif c == ',' and depth == 1:
            args.append(''.join(cur).strip())
            cur = []
            continue
        cur.append(c)
    return args


def target(arg):
    """The last field or variable an argument names."""
    arg = re.sub(r'\[[^\]]*\]', '', arg)
    fields = re.findall(r'(?:->|\.)\s*([A-Za-z_]\w*)', arg)
    if fields:
        return fields[-1]
    names = re.findall(r'[A-Za-z_]\w*', arg)
    return names[-1] if names else ''


def sequence(code):
    """The primitives of a stretch of comment-free C code, in order."""
    seq = []
    for m in PRIMS.finditer(code):
        name = m.group(1)
        args = call_args(code, m.end() - 1)
        if name.startswith('__atomic_'):
            orders = [re.sub(r'^__ATOMIC_', '', a) for a in args if a.startswith('__ATOMIC_')]
            locs = [target(a) for a in args[:1] if not a.startswith('__ATOMIC_')]
            seq.append('%s(%s)' % (name, ','.join(locs + orders)))
            continue
        k = ARG.get(name, 0)
        seq.append('%s(%s)' % (name, target(args[k]) if len(args) > k else ''))
    return seq


def regions(errors):
    """{name: (path, line, sequence)} of every marked region."""
    found = {}
    for top in CODE_DIRS:
        for d, subdirs, files in os.walk(os.path.join(ROOT, top)):
            subdirs.sort()
            for f in sorted(files):
                if not f.endswith(('.c', '.h')):
                    continue
                path = os.path.relpath(os.path.join(d, f), ROOT)
                with open(os.path.join(ROOT, path), encoding='utf-8') as fh:
                    text = fh.read()
                code = strip_c(text)
                lines = text.split('\n')
                offs = [0]
                for ln in lines:
                    offs.append(offs[-1] + len(ln) + 1)
                open_ = {}
                for no, ln in enumerate(lines, 1):
                    for m in MARKER.finditer(ln):
                        name, what = m.groups()
                        where = '%s:%d' % (path, no)
                        if what == 'begin':
                            if name in open_ or name in found:
                                errors.append('%s: region %s marked twice' % (where, name))
                            open_[name] = no
                        elif name not in open_:
                            errors.append('%s: "%s end" without a begin' % (where, name))
                        else:
                            b = open_.pop(name)
                            seq = sequence(code[offs[b]:offs[no - 1]])
                            found[name] = (path, b, seq)
                for name, b in open_.items():
                    errors.append('%s:%d: "%s begin" without an end' % (path, b, name))
    return found


def comment(text):
    m = re.search(r'\(\*(.*?)\*\)', text, re.S)
    return [re.sub(r'^\s*\*\s?', '', ln) for ln in m.group(1).split('\n')] if m else []


def code_block(lines):
    """[(process, region, [tokens])] of a test's Code: block, or None."""
    out, on = None, False
    for ln in lines:
        if re.match(r'Code\b', ln):
            out, on = [], True
            continue
        if not on:
            continue
        if not ln.strip():
            break
        m = re.match(r'\s*(P\d+)\s+([A-Za-z0-9_.-]+):\s*(.*)$', ln)
        if m:
            out.append((m.group(1), m.group(2), m.group(3).split()))
        elif out:
            out[-1][2].extend(ln.split())
    return out


def main(argv):
    show = '--show' in argv
    verbose = '-v' in argv
    errors = []
    regs = regions(errors)
    if show:
        for name in sorted(regs):
            path, line, seq = regs[name]
            print('%s (%s:%d): %s' % (name, path, line, ' '.join(seq) or '-'))
    tdir = os.path.join(ROOT, TESTS)
    names = sorted(f[:-7] for f in os.listdir(tdir) if f.endswith('.litmus'))
    blocks, variants = {}, {}
    for name in names:
        with open(os.path.join(tdir, name + '.litmus'), encoding='utf-8') as fh:
            lines = comment(fh.read())
        blocks[name] = code_block(lines)
        for ln in lines:
            m = re.match(r'Variant of:\s*([A-Za-z0-9_-]+)', ln)
            if m:
                variants[name] = m.group(1)
    used = set()
    failed = 0
    for name in names:
        bad = []
        block = blocks[name]
        if block is None:
            base = variants.get(name)
            if base is None:
                bad.append('neither a Code: block nor a "Variant of:" line')
            elif not blocks.get(base):
                bad.append('variant of %s, which has no Code: block' % base)
        elif not block:
            bad.append('an empty Code: block')
        for proc, reg, want in block or []:
            used.add(reg)
            if reg not in regs:
                bad.append('%s %s: no region "litmus: %s begin" in %s/' %
                           (proc, reg, reg, '/, '.join(CODE_DIRS)))
                continue
            path, line, got = regs[reg]
            if want == ['-']:
                want = []
            if got != want:
                delta = [d[0] + d[2:] for d in difflib.ndiff(want, got) if d[0] in '+-']
                bad.append('%s %s (%s:%d): the code has %s (%s), the test lists %s' %
                           (proc, reg, path, line, ' '.join(got) or '-', ' '.join(delta),
                            ' '.join(want) or '-'))
        if bad:
            failed += 1
            for b in bad:
                print('FAIL: %s: %s' % (name, b))
        elif verbose:
            what = ('variant of ' + variants[name] if block is None else
                    ', '.join('%s %s' % (p, r) for p, r, _ in block))
            print('PASS: %s: %s' % (name, what))
    for name in sorted(set(regs) - used):
        path, line, _ = regs[name]
        errors.append('%s:%d: region %s: no test names it' % (path, line, name))
    for e in errors:
        print('FAIL: %s' % e)
    checked = sum(1 for n in names if blocks[n])
    print('litmus code: %d tests (%d against the code, %d variants), %d regions: %s' %
          (len(names), checked, len(names) - checked, len(regs),
           'all match' if not failed and not errors else
           '%d tests and %d markers differ' % (failed, len(errors))))
    return 1 if failed or errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
