# SPDX-License-Identifier: GPL-2.0
"""Checking tdctl's --csv output against its --json output, for the host
tests (test_csv.py) and the guests' outputs read back on the host
(test_guest_file.py): the CSV is parsed with the csv module, and a JSON
value compares with its CSV field as tdctl's CSV writer writes it (null:
empty, booleans true/false, numbers to 6 decimals, lists space-separated).
"""
import csv
import io


def parse(text):
    """(header, rows): the rows as dicts, None for a row whose field count
    differs from the header's."""
    table = list(csv.reader(io.StringIO(text)))
    if not table:
        return [], []
    head = table[0]
    return head, [dict(zip(head, r)) if len(r) == len(head) else None
                  for r in table[1:]]


def value(v):
    """A JSON value as text, as the CSV writer writes it."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "%.6f" % v
    if isinstance(v, list):
        return " ".join(v)
    return str(v)


def equal(j, c):
    """A JSON value and its CSV field; numbers to the 6 decimals written."""
    if isinstance(j, (int, float)) and not isinstance(j, bool) and c:
        try:
            return abs(float(c) - j) <= 5e-7 * max(1.0, abs(j))
        except ValueError:
            return False
    return value(j) == c


def diffs(obj, row, keys):
    """The keys where the JSON object and the CSV row differ, described."""
    return ["%s: json %r csv %r" % (k, obj.get(k), row.get(k))
            for k in keys if not equal(obj.get(k), row.get(k))]
