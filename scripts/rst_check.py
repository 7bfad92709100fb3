#!/usr/bin/env python3
"""scripts/rst_check.py FILE...: parse each reStructuredText file with
docutils and print every warning or error it reports (an undefined
substitution such as a bare |z|, a broken table, a bad directive).
Exits 1 when there was one. make lint and make check run it
(scripts/lint.sh rst)."""
import io
import sys

import docutils.core


def check(path):
    out = io.StringIO()
    with open(path, encoding='utf-8') as f:
        text = f.read()
    docutils.core.publish_doctree(
        text, source_path=path,
        settings_overrides={'report_level': 2, 'halt_level': 5,
                            'warning_stream': out})
    return out.getvalue()


def main(paths):
    rc = 0
    for p in paths:
        msgs = check(p)
        if msgs:
            sys.stdout.write(msgs)
            rc = 1
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
