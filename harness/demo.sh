#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/demo.sh
#
# Builds everything, boots the VM, runs the kstats sample (kmalloc/kfree
# times on every CPU) and the fib_lookup and clock benchmarks, then shows
# their distributions with tools/kstats and gnuplot.
set -eu
. "$(dirname "$0")/lib.sh"
need_pkgs build-essential

out=$(mktemp -d "${TMPDIR:-/tmp}/kstats-demo.XXXXXX")
make -s -C "$TOP/tools/kstats"
static_kstats "$out"
"$HARNESS/vm.sh" run "$HARNESS/guest-demo.sh" "$out/kstats" > "$out/vm.log"
# Split the captured metrics into files named after them.
awk -v dir="$out" '/^KSTATS_CAPTURE_BEGIN / { f = dir "/" $2; next }
		   /^KSTATS_CAPTURE_END / { f = ""; next }
		   f { print > f; next } { print }' "$out/vm.log"
for m in sample_kmalloc bench_fib_lookup bench_clock_ktime_get_ns read_series; do
	[ -s "$out/$m" ] || die "no metric $m captured; see $out/vm.log"
done
kstats=$TOP/tools/kstats/kstats

echo
echo "grep CPUS /sys/kernel/debug/kstats/sample_kmalloc  (kmalloc+kfree, ns):"
grep CPUS "$out/sample_kmalloc"
echo
"$HARNESS/plot.sh" "$out/sample_kmalloc" pdf
"$HARNESS/plot.sh" "$out/sample_kmalloc" cdf
echo "kstats -u ns sample_kmalloc:"
"$kstats" -u ns "$out/sample_kmalloc"
echo
echo "kstats --per-cpu -u ns bench_fib_lookup:"
"$kstats" --per-cpu -u ns "$out/bench_fib_lookup"
echo
echo "kstats --hist -u ns bench_fib_lookup:"
COLUMNS=${COLUMNS:-100} "$kstats" --hist -u ns "$out/bench_fib_lookup"
echo
echo "kstats --hist bench_clock_ktime_get_ns (back-to-back ktime_get_ns(), ns):"
COLUMNS=${COLUMNS:-100} "$kstats" --hist "$out/bench_clock_ktime_get_ns"
echo
"$TOP/tools/kstats/kstats-plot.sh" --heatmap -t svg -s 800x450 -o "$out/read_heatmap.svg" \
	"$out/read_series"
echo "A latency heatmap of read() while dd changed its block size:" \
	"$out/read_heatmap.svg"
echo
echo "The metrics are in $out"
