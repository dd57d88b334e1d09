#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/bench.sh
#
# The cost of kstats itself: in the VM (kstats_bench's cost and clock
# tables; TCG emulates, so read the ratios) and natively on this machine
# (a userspace model of the record path, threads pinned to real CPUs), and
# the memory of a metric per CPU for each frac_bits.
set -eu
. "$(dirname "$0")/lib.sh"
out=$(mktemp -d "${TMPDIR:-/tmp}/kstats-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT

step "native model of the record path ($(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
gcc -O2 -Wall -Wextra -Werror -pthread -o "$out/record_model" \
	"$TOP/tools/kstats/bench/record_model.c"
echo "== native: ns per operation, median of 7 runs, ratio to limit"
"$out/record_model"

echo "== memory of a metric per CPU: (65 - bits) << bits slots of 16 bytes"
for b in 0 1 2 3 4 5 6 7 8; do
	echo "memory bits $b slots $(((65 - b) << b)) bytes_per_cpu $((((65 - b) << b) * 16))"
done

step "in the VM (TCG: emulated time)"
"$HARNESS/vm.sh" run "$HARNESS/guest-bench.sh"
