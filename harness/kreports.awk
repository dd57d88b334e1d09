# SPDX-License-Identifier: GPL-2.0
# usage: awk -f harness/kreports.awk CONSOLE_LOG
#
# The kernel reports in a guest's console log (harness/vm.sh boots every
# guest with the full console log level), one line each:
#	PHASE<TAB>KIND<TAB>the line that starts the report
# PHASE is "test", or "fault NAME" for a report that the suite's self-test
# injected on purpose (harness/guest-faults.sh): one after a line
# "kstats-selftest: fault NAME", whose lines name the module that made it
# (kstats_faults, its thread kstats_hung); until "kstats-selftest: faults
# end". A report there that does not name it is a "test" report. KIND
# names the detector: lockdep, KASAN, UBSAN, kmemleak, hung task, RCU
# stall, hard lockup, CFI, WARNING, BUG, Oops, panic, INFO, lockdep off,
# kmemleak off, Call Trace (a stack dump under no other header),
# allocation failure, log incomplete, log unreadable.
#
# Only kernel lines count (a "[ seconds.micro]" timestamp first: every
# kernel the suite boots has CONFIG_PRINTK_TIME, and a log without one
# kernel line so stamped is itself a failure), so that a script's own
# output cannot pass for a report; and a header counts at the start of a
# message only, where the kernel's detectors print it ("RETBleed: WARNING:
# Spectre v2 mitigation leaves CPU vulnerable" at boot is not a report).
# Between "kstats-selftest: expect begin" and "kstats-selftest: expect
# end" (ks_expect_begin in kstats_lib.sh), fault injection's stack dumps
# of failed allocations (warn_alloc) are expected; every other report
# still counts.

# A report is printed once its lines are read (up to the next report, a
# mark, or 150 lines): in a fault's phase, they must name its source.
function flush() {
	if (!pending)
		return
	printf "%s\t%s\t%s\n", (pphase != "test" && psrc) ? pphase : "test", pkind, pline
	pending = 0
}

function report(kind, line) {
	flush()
	pending = 1
	pphase = phase
	pkind = kind
	pline = line
	psrc = line ~ /kstats_faults|kstats_hung/
	pstart = NR
	last = NR
}

BEGIN { phase = "test"; last = -1000; expect = 0; stamped = 0 }

{ sub(/\r$/, "") }

# console_prepend_dropped() puts it before a line, with no timestamp.
/\*\* [0-9]+ printk messages dropped \*\*/ {
	report("log incomplete", $0)
	next
}

!/^\[ *[0-9]+\.[0-9]+\]/ { next }

{
	stamped++
	line = $0
	sub(/^\[ *[0-9]+\.[0-9]+\] ?/, "")
	# A caller id (CONFIG_PRINTK_CALLER): "[    T1] ", or "[T1] " right
	# after the time.
	sub(/^\[ *[TC][0-9]+\] /, "")
	if (pending && NR - pstart > 150)
		flush()
}

/^kstats-selftest: fault / {
	flush()
	phase = "fault " $3
	if ($3 == "lockdep")
		lockdep_off = 1
	expect = 0
	last = -1000
	next
}
/^kstats-selftest: faults end/ { flush(); phase = "test"; next }
/^kstats-selftest: expect begin/ { flush(); expect = 1; next }
/^kstats-selftest: expect end/ { flush(); expect = 0; next }
/^kstats-selftest: kmemleak: / { report("kmemleak", line); next }
/^kstats-selftest: debug_locks 0/ { report("lockdep off", line); next }
/^kstats-selftest: / { flush(); next }

/FAULT_INJECTION: forcing a failure|page allocation failure|vmalloc error: / {
	if (expect)
		last = NR
	else
		report("allocation failure", line)
	next
}
# A perf NMI handler that ran long (it lowers the sampling rate): news,
# not a bug.
/^INFO: NMI handler .* took too long to run/ { next }
/^WARNING: (possible (circular|recursive|irq lock inversion)|inconsistent lock state|suspicious RCU usage|bad unlock balance|held lock freed|lock held when returning|Nested lock was not taken|bad contention|.*lock.*detected)/ {
	report("lockdep", line); next
}
/^turning off the locking correctness validator|^INFO: lockdep is turned off/ {
	# After the self-test's lockdep fault, lockdep is off on purpose.
	if (!lockdep_off || phase == "test")
		report("lockdep off", line)
	next
}
/^BUG: KASAN:|^KASAN:/ { report("KASAN", line); next }
/^UBSAN:/ { report("UBSAN", line); next }
/^INFO: task .* blocked for more than/ { report("hung task", line); next }
/^rcu: INFO: .*detected (expedited )?stall|^rcu: .*self-detected stall|detected (expedited )?stalls on CPUs/ {
	report("RCU stall", line); next
}
/Watchdog detected hard LOCKUP/ { report("hard lockup", line); next }
/^kmemleak: .*[Dd]isabled/ { report("kmemleak off", line); next }
# kCFI: an indirect call to a function of another type (a WARN instead
# of the trap with CONFIG_CFI_PERMISSIVE).
/^CFI failure at / { report("CFI", line); next }
/^WARNING:/ { report("WARNING", line); next }
/^(watchdog: )?BUG:|^kernel BUG at |^BUG [^ ]+ \(/ { report("BUG", line); next }
/^Oops|^general protection fault|^[a-z][a-z ]*: [0-9a-f][0-9a-f][0-9a-f][0-9a-f] \[#[0-9]+\]/ {
	report("Oops", line); next
}
/^Kernel panic/ { report("panic", line); next }
/^INFO:/ { report("INFO", line); next }
/^Call Trace:/ {
	# The dump of a report above (a lockdep report prints its chain
	# first), or a dump with no header of its own.
	if (NR - last > 200)
		report("Call Trace", line)
	next
}

# A line of the report being read.
pending && !psrc && /kstats_faults|kstats_hung/ { psrc = 1 }

END {
	flush()
	if (!stamped)
		printf "test\tlog unreadable\tno kernel line with a timestamp in the log\n"
}
