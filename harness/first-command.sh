#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/first-command.sh [TARGET...]
#
# Runs make targets as the first command on a fresh machine, for the
# targets that make check does not run otherwise: the packages are
# simulated as not installed (KSTATS_PKG_SIMULATE, harness/lib.sh), so that
# every path keyed on a package and every install step is taken, and the
# commands of Debian packages outside the base system are shims on PATH
# that fail when they run before their package was "installed". Each
# target then does its real job, on the cache as it is. Prints one
# PASS/FAIL line per target, with the packages it installed.
#
# vm-run and vm-shell boot the debug kernel that make check built. demo,
# bench-kstats, bench-trace and kernel build and boot the plain kernel
# through the same build-x86.sh and vm.sh, after steps tested here; they
# are not run, for time. check, kernel-debug, torture, kunit, patches,
# patches-build, module and dkms (build) run in make check itself.
set -u
. "$(dirname "$0")/lib.sh"

out=$(mktemp -d "${TMPDIR:-/tmp}/kstats-first.XXXXXX")
trap 'rm -rf "$out"' EXIT
shims=$out/shims
mkdir -p "$shims"
# Commands of the packages the harness installs, and their packages.
cat > "$shims/map" <<'MAP'
qemu-system-x86_64 qemu-system-x86
gnuplot gnuplot-x11
ccache ccache
flex flex
bison bison
bc bc
cpio cpio
rsync rsync
xz xz-utils
lz4 lz4
dkms dkms
debootstrap debootstrap
clang clang
promtool prometheus
prometheus prometheus
prometheus-node-exporter prometheus-node-exporter
sphinx-build python3-sphinx
MAP
cat > "$shims/shim" <<'SHIM'
#!/bin/sh
cmd=${0##*/}
pkg=$(awk -v c="$cmd" '$1 == c { print $2 }' "$KSTATS_SHIMS/map")
if ! grep -qxF "$pkg" "$KSTATS_PKG_SIMULATE"; then
	echo "first-command: $cmd ran before its package $pkg was installed" >&2
	echo "$cmd ($pkg)" >> "$KSTATS_PKG_SIMULATE.early"
	exit 127
fi
PATH=$(printf '%s' "$PATH" | sed "s|$KSTATS_SHIMS:||") exec "$cmd" "$@"
SHIM
chmod 755 "$shims/shim"
while read -r cmd _; do ln -s shim "$shims/$cmd"; done < "$shims/map"

rc=0
# first NAME EXPECT [make arguments...]: make with those arguments as the
# first command (stdin from $out/NAME.in if it exists): it must exit 0,
# print a line matching EXPECT and run no package command too early.
first() {
	local name=$1 expect=$2 sim=$out/$1.pkgs log=$out/$1.log in=/dev/null r
	shift 2
	[ -e "$out/$name.in" ] && in=$out/$name.in
	: > "$sim"
	step "make $* as the first command"
	KSTATS_PKG_SIMULATE=$sim KSTATS_SHIMS=$shims PATH=$shims:$PATH \
		make -C "$TOP" --no-print-directory "$@" < "$in" > "$log" 2>&1
	r=$?
	if [ $r -eq 0 ] && [ ! -e "$sim.early" ] && grep -qE -- "$expect" "$log"; then
		touch "$sim.log"
		pass "make $1 as the first command on a fresh machine (installs $(wc -l < "$sim") packages in $(wc -l < "$sim.log") apt-get calls; warm cache)"
	else
		tail -n 30 "$log"
		[ ! -e "$sim.early" ] || echo "run before installed: $(cat "$sim.early")"
		fail "make $1 as the first command on a fresh machine (exit $r)"
		rc=1
	fi
}

want() { [ $# -eq 0 ] || [[ " ${TARGETS[*]} " == *" $1 "* ]]; }
TARGETS=("$@")
[ $# -gt 0 ] || TARGETS=(clean-cache bench-tool vm-run vm-shell)

if want clean-cache; then
	# On a cache of its own: a tree of some version, and ccache's objects.
	mkdir -p "$out/cache/1.0/linux/Makefile" "$out/cache/1.0/vm" "$out/cache/ccache/0"
	KSTATS_CACHE=$out/cache first clean-cache 'removing .*/cache/1\.0$' clean-cache
	if [ -e "$out/cache/1.0" ] || [ ! -e "$out/cache/ccache/0" ]; then
		fail "make clean-cache removes the trees and keeps ccache's objects"
		rc=1
	else
		pass "make clean-cache removes the trees and keeps ccache's objects"
	fi
fi
if want bench-tool; then
	first bench-tool '^bench-tool: 20000 lines summarized in' bench-tool LINES=20000
fi
if want vm-run; then
	# The debug kernel of make check: the same script builds either kernel.
	# One CPU: the quickest boot under TCG; make check tests more.
	cat > "$out/hello.sh" <<'EOF'
modprobe kstats_trace && echo "first-command: kstats loaded on $(nproc) CPUs"
EOF
	first vm-run '^first-command: kstats loaded on [0-9]+ CPUs' \
		vm-run SCRIPT="$out/hello.sh" VM_FLAVOR=debug VM_CPUS=1
fi
if want vm-shell; then
	# The shell's input, typed once the guest says its shell starts
	# (what is typed before may be lost, or cut), and again every 10 s.
	mkfifo "$out/vm-shell.in"
	(exec > "$out/vm-shell.in"
	 for _ in $(seq 600); do
		grep -q '^kstats-vm: exit the shell to power off' "$out/vm-shell.log" 2>/dev/null &&
			break
		sleep 1
	 done
	 for _ in $(seq 60); do
		sleep 2
		# A line cut short fails before exit, and is typed again.
		echo 'echo "first-command: shell $((6 * 7))" && exit'
		sleep 8
	 done) 2>/dev/null &
	writer=$!
	first vm-shell '^first-command: shell 42' vm-shell VM_FLAVOR=debug VM_CPUS=1 VM_TIMEOUT=600
	kill "$writer" 2>/dev/null
fi
exit $rc
