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
#  - every form's remove, and the add of the kretprobe and kprobe forms,
#    with their Nth allocation failed, N over every allocation;
#  - every form of trace added and removed, KSTATS_REMOVE_ROUNDS (100)
#    rounds, while every CPU calls the traced function;
#  - kstats_fuzz: random and mutated commands to every file;
#  - SECONDS of everything at once on all CPUs, and on until each worker
#    has done the least of each kind of its operations: trace/remove in
#    every mode, of the same and of different names, readers of every
#    file, start/stop/reset writers, callers of the traced functions, the
#    sample modules loaded, traced and unloaded, CPUs taken offline and
#    back online;
# then no kernel report in the log since the start (failed allocations
# expected during fault injection), no leak of kstats objects found by
# kmemleak, and every file reads back in format. Prints how many
# operations of each worker succeeded and failed.
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
ktap_set_plan 10
# Reports are checked from here on ($$: this run's marks, not another's).
BEGIN_MARK="kstats_torture $$: begin"
ks_mark "$BEGIN_MARK"
[ -e "$DEBUGFS/kmemleak" ] && echo clear > "$DEBUGFS/kmemleak"

# The total count of a metric, and the count of one CPU.
# (0 for a metric that is not there: busybox awk prints nothing then.)
total() {
	t=$(awk '$3 == "CPUS" { n += $6 } END { print n + 0 }' "$K/$1" 2>/dev/null)
	echo "${t:-0}"
}
on_cpu() { awk -v c="$2" '$3 == "CPU" && $4 == c { n += $6 } END { print n + 0 }' "$K/$1"; }
ctl() { [ "$("$H" write "$CTL" "$1")" = OK ]; }
# What the kernel prints first when it reports a bug: what is not expected
# even between ks_expect_begin and ks_expect_end, where the stack dumps of
# failed allocations are.
BUG_RE='BUG:|WARNING:|KASAN|UBSAN|circular locking|INFO:|Oops|general protection|Kernel panic'
# reported_since MARK ERE: the kernel's lines that match ERE since the last
# mark MARK (ks_mark), printed; true if there is one, or if MARK is gone
# from the log (what followed it cannot be checked).
reported_since() {
	dmesg | awk -v m="kstats-selftest: $1" -v re="$2" '
		index($0, m) { seen = 1; n = 0; next }
		seen && $0 ~ re { hit[++n] = $0 }
		END {
			if (!seen)
				print "# mark \"" m "\" is not in the log any more"
			for (i = 1; i <= n; i++)
				print "# " hit[i]
			exit !(n || !seen)
		}'
}

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
FI_CMDS="trace $F gap|trace pcpu:$F|trace fprobe:$F gap"
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
		[ -e "$K/$1" ] &&
			{ ! grep -q "^name $1 .* gap GAP-$1" "$CTL" || [ -e "$K/GAP-$1" ]; }
	else
		[ ! -e "$K/$1" ] && [ ! -e "$K/GAP-$1" ]
	fi
}
# KSTATS_FI_ROUNDS rounds of every command under injection, and more, up
# to 50, until some have failed and some succeeded: whether a round meets
# an injected failure is chance (3% of the allocations).
fi_both() { grep -q '^ok' "$T/fi" && grep -q '^failed' "$T/fi"; }
fi_rounds() {
	i=0
	while [ $i -lt "${KSTATS_FI_ROUNDS:-10}" ] || { [ $i -lt 50 ] && ! fi_both; }; do
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
}
# Every slab allocation failing from a point on (failslab's space, a budget
# of bytes, then probability 100): a tracepoint pair's attach, the last
# step of its command, fails at each of its steps in turn as the budget
# goes down 32 bytes at a time from the least that makes the trace (found
# by bisection), over 768 bytes, and the undoing of what it had made finds
# no memory either. The kernel WARNs when it cannot disarm a kprobe on
# ftrace (that needs a new filter): the undoing of an end attached with one
# did. fis_try BUDGET: 0 made (and removed), 1 failed cleanly, 2 half made.
fis_try() {
	inject 0
	echo 100 > "$DEBUGFS/failslab/probability"
	echo "$1" > "$DEBUGFS/failslab/space"
	r=$(failing write "$CTL" "trace fis start tp:softirq_entry end tp:softirq_exit")
	inject 0
	whole fis pair || { echo "# half made with a budget of $1 bytes: ($r)"; return 2; }
	if [ "$r" = OK ]; then
		echo ok >> "$T/fi"
		ctl "remove fis" || { echo "# cannot remove fis"; return 2; }
		return 0
	fi
	if grep -q "^name fis " "$CTL"; then
		echo "# trace fis failed ($r) but made it"
		return 2
	fi
	echo "failed sweep ${r:-killed}" >> "$T/fi"
	return 1
}
fi_sweep() {
	lo=0 hi=65536
	fis_try $hi || { echo "# trace fis not made with a budget of $hi bytes"; return 1; }
	while [ $((hi - lo)) -gt 16 ]; do
		mid=$(((lo + hi) / 2))
		fis_try $mid
		case $? in
		0) hi=$mid ;;
		1) lo=$mid ;;
		*) return 1 ;;
		esac
	done
	s=$((hi - 32)) n=0
	while [ $s -gt 0 ] && [ $n -lt 24 ]; do
		fis_try $s
		[ $? -le 1 ] || return 1
		s=$((s - 32)) n=$((n + 1))
	done
	echo "# budget sweep: the tracepoint pair made from $hi bytes on;" \
		"$n budgets below it, each made or failed cleanly"
}
fault_injection() {
	: > "$T/fi"
	# The kernel reports failed allocations with a stack dump (warn_alloc):
	# expected between the marks. Any other report fails.
	ks_expect_begin "fault injection (kstats_torture $$)"
	inject 3
	fi_rounds
	rc=$?
	[ $rc -eq 0 ] && { fi_sweep || rc=1; }
	inject 0
	ks_expect_end
	ok=$(grep -c '^ok' "$T/fi")
	failed=$(grep -c '^failed' "$T/fi")
	echo "# fault injection: $ok commands succeeded, $failed failed cleanly in $i rounds:" \
		"$(sed -n 's/^failed //p' "$T/fi" | sort | uniq -c | tr -s ' \n' ' ')"
	reported_since "expect begin: fault injection (kstats_torture $$)" "$BUG_RE" &&
		rc=1
	[ $rc -eq 0 ] && [ "$ok" -gt 0 ] && [ "$failed" -gt 0 ] || return 1
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

# -- remove with its Nth allocation failed ------------------------------------
# Every form's remove, with the Nth fault injection point of its write
# failing (/proc/self/fail-nth; failslab and fail_page_alloc with
# ignore-gfp-wait off), N from 1 until the remove no longer reaches the
# Nth: each time the trace is gone, or is still listed (refused before its
# detach, or stuck) and goes with a remove without injection. Each form
# alone on its function, beside kprobes on ftrace elsewhere, and beside a
# kprobe event on $F: kprobes' disarm of a kprobe on ftrace needs a new ftrace
# filter, and kprobes kept such a kprobe, which kstats freed, when that
# allocation failed (a WARN, then KASAN's use-after-free with the other
# kprobe there). The function is called and kprobes' list read after
# each remove; no kernel report may follow.
ktap_print_msg "$(date +%T) remove with its Nth allocation failed"
RN_FORMS="trace $F|trace pcpu:$F|trace fprobe:$F|trace rn start __x64_sys_getpid end $F"
RN_FORMS="$RN_FORMS|trace rn start tp:softirq_entry end tp:softirq_exit"
RN_FORMS="$RN_FORMS|trace fprobe:__x64_sys_getp*id as rn"
# KSTATS_RN_SWEEP=check (make check's): trace FUNC beside kprobes on
# ftrace elsewhere only: its kretprobe's removal takes the paths of
# kprobes' disarm that pcpu: and a kprobe pair take too, and the address
# left in the filter is hit at once, as in the use-after-free this sweep
# found. Each point whose remove went through costs a re-add, a walk of
# ftrace's functions (about 1 s under TCG and KASAN, twice for a pair):
# all (make torture's) sweeps every form alone and beside each other
# probe, in about 4.5 minutes.
RN_OTHERS="none ftrace event"
RN_ALONE=$RN_FORMS
RN_BESIDE=$RN_FORMS
if [ "${KSTATS_RN_SWEEP:-all}" = check ]; then
	RN_OTHERS=ftrace
	RN_BESIDE="trace $F"
fi
# rn_form CMD: the sweep of CMD's remove; prints the points it reached.
rn_form() {
	# The name: a group's (as NAME), a pair's, or the function's.
	name=$(echo "$1" | awk '{ n = $2; sub(/^[a-z]*:/, "", n)
		print ($3 == "as" ? $4 : ($3 == "start" ? $2 : n)) }')
	n=1
	while [ $n -le 200 ]; do
		grep -q "^name $name " "$CTL" || ctl "$1" || { echo "# $1: fails"; return 1; }
		r=$(KSTATS_FAIL_NTH=$n "$H" write "$CTL" "remove $name")
		"$H" getppid 20 > /dev/null
		cat "$DEBUGFS/kprobes/list" > /dev/null 2>&1
		if grep -q "^name $name .* kept" "$CTL"; then
			echo "# $1: remove with fault $n: kprobes kept its kprobe ($r)"
			return 1
		fi
		if grep -q "^name $name " "$CTL"; then
			case $r in
			OK*)
				echo "# $1: remove with fault $n said OK, but it is listed"
				return 1 ;;
			esac
			if ! ctl "remove $name"; then
				echo "# $1: cannot be removed after fault $n"
				return 1
			fi
		fi
		case $r in
		*" not") echo "$((n - 1))"; return 0 ;;
		esac
		n=$((n + 1))
	done
	echo "# $1: remove still reaches its fault at $n"
	return 1
}
# other_probe add|remove WHAT: the other probe of a round: a kprobe on
# ftrace elsewhere (an enabled kprobe event on __x64_sys_getuid; kstats
# puts a pair's ends past __fentry__), which keeps kprobes' ftrace_ops
# registered; or a kprobe event on $F, registered disabled until enabled,
# with which a kstats probe on $F is aggregated, and whose disarm then
# happens at the kstats probe's removal.
other_probe() {
	case $2 in
	ftrace)
		if [ "$1" = add ]; then
			echo "p:kstats_rn/ftrace __x64_sys_getuid" >> "$TRACEFS/kprobe_events" &&
				echo 1 > "$TRACEFS/events/kstats_rn/ftrace/enable"
		else
			echo 0 > "$TRACEFS/events/kstats_rn/ftrace/enable" &&
				echo "-:kstats_rn/ftrace" >> "$TRACEFS/kprobe_events"
		fi ;;
	event)
		if [ "$1" = add ]; then
			echo "p:kstats_rn/other $F" >> "$TRACEFS/kprobe_events"
		else
			echo "-:kstats_rn/other" >> "$TRACEFS/kprobe_events"
		fi ;;
	esac
}
remove_nth() {
	rc=0
	ks_mark "remove nth begin (kstats_torture $$)"
	ks_expect_begin "remove nth (kstats_torture $$)"
	inject 0
	for other in $RN_OTHERS; do
		if [ $other != none ] && ! other_probe add $other; then
			echo "# the other probe ($other) cannot be added"
			rc=1
			break
		fi
		if [ $other = none ]; then
			echo "$RN_ALONE"
		else
			echo "$RN_BESIDE"
		fi | tr '|' '\n' > "$T/rn"
		while read -r cmd; do
			p=$(rn_form "$cmd" < /dev/null) || { echo "$p"; rc=1; continue; }
			echo "# beside $other other probe: $cmd: gone or refused cleanly" \
				"at each of the $p fault points of its remove"
		done < "$T/rn"
		if [ $other != none ] && ! other_probe remove $other; then
			echo "# the other probe ($other) cannot be removed"
			rc=1
		fi
	done
	ks_expect_end
	reported_since "expect begin: remove nth (kstats_torture $$)" "$BUG_RE" && rc=1
	# The sweep met a disarm whose new filter could not be allocated.
	n=$(dmesg | sed -n "/kstats-selftest: remove nth begin (kstats_torture $$)/,\$p" |
		grep -c "stays in ftrace's filter")
	echo "# disarms of a kprobe on ftrace that met a failed allocation: $n"
	[ "$n" -ge 1 ] || rc=1
	return $rc
}
TRACEFS=/sys/kernel/tracing
[ -e "$TRACEFS/kprobe_events" ] || mount -t tracefs nodev "$TRACEFS" 2>/dev/null
if [ -e "/proc/self/fail-nth" ] && [ -e "$DEBUGFS/failslab/probability" ] &&
   [ -e "$TRACEFS/kprobe_events" ]; then
	ktap_test_result "remove with its Nth allocation failed: gone or refused, no report" \
		remove_nth
