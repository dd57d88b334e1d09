// SPDX-License-Identifier: GPL-2.0
/* kstats --compare: the change of each statistic, its interval, a KS test. */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstats.h"

/*
 * Kolmogorov's distribution: P(sqrt(n) D > lambda), as Numerical Recipes.
 * The series ends when a term is negligible against the previous one or
 * the sum; for a large lambda its first term is 0 (exp() underflows), and
 * so is the result. It fails to converge only for a tiny lambda: 1.
 */
static double ks_q(double lambda)
{
	double sum = 0, term, prev = 0, sign = 1;
	int j;

	if (lambda < 1e-3)
		return 1;
	for (j = 1; j <= 100; j++) {
		term = sign * 2 * exp(-2.0 * j * j * lambda * lambda);
		sum += term;
		if (fabs(term) <= 1e-3 * prev || fabs(term) <= 1e-8 * fabs(sum))
			return sum < 0 ? 0 : sum > 1 ? 1 : sum;
		sign = -sign;
		prev = fabs(term);
	}
	return 1;
}

/*
 * The 97.5% interval of the q-th percentile of @h's @n samples: the order
 * statistics of ranks n q -+ 2.24 sqrt(n q (1 - q)) (distribution-free,
 * the binomial's normal approximation), widened to their slots' bounds, so
 * that it holds both the sampling noise and the resolution. Two of them
 * make an interval of at least 95% for a difference. Returns false when
 * the approximation does not hold (n q or n (1 - q) under 10) or the ranks
 * run out of the samples: too few samples for an interval.
 */
static bool pct_interval(const struct ks_hist *h, int bits, uint64_t n, double q,
			 double *lo, double *hi)
{
	double p = q / 100, r = n * p, d = 2.24 * sqrt(n * p * (1 - p));

	if (n * fmin(p, 1 - p) < 10 || r - d < 1 || r + d > n)
		return false;
	*lo = ks_slot_min(rank_slot(h, (uint64_t)floor(r - d)), bits);
	*hi = ks_slot_max(rank_slot(h, (uint64_t)ceil(r + d)), bits);
	return true;
}

/*
 * The variance of @h's samples, at most: between slots, plus in each the
 * largest variance that samples of its mean can have, (m - lo) (hi - m).
 */
static double hist_var(const struct ks_hist *h, int bits, const struct stats *st)
{
	double v = 0, m;
	size_t s;

	if (st->n < 2)
		return 0;
	for (s = 0; s < h->nslots; s++) {
		if (!h->count[s])
			continue;
		m = slot_mean(h, s);
		v += h->count[s] * (pow(m - st->mean, 2) +
				    (m - ks_slot_min(s, bits)) * (ks_slot_max(s, bits) - m));
	}
	return v / (st->n - 1);
}

/* A column head: @name, or its last @w - 3 characters after "...". */
static const char *head(char *buf, size_t n, const char *name, int w)
{
	size_t len = strlen(name);

	if (len <= (size_t)w)
		snprintf(buf, n, "%s", name);
	else
		snprintf(buf, n, "...%s", name + len - (w - 3));
	return buf;
}

/*
 * @x rounded outwards (up if @up) to 0.1, or to as many more decimals
 * (*@dec, at most 6) as keep it off 0 when it is not 0: what is printed
 * holds, and holds 0 only where @x does (-0.04, not -0.0). No -0.0.
 */
static double outwards(double x, bool up, int *dec)
{
	double p = 1, v = 0;

	for (*dec = 1; *dec <= 6; (*dec)++) {
		p *= 10;
		v = (up ? ceil(x * p) : floor(x * p)) / p;
		if (v != 0 || x == 0)
			break;
	}
	if (*dec > 6)
		*dec = 6;
	return v + 0.0;
}

/*
 * One line of the comparison: the two values, the change of B from A and
 * the 95% interval of that change, in % of A (absolute when A is 0), and
 * "~" when the interval holds 0: within the resolution and the noise.
 * Without an interval (@few), the change alone and why.
 */
