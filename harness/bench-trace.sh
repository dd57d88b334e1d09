#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/bench-trace.sh   (CALLS=N ROUNDS=N to change the run;
#                                   MEASURE=instructions or time: one only)
#
# The cost a caller pays when a function is timed by kstats_trace, in each
# form, against the untraced call and the kernel's own probe events with a
# hist trigger, measured side by side in one VM run; two runs:
#  - instructions: qemu counts instructions (-icount shift=0: one
#    nanosecond of guest time per instruction), so the figures are
#    instructions per call, the same from one run to the next: the work
#    each form does, not its cache misses or pipeline stalls;
#  - time: TCG's emulated time, in which an instruction's cost depends on
#    how qemu translates it and on where code lies (the same case has
#    measured twice as long from one registration to the next): compare
#    the ratios, not the nanoseconds.
set -eu
. "$(dirname "$0")/lib.sh"
need_pkgs build-essential $VM_PKGS
out=$(mktemp -d "${TMPDIR:-/tmp}/kstats-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
gcc -static -O2 -Wall -Wextra -Werror -o "$out/kstats_helper" \
	"$TOP/tools/testing/selftests/kstats/kstats_helper.c"
echo "bench-trace: $(host_desc)"
for m in ${MEASURE:-instructions time}; do
	case $m in
	instructions) calls=${CALLS:-20000} rounds=${ROUNDS:-3} unit=insn
		qemu="-icount shift=0,sleep=off" ;;
	time) calls=${CALLS:-100000} rounds=${ROUNDS:-5} unit=ns qemu= ;;
	*) die "MEASURE: '$m' is neither instructions nor time" ;;
	esac
	{
		echo "CALLS=$calls ROUNDS=$rounds UNIT=$unit${CASES:+ CASES=\"$CASES\"}"
		cat "$HARNESS/guest-bench-trace.sh"
	} > "$out/bench-trace.sh"
	step "measuring $m (a minute or two under TCG)"
	# TCG even where KVM works: -icount needs it, and the figures of
	# the two runs are to be read alike.
	VM_ACCEL=$TCG VM_QEMU=$qemu "$HARNESS/vm.sh" run "$out/bench-trace.sh" "$out/kstats_helper"
done
