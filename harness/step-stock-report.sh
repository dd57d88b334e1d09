#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/step-stock-report.sh LOGS
#
# Step 5 of make check, from the logs of harness/stock.sh on Debian's
# kernels (LOGS/stock-SERIES.log) and of make bench-peers
# (LOGS/bench-peers.log): their verdicts, the self-test of the log check
# on each kernel, the kselftests there, and each case of bench-peers. One
# line per verdict (harness/verdict.sh), for harness/check.sh to count.
set -u
. "$(dirname "$0")/lib.sh"
step_init "harness/step-stock-report.sh LOGS" 1 "$@"

for series in 7.x 6.12 6.1; do
	verdicts < "$LOGS/stock-$series.log"
	grep -qx 'stock exit 0' "$LOGS/stock-$series.log" ||
		fail "Debian's $series kernel: harness/stock.sh $(grep '^stock exit' "$LOGS/stock-$series.log" ||
			echo 'did not finish')"
	expect_verdicts "$LOGS/stock-$series.log" "Debian's $series kernel" \
		"modules built against" "dkms build for" "kstats trace under lockdown" \
		"kstats under lockdown=integrity"
	# The self-test of the log check on Debian's kernel: the WARN that
	# harness/guest-stock.sh injected, as the failure that names it.
	got=$(awk -F '\t' -v p="FAIL: kernel report (WARNING) on " \
		'$1 == "KSTATS_FAULT_REPORT WARNING" && index($2, p) == 1 { print $2; exit }' \
		"$LOGS/stock-$series.log")
	if [ -n "$got" ]; then
		pass "self-test on Debian's $series kernel: an injected WARN is \"${got%%\[*}...${got#*\] }\""
	else
		fail "self-test on Debian's $series kernel: an injected WARN is not seen"
	fi
	other=$(awk -F '\t' -v p="FAIL: kernel report (WARNING) on " \
		'/^KSTATS_FAULT_REPORT / && !($1 == "KSTATS_FAULT_REPORT WARNING" && index($2, p) == 1) {
			print $2 }' "$LOGS/stock-$series.log")
	[ -z "$other" ] ||
		fail "self-test on Debian's $series kernel: while injecting a WARN, other reports: $other"
	if grep -q '^KSTATS_SELFTEST_BEGIN' "$LOGS/stock-$series.log"; then
		grep -E '^(not ok|stock kernel)' "$LOGS/stock-$series.log" || true
		count_selftests "$LOGS/stock-$series.log" " on Debian's $series kernel" \
			"$TOP"/tools/testing/selftests/kstats/*test.sh
	else
		tail -n 40 "$LOGS/stock-$series.log" | quoted
		fail "kselftests on Debian's $series kernel: did not run"
	fi
done
# Every case of make bench-peers attached and counted each call, or says
# why it cannot run here (a peer's version without the feature).
cases=$(sed -n 's/^CASES=${CASES:-"\(.*\)"}$/\1/p' "$HARNESS/guest-bench-peers.sh")
[ -n "$cases" ] || fail "bench-peers: no list of cases in guest-bench-peers.sh"
for c in $cases; do
	line=$(grep -E "^case $c +(insn +[0-9.]+ ratio|skipped: )" "$LOGS/bench-peers.log")
	case $line in
	*skipped:*) skip "make bench-peers, case $c: ${line#*skipped: }" ;;
	?*) pass "make bench-peers (200 calls, 1 round), case $c: every call counted" ;;
	*) grep -E "^(case|round [0-9]+ case) $c[ :]" "$LOGS/bench-peers.log"
	   fail "make bench-peers (200 calls, 1 round), case $c: every call counted" ;;
	esac
done
grep -qx 'bench-peers exit 0' "$LOGS/bench-peers.log" ||
	{ tail -n 30 "$LOGS/bench-peers.log" | quoted
	  fail "make bench-peers (200 calls, 1 round) exits 0"; }
