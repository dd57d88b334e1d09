#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kstats_trace selftest: attach through /sys/kernel/debug/kstats/_control
# in every mode, count calls exactly, reject bad commands with their errno
# and change nothing, and survive trace/remove under load
# (KSTATS_STRESS_ROUNDS rounds, default 10). KTAP output; exits 4 (skip)
# without root, debugfs, the module or the helper.

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
ktap_set_plan 36
# Reports are checked from here on: the log is never cleared (the harness
# reads all of it), and $$ tells this run's marks from another's.
ks_mark "kstats_trace_test $$: begin"
TMPD=$(mktemp -d)
trap '[ -z "$CGROOT" ] || [ "$CGROOT" != "$TMPD/cgroup2" ] || umount "$CGROOT"; rm -rf "$TMPD"' EXIT

# fprobe: needs CONFIG_FPROBE (Debian's 6.1 has none): EOPNOTSUPP otherwise.
if grep -q ' register_fprobe$' /proc/kallsyms; then
	FPROBE=fprobe: FPROBE_ENOENT=ENOENT FPROBE_EINVAL=EINVAL FPROBE_MODE=fprobe
else
	FPROBE="" FPROBE_ENOENT=EOPNOTSUPP FPROBE_EINVAL=EOPNOTSUPP FPROBE_MODE=kretprobe
	ktap_print_msg "no fprobe in this kernel: fprobe: forms are expected to fail"
fi

# ctl CMD: one write of CMD to _control; prints OK or the errno name.
ctl() { "$HELPER" write "$CTL" "$1"; }
# logged_since MARK TEXT: the kernel logged a line with TEXT after the
# last mark MARK (ks_mark).
logged_since() {
	dmesg | awk -v m="kstats-selftest: $1" -v t="$2" '
		index($0, m) { on = 1; found = 0; next }
		on && index($0, t) { found = 1 }
		END { exit !found }'
}
# field NAME KEY: a field of NAME's line in _control.
field() {
	awk -v n="$1" -v k="$2" '$1 == "name" && $2 == n {
		for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$CTL"
}

# The plain, pcpu: and fprobe: forms count every call, exactly (the helper
# stays on one CPU: pcpu: loses a call that migrates, as documented).
check_count() {
	# GAP- only when asked for (gap).
	[ "$(ctl "trace $1$FUNC")" = OK ] && [ -e "$KS/$FUNC" ] && [ ! -e "$KS/GAP-$FUNC" ] &&
		[ -z "$(field $FUNC gap)" ] && [ "$(ctl "remove $FUNC")" = OK ] || return 1
	[ "$(ctl "trace $1$FUNC bits 4 gap")" = OK ] || return 1
	[ -e "$KS/$FUNC" ] && [ -e "$KS/GAP-$FUNC" ] && [ "$(field $FUNC gap)" = "GAP-$FUNC" ] ||
		return 1
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

# pid N and cgroup PATH: exactly the calls of one process, or of the
# tasks of one cgroup or of a cgroup below it (subtree), while another
# process calls the function too. The process says when it is ready (its
# shell's own start is over), waits on a FIFO while the trace is added,
# then makes its N calls.
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$CGROOT" ] && grep -qw cgroup2 /proc/filesystems; then
	CGROOT=$TMPD/cgroup2
	mkdir -p "$CGROOT" && mount -t cgroup2 none "$CGROOT" || CGROOT=""
fi
# (FORM last: ktap_test_result drops an empty argument.)
check_filter() {
	what=$1 form=${2:-} go=$TMPD/go ready=$TMPD/ready key=cgroup
	rm -f "$go" "$ready"
	mkfifo "$go" || return 1
	enter=""
	case $what in
	pid) key=pid ;;
	cgroup) dir=kstats_test ;;
	subtree) dir=kstats_test/child ;;
	esac
	if [ $key = cgroup ]; then
		mkdir -p "$CGROOT/$dir" || return 1
		enter="echo \$\$ > $CGROOT/$dir/cgroup.procs;"
	fi
	sh -c "$enter : > $ready; read x < $go; exec taskset 1 $HELPER getppid $N" > /dev/null &
	p=$!
	filter="pid $p"
	[ $key = cgroup ] && filter="cgroup /kstats_test"
	r="not ready"
	ks_wait_for 60 [ -e "$ready" ] && r=$(ctl "trace $form$FUNC $filter")
	"$HELPER" getppid 500 > /dev/null &
	o=$!
	ks_send_go 120 "$go" $p || r="$r, no reader"
	wait $p
	wait $o
	n=$(field $FUNC samples)
	listed=$(field $FUNC $key)
	[ "$r" = OK ] && [ "$(ctl "remove $FUNC")" = OK ] || r=failed
	[ "$what" = subtree ] && rmdir "$CGROOT/$dir"
	[ $key = cgroup ] && rmdir "$CGROOT/kstats_test"
	ktap_print_msg "$form$FUNC $filter ($what): $r, $n samples, listed as $key $listed"
	[ "$r" = OK ] && [ "$n" -eq $N ] && [ "$filter" = "$key $listed" ]
}
for form in "" pcpu: fprobe:; do
	for what in pid cgroup subtree; do
		t="trace $form$FUNC $what: exactly the $N calls of one process, not another's"
		[ "$what" = subtree ] &&
			t="trace $form$FUNC cgroup: the $N calls of a process in a cgroup below it"
		if [ "$form" = fprobe: ] && [ -z "$FPROBE" ]; then
			ktap_test_skip "$t (no CONFIG_FPROBE)"
		elif [ "$what" != pid ] && [ -z "$CGROOT" ]; then
			ktap_test_skip "$t (no cgroup2)"
		else
			ktap_test_result "$t" check_filter "$what" "$form"
		fi
	done
