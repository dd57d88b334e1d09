#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/tree.sh
#
# Prepares the kernel tree: extracts Debian's newest linux-source-7.N
# (harness/lib.sh: kernel_source) once, copies this repository's kernel
# files over it and applies its patch files. Only files whose content
# changed are written, so that builds stay incremental.
set -eu
. "$(dirname "$0")/lib.sh"

need_pkgs $BUILD_PKGS
set_paths
# One preparation at a time: make kunit and make kernel may run together.
mkdir -p "$WORK"
exec 9>"$WORK/.tree.lock"
flock 9

if [ ! -e "$SRC/.kstats-extracted" ]; then
	step "extracting $SRC_PKG $SRC_VERSION into $SRC"
	rm -rf "$SRC" "$ORIG" "$WORK/extract.tmp"
	mkdir -p "$WORK/extract.tmp"
	tar -xf "$SRC_TAR" -C "$WORK/extract.tmp"
	mv "$WORK/extract.tmp/$SRC_PKG" "$SRC"
	rmdir "$WORK/extract.tmp"
	touch "$SRC/.kstats-extracted"
fi

# Build directories of an older layout, next to the tree.
rm -rf "$WORK/build-x86_64" "$WORK/build-x86_64-debug" "$WORK/build-um" \
	"$WORK/bisect/build"

# Our files: new files only, never an existing kernel file (those are
# changed by the patch files below).
cd "$TOP"
overlay_dirs="include lib kernel samples tools Documentation"
if git rev-parse --git-dir >/dev/null 2>&1; then
	list=$(git ls-files --cached --others --exclude-standard -- $overlay_dirs)
else
	list=$(find $overlay_dirs -type f 2>/dev/null)
fi
manifest=$SRC/.kstats-overlay
printf '%s\n' $list | sort > "$manifest.new"
step "overlaying $(wc -l < "$manifest.new") files"
rsync -rc --files-from="$manifest.new" "$TOP/" "$SRC/"
# Files of an earlier overlay that are gone from the repository.
if [ -e "$manifest" ]; then
	comm -23 "$manifest" "$manifest.new" | while read -r f; do
		if [ -e "$ORIG/$f" ]; then
			cp "$ORIG/$f" "$SRC/$f"
		else
			rm -f "$SRC/$f"
		fi
	done
fi
mv "$manifest.new" "$manifest"

# Patch files for existing kernel files. Each touched file is saved once
# as it came from the package; the patches are applied to those copies
# in a staging area, and only changed results are copied to the tree.
patches=$(ls "$TOP"/patches/*.patch 2>/dev/null; ls "$TOP"/MAINTAINERS.patch 2>/dev/null || true)
for p in $patches; do
	for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p"); do
		if [ ! -e "$ORIG/$f" ]; then
			mkdir -p "$(dirname "$ORIG/$f")"
			cp -p "$SRC/$f" "$ORIG/$f"
		fi
	done
done
stage=$WORK/stage
rm -rf "$stage"
mkdir -p "$ORIG"
cp -a "$ORIG/." "$stage/"
for p in $patches; do
	step "applying ${p#"$TOP"/}"
	patch -p1 -s -f --no-backup-if-mismatch -d "$stage" < "$p" ||
		die "${p#"$TOP"/} does not apply to $SRC_PKG $SRC_VERSION"
done
rsync -rc "$stage/" "$SRC/"
rm -rf "$stage"

# A stamp of everything the builds depend on, to skip a build of an
# unchanged tree; replaced at once, as builds may be reading it.
hash_of $(sort "$manifest" | sed "s|^|$TOP/|") $patches \
	"$HARNESS"/*.config > "$WORK/tree.hash.new"
mv "$WORK/tree.hash.new" "$WORK/tree.hash"
step "kernel tree ready: $SRC ($(cat "$WORK/tree.hash"))"
