#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM for `make demo`: loads the sample, lets it record, runs
# the fib_lookup and clock benchmarks of kstats_bench, follows read() while
# dd changes its block size (for a latency heatmap), and prints the metrics
# between markers for the host to summarize and plot.
set -e
D=/sys/kernel/debug/kstats
B=/sys/kernel/kstats_bench
capture() {
	echo "KSTATS_CAPTURE_BEGIN $1"
	cat "$D/$1"
	echo "KSTATS_CAPTURE_END $1"
}

modprobe kstats_sample
echo "kstats_sample: timing kmalloc/kfree on $(nproc) CPUs for ${DEMO_SECONDS:-5} s"
sleep "${DEMO_SECONDS:-5}"
capture sample_kmalloc
rmmod kstats_sample

modprobe kstats_bench
ip link set lo up
i=0
while [ $i -lt 256 ]; do
	ip route add 10.$i.0.0/16 dev lo
	i=$((i + 1))
done
echo "kstats_bench: fib_lookup over 256 routes, 20000 lookups on each CPU at once"
echo fib_lookup > $B/target
echo "0-$(($(nproc) - 1))" > $B/cpus
echo 20000 > $B/loops
cat $B/run
capture bench_fib_lookup
echo "kstats_bench: back-to-back reads of each clock, interrupts off, CPU 0"
echo clock > $B/target
echo 0 > $B/cpus
echo irq > $B/mode
cat $B/run
capture bench_clock_ktime_get_ns
capture bench_clock_rdtsc
rmmod kstats_bench

# read() of /dev/zero by dd, 4 KiB, 64 KiB, 1 MiB, 64 KiB then 4 KiB at a
# time, 3 s each, followed a second at a time by kstats --interval --csv.
modprobe kstats_trace
echo "trace __x64_sys_read bits 1" > $D/_control
echo "kstats_trace: read() while dd reads /dev/zero in blocks of 4k, 64k, 1M, 64k, 4k"
/root/kstats --interval 1 --count 15 --csv __x64_sys_read > /tmp/read_series &
k=$!
for bs in 4k 64k 1M 64k 4k; do
	timeout 3 dd if=/dev/zero of=/dev/null bs=$bs 2> /dev/null || true
done
wait $k
echo "remove __x64_sys_read" > $D/_control
echo "KSTATS_CAPTURE_BEGIN read_series"
cat /tmp/read_series
echo "KSTATS_CAPTURE_END read_series"
