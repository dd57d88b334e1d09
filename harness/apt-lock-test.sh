#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/apt-lock-test.sh
#
# The harness's apt-get waits for dpkg's lock when another program holds
# it (unattended-upgrades on a new machine), and says so: a process holds
# /var/lib/dpkg/lock-frontend as dpkg does (an fcntl lock) until apt_get
# (harness/lib.sh) has printed that it waits for it, then lets go; apt_get
# must then run apt-get and succeed (an install of bash with --no-upgrade:
# nothing to do, but it takes the lock). One PASS/FAIL line.
set -u
. "$(dirname "$0")/lib.sh"
T="apt-get waits for dpkg's lock held by another program, and says so"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kstats-aptlock.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkfifo "$tmp/go"
# The holder: takes the lock (after any apt-get of make check's own that
# has it), says so, and lets go when told.
/usr/bin/python3 - "$tmp" <<'PY' &
import fcntl, os, sys
d = sys.argv[1]
f = open('/var/lib/dpkg/lock-frontend', 'a')
fcntl.lockf(f, fcntl.LOCK_EX)
open(os.path.join(d, 'held'), 'w').close()
open(os.path.join(d, 'go')).read()
PY
holder=$!
for _ in $(seq 3000); do [ -e "$tmp/held" ] && break; sleep 0.2; done
[ -e "$tmp/held" ] || { fail "$T: could not take dpkg's lock"; kill $holder; exit 1; }
# apt_get in the background, its progress lines in a file; a no-op
# install, which takes the lock all the same.
(KSTATS_CACHE=$tmp/cache apt_get install -y --no-upgrade --no-install-recommends bash) \
	> "$tmp/out" 2>&1 &
apt=$!
for _ in $(seq 600); do
	grep -q "waiting for dpkg's lock, held by process $holder (" "$tmp/out" && break
	sleep 0.1
done
echo > "$tmp/go"
wait $holder
wait $apt
r=$?
if [ $r -eq 0 ] && grep -q "waiting for dpkg's lock, held by process $holder (" "$tmp/out"; then
	pass "$T"
	exit 0
fi
cat "$tmp/out"
fail "$T (apt_get exit $r)"
exit 1
