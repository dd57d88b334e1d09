#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kstats_trace groups: trace fprobe:GLOB as NAME times every function that
# GLOB matches, each into kstats/NAME/FUNCTION, with one fprobe. Counts
# each function's calls exactly, checks the summary against the metrics,
# applies pid and cgroup filters, refuses what it must with its errno and a
# message and creates nothing, survives removal under load, modules going,
# functions that never return and the unloading of kstats_trace. KTAP
# output; exits 4 (skip) without root, debugfs, the module or the helper.

DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/kstats_lib.sh"

KS=$DEBUGFS/kstats
CTL=$KS/_control
HELPER=$DIR/kstats_helper
PARAMS=/sys/module/kstats_trace/parameters
# ftrace names a function by one of the symbols at its address: getpid()
# and getppid() (SYSCALL_DEFINE0) as __do_sys_getpid or __x64_sys_getpid.
GLOB='__*sys_getp*id'
N=500

[ -x "$HELPER" ] || { ktap_skip_all "kstats_helper not built"; exit "$KSFT_SKIP"; }
[ -e "$CTL" ] || modprobe kstats_trace 2>/dev/null
[ -e "$CTL" ] || { ktap_skip_all "no $CTL (CONFIG_KSTATS_TRACE)"; exit "$KSFT_SKIP"; }
grep -q ' __x64_sys_getppid$' /proc/kallsyms ||
	{ ktap_skip_all "no __x64_sys_getppid in this kernel (x86_64 only)"; exit "$KSFT_SKIP"; }
ktap_set_plan 10
ks_mark "kstats_group_test $$: begin"
TMPD=$(mktemp -d)
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$CGROOT" ] && grep -qw cgroup2 /proc/filesystems; then
	CGROOT=$TMPD/cgroup2
	mkdir -p "$CGROOT" && mount -t cgroup2 none "$CGROOT" || CGROOT=""
fi
trap '[ "$CGROOT" != "$TMPD/cgroup2" ] || umount "$CGROOT"; rm -rf "$TMPD"' EXIT

ctl() { "$HELPER" write "$CTL" "$1"; }
# field NAME KEY: a field of NAME's line in _control.
field() {
	awk -v n="$1" -v k="$2" '$1 == "name" && $2 == n {
		for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$CTL"
}
# sampled NAME: the trace NAME has samples.
sampled() { [ "$(field "$1" samples)" -gt 0 ]; }
# total FILE: the samples of a metric, from its CPUS lines.
total() { awk '$3 == "CPUS" { n += $6 } END { print n + 0 }' "$1"; }
# file_of NAME SYM: the metric file of group NAME that times the function
# SYM, named after one of the symbols at its address.
file_of() {
	a=$(awk -v s="$2" '$3 == s { print $1; exit }' /proc/kallsyms)
	for n in $(awk -v a="$a" '$1 == a { print $3 }' /proc/kallsyms); do
		[ -e "$KS/$1/$n" ] && echo "$n" && return
	done
}
# functions NAME: the metric files of group NAME, one per line.
functions() {
	for f in "$KS/$1"/*; do
		[ "${f##*/}" = _summary ] || echo "${f##*/}"
	done
}

# Built out of tree without the kernel's kernel/trace/trace.h, kstats_trace
# has no groups: nothing here can run.
: > "$KS/error_log"
if [ "$(ctl "trace fprobe:$GLOB as kstats_group_probe")" = OK ]; then
	ctl "remove kstats_group_probe" > /dev/null
elif grep -q "groups need the kernel's kernel/trace/trace.h" "$KS/error_log"; then
	ktap_print_msg "$(cat "$KS/error_log")"
	ktap_exit_fail_msg "kstats_trace was built without kernel/trace/trace.h: no groups"
fi

