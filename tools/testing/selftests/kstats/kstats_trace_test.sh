#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kstats_trace selftest: attach through /sys/kernel/debug/kstats/_control
# in every mode, count calls exactly, reject bad commands with their errno
# and change nothing, and survive trace/remove under load. KTAP output;
# exits 4 (skip) without root, debugfs, the module or the helper.

DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/kstats_lib.sh"

KS=$DEBUGFS/kstats
CTL=$KS/_control
HELPER=$DIR/kstats_helper
FUNC=__x64_sys_getppid
N=1000

[ -x "$HELPER" ] || { ktap_skip_all "kstats_helper not built"; exit "$KSFT_SKIP"; }
[ -e "$CTL" ] || modprobe kstats_trace 2>/dev/null
[ -e "$CTL" ] || { ktap_skip_all "no $CTL (CONFIG_KSTATS_TRACE)"; exit "$KSFT_SKIP"; }
grep -q " $FUNC\$" /proc/kallsyms ||
	{ ktap_skip_all "no $FUNC in this kernel (x86_64 only)"; exit "$KSFT_SKIP"; }
ktap_set_plan 14

# fprobe: needs CONFIG_FPROBE (Debian's 6.1 has none): EOPNOTSUPP otherwise.
if grep -q ' register_fprobe$' /proc/kallsyms; then
	FPROBE=fprobe: FPROBE_ENOENT=ENOENT FPROBE_MODE=fprobe
else
	FPROBE="" FPROBE_ENOENT=EOPNOTSUPP FPROBE_MODE=kretprobe
	ktap_print_msg "no fprobe in this kernel: fprobe: forms are expected to fail"
fi

# ctl CMD: one write of CMD to _control; prints OK or the errno name.
ctl() { "$HELPER" write "$CTL" "$1"; }
# field NAME KEY: a field of NAME's line in _control.
field() {
	awk -v n="$1" -v k="$2" '$1 == "name" && $2 == n {
		for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$CTL"
}

# The plain, pcpu: and fprobe: forms count every call, exactly (the helper
# stays on one CPU: pcpu: loses a call that migrates, as documented).
check_count() {
	[ "$(ctl "trace $1$FUNC bits 4")" = OK ] || return 1
	[ -e "$KS/$FUNC" ] && [ -e "$KS/GAP-$FUNC" ] || return 1
	"$HELPER" getppid $N > /dev/null
	n=$(field $FUNC samples)
	mode=$(field $FUNC mode)
	total=$(awk '$3 == "CPUS" { n += $6 } END { print n + 0 }' "$KS/$FUNC")
	[ "$(ctl "remove $FUNC")" = OK ] || return 1
	ktap_print_msg "$1$FUNC: mode $mode, $n samples, $total in the metric"
	[ "$n" -eq $N ] && [ "$total" -eq $N ] &&
		[ ! -e "$KS/$FUNC" ] && [ ! -e "$KS/GAP-$FUNC" ]
}
ktap_test_result "trace $FUNC counts exactly $N calls" check_count ""
ktap_test_result "trace pcpu:$FUNC counts exactly $N calls" check_count pcpu:
if [ -n "$FPROBE" ]; then
	ktap_test_result "trace fprobe:$FUNC counts exactly $N calls" check_count fprobe:
else
	ktap_test_skip "trace fprobe:$FUNC counts exactly $N calls (no CONFIG_FPROBE)"
fi

# A kprobe pair: one sample per getpid() closed by the next getppid().
check_kprobe_pair() {
	[ "$(ctl "trace kpair start __x64_sys_getpid end $FUNC")" = OK ] || return 1
	grep -q "^name kpair mode pair start __x64_sys_getpid end $FUNC bits 3 " "$CTL" ||
		return 1
	taskset 1 "$HELPER" pair 500
	n=$(field kpair samples)
	[ "$(ctl "remove kpair")" = OK ] || return 1
	[ "$n" -eq 500 ] && [ ! -e "$KS/kpair" ]
}
ktap_test_result "a kprobe pair times getpid() to getppid()" check_kprobe_pair

# A tracepoint pair: softirqs run all the time (the timer's at least).
check_tp_pair() {
	[ "$(ctl "trace sirq start __tracepoint_softirq_entry end tp:softirq_exit")" = OK ] ||
		return 1
	sleep 1
	n=$(field sirq samples)
	ktap_print_msg "softirq_entry to softirq_exit: $n samples in 1 s"
	[ "$(ctl "remove sirq")" = OK ] || return 1
	[ "$n" -gt 0 ] && [ ! -e "$KS/sirq" ]
}
ktap_test_result "a tracepoint pair times softirqs" check_tp_pair

