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
logarithmic axis, per unit (or 10, 100... units) of value with --linear.
Raw counts per slot would show false peaks at each power of two, where
slots double in width.
Or the CDF, or the percentile spectrum. INPUT is a file, a metric name
(read from /sys/kernel/debug/kstats/, or on HOST with -H), or - for stdin;
input with CPU lines only (grep CPU) is summed over its CPUs. With
INPUT_B, the two are overlaid for an A/B comparison: fractions, so that
runs with different sample counts compare. With --heatmap, INPUT is the
output of kstats --interval SECS --csv NAME: time on x, value on y
(logarithmic), colour for the samples per second and octave. The long
options are those of kstats(1).

      --cdf             plot the CDF instead of the distribution
      --spectrum        the percentile spectrum: the value at each percentile,
                        on an axis of 1/(1-p) (90%, 99%, 99.9%...)
      --heatmap         a latency heatmap of kstats --interval --csv output
      --per-cpu         one curve per CPU (default: all CPUs, the CPUS lines)
      --top N           with --per-cpu, the N CPUs with the slowest p99,
                        then the most samples (default 8)
  -u, --unit ns|us|ms|s the values are in that unit: ticks as 1 us, 10 us...
  -p, --percentiles LIST  the markers of the density and the CDF
                        (default 50,99; '' for none)
      --xrange MIN:MAX  the range of the value axis, in the values' unit
                        (either may be left out: --xrange 1000:)
  -i, --interval SECS   redraw every SECS seconds, reading the metric again
  -H, --host HOST       read metric names on HOST through ssh
  -t, --term TERM       dumb (default; ANSI colours on a terminal), png or svg
  -o, --output FILE     the image, for png and svg
  -s, --size WxH        size: characters for dumb, pixels otherwise
      --linear          linear value axis (default: logarithmic)
  -V, --version         the version
  -h, --help            this text
USAGE
}

view=density per_cpu=0 live=0 host="" term=dumb output="" size="" logv=1 heatmap=0
unit="" pcts=50,99 xrange="" top=8
# The options given, to refuse those that would do nothing.
given=" "
# A usage error: what is wrong, in a line, and where to read more.
bad_usage() {
	printf 'kstats-plot: %s\nTry '\''kstats-plot --help'\''.\n' "$1" >&2
	exit 1
}
set_view() {
	[ $view = density ] || [ $view = "$1" ] || bad_usage "--$view and --$1: one of them"
	view=$1
}
while [ $# -gt 0 ]; do
	case $1 in
	--cdf) set_view cdf ;;
	--spectrum) set_view spectrum ;;
	--heatmap) heatmap=1 ;;
	--per-cpu) per_cpu=1 ;;
	-i|--interval|-H|--host|-t|--term|-o|--output|-s|--size|-u|--unit|\
	-p|--percentiles|--xrange|--top)
		[ $# -ge 2 ] || bad_usage "option '$1' needs an argument"
		case $1 in
		-i|--interval) live=$2 ;;
		-H|--host) host=$2 ;;
		-t|--term) term=$2 ;;
		-o|--output) output=$2 ;;
		-s|--size) size=$2 ;;
		-u|--unit) unit=$2 ;;
		-p|--percentiles) pcts=$2 given="$given$1 " ;;
		--xrange) xrange=$2 ;;
		--top) top=$2 given="$given$1 " ;;
		esac
		shift ;;
	--linear) logv=0 given="$given$1 " ;;
	-V|--version) echo "kstats-plot 0.2"; exit 0 ;;
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

# A decimal number, not negative: 12, 0.5, 1e6. Option values reach
# gnuplot's commands and awk's variables as numbers only.
is_number() {
	case $1 in
	''|*[!0-9.eE+-]*) return 1 ;;
	esac
	awk -v s="$1" 'BEGIN { exit !(s ~ /^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/) }'
}
case $live in
''|.|*[!0-9.]*|*.*.*) bad_usage "-i: '$live' is not a number of seconds" ;;
esac
case $size in
'') ;;
[0-9]*[x,][0-9]*)
	w=${size%%[x,]*} h=${size#*[x,]}
	case $w$h in
	*[!0-9]*) bad_usage "-s: '$size' is not WxH" ;;
	esac
	# What the plot needs, and what gnuplot takes ("size: out of range").
	w=${w#"${w%%[!0]*}"} h=${h#"${h%%[!0]*}"}
	w=${w:-0} h=${h:-0}
	[ ${#w} -le 5 ] && [ ${#h} -le 5 ] || w=0
	if [ "$term" = dumb ]; then
		range="40 to 1000 characters wide, 12 to 500 high"
		[ $w -ge 40 ] && [ $w -le 1000 ] && [ $h -ge 12 ] && [ $h -le 500 ] ||
			bad_usage "-s: '$size' is out of range: $range"
	else
		range="200 to 10000 pixels wide, 150 to 10000 high"
		[ $w -ge 200 ] && [ $w -le 10000 ] && [ $h -ge 150 ] && [ $h -le 10000 ] ||
			bad_usage "-s: '$size' is out of range: $range"
	fi ;;
*) bad_usage "-s: '$size' is not WxH" ;;
esac
case $unit in
''|ns|us|ms|s) ;;
*) bad_usage "-u: '$unit' is not ns, us, ms or s" ;;
esac
case $top in
''|*[!0-9]*|0|0*) bad_usage "--top: '$top' is not a number of CPUs (1 or more)" ;;
esac
# The percentiles, each above 0 and at most 100, as a list of numbers.
if [ -n "$pcts" ]; then
	(IFS=,
	for q in $pcts; do
		is_number "$q" && awk -v q="$q" 'BEGIN { exit !(q > 0 && q <= 100) }' || exit 1
	done) || bad_usage "-p: '$pcts' is not a list of percentiles above 0, up to 100"
	case $pcts in
	,*|*,|*,,*) bad_usage "-p: '$pcts' is not a list of percentiles above 0, up to 100" ;;
	esac
