# SPDX-License-Identifier: GPL-2.0
# kstats-plot: the ticks of an axis, gnuplot's "set Xtics (...)" with a
# label for each major tick: engineering notation, with the unit's prefix
# (1 us, 10 us, 1 ms, 10000 s, 1e5 s; without a unit 500, 1k, 10k, 1M), one
# style for the whole axis. gnuplot reads a label as the format of its
# position: a % is %%. Loaded before heat.awk or curves.awk.
function floor(x) { return x == int(x) ? x : x < 0 ? int(x) - 1 : int(x) }
function ceil(x) { return -floor(-x) }
function log10(x) { return log(x) / log(10) }
# v (in the base unit: s, or the values' own) as 2.5 us, or 2.5k; with
# disp (kstats-plot -u: -3 ns, -2 us, -1 ms, 0 s), in that unit: 2500 ns,
# 1e6 ns from 10^6 on, 1e-4 s below 10^-3 (as kstats -u prints them).
function eng(v, u,   e, s, top) {
	if (v == 0)
		return "0"
	if (u != "" && disp != "") {
		s = v / 10 ^ (3 * disp)
		if (s >= 1e6 * (1 - 1e-9) || s < 1e-3 * (1 - 1e-9)) {
			e = floor(log10(s) + 1e-9)
			return sprintf("%.3g", s / 10 ^ e) "e" e " " PFX[disp] u
		}
		# 3 significant digits, without an exponent: 12300, 0.0025.
		s = sprintf("%.3g", s) + 0
		return (s == int(s) ? sprintf("%d", s) : sprintf("%.3g", s)) " " PFX[disp] u
	}
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
# The labelled ticks an axis has room for: on x, maxtick (a terminal's
# width over that of a label and its gap), or 10.
function nlabels(axis) {
	if (axis != "x" || maxtick == "" || maxtick + 0 >= 10)
		return 10
	return maxtick + 0 < 2 ? 2 : maxtick + 0
}
# Nice linear ticks between lo and hi (base unit): the finest steps of 1,
# 2 or 5 times a power of ten that give 7 of them at most (fewer where
# they have no room: 0, 50k, 100k of 0 to 100.5k, not 0 and 100k).
function lin_ticks(axis, lo, hi, scale, u,   nmax, raw, p, m, step, i, t, n) {
	nmax = nlabels(axis) > 6 ? 7 : nlabels(axis)
	raw = (hi - lo) / nmax
	if (raw <= 0)
		raw = hi > 0 ? hi / 6 : 1
	p = 10 ^ floor(log10(raw))
	m = raw / p
	step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p
	while (floor(hi / step + 1e-9) - ceil(lo / step - 1e-9) + 1 > nmax) {
		p = 10 ^ floor(log10(step) + 1e-9)
		m = step / p
		step = (m < 1.5 ? 2 : m < 3 ? 5 : 10) * p
	}
	# At most 20 (a bound, whatever lo and hi are).
	for (i = ceil(lo / step - 1e-9); i * step <= hi * (1 + 1e-9) && n++ < 20; i++) {
		t = i * step
		tick(t / scale, eng(t, u), 0)
	}
}
# The ticks of an axis from lo to hi (in the values' unit, scale to the
# base unit): powers of ten on a logarithmic axis that spans two or more
# (with 2 and 5 times them when it spans two only and they have room),
# linear ones otherwise; at most nlabels(axis) labelled.
function axis_ticks(axis, lo, hi, islog, scale, u,   blo, bhi, k0, k1, k, every, m, t, nl) {
	TICKS = ""
	TLEN = 0
	blo = lo * scale
	bhi = hi * scale
	if (islog && blo > 0) {
		k0 = ceil(log10(blo) - 1e-9)
		k1 = floor(log10(bhi) + 1e-9)
	}
	nl = nlabels(axis)
	if (islog && blo > 0 && k1 - k0 >= 1) {
		every = k1 - k0 + 1 > nl ? ceil((k1 - k0 + 1) / nl) : 1
		for (k = k0 - 1; k <= k1 && k <= k0 + 400; k++)
			for (m = 1; m < 10; m++) {
				t = m * 10 ^ k
				if (t < blo * (1 - 1e-9) || t > bhi * (1 + 1e-9))
					continue
				if (m == 1 && k % every == 0)
					tick(t / scale, eng(t, u), 0)
				else if ((m == 2 || m == 5) && k1 - k0 <= 1 && nl >= 6)
					tick(t / scale, eng(t, u), 0)
				else if (every == 1)
					tick(t / scale, "", 1)
			}
	} else
		lin_ticks(axis, blo, bhi, scale, u)
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
