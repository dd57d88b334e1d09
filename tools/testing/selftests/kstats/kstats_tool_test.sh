#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kstats trace, the one-shot command of tools/kstats: it adds the trace,
# runs the command (or waits for a duration, or for a signal), prints the
# summary and removes the trace on every way out; it never removes a trace
# it did not add, and says why when it cannot work; with a glob, the same
# for a group. KTAP output; exits 4 (skip) without root, debugfs, the
# module, the helper or the tool. The tool is $KSTATS, or kstats next to
# this script, in tools/kstats or in PATH.

DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/kstats_lib.sh"

KS=$DEBUGFS/kstats
CTL=$KS/_control
HELPER=$DIR/kstats_helper
FUNC=__x64_sys_getppid
T=$(mktemp -d)
trap '[ "${CGROOT:-}" != "$T/cgroup2" ] || umount "$CGROOT"; rm -rf "$T"' EXIT

for k in "${KSTATS:-}" "$DIR/kstats" "$DIR/../../../kstats/kstats" "$(command -v kstats)"; do
	[ -n "$k" ] && [ -x "$k" ] && KSTATS=$k && break
done
[ -x "${KSTATS:-}" ] ||
	{ ktap_skip_all "no kstats tool (make -C tools/kstats)"; exit "$KSFT_SKIP"; }
[ -x "$HELPER" ] || { ktap_skip_all "kstats_helper not built"; exit "$KSFT_SKIP"; }
[ -e "$CTL" ] || modprobe kstats_trace 2>/dev/null
[ -e "$CTL" ] || { ktap_skip_all "no $CTL (CONFIG_KSTATS_TRACE)"; exit "$KSFT_SKIP"; }
grep -q " $FUNC\$" /proc/kallsyms ||
	{ ktap_skip_all "no $FUNC in this kernel (x86_64 only)"; exit "$KSFT_SKIP"; }
ktap_set_plan 15

# Nothing of NAME is left: no trace listed, no metric.
gone() { ! grep -q "^name $1 " "$CTL" && [ ! -e "$KS/$1" ]; }
# run ARGS...: the tool, its output in $T/out and $T/err, its status in rc.
run() { "$KSTATS" "$@" > "$T/out" 2> "$T/err"; rc=$?; }
show() { sed 's/^/# /' "$T/err" "$T/out" | head -n 20; }

# The command's calls, exactly, in each form (the helper stays on one CPU).
check_form() {
	run trace "$1$FUNC" -- "$HELPER" getppid 1000
	[ $rc -eq 0 ] && grep -qE '^ *count +1000$' "$T/out" && gone $FUNC || { show; return 1; }
}
ktap_test_result "trace FUNC -- COMMAND: the command's 1000 calls, then no trace" check_form ""
ktap_test_result "trace pcpu:FUNC -- COMMAND: the same" check_form pcpu:
if grep -q ' register_fprobe$' /proc/kallsyms; then
	ktap_test_result "trace fprobe:FUNC -- COMMAND: the same" check_form fprobe:
else
	check_no_fprobe() {
		run trace fprobe:$FUNC -d 1
		[ $rc -eq 1 ] && grep -q 'Operation not supported' "$T/err" && gone $FUNC ||
			{ show; return 1; }
	}
	ktap_test_result "trace fprobe:FUNC without fprobe: an error, no trace" check_no_fprobe
fi

# -p (--pid): only the calls of that process, while the command (another
# process) calls the function too. The process waits on a FIFO until the
# command releases it; the command ends when the process has exited.
check_pid() {
	rm -f "$T/go" "$T/ready"
	mkfifo "$T/go" || return 1
	sh -c ": > $T/ready; read x < $T/go; exec taskset 1 $HELPER getppid 300" > /dev/null &
	p=$!
	ks_wait_for 60 test -e "$T/ready" || { kill $p; return 1; }
	cat > "$T/cmd.sh" <<CMD
timeout 120 sh -c 'echo go > "\$1"' sh $T/go || exit 1
$HELPER getppid 200 > /dev/null
until [ "\$(cut -d' ' -f3 /proc/$p/stat 2>/dev/null)" != R ] &&
	[ "\$(cut -d' ' -f3 /proc/$p/stat 2>/dev/null)" != S ]; do sleep 0.1; done
CMD
	run trace "$FUNC" -p $p -- sh "$T/cmd.sh"
	wait $p
	[ $rc -eq 0 ] && grep -qE '^ *count +300$' "$T/out" && gone $FUNC || { show; return 1; }
}
ktap_test_result "trace FUNC -p P: P's 300 calls, not the command's 200" check_pid

# -c (--cgroup): the command makes 200 calls in the tool's cgroup, then
# enters a cgroup below the one traced and makes 300 there.
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$CGROOT" ] && grep -qw cgroup2 /proc/filesystems; then
	CGROOT=$T/cgroup2
	mkdir -p "$CGROOT" && mount -t cgroup2 none "$CGROOT" || CGROOT=""
