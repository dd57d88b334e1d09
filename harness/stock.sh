#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/stock.sh SERIES...     (SERIES: 6.12, 6.1)
#
# kstats on Debian's own kernels: for each series, the newest
# linux-headers and linux-image apt offers, the modules built out of tree
# against those headers (harness/module.sh), and the kselftests run in the
# VM booted on Debian's kernel with the modules loaded by modprobe.
set -eu
. "$(dirname "$0")/lib.sh"
need_pkgs $VM_PKGS kmod
[ $# -ge 1 ] || die "usage: $0 SERIES..."

# apt-cache search needs the package lists.
apt_update
set_paths
sel=$TOP/tools/testing/selftests
rc=0
for series in "$@"; do
	release=$(newest_kernel "$series")
	[ -n "$release" ] || die "apt offers no linux-image-$series.*-amd64"
	step "Debian's $release: headers, image, modules"
	need_pkgs "linux-headers-$release" "linux-image-$release"
	"$HARNESS/module.sh" "/usr/src/linux-headers-$release" > "$WORK/module-$release.log" 2>&1 ||
		{ tail -n 30 "$WORK/module-$release.log"; echo "FAIL: build the modules for $release"; rc=1; continue; }
	echo "PASS: modules built against linux-headers-$release"
	if "$HARNESS/dkms.sh" build "$release" > "$WORK/dkms-$release.log" 2>&1; then
		echo "PASS: dkms build for $release"
	else
		tail -n 20 "$WORK/dkms-$release.log"
		echo "FAIL: dkms build for $release"
		rc=1
	fi
	mods=$WORK/stock-$release
	rm -rf "$mods"
	mkdir -p "$mods/lib/modules/$release/extra"
	cp "$TOP/build/module-$release"/*.ko "$mods/lib/modules/$release/extra/"
	depmod -b "$mods" "$release"
	gcc -static -O2 -Wall -Wextra -Werror -o "$WORK/kstats_helper" \
		"$sel/kstats/kstats_helper.c" && static_kstats "$WORK"
	# The self-test of the log check on this kernel: the module of the
	# injected reports (harness/faults), for a WARN as Debian's kernels
	# print it (harness/guest-stock.sh).
	faults=$WORK/faults-$release
	rm -rf "$faults" && cp -r "$HARNESS/faults" "$faults"
	if ! make -C "/usr/src/linux-headers-$release" M="$faults" modules \
		> "$faults.log" 2>&1; then
		tail -n 20 "$faults.log"
		echo "FAIL: build harness/faults/kstats_faults.ko for $release"
		rc=1
	fi
	VM_KERNEL=/boot/vmlinuz-$release VM_MODULES=$mods VM_CONSOLE=$WORK/console-$release.log \
		"$HARNESS/vm.sh" run "$HARNESS/guest-stock.sh" "$sel"/kstats/*.sh \
		"$SRC/tools/testing/selftests/kselftest/ktap_helpers.sh" \
		"$WORK/kstats_helper" "$WORK/kstats" $(ls "$faults"/kstats_faults.ko 2>/dev/null) ||
		rc=1
done
exit $rc