# Without fprobe (Debian's 6.1), every group is refused, and says why.
if ! grep -q ' register_fprobe$' /proc/kallsyms; then
	ktap_print_msg "no fprobe in this kernel: groups are refused"
	check_no_fprobe() {
		: > "$KS/error_log"
		[ "$(ctl "trace fprobe:$GLOB as g")" = EOPNOTSUPP ] &&
			grep -q 'groups need fprobe' "$KS/error_log" && [ ! -e "$KS/g" ]
	}
	ktap_test_result "a group is refused with EOPNOTSUPP: the kernel has no fprobe" \
		check_no_fprobe
	for t in "counts" "summary" "clash" "cgroup" "load" "modules" "exit" "inflight" "rmmod"; do
		ktap_test_skip "groups: $t (no CONFIG_FPROBE)"
	done
	ktap_finished
	exit
fi

# Each function of the group counts exactly its own calls: a process
# (pid filter: no other's calls) makes N getpid() and 3N getppid() calls.
check_counts() {
	go=$TMPD/go ready=$TMPD/ready
	rm -f "$go" "$ready"
	mkfifo "$go" || return 1
	sh -c ": > $ready; read x < $go; exec $HELPER ids $N $((3 * N))" > /dev/null &
	p=$!
	r="not ready"
	ks_wait_for 60 [ -e "$ready" ] && r=$(ctl "trace fprobe:$GLOB as g pid $p")
	ks_send_go 120 "$go" $p || r="$r, no reader"
	wait $p
	[ "$r" = OK ] || return 1
	nf=$(functions g | wc -l)
	fpid=$(file_of g __x64_sys_getpid)
	fppid=$(file_of g __x64_sys_getppid)
	if [ -z "$fpid" ] || [ -z "$fppid" ]; then
		ktap_print_msg "no getpid or getppid among: $(functions g | tr '\n' ' ')"
		ctl "remove g" > /dev/null
		return 1
	fi
	getpid=$(total "$KS/g/$fpid")
	getppid=$(total "$KS/g/$fppid")
	others=0
	for f in $(functions g | grep -vxe "$fpid" -e "$fppid"); do
		others=$((others + $(total "$KS/g/$f")))
	done
	line=$(grep '^name g ' "$CTL")
	ktap_print_msg "$r; $nf functions: getpid ($fpid) $getpid, getppid ($fppid) $getppid," \
		"others $others"
	ktap_print_msg "$line"
	cp -r "$KS/g" "$TMPD/g"
	[ "$r" = OK ] && [ "$getpid" -eq $N ] && [ "$getppid" -eq $((3 * N)) ] &&
		[ "$others" -eq 0 ] && [ "$(field g mode)" = group ] &&
		[ "$(field g glob)" = "$GLOB" ] && [ "$(field g functions)" -eq "$nf" ] &&
		[ "$(field g samples)" -eq $((4 * N)) ] && [ "$(field g bits)" -eq 1 ] &&
		[ "$(field g memory)" -gt 0 ] && [ "$(field g pid)" = "$p" ]
}
ktap_test_result "trace fprobe:$GLOB as g: each function counts exactly its calls" check_counts

# The summary holds, per function and non-empty slot, the CPUS line's
# count; nothing else.
check_summary() {
	[ -d "$TMPD/g" ] || return 1
	for f in "$TMPD"/g/*; do
		f=${f##*/}
		[ "$f" != _summary ] || continue
		awk -v f="$f" '$3 == "CPUS" { print "function", f, "slot", $2, "count", $6 }' \
			"$TMPD/g/$f"
	done | sort > "$TMPD/want"
	awk '{ print $1, $2, $5, $6, $7, $8 }' "$TMPD/g/_summary" | sort > "$TMPD/got"
	bad=$(awk '$1 != "function" || $3 != "bits" || $4 != 1 || $5 != "slot" ||
		   $7 != "count" || $9 != "avg" || NF != 10' "$TMPD/g/_summary" | head -n 1)
	ktap_print_msg "$(wc -l < "$TMPD/got") summary lines," \
		"$(wc -l < "$TMPD/want") CPUS lines${bad:+; bad line: $bad}"
	r=$(ctl "remove g")
	[ -s "$TMPD/want" ] && [ -z "$bad" ] && cmp -s "$TMPD/want" "$TMPD/got" &&
		[ "$r" = OK ] && [ ! -e "$KS/g" ]
}
ktap_test_result "kstats/g/_summary sums each function's slots over the CPUs" check_summary

