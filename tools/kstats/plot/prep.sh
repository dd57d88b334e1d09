#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kstats-plot: reads each input once (read.sh), then the curves
# (curves.awk). Prints kstats' message on a malformed input, naming the
# input; exits 1 then. Its settings are kstats-plot.sh's KP_ variables.
# An error about input $1: its name, then the message.
# error K MSG: MSG of input K (0: of the plot, no input's).
error() {
	if [ "$1" = 0 ]; then
		printf 'kstats-plot: %s\n' "$2" >&2
	else
		{ printf 'kstats-plot: '; cat "$KP_TMP/name$1"; printf ': %s\n' "$2"; } >&2
	fi
	exit 1
}
k=1
while [ $k -le $KP_N ]; do
	sh "$KP_LIB/read.sh" $k > "$KP_TMP/text$k" ||
		error $k "cannot be read"
	if ! "$KP_KSTATS" --csv - < "$KP_TMP/text$k" > "$KP_TMP/csv$k" 2> "$KP_TMP/err$k"; then
		# kstats reads standard input, named -: the input's name instead.
		while IFS= read -r line; do
			error $k "${line#*: -: }"
		done < "$KP_TMP/err$k"
		error $k "kstats failed"
	fi
	# What kstats warned of (CPU lines without CPUS lines), said once.
	if [ -z "${KP_LIVE:-}" ]; then
		while IFS= read -r line; do
			{ printf 'kstats-plot: '; cat "$KP_TMP/name$k"
			  printf ': %s\n' "${line#*: -: }"; } >&2
		done < "$KP_TMP/err$k"
	fi
	k=$((k + 1))
done
rm -f "$KP_TMP/awkerr" "$KP_TMP/notes"
if ! awk -v dir="$KP_TMP" -v n=$KP_N -v view=$KP_VIEW -v logv=$KP_LOGV -v lz=$KP_LZ \
	-v percpu=$KP_PERCPU -v top=$KP_TOP -v cpus="$KP_CPUS" -v pcts="$KP_PCTS" \
	-v scale=$KP_SCALE -v logy=$KP_LOGY \
	-v u="$KP_UNIT" -v disp="$KP_DISP" -v umin="$KP_XMIN" -v umax="$KP_XMAX" \
	-v cols="$KP_COLS" -v keyw="$KP_KEYW" -v rows="$KP_ROWS" -v maxtick="$KP_MAXTICK" \
	-v ylabel="$KP_YLABEL" \
	-f "$KP_LIB/ticks.awk" -f "$KP_LIB/curves.awk" > "$KP_TMP/frame.new"; then
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
