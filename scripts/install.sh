#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# scripts/install.sh install|uninstall [user|module|all]
#
# What `make install` / `make uninstall` run (also install-user,
# install-module, uninstall-user, uninstall-module).
#   user     tdctl to $PREFIX/sbin, its man pages to $PREFIX/share/man/man8,
#            bash completion to $PREFIX/share/bash-completion/completions,
#            topdown.service to $PREFIX/lib/systemd/system (not enabled) and
#            its settings to /etc/default/topdown (kept if it exists;
#            uninstall removes it only when unchanged)
#   module   topdown.ko for kernel $KVER through kbuild's modules_install
#            into /lib/modules/$KVER/$INSTALL_MOD_DIR, then depmod; skipped,
#            with a message and exit status 0, when that kernel's headers
#            ($KDIR) are missing
#   all      both (default)
# Environment (make variables of the same names): DESTDIR (staging root,
# default none), PREFIX (default /usr/local), KVER (default uname -r),
# KDIR (default /lib/modules/$KVER/build), INSTALL_MOD_DIR (default
# updates). With DESTDIR, depmod is left to whoever installs the staged
# files on the target (a package's postinst), and uninstall also removes
# the directories it leaves empty inside DESTDIR.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ACTION=${1:-}
WHAT=${2:-all}
case $ACTION in install | uninstall) ;; *) echo "usage: $0 install|uninstall [user|module|all]" >&2; exit 2 ;; esac
case $WHAT in user | module | all) ;; *) echo "usage: $0 install|uninstall [user|module|all]" >&2; exit 2 ;; esac

DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
KVER=${KVER:-$(uname -r)}
KDIR=${KDIR:-/lib/modules/$KVER/build}
INSTALL_MOD_DIR=${INSTALL_MOD_DIR:-updates}
MAKE=${MAKE:-make}

BIN=$DESTDIR$PREFIX/sbin
MAN8=$DESTDIR$PREFIX/share/man/man8
COMP=$DESTDIR$PREFIX/share/bash-completion/completions
UNITDIR=$DESTDIR$PREFIX/lib/systemd/system
DEFAULT=$DESTDIR/etc/default/topdown
MODDIR=$DESTDIR/lib/modules/$KVER/$INSTALL_MOD_DIR
ARCH=$(uname -m)

say() { printf 'install: %s\n' "$*" >&2; }

run_depmod() {
    if [ -n "$DESTDIR" ]; then
        say "DESTDIR set: not running depmod (run 'depmod $KVER' on the target)"
    elif [ -d "/lib/modules/$KVER" ]; then
        say "depmod $KVER"
        depmod "$KVER"
    fi
}

install_user() {
    $MAKE -s -C "$ROOT/user" ARCH="$ARCH"
    $MAKE -s -C "$ROOT/Documentation/man"
    install -d "$BIN" "$MAN8" "$COMP"
    install -m 0755 "$ROOT/build/$ARCH/tdctl" "$BIN/tdctl"
    for f in "$ROOT"/Documentation/man/*.rst; do
        n=${f##*/}
        install -m 0644 "$ROOT/build/man/${n%.rst}.8" "$MAN8/"
    done
    install -m 0644 "$ROOT/user/cli/tdctl-completion.bash" "$COMP/tdctl"
    say "installed $BIN/tdctl, its man pages in $MAN8, $COMP/tdctl"
    install -d "$UNITDIR"
    sed "s|/usr/sbin/tdctl|$PREFIX/sbin/tdctl|g" "$ROOT/contrib/systemd/topdown.service" \
        >"$UNITDIR/topdown.service"
    chmod 0644 "$UNITDIR/topdown.service"
    if [ -e "$DEFAULT" ]; then
        say "kept the existing $DEFAULT"
    else
        install -D -m 0644 "$ROOT/contrib/systemd/topdown.default" "$DEFAULT"
    fi
    say "installed $UNITDIR/topdown.service (not enabled: systemctl enable --now topdown)"
}

install_module() {
    if [ ! -f "$KDIR/Makefile" ]; then
        say "no headers for kernel $KVER ($KDIR missing): the module is NOT installed."
        say "Install linux-headers-$KVER and run 'make install-module', or use"
        say "the topdown-dkms package (make deb), or set KVER=/KDIR= for another kernel."
        return 0
    fi
    B=$ROOT/build/install/$KVER/kmod-src
    rm -rf "$B"
    "$ROOT/scripts/dkms-tree.sh" "$B"
    say "building the module for $KVER"
    $MAKE -s -C "$KDIR" M="$B" modules
    # No signing here (the headers package has no key: sign-file would fail
    # noisily); Secure Boot machines use the DKMS package, which signs.
    $MAKE -s -C "$KDIR" M="$B" INSTALL_MOD_PATH="$DESTDIR" INSTALL_MOD_DIR="$INSTALL_MOD_DIR" CONFIG_MODULE_SIG_ALL= \
        modules_install
    say "installed the module into $MODDIR"
    run_depmod
}

# rm_prune FILE...: remove; inside a DESTDIR also the emptied directories.
rm_prune() {
    for f in "$@"; do
        [ -e "$f" ] || continue
        rm -f "$f"
        if [ -n "$DESTDIR" ]; then
            d=$(dirname "$f")
            while [ "${d#"$DESTDIR"}" != "$d" ] && [ "$d" != "$DESTDIR" ] && rmdir "$d" 2>/dev/null; do
                d=$(dirname "$d")
            done
        fi
    done
}

uninstall_user() {
    rm_prune "$BIN/tdctl" "$COMP/tdctl" "$UNITDIR/topdown.service"
    if [ -e "$DEFAULT" ]; then
        if cmp -s "$DEFAULT" "$ROOT/contrib/systemd/topdown.default"; then
            rm_prune "$DEFAULT"
        else
            say "kept $DEFAULT: it has local changes"
        fi
    fi
    for f in "$ROOT"/Documentation/man/*.rst; do
        n=${f##*/}
        rm_prune "$MAN8/${n%.rst}.8"
    done
    say "removed tdctl, its man pages and completion from $DESTDIR$PREFIX"
}

uninstall_module() {
    found=0
    for f in "$MODDIR"/topdown.ko "$MODDIR"/topdown.ko.xz "$MODDIR"/topdown.ko.gz "$MODDIR"/topdown.ko.zst; do
        [ -e "$f" ] || continue
        rm_prune "$f"
        found=1
    done
    if [ $found = 1 ]; then
        say "removed the module from $MODDIR"
        run_depmod
    fi
}

case $WHAT in all | user) "${ACTION}_user" ;; esac
case $WHAT in all | module) "${ACTION}_module" ;; esac
