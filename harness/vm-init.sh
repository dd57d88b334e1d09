#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test VM: mounts the usual file systems and debugfs, then runs
# the script named in /etc/kstats-run (put there by harness/vm.sh) and
# reports its exit status on the console, or starts a shell.
/bin/busybox mkdir -p /bin /sbin /usr/bin /usr/sbin /proc /sys /dev /tmp
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
hostname kstats-vm
export HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin
cd /root

echo "kstats-vm: kernel $(uname -r), $(nproc) CPUs"
if [ -f /etc/kstats-run ]; then
	# The script's output on the second serial port, the kernel's log
	# alone on the console (harness/vm.sh): a line of the kernel's in
	# the middle of a line of the script's would break both.
	out=/dev/ttyS1
	[ -c $out ] && stty -F $out raw -echo 2>/dev/null || out=/dev/console
	script=$(cat /etc/kstats-run)
	{
		echo "KSTATS_VM_START $script"
		sh "/root/$script"
		echo "KSTATS_VM_EXIT=$?"
	} > $out 2>&1
	# lockdep turns itself off after its first report, and then sees
	# nothing more: the log says whether it was still on at the end
	# (harness/kreports.awk fails the run if not). The self-test's
	# faults turn it off on purpose, after saying so themselves.
	[ -r /proc/lockdep_stats ] && [ ! -e /tmp/kstats-faults-injected ] &&
		echo "kstats-selftest: debug_locks $(awk '$1 == "debug_locks:" { print $2 }' \
			/proc/lockdep_stats)" > /dev/kmsg
else
	modprobe kstats_trace
	echo "kstats-vm: kstats and kstats_trace loaded; try: modprobe kstats_sample,"
	echo "kstats-vm: echo trace __do_softirq > /sys/kernel/debug/kstats/_control"
	echo "kstats-vm: exit the shell to power off"
	setsid cttyhack sh -l
fi
sync
# Power off through the isa-debug-exit port of harness/vm.sh, or ACPI.
printf '\0' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
poweroff -f
