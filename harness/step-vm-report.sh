#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/step-vm-report.sh LOGS VM_EXIT
#
# Step 1 of make check, once its VM is done: the results in LOGS/vm.log
# (harness/guest-check.sh on the debug kernel), one line per verdict
# (harness/verdict.sh) for harness/check.sh to count: the KUnit suites'
# totals, each kselftest's "ok" lines, the kernel's reports (harness/vm.sh,
# harness/kreports.awk), the self-test of those checks, the VM's exit
# status VM_EXIT, and kstats_gen.py against the values the kernel
# recorded. Writes LOGS/sample_kmalloc (a metric captured in the VM, for
# steps 2 and 4) and LOGS/torture.log (for step 6).
set -u
. "$(dirname "$0")/lib.sh"
step_init "harness/step-vm-report.sh LOGS VM_EXIT" 2 "$@"
vrc=$2

# faults_selftest LOG: the self-test of the report checks. The debug VM
# injected, last, each kernel report below after a line "kstats-selftest:
# fault NAME" (harness/guest-faults.sh); harness/vm.sh's log check
# (harness/kreports.awk) must have turned each into the failure that names
# its kind, as it does a real report (a report there that does not come
# from the faults module is a real failure); and a KTAP test that stopped
# midway must be a failure.
FAULTS=("lockdep|lockdep" "WARNING|WARNING" "hung-task|hung task" "kmemleak|kmemleak")
# reports_agree LOG NAME KIND: whether the selftests' KS_REPORT_RE
# (kstats_lib.sh) matches the line that harness/kreports.awk classified as
# the report (KIND) of the injected fault NAME, in harness/vm.sh's LOG.
ks_report_re() {
	(eval "$(grep '^KS_REPORT_RE=' "$TOP/tools/testing/selftests/kstats/kstats_lib.sh")"
	 echo "$KS_REPORT_RE")
}
reports_agree() {
	local re line
	re=$(ks_report_re)
	line=$(awk -F '\t' -v n="KSTATS_FAULT_REPORT $2" -v p="FAIL: kernel report ($3) on " '
		$1 == n && index($2, p) == 1 {
			sub(/^FAIL: kernel report \([^)]*\) on [^ ]*: /, "", $2); print $2; exit }' "$1")
	[ -n "$re" ] && [ -n "$line" ] && printf '%s\n' "$line" | grep -qE "$re"
}
faults_selftest() {
	local log=$1 f name kind got other why
	# The module was built against the debug kernel, and injected.
	[ -e "$LOGS/faults/kstats_faults.ko" ] || return 0
	for f in "${FAULTS[@]}"; do
		name=${f%%|*}
		kind=${f#*|}
		got=$(awk -F '\t' -v n="KSTATS_FAULT_REPORT $name" \
			-v p="FAIL: kernel report ($kind) on " \
			'$1 == n && index($2, p) == 1 { print $2; exit }' "$log")
		if [ -n "$got" ]; then
			pass "self-test: an injected $name is \"${got%%\[*}...${got#*\] }\""
		else
			fail "self-test: an injected $name is not seen: no 'kernel report ($kind)' after 'kstats-selftest: fault $name'"
		fi
		other=$(awk -F '\t' -v n="KSTATS_FAULT_REPORT $name" \
			-v p="FAIL: kernel report ($kind) on " \
			'$1 == n && index($2, p) != 1 { print $2 }' "$log")
		[ -z "$other" ] || fail "self-test: while injecting $name, other reports: $other"
	done
	# The selftests classify the kernel's reports on their own, to run
	# without the harness (KS_REPORT_RE in kstats_lib.sh, on dmesg after a
	# mark; kmemleak's as ks_kmemleak prints them from its debugfs file):
	# they must see each injected report that kreports.awk saw.
	for f in "${FAULTS[@]}"; do
		reports_agree "$log" "${f%%|*}" "${f#*|}"
		result $? "self-test: the selftests' classifier (KS_REPORT_RE) sees the injected ${f%%|*}'s report line too"
	done
	# ...and as kreports.awk, not a header in the middle of a message.
	! printf '%s\n' "[    0.123456] RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable" |
		grep -qE "$(ks_report_re)"
	result $? "self-test: the selftests' classifier ignores a header in the middle of a message"
	why=$(ktap_of "$log" kstats_stops_test.sh | ktap_problem)
	if [ "$why" = "ran 1 of 3 tests" ]; then
		pass "self-test: a KTAP test that stops midway is \"FAIL: kselftest kstats_stops_test.sh: $why\""
	else
		fail "self-test: a KTAP test that stops midway is not seen (${why:-no problem found})"
	fi
}

sed -n '/^KSTATS_CAPTURE_BEGIN/,/^KSTATS_CAPTURE_END/{/^KSTATS_CAPTURE/d;p}' \
	"$LOGS/vm.log" > "$LOGS/sample_kmalloc"
# The torture's part, for step 6.
sed -n '/^kstats torture: /,/^KSTATS_SELFTEST_END kstats_torture.sh$/p' "$LOGS/vm.log" \
	> "$LOGS/torture.log"
# The VM's other lines, said; its verdicts are counted below, once.
sed '/^KSTATS_CAPTURE_BEGIN/,/^KSTATS_CAPTURE_END/d; /^kstats torture: /,/^KSTATS_SELFTEST_END kstats_torture.sh$/d' \
	"$LOGS/vm.log" | grep -vE '^ +(ok|# |KTAP|1\.\.)' | grep -v '^KSTATS_' |
	grep -vE '^(PASS|FAIL|SKIP|COUNTED): ' || true
# KUnit: each suite's "# Totals" line counts its test cases.
for suite in kstats kstats_trace; do
	totals=$(kunit_totals "$LOGS/vm.log" $suite)
	if [ -z "$totals" ]; then
		fail "KUnit suite $suite in the VM: no results"
		continue
	fi
	echo "KUnit $suite (x86_64 VM, $(sed -n 's/^KSTATS_KUNIT_CPUS //p' "$LOGS/vm.log") CPUs): $totals"
	# shellcheck disable=SC2046
	set -- $(echo "$totals" | grep -oE '[0-9]+')
	counted "$1" "$2" "$3"
done
count_selftests "$LOGS/vm.log" "" "$TOP"/tools/testing/selftests/kstats/*test.sh
# The kernel's reports in the whole boot's log (harness/vm.sh), one FAIL
# line each.
verdicts < <(grep '^FAIL: kernel report' "$LOGS/vm.log")
faults_selftest "$LOGS/vm.log"
if [ "$vrc" -ne 0 ]; then
	grep -v '^FAIL: kernel report' "$LOGS/vm.log" | tail -n 60 | grep -vE '^(PASS|FAIL|SKIP): ' || true
	fail "the VM run of the debug kernel failed (exit $vrc; its console log: $LOGS/console-debug.log)"
fi

# The generator of the tool's fixtures (tools/kstats/tests/kstats_gen.py)
# renders known values as the kernel does: the values kstats_bench
# recorded in the VM (harness/guest-check.sh), text against text.
/usr/bin/python3 - "$LOGS/vm.log" "$TOP/tools/kstats/tests" > "$LOGS/gen.log" 2>&1 <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import kstats_gen as gen
blocks, cur = [], None
for line in open(sys.argv[1], errors='replace'):
    if line.startswith('KSTATS_RECORD_BEGIN '):
        w = line.split()
        cur = (int(w[1]), int(w[2]), [int(v) for v in w[3:]], [])
    elif line.startswith('KSTATS_RECORD_END') and cur:
        blocks.append(cur)
        cur = None
    elif cur:
        cur[3].append(line)
for bits, possible, values, lines in blocks:
    want = gen.render({0: values}, bits, possible)
    got = ''.join(lines)
    name = ('kstats_gen.py renders %d values at bits %d as the kernel does'
            % (len(values), bits))
    if got == want:
        print('PASS: ' + name)
    else:
        import difflib
        sys.stdout.writelines(difflib.unified_diff(
            want.splitlines(True), got.splitlines(True), 'kstats_gen.py', 'kernel'))
        print('FAIL: ' + name)
PY
r=$?
grep -vE '^(PASS|FAIL): ' "$LOGS/gen.log" | quoted || true
verdicts < "$LOGS/gen.log"
[ $r -eq 0 ] || fail "kstats_gen.py against the kernel: the comparison exits $r"
expect_verdicts "$LOGS/gen.log" "kstats_gen.py against the kernel" \
	"kstats_gen.py renders 40 values at bits 0 " "kstats_gen.py renders 40 values at bits 3 " \
	"kstats_gen.py renders 40 values at bits 8 "
