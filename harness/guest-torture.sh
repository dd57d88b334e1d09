#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the debug VM for `make torture`: the torture selftest, between
# markers for harness/check.sh. TORTURE_SECONDS, KSTATS_SEED,
# KSTATS_FUZZ_COUNT, KSTATS_FI_ROUNDS and KSTATS_REMOVE_ROUNDS come from
# the line harness/torture.sh puts first.
echo "kstats torture: kernel $(uname -r), $(nproc) CPUs, seed ${KSTATS_SEED:-random}"
echo "KSTATS_SELFTEST_BEGIN kstats_torture.sh"
(cd /root && KSTATS_SEED=$KSTATS_SEED KSTATS_FUZZ_COUNT=$KSTATS_FUZZ_COUNT \
	KSTATS_FI_ROUNDS=$KSTATS_FI_ROUNDS KSTATS_REMOVE_ROUNDS=$KSTATS_REMOVE_ROUNDS \
	sh kstats_torture.sh "$TORTURE_SECONDS")
rc=$?
echo "KSTATS_SELFTEST_END kstats_torture.sh"
exit $rc
