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
      --cpus LIST       one curve per CPU of LIST (0,3,8-11), as --per-cpu
  -u, --unit ns|us|ms|s|auto|none
                        the value axis in that unit (auto: each tick in its
                        own, 1 us, 10 us, 1 ms...; none: plain numbers); the
                        values are nanoseconds unless --input-unit says
      --input-unit ns|us|ms|s
                        the values are in that unit (alone: as -u auto)
  -p, --percentiles LIST  the markers of the density and the CDF
                        (default 50,99; '' for none)
      --xrange MIN:MAX  the range of the value axis, in the values' unit
                        (either may be left out: --xrange 1000:)
  -i, --interval SECS   redraw every SECS seconds, reading the metric again
  -H, --host HOST       read metric names on HOST through ssh
  -t, --term TERM       dumb (default; ANSI colours on a terminal), png or svg;
                        x11 or qt: a window on the display (with -i, redrawn
                        in place)
  -o, --output FILE     the image, for png and svg (dumb: the text)
  -s, --size WxH        size: characters for dumb, pixels otherwise
      --linear          linear value axis (default: logarithmic)
      --logy            the density's axis logarithmic: a tail of 0.1% shows
  -V, --version         the version
  -h, --help            this text
USAGE
}

view=density per_cpu=0 live=0 host="" term=dumb output="" size="" logv=1 heatmap=0 logy=0
unit="" disp="" pcts=50,99 xrange="" top=8 cpus=""
# The options given, to refuse those that would do nothing.
given=" "
# $1 as a terminal shows it safely, as kstats does: each control
# character (a newline too) as \xNN, on standard output (no newline).
shown() {
	printf '%s.' "$1" | LC_ALL=C awk '
	BEGIN {
		for (i = 1; i < 32; i++)
			e[sprintf("%c", i)] = sprintf("\\x%02x", i)
		e[sprintf("%c", 127)] = "\\x7f"
	}
	{ s = s (NR > 1 ? "\n" : "") $0 }
	END {
		for (j = 1; j < length(s); j++) {
			c = substr(s, j, 1)
			printf "%s", (c in e) ? e[c] : c
		}
	}'
}
# A usage error: what is wrong, in a line, and where to read more.
bad_usage() {
	printf 'kstats-plot: %s\nTry '\''kstats-plot --help'\''.\n' "$(shown "$1")" >&2
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
	--input-unit|-p|--percentiles|--xrange|--top|--cpus)
		[ $# -ge 2 ] || bad_usage "option '$1' needs an argument"
		case $1 in
		-i|--interval) live=$2 ;;
		-H|--host) host=$2 ;;
		-t|--term) term=$2 ;;
		-o|--output) output=$2 ;;
		-s|--size) size=$2 ;;
		-u|--unit) disp=$2 ;;
		--input-unit) unit=$2 ;;
		-p|--percentiles) pcts=$2 given="$given$1 " ;;
		--xrange) xrange=$2 ;;
		--top) top=$2 given="$given$1 " ;;
		--cpus) cpus=$2 per_cpu=1 given="$given$1 " ;;
		esac
		shift ;;
	--linear) logv=0 given="$given$1 " ;;
	--logy) logy=1 given="$given$1 " ;;
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
	fi
	# Without leading zeros, which $(( )) would read as octal (080).
	size=$w,$h ;;
*) bad_usage "-s: '$size' is not WxH" ;;
esac
case $unit in
''|ns|us|ms|s) ;;
*) bad_usage "--input-unit: '$unit' is not ns, us, ms or s" ;;
esac
# -u: the axis' unit (KP_DISP: its power of 1000 in s), of nanoseconds
# unless --input-unit; none: no unit.
KP_DISP=""
case $disp in
'') ;;
none) unit="" ;;
auto|ns|us|ms|s)
	unit=${unit:-ns}
	case $disp in
	ns) KP_DISP=-3 ;;
	us) KP_DISP=-2 ;;
	ms) KP_DISP=-1 ;;
	s) KP_DISP=0 ;;
	esac ;;
