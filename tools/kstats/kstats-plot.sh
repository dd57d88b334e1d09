#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kstats-plot: plot kstats distributions with gnuplot.
set -eu

usage() {
	cat <<'USAGE'
usage: kstats-plot [options] INPUT [INPUT_B]

Plots the distribution (count against slot mean, gnuplot "u 8:6") or the
CDF ("u 8:10") of a kstats metric. INPUT is a file, a metric name (read
from /sys/kernel/debug/kstats/, or on HOST with -H), or - for stdin; input
with CPU lines only (grep CPU) is summed over its CPUs. With INPUT_B, the
two are overlaid for an A/B comparison. The long options are those of
kstats(1).

      --cdf             plot the CDF instead of the distribution
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

cdf=0 per_cpu=0 live=0 host="" term=dumb output="" size="" logx=1
while [ $# -gt 0 ]; do
	case $1 in
	--cdf) cdf=1 ;;
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

using=8:6
ylabel="samples in slot"
if [ $cdf = 1 ]; then
	using=8:10
	ylabel="cumulative fraction"
fi

plots=""
# curve DATA TITLE: one more curve of the plot command.
curve() {
	plots="$plots${plots:+, }\"$1\" using $using with steps title '$2'"
}

for input in "$@"; do
	src=$(source_of "$input")
	label=$(basename "$input")
	if [ $per_cpu = 1 ]; then
		cpus=$(sh -c "$src" | awk '$3 == "CPU" { print $4 }' | sort -un)
		for c in $cpus; do
			data="< $src | awk '\\\$3 == \\\"CPU\\\" && \\\$4 == $c'"
			curve "$data" "$label CPU $c"
		done
	elif sh -c "$src" | grep -q '^slot .* CPUS '; then
		curve "< $src | grep CPUS" "$label"
	else
		# CPU lines only: the CPUS lines they sum to, slot by slot.
		cpus="$tmp/cpus.$(echo "$label" | tr -c 'A-Za-z0-9_\n' _).$$"
		sh -c "$src" | awk '$3 == "CPU" { n[$2] += $6; s[$2] += $6 * $8; all += $6 }
			END {
				for (k in n)
					print k, n[k], s[k]
			}' | sort -n | awk -v all=0 '{ l[NR] = $0; all += $2 }
			END {
				for (i = 1; i <= NR; i++) {
					split(l[i], f, " ")
					cum += f[2]
					printf "slot %d CPUS 1 count %d avg %d p %.6f\n",
						f[1], f[2], f[2] ? f[3] / f[2] : 0, cum / all
				}
			}' > "$cpus"
		curve "$cpus" "$label"
	fi
done
[ -n "$plots" ] || { echo "kstats-plot: nothing to plot" >&2; exit 1; }

{
	echo "$setterm"
	[ $logx = 1 ] && echo "set logscale x"
	echo "set xlabel 'value (slot mean)'"
	echo "set ylabel '$ylabel'"
	echo "set key top left"
	echo "plot $plots"
	if [ "$live" != 0 ]; then
		echo "while (1) { pause $live; replot }"
	fi
} > "$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
