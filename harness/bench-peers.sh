#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/bench-peers.sh   (CALLS=N ROUNDS=N CASES="..." to change
#                                   the run; MEASURE=instructions or time:
#                                   one only; SERIES=7.x for Debian's
#                                   newest 7.x kernel and sid's peers)
#
# kstats against the tools a user would pick instead to get a function's
# latency distribution, on Debian's own 6.12 kernel, side by side in one VM
# run (harness/guest-bench-peers.sh says what each case runs): bpftrace,
# libbpf-tools' funclatency and perf ftrace latency from Debian's packages,
# and the kernel's fprobe and kprobe events with a latency hist trigger.
#
# The guest boots Debian's kernel with the kstats modules built out of
# tree against its headers (as harness/stock.sh does), and runs the peers
# from the host's own tree, shared read-only into the guest over virtio-9p:
# the packages are installed on the host, and nothing else is built or
# cached for them. With SERIES=7.x, the kernel and its modules come from
# the trixie root (harness/stock.sh), and the peers, the newest Debian
# packages (bpftrace, libbpf-tools, linux-perf), from a root of sid made
# the same way, which the guest runs them from instead of the host's tree.
#
# Two runs, as harness/bench-trace.sh does: instructions per call (qemu
# counts them: -icount shift=0), the same from one run to the next, then
# TCG's emulated time, whose ratios are what to read.
set -eu
. "$(dirname "$0")/lib.sh"
series=${SERIES:-6.12}
apt_update
set_paths
root= peers=/ kimage= kmods=
release=$(newest_kernel "${series%.x}")
if [ -z "$release" ]; then
	need_pkgs $VM_PKGS kmod
	deb_root sid
	peers=$ROOT
	deb_root trixie
	root=$ROOT
	release=$(root_newest_kernel "$root" "${series%.x}")
	[ -n "$release" ] || die "apt offers no linux-image-${series%.x}.*-amd64"
	root_pkgs "$root" "linux-headers-$release" "linux-binary-$release" \
		"linux-modules-$release" "linux-source-$(echo "$release" | cut -d. -f1,2)" ||
		die "trixie root: cannot install Debian's $release; see $KSTATS_CACHE/root.log"
	kimage=$root/usr/lib/modules/$release/vmlinuz
	kmods=$root/lib/modules/$release
else
	need_pkgs $VM_PKGS kmod build-essential bpftrace libbpf-tools linux-perf
	need_pkgs "linux-headers-$release" "linux-image-$release" \
		"linux-source-$(echo "$release" | cut -d. -f1,2)"
	kimage=/boot/vmlinuz-$release
	kmods=/lib/modules/$release
fi
KSTATS_ROOT=$root "$HARNESS/module.sh" "/usr/src/linux-headers-$release" \
	> "$WORK/module-$release.log" 2>&1 ||
	{ tail -n 30 "$WORK/module-$release.log"; die "building the modules for $release failed"; }

# The guest's modules: kstats's, and 9p's from Debian's tree.
mods=$WORK/peers-$release
rm -rf "$mods"
mkdir -p "$mods/lib/modules/$release/extra"
cp "$TOP/build/module-$release"/*.ko "$mods/lib/modules/$release/extra/"
for m in 9pnet_virtio 9p; do
	modprobe ${root:+-d "$root"} -S "$release" --show-depends "$m"
done | awk '$1 == "insmod" { print $2 }' |
	sort -u | while read -r ko; do
		rel=${ko#"$kmods"/}
		mkdir -p "$mods/lib/modules/$release/$(dirname "$rel")"
		case $ko in
		*.xz) xz -dc "$ko" > "$mods/lib/modules/$release/${rel%.xz}" ;;
		*) cp "$ko" "$mods/lib/modules/$release/$rel" ;;
		esac
	done
cp "$kmods"/modules.builtin* "$kmods"/modules.order "$mods/lib/modules/$release/"
depmod -b "$mods" "$release"

out=$(mktemp -d "${TMPDIR:-/tmp}/kstats-peers.XXXXXX")
trap 'rm -rf "$out"' EXIT
gcc -static -O2 -Wall -Wextra -Werror -o "$out/kstats_helper" \
	"$TOP/tools/testing/selftests/kstats/kstats_helper.c"
static_kstats "$out"
echo "bench-peers: $(host_desc)"
for m in ${MEASURE:-instructions time}; do
	case $m in
	instructions) calls=${CALLS:-20000} rounds=${ROUNDS:-3} unit=insn
		qemu="-icount shift=0,sleep=off" ;;
	time) calls=${CALLS:-100000} rounds=${ROUNDS:-5} unit=ns qemu= ;;
	*) die "MEASURE: '$m' is neither instructions nor time" ;;
	esac
	{
		echo "CALLS=$calls ROUNDS=$rounds UNIT=$unit${CASES:+ CASES=\"$CASES\"}" \
			"KSTATS_VERSION=$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)"
		cat "$HARNESS/guest-bench-peers.sh"
	} > "$out/bench-peers.sh"
	step "measuring $m on Debian's $release, the peers from ${root:+the sid root, not }the host's tree (minutes under TCG)"
	# TCG even where KVM works, as bench-trace.sh.
	VM_ACCEL=$TCG VM_KERNEL=$kimage VM_MODULES=$mods VM_CPUS=2 VM_MEM=2048 \
		VM_TIMEOUT=${VM_TIMEOUT:-3600} \
		VM_QEMU="$qemu -virtfs local,path=$peers,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
		"$HARNESS/vm.sh" run "$out/bench-peers.sh" "$out/kstats_helper" "$out/kstats"
done
