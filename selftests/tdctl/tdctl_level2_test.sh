#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tdctl load --level 2 and tdctl stat on every event set with groups below
# Level 1 (intel_icl, intel_skl, intel_snb, amd_zen4, amd_zen5,
# arm_neoverse_n2, arm_neoverse_v2), on the simulated PMU (selftests/pmusim,
# layout "any"), which takes each vendor's encodings: as pmusim_test does,
# a private mount namespace shows a fake /proc/cpuinfo,
# /sys/devices/system/cpu and /sys/bus/event_source/devices whose core PMU
# has td_pmusim's type, and topdown's test build (topdown_hooks.ko,
# test_pmu_type=) counts on it. Layout "any" puts event config % 8 on
# counter config % 8, so the counts alias unrelated events and the values
# mean nothing as hardware; but they are known: the workload's row is
# checked against tdctl decode of its true counts (check_truth), and the
# structure of every row of `tdctl stat --csv --by comm -- WORKLOAD`
# (Documentation/man/tdctl-stat.rst, design.rst "Estimates from rotated
# groups"):
#  - load picks the set asked for and rotates its Level 1 and 2 groups;
#  - every metric of those groups (tdctl list) has its three columns, and a
#    value or unknown (empty) in every row;
#  - every coverage is within [0, 1], every error >= 0 (and some above 0),
#    a known value has an error and an unknown one none;
#  - where a group's formula defines a Level 2 class as its Level 1
#    parent minus its sibling (tdctl list -j: "C = P - S"), C + S equals
#    P within 3 times the sum of their errors (they come from different
#    groups' slices) in every row where all three are known, and the
#    workload's row has them known;
#  - every Level 1 and 2 metric of the workload's row (comm sh) equals
#    what tdctl decode computes from its true counts, within 4 of its
#    errors;
#  - stat exits 0 (the workload's status).
# A set whose events td_pmusim cannot take is SKIPped with the reason.
# Runs as root in a guest (busybox sh), prints TAP. The module must not be
# loaded at the start; TD_LEVEL2_SETS overrides the list of sets.
TDCTL=${TDCTL:-tdctl}
# shellcheck source=selftests/lib/tap.sh
. "$(dirname "$0")/tap.sh"
tap_tmpdir
D=$(cd "$(dirname "$0")" && pwd)
SIM=/sys/kernel/debug/td_pmusim
SETS=${TD_LEVEL2_SETS:-"intel_icl intel_skl intel_snb amd_zen4 amd_zen5 arm_neoverse_n2 arm_neoverse_v2"}

echo "TAP version 13"
t_start=$(cut -d' ' -f1 /proc/uptime)
if is_bpf; then
	skip "Level 2 on td_pmusim" "groups are the module backend's (tdctl-load(8))"
	tap_done
	exit
