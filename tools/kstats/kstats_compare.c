// SPDX-License-Identifier: GPL-2.0
/* kstats --compare: the change of each statistic, its interval, a KS test. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstats.h"

/* The widest a head of --compare A B grows to, where A and B would read alike. */
#define HEAD_MAX 60

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

/*
 * A column head: @names[@self] (of A and B), or its last @w - 3
 * characters after "..."; cut in the middle (start~end) where those
 * would read as the other's.
 */
static const char *head(char *buf, size_t n, const char * const *names, size_t self, int w)
{
	const char *name = names[self], *other = names[!self];
	size_t len = strlen(name), olen = strlen(other), tail = w - 3;
	int t = len > tail ? len - tail : 0;

	if (len <= (size_t)w)
		snprintf(buf, n, "%s", name);
	else if (olen < tail || strcmp(name + len - tail, other + olen - tail))
		/* An escape at the cut: left out whole. */
		snprintf(buf, n, "...%s", name + esc_after(name, t));
	else
		cut_unique(buf, n, names, 2, self, w);
	return buf;
}

/*
 * @x rounded outwards (up if @up) to @first decimals, or to as many more
 * (*@dec, at most @last) as keep it off 0 when it is not 0: what is
 * printed holds @x, and holds 0 only where @x does. No -0.
 */
static double outwards_to(double x, bool up, int first, int last, int *dec)
{
	double p = pow(10, first - 1), v = 0;

	for (*dec = first; *dec <= last; (*dec)++) {
		p *= 10;
		v = (up ? ceil(x * p) : floor(x * p)) / p;
		if (v != 0 || x == 0)
			break;
	}
	if (*dec > last)
		*dec = last;
	return v + 0.0;
}

/* As the text prints a bound: to 0.1, or up to 6 decimals off 0 (-0.04, not -0.0). */
static double outwards(double x, bool up, int *dec)
{
	return outwards_to(x, up, 1, 6, dec);
}

/*
 * One line of the comparison: the two values, the change of B from A and
 * the 95% interval of that change, in % of A (absolute when A is 0), and
 * "~" when the interval holds 0: within the resolution and the noise.
 * Without an interval (@few), the change alone and why.
 */
/* A statistic of both inputs, and the 95% interval of B's change from A. */
struct cmp_stat {
	double a, b;
	double lo, hi;		/* the interval of b - a */
	bool few;		/* too few samples for an interval */
	int bits;		/* a percentile's: a and b are slots' means; else -1 */
};

/* What --compare finds of two distributions. */
struct cmp_result {
	struct stats sa, sb;
	struct cmp_stat mean, pct[MAX_PCTS];
	double d, p;		/* Kolmogorov-Smirnov: the largest gap, its p-value */
	size_t at;		/* the slot of the largest gap */
};

/*
 * A value of a statistic: as fmt_val(), but without --unit a value below
 * 100 that is not an integer keeps 3 significant digits (a mean of 0.5:
 * the statistics of sizes or queue depths are not all nanoseconds). With
 * @sign, a change: its sign always.
 */
static const char *fmt_stat(const struct kstats_opt *o, char *buf, size_t n, double v, bool sign)
{
	char num[48];

	if (!o->human && v != floor(v) && fabs(v) < 100)
		snprintf(num, sizeof(num), "%.3g", v);
	else
		fmt_val(num, sizeof(num), v, ks_unit(o));
	snprintf(buf, n, "%s%s", sign && v >= 0 ? "+" : "", num);
	return buf;
}

/*
 * A value @v of @st: a percentile's, the mean of its slot, to the digits
 * that the slot's width supports (fmt_in_slot(), as the tables of
 * functions print it); the mean's as fmt_stat().
 */
static const char *fmt_point(const struct kstats_opt *o, char *buf, size_t n,
			     const struct cmp_stat *st, double v)
{
	size_t s;

	if (st->bits < 0 || !(v >= 0) || v >= 0x1p64)
		return fmt_stat(o, buf, n, v, false);
	s = ks_slot((uint64_t)v, st->bits);
	return fmt_in_slot(buf, n, v, ks_slot_min(s, st->bits), ks_slot_max(s, st->bits),
			   ks_unit(o));
}

/*
 * The decimals of a change in %, as its interval (in % too) supports: a
 * change known to within 10 points or more is a whole number (a p99 on a
 * slot edge: "+11%", not "+11.16%"), to within 1 point, one decimal.
 */
static int change_decimals(double lo, double hi)
{
	return hi - lo >= 10 ? 0 : hi - lo >= 1 ? 1 : 2;
}

