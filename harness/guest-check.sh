#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM for `make check`: the kstats kselftest, then a capture of
# the sample's metric for the host's gnuplot test.
sh /root/kstats_test.sh
rc=$?
modprobe kstats_sample || exit 1
sleep 2
echo "KSTATS_CAPTURE_BEGIN"
cat /sys/kernel/debug/kstats/sample_kmalloc
echo "KSTATS_CAPTURE_END"
modprobe -r kstats_sample
exit $rc