fi
[ -d /sys/kernel/debug/td_pmusim ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
sim_ours=
if ! [ -d $SIM ]; then
	if ! insmod "$D/td_pmusim.ko" 2>"$T/err"; then
		not_ok "insmod td_pmusim.ko" "$T/err"
		tap_done
		exit
	fi
	sim_ours=1
fi
TYPE=$(cat /sys/bus/event_source/devices/td_pmusim/type)
# Every task without a profile of its own counts one background unit per
# noise tick (200 us). The workload's sh counts only the work it writes,
# at other rates, so that a row mixing it with its usleep children varies
# from stretch to stretch. No read_tick: with several events on one
# counter, the unit each read adds would reach the events read before it
# only in the next slice, another task's.
check "td_pmusim: layout any, two profiles on all 8 counters, noise" \
	sh -c "echo any >$SIM/layout &&
	echo 'comm=* ev0=1000 ev1=1300 ev2=700 ev3=500 ev4=900 ev5=1100 ev6=300 ev7=600' >$SIM/profiles &&
	echo 'comm=sh ev0=1000 ev1=400 ev2=1500 ev3=200 ev4=1200 ev5=100 ev6=800 ev7=1700' >$SIM/profiles &&
	echo 0 >$SIM/read_tick && echo 200 >$SIM/noise"

# fake SET DIR: the machine of SET under DIR (cpuinfo, cpu/, pmus/).
fake() {
	mkdir -p "$2/cpu" "$2/pmus"
	ncpu=$(grep -c '^processor' /proc/cpuinfo)
	pmu=cpu
	case $1 in
	intel_icl) v=GenuineIntel f=6 m=106 ;;
	intel_skl) v=GenuineIntel f=6 m=85 ;;
	intel_snb) v=GenuineIntel f=6 m=42 ;;
	amd_zen4) v=AuthenticAMD f=25 m=17 ;;
	amd_zen5) v=AuthenticAMD f=26 m=2 ;;
	arm_neoverse_n2) pmu=armv8_pmuv3_0 part=0xd49 rev=3 slots=5 ;;
	arm_neoverse_v2) pmu=armv8_pmuv3_0 part=0xd4f rev=1 slots=8 ;;
	*) return 1 ;;
	esac
	: >"$2/cpuinfo"
	c=0
	while [ $c -lt "$ncpu" ]; do
		if [ $pmu = cpu ]; then
			printf 'processor\t: %d\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\nmodel name\t: td_pmusim %s\nstepping\t: 1\n\n' \
				"$c" "$v" "$f" "$m" "$1" >>"$2/cpuinfo"
		else
			printf 'processor\t: %d\nBogoMIPS\t: 100.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: %s\nCPU revision\t: %d\n\n' \
				"$c" "$part" "$rev" >>"$2/cpuinfo"
			mkdir -p "$2/cpu/cpu$c/regs/identification"
			printf '0x00000000410f%s%d\n' "${part#0x}" "$rev" \
				>"$2/cpu/cpu$c/regs/identification/midr_el1"
		fi
		c=$((c + 1))
	done
	for f in possible present online; do
		cat /sys/devices/system/cpu/possible >"$2/cpu/$f"
	done
	cat /sys/devices/system/cpu/online >"$2/cpu/online"
	mkdir -p "$2/pmus/$pmu"
	echo "$TYPE" >"$2/pmus/$pmu/type"
	if [ $pmu != cpu ]; then
		mkdir -p "$2/pmus/$pmu/caps"
		printf '0x%08x\n' "$slots" >"$2/pmus/$pmu/caps/slots"
		cat /sys/devices/system/cpu/possible >"$2/pmus/$pmu/cpus"
	fi
}

# The workload: 150 short sleeps (a slice ends at each), so that every
# group measures many stretches of it, and 1 to 5 units of work each time.
cat >"$T/work.sh" <<EOF
i=0
while [ \$i -lt 150 ]; do
	echo \$((i % 5 + 1)) >$SIM/work
	usleep 2000
	i=\$((i + 1))
done
EOF

# Inside the private mount namespace: $1 SET, $2 the fake machine, $3 out.
cat >"$T/inner.sh" <<EOF
mount --make-rprivate / 2>/dev/null
mount --bind "\$2/cpuinfo" /proc/cpuinfo &&
	mount --bind "\$2/cpu" /sys/devices/system/cpu &&
	mount --bind "\$2/pmus" /sys/bus/event_source/devices || exit 90
"$TDCTL" list -s "\$1" >"\$3/list" 2>&1 || exit 91
"$TDCTL" list -s "\$1" -j >"\$3/list.json" 2>&1 || exit 91
"$TDCTL" --json load -s "\$1" --level 2 --rotate 5 >"\$3/load" 2>&1 || exit 92
start=\$(cut -d' ' -f1 /proc/uptime)
grep '^comm=sh ' $SIM/profiles >"\$3/sh0"
"$TDCTL" stat --csv --by comm -- sh "$T/work.sh" >"\$3/stat.csv" 2>"\$3/stat.err"
st=\$?
grep '^comm=sh ' $SIM/profiles >"\$3/sh1"
echo "\$start \$(cut -d' ' -f1 /proc/uptime)" >"\$3/time"
exit \$st
EOF

