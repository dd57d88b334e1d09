#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM for `make bench-peers`, on Debian's kernel: what a caller
# of getppid() pays per call while each tool collects the latency
# distribution of __x64_sys_getppid, the same loop of CALLS calls on CPU 0
# for every case, the tools on CPU 1, the rounds interleaving the cases:
#  untraced        nothing attached
#  kstats          trace F           (kretprobe)
#  kstats_pcpu     trace pcpu:F      (kretprobe, entry time per CPU)
#  kstats_fprobe   trace fprobe:F    (fprobe)
#  bpftrace_kprobe bpftrace -c LOOP, kprobe and kretprobe,
#                  hist(nsecs - @start[tid])
#  bpftrace_k3     the same with hist(n, 3), where bpftrace has it
#  bpftrace_kfunc  bpftrace, kfunc and kretfunc (fentry/fexit, BTF), on
#                  the name ftrace lists, the one bpftrace offers
#  funclatency     libbpf-tools' funclatency (kprobes: Debian 12's has no
#                  switch to fentry/fexit, so there is no case of that)
#  perf_ftrace     perf ftrace latency -a -n -T F -- LOOP (function_graph; F by
#                  the name ftrace lists, which perf needs), which reads
#                  every call's events from trace_pipe: with a ring buffer
#                  of PERF_BUFFER_KB per CPU, set beforehand, so that none
#                  is lost (Debian's perf 6.1 has no -m for latency)
#  perf_ftrace_bpf the same with -b, where perf was built with BPF skeletons
#  fprobe_hist     fprobe events f:F and f:F%return, a synthetic event of
#                  their time difference and a log2 hist trigger on it
#  kprobe_hist     the same with kprobe events p:F and r:F
# and, while every syscall (the glob G) is timed, a distribution per
# function, the cost of one of them (F):
#  kstats_glob     trace fprobe:GF as NAME (one fprobe, a metric each)
#  bpftrace_glob   bpftrace, kprobe and kretprobe on GF (kprobe_multi,
#                  which takes ftrace's names too),
#                  @[@fn[tid]] = hist(nsecs - @start[tid]), the function
#                  kept at entry (func, in a kretprobe of bpftrace 0.17,
#                  is the caller)
#  bcc_glob        BCC's funclatency -F G (a kprobe pair per function),
#                  with Debian's bpfcc-tools; not by default: it compiles
#                  its program with LLVM in the guest, and under TCG it had
#                  not attached after 300 s (CASES="bcc_glob" runs it)
#  perf_profile    perf ftrace profile -G GF (function_graph), where perf
#                  has it
# GF is __*sys_*: ftrace names some syscalls by an alias (getppid() is
# __do_sys_getppid there), so that __x64_sys_* leaves them out of ftrace's
# filter and of bpftrace's kprobe_multi, which both take ftrace's names; G,
# __x64_sys_*, is for the tools that attach a kprobe per kallsyms name.
# A case counts only if its tool reports exactly CALLS calls in every
# round: proof that it was attached to the calls measured (untraced: the
# loop's own count; kstats: the count tools/kstats prints, its missed calls
# from _control beside it). The peers come from the host's tree, mounted
# read-only on /host; tools/kstats is /root/kstats.
set -eu
H=/root/kstats_helper
F=__x64_sys_getppid
CTL=/sys/kernel/debug/kstats/_control
T=/sys/kernel/tracing
R=/host
OUT=/tmp/peers
CALLS=${CALLS:-100000}
ROUNDS=${ROUNDS:-3}
# ns, or insn when qemu counts instructions as nanoseconds (-icount).
UNIT=${UNIT:-ns}
CASES=${CASES:-"untraced kstats kstats_pcpu kstats_fprobe bpftrace_kprobe bpftrace_k3 bpftrace_kfunc funclatency perf_ftrace perf_ftrace_bpf fprobe_hist kprobe_hist kstats_glob bpftrace_glob perf_profile"}
G='__x64_sys_*'
GF='__*sys_*'


PERF_BUFFER_KB=${PERF_BUFFER_KB:-32768}

