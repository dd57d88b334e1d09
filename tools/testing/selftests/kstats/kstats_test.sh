#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kstats selftest: the debugfs output of a live metric (the kstats_sample
# module's) and its start, stop and reset commands. KTAP output; exits 4
# (skip) without root, debugfs or the kstats modules.

DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/kstats_lib.sh"

METRIC=sample_kmalloc
TMP=${TMPDIR:-/tmp}/kstats_test.$$
LOADED=""

cleanup() {
	[ -n "$LOADED" ] && rmmod kstats_sample 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

if [ ! -e "$DEBUGFS/kstats/$METRIC" ]; then
	if ! modprobe kstats_sample 2>/dev/null; then
		ktap_skip_all "no kstats_sample module (CONFIG_SAMPLE_KSTATS)"
		exit "$KSFT_SKIP"
	fi
	LOADED=1
fi
FILE=$DEBUGFS/kstats/$METRIC
mkdir -p "$TMP"
ktap_set_plan 12

# all_cpus_recorded: every online CPU has samples in the metric.
all_cpus_recorded() {
	[ "$(awk '$3 == "CPU" && $6 > 0 { print $4 }' "$FILE" | sort -u | wc -l)" -ge \
	  "$(nproc)" ]
}
# The sample's threads (one per online CPU), and how many times each has
# slept: once after each batch of records.
THREADS=$(grep -l '^kstats_sample/' /proc/[0-9]*/comm 2>/dev/null |
	  sed 's,^/proc/,,; s,/comm$,,')
sleeps() {
	for p in $THREADS; do
		echo "$p $(awk '/^voluntary_ctxt_switches:/ { print $2 }' "/proc/$p/status")"
	done
}
# slept_since FILE: each thread has slept 3 times more than FILE (sleeps)
# says: it ran whole batches of records since.
slept_since() {
	sleeps > "$TMP/sleeps.now"
	[ -s "$TMP/sleeps.now" ] &&
		awk 'NR == FNR { base[$1] = $2; next }
		     !($1 in base) || $2 < base[$1] + 3 { bad = 1 } END { exit bad }' \
			"$1" "$TMP/sleeps.now"
}

# Wait until every CPU has recorded (120 s at most, the bound of a hang).
ks_wait_for 120 all_cpus_recorded ||
	ktap_print_msg "not every online CPU recorded within 120 s"
cat "$FILE" > "$TMP/out"

# Every line, exactly in the RFC's format. awk prints each line again with
# the format's own widths, which must give back the same text.
check_format() {
	[ -s "$TMP/out" ] || return 1
	re='^slot [0-9]+ +CPU[ S] [0-9]+ +count +[0-9]+ avg +[0-9]+ p [01]\.[0-9]{6}$'
	grep -vqE "$re" "$TMP/out" && return 1
	awk '{ printf "slot %-3d CPU%s %-4d count %8d avg %8d p %s\n", $2,
		      $3 == "CPUS" ? "S" : " ", $4, $6, $8, $10 }' "$TMP/out" |
		cmp -s - "$TMP/out"
}
ktap_test_result "every line is in the kstats format" check_format

# The CPUS lines carry the number of possible CPUs.
check_ncpus() {
	possible=$(awk -F, '{
		for (i = 1; i <= NF; i++) {
			split($i, r, "-")
			n += r[2] == "" ? 1 : r[2] - r[1] + 1
		}
		print n }' /sys/devices/system/cpu/possible)
	awk -v n="$possible" '$3 == "CPUS" { seen = 1; if ($4 != n) bad = 1 }
			      END { exit bad || !seen }' "$TMP/out"
}
ktap_test_result "CPUS lines give the number of possible CPUs" check_ncpus

# The sample runs a thread on every online CPU: all of them have lines.
check_all_cpus() {
	n=$(awk '$3 == "CPU" { print $4 }' "$TMP/out" | sort -u | wc -l)
	[ "$n" -eq "$(nproc)" ]
}
ktap_test_result "every online CPU recorded samples" check_all_cpus

