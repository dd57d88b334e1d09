# SPDX-License-Identifier: GPL-2.0
# Common definitions of the kstats harness; sourced by the other scripts.
#
# Everything built is kept outside the clone, in $KSTATS_CACHE (default
# ~/.cache/kstats), keyed on the kernel source package version, so that a new
# clone on the same machine reuses the extracted tree and the builds.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HARNESS=$TOP/harness
KSTATS_CACHE=${KSTATS_CACHE:-$HOME/.cache/kstats}
JOBS=${JOBS:-$(nproc)}

# pass, fail, skip, result...: the verdicts, one line each (harness/verdict.sh).
. "$HARNESS/verdict.sh"

# step TEXT: a step's title, with the time since the script started.
step() { printf '==> %s  (%dm%02ds)\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)) >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# pkg_installed PKG: whether the Debian package PKG is installed.
#
# With KSTATS_PKG_SIMULATE=FILE, FILE is the list of installed packages (one
# per line; empty: a fresh machine) and need_pkgs appends to it instead of
# running apt-get, logging each call in FILE.log: make check uses it to run
# targets as the first command on a fresh machine (harness/first-command.sh).
pkg_installed() {
	if [ -n "${KSTATS_PKG_SIMULATE:-}" ]; then
		grep -qxF "$1" "$KSTATS_PKG_SIMULATE" 2>/dev/null
		return
	fi
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# apt_get ARGS...: apt-get ARGS with one progress line; its output goes to
# $KSTATS_CACHE/apt.log, and is shown only if it fails. One at a time: make
# check installs Debian's kernels beside its other steps.
#
# Another program's apt-get or dpkg (unattended-upgrades, in a new cloud
# machine's first minutes) holds dpkg's lock: apt-get waits for it, up to
# 30 minutes (DPkg::Lock::Timeout), and the progress line says so.
apt_get() {
	local log=$KSTATS_CACHE/apt.log holder
	mkdir -p "$KSTATS_CACHE"
	step "apt-get $*"
	printf '\n==== %s apt-get %s\n' "$(date '+%F %T')" "$*" >> "$log"
	holder=$(dpkg_lock_holder)
	[ -z "$holder" ] ||
		step "waiting for dpkg's lock, held by process $holder (up to 30 minutes)"
	# An install that was stopped midway (a machine shut down, a killed
	# apt-get) leaves packages unconfigured, and apt-get refuses to run
	# until they are: configure them first, as apt-get's message asks.
	if [ -z "${KSTATS_PKG_SIMULATE:-}" ] && [ -n "$(dpkg --audit 2>/dev/null)" ]; then
		step "dpkg --configure -a: an earlier install was interrupted"
		flock -w 1800 "$KSTATS_CACHE/.apt.lock" env DEBIAN_FRONTEND=noninteractive \
			dpkg --configure -a >> "$log" 2>&1 ||
			die "dpkg --configure -a failed; its output is in $log"
	fi
	if ! flock -w 1800 "$KSTATS_CACHE/.apt.lock" env DEBIAN_FRONTEND=noninteractive \
		apt-get -q -o DPkg::Lock::Timeout=1800 "$@" >> "$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "apt-get $* failed; its output is in $log"
	fi
}

# dpkg_lock_holder: "PID (command)" of the process that holds dpkg's lock
# (an fcntl lock on /var/lib/dpkg/lock-frontend, listed in /proc/locks), or
# nothing.
dpkg_lock_holder() {
	local f=/var/lib/dpkg/lock-frontend ino pid
	[ -e "$f" ] || return 0
	ino=$(stat -c %i "$f")
	pid=$(awk -v i=":$ino" '$2 == "POSIX" && substr($6, length($6) - length(i) + 1) == i {
		print $5; exit }' /proc/locks)
	[ -z "$pid" ] || echo "$pid ($(cat "/proc/$pid/comm" 2>/dev/null))"
}

# apt_update: apt-get update, once per cache (apt-cache search needs it too).
apt_update() {
	# Once per cache, and again if the machine's lists are gone.
	[ -e "$KSTATS_CACHE/.apt-updated" ] &&
		ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 && return 0
	[ -z "${KSTATS_PKG_SIMULATE:-}" ] || return 0
	[ "$(id -u)" -eq 0 ] || die "need root to run apt-get update"
	apt_get update
	touch "$KSTATS_CACHE/.apt-updated"
}

# need_pkgs PKG...: install the Debian packages that are missing.
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		pkg_installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ -n "${KSTATS_PKG_SIMULATE:-}" ]; then
		step "installing Debian packages (simulated): ${missing[*]}"
		printf '%s\n' "${missing[@]}" >> "$KSTATS_PKG_SIMULATE"
		echo "apt-get install ${missing[*]}" >> "$KSTATS_PKG_SIMULATE.log"
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || die "need root to install ${missing[*]}"
	apt_update
	apt_get install -y --no-install-recommends "${missing[@]}"
}

