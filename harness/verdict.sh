# SPDX-License-Identifier: GPL-2.0
# The harness's one judge: every step says each verdict as one line,
# "PASS: NAME", "FAIL: NAME" or "SKIP: NAME", through these helpers, and
# harness/check.sh adds up the lines of each step's log. KTAP (KUnit's
# "# Totals" and the kselftests' "ok"/"not ok") is judged here too, so
# that make check and make cfi read it alike. Sourced by lib.sh, and by
# the scripts that run in a guest (POSIX sh: the VM's shell is busybox);
# safe under set -e.

V_PASSED=0
V_FAILED=0
V_SKIPPED=0

pass() { V_PASSED=$((V_PASSED + 1)); echo "PASS: $*"; }
fail() { V_FAILED=$((V_FAILED + 1)); echo "FAIL: $*"; }
skip() { V_SKIPPED=$((V_SKIPPED + 1)); echo "SKIP: $*"; }
# result STATUS NAME: pass or fail NAME on a command's exit status.
result() { if [ "$1" -eq 0 ]; then pass "$2"; else fail "$2"; fi; }
# counted P F S: results counted without a line each (the "ok" lines of a
# kselftest, a KUnit suite's totals), added here and said on a line
# "COUNTED: P F S" that verdicts adds up when it reads a step's log.
counted() {
	V_PASSED=$((V_PASSED + ${1:-0}))
	V_FAILED=$((V_FAILED + ${2:-0}))
	V_SKIPPED=$((V_SKIPPED + ${3:-0}))
	echo "COUNTED: ${1:-0} ${2:-0} ${3:-0}"
}

# quoted: standard input with the lines that would read as verdicts
# indented: a log shown in a step's output, which check.sh counts, is not
# counted again.
quoted() { sed -E 's/^(PASS|FAIL|SKIP|COUNTED):/  &/'; }

# verdict_summary: "N passed, N failed, N skipped"; false if one failed.
verdict_summary() {
	echo "$V_PASSED passed, $V_FAILED failed, $V_SKIPPED skipped"
	[ "$V_FAILED" -eq 0 ]
}

# verdicts: count the PASS:, FAIL:, SKIP: and COUNTED: lines of a step's
# log (stdin), each said again here.
verdicts() {
	_v_lines=$(grep -aE '^(PASS|FAIL|SKIP|COUNTED): ' || true)
	while read -r _v_verdict _v_name; do
		case $_v_verdict in
		PASS:) pass "$_v_name" ;;
		SKIP:) skip "$_v_name" ;;
		FAIL:) fail "$_v_name" ;;
		# shellcheck disable=SC2086
		COUNTED:) counted $_v_name ;;
		esac
	done <<EOF_VERDICTS
$_v_lines
EOF_VERDICTS
}

# expect_verdicts LOG WHAT NAME...: a failure for each NAME that no PASS,
# FAIL or SKIP line of LOG starts with (a step that stopped early has
# fewer).
expect_verdicts() {
	_v_log=$1 _v_what=$2
	shift 2
	for _v_n in "$@"; do
		awk -v n="$_v_n" '{ sub(/^(PASS|FAIL|SKIP): /, "") } index($0, n) == 1 { ok = 1 }
			END { exit !ok }' "$_v_log" || fail "$_v_what: no result for \"$_v_n\""
	done
}

# ktap_of LOG NAME: the KTAP lines of the selftest NAME in LOG, between its
# BEGIN and END markers.
ktap_of() { sed -n "/^KSTATS_SELFTEST_BEGIN $2\$/,/^KSTATS_SELFTEST_END/p" "$1"; }

# ktap_problem: why the KTAP lines on stdin are not a whole run, or nothing:
# a file skipped as a whole ("1..0 # SKIP why": in the project's kernels
# every file has something to run), or fewer results than its plan.
ktap_problem() {
	_v_out=$(cat)
	_v_plan=$(echo "$_v_out" | sed -n 's/^1\.\.\([0-9]*\).*$/\1/p' | head -n 1)
	_v_n=$(echo "$_v_out" | grep -acE '^(not )?ok [0-9]+' || true)
	if [ "$_v_plan" = 0 ]; then
		echo "skipped as a whole:$(echo "$_v_out" | sed -n 's/^1\.\.0//p' | head -n 1)"
	elif [ -z "$_v_plan" ] || [ "$_v_n" -ne "$_v_plan" ]; then
		echo "ran $_v_n of ${_v_plan:-?} tests"
	fi
}

# Tests that may skip on the project's kernels, a line each: "SCRIPT|what
# its skip line says|why it cannot run there". None: the test kernel's
# configuration is the project's, and a test that skips there tests
# nothing (if fprobe broke, its tests would turn into skips).
EXPECTED_SKIPS=''

# count_selftests LOG WHERE SCRIPT...: the KTAP results of each kselftest
# SCRIPT (a path or a name) in LOG, one "ok"/"not ok" line per test,
# counted. On Debian's kernels (WHERE names them), a skip counts as a
# skip, with its reason; on the project's kernels it is a failure, unless
# EXPECTED_SKIPS has it.
count_selftests() {
	_v_log=$1 _v_where=$2
	shift 2
	for _v_t in "$@"; do
		_v_name=$(basename "$_v_t")
		_v_out=$(ktap_of "$_v_log" "$_v_name")
		_v_ok=$(echo "$_v_out" | grep -acE '^ok [0-9]+' || true)
		_v_skip=$(echo "$_v_out" | grep -acE '^ok [0-9]+ .*# SKIP' || true)
		_v_bad=$(echo "$_v_out" | grep -acE '^not ok [0-9]+' || true)
		counted $((_v_ok - _v_skip)) "$_v_bad" 0
		_v_skips=$(echo "$_v_out" | grep -aE '^ok [0-9]+ .*# SKIP' || true)
		while IFS= read -r _v_line; do
			[ -n "$_v_line" ] || continue
			case $_v_where in
			*Debian*)
				skip "kselftest $_v_name$_v_where: ${_v_line#ok }"
				continue ;;
			esac
			_v_why=$(printf '%s\n' "$EXPECTED_SKIPS" | awk -F '|' -v t="$_v_name" \
				-v l="$_v_line" '$1 == t && index(l, $2) { print $3; exit }')
			if [ -n "$_v_why" ]; then
				skip "kselftest $_v_name: ${_v_line#ok } (cannot run on the test kernel: $_v_why)"
			else
				fail "kselftest $_v_name$_v_where: ${_v_line#ok }: a skip on the test kernel, whose configuration has everything the test needs"
			fi
		done <<EOF_SKIPS
$_v_skips
EOF_SKIPS
		_v_why=$(echo "$_v_out" | ktap_problem)
		[ -z "$_v_why" ] || fail "kselftest $_v_name$_v_where: $_v_why"
	done
}

# kunit_totals LOG SUITE: the "# Totals: pass:P fail:F skip:S..." line of
# KUnit suite SUITE in LOG (between KSTATS_KUNIT_BEGIN and _END), or
# nothing.
kunit_totals() {
	sed -n "/^KSTATS_KUNIT_BEGIN $2\$/,/^KSTATS_KUNIT_END/p" "$1" |
		grep -aE '^# Totals: pass:' | tail -n 1
}