fi
# --xrange MIN:MAX, each a number or empty (the data's), MIN below MAX,
# above 0 on a logarithmic axis.
xmin="" xmax=""
if [ -n "$xrange" ]; then
	case $xrange in
	*:*:*) bad_usage "--xrange: '$xrange' is not MIN:MAX" ;;
	*:*) xmin=${xrange%%:*} xmax=${xrange#*:} ;;
	*) bad_usage "--xrange: '$xrange' is not MIN:MAX" ;;
	esac
	{ [ -z "$xmin" ] || is_number "$xmin"; } && { [ -z "$xmax" ] || is_number "$xmax"; } &&
		[ "$xmin$xmax" != "" ] || bad_usage "--xrange: '$xrange' is not MIN:MAX (numbers)"
	[ -z "$xmin" ] || [ -z "$xmax" ] ||
		awk -v a="$xmin" -v b="$xmax" 'BEGIN { exit !(a + 0 < b + 0) }' ||
		bad_usage "--xrange: '$xrange': MIN is not below MAX"
	[ $logv = 0 ] || [ -z "$xmin" ] || awk -v a="$xmin" 'BEGIN { exit !(a + 0 > 0) }' ||
		bad_usage "--xrange: '$xrange': MIN is 0 on a logarithmic axis (--linear?)"
fi
case $term in
dumb) [ -z "$output" ] || [ "$live" = 0 ] || bad_usage "-i is for the terminal, not with -o" ;;
png|svg)
	[ -n "$output" ] || bad_usage "-t $term needs -o FILE"
	[ "$live" = 0 ] || bad_usage "-i is for the terminal" ;;
*) bad_usage "unknown terminal '$term': dumb, png or svg" ;;
esac
if [ $heatmap = 1 ]; then
	[ $# -eq 1 ] || bad_usage "--heatmap: one input"
	[ "$term" != dumb ] || bad_usage "--heatmap needs -t png or -t svg"
	[ $view = density ] && [ $per_cpu = 0 ] && [ "$live" = 0 ] ||
		bad_usage "--heatmap: not with --cdf, --spectrum, --per-cpu or -i"
fi
# An option that would do nothing here: its name as given, for the message.
given() {
	for o in "$@"; do
		case $given in
		*" $o "*) echo "$o"; return 0 ;;
		esac
	done
	return 1
}
if [ -n "$pcts" ] && o=$(given -p --percentiles); then
	[ $view != spectrum ] ||
		bad_usage "$o: no markers on --spectrum, whose axis is the percentiles"
	[ $heatmap = 0 ] || bad_usage "$o: no markers on --heatmap"
fi
if o=$(given --linear); then
	[ $heatmap = 0 ] || bad_usage "$o: --heatmap's value axis is logarithmic only"
fi
if o=$(given --top); then
	[ $per_cpu = 1 ] || bad_usage "$o: the CPUs with the slowest p99, with --per-cpu only"
fi
command -v gnuplot >/dev/null || { echo "kstats-plot: gnuplot not found" >&2; exit 1; }
# The kstats beside this script (installed together), else on PATH.
KSTATS=$(dirname "$0")/kstats
[ -x "$KSTATS" ] || KSTATS=$(command -v kstats) ||
	{ echo "kstats-plot: kstats not found (make -C tools/kstats install)" >&2; exit 1; }

# An error about input or output $1 (printf: a name is printed as it is).
input_error() {
	printf 'kstats-plot: %s: %s\n' "$1" "$2" >&2
	exit 1
}

# The output must be writable before anything runs: opened for appending,
# which neither truncates it nor, if it is not there, leaves it behind.
# gnuplot writes the image into the temporary directory, copied to the
# output only when complete.
if [ -n "$output" ]; then
	dir=$(dirname -- "$output"; echo .)
	dir=${dir%?.}
	if [ -d "$output" ]; then
		input_error "$output" "cannot write the image: a directory"
	elif ! [ -d "$dir" ]; then
		input_error "$output" "cannot write the image: no directory $dir"
	elif [ -e "$output" ]; then
		(true >> "$output") 2> /dev/null ||
			input_error "$output" "cannot write the image: not writable"
	else
		(true >> "$output") 2> /dev/null ||
			input_error "$output" "cannot write the image: cannot create it in $dir"
		rm -f -- "$output"
	fi
fi

# Temporary files: the scripts and the inputs' links, removed on exit.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kstats-plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

debugfs() {
	awk '$3 == "debugfs" { print $2; exit }' /proc/mounts
}

