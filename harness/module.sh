#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/module.sh [KDIR]
#
# Builds kstats.ko, kstats_trace.ko and the sample modules out of tree
# against an installed kernel's headers (default: the running kernel's),
# from this repository's sources, in build/module-RELEASE/. With
# KSTATS_ROOT=DIR, KDIR is in the root DIR (harness/lib.sh: deb_root), and
# the build runs there, with that system's compiler and kbuild tools.
set -eu
. "$(dirname "$0")/lib.sh"

need_pkgs build-essential bc kmod libelf-dev rsync
kdir=${1:-}
if [ -z "$kdir" ]; then
	# The running kernel's headers, from Debian when it is Debian's kernel.
	kdir=/lib/modules/$(uname -r)/build
	if [ ! -e "$kdir/Makefile" ]; then
		apt_update
		if apt-cache show "linux-headers-$(uname -r)" >/dev/null 2>&1; then
			need_pkgs "linux-headers-$(uname -r)"
		fi
	fi
fi
root=${KSTATS_ROOT:-}
[ -e "$root$kdir/Makefile" ] ||
	die "no kernel headers in $root$kdir: install the headers of kernel $(uname -r), or give KDIR=/path/to/headers"
release=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
	"$root$kdir/include/generated/utsrelease.h")
[ -n "$release" ] || die "$kdir: no include/generated/utsrelease.h"
out=$TOP/build/module-$release
step "building the kstats modules for $release in ${out#"$TOP"/}"
mkdir -p "$out"
(cd "$TOP" && git ls-files --cached --others --exclude-standard Kbuild dkms.conf \
	include/linux/kstats.h lib/kstats.c kernel/trace/kstats_trace_*.c \
	kernel/trace/kstats_trace*.h samples/kstats/kstats_sample.c \
	samples/kstats/kstats_bench.c) | rsync -rc --files-from=- "$TOP/" "$out/"
# Groups (trace fprobe:GLOB as NAME) read ftrace's filter hash, whose
# layout is in kernel/trace/trace.h, which headers do not ship: taken from
# Debian's linux-source of the same upstream version, when installed.
upstream=${release%%[-+]*}
series=$(echo "$upstream" | cut -d. -f1,2)
tarball=$root/usr/src/linux-source-$series.tar.xz
ksrc_inc=
if [ -n "$root" ]; then
	srcver=$(in_root "$root" dpkg-query -W -f '${Version}' "linux-source-$series" 2>/dev/null || true)
else
	srcver=$(dpkg-query -W -f '${Version}' "linux-source-$series" 2>/dev/null || true)
fi
if [ -f "$tarball" ] && [ "${srcver%%-*}" = "$upstream" ]; then
	ksrc_inc=$out/ksrc-$upstream/linux-source-$series/kernel/trace
	if [ ! -f "$ksrc_inc/trace.h" ]; then
		step "kernel/trace/*.h of linux-source-$series $srcver, for groups"
		mkdir -p "$out/ksrc-$upstream"
		tar -xJf "$tarball" -C "$out/ksrc-$upstream" --wildcards \
			"linux-source-$series/kernel/trace/*.h"
	fi
else
	step "no linux-source-$series of version $upstream: kstats_trace without groups (fprobe:GLOB)"
fi
# No module of an earlier build is taken for one of this build.
rm -f "$out"/*.ko
if [ -n "$root" ]; then
	in_root "$root" make -C "$kdir" M="$out" modules ${ksrc_inc:+KSTATS_TRACE_INC="$ksrc_inc"}
else
	make -C "$kdir" M="$out" modules ${ksrc_inc:+KSTATS_TRACE_INC="$ksrc_inc"}
fi
ls "$out"/*.ko
