#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/bench-tool.sh [LINES]
#
# How fast tools/kstats summarizes a large metric (default 1,000,000 lines:
# 500 slots of frac_bits 4 on 1999 CPUs), and how much memory it uses: the time of the
# best of 3 runs and the peak RSS; then what a refresh of kstats top costs
# on a group of 1000 functions on 64 CPUs (tools/kstats/tests/bench_top.py).
set -eu
. "$(dirname "$0")/lib.sh"
lines=${1:-1000000}
out=$(mktemp -d "${TMPDIR:-/tmp}/kstats-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
need_pkgs build-essential time bc
# Built in a copy of its sources: the tree's binary and objects are left
# as they are (make check runs the tool's tests beside this).
mkdir -p "$out/tool"
cp "$TOP"/tools/kstats/Makefile "$TOP"/tools/kstats/*.[ch] "$out/tool"
make -s -C "$out/tool" kstats
step "generating $lines lines"
/usr/bin/python3 - "$lines" "$out/big" <<'PY'
import random, sys
lines, path = int(sys.argv[1]), sys.argv[2]
slots = 500
cpus = max(1, lines // slots - 1)
rng = random.Random(1)
def smin(s, b=4):
    bucket = s >> b
    mant = (1 << b) | (s & 15)
    return mant << (bucket - 1) if bucket else s
# The counts first: each line's p is the cumulative fraction of its CPU's
# (or of all) samples, as the kernel prints it, ending at 1.000000.
counts = [[rng.randrange(1, 1000) for c in range(cpus)] for s in range(slots)]
tot = [sum(counts[i][c] for i in range(slots)) for c in range(cpus)]
tot_all = sum(tot)
cum = [0] * cpus
cum_all = 0
def p(n, total):
    ppm = n * 1000000 // total
    return '%d.%06d' % (ppm // 1000000, ppm % 1000000)
with open(path, 'w') as f:
    for i, s in enumerate(range(16, 16 + slots)):
        for c in range(cpus):
            cum[c] += counts[i][c]
            f.write('slot %-3d CPU  %-4d count %8d avg %8d p %s\n'
                    % (s, c, counts[i][c], smin(s), p(cum[c], tot[c])))
        cum_all += sum(counts[i])
        f.write('slot %-3d CPUS %-4d count %8d avg %8d p %s\n'
                % (s, cpus, sum(counts[i]), smin(s), p(cum_all, tot_all)))
PY
step "$(wc -l < "$out/big") lines, $(du -h "$out/big" | cut -f1)"
best=
for i in 1 2 3; do
	/usr/bin/time -f '%e %M' -o "$out/time" "$out/tool/kstats" "$out/big" > /dev/null
	read -r secs kb < "$out/time"
	if [ -z "$best" ] || [ "$(echo "$secs < $best" | bc)" = 1 ]; then best=$secs; rss=$kb; fi
done
echo "bench-tool: $(wc -l < "$out/big") lines summarized in ${best} s (best of 3), peak RSS ${rss} KiB"
# kstats top's cost per refresh of a group of 1000 functions on 64 CPUs,
# from its _summary and from each function's file (tools/kstats/tests/
# bench_top.py).
step "kstats top: a refresh of a group of 1000 functions on 64 CPUs"
/usr/bin/python3 "$TOP/tools/kstats/tests/bench_top.py" "$out/tool/kstats"