# No input name reaches a shell or gnuplot as code, whatever its
# characters. The scripts that read the inputs, once and at each redraw
# (-i), are fixed text that names fixed files: $tmp/inK for input K, a
# symbolic link to its file or metric (or the copy of standard input);
# with -H, $tmp/rnameK, the metric's name quoted for the remote shell;
# $tmp/nameK, its name for the messages. The scripts find $tmp, kstats,
# the host and the options in the environment, and gnuplot gets the titles
# as arguments (ARG1...): strings, that it does not parse. What the
# scripts write for gnuplot to load has numbers only, and fixed text.
k=0
for input in "$@"; do
	k=$((k + 1))
	if [ "$input" = - ]; then
		printf 'standard input' > "$tmp/name$k"
	else
		printf '%s' "$input" > "$tmp/name$k"
	fi
	if [ -n "$host" ]; then
		# 'name', each ' as '\'' (the . keeps a final newline).
		printf '%s.' "$input" |
			sed "s/'/'\\\\''/g; 1s/^/'/; \$s/\\.\$/'/" > "$tmp/rname$k"
	elif [ "$input" = - ]; then
		cat > "$tmp/in$k"
	elif [ -d "$input" ]; then
		input_error "$input" "a directory (a group?): plot one of its functions' files"
	elif [ -e "$input" ]; then
		case $input in
		/*) ln -s -- "$input" "$tmp/in$k" ;;
		*) ln -s -- "$PWD/$input" "$tmp/in$k" ;;
		esac
	else
		d=$(debugfs)
		[ -n "$d" ] && [ -e "$d/kstats/$input" ] ||
			input_error "$input" "no such file or metric"
		[ ! -d "$d/kstats/$input" ] ||
			input_error "$input" "a group: plot one of its functions ($input/FUNCTION)"
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

# The ticks of an axis, gnuplot's "set Xtics (...)" with a label for each
# major tick: engineering notation, with the unit's prefix (1 us, 10 us,
# 1 ms, 10000 s, 1e5 s; without a unit 500, 1k, 10k, 1M), one style for
# the whole axis.
# gnuplot reads a label as the format of its position: a % is %%.
cat > "$tmp/ticks.awk" <<'TICKS'
function floor(x) { return x == int(x) ? x : x < 0 ? int(x) - 1 : int(x) }
function ceil(x) { return -floor(-x) }
function log10(x) { return log(x) / log(10) }
# v (in the base unit: s, or the values' own) as 2.5 us, or 2.5k.
function eng(v, u,   e, s, top) {
	if (v == 0)
		return "0"
	e = floor(log10(v) / 3 + 1e-9)
	# Up to E, or s for a time: 10000 s, not 10 ks.
	top = u != "" ? 0 : 6
	e = e < -4 ? -4 : e > top ? top : e
	s = sprintf("%.3g", v / 10 ^ (3 * e))
	if (s + 0 >= 1000 && e < top) {
		e++
		s = sprintf("%.3g", v / 10 ^ (3 * e))
	}
	if (s ~ /e/)
		s = sprintf("%.0f", v / 10 ^ (3 * e))
	# 1e5 s, not 100000 s: the labels of a wide axis stay apart.
	if (u != "" && v >= 1e5 * (1 - 1e-9)) {
		e = floor(log10(v) + 1e-9)
		s = sprintf("%.3g", v / 10 ^ e)
		return s "e" e " " u
	}
	return u != "" ? s " " PFX[e] u : s PFX[e]
}
function tick(pos, label, minor) {
	TLEN = length(label) > TLEN ? length(label) : TLEN
	TICKS = TICKS (TICKS == "" ? "" : ", ") \
		(minor ? sprintf("\"\" %.10g 1", pos) : sprintf("\"%s\" %.10g", label, pos))
}
# Nice linear ticks between lo and hi (base unit): steps of 1, 2 or 5
# times a power of ten, about 6 of them.
function lin_ticks(lo, hi, scale, u,   raw, p, m, step, i, t, n) {
	raw = (hi - lo) / 6
	if (raw <= 0)
		raw = hi > 0 ? hi / 6 : 1
	p = 10 ^ floor(log10(raw))
	m = raw / p
	step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p
	# At most 20 (a bound, whatever lo and hi are).
	for (i = ceil(lo / step - 1e-9); i * step <= hi * (1 + 1e-9) && n++ < 20; i++) {
		t = i * step
		tick(t / scale, eng(t, u), 0)
	}
}
# The ticks of an axis from lo to hi (in the values' unit, scale to the
# base unit): powers of ten on a logarithmic axis that spans two or more
# (with 2 and 5 times them when it spans two only), linear ones otherwise.
function axis_ticks(axis, lo, hi, islog, scale, u,   blo, bhi, k0, k1, k, every, m, t) {
	TICKS = ""
	TLEN = 0
	blo = lo * scale
	bhi = hi * scale
	if (islog && blo > 0) {
		k0 = ceil(log10(blo) - 1e-9)
		k1 = floor(log10(bhi) + 1e-9)
	}
	if (islog && blo > 0 && k1 - k0 >= 1) {
		every = k1 - k0 + 1 > 10 ? ceil((k1 - k0 + 1) / 10) : 1
		for (k = k0 - 1; k <= k1 && k <= k0 + 400; k++)
			for (m = 1; m < 10; m++) {
				t = m * 10 ^ k
				if (t < blo * (1 - 1e-9) || t > bhi * (1 + 1e-9))
					continue
				if (m == 1 && k % every == 0)
					tick(t / scale, eng(t, u), 0)
				else if ((m == 2 || m == 5) && k1 - k0 <= 1)
					tick(t / scale, eng(t, u), 0)
				else if (every == 1)
					tick(t / scale, "", 1)
			}
	} else
		lin_ticks(blo, bhi, scale, u)
	return "set " axis "tics (" TICKS ")"
}
# The range of a value axis, lo to hi with a margin, as the options ask.
function axis_range(axis, lo, hi, islog, umin, umax,   m) {
	if (islog) {
		m = log(hi / lo) * 0.03
		if (m < 0.02)
			m = 0.02
		lo /= exp(m)
		hi *= exp(m)
	} else {
		m = (hi - lo) * 0.03
		if (m <= 0)
			m = hi > 0 ? hi * 0.1 : 1
		lo = lo - m < 0 && lo >= 0 ? 0 : lo - m
		hi += m
	}
	if (umin != "")
		lo = umin + 0
	if (umax != "")
		hi = umax + 0
	if (lo >= hi)
		hi = islog ? lo * 10 : lo + 1
	RLO = lo
	RHI = hi
	return sprintf("set %srange [%.10g:%.10g]", axis, lo, hi)
}
BEGIN {
	PFX[-4] = "p"; PFX[-3] = "n"; PFX[-2] = "u"; PFX[-1] = "m"; PFX[0] = ""
	PFX[1] = "k"; PFX[2] = "M"; PFX[3] = "G"; PFX[4] = "T"; PFX[5] = "P"; PFX[6] = "E"
}
TICKS

case $unit in
ns) scale=1e-9 ;;
us) scale=1e-6 ;;
ms) scale=1e-3 ;;
s) scale=1 ;;
*) scale=1 ;;
esac
bunit=""
[ -z "$unit" ] || bunit=s
if [ -n "$unit" ]; then
	vlabel="latency"
else
	vlabel="value"
fi
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

# The last $2 path components of $1 in $label, or all of it (then
# $whole is 1), trailing slashes left out, every character kept.
suffix_of() {
	label=$1 whole=0
	while [ "$label" != / ] && [ "$label" != "${label%/}" ]; do
		label=${label%/}
	done
	sf_rest=$label sf_n=$2 label=""
	while [ $sf_n -gt 0 ]; do
		case $sf_rest in
		*/*) label=${sf_rest##*/}${label:+/}$label sf_rest=${sf_rest%/*} ;;
		*) label=$sf_rest${label:+/}$label whole=1; break ;;
		esac
		sf_n=$((sf_n - 1))
	done
	[ -n "$sf_rest" ] || whole=1
}

