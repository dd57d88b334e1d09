#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kstats-plot: plot kstats distributions with gnuplot.
set -eu

usage() {
	cat <<'USAGE'
usage: kstats-plot [options] [--] INPUT [INPUT_B]
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
# A usage error: what is wrong, in a line, and where to read more.
bad_usage() {
	printf 'kstats-plot: %s\nTry '\''kstats-plot --help'\''.\n' "$1" >&2
	exit 1
}
while [ $# -gt 0 ]; do
	case $1 in
	--cdf) cdf=1 ;;
	--heatmap) heatmap=1 ;;
	--per-cpu) per_cpu=1 ;;
	-i|--interval|-H|--host|-t|--term|-o|--output|-s|--size)
		[ $# -ge 2 ] || bad_usage "option '$1' needs an argument"
		case $1 in
		-i|--interval) live=$2 ;;
		-H|--host) host=$2 ;;
		-t|--term) term=$2 ;;
		-o|--output) output=$2 ;;
		-s|--size) size=$2 ;;
		esac
		shift ;;
	--linear) logx=0 ;;
	-V|--version) echo "kstats-plot 0.1"; exit 0 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-) break ;;
	-*) bad_usage "unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || bad_usage "no input: a file, a metric name or - (standard input)"
[ $# -le 2 ] || bad_usage "$# inputs: at most two, INPUT and INPUT_B"
[ $# -eq 1 ] || [ "$1" != - ] || [ "$2" != - ] ||
	bad_usage "- (standard input) given twice"
# Option values reach gnuplot's commands: numbers only.
case $live in
''|.|*[!0-9.]*|*.*.*) bad_usage "-i: '$live' is not a number of seconds" ;;
esac
case $size in
'') ;;
[0-9]*[x,][0-9]*)
	w=${size%%[x,]*} h=${size#*[x,]}
	case $w$h in
	*[!0-9]*) bad_usage "-s: '$size' is not WxH" ;;
	esac ;;
*) bad_usage "-s: '$size' is not WxH" ;;
esac
case $term in
dumb) ;;
png|svg)
	[ -n "$output" ] || bad_usage "-t $term needs -o FILE"
	[ "$live" = 0 ] || bad_usage "-i is for the terminal" ;;
*) bad_usage "unknown terminal '$term': dumb, png or svg" ;;
esac
if [ $heatmap = 1 ]; then
	[ $# -eq 1 ] || bad_usage "--heatmap: one input"
	[ "$term" != dumb ] || bad_usage "--heatmap needs -t png or -t svg"
	[ $cdf = 0 ] && [ $per_cpu = 0 ] && [ "$live" = 0 ] ||
		bad_usage "--heatmap: not with --cdf, --per-cpu or -i"
fi
command -v gnuplot >/dev/null || { echo "kstats-plot: gnuplot not found" >&2; exit 1; }
# The kstats beside this script (installed together), else on PATH.
KSTATS=$(dirname "$0")/kstats
[ -x "$KSTATS" ] || KSTATS=$(command -v kstats) ||
	{ echo "kstats-plot: kstats not found (make -C tools/kstats install)" >&2; exit 1; }

# Temporary files: the scripts and the inputs' links, removed on exit.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kstats-plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

debugfs() {
	awk '$3 == "debugfs" { print $2; exit }' /proc/mounts
}

# An error about input $1 (printf: a name is printed as it is).
input_error() {
	printf 'kstats-plot: %s: %s\n' "$1" "$2" >&2
	exit 1
}

# No input name reaches a shell or gnuplot as code, whatever its
# characters. The scripts that read the inputs, once and at each replot
# (-i), are fixed text that names fixed files: $tmp/inK for input K, a
# symbolic link to its file or metric (or the copy of standard input);
# with -H, $tmp/rnameK, the metric's name quoted for the remote shell. The
# scripts find $tmp, kstats and the host in the environment, and gnuplot
# gets the output file and the titles as arguments (ARG1...): strings,
# that it does not parse. Option values that reach gnuplot's commands are
# numbers, checked above.
k=0
for input in "$@"; do
	k=$((k + 1))
	if [ -n "$host" ]; then
		# 'name', each ' as '\'' (the . keeps a final newline).
		printf '%s.' "$input" |
			sed "s/'/'\\\\''/g; 1s/^/'/; \$s/\\.\$/'/" > "$tmp/rname$k"
	elif [ "$input" = - ]; then
		cat > "$tmp/in$k"
	elif [ -e "$input" ]; then
		case $input in
		/*) ln -s -- "$input" "$tmp/in$k" ;;
		*) ln -s -- "$PWD/$input" "$tmp/in$k" ;;
		esac
	else
		d=$(debugfs)
		[ -n "$d" ] && [ -e "$d/kstats/$input" ] ||
			input_error "$input" "no such file or metric"
		ln -s -- "$d/kstats/$input" "$tmp/in$k"
	fi
done
cat > "$tmp/read.sh" <<'READ'
# read.sh K: the text of input K.
if [ -n "$KP_HOST" ]; then
	exec ssh -- "$KP_HOST" "cat /sys/kernel/debug/kstats/$(cat "$KP_TMP/rname$1")"
fi
exec cat "$KP_TMP/in$1"
READ
cat > "$tmp/curve.sh" <<'CURVE'
# curve.sh K [CPU]: the points of a curve of input K (of CPU only).
sh "$KP_TMP/read.sh" "$1" | "$KP_KSTATS" --csv ${2:+--cpu "$2"} - |
	awk -F, -v OFS=' ' -v lz="$KP_LZ" -f "$KP_TMP/shape.awk"
CURVE
KP_TMP=$tmp KP_KSTATS=$KSTATS KP_HOST=$host
export KP_TMP KP_KSTATS KP_HOST

# The last path component of an input, as basename(1), in $label: every
# character kept (a command substitution would drop final newlines).
label_of() {
	label=$1
	while [ "$label" != / ] && [ "$label" != "${label%/}" ]; do
		label=${label%/}
	done
	[ "$label" = / ] || label=${label##*/}
}