/* @x rounded to @d decimals, a 0 positive: "+0%", not "-0%". */
static double rounded(double x, int d)
{
	double p = pow(10, d), v = round(x * p) / p;

	return v == 0 ? 0 : v;
}

static void compare_line(const struct kstats_opt *o, const char *what, int w,
			 const struct cmp_stat *st)
{
	double va = st->a, vb = st->b, dlo = st->lo, dhi = st->hi;
	char x[64], y[64], l[64], h[64], c[64];
	bool few = st->few;

	printf("%-8s %*s %*s", what, w, fmt_point(o, x, sizeof(x), st, va),
	       w, fmt_point(o, y, sizeof(y), st, vb));
	/* Where A is 0, the change in absolute terms. */
	if (va > 0) {
		/* Without an interval, nothing says a decimal would be right. */
		int d = few ? 0 : change_decimals(dlo / va * 100, dhi / va * 100);

		printf(" %+9.*f%%", d, rounded((vb - va) / va * 100, d));
	} else {
		printf(" %10s", fmt_stat(o, c, sizeof(c), vb - va, true));
	}
	if (few) {
		printf("  too few samples for an interval%s\n", va > 0 ? "" : "  (A is 0)");
	} else if (va > 0) {
		int dl, dh;
		double plo = outwards(dlo / va * 100, false, &dl);
		double phi = outwards(dhi / va * 100, true, &dh);

		printf("  [%+.*f%%, %+.*f%%]%s\n", dl, plo, dh, phi,
		       plo <= 0 && phi >= 0 ? "  ~" : "");
	} else {
		/* "~" as the bounds printed: without --unit, whole numbers. */
		double plo = o->human ? dlo : floor(dlo), phi = o->human ? dhi : ceil(dhi);

		printf("  [%s, %s]%s  (A is 0)\n",
		       fmt_num(l, sizeof(l), dlo, RND_DOWN, 0, ks_unit(o)),
		       fmt_num(h, sizeof(h), dhi, RND_UP, 0, ks_unit(o)),
		       plo <= 0 && phi >= 0 ? "  ~" : "");
	}
}

/* The comparison of @ha and @hb, both of frac_bits @bits, into @res. */
static void compare_compute(const struct kstats_opt *o, const struct ks_hist *ha,
			    const struct ks_hist *hb, int bits,
			    struct cmp_result *res)
{
	struct stats *sa = &res->sa, *sb = &res->sb;
	uint64_t ca = 0, cb = 0;
	size_t s, n;
	double ne, alo = 0, ahi = 0, blo = 0, bhi = 0, se, lo, hi, va, vb, r, dlo, dhi;
	bool ok;
	int i;

	memset(res, 0, sizeof(*res));
	compute(ha, bits, o->pct, o->npct, sa);
	compute(hb, bits, o->pct, o->npct, sb);
	if (!sa->n || !sb->n)
		return;
	/*
	 * The mean: a change is a ratio, B's mean over A's, each uncertain:
	 * the normal interval of the log of that ratio (the delta method,
	 * from each input's variance), so that neither end goes below -100%
	 * and an A made large by a few outliers widens it both ways. Of the
	 * difference where a mean is 0. Cut to what the values allow: B's
	 * mean within B's slots, A's within A's.
	 */
	va = hist_var(ha, bits, sa);
	vb = hist_var(hb, bits, sb);
	if (sa->mean > 0 && sb->mean > 0) {
		r = log(sb->mean / sa->mean);
		se = sqrt(va / (sa->n * sa->mean * sa->mean) +
			  vb / (sb->n * sb->mean * sb->mean));
		dlo = sa->mean * expm1(r - 1.96 * se);
		dhi = sa->mean * expm1(r + 1.96 * se);
	} else {
		se = sqrt(va / sa->n + vb / sb->n);
		dlo = sb->mean - sa->mean - 1.96 * se;
		dhi = sb->mean - sa->mean + 1.96 * se;
	}
	lo = fmax(-sa->mean, (double)ks_slot_min(sb->first, bits) -
			     (double)ks_slot_max(sa->last, bits));
	hi = (double)ks_slot_max(sb->last, bits) - (double)ks_slot_min(sa->first, bits);
	res->mean = (struct cmp_stat){ sa->mean, sb->mean, fmax(lo, dlo), fmin(hi, dhi),
				       sa->n < 2 || sb->n < 2, -1 };
	for (i = 0; i < o->npct; i++) {
		ok = pct_interval(ha, bits, sa->n, o->pct[i], &alo, &ahi) &&
		     pct_interval(hb, bits, sb->n, o->pct[i], &blo, &bhi);
		va = sa->pct[i].value;
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
		res->pct[i] = (struct cmp_stat){ va, sb->pct[i].value, dlo, dhi, !ok, bits };
	}
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
		d = fabs((double)ca / sa->n - (double)cb / sb->n);
		if (d > res->d) {
			res->d = d;
			res->at = s;
		}
	}
	ne = (double)sa->n * sb->n / (sa->n + sb->n);
	res->p = ks_q((sqrt(ne) + 0.12 + 0.11 / sqrt(ne)) * res->d);
}

