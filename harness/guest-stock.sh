#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM booted on a distribution kernel: load the out-of-tree
# kstats modules, then the kselftests.
rc=0
modprobe kstats_trace || exit 1
echo "stock kernel $(uname -r): $(lsmod | grep -c kstats) kstats modules loaded"
for t in /root/kstats_*test.sh; do
	echo "KSTATS_SELFTEST_BEGIN $(basename "$t")"
	(cd /root && sh "$t") || rc=1
	echo "KSTATS_SELFTEST_END $(basename "$t")"
done
exit $rc