# Bad commands: the errno of each, and nothing changed.
check_bad() {
	[ "$(ctl "trace $FUNC")" = OK ] || return 1
	long=$(printf 'trace %02000d' 0)
	before=$(ls "$KS"; cat "$CTL")
	bad=0
	while IFS='|' read -r cmd want; do
		got=$(ctl "$cmd")
		after=$(ls "$KS"; cat "$CTL")
		if [ "$got" != "$want" ] || [ "$after" != "$before" ]; then
			ktap_print_msg "'$cmd': got $got, want $want"
			bad=1
		fi
	done <<-EOT
	bogus|EINVAL
	trace|EINVAL
	trace $FUNC extra|EINVAL
	trace x start $FUNC|EINVAL
	trace foo\\0bar|EINVAL
	trace foo\\n\\n|EINVAL
	$long|E2BIG
	trace $FUNC bits 9|ERANGE
	trace pcpu:kstrace_no_such_function|ENOENT
	trace fprobe:kstrace_no_such_function|$FPROBE_ENOENT
	trace x start tp:kstrace_no_such_tp end tp:softirq_exit|ENOENT
	trace x start $FUNC end kstrace_no_such_function|ENOENT
	remove kstrace_not_traced|ENOENT
	trace $FUNC|EEXIST
	trace $FPROBE$FUNC|EEXIST
	trace kstats_record|EPERM
	trace exc_int3|EINVAL
	EOT
	[ "$(ctl "remove $FUNC")" = OK ] || return 1
	[ $bad -eq 0 ]
}
ktap_test_result "bad commands fail with their errno and change nothing" check_bad

# Every active trace is listed with its mode, points, bits and counts.
check_list() {
	n0=$(wc -l < "$CTL")
	for c in "trace $FUNC bits 2" "trace ${FPROBE}__x64_sys_getpid" \
		 "trace sirq start tp:softirq_entry end tp:softirq_exit bits 5"; do
		[ "$(ctl "$c")" = OK ] || return 1
	done
	list=$(cat "$CTL")
	for c in $FUNC __x64_sys_getpid sirq; do
		[ "$(ctl "remove $c")" = OK ] || return 1
	done
	f=__x64_sys_getpid
	re="^name $FUNC mode kretprobe start $FUNC end $FUNC%return bits 2"
	echo "$list" | grep -q "$re samples [0-9]* missed [0-9]*\$" &&
	echo "$list" | grep -q "^name $f mode $FPROBE_MODE start $f end $f%return bits 3 " &&
	echo "$list" | grep -q \
		"^name sirq mode pair start tp:softirq_entry end tp:softirq_exit bits 5 " &&
	[ "$(echo "$list" | wc -l)" -eq $((n0 + 3)) ] && [ "$(wc -l < "$CTL")" -eq "$n0" ]
}
ktap_test_result "_control lists the active traces" check_list

# trace/remove in a loop while every CPU calls the function and a reader
# reads the metric.
check_stress() {
	dmesg -c > /dev/null
	pids=""
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		taskset "$(printf %x $((1 << cpu)))" "$HELPER" spin 4 &
		pids="$pids $!"
	done
	(end=$(($(date +%s) + 4))
	 while [ "$(date +%s)" -lt "$end" ]; do
		cat "$KS/$FUNC" "$KS/GAP-$FUNC" > /dev/null 2>&1
	 done) &
	pids="$pids $!"
	i=0
	ok=0
	while [ $i -lt 10 ]; do
		for form in "" pcpu: "$FPROBE"; do
			[ "$(ctl "trace $form$FUNC")" = OK ] && ok=$((ok + 1))
			cat "$KS/$FUNC" > /dev/null
			[ "$(ctl "remove $FUNC")" = OK ] && ok=$((ok + 1))
		done
		i=$((i + 1))
	done
	wait $pids
	ktap_print_msg "$ok of 60 trace/remove commands succeeded under load"
	[ $ok -eq 60 ] && ! dmesg | grep -qE 'BUG:|WARNING:|Oops|Call Trace'
}
ktap_test_result "trace/remove under load on all CPUs, no splat" check_stress

