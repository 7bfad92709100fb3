# SPDX-License-Identifier: GPL-2.0
# topdown: the two commands that matter on a fresh Debian 12 machine (root):
#   make demo    install, build, boot the arm64 guest and show real records
#   make check   install, build, run every test; ends "N passed, N failed"
# and for the edit-compile-test loop:
#   make         tdctl, the module for the installed kernel headers and the
#                man pages, installing nothing; says what is missing
#   make deps    install everything the rest needs (scripts/deps.sh)
#   make test    the fast host tests and make lint of the files changed
#                against main (under a minute after a build)
#   make test T=NAME   one host test (selftests/host/test_NAME.c, .sh, .py)
#   make guest SUITE=NAME   one guest (x86_64, 6.1) running one guest suite

all:
	scripts/build-local.sh

deps:
	scripts/deps.sh

# Everything for both guest architectures (what demo and check use).
build: deps man
	scripts/build.sh

# The fast tier: tdctl (make -C user), the host unit tests
# (selftests/host) but the slow ones (its Makefile's SLOW, which make
# check runs), one per CPU at a time (JOBS=N), and beside them make lint
# of the files changed against main (scripts/lint.sh --changed;
# checkpatch comes with make deps), each one's output whole when it ends.
# make lint and make check lint every file. T=NAME: only the host test
# NAME (test_NAME.c, .sh or .py in selftests/host; "cli" or "test_cli"),
# slow or not, no lint.
test:
	$(MAKE) -s -C user
ifeq ($(T),)
	$(MAKE) -s -C selftests/host all rdbench
	$(MAKE) -s --no-print-directory -j2 -Otarget test-host test-lint
else
	$(MAKE) -s -C selftests/host run T=$(T)
endif
test-host:
	$(MAKE) -s -C selftests/host run-fast
test-lint:
	+scripts/lint.sh --changed
.PHONY: test-host test-lint

# One guest, one suite: make guest SUITE=NAME [ARCH=x86_64|arm64]
# [KERNEL=6.1|5.10|6.12|6.12-trixie|7.3] [FLAVOR=cloud|rt] builds what
# that guest needs (the module for its kernel, tdctl, the selftests) and
# boots it to run only the suite NAME of selftests/guest/guest_main.sh or
# guest_load.sh, with its setup (scripts/guest.sh); several names, quoted,
# run together; APPEND="ARGS": kernel command-line arguments
# (APPEND="isolcpus=1 nohz_full=1" for isolated_test). SUITE=list, or no
# SUITE: the names.
GUEST_OPTS = $(if $(ARCH),--arch $(ARCH)) $(if $(KERNEL),--kernel $(KERNEL)) \
	$(if $(FLAVOR),--flavor $(FLAVOR)) $(if $(APPEND),--append "$(APPEND)")
guest:
	@scripts/guest.sh $(GUEST_OPTS) $(SUITE)

# tdctl's manual pages: Documentation/man/*.rst -> build/man/*.8
man:
	$(MAKE) -C Documentation/man
.PHONY: man

check:
	scripts/check.sh

# make check with every guest kernel Debian ships of the series 5.10, 6.1,
# 6.12 (bookworm's and trixie's) and 7.3: each arch x flavour, and the load
# suite on x86_64 6.12 and 7.3 and the x86_64 rt kernels of 6.1 and 6.12
# (scripts/check.sh says which guests make check keeps, and why).
check-kernels:
	scripts/check.sh --all-kernels

demo: build
	scripts/demo.sh

# The performance benchmark, its own tier: the table of
# Documentation/performance.rst, JSON in build/bench/bench.json. make check
# runs only its short form (scripts/bench.sh --short), so that it works.
bench:
	scripts/bench.sh

# Its host reader part alone (tdctl dump/report on record files).
bench-reader:
	scripts/bench.sh --reader

# The fuzz targets (selftests/fuzz: the record file reader, tdctl decode's
# parsers), libFuzzer for FUZZ_SECONDS (60) each; prints executions and
# edges covered per target, new inputs stay in build/fuzz/. Its own tier:
# make check only replays the committed corpora.
FUZZ_SECONDS ?= 60
fuzz:
	$(MAKE) -C selftests/fuzz fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

# The debug-kernel tier: lockdep, KASAN, KMEMLEAK, UBSAN, DEBUG_ATOMIC_SLEEP
# kernels from linux-source-6.1 and -6.12, and a KCSAN kernel from -6.12
# (each built once into /var/cache/topdown-debug-kernel), whole guest suite
# on each, kmemleak scan or KCSAN reports; ends "N passed, N failed".
check-debug:
	scripts/check-debug.sh

# The ring protocol's litmus tests (selftests/litmus) under the Linux
# kernel memory model, with herd7 in a sid root made once by debootstrap
# (cached in /var/cache/topdown-litmus); make check runs them only when
# that root exists.
check-litmus:
	scripts/check-litmus.sh

