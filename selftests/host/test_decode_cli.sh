#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CLI tests of `tdctl decode` and `tdctl list --root` (fake sysfs trees).
# TAP on stdout. Needs build/x86_64/tdctl (or $TDCTL) and mkfixture from
# this directory's Makefile ($OUT/mkfixture).
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/build/host/}
TDCTL=${TDCTL:-$TOP/build/x86_64/tdctl}
MKFIXTURE=$OUT/mkfixture

if [ ! -x "$TDCTL" ]; then
	echo "1..0 # SKIP tdctl not built ($TDCTL missing: make -C user)"
	exit 0
fi
if [ ! -x "$MKFIXTURE" ]; then
	echo "1..0 # SKIP $MKFIXTURE missing: make -C selftests/host"
	exit 0
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/td_cli.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
"$MKFIXTURE" "$TMP/fx" all || exit 2

T=$TMP
# shellcheck source=selftests/lib/tap.sh
. "$TOP/selftests/lib/tap.sh"
run() {	# run ARGS... -> $TMP/out, $TMP/err, $rc
	"$TDCTL" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
}
has() { grep -q -- "$1" "$TMP/out"; }
err_has() { grep -q -- "$1" "$TMP/err" "$TMP/out"; }

SEED003="CPU_CYCLES=3922334305 OP_RETIRED=853521883 OP_SPEC=854404256 \
STALL_SLOT=22679591134 STALL_SLOT_FRONTEND=8492337939 \
STALL_SLOT_BACKEND=14317243430 INST_RETIRED=825436139"

# shellcheck disable=SC2086
run decode --set arm_neoverse_n2 --revision r0p0 $SEED003
[ $rc -eq 0 ] && has "retiring *4.4%" && has "bad_speculation *0.0%" &&
	has "frontend_bound *23.3%" && has "backend_bound *73.0%"
expect "decode: seed 003 N2 counts print as perf did (4.4/0.0/23.3/73.0)" $? "$T/out" "$T/err"

# shellcheck disable=SC2086
run -j decode --set arm_neoverse_n2 --revision r0p0 $SEED003
[ $rc -eq 0 ] && has '"set":"arm_neoverse_n2"' && has '"metrics":{' &&
	has '"retiring":0.04' && has '"frontend_bound":0.23' &&
	has '"backend_bound":0.73' && has '"ipc":' && has '"flagged":\[\]'
expect "decode --json: set, metrics as fractions, flagged list" $? "$T/out" "$T/err"

# shellcheck disable=SC2086
run decode --set arm_neoverse_n2 --revision r0p3 $SEED003
[ $rc -eq 0 ] && has "frontend_bound *43.3%"
expect "decode: --revision r0p3 turns the erratum correction off" $? "$T/out" "$T/err"

printf '%s\n' '{"cycles": 600, "instructions": 900}' '' \
	'# comment' '{"instructions":300,"cycles":400}' >"$TMP/in"
run decode --set generic <"$TMP/in"
[ $rc -eq 0 ] && has "ipc *1.20" && has "2 input lines summed"
expect "decode: JSON lines on stdin are summed, then decoded" $? "$T/out" "$T/err"

printf '%s\n' '{"cycles": 600, "instructions": 9.5}' >"$TMP/in"
run decode --set generic <"$TMP/in"
[ $rc -ne 0 ] && err_has "stdin line 1"
expect "decode: a non-integer count on stdin is refused with its line" $? "$T/out" "$T/err"

printf '%s\n' '{"cycles": 600}' >"$TMP/in"
run decode --set generic <"$TMP/in"
[ $rc -ne 0 ] && err_has "missing counts" && err_has "instructions"
expect "decode: a stdin line missing an event is refused" $? "$T/out" "$T/err"

run decode --set intel_icl cycles=1000 instructions=1000 TOPDOWN.SLOTS_P=5000 \
	IDQ_UOPS_NOT_DELIVERED.CORE=1000 UOPS_RETIRED.SLOTS=2000 \
	TOPDOWN.BACKEND_BOUND_SLOTS=6000
[ $rc -eq 0 ] && has "backend_bound *120.0%  !" &&
	has "bad_speculation *-80.0%  !" && has "counting skid"
expect "decode: skid shown as computed and flagged with !" $? "$T/out" "$T/err"

run -j decode --set intel_icl cycles=0 instructions=0 TOPDOWN.SLOTS_P=0 \
	IDQ_UOPS_NOT_DELIVERED.CORE=0 UOPS_RETIRED.SLOTS=0 \
	TOPDOWN.BACKEND_BOUND_SLOTS=0
