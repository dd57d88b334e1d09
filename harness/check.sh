#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/check.sh [--quick]
#
# Every kstats test: kernel-style checks of the kernel files and of the
# patch series, the KUnit suites and kselftests in the x86_64 VM (debug
# kernel), gnuplot and tools/kstats on a metric captured there, the
# out-of-tree modules on Debian's kernels, make bench-peers on a few
# calls, the torture test, the make targets that nothing else here runs,
# each as the first command on a fresh machine, the KUnit suite in UML
# and a build after each patch of the series (in the background while the
# VM runs). Ends with one line
# "N passed, N failed, N skipped". --quick (make check-quick) runs only
# what needs neither VM nor x86 kernel build: the checks of the sources,
# KUnit in UML and the tools' tests.
set -u
. "$(dirname "$0")/lib.sh"
# Whatever way make check ends (a failure, Ctrl-C, a kill), everything it
# started stops with it: the builds, the VMs and the tests beside them.
own_run "$@"
QUICK=0
case ${1:-} in
--quick) QUICK=1 ;;
"") ;;
*) echo "usage: harness/check.sh [--quick]" >&2; exit 2 ;;
esac
trap 'stop_run' EXIT
trap 'echo "make check interrupted: stopping what it started" >&2; stop_run; exit 130' INT TERM HUP
# fgwait CMD...: CMD, waited for with wait, which a signal interrupts: the trap
# above then runs at once, not when CMD is done (a VM of half an hour).
fgwait() { "$@" & wait $!; }

# The logs are read as text, whatever bytes they hold: a console that a
# fuzzer wrote invalid UTF-8 to would make grep answer "binary file
# matches" instead of the lines, and the verdicts in them would be lost.
grep() { command grep -a "$@"; }

# The verdicts (pass, fail, skip, result), the counting of a step's log
# (verdicts, expect_verdicts) and of KTAP (count_selftests, kunit_totals)
# are harness/verdict.sh's, sourced by lib.sh: the one judge of every
# step. What is here schedules the steps and reads their logs.

finish() {
	echo
	verdict_summary
	exit
}


LOGS=$(mktemp -d "${TMPDIR:-/tmp}/kstats-check.XXXXXX")
echo "logs in $LOGS"

step "preparing the kernel tree"
if ! "$HARNESS/tree.sh" > "$LOGS/tree.log" 2>&1; then
	cat "$LOGS/tree.log"
	fail "kernel tree: extract, overlay and patch"
	finish
fi
set_paths

# report_step LOG WHAT NAME...: the verdicts of a step's file, from its LOG:
# its other lines said, its verdicts counted; a failure for each NAME that
# no verdict starts with (a step that stopped early has fewer).
report_step() {
	local log=$1 what=$2
	shift 2
	grep -vE '^(PASS|FAIL|SKIP|COUNTED): ' "$log" || true
	verdicts < "$log"
	expect_verdicts "$log" "$what" "$@"
}