modprobe kstats_trace
modprobe 9pnet_virtio
modprobe 9p
mkdir -p $R $OUT
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 hostroot $R
mount -t tracefs nodev $T
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t devtmpfs devtmpfs $R/dev
# bpftrace 0.27 writes what it builds to /dev/fd/N.
[ -e $R/dev/fd ] || ln -s /proc/self/fd $R/dev/fd
# libbpf-tools' funclatency: funclatency-libbpf since 0.37.
FUNCLATENCY=/usr/sbin/funclatency
[ -x $R$FUNCLATENCY ] || FUNCLATENCY=/usr/sbin/funclatency-libbpf
mount -t tmpfs tmpfs $R/tmp
mount -t tracefs nodev $R/sys/kernel/tracing
mount -t debugfs nodev $R/sys/kernel/debug
# In the host's tree, for the tools that run the loop themselves.
cp $H $R/tmp/
in_host() { chroot $R /usr/bin/env -i PATH=/usr/sbin:/usr/bin HOME=/tmp "$@"; }

# The name ftrace gives F, as enabled_functions lists it and fprobe events
# take it: one of F's aliases (__do_sys_getppid); with IBT, ftrace's
# address is that of the call after the endbr64.
addr=$(awk -v f="$F" '$3 == f { print $1 }' /proc/kallsyms)
FA=$(awk -v a="$addr" '$1 == a { print $3 }' /proc/kallsyms |
	while read -r n; do grep -qx "$n" "$T/available_filter_functions" && echo "$n"; done |
	head -n 1)
[ -n "$FA" ] || { echo "ftrace lists no alias of $F"; exit 1; }

# "7 (expanded: 1408)" until the ring buffer is first used.
DEFAULT_BUFFER_KB=$(sed "s/.*expanded: \([0-9]*\).*/\1/" $T/buffer_size_kb)

ctl() { [ "$("$H" write "$CTL" "$1")" = OK ] || { echo "failed: $1"; return 1; }; }

# Whether a case can run here, or why not (printed once).
why_not() {
	case $1 in
	bpftrace_k3)
		in_host bpftrace -e 'BEGIN { @h = hist(1, 3); exit(); }' >/dev/null 2>&1 ||
			echo "bpftrace $(in_host bpftrace --version | awk '{ print $2 }') has no hist(n, k)" ;;
	bpftrace_kfunc)
		[ -e /sys/kernel/btf/vmlinux ] || echo "no BTF in this kernel" ;;
	perf_ftrace_bpf)
		in_host perf ftrace latency -h 2>&1 | grep -q -- --use-bpf ||
			echo "perf $(in_host perf version | awk '{ print $3 }') was built without BPF skeletons (no -b)" ;;
	bcc_glob)
		[ -x $R/usr/sbin/funclatency-bpfcc ] ||
			echo "no BCC funclatency (Debian's bpfcc-tools is not installed)" ;;
	perf_profile)
		in_host perf ftrace profile -h > /dev/null 2>&1 ||
			echo "perf $(in_host perf version | awk '{ print $3 }') has no ftrace profile" ;;
	esac
}

BT_K='kprobe:F { @start[tid] = nsecs; }
kretprobe:F /@start[tid]/ { @ns = HIST; delete(@start[tid]); }
END { clear(@start); }'
BT_F='kfunc:F { @start[tid] = nsecs; }
kretfunc:F /@start[tid]/ { @ns = HIST; delete(@start[tid]); }
END { clear(@start); }'
# events_teardown TYPE: remove the hist triggers and the probe events of
# TYPE (kprobes or fprobes), whatever was set up; errors are expected.
events_teardown() {
	hist_teardown "$1" 2>/dev/null
	echo "-:$1/kstats_peers_exit" >> $T/dynamic_events 2>/dev/null
	echo "-:$1/kstats_peers_entry" >> $T/dynamic_events 2>/dev/null
	return 0
}

# bt SCRIPT FUNCTION HIST: a bpftrace script.
bt() { echo "$1" | sed "s/:F /:$2 /; s/HIST/$3/"; }

# hist_setup TYPE ENTRY EXIT: the kernel's latency histogram as
# Documentation/trace/histogram.rst builds it, on probe events of TYPE.
hist_setup() {
	echo "kstats_peers_lat u64 lat" >> $T/synthetic_events &&
	echo 'hist:keys=common_pid:ts0=common_timestamp' > "$T/events/$1/kstats_peers_entry/trigger" &&
	echo "hist:keys=common_pid:lat=common_timestamp-\$ts0:onmatch($1.kstats_peers_entry).trace(kstats_peers_lat,\$lat)" \
		> "$T/events/$1/kstats_peers_exit/trigger" &&
	echo 'hist:keys=lat.log2' > $T/events/synthetic/kstats_peers_lat/trigger
}
hist_teardown() {
	echo '!hist:keys=lat.log2' > $T/events/synthetic/kstats_peers_lat/trigger
	echo "!hist:keys=common_pid:lat=common_timestamp-\$ts0:onmatch($1.kstats_peers_entry).trace(kstats_peers_lat,\$lat)" \
		> "$T/events/$1/kstats_peers_exit/trigger"
	echo '!hist:keys=common_pid:ts0=common_timestamp' > "$T/events/$1/kstats_peers_entry/trigger"
	echo "!kstats_peers_lat u64 lat" >> $T/synthetic_events
}