# refused ERRNO TEXT COMMAND: COMMAND fails with ERRNO, error_log says
# TEXT, and nothing is created or listed.
refused() {
	before=$(ls "$KS" | sort; grep -c '^name ' "$CTL")
	: > "$KS/error_log"
	r=$(ctl "$3")
	after=$(ls "$KS" | sort; grep -c '^name ' "$CTL")
	msg=$(sed -n 's/.*kstats_trace: error: //p' "$KS/error_log")
	ktap_print_msg "$3: $r: $msg"
	[ "$r" = "$1" ] && echo "$msg" | grep -q "$2" && [ "$before" = "$after" ]
}
check_refusals() {
	nsys=$(grep -c ' __x64_sys_' /proc/kallsyms)
	ok=1
	refused ENOENT "no function that ftrace can trace matches" \
		"trace fprobe:no_such_function_kst* as g" || ok=0
	refused EINVAL "is a glob: only trace fprobe:GLOB as NAME" "trace $GLOB" || ok=0
	refused EINVAL "is a glob: only trace fprobe:GLOB as NAME" "trace pcpu:$GLOB" || ok=0
	refused EINVAL "is a glob: only trace fprobe:GLOB as NAME" "trace fprobe:$GLOB" || ok=0
	refused EINVAL "is a glob: only trace fprobe:GLOB as NAME" \
		"trace g start $GLOB end __x64_sys_getppid" || ok=0
	refused EINVAL "a group is timed by fprobe" "trace $GLOB as g" || ok=0
	# A plain name is a group of the functions of that name: ftrace lists
	# the syscall as __do_sys_getppid, not under its x64 alias.
	refused ENOENT "no function that ftrace can trace matches" \
		"trace fprobe:__x64_sys_getppid as g" || ok=0
	refused EINVAL "invalid glob '1\*'" "trace fprobe:1* as g" || ok=0
	refused EINVAL "invalid glob" "trace fprobe:__x64_sys_get/* as g" || ok=0
	old=$(cat $PARAMS/max_functions)
	echo 2 > $PARAMS/max_functions
	refused E2BIG "matches [0-9]* functions, more than max_functions (2)" \
		"trace fprobe:__x64_sys_* as g" || ok=0
	echo "$old" > $PARAMS/max_functions
	# A budget of 0 MiB refuses everything, whatever the number of CPUs.
	old=$(cat $PARAMS/max_memory_mb)
	echo 0 > $PARAMS/max_memory_mb
	refused ENOMEM "the group would take [0-9]* KiB" "trace fprobe:$GLOB as g" || ok=0
	refused ENOMEM "the trace would take [0-9]* KiB" "trace __x64_sys_getppid" || ok=0
	# A budget of more bytes than a size_t holds (2^44 MiB on 64 bits) is
	# refused, and the budget stays; the largest one taken does not wrap.
	r=$("$HELPER" write $PARAMS/max_memory_mb 17592186044416)
	[ "$r" = ERANGE ] && [ "$(cat $PARAMS/max_memory_mb)" = 0 ] ||
		{ echo "# max_memory_mb 2^44: $r, then $(cat $PARAMS/max_memory_mb)"; ok=0; }
	echo 17592186044415 > $PARAMS/max_memory_mb
	if [ "$(ctl "trace __x64_sys_getppid")" = OK ]; then
		[ "$(ctl "remove __x64_sys_getppid")" = OK ] || ok=0
	else
		echo "# max_memory_mb 2^44 - 1: trace __x64_sys_getppid refused"
		ok=0
	fi
	echo "$old" > $PARAMS/max_memory_mb
	if [ "$(ctl "trace fprobe:__x64_sys_getppid")" = OK ]; then
		refused EEXIST "cannot create the group" \
			"trace fprobe:$GLOB as __x64_sys_getppid" || ok=0
		[ "$(ctl "remove __x64_sys_getppid")" = OK ] || ok=0
	else
		ok=0
	fi
	ktap_print_msg "__x64_sys_* has $nsys symbols"
	[ $ok -eq 1 ]
}
ktap_test_result "groups refuse bad globs, too many functions, too much memory, names in use" \
	check_refusals