fi
check_cgroup() {
	mkdir -p "$CGROOT/kstats_tool/child" || return 1
	run trace "$FUNC" -c /kstats_tool -- sh -c "$HELPER getppid 200 > /dev/null &&
		echo \$\$ > $CGROOT/kstats_tool/child/cgroup.procs &&
		exec $HELPER getppid 300 > /dev/null"
	rmdir "$CGROOT/kstats_tool/child" "$CGROOT/kstats_tool"
	[ $rc -eq 0 ] && grep -qE '^ *count +300$' "$T/out" && gone $FUNC || { show; return 1; }
}
if [ -n "$CGROOT" ]; then
	ktap_test_result "trace FUNC -c PATH: the 300 calls made below PATH, not the 200 outside" \
		check_cgroup
else
	ktap_test_skip "trace FUNC -c PATH (no cgroup2)"
fi

# The output options apply.
check_json() {
	run trace "$FUNC" --json -b 5 -- "$HELPER" getppid 100
	[ $rc -eq 0 ] && grep -q '^{"count":100,.*"bits":5,' "$T/out" && gone $FUNC ||
		{ show; return 1; }
}
ktap_test_result "--json and -b apply to the trace's summary" check_json

# A failing command: its status, the summary, no trace. The shell itself
# may call getppid() once, for $PPID.
check_fail() {
	run trace "$FUNC" -- sh -c "$HELPER getppid 10; exit 3"
	[ $rc -eq 3 ] && grep -q 'exited with status 3' "$T/err" &&
		grep -qE '^ *count +1[01]$' "$T/out" && gone $FUNC || { show; return 1; }
}
ktap_test_result "a command that fails: its status, the summary, no trace" check_fail

check_noexec() {
	run trace "$FUNC" -- /nonexistent/command
	[ $rc -eq 127 ] && grep -q 'cannot run /nonexistent/command' "$T/err" &&
		gone $FUNC || { show; return 1; }
}
ktap_test_result "a command that cannot run: 127, no trace" check_noexec

# Ctrl-C (SIGINT) while it waits, SIGTERM while a command runs; each
# once the trace is listed, which the tool does before it waits or runs
# the command (60 s bounds a hang, not the timing: a slow guest waits
# longer).
traced() { ks_wait_for 60 grep -q "^name $FUNC " "$CTL"; }
# calls: the calls the kernel has counted so far in the metric FUNC.
calls() { awk '$3 == "CPUS" { n += $6 } END { print n + 0 }' "$KS/$FUNC" 2>/dev/null; }
counted() { [ "$(calls)" -ge "$1" ]; }
# abort SIG WHY: the tool started in the background ($pid) ended with SIG,
# WHY and its output shown.
abort() { echo "# $2"; kill -"$1" "$pid"; wait "$pid"; show; }
# The 50 calls made while it waits, and they alone (nothing else here
# calls getppid()), are in the summary it prints on Ctrl-C.
check_sigint() {
	"$KSTATS" trace "$FUNC" > "$T/out" 2> "$T/err" &
	pid=$!
	traced && ks_wait_for 60 grep -q 'Ctrl-C to end' "$T/err" ||
		{ abort INT "not traced, or not waiting"; return 1; }
	"$HELPER" getppid 50 > /dev/null
	ks_wait_for 60 counted 50 || { abort INT "$(calls) calls counted, not 50"; return 1; }
	kill -INT $pid
	wait $pid
	rc=$?
	[ $rc -eq 0 ] && grep -q 'Ctrl-C to end' "$T/err" &&
		grep -qE '^ *count +50$' "$T/out" &&
		gone $FUNC || { show; return 1; }
}
ktap_test_result "Ctrl-C ends the trace: the summary of the 50 calls made, no trace" check_sigint

check_sigterm() {
	"$KSTATS" trace "$FUNC" -- sleep 60 > "$T/out" 2> "$T/err" &
	pid=$!
	traced || { abort TERM "not traced"; return 1; }
	kill -TERM $pid
	wait $pid
	rc=$?
	# SIGTERM is passed to the command, whose status is then 128 + 15.
	[ $rc -eq 143 ] && grep -q 'killed by signal 15' "$T/err" && gone $FUNC ||
		{ show; return 1; }
}
ktap_test_result "SIGTERM goes to the command: 143, the summary, no trace" check_sigterm

# -d 0.5: it says so, and ends by itself after 0.5 s at least (less the
# 10 ms steps of /proc/uptime; 30 s bounds a hang, not the timing). A
# spinning process calls the function all along, from before the trace
# to after it: the count is not known, but not 0.
spinning() { [ "$(cat "/proc/$1/comm" 2>/dev/null)" = kstats_helper ]; }
check_duration() {
	"$HELPER" spin 600 > "$T/spin" &
	s=$!
	ks_wait_for 60 spinning $s ||
		{ echo "# the spinning helper did not start"; kill $s; wait $s; return 1; }
	t0=$(ks_uptime_ms)
	run trace "$FUNC" -d 0.5
	t1=$(ks_uptime_ms)
	kill -TERM $s
	wait $s
	ms=$((t1 - t0))
	[ $rc -eq 0 ] && grep -q "^Tracing $FUNC for 0.5 s, " "$T/err" &&
		[ $ms -ge 480 ] && [ $ms -lt 30000 ] &&
		grep -qE '^ *count +[1-9][0-9]*$' "$T/out" && gone $FUNC ||
		{ echo "# ran $ms ms"; show; return 1; }
}
ktap_test_result "-d SECS: says so, the summary after SECS at least, no trace" check_duration

