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
for suite in kstats kstats_trace; do
	modprobe "${suite}_kunit" || rc=1
	echo "KSTATS_KUNIT_BEGIN $suite"
	cat "/sys/kernel/debug/kunit/$suite/results"
	echo "KSTATS_KUNIT_END $suite"
done
echo "KSTATS_KUNIT_CPUS $(nproc)"
rmmod kstats_trace_kunit kstats_kunit || rc=1

cpus_online 4
for t in /root/kstats_*test.sh; do
	echo "# $(date +%T) $(basename "$t")"
	echo "KSTATS_SELFTEST_BEGIN $(basename "$t")"
	# One round of trace/remove under load, not 10: the torture below
	# removes every form 100 times under load on this kernel.
	(cd /root && KSTATS_STRESS_ROUNDS=1 sh "$t") || rc=1
	echo "KSTATS_SELFTEST_END $(basename "$t")"
done
if modprobe kstats_sample; then
	sleep 2
	echo "KSTATS_CAPTURE_BEGIN"
	cat /sys/kernel/debug/kstats/sample_kmalloc
	echo "KSTATS_CAPTURE_END"
	rmmod kstats_sample || rc=1
else
	rc=1
fi

sh /root/guest-torture.sh || rc=1
exit $rc