# show FILE: a tool's output, indented, its warnings not taken for the
# kernel's by harness/vm.sh.
show() { sed 's/^/  | /; s/WARNING/Warning/' "$1"; }

# start CASE: attach CASE's tool; a tool that keeps running is left in
# the background (its pid in $tool), its output in $OUT/CASE. bpftrace
# and perf run the loop themselves (loop, below). Called as `start ||`,
# which turns set -e off: each step is checked.
tool=
start() {
	: > "$OUT/$1"
	if grep -q "^$FA " $T/enabled_functions; then
		echo "$1: $FA is still traced by the case before:"
		cat $T/enabled_functions
		return 1
	fi
	case $1 in
	untraced) ;;
	kstats) ctl "trace $F" || return 1 ;;
	kstats_pcpu) ctl "trace pcpu:$F" || return 1 ;;
	kstats_fprobe) ctl "trace fprobe:$F" || return 1 ;;
	kstats_glob)
		echo 4000 > /sys/module/kstats_trace/parameters/max_functions
		ctl "trace fprobe:$GF as peers_glob" || return 1 ;;
	bpftrace_glob)
		printf '%s\n' "kprobe:$GF { @start[tid] = nsecs; @fn[tid] = func; }" \
			"kretprobe:$GF /@start[tid]/ { @[@fn[tid]] = hist(nsecs - @start[tid]);" \
			"delete(@start[tid]); delete(@fn[tid]); }" \
			"END { clear(@start); clear(@fn); }" > $R/tmp/bt ;;
	# By ftrace's name: bpftrace 0.27 takes no kprobe on another alias.
	bpftrace_kprobe) bt "$BT_K" "$FA" 'hist(nsecs - @start[tid])' > $R/tmp/bt ;;
	bpftrace_k3) bt "$BT_K" "$FA" 'hist(nsecs - @start[tid], 3)' > $R/tmp/bt ;;
	bpftrace_kfunc) bt "$BT_F" "$FA" 'hist(nsecs - @start[tid])' > $R/tmp/bt ;;
	fprobe_hist)
		echo "f:kstats_peers_entry $FA" >> $T/dynamic_events &&
			echo "f:kstats_peers_exit $FA%return" >> $T/dynamic_events &&
			hist_setup fprobes ||
			{ echo "$1: the events cannot be set up"; events_teardown fprobes; return 1; } ;;
	kprobe_hist)
		echo "p:kstats_peers_entry $F" >> $T/kprobe_events &&
			echo "r:kstats_peers_exit $F" >> $T/kprobe_events &&
			hist_setup kprobes ||
			{ echo "$1: the events cannot be set up"; events_teardown kprobes; return 1; } ;;
	esac
	case $1 in
	funclatency*) taskset 2 chroot $R $FUNCLATENCY -T "$F" > "$OUT/$1" 2>&1 & tool=$! ;;
	bcc_glob)
		taskset 2 chroot $R /usr/sbin/funclatency-bpfcc -F "$G" > "$OUT/$1" 2>&1 &
		tool=$! ;;
	*) return 0 ;;
	esac
	# Attached when ftrace lists the function, and a second more for the
	# return probe; the count of calls is the proof.
	i=0
	until grep -q "^$FA " $T/enabled_functions; do
		kill -0 $tool 2>/dev/null || { echo "$1 exited:"; show "$OUT/$1"; return 1; }
		if [ $i -ge 600 ]; then
			echo "$1: not attached after 300 s:"
			kill -KILL $tool
			wait $tool || true
			show "$OUT/$1"
			return 1
		fi
		sleep 0.5
		i=$((i + 1))
	done
	sleep 1
}

