#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/step-sources.sh LOGS
#
# Step 3 of make check (and 1 of make check-quick): the checks of the
# sources and of the series that need no kernel build. checkpatch
# --strict and kernel-doc on the kernel files, checkpatch on the
# patches, MAINTAINERS, the core's API, patches.sh --check (its log in
# LOGS/patches.log), the reStructuredText and make htmldocs. One line per
# verdict (harness/verdict.sh), which harness/check.sh counts.
set -u
. "$(dirname "$0")/lib.sh"
step_init "harness/step-sources.sh LOGS" 1 "$@"
# fgwait CMD...: CMD, waited for with wait, which a signal interrupts.
fgwait() { "$@" & wait $!; }

# doc_warnings FILE...: the lines of a Sphinx log (stdin) that report a
# problem in one of the FILEs (paths in the kernel tree): matched by the
# file before a line number (Sphinx names a document without its .rst
# when the problem is in kernel-doc it pulled in: "DOC:556: FILE:462:"),
# or named by a failed kernel-doc run.
doc_warnings() {
	local re='' f
	for f in "$@"; do
		re="$re${re:+|}$(printf '%s' "$f" | sed 's/[.]/\\./g')"
	done
	grep -E "(^|[ /])($re):[0-9]+: .*(WARNING|ERROR|SEVERE|CRITICAL|warning|error)|kernel-doc.*[ /]($re)[' ].*failed"
}

cd "$TOP" || exit 1
kfiles=$(git ls-files --cached --others --exclude-standard 'include/*.h' 'lib/*.[ch]' 'kernel/*.[ch]' 'samples/*.[ch]' \
	'tools/testing/selftests/*.sh')
# Inside the kernel tree, on the overlay of the files (tree.sh made it).
for f in $kfiles; do
	out=$(cd "$SRC" && perl scripts/checkpatch.pl --strict --show-types -f "$f" 2>&1)
	checkpatch_clean "$out"
	result $? "checkpatch --strict $f"
done
for p in patches/*.patch; do
	# On stdin: given the path of a patch inside this git work tree,
	# checkpatch reports its blank context lines as trailing whitespace.
	out=$(perl "$SRC/scripts/checkpatch.pl" --strict --no-tree \
		--no-signoff --show-types - < "$p" 2>&1)
	checkpatch_clean "$out"
	result $? "checkpatch --strict $p"
done
for f in $(git ls-files --cached --others --exclude-standard 'include/*.h' 'lib/*.c' 'kernel/*.c'); do
	grep -q '^/\*\*' "$f" || continue
	out=$(python3 "$SRC/scripts/kernel-doc" -none -Wall "$f" 2>&1)
	[ -z "$out" ] || echo "$out" | quoted
	result $([ -z "$out" ]; echo $?) "kernel-doc -Wall $f"
done

# Every file of the project has the kstats entry of MAINTAINERS.
ours=$(git ls-files --cached --others --exclude-standard include lib kernel samples tools Documentation |
	grep -v '/\.kunitconfig$')
maint=$(sed -n 's/^+M:\t//p' MAINTAINERS.patch)
missing=$(cd "$SRC" && for f in $ours; do
	perl scripts/get_maintainer.pl --no-git --no-rolestats -f "$f" 2>/dev/null |
		grep -qxF "$maint" || echo "$f"
done)
[ -z "$missing" ] || echo "no kstats maintainer for: $missing"
result $([ -z "$missing" ]; echo $?) "MAINTAINERS covers every kstats file"

# kstats_record() in NMI: its kernel-doc and kstats.rst say where this_cpu
# operations on u64 are NMI safe (x86-64, arm64) and where they are not
# (32-bit x86, the generic ones under local_irq_save()).
nmi=0
for f in include/linux/kstats.h Documentation/dev-tools/kstats.rst; do
	tr '\n' ' ' < "$f" | tr -s ' *' ' ' | grep -q 'NMI.\{0,200\}x86-64.\{0,200\}32-bit x86' ||
		{ echo "$f: does not say where kstats_record() is NMI safe"; nmi=1; }
done
result $nmi "kstats.h and kstats.rst say where kstats_record() is NMI safe (x86-64) and not (32-bit x86)"

# The core's API as its review wants it: every export has a user outside
# lib/kstats.c, and one constructor; CONFIG_KSTATS is a bool, so that no
# built-in caller is left with stubs of a module.
unused=$(for sym in $(sed -n 's/^EXPORT_SYMBOL_GPL(\(.*\));$/\1/p' lib/kstats.c); do
	git grep -qE "\\b$sym\(" -- kernel samples ':!*_kunit.c' || echo "$sym"
done)
[ -z "$unused" ] || echo "exported but used nowhere else: $unused"
[ -z "$unused" ] && ! git grep -qw kstats_create -- include lib kernel samples
result $? "lib/kstats.c exports only what other code uses; kstats_new() is the one constructor"
grep -qx '+	bool "kstats: per-CPU latency distributions in debugfs"' patches/01-lib-kstats.patch &&
	grep -q '^+config KSTATS_TRACE$' patches/09-kernel-trace.patch &&
	! grep -q '^+config KSTATS_TRACE' patches/0[12]-*.patch
result $? "CONFIG_KSTATS is a bool; CONFIG_KSTATS_TRACE is in kernel/trace/Kconfig"

# The upstream series: applies, checkpatch clean, gives this tree.
fgwait "$HARNESS/patches.sh" --check > "$LOGS/patches.log" 2>&1
grep -vE '^(PASS|FAIL): ' "$LOGS/patches.log" | grep -v '^==>' | quoted || true
verdicts < "$LOGS/patches.log"
# As many checkpatch verdicts as patches: patches.sh says how many.
npatches=$(sed -n 's/^series: \([0-9]*\) patches$/\1/p' "$LOGS/patches.log")
[ -n "$npatches" ] || fail "patches --check: no 'series: N patches' line"
want=("patches: the series applies with git am" "patches: the series gives this repository's files"
	"patches: the cover letter answers each reviewer of 2020" "patches: MAINTAINERS names the submitter")
for i in $(seq "${npatches:-0}"); do
	want+=("$(printf 'patches: checkpatch --strict %04d-' "$i")")
done
expect_verdicts "$LOGS/patches.log" "patches --check" "${want[@]}"

need_pkgs python3-docutils
for f in $(git ls-files --cached --others --exclude-standard 'Documentation/*.rst'); do
	/usr/bin/python3 "$HARNESS/rstcheck.py" "$f"
	result $? "reStructuredText of $f"
done

# The kernel's own documentation build, on Documentation/dev-tools. Its
# warnings about kstats are those in kstats.rst and in the files whose
# kernel-doc it pulls in. Sphinx warns only when it reads a document, so
# kstats.rst is touched: read again on every run, warm cache or not.
need_pkgs python3-sphinx python3-sphinx-rtd-theme python3-yaml
docfiles="Documentation/dev-tools/kstats.rst Documentation/dev-tools/kstats $(sed -n 's/^\.\. kernel-doc:: *//p' \
	Documentation/dev-tools/kstats.rst | sort -u)"