# Per slot, the CPU lines add up to the CPUS line, which comes last.
check_sums() {
	awk '$3 == "CPU" { if ($2 != slot) { if (sum) bad = 1; slot = $2 } sum += $6 }
	     $3 == "CPUS" { if ($2 != slot || $6 != sum) bad = 1; sum = 0; slot = -1; n++ }
	     END { exit bad || sum || !n }' "$TMP/out"
}
ktap_test_result "per-CPU counts add up to the CPUS lines" check_sums

# Slots ascend; p never decreases, per CPU and for CPUS, and ends at 1.
check_cdf() {
	awk '{ if ($2 + 0 < last) bad = 1; last = $2 + 0
	       k = $3 == "CPUS" ? "all" : $4
	       if ($10 + 0 < p[k]) bad = 1; p[k] = $10 + 0; lastp[k] = $10 }
	     END { for (k in lastp) if (lastp[k] != "1.000000") bad = 1; exit bad }' "$TMP/out"
}
ktap_test_result "p is monotone and ends at 1.000000 on every CPU and CPUS" check_cdf

# The means lie within their slots (frac_bits 3).
check_avg() {
	# busybox awk may have no "^": powers of two by doubling.
	awk 'function pow2(n,  p) { for (p = 1; n > 0; n--) p *= 2; return p }
	     function min(s,  b) {
		b = int(s / 8)
		return b ? (8 + s % 8) * pow2(b - 1) : s
	     }
	     function max(s,  b) {
		b = int(s / 8)
		return min(s) + (b > 1 ? pow2(b - 1) - 1 : 0)
	     }
	     { if ($8 < min($2) || $8 > max($2)) bad = 1 } END { exit bad }' "$TMP/out"
}
ktap_test_result "every mean lies within its slot" check_avg

total() { awk '$3 == "CPUS" { n += $6 } END { print n + 0 }' "$FILE"; }

# Once a record in flight at the stop is done (every thread has slept
# since), nothing changes while every thread runs more batches.
check_stop() {
	[ -n "$THREADS" ] || { ktap_print_msg "no kstats_sample thread"; return 1; }
	echo stop > "$FILE" || return 1
	sleeps > "$TMP/sleeps.stop"
	ks_wait_for 60 slept_since "$TMP/sleeps.stop" || return 1
	a=$(cat "$FILE")
	sleeps > "$TMP/sleeps.a"
	ks_wait_for 60 slept_since "$TMP/sleeps.a" || return 1
	b=$(cat "$FILE")
	[ -n "$a" ] && [ "$a" = "$b" ]
}
ktap_test_result "stop freezes the metric" check_stop

check_bad() {
	before=$(cat "$FILE")
	for cmd in bogus "start now" starts STOPX reset1; do
		printf '%s' "$cmd" > "$FILE" 2>/dev/null && return 1
	done
	[ "$before" = "$(cat "$FILE")" ]
}
ktap_test_result "bad commands are rejected and change nothing" check_bad

check_reset() {
	echo reset > "$FILE" || return 1
	[ ! -s "$FILE" ] && [ "$(total)" -eq 0 ]
}
ktap_test_result "reset empties the metric" check_reset

recording() { [ "$(total)" -gt 0 ]; }
check_start() {
	echo START > "$FILE" || return 1
	ks_wait_for 60 recording
}
ktap_test_result "start records again" check_start

check_snapshot() {
	# Counts read back in one open are a snapshot: CPUS totals match the
	# sum of CPU lines even while every CPU records.
	for i in 1 2 3 4 5; do
		cat "$FILE" > "$TMP/snap" || return 1
		awk '$3 == "CPU" { c += $6 } $3 == "CPUS" { s += $6 }
		     END { exit c != s || !s }' "$TMP/snap" || return 1
	done
}
ktap_test_result "reads under load are consistent snapshots" check_snapshot

check_unload() {
	rmmod kstats_sample || return 1
	LOADED=""
	[ ! -e "$FILE" ]
}
if [ -n "$LOADED" ]; then
	ktap_test_result "unloading the user removes the metric" check_unload
else
	ktap_test_skip "unloading the user removes the metric (loaded before the test)"
fi

ktap_finished
