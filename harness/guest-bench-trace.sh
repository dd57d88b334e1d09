#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM for `make bench-trace`: what a caller of a traced syscall
# pays, per call, with each form of kstats_trace and with the kernel's own
# probe events with a histogram trigger: a kprobe event at entry
# (kprobe_hist), kprobe plus kretprobe events (kretprobe_hist) and fprobe
# entry plus exit events (fprobe_hist), two events per call like the
# entry/return forms of kstats_trace; and an fprobe with empty handlers
# (fprobe_empty, from kstats_bench), the floor of the fprobe: form, and
# one whose handlers read the clock at entry and return, as any timer
# must: the floor of a timer on an fprobe, with kstats_trace's clock
# (fprobe_clock, ktime_get_mono_fast_ns) or local_clock (fprobe_local).
# fprobe_gap is the fprobe: form with its GAP metric too, as every trace
# had it before the gap became an option: what that option costs.
# Groups (trace fprobe:GLOB as NAME) with getppid() among 1 function
# (fprobe_glob_1), about a hundred (fprobe_glob_100: __*sys_[a-g]*) and
# every syscall (fprobe_glob_all: __*sys_*): the cost per call must not
# grow with the number of functions; each group's size is printed. The
# globs match ftrace's names: getppid() is one of __x64_sys_getppid's
# aliases there (__do_sys_getppid).
# The rounds interleave the cases, so that they see the same machine; the median of the rounds is printed,
# and its ratio to the untraced call.
set -eu
H=/root/kstats_helper
F=__x64_sys_getppid
CTL=/sys/kernel/debug/kstats/_control
T=/sys/kernel/tracing
CALLS=${CALLS:-100000}
ROUNDS=${ROUNDS:-5}
# ns, or insn when qemu counts instructions as nanoseconds (-icount).
UNIT=${UNIT:-ns}
CASES=${CASES:-"untraced kretprobe pcpu fprobe fprobe_gap fprobe_empty fprobe_clock fprobe_local kprobe_hist kretprobe_hist fprobe_hist fprobe_glob_1 fprobe_glob_100 fprobe_glob_all"}

modprobe kstats_trace
modprobe kstats_bench
mount -t tracefs nodev "$T"
# fprobe events find a function by the name ftrace gives its address, one
# of the aliases there (__do_sys_getppid for __x64_sys_getppid).
addr=$(awk -v f="$F" '$3 == f { print $1 }' /proc/kallsyms)
FA=$(awk -v a="$addr" '$1 == a { print $3 }' /proc/kallsyms |
	while read -r n; do grep -qx "$n" "$T/available_filter_functions" && echo "$n"; done |
	head -n 1)

ctl() { [ "$("$H" write "$CTL" "$1")" = OK ] || { echo "failed: $1"; exit 1; }; }
# Every syscall in one group: more than the default limit of functions.
echo 4000 > /sys/module/kstats_trace/parameters/max_functions

setup() {
	case $1 in
	untraced) ;;
	kretprobe) ctl "trace $F" ;;
	pcpu) ctl "trace pcpu:$F" ;;
	fprobe) ctl "trace fprobe:$F" ;;
	fprobe_gap) ctl "trace fprobe:$F gap" ;;
	fprobe_empty) echo "$F" > /sys/kernel/kstats_bench/fprobe_floor ;;
	fprobe_clock) echo "$F clock" > /sys/kernel/kstats_bench/fprobe_floor ;;
	fprobe_local) echo "$F local" > /sys/kernel/kstats_bench/fprobe_floor ;;
	fprobe_glob_*)
		case $1 in
		fprobe_glob_1) ctl "trace fprobe:${FA%?}? as g" ;;
		fprobe_glob_100) ctl "trace fprobe:__*sys_[a-g]* as g" ;;
		fprobe_glob_all) ctl "trace fprobe:__*sys_* as g" ;;
		esac
		awk -v c="$1" '$2 == "g" { for (i = 3; i < NF; i++)
			if ($i == "functions") print "group", c, "functions", $(i + 1) }' \
			/sys/kernel/debug/kstats/_control >> /tmp/groups ;;
	kprobe_hist)
		echo "p:kstats_bench $F" >> "$T/kprobe_events"
		echo 'hist:keys=common_pid' > "$T/events/kprobes/kstats_bench/trigger"
		echo 1 > "$T/events/kprobes/kstats_bench/enable" ;;
	kretprobe_hist)
		echo "p:kstats_entry $F" >> "$T/kprobe_events"
		echo "r:kstats_exit $F" >> "$T/kprobe_events"
		for e in kstats_entry kstats_exit; do
			echo 'hist:keys=common_pid' > "$T/events/kprobes/$e/trigger"
			echo 1 > "$T/events/kprobes/$e/enable"
		done ;;
	fprobe_hist)
		echo "f:kstats_entry $FA" >> "$T/dynamic_events"
		echo "f:kstats_exit $FA%return" >> "$T/dynamic_events"
		for e in kstats_entry kstats_exit; do
			echo 'hist:keys=common_pid' > "$T/events/fprobes/$e/trigger"
			echo 1 > "$T/events/fprobes/$e/enable"
		done ;;
	esac
}

