#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kstats-plot: plot kstats distributions with gnuplot.
set -eu

usage() {
	cat <<'USAGE'
usage: kstats-plot [options] INPUT [INPUT_B]
       kstats-plot --heatmap -t png|svg -o FILE INPUT

Plots the distribution of a kstats metric as a density: the fraction of
the samples per octave (per doubling of the value) on the default
logarithmic axis, per unit of value with --linear. Raw counts per slot
would show false peaks at each power of two, where slots double in width.
Or the CDF. INPUT is a file, a metric name (read from
/sys/kernel/debug/kstats/, or on HOST with -H), or - for stdin; input with
CPU lines only (grep CPU) is summed over its CPUs. With INPUT_B, the two
are overlaid for an A/B comparison: fractions, so that runs with different
sample counts compare. With --heatmap, INPUT is the output of
kstats --interval SECS --csv NAME: time on x, value on y (logarithmic),
colour for the samples per second and octave. The long options are those
of kstats(1).

      --cdf             plot the CDF instead of the distribution
      --heatmap         a latency heatmap of kstats --interval --csv output
      --per-cpu         one curve per CPU (default: all CPUs, the CPUS lines)
  -i, --interval SECS   redraw every SECS seconds, reading the metric again
  -H, --host HOST       read metric names on HOST through ssh
  -t, --term TERM       dumb (default; ANSI colours on a terminal), png or svg
  -o, --output FILE     the image, for png and svg
  -s, --size WxH        size: characters for dumb, pixels otherwise
      --linear          linear x axis (default: logarithmic)
  -V, --version         the version
  -h, --help            this text
USAGE
}

cdf=0 per_cpu=0 live=0 host="" term=dumb output="" size="" logx=1 heatmap=0
while [ $# -gt 0 ]; do
	case $1 in
	--cdf) cdf=1 ;;
	--heatmap) heatmap=1 ;;
	--per-cpu) per_cpu=1 ;;
	-i|--interval) live=$2; shift ;;
	-H|--host) host=$2; shift ;;
	-t|--term) term=$2; shift ;;
	-o|--output) output=$2; shift ;;
	-s|--size) size=$2; shift ;;
	--linear) logx=0 ;;
	-V|--version) echo "kstats-plot 0.1"; exit 0 ;;
	-h|--help) usage; exit 0 ;;
	-*) [ "$1" = - ] && break; usage >&2; exit 1 ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] && [ $# -le 2 ] || { usage >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "kstats-plot: gnuplot not found" >&2; exit 1; }
# The kstats beside this script (installed together), else on PATH.
KSTATS=$(dirname "$0")/kstats
[ -x "$KSTATS" ] || KSTATS=$(command -v kstats) ||
	{ echo "kstats-plot: kstats not found (make -C tools/kstats install)" >&2; exit 1; }
if [ $heatmap = 1 ]; then
	[ $# -eq 1 ] || { usage >&2; exit 1; }
	case $term in
	png|svg) ;;
	*) echo "kstats-plot: --heatmap needs -t png or -t svg" >&2; exit 1 ;;
	esac
	[ $cdf = 0 ] && [ $per_cpu = 0 ] && [ "$live" = 0 ] ||
		{ echo "kstats-plot: --heatmap: not with --cdf, --per-cpu or -i" >&2; exit 1; }
fi

# Temporary files: the gnuplot script and standard input, removed on exit.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kstats-plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

debugfs() {
	awk '$3 == "debugfs" { print $2; exit }' /proc/mounts
}

# The shell command that prints an input's metric text.
source_of() {
	if [ -n "$host" ]; then
		echo "ssh $host cat /sys/kernel/debug/kstats/$1"
	elif [ "$1" = - ]; then
		echo "cat '$tmp/stdin'"
	elif [ -e "$1" ]; then
		echo "cat '$1'"
	else
		d=$(debugfs)
		[ -n "$d" ] && [ -e "$d/kstats/$1" ] ||
			{ echo "kstats-plot: $1: no such file or metric" >&2; exit 1; }
		echo "cat '$d/kstats/$1'"
	fi
}

# Standard input is read once, here, not in the subshells below.
for input in "$@"; do
	[ "$input" = - ] && cat > "$tmp/stdin"
done

case $term in
dumb)
	setterm="set terminal dumb size ${size:-120,35}"
	# Colours for a terminal only, not into a pipe or a file.
	[ -t 1 ] && setterm="$setterm ansi256" ;;
png|svg)
	[ -n "$output" ] || { echo "kstats-plot: -t $term needs -o FILE" >&2; exit 1; }
	[ "$live" = 0 ] || { echo "kstats-plot: --live is for the terminal" >&2; exit 1; }
	driver=$term
	[ "$term" = png ] && driver=pngcairo
	setterm="set terminal $driver size $(echo "${size:-900x600}" | tr x ,)
