#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/cfi.sh
#
# Builds the test kernel with clang 19 and kCFI (CONFIG_CFI, not
# permissive: harness/x86_64-cfi.config), boots it and runs the KUnit
# suites and the selftests of kstats and kstats_trace there
# (harness/guest-cfi.sh): an indirect call to a function of another type,
# such as a tracepoint calling a probe that is not of its prototype, traps
# and fails the run. Prints PASS/FAIL lines and "N passed, N failed, N
# skipped" (harness/verdict.sh).
set -eu
. "$(dirname "$0")/lib.sh"

"$HARNESS/build-x86.sh" cfi
set_paths
out=$(mktemp -d "${TMPDIR:-/tmp}/kstats-cfi.XXXXXX")
trap 'rm -rf "$out"' EXIT
sel=$TOP/tools/testing/selftests/kstats
gcc -static -O2 -o "$out/kstats_helper" "$sel/kstats_helper.c"

vrc=0
VM_FLAVOR=cfi VM_CONSOLE=$out/console.log VM_TIMEOUT=${VM_TIMEOUT:-2400} \
	"$HARNESS/vm.sh" run "$HARNESS/guest-cfi.sh" "$HARNESS/guest-kunit.sh" "$sel"/*.sh \
	"$SRC/tools/testing/selftests/kselftest/ktap_helpers.sh" "$out/kstats_helper" \
	> "$out/vm.log" 2>&1 || vrc=$?
# The kernel checks its indirect calls and traps on a mismatch: built
# so, and the booted kernel has kCFI's preambles.
cfg=$BUILD_X86-cfi/.config
pre=$(sed -n 's/^KSTATS_CFI_PREAMBLES //p' "$out/vm.log")
if grep -qx 'CONFIG_CFI=y' "$cfg" && grep -qx '# CONFIG_CFI_PERMISSIVE is not set' "$cfg" &&
   [ "${pre:-0}" -gt 1000 ]; then
	pass "kCFI enforced: CONFIG_CFI=y, not permissive, $pre __cfi_ preambles in the booted kernel"
else
	said=$(grep -E '^(# )?CONFIG_CFI(_PERMISSIVE)?[= ]' "$cfg" | tr '\n' ' ')
	fail "kCFI enforced: $said${pre:-no} __cfi_ preambles"
fi
for suite in kstats kstats_trace; do
	totals=$(kunit_totals "$out/vm.log" $suite)
	# shellcheck disable=SC2046
	set -- $(echo "$totals" | grep -oE '[0-9]+')
	if [ $# -ge 4 ] && [ "$2" = 0 ] && [ "$1" -gt 0 ]; then
		pass "KUnit $suite on the kCFI kernel: $totals"
	else
		fail "KUnit $suite on the kCFI kernel: ${totals:-no results}"
	fi
done
# Each test an "ok" (tracepoint pairs and tp: among them); a skip there
# is a failure, as on make check's kernels.
count_selftests "$out/vm.log" " on the kCFI kernel" kstats_test.sh kstats_trace_test.sh
verdicts < <(grep -a '^FAIL: kernel report' "$out/vm.log")
if [ "$vrc" -ne 0 ]; then
	grep -v '^FAIL: kernel report' "$out/vm.log" | tail -n 60
	cp "$out/console.log" "$VMDIR/console-cfi.log" 2>/dev/null || true
	fail "the VM run of the kCFI kernel failed (exit $vrc; its console: $VMDIR/console-cfi.log)"
fi
verdict_summary