# kstats trace 'GLOB': a group, one table row per function (function,
# count, ...), removed at the end. count_of FUNC: the count of FUNC's row
# (under any of ftrace's names: __x64_sys_getpid or __do_sys_getpid).
count_of() {
	awk -v f="$1" 'NR > 2 && $1 ~ ("^__[a-z0-9]*_sys_" f "$") { print $2 }' "$T/out"
}
GLOB='__*sys_getp*id'
FPROBE=$(grep -q ' register_fprobe$' /proc/kallsyms && echo yes)
# -c with a glob: the command makes 200 getpid() and 200 getppid() calls
# in the tool's cgroup, then 100 and 300 in a cgroup below the one traced.
check_group_cgroup() {
	mkdir -p "$CGROOT/kstats_tool/child" || return 1
	run trace "$GLOB" --name ktg -c /kstats_tool -- sh -c "$HELPER ids 200 200 > /dev/null &&
		echo \$\$ > $CGROOT/kstats_tool/child/cgroup.procs &&
		exec $HELPER ids 100 300 > /dev/null"
	rmdir "$CGROOT/kstats_tool/child" "$CGROOT/kstats_tool"
	echo "# getpid $(count_of getpid), getppid $(count_of getppid)"
	[ $rc -eq 0 ] && head -n 1 "$T/out" | grep -q '^group ktg functions [1-9]' &&
		[ "$(count_of getpid)" = 100 ] && [ "$(count_of getppid)" = 300 ] && gone ktg ||
		{ show; return 1; }
}
# -d and -n with a glob: a spinning process calls getppid() all along; the
# table has one row, the function with the most time: getppid().
check_group_duration() {
	"$HELPER" spin 600 > "$T/spin" &
	s=$!
	ks_wait_for 60 spinning $s ||
		{ echo "# the spinning helper did not start"; kill $s; wait $s; return 1; }
	run trace "$GLOB" --name ktd -d 0.5 -n 1
	kill -TERM $s
	wait $s
	[ $rc -eq 0 ] && grep -q "^Tracing ktd for 0.5 s, " "$T/err" &&
		[ "$(awk 'NR > 2' "$T/out" | wc -l)" -eq 1 ] &&
		[ "$(count_of getppid)" -gt 0 ] && gone ktd || { show; return 1; }
}
if [ -z "$FPROBE" ]; then
	ktap_test_skip "trace GLOB -c PATH (no CONFIG_FPROBE)"
	ktap_test_skip "trace GLOB -d SECS -n 1 (no CONFIG_FPROBE)"
else
	if [ -n "$CGROOT" ]; then
		ktap_test_result "trace GLOB -c PATH: each function's calls below PATH, no group" \
			check_group_cgroup
	else
		ktap_test_skip "trace GLOB -c PATH (no cgroup2)"
	fi
	ktap_test_result "trace GLOB -d SECS -n 1: one row, getppid's, after SECS, no group" \
		check_group_duration
fi

# A trace it did not add stays, whatever happens.
check_not_ours() {
	[ "$("$HELPER" write "$CTL" "trace $FUNC")" = OK ] || return 1
	run trace "$FUNC" -d 0.1
	r=$rc
	"$HELPER" getppid 10 > /dev/null
	n=$(awk '$3 == "CPUS" { n += $6 } END { print n + 0 }' "$KS/$FUNC")
	[ "$("$HELPER" write "$CTL" "remove $FUNC")" = OK ] || return 1
	[ $r -eq 1 ] && grep -q 'traced already' "$T/err" && [ "$n" -eq 10 ] || { show; return 1; }
}
ktap_test_result "an existing trace of FUNC: an error, and that trace stays" check_not_ours

# Errors say why: the kernel's reason from error_log, or what to load.
check_errors() {
	run trace no_such_function_kstt -d 1
	grep -q 'kstats_trace: error:' "$T/err" && [ $rc -eq 1 ] &&
		gone no_such_function_kstt || { show; return 1; }
	if rmmod kstats_trace 2>/dev/null; then
		run trace "$FUNC" -d 1
		modprobe kstats_trace
		[ $rc -eq 1 ] && grep -q 'modprobe kstats_trace' "$T/err" || { show; return 1; }
	else
		ktap_print_msg "kstats_trace is built in: its absence is not tried"
	fi
}
ktap_test_result "errors say why: error_log's reason, the module to load" check_errors

ktap_finished