else
	ktap_test_skip "remove with its Nth allocation failed (no fail-nth or kprobe_events)"
fi

# -- add with its Nth allocation failed ---------------------------------------
# The add of a kretprobe (trace FUNC) and, with KSTATS_RN_SWEEP=all, of a
# pair of kprobes on ftrace and of an fprobe, with the Nth fault injection
# point of its write failing, N from 1 until the add no longer reaches the
# Nth: each time the add fails and nothing of it is listed, or it
# succeeds, counts every call, and removes. kprobes said it had registered
# a kprobe on ftrace that it could not arm (ftrace had no memory for its
# filter): the trace counted nothing, and its remove found the kprobe
# "kept". The fprobe's sweep starts with the function-graph tracer
# unregistered (kstats_trace's hold of it let go at once): the add
# registers it, and 7.3's fprobe WARNed when that failed.
ktap_print_msg "$(date +%T) add with its Nth allocation failed"
AN_FORMS="trace $F getppid"
[ "${KSTATS_RN_SWEEP:-all}" = check ] ||
	AN_FORMS="$AN_FORMS|trace an start __x64_sys_getpid end $F pair|trace fprobe:$F getppid"
HOLD=/sys/module/kstats_trace/parameters/fgraph_hold_secs
# fgraph_released: kstats_trace holds no fprobe (it holds one on
# kstats_trace_anchor while it has fprobes, and fgraph_hold_secs after).
fgraph_released() { ! grep -q '^kstats_trace_anchor' "$TRACEFS/enabled_functions"; }
add_nth() {
	rc=0
	ks_mark "add nth begin (kstats_torture $$)"
	ks_expect_begin "add nth (kstats_torture $$)"
	inject 0
	echo "$AN_FORMS" | tr '|' '\n' > "$T/an"
	while read -r form; do
		cmd=${form% *}
		name=$(echo "$cmd" | awk '{ print $2 }')
		name=${name#fprobe:}
		hold=""
		case $cmd in
		"trace fprobe:"*)
			hold=$(cat "$HOLD")
			echo 0 > "$HOLD"
			ks_wait_for 60 fgraph_released ||
				{ echo "# $cmd: the hold of fgraph is not let go"; rc=1; } ;;
		esac
		p=$("$H" add-nth "$K" "$name" "${form##* }" "$cmd" < /dev/null)
		r=$?
		[ -z "$hold" ] || echo "$hold" > "$HOLD"
		if [ $r -ne 0 ]; then
			echo "# $p"
			rc=1
			continue
		fi
		echo "# $cmd: made and counting, or refused with nothing left, at each" \
			"of the ${p#points } fault points of its add"
	done < "$T/an"
	ks_expect_end
	reported_since "expect begin: add nth (kstats_torture $$)" "$BUG_RE" && rc=1
	return $rc
}
if [ -e "/proc/self/fail-nth" ] && [ -e "$DEBUGFS/failslab/probability" ]; then
	ktap_test_result "add with its Nth allocation failed: made and counting, or refused" \
		add_nth