# Packages needed to build kernels and to boot and test them.
BUILD_PKGS="build-essential flex bison bc libelf-dev libssl-dev
	kmod cpio xz-utils lz4 rsync python3 ccache"
VM_PKGS="qemu-system-x86 busybox-static"
# qemu's TCG, every vCPU on one host thread (harness/vm.sh says why).
TCG="tcg,thread=single"

# host_desc: the machine that benchmark figures come from, on one line.
host_desc() {
	printf 'host: %s CPUs, %s, %s; %s\n' "$(nproc)" \
		"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" \
		"$(. /etc/os-release && echo "$PRETTY_NAME")" \
		"$(qemu-system-x86_64 --version | head -n 1)"
}

# newest_kernel SERIES: the release of the newest linux-image-SERIES amd64
# package apt offers (6.12: 6.12.117+deb12-amd64), or nothing.
newest_kernel() {
	apt-cache search --names-only "^linux-image-$1[.-].*amd64\$" 2>/dev/null |
		awk '{ print $1 }' | grep -vE -- '-(rt|cloud|dbg)-|unsigned' |
		sed 's/^linux-image-//' | sort -V | tail -n 1
}

# The kernels of Debian 13 (trixie) and its backports (7.x), whose kbuild
# tools need trixie's libc and whose headers its gcc-14: built in a root of
# trixie made by debootstrap from Debian's archive, in the cache; the host
# stays a bookworm system. The newest peers of make bench-peers (bpftrace,
# libbpf-tools, perf) come from a root of sid, which the guest runs them
# from. Each root is keyed on its suite, sources and packages.
root_apt() {
	case $1 in
	trixie) printf '%s\n' "deb http://deb.debian.org/debian trixie main" \
		"deb http://deb.debian.org/debian trixie-backports main" ;;
	*) echo "deb http://deb.debian.org/debian $1 main" ;;
	esac
}
root_base_pkgs() {
	case $1 in
	trixie) echo "gcc-14 make libc6-dev libelf-dev bc kmod rsync xz-utils dkms" ;;
	sid) echo "bpftrace libbpf-tools linux-perf" ;;
	esac
}

# deb_root [SUITE]: ROOT, the root of SUITE (default trixie), made if
# missing, its package lists updated once per run of a script.
deb_root() {
	local suite=${1:-trixie} key root
	ROOT_SUITE=$suite
	key=$(printf '%s\n%s\n%s\n' "$suite" "$(root_apt "$suite")" "$(root_base_pkgs "$suite")" |
		sha256sum | cut -c1-12)
	root=$KSTATS_CACHE/root-$suite-$key
	if [ ! -e "$root/.done" ]; then
		need_pkgs debootstrap
		mkdir -p "$KSTATS_CACHE"
		rm -rf "$KSTATS_CACHE/root-$suite-"*
		step "debootstrap $suite into ${root#"$KSTATS_CACHE"/}"
		debootstrap --variant=minbase "$suite" "$root" \
			http://deb.debian.org/debian > "$KSTATS_CACHE/root.log" 2>&1 ||
			{ tail -n 20 "$KSTATS_CACHE/root.log" >&2; die "debootstrap $suite failed"; }
		root_apt "$suite" > "$root/etc/apt/sources.list"
		# The archive's copy of sid may be older than its Release's
		# Valid-Until: it is taken as it is.
		echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99kstats"
		in_root "$root" apt-get -q update >> "$KSTATS_CACHE/root.log" 2>&1 &&
			root_pkgs "$root" $(root_base_pkgs "$suite") ||
			die "$suite root: the packages failed; see $KSTATS_CACHE/root.log"
		touch "$root/.done"
	elif [ "${ROOT:-}" != "$root" ]; then
		in_root "$root" apt-get -q update >> "$KSTATS_CACHE/root.log" 2>&1 ||
			die "$suite root: apt-get update failed; see $KSTATS_CACHE/root.log"
	fi
	ROOT=$root
}