# The legend's titles of inputs $1 and $2, in $label1 and $label2: their
# last path components, or if those are the same, the shortest ends of
# their paths that differ (a/x.txt and b/x.txt); the same path twice:
# NAME (A) and NAME (B).
labels_of() {
	lb_n=1
	while :; do
		suffix_of "$1" $lb_n
		label1=$label lb_whole=$whole
		suffix_of "$2" $lb_n
		label2=$label
		[ "$label1" = "$label2" ] || return 0
		[ $lb_whole = 0 ] || [ $whole = 0 ] || break
		lb_n=$((lb_n + 1))
	done
	label_of "$1"
	label1="$label (A)" label2="$label (B)"
}

size=$(echo "$size" | tr x ,)
case $term in
dumb)
	setterm="set terminal dumb size ${size:-120,35}"
	# Colours for a terminal only, not into a pipe or a file.
	[ -t 1 ] && [ -z "$output" ] && setterm="$setterm ansi256"
	[ -z "$output" ] || setterm="$setterm
set output ARG1" ;;
png|svg)
	driver=$term
	[ "$term" = png ] && driver=pngcairo
	setterm="set terminal $driver size ${size:-900,600}
set output ARG1" ;;
esac

if [ $heatmap = 1 ]; then
	name1=$1
	[ "$1" != - ] || name1="standard input"
	# A box per interval and slot: x the interval's time span, y the
	# slot's bounds, colour the samples per second and octave. The
	# intervals are one CSV, each row led by interval,time,seconds (time:
	# the interval's end), or, as kstats printed them before, a line
	# "interval N seconds S ..." above each interval's CSV.
	cat > "$tmp/heat.awk" <<'HEAT'
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
	lo = $5 > 0 ? $5 : 0.5; hi = $6 + 1; k = $7
}
!csv { lo = $2 > 0 ? $2 : 0.5; hi = $3 + 1; k = $4 }
{
  if (secs > 0 && k > 0) {
	c = k / secs / log(hi / lo) * log(2)
	# Each box a little larger than its slot and interval: edge to
	# edge, the antialiasing of images draws a light seam between them.
	print t + secs / 2, sqrt(lo * hi), t - secs * 0.02, t + secs * 1.02,
		lo / 1.01, hi * 1.01, c
	if (!m++ || lo < ylo) ylo = lo
	if (m == 1 || hi > yhi) yhi = hi
	if (m == 1 || c < clo) clo = c
	if (m == 1 || c > chi) chi = c
  }
}
END {
	if (!n)
		exit 1
	if (!m)
		exit
	f = dir "/frame.gp"
	print axis_range("y", ylo, yhi, 1, umin, umax) > f
	print axis_ticks("y", RLO, RHI, 1, scale, u) > f
	if (chi <= clo)
		chi = clo * 2
	printf "set cbrange [%.10g:%.10g]\n", clo, chi > f
	print axis_ticks("cb", clo, chi, 1, 1, "") > f
	# gnuplot places the label by the width of its own labels, not of
	# those given: right of the longest of these.
	printf "set cblabel 'samples per second and octave' offset character %d, 0\n", TLEN - 1 > f
}
HEAT
	sh "$tmp/read.sh" 1 | awk -F, -v dir="$tmp" -v scale=$scale -v u="$bunit" \
		-v umin="$xmin" -v umax="$xmax" -f "$tmp/ticks.awk" -f "$tmp/heat.awk" \
		> "$tmp/heat" ||
		input_error "$name1" "no intervals (kstats --interval SECS --csv NAME writes them)"
	[ -s "$tmp/heat" ] || input_error "$name1" "no samples"
	label_of "$1"
	{
		echo "$setterm"
		echo "set logscale y"
		echo "set logscale cb"
		echo "set xlabel 'time (s)'"
		echo "set ylabel '$vlabel'"
		echo "set title ARG3 noenhanced"
		echo "set xrange [0:*]"
		echo "set autoscale xfixmax"
		echo "load ARG2.'/frame.gp'"
		echo "set palette defined (0 '#fdd0a2', 1 '#fd8d3c', 2 '#d94801', 3 '#7f2704')"
		echo "plot ARG2.'/heat' using 1:2:3:4:5:6:7" \
			"with boxxyerror fs solid 1.0 noborder lc palette notitle"
	} > "$tmp/plot.gp"
	gnuplot -c "$tmp/plot.gp" "$tmp/image" "$tmp" "$label"
	cat "$tmp/image" > "$output"
	exit 0
