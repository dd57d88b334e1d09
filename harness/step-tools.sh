#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/step-tools.sh LOGS
#
# Step 4 of make check (and 3 of make check-quick), what needs no VM:
# tools/kstats built with -Wall -Wextra -Werror, its native benchmark
# built, its tests (make test; their counts on a line "TOOL_TESTS PASSED
# FAILED"), make install, and libFuzzer on the input parser. One line per
# verdict (harness/verdict.sh), which harness/check.sh counts.
set -u
. "$(dirname "$0")/lib.sh"
step_init "harness/step-tools.sh LOGS" 1 "$@"

tk=$TOP/tools/kstats
# gnuplot-x11 (not gnuplot-nox, which conflicts with it: the same terminals,
# and x11) and Xvfb: kstats-plot's windows (-t x11), on a display of their own.
need_pkgs gnuplot-x11 xvfb prometheus prometheus-node-exporter clang \
	libclang-rt-14-dev tmux
make -s -C "$tk" clean
make -s -C "$tk" > "$LOGS/tool-build.log" 2>&1
r=$?
[ $r -eq 0 ] || quoted < "$LOGS/tool-build.log"
result $r "tools/kstats builds with -Wall -Wextra -Werror"
make -s -C "$tk" bench > "$LOGS/bench-build.log" 2>&1
r=$?
[ $r -eq 0 ] || quoted < "$LOGS/bench-build.log"
result $r "tools/kstats/bench: kstats_record() of include/linux/kstats.h builds natively"
if [ -x "$tk/kstats" ]; then
	# The screenshots of kstats-plot's windows, kept with the logs.
	KSTATS_SHOTS=$LOGS/shots make -s -C "$tk" test > "$LOGS/tool-tests.log" 2>&1
	r=$?
	grep -v '^PASS' "$LOGS/tool-tests.log" | sed 's/^FAIL/tool test: FAIL/'
	# The count line, wherever it is: on a failure, make's own
	# "Error" line comes after it.
	sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/TOOL_TESTS \1 \2/p' \
		"$LOGS/tool-tests.log" | tail -n 1
	grep -qE '^[0-9]+ passed, [1-9][0-9]* failed$' "$LOGS/tool-tests.log" ||
		[ $r -eq 0 ] || fail "tools/kstats tests: make test exit $r with no failed test"
	rm -rf "$LOGS/install"
	make -s -C "$tk" install DESTDIR="$LOGS/install" PREFIX=/usr &&
		[ -x "$LOGS/install/usr/bin/kstats" ] && [ -x "$LOGS/install/usr/bin/kstats-plot" ] &&
		[ -f "$LOGS/install/usr/share/man/man1/kstats-plot.1" ] &&
		[ -f "$LOGS/install/usr/share/man/man1/kstats.1" ] &&
		"$LOGS/install/usr/bin/kstats-plot" -t dumb "$tk/tests/corpus/two-slots" \
			> "$LOGS/install-plot.txt" 2>&1 && grep -q 'two-slots' "$LOGS/install-plot.txt"
	result $? "tools/kstats: make install, and the installed kstats-plot plots"
fi
if make -s -C "$tk" fuzz > "$LOGS/fuzz-build.log" 2>&1; then
	rm -rf "$LOGS/corpus" && cp -r "$tk/tests/corpus" "$LOGS/corpus"
	# A seed of the clock's, printed; KSTATS_SEED repeats a run.
	seed=${KSTATS_SEED:-$(date +%s)}
	"$tk/fuzz_parse" -seed="$seed" -max_total_time="${FUZZ_SECONDS:-20}" "$LOGS/corpus" \
		> "$LOGS/fuzz.log" 2>&1
	r=$?
	[ $r -eq 0 ] || tail -n 30 "$LOGS/fuzz.log" | quoted
	result $r "libFuzzer on the input parser, ${FUZZ_SECONDS:-20} s, seed $seed (KSTATS_SEED=$seed repeats it; $(grep -oE 'Done [0-9]+ runs' "$LOGS/fuzz.log"))"
else
	quoted < "$LOGS/fuzz-build.log"
	fail "build the fuzz target"
fi