done

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

# A tracepoint pair: softirqs. They cannot be made in a known number (the
# timer, RCU and the scheduler raise their own on every CPU), but the
# kernel counts each one in /proc/softirqs just before softirq_entry: every
# sample is a softirq counted after s0 (read before the trace is added) and
# before s3 (read after the samples), and every softirq counted between s1
# (after the add) and s2 (before the samples) is a sample, but for one in
# flight on each CPU at either end.
softirqs() {
	awk 'NR > 1 { for (i = 2; i <= NF; i++) n += $i } END { print n + 0 }' /proc/softirqs
}
softirqs_reach() { [ "$(softirqs)" -ge "$1" ]; }
check_tp_pair() {
	cpus=$(awk 'NR == 1 { print NF }' /proc/softirqs)
	s0=$(softirqs)
	[ "$(ctl "trace sirq start __tracepoint_softirq_entry end tp:softirq_exit")" = OK ] ||
		return 1
	s1=$(softirqs)
	ks_wait_for 60 softirqs_reach $((s1 + 20 + cpus))
	s2=$(softirqs)
	n=$(field sirq samples)
	s3=$(softirqs)
	ktap_print_msg "softirq_entry to softirq_exit: $n samples; the kernel ran" \
		"$((s2 - s1)) softirqs after the add, $((s3 - s0)) from before it to" \
		"after the read, on $cpus CPUs"
	[ "$(ctl "remove sirq")" = OK ] || return 1
	[ ! -e "$KS/sirq" ] && [ $((s2 - s1)) -ge 20 ] &&
		[ "$n" -ge $((s2 - s1 - cpus)) ] && [ "$n" -le $((s3 - s0 + cpus)) ]
}
ktap_test_result "a tracepoint pair times softirqs" check_tp_pair

# Two pairs on the same two tracepoints, for one process: from each
# sys_enter to its sys_exit, and from each sys_exit to the next sys_enter.
# Each end is the tracepoint's one probe stub with its own data, and the
# kprobe of each end acts on its own calls only: were it to act on the
# other's too, every end would come twice, a start overwritten or an end
# with nothing open, a missed sample for each syscall. A tracepoint probe
# event of the tracing subsystem on the same stub (t: in dynamic_events,
# with no data; where the kernel has fprobe), added for the first N calls
# and removed before the next N, changes nothing, and counts each of the
# process's sys_enter once: N and its few other syscalls. Where kstats is
# built out of tree, the kernel lacks the series' trace_fprobe change, and
# the event counts each hit three times (its probe and the two ends): the
# count is printed, not checked. The process stays on
# CPU 0 (an end on another CPU than its start would be missed). Missed:
# at most the one wait on the FIFO that the process is in when the traces
# are added, which ends with no start. Its other syscalls (the shell's,
# the helper's start) are a few more samples.
TRACEFS=
for d in /sys/kernel/tracing "$DEBUGFS/tracing"; do
	[ -w "$d/dynamic_events" ] && TRACEFS=$d && break
done
check_tp_shared() {
	go=$TMPD/go ready=$TMPD/ready half=$TMPD/half ev=none
	rm -f "$go" "$ready" "$half"
	mkfifo "$go" || return 1
	taskset 1 sh -c ": > $ready; read x < $go; exec $HELPER halves $N $half $go" &
	p=$!
	ks_wait_for 60 [ -e "$ready" ] || return 1
	r1=$(ctl "trace tpin start tp:sys_enter end tp:sys_exit pid $p")
	r2=$(ctl "trace tpout start tp:sys_exit end tp:sys_enter pid $p")
	# The event counts in a trace instance of its own: the global
	# buffer stays the user's, whatever its size and tracing_on.
	hits=0 evok=1 added=0
	if [ -n "$FPROBE" ] && [ -n "$TRACEFS" ]; then
		ev=failed evok=0
		inst=$TRACEFS/instances/kstats_tpsh
		evd=$inst/events/kstats_test/tpsh
		if echo 't:kstats_test/tpsh sys_enter' >> "$TRACEFS/dynamic_events"; then
			added=1
			mkdir "$inst" && echo "common_pid == $p" > "$evd/filter" &&
				echo 1 > "$evd/enable" && ev=added
		fi
	fi
	alive=1
	ks_send_go 120 "$go" $p || { alive=0; r1="$r1, no reader"; }
	[ $alive = 0 ] || ks_wait_for 120 [ -e "$half" ] || ev="$ev, no half way"
	if [ "$added" = 1 ]; then
		[ -d "$inst" ] && echo 0 > "$evd/enable" &&
			hits=$(grep -c ' tpsh: ' "$inst/trace")
		[ -d "$inst" ] && rmdir "$inst"
		echo '-:kstats_test/tpsh' >> "$TRACEFS/dynamic_events" &&
			ev="$ev, removed, $hits hits"
		if [ "$ev" != "added, removed, $hits hits" ]; then
			:
		elif grep -q O /sys/module/kstats_trace/taint 2>/dev/null; then
			ev="$ev (out of tree: not checked)"
			evok=1
		elif [ "$hits" -ge "$N" ] && [ "$hits" -le $((N + 100)) ]; then
			evok=1
		fi
	fi
	[ $alive = 0 ] || ks_send_go 120 "$go" $p || r1="$r1, no reader"
	wait $p
	n1=$(field tpin samples) m1=$(field tpin missed)
	n2=$(field tpout samples) m2=$(field tpout missed)
	[ "$r1" = OK ] && [ "$(ctl "remove tpin")" = OK ] || r1="$r1, not removed"
	[ "$r2" = OK ] && [ "$(ctl "remove tpout")" = OK ] || r2="$r2, not removed"
	ktap_print_msg "2 x $N getppid(): sys_enter to sys_exit $r1, $n1 samples, $m1 missed;" \
		"sys_exit to sys_enter $r2, $n2 samples, $m2 missed; t: event $ev"
	[ "$r1" = OK ] && [ "$r2" = OK ] && [ "$evok" = 1 ] &&
		[ "$n1" -ge $((2 * N)) ] && [ "$n1" -le $((2 * N + 100)) ] && [ "$m1" -le 1 ] &&
		[ "$n2" -ge $((2 * N)) ] && [ "$n2" -le $((2 * N + 100)) ] && [ "$m2" -le 1 ]
}
ktap_test_result "two pairs on the same tracepoints: each its own calls, none missed" \
	check_tp_shared

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
	bogus\\ntrace foo|EINVAL
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
	trace start_kernel|EINVAL
	trace pcpu:start_kernel|EINVAL
	trace fprobe:start_kernel|$FPROBE_EINVAL
	trace x start start_kernel end $FUNC|EINVAL
	EOT
	[ "$(ctl "remove $FUNC")" = OK ] || return 1
	[ $bad -eq 0 ]
}
ktap_test_result "bad commands fail with their errno and change nothing" check_bad