fi

# The curves, from kstats --csv (slot,lo,hi,count,mean,cdf,...) of each
# input, read once; with --per-cpu, each CPU's counts from the input's CPU
# lines, of the slots that kstats read. Writes $KP_TMP/data, a block per
# curve (gnuplot's index), and prints $KP_TMP/frame.gp: the ranges, ticks,
# percentile markers and the plot command, numbers and fixed text only;
# the titles are gnuplot's NAME1 and NAME2. An input that has no samples
# or CPU lines is said in $KP_TMP/awkerr: K, then what is wrong.
cat > "$tmp/curves.awk" <<'CURVES'
function fail(k, msg) {
	printf "%d %s\n", k, msg > (dir "/awkerr")
	exit 1
}
function min(a, b) { return a == "" || b < a ? b : a }
function max(a, b) { return a == "" || b > a ? b : a }
function out(x, y) { printf "%.10g %.10g\n", x, y > data }
function read_csv(k,   f, line, v, i) {
	f = dir "/csv" k
	NS[k] = 0
	NALL[k] = 0
	while ((getline line < f) > 0) {
		if (line ~ /^slot,/)
			continue
		split(line, v, ",")
		i = ++NS[k]
		SLOT[k, i] = v[1] + 0
		LO[k, i] = v[2] + 0
		HI[k, i] = v[3] + 0
		CNT[k, i] = v[4] + 0
		MEAN[k, i] = v[5] + 0
		IDX[k, v[1] + 0] = i
		NALL[k] += v[4]
	}
	close(f)
	if (!NALL[k])
		fail(k, "no samples")
}
# The curve of input k whose counts are C[1..NS[k]] (means M[]), into the
# data file; the extent of the value axis into VMIN and VMAX.
function curve(k,   i, T, c, lo, hi, x0, x1, y, last, cum, first, xa, xb) {
	T = 0
	for (i = 1; i <= NS[k]; i++)
		T += C[i]
	if (NCURVES++)
		printf "\n\n" > data
	last = ""
	cum = 0
	first = 1
	for (i = 1; i <= NS[k]; i++) {
		if (!(c = C[i]))
			continue
		lo = LO[k, i]
		hi = HI[k, i]
		x0 = lo > 0 ? lo : lz
		x1 = hi + 1
		if (view == "density") {
			y = c / T / (logv ? log(x1 / (lo > 0 ? lo : 0.5)) / log(2) : hi - lo + 1)
			if (x0 != last) {
				if (last != "")
					out(last, 0)
				out(x0, 0)
			}
			out(x0, y)
			out(x1, y)
			last = x1
			DMAX = max(DMAX, y)
		} else if (view == "cdf") {
			if (first)
				out(x0, 0)
			cum += c
			out(x1, cum / T)
		} else {
			# The spectrum: the slot's mean for the fractions p of
			# the samples that it holds, at x = 1/(1-p); the last
			# sample at 1/(1 - (T-1)/T) = T.
			xa = T / (T - cum)
			cum += c
			xb = cum < T ? T / (T - cum) : T
			y = M[i] > 0 || !logv ? M[i] : lz
			out(xa, y)
			out(xb, y)
			VMIN = min(VMIN, y)
			VMAX = max(VMAX, y)
			XMAX = max(XMAX, T)
		}
		if (view != "spectrum") {
			if (first)
				VMIN = min(VMIN, x0)
			VMAX = max(VMAX, x1)
		}
		first = 0
	}
	if (view == "density" && last != "")
		out(last, 0)
}
function plot(k, cpu, style, title) {
	PLOT = PLOT (PLOT == "" ? "plot " : ", \\\n\t") \
		sprintf("KP_DIR.'/data' index %d using 1:($2 * YS) with lines %s title %s %s",
			NCURVES - 1, style, title, "noenhanced")
}
# Each CPU of input k, at most top of them: those whose tail is the
# slowest, by the slot of their p99 (the first whose cumulative p reaches
# 0.99), then by their samples: a CPU several times slower than the rest
# shows, whatever its share of the samples.
function per_cpu(k,   f, line, w, cpu, ncpu, sel, i, j, best, list, n, t) {
	f = dir "/text" k
	split("", TOT)
	split("", P99)
	while ((getline line < f) > 0) {
		split(line, w)
		if (w[1] == "slot" && w[3] == "CPU" && w[6] > 0) {
			TOT[w[4] + 0] += w[6]
			if (w[10] >= 0.99 && (!((w[4] + 0) in P99) || w[2] + 0 < P99[w[4] + 0]))
				P99[w[4] + 0] = w[2] + 0
		}
	}
	close(f)
	ncpu = 0
	for (cpu in TOT)
		ncpu++
	if (!ncpu)
		fail(k, "no CPU lines: --per-cpu needs them (not grep CPUS)")
	split("", SEL)
	n = 0
	for (j = 0; j < (ncpu < top ? ncpu : top); j++) {
		best = ""
		for (cpu in TOT)
			if (!((cpu + 0) in SEL) && (best == "" || P99[cpu] > P99[best] ||
			    P99[cpu] == P99[best] && (TOT[cpu] > TOT[best] ||
			    TOT[cpu] == TOT[best] && cpu + 0 < best + 0)))
				best = cpu
		SEL[best + 0] = 1
		list[++n] = best + 0
	}
	# In the order of the CPUs.
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && list[j - 1] > list[j]; j--) {
			t = list[j]; list[j] = list[j - 1]; list[j - 1] = t
		}
	if (ncpu > top) {
		printf "%d the %d of its %d CPUs with the slowest p99\n", k, top, ncpu \
			> (dir "/notes")
		TITLE = TITLE (TITLE == "" ? "" : ".'; '.") \
			sprintf("NAME%d.': the %d of its %d CPUs with the slowest p99'",
				k, top, ncpu)
	}
	split("", PC)
	split("", PM)
	while ((getline line < f) > 0) {
		split(line, w)
		if (w[1] == "slot" && w[3] == "CPU" && ((w[4] + 0) in SEL) &&
		    ((k, w[2] + 0) in IDX)) {
			PC[w[4] + 0, IDX[k, w[2] + 0]] = w[6] + 0
			PM[w[4] + 0, IDX[k, w[2] + 0]] = w[8] + 0
		}
	}
	close(f)
	for (j = 1; j <= n; j++) {
		for (i = 1; i <= NS[k]; i++) {
			C[i] = (list[j], i) in PC ? PC[list[j], i] : 0
			M[i] = (list[j], i) in PM ? PM[list[j], i] : 0
		}
		curve(k)
		plot(k, list[j], sprintf("lt %d dt %d", NCURVES, k),
		     sprintf("NAME%d.' CPU %d'", k, list[j]))
	}
}
# The percentile markers of input k (all its CPUs): a vertical line at
# the mean of the slot of each percentile's rank (nearest rank, as kstats).
function markers(k,   np, q, i, j, r, cum, x, colour, ly, ytop) {
	np = split(pcts, q, ",")
	colour = percpu ? "lc rgb '#505050'" : sprintf("lc %d", k)
	for (j = 1; j <= np; j++) {
		r = q[j] / 100 * NALL[k]
		r = r == int(r) ? r : int(r) + 1
		r = r < 1 ? 1 : r > NALL[k] ? NALL[k] : r
		cum = 0
		for (i = 1; i <= NS[k]; i++) {
			cum += CNT[k, i]
			if (cum >= r)
				break
		}
		x = MEAN[k, i] > 0 || !logv ? MEAN[k, i] : lz
		# On the CDF, up to the curve's height there (the fraction
		# q), clear of the key above.
		ytop = view == "cdf" ? sprintf("first %.10g", q[j] / 100) : "graph 0.99"
		MARK = MARK sprintf("set arrow from %.10g, graph 0 to %.10g, %s %s\n", x, x,
				    ytop, "nohead dt 2 " colour)
		NL++
		LX[NL] = x
		LT[NL] = sprintf("p%g", q[j])
		LC[NL] = percpu ? "rgb '#505050'" : "lt " k
	}
}
# The markers' labels, right of their lines, in rows: at the top of the
# density (above the curves, see LABELS), at the bottom of the CDF, where
# the curves are not. From left to right, each in the first row where it
# clears the labels already there, and the key (top left, keyw characters
# wide, a row per curve) by a character; the plot is about cols
# characters wide. Once 6 rows are full, the one that ends first.
function place_labels(   i, j, t, o, f, w, r, best, ly, ROW, left, x0, at, ln) {
	for (i = 1; i <= NL; i++) {
		o[i] = i
		f[i] = logv ? log(LX[i] / RLO) / log(RHI / RLO) : (LX[i] - RLO) / (RHI - RLO)
	}
	for (i = 2; i <= NL; i++)
		for (j = i; j > 1 && f[o[j - 1]] > f[o[j]]; j--) {
			t = o[j]; o[j] = o[j - 1]; o[j - 1] = t
		}
	# The key's rows: on a terminal (rows, the lines of the graph, given),
	# each label row that falls on a line of the key's (from the second
	# below the top border, one per curve) or the one under it; else a
	# label row per curve of the key.
	for (r = 0; r < 6; r++) {
		ln = int((0.03 + 0.05 * r) * rows + 0.5)
		ROW[r] = -1
		if (view == "density" && logv &&
		    (rows ? ln >= 2 && ln <= NCURVES + 2 : r < NCURVES))
			ROW[r] = keyw / cols
	}
	for (i = 1; i <= NL; i++) {
		w = (length(LT[o[i]]) + 1.5) / cols
		# Past the right border: left of its line.
		left = f[o[i]] + w > 1
		x0 = left ? f[o[i]] - w : f[o[i]]
		best = 0
		for (r = 0; r < 6 && ROW[r] > x0; r++)
			if (ROW[r] < ROW[best])
				best = r
		r = r < 6 ? r : best
		ROW[r] = x0 + w
		ly = view == "cdf" ? 0.05 + 0.05 * r : 0.97 - 0.05 * r
		LABELS = LABELS > ly || LABELS == "" ? ly : LABELS
		at = left ? "right offset character -0.5, 0" : "left offset character 0.5, 0"
		MARK = MARK sprintf("set label \"%s\" at %.10g, graph %.3f %s tc %s front boxed\n",
				    LT[o[i]], LX[o[i]], ly, at, LC[o[i]])
	}
}
BEGIN {
	data = dir "/data.new"
	printf "" > data
	for (k = 1; k <= n; k++)
		read_csv(k)
	for (k = 1; k <= n; k++) {
		if (percpu)
			per_cpu(k)
		else {
			for (i = 1; i <= NS[k]; i++) {
				C[i] = CNT[k, i]
				M[i] = MEAN[k, i]
			}
			curve(k)
			plot(k, -1, sprintf("lt %d", k), "NAME" k)
		}
		if (view != "spectrum" && pcts != "")
			markers(k)
	}
	YS = 1
	print "unset arrow"
	print "unset label"
	print "unset title"
	if (view == "spectrum") {
		print axis_range("y", VMIN, VMAX, logv, umin, umax)
		print axis_ticks("y", RLO, RHI, logv, scale, u)
		# x = 1/(1-p): 1 is 0%, 10 is 90%, 100 is 99%...; a margin of
		# 3% of the axis either side (the start of the curve at 0%
		# off the border).
		xmax = XMAX * 1.3
		printf "set xrange [%.10g:%.10g]\n", exp(-0.03 * log(xmax)), xmax
		TICKS = ""
		for (k = 0; 10 ^ k <= xmax && k < 30; k++) {
			if (k < 3)
				label = sprintf("%d%%%%", 100 - 100 / 10 ^ k)
			else
				label = sprintf("%." (k - 2) "f%%%%", 100 - 100 / 10 ^ k)
			tick(10 ^ k, label, 0)
			if (k == 0 && 2 <= xmax)
				tick(2, "50%%", 0)
			for (m = 2; m < 10; m++)
				if (m * 10 ^ k <= xmax && (k || m != 2))
					tick(m * 10 ^ k, "", 1)
		}
		print "set xtics (" TICKS ")"
	} else {
		print axis_range("x", VMIN, VMAX, logv, umin, umax)
		print axis_ticks("x", RLO, RHI, logv, scale, u)
		place_labels()
		printf "%s", MARK
		# The linear density per 10^k units of value, k such that its
		# top reads 0.1 to 1 (not 5e-05 beside 0.0001): per 1 us.
		if (view == "density" && !logv) {
			if (DMAX > 0 && DMAX < 0.1)
				YS = 10 ^ (ceil(-log10(DMAX) - 1e-9) - 1)
			per = YS == 1 ? "unit of value" : sprintf("%.0f units of value", YS)
			if (u != "")
				per = eng(YS * scale, u)
			printf "set ylabel 'fraction of samples per %s'\n", per
		}
		# The density below the lowest row of labels.
		if (view == "density" && LABELS != "")
			printf "set yrange [0:%.10g]\n", DMAX * YS / (LABELS - 0.04)
		else
			print "set yrange [0:*]"
	}
	if (TITLE != "")
		print "set title " TITLE " noenhanced"
	printf "YS = %.10g\n", YS
	print PLOT
}
CURVES

