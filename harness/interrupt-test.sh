#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/interrupt-test.sh
#
# make check stops everything it started when it is interrupted: starts
# make check in a clone of this tree, with a cache of its own (a
# hard-linked copy of the extracted source, so that the debug kernel's
# build starts at once), sends SIGINT to its process group, as Ctrl-C
# does, once that build compiles, and checks that no process it started
# runs 10 seconds later; then the same of make vm-run once its qemu runs.
# Every process of each carries KSTATS_INTERRUPT_TEST in its environment:
# that is how they are found. Two PASS/FAIL lines.
set -u
. "$(dirname "$0")/lib.sh"
set_paths
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kstats-interrupt.XXXXXX")
token=$(basename "$tmp")
trap 'rm -rf "$tmp"' EXIT

# procs: the processes of the interrupted make check, as "PID comm".
procs() {
	local e p vars
	for e in /proc/[0-9]*/environ; do
		p=${e#/proc/}
		p=${p%/environ}
		mapfile -d '' vars 2>/dev/null < "$e" || continue
		[[ " ${vars[*]} " == *" KSTATS_INTERRUPT_TEST=$token "* ]] || continue
		echo "$p $(cat "/proc/$p/comm" 2>/dev/null)"
	done
}
# wait_until SECONDS CMD...: CMD every 0.2 s until it succeeds, at most
# SECONDS.
wait_until() {
	local i n=$(($1 * 5))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}
compiling() { procs | grep -qE ' (cc1|gcc)$'; }
gone() { [ -z "$(procs)" ]; }

git clone -q "$TOP" "$tmp/clone" || { fail "make check interrupted: git clone"; exit 1; }
# The clone's uncommitted changes too: it tests this tree.
(cd "$TOP" && git ls-files --modified --others --exclude-standard -z) |
	(cd "$TOP" && xargs -0 -r cp --parents -t "$tmp/clone") 2>/dev/null
v=$(basename "$WORK")
mkdir -p "$tmp/cache/$v/linux"
for f in "$SRC"/* "$SRC"/.[!.]*; do
	case ${f##*/} in build-*) continue ;; esac
	cp -al "$f" "$tmp/cache/$v/linux/"
done
cp -a "$ORIG" "$tmp/cache/$v/orig"
touch "$tmp/cache/.apt-updated"

# interrupt TEST READY LOG MAKE_ARGS...: make MAKE_ARGS in a session of its
# own, every process of it marked with $token; SIGINT to its process
# group, as Ctrl-C sends it, once READY holds; PASS if nothing of it runs
# 10 s later.
rc=0
interrupt() {
	local t=$1 ready=$2 log=$3 pid
	shift 3
	# SIGINT as a terminal's foreground job has it: run from make check,
	# this script is a background job, which ignores it.
	(KSTATS_INTERRUPT_TEST=$token exec env --default-signal=INT setsid make "$@" \
		> "$log" 2>&1) &
	pid=$!
	if ! wait_until 600 "$ready"; then
		tail -n 20 "$log"
		fail "$t: not interrupted ($ready never held)"
		rc=1
	else
		kill -INT -- -"$pid"
		if wait_until 10 gone; then
			pass "$t"
		else
			echo "still running:"
			procs | head -n 20
			fail "$t"
			rc=1
		fi
	fi
	kill -KILL $(procs | cut -d' ' -f1) 2>/dev/null
	wait "$pid"
}

interrupt "make check interrupted (SIGINT) during the build stops every process it started within 10 s" \
	compiling "$tmp/check.log" -C "$tmp/clone" check KSTATS_CACHE="$tmp/cache"

# The same for a VM, whose qemu runs in a process group of its own
# (timeout's): make vm-run, interrupted once qemu runs the guest.
booting() { procs | grep -q ' qemu-system-x86$'; }
echo 'sleep 600' > "$tmp/sleeper.sh"
token=$token.vm
interrupt "make vm-run interrupted (SIGINT) while its guest runs stops qemu within 10 s" \
	booting "$tmp/vm-run.log" -C "$TOP" vm-run SCRIPT="$tmp/sleeper.sh" VM_FLAVOR=debug VM_CPUS=1
exit $rc
