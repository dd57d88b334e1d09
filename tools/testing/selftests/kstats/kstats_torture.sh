#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kstats torture: usage kstats_torture.sh [SECONDS]   (default 60)
#
# Meant for a debug kernel (KASAN, lockdep, kmemleak, fault injection,
# CPU hotplug) booted with panic_on_warn. In turn:
#  - CPU hotplug: samples of a CPU that goes offline stay in the output, a
#    CPU that comes back online records at once;
#  - fault injection (failslab, fail_page_alloc) on the task that adds
#    traces and creates metrics: each failure is a clean error and leaves
#    nothing behind, and the same commands work once injection stops;
#  - every form of trace added and removed, KSTATS_REMOVE_ROUNDS (100)
#    rounds, while every CPU calls the traced function;
#  - kstats_fuzz: random and mutated commands to every file;
#  - SECONDS of everything at once on all CPUs: trace/remove in every mode,
#    of the same and of different names, readers of every file,
#    start/stop/reset writers, callers of the traced functions, the sample
#    modules loaded and unloaded, CPUs taken offline and back online;
# then no kernel report in dmesg, no leak reported by kmemleak, and every
# file reads back in format. Prints how many operations of each kind ran.
# Needs kstats_helper and kstats_fuzz next to it. KSTATS_FI_ROUNDS (10)
# rounds of fault injection, KSTATS_REMOVE_ROUNDS (100) rounds of removal
# under load, KSTATS_FUZZ_COUNT (3000) fuzzer writes, KSTATS_SEED the
# fuzzer's seed.

DIR=$(dirname "$0")
. "$DIR/kstats_lib.sh"

RUN=${1:-60}
H=$DIR/kstats_helper
FZ=$DIR/kstats_fuzz
K=$DEBUGFS/kstats
CTL=$K/_control
CPU=/sys/devices/system/cpu
T=${TMPDIR:-/tmp}/kstats_torture.$$
F=__x64_sys_getppid

modprobe kstats_trace 2>/dev/null
[ -w "$CTL" ] || { ktap_skip_all "no $CTL (CONFIG_KSTATS_TRACE)"; exit "$KSFT_SKIP"; }
if [ ! -x "$H" ] || [ ! -x "$FZ" ]; then
	ktap_skip_all "kstats_helper or kstats_fuzz missing"
	exit "$KSFT_SKIP"
fi
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
ktap_set_plan 8
[ -e "$DEBUGFS/kmemleak" ] && echo clear > "$DEBUGFS/kmemleak"

# The total count of a metric, and the count of one CPU.
total() { awk '$3 == "CPUS" { n += $6 } END { print n + 0 }' "$K/$1" 2>/dev/null; }
on_cpu() { awk -v c="$2" '$3 == "CPU" && $4 == c { n += $6 } END { print n + 0 }' "$K/$1"; }
ctl() { [ "$("$H" write "$CTL" "$1")" = OK ]; }

# -- CPU hotplug ------------------------------------------------------------
ktap_print_msg "$(date +%T) CPU hotplug"
last=$(($(nproc) - 1))
hotplug_keep() {
	mask=$(printf %x $((1 << last)))
	ctl "trace $F" && taskset "$mask" "$H" getppid 100 >/dev/null &&
		echo 0 > "$CPU/cpu$last/online" &&
		[ "$(on_cpu $F $last)" -eq 100 ] && [ "$(total $F)" -ge 100 ]
}
hotplug_online() {
	echo 1 > "$CPU/cpu$last/online" &&
		taskset "$mask" "$H" getppid 100 >/dev/null &&
		[ "$(on_cpu $F $last)" -eq 200 ] && [ "$(total $F)" -ge 200 ]
}
if [ "$last" -gt 0 ] && [ -w "$CPU/cpu$last/online" ]; then
	ktap_test_result "samples of CPU $last stay in $F when it goes offline" hotplug_keep
	ktap_test_result "CPU $last records at once when it comes back online" hotplug_online
	echo 1 > "$CPU/cpu$last/online"
	ctl "remove $F"
