#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the debug VM for `make check`, in one boot (harness/check.sh
# boots 8 possible CPUs with maxcpus=4 and panic_on_warn, and copies in
# guest-torture.sh with its settings on the first line, as
# harness/torture.sh does):
#  - the KUnit suites (loaded as modules) with every possible CPU online,
#    so that what depends on the CPU count is tested at the most the
#    kernel supports;
#  - the kselftests on 4 CPUs, quicker to emulate on one host thread;
#  - a capture of the sample's metric for the host's gnuplot test;
#  - the torture selftest (harness/guest-torture.sh).
# kmemleak scans only when the torture asks it to: its automatic scan,
# a minute after boot, would stall an emulated KASAN kernel for as long.
[ -e /sys/kernel/debug/kmemleak ] && echo scan=off > /sys/kernel/debug/kmemleak
rc=0
# cpus_online N: CPUs 0..N-1 online, the others offline.
cpus_online() {
	for c in /sys/devices/system/cpu/cpu[1-9]*; do
		n=${c##*/cpu}
		on=0
		[ "$n" -lt "$1" ] && on=1
		[ "$(cat "$c/online")" = $on ] || echo $on > "$c/online" || rc=1
	done
}
possible=$(($(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1))
cpus_online "$possible"
echo "# $(date +%T) KUnit"
sh /root/guest-kunit.sh || rc=1

cpus_online 4
for t in /root/kstats_*test.sh; do
	echo "# $(date +%T) $(basename "$t")"
	echo "KSTATS_SELFTEST_BEGIN $(basename "$t")"
	# One round of trace/remove under load, not 10: the torture below
	# removes every form under load on this kernel. 3 rounds of the
	# group of every syscall, not 20: each takes 25 to 40 s here under
	# TCG and KASAN (20 took 10.5 minutes of a 30-minute VM).
	(cd /root && KSTATS_STRESS_ROUNDS=1 KSTATS_GROUP_ROUNDS=3 sh "$t") || rc=1
	echo "KSTATS_SELFTEST_END $(basename "$t")"
done
if modprobe kstats_sample; then
	# A capture with samples of every online CPU (each records 100 a
	# second).
	DIR=/root . /root/kstats_lib.sh > /dev/null
	ks_wait_for 120 sh -c "[ \$(awk '\$3 == \"CPU\" { print \$4 }' \
		/sys/kernel/debug/kstats/sample_kmalloc | sort -u | wc -l) -ge $(nproc) ]" ||
		{ echo "# sample_kmalloc: no samples from every CPU"; rc=1; }
	echo "KSTATS_CAPTURE_BEGIN"
	cat /sys/kernel/debug/kstats/sample_kmalloc
	echo "KSTATS_CAPTURE_END"
	rmmod kstats_sample || rc=1
else
	rc=1
fi

# Known values recorded by kstats_bench (its record file) on CPU 0, at
# several resolutions, for harness/check.sh to compare with what the
# generator of tools/kstats's fixtures renders of them: slot edges, a
# slot's many values (sums cut to 16 bits below the resolution), the
# ends of the u64 range.
VALUES="0 1 2 3 7 8 9 15 16 17 31 32 100 255 256 257 1000 1000 1023 1024 1025
	4095 4096 65535 65536 65537 99999 1000000 1048575 1048576 123456789
	4294967295 4294967296 1099511627776 1099511700000 1099512000000
	9223372036854775807 9223372036854775808 18446744073709551615
	18446744073709551615"
possible=$(($(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1))
if modprobe kstats_bench; then
	for bits in 0 3 8; do
		echo "KSTATS_RECORD_BEGIN $bits $possible" $VALUES
		taskset 1 sh -c "echo $bits $(echo $VALUES) > /sys/kernel/kstats_bench/record" &&
			cat /sys/kernel/debug/kstats/bench_record || rc=1
		echo "KSTATS_RECORD_END"
	done
	rmmod kstats_bench || rc=1
else
	rc=1
fi

sh /root/guest-torture.sh || rc=1
# Last: the self-test of the report checks, which breaks the kernel on
# purpose (harness/guest-faults.sh).
if [ -e /root/kstats_faults.ko ]; then
	sh /root/guest-faults.sh || rc=1
fi
exit $rc
