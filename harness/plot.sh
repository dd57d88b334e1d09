#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/plot.sh FILE [pdf|cdf]
#
# Plots a captured kstats metric on the terminal with gnuplot: the
# distribution as a density, the fraction of the samples per octave that
# kstats --csv gives (counts per slot would show a sawtooth, the slots
# doubling in width at each power of two), or the CDF of the CPUS lines
# (u 8:10). Fails on any gnuplot error or warning.
#
# FILE's name reaches neither a shell nor gnuplot's commands as code, as
# in kstats-plot: kstats and grep read it as an argument, into a file of
# the temporary directory, and gnuplot gets that file's name and the title
# as arguments (gnuplot -c: ARG1, ARG2), strings that it does not parse.
set -eu
. "$(dirname "$0")/lib.sh"
[ $# -ge 1 ] || { echo "usage: $0 FILE [pdf|cdf]" >&2; exit 2; }
file=$1
what=${2:-pdf}
need_pkgs gnuplot-x11
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
err=$tmp/err
case $what in
pdf)
	# A kstats of its own: tools/kstats may be being rebuilt beside this.
	# Its files are kstats*.c (fuzz_parse.c is the fuzz target's).
	gcc -O2 -std=gnu11 -o "$tmp/kstats" "$TOP"/tools/kstats/kstats*.c -lm
	"$tmp/kstats" --csv -- "$file" > "$tmp/data" || die "kstats failed on $file"
	setup="set datafile separator ','"
	using=5:8; title="fraction of samples per octave" ;;
cdf)
	grep -e CPUS -- "$file" > "$tmp/data" || die "no CPUS line in $file"
	setup=""; using=8:10; title="cumulative fraction" ;;
*) die "unknown plot $what" ;;
esac
# The title: FILE's last path component, every character kept.
name=$file
while [ "$name" != / ] && [ "$name" != "${name%/}" ]; do
	name=${name%/}
done
[ "$name" = / ] || name=${name##*/}
cat > "$tmp/plot.gp" <<GP
set terminal dumb size ${PLOT_COLUMNS:-100},${PLOT_LINES:-25}
$setup
set logscale x
set xlabel "ns"
set title ARG2.": $title" noenhanced
plot ARG1 using $using with steps notitle
GP
gnuplot -c "$tmp/plot.gp" "$tmp/data" "$name" 2>"$err"
if [ -s "$err" ]; then
	cat "$err" >&2
	die "gnuplot failed on $file"
fi
