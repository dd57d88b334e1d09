#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In a guest (harness/guest-check.sh, harness/guest-cfi.sh): the KUnit
# suites of kstats, loaded as modules, the results of each between
# "KSTATS_KUNIT_BEGIN SUITE" and "KSTATS_KUNIT_END", then the CPUs they
# ran on. Exits 1 if a module would not load or unload.
rc=0
for suite in kstats kstats_trace; do
	modprobe "${suite}_kunit" || rc=1
	echo "KSTATS_KUNIT_BEGIN $suite"
	cat "/sys/kernel/debug/kunit/$suite/results"
	echo "KSTATS_KUNIT_END $suite"
done
echo "KSTATS_KUNIT_CPUS $(nproc)"
rmmod kstats_trace_kunit kstats_kunit || rc=1
exit $rc
