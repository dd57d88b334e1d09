#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/demo.sh
#
# Builds everything, boots the VM, runs the kstats sample (kmalloc/kfree
# times on every CPU) for a few seconds, and shows its CPUS lines and
# gnuplot plots of the distribution and of the CDF.
set -eu
. "$(dirname "$0")/lib.sh"

out=$(mktemp -d "${TMPDIR:-/tmp}/kstats-demo.XXXXXX")
"$HARNESS/vm.sh" run "$HARNESS/guest-demo.sh" > "$out/vm.log"
sed -n '/^KSTATS_CAPTURE_BEGIN/,/^KSTATS_CAPTURE_END/{/^KSTATS_CAPTURE/d;p}' \
	"$out/vm.log" > "$out/sample_kmalloc"
grep -v '^slot' "$out/vm.log" | grep -v '^KSTATS_CAPTURE' || true
[ -s "$out/sample_kmalloc" ] || die "no metric captured; see $out/vm.log"

echo
echo "grep CPUS /sys/kernel/debug/kstats/sample_kmalloc  (kmalloc+kfree, ns):"
grep CPUS "$out/sample_kmalloc"
echo
"$HARNESS/plot.sh" "$out/sample_kmalloc" pdf
"$HARNESS/plot.sh" "$out/sample_kmalloc" cdf
echo "The whole metric (per-CPU lines too) is in $out/sample_kmalloc"