# Every active trace is listed with its mode, points, bits and counts.
check_list() {
	n0=$(grep -vc '^#' "$CTL")
	for c in "trace $FUNC bits 2" "trace ${FPROBE}__x64_sys_getpid" \
		 "trace sirq start tp:softirq_entry end tp:softirq_exit bits 5"; do
		[ "$(ctl "$c")" = OK ] || return 1
	done
	list=$(cat "$CTL")
	for c in $FUNC __x64_sys_getpid sirq; do
		[ "$(ctl "remove $c")" = OK ] || return 1
	done
	f=__x64_sys_getpid
	re="^name $FUNC mode kretprobe start $FUNC end $FUNC%return bits 2 samples [0-9]*"
	echo "$list" | grep -q "$re missed [0-9]* memory [0-9]* maxactive [0-9]*\$" &&
	echo "$list" | grep -q "^name $f mode $FPROBE_MODE start $f end $f%return bits 3 " &&
	echo "$list" | grep -q \
		"^name sirq mode pair start tp:softirq_entry end tp:softirq_exit bits 5 " &&
	[ "$(echo "$list" | grep -vc '^#')" -eq $((n0 + 3)) ] &&
		[ "$(grep -vc '^#' "$CTL")" -eq "$n0" ]
}
ktap_test_result "_control lists the active traces" check_list

