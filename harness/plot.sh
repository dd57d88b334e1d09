#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/plot.sh FILE [pdf|cdf]
#
# Plots the CPUS lines of a captured kstats metric on the terminal with
# gnuplot: the distribution (count against mean, u 8:6) or the CDF
# (u 8:10). Fails on any gnuplot error or warning.
set -eu
. "$(dirname "$0")/lib.sh"
[ $# -ge 1 ] || { echo "usage: $0 FILE [pdf|cdf]" >&2; exit 2; }
file=$1
what=${2:-pdf}
need_pkgs gnuplot-nox
case $what in
pdf) using=8:6; title="samples per slot"; style="with impulses" ;;
cdf) using=8:10; title="cumulative fraction"; style="with steps" ;;
*) die "unknown plot $what" ;;
esac
err=$(mktemp)
trap 'rm -f "$err"' EXIT
gnuplot 2>"$err" <<GP
set terminal dumb size ${PLOT_COLUMNS:-100},${PLOT_LINES:-25}
set logscale x
set xlabel "ns (slot mean)"
set title "$(basename "$file"): $title"
plot "<grep CPUS '$file'" using $using $style notitle
GP
if [ -s "$err" ]; then
	cat "$err" >&2
	die "gnuplot failed on $file"
fi