static void compare_line(const char *what, int w, double va, double vb,
			 double dlo, double dhi, bool few)
{
	char x[64], y[64], l[64], h[64];

	printf("%-8s %*s %*s", what, w, fmt_val(x, sizeof(x), va),
	       w, fmt_val(y, sizeof(y), vb));
	if (va > 0)
		printf(" %+9.2f%%", (vb - va) / va * 100);
	else
		printf(" %10s", "(A is 0)");
	if (few) {
		printf("  too few samples for an interval\n");
	} else if (va > 0) {
		int dl, dh;
		double plo = outwards(dlo / va * 100, false, &dl);
		double phi = outwards(dhi / va * 100, true, &dh);

		printf("  [%+.*f%%, %+.*f%%]%s\n", dl, plo, dh, phi,
		       plo <= 0 && phi >= 0 ? "  ~" : "");
	} else {
		printf("  [%s, %s]%s\n", fmt_num(l, sizeof(l), dlo, RND_DOWN, 0),
		       fmt_num(h, sizeof(h), dhi, RND_UP, 0),
		       dlo <= 0 && dhi >= 0 ? "  ~" : "");
	}
}

/* The comparison of @ha and @hb, named @na and @nb, both of frac_bits @bits. */
static void compare_at(const struct ks_hist *ha, const struct ks_hist *hb, int bits,
		       const char *na, const char *nb)
{
	struct stats sa, sb;
	char q[32], x[64], y[64];
	uint64_t ca = 0, cb = 0;
	size_t s, n, at = 0;
	double dmax = 0, ne, p, alo = 0, ahi = 0, blo = 0, bhi = 0, se, lo, hi;
	double va, vb, r, dlo, dhi;
	bool ok;
	int i, w;

	compute(ha, bits, &sa);
	compute(hb, bits, &sb);
	if (!sa.n || !sb.n)
		die(2, "%s is empty", !sa.n ? na : nb);
	w = strlen(na) > strlen(nb) ? strlen(na) : strlen(nb);
	w = w < 14 ? 14 : w > 30 ? 30 : w;
	snprintf(q, sizeof(q), "cpu %ld", opt.cpu);
	printf("%-8s %*s %*s %10s  %s\n", opt.cpu >= 0 ? q : "", w, head(x, sizeof(x), na, w),
	       w, head(y, sizeof(y), nb, w), "change", "95% interval of the change");
	printf("%-8s %*llu %*llu\n", "count", w, (unsigned long long)sa.n,
	       w, (unsigned long long)sb.n);
	/*
	 * The mean: a change is a ratio, B's mean over A's, each uncertain:
	 * the normal interval of the log of that ratio (the delta method,
	 * from each input's variance), so that neither end goes below -100%
	 * and an A made large by a few outliers widens it both ways. Of the
	 * difference where a mean is 0. Cut to what the values allow: B's
	 * mean within B's slots, A's within A's.
	 */
	va = hist_var(ha, bits, &sa);
	vb = hist_var(hb, bits, &sb);
	if (sa.mean > 0 && sb.mean > 0) {
		r = log(sb.mean / sa.mean);
		se = sqrt(va / (sa.n * sa.mean * sa.mean) + vb / (sb.n * sb.mean * sb.mean));
		dlo = sa.mean * expm1(r - 1.96 * se);
		dhi = sa.mean * expm1(r + 1.96 * se);
	} else {
		se = sqrt(va / sa.n + vb / sb.n);
		dlo = sb.mean - sa.mean - 1.96 * se;
		dhi = sb.mean - sa.mean + 1.96 * se;
	}
	lo = fmax(-sa.mean, (double)ks_slot_min(sb.first, bits) -
			    (double)ks_slot_max(sa.last, bits));
	hi = (double)ks_slot_max(sb.last, bits) - (double)ks_slot_min(sa.first, bits);
	compare_line("mean", w, sa.mean, sb.mean, fmax(lo, dlo), fmin(hi, dhi),
		     sa.n < 2 || sb.n < 2);
	for (i = 0; i < opt.npct; i++) {
		char col[40];

		snprintf(col, sizeof(col), "p%s", pct_name(q, sizeof(q), opt.pct[i]));
		ok = pct_interval(ha, bits, sa.n, opt.pct[i], &alo, &ahi) &&
		     pct_interval(hb, bits, sb.n, opt.pct[i], &blo, &bhi);
		va = sa.pct[i].value;
		/*
		 * B's percentile is in [blo, bhi], A's in [alo, ahi]: their
		 * ratio in [blo / ahi, bhi / alo], never below -100%, in
		 * units of A's value (the difference where A's can be 0).
		 */
		dlo = blo - ahi;
		dhi = bhi - alo;
		if (va > 0 && alo > 0) {
			dlo = va * (blo / ahi - 1);
			dhi = va * (bhi / alo - 1);
		}
		compare_line(col, w, va, sb.pct[i].value, dlo, dhi, !ok);
	}
	printf("~: the interval holds 0, the change is within the resolution (slot bounds)\n"
	       "   and the sampling noise (sample counts); intervals of at least 95%%,\n"
	       "   assuming independent samples\n");
	/*
	 * Two-sample Kolmogorov-Smirnov test on the binned data: the largest
	 * difference of the CDFs at the slot boundaries. Binning can only
	 * hide differences, so the p-value errs on the side of "same".
	 */
	n = ha->nslots > hb->nslots ? ha->nslots : hb->nslots;
	for (s = 0; s < n; s++) {
		double d;

		ca += s < ha->nslots ? ha->count[s] : 0;
		cb += s < hb->nslots ? hb->count[s] : 0;
		d = fabs((double)ca / sa.n - (double)cb / sb.n);
		if (d > dmax) {
			dmax = d;
			at = s;
		}
	}
	ne = (double)sa.n * sb.n / (sa.n + sb.n);
	p = ks_q((sqrt(ne) + 0.12 + 0.11 / sqrt(ne)) * dmax);
	printf("ks D=%.6f p-value=%.3g %s\n", dmax, p,
	       p < 0.01 ? "(different, at 1%)" : "(no significant difference, at 1%)");
	printf("   D: the largest gap between the two CDFs, %.2f%% of the samples",
	       dmax * 100);
	if (dmax > 0)
		printf(", at %s", fmt_exact(x, sizeof(x), ks_slot_max(at, bits)));
	printf(";\n   p: the chance of a gap as large if both were independent samples of\n"
	       "   one distribution\n");
}

