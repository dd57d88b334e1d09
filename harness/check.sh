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

PASSED=0
FAILED=0
SKIPPED=0
pass() { PASSED=$((PASSED + 1)); echo "PASS: $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL: $*"; }
skip() { SKIPPED=$((SKIPPED + 1)); echo "SKIP: $*"; }
# verdict STATUS NAME: the line of result, for a step run in the
# background and counted later.
verdict() { if [ "$1" -eq 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fi; }
# verdicts: count the PASS:, FAIL: and SKIP: lines of a step's log (stdin).
verdicts() {
	local verdict name
	while read -r verdict name; do
		case $verdict in
		PASS:) pass "$name" ;;
		SKIP:) skip "$name" ;;
		FAIL:) fail "$name" ;;
		esac
	done < <(grep -E '^(PASS|FAIL|SKIP): ')
}
# result STATUS NAME: pass or fail NAME on a command's exit status.
result() { if [ "$1" -eq 0 ]; then pass "$2"; else fail "$2"; fi; }

finish() {
	echo
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" -eq 0 ]
	exit
}

# ktap_of LOG NAME: the KTAP lines of the selftest NAME in LOG, between its
# BEGIN and END markers.
ktap_of() { sed -n "/^KSTATS_SELFTEST_BEGIN $2\$/,/^KSTATS_SELFTEST_END/p" "$1"; }

# ktap_problem: why the KTAP lines on stdin are not a whole run, or nothing:
# a file skipped as a whole ("1..0 # SKIP why": in make check's kernels
# every file has something to run), or fewer results than its plan.
ktap_problem() {
	local out plan n
	out=$(cat)
	plan=$(echo "$out" | sed -n 's/^1\.\.\([0-9]*\).*$/\1/p' | head -n 1)
	n=$(echo "$out" | grep -cE '^(not )?ok [0-9]+')
	if [ "$plan" = 0 ]; then
		echo "skipped as a whole:$(echo "$out" | sed -n 's/^1\.\.0//p' | head -n 1)"
	elif [ -z "$plan" ] || [ "$n" -ne "$plan" ]; then
		echo "ran $n of ${plan:-?} tests"
	fi
}

# Tests that may skip on the test kernel, as "SCRIPT|what its skip
# line says|why it cannot run there". None: the test kernel's
# configuration is the project's, and a test that skips there tests
# nothing (if fprobe broke, its tests would turn into skips).
EXPECTED_SKIPS=()