# A start with no end and an end with no start are missed, not recorded.
check_missed() {
	[ "$(ctl "trace m start __x64_sys_getpid end $FUNC")" = OK ] || return 1
	taskset 1 "$HELPER" getppid 10 > /dev/null
	n=$(field m samples)
	missed=$(field m missed)
	[ "$(ctl "remove m")" = OK ] || return 1
	[ "$n" -eq 0 ] && [ "$missed" -ge 10 ]
}
ktap_test_result "ends without a start count as missed" check_missed

# Unloading the module removes every trace and its files.
check_unload() {
	[ "$(ctl "trace $FUNC")" = OK ] || return 1
	[ "$(ctl "trace sirq start tp:softirq_entry end tp:softirq_exit")" = OK ] ||
		return 1
	rmmod kstats_trace || return 1
	[ ! -e "$KS/$FUNC" ] && [ ! -e "$KS/sirq" ] && [ ! -e "$CTL" ] &&
		modprobe kstats_trace && [ -e "$CTL" ] && [ -z "$(cat "$CTL")" ]
}
ktap_test_result "unloading kstats_trace removes every trace" check_unload

# fprobe: through the direct trampoline (x86_64 kernels built with kstats):
# a call that sleeps in the function when its trace is removed, or when the
# module is unloaded, still returns through the trampoline, in the module.
SLEEPER=hrtimer_nanosleep
check_inflight_remove() {
	[ "$(ctl "trace fprobe:$SLEEPER")" = OK ] || return 1
	sleep 3 &
	pid=$!
	sleep 1
	[ "$(ctl "remove $SLEEPER")" = OK ] || { kill $pid; return 1; }
	# Not listed any more; the metric stays until the call returns, and
	# the module cannot go meanwhile.
	listed=$(field $SLEEPER mode)
	again=$(ctl "trace fprobe:$SLEEPER")
	metric=no
	[ -e "$KS/$SLEEPER" ] && metric=yes
	rmmod kstats_trace 2>/dev/null && return 1
	wait $pid
	i=0
	while [ -e "$KS/$SLEEPER" ] && [ $i -lt 5 ]; do
		sleep 1
		i=$((i + 1))
	done
	ktap_print_msg "after remove: listed '$listed', metric $metric," \
		"trace again $again; gone after ${i}s"
	[ -z "$listed" ] && [ $metric = yes ] && [ "$again" = EBUSY ] &&
		[ ! -e "$KS/$SLEEPER" ] && [ "$(ctl "trace fprobe:$SLEEPER")" = OK ] &&
		[ "$(ctl "remove $SLEEPER")" = OK ]
}

# Softirqs run on the IRQ stack, near its top: the trampoline copies only
# what is left of that stack, and times every call (none missed).
check_irq_stack() {
	[ "$(ctl "trace fprobe:__do_softirq")" = OK ] || return 1
	sleep 1
	n=$(field __do_softirq samples)
	missed=$(field __do_softirq missed)
	[ "$(ctl "remove __do_softirq")" = OK ] || return 1
	ktap_print_msg "fprobe:__do_softirq: $n samples, $missed missed in 1 s"
	[ "$n" -gt 0 ] && [ "$missed" -eq 0 ]
}

check_inflight_unload() {
	[ "$(ctl "trace fprobe:$SLEEPER")" = OK ] || return 1
	sleep 3 &
	pid=$!
	sleep 1
	rmmod kstats_trace || { kill $pid; return 1; }
	wait $pid
	dmesg | grep -q "$SLEEPER: waiting for calls in flight: 1" &&
		[ ! -e "$KS/$SLEEPER" ] && modprobe kstats_trace && [ -e "$CTL" ]
}
if grep -q ' kstats_trace_direct[[:space:]]' /proc/kallsyms; then
	ktap_test_result "fprobe: removed with a call in flight keeps its metric until it returns" \
		check_inflight_remove
	ktap_test_result "fprobe: unloading waits for a call in flight" check_inflight_unload
	ktap_test_result "fprobe: times softirqs on the IRQ stack" check_irq_stack
else
	ktap_test_skip "fprobe: removed with a call in flight (no direct trampoline)"
	ktap_test_skip "fprobe: unloading with a call in flight (no direct trampoline)"
	ktap_test_skip "fprobe: softirqs on the IRQ stack (no direct trampoline)"
fi

check_clean() {
	! dmesg | grep -qE 'BUG:|WARNING:|Oops|Call Trace'
}
ktap_test_result "no kernel splat in dmesg" check_clean

ktap_finished
