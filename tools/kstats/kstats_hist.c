// SPDX-License-Identifier: GPL-2.0
/* kstats --hist: a terminal histogram, a row per slot. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kstats.h"

static int term_width(void)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");

	if (cols && atoi(cols) > 20)
		return atoi(cols);
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 20)
		return ws.ws_col;
	return 80;
}

/* The smallest of 1, 2 and 5 times a power of 10 that is @x or more. */
static double nice_up(double x)
{
	static const double m[] = { 1, 2, 5, 10 };
	double p = pow(10, floor(log10(x)));
	int i;

	for (i = 0; i < 3 && m[i] * p < x * (1 - 1e-12); i++)
		;
	return m[i] * p;
}

/*
 * The exact bounds of slot @s: "[lo, hi]"; with a unit, said once when
 * both bounds are in the same one ("[106.496, 114.687] us").
 */
static const char *slot_range(char *buf, size_t n, size_t s, int bits)
{
	char lo[48], hi[48];
	const char *ul, *uh;

	fmt_exact(lo, sizeof(lo), ks_slot_min(s, bits));
	fmt_exact(hi, sizeof(hi), ks_slot_max(s, bits));
	ul = strchr(lo, ' ');
	uh = strchr(hi, ' ');
	if (ul && uh && !strcmp(ul, uh)) {
		snprintf(buf, n, "[%.*s, %.*s]%s", (int)(ul - lo), lo, (int)(uh - hi), hi, uh);
		return buf;
	}
	snprintf(buf, n, "[%s, %s]", lo, hi);
	return buf;
}

/*
 * As funclatency and bpftrace print a histogram: a row per slot from the
 * first non-empty one to the last, empty ones included (a gap between two
 * modes shows), each labelled with its exact range. Its bar: a dark part
 * for the slot's density, its samples per octave (slots double in width
 * at each power of two: raw counts would show false peaks there), on the
 * scale said above the rows; continued in light shade up to the
 * cumulative fraction (the full bar is 100%). The bar is closed, then the
 * count, the cumulative % and the percentiles that fall in the slot. With
 * --log2, the slots of frac_bits 0: one octave each.
 */
void print_hist(const struct ks_hist *hist, int hbits)
{
	int bits = opt.log2 ? 0 : hbits, width, rangew = 7, i;
	const struct ks_hist *h = hist;
	struct ks_hist coarse = { 0 };
	double dmax = 0, scale = 1;
	uint64_t n = 0, cum = 0;
	struct stats st;
	char r[112], q[32];
	size_t s;

	if (opt.log2 && hbits > 0) {
		coarsen(&coarse, hist, hbits, 0);
		h = &coarse;
	}
	compute(h, bits, &st);
	for (s = 0; s < h->nslots; s++) {
		n += h->count[s];
		if (h->count[s])
			dmax = fmax(dmax, h->count[s] / octaves(s, bits));
	}
	for (s = st.first; n && s <= (size_t)st.last; s++)
		rangew = fmax(rangew, strlen(slot_range(r, sizeof(r), s, bits)));
	/* The range, " |", the bar, "|", the count, the cum%, percentiles. */
	width = term_width() - rangew - 34;
	if (width < 10)
		width = 10;
	/* The densest slot fills half of the bar, at most: one block is a round number. */
	if (dmax > 0)
		scale = nice_up(dmax / (width / 2));
	if (opt.cpu >= 0)
		printf("cpu %ld\n", opt.cpu);
	printf("\u2592 = %g samples per octave (density); ", scale);
	printf("\u2591 up to the cumulative %%, 100%% at full width; blank: no sample\n");
	printf("%*s \u2502%*s\u2502%11s %7s  %s\n", rangew, "range", width, "", "count", "cum%",
	       "percentiles");
	for (s = st.first; n && s <= (size_t)st.last; s++) {
		int bar, cdf, first = 1;

		cum += h->count[s];
		bar = (int)(h->count[s] / octaves(s, bits) / scale + 0.5);
		/*
		 * An empty slot is blank: the gap between two modes shows; a
		 * slot with samples has one mark at least.
		 */
		cdf = h->count[s] ? (int)((double)cum / n * width + 0.5) : 0;
		if (h->count[s] && !bar && !cdf)
			cdf = 1;
		printf("%*s \u2502", rangew, slot_range(r, sizeof(r), s, bits));
		for (i = 0; i < width; i++)
			fputs(i < bar ? "\u2592" : i < cdf ? "\u2591" : " ", stdout);
		printf("\u2502%11llu %6.2f%%", (unsigned long long)h->count[s], 100.0 * cum / n);
		for (i = 0; i < opt.npct; i++) {
			if (ks_slot(st.pct[i].lo, bits) != s)
				continue;
			printf("%s p%s", first ? " " : ",", pct_name(q, sizeof(q), opt.pct[i]));
			first = 0;
		}
		putchar('\n');
	}
	free(coarse.count);
	free(coarse.sum);
}
