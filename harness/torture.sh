#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/torture.sh [SECONDS]   (default 60)
#
# Builds the debug kernel (harness/x86_64.config + x86_64-debug.config:
# KASAN, lockdep, kmemleak, fault injection, CPU hotplug), boots it with
# panic_on_warn and runs tools/testing/selftests/kstats/kstats_torture.sh
# for SECONDS: hotplug, fault injection, fuzzing, then everything at once.
# Any kernel report fails the run. KSTATS_SEED fixes the fuzzer's seed,
# KSTATS_FUZZ_COUNT its number of writes (3000), KSTATS_FI_ROUNDS the
# rounds of fault injection (10), KSTATS_REMOVE_ROUNDS the rounds of every
# form added and removed under load (100: about 15 minutes under TCG).
set -eu
. "$(dirname "$0")/lib.sh"

secs=${1:-60}
case $secs in
'' | *[!0-9]*) die "SECONDS must be a number, not '$secs'" ;;
esac
"$HARNESS/build-x86.sh" debug
set_paths
out=$(mktemp -d "${TMPDIR:-/tmp}/kstats-torture.XXXXXX")
trap 'rm -rf "$out"' EXIT
sel=$TOP/tools/testing/selftests
torture_files "$out" "$secs"
# Boot, KASAN and kmemleak are slow under TCG: generous time outside
# SECONDS, and 15 s per round of removal under load (about 1.2 measured).
rounds=${KSTATS_REMOVE_ROUNDS:-100}
VM_FLAVOR=debug VM_APPEND="panic_on_warn=1" VM_TIMEOUT=$((secs + 900 + 15 * rounds)) \
	"$HARNESS/vm.sh" run "$out/guest-torture.sh" "$sel/kstats/kstats_torture.sh" \
	"$sel/kstats/kstats_lib.sh" "$SRC/tools/testing/selftests/kselftest/ktap_helpers.sh" \
	"$out/kstats_helper" "$out/kstats_fuzz"
