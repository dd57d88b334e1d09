# SPDX-License-Identifier: GPL-2.0
# kstats-plot --heatmap.
# A box per interval and slot: x the interval's time span, y the
# slot's bounds, colour the samples per second and octave. The
# intervals are one CSV, each row led by interval,time,seconds (time:
# the interval's end), or, as kstats printed them before, a line
# "interval N seconds S ..." above each interval's CSV.
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