else
	ktap_test_skip "CPU hotplug: no CPU to take offline"
	ktap_test_skip "CPU hotplug: no CPU to bring online"
fi

# -- fault injection ----------------------------------------------------------
ktap_print_msg "$(date +%T) fault injection"
# The kprobe pair is put past the call to __fentry__, on breakpoints: the
# kernel WARNs when it cannot disarm a kprobe on ftrace for want of
# memory, which the undoing of a half-made pair would need. The call is
# the first instruction, or the second after an endbr64 (IBT): 5 or 9
# bytes in, whichever kprobes take as an instruction boundary.
for FI_OFF in 5 9; do
	ctl "trace fiprobe start __x64_sys_getpid+$FI_OFF end $F+$FI_OFF" &&
		ctl "remove fiprobe" && break
done
ktap_print_msg "kprobe pair past __fentry__: +$FI_OFF"
FI_CMDS="trace $F|trace pcpu:$F|trace fprobe:$F"
FI_CMDS="$FI_CMDS|trace fiN start __x64_sys_getpid+$FI_OFF end $F+$FI_OFF"
FI_CMDS="$FI_CMDS|trace fiN start tp:softirq_entry end tp:softirq_exit"
inject() {
	for a in failslab fail_page_alloc; do
		echo "$1" > "$DEBUGFS/$a/probability"
		echo 1 > "$DEBUGFS/$a/interval"
		echo -1 > "$DEBUGFS/$a/times"
		echo 0 > "$DEBUGFS/$a/space"
		echo 0 > "$DEBUGFS/$a/verbose"
		echo Y > "$DEBUGFS/$a/task-filter"
		echo N > "$DEBUGFS/$a/ignore-gfp-wait"
	done
	echo N > "$DEBUGFS/fail_page_alloc/ignore-gfp-highmem"
	echo 0 > "$DEBUGFS/fail_page_alloc/min-order"
}
# kstats_helper write or read, with fault injection once the file is open.
failing() { KSTATS_MAKE_IT_FAIL=1 "$H" "$@"; }
# All or nothing: the trace NAME is listed with all its files, or absent.
whole() {
	if grep -q "^name $1 " "$CTL"; then
		[ -e "$K/$1" ] && { [ "$2" = pair ] || [ -e "$K/GAP-$1" ]; }
	else
		[ ! -e "$K/$1" ] && [ ! -e "$K/GAP-$1" ]
	fi
}
fault_injection() {
	i=0 ok=0 failed=0
	inject 3
	while [ $i -lt "${KSTATS_FI_ROUNDS:-10}" ]; do
		i=$((i + 1))
		echo "$FI_CMDS" | tr '|' '\n' | while read -r cmd; do
			cmd=$(echo "$cmd" | sed "s/fiN/fi$i/")
			name=$(echo "$cmd" | awk '{ n = $2; sub(/^[a-z]*:/, "", n); print n }')
			kind=single
			case $cmd in *start*) kind=pair ;; esac
			r=$(failing write "$CTL" "$cmd")
			whole "$name" $kind || { echo "# half made: $cmd ($r)"; exit 1; }
			case $r in
			OK)
				echo ok >> "$T/fi"
				ctl "remove $name" || { echo "# cannot remove $name"; exit 1; } ;;
			'')
				# Killed: its page faults failed, before or
				# after the write. Made or not, both are whole.
				echo "failed killed" >> "$T/fi"
				if grep -q "^name $name " "$CTL"; then
					ctl "remove $name" ||
						{ echo "# cannot remove $name"; exit 1; }
				fi ;;
			*)
				# An error leaves nothing behind.
				if grep -q "^name $name " "$CTL"; then
					echo "# $cmd failed ($r) but made $name"
					exit 1
				fi
				echo "failed $r" >> "$T/fi" ;;
			esac
			whole "$name" $kind || { echo "# half removed: $cmd"; exit 1; }
		done || return 1
		# Metrics created by a module under injection.
		if [ -d /sys/kernel/kstats_bench ]; then
			echo memcpy > /sys/kernel/kstats_bench/target
			echo 100 > /sys/kernel/kstats_bench/loops
			echo 0 > /sys/kernel/kstats_bench/cpus
			before=$(total bench_memcpy)
			r=$(failing read /sys/kernel/kstats_bench/run)
			if [ "$r" = OK ]; then
				n=$(total bench_memcpy)
				[ "$n" -eq 100 ] ||
					{ echo "# kstats_bench run: $n samples"; return 1; }
				echo ok >> "$T/fi"
			else
				# No metric, or the last run's as it was.
				if [ -e "$K/bench_memcpy" ] &&
				   [ "$(total bench_memcpy)" -ne "$before" ]; then
					echo "# failed kstats_bench run ($r) left a metric"
					return 1
				fi
				# No output: the helper's own page faults failed.
				echo "failed ${r:-killed}" >> "$T/fi"
			fi
		fi
	done
	inject 0
	ok=$(grep -c '^ok' "$T/fi")
	failed=$(grep -c '^failed' "$T/fi")
	echo "# fault injection: $ok commands succeeded, $failed failed cleanly:" \
		"$(sed -n 's/^failed //p' "$T/fi" | sort | uniq -c | tr -s ' \n' ' ')"
	[ "$ok" -gt 0 ] && [ "$failed" -gt 0 ] || return 1
	# The kernel reports failed allocations with a stack dump (warn_alloc):
	# expected here. Any other report fails; the log is then cleared.
	dmesg -c > "$T/fi.dmesg"
	! grep -E 'BUG:|WARNING:|KASAN|circular locking' "$T/fi.dmesg"
	# Once injection stops, the same commands work.
	echo "$FI_CMDS" | tr '|' '\n' | while read -r cmd; do
		cmd=$(echo "$cmd" | sed "s/fiN/fi0/")
		name=$(echo "$cmd" | awk '{ n = $2; sub(/^[a-z]*:/, "", n); print n }')
		ctl "$cmd" && ctl "remove $name" ||
			{ echo "# after injection: $cmd fails"; exit 1; }
	done
}
if [ -e "$DEBUGFS/failslab/probability" ] && [ -e "$DEBUGFS/fail_page_alloc/probability" ]; then
	modprobe kstats_bench 2>/dev/null
	ktap_test_result "fault injection: clean errors, nothing half made" fault_injection
	inject 0
	rmmod kstats_bench 2>/dev/null