# stop CASE: detach, and print the number of calls CASE's tool counted
# (not in a subshell: it waits for the tool); messages go to stderr.
stop() {
	case $1 in
	untraced) awk '$1 == "calls" { print $2 }' "$OUT/$1.loop" ;;
	kstats_glob)
		awk '$1 == "name" && $2 == "peers_glob" {
			for (i = 3; i < NF; i += 2) if ($i == "missed") print "missed", $(i + 1) }' $CTL >&2
		/root/kstats /sys/kernel/debug/kstats/peers_glob/"$FA" | awk '$1 == "count" { print $2 }'
		ctl "remove peers_glob" ;;
	kstats*)
		awk -v n="$F" '$1 == "name" && $2 == n {
			for (i = 3; i < NF; i += 2) if ($i == "missed") print "missed", $(i + 1) }' $CTL >&2
		/root/kstats "$F" | awk '$1 == "count" { print $2 }'
		ctl "remove $F" ;;
	# @[FUNC]: then its rows, up to a blank line.
	bpftrace_glob)
		awk -v f="@[$F]:" -v fa="@[$FA]:" '$1 == f || $1 == fa { on = 1; next } /^$/ { on = 0 }
			on && /^\[/ { sub(/^\[[^]]*[])]/, ""); n += $1 } END { print n + 0 }' "$OUT/$1" ;;
	# [4, 8)   12 |@@@@ |, and [0], [1] for single values.
	bpftrace_*) awk '/^\[/ { sub(/^\[[^]]*[])]/, ""); n += $1 } END { print n + 0 }' "$OUT/$1" ;;
	perf_ftrace*)
		awk -F'|' '!/^#/ && NF >= 3 { n += $2 } END { print n + 0 }' "$OUT/$1"
		echo "$DEFAULT_BUFFER_KB" > $T/buffer_size_kb ;;
	funclatency* | bcc_glob)
		# SIGINT, as a user stops them. A tool still running 2 minutes
		# later is shown (its state and kernel stacks) and killed, and
		# its case fails.
		kill -INT $tool 2>/dev/null || echo "$1 exited before the end" >&2
		(
			trap 'kill $s 2>/dev/null; exit 0' TERM
			sleep 120 &
			s=$!
			wait $s
			kill -0 $tool 2>/dev/null || exit 0
			echo "$1 still runs 2 minutes after SIGINT:" >&2
			grep -E '^(State|SigIgn|SigCgt):' /proc/$tool/status >&2
			for t in /proc/$tool/task/*; do
				echo "task ${t##*/} $(cat $t/comm): $(cat $t/wchan)" >&2
				cat $t/stack >&2
			done
			kill -KILL $tool
		) &
		watchdog=$!
		wait $tool || true
		kill $watchdog 2>/dev/null || true
		wait $watchdog 2>/dev/null || true
		# 256 -> 511   : 12   |****   |, under "Function = F" with -F.
		if [ "$1" = bcc_glob ]; then
			awk -v f="$F" '$1 == "Function" { on = ($3 == f) }
				on && $2 == "->" && $4 == ":" { n += $5 } END { print n + 0 }' "$OUT/$1"
		else
			awk '$2 == "->" && $4 == ":" { n += $5 } END { print n + 0 }' "$OUT/$1"
		fi ;;
	perf_profile)
		awk -v f="$FA" '$NF == f { print $(NF - 1); found = 1 } END { if (!found) print 0 }' \
			"$OUT/$1"
		echo "$DEFAULT_BUFFER_KB" > $T/buffer_size_kb ;;
	fprobe_hist | kprobe_hist)
		awk '$1 == "Hits:" { print $2; exit }' $T/events/synthetic/kstats_peers_lat/hist
		t=kprobes
		[ "$1" = fprobe_hist ] && t=fprobes
		events_teardown $t ;;
	esac
}

# loop CASE: the loop of getppid() calls on CPU 0; bpftrace and perf run
# it as their command (-c, --): they start it once every probe is
# attached, and print their histogram when it ends, in $OUT/CASE.
LOOP="/usr/bin/taskset 1 /tmp/kstats_helper getppid $CALLS"
loop() {
	case $1 in
	bpftrace_*)
		timeout 600 taskset 2 chroot $R /usr/bin/bpftrace -c "$LOOP" /tmp/bt > "$OUT/$1" 2>&1 ;;
	perf_ftrace)
		echo "$PERF_BUFFER_KB" > $T/buffer_size_kb
		timeout 600 taskset 2 chroot $R /usr/bin/perf ftrace latency -a -n -T "$FA" -- $LOOP \
			> "$OUT/$1" 2>&1 ;;
	perf_ftrace_bpf)
		echo "$PERF_BUFFER_KB" > $T/buffer_size_kb
		timeout 600 taskset 2 chroot $R /usr/bin/perf ftrace latency -b -a -n -T "$FA" -- $LOOP \
			> "$OUT/$1" 2>&1 ;;
	perf_profile)
		echo "$PERF_BUFFER_KB" > $T/buffer_size_kb
		timeout 600 taskset 2 chroot $R /usr/bin/perf ftrace profile -a -G "$GF" -- $LOOP \
			> "$OUT/$1" 2>&1 ;;
	*)
		# Its own file: funclatency writes to $OUT/CASE at its own offset.
		taskset 1 "$H" getppid "$CALLS" > "$OUT/$1.loop"
		awk '$1 == "calls" && $3 == "ns_per_call" { print $4 }' "$OUT/$1.loop"
		return ;;
	esac
	awk '$1 == "calls" && $3 == "ns_per_call" { print $4 }' "$OUT/$1"
}

