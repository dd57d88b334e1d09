#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM of `make cfi` (harness/cfi.sh), on the test kernel built
# with clang and kCFI (harness/x86_64-cfi.config): the KUnit suites, then
# the selftests of kstats and of kstats_trace, whose tracepoint ends (the
# pairs, tp:) would trap there if a tracepoint called a probe of another
# type than its own.
rc=0
# kCFI's preambles, one before each function whose address is taken.
echo "KSTATS_CFI_PREAMBLES $(grep -c ' __cfi_' /proc/kallsyms)"
sh /root/guest-kunit.sh || rc=1
for t in /root/kstats_test.sh /root/kstats_trace_test.sh; do
	echo "# $(date +%T) $(basename "$t")"
	echo "KSTATS_SELFTEST_BEGIN $(basename "$t")"
	(cd /root && KSTATS_STRESS_ROUNDS=1 KSTATS_GROUP_ROUNDS=1 sh "$t") || rc=1
	echo "KSTATS_SELFTEST_END $(basename "$t")"
done
exit $rc
