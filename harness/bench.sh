#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/bench.sh
#
# The cost of kstats itself: in the VM (kstats_bench's cost and clock
# tables; TCG emulates, so read the ratios) and natively on this machine
# (the inline kstats_record() compiled in userspace, threads pinned to real
# CPUs: tools/kstats/bench/record_model.c), and
# the memory of a metric per CPU for each frac_bits.
set -eu
. "$(dirname "$0")/lib.sh"
need_pkgs build-essential
out=$(mktemp -d "${TMPDIR:-/tmp}/kstats-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT

step "kstats_record() natively ($(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
make -B -s -C "$TOP/tools/kstats" bench
echo "== native: ns per operation, median of 15 runs (cases in turn), ratio to limit"
"$TOP/tools/kstats/bench/record_model"

echo "== memory of a metric per CPU: (65 - bits) << bits slots of 16 bytes"
for b in 0 1 2 3 4 5 6 7 8; do
	echo "memory bits $b slots $(((65 - b) << b)) bytes_per_cpu $((((65 - b) << b) * 16))"
done

step "in the VM (TCG: emulated time)"
"$HARNESS/vm.sh" run "$HARNESS/guest-bench.sh"
