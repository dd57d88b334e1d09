#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the debug VM for `make torture`, and last in the VM of `make
# check` (harness/guest-check.sh): the torture selftest, between markers
# for harness/check.sh. TORTURE_SECONDS, KSTATS_SEED, KSTATS_FUZZ_COUNT,
# KSTATS_FI_ROUNDS, KSTATS_REMOVE_ROUNDS and KSTATS_RN_SWEEP come from the line that
# torture_script (harness/lib.sh) puts first. kmemleak scans when the
# torture asks it to, not a minute after boot, when its automatic scan
# would stall an emulated KASAN kernel.
[ -e /sys/kernel/debug/kmemleak ] && echo scan=off > /sys/kernel/debug/kmemleak
echo "kstats torture: kernel $(uname -r), $(nproc) CPUs, seed ${KSTATS_SEED:-random}"
echo "KSTATS_SELFTEST_BEGIN kstats_torture.sh"
(cd /root && KSTATS_SEED=$KSTATS_SEED KSTATS_FUZZ_COUNT=$KSTATS_FUZZ_COUNT \
	KSTATS_FI_ROUNDS=$KSTATS_FI_ROUNDS KSTATS_REMOVE_ROUNDS=$KSTATS_REMOVE_ROUNDS \
	KSTATS_RN_SWEEP=$KSTATS_RN_SWEEP sh kstats_torture.sh "$TORTURE_SECONDS")
rc=$?
echo "KSTATS_SELFTEST_END kstats_torture.sh"
exit $rc