*) bad_usage "-u: '$disp' is not ns, us, ms, s, auto or none" ;;
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
x11|qt)
	[ -z "$output" ] || bad_usage "-t $term is a window: not with -o (-t png or svg)"
	[ -n "${DISPLAY:-}" ] ||
		bad_usage "-t $term: no display (DISPLAY is not set): -t dumb, png or svg"
	# A local display (:N) is a socket of the X server's: not there, no
	# display (gnuplot would say so at each redraw, and go on).
	case $DISPLAY in
	:[0-9]*|unix:[0-9]*)
		dn=${DISPLAY#*:} dn=${dn%%.*}
		sock=/tmp/.X11-unix/X$dn
		[ -S "$sock" ] || bad_usage "-t $term: no X server on display $DISPLAY ($sock)" ;;
	esac ;;
*) bad_usage "unknown terminal '$term': dumb, png, svg, x11 or qt" ;;
esac
if [ $heatmap = 1 ]; then
	[ $# -eq 1 ] || bad_usage "--heatmap: one input"
	[ "$term" = png ] || [ "$term" = svg ] || bad_usage "--heatmap needs -t png or -t svg"
	[ $view = density ] && [ $per_cpu = 0 ] && [ "$live" = 0 ] ||
		bad_usage "--heatmap: not with --cdf, --spectrum, --per-cpu, --cpus or -i"
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
if o=$(given --logy); then
	[ $view = density ] && [ $heatmap = 0 ] ||
		bad_usage "$o: the density's axis (not with --cdf, --spectrum or --heatmap)"
fi
if o=$(given --top); then
	[ $per_cpu = 1 ] || bad_usage "$o: the CPUs with the slowest p99, with --per-cpu only"
fi
# --cpus 0,3,8-11: the CPUs, a word each (KP_CPUS); 64 curves at most.
KP_CPUS=""
if o=$(given --cpus); then
	KP_CPUS=$(printf '%s\n' "$cpus" | awk -F, '
		function cpu(s) {
			return s ~ /^[0-9]+$/ && length(s) <= 6 && (s == "0" || s !~ /^0/)
		}
		NR == 1 {
			bad = !NF
			for (i = 1; i <= NF && !bad; i++) {
				n = split($i, r, "-")
				if (n > 2 || !cpu(r[1]) ||
				    (n == 2 && (!cpu(r[2]) || r[2] + 0 < r[1] + 0)))
					bad = 1
				for (c = r[1] + 0; !bad && c <= (n == 2 ? r[2] : r[1]) + 0; c++)
					if (c in seen)
						continue
					else if (++k > 64)
						bad = 2
					else {
						seen[c] = 1
						out = out (out == "" ? "" : " ") c
					}
			}
		}
		END { if (NR != 1 && !bad) bad = 1; if (bad) exit bad; print out }') || case $? in
	2) bad_usage "--cpus: '$cpus' names more than 64 CPUs" ;;
	*) bad_usage "--cpus: '$cpus' is not a list of CPUs (0,3,8-11)" ;;
	esac
	! given --top > /dev/null ||
		bad_usage "--cpus and --top: one of them (the CPUs named, or the N slowest)"
fi
command -v gnuplot >/dev/null || { echo "kstats-plot: gnuplot not found" >&2; exit 1; }
# A window needs a gnuplot built with its terminal (Debian's gnuplot-nox
# has neither).
case $term in
x11|qt)
	if gnuplot -e "set terminal $term" < /dev/null 2>&1 | grep -q 'unknown or ambiguous'; then
		pkg=gnuplot-x11
		[ "$term" = x11 ] || pkg=gnuplot-qt
		echo "kstats-plot: -t $term: this gnuplot has no $term terminal ($pkg has it)" >&2
		exit 1
	fi ;;
esac
# The kstats beside this script (installed together), else on PATH.
KSTATS=$(dirname "$0")/kstats
[ -x "$KSTATS" ] || KSTATS=$(command -v kstats) ||
	{ echo "kstats-plot: kstats not found (make -C tools/kstats install)" >&2; exit 1; }
# Its awk and sh files: plot/ beside it in the source tree, installed in
# ../share/kstats/plot (make -C tools/kstats install).
KP_LIB=$(dirname "$0")/plot
[ -e "$KP_LIB/curves.awk" ] || KP_LIB=$(dirname "$0")/../share/kstats/plot
[ -e "$KP_LIB/curves.awk" ] ||
	{ echo "kstats-plot: its files are not in $KP_LIB (make -C tools/kstats install)" >&2
	  exit 1; }

# An error about input or output $1 (its name shown()).
input_error() {
	printf 'kstats-plot: %s: %s\n' "$(shown "$1")" "$(shown "$2")" >&2
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
# $tmp/nameK, its name for the messages (shown()). The scripts find $tmp,
# kstats, the host and the options in the environment, and gnuplot gets
# the titles (shown()) as arguments (ARG1...): strings, that it does not
# parse. What the
# scripts write for gnuplot to load has numbers only, and fixed text.
k=0
for input in "$@"; do
	k=$((k + 1))
	if [ "$input" = - ]; then
		printf 'standard input' > "$tmp/name$k"
	else
		shown "$input" > "$tmp/name$k"
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
export KP_TMP KP_KSTATS KP_HOST KP_LIB KP_DISP

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
# The labelled ticks of the value axis: on a terminal, as many as its
# width holds (a label and its gap about 8 characters); 10 elsewhere.
maxtick=""
case $term in
dumb)
	w=${size:-120,35} maxtick=$(( (${w%%,*} - 12) / 8 ))
	setterm="set terminal dumb size ${size:-120,35}"
	# Colours for a terminal only, not into a pipe or a file.
	[ -t 1 ] && [ -z "$output" ] && setterm="$setterm ansi256"
	# A plot into the temporary directory, printed without the form
	# feed gnuplot starts it with (its nofeed does not stop that); a
	# live plot's frames keep theirs, printed as they come.
	[ "$live" != 0 ] || setterm="$setterm