# Where fprobe runs on the function-graph tracer, a kprobe (of a trace
# FUNC or pcpu:FUNC) and an fprobe (of a group) on one function are
# refused, in either order; elsewhere both are taken.
both() {
	if [ "$clash" ]; then
		refused EBUSY "$1" "$2"
	else
		[ "$(ctl "$2")" = OK ] && [ "$(ctl "remove $3")" = OK ]
	fi
}
check_clash() {
	clash=
	ks_fprobe_on_fgraph && clash=1
	ktap_print_msg "fprobe on the function-graph tracer: ${clash:-no}"
	ok=1
	for f in __x64_sys_getppid pcpu:__x64_sys_getppid; do
		[ "$(ctl "trace $f")" = OK ] || return 1
		both "has a kprobe of __x64_sys_getppid already" "trace fprobe:$GLOB as g" g ||
			ok=0
		[ "$(ctl "remove __x64_sys_getppid")" = OK ] || return 1
	done
	[ "$(ctl "trace fprobe:$GLOB as g")" = OK ] || return 1
	for f in __x64_sys_getppid pcpu:__x64_sys_getppid; do
		both "has an fprobe of g already" "trace $f" __x64_sys_getppid || ok=0
	done
	[ "$(ctl "remove g")" = OK ] && [ $ok -eq 1 ]
}
ktap_test_result "a kprobe and a group's fprobe on one function: refused on fgraph kernels" \
	check_clash

