#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/build-x86.sh
#
# Builds the test VM's x86_64 kernel and modules out of tree: tinyconfig
# plus harness/x86_64.config. Skipped when nothing it depends on changed.
set -eu
. "$(dirname "$0")/lib.sh"

"$HARNESS/tree.sh"
set_paths
if [ -e "$BUILD_X86/.kstats-built" ] &&
   cmp -s "$BUILD_X86/.kstats-built" "$WORK/tree.hash"; then
	step "x86_64 kernel up to date"
	exit 0
fi
mkdir -p "$BUILD_X86"
mk() { make -C "$SRC" O="$BUILD_X86" ARCH=x86_64 "$(cc_opts)" "$@"; }

step "configuring x86_64 kernel: tinyconfig + harness/x86_64.config"
mk -s tinyconfig >/dev/null
"$SRC/scripts/kconfig/merge_config.sh" -m -O "$BUILD_X86" \
	"$BUILD_X86/.config" "$HARNESS/x86_64.config" >/dev/null
mk -s olddefconfig >/dev/null
# Every option of the fragment must have made it through the dependencies.
bad=0
while read -r opt; do
	grep -qx "$opt" "$BUILD_X86/.config" || { echo "missing: $opt" >&2; bad=1; }
done < <(grep '^CONFIG_' "$HARNESS/x86_64.config")
[ $bad -eq 0 ] || die "x86_64 config fragment not satisfied"

step "building x86_64 kernel and modules (-j$JOBS; a few minutes the first time)"
mk -j"$JOBS" -s bzImage modules
rm -rf "$BUILD_X86/modinst"
mk -s INSTALL_MOD_PATH="$BUILD_X86/modinst" INSTALL_MOD_STRIP=1 modules_install
cp "$WORK/tree.hash" "$BUILD_X86/.kstats-built"
step "x86_64 kernel built: $BUILD_X86/arch/x86/boot/bzImage"