# What _control shows with no trace, written back, does nothing: its lines
# are comments; so is what follows a '#' after a command.
check_comments() {
	grep '^#' "$CTL" > "$TMPD/grammar" && [ -s "$TMPD/grammar" ] || return 1
	before=$(ls "$KS"; cat "$CTL")
	while read -r line; do
		[ "$(ctl "$line")" = OK ] || { ktap_print_msg "'$line' refused"; return 1; }
	done < "$TMPD/grammar"
	[ "$(ls "$KS"; cat "$CTL")" = "$before" ] || return 1
	[ "$(ctl "trace $FUNC bits 2 # the getppid() calls")" = OK ] || return 1
	bits=$(field "$FUNC" bits)
	[ "$(ctl "remove $FUNC")" = OK ] && [ "$bits" = 2 ]
}
ktap_test_result "comment lines, such as the listing's, do nothing" check_comments

# trace/remove in a loop while every CPU calls the function and a reader
# reads the metric: KSTATS_STRESS_ROUNDS (10) rounds of every form. The
# load runs until the rounds are done, however long they take.
ROUNDS=${KSTATS_STRESS_ROUNDS:-10}
check_stress() {
	ks_mark "kstats_trace_test $$: stress begin"
	rm -f "$TMPD/stop" "$TMPD"/spin.*
	spinners=""
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		taskset "$(printf %x $((1 << cpu)))" "$HELPER" spin 3600 > "$TMPD/spin.$cpu" &
		spinners="$spinners $!"
	done
	(while [ ! -e "$TMPD/stop" ]; do
		cat "$KS/$FUNC" "$KS/GAP-$FUNC" > /dev/null 2>&1
	 done) &
	reader=$!
	# shellcheck disable=SC2086 # a list of pids
	ks_wait_for 60 ks_spinning $spinners || ktap_print_msg "the spinners did not start"
	i=0
	ok=0
	while [ $i -lt "$ROUNDS" ]; do
		for form in "" pcpu: "$FPROBE"; do
			[ "$(ctl "trace $form$FUNC")" = OK ] && ok=$((ok + 1))
			cat "$KS/$FUNC" > /dev/null
			[ "$(ctl "remove $FUNC")" = OK ] && ok=$((ok + 1))
		done
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	kill -TERM $spinners
	: > "$TMPD/stop"
	# shellcheck disable=SC2086
	wait $spinners $reader
	# Every CPU called the function until the last round: each spinner
	# counted calls, and ended on the signal.
	least=$(cat "$TMPD"/spin.* | awk -v cpus="$(nproc)" '
		NR == 1 || $2 < m { m = $2 } END { print NR == cpus ? m + 0 : 0 }')
	ktap_print_msg "$ok of $((ROUNDS * 6)) trace/remove commands succeeded under load;" \
		"at least $least calls on each CPU"
	[ $ok -eq $((ROUNDS * 6)) ] && [ "$least" -gt 0 ] &&
		ks_no_reports_since "kstats_trace_test $$: stress begin"
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
		modprobe kstats_trace && [ -e "$CTL" ] && ! grep -qv '^#' "$CTL" &&
		grep -q '^# trace \[pcpu:|fprobe:\]FUNC' "$CTL"
}
ktap_test_result "unloading kstats_trace removes every trace" check_unload

# The entry/return forms: "" (kretprobe), pcpu: and, with CONFIG_FPROBE,
# fprobe:.
FORMS="kretprobe pcpu: $FPROBE"
form() { [ "$1" = kretprobe ] || echo "$1"; }

# A trace removed while a call sleeps in the function goes at once, and
# the name can be traced again; the call, still asleep in the function,
# then ends on a signal (143: SIGTERM, not a fault on its way out through
# the return probe's trampoline), and the kernel reports nothing.
SLEEPER=hrtimer_nanosleep
SLEEP_RE='hrtimer_nanosleep|do_nanosleep|__x64_sys_nanosleep|__x64_sys_clock_nanosleep'
# in_sleeper PID: PID sleeps (state S) in the nanosleep path: its wchan (the
# first function outside the scheduler's: hrtimer_nanosleep, as
# do_nanosleep is __sched) or its stack (CONFIG_STACKTRACE) names it.
in_sleeper() {
	[ "$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null)" = S ] ||
		return 1
	{ cat "/proc/$1/wchan"; echo; sed 's/^\[<[0-9a-f]*>\] //' "/proc/$1/stack"; } \
		2>/dev/null | grep -qE "^($SLEEP_RE)(\+|\$)"
}
# start_sleeper FORM: a sleep of 60 s in $SLEEPER, traced in FORM, in
# $pid once it is in the function.
start_sleeper() {
	[ "$(ctl "trace $(form "$1")$SLEEPER")" = OK ] || return 1
	sleep 60 &
	pid=$!
	ks_wait_for 60 in_sleeper $pid && return 0
	ktap_print_msg "$1: sleep $pid is not seen in $SLEEPER: wchan" \
		"'$(cat /proc/$pid/wchan 2>/dev/null)'"
	kill $pid
	wait $pid
	ctl "remove $SLEEPER" > /dev/null
	return 1
}
check_inflight_remove() {
	ks_mark "kstats_trace_test $$: in-flight remove begin"
	for f in $FORMS; do
		start_sleeper $f || return 1
		[ "$(ctl "remove $SLEEPER")" = OK ] || { kill $pid; wait $pid; return 1; }
		listed=$(field $SLEEPER mode)
		metric=no
		[ -e "$KS/$SLEEPER" ] && metric=yes
		again=$(ctl "trace $(form $f)$SLEEPER")
		[ "$(ctl "remove $SLEEPER")" = OK ] || again=no
		inflight=no
		in_sleeper $pid && inflight=yes
		kill $pid
		wait $pid
		rc=$?
		ktap_print_msg "$f: after remove: listed '$listed', metric $metric," \
			"trace again $again, the call still in flight: $inflight, ended $rc"
		[ -z "$listed" ] && [ $metric = no ] && [ "$again" = OK ] &&
			[ $inflight = yes ] && [ $rc -eq 143 ] || return 1
	done
	ks_no_reports_since "kstats_trace_test $$: in-flight remove begin"
}
ktap_test_result "a trace removed with a call in flight goes at once, in every form" \
	check_inflight_remove

# maxactive N: where the probe has a pool of calls in flight (kretprobes,
# and fprobes before 6.14), it holds N calls at once: of two calls asleep
# in pause(), one is timed and one missed, in every form and a group (on
# one CPU: pcpu: misses a call that migrates, as documented). On
# the function-graph tracer, fprobe: and groups have no pool and refuse
# it (EOPNOTSUPP), creating nothing.
# two_paused TRACE NAME: TRACE with maxactive 1, and two calls in flight.
two_paused() {
	r=$(ctl "$1 maxactive 1")
	[ "$r" = OK ] || { ktap_print_msg "$1 maxactive 1: $r"; return 1; }
	listed=$(field "$2" maxactive)
	taskset 1 "$HELPER" pause 60 &
	a=$!
	taskset 1 "$HELPER" pause 60 &
	b=$!
	ks_wait_for 60 ks_in_pause $a && ks_wait_for 60 ks_in_pause $b
	r=$?
	kill -USR1 $a $b
	wait $a $b
	s=$(field "$2" samples)
	m=$(field "$2" missed)
	[ "$(ctl "remove $2")" = OK ] || return 1
	ktap_print_msg "$1 maxactive 1 (listed $listed): of 2 calls in flight," \
		"$s timed, $m missed"
	[ $r -eq 0 ] && [ "$listed" = 1 ] && [ "$s" = 1 ] && [ "$m" = 1 ]
}
check_maxactive() {
	P=__x64_sys_pause
	for f in kretprobe pcpu:; do
		two_paused "trace $(form $f)$P" $P || return 1
	done
	[ -n "$FPROBE" ] || return 0
	if ks_fprobe_on_fgraph; then
		for t in "trace fprobe:$P maxactive 4" \
			 "trace fprobe:__*sys_pause as pz maxactive 4"; do
			: > "$KS/error_log"
			r=$(ctl "$t")
			[ "$r" = EOPNOTSUPP ] && [ ! -e "$KS/$P" ] && [ ! -e "$KS/pz" ] &&
				grep -q 'maxactive: on this kernel fprobe keeps .* no pool' \
					"$KS/error_log" ||
				{ ktap_print_msg "$t: $r, not refused as it should be"; return 1; }
		done
		return 0
	fi
	# ftrace names pause() __x64_sys_pause or __do_sys_pause (one address).
	two_paused "trace fprobe:$P" $P && two_paused "trace fprobe:__*sys_pause as pz" pz
}
ktap_test_result "maxactive N holds N calls in flight where the probe has a pool" \
	check_maxactive

# rmmod kstats_trace does not wait for calls in flight, in any form: it
# returns while the call still sleeps in the function.
check_inflight_unload() {
	ks_mark "kstats_trace_test $$: in-flight unload begin"
	for f in $FORMS; do
		start_sleeper $f || return 1
		rmmod kstats_trace || { kill $pid; wait $pid; return 1; }
		inflight=no
		in_sleeper $pid && inflight=yes
		kill $pid
		wait $pid
		rc=$?
		ktap_print_msg "$f: rmmod returned while the call slept: $inflight;" \
			"the call ended $rc"
		[ $inflight = yes ] && [ $rc -eq 143 ] && [ ! -e "$KS/$SLEEPER" ] &&
			modprobe kstats_trace && [ -e "$CTL" ] || return 1
	done
	ks_no_reports_since "kstats_trace_test $$: in-flight unload begin"
}
ktap_test_result "rmmod kstats_trace returns at once with a call in flight, in every form" \
	check_inflight_unload

# A function that never returns: traced, exited through, removed; then the
# module unloads.
check_noreturn() {
	for f in $FORMS; do
		[ "$(ctl "trace $(form $f)do_exit gap")" = OK ] || return 1
		for _ in 1 2 3 4 5; do /bin/true; done
		n=$(field do_exit samples)
		gap=$(awk '$3 == "CPUS" { n += $6 } END { print n + 0 }' "$KS/GAP-do_exit")
		[ "$(ctl "remove do_exit")" = OK ] || return 1
		ktap_print_msg "$f: do_exit: $n samples, $gap gaps"
		[ "$n" -eq 0 ] || return 1
	done
	rmmod kstats_trace && modprobe kstats_trace && [ -e "$CTL" ]
}
ktap_test_result "do_exit, which never returns, is traced and removed in every form" \
	check_noreturn

# A traced function behaves as before: /proc/net/tcp prints the same lines
# (seq_printf() with 17 words of arguments on the stack) in every form.
check_args() {
	"$HELPER" listen 4 120 > "$TMPD/listen" &
	lpid=$!
	ks_wait_for 60 grep -qx OK "$TMPD/listen"
	cat /proc/net/tcp > "$TMPD/tcp.before"
	ok=1
	for f in $FORMS; do
		[ "$(ctl "trace $(form $f)seq_printf")" = OK ] || { ok=0; break; }
		cat /proc/net/tcp > "$TMPD/tcp.traced"
		n=$(field seq_printf samples)
		[ "$(ctl "remove seq_printf")" = OK ] || ok=0
		ktap_print_msg "$f: seq_printf: $n samples; /proc/net/tcp:" \
			"$(cmp "$TMPD/tcp.before" "$TMPD/tcp.traced" 2>&1)"
		cmp -s "$TMPD/tcp.before" "$TMPD/tcp.traced" && [ "$n" -ge 5 ] || ok=0
	done
	kill $lpid
	wait $lpid 2>/dev/null
	[ $ok -eq 1 ] && [ "$(wc -l < "$TMPD/tcp.before")" -ge 5 ]
}
ktap_test_result "/proc/net/tcp reads the same while seq_printf is traced, in every form" \
	check_args

# A traced function of a module that is unloaded: the trace is detached,
# listed as gone, and the log says so; the module loads again (where it
# was) untraced, and ftrace and kprobes still work.
BENCH=/sys/kernel/kstats_bench
check_module() {
	ks_mark "kstats_trace_test $$: module begin"
	for f in $FORMS pair; do
		name=cpus_show
		cmd="trace $(form $f)cpus_show"
		if [ $f = pair ]; then
			name=mpair
			# Both ends in the task that reads the file.
			cmd="trace mpair start cpus_show end sysfs_emit"
		fi
		modprobe kstats_bench && cat $BENCH/cpus > /dev/null || return 1
		[ "$(ctl "$cmd")" = OK ] || return 1
		# The pair's start and end on one CPU.
		taskset 1 cat $BENCH/cpus > /dev/null
		n=$(field $name samples)
		ks_mark "kstats_trace_test $$: module $f unload"
		rmmod kstats_bench || return 1
		gone=$(field $name gone)
		logged=no
		logged_since "kstats_trace_test $$: module $f unload" \
			"$name: detached: code of module kstats_bench freed" && logged=yes
		modprobe kstats_bench && cat $BENCH/cpus > /dev/null || return 1
		n2=$(field $name samples)
		[ "$(ctl "remove $name")" = OK ] || return 1
		rmmod kstats_bench || return 1
		[ "$(ctl "trace $FUNC")" = OK ] && [ "$(ctl "remove $FUNC")" = OK ] || return 1
		ktap_print_msg "$f: $n samples, gone '$gone', logged $logged," \
			"$n2 samples after the reload"
		[ "$n" -ge 1 ] && [ "$gone" = kstats_bench ] && [ $logged = yes ] &&
			[ "$n2" = "$n" ] || return 1
	done
	ks_no_reports_since "kstats_trace_test $$: module begin"
}
if [ -n "$(find "/lib/modules/$(uname -r)" -name 'kstats_bench.ko*')" ]; then
	ktap_test_result "a traced module unloads and reloads, its trace gone, in every form" \
		check_module
else
	ktap_test_skip "a module with a traced function unloads and reloads (no kstats_bench)"
fi

# The local timer interrupt runs on the IRQ stack: an fprobe times its
# handler while a CPU is kept busy (an idle CPU may stop its tick), until
# it has timed 10 of them, none missed.
hrtimer_samples() { [ "$(field hrtimer_interrupt samples)" -ge "$1" ] 2>/dev/null; }
check_irq_stack() {
	[ "$(ctl "trace fprobe:hrtimer_interrupt")" = OK ] || return 1
	"$HELPER" spin 3600 > /dev/null &
	spinner=$!
	ks_wait_for 60 hrtimer_samples 10
	kill -TERM $spinner
	wait $spinner
	n=$(field hrtimer_interrupt samples)
	missed=$(field hrtimer_interrupt missed)
	[ "$(ctl "remove hrtimer_interrupt")" = OK ] || return 1
	ktap_print_msg "fprobe:hrtimer_interrupt: $n samples, $missed missed"
	[ "$n" -ge 10 ] && [ "$missed" -eq 0 ]
}
if [ -n "$FPROBE" ]; then
	ktap_test_result "fprobe: times the timer interrupt on the IRQ stack" check_irq_stack
else
	ktap_test_skip "fprobe: the timer interrupt on the IRQ stack (no CONFIG_FPROBE)"
fi

# pcpu: keeps the task of the open start: a task that slept, and woke up
# on another CPU, does not close that CPU's start, which another task
# opened. A sleeps 3 T on CPU 1; B starts a T sleep on CPU 0 and moves to
# CPU 1 while asleep: its end is missed, A's 3 T are timed, and no sample
# of T to 2.8 T (B's end closing A's start) is recorded. This shell stays
# on CPU 0, out of CPU 1's way. A round where B woke before it moved (a
# slow machine) proves nothing: again, with T twice as long (1 s first).
in_nanosleep() { grep -q nanosleep "/proc/$1/wchan" 2>/dev/null; }
# owner_round MS: a round with T = MS ms; "CPU WRONG LONG MISSED", B's CPU
# at its end, the samples of T to 2.8 T, those longer, the missed ends.
owner_round() {
	S=__x64_sys_nanosleep
	[ "$(ctl "trace pcpu:$S")" = OK ] || return 1
	taskset 2 "$HELPER" sleep $((3 * $1)) > /dev/null &
	a=$!
	ks_wait_for 60 in_nanosleep $a
	taskset 1 "$HELPER" sleep "$1" > "$TMPD/b" &
	b=$!
	ks_wait_for 60 in_nanosleep $b && taskset -p 2 $b > /dev/null 2>&1
	wait $b
	wait $a
	echo "$(awk '{ print $4 }' "$TMPD/b")" \
		"$(awk -v t="$1" '$3 == "CPUS" && $8 >= t * 1000000 && $8 <= t * 2800000 {
			n += $6 } END { print n + 0 }' "$KS/$S")" \
		"$(awk -v t="$1" '$3 == "CPUS" && $8 > t * 2800000 { n += $6 }
			END { print n + 0 }' "$KS/$S")" \
		"$(field $S missed)"
	[ "$(ctl "remove $S")" = OK ]
}
# cpu0_rounds ROUND MOVED SAY: "ROUND MS" with MS = 1, 2, 4 then 8 s, this
# shell on CPU 0, until "MOVED RESULT..." is true (the sleeper moved while
# asleep, in time); "SAY MS RESULT..." prints each round. The last result
# in $R; false if a round failed.
cpu0_rounds() {
	mask=$(taskset -p $$ | awk '{ print $NF }')
	taskset -p 1 $$ > /dev/null || return 1
	R=
	for ms in 1000 2000 4000 8000; do
		R=$($1 $ms) || { echo "# $1 $ms failed"; R=; break; }
		$3 $ms $R
		$2 $R && break
	done
	# The shell's CPUs as they were (nproc now counts CPU 0 only).
	taskset -p "$mask" $$ > /dev/null
	[ -n "$R" ]
}
owner_moved() { [ "$1" = 1 ]; }
owner_say() {
	ktap_print_msg "pcpu:__x64_sys_nanosleep, T $1 ms: B woke on CPU ${2:-?};" \
		"$3 samples of T to 2.8 T, $4 longer, $5 missed"
}
check_owner() {
	cpu0_rounds owner_round owner_moved owner_say || return 1
	set -- $R
	[ "$1" = 1 ] && [ "$2" -eq 0 ] && [ "$3" -ge 1 ] && [ "$4" -ge 1 ]
}
if [ "$(nproc)" -ge 2 ]; then
	ktap_test_result "pcpu: an end of another task does not close a CPU's start" check_owner
else
	ktap_test_skip "pcpu: an end of another task (needs 2 CPUs)"
fi

# pcpu: keeps the owner's migrations with its start: a start of an
# earlier call of the same task is not closed by a later one. The task
# sleeps T on CPU 1 and moves to CPU 0 while asleep (its end missed, CPU
# 1's start left open), then sleeps T again, from CPU 0, and moves back to
# CPU 1 while asleep: that end must not close the first call's start,
# which would time about 2 T, a time no call took. The trace times that
# task only (pid N, the task made before it sleeps), so that no other
# task's call on CPU 1 takes its start. A round where the task woke
# before it moved proves nothing: again, with T twice as long.
# migrated_round MS: "CPU1 CPU2 LONG MISSED", the CPUs the task woke on,
# the samples longer than 1.5 T, the missed ends.
migrated_round() {
	S=__x64_sys_nanosleep
	rm -f "$TMPD/go"
	mkfifo "$TMPD/go" || return 1
	: > "$TMPD/m"
	# The same pid through both execs: the one the trace filters on.
	taskset 2 sh -c "read x < '$TMPD/go'; exec '$HELPER' sleep $1 2" > "$TMPD/m" &
	a=$!
	[ "$(ctl "trace pcpu:$S pid $a")" = OK ] || { echo go > "$TMPD/go"; wait $a; return 1; }
	echo go > "$TMPD/go"
	ks_wait_for 60 in_nanosleep $a && taskset -p 1 $a > /dev/null 2>&1
	ks_wait_for 60 grep -q woke "$TMPD/m" && ks_wait_for 60 in_nanosleep $a &&
		taskset -p 2 $a > /dev/null 2>&1
	wait $a
	echo "$(awk 'NR <= 2 { printf "%s ", $4 }' "$TMPD/m")" \
		"$(awk -v t="$1" '$3 == "CPUS" && $8 > t * 1500000 { n += $6 }
			END { print n + 0 }' "$KS/$S")" \
		"$(field $S missed)"
	[ "$(ctl "remove $S")" = OK ]
}
migrated_moved() { [ "$1" = 0 ] && [ "$2" = 1 ]; }
migrated_say() {
	ktap_print_msg "pcpu:__x64_sys_nanosleep, 2 calls of $1 ms: woke on CPU" \
		"${2:-?}, then ${3:-?}; $4 samples over 1.5 T, $5 missed"
}
check_migrated() {
	cpu0_rounds migrated_round migrated_moved migrated_say || return 1
	set -- $R
	[ "$1" = 0 ] && [ "$2" = 1 ] && [ "$3" -eq 0 ] && [ "$4" -ge 2 ]
}
if [ "$(nproc)" -ge 2 ]; then
	ktap_test_result "pcpu: a task's later call does not close its earlier call's start" \
		check_migrated
else
	ktap_test_skip "pcpu: a later call does not close an earlier one's start (needs 2 CPUs)"
fi

# A refused command is in error_log, with a caret under the word at fault.
check_error_log() {
	: > "$KS/error_log"
	[ "$(ctl "trace $FUNC bits 12")" = ERANGE ] || return 1
	grep -q '] kstats_trace: error: bits 12 out of range 0\.\.8$' "$KS/error_log" &&
		grep -qx "  Command: trace $FUNC bits 12" "$KS/error_log" &&
		[ "$(sed -n 3p "$KS/error_log")" = \
		  "$(printf '%*s^' $((11 + ${#FUNC} + 12)) '')" ] || return 1
	# __init code, freed after boot: the reason says so.
	why='cannot put a kretprobe on start_kernel: -22 (not probeable: freed __init,'
	[ "$(ctl "trace start_kernel")" = EINVAL ] &&
		grep -qF "error: start_kernel: $why" "$KS/error_log"
}
ktap_test_result "error_log shows a refused command and why" check_error_log

# The caret marks the word at fault where it is, not where its text first
# appears (the second "cgroup" here is the option given twice).
check_caret() {
	: > "$KS/error_log"
	cmd="trace cgroup_exit cgroup /a cgroup /b"
	[ "$(ctl "$cmd")" = EINVAL ] || return 1
	caret=$(sed -n 3p "$KS/error_log")
	ktap_print_msg "$(sed -n 2p "$KS/error_log")"
	ktap_print_msg "$caret"
	grep -q 'error: cgroup given twice$' "$KS/error_log" &&
		[ "$caret" = "$(printf "%*s^" $((11 + 18)) "")" ]
}
ktap_test_result "error_log's caret marks the word at fault where it is" check_caret

# Several commands in one write, one per line (cat FILE > _control): each
# is carried out or refused on its own, in order; the write fails with
# the first refusal.
check_lines() {
	: > "$KS/error_log"
	r1=$(ctl "trace $FUNC\nnonsense\n\ntrace __x64_sys_getpid bits 2\n")
	both=$(grep -cE "^name ($FUNC|__x64_sys_getpid) " "$CTL")
	bits=$(field __x64_sys_getpid bits)
	logged=$(grep -c "error: unknown command 'nonsense'" "$KS/error_log")
	r2=$(ctl "remove $FUNC\nremove __x64_sys_getpid")
	left=$(grep -cE "^name ($FUNC|__x64_sys_getpid) " "$CTL")
	ktap_print_msg "three lines: $r1, $both traced (bits $bits), $logged logged;" \
		"two removes: $r2, $left left"
	[ "$r1" = EINVAL ] && [ "$both" -eq 2 ] && [ "$bits" = 2 ] && [ "$logged" -eq 1 ] &&
		[ "$r2" = OK ] && [ "$left" -eq 0 ]
}
ktap_test_result "one write of several lines: each command on its own, in order" check_lines

# A name that several functions share: refused in every form with
# EADDRNOTAVAIL, as kprobe events refuse it, and nothing made; the error
# says how to choose. A group of that name (fprobe:NAME as GROUP) times
# each function in its own file. The name is one that ftrace lists more
# than once (available_filter_functions).
AFF=
for d in /sys/kernel/tracing "$DEBUGFS/tracing"; do
	[ -r "$d/available_filter_functions" ] && AFF=$d/available_filter_functions && break
done
check_shared() {
	[ -n "$AFF" ] || { ktap_print_msg "no available_filter_functions"; return 1; }
	d=$(awk '$1 !~ /^kstats_/ && $1 ~ /^[a-z_]+$/ { n[$1]++ }
		END { for (f in n) if (n[f] > 1) { print f; exit } }' "$AFF")
	[ -n "$d" ] || { ktap_print_msg "no name that ftrace lists twice"; return 1; }
	n=$(awk -v d="$d" '$1 == d' "$AFF" | wc -l)
	: > "$KS/error_log"
	for c in "trace $d" "trace pcpu:$d" "trace fprobe:$d" \
		 "trace shared start $d end $FUNC" "trace shared start $FUNC end $d+1"; do
		r=$(ctl "$c")
		[ "$r" = EADDRNOTAVAIL ] || { ktap_print_msg "'$c': $r"; return 1; }
	done
	said=$(grep -c ": $n functions are named $d: .*trace fprobe:$d as NAME times each" \
		"$KS/error_log")
	left=$(grep -vc '^#' "$CTL")
	[ "$(ctl "trace fprobe:$d as shared")" = OK ] || return 1
	files=$(ls "$KS/shared" | grep -cE "^([a-z0-9_]+:)?$d(@[0-9]+)?\$")
	[ "$(ctl "remove shared")" = OK ] || return 1
	ktap_print_msg "$d: $n functions; $said of 5 refusals say so; $left traces made;" \
		"fprobe:$d as shared: $files files"
	[ "$said" -eq 5 ] && [ "$left" -eq 0 ] && [ ! -e "$KS/$d" ] && [ "$files" -eq "$n" ]
}
# Shared names are seen in ftrace's hash, which kstats_trace reads where it
# has groups: with fprobe (not on Debian's 6.1).
if [ -n "$FPROBE" ]; then
	ktap_test_result "a name that several functions share is refused in every form" \
		check_shared
else
	ktap_test_skip "a name that several functions share is refused (no CONFIG_FPROBE)"
fi

# MODULE:SYMBOL names the function of that module: kstats_bench and
# kstats_sample each have a ksdup_call; kstats_sample's threads call theirs
# all the time, kstats_bench calls its own once per group_calls round. The
# listing names the module of every function, given with it or not.
check_modsym() {
	# 100 calls a second on each CPU, not 2000: enough to be in the way,
	# not to load an emulated kernel.
	modprobe kstats_bench || return 1
	# One ksdup_call, then two: what an add learned of a name (that one
	# function has it) is forgotten when a module comes.
	r=$(ctl "trace ksdup_call")
	[ "$r" = OK ] && [ "$(ctl "remove ksdup_call")" = OK ] ||
		{ ktap_print_msg "trace ksdup_call, kstats_bench alone: $r"; return 1; }
	modprobe kstats_sample rate=100 || return 1
	# Without fprobe (Debian's 6.1), shared names are not seen.
	if [ -n "$FPROBE" ]; then
		r=$(ctl "trace ksdup_call")
		[ "$r" = EADDRNOTAVAIL ] ||
			{ ktap_print_msg "trace ksdup_call, kstats_sample come: $r"; return 1; }
	fi
	for f in $FORMS; do
		[ "$(ctl "trace $(form $f)kstats_bench:ksdup_call")" = OK ] &&
			[ "$(ctl "trace $(form $f)ksgrp_bench_a")" = OK ] || return 1
		echo 100 > $BENCH/group_calls || return 1
		n=$(field kstats_bench:ksdup_call samples)
		s1=$(field kstats_bench:ksdup_call start)
		s2=$(field ksgrp_bench_a start)
		e2=$(field ksgrp_bench_a end)
		[ "$(ctl "remove kstats_bench:ksdup_call")" = OK ] &&
			[ "$(ctl "remove ksgrp_bench_a")" = OK ] || return 1
		ktap_print_msg "$(form $f)kstats_bench:ksdup_call: $n samples of 100; listed" \
			"'$s1', '$s2' to '$e2'"
		[ "$n" -eq 100 ] && [ "$s1" = kstats_bench:ksdup_call ] &&
			[ "$s2" = kstats_bench:ksgrp_bench_a ] &&
			[ "$e2" = "kstats_bench:ksgrp_bench_a%return" ] || return 1
	done
	r=$(ctl "trace nosuchmodule:ksdup_call")
	ktap_print_msg "a module that is not loaded: $r"
	rmmod kstats_sample && rmmod kstats_bench && [ "$r" = ENOENT ]
}
if [ -n "$(find "/lib/modules/$(uname -r)" -name 'kstats_bench.ko*')" ]; then
	ktap_test_result "MODULE:SYMBOL traces the function of that module only" check_modsym
else
	ktap_test_skip "MODULE:SYMBOL traces the function of that module only (no kstats_bench)"
fi

check_clean() {
	ks_no_reports_since "kstats_trace_test $$: begin"
}
ktap_test_result "no kernel splat in dmesg" check_clean

ktap_finished
