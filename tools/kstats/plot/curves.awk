# SPDX-License-Identifier: GPL-2.0
# kstats-plot: the curves, from kstats --csv (slot,lo,hi,count,mean,cdf,...)
# of each input, read once; with --per-cpu, each CPU's counts from the
# input's CPU lines, of the slots that kstats read. Writes $KP_TMP/data, a
# block per curve (gnuplot's index), and prints $KP_TMP/frame.gp: the
# ranges, ticks, percentile markers and the plot command, numbers and fixed
# text only; the titles are gnuplot's NAME1 and NAME2. An input that has no
# samples or CPU lines is said in $KP_TMP/awkerr: K, then what is wrong
# (K 0: the plot's, no input's).
# Run by plot/prep.sh after plot/ticks.awk, with the variables it gives.
# A percentile as asked, with the digits that tell it (99.9999999, not
# the 100 of %g's 6), as kstats names its columns; none that add nothing.
function pct_name(v,    d, t) {
	for (d = 0; d < 15; d++) {
		t = sprintf("%." d "f", v)
		if (t + 0 == v + 0)
			return t
	}
	return t
}

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
			NPT++
			PTX[NPT] = x0
			PTY[NPT] = y
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
	PSTYLE[NCURVES] = style
	PTITLE[NCURVES] = title
}
# The plot command of the curves. On a terminal with the key in the graph,
# each curve without its title, the key's entries after them (of curves
# of no point): drawn last, no curve crosses their text.
function plot_cmd(   i, cmd, last) {
	last = rows && KEYOUT == ""
	for (i = 1; i <= NCURVES; i++)
		cmd = cmd (cmd == "" ? "plot " : ", \\\n\t") \
			sprintf("KP_DIR.'/data' index %d using 1:(%s) with lines %s %s", i - 1,
				logy ? "$2 > 0 ? $2 * YS : YLOW" : "$2 * YS", PSTYLE[i],
				last ? "notitle" : "title " PTITLE[i] " noenhanced")
	for (i = 1; last && i <= NCURVES; i++)
		cmd = cmd sprintf(", \\\n\tNaN with lines %s title %s noenhanced", PSTYLE[i],
				  PTITLE[i])
	return cmd
}
# Each CPU of input k named by --cpus (cpus, a list), or at most top of
# them: those whose tail is the
# slowest, by the slot of their p99 (the first whose cumulative p reaches
# 0.99), then by their samples: a CPU several times slower than the rest
# shows, whatever its share of the samples.
function per_cpu(k,   f, line, w, cpu, ncpu, sel, i, j, best, list, n, t, nc, named) {
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
	# --cpus: those named, each one of the input's.
	if (cpus != "") {
		nc = split(cpus, named, " ")
		for (j = 1; j <= nc; j++) {
			if (!((named[j] + 0) in TOT))
				fail(k, sprintf("--cpus: no CPU %d with samples in it", named[j]))
			if ((named[j] + 0) in SEL)
				continue
			SEL[named[j] + 0] = 1
			list[++n] = named[j] + 0
		}
	}
	for (j = 0; cpus == "" && j < (ncpu < top ? ncpu : top); j++) {
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
	if (cpus != "") {
		TITLE = TITLE (TITLE == "" ? "" : TSEP) \
			sprintf("NAME%d.': %d of its %d CPUs, named by --cpus'", k, n, ncpu)
	} else if (ncpu > top) {
		printf "%d the %d of its %d CPUs, those with the slowest p99\n", k, top, ncpu \
			> (dir "/notes")
		TITLE = TITLE (TITLE == "" ? "" : TSEP) \
			sprintf("NAME%d.': the %d of its %d CPUs, those with the slowest p99'",
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
		# The key's entries as wide as the widest: " CPU " and its number.
		KEYCPU = max(KEYCPU, 5 + length(list[j] ""))
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
		# Past the end of a linear axis cut at p99.9: not drawn.
		if (CUT != "" && x > CUT)
			continue
		# What it resolves: the true percentile lies in its slot,
		# [lo, hi]; the widest side of the slot from the mean, in %.
		if (x > 0)
			RES = max(RES, 100 * max(x - LO[k, i], HI[k, i] + 1 - x) / x)
		# On the CDF, up to the curve's height there (the fraction
		# q), clear of the key above (its end set once the graph's
		# lines are known: see arrows()).
		NA++
		AX[NA] = x
		AQ[NA] = view == "cdf" ? q[j] / 100 : -1
		AC[NA] = colour
		NL++
		LX[NL] = x
		LT[NL] = "p" pct_name(q[j])
		LC[NL] = percpu ? "rgb '#505050'" : "lt " k
	}
}
# The markers' lines, up to the CDF at their percentile; on a terminal, a
# line below the border at most (rows, the graph's lines: a line more
# would be drawn above it).
function arrows(   i, y) {
	for (i = 1; i <= NA; i++) {
		y = AQ[i]
		if (y >= 0 && rows && y > 1 - 1 / rows)
			y = 1 - 1 / rows
		printf "set arrow from %.10g, graph 0 to %.10g, %s nohead dt 2 %s\n", AX[i],
			AX[i], (y >= 0 ? sprintf("first %.10g", y) : "graph 0.99"), AC[i]
	}
}
# A resolution in %, to 2 significant digits, rounded up: it holds.
function res_pct(r,   e) {
	e = 10 ^ (floor(log10(r)) - 1)
	return sprintf("%.10g", ceil(r / e - 1e-9) * e)
}
# Whether [a, b) clears what row r of the labels holds (OCCN[r]
# intervals, OA[r, j] to OB[r, j]).
function row_free(r, a, b,   j) {
	for (j = 1; j <= OCCN[r]; j++)
		if (a < OB[r, j] && OA[r, j] < b)
			return 0
	return 1
}
function row_take(r, a, b) {
	OCCN[r]++
	OA[r, OCCN[r]] = a
	OB[r, OCCN[r]] = b
}
# The markers' labels, beside their lines, in rows: at the top of the
# density (above the curves, see LABELS), at the bottom of the CDF, where
# the curves are not. From left to right, each in the first row where it
# clears the labels already there, and the key (top left, keyw characters
# wide, a row per curve) by a character: right of its line, else (no row
# has room there) left of it; the plot is about cols characters wide, and on a terminal a label
# keeps a character off the left border. Where no row has room, right of
# its line in the row whose labels end first.
function place_labels(   i, j, t, o, f, w, r, best, ly, left, x0, at, ln, step, top0,
			bot0, nrow, minx, REND, found) {
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
	# On a terminal, a row of labels is a line at least (gnuplot rounds
	# each to a line: rows closer than that fall on one), the first
	# below the border; elsewhere 5% of the graph.
	step = rows ? max(0.05, 1 / rows) : 0.05
	top0 = rows ? min(0.97, 1 - 1 / rows) : 0.97
	bot0 = rows ? max(0.05, 1 / rows) : 0.05
	# As many rows as keep to 45% of the graph's height from their
	# edge (the curves have the rest): 6 at most, 1 at least.
	nrow = int((0.45 - (view == "cdf" ? bot0 : 1 - top0)) / step) + 1
	nrow = nrow < 1 ? 1 : nrow > 6 ? 6 : nrow
	split("", OCCN)
	split("", REND)
	for (r = 0; r < nrow; r++) {
		ln = int((1 - (top0 - step * r)) * rows + 0.5)
		OCCN[r] = 0
		REND[r] = -1
		if (view == "density" && logv && KEYOUT == "" &&
		    (rows ? ln >= 2 && ln <= NCURVES + 2 : r < NCURVES)) {
			row_take(r, -1, (keyw + (rows ? 2 : 0)) / cols)
			REND[r] = (keyw + (rows ? 2 : 0)) / cols
		}
	}
	minx = rows ? 1 / cols : 0
	for (i = 1; i <= NL; i++) {
		# A character more between labels on a terminal, whose
		# characters round the positions.
		w = (length(LT[o[i]]) + (rows ? 2.5 : 1.5)) / cols
		x0 = f[o[i]] > minx ? f[o[i]] : minx
		found = 0
		for (r = 0; r < nrow && !found; r++)
			found = x0 + w <= 1 && row_free(r, x0, x0 + w)
		for (j = 0; j < nrow && !found; j++)
			found = f[o[i]] - w >= minx && row_free(j, f[o[i]] - w, f[o[i]]) ? 2 : 0
		if (found) {
			r = found == 2 ? j - 1 : r - 1
			left = found == 2
		} else {
			best = 0
			for (r = 1; r < nrow; r++)
				if (REND[r] < REND[best])
					best = r
			r = best
			# Past the right border: left of its line.
			left = x0 + w > 1
		}
		if (left)
			x0 = f[o[i]]
		row_take(r, left ? x0 - w : x0, left ? x0 : x0 + w)
		REND[r] = max(REND[r], left ? x0 : x0 + w)
		ly = view == "cdf" ? bot0 + step * r : top0 - step * r
		LABELS = LABELS > ly || LABELS == "" ? ly : LABELS
		at = left ? "right offset character -0.5, 0" : "left offset character 0.5, 0"
		MARK = MARK sprintf("set label \"%s\" at graph %.10g, graph %.3f %s tc %s front " \
				    "boxed\n", LT[o[i]], x0, ly, at, LC[o[i]])
	}
}
# On a linear value axis without --xrange MAX, the end of the axis: the
# upper bound of the slot of p99.9 (the largest of the inputs'), when
# the largest sample is past 1.5 times it (a tail would squeeze the
# distribution into the first pixels); "" otherwise. Said in the notes
# and the title, with the samples beyond it.
function linear_cut(   k, i, r, cum, cut, beyond, each) {
	if (logv || umax != "" || view == "spectrum")
		return ""
	split("", each)
	for (k = 1; k <= n; k++) {
		r = 0.999 * NALL[k]
		r = r == int(r) ? r : int(r) + 1
		cum = 0
		for (i = 1; i <= NS[k] && cum + CNT[k, i] < r; i++)
			cum += CNT[k, i]
		if (cut == "" || HI[k, i] + 1 > cut)
			cut = HI[k, i] + 1
	}
	beyond = 0
	for (k = 1; k <= n; k++)
		for (i = 1; i <= NS[k]; i++)
			if (LO[k, i] >= cut) {
				beyond += CNT[k, i]
				each[k] += CNT[k, i]
			}
	# Not below --xrange MIN, which would leave no axis.
	if (!beyond || VMAX <= 1.5 * cut || (umin != "" && cut <= umin + 0))
		return ""
	# Each input's samples beyond it, said of that input.
	for (k = 1; k <= n; k++)
		if (each[k])
			printf "%d the value axis ends at p99.9%s (%s): %d samples beyond it " \
				"(--xrange MIN:MAX for them)\n", k, (n > 1 ? " of the inputs" : ""),
				eng(cut * scale, u), each[k] > (dir "/notes")
	TITLE = TITLE (TITLE == "" ? "" : TSEP) \
		sprintf("'the axis ends at p99.9, %d samples beyond'", beyond)
	return cut
}
BEGIN {
	# The parts of the title: a line each on a terminal, where a long
	# title would not show at all.
	TSEP = rows ? ".\"\\n\"." : ".'; '."
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
	}
	keyw += KEYCPU
	if ((CUT = linear_cut()) != "")
		VMAX = CUT
	# The least density drawn (--logy): of the slots on the axis.
	for (i = 1; i <= NPT; i++)
		if (CUT == "" || PTX[i] < CUT)
			DMIN = min(DMIN, PTY[i])
	for (k = 1; k <= n; k++)
		if (view != "spectrum" && pcts != "")
			markers(k)
	# What the markers resolve, said in the title (#43.7).
	if (NL && RES != "")
		TITLE = TITLE (TITLE == "" ? "" : TSEP) \
			sprintf("'markers: slot means, the true value within %s%%'", res_pct(RES))
	# On a narrow terminal, which drops a title line wider than it, a
	# line per clause of a part: "markers: slot means," and "the true
	# value within 6.3%".
	if (rows && cols + 12 < 60)
		gsub(/, /, ",'.\"\\n\".'", TITLE)
	# On a terminal, whose lines the curves cross, a key of several
	# curves goes below the graph: its lines (a row of entries each, as
	# many as the width holds) and the gap above it are the graph's
	# less. The y axis' label is a line of the title, left, as the
	# terminal has no vertical text: a line less too.
	# (An entry is its title, a short sample and a gap: keyw less the
	# 10 columns of a sample, and 6 for them.) Where that would leave the
	# graph fewer than 8 lines, the key stays in it, top left.
	if (rows && NCURVES > 1) {
		per = int((cols + 4) / (keyw - 4))
		per = per < 1 ? 1 : per
		nkey = int((NCURVES + per - 1) / per) + 1
		if (rows - nkey - 1 - split(TITLE, tparts, "\\\\n") >= 8) {
			KEYOUT = "below width 1 samplen 2 maxrows " (nkey - 1)
			rows -= nkey
		} else if (rows - 1 - split(TITLE, tparts, "\\\\n") < NCURVES + 3) {
			# Nor in it (its lines from the second of the graph, the
			# borders aside): the terminal is too small for them.
			hint = percpu ? ", or fewer CPUs (--cpus, --top)" : ""
			fail(0, sprintf("%d curves do not fit a terminal of %d lines: %s%s",
					NCURVES, rows + 5, "a taller -s WxH", hint))
		}
	}
	# In an image, a key of more than two curves (CPUs) right of the
	# graph, which is as much narrower: in it, the markers' labels
	# would have only the rows below it left of it.
	if (!rows && NCURVES > 2) {
		KEYOUT = "outside right top vertical"
		cols -= keyw
		# The title, centred on the graph, a line per part.
		gsub(/\.'; '\./, ".\"\\n\".", TITLE)
	}
	if (rows)
		TITLE = TITLE (TITLE == "" ? "" : TSEP) "''"
	# The linear density's key, above the graph on a terminal (see
	# kstats-plot.sh): its lines are the graph's less too.
	if (rows && !logv && view == "density" && pcts != "" && KEYOUT == "") {
		per = int((cols + 4) / (keyw - 4))
		per = per < 1 ? 1 : per
		rows -= int((NCURVES + per - 1) / per)
	}
	# On a terminal, each line of the title is one of the graph's less.
	if (rows && TITLE != "")
		rows -= split(TITLE, tparts, "\\\\n")
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
		# As many labels as the width holds (nlabels("x")): every
		# other nine, or fewer, and 50% only with room.
		for (nk = 0; 10 ^ nk <= xmax && nk < 30; nk++)
			;
		every = nk > nlabels("x") ? int((nk + nlabels("x") - 1) / nlabels("x")) : 1
		for (k = 0; 10 ^ k <= xmax && k < 30; k++) {
			if (k < 3)
				label = sprintf("%d%%%%", 100 - 100 / 10 ^ k)
			else
				label = sprintf("%." (k - 2) "f%%%%", 100 - 100 / 10 ^ k)
			tick(10 ^ k, k % every ? "" : label, k % every != 0)
			if (k == 0 && 2 <= xmax && nlabels("x") >= 6)
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
		arrows()
		printf "%s", MARK
		# The linear density per 10^k units of value, k such that its
		# top reads 0.1 to 1 (not 5e-05 beside 0.0001): per 1 us.
		if (view == "density" && !logv) {
			if (DMAX > 0 && DMAX < 0.1)
				YS = 10 ^ (ceil(-log10(DMAX) - 1e-9) - 1)
			per = YS == 1 ? "unit of value" : sprintf("%.0f units of value", YS)
			if (u != "")
				per = eng(YS * scale, u)
			ylabel = "fraction of samples per " per
		}
		# The density below the lowest row of labels; on a logarithmic
		# axis (--logy), from half its least value not 0, the 0s of the
		# curves' edges below it (YLOW), so that the steps stay whole.
		if (view == "density" && logy) {
			lo = DMIN * YS / 2
			f = LABELS != "" ? LABELS - 0.04 : 0.95
			printf "set yrange [%.10g:%.10g]\n", lo,
				exp(log(lo) + log(DMAX * YS / lo) / f)
			printf "YLOW = %.10g\n", lo / 10
		} else if (view == "density" && LABELS != "")
			printf "set yrange [0:%.10g]\n", DMAX * YS / (LABELS - 0.04)
		else
			print "set yrange [0:*]"
	}
	# On a narrow terminal, "fraction per 1000 units of value".
	if (rows && length(ylabel) > cols + 10)
		sub(/fraction of samples/, "fraction", ylabel)
	if (rows) {
		print "unset ylabel"
		printf "set label \"%s\" at screen 0, graph 1 offset 1, 1 left noenhanced\n", ylabel
	} else
		printf "set ylabel \"%s\"\n", ylabel
	if (KEYOUT != "")
		print "set key " KEYOUT
	if (TITLE != "")
		print "set title " TITLE " noenhanced"
	printf "YS = %.10g\n", YS
	print plot_cmd()
}
