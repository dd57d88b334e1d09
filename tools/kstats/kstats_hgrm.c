// SPDX-License-Identifier: GPL-2.0
/*
 * kstats --hgrm: HdrHistogram's percentile distribution text, as its
 * outputPercentileDistribution() prints it (the .hgrm files that its
 * plotter and the tools around it read): a row per non-empty slot.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>

#include "kstats.h"

/*
 * A first row at percentile 0, as HdrHistogram's (its plotter draws from
 * it); then each row: the slot's upper bound (HdrHistogram's "highest
 * equivalent value": every sample up to the row is at most it), the
 * fraction of the samples up to it, their count, and 1/(1-fraction), but
 * on the last row. With -u the values are in milliseconds (to the nanosecond: 6
 * decimals), HdrHistogram's custom for latencies recorded in nanoseconds;
 * else as recorded (3 decimals, as HdrHistogram prints them). The mean
 * and standard deviation are those of the slots' means.
 */
/*
 * A bound @v as a row's value, 12 wide: as recorded, exactly (a double
 * would print 2^64 - 1 as 2^64), with 3 decimals; with -u, in ms.
 */
static const char *hgrm_value(char *buf, size_t n, uint64_t v, const struct kstats_opt *o)
{
	char num[48];

	if (o->human) {
		snprintf(buf, n, "%12.6f", v * pow(10, 3 * (o->human - 1)) / 1e6);
		return buf;
	}
	snprintf(num, sizeof(num), "%llu.000", (unsigned long long)v);
	snprintf(buf, n, "%12s", num);
	return buf;
}

void print_hgrm(const struct kstats_opt *o, const struct ks_data *d, const struct ks_hist *h)
{
	double scale = o->human ? pow(10, 3 * (o->human - 1)) / 1e6 : 1;
	int dec = o->human ? 6 : 3;
	double sum = 0, mean = 0, var = 0, p;
	uint64_t n = 0, cum = 0;
	char v[64];
	size_t s, last = 0;

	for (s = 0; s < h->nslots; s++) {
		if (!h->count[s])
			continue;
		n += h->count[s];
		sum += h->sum[s];
		last = s;
	}
	if (n)
		mean = sum / n;
	for (s = 0; n && s < h->nslots; s++)
		if (h->count[s])
			var += h->count[s] * pow(h->sum[s] / h->count[s] - mean, 2);
	printf("%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
	       "1/(1-Percentile)");
	for (s = 0; n && s <= last; s++) {
		if (!h->count[s])
			continue;
		/* HdrHistogram's first row: the lowest slot at percentile 0. */
		if (!cum)
			printf("%s %2.12f %10llu %14.2f\n",
			       hgrm_value(v, sizeof(v), ks_slot_max(s, d->bits), o), 0.0,
			       (unsigned long long)h->count[s], 1.0);
		cum += h->count[s];
		p = (double)cum / n;
		if (cum < n)
			printf("%s %2.12f %10llu %14.2f\n",
			       hgrm_value(v, sizeof(v), ks_slot_max(s, d->bits), o), p,
			       (unsigned long long)cum, 1 / (1 - p));
		else
			printf("%s %2.12f %10llu\n",
			       hgrm_value(v, sizeof(v), ks_slot_max(s, d->bits), o), p,
			       (unsigned long long)cum);
	}
	printf("#[Mean    = %12.*f, StdDeviation   = %12.*f]\n", dec, mean * scale, dec,
	       n ? sqrt(var / n) * scale : 0);
	printf("#[Max     = %s, Total count    = %12llu]\n",
	       hgrm_value(v, sizeof(v), n ? ks_slot_max(last, d->bits) : 0, o),
	       (unsigned long long)n);
	printf("#[Buckets = %12d, SubBuckets     = %12d]\n", 65 - d->bits, 1 << d->bits);
}