/* The comparison of @ha and @hb, named @na and @nb, both of frac_bits @bits. */
static void compare_at(const struct kstats_opt *o, const struct ks_hist *ha,
		       const struct ks_hist *hb, int bits,
		       const char *na, const char *nb, struct cmp_result *res)
{
	size_t la = 4 * strlen(na) + 1, lb = 4 * strlen(nb) + 1;
	char q[32], x[128], y[128], *ea = malloc(la), *eb = malloc(lb);
	const char * const ab[] = { ea, eb };
	int i, w;

	compare_compute(o, ha, hb, bits, res);
	if (!res->sa.n || !res->sb.n)
		die(2, "%s is empty", !res->sa.n ? na : nb);
	if (!ea || !eb)
		die(1, "out of memory");
	/* The heads: the names as a terminal shows them (shown()). */
	shown(ea, la, na);
	shown(eb, lb, nb);
	w = strlen(ea) > strlen(eb) ? strlen(ea) : strlen(eb);
	w = w < 14 ? 14 : w > 30 ? 30 : w;
	/* Wider, up to HEAD_MAX, where the heads would read alike (paths that end alike). */
	w = unique_width(ab, 2, w, HEAD_MAX);
	snprintf(q, sizeof(q), "cpu %ld", o->cpu);
	printf("%-8s %*s %*s %10s  %s\n", o->cpu >= 0 ? q : "", w, head(x, sizeof(x), ab, 0, w),
	       w, head(y, sizeof(y), ab, 1, w), "change", "95% interval of the change");
	printf("%-8s %*llu %*llu\n", "count", w, (unsigned long long)res->sa.n,
	       w, (unsigned long long)res->sb.n);
	compare_line(o, "mean", w, &res->mean);
	for (i = 0; i < o->npct; i++) {
		char col[40];

		snprintf(col, sizeof(col), "p%s", pct_name(q, sizeof(q), o->pct[i]));
		compare_line(o, col, w, &res->pct[i]);
	}
	printf("~: the interval holds 0, the change is within the resolution (slot bounds)\n"
	       "   and the sampling noise (sample counts); intervals of at least 95%%,\n"
	       "   assuming independent samples\n");
	printf("ks D=%.6f p-value=%.3g %s\n", res->d, res->p,
	       res->p < 0.01 ? "(different, at 1%)" : "(no significant difference, at 1%)");
	printf("   D: the largest gap between the two CDFs, %.2f%% of the samples",
	       res->d * 100);
	if (res->d > 0)
		printf(", at %s", fmt_exact(x, sizeof(x), ks_slot_max(res->at, bits), ks_unit(o)));
	printf(";\n   p: the chance of a gap as large if both were independent samples of\n"
	       "   one distribution\n");
	free(ea);
	free(eb);
}

/* A statistic's change, in % of A's value (any change of a 0: infinite). */
static double change_pct(const struct cmp_stat *st)
{
	if (st->a > 0)
		return (st->b - st->a) / st->a * 100;
	return st->b > st->a ? INFINITY : st->b < st->a ? -INFINITY : 0;
}

/*
 * A --fail-if rule that @name failed, on standard error: the change to
 * the decimals its interval supports (@maxd at most, as the table that
 * prints it), the interval rounded outwards, as the tables print them.
 */
static void say_failed(const struct kstats_fail_if *r, const char *name, double pct,
		       double lo, double hi, int maxd)
{
	int dl, dh, d = change_decimals(lo, hi) < maxd ? change_decimals(lo, hi) : maxd;

	kstats_warn("--fail-if %s: %s changed by %+.*f%% [%+.*f%%, %+.*f%%]", r->text, name,
		    d, rounded(pct, d), dl, outwards(lo, false, &dl), dh,
		    outwards(hi, true, &dh));
}

/*
 * The --fail-if rules that could not be tested for some of the @n
 * functions compared (@untested of each): a gate that cannot fail says so.
 */
