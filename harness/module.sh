#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/module.sh [KDIR]
#
# Builds kstats.ko, kstats_trace.ko and the sample modules out of tree
# against an installed kernel's headers (default: the running kernel's),
# from this repository's sources, in build/module-RELEASE/.
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
[ -e "$kdir/Makefile" ] ||
	die "no kernel headers in $kdir: install the headers of kernel $(uname -r), or give KDIR=/path/to/headers"
release=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
	"$kdir/include/generated/utsrelease.h")
[ -n "$release" ] || die "$kdir: no include/generated/utsrelease.h"
out=$TOP/build/module-$release
step "building the kstats modules for $release in ${out#"$TOP"/}"
mkdir -p "$out"
(cd "$TOP" && git ls-files --cached --others --exclude-standard Kbuild dkms.conf \
	include/linux/kstats.h lib/kstats.c kernel/trace/kstats_trace_*.c \
	kernel/trace/kstats_trace*.h samples/kstats/kstats_sample.c \
	samples/kstats/kstats_bench.c) | rsync -rc --files-from=- "$TOP/" "$out/"
# Older kernels' APIs, told apart by their headers rather than versions.
# Debian splits headers: $kdir/Makefile includes the common part's.
common=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$kdir/Makefile" | head -n 1)
fprobe_h=$(ls "$kdir/include/linux/fprobe.h" "$kdir/source/include/linux/fprobe.h" \
	${common:+"$common/include/linux/fprobe.h"} 2>/dev/null | head -n 1)
if [ -n "$fprobe_h" ] && ! grep -q 'unsigned long ret_ip' "$fprobe_h"; then
	step "this kernel's fprobe handlers take no return address: compat/fprobe-no-ret-ip.patch"
	patch -s -p1 -d "$out" < "$TOP/compat/fprobe-no-ret-ip.patch"
fi
tp_h=$(ls "$kdir/include/linux/tracepoint-defs.h" \
	"$kdir/source/include/linux/tracepoint-defs.h" \
	${common:+"$common/include/linux/tracepoint-defs.h"} 2>/dev/null | head -n 1)
if [ -n "$tp_h" ] && ! grep -q 'probestub' "$tp_h"; then
	step "this kernel's tracepoints have no probe stub: compat/tracepoint-no-probestub.patch"
	patch -s -p1 -d "$out" < "$TOP/compat/tracepoint-no-probestub.patch"
fi
# Groups (trace fprobe:GLOB as NAME) read ftrace's filter hash, whose
# layout is in kernel/trace/trace.h, which headers do not ship: taken from
# Debian's linux-source of the same upstream version, when installed.
upstream=${release%%[-+]*}
series=$(echo "$upstream" | cut -d. -f1,2)
tarball=/usr/src/linux-source-$series.tar.xz
ksrc_inc=
srcver=$(dpkg-query -W -f '${Version}' "linux-source-$series" 2>/dev/null || true)
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
make -C "$kdir" M="$out" modules ${ksrc_inc:+KSTATS_TRACE_INC="$ksrc_inc"}
ls "$out"/*.ko