# count_selftests LOG WHERE [SCRIPT...]: the KTAP results of each kselftest
# (default: every *test.sh) in LOG, one "ok"/"not ok" line per test. On
# Debian's kernels (WHERE names them), a skip counts as a skip, with its
# reason; on the project's kernels it is a failure, unless EXPECTED_SKIPS
# has it.
count_selftests() {
	local t name out ok skip bad log=$1 where=$2 why line e
	shift 2
	[ $# -gt 0 ] || set -- "$TOP"/tools/testing/selftests/kstats/*test.sh
	for t in "$@"; do
		name=$(basename "$t")
		out=$(ktap_of "$log" "$name")
		ok=$(echo "$out" | grep -cE '^ok [0-9]+')
		skip=$(echo "$out" | grep -cE '^ok [0-9]+ .*# SKIP')
		bad=$(echo "$out" | grep -cE '^not ok [0-9]+')
		PASSED=$((PASSED + ok - skip))
		FAILED=$((FAILED + bad))
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			case $where in
			*Debian*)
				skip "kselftest $name$where: ${line#ok }"
				continue ;;
			esac
			why=
			for e in "${EXPECTED_SKIPS[@]}"; do
				[ "${e%%|*}" = "$name" ] || continue
				e=${e#*|}
				case $line in *"${e%%|*}"*) why=${e#*|} ;; esac
			done
			if [ -n "$why" ]; then
				skip "kselftest $name: ${line#ok } (cannot run on the test kernel: $why)"
			else
				fail "kselftest $name: ${line#ok }: a skip on the test kernel, whose configuration has everything the test needs"
			fi
		done < <(echo "$out" | grep -E '^ok [0-9]+ .*# SKIP')
		why=$(echo "$out" | ktap_problem)
		[ -z "$why" ] || fail "kselftest $name$where: $why"
	done
}

# expect_verdicts LOG WHAT NAME...: a FAIL line for each NAME that no PASS,
# FAIL or SKIP line of LOG starts with (a step that stopped early has
# fewer).
expect_verdicts() {
	local log=$1 what=$2 n
	shift 2
	for n in "$@"; do
		awk -v n="$n" '{ sub(/^(PASS|FAIL|SKIP): /, "") } index($0, n) == 1 { ok = 1 }
			END { exit !ok }' "$log" || fail "$what: no result for \"$n\""
	done
}

# doc_warnings FILE...: the lines of a Sphinx log (stdin) that report a
# problem in one of the FILEs (paths in the kernel tree): matched by the
# file before a line number (Sphinx names a document without its .rst
# when the problem is in kernel-doc it pulled in: "DOC:556: FILE:462:"),
# or named by a failed kernel-doc run.
doc_warnings() {
	local re='' f
	for f in "$@"; do
		re="$re${re:+|}$(printf '%s' "$f" | sed 's/[.]/\\./g')"
	done
	grep -E "(^|[ /])($re):[0-9]+: .*(WARNING|ERROR|SEVERE|CRITICAL|warning|error)|kernel-doc.*[ /]($re)[' ].*failed"
}

# faults_selftest LOG: the self-test of the report checks. The debug VM
# injected, last, each kernel report below after a line "kstats-selftest:
# fault NAME" (harness/guest-faults.sh); harness/vm.sh's log check
# (harness/kreports.awk) must have turned each into the failure that names
# its kind, as it does a real report (a report there that does not come
# from the faults module is a real failure); and a KTAP test that stopped
# midway must be a failure.
FAULTS=("lockdep|lockdep" "WARNING|WARNING" "hung-task|hung task" "kmemleak|kmemleak")
faults_selftest() {
	local log=$1 f name kind got other why
	[ ${#faults[@]} -gt 0 ] || return
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
	why=$(ktap_of "$log" kstats_stops_test.sh | ktap_problem)
	if [ "$why" = "ran 1 of 3 tests" ]; then
		pass "self-test: a KTAP test that stops midway is \"FAIL: kselftest kstats_stops_test.sh: $why\""
	else
		fail "self-test: a KTAP test that stops midway is not seen (${why:-no problem found})"
	fi
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


# sources_check: step 3, the checks of the sources and of the series that
# need no kernel build, run first in the chain beside the VM (they took a
# core from the debug kernel's build when run beside it): PASS/FAIL lines,
# counted when the chain is done.
sources_check() {
	cd "$TOP" || return
	kfiles=$(git ls-files --cached --others --exclude-standard 'include/*.h' 'lib/*.[ch]' 'kernel/*.[ch]' 'samples/*.[ch]' \
		'tools/testing/selftests/*.sh')
	# Inside the kernel tree, on the overlay of the files (tree.sh made it).
	for f in $kfiles; do
		out=$(cd "$SRC" && perl scripts/checkpatch.pl --strict --show-types -f "$f" 2>&1)
		checkpatch_clean "$out"
		result $? "checkpatch --strict $f"
	done
	for p in patches/*.patch; do
		# On stdin: given the path of a patch inside this git work tree,
		# checkpatch reports its blank context lines as trailing whitespace.
		out=$(perl "$SRC/scripts/checkpatch.pl" --strict --no-tree \
			--no-signoff --show-types - < "$p" 2>&1)
		checkpatch_clean "$out"
		result $? "checkpatch --strict $p"
	done
	for f in $(git ls-files --cached --others --exclude-standard 'include/*.h' 'lib/*.c' 'kernel/*.c'); do
		grep -q '^/\*\*' "$f" || continue
		out=$(python3 "$SRC/scripts/kernel-doc" -none -Wall "$f" 2>&1)
		[ -z "$out" ] || echo "$out"
		result $([ -z "$out" ]; echo $?) "kernel-doc -Wall $f"
	done

	# Every file of the project has the kstats entry of MAINTAINERS.
	ours=$(git ls-files --cached --others --exclude-standard include lib kernel samples tools Documentation |
		grep -v '/\.kunitconfig$')
	maint=$(sed -n 's/^+M:\t//p' MAINTAINERS.patch)
	missing=$(cd "$SRC" && for f in $ours; do
		perl scripts/get_maintainer.pl --no-git --no-rolestats -f "$f" 2>/dev/null |
			grep -qxF "$maint" || echo "$f"
	done)
	[ -z "$missing" ] || echo "no kstats maintainer for: $missing"
	result $([ -z "$missing" ]; echo $?) "MAINTAINERS covers every kstats file"

	# kstats_record() in NMI: its kernel-doc and kstats.rst say where this_cpu
	# operations on u64 are NMI safe (x86-64, arm64) and where they are not
	# (32-bit x86, the generic ones under local_irq_save()).
	nmi=0
	for f in include/linux/kstats.h Documentation/dev-tools/kstats.rst; do
		tr '\n' ' ' < "$f" | tr -s ' *' ' ' | grep -q 'NMI.\{0,200\}x86-64.\{0,200\}32-bit x86' ||
			{ echo "$f: does not say where kstats_record() is NMI safe"; nmi=1; }
	done
	result $nmi "kstats.h and kstats.rst say where kstats_record() is NMI safe (x86-64) and not (32-bit x86)"

	# The core's API as its review wants it: every export has a user outside
	# lib/kstats.c, and one constructor; CONFIG_KSTATS is a bool, so that no
	# built-in caller is left with stubs of a module.
	unused=$(for sym in $(sed -n 's/^EXPORT_SYMBOL_GPL(\(.*\));$/\1/p' lib/kstats.c); do
		git grep -qE "\\b$sym\(" -- kernel samples ':!*_kunit.c' || echo "$sym"
	done)
	[ -z "$unused" ] || echo "exported but used nowhere else: $unused"
	[ -z "$unused" ] && ! git grep -qw kstats_create -- include lib kernel samples
	result $? "lib/kstats.c exports only what other code uses; kstats_new() is the one constructor"
	grep -qx '+	bool "kstats: per-CPU latency distributions in debugfs"' patches/01-lib-kstats.patch &&
		grep -q '^+config KSTATS_TRACE$' patches/09-kernel-trace.patch &&
		! grep -q '^+config KSTATS_TRACE' patches/0[12]-*.patch
	result $? "CONFIG_KSTATS is a bool; CONFIG_KSTATS_TRACE is in kernel/trace/Kconfig"

	# The upstream series: applies, checkpatch clean, gives this tree.
	fgwait "$HARNESS/patches.sh" --check > "$LOGS/patches.log" 2>&1
	grep -vE '^(PASS|FAIL): ' "$LOGS/patches.log" | grep -v '^==>' || true
	verdicts < "$LOGS/patches.log"
	# As many checkpatch verdicts as patches: patches.sh says how many.
	npatches=$(sed -n 's/^series: \([0-9]*\) patches$/\1/p' "$LOGS/patches.log")
	[ -n "$npatches" ] || fail "patches --check: no 'series: N patches' line"
	want=("patches: the series applies with git am" "patches: the series gives this repository's files"
		"patches: the cover letter answers each reviewer of 2020" "patches: MAINTAINERS names the submitter")
	for i in $(seq "${npatches:-0}"); do
		want+=("$(printf 'patches: checkpatch --strict %04d-' "$i")")
	done
	expect_verdicts "$LOGS/patches.log" "patches --check" "${want[@]}"

	need_pkgs python3-docutils
	for f in $(git ls-files --cached --others --exclude-standard 'Documentation/*.rst'); do
		/usr/bin/python3 "$HARNESS/rstcheck.py" "$f"
		result $? "reStructuredText of $f"
	done

	# The kernel's own documentation build, on Documentation/dev-tools. Its
	# warnings about kstats are those in kstats.rst and in the files whose
	# kernel-doc it pulls in. Sphinx warns only when it reads a document, so
	# kstats.rst is touched: read again on every run, warm cache or not.
	need_pkgs python3-sphinx python3-sphinx-rtd-theme python3-yaml
	docfiles="Documentation/dev-tools/kstats.rst Documentation/dev-tools/kstats $(sed -n 's/^\.\. kernel-doc:: *//p' \
		Documentation/dev-tools/kstats.rst | sort -u)"
	touch -c "$SRC/Documentation/dev-tools/kstats.rst"
	fgwait make -C "$SRC" O="$WORK/build-docs" SPHINXDIRS=dev-tools PYTHON3=/usr/bin/python3 \
		SPHINXBUILD=/usr/bin/sphinx-build htmldocs > "$LOGS/htmldocs.log" 2>&1
	r=$?
	html=$WORK/build-docs/Documentation/output/dev-tools/kstats.html
	# shellcheck disable=SC2086
	warn=$(doc_warnings $docfiles < "$LOGS/htmldocs.log")
	[ -z "$warn" ] || echo "$warn"
	[ $r -eq 0 ] && [ -z "$warn" ] && grep -q 'kstats_record' "$html" && grep -q 'kstats_new' "$html"
	result $? "make htmldocs: dev-tools/kstats.html with the API, no warning in $docfiles"
	# The filter itself, on a log whose paths all hold the word kstats.
	c=/root/.cache/kstats/6.12/linux
	got=$(printf '%s\n' \
		"$c/Documentation/dev-tools/kunit/index.rst:26: WARNING: unknown document: '/dev-tools/ktap'" \
		"$c/Documentation/dev-tools/kstats.rst:12: WARNING: Title underline too short." \
		"$c/lib/kstats.c:40: warning: Function parameter or struct member 'x' not described" \
		"$c/include/linux/kstats.h.orig:1: WARNING: not ours" \
		"$c/Documentation/dev-tools/kstats:556: $c/include/linux/kstats.h:40: WARNING: Inline emphasis" \
		"$c/Documentation/dev-tools/kstats_foo.rst:3: WARNING: not ours either" \
		"reading sources... [100%] kstats" | doc_warnings $docfiles | cut -d: -f1)
	[ "$got" = "$(printf '%s\n' "$c/Documentation/dev-tools/kstats.rst" "$c/lib/kstats.c" \
		"$c/Documentation/dev-tools/kstats")" ]
	result $? "htmldocs warnings are matched by file, not by a word of their path"
}

# tools_check: what step 4 tests of tools/kstats without the VM's capture,
# run beside the VM: one PASS/FAIL line per check, the counts of the
# tool's own tests on a TOOL_TESTS line.
tools_check() {
	local tk=$TOP/tools/kstats r
	need_pkgs gnuplot-nox prometheus prometheus-node-exporter clang libclang-rt-14-dev tmux
	make -s -C "$tk" clean
	make -s -C "$tk" > "$LOGS/tool-build.log" 2>&1
	r=$?
	[ $r -eq 0 ] || cat "$LOGS/tool-build.log"
	verdict $r "tools/kstats builds with -Wall -Wextra -Werror"
	make -s -C "$tk" bench > "$LOGS/bench-build.log" 2>&1
	r=$?
	[ $r -eq 0 ] || cat "$LOGS/bench-build.log"
	verdict $r "tools/kstats/bench: kstats_record() of include/linux/kstats.h builds natively"
	if [ -x "$tk/kstats" ]; then
		make -s -C "$tk" test > "$LOGS/tool-tests.log" 2>&1
		r=$?
		grep -v '^PASS' "$LOGS/tool-tests.log" | sed 's/^FAIL/tool test: FAIL/'
		# The count line, wherever it is: on a failure, make's own
		# "Error" line comes after it.
		sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/TOOL_TESTS \1 \2/p' \
			"$LOGS/tool-tests.log" | tail -n 1
		grep -qE '^[0-9]+ passed, [1-9][0-9]* failed$' "$LOGS/tool-tests.log" ||
			[ $r -eq 0 ] || echo "FAIL: tools/kstats tests: make test exit $r with no failed test"
		rm -rf "$LOGS/install"
		make -s -C "$tk" install DESTDIR="$LOGS/install" PREFIX=/usr &&
			[ -x "$LOGS/install/usr/bin/kstats" ] && [ -x "$LOGS/install/usr/bin/kstats-plot" ] &&
			[ -f "$LOGS/install/usr/share/man/man1/kstats-plot.1" ] &&
			[ -f "$LOGS/install/usr/share/man/man1/kstats.1" ] &&
			"$LOGS/install/usr/bin/kstats-plot" -t dumb "$tk/tests/corpus/two-slots" \
				> "$LOGS/install-plot.txt" 2>&1 && grep -q 'two-slots' "$LOGS/install-plot.txt"
		verdict $? "tools/kstats: make install, and the installed kstats-plot plots"
	fi
	if make -s -C "$tk" fuzz > "$LOGS/fuzz-build.log" 2>&1; then
		rm -rf "$LOGS/corpus" && cp -r "$tk/tests/corpus" "$LOGS/corpus"
		# A seed of the clock's, printed; KSTATS_SEED repeats a run.
		seed=${KSTATS_SEED:-$(date +%s)}
		"$tk/fuzz_parse" -seed="$seed" -max_total_time="${FUZZ_SECONDS:-20}" "$LOGS/corpus" \
			> "$LOGS/fuzz.log" 2>&1
		r=$?
		[ $r -eq 0 ] || tail -n 30 "$LOGS/fuzz.log"
		verdict $r "libFuzzer on the input parser, ${FUZZ_SECONDS:-20} s, seed $seed (KSTATS_SEED=$seed repeats it; $(grep -oE 'Done [0-9]+ runs' "$LOGS/fuzz.log"))"
	else
		cat "$LOGS/fuzz-build.log"
		echo "FAIL: build the fuzz target"
	fi
}

# report_sources, report_tools, report_kunit: the verdicts of
# sources_check, tools_check and harness/kunit.sh (UML), from their logs,
# counted.
report_sources() {
	grep -vE '^(PASS|FAIL|SKIP): ' "$LOGS/sources.log" || true
	verdicts < "$LOGS/sources.log"
	expect_verdicts "$LOGS/sources.log" "the checks of the sources" "make htmldocs:" \
		"htmldocs warnings are matched by file"
}
report_tools() {
	tk=$TOP/tools/kstats
	sed -n '/^TOOLS_BEGIN$/,/^TOOLS_END$/p' "$LOGS/chain.log" | grep -vE '^TOOLS_(BEGIN|END)$' |
		grep -vE '^PASS: ' | grep -vE '^TOOL_TESTS ' || true
	verdicts < <(sed -n '/^TOOLS_BEGIN$/,/^TOOLS_END$/p' "$LOGS/chain.log")
	set -- $(sed -n 's/^TOOL_TESTS \([0-9]*\) \([0-9]*\)$/\1 \2/p' "$LOGS/chain.log")
	if [ $# -eq 2 ]; then
		PASSED=$((PASSED + $1))
		FAILED=$((FAILED + $2))
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
	PASSED=$((PASSED + ${kp:-0}))
	FAILED=$((FAILED + ${kf:-0}))
	SKIPPED=$((SKIPPED + ${ks:-0}))
	[ "$krc" -eq 0 ] || [ "${kf:-0}" -gt 0 ] || fail "KUnit: kunit.py exit $krc"
	echo "KUnit: $summary"
}

# make check-quick (check.sh --quick): what needs no VM and no x86 kernel
# build, for the edit-test loop: the checks of the sources and of the
# series, the KUnit suite in UML and the tools' tests, one after another
# on both cores. make check runs all of it too.
if [ "$QUICK" = 1 ]; then
	step "[1/3] checkpatch --strict, kernel-doc and docutils on the sources"
	sources_check > "$LOGS/sources.log" 2>&1
	report_sources
	step "[2/3] KUnit suite in UML"
	"$HARNESS/kunit.sh" > "$LOGS/kunit.log" 2>&1
	echo $? > "$LOGS/kunit.rc"
	report_kunit
	step "[3/3] tools/kstats: build, tests on generated fixtures, fuzzing"
	(echo TOOLS_BEGIN; tools_check; echo TOOLS_END) > "$LOGS/chain.log" 2>&1
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
(sources_check > "$LOGS/sources.log" 2>&1
 JOBS=1 "$HARNESS/patches.sh" --build > "$LOGS/bisect.log" 2>&1
 echo "bisect exit $?" >> "$LOGS/bisect.log"
 JOBS=1 "$HARNESS/kunit.sh" > "$LOGS/kunit.log" 2>&1
 echo $? > "$LOGS/kunit.rc"
 echo TOOLS_BEGIN
 tools_check
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
sed -n '/^KSTATS_CAPTURE_BEGIN/,/^KSTATS_CAPTURE_END/{/^KSTATS_CAPTURE/d;p}' \
	"$LOGS/vm.log" > "$LOGS/sample_kmalloc"
# The torture's part, for step 6.
sed -n '/^kstats torture: /,/^KSTATS_SELFTEST_END kstats_torture.sh$/p' "$LOGS/vm.log" \
	> "$LOGS/torture.log"
sed '/^KSTATS_CAPTURE_BEGIN/,/^KSTATS_CAPTURE_END/d; /^kstats torture: /,/^KSTATS_SELFTEST_END kstats_torture.sh$/d' \
	"$LOGS/vm.log" | grep -vE '^ +(ok|# |KTAP|1\.\.)' | grep -v '^KSTATS_'
# KUnit: each suite's "# Totals" line counts its test cases.
for suite in kstats kstats_trace; do
	totals=$(sed -n "/^KSTATS_KUNIT_BEGIN $suite\$/,/^KSTATS_KUNIT_END/p" "$LOGS/vm.log" |
		grep -E '^# Totals: pass:' | tail -n 1)
	if [ -z "$totals" ]; then
		fail "KUnit suite $suite in the VM: no results"
		continue
	fi
	echo "KUnit $suite (x86_64 VM, $(sed -n 's/^KSTATS_KUNIT_CPUS //p' "$LOGS/vm.log") CPUs): $totals"
	set -- $(echo "$totals" | grep -oE '[0-9]+')
	PASSED=$((PASSED + $1))
	FAILED=$((FAILED + $2))
	SKIPPED=$((SKIPPED + $3))
done
count_selftests "$LOGS/vm.log" ""
# The kernel's reports in the whole boot's log (harness/vm.sh), one FAIL
# line each.
verdicts < <(grep '^FAIL: kernel report' "$LOGS/vm.log")
faults_selftest "$LOGS/vm.log"
if [ "$vrc" -ne 0 ]; then
	grep -v '^FAIL: kernel report' "$LOGS/vm.log" | tail -n 60
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
grep -vE '^PASS: ' "$LOGS/gen.log" || true
verdicts < "$LOGS/gen.log"
[ $r -eq 0 ] || fail "kstats_gen.py against the kernel: the comparison exits $r"
expect_verdicts "$LOGS/gen.log" "kstats_gen.py against the kernel" \
	"kstats_gen.py renders 40 values at bits 0 " "kstats_gen.py renders 40 values at bits 3 " \
	"kstats_gen.py renders 40 values at bits 8 "

step "[2/9] gnuplot on the metric captured in the VM"
if [ -s "$LOGS/sample_kmalloc" ]; then
	for what in pdf cdf; do
		"$HARNESS/plot.sh" "$LOGS/sample_kmalloc" "$what" > "$LOGS/plot-$what.txt" 2>&1
		r=$?
		[ $r -eq 0 ] || cat "$LOGS/plot-$what.txt"
		result $r "gnuplot $what of a captured metric"
	done
else
	fail "gnuplot: no metric captured in the VM"
fi
step "[3/9] checkpatch --strict, kernel-doc and docutils on the sources (beside the VM)"
wait "$CHAIN"
report_sources
step "[4/9] tools/kstats: build, tests on generated fixtures, fuzzing, plots (the first run beside the VM)"
report_tools
if [ -x "$tk/kstats" ]; then
	if [ -s "$LOGS/sample_kmalloc" ]; then
		"$tk/kstats" --json "$LOGS/sample_kmalloc" > "$LOGS/sample.json"
		r=$?
		want=$(awk '$3 == "CPUS" { n += $6 } END { print n + 0 }' "$LOGS/sample_kmalloc")
		got=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["count"])' \
			"$LOGS/sample.json" 2>&1)
		[ $r -eq 0 ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ]
		result $? "kstats reads a metric captured from the kernel: count ${got:0:40}, the sum of its CPUS lines $want"
	fi
	# A plot shows what it says: the input's name in the legend (whose
	# end the curve may cross on a terminal), and the curve drawn.
	"$tk/kstats-plot.sh" "$LOGS/sample_kmalloc" > "$LOGS/plot1.txt" 2>&1 &&
		grep -q '|sample_k' "$LOGS/plot1.txt" &&
		[ "$(grep -v '|sample_k' "$LOGS/plot1.txt" | grep -c '\*')" -ge 3 ]
	r=$?
	[ $r -eq 0 ] || cat "$LOGS/plot1.txt"
	result $r "kstats-plot: distribution on the terminal, with its legend and curve"
	"$tk/kstats-plot.sh" --cdf --per-cpu "$LOGS/sample_kmalloc" "$tk/tests/corpus/two-slots" \
		> "$LOGS/plot2.txt" 2>&1
	r=$?
	missing=$(for c in $(awk '$3 == "CPU" { print $4 }' "$LOGS/sample_kmalloc" | sort -u) \
		"two-slots CPU 1"; do
		case $c in
		two-*) grep -q "$c" "$LOGS/plot2.txt" || echo "$c" ;;
		*) grep -q "sample_kmalloc CPU $c " "$LOGS/plot2.txt" || echo "sample_kmalloc CPU $c" ;;
		esac
	done)
	[ $r -eq 0 ] && [ -z "$missing" ]
	result $? "kstats-plot: per-CPU CDFs of two inputs overlaid, a curve for each CPU of each${missing:+ (missing: $missing)}"
	"$tk/kstats-plot.sh" -t svg -o "$LOGS/plot.svg" "$LOGS/sample_kmalloc" &&
		/usr/bin/python3 - "$LOGS/plot.svg" sample_kmalloc <<'PY'
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
# gnuplot's group of the input's line: its title, and a curve of points.
for g in d.getElementsByTagName('g'):
    if not g.getAttribute('id').startswith('gnuplot_plot_'):
        continue
    t = g.getElementsByTagName('title')
    if t and t[0].firstChild and t[0].firstChild.data == sys.argv[2]:
        n = max([p.getAttribute('d').count('L') for p in g.getElementsByTagName('path')] + [0])
        sys.exit(0 if n >= 6 else 'the line of %s has %d points' % (sys.argv[2], n))
sys.exit('no line titled ' + sys.argv[2])
PY
	result $? "kstats-plot: SVG output, with the input's curve and its title"
fi
step "[5/9] the out-of-tree modules on Debian's own kernels (the newest 7.x, 6.12 and 6.1, beside the debug kernel's build), make bench-peers on 6.12 (after the VM)"
wait "$LANE"
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
		count_selftests "$LOGS/stock-$series.log" " on Debian's $series kernel"
	else
		tail -n 40 "$LOGS/stock-$series.log"
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
	{ tail -n 30 "$LOGS/bench-peers.log"; fail "make bench-peers (200 calls, 1 round) exits 0"; }
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