# in_root ROOT CMD...: CMD in ROOT, with /proc (objtool reads it) and this
# clone's cache and build directories at the same paths as outside, in a
# mount namespace of its own, so that nothing stays mounted.
in_root() {
	local root=$1 d binds=
	shift
	for d in "$KSTATS_CACHE" "$TOP/build"; do
		mkdir -p "$d" "$root$d"
		binds="$binds mount --bind '$d' '$root$d' &&"
	done
	unshare --mount --fork sh -c "mount -t proc proc '$root/proc' && $binds"' exec chroot "$0" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' \
		"$root" "$@"
}

# root_pkgs ROOT PKG...: install the packages that ROOT is missing.
root_pkgs() {
	local root=$1 p missing=()
	shift
	for p in "$@"; do
		in_root "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	step "apt-get install ${missing[*]} (in ${root##*/})"
	in_root "$root" apt-get -q install -y --no-install-recommends "${missing[@]}" \
		>> "$KSTATS_CACHE/root.log" 2>&1
}

# root_newest_kernel ROOT SERIES: newest_kernel, of ROOT's suites.
root_newest_kernel() {
	in_root "$1" apt-cache search --names-only "^linux-image-$2[.-].*amd64\$" |
		awk '{ print $1 }' | grep -vE -- '-(rt|cloud|dbg)-|unsigned' |
		sed 's/^linux-image-//' | sort -V | tail -n 1
}

# The kernel source of the test kernels and of the series: Debian's newest
# linux-source-7.N, which trixie-backports serves, installed in the trixie
# root (its tarball is read from there; the host installs nothing of
# trixie). kernel_source sets SRC_PKG (linux-source-7.3), SRC_VERSION
# (7.3.4-1~bpo13+1) and SRC_TAR, and exports them with SRC_ROOT, the root,
# so that the scripts it runs look for the newest only once.
SRC_SERIES=7
kernel_source() {
	local pkg
	if [ -n "${SRC_TAR:-}" ] && [ -e "$SRC_TAR" ]; then
		return 0
	fi
	deb_root trixie
	pkg=$(in_root "$ROOT" apt-cache search --names-only "^linux-source-$SRC_SERIES\.[0-9]+\$" |
		awk '{ print $1 }' | sort -V | tail -n 1)
	[ -n "$pkg" ] || die "trixie and its backports offer no linux-source-$SRC_SERIES.*"
	root_pkgs "$ROOT" "$pkg" ||
		die "trixie root: cannot install $pkg; see $KSTATS_CACHE/root.log"
	SRC_PKG=$pkg
	SRC_VERSION=$(in_root "$ROOT" dpkg-query -W -f='${Version}' "$pkg")
	SRC_TAR=$ROOT/usr/src/$pkg.tar.xz
	SRC_ROOT=$ROOT
	[ -e "$SRC_TAR" ] || die "$pkg $SRC_VERSION has no $SRC_TAR"
	export SRC_PKG SRC_VERSION SRC_TAR SRC_ROOT
}

# src_version: the source package's version, as a file name.
src_version() {
	printf '%s\n' "$SRC_VERSION" | tr '~+:' '___'
}

# set_paths: the paths of the cache, keyed on the kernel source's version;
# installs the source package first, so that any script may begin with it.
set_paths() {
	local v
	kernel_source
	v=$(src_version)
	WORK=$KSTATS_CACHE/$v
	SRC=$WORK/linux
	ORIG=$WORK/orig
	# Build directories inside the tree: the kernel's command lines then
	# use relative paths (srctree is ..), the same in a copy of the tree.
	BUILD_X86=$SRC/build-x86_64
	BUILD_UML=$SRC/build-um
	VMDIR=$WORK/vm
	# ccache hashes the remaining absolute paths relative to the build
	# directory: the bisect tree ($WORK/bisect/linux) then shares objects
	# with $WORK/linux.
	export CCACHE_DIR=${CCACHE_DIR:-$KSTATS_CACHE/ccache}
	export CCACHE_BASEDIR=$WORK
}

# clean_cache: remove the kernel trees and builds of every source version,
# keeping ccache's objects; needs no package.
clean_cache() {
	local d n=0
	for d in "$KSTATS_CACHE"/*/; do
		[ -e "$d/linux" ] || [ -e "$d/vm" ] || continue
		echo "removing ${d%/}"
		rm -rf "$d"
		n=$((n + 1))
	done
	[ $n -gt 0 ] || echo "nothing to remove in $KSTATS_CACHE"
}

# Make compiler invocations go through ccache when it is there.
cc_opts() {
	if command -v ccache >/dev/null; then
		echo "CC=ccache gcc"
	else
		echo "CC=gcc"
	fi
}

# hash_of FILE...: one hash of the names and contents of the files.
hash_of() {
	(for f in "$@"; do echo "$f"; cat "$f"; done) | sha256sum | cut -c1-16
}

# static_kstats DIR: tools/kstats built static in DIR/kstats, for the VM's
# busybox, where kstats_tool_test.sh runs it. Its files are kstats*.c
# (fuzz_parse.c is the fuzz target's).
static_kstats() {
	gcc -static -O2 -std=gnu11 -Wall -Wextra -Werror -o "$1/kstats" \
		"$TOP"/tools/kstats/kstats*.c -lm
}

# torture_files DIR SECONDS: the torture's guest files in DIR, for
# harness/torture.sh and harness/check.sh: guest-torture.sh with its
# settings (from the environment, defaults of `make torture`) on the first
# line, and the static kstats_helper and kstats_fuzz.
torture_files() {
	local p sel=$TOP/tools/testing/selftests/kstats
	for p in kstats_helper kstats_fuzz; do
		gcc -static -O2 -Wall -Wextra -Werror -o "$1/$p" "$sel/$p.c" || return 1
	done
	{
		echo "TORTURE_SECONDS=$2 KSTATS_SEED=${KSTATS_SEED:-$(date +%s)}" \
			"KSTATS_FUZZ_COUNT=${KSTATS_FUZZ_COUNT:-3000}" \
			"KSTATS_FI_ROUNDS=${KSTATS_FI_ROUNDS:-10}" \
			"KSTATS_REMOVE_ROUNDS=${KSTATS_REMOVE_ROUNDS:-100}" \
			"KSTATS_RN_SWEEP=${KSTATS_RN_SWEEP:-all}"
		cat "$HARNESS/guest-torture.sh"
	} > "$1/guest-torture.sh"
}

# own_run: makes the calling script the head of a run of its own: it
# re-executes itself with KSTATS_RUN=ID in its environment, which every
# process it starts inherits (those that leave their parent too), so that
# stop_run can find them all. Call as: own_run "$@" (at the start).
own_run() {
	case ${KSTATS_RUN:-} in
	"run-$$."*) return 0 ;;
	esac
	export KSTATS_RUN="run-$$.$(date +%s%N)"
	exec bash "$0" "$@"
}

# run_processes ID: the PIDs of the processes whose environment has
# KSTATS_RUN=ID, but this shell, and apt-get or dpkg and what they run
# (dpkg-deb, maintainer scripts, hooks): a dpkg stopped midway leaves the
# system's packages half configured, so an install is left to finish.
run_processes() {
	local e p vars
	for e in /proc/[0-9]*/environ; do
		p=${e#/proc/}
		p=${p%/environ}
		[ "$p" = $$ ] || [ "$p" = "$BASHPID" ] && continue
		mapfile -d '' vars 2>/dev/null < "$e" || continue
		[[ " ${vars[*]} " == *" KSTATS_RUN=$1 "* ]] || continue
		in_apt "$p" || echo "$p"
	done
}

# in_apt PID: PID is apt-get, apt or dpkg, or was started by one of them.
in_apt() {
	local p=$1 i comm
	for ((i = 0; i < 40 && p > 1; i++)); do
		comm=$(cat "/proc/$p/comm" 2>/dev/null) || return 1
		case $comm in apt-get|apt|dpkg) return 0 ;; esac
		p=$(awk '$1 == "PPid:" { print $2 }' "/proc/$p/status" 2>/dev/null)
		[ -n "$p" ] || return 1
	done
	return 1
}

# stop_run [PID...]: stops the PIDs (subshells of the run's head, which
# could start more) and every process of this run (own_run): TERM, then
# KILL what is left after 5 s.
stop_run() {
	local pids i
	[ -n "${KSTATS_RUN:-}" ] || return 0
	[ $# -eq 0 ] || kill -TERM "$@" 2>/dev/null
	for i in $(seq 50); do
		pids=$(run_processes "$KSTATS_RUN")
		[ -n "$pids" ] || return 0
		# shellcheck disable=SC2086
		kill -TERM $pids 2>/dev/null
		sleep 0.1
	done
	pids=$(run_processes "$KSTATS_RUN")
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
}

# The CHECKs of checkpatch --strict that the project keeps, as TYPE FILE
# (a path in the tree), each with the reason a reviewer is given; every
# other CHECK fails.
KEPT_CHECKS=(
	# cpu_relax() is the kernel's; a userspace spin loop names the
	# instruction of each architecture.
	"ARCH_DEFINES tools/testing/selftests/kstats/kstats_helper.c"
	# BIT() is a kernel macro; userspace has none.
	"BIT_MACRO tools/kstats/kstats_parse.h"
	# checkpatch reads the exponent of 1e-3 as a subtraction.
	"SPACING tools/kstats/kstats_compare.c"
	"SPACING tools/kstats/kstats_hist.c"
	# C11's keyword: userspace has no __noreturn (the kernel's macro).
	"CAMELCASE tools/kstats/kstats.h"
)

# step_init USAGE NARGS ARG...: the start of a step's file (harness/step-*.sh):
# NARGS arguments, the first LOGS, the directory of make check's logs
# (else USAGE and exit 2); LOGS and the paths set; grep reading every log
# as text, whatever bytes it holds (a fuzzer writes invalid UTF-8 to the
# console).
step_init() {
	local usage=$1 n=$2
	shift 2
	[ $# -eq "$n" ] && [ -d "$1" ] || { echo "usage: $usage" >&2; exit 2; }
	LOGS=$1
	set_paths
	grep() { command grep -a "$@"; }
}

# checkpatch_clean OUTPUT: whether checkpatch's OUTPUT (run with
# --show-types, without --terse) says clean: its own summary "total: 0
# errors, 0 warnings, N checks, M lines checked", M > 0 (for a file
# missing from the tree it prints an error of diff's, and exits 0; it
# exits 1 for a CHECK), and no CHECK but those of KEPT_CHECKS. Prints
# OUTPUT otherwise.
checkpatch_clean() {
	local unkept
	if printf '%s\n' "$1" |
	   grep -qE '^total: 0 errors, 0 warnings, [0-9]+ checks, [1-9][0-9]* lines checked$'; then
		unkept=$(printf '%s\n' "$1" | awk -v kept="$(printf '%s\n' "${KEPT_CHECKS[@]}")" '
			BEGIN { n = split(kept, k, "\n"); for (i = 1; i <= n; i++) ok[k[i]] = 1 }
			/^CHECK:[A-Z_]+:/ { split($0, w, ":"); type = w[2]; next }
			type && /^#[0-9]+: FILE: / {
				f = $3; sub(/:[0-9]+:$/, "", f)
				if (!((type " " f) in ok)) print type " " f
				type = ""
			}')
		[ -z "$unkept" ] && return 0
	fi
	printf '%s\n' "$1"
	return 1
}
