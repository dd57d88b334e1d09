#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM for `make check`, PART=kunit: the KUnit suites that need a
# real SMP machine with kprobes (loaded as modules); PART=selftests: the
# kselftests, then a capture of the sample's metric for the host's gnuplot
# test. harness/check.sh puts the PART= line first.
rc=0
if [ "${PART:-kunit}" = kunit ]; then
	for suite in kstats kstats_trace; do
		modprobe "${suite}_kunit" || rc=1
		echo "KSTATS_KUNIT_BEGIN $suite"
		cat "/sys/kernel/debug/kunit/$suite/results"
		echo "KSTATS_KUNIT_END $suite"
	done
	echo "KSTATS_KUNIT_CPUS $(nproc)"
	exit $rc
fi
for t in /root/kstats_*test.sh; do
	echo "KSTATS_SELFTEST_BEGIN $(basename "$t")"
	(cd /root && sh "$t") || rc=1
	echo "KSTATS_SELFTEST_END $(basename "$t")"
done
modprobe kstats_sample || exit 1
sleep 2
echo "KSTATS_CAPTURE_BEGIN"
cat /sys/kernel/debug/kstats/sample_kmalloc
echo "KSTATS_CAPTURE_END"
rmmod kstats_sample
exit $rc