# prep.sh: reads each input once, then the curves. Prints kstats' message
# on a malformed input, naming the input; exits 1 then.
cat > "$tmp/prep.sh" <<'PREP'
# An error about input $1: its name, then the message.
error() {
	{ printf 'kstats-plot: '; cat "$KP_TMP/name$1"; printf ': %s\n' "$2"; } >&2
	exit 1
}
k=1
while [ $k -le $KP_N ]; do
	sh "$KP_TMP/read.sh" $k > "$KP_TMP/text$k" ||
		error $k "cannot be read"
	if ! "$KP_KSTATS" --csv - < "$KP_TMP/text$k" > "$KP_TMP/csv$k" 2> "$KP_TMP/err$k"; then
		# kstats reads standard input, named -: the input's name instead.
		while IFS= read -r line; do
			error $k "${line#*: -: }"
		done < "$KP_TMP/err$k"
		error $k "kstats failed"
	fi
	k=$((k + 1))
done
rm -f "$KP_TMP/awkerr" "$KP_TMP/notes"
if ! awk -v dir="$KP_TMP" -v n=$KP_N -v view=$KP_VIEW -v logv=$KP_LOGV -v lz=$KP_LZ \
	-v percpu=$KP_PERCPU -v top=$KP_TOP -v pcts="$KP_PCTS" -v scale=$KP_SCALE \
	-v u="$KP_UNIT" -v umin="$KP_XMIN" -v umax="$KP_XMAX" \
	-v cols="$KP_COLS" -v keyw="$KP_KEYW" -v rows="$KP_ROWS" \
	-f "$KP_TMP/ticks.awk" -f "$KP_TMP/curves.awk" > "$KP_TMP/frame.new"; then
	[ -s "$KP_TMP/awkerr" ] || exit 1
	read -r k msg < "$KP_TMP/awkerr"
	error $k "$msg"