size=$(echo "$size" | tr x ,)
case $term in
dumb)
	setterm="set terminal dumb size ${size:-120,35}"
	# Colours for a terminal only, not into a pipe or a file.
	[ -t 1 ] && setterm="$setterm ansi256" ;;
png|svg)
	driver=$term
	[ "$term" = png ] && driver=pngcairo
	setterm="set terminal $driver size ${size:-900,600}
set output ARG1" ;;
esac

if [ $heatmap = 1 ]; then
	# A box per interval and slot: x the interval's time span, y the
	# slot's bounds, colour the samples per second and octave. The
	# intervals are one CSV, each row led by interval,time,seconds (time:
	# the interval's end), or, as kstats printed them before, a line
	# "interval N seconds S ..." above each interval's CSV.
	sh "$tmp/read.sh" 1 | awk -F, '
		/^interval,time,seconds,/ { csv = 1; n++; next }
		/^interval / {
			t += secs; secs = $0
			sub(/.* seconds /, "", secs); sub(/ .*/, "", secs)
			secs += 0; n++; next
		}
		/^slot,/ || NF < 9 { next }
		csv {
			if (!started++)
				t0 = $2 - $3
			secs = $3; t = $2 - t0 - secs
			lo = $5 > 0 ? $5 : 0.5; hi = $6 + 1; c = $7
		}
		!csv { lo = $2 > 0 ? $2 : 0.5; hi = $3 + 1; c = $4 }
		{ if (secs > 0 && c > 0)
			print t + secs / 2, sqrt(lo * hi), t, t + secs, lo, hi,
				c / secs / log(hi / lo) * log(2) }
		END { if (!n) exit 1 }' > "$tmp/heat" ||
		input_error "$1" "no intervals (kstats --interval SECS --csv NAME writes them)"
	[ -s "$tmp/heat" ] || input_error "$1" "no samples"
	label_of "$1"
	{
		echo "$setterm"
		echo "set logscale y"
		echo "set logscale cb"
		echo "set xlabel 'time (s)'"
		echo "set ylabel 'value'"
		echo "set cblabel 'samples per second and octave'"
		echo "set title ARG3 noenhanced"
		echo "set autoscale xfix"
		echo "set palette defined (0 '#fff5eb', 1 '#fd8d3c', 2 '#d94801', 3 '#7f2704')"
		echo "plot ARG2.'/heat' using 1:2:3:4:5:6:7" \
			"with boxxyerror fs solid 1.0 noborder lc palette notitle"
	} > "$tmp/plot.gp"
	gnuplot -c "$tmp/plot.gp" "$output" "$tmp" "$label"
	exit 0
fi

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
echo "$shape" > "$tmp/shape.awk"
KP_LZ=0.5
[ $logx = 1 ] || KP_LZ=0
export KP_LZ

plots=""
curves=""
# curve K CPU TITLE: one more curve, of input K (of CPU, if not empty),
# read again at each replot (-i); TITLE is a gnuplot expression.
curve() {
	plots="$plots${plots:+, }'< sh \"\$KP_TMP/curve.sh\" $1${2:+ $2}' using 1:2"
	plots="$plots with lines title $3 noenhanced"
	curves="$curves $1${2:+:$2}"
}

k=0
for input in "$@"; do
	k=$((k + 1))
	# Input K's name is gnuplot's ARG(K + 2).
	if [ $per_cpu = 1 ]; then
		cpus=$(sh "$tmp/read.sh" $k |
			awk '$3 == "CPU" && $4 ~ /^[0-9]+$/ { print $4 + 0 }' | sort -un)
		for c in $cpus; do
			curve $k "$c" "(ARG$((k + 2)).' CPU $c')"
		done
	else
		curve $k "" "ARG$((k + 2))"
	fi
done
[ -n "$plots" ] || { echo "kstats-plot: nothing to plot" >&2; exit 1; }
# A malformed input: kstats' own message, before gnuplot's.
for c in $curves; do
	k=${c%%:*} cpu=${c#"${c%%:*}"}
	cpu=${cpu#:}
	sh "$tmp/curve.sh" "$k" ${cpu:+"$cpu"} > /dev/null 2> "$tmp/err" &&
		! [ -s "$tmp/err" ] || { cat "$tmp/err" >&2; exit 1; }
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
label_of "$1"
label1=$label
label=""
[ $# -lt 2 ] || label_of "$2"
gnuplot -c "$tmp/plot.gp" "$output" "$tmp" "$label1" "$label"