[ $rc -eq 0 ] && has '"retiring":null' && has '"ipc":null'
expect "decode --json: zero denominators give null" $? "$T/out" "$T/err"

run decode --set software cpu-clock=12345
[ $rc -eq 0 ] && has "no TopDown metrics"
expect "decode: software set says there are no TopDown metrics" $? "$T/out" "$T/err"

run decode --set amd_zen4 ls_not_halted_cyc=1000 de_src_op_disp.all=3000 \
	ex_ret_ops=2400 de_no_dispatch.no_ops_from_fe=1200 \
	de_no_dispatch.backend_stalls=1500 de_no_dispatch.smt_contention=300
[ $rc -eq 0 ] && has "smt_contention *5.0%" && has "retiring *40.0%"
expect "decode: amd_zen4 with smt_contention" $? "$T/out" "$T/err"

run decode --set nope cycles=1
[ $rc -ne 0 ] && err_has "unknown event set 'nope'" && err_has "generic"
expect "decode: unknown set refused with the known ones" $? "$T/out" "$T/err"

run decode --set generic cycles=1 instrs=2
[ $rc -ne 0 ] && err_has "unknown event 'instrs'" && err_has "instructions"
expect "decode: unknown event refused with the set's events" $? "$T/out" "$T/err"

run decode --set generic cycles=1 cycles=2 instructions=1
[ $rc -ne 0 ] && err_has "twice"
expect "decode: an event given twice is refused" $? "$T/out" "$T/err"

run decode --set generic --slots 4 cycles=1 instructions=1
[ $rc -ne 0 ] && err_has "takes no slots"
expect "decode: --slots refused for a set without slots" $? "$T/out" "$T/err"

run decode --set arm_neoverse_n2 --revision 0p1 CPU_CYCLES=1
[ $rc -ne 0 ] && err_has "bad revision"
expect "decode: malformed --revision refused" $? "$T/out" "$T/err"

run decode --set generic cycles=-1 instructions=1
[ $rc -ne 0 ]
expect "decode: negative count refused" $? "$T/out" "$T/err"

run decode --help
[ $rc -eq 0 ] && has "Usage:" && has "JSON lines"
expect "decode --help" $? "$T/out" "$T/err"

check_list() {	# fixture expected-set
	run list --root "$TMP/fx/$1"
	[ $rc -eq 0 ] && has "^Using $2: " && has "^Label: set=$2"
	expect "list --root $1: uses $2 and says why" $? "$T/out" "$T/err"
}
check_list skylake_server intel_skl
check_list broadwell intel_snb
check_list icelake_server intel_icl
check_list sapphire_rapids intel_spr
check_list alderlake_hybrid intel_adl_hybrid
check_list amd_zen3 generic
check_list amd_zen4 amd_zen4
check_list amd_zen5 amd_zen5
check_list neoverse_n1 arm_stall_cycles
check_list neoverse_n2_r0p0 arm_neoverse_n2
check_list neoverse_n2_r0p3 arm_neoverse_n2
check_list neoverse_v1 arm_neoverse_v1
check_list neoverse_v2 arm_neoverse_v2
check_list qemu_arm64_max generic
check_list qemu_x86_max software

run list --root "$TMP/fx/qemu_arm64_max"
has "not trusted on unknown cores"
expect "list: qemu arm64 says why no Neoverse set" $? "$T/out" "$T/err"

run list --root "$TMP/fx/neoverse_n2_r0p0" --events intel_skl
[ $rc -ne 0 ] && err_has "does not fit" && err_has "arm_neoverse_n2"
expect "list --events: a set that does not fit is refused with valid ones" $? "$T/out" "$T/err"

run list --root "$TMP/fx/neoverse_n2_r0p0" --events generic
[ $rc -eq 0 ] && has "^Using generic: requested"
expect "list --events generic: shows the requested set" $? "$T/out" "$T/err"

run -j list --root "$TMP/fx/alderlake_hybrid"
[ $rc -eq 0 ] && has '"selected":{"set":"intel_adl_hybrid"' &&
	has '"cpus":"16-23"' && has '"sets":\['
expect "list --json: detected, sets and selected plan" $? "$T/out" "$T/err"

run -j list --root "$TMP/fx/neoverse_n2_r0p0" --events bogus
[ $rc -ne 0 ] && has '"error"'
expect "list --json: errors come as a JSON error object" $? "$T/out" "$T/err"

run list
[ $rc -eq 0 ] && has "^Using "
expect "list on this host names its set" $? "$T/out" "$T/err"

echo "# $((n - fails)) passed, $fails failed"
tap_done
