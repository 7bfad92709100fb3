# SPDX-License-Identifier: GPL-2.0
# topdown: the two commands that matter on a fresh Debian 12 machine (root):
#   make demo    install, build, boot the arm64 guest and show real records
#   make check   install, build, run every test; ends "N passed, N failed"

all: build

deps:
	scripts/deps.sh

build: deps man
	scripts/build.sh

# tdctl's manual pages: Documentation/man/*.rst -> build/man/*.8
man:
	$(MAKE) -C Documentation/man
.PHONY: man

check:
	scripts/check.sh

# make check with every guest kernel combination: adds the load suite on
# x86_64 6.12 and both x86_64 rt kernels.
check-kernels:
	scripts/check.sh --all-kernels

demo: build
	scripts/demo.sh

# The performance benchmark, its own tier (not part of check): the table of
# Documentation/performance.rst, JSON in build/bench/bench.json.
bench:
	scripts/bench.sh

# Its host reader part alone (tdctl dump/report on record files).
bench-reader:
	scripts/bench.sh --reader

# The debug-kernel tier: lockdep, KASAN, KMEMLEAK, UBSAN, DEBUG_ATOMIC_SLEEP
# kernels from linux-source-6.1 and -6.12 (each built once into
# /var/cache/topdown-debug-kernel), whole guest suite on each, kmemleak
# scan; ends "N passed, N failed".
check-debug:
	scripts/check-debug.sh

checkpatch: deps
	scripts/checkpatch.sh

clean:
	rm -rf build/x86_64 build/arm64 build/x86_64-rt build/*-6.12 build/host build/vm build/check build/man build/fuzz

distclean:
	rm -rf build

.PHONY: all deps build check check-kernels check-debug demo bench bench-reader checkpatch clean distclean
