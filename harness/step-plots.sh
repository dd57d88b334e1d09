#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/step-plots.sh LOGS gnuplot|tool
#
# Steps 2 and 4 of make check on the metric captured in the debug VM
# (LOGS/sample_kmalloc, harness/step-vm-report.sh): gnuplot, gnuplot of
# its distribution and CDF (harness/plot.sh); tool, once tools/kstats is
# built (harness/step-tools.sh), kstats reading it and kstats-plot on the
# terminal, per CPU and as SVG. One line per verdict (harness/verdict.sh),
# for harness/check.sh to count.
set -u
. "$(dirname "$0")/lib.sh"
step_init "harness/step-plots.sh LOGS gnuplot|tool" 2 "$@"
tk=$TOP/tools/kstats

if [ "$2" = gnuplot ]; then
if [ -s "$LOGS/sample_kmalloc" ]; then
	for what in pdf cdf; do
		"$HARNESS/plot.sh" "$LOGS/sample_kmalloc" "$what" > "$LOGS/plot-$what.txt" 2>&1
		r=$?
		[ $r -eq 0 ] || quoted < "$LOGS/plot-$what.txt"
		result $r "gnuplot $what of a captured metric"
	done
else
	fail "gnuplot: no metric captured in the VM"
fi
exit 0
fi
[ "$2" = tool ] || { echo "usage: harness/step-plots.sh LOGS gnuplot|tool" >&2; exit 2; }
if [ -x "$tk/kstats" ]; then
	if [ -s "$LOGS/sample_kmalloc" ]; then
		"$tk/kstats" --json "$LOGS/sample_kmalloc" > "$LOGS/sample.json"
		r=$?
		want=$(awk '$3 == "CPUS" { n += $6 } END { print n + 0 }' "$LOGS/sample_kmalloc")
		got=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["count"])' \
			"$LOGS/sample.json" 2>&1)
		[ $r -eq 0 ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ]
		result $? "kstats reads a metric captured from the kernel: count ${got:0:40}, the sum of its CPUS lines $want"
	fi
	# A plot shows what it says: the input's name in the legend (whose
	# end the curve may cross on a terminal), and the curve drawn.
	"$tk/kstats-plot.sh" "$LOGS/sample_kmalloc" > "$LOGS/plot1.txt" 2>&1 &&
		grep -q '|sample_k' "$LOGS/plot1.txt" &&
		[ "$(grep -v '|sample_k' "$LOGS/plot1.txt" | grep -c '\*')" -ge 3 ]
	r=$?
	[ $r -eq 0 ] || quoted < "$LOGS/plot1.txt"
	result $r "kstats-plot: distribution on the terminal, with its legend and curve"
	"$tk/kstats-plot.sh" --cdf --per-cpu "$LOGS/sample_kmalloc" "$tk/tests/corpus/two-slots" \
		> "$LOGS/plot2.txt" 2>&1
	r=$?
	missing=$(for c in $(awk '$3 == "CPU" { print $4 }' "$LOGS/sample_kmalloc" | sort -u) \
		"two-slots CPU 1"; do
		case $c in
		two-*) grep -q "$c" "$LOGS/plot2.txt" || echo "$c" ;;
		*) grep -q "sample_kmalloc CPU $c " "$LOGS/plot2.txt" || echo "sample_kmalloc CPU $c" ;;
		esac
	done)
	[ $r -eq 0 ] && [ -z "$missing" ]
	result $? "kstats-plot: per-CPU CDFs of two inputs overlaid, a curve for each CPU of each${missing:+ (missing: $missing)}"
	"$tk/kstats-plot.sh" -t svg -o "$LOGS/plot.svg" "$LOGS/sample_kmalloc" &&
		/usr/bin/python3 - "$LOGS/plot.svg" sample_kmalloc <<'PY'
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
# gnuplot's group of the input's line: its title, and a curve of points.
for g in d.getElementsByTagName('g'):
    if not g.getAttribute('id').startswith('gnuplot_plot_'):
        continue
    t = g.getElementsByTagName('title')
    if t and t[0].firstChild and t[0].firstChild.data == sys.argv[2]:
        n = max([p.getAttribute('d').count('L') for p in g.getElementsByTagName('path')] + [0])
        sys.exit(0 if n >= 6 else 'the line of %s has %d points' % (sys.argv[2], n))
sys.exit('no line titled ' + sys.argv[2])
PY
	result $? "kstats-plot: SVG output, with the input's curve and its title"
fi
