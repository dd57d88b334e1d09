#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the debug VM for `make torture`: the torture selftest, between
# markers for harness/check.sh. SECONDS, KSTATS_SEED and KSTATS_FUZZ_COUNT
# come from the line harness/torture.sh puts first.
echo "kstats torture: kernel $(uname -r), $(nproc) CPUs, seed ${KSTATS_SEED:-random}"
echo "KSTATS_SELFTEST_BEGIN kstats_torture.sh"
(cd /root && KSTATS_SEED=$KSTATS_SEED KSTATS_FUZZ_COUNT=$KSTATS_FUZZ_COUNT \
	sh kstats_torture.sh "$TORTURE_SECONDS")
rc=$?
echo "KSTATS_SELFTEST_END kstats_torture.sh"
exit $rc
