#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the valid seed files of the fuzz corpus (corpus/valid-*) with the
independent writer of the host tests. Run again if the format changes."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../host"))
import tdfile_gen  # noqa: E402

for name, make in tdfile_gen.SCENARIOS.items():
    sc = make()
    sc.records = sc.records[:6]     # small seeds mutate faster
    sc.write(os.path.join(HERE, "corpus", "valid-%s.td" % name))
# Format 2.0 (groups): enough records for rotated slices, error slices and
# both groups on both CPUs.
for name, make in tdfile_gen.SCENARIOS_GROUPS.items():
    sc = make()
    sc.records = sc.records[:24]
    sc.write(os.path.join(HERE, "corpus", "valid-%s.td" % name))