else
	ktap_test_skip "add with its Nth allocation failed (no fail-nth)"
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
	# shellcheck disable=SC2086 # a list of pids
	ks_wait_for 60 ks_spinning $pids || echo "# the callers did not start"
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
	# Each CPU's caller ran until the last round: it counted calls, and
	# ended on the signal.
	least=$(cat "$T"/spin.* | awk -v cpus=$((last + 1)) '
		NR == 1 || $2 < m { m = $2 } END { print NR == cpus ? m + 0 : 0 }')
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
ktap_print_msg "kstats_fuzz seed $SEED: KSTATS_SEED=$SEED repeats this run"
# Its lines (the seed first, a summary or the broken rule last) as KTAP
# comments.
fuzz() {
	"$FZ" "$K" "$SEED" "${KSTATS_FUZZ_COUNT:-3000}" > "$T/fuzz.out" 2>&1
	rc=$?
	sed 's/^/# /' "$T/fuzz.out"
	return $rc
}
ktap_test_result "kstats_fuzz seed $SEED: every write accepted or rejected as documented" fuzz

# -- everything at once -------------------------------------------------------
# Each worker runs its job in a loop, RUN seconds and until every worker
# has done the least of each kind of its operations (least): the verdict
# does not depend on how fast the machine is. LATE is only the bound that
# turns a worker that never gets there into a failure.
ktap_print_msg "$(date +%T) everything at once"
WORKERS="trace_same1:trace_same trace_same2:trace_same trace_pairs:trace_pairs"
WORKERS="$WORKERS trace_other:trace_other read:read_all write:write_all"
WORKERS="$WORKERS calls1:calls calls2:calls"
if [ -n "$(find "/lib/modules/$(uname -r)" -name 'kstats_bench.ko*')" ] &&
   [ -n "$(find "/lib/modules/$(uname -r)" -name 'kstats_sample.ko*')" ]; then
	WORKERS="$WORKERS trace_module:trace_module modules:load_modules"
else
	ktap_print_msg "no kstats_bench or kstats_sample module: none loaded, none traced"
fi
[ "$last" -gt 0 ] && [ -w "$CPU/cpu1/online" ] && WORKERS="$WORKERS hotplug:cycle_cpus"
NWORKERS=$(echo $WORKERS | wc -w)
# least WORKER: "KIND N ...": the successes each kind of operation of
# WORKER needs, one at least, more where the operation is cheap.
least() {
	case $1 in
	trace_same* | trace_module) echo trace 1 trace_pcpu 1 trace_fprobe 1 remove 1 ;;
	trace_pairs) echo tpair 1 kpair 1 remove_tpair 1 remove_kpair 1 ;;
	trace_other) echo trace_getpid 1 trace_bits5 1 remove_getpid 1 remove 1 ;;
	read) echo read 20 ;;
	write) echo write 8 ;;
	calls*) echo pairs 3 ;;
	modules) echo load_sample 1 unload_sample 1 load_bench 1 run_bench 1 unload_bench 1 ;;
	hotplug) echo offline 1 online 1 ;;
	esac
}
# short WORKER: the kinds of operation of WORKER below their least, a
# line each.
# trace_same1 and trace_same2 race for one name: their successes count
# together, as which of them wins is the mutex's fairness, not kstats'
# (with adds of 0.8 s under TCG and KASAN, one can lose every race).
short() {
	[ -e "$T/ops.$1" ] || { echo "never ran"; return; }
	case $1 in
	trace_same*) cat "$T"/ops.trace_same* ;;
	*) cat "$T/ops.$1" ;;
	esac | awk -v least="$(least "$1")" '
		BEGIN { n = split(least, l, " ")
			for (i = 1; i < n; i += 2)
				min[l[i]] = l[i + 1] }
		$1 == "ok" { c[$2]++ }
		END { for (k in min)
			if (c[k] + 0 < min[k])
				printf "%s: %d ok, %d wanted\n", k, c[k], min[k] }'
}
all_met() {
	set -- "$T"/met.*
	[ -e "$1" ] && [ $# -ge "$NWORKERS" ]
}
# stopping: the workers stop (the first one to see it tells the others).
stopping() {
	[ -e "$T/stop" ] && return 0
	now=$(date +%s)
	[ "$now" -ge "$LATE" ] || { [ "$now" -ge "$END" ] && all_met; } || return 1
	: > "$T/stop"
}
# worker NAME JOB: runs JOB until the workers stop; each operation of JOB
# (op, tctl) is noted ok or failed in $T/ops.NAME.
# Past RUN seconds, a worker that did its least goes on at a slower pace,
# a pause between rounds: in an emulated kernel, whose every CPU one host
# thread runs, the workers that are still short get the time (no verdict
# depends on how long the pause is).
worker() {
	name=$1
	: > "$T/ops.$name"
	until stopping; do
		"$2"
		if [ -e "$T/met.$name" ]; then
			[ "$(date +%s)" -lt "$END" ] || usleep 500000
		elif [ -z "$(short "$name")" ]; then
			: > "$T/met.$name"
		fi
	done
}
# op KIND CMD...: runs CMD, one operation of kind KIND; its status.
op() {
	k=$1
	shift
	if "$@"; then r=ok; else r=failed; fi
	echo "$r $k" >> "$T/ops.$name"
	[ $r = ok ]
}
# tctl KIND COMMAND: a command to _control: OK, or an error the race
# explains (failed), or any other (failed, and the torture fails).
tctl() {
	r=$("$H" write "$CTL" "$2")
	case $r in
	OK) echo "ok $1" ;;
	EEXIST | ENOENT | ENOSPC) echo "failed $1" ;;
	*) echo "failed $1"; echo "$2: $r" >> "$T/errors" ;;
	esac >> "$T/ops.$name"
}
quiet_cat() { cat "$1" > /dev/null 2>&1; }
write_to() { echo "$2" 2>/dev/null > "$1"; }
trace_same() {
	for m in "" pcpu: fprobe:; do
		tctl "trace${m:+_${m%:}}" "trace $m$F"
		tctl remove "remove $F"
	done
}
trace_pairs() {
	tctl tpair "trace tpair start tp:softirq_entry end tp:softirq_exit bits 0"
	tctl kpair "trace kpair start __x64_sys_getpid end $F bits 8"
	tctl remove_tpair "remove tpair"
	tctl remove_kpair "remove kpair"
}
# A name of its own, in two forms: each of its commands succeeds (trace_same1
# and trace_same2 race for $F, and could take every remove of it from here).
trace_other() {
	tctl trace_getpid "trace fprobe:__x64_sys_getpid"
	tctl remove_getpid "remove __x64_sys_getpid"
	tctl trace_bits5 "trace __x64_sys_getpid bits 5"
	tctl remove "remove __x64_sys_getpid"
}
# kstats_bench is loaded (live: its init is over), or the workers stop.
bench_live() {
	[ -e "$T/stop" ] ||
		{ read -r state 2>/dev/null < /sys/module/kstats_bench/initstate &&
		  [ "$state" = live ]; }
}
# A function of kstats_bench, traced while load_modules loads and unloads
# it: each trace is tried once the module is live, and is detached when
# the module goes, or refused (ENOENT) if it went before. load_modules
# keeps each load of the module (bench.gen) until a trace was tried on it
# (bench.tried), so that a trace is added at least once in a while.
trace_module() {
	for m in "" pcpu: fprobe:; do
		ks_wait_for 60 bench_live
		[ -e "$T/stop" ] && return
		read -r gen 2>/dev/null < "$T/bench.gen"
		tctl "trace${m:+_${m%:}}" "trace ${m}cpus_show"
		echo "$gen" > "$T/bench.tried"
		op read_cpus quiet_cat /sys/kernel/kstats_bench/cpus
		tctl remove "remove cpus_show"
	done
}
# bench_tried GEN: a trace was tried on load GEN of kstats_bench, or the
# workers stop.
bench_tried() {
	[ -e "$T/stop" ] ||
		{ read -r tried 2>/dev/null < "$T/bench.tried" && [ "$tried" = "$1" ]; }
}
read_all() {
	for f in "$K"/*; do
		op read quiet_cat "$f"
	done
}
write_all() {
	for f in "$K"/*; do
		[ "$f" = "$CTL" ] && continue
		for c in start reset stop start; do
			op write write_to "$f" $c
		done
	done
}
calls() { op pairs "$H" pair 2000; }
run_bench() {
	echo memcpy > /sys/kernel/kstats_bench/target &&
		echo 1000 > /sys/kernel/kstats_bench/loops &&
		echo 0 > /sys/kernel/kstats_bench/cpus &&
		cat /sys/kernel/kstats_bench/run > /dev/null
}
load_modules() {
	op load_sample modprobe kstats_sample
	# Pacing: the sample records a moment before it goes (no verdict
	# depends on how long).
	usleep 300000
	op unload_sample rmmod kstats_sample
	if op load_bench modprobe kstats_bench; then
		gen=$((gen + 1))
		echo $gen > "$T/bench.gen"
		op run_bench run_bench
		ks_wait_for 60 bench_tried $gen
	fi
	op unload_bench rmmod kstats_bench
}
cpu_online() { echo "$2" 2>/dev/null > "$CPU/cpu$1/online"; }
cycle_cpus() {
	for c in $(seq 1 "$last"); do
		op offline cpu_online "$c" 0
		# Pacing: the CPU stays offline a moment (no verdict depends
		# on how long).
		usleep 100000
		op online cpu_online "$c" 1
	done
}
torture() {
	t0=$(date +%s)
	END=$((t0 + RUN))
	LATE=$((END + 300))
	rm -f "$T"/ops.* "$T"/met.* "$T/stop" "$T"/bench.*
	for w in $WORKERS; do
		worker "${w%%:*}" "${w#*:}" &
	done
	wait
	# The CPUs that cycle_cpus took offline, and only those, back online.
	for c in $(seq 1 "$last"); do
		[ -w "$CPU/cpu$c/online" ] && echo 1 > "$CPU/cpu$c/online"
	done
	ktap_print_msg "torture: $RUN s asked, $(($(date +%s) - t0)) s run on $(nproc) CPUs"
	bad=0
	for w in $WORKERS; do
		w=${w%%:*}
		met=never
		[ -e "$T/met.$w" ] && met="after $(($(stat -c %Y "$T/met.$w") - t0)) s"
		ktap_print_msg "worker $w: $(grep -c '^ok ' "$T/ops.$w") ok," \
			"$(grep -c '^failed ' "$T/ops.$w") failed, its least done $met"
		short "$w" > "$T/short"
		[ -s "$T/short" ] || continue
		sed "s/^/# worker $w: too few: /" "$T/short"
		bad=1
	done
	[ ! -s "$T/errors" ] || {
		sort "$T/errors" | uniq -c | sed 's/^/# unexpected: /'
		bad=1
	}
	[ $bad -eq 0 ]
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

# No report since the torture began: KS_REPORT_RE, but between "expect
# begin" and "expect end" (the fault injection's failed allocations, with
# their stack dumps) only BUG_RE.
log_clean() {
	dmesg | awk -v m="kstats-selftest: $BEGIN_MARK" -v all="$KS_REPORT_RE" \
		    -v bug="$BUG_RE" '
		index($0, m) { seen = 1; n = 0; expect = 0; next }
		!seen { next }
		index($0, "kstats-selftest: expect begin") { expect = 1; next }
		index($0, "kstats-selftest: expect end") { expect = 0; next }
		$0 ~ (expect ? bug : all) { hit[++n] = $0 }
		END {
			if (!seen)
				print "# mark \"" m "\" is not in the log any more"
			for (i = 1; i <= n; i++)
				print "# " hit[i]
			exit n || !seen
		}'
}
clean() {
	r=0
	log_clean || r=1
	ks_kmemleak_check || r=1
	return $r
}
ktap_test_result "no kernel report in dmesg, no leak found by kmemleak" clean
ktap_finished
