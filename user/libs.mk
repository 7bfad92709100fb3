# SPDX-License-Identifier: GPL-2.0
# The libraries tdctl links, for user/Makefile and the programs that link
# tdctl's objects (selftests/host, the reader benchmark): libkmod, libbpf,
# OpenSSL (serve's TLS; SHA-256 of its password cache), libyaml (serve's
# --web.config.file), libxcrypt (bcrypt), pthreads (serve's bcrypt thread).
TDCTL_LDLIBS := -lkmod -lbpf -lssl -lcrypto -lyaml -lcrypt -lpthread -lm