else
	ktap_test_skip "fault injection: no failslab/fail_page_alloc in debugfs"
fi

# -- remove under load ---------------------------------------------------------
# Every form added and removed, round after round, while every CPU calls
# the function: getppid() in a loop, which also hits the sys_enter
# tracepoint. A handler left running after a removal would touch freed
# memory (KASAN), and panic_on_warn turns any warning into a failure.
ktap_print_msg "$(date +%T) remove under load"
RL_FORMS="trace $F|trace pcpu:$F|trace fprobe:$F"
RL_FORMS="$RL_FORMS|trace rl start __x64_sys_getpid end $F"
RL_FORMS="$RL_FORMS|trace rl start tp:softirq_entry end tp:softirq_exit"
RL_FORMS="$RL_FORMS|trace rl start tp:sys_enter end $F"
remove_under_load() {
	rounds=${KSTATS_REMOVE_ROUNDS:-100}
	pids=""
	for cpu in $(seq 0 "$last"); do
		taskset "$(printf %x $((1 << cpu)))" "$H" spin 3600 > "$T/spin.$cpu" &
		pids="$pids $!"
	done
	# The commands in one process: a fork and exec takes longer than a
	# trace and its removal in an emulated KASAN kernel.
	echo "$RL_FORMS" | tr '|' '\n' | while read -r cmd; do
		name=rl
		case $cmd in *start*) ;; *) name=$F ;; esac
		printf '%s\nremove %s\n' "$cmd" "$name"
	done > "$T/rl.round"
	i=0
	: > "$T/rl"
	while [ $i -lt "$rounds" ]; do
		cat "$T/rl.round" >> "$T/rl"
		i=$((i + 1))
	done
	t0=$(date +%s)
	"$H" writes "$CTL" < "$T/rl" > "$T/rl.out"
	t=$(($(date +%s) - t0))
	kill $pids
	wait $pids 2>/dev/null
	n=$(grep -c ': OK [0-9.]* ms$' "$T/rl.out")
	grep -v ': OK [0-9.]* ms$' "$T/rl.out" | head -n 5 | sed 's/^/# /'
	# Each form's mean time to add and to remove, in ms.
	awk '$1 == "trace" { f = $3 == "start" ? $4 ".." $6 : $2; sub(/:$/, "", f)
			     add[f] += $(NF - 1); k[f]++ }
	     $1 == "remove" { rm[f] += $(NF - 1) }
	     END { for (f in k) printf "# %s: add %.0f ms, remove %.0f ms\n",
			f, add[f] / k[f], rm[f] / k[f] }' "$T/rl.out" | sort
	calls=$(cat "$T"/spin.* | awk '{ n += $2 } END { print n + 0 }')
	least=$(cat "$T"/spin.* | awk 'NR == 1 || $2 < m { m = $2 } END { print m + 0 }')
	echo "# remove under load: $((n / 2)) of $((rounds * 6)) traces added and" \
		"removed in $t s, $rounds rounds; $(nproc) CPUs calling, $calls calls," \
		"at least $least on each"
	[ "$n" -eq $((rounds * 12)) ] && [ "$least" -gt 0 ]
}
ktap_test_result "every form added and removed under load, ${KSTATS_REMOVE_ROUNDS:-100} rounds" \
	remove_under_load

