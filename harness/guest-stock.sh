#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM booted on a distribution kernel: load the out-of-tree
# kstats modules, then the kselftests. Its verdicts: harness/verdict.sh.
. /root/verdict.sh
rc=0
modprobe kstats_trace || exit 1
echo "stock kernel $(uname -r): $(lsmod | grep -c kstats) kstats modules loaded"
for t in /root/kstats_*test.sh; do
	echo "KSTATS_SELFTEST_BEGIN $(basename "$t")"
	(cd /root && sh "$t") || rc=1
	echo "KSTATS_SELFTEST_END $(basename "$t")"
done

# The self-test of the log check on this kernel (harness/check.sh): a WARN
# as a distribution kernel prints it, without panic_on_warn, must become a
# failure that names it. Before lockdown, which refuses unsigned modules.
D=$(awk '$3 == "debugfs" { print $2; exit }' /proc/mounts)
if [ -e /root/kstats_faults.ko ] && [ -n "$D" ]; then
	echo "kstats-selftest: fault WARNING" > /dev/kmsg
	insmod /root/kstats_faults.ko && echo warn > "$D/kstats_faults" &&
		rmmod kstats_faults || rc=1
	echo "kstats-selftest: faults end" > /dev/kmsg
fi

# Last, for it cannot be undone: kernel lockdown, which Secure Boot
# brings on distribution kernels, closes debugfs to writes, and kstats
# trace says so. The module is loaded first (lockdown refuses unsigned
# ones); /dev/port is closed too, so the guest powers off through ACPI
# (harness/vm-init.sh).
L=/sys/kernel/security/lockdown
T="kstats trace under lockdown=integrity on $(uname -r): exit 1, says why"
[ -e $L ] || mount -t securityfs none /sys/kernel/security 2>/dev/null
# A metric and a group made before: debugfs refuses the metric's file (it
# takes writes) under lockdown, and kstats the group's _summary with it.
K=/sys/kernel/debug/kstats
T2="kstats under lockdown=integrity on $(uname -r): a group's _summary as closed as a metric"
sum=
if [ ! -e $L ]; then
	skip "$T: no lockdown LSM"
	skip "$T2: no lockdown LSM"
elif ! modprobe kstats_trace || ! echo "trace __x64_sys_getuid" > $K/_control ||
     { echo "trace fprobe:__*sys_get*gid as lk" > $K/_control 2> /dev/null &&
       sum=$K/lk/_summary; ! echo integrity > $L; }; then
	fail "$T: kstats_trace, its trace or lockdown=integrity cannot be set"
	fail "$T2: kstats_trace, its trace or lockdown=integrity cannot be set"
	rc=1
else
	out=$(/root/kstats trace __x64_sys_getppid -d 1 2>&1)
	r=$?
	if [ $r -eq 1 ] &&
	   echo "$out" | grep -q 'kernel lockdown (.*\[integrity\].*) closes debugfs to writes'; then
		pass "$T"
	else
		echo "$out"
		fail "$T (exit $r)"
		rc=1
	fi
	m=$(cat $K/__x64_sys_getuid 2>&1 > /dev/null)
	if [ -z "$sum" ]; then
		# Debian's 6.1: no groups.
		skip "$T2: no group on this kernel (metric: ${m:-read})"
	else
		s=$(cat "$sum" 2>&1 > /dev/null)
		if echo "$m" | grep -q 'not permitted' && echo "$s" | grep -q 'not permitted'; then
			pass "$T2"
		else
			fail "$T2: metric: ${m:-read}; _summary: ${s:-read}"
			rc=1
		fi
	fi
fi
exit $rc
