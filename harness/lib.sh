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

# step TEXT: a step's title, with the time since the script started.
step() { printf '==> %s  (%dm%02ds)\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)) >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# need_pkgs PKG...: install the Debian packages that are missing.
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	step "installing Debian packages: ${missing[*]}"
	[ "$(id -u)" -eq 0 ] || die "need root to install ${missing[*]}"
	if [ ! -e "$KSTATS_CACHE/.apt-updated" ]; then
		apt-get update -q >&2 || die "apt-get update failed"
		mkdir -p "$KSTATS_CACHE" && touch "$KSTATS_CACHE/.apt-updated"
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >&2 || die "apt-get install ${missing[*]} failed"
}

# Packages needed to build kernels and to boot and test them.
BUILD_PKGS="linux-source-6.12 build-essential flex bison bc libelf-dev libssl-dev
	kmod cpio xz-utils rsync python3 ccache"
VM_PKGS="qemu-system-x86 busybox-static"

# The kernel source: Debian's linux-source-6.12, keyed on its version.
src_version() {
	dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null | tr '~+:' '___'
}

set_paths() {
	local v
	v=$(src_version)
	[ -n "$v" ] || die "linux-source-6.12 is not installed"
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
