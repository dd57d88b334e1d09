#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/bench-trace.sh   (CALLS=N ROUNDS=N to change the run)
#
# The cost a caller pays when a function is timed by kstats_trace, in each
# form, against the untraced call and the kernel's own probe events with a
# hist trigger, measured side by side in one VM run. Under TCG the figures
# are emulated time: compare the ratios, not the nanoseconds.
set -eu
. "$(dirname "$0")/lib.sh"
need_pkgs build-essential
out=$(mktemp -d "${TMPDIR:-/tmp}/kstats-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
gcc -static -O2 -Wall -Wextra -Werror -o "$out/kstats_helper" \
	"$TOP/tools/testing/selftests/kstats/kstats_helper.c"
{
	echo "CALLS=${CALLS:-100000} ROUNDS=${ROUNDS:-5}${CASES:+ CASES=\"$CASES\"}"
	cat "$HARNESS/guest-bench-trace.sh"
} > "$out/bench-trace.sh"
step "measuring (a few minutes under TCG)"
"$HARNESS/vm.sh" run "$out/bench-trace.sh" "$out/kstats_helper"