# report_sources, report_tools, report_kunit: the verdicts of
# harness/step-sources.sh, harness/step-tools.sh and harness/kunit.sh
# (UML), from their logs, counted.
report_sources() {
	grep -vE '^(PASS|FAIL|SKIP): ' "$LOGS/sources.log" || true
	verdicts < "$LOGS/sources.log"
	# The series' length, for step 9's one verdict per patch.
	npatches=$(sed -n 's/^series: \([0-9]*\) patches$/\1/p' "$LOGS/patches.log" 2>/dev/null)
	expect_verdicts "$LOGS/sources.log" "the checks of the sources" "make htmldocs:" \
		"htmldocs warnings are matched by file"
}
report_tools() {
	sed -n '/^TOOLS_BEGIN$/,/^TOOLS_END$/p' "$LOGS/chain.log" | grep -vE '^TOOLS_(BEGIN|END)$' |
		grep -vE '^PASS: ' | grep -vE '^TOOL_TESTS ' || true
	verdicts < <(sed -n '/^TOOLS_BEGIN$/,/^TOOLS_END$/p' "$LOGS/chain.log")
	set -- $(sed -n 's/^TOOL_TESTS \([0-9]*\) \([0-9]*\)$/\1 \2/p' "$LOGS/chain.log")
	if [ $# -eq 2 ]; then
		counted "$1" "$2" 0 > /dev/null
	else
		fail "tools/kstats tests: no results"
	fi
	grep -q '^TOOLS_END$' "$LOGS/chain.log" || fail "tools/kstats: the tests did not finish"
}
report_kunit() {
	local krc summary kp kf ks
	krc=$(cat "$LOGS/kunit.rc" 2>/dev/null || echo 1)
	grep -E '\[(PASSED|FAILED|SKIPPED|CRASHED)\]|^# |not ok|Ran [0-9]+ tests' "$LOGS/kunit.log" |
		sed 's/^\[[0-9:]*\] //'
	summary=$(grep -oE 'Ran [0-9]+ tests?: .*' "$LOGS/kunit.log" | tail -n 1)
	if [ -z "$summary" ]; then
		tail -n 40 "$LOGS/kunit.log"
		fail "KUnit: no results (exit $krc)"
		return
	fi
	kp=$(echo "$summary" | grep -oE 'passed: [0-9]+' | grep -oE '[0-9]+' || echo 0)
	kf=$(echo "$summary" | grep -oE '(failed|crashed): [0-9]+' | grep -oE '[0-9]+' |
		paste -sd+ | bc 2>/dev/null || echo 0)
	ks=$(echo "$summary" | grep -oE 'skipped: [0-9]+' | grep -oE '[0-9]+' || echo 0)
	counted "${kp:-0}" "${kf:-0}" "${ks:-0}" > /dev/null
	[ "$krc" -eq 0 ] || [ "${kf:-0}" -gt 0 ] || fail "KUnit: kunit.py exit $krc"
	echo "KUnit: $summary"
}

# make check-quick (check.sh --quick): what needs no VM and no x86 kernel
# build, for the edit-test loop: the checks of the sources and of the
# series, the KUnit suite in UML and the tools' tests, one after another
# on both cores. make check runs all of it too.
if [ "$QUICK" = 1 ]; then
	step "[1/3] checkpatch --strict, kernel-doc and docutils on the sources"
	"$HARNESS/step-sources.sh" "$LOGS" > "$LOGS/sources.log" 2>&1
	report_sources
	step "[2/3] KUnit suite in UML"
	"$HARNESS/kunit.sh" > "$LOGS/kunit.log" 2>&1
	echo $? > "$LOGS/kunit.rc"
	report_kunit
	step "[3/3] tools/kstats: build, tests on generated fixtures, fuzzing"
	(echo TOOLS_BEGIN; "$HARNESS/step-tools.sh" "$LOGS"; echo TOOLS_END) > "$LOGS/chain.log" 2>&1
	report_tools
	finish
fi

# Started now: the debug kernel's build (both cores; step 1 waits for it)
# and beside it the tests on Debian's kernels (their packages' download,
# the modules' builds and one VM on one host thread; reported in step 5,
# and done before the VM of step 1 boots: one VM at a time). make
# bench-peers on a few calls (every peer on Debian's 6.12: what it
# measures is what its cases count) runs after that VM.
"$HARNESS/build-x86.sh" debug > "$LOGS/build-debug.log" 2>&1 &
BUILD=$!
(for series in 7.x 6.12 6.1; do
	"$HARNESS/stock.sh" "$series" > "$LOGS/stock-$series.log" 2>&1
	echo "stock exit $?" >> "$LOGS/stock-$series.log"
 done) &
STOCK=$!

# The debug kernel (KASAN, lockdep, kmemleak...) runs the VM of steps 1
# and 6; the bisect builds of step 9 start from its objects. `make demo` and
# `make bench` use the plain kernel of the same sources.
step "[1/9] KUnit, kselftests and torture in the x86_64 VM, debug kernel (a first run builds it: 6 to 29 minutes on 2 cores, most of the time of make check)"
if ! wait "$BUILD"; then
	tail -n 40 "$LOGS/build-debug.log"
	fail "build the x86_64 debug kernel"
fi
# The ORC table that objtool made for the debug kernel (vmlinux.o; the
# modules' are not read): no entry of type call with its CFA at sp+0 or
# below, where the unwinder would find the caller at the same stack
# pointer or lower and say "stack going in the wrong direction?"
# (return_to_handler's call to .Ldo_rop on 7.3 before patch 08). The
# entries at sp+8, every function's first instruction, show that the
# dump is read as it is printed.
if "$BUILD_X86-debug/tools/objtool/objtool" --dump=orc "$BUILD_X86-debug/vmlinux.o" \
	> "$LOGS/orc.txt" 2>&1; then
	bad=$(grep -cE 'type:call sp:sp(\+0|-[0-9]+) ' "$LOGS/orc.txt")
	good=$(grep -c 'type:call sp:sp+8 ' "$LOGS/orc.txt")
	if [ "$bad" -eq 0 ] && [ "$good" -gt 0 ]; then
		pass "ORC of the debug kernel: no entry of type call at sp+0 or below ($good at sp+8)"
	else
		fail "ORC of the debug kernel: $bad entries of type call at sp+0 or below, $good at sp+8: $(grep -m 3 -E 'type:call sp:sp(\+0|-[0-9]+) ' "$LOGS/orc.txt" | cut -d: -f1 | tr '\n' ' ')"
	fi
else
	fail "ORC of the debug kernel: objtool --dump=orc vmlinux.o: $(tail -n 1 "$LOGS/orc.txt")"
fi
# The VM runs on one host thread: the checks of step 3, the bisect builds
# of step 9, then the UML build of step 8 and the tool's tests of step 4
# use the other core meanwhile, one job at a time.
("$HARNESS/step-sources.sh" "$LOGS" > "$LOGS/sources.log" 2>&1
 JOBS=1 "$HARNESS/patches.sh" --build > "$LOGS/bisect.log" 2>&1
 echo "bisect exit $?" >> "$LOGS/bisect.log"
 JOBS=1 "$HARNESS/kunit.sh" > "$LOGS/kunit.log" 2>&1
 echo $? > "$LOGS/kunit.rc"
 echo TOOLS_BEGIN
 "$HARNESS/step-tools.sh" "$LOGS"
 echo TOOLS_END) > "$LOGS/chain.log" 2>&1 &
CHAIN=$!
wait "$STOCK"
sel=$TOP/tools/testing/selftests
# One boot of the debug kernel (harness/guest-check.sh): the KUnit suites
# on 8 CPUs, the most the test kernel supports (NR_CPUS), so that what
# depends on the CPU count holds there; then, on 4 (quicker to emulate on
# one host thread), the kselftests and a short torture: 20 s, 500 fuzzer
# writes (a different seed each run), 2 rounds of fault injection (more
# until some commands failed), and 15 rounds of every form removed under
# load (90 traces, about 1.2 s each here with the walk of ftrace's
# functions that an add makes; `make torture` runs 100). The VM's limit,
# 60 minutes, is twice what it takes on a quiet machine: a CI machine
# was seen to emulate it 1.6 times as slowly. unwind_debug: an unwinder
# that finds a frame it cannot read dumps the stack it read (7.3's once
# said "stack going in the wrong direction? at return_to_handler+0x46",
# seen once, not reproduced).
KSTATS_FUZZ_COUNT=${KSTATS_FUZZ_COUNT:-500} KSTATS_FI_ROUNDS=${KSTATS_FI_ROUNDS:-2} \
	KSTATS_REMOVE_ROUNDS=${KSTATS_REMOVE_ROUNDS:-15} KSTATS_RN_SWEEP=${KSTATS_RN_SWEEP:-check} \
	torture_files "$LOGS" "${TORTURE_SECONDS:-20}" || fail "build kstats_helper and kstats_fuzz"
static_kstats "$LOGS" || fail "build tools/kstats static, for the VM"
# The self-test's module of kernel reports (harness/faults), built out of
# tree against the debug kernel.
rm -rf "$LOGS/faults" && cp -r "$HARNESS/faults" "$LOGS/faults"
faults=()
if make -C "$BUILD_X86-debug" M="$LOGS/faults" "$(cc_opts)" modules \
	> "$LOGS/faults-build.log" 2>&1; then
	faults=("$HARNESS/guest-faults.sh" "$LOGS/faults/kstats_faults.ko")
else
	cat "$LOGS/faults-build.log"
	fail "build harness/faults/kstats_faults.ko against the debug kernel"
fi
VM_CPUS=8 VM_APPEND="maxcpus=4 panic_on_warn=1 unwind_debug" VM_FLAVOR=debug VM_TIMEOUT=3600 \
	VM_CONSOLE=$LOGS/console-debug.log \
	fgwait "$HARNESS/vm.sh" run "$HARNESS/guest-check.sh" "$HARNESS/guest-kunit.sh" \
	"$sel"/kstats/*.sh \
	"$SRC/tools/testing/selftests/kselftest/ktap_helpers.sh" "$LOGS/guest-torture.sh" \
	"$LOGS/kstats_helper" "$LOGS/kstats_fuzz" "$LOGS/kstats" "${faults[@]}" \
	> "$LOGS/vm.log" 2>&1
vrc=$?
# Once the debug VM is done, beside the chain: make bench-peers on 200
# calls (its VM), then step 7's tests, which boot the debug kernel (vm-run)
# and build in a clone of their own (interrupt-test.sh). Each log is read
# in its step.
(CALLS=200 ROUNDS=1 MEASURE=instructions "$HARNESS/bench-peers.sh" \
	> "$LOGS/bench-peers.log" 2>&1
 echo "bench-peers exit $?" >> "$LOGS/bench-peers.log"
 for t in first-command apt-lock-test interrupt-test; do
	"$HARNESS/$t.sh" > "$LOGS/${t%-test}.log" 2>&1
 done) &
LANE=$!
"$HARNESS/step-vm-report.sh" "$LOGS" "$vrc" > "$LOGS/vm-report.log" 2>&1
report_step "$LOGS/vm-report.log" "the report of the debug VM" \
	"self-test: a KTAP test that stops midway" "kstats_gen.py renders 40 values at bits 8 "
step "[2/9] gnuplot on the metric captured in the VM"
"$HARNESS/step-plots.sh" "$LOGS" gnuplot > "$LOGS/plots.log" 2>&1
report_step "$LOGS/plots.log" "gnuplot of the captured metric" "gnuplot cdf of a captured metric"
step "[3/9] checkpatch --strict, kernel-doc and docutils on the sources (beside the VM)"
wait "$CHAIN"
report_sources
step "[4/9] tools/kstats: build, tests on generated fixtures, fuzzing, plots (the first run beside the VM)"
report_tools
"$HARNESS/step-plots.sh" "$LOGS" tool > "$LOGS/tool-plots.log" 2>&1
report_step "$LOGS/tool-plots.log" "the tool on the captured metric" "kstats-plot: SVG output"
step "[5/9] the out-of-tree modules on Debian's own kernels (the newest 7.x, 6.12 and 6.1, beside the debug kernel's build), make bench-peers on 6.12 (after the VM)"
wait "$LANE"
"$HARNESS/step-stock-report.sh" "$LOGS" > "$LOGS/stock-report.log" 2>&1
report_step "$LOGS/stock-report.log" "the report of Debian's kernels" \
	"self-test on Debian's 6.1 kernel" "make bench-peers (200 calls, 1 round), case"
step "[6/9] torture on the debug kernel: KASAN, lockdep, kmemleak, fault injection, hotplug (in the VM of step 1)"
grep -E '^(ok|not ok) |^# |^kstats_fuzz' "$LOGS/torture.log"
count_selftests "$LOGS/torture.log" " on the debug kernel" \
	"$TOP/tools/testing/selftests/kstats/kstats_torture.sh"
step "[7/9] every other make target as the first command on a fresh machine; apt-get and dpkg's lock; make check interrupted (after the VM)"
grep -vE '^(PASS|FAIL): ' "$LOGS/first-command.log" | grep -v '^==>' || true
verdicts < "$LOGS/first-command.log"
expect_verdicts "$LOGS/first-command.log" "first-command.sh" \
	"make clean-cache as the first command" "make clean-cache removes" \
	"make bench-tool as the first command" "make vm-run as the first command" \
	"make vm-shell as the first command"
# What a new machine does to make check: another program's apt-get, and
# a Ctrl-C while it builds.
for t in apt-lock interrupt; do
	grep -vE '^(PASS|FAIL): ' "$LOGS/$t.log" | grep -v '^==>' || true
	verdicts < "$LOGS/$t.log"
done
expect_verdicts "$LOGS/apt-lock.log" "harness/apt-lock-test.sh" "apt-get waits for dpkg's lock"
expect_verdicts "$LOGS/interrupt.log" "harness/interrupt-test.sh" "make check interrupted" \
	"make vm-run interrupted"
wait
step "[8/9] KUnit suite in UML (in the background since step 1, after the bisect builds)"
report_kunit

step "[9/9] the series is bisectable: the kernel (debug configuration) builds after each patch (in the background since step 1)"
grep -q '^FAIL: ' "$LOGS/bisect.log" && grep -B 22 '^FAIL: ' "$LOGS/bisect.log" | grep -v '^PASS'
verdicts < "$LOGS/bisect.log"
# One verdict per patch, and patches.sh's own exit status: a patch,
# merge_config.sh or olddefconfig that fails ends the script early.
want=()
for i in $(seq "${npatches:-0}"); do
	want+=("$(printf 'patches: the test kernel builds after %04d-' "$i")")
done
expect_verdicts "$LOGS/bisect.log" "patches --build" "${want[@]}"
if ! grep -qx 'bisect exit 0' "$LOGS/bisect.log"; then
	tail -n 30 "$LOGS/bisect.log"
	fail "patches --build: $(grep '^bisect exit' "$LOGS/bisect.log" || echo 'did not finish')"
fi

finish
