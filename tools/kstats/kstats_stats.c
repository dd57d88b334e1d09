// SPDX-License-Identifier: GPL-2.0
/* kstats: percentiles, MAD, and sums and differences of histograms. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kstats.h"

double slot_mean(const struct ks_hist *h, size_t s)
{
	return h->sum[s] / h->count[s];
}

/* The slot holding the sample of rank r (1-based, nearest rank). */
size_t rank_slot(const struct ks_hist *h, uint64_t r)
{
	uint64_t cum = 0;
	size_t s;

	for (s = 0; s < h->nslots; s++) {
		cum += h->count[s];
		if (cum >= r)
			return s;
	}
	return h->nslots - 1;
}

static uint64_t rank_of(double q, uint64_t n)
{
	/* Clamped as a double: n near 2^64 rounds up to 2^64, beyond u64. */
	double r = ceil(q / 100 * n);

	return r < 1 ? 1 : r >= n ? n : (uint64_t)r;
}

struct dev {
	double v;
	uint64_t count;
};

static int dev_cmp(const void *a, const void *b)
{
	double x = ((const struct dev *)a)->v, y = ((const struct dev *)b)->v;

	return x < y ? -1 : x > y;
}

/* Weighted median, nearest rank, of @n values: sorts them. */
static double wmedian(struct dev *d, size_t n, uint64_t total)
{
	uint64_t r = rank_of(50, total), cum = 0;
	size_t i;

	qsort(d, n, sizeof(*d), dev_cmp);
	for (i = 0; i < n; i++) {
		cum += d[i].count;
		if (cum >= r)
			return d[i].v;
	}
	return n ? d[n - 1].v : 0;
}

/*
 * The @npct percentiles @pct, and the median absolute deviation. A
 * percentile is the mean of the slot holding the sample of its rank: the
 * true percentile of the samples lies within that slot's bounds. The MAD
 * of the samples lies within the median of the smallest and of the
 * largest distances between each slot and the median's slot.
 */
void compute(const struct ks_hist *h, int bits, const double *pct, int npct,
	     struct stats *st)
{
	struct dev *dv, *dlo, *dhi;
	double sum = 0, m;
	uint64_t mlo, mhi;
	size_t s, k = 0;
	int i;

	memset(st, 0, sizeof(*st));
	st->first = -1;
	st->last = -1;
	for (s = 0; s < h->nslots; s++) {
		if (!h->count[s])
			continue;
		if (st->first < 0)
			st->first = s;
		st->last = s;
		st->n += h->count[s];
		sum += h->sum[s];
	}
	if (!st->n)
		return;
	st->sum = sum;
	st->mean = sum / st->n;
	for (i = 0; i < npct; i++) {
		s = rank_slot(h, rank_of(pct[i], st->n));
		st->pct[i].q = pct[i];
		st->pct[i].value = slot_mean(h, s);
		st->pct[i].lo = ks_slot_min(s, bits);
		st->pct[i].hi = ks_slot_max(s, bits);
	}

	s = rank_slot(h, rank_of(50, st->n));
	mlo = ks_slot_min(s, bits);
	mhi = ks_slot_max(s, bits);
	dv = calloc(3 * (st->last + 1), sizeof(*dv));
	if (!dv)
		die(1, "out of memory");
	dlo = dv + st->last + 1;
	dhi = dlo + st->last + 1;
	m = slot_mean(h, rank_slot(h, rank_of(50, st->n)));
	for (s = st->first; s <= (size_t)st->last; s++) {
		uint64_t lo = ks_slot_min(s, bits), hi = ks_slot_max(s, bits);

		if (!h->count[s])
			continue;
		dv[k].v = fabs(slot_mean(h, s) - m);
		dlo[k].v = lo > mhi ? (double)(lo - mhi) :
			   hi < mlo ? (double)(mlo - hi) : 0;
		dhi[k].v = fmax((double)hi - mlo, (double)mhi - lo);
		dv[k].count = h->count[s];
		dlo[k].count = h->count[s];
		dhi[k].count = h->count[s];
		k++;
	}
	st->mad = wmedian(dv, k, st->n);
	st->mad_lo = wmedian(dlo, k, st->n);
	st->mad_hi = wmedian(dhi, k, st->n);
	free(dv);
}

/*
 * The width of slot @s in octaves (doublings of the value): log2 of
 * (hi + 1) / lo, with 0 taken as 1/2. Slots are log-linear, so a count
 * divided by this is a density that a logarithmic axis shows without the
 * sawtooth of raw counts, whose slots double in width at each power of 2.
 */
double octaves(size_t s, int bits)
{
	double lo = ks_slot_min(s, bits);

	return log2(((double)ks_slot_max(s, bits) + 1) / (lo > 0 ? lo : 0.5));
}

/*
 * @h's samples in the slots of a coarser frac_bits @to: a slot of @to is a
 * union of slots of @bits, so every count and sum is exact.
 */