static void say_untested(const struct kstats_opt *o, const int *untested, size_t n)
{
	char count[64] = "";
	int i;

	for (i = 0; i < o->nfail_if; i++) {
		if (!untested[i])
			continue;
		if (n > 1)
			snprintf(count, sizeof(count), " for %d of %zu functions", untested[i], n);
		kstats_warn("--fail-if %s: not tested%s: %s", o->fail_if[i].text, count,
			    "no samples in A or B, or too few for an interval");
	}
}

/*
 * The --fail-if rules that @res fails, said on standard error for @name
 * (the change to @maxd decimals at most): a statistic fails STAT>N% when
 * the whole of the interval of its change is above N% of A's value
 * (STAT<N%: below), so that noise, which the interval holds, fails no
 * rule. A rule that cannot be tested (no samples in A or B, too few for
 * an interval) adds one to its count in @untested, if given. Returns
 * whether one failed.
 */
static bool fails_if(const struct kstats_opt *o, const struct cmp_result *res, const char *name,
		     int maxd, int *untested)
{
	const struct kstats_fail_if *r;
	const struct cmp_stat *st;
	bool failed = false;
	double lo, hi;

	for (r = o->fail_if; r < o->fail_if + o->nfail_if; r++) {
		st = r->stat < 0 ? &res->mean : &res->pct[r->stat];
		if (!res->sa.n || !res->sb.n || st->few) {
			if (untested)
				untested[r - o->fail_if]++;
			continue;
		}
		lo = st->a > 0 ? st->lo / st->a * 100 : st->lo > 0 ? INFINITY : -INFINITY;
		hi = st->a > 0 ? st->hi / st->a * 100 : st->hi < 0 ? -INFINITY : INFINITY;
		if (r->op == '>' ? lo <= r->pct : hi >= r->pct)
			continue;
		if (name)
			say_failed(r, name, change_pct(st), lo, hi, maxd);
		failed = true;
	}
	return failed;
}

/* @h coarsened to @bits into @tmp, or @h itself if it has them. */
static const struct ks_hist *at_bits(struct ks_hist *tmp, const struct ks_hist *h,
				     int from, int bits)
{
	if (from == bits)
		return h;
	coarsen(tmp, h, from, bits);
	return tmp;
}

/*
 * --compare A B. Inputs of different frac_bits are compared at the
 * coarsest, as --merge sums them: each slot of the finer one lies whole
 * in one of the coarser (a union of finer slots), so every count stays
 * exact and only the resolution is the coarsest's. Said on standard
 * error, with each input's frac_bits. Returns EXIT_FAIL_IF when a
 * --fail-if rule fails, else 0.
 */
int compare_inputs(const struct kstats_opt *o, const struct ks_data *a, const struct ks_data *b,
		   const char *na,
		   const char *nb)
{
	const struct ks_hist *ha = selected(o, a, na), *hb = selected(o, b, nb);
	int bits = a->bits < b->bits ? a->bits : b->bits;
	struct ks_hist ca = { 0 }, cb = { 0 };
	struct cmp_result res;
	int untested[MAX_FAIL_IF] = { 0 }, ret;

	if (a->bits != b->bits) {
		kstats_warn("--compare: the inputs' frac_bits differ: %s has %d, %s has %d; %s %d, %s",
			    na, a->bits, nb, b->bits, "compared at frac_bits", bits,
			    "the coarsest (exact: each of its slots is a union of finer ones)");
	}
	compare_at(o, at_bits(&ca, ha, a->bits, bits), at_bits(&cb, hb, b->bits, bits), bits,
		   na, nb, &res);
	free(ca.count);
	free(ca.sum);
	free(cb.count);
	free(cb.sum);
	ret = fails_if(o, &res, nb, 2, untested) ? EXIT_FAIL_IF : 0;
	say_untested(o, untested, 1);
	return ret;
}

/* A function of both groups, compared. */
struct cmp_row {
	char *name;
	struct cmp_result res;
	double key;		/* the sort: the largest significant change, in % */
	bool empty;		/* no samples in A or in B: nothing to compare */
};

/* The functions of group @dir (its files but _summary), sorted, in *@names. */
static size_t group_funcs(const char *dir, char ***names)
{
	struct dirent **e;
	size_t n = 0;
	int i, k;

	k = scandir(dir, &e, NULL, alphasort);
	if (k < 0)
		die(1, "%s: %s", dir, strerror(errno));
	*names = calloc(k + 1, sizeof(**names));
	if (!*names)
		die(1, "out of memory");
	for (i = 0; i < k; i++) {
		if (!not_metric(e[i]->d_name) && e[i]->d_type != DT_DIR) {
			(*names)[n] = strdup(e[i]->d_name);
			if (!(*names)[n++])
				die(1, "out of memory");
		}
		free(e[i]);
	}
	free(e);
	return n;
}