touch -c "$SRC/Documentation/dev-tools/kstats.rst"
fgwait make -C "$SRC" O="$WORK/build-docs" SPHINXDIRS=dev-tools PYTHON3=/usr/bin/python3 \
	SPHINXBUILD=/usr/bin/sphinx-build htmldocs > "$LOGS/htmldocs.log" 2>&1
r=$?
html=$WORK/build-docs/Documentation/output/dev-tools/kstats.html
# shellcheck disable=SC2086
warn=$(doc_warnings $docfiles < "$LOGS/htmldocs.log")
[ -z "$warn" ] || echo "$warn"
[ $r -eq 0 ] && [ -z "$warn" ] && grep -q 'kstats_record' "$html" && grep -q 'kstats_new' "$html"
result $? "make htmldocs: dev-tools/kstats.html with the API, no warning in $docfiles"
# The filter itself, on a log whose paths all hold the word kstats.
c=/root/.cache/kstats/6.12/linux
got=$(printf '%s\n' \
	"$c/Documentation/dev-tools/kunit/index.rst:26: WARNING: unknown document: '/dev-tools/ktap'" \
	"$c/Documentation/dev-tools/kstats.rst:12: WARNING: Title underline too short." \
	"$c/lib/kstats.c:40: warning: Function parameter or struct member 'x' not described" \
	"$c/include/linux/kstats.h.orig:1: WARNING: not ours" \
	"$c/Documentation/dev-tools/kstats:556: $c/include/linux/kstats.h:40: WARNING: Inline emphasis" \
	"$c/Documentation/dev-tools/kstats_foo.rst:3: WARNING: not ours either" \
	"reading sources... [100%] kstats" | doc_warnings $docfiles | cut -d: -f1)
[ "$got" = "$(printf '%s\n' "$c/Documentation/dev-tools/kstats.rst" "$c/lib/kstats.c" \
	"$c/Documentation/dev-tools/kstats")" ]
result $? "htmldocs warnings are matched by file, not by a word of their path"