void coarsen(struct ks_hist *out, const struct ks_hist *h, int bits, int to)
{
	size_t s, c;

	out->nslots = ks_nr_slots(to);
	out->count = calloc(out->nslots, sizeof(*out->count));
	out->sum = calloc(out->nslots, sizeof(*out->sum));
	if (!out->count || !out->sum)
		die(1, "out of memory");
	for (s = 0; s < h->nslots; s++) {
		if (!h->count[s])
			continue;
		c = ks_slot(ks_slot_min(s, bits), to);
		out->count[c] += h->count[s];
		out->sum[c] += h->sum[s];
	}
}

/* @h with at least @n slots, the new ones empty. */
void hist_grow(struct ks_hist *h, size_t n)
{
	uint64_t *c;
	double *m;

	if (n <= h->nslots)
		return;
	c = realloc(h->count, n * sizeof(*c));
	if (c)
		h->count = c;
	m = realloc(h->sum, n * sizeof(*m));
	if (m)
		h->sum = m;
	if (!c || !m)
		die(1, "out of memory");
	memset(c + h->nslots, 0, (n - h->nslots) * sizeof(*c));
	memset(m + h->nslots, 0, (n - h->nslots) * sizeof(*m));
	h->nslots = n;
}

/* @d with at least @n CPUs, the new ones empty. */
void cpus_grow(struct ks_data *d, size_t n)
{
	struct ks_hist *h;

	if (n <= d->ncpus)
		return;
	h = realloc(d->cpu, n * sizeof(*h));
	if (!h)
		die(1, "out of memory");
	memset(h + d->ncpus, 0, (n - d->ncpus) * sizeof(*h));
	d->cpu = h;
	d->ncpus = n;
}

/* @a = @b - @a, slot by slot: the samples recorded between two snapshots. */
static void hist_sub(struct ks_hist *a, const struct ks_hist *b, int bits, const char *what)
{
	size_t s;

	for (s = 0; s < a->nslots; s++)
		if (a->count[s] && (s >= b->nslots || b->count[s] < a->count[s]))
			die(2, "%s: slot %zu lost samples: not a later snapshot (reset?)",
			    what, s);
	hist_grow(a, b->nslots);
	/*
	 * nslots is a capacity, which grows from the first slot read: @a may
	 * have more than @b, empty past @b's (checked above).
	 */
	for (s = 0; s < a->nslots; s++) {
		uint64_t n = (s < b->nslots ? b->count[s] : 0) - a->count[s];
		double lo = ks_slot_min(s, bits), hi = ks_slot_max(s, bits), mean;

		if (!n) {
			a->count[s] = 0;
			a->sum[s] = 0;
			continue;
		}
		/* Means are printed rounded down: keep the difference's in the slot. */
		mean = (b->sum[s] - a->sum[s]) / n;
		mean = mean < lo ? lo : mean > hi ? hi : mean;
		a->count[s] = n;
		a->sum[s] = mean * n;
	}
}

void diff(struct ks_data *old, const struct ks_data *new, const char *what)
{
	size_t c;

	if (old->bits != new->bits)
		die(2, "%s: frac_bits %d and %d differ", what, old->bits, new->bits);
	hist_sub(&old->all, &new->all, new->bits, what);
	cpus_grow(old, new->ncpus);
	for (c = 0; c < new->ncpus; c++)
		hist_sub(&old->cpu[c], &new->cpu[c], new->bits, what);
}

/* Add @b's samples to @a's, slot by slot. */
static void hist_add(struct ks_hist *a, const struct ks_hist *b)
{
	size_t s;

	hist_grow(a, b->nslots);
	for (s = 0; s < b->nslots; s++) {
		a->count[s] += b->count[s];
		a->sum[s] += b->sum[s];
	}
}

/* @h, of frac_bits @bits, added to @a, of frac_bits @to (as coarse or coarser). */
void hist_add_at(struct ks_hist *a, const struct ks_hist *h, int bits, int to)
{
	struct ks_hist coarse = { 0 };

	if (bits == to || !h->nslots) {
		hist_add(a, h);
		return;
	}
	coarsen(&coarse, h, bits, to);
	hist_add(a, &coarse);
	free(coarse.count);
	free(coarse.sum);
}

/* @d's samples added to @a's, @a of frac_bits as coarse as @d's or coarser. */
static void data_sum(struct ks_data *a, const struct ks_data *d)
{
	size_t c;

	cpus_grow(a, d->ncpus);
	for (c = 0; c < d->ncpus; c++)
		hist_add_at(&a->cpu[c], &d->cpu[c], d->bits, a->bits);
	hist_add_at(&a->all, &d->all, d->bits, a->bits);
	if (d->possible > a->possible)
		a->possible = d->possible;
}

/*
 * @d's samples added to @a's, CPU by CPU and in all, at the coarser of
 * their frac_bits (an empty @a, of frac_bits -1, takes @d's): a slot of
 * a coarser frac_bits is a union of finer ones, so every count is exact.
 */
void data_add(struct ks_data *a, const struct ks_data *d)
{
	struct ks_data old;

	if (a->bits < 0 || a->bits > d->bits) {
		old = *a;
		ks_data_init(a);
		a->bits = d->bits;
		if (old.bits >= 0)
			data_sum(a, &old);
		ks_data_free(&old);
	}
	data_sum(a, d);
}

double kstats_percentile(const struct ks_hist *h, uint64_t n, double q)
{
	return slot_mean(h, rank_slot(h, rank_of(q, n)));
}