/* A statistic's significant change: its interval's end nearest 0, in %; 0 if none. */
static double significant(const struct cmp_stat *st)
{
	if (st->few || !(st->a > 0) || (st->lo <= 0 && st->hi >= 0))
		return 0;
	return (st->lo > 0 ? st->lo : st->hi) / st->a * 100;
}

/* The largest significant change of the mean and the percentiles of @res. */
static double row_key(const struct kstats_opt *o, const struct cmp_result *res)
{
	double key = significant(&res->mean), k;
	int i;

	for (i = 0; i < o->npct; i++) {
		k = significant(&res->pct[i]);
		key = fabs(k) > fabs(key) ? k : key;
	}
	return key;
}

/* Empty rows last; then the largest significant change, the test, the name. */
static int cmp_rows(const void *x, const void *y)
{
	const struct cmp_row *a = x, *b = y;

	if (a->empty != b->empty)
		return a->empty ? 1 : -1;
	if (fabs(a->key) != fabs(b->key))
		return fabs(a->key) < fabs(b->key) ? 1 : -1;
	if (a->res.p != b->res.p)
		return a->res.p < b->res.p ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * One statistic in a column: A's value into @val (@vn bytes), and its
 * change with the change's interval into @buf (@n bytes),
 * "+12.3% [+8.1, +16.0]", "~" if it holds 0; without the interval if
 * @brief.
 */
static const char *change_cell(const struct kstats_opt *o, char *val, size_t vn, char *buf,
			       size_t n, const struct cmp_stat *st, bool brief)
{
	int dl, dh;
	double lo, hi;

	fmt_point(o, val, vn, st, st->a);
	if (st->few) {
		snprintf(buf, n, "(few samples)");
	} else if (!(st->a > 0)) {
		char c[64], l[64], h[64];
		double plo = o->human ? st->lo : floor(st->lo);
		double phi = o->human ? st->hi : ceil(st->hi);

		/* In absolute terms, as the text of a single comparison. */
		char iv[140] = "";

		if (!brief)
			snprintf(iv, sizeof(iv), " [%s, %s]",
				 fmt_num(l, sizeof(l), st->lo, RND_DOWN, 0, ks_unit(o)),
				 fmt_num(h, sizeof(h), st->hi, RND_UP, 0, ks_unit(o)));
		snprintf(buf, n, "%s%s%s (A is 0)", fmt_stat(o, c, sizeof(c), st->b - st->a, true),
			 iv, plo <= 0 && phi >= 0 ? " ~" : "");
	} else {
		lo = outwards(st->lo / st->a * 100, false, &dl);
		hi = outwards(st->hi / st->a * 100, true, &dh);
		int d = change_decimals(lo, hi) < 1 ? 0 : 1;

		if (brief)
			snprintf(buf, n, "%+.*f%%%s", d, rounded(change_pct(st), d),
				 lo <= 0 && hi >= 0 ? " ~" : "");
		else
			snprintf(buf, n, "%+.*f%% [%+.*f, %+.*f]%s", d, rounded(change_pct(st), d),
				 dl, lo, dh, hi, lo <= 0 && hi >= 0 ? " ~" : "");
	}
	return buf;
}

/*
 * A bound of an interval in JSON: rounded outwards to 3 decimals, or as
 * many more (up to 9) as keep it off 0, as the text's are; ", " before.
 */
static void json_bound(const char *key, double x, bool up)
{
	int dec;
	double v = outwards_to(x, up, 3, 9, &dec);

	printf(",\"%s\":%.*f", key, dec, v);
}

/*
 * A statistic in JSON: its values, and the change in % with its
 * interval, whose bounds are rounded outwards, as the text's are.
 */
static void json_stat(const char *key, const struct cmp_stat *st)
{
	printf("\"%s\":{\"a\":%.3f,\"b\":%.3f", key, st->a, st->b);
	if (st->few) {
		printf(",\"few\":true}");
		return;
	}
	if (st->a > 0) {
		printf(",\"change_pct\":%.3f", change_pct(st));
		json_bound("lo_pct", st->lo / st->a * 100, false);
		json_bound("hi_pct", st->hi / st->a * 100, true);
	}
	json_bound("change_lo", st->lo, false);
	json_bound("change_hi", st->hi, true);
	printf(",\"same\":%s}", st->lo <= 0 && st->hi >= 0 ? "true" : "false");
}

/* The names of @n functions of one group only, in JSON. */
static void json_names(const char *key, char **names, size_t n)
{
	size_t i, k = 0;

	printf(",\"%s\":[", key);
	for (i = 0; i < n; i++) {
		if (!names[i])
			continue;
		printf("%s", k++ ? "," : "");
		json_string(names[i]);
	}
	printf("]");
}

/*
 * The names of @n functions of one group only, in a line of text; on a
 * terminal, in lines of its width.
 */
static void text_names(const char *group, char **names, size_t n)
{
	char name[1024], *line = NULL;
	size_t i, k = 0, size = 0;
	int cols = out_width();
	FILE *f;

	for (i = 0; i < n; i++)
		k += !!names[i];
	if (!k)
		return;
	f = open_memstream(&line, &size);
	if (!f)
		die(1, "out of memory");
	fprintf(f, "in %s only (%zu):", shown(name, sizeof(name), group), k);
	for (i = 0; i < n; i++)
		if (names[i])
			fprintf(f, " %s", shown(name, sizeof(name), names[i]));
	if (fclose(f))
		die(1, "out of memory");
	if (cols)
		puts_wrapped(line, cols);
	else
		puts(line);
	free(line);
}

/*
 * The widths of the columns of the statistics (@c 0 the mean, then the
 * percentiles): A's values @wv, the changes @w, each that of its widest
 * cell; as wide as its head at least.
 */
static void cmp_widths(const struct kstats_opt *o, const struct cmp_row *rows, size_t n,
		       bool brief, int *wv, int *w)
{
	char q[32], cell[96], val[96];
	size_t i;
	int c, k;

	for (c = 0; c <= o->npct; c++) {
		wv[c] = 1;
		w[c] = 1;
		for (i = 0; i < n; i++) {
			if (rows[i].empty)
				continue;
			change_cell(o, val, sizeof(val), cell, sizeof(cell),
				    c ? &rows[i].res.pct[c - 1] : &rows[i].res.mean, brief);
			wv[c] = (int)strlen(val) > wv[c] ? (int)strlen(val) : wv[c];
			w[c] = (int)strlen(cell) > w[c] ? (int)strlen(cell) : w[c];
		}
		k = c ? 1 + strlen(pct_name(q, sizeof(q), o->pct[c - 1])) : 4;
		if (wv[c] + 1 + w[c] < k)
			w[c] = k - wv[c] - 1;
	}
}

/*
 * The group comparison's table: each column as wide as its widest cell,
 * A's values right aligned, then the changes left aligned, each readable
 * down the column. On a terminal narrower than it, the intervals go, then
 * names longer than 24 characters are cut (start~end), then whole columns:
 * ks p, the percentiles but the last, count B, count A, the mean; what
 * went is said below.
 */
static void text_table(const struct kstats_opt *o, const struct cmp_row *rows, size_t n)
{
	enum { CA, CB, CSTAT };
	int cols = out_width(), wv[1 + MAX_PCTS], w[1 + MAX_PCTS], cw[4 + MAX_PCTS];
	int keep[4 + MAX_PCTS], order[4 + MAX_PCTS], ncol = CSTAT + o->npct + 2;
	int c, k, no = 0, sum, wn = 8, minw, len;
	char q[32], cell[96], val[96], name[1024], buf[1024], out[512] = "";
	char head[4 + MAX_PCTS][40], **names = calloc(n + 1, sizeof(*names));
	bool brief = false;
	size_t i;

	if (!names)
		die(1, "out of memory");
	for (i = 0; i < n; i++) {
		names[i] = strdup(shown(name, sizeof(name), rows[i].name));
		if (!names[i])
			die(1, "out of memory");
		len = strlen(names[i]);
		wn = len > wn ? len : wn;
	}
	for (c = 0; c < ncol; c++) {
		if (c > CSTAT && c < ncol - 1)
			snprintf(head[c], sizeof(head[c]), "p%s",
				 pct_name(q, sizeof(q), o->pct[c - CSTAT - 1]));
		else
			snprintf(head[c], sizeof(head[c]), "%s", c == CA ? "count A" :
				 c == CB ? "count B" : c == CSTAT ? "mean" : "ks p");
		cw[c] = 8;
	}
	cmp_widths(o, rows, n, brief, wv, w);
	for (;;) {
		for (c = 0, sum = 0; c <= o->npct; c++)
			cw[CSTAT + c] = wv[c] + 1 + w[c];
		for (c = 0; c < ncol; c++) {
			keep[c] = 1;
			sum += 1 + cw[c];
		}
		if (!cols || wn + sum <= cols || brief)
			break;
		brief = true;
		cmp_widths(o, rows, n, brief, wv, w);
	}
	order[no++] = ncol - 1;
	for (c = 1; c < o->npct; c++)
		order[no++] = CSTAT + c;
	order[no++] = CB;
	order[no++] = CA;
	order[no++] = CSTAT;
	minw = unique_width((const char * const *)names, n, wn < 24 ? wn : 24,
			    cols > 0 ? cols / 2 : wn);
	for (k = 0; cols && k < no && minw + sum > cols; k++) {
		keep[order[k]] = 0;
		sum -= 1 + cw[order[k]];
	}
	if (cols && wn + sum > cols)
		wn = cols - sum > minw ? cols - sum : minw;
	len = 0;
	if (brief)
		len = snprintf(out, sizeof(out), "the intervals");
	for (c = 0; c < ncol; c++)
		if (!keep[c])
			len += snprintf(out + len, sizeof(out) - len, "%s%s", len ? ", " : "",
					head[c]);
	k = snprintf(buf, sizeof(buf), "%-*s", wn, "function");
	for (c = 0; c < ncol; c++)
		if (keep[c])
			k += snprintf(buf + k, sizeof(buf) - k, c >= CSTAT && c < ncol - 1 ?
				      " %-*s" : " %*s", cw[c], head[c]);
	/* The heads of the changes are left aligned: no blanks after the last. */
	while (k > 0 && buf[k - 1] == ' ')
		buf[--k] = '\0';
	puts(buf);
	for (i = 0; i < n; i++) {
		const struct cmp_result *r = &rows[i].res;

		k = cut_unique(buf, sizeof(buf), (const char * const *)names, n, i, wn);
		k += snprintf(buf + k, sizeof(buf) - k, "%*s", wn - k > 0 ? wn - k : 0, "");
		if (keep[CA])
			k += snprintf(buf + k, sizeof(buf) - k, " %8llu",
				      (unsigned long long)r->sa.n);
		if (keep[CB])
			k += snprintf(buf + k, sizeof(buf) - k, " %8llu",
				      (unsigned long long)r->sb.n);
		if (rows[i].empty) {
			printf("%s (no samples in %s)\n", buf, !r->sa.n && !r->sb.n ? "A or B" :
			       !r->sa.n ? "A" : "B");
			continue;
		}
		for (c = 0; c <= o->npct; c++) {
			if (!keep[CSTAT + c])
				continue;
			change_cell(o, val, sizeof(val), cell, sizeof(cell),
				    c ? &r->pct[c - 1] : &r->mean, brief);
			k += snprintf(buf + k, sizeof(buf) - k, " %*s %-*s", wv[c], val, w[c],
				      cell);
		}
		if (keep[ncol - 1])
			k += snprintf(buf + k, sizeof(buf) - k, " %8.2g", r->p);
		while (k > 0 && buf[k - 1] == ' ')
			buf[--k] = '\0';
		puts(buf);
	}
	if (out[0]) {
		snprintf(buf, sizeof(buf), "left out for the width: %s (a wider terminal, %s",
			 out, "a pipe or --json shows them)");
		puts_wrapped(buf, cols);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* What the cells of the group comparison say, in lines of the terminal's width. */
static void legend(size_t n)
{
	char buf[512];
	int cols = out_width();

	snprintf(buf, sizeof(buf), "%zu functions in both; each cell: A's value, then the %s", n,
		 "change in % of A\n"
		 "with its 95% interval; sorted by the largest significant change (the\n"
		 "end of an interval nearest 0); ~: the interval holds 0 (within the\n"
		 "resolution and the noise)");
	if (cols && cols < 70) {
		for (char *p = buf; *p; p++)
			*p = *p == '\n' ? ' ' : *p;
		puts_wrapped(buf, cols);
	} else {
		puts(buf);
	}
}

/*
 * --compare DIR_A DIR_B: every function of both groups, compared as two
 * inputs are (each function's file, at the coarser frac_bits of the two),
 * a row each, sorted by the largest significant change of the mean and
 * the percentile columns (the end of its interval nearest 0), then by the
 * test's p-value; rows of a function without samples in A or B last. The
 * functions of one group only are named after. With --json, an object.
 * Returns EXIT_FAIL_IF when a --fail-if rule fails for a function,
 * naming each on standard error.
 */
int compare_groups(const struct kstats_opt *o0, const char *da, const char *db, const char *na,
		   const char *nb)
{
	char **fa, **fb, *pa, *pb, q[32], cell[96];
	size_t n = 0, ka, kb, i, j;
	int c, ret = 0, coarse = 0, cbits[2] = { 0 }, untested[MAX_FAIL_IF] = { 0 };
	char *cname = NULL;
	struct kstats_opt copy = *o0, *o = &copy;
	struct cmp_row *rows;
	struct ks_data a, b;

	/*
	 * A row per function: the mean and, unless -p, p50 and p99 (the
	 * --fail-if rules then name their columns anew).
	 */
	if (!o->pcts) {
		parse_pcts(o, "50,99");
		for (c = 0; c < o->nfail_if; c++)
			parse_fail_if(o, o->fail_if[c].text, &o->fail_if[c]);
	}
	group_need_files(o, da);
	group_need_files(o, db);
	ka = group_funcs(da, &fa);
	kb = group_funcs(db, &fb);
	rows = calloc(ka + 1, sizeof(*rows));
	if (!rows)
		die(1, "out of memory");
	for (i = 0, j = 0; i < ka && j < kb;) {
		int bits;
		struct ks_hist ca = { 0 }, cb = { 0 };

		c = strcmp(fa[i], fb[j]);
		if (c) {
			c < 0 ? i++ : j++;
			continue;
		}
		if (asprintf(&pa, "%s/%s", da, fa[i]) < 0 || asprintf(&pb, "%s/%s", db, fb[j]) < 0)
			die(1, "out of memory");
		load(&a, pa, o->bits);
		load(&b, pb, o->bits);
		bits = a.bits < b.bits ? a.bits : b.bits;
		if (a.bits != b.bits && !coarse++) {
			cname = strdup(fa[i]);
			cbits[0] = a.bits;
			cbits[1] = b.bits;
		}
		compare_compute(o, at_bits(&ca, selected(o, &a, pa), a.bits, bits),
				at_bits(&cb, selected(o, &b, pb), b.bits,
					bits), bits, &rows[n].res);
		free(ca.count);
		free(ca.sum);
		free(cb.count);
		free(cb.sum);
		rows[n].name = fa[i];
		rows[n].empty = !rows[n].res.sa.n || !rows[n].res.sb.n;
		rows[n].key = row_key(o, &rows[n].res);
		fa[i] = NULL;
		free(fb[j]);
		fb[j] = NULL;
		n++;
		ks_data_free(&a);
		ks_data_free(&b);
		free(pa);
		free(pb);
		i++;
		j++;
	}
	if (coarse)
		kstats_warn("--compare: %d function%s %s %s and %s %s (%s: %d and %d)",
			    coarse, coarse > 1 ? "s" : "", "of different frac_bits in", da, db,
			    "compared at the coarser", cname ? cname : "?", cbits[0], cbits[1]);
	free(cname);
	qsort(rows, n, sizeof(*rows), cmp_rows);
	if (o->out == OUT_JSON) {
		printf("{\"a\":");
		json_string(na);
		printf(",\"b\":");
		json_string(nb);
		printf(",\"functions\":{");
		for (i = 0; i < n; i++) {
			const struct cmp_result *r = &rows[i].res;

			printf("%s", i ? "," : "");
			json_string(rows[i].name);
			printf(":{\"count_a\":%llu,\"count_b\":%llu", (unsigned long long)r->sa.n,
			       (unsigned long long)r->sb.n);
			if (!rows[i].empty) {
				printf(",");
				json_stat("mean", &r->mean);
				for (c = 0; c < o->npct; c++) {
					snprintf(cell, sizeof(cell), "p%s",
						 pct_name(q, sizeof(q), o->pct[c]));
					printf(",");
					json_stat(cell, &r->pct[c]);
				}
				printf(",\"ks_d\":%.6f,\"ks_p\":%.3g", r->d, r->p);
			}
			printf(",\"fails\":%s}", fails_if(o, r, NULL, 1, NULL) ? "true" : "false");
		}
		printf("}");
		json_names("only_a", fa, ka);
		json_names("only_b", fb, kb);
		printf("}\n");
	} else {
		text_table(o, rows, n);
		text_names(na, fa, ka);
		text_names(nb, fb, kb);
		legend(n);
	}
	for (i = 0; i < n; i++) {
		if (fails_if(o, &rows[i].res, rows[i].name, 1, untested))
			ret = EXIT_FAIL_IF;
		free(rows[i].name);
	}
	say_untested(o, untested, n);
	for (i = 0; i < ka; i++)
		free(fa[i]);
	for (j = 0; j < kb; j++)
		free(fb[j]);
	free(fa);
	free(fb);
	free(rows);
	return ret;
}