# -- fuzzing ------------------------------------------------------------------
ktap_print_msg "$(date +%T) fuzzing"
SEED=${KSTATS_SEED:-$(date +%s)}
ktap_test_result "kstats_fuzz seed $SEED: every write accepted or rejected as documented" \
	"$FZ" "$K" "$SEED" "${KSTATS_FUZZ_COUNT:-3000}"

# -- everything at once -------------------------------------------------------
ktap_print_msg "$(date +%T) everything at once"
END=$(($(date +%s) + RUN))
# worker NAME COMMAND...: runs COMMAND until the end, counts the runs.
worker() {
	name=$1
	shift
	n=0
	while [ "$(date +%s)" -lt $END ]; do
		"$@"
		n=$((n + 1))
	done
	echo "$n" > "$T/count.$name"
}
# A command to _control: OK, or an error the race explains.
tctl() {
	r=$("$H" write "$CTL" "$1")
	case $r in
	OK | EEXIST | ENOENT | ENOSPC) ;;
	*) echo "$1: $r" >> "$T/errors" ;;
	esac
}
trace_same() {
	for m in "" pcpu: fprobe:; do
		tctl "trace $m$F"
		tctl "remove $F"
	done
}
trace_pairs() {
	tctl "trace tpair start tp:softirq_entry end tp:softirq_exit bits 0"
	tctl "trace kpair start __x64_sys_getpid end $F bits 8"
	tctl "remove tpair"
	tctl "remove kpair"
}
trace_other() {
	tctl "trace fprobe:__x64_sys_getpid"
	tctl "trace $F bits 5"
	tctl "remove __x64_sys_getpid"
	tctl "remove $F"
}
# A function of kstats_bench, traced while load_modules loads and unloads
# it: the trace is detached when the module goes, or refused meanwhile.
trace_module() {
	for m in "" pcpu: fprobe:; do
		tctl "trace ${m}cpus_show"
		cat /sys/kernel/kstats_bench/cpus > /dev/null 2>&1
		tctl "remove cpus_show"
	done
}
read_all() {
	for f in "$K"/*; do
		cat "$f" > /dev/null 2>&1
	done
}
write_all() {
	for f in "$K"/*; do
		[ "$f" = "$CTL" ] && continue
		for c in start reset stop start; do
			echo $c 2>/dev/null > "$f"
		done
	done
}
calls() { "$H" pair 2000 > /dev/null; }
load_modules() {
	modprobe kstats_sample && usleep 300000 && rmmod kstats_sample
	modprobe kstats_bench && echo memcpy > /sys/kernel/kstats_bench/target &&
		echo 1000 > /sys/kernel/kstats_bench/loops &&
		echo 0 > /sys/kernel/kstats_bench/cpus &&
		cat /sys/kernel/kstats_bench/run > /dev/null
	rmmod kstats_bench
}
cycle_cpus() {
	for c in $(seq 1 "$last"); do
		echo 0 > "$CPU/cpu$c/online"
		usleep 100000
		echo 1 > "$CPU/cpu$c/online"
	done
}
torture() {
	worker trace_same1 trace_same &
	worker trace_same2 trace_same &
	worker trace_pairs trace_pairs &
	worker trace_other trace_other &
	worker trace_module trace_module &
	worker read read_all &
	worker write write_all &
	worker calls1 calls &
	worker calls2 calls &
	worker modules load_modules &
	[ "$last" -gt 0 ] && [ -w "$CPU/cpu1/online" ] && worker hotplug cycle_cpus &
	wait
	# The CPUs that cycle_cpus took offline, and only those, back online.
	for c in $(seq 1 "$last"); do
		[ -w "$CPU/cpu$c/online" ] && echo 1 > "$CPU/cpu$c/online"
	done
	echo "# torture: $RUN s on $(nproc) CPUs:" \
		"$(cd "$T" && for f in count.*; do
			printf '%s %s ' "${f#count.}" "$(cat "$f")"
		done)"
	[ ! -s "$T/errors" ] || {
		sort "$T/errors" | uniq -c | sed 's/^/# unexpected: /'
		return 1
	}
}
ktap_test_result "torture: $RUN s of traces, readers, writers, modules, hotplug at once" torture

# -- after ----------------------------------------------------------------------
ktap_print_msg "$(date +%T) after"
LINE='^slot [0-9]+ +CPU[ S] [0-9]+ +count +[0-9]+ avg +[0-9]+ p [01]\.[0-9]{6}$'
in_format() {
	awk '$1 == "#" { next }
	     $1 != "name" || $3 != "mode" || $11 != "samples" || $13 != "missed" {
		exit 1
	}' "$CTL" || return 1
	for f in "$K"/*; do
		[ "$f" = "$CTL" ] || [ "$f" = "$K/error_log" ] && continue
		grep -vqE "$LINE" "$f" &&
			{ echo "# $f out of format"; return 1; }
	done
	awk '$1 == "name" { print $2 }' "$CTL" | while read -r n; do
		ctl "remove $n" || exit 1
	done
}
ktap_test_result "every file reads back in format, every trace removes" in_format
leaks() {
	[ -e "$DEBUGFS/kmemleak" ] || return 0
	echo scan > "$DEBUGFS/kmemleak"
	sleep 6
	echo scan > "$DEBUGFS/kmemleak"
	! grep -q unreferenced "$DEBUGFS/kmemleak" || { head -n 40 "$DEBUGFS/kmemleak"; false; }
}
clean() {
	! dmesg | grep -B 30 -A 20 -E 'BUG:|WARNING:|KASAN|Call Trace|circular locking' && leaks
}
ktap_test_result "no kernel report in dmesg, no leak found by kmemleak" clean
ktap_finished
