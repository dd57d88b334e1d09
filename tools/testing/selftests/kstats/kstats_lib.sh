# SPDX-License-Identifier: GPL-2.0
#
# Common start of the kstats selftests: KTAP helpers, the debugfs mount in
# $DEBUGFS, and a skip (exit 4) without root or debugfs. Sourced.

for h in "$DIR/ktap_helpers.sh" "$DIR/../kselftest/ktap_helpers.sh"; do
	[ -f "$h" ] && . "$h" && break
done
[ -n "${KSFT_SKIP:-}" ] || { echo "ktap_helpers.sh not found"; exit 4; }

DEBUGFS=$(awk '$3 == "debugfs" { print $2; exit }' /proc/mounts)

ktap_print_header
[ "$(id -u)" -eq 0 ] || { ktap_skip_all "must be run as root"; exit "$KSFT_SKIP"; }
[ -n "$DEBUGFS" ] || { ktap_skip_all "debugfs is not mounted"; exit "$KSFT_SKIP"; }

# What the kernel's detectors print first when they report a problem:
# KASAN, UBSAN, lockdep, a WARN, a BUG, an oops, a hung task, an RCU
# stall, a leak found by kmemleak. At the start of a message, after the
# bracketed prefixes of dmesg (time, caller), as the harness's
# kreports.awk has it: "RETBleed: WARNING: Spectre v2 mitigation..." at
# boot is not a report. No backslash: awk -v would rewrite it.
KS_REPORT_RE='BUG:|WARNING:|INFO:|Oops|general protection|Call Trace:|KASAN:|UBSAN:'
KS_REPORT_RE="$KS_REPORT_RE|Kernel panic|turning off the locking correctness validator"
KS_REPORT_RE="$KS_REPORT_RE|kstats-selftest: kmemleak:"
KS_REPORT_RE="^([[][^]]*[]] *)*($KS_REPORT_RE)"

# ks_mark TEXT: a line "kstats-selftest: TEXT" in the kernel's log. Tests
# mark where they start instead of clearing the log: the harness reads the
# whole boot's log, and a report must not be thrown away unread.
ks_mark() { echo "kstats-selftest: $*" > /dev/kmsg; }

# ks_no_reports_since TEXT: true if the kernel logged no report after the
# mark TEXT (ks_mark); prints the reports otherwise, and fails if the mark
# is gone from the log (it wrapped: what followed cannot be checked).
ks_no_reports_since() {
	dmesg > "${TMPDIR:-/tmp}/ks_dmesg.$$"
	if ! grep -qF "kstats-selftest: $1" "${TMPDIR:-/tmp}/ks_dmesg.$$"; then
		echo "# mark '$1' is not in the kernel's log any more"
		rm -f "${TMPDIR:-/tmp}/ks_dmesg.$$"
		return 1
	fi
	awk -v m="kstats-selftest: $1" 'index($0, m) { on = 1; next } on' \
		"${TMPDIR:-/tmp}/ks_dmesg.$$" | grep -E "$KS_REPORT_RE" | sed 's/^/# /' |
		grep . && { rm -f "${TMPDIR:-/tmp}/ks_dmesg.$$"; return 1; }
	rm -f "${TMPDIR:-/tmp}/ks_dmesg.$$"
	return 0
}

# ks_send_go SECONDS FIFO PID: a line to FIFO for PID, which waits to read
# it. Fails after SECONDS with no reader (a bound for a hung test, not a
# timing), says what PID was doing, and kills it: the test fails instead
# of blocking the rest of the run.
ks_send_go() {
	timeout "$1" sh -c 'echo go > "$1"' sh "$2" && return 0
	echo "# no reader of $2 in $1 s: pid $3 in state" \
		"$(cut -d' ' -f3 "/proc/$3/stat" 2>/dev/null || echo gone)," \
		"wchan $(cat "/proc/$3/wchan" 2>/dev/null)," \
		"$(tr '\0' ' ' < "/proc/$3/cmdline" 2>/dev/null)"
	kill -9 "$3" 2>/dev/null
	return 1
}

