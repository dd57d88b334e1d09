#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/build-x86.sh [debug|cfi]
#
# Builds the test VM's x86_64 kernel and modules out of tree: tinyconfig
# plus harness/x86_64.config, and with "debug" the debug kernel of
# `make torture`, plus harness/x86_64-debug.config, or with "cfi" the
# kernel of `make cfi`, built with clang, plus harness/x86_64-cfi.config,
# each in its own directory. Skipped when nothing it depends on changed.
set -eu
. "$(dirname "$0")/lib.sh"

"$HARNESS/tree.sh"
set_paths
frags=$HARNESS/x86_64.config
name="x86_64 kernel"
cc=$(cc_opts)
llvm=()
inroot=()
case ${1:-} in
'') ;;
debug)
	BUILD_X86=$BUILD_X86-debug
	frags="$frags $HARNESS/x86_64-debug.config"
	name="x86_64 debug kernel" ;;
cfi)
	# kCFI needs clang; the kernel needs LLVM 17.0.1 or newer
	# (scripts/min-tool-version.sh) and Debian 12 has 16: trixie's
	# clang 19, in the trixie root (harness/lib.sh: in_root), where the
	# whole build runs, without ccache.
	root_pkgs "$SRC_ROOT" clang-19 lld-19 llvm-19 flex bison bc libssl-dev \
		python3 perl cpio lz4 ||
		die "trixie root: cannot install clang 19; see $KSTATS_CACHE/root.log"
	inroot=(in_root "$SRC_ROOT")
	BUILD_X86=$BUILD_X86-cfi
	frags="$frags $HARNESS/x86_64-cfi.config"
	cc="CC=clang-19"
	llvm=(LLVM=-19)
	name="x86_64 kCFI kernel (clang 19)" ;;
*) die "usage: build-x86.sh [debug|cfi]" ;;
esac
if [ -e "$BUILD_X86/.kstats-built" ] &&
   cmp -s "$BUILD_X86/.kstats-built" "$WORK/tree.hash"; then
	step "$name up to date"
	exit 0
fi
# The stamp says which sources were built: taken now, written when done.
hash=$(cat "$WORK/tree.hash")
rm -f "$BUILD_X86/.kstats-built"
mkdir -p "$BUILD_X86"
mk() { "${inroot[@]}" make -C "$SRC" O="$BUILD_X86" ARCH=x86_64 "$cc" "${llvm[@]}" "$@"; }

step "configuring $name: tinyconfig + ${frags//$HARNESS\//harness/}"
mk -s tinyconfig >/dev/null
# shellcheck disable=SC2086
"$SRC/scripts/kconfig/merge_config.sh" -m -O "$BUILD_X86" \
	"$BUILD_X86/.config" $frags >/dev/null
mk -s olddefconfig >/dev/null
# Every option of the fragments must have made it through the
# dependencies, those they turn off included.
bad=0
while read -r opt; do
	grep -qx "$opt" "$BUILD_X86/.config" || { echo "missing: $opt" >&2; bad=1; }
done < <(grep -h '^CONFIG_' $frags)
while read -r opt; do
	! grep -qE "^$opt=" "$BUILD_X86/.config" || { echo "still set: $opt" >&2; bad=1; }
done < <(sed -n 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1/p' $frags)
[ $bad -eq 0 ] || die "$name: config fragment not satisfied"

step "building $name and modules (-j$JOBS; from an empty cache, 6 to 29 minutes on 2 cores)"
mk -j"$JOBS" -s bzImage modules
rm -rf "$BUILD_X86/modinst"
mk -s INSTALL_MOD_PATH="$BUILD_X86/modinst" INSTALL_MOD_STRIP=1 modules_install
echo "$hash" > "$BUILD_X86/.kstats-built"
step "$name built: $BUILD_X86/arch/x86/boot/bzImage"