echo "bench-peers: kernel $(uname -r), $(nproc) CPUs; $CALLS getppid() per case and round, $ROUNDS rounds"
if [ "$UNIT" = insn ]; then
	echo "bench-peers: instructions added to a call (qemu counts them), median of the rounds;" \
		"ratio: to kstats_fprobe's"
else
	echo "bench-peers: emulated time (qemu TCG) added to a call, median of the rounds;" \
		"read the ratios (to kstats_fprobe's), not the ns"
fi
echo "bench-peers: one host thread runs every vCPU: work a tool does on CPU 1 while" \
	"the loop runs on CPU 0 is counted too"
echo "version kstats $KSTATS_VERSION"
echo "function $F, listed by ftrace as $FA"
echo "version $(in_host bpftrace --version)"
echo "version funclatency $(in_host dpkg-query -W -f '${Version}' libbpf-tools) (libbpf-tools)"
echo "version $(in_host perf version)"
run=
for c in $CASES; do
	w=$(why_not "$c")
	if [ -n "$w" ]; then
		echo "case $c skipped: $w"
	else
		run="$run $c"
	fi
done
: > $OUT/rounds
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for c in $run; do
		# A case that cannot attach is left out; the others go on.
		if ! start "$c"; then
			echo "round $r case $c: not attached"
			echo "$c 0 not-attached" >> $OUT/rounds
			continue
		fi
		ns=$(loop "$c" | tail -n 1)
		stop "$c" > $OUT/count 2> $OUT/count.err
		n=$(tail -n 1 $OUT/count)
		echo "round $r case $c $UNIT $ns calls $n$(sed 's/^/, /' $OUT/count.err | tr -d '\n')"
		[ "$n" = "$CALLS" ] || show "$OUT/$c"
		# A tool that ran no loop (bpftrace or perf failing to attach)
		# has no time: "none", and the case is left out.
		echo "$c ${ns:-none} ${n:-none}" >> $OUT/rounds
	done
	r=$((r + 1))
done

# The median of the rounds; a case whose tool missed or added calls in
# any round does not count.
for c in $run; do
	awk -v c="$c" -v n="$CALLS" '$1 == c {
			if ($2 ~ /^[0-9]+(\.[0-9]*)?$/) print $2; else bad = bad " no-loop"
			if ($3 != n) bad = bad " " $3 }
		END { if (bad != "") print "bad" bad }' $OUT/rounds | sort -n |
		awk -v c="$c" '/^bad/ { bad = $0; next } { v[++k] = $1 }
			END { if (!k) { v[1] = 0; k = 1 }
			      print c, v[int((k + 1) / 2)], v[1], v[k], bad }'
done | awk -v calls="$CALLS" -v unit="$UNIT" '{ c[NR] = $1; v[NR] = $2; lo[NR] = $3; hi[NR] = $4
		bad[NR] = ""; for (j = 6; j <= NF; j++) bad[NR] = bad[NR] " " $j }
	$1 == "untraced" && bad[NR] == "" { base = $2; have_base = 1 }
	$1 == "kstats_fprobe" && bad[NR] == "" { ref = $2; have_ref = 1 }
	END {
		if (!have_base)
			print "bench-peers: no untraced case that counted its calls: no costs"
		for (i = 1; i <= NR; i++) {
			if (bad[i] != "") {
				printf "case %-18s did not count %d calls in every round (other counts:%s): left out\n",
					c[i], calls, bad[i]
				continue
			}
			if (!have_base)
				continue
			printf "case %-18s %s %7.1f ratio %5s   (rounds: %.1f to %.1f)%s\n",
				c[i], unit, v[i] - base,
				(have_ref && ref > base ? sprintf("%.2f", (v[i] - base) / (ref - base)) : "n/a"),
				lo[i] - base, hi[i] - base,
				(c[i] == "untraced" ? sprintf(" (the call itself: %.1f %s)", base, unit) : "")
		}
	}'
