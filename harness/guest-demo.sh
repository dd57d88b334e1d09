#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM for `make demo`: loads the sample, lets it record, and
# prints its metric between markers for the host to plot.
set -e
modprobe kstats_sample
echo "kstats_sample loaded: timing kmalloc/kfree on $(nproc) CPUs for ${DEMO_SECONDS:-5} s"
sleep "${DEMO_SECONDS:-5}"
echo "KSTATS_CAPTURE_BEGIN"
cat /sys/kernel/debug/kstats/sample_kmalloc
echo "KSTATS_CAPTURE_END"
rmmod kstats_sample
