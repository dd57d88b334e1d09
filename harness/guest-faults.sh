#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The self-test of make check's report checks, last in the debug VM of
# make check (harness/guest-check.sh), after every real test: each fault
# below is injected after a line "kstats-selftest: fault NAME" in the
# kernel's log, and harness/check.sh requires that the log checks of
# harness/vm.sh (harness/kreports.awk) find each one, as the failure that
# names it. The kernel reports come from harness/faults/kstats_faults.ko.
DIR=/root
. /root/kstats_lib.sh > /dev/null
F=$DEBUGFS/kstats_faults
rc=0
fault() { echo "kstats-selftest: fault $1" > /dev/kmsg; echo "# fault $1"; }

# Whether lockdep was still on after the real tests: the faults turn it
# off (harness/vm-init.sh says it otherwise, at the end of every guest).
echo "kstats-selftest: debug_locks $(awk '$1 == "debug_locks:" { print $2 }' \
	/proc/lockdep_stats)" > /dev/kmsg
touch /tmp/kstats-faults-injected
insmod /root/kstats_faults.ko || exit 1
# The debug kernel boots with panic_on_warn: not for what follows.
echo 0 > /proc/sys/kernel/panic_on_warn
# The leak first, unreported until kmemleak scans (fault kmemleak below):
# it ages to kmemleak's 5 s meanwhile.
echo leak > "$F" || rc=1
leaked=$(ks_uptime_ms)

fault lockdep
echo lockdep > "$F" || rc=1

fault WARNING
echo warn > "$F" || rc=1

# The hung task detector, every second, on a thread that sleeps
# uninterruptibly until the detector has reported it.
fault hung-task
echo 1 > /proc/sys/kernel/hung_task_timeout_secs || rc=1
echo hang > "$F" || rc=1
ks_wait_for 120 sh -c "dmesg | grep -q 'INFO: task kstats_hung:[0-9]* blocked for more than'" ||
	{ echo "# the hung task detector did not report kstats_hung"; rc=1; }
echo release > "$F" || rc=1
echo 0 > /proc/sys/kernel/hung_task_timeout_secs

fault kmemleak
if ks_kmemleak_check "$leaked"; then
	echo "# kmemleak found no leak in kstats_faults"
	rc=1
fi

# A KTAP test that stops midway: its plan says 3, it reports 1.
fault ktap
echo "KSTATS_SELFTEST_BEGIN kstats_stops_test.sh"
sh -c 'echo "TAP version 13"; echo "1..3"; echo "ok 1 the first of three"; kill -9 $$'
echo "KSTATS_SELFTEST_END kstats_stops_test.sh"

rmmod kstats_faults || rc=1
echo "kstats-selftest: faults end" > /dev/kmsg
exit $rc