/*
 * --compare A B. Inputs of different frac_bits are compared at the
 * coarsest, as --merge sums them: each slot of the finer one lies whole
 * in one of the coarser (a union of finer slots), so every count stays
 * exact and only the resolution is the coarsest's. Said on standard
 * error, with each input's frac_bits.
 */
void compare_inputs(const struct ks_data *a, const struct ks_data *b, const char *na,
		    const char *nb)
{
	const struct ks_hist *ha = selected(a, na), *hb = selected(b, nb);
	int bits = a->bits < b->bits ? a->bits : b->bits;
	struct ks_hist coarse = { 0 };

	if (a->bits != b->bits) {
		fprintf(stderr, "%s: --compare: the inputs' frac_bits differ: %s has %d, %s has %d",
			prog, na, a->bits, nb, b->bits);
		fprintf(stderr, "; compared at frac_bits %d, the coarsest (exact: %s)\n", bits,
			"each of its slots is a union of finer ones");
		coarsen(&coarse, a->bits > bits ? ha : hb, a->bits > bits ? a->bits : b->bits,
			bits);
		if (a->bits > bits)
			ha = &coarse;
		else
			hb = &coarse;
	}
	compare_at(ha, hb, bits, na, nb);
	free(coarse.count);
	free(coarse.sum);
}