teardown() {
	case $1 in
	untraced) ;;
	kretprobe|pcpu|fprobe|fprobe_gap) ctl "remove $F" ;;
	fprobe_glob_*) ctl "remove g" ;;
	fprobe_empty|fprobe_clock|fprobe_local) echo > /sys/kernel/kstats_bench/fprobe_floor ;;
	kprobe_hist)
		echo 0 > "$T/events/kprobes/kstats_bench/enable"
		echo '!hist:keys=common_pid' > "$T/events/kprobes/kstats_bench/trigger"
		echo "-:kstats_bench" >> "$T/kprobe_events" ;;
	kretprobe_hist)
		for e in kstats_entry kstats_exit; do
			echo 0 > "$T/events/kprobes/$e/enable"
			echo '!hist:keys=common_pid' > "$T/events/kprobes/$e/trigger"
			echo "-:$e" >> "$T/kprobe_events"
		done ;;
	fprobe_hist)
		for e in kstats_entry kstats_exit; do
			echo 0 > "$T/events/fprobes/$e/enable"
			echo '!hist:keys=common_pid' > "$T/events/fprobes/$e/trigger"
			echo "-:$e" >> "$T/dynamic_events"
		done ;;
	esac
}

echo "bench-trace: $CALLS getppid() per case and round, $ROUNDS rounds, CPU 0, $UNIT per call"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for c in $CASES; do
		setup "$c"
		ns=$(taskset 1 "$H" getppid "$CALLS" | awk '{ print $4 }')
		teardown "$c"
		echo "$c $ns" >> /tmp/bench
	done
	r=$((r + 1))
done
[ ! -e /tmp/groups ] || sort -u /tmp/groups
for c in $CASES; do
	awk -v c="$c" '$1 == c { print $2 }' /tmp/bench | sort -n |
		awk -v c="$c" '{ v[NR] = $1 } END { print c, v[int((NR + 1) / 2)] }'
done | awk -v unit="$UNIT" '{ c[NR] = $1; v[NR] = $2 }
	    $1 == "untraced" { base = $2 }
	    $1 == "fprobe_empty" { floor = $2 }
	    END {
		# cost: ns over untraced; floor: that cost over the empty fprobe'"'"'s
		for (i = 1; i <= NR; i++)
			printf "case %-14s %s %8.1f ratio %5.2f cost %7.1f%s\n",
				c[i], unit, v[i], v[i] / base, v[i] - base,
				(floor > base ? sprintf(" floor %5.2f", (v[i] - base) / (floor - base)) : "")
		# The goals, in cost (what tracing adds to the call): the
		# fprobe: form within 1.1 times the timer floor, the cost of a
		# group the same whatever its size.
		goal("fprobe", "fprobe_clock")
		goal("fprobe_gap", "fprobe")
		goal("fprobe_glob_1", "fprobe")
		goal("fprobe_glob_100", "fprobe_glob_1")
		goal("fprobe_glob_all", "fprobe_glob_1")
	    }
	    function goal(a, b,   i, va, vb) {
		for (i = 1; i <= NR; i++) {
			if (c[i] == a)
				va = v[i]
			if (c[i] == b)
				vb = v[i]
		}
		if (va && vb && vb > base)
			printf "cost %s / %s: %.2f\n", a, b, (va - base) / (vb - base)
	    }'
