// SPDX-License-Identifier: GPL-2.0
/* kstats --hist: a terminal histogram, a row per slot. */
#define _GNU_SOURCE
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
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

	if (cols && atoi(cols) > 0)
		return atoi(cols);
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/* The blocks of the bars and the frame: UTF-8's, or ASCII where the locale is not UTF-8. */
struct hist_glyphs {
	const char *dark, *light, *frame;
};

static void hist_glyphs(struct hist_glyphs *g)
{
	char *old = setlocale(LC_CTYPE, NULL);
	bool utf8;

	old = old ? strdup(old) : NULL;
	setlocale(LC_CTYPE, "");
	utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	setlocale(LC_CTYPE, old ? old : "C");
	free(old);
	if (utf8)
		*g = (struct hist_glyphs){ "\u2592", "\u2591", "\u2502" };
	else
		*g = (struct hist_glyphs){ "#", ".", "|" };
}

/* The percentiles that fall in slot @s, as a row ends: " p50,p90". */
static const char *hist_marks(const struct kstats_opt *o, char *buf, size_t n,
			      const struct stats *st, size_t s, int bits)
{
	char q[32];
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < o->npct && len < n; i++) {
		if (ks_slot(st->pct[i].lo, bits) != s)
			continue;
		len += snprintf(buf + len, n - len, "%s p%s", len ? "," : " ",
				pct_name(q, sizeof(q), o->pct[i]));
	}
	return buf;
}

/*
 * The legend, its clauses joined on a line as long as they fit @cols; a
 * clause wider than @cols in a shorter form.
 */