set output '$output'" ;;
*) echo "kstats-plot: unknown terminal $term" >&2; exit 1 ;;
esac

# The data of a curve, from kstats --csv (slot,lo,hi,count,mean,cdf,
# fraction,per_octave,per_unit): the outline of the density's bars, or the
# CDF at each slot's upper bound. Values of 0 sit at 1/2 on a log axis.
if [ $cdf = 1 ]; then
	ylabel="cumulative fraction"
	shape='NR > 1 {
		if (!started) { print ($2 > 0 ? $2 : lz), 0; started = 1 }
		print $3 + 1, $6
	}'
else
	ylabel="fraction of samples per octave"
	col=8
	if [ $logx = 0 ]; then
		ylabel="fraction of samples per unit of value"
		col=9
	fi
	shape='NR > 1 {
		x0 = $2 > 0 ? $2 : lz; x1 = $3 + 1
		if (x0 != last) { if (last != "") print last, 0; print x0, 0 }
		print x0, $'$col'; print x1, $'$col'; last = x1
	}
	END { if (last != "") print last, 0 }'
fi
lz=0.5
[ $logx = 1 ] || lz=0

plots=""
n=0
# curve SOURCE KSTATS_OPTIONS TITLE: one more curve, read again at each
# replot (-i) through a script of its own.
curve() {
	n=$((n + 1))
	cat > "$tmp/curve$n.sh" <<CURVE
$1 | "$KSTATS" --csv $2 - | awk -F, -v OFS=' ' -v lz=$lz '$shape'
CURVE
	plots="$plots${plots:+, }\"< sh $tmp/curve$n.sh\" using 1:2 with lines title '$3' noenhanced"
}

if [ $heatmap = 1 ]; then
	src=$(source_of "$1")
	# A box per interval and slot: x the interval's time span, y the
	# slot's bounds, colour the samples per second and octave.
	sh -c "$src" | awk -F, '
		/^interval / {
			t += secs; secs = $0
			sub(/.* seconds /, "", secs); sub(/ .*/, "", secs)
			secs += 0; n++; next
		}
		/^slot,/ || NF < 9 { next }
		{ lo = $2 > 0 ? $2 : 0.5; hi = $3 + 1
		  if (secs > 0 && $4 > 0)
			print t + secs / 2, sqrt(lo * hi), t, t + secs, lo, hi,
				$4 / secs / log(hi / lo) * log(2) }
		END { if (!n) exit 1 }' > "$tmp/heat" ||
		{ echo "kstats-plot: $1: no intervals" \
			"(kstats --interval SECS --csv NAME writes them)" >&2; exit 1; }
	[ -s "$tmp/heat" ] || { echo "kstats-plot: $1: no samples" >&2; exit 1; }
	{
		echo "$setterm"
		echo "set logscale y"
		echo "set logscale cb"
		echo "set xlabel 'time (s)'"
		echo "set ylabel 'value'"
		echo "set cblabel 'samples per second and octave'"
		echo "set title '$(basename "$1")' noenhanced"
		echo "set autoscale xfix"
		echo "set palette defined (0 '#fff5eb', 1 '#fd8d3c', 2 '#d94801', 3 '#7f2704')"
		echo "plot '$tmp/heat' using 1:2:3:4:5:6:7" \
			"with boxxyerror fs solid 1.0 noborder lc palette notitle"
	} > "$tmp/plot.gp"
	gnuplot "$tmp/plot.gp"
	exit 0
fi

for input in "$@"; do
	src=$(source_of "$input")
	label=$(basename "$input")
	if [ $per_cpu = 1 ]; then
		cpus=$(sh -c "$src" | awk '$3 == "CPU" { print $4 }' | sort -un)
		for c in $cpus; do
			curve "$src" "--cpu $c" "$label CPU $c"
		done
	else
		curve "$src" "" "$label"
	fi
done
[ -n "$plots" ] || { echo "kstats-plot: nothing to plot" >&2; exit 1; }
# A malformed input: kstats' own message, before gnuplot's.
for c in "$tmp"/curve*.sh; do
	sh "$c" > /dev/null 2> "$tmp/err" && ! [ -s "$tmp/err" ] ||
		{ cat "$tmp/err" >&2; exit 1; }
done

{
	echo "$setterm"
	[ $logx = 1 ] && echo "set logscale x"
	echo "set xlabel 'value'"
	echo "set ylabel '$ylabel'"
	echo "set key top left"
	echo "plot $plots"
	if [ "$live" != 0 ]; then
		echo "while (1) { pause $live; replot }"
	fi
} > "$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
