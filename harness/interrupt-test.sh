#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/interrupt-test.sh
#
# make check stops everything it started when it is interrupted: starts
# make check in a clone of this tree, with a cache of its own (a
# hard-linked copy of the extracted source, so that the debug kernel's
# build starts at once), sends SIGINT to its process group, as Ctrl-C
# does, once that build compiles, and checks that no process it started
# runs 10 seconds later. Every process of that make check carries
# KSTATS_INTERRUPT_TEST in its environment: that is how they are found.
# One PASS/FAIL line.
set -u
. "$(dirname "$0")/lib.sh"
set_paths
T="make check interrupted (SIGINT) during the build stops every process it started within 10 s"
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

git clone -q "$TOP" "$tmp/clone" || { echo "FAIL: $T: git clone"; exit 1; }
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

(cd "$tmp/clone" && KSTATS_INTERRUPT_TEST=$token KSTATS_CACHE=$tmp/cache \
	exec setsid make check > "$tmp/check.log" 2>&1) &
pid=$!
if ! wait_until 600 compiling; then
	tail -n 20 "$tmp/check.log"
	echo "FAIL: $T: its build did not start"
	kill -KILL $(procs | cut -d' ' -f1) 2>/dev/null
	exit 1
fi
# Ctrl-C: SIGINT to the foreground process group, make's (setsid).
kill -INT -- -"$pid"
if wait_until 10 gone; then
	echo "PASS: $T"
	wait "$pid"
	exit 0
fi
echo "still running:"
procs | head -n 20
kill -KILL $(procs | cut -d' ' -f1) 2>/dev/null
echo "FAIL: $T"
exit 1