# awk functions for stat's and decode's CSV: known(value), num(field
# without quotes), csv(line, fields): the fields of a line (quoted fields
# may hold commas), their number
AWK_CSV='
	function known(s) { return s != "" && s != "unknown" && s != "null" && s !~ /nan/ }
	function num(s) { gsub(/"/, "", s); return s }
	function csv(line, f,    n, q, i, ch, cur) {
		n = 0; q = 0; cur = ""
		for (i = 1; i <= length(line); i++) {
			ch = substr(line, i, 1)
			if (ch == "\"") q = !q
			else if (ch == "," && !q) { f[++n] = cur; cur = "" }
			else cur = cur ch
		}
		f[++n] = cur
		return n
	}
'

# check_stat DIR: the CSV against the groups' metrics; prints what is wrong.
check_stat() {
	# the metrics of the groups --level 2 loads (level 1 and 2)
	awk '/^  [a-z0-9]+ +[a-z0-9_]+ +level [12] / { take = 1; next }
	     /^  [a-z0-9]+ +[a-z0-9_]+ +level / { take = 0; next }
	     take && $1 == "metrics:" { for (i = 2; i <= NF; i++) print $i; take = 0 }' \
		"$1/list" >"$1/metrics"
	grep -o '[a-z_0-9]* = [a-z_0-9]* - [a-z_0-9]*' "$1/list.json" | sort -u >"$1/rel"
	awk -F, -v mfile="$1/metrics" -v rfile="$1/rel" "$AWK_CSV"'
	BEGIN {
		while ((getline l < mfile) > 0) { m[++nm] = l; ism[l] = 1 }
		while ((getline l < rfile) > 0) {
			split(l, w, " ")
			if (ism[w[1]] && ism[w[3]] && ism[w[5]]) {
				nr++; rc[nr] = w[1]; rp[nr] = w[3]; rs[nr] = w[5]
			}
		}
		if (!nm) { print "no metrics in tdctl list"; bad++ }
	}
	{ delete F; csv($0, F) }
	NR == 1 {
		for (i in F) col[F[i]] = i
		for (k = 1; k <= nm; k++)
			if (!col[m[k]] || !col[m[k] "_coverage"] || !col[m[k] "_error"]) {
				print "no columns for " m[k]; bad++
			}
		next
	}
	{
		rows++
		for (k = 1; k <= nm; k++) {
			v = num(F[col[m[k]]]); c = num(F[col[m[k] "_coverage"]])
			e = num(F[col[m[k] "_error"]])
			if (!known(c) || c + 0 < 0 || c + 0 > 1) {
				print "row " rows " " m[k] ": coverage " c; bad++
			}
			if (known(v)) { nval++ } else { nunk++ }
			if (known(e) && e + 0 > 0) npos++
			if (known(e) && (e + 0 < 0 || !known(v))) {
				print "row " rows " " m[k] ": value " v " error " e; bad++
			}
			if (known(v) && !known(e)) {
				print "row " rows " " m[k] ": value " v " without error"; bad++
			}
		}
		for (r = 1; r <= nr; r++) {
			vc = num(F[col[rc[r]]]); vp = num(F[col[rp[r]]]); vs = num(F[col[rs[r]]])
			if (!known(vc) || !known(vp) || !known(vs))
				continue
			tol = 3 * (num(F[col[rc[r] "_error"]]) + num(F[col[rp[r] "_error"]]) + \
				   num(F[col[rs[r] "_error"]])) + 2e-6	# and the 6 decimals of the CSV
			d = vc + vs - vp; if (d < 0) d = -d
			nsum++
			if (d > tol) {
				print "row " rows ": " rc[r] " " vc " + " rs[r] " " vs " = " vc + vs \
				      ", " rp[r] " " vp " (tolerance " tol ")"; bad++
			}
		}
	}
	END {
		if (!rows) { print "no rows"; bad++ }
		if (!nval) { print "no known value in any row"; bad++ }
		if (nr && !nsum) { print "no row with a sum to check"; bad++ }
		if (!npos) { print "no error above 0 in any row"; bad++ }
		printf "# %d rows, %d metrics: %d values (%d with an error above 0), %d unknown; %d relations, checked in %d rows\n", \
		       rows, nm, nval, npos, nunk, nr, nsum > "/dev/stderr"
		exit bad > 0
	}' "$1/stat.csv"
}

# check_truth SET DIR [DECODE OPTION...]: the workload's row (comm sh)
# against the truth. td_pmusim counts the workload's sh only when it
# writes work (it has a profile: no noise), so its true count of an event
# is its units times its profile's rate on counter config % 8, read from
# td_pmusim's profiles before and after stat. tdctl decode computes every
# metric from those counts with the set's formula (the formulas are
# checked against perf's on the host); stat's estimate of each, from the
# rotated groups' slices, must equal it within 4 of its errors (each
# slice's counts are in the same proportion, so the estimates are exact
# and their errors 0, give or take the CSV's 6 decimals). Hardware events
# (cycles, instructions) reach td_pmusim only in the x86_64 guest, which
# has no PMU of its own: elsewhere they are left out, and so are the
# metrics that need them; returns 2 where every group needs one.
check_truth() {
	set_=$1 dir=$2
	shift 2
	read -r _ u0 _ <"$dir/sh0"
	read -r _ u1 r0 r1 r2 r3 r4 r5 r6 r7 <"$dir/sh1"
	units=$((${u1#units=} - ${u0#units=}))
	hw=0
	[ "$(uname -m)" = x86_64 ] && hw=1
	# the events stat counted (its CSV's columns), with their configs
	# from tdctl list
	grep -oE '"name":"[^"]*","pmu":"[^"]*",("type":[0-9a-z]*,)?"config":[0-9]*' "$dir/list.json" |
		sed 's/"name":"\([^"]*\)","pmu":"\([^"]*\)",.*"config":\([0-9]*\)/\1|\2|\3/' |
		sort -u >"$dir/events"
	head -n 1 "$dir/stat.csv" |
		awk -v u="$units" -v hw="$hw" -v r="$r0 $r1 $r2 $r3 $r4 $r5 $r6 $r7" -v efile="$dir/events" "$AWK_CSV"'
		BEGIN {
			split(r, rate, " ")
			while ((getline l < efile) > 0) {
				split(l, w, "|")
				if (w[2] == "core PMU" || (w[2] == "hardware" && hw))
					cfg[w[1]] = w[3]
			}
		}
		{
			n = csv($0, col)
			for (i = 1; i <= n; i++)
				if (col[i] in cfg)
					printf "%s=%.0f\n", col[i], u * rate[cfg[col[i]] % 8 + 1]
		}' >"$dir/truth.args"
	while read -r a; do
		set -- "$@" "$a"
	done <"$dir/truth.args"
	if ! "$TDCTL" --csv decode -s "$set_" --level 2 "$@" >"$dir/truth.csv" 2>"$dir/truth.err"; then
		[ $hw = 0 ] && grep -q "has all its counts" "$dir/truth.err" && return 2
		return 1
	fi
	echo "# $set_: the workload did $units units; true counts: $(tr '\n' ' ' <"$dir/truth.args")"
	awk -F, -v tfile="$dir/truth.csv" "$AWK_CSV"'
	BEGIN {
		skipcol["set"] = skipcol["label"] = skipcol["lines"] = skipcol["flagged"] = 1
		skipcol["formula"] = skipcol["assumptions"] = 1
		getline l < tfile; nt = csv(l, H)
		getline l < tfile; csv(l, V)
		for (i = 1; i <= nt; i++)
			if (!skipcol[H[i]] && known(V[i])) { tm[++n] = H[i]; tv[n] = V[i] + 0 }
		if (!n) { print "decode gave no metric"; bad++ }
	}
	{ delete F; csv($0, F) }
	NR == 1 { for (i in F) col[F[i]] = i; next }
	F[2] != "sh" { next }
	{
		row++
		for (k = 1; k <= n; k++) {
			m = tm[k]
			if (!col[m] || !col[m "_error"]) { print m ": no column in stat"; bad++; continue }
			v = num(F[col[m]]); e = num(F[col[m "_error"]])
			if (!known(v)) { print m ": unknown in the workload row, decode says " tv[k]; bad++; continue }
			d = v - tv[k]; if (d < 0) d = -d
			tol = 4 * e + 2e-6 + 1e-6 * (tv[k] < 0 ? -tv[k] : tv[k])
			if (d > max) max = d
			checked++
			if (d > tol) { print m ": stat " v " (error " e "), decode of the true counts " tv[k]; bad++ }
		}
	}
	END {
		if (row != 1) { print row + 0 " rows for the workload (comm sh)"; bad++ }
		printf "# %d metrics of the workload row against decode of the true counts, largest difference %g\n", \
		       checked, max > "/dev/stderr"
		exit bad > 0
	}' "$dir/stat.csv"
}

for set in $SETS; do
	o="$T/$set"
	mkdir -p "$o"
	if ! fake "$set" "$o/fake"; then
		not_ok "$set: no fake machine for this set in the test"
		continue
	fi
	if ! insmod "$D/topdown_hooks.ko" test_pmu_type="$TYPE" 2>"$o/insmod"; then
		not_ok "$set: insmod topdown_hooks.ko test_pmu_type=$TYPE" "$o/insmod"
		continue
	fi
	unshare -m sh "$T/inner.sh" "$set" "$o/fake" "$o"
	st=$?
	"$TDCTL" unload >"$o/unload" 2>&1 || rmmod topdown 2>/dev/null
	case $st in
	90)
		not_ok "$set: the fake machine (bind mounts in a private namespace)"
		continue ;;
	91)
		not_ok "$set: tdctl list -s $set" "$o/list" "$o/list.json"
		continue ;;
	92)
		# EINVAL: a config td_pmusim's layout does not have; ENOENT: a
		# PERF_TYPE_HARDWARE event no PMU took
		if grep -q "perf refused event.*\(Invalid argument\|No such file\)" "$o/load"; then
			skip "$set: tdctl load --level 2 on td_pmusim" \
				"td_pmusim cannot take an event of the set: $(grep -m1 "perf refused" "$o/load")"
		else
			not_ok "$set: tdctl load -s $set --level 2" "$o/load"
		fi
		continue ;;
	esac
	grep -q "\"set\":\"$set\"" "$o/load" && grep -q '"rotate_ms":5' "$o/load" &&
		grep -q '"groups":\[{' "$o/load" && grep -q '"no_counter":\[\]' "$o/load"
	expect "$set: tdctl load --level 2 loads the set with its groups, rotated, every event on a counter" $? "$o/load"
	read -r t0 t1 <"$o/time"
	echo "# $set: stat took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	expect "$set: tdctl stat --csv -- workload exits 0" "$st" "$o/stat.err" "$o/stat.csv"
	check_stat "$o" >"$o/check" 2>"$o/check.err"
	expect "$set: every Level 1 and 2 metric with a value or unknown, coverage in [0,1], errors >= 0, children = parent within the errors" \
		$? "$o/check" "$o/metrics" "$o/rel" "$o/stat.csv"
	cat "$o/check.err"
	case $set in
	arm_neoverse_n2) dopt="-S $slots -r r0p$rev" ;;
	arm_*) dopt="-S $slots" ;;
	*) dopt= ;;
	esac
	# shellcheck disable=SC2086 # the options, split
	check_truth "$set" "$o" $dopt >"$o/truth" 2>"$o/truth.cmp"
	st=$?
	if [ $st = 2 ]; then
		skip "$set: the workload's metrics against decode of its true counts" \
			"every group of the set needs cycles or instructions, which the guest's own PMU counts here, not td_pmusim"
	else
		expect "$set: the workload's Level 1 and 2 metrics equal tdctl decode of its true counts, within 4 errors" \
			$st "$o/truth" "$o/truth.cmp" "$o/truth.err" "$o/truth.csv" "$o/stat.csv"
	fi
	grep '^#' "$o/truth" "$o/truth.cmp" | sed 's/^[^#]*#/#/'
done
echo 0 >$SIM/noise
echo clear >$SIM/profiles
echo index >$SIM/layout
[ -z "$sim_ours" ] || rmmod td_pmusim
echo "# the suite took $(awk -v a="$t_start" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s"
tap_done
