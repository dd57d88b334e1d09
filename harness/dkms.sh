#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/dkms.sh [build|install] [KERNELRELEASE...]
#
# Puts the kstats module sources in /usr/src/kstats-VERSION in the layout
# DKMS wants (dkms.conf at the top), then runs dkms build or install
# (default) for the given kernels, or the running one. With
# KSTATS_ROOT=DIR, in the root DIR (harness/lib.sh: deb_root), whose dkms
# and headers are used.
set -eu
. "$(dirname "$0")/lib.sh"
root=${KSTATS_ROOT:-}
[ -n "$root" ] || need_pkgs dkms rsync
action=${1:-install}
[ $# -gt 0 ] && shift
case $action in build|install) ;; *) die "usage: $0 [build|install] [KERNELRELEASE...]" ;; esac
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
src=$root/usr/src/kstats-$version
step "DKMS sources in $src"
rm -rf "$src"
mkdir -p "$src"
(cd "$TOP" && git ls-files --cached --others --exclude-standard Kbuild dkms.conf \
	include/linux/kstats.h lib/kstats.c kernel/trace/kstats_trace_*.c \
	kernel/trace/kstats_trace*.h samples/kstats/kstats_sample.c \
	samples/kstats/kstats_bench.c) | rsync -r --files-from=- "$TOP/" "$src/"
dkms() {
	if [ -n "$root" ]; then
		in_root "$root" dkms "$@"
	else
		command dkms "$@"
	fi
}
dkms remove "kstats/$version" --all >/dev/null 2>&1 || true
[ $# -gt 0 ] || set -- "$(uname -r)"
for k in "$@"; do
	step "dkms $action kstats/$version -k $k"
	dkms "$action" "kstats/$version" -k "$k"
done
