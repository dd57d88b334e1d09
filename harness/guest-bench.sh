#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM for `make bench`: the cost of kstats_record() against its
# floor and its peers (one CPU, then all at once), and the clock table of
# the kstats slides (back-to-back reads, interrupts off).
set -eu
B=/sys/kernel/kstats_bench
modprobe kstats_bench
echo "== cost of recording: ns per operation (median and p99 of batches), ratio to limit"
cat $B/cost
echo "== clocks: back-to-back reads, 20000 per clock, interrupts off (TSC: cycles)"
echo clock > $B/target
echo 20000 > $B/loops
echo irq > $B/mode
cat $B/run