# ks_wait_for SECONDS CMD...: run CMD every 0.1 s until it succeeds; fails
# after SECONDS since the call, however long CMD takes (a bound for a hung
# test, not a timing: callers wait for a condition, and a slow machine
# only waits longer).
ks_wait_for() {
	local end=$(($(ks_uptime_ms) + $1 * 1000))
	shift
	until "$@"; do
		[ "$(ks_uptime_ms)" -lt $end ] || return 1
		sleep 0.1
	done
}

# ks_spinning PID...: each kstats_helper spin is in its loop, with SIGTERM
# blocked: the signal then ends the loop, and the count is printed.
ks_spinning() {
	for p; do
		awk '/^Name:/ { n = $2 } /^SigBlk:/ { b = substr($2, length($2) - 3) }
		     END { print n, b }' "/proc/$p/status" 2>/dev/null | {
			read -r name blk
			[ "$name" = kstats_helper ] && [ $((0x${blk:-0} & 0x4000)) -ne 0 ]
		} || return 1
	done
}

# ks_fprobe_on_fgraph: fprobe runs on the function-graph tracer here (6.14
# and later), where kstats_trace refuses a kprobe and an fprobe on one
# function (they crash the kernel when either comes or goes).
ks_fprobe_on_fgraph() {
	awk -F. '{ exit !($1 > 6 || ($1 == 6 && $2 + 0 >= 14)) }' /proc/sys/kernel/osrelease
}

# ks_in_pause PID: PID is in pause(), the system call (x86_64's 34).
ks_in_pause() { [ "$(cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null)" = 34 ]; }

# ks_uptime_ms: the time since boot in milliseconds.
ks_uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# ks_kmemleak_check [SINCE]: the leaks that kmemleak finds in
# objects allocated by kstats code (a "kstats" frame in the allocation's
# backtrace): printed, a line each in the kernel's log ("kstats-selftest:
# kmemleak: ..."), and a failure. kmemleak reports only objects older than
# 5 s at the start of a scan (MSECS_MIN_AGE): the scan waits until
# everything allocated before SINCE (ks_uptime_ms; default now) is that
# old, then runs twice (an object is reported once its checksum is the same
# in two scans; the second one also drops objects whose only reference was
# in flight during the first). True when kmemleak is not there.
ks_kmemleak_check() {
	local km=$DEBUGFS/kmemleak t leaks
	[ -e "$km" ] || return 0
	t=$((${1:-$(ks_uptime_ms)} + 5100))
	ks_wait_for 60 sh -c "[ \$(awk '{ printf \"%d\", \$1 * 1000 }' /proc/uptime) -ge $t ]" ||
		return 1
	echo scan > "$km" && echo scan > "$km" || return 1
	# "unreferenced object ADDR (size N):", then after "  backtrace
	# (crc X):" a frame a line, as "    FUNC+OFF/SIZE [MODULE]".
	leaks=$(awk '/^unreferenced object/ { if (obj && ks) print obj ": " ks
			obj = $3; ks = ""; bt = 0; next }
		/^  backtrace/ { bt = 1; next }
		bt && /^    [^ ]/ && /kstats/ && !ks { ks = $1 " " $2 }
		END { if (obj && ks) print obj ": " ks }' "$km")
	[ -z "$leaks" ] && return 0
	echo "$leaks" | while read -r l; do
		echo "# kmemleak: unreferenced object $l"
		ks_mark "kmemleak: unreferenced object $l"
	done
	return 1
}

# ks_expect_begin WHAT, ks_expect_end: between the two, the stack dumps of
# failed allocations (fault injection's "FAULT_INJECTION: forcing a
# failure", warn_alloc's "page allocation failure") are expected, and the
# harness does not count them as reports; every other report still counts.
ks_expect_begin() { ks_mark "expect begin: $*"; }
ks_expect_end() { ks_mark "expect end"; }
