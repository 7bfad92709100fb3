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

# shellcheck source=selftests/lib/tap.sh
. "$TOP/selftests/lib/tap.sh"
tap_tmpdir
"$MKFIXTURE" "$T/fx" all || exit 2
run() {	# run ARGS... -> $T/out, $T/err, $rc
	"$TDCTL" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
has() { grep -q -- "$1" "$T/out"; }
err_has() { grep -q -- "$1" "$T/err" "$T/out"; }

SEED003="CPU_CYCLES=3922334305 OP_RETIRED=853521883 OP_SPEC=854404256 \
STALL_SLOT=22679591134 STALL_SLOT_FRONTEND=8492337939 \
STALL_SLOT_BACKEND=14317243430 INST_RETIRED=825436139"

# shellcheck disable=SC2086
run decode --set arm_neoverse_n2 --revision r0p0 $SEED003
[ $rc -eq 0 ] && has "RETIRING[ *]*4.4%" && has "BAD_SPEC[ *]*0.0%" &&
	has "FRONTEND[ *]*23.3%" && has "BACKEND[ *]*73.0%"
expect "decode: seed 003 N2 counts print as perf did (4.4/0.0/23.3/73.0)" $? "$T/out" "$T/err"

# shellcheck disable=SC2086
run -j decode --set arm_neoverse_n2 --revision r0p0 $SEED003
[ $rc -eq 0 ] && has '"set":"arm_neoverse_n2"' && has '"metrics":{' &&
	has '"retiring":0.04' && has '"frontend_bound":0.23' &&
	has '"backend_bound":0.73' && has '"ipc":' && has '"flagged":\[\]'
expect "decode --json: set, metrics as fractions, flagged list" $? "$T/out" "$T/err"

# shellcheck disable=SC2086
run decode --set arm_neoverse_n2 --revision r0p3 $SEED003
[ $rc -eq 0 ] && has "FRONTEND[ *]*43.3%"
expect "decode: --revision r0p3 turns the erratum correction off" $? "$T/out" "$T/err"

printf '%s\n' '{"cycles": 600, "instructions": 900}' '' \
	'# comment' '{"instructions":300,"cycles":400}' >"$T/in"
run decode --set generic <"$T/in"
[ $rc -eq 0 ] && has "IPC[ *]*1.20" && has "2 input lines summed"
expect "decode: JSON lines on stdin are summed, then decoded" $? "$T/out" "$T/err"

printf '%s\n' '{"cycles": 600, "instructions": "9.5x"}' >"$T/in"
run decode --set generic <"$T/in"
[ $rc -ne 0 ] && err_has "stdin line 1" && err_has "9.5x"
expect "decode: a count that is not a number on stdin is refused with its line" $? "$T/out" "$T/err"

printf '%s\n' '{"cycles": 600}' >"$T/in"
run decode --set generic <"$T/in"
[ $rc -ne 0 ] && err_has "missing counts" && err_has "instructions"
expect "decode: a stdin line missing an event is refused" $? "$T/out" "$T/err"

run decode --set intel_icl cycles=1000 instructions=1000 TOPDOWN.SLOTS_P=5000 \
	IDQ_UOPS_NOT_DELIVERED.CORE=1000 UOPS_RETIRED.SLOTS=2000 \
	TOPDOWN.BACKEND_BOUND_SLOTS=6000
[ $rc -eq 0 ] && has "BACKEND[ *]*120.0%!" &&
	has "BAD_SPEC[ *]*-80.0%!" && has "counting skid"
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
[ $rc -eq 0 ] && has "SMT_CONT[ *]*5.0%" && has "RETIRING[ *]*40.0%"
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

# ---- perf's names, numbers and output ----------------------

PERF_N2="cpu_cycles=3,922,334,305 op_retired=853,521,883 op_spec=854404256 \
stall_slot=22679591134 stall_slot_frontend=8492337939 \
stall_slot_backend=14317243430"

# shellcheck disable=SC2086
run decode --set arm_neoverse_n2 --revision r0p0 $PERF_N2
[ $rc -eq 0 ] && has "RETIRING[ *]*4.4%" && has "BAD_SPEC[ *]*0.0%" &&
	has "FRONTEND[ *]*23.3%" && has "BACKEND[ *]*73.0%" &&
	! has "IPC" && has "no count for INST_RETIRED"
expect "decode: perf's lower-case names and digit groups; INST_RETIRED not required" $? "$T/out" "$T/err"

run decode --set amd_zen4 cycles=1000 de_src_op_disp.all=3000 ex_ret_ops=2400 \
	de_no_dispatch_per_slot.no_ops_from_frontend=1200 \
	DE_NO_DISPATCH_PER_SLOT.BACKEND_STALLS=1500 \
	de_no_dispatch_per_slot.smt_contention=300
[ $rc -eq 0 ] && has "SMT_CONT[ *]*5.0%" && has "FRONTEND[ *]*20.0%"
expect "decode: perf's amdzen4 names (de_no_dispatch_per_slot.*) and cycles" $? "$T/out" "$T/err"

run decode --set intel_icl cpu-cycles=1000 instructions:u=1500 \
	topdown.slots_p=5000 IDQ_UOPS_NOT_DELIVERED.CORE=1000 \
	cpu/uops_retired.slots/=2000 topdown.backend_bound_slots=1500
[ $rc -eq 0 ] && has "RETIRING[ *]*40.0%" && has "BAD_SPEC[ *]*10.0%" &&
	has "IPC[ *]*1.50"
expect "decode: cpu-cycles, topdown.slots_p, cpu/EVENT/ and :u modifiers" $? "$T/out" "$T/err"

bad=0
for c in 2e6 2,000,000 2000000.0 2.0E+6 0x1e8480 1999999.5; do
	run -j decode --set generic cycles=1000000 "instructions=$c"
	{ [ $rc -eq 0 ] && has '"ipc":2[,}]'; } || { bad=1; echo "# $c"; }
done
expect "decode: counts with exponents, digit groups, fractions, hex" $bad "$T/out" "$T/err"

bad=0
for c in 1,00,000 1,0000 1e 1.5.2 -5 +5 abc 1e30; do
	run decode --set generic cycles=1000 "instructions=$c"
	{ [ $rc -ne 0 ] && err_has "count of instructions"; } || { bad=1; echo "# $c"; }
done
expect "decode: malformed counts refused (bad groups, signs, > 64 bits)" $bad "$T/out" "$T/err"

run -j decode --set generic cycles=1.8446744073709551615e19 \
	instructions=18446744073709551615.000000
[ $rc -eq 0 ] && has '"ipc":1[,}]'
expect "decode: 2^64-1 exactly from an exponent and from perf's %f form" $? "$T/out" "$T/err"

run decode --set generic cycles=1 instructions=18446744073709551615.5
[ $rc -ne 0 ] && err_has "exceeds 64 bits"
expect "decode: a count rounding past 2^64-1 is refused" $? "$T/out" "$T/err"

run decode --set generic cycles=1000 instructions=2000 --json
[ $rc -eq 0 ] && has '"ipc":2'
expect "decode: output options after the counts" $? "$T/out" "$T/err"

run decode cycles=1000 instructions=2000 --set generic -o "$T/o.txt"
[ $rc -eq 0 ] && grep -q "IPC[ *]*2.00" "$T/o.txt"
expect "decode: --set and -o after the counts" $? "$T/out" "$T/err"

# shellcheck disable=SC2086
run decode --set arm_neoverse_n2 $PERF_N2
[ $rc -eq 0 ] && has "^formula: Arm STALL_SLOT" &&
	has "^assumes: revision r0p0 assumed, no --revision: erratum correction ON" &&
	has "\-\-revision r0p3" && has "^assumes: slot width 5, the set's default" &&
	has "\-\-slots N"
expect "decode: without --revision the output names the formula, revision and slots assumed" $? "$T/out" "$T/err"

# shellcheck disable=SC2086
run -j decode --set arm_neoverse_n2 --revision r0p3 --slots 5 $PERF_N2
[ $rc -eq 0 ] && has '"formula":"Arm STALL_SLOT' &&
	has '"assumptions":\["slot width 5 (--slots)","revision r0p3: erratum correction off'
expect "decode --json: formula and assumptions" $? "$T/out" "$T/err"

FX=$TOP/selftests/host/perf-stat
check_n2() {	# file description [decode options]
	f=$1 what=$2
	shift 2
	run decode --set arm_neoverse_n2 --revision r0p0 "$@" <"$FX/$f"
	[ $rc -eq 0 ] && has "RETIRING[ *]*4.4%" && has "BAD_SPEC[ *]*0.0%" &&
		has "FRONTEND[ *]*23.3%" && has "BACKEND[ *]*73.0%"
	expect "decode: $what ($f)" $? "$T/out" "$T/err"
}
check_n2 n2-seed003.txt "plain perf stat -M output: each event once, cpu_cycles of three groups averaged"
has "perf scaled some counts"
expect "decode: perf's multiplexing is named as an assumption" $? "$T/out" "$T/err"
check_n2 n2-6.1.json "perf 6.1 stat -j lines, other events skipped"
has "IPC[ *]*0.21"
expect "decode: perf 6.1 -j INST_RETIRED gives the IPC" $? "$T/out" "$T/err"
check_n2 n2-6.12-percpu.csv "perf 6.12 stat -x, -A: CPUs summed"

run decode --set intel_icl -x ';' <"$FX/icl-6.1-interval.csv"
[ $rc -eq 0 ] && has "2 intervals of perf stat -I (12 input lines)" &&
	has "^ *1.001000000  *\\*40.0%  *10.0%  *20.0%  *30.0%  *1.50$" &&
	has "^ *2.002000000  *\\*40.0%  *10.0%  *20.0%  *30.0%  *1.50$" &&
	has "^\\* the largest TopDown Level-1 class"
expect "decode -x ';': perf 6.1 -I, one result per interval, its bottleneck marked" $? "$T/out" "$T/err"

run decode --set intel_adl_hybrid <"$FX/adl-6.12-hybrid.json"
[ $rc -eq 0 ] && has "RETIRING[ *]*33.3%" && has "FRONTEND[ *]*20.0%" &&
	has "BACKEND[ *]*36.7%" && has "BAD_SPEC[ *]*10.0%"
expect "decode: perf 6.12 -j hybrid cpu_core/EVENT/ and cpu_atom/EVENT/ names" $? "$T/out" "$T/err"

sed 's/^CPU1,1922334305,/CPU1,<not counted>,/' "$FX/n2-6.12-percpu.csv" >"$T/in"
run decode --set arm_neoverse_n2 <"$T/in"
[ $rc -ne 0 ] && err_has "stdin line 4" && err_has "no count for CPU_CYCLES"
expect "decode: perf's <not counted> for a needed event is an error with its line" $? "$T/out" "$T/err"

grep -v cpu_atom "$FX/adl-6.12-hybrid.json" >"$T/in"
grep cpu_atom "$FX/adl-6.12-hybrid.json" |
	sed 's/"counter-value" : "[0-9.]*"/"counter-value" : "<not counted>"/' >>"$T/in"
run decode --set intel_adl_hybrid <"$T/in"
[ $rc -eq 0 ] && has "RETIRING[ *]*30.0%" && has "FRONTEND[ *]*20.0%" &&
	has "BACKEND[ *]*40.0%" && has "BAD_SPEC[ *]*10.0%" &&
	has "perf did not count atom/TOPDOWN_RETIRING.ALL (<not counted>): taken as 0"
expect "decode: hybrid events perf did not count (task only on cpu_core) are 0, and said so" $? "$T/out" "$T/err"

printf '     <not counted>      cycles\n' >"$T/in"
run decode --set generic <"$T/in"
[ $rc -ne 0 ] && err_has "perf has no count for cycles ('<not counted>')"
expect "decode: plain perf stat <not counted> of a non-hybrid event is an error" $? "$T/out" "$T/err"

printf '%s\n' "1.0,1000,,task-clock,1,100.00,," >"$T/in"
run decode --set generic <"$T/in"
[ $rc -ne 0 ] && err_has "no counts of set generic" && err_has "only other events"
expect "decode: perf output without the set's events is refused" $? "$T/out" "$T/err"

check_list() {	# fixture expected-set
	run list --root "$T/fx/$1"
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
check_list neoverse_v3 arm_neoverse_v3
check_list neoverse_n3 arm_neoverse_n3
check_list qemu_arm64_max generic
check_list qemu_x86_max software

# Zen 6: family 0x1a outside amdzen5's models of perf 7.3's mapfile.csv
# (0x00-0x2f, 0x40-0x4f, 0x60-0x7f) is amdzen6, amd_zen5's formulas
cp -r "$T/fx/amd_zen5" "$T/fx/amd_zen6"
sed -i 's/^model\t\t: .*/model\t\t: 80/' "$T/fx/amd_zen6/proc/cpuinfo"
check_list amd_zen6 amd_zen5
has "^Using amd_zen5: AMD Zen 6 (family 0x1a model 0x50)"
expect "list --root: family 0x1a model 0x50 is Zen 6" $? "$T/out" "$T/err"

run list --root "$T/fx/qemu_arm64_max"
has "not trusted on unknown cores"
expect "list: qemu arm64 says why no Neoverse set" $? "$T/out" "$T/err"

run list --root "$T/fx/neoverse_n2_r0p0" --events intel_skl
[ $rc -eq 0 ] && has "^Set intel_skl, not usable here" && has "does not fit" &&
	has "arm_neoverse_n2" && has "INT_MISC.RECOVERY_CYCLES .*umask=0x01" &&
	has "^Formula: " && has "^Encodings: perf pmu-events x86/skylake"
expect "list --events: a set that does not fit is shown, with why and the valid ones" $? "$T/out" "$T/err"

# An optional event is marked as such, not as IPC's: on AMD the fifth
# class smt_contention reads it.
run list --root "$T/fx/neoverse_n2_r0p0" --events amd_zen4
[ $rc -eq 0 ] && has "^  de_no_dispatch.smt_contention .*\\[optional\\]$" &&
	has "^  \\[optional\\]: decode does without its count" && ! has "IPC only"
expect "list --events amd_zen4: smt_contention's event optional, not 'IPC only'" $? "$T/out" "$T/err"

run -j list --root "$T/fx/neoverse_n2_r0p0" --events intel_icl
[ $rc -eq 0 ] && has '"set":"intel_icl","fits":false' && has '"label":null' &&
	has '"name":"TOPDOWN.SLOTS_P","pmu":"core PMU","type":null,"config":420' &&
	has '"aliases":\["TOPDOWN.SLOTS","slots"\]'
expect "list --json --events: a set that does not fit, from its table" $? "$T/out" "$T/err"

run list --root "$T/fx/neoverse_n2_r0p0" --events generic
[ $rc -eq 0 ] && has "^Using generic: requested"
expect "list --events generic: shows the requested set" $? "$T/out" "$T/err"

run -j list --root "$T/fx/alderlake_hybrid"
[ $rc -eq 0 ] && has '"selected":{"set":"intel_adl_hybrid"' &&
	has '"cpus":"16-23"' && has '"sets":\['
expect "list --json: detected, sets and selected plan" $? "$T/out" "$T/err"

run -j list --root "$T/fx/neoverse_n2_r0p0" --events bogus
[ $rc -ne 0 ] && has '"error"'
expect "list --json: errors come as a JSON error object" $? "$T/out" "$T/err"

# ---- list -s SET shows that set alone ---------------

run list --root "$T/fx/neoverse_n2_r0p0" -s intel_icl
[ $rc -eq 0 ] && has "^Set intel_icl, not usable here" && has "^Events:" &&
	! has "^Detected" && ! has "^Event sets" && ! has "chosen"
expect "list -s SET: only that set, no detection or set table, never 'chosen' where it does not fit" $? "$T/out" "$T/err"

run list --root "$T/fx/neoverse_n2_r0p0" -s generic
[ $rc -eq 0 ] && has "^Using generic: " && has "^Label: set=generic" &&
	! has "^Detected" && ! has "^Event sets"
expect "list -s SET that fits: only that set, with its plan" $? "$T/out" "$T/err"

run -j list --root "$T/fx/neoverse_n2_r0p0" -s intel_icl
[ $rc -eq 0 ] && ! has '"detected"' &&
	has '"sets":\[{"name":"intel_icl","events":6,"fits":false,"chosen":false,' &&
	has '"selected":{"set":"intel_icl","fits":false'
expect "list --json -s SET: that set's row (chosen false where it does not fit) and its details" $? "$T/out" "$T/err"

run list --csv --root "$T/fx/neoverse_n2_r0p0" -s intel_icl
[ $rc -eq 0 ] && [ "$(wc -l <"$T/out")" -eq 2 ] && has '^"intel_icl",6,false,false,'
expect "list --csv -s SET: the header and that set's row, not chosen" $? "$T/out" "$T/err"

run list --root "$T/fx/neoverse_n2_r0p0" -s bogus
bad=$((rc != 2))
for s in intel_adl_hybrid intel_spr intel_icl intel_skl intel_snb amd_zen5 amd_zen4 \
	arm_neoverse_n2 arm_neoverse_v1 arm_neoverse_v2 arm_neoverse_n3 arm_neoverse_v3 \
	arm_stall_cycles generic software; do
	err_has "$s" || { bad=1; echo "# $s not named"; }
done
err_has "unknown event set 'bogus'" || bad=1
err_has "see 'tdctl list --help'" || bad=1
expect "list -s bogus: a usage error (exit 2, the hint) naming all 15 sets" $bad "$T/out" "$T/err"

run list
[ $rc -eq 0 ] && has "^Using "
expect "list on this host names its set" $? "$T/out" "$T/err"

echo "# $((n - fails)) passed, $fails failed"
tap_done