set output ARG1" ;;
png|svg)
	driver=$term
	[ "$term" = png ] && driver=pngcairo
	setterm="set terminal $driver size ${size:-900,600}
set output ARG1" ;;
x11|qt)
	# A window that stays once gnuplot is done (persist), or with -i
	# redrawn in place, without taking the focus (noraise).
	setterm="set terminal $term size ${size:-900,600} noraise title 'kstats-plot'"
	[ "$live" != 0 ] || setterm="$setterm persist" ;;
esac

if [ $heatmap = 1 ]; then
	name1=$1
	[ "$1" != - ] || name1="standard input"
	# plot/heat.awk: a box per interval and slot.
	sh "$KP_LIB/read.sh" 1 | awk -F, -v dir="$tmp" -v scale=$scale -v u="$bunit" \
		-v disp="$KP_DISP" \
		-v umin="$xmin" -v umax="$xmax" -f "$KP_LIB/ticks.awk" -f "$KP_LIB/heat.awk" \
		> "$tmp/heat" ||
		input_error "$name1" "no intervals (kstats --interval SECS --csv NAME writes them)"
	[ -s "$tmp/heat" ] || input_error "$name1" "no samples"
	label_of "$1"
	label=$(shown "$label")
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

# plot/prep.sh reads each input once (plot/read.sh), then makes the curves
# and the frame of the plot (plot/ticks.awk, plot/curves.awk).
KP_N=$# KP_VIEW=$view KP_LOGV=$logv KP_PERCPU=$per_cpu KP_TOP=$top KP_PCTS=$pcts
KP_SCALE=$scale KP_UNIT=$bunit KP_XMIN=$xmin KP_XMAX=$xmax KP_LZ=0.5 KP_LOGY=$logy
KP_MAXTICK=$maxtick
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
label1=$(shown "$label1") label2=$(shown "$label2")
# (With --per-cpu, plot/curves.awk adds " CPU N" of the widest N.)
KP_KEYW=$(( ${#label1} > ${#label2} ? ${#label1} : ${#label2} ))
KP_KEYW=$(( KP_KEYW + 10 ))
export KP_N KP_VIEW KP_LOGV KP_PERCPU KP_TOP KP_PCTS KP_SCALE KP_UNIT KP_XMIN KP_XMAX KP_LZ
case $view in
density)
	xlabel=$vlabel ylabel="fraction of samples per octave"
	[ $logv = 1 ] || ylabel="fraction of samples per unit of value" ;;
cdf) xlabel=$vlabel ylabel="cumulative fraction" ;;
spectrum) xlabel="percentile" ylabel=$vlabel ;;
esac
# The y axis' label: set in frame.gp (plot/curves.awk), where the linear
# density's unit is known.
KP_YLABEL=$ylabel
export KP_LOGY KP_CPUS KP_MAXTICK KP_YLABEL
export KP_COLS KP_KEYW KP_ROWS
sh "$KP_LIB/prep.sh" || exit 1
{
	echo "$setterm"
	echo "KP_DIR = ARG2"
	echo "NAME1 = ARG3"
	echo "NAME2 = ARG4"
	if [ $logv = 1 ]; then
		[ $view = spectrum ] && echo "set logscale y" || echo "set logscale x"
	fi
	[ $logy = 0 ] || echo "set logscale y"
	[ $view = spectrum ] && echo "set logscale x"
	echo "set xlabel '$xlabel'"
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
			"system 'KP_LIVE=1 sh \"\$KP_LIB/prep.sh\"'; load KP_DIR.'/frame.gp' }"
	fi
} > "$tmp/plot.gp"
if [ "$live" != 0 ]; then
	# gnuplot ignores SIGINT while its system() rereads the metric: a
	# Ctrl-C then would only end the reread. It runs in the background,
	# waited for, and the signal's trap ends it. The terminal's SIGINT
	# may have ended gnuplot first: kill then fails, and under set -e
	# that would end the trap with kill's status, not 130.
	gnuplot -c "$tmp/plot.gp" "$tmp/image" "$tmp" "$label1" "$label2" &
	gp=$!
	trap 'kill "$gp" 2>/dev/null || :; exit 130' INT
	trap 'kill "$gp" 2>/dev/null || :; exit 143' TERM
	wait "$gp"
else
	gnuplot -c "$tmp/plot.gp" "$tmp/image" "$tmp" "$label1" "$label2"
fi
if [ "$term" = dumb ] && [ "$live" = 0 ]; then
	ff=$(printf '\f')
	if [ -n "$output" ]; then
		sed "1s/^$ff//" "$tmp/image" > "$output"
	else
		sed "1s/^$ff//" "$tmp/image"
	fi
else
	[ -z "$output" ] || cat "$tmp/image" > "$output"
fi