# Every syscall in a group, added and removed KSTATS_GROUP_ROUNDS times
# (default 20) while a process makes syscalls on every CPU: no report,
# nothing left.
ROUNDS=${KSTATS_GROUP_ROUNDS:-20}
check_load() {
	ks_mark "kstats_group_test $$: load"
	pids=""
	for i in $(seq "$(nproc)"); do
		"$HELPER" spin 3600 > /dev/null &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086 # a list of pids
	ks_wait_for 60 ks_spinning $pids || ktap_print_msg "the spinners did not start"
	ok=1 n=0 samples=0
	for i in $(seq "$ROUNDS"); do
		[ "$(ctl "trace fprobe:__x64_sys_* as sys")" = OK ] || { ok=0; break; }
		# A round times something: the spinners' getppid() calls.
		ks_wait_for 60 sh -c "[ \$(awk '\$2 == \"sys\" { for (i = 3; i < NF; i++)
			if (\$i == \"samples\") print \$(i + 1) }' $CTL) -gt 0 ]" || ok=0
		[ $i -eq 1 ] && n=$(field sys functions) && samples=$(field sys samples)
		[ "$(ctl "remove sys")" = OK ] || { ok=0; break; }
	done
	# shellcheck disable=SC2086 # a list of pids
	kill -TERM $pids
	wait $pids 2> /dev/null
	ktap_print_msg "$ROUNDS rounds of a group of $n syscalls under load ($samples samples" \
		"in the first): $([ $ok -eq 1 ] && echo ok)"
	[ $ok -eq 1 ] && [ "$n" -gt 100 ] && [ "$samples" -gt 0 ] && [ ! -e "$KS/sys" ] &&
		! grep -q '^name sys ' "$CTL" && ks_no_reports_since "kstats_group_test $$: load"
}
ktap_test_result "a group of every syscall is added and removed under load" check_load

# Functions of two modules in one group (kstats_bench's ksgrp_bench_a and
# ksgrp_bench_b, kstats_sample's ksgrp_sample): when kstats_bench goes,
# its functions leave the group, listed as gone, their files stay, and the
# rest goes on; reloaded, kstats_bench is not traced. When kstats_sample
# goes too, no function is left: the fprobe goes (an empty filter would
# trace every function), and nothing more is counted, not even as missed.
BENCH=/sys/kernel/kstats_bench
sample_more() { [ "$(total "$KS/m/kstats_sample:ksgrp_sample")" -gt "$1" ]; }
check_modules() {
	ks_mark "kstats_group_test $$: modules"
	# 100 calls a second on each CPU: enough, and light on an emulated
	# kernel (the default 2000 load it for as long as the module is in).
	modprobe kstats_bench && modprobe kstats_sample rate=100 || return 1
	[ "$(ctl "trace fprobe:ksgrp_* as m")" = OK ] || return 1
	echo $N > $BENCH/group_calls
	a=$(total "$KS/m/kstats_bench:ksgrp_bench_a")
	b=$(total "$KS/m/kstats_bench:ksgrp_bench_b")
	rmmod kstats_bench || return 1
	gone1=$(field m gone)
	s1=$(total "$KS/m/kstats_sample:ksgrp_sample")
	ks_wait_for 60 sample_more "$s1" && more=yes || more=no
	modprobe kstats_bench && echo $N > $BENCH/group_calls || return 1
	a2=$(total "$KS/m/kstats_bench:ksgrp_bench_a")
	rmmod kstats_sample || return 1
	gone2=$(field m gone)
	missed=$(field m missed)
	echo $N > $BENCH/group_calls
	"$HELPER" pair $N > /dev/null
	missed2=$(field m missed)
	files=$(functions m | tr '\n' ' ')
	ktap_print_msg "functions: $files; a $a b $b; gone '$gone1' then '$gone2';" \
		"sample counted on: $more; a after reload $a2; missed $missed then $missed2"
	[ "$(ctl "remove m")" = OK ] && rmmod kstats_bench || return 1
	[ "$a" -eq $N ] && [ "$b" -eq $((2 * N)) ] && [ "$gone1" = kstats_bench ] &&
		[ $more = yes ] && [ "$a2" -eq $N ] && [ "$gone2" = kstats_bench,kstats_sample ] &&
		[ "$missed2" -eq "$missed" ] && [ "$(echo $files | wc -w)" -eq 3 ] &&
		ks_no_reports_since "kstats_group_test $$: modules"
}
if [ -n "$(find "/lib/modules/$(uname -r)" -name 'kstats_sample.ko*')" ] &&
   [ -n "$(find "/lib/modules/$(uname -r)" -name 'kstats_bench.ko*')" ]; then
	ktap_test_result "a group over two modules: each module's functions go with it" \
		check_modules
else
	ktap_test_skip "a group over two modules (no kstats_bench or kstats_sample)"
fi

# cgroup PATH on a group: each function counts exactly the calls of the
# tasks of that cgroup, while another process outside it makes the same
# calls.
check_cgroup() {
	go=$TMPD/go ready=$TMPD/ready cg=$CGROOT/kstats_group_test
	rm -f "$go" "$ready"
	mkfifo "$go" && mkdir -p "$cg" || return 1
	sh -c "echo \$\$ > $cg/cgroup.procs; : > $ready; read x < $go;
		exec $HELPER ids $N $((3 * N))" > /dev/null &
	p=$!
	r="not ready"
	ks_wait_for 60 [ -e "$ready" ] &&
		r=$(ctl "trace fprobe:$GLOB as cg cgroup /kstats_group_test")
	"$HELPER" ids $((2 * N)) $((2 * N)) > /dev/null &
	o=$!
	ks_send_go 120 "$go" $p || r="$r, no reader"
	wait $p
	wait $o
	fpid=$(file_of cg __x64_sys_getpid)
	fppid=$(file_of cg __x64_sys_getppid)
	getpid=$([ -n "$fpid" ] && total "$KS/cg/$fpid")
	getppid=$([ -n "$fppid" ] && total "$KS/cg/$fppid")
	listed=$(field cg cgroup)
	[ "$r" = OK ] && [ "$(ctl "remove cg")" = OK ] || r=failed
	rmdir "$cg"
	ktap_print_msg "cgroup /kstats_group_test: $r; getpid ${getpid:-none}," \
		"getppid ${getppid:-none} (of $N and $((3 * N)); $((2 * N)) each outside it);" \
		"listed as cgroup $listed"
	[ "$r" = OK ] && [ "${getpid:-0}" -eq $N ] && [ "${getppid:-0}" -eq $((3 * N)) ] &&
		[ "$listed" = /kstats_group_test ]
}
if [ -n "$CGROOT" ]; then
	ktap_test_result "trace fprobe:GLOB as NAME cgroup PATH: exactly the calls of its tasks" \
		check_cgroup
else
	ktap_test_skip "a group with a cgroup filter (no cgroup2)"
fi

# do_exit() never returns: a group with it times its siblings, and goes.
check_exit() {
	ks_mark "kstats_group_test $$: exit"
	[ "$(ctl "trace fprobe:do_*exit as ex")" = OK ] || return 1
	for i in $(seq 50); do sh -c 'exit 0'; done
	n=$(field ex functions)
	exits=$(total "$KS/ex/do_exit")
	[ "$(ctl "remove ex")" = OK ] || return 1
	ktap_print_msg "do_*exit: $n functions; do_exit timed $exits times (never returns)"
	[ "$n" -ge 2 ] && [ "$exits" -eq 0 ] && ks_no_reports_since "kstats_group_test $$: exit"
}
ktap_test_result "a group with do_exit, which never returns, times the rest and goes" check_exit

# A call in flight when its trace goes counts in no trace added after it
# began, and the kernel reports nothing. Where fprobe runs on the
# function-graph tracer (7.x), such a call returns into the fprobe then
# at its address: a new trace, often in the memory of the old one (removed
# and added in one write), whose exit handler must not use the old one's
# entry data; and if fprobe's function-graph ops went with the last
# fprobe and came back under another of fgraph's 16 indexes, a return
# under index 0 made fprobe WARN (kstats_trace_fgraph_hold()). 16 rounds,
# a group and a function in turn, each after one more fprobe added and
# removed: 3 registrations a round, so that the handovers of index cover
# all 16.
check_inflight() {
	ks_mark "kstats_group_test $$: in flight"
	for i in $(seq 16); do
		case $i in
		*[13579]) t="fprobe:__*sys_pause as p" ;;
		*) t="fprobe:__x64_sys_pause" ;;
		esac
		n=${t##* }
		n=${n#fprobe:}
		ctl "trace fprobe:__x64_sys_sync" > /dev/null
		ctl "remove __x64_sys_sync" > /dev/null
		r=$(ctl "trace $t")
		[ "$r" = OK ] || { ktap_print_msg "trace $t: $r"; return 1; }
		"$HELPER" pause 60 &
		h=$!
		ks_wait_for 60 ks_in_pause $h ||
			{ ktap_print_msg "kstats_helper pause: not in pause()"; kill $h; return 1; }
		r=$(ctl "remove $n
trace $t")
		kill -USR1 $h
		wait $h
		f=$KS/$n
		if [ -d "$f" ]; then
			g=$(file_of "$n" __x64_sys_pause)
			[ -n "$g" ] ||
				{ ktap_print_msg "$t: no file of __x64_sys_pause"; return 1; }
			f=$f/$g
		fi
		c=$(total "$f")
		ctl "remove $n" > /dev/null
		[ "$r" = OK ] && [ "$c" -eq 0 ] || {
			ktap_print_msg "round $i, $t: $r, $c calls counted of one begun before"
			return 1
		}
	done
	ktap_print_msg "16 rounds: no call counted in a trace added after it began"
	ks_no_reports_since "kstats_group_test $$: in flight"
}
ktap_test_result "a call in flight when its trace goes counts in no trace added since" \
	check_inflight

# Unloading kstats_trace with a group under load removes the group, its
# directory and its files, and reports nothing.
check_rmmod() {
	ks_mark "kstats_group_test $$: rmmod"
	[ "$(ctl "trace fprobe:__x64_sys_* as all")" = OK ] || return 1
	n=$(field all functions)
	"$HELPER" spin 3600 > /dev/null &
	l=$!
	ks_wait_for 60 sampled all
	rmmod kstats_trace
	r=$?
	kill -TERM $l
	wait $l 2> /dev/null
	ktap_print_msg "rmmod kstats_trace with a group of $n functions under load: status $r"
	[ $r -eq 0 ] && [ ! -e "$KS/all" ] && [ ! -e "$CTL" ] &&
		ks_no_reports_since "kstats_group_test $$: rmmod" &&
		modprobe kstats_trace && [ -e "$CTL" ] && ! grep -qv '^#' "$CTL"
}
ktap_test_result "unloading kstats_trace with a group under load removes it" check_rmmod

ktap_finished