static void hist_legend(FILE *f, const struct hist_glyphs *g, double scale, int cols)
{
	char c[3][96];
	int i, w, len = 0;

	for (i = 0; i < 3; i++) {
		if (i == 0)
			snprintf(c[i], sizeof(c[i]), "%s = %g samples per octave (density)",
				 g->dark, scale);
		else if (i == 1)
			snprintf(c[i], sizeof(c[i]), "%s %s", g->light,
				 "up to the cumulative %, 100% at full width");
		else
			snprintf(c[i], sizeof(c[i]), "blank: no sample");
		/* A block is one column, three bytes in UTF-8. */
		w = (int)strlen(c[i]) - (i < 2 ? (int)strlen(g->dark) - 1 : 0);
		if (w > cols && i == 0)
			snprintf(c[i], sizeof(c[i]), "%s = %g per octave", g->dark, scale);
		else if (w > cols && i == 1)
			snprintf(c[i], sizeof(c[i]), "%s to the cumulative %%", g->light);
		w = (int)strlen(c[i]) - (i < 2 ? (int)strlen(g->dark) - 1 : 0);
		if (len && len + 2 + w > cols) {
			fputc('\n', f);
			len = 0;
		}
		fprintf(f, "%s%s", len ? "; " : "", c[i]);
		len += (len ? 2 : 0) + w;
	}
	fputc('\n', f);
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
 * The exact bounds of slots @s to @e: "[lo, hi]"; with a unit, said once when
 * both bounds are in the same one ("[106.496, 114.687] us"). With @upper,
 * the upper one alone, "<=hi": a row starts where the one before ends.
 */
static const char *slot_range(char *buf, size_t n, size_t s, size_t e, int bits, int unit,
			      int upper)
{
	char lo[48], hi[48];
	const char *ul, *uh;

	fmt_exact(lo, sizeof(lo), ks_slot_min(s, bits), unit);
	fmt_exact(hi, sizeof(hi), ks_slot_max(e, bits), unit);
	if (upper) {
		snprintf(buf, n, "<=%s", hi);
		return buf;
	}
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
 * The last slot of the row that starts at slot @s: @s, or with @compact
 * the last of a run of 3 empty slots or more (up to @last).
 */
static size_t row_end(const struct ks_hist *h, size_t s, size_t last, int compact)
{
	size_t e = s;

	if (!compact || h->count[s])
		return s;
	while (e + 1 <= last && !h->count[e + 1])
		e++;
	return e - s >= 2 ? e : s;
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
 * --log2, the slots of frac_bits 0: one octave each. Into @f, within
 * @cols columns (kstats top's view of a function, the terminal's width);
 * with @compact, a run of 3 empty slots or more is one row, for a screen.
 */
void hist_write(FILE *f, const struct kstats_opt *o, const struct ks_hist *hist, int hbits,
		int cols, int compact)
{
	int bits = o->log2 ? 0 : hbits, width, rangew = 7, markw = 0, countw = 5, cumw = 8, i;
	int upper = 0;
	const struct ks_hist *h = hist;
	struct ks_hist coarse = { 0 };
	double dmax = 0, scale = 1;
	uint64_t n = 0, cum = 0;
	struct hist_glyphs g;
	struct stats st;
	char r[112], m[256];
	size_t s, e;

	if (o->log2 && hbits > 0) {
		coarsen(&coarse, hist, hbits, 0);
		h = &coarse;
	}
	compute(h, bits, o->pct, o->npct, &st);
	for (s = 0; s < h->nslots; s++) {
		n += h->count[s];
		if (h->count[s])
			dmax = fmax(dmax, h->count[s] / octaves(s, bits));
	}
	for (s = st.first; n && s <= (size_t)st.last; s = e + 1) {
		e = row_end(h, s, st.last, compact);
		rangew = fmax(rangew, strlen(slot_range(r, sizeof(r), s, e, bits, ks_unit(o), 0)));
		markw = fmax(markw, strlen(hist_marks(o, m, sizeof(m), &st, s, bits)));
		countw = fmax(countw, snprintf(m, sizeof(m), "%llu",
					       (unsigned long long)h->count[s]));
	}
	/*
	 * A screen too narrow for the ranges, a bar of 4 and the counts:
	 * each row by its upper bound (the rows follow each other, from the
	 * first slot of samples), a bar of 1 column at least, so that no
	 * number is cut.
	 */
	if (compact && rangew + 3 + 4 + 1 + countw > cols) {
		upper = 1;
		rangew = 7;
		for (s = st.first; n && s <= (size_t)st.last; s = e + 1) {
			e = row_end(h, s, st.last, compact);
			rangew = fmax(rangew, strlen(slot_range(r, sizeof(r), s, e, bits,
								ks_unit(o), 1)));
		}
	}
	/*
	 * The range, " |", the bar, "|", " " and the count, " " and the
	 * cum% (7), the percentiles (and their heading): within the
	 * terminal's width, the bar 4 columns at least.
	 */
	if (markw)
		markw = fmax(markw, strlen("  percentiles"));
	width = cols - rangew - 3 - (1 + countw) - cumw - markw;
	/*
	 * Too narrow: the percentiles' column goes first (the summary has
	 * them), then the cumulative % (the bar's light part shows it).
	 */
	if (width < 4 && markw) {
		width += markw;
		markw = 0;
	}
	if (width < 4) {
		width += cumw;
		cumw = 0;
	}
	if (width < (upper ? 1 : 4))
		width = upper ? 1 : 4;
	hist_glyphs(&g);
	/*
	 * Narrower than its ranges, a bar of 1 and its counts: said, rather
	 * than a number cut.
	 */
	if (upper && rangew + 3 + 1 + 1 + countw > cols) {
		if (o->cpu >= 0)
			fprintf(f, "cpu %ld\n", o->cpu);
		fprintf(f, "needs %d columns\n", rangew + 5 + countw);
		goto out;
	}
	/* The densest slot fills half of the bar, at most: one block is a round number. */
	if (dmax > 0)
		scale = nice_up(dmax / ((width + 1) / 2));
	if (o->cpu >= 0)
		fprintf(f, "cpu %ld\n", o->cpu);
	hist_legend(f, &g, scale, cols);
	fprintf(f, "%*s %s%*s%s %*s%s%s\n", rangew, "range", g.frame, width, "", g.frame,
		countw, "count", cumw ? "    cum%" : "", markw ? "  percentiles" : "");
	for (s = st.first; n && s <= (size_t)st.last; s = e + 1) {
		int bar, cdf;

		e = row_end(h, s, st.last, compact);
		cum += h->count[s];
		bar = (int)(h->count[s] / octaves(s, bits) / scale + 0.5);
		/*
		 * An empty slot is blank: the gap between two modes shows; a
		 * slot with samples has one mark at least.
		 */
		cdf = h->count[s] ? (int)((double)cum / n * width + 0.5) : 0;
		if (h->count[s] && !bar && !cdf)
			cdf = 1;
		fprintf(f, "%*s %s", rangew,
			slot_range(r, sizeof(r), s, e, bits, ks_unit(o), upper), g.frame);
		for (i = 0; i < width; i++)
			fputs(i < bar ? g.dark : i < cdf ? g.light : " ", f);
		fprintf(f, "%s %*llu", g.frame, countw, (unsigned long long)h->count[s]);
		if (cumw)
			fprintf(f, " %6.2f%%", floor(10000.0 * cum / n) / 100);
		fprintf(f, "%s\n", markw ? hist_marks(o, m, sizeof(m), &st, s, bits) : "");
	}
out:
	free(coarse.count);
	free(coarse.sum);
}

/*
 * hist_write() on standard output, within the terminal's width; of no
 * samples (an interval without any, a function --diff found idle), a
 * line that says so, not a legend over no rows.
 */
void print_hist(const struct kstats_opt *o, const struct ks_hist *hist, int hbits)
{
	size_t s;

	for (s = 0; s < hist->nslots && !hist->count[s]; s++)
		;
	if (s < hist->nslots) {
		hist_write(stdout, o, hist, hbits, term_width(), 0);
		return;
	}
	if (o->cpu >= 0)
		printf("cpu %ld\n", o->cpu);
	printf("no samples\n");
}