fi
if [ -z "${KP_LIVE:-}" ] && [ -s "$KP_TMP/notes" ]; then
	while read -r k msg; do
		{ printf 'kstats-plot: '; cat "$KP_TMP/name$k"; printf ': %s\n' "$msg"; } >&2
	done < "$KP_TMP/notes"
fi
mv "$KP_TMP/data.new" "$KP_TMP/data"
mv "$KP_TMP/frame.new" "$KP_TMP/frame.gp"
PREP

KP_N=$# KP_VIEW=$view KP_LOGV=$logv KP_PERCPU=$per_cpu KP_TOP=$top KP_PCTS=$pcts
KP_SCALE=$scale KP_UNIT=$bunit KP_XMIN=$xmin KP_XMAX=$xmax KP_LZ=0.5
[ $logv = 1 ] || KP_LZ=0
# The width of the plot in characters, about (10 pixels a character of
# pngcairo's font, 9 of svg's, less the margins), and of the key: its
# longest title, and the sample of the line.
# On a terminal, the lines from the graph's top border to its bottom one
# too (the height less the tics' and the axis' labels), where the rows of
# the markers' labels and of the key are lines: 0 elsewhere.
KP_ROWS=0
case $term in
dumb) w=${size:-120,35} KP_COLS=$(( ${w%%,*} - 12 )) KP_ROWS=$(( ${w#*,} - 5 )) ;;
png) w=${size:-900,600} KP_COLS=$(( (${w%%,*} - 110) / 10 )) ;;
*) w=${size:-900,600} KP_COLS=$(( (${w%%,*} - 110) / 9 )) ;;
esac
[ "$KP_COLS" -ge 20 ] || KP_COLS=20
label_of "$1"
label1=$label label2=""
[ $# -lt 2 ] || labels_of "$1" "$2"
KP_KEYW=$(( ${#label1} > ${#label2} ? ${#label1} : ${#label2} ))
KP_KEYW=$(( KP_KEYW + 10 + (per_cpu ? 7 : 0) ))
export KP_N KP_VIEW KP_LOGV KP_PERCPU KP_TOP KP_PCTS KP_SCALE KP_UNIT KP_XMIN KP_XMAX KP_LZ
export KP_COLS KP_KEYW KP_ROWS
sh "$tmp/prep.sh" || exit 1

case $view in
density)
	xlabel=$vlabel ylabel="fraction of samples per octave"
	[ $logv = 1 ] || ylabel="fraction of samples per unit of value" ;;
cdf) xlabel=$vlabel ylabel="cumulative fraction" ;;
spectrum) xlabel="percentile" ylabel=$vlabel ;;
esac
{
	echo "$setterm"
	echo "KP_DIR = ARG2"
	echo "NAME1 = ARG3"
	echo "NAME2 = ARG4"
	if [ $logv = 1 ]; then
		[ $view = spectrum ] && echo "set logscale y" || echo "set logscale x"
	fi
	[ $view = spectrum ] && echo "set logscale x"
	echo "set xlabel '$xlabel'"
	echo "set ylabel '$ylabel'"
	echo "set format y '%g'"
	# The key top left, in the graph; but on a linear axis the
	# density's curves, and so the labels of its markers at the top of
	# the graph, start at the left: the key above the graph there.
	if [ $logv = 0 ] && [ $view = density ] && [ -n "$pcts" ]; then
		echo "set key outside top center horizontal"
	else
		# Over the markers' lines, on white, where the density has no
		# curve (they stay below the rows of the labels and the key).
		[ $view = density ] && [ $logv = 1 ] && echo "set key top left opaque" ||
			echo "set key top left"
	fi
	# The markers' labels on a white ground, over any other curve.
	echo "set style textbox opaque noborder margins 1, 1"
	echo "load KP_DIR.'/frame.gp'"
	if [ "$live" != 0 ]; then
		printf '%s\n' "while (1) { pause $live;" \
			"system 'KP_LIVE=1 sh \"\$KP_TMP/prep.sh\"'; load KP_DIR.'/frame.gp' }"
	fi
} > "$tmp/plot.gp"
gnuplot -c "$tmp/plot.gp" "$tmp/image" "$tmp" "$label1" "$label2"
[ -z "$output" ] || cat "$tmp/image" > "$output"
