# SPDX-License-Identifier: GPL-2.0
# usage: awk -f harness/kreports.awk CONSOLE_LOG
#
# The kernel reports in a guest's console log (harness/vm.sh boots every
# guest with the full console log level), one line each:
#	PHASE<TAB>KIND<TAB>the line that starts the report
# PHASE is "test", or "fault NAME" after a line "kstats-selftest: fault
# NAME" (the suite's self-test injects NAME there: harness/guest-faults.sh).
# KIND names the detector: lockdep, KASAN, UBSAN, kmemleak, hung task,
# RCU stall, WARNING, BUG, Oops, panic, INFO, lockdep off, kmemleak off,
# Call Trace (a stack dump under no other header), allocation failure,
# log incomplete.
#
# Only kernel lines count (a "[ seconds.micro]" timestamp first: every
# kernel the suite boots has CONFIG_PRINTK_TIME), so that a script's own
# output cannot pass for a report; and a header counts at the start of a
# message only, where the kernel's detectors print it ("RETBleed: WARNING:
# Spectre v2 mitigation leaves CPU vulnerable" at boot is not a report). Between "kstats-selftest: expect begin"
# and "kstats-selftest: expect end" (ks_expect_begin in kstats_lib.sh),
# fault injection's stack dumps of failed allocations are expected; every
# other report still counts.

function report(kind, line) {
	printf "%s\t%s\t%s\n", phase, kind, line
	last = NR
}

BEGIN { phase = "test"; last = -1000; expect = 0 }

{ sub(/\r$/, "") }

!/^\[ *[0-9]+\.[0-9]+\] / { next }

{
	line = $0
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "")
	# A caller id (CONFIG_PRINTK_CALLER), as in "[    T1] ".
	sub(/^\[ *[TC][0-9]+\] /, "")
}

/^kstats-selftest: fault / { phase = "fault " $3; expect = 0; last = -1000; next }
/^kstats-selftest: expect begin/ { expect = 1; next }
/^kstats-selftest: expect end/ { expect = 0; next }
/^kstats-selftest: kmemleak: / { report("kmemleak", line); next }
/^kstats-selftest: debug_locks 0/ { report("lockdep off", line); next }
/^kstats-selftest: / { next }

/FAULT_INJECTION: forcing a failure|page allocation failure|vmalloc error: / {
	if (expect)
		last = NR
	else
		report("allocation failure", line)
	next
}
/^WARNING: (possible (circular|recursive|irq lock inversion)|inconsistent lock state|suspicious RCU usage|bad unlock balance|held lock freed|lock held when returning|Nested lock was not taken|bad contention|.*lock.*detected)/ {
	report("lockdep", line); next
}
/^turning off the locking correctness validator|^INFO: lockdep is turned off/ {
	report("lockdep off", line); next
}
/^BUG: KASAN:|^KASAN:/ { report("KASAN", line); next }
/^UBSAN:/ { report("UBSAN", line); next }
/^INFO: task .* blocked for more than/ { report("hung task", line); next }
/rcu: INFO: .*detected stall|rcu: .*self-detected stall|detected stalls on CPUs/ {
	report("RCU stall", line); next
}
# kmemleak's own count covers the whole kernel: what counts is the leaks
# in objects of kstats code, which the guest marks (ks_kmemleak_check).
/^kmemleak: .*[Dd]isabled/ { report("kmemleak off", line); next }
/^WARNING:/ { report("WARNING", line); next }
/^(watchdog: )?BUG:/ { report("BUG", line); next }
/^Oops|^general protection fault/ { report("Oops", line); next }
/^Kernel panic/ { report("panic", line); next }
/^INFO:/ { report("INFO", line); next }
/printk messages dropped/ { report("log incomplete", line); next }
/^Call Trace:/ {
	# The dump of a report above (a lockdep report prints its chain
	# first), or a dump with no header of its own.
	if (NR - last > 200)
		report("Call Trace", line)
	next
}
