#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/stock.sh SERIES...     (SERIES: 6.12, 6.1, 7.x: the newest 7)
#
# kstats on Debian's own kernels: for each series, the newest
# linux-headers and linux-image apt offers, the modules built out of tree
# against those headers (harness/module.sh), and the kselftests run in the
# VM booted on Debian's kernel with the modules loaded by modprobe. A
# series that bookworm does not have (7.x) comes from trixie and its
# backports, in the trixie root (harness/lib.sh: deb_root), where its
# modules are built; the host installs none of its packages.
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
	root=
	release=$(newest_kernel "${series%.x}")
	if [ -z "$release" ]; then
		deb_root
		root=$ROOT
		release=$(root_newest_kernel "$root" "${series%.x}")
	fi
	[ -n "$release" ] || die "apt offers no linux-image-$series.*-amd64"
	step "Debian's $release: headers, image, modules${root:+ (in the $ROOT_SUITE root)}"
	if [ -n "$root" ]; then
		# The kernel alone (linux-binary), without the initramfs tools
		# that linux-image brings; the source, for groups' trace.h.
		root_pkgs "$root" "linux-headers-$release" "linux-binary-$release" \
			"linux-source-$(echo "$release" | cut -d. -f1,2)" ||
			die "$ROOT_SUITE root: cannot install Debian's $release; see $KSTATS_CACHE/root.log"
		kimage=$root/usr/lib/modules/$release/vmlinuz
	else
		# The source too, for groups' trace.h (harness/module.sh), as in
		# the root: the host no longer has linux-source-6.12 for the tree.
		need_pkgs "linux-headers-$release" "linux-image-$release" \
			"linux-source-$(echo "$release" | cut -d. -f1,2)"
		kimage=/boot/vmlinuz-$release
	fi
	KSTATS_ROOT=$root "$HARNESS/module.sh" "/usr/src/linux-headers-$release" \
		> "$WORK/module-$release.log" 2>&1 ||
		{ tail -n 30 "$WORK/module-$release.log"; fail "build the modules for $release"; rc=1; continue; }
	pass "modules built against linux-headers-$release"
	if KSTATS_ROOT=$root "$HARNESS/dkms.sh" build "$release" > "$WORK/dkms-$release.log" 2>&1; then
		pass "dkms build for $release"
	else
		tail -n 20 "$WORK/dkms-$release.log"
		fail "dkms build for $release"
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
	if ! ${root:+in_root "$root"} make -C "/usr/src/linux-headers-$release" M="$faults" \
		modules > "$faults.log" 2>&1; then
		tail -n 20 "$faults.log"
		fail "build harness/faults/kstats_faults.ko for $release"
		rc=1
	fi
	VM_KERNEL=$kimage VM_MODULES=$mods VM_CONSOLE=$WORK/console-$release.log \
		"$HARNESS/vm.sh" run "$HARNESS/guest-stock.sh" "$HARNESS/verdict.sh" "$sel"/kstats/*.sh \
		"$SRC/tools/testing/selftests/kselftest/ktap_helpers.sh" \
		"$WORK/kstats_helper" "$WORK/kstats" $(ls "$faults"/kstats_faults.ko 2>/dev/null) ||
		rc=1
done
exit $rc