# Estimates from rotated event groups against exact per-task counts
# (selftests/kmod/estimates_test.c) in the x86_64 guest (pmusim, with CPU
# hotplug) and the arm64 -icount guest (instructions, pmusim), alone;
# make check runs it in its arm64 -icount guests (testing.rst).
check-estimates: build
	selftests/vm/run --arch x86_64 -- env TD_ESTIMATES=1 /selftests/estimates_test
	selftests/vm/run --arch arm64 --icount --timeout 1500 -- env TD_ICOUNT=1 /selftests/estimates_test

# tdctl load --level 2 and tdctl stat on every event set with Level 2
# groups, on the simulated PMU presented as each vendor's
# (selftests/tdctl/tdctl_level2_test.sh), in the x86_64 and arm64 guests;
# not in make check: 60 to 80 s in the x86_64 guest (testing.rst).
check-level2: build
	selftests/vm/run --arch x86_64 -- /selftests/tdctl_level2_test.sh
	selftests/vm/run --arch arm64 --icount --timeout 1500 -- /selftests/tdctl_level2_test.sh

# Install on this machine (scripts/install.sh says what goes where):
# tdctl, man pages, bash completion under $(PREFIX), and the module for the
# running kernel (KVER=, KDIR= for another) into
# /lib/modules/KVER/$(INSTALL_MOD_DIR), then depmod; DESTDIR= stages.
# install-user / install-module do one half.
PREFIX ?= /usr/local
INSTALL_MOD_DIR ?= updates
INSTALL_ENV = DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" INSTALL_MOD_DIR="$(INSTALL_MOD_DIR)" \
	$(if $(KVER),KVER="$(KVER)") $(if $(KDIR),KDIR="$(KDIR)") MAKE="$(MAKE)"

install:
	$(INSTALL_ENV) scripts/install.sh install all
install-user:
	$(INSTALL_ENV) scripts/install.sh install user
install-module:
	$(INSTALL_ENV) scripts/install.sh install module
uninstall:
	$(INSTALL_ENV) scripts/install.sh uninstall all
uninstall-user:
	$(INSTALL_ENV) scripts/install.sh uninstall user
uninstall-module:
	$(INSTALL_ENV) scripts/install.sh uninstall module
.PHONY: install install-user install-module uninstall uninstall-user uninstall-module

# Debian packages topdown-dkms and tdctl into build/deb/ (scripts/deb.sh).
deb:
	scripts/deb.sh
.PHONY: deb

# The packages as a user gets them (slow tier, not part of check): in a
# Debian 12 and a Debian 13 root made by debootstrap (cached in
# /var/cache/topdown-packages), apt install of make deb's packages, DKMS
# builds for 6.1 and 6.12 (Debian 12) and 6.12 and 7.3 (Debian 13 and its
# backports), then each kernel boots in QEMU with the DKMS-built module
# (smoke suite); tdctl-serve.service's systemd-analyze security score with
# each release's systemd, and apt resolving the arm64 tdctl package.
check-packages:
	scripts/check-packages.sh
.PHONY: check-packages

# serve's HTTP front end, fuzzed hard (selftests/fuzz/tier_http.sh: 10
# million libFuzzer executions of the request path and of the web
# configuration parser each, then AFL++; figures in
# build/fuzz/tier-http.txt), and its long load test (300 s of abuse;
# make check runs 20 s).
fuzz-http:
	$(MAKE) -C selftests/fuzz tier-http
serve-load:
	$(MAKE) -s -C selftests/host all
	TD_SERVE_LOAD=long OUT=$(CURDIR)/build/host/ PYTHONPATH=selftests/lib \
		python3 selftests/host/test_serve_load.py
.PHONY: fuzz-http serve-load

checkpatch: deps
	scripts/checkpatch.sh

# Every C file (checkpatch.pl --strict), shell script (shellcheck), Python
# file (pyflakes3, pycodestyle) and reStructuredText file (docutils),
# tdctl's layers, sparse on the module (make C=2, x86_64 and arm64 6.1),
# no tracker numbers outside Documentation/ and the commit subjects since the rule's base commit: scripts/lint.sh;
# make check runs it.
lint: deps
	scripts/lint.sh

clean:
	rm -rf build/x86_64 build/arm64 build/x86_64-rt build/arm64-rt build/*-5.10 build/*-6.12 \
		build/*-6.12-trixie build/*-7.3 build/host build/vm build/check build/man build/fuzz \
		build/install

distclean:
	rm -rf build

.PHONY: all deps build test guest check check-kernels check-debug check-litmus check-estimates check-level2 demo bench bench-reader fuzz checkpatch lint clean distclean
