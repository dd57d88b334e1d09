// SPDX-License-Identifier: GPL-2.0
/* kstats: the text summary of a distribution, and its table of CPUs. */
#define _GNU_SOURCE
#include <stdio.h>

#include "kstats.h"

void print_summary(const struct kstats_opt *o, const char *label, const struct ks_data *d,
		   const struct ks_hist *h)
{
	char a[64], b[64], c[64], q[72], name[4096];
	struct stats st;
	int i;

	compute(h, d->bits, o->pct, o->npct, &st);
	printf("input   %s\n", shown(name, sizeof(name), label));
	if (o->cpu >= 0)
		printf("cpu     %ld\n", o->cpu);
	printf("bits    %d (slots at most %.3g%% wide)\n", d->bits,
	       100.0 / (1 << d->bits));
	printf("count   %llu\n", (unsigned long long)st.n);
	if (!st.n)
		return;
	printf("mean    %s\n", fmt_val(a, sizeof(a), st.mean, ks_unit(o)));
	/*
	 * The smallest and largest samples lie in the first and last slots:
	 * their means are not them, the slots' bounds hold.
	 */
	snprintf(q, sizeof(q), ">= %s", fmt_lo(a, sizeof(a), ks_slot_min(st.first, d->bits),
					       ks_unit(o)));
	printf("min     %-12s [%s, %s]\n", q,
	       fmt_lo(b, sizeof(b), ks_slot_min(st.first, d->bits), ks_unit(o)),
	       fmt_hi(c, sizeof(c), ks_slot_max(st.first, d->bits), ks_unit(o)));
	snprintf(q, sizeof(q), "<= %s", fmt_hi(a, sizeof(a), ks_slot_max(st.last, d->bits),
					       ks_unit(o)));
	printf("max     %-12s [%s, %s]\n", q,
	       fmt_lo(b, sizeof(b), ks_slot_min(st.last, d->bits), ks_unit(o)),
	       fmt_hi(c, sizeof(c), ks_slot_max(st.last, d->bits), ks_unit(o)));
	for (i = 0; i < o->npct; i++)
		printf("p%-6s %-12s [%s, %s]\n", pct_name(q, sizeof(q), st.pct[i].q),
		       fmt_val(a, sizeof(a), st.pct[i].value, ks_unit(o)),
		       fmt_lo(b, sizeof(b), st.pct[i].lo, ks_unit(o)),
		       fmt_hi(c, sizeof(c), st.pct[i].hi, ks_unit(o)));
	printf("mad     %-12s [%s, %s]\n", fmt_val(a, sizeof(a), st.mad, ks_unit(o)),
	       fmt_num(b, sizeof(b), st.mad_lo, RND_DOWN, 0, ks_unit(o)),
	       fmt_num(c, sizeof(c), st.mad_hi, RND_UP, 0, ks_unit(o)));
}

static void print_row(const struct kstats_opt *o, const char *who, const struct ks_data *d,
		      const struct ks_hist *h)
{
	char a[64];
	struct stats st;
	int i;

	compute(h, d->bits, o->pct, o->npct, &st);
	printf("%-6s %10llu", who, (unsigned long long)st.n);
	if (!st.n) {
		putchar('\n');
		return;
	}
	printf(" %12s", fmt_val(a, sizeof(a), st.mean, ks_unit(o)));
	for (i = 0; i < o->npct; i++)
		printf(" %12s", fmt_val(a, sizeof(a), st.pct[i].value, ks_unit(o)));
	printf(" %12s\n", fmt_val(a, sizeof(a), st.mad, ks_unit(o)));
}

void print_per_cpu(const struct kstats_opt *o, const struct ks_data *d)
{
	char q[32], who[24];
	size_t c;
	int i;

	printf("%-6s %10s %12s", "cpu", "count", "mean");
	for (i = 0; i < o->npct; i++) {
		char col[40];

		snprintf(col, sizeof(col), "p%s", pct_name(q, sizeof(q), o->pct[i]));
		printf(" %12s", col);
	}
	printf(" %12s\n", "mad");
	for (c = 0; c < d->ncpus; c++) {
		if (!d->cpu[c].nslots)
			continue;
		snprintf(who, sizeof(who), "%zu", c);
		print_row(o, who, d, &d->cpu[c]);
	}
	print_row(o, "all", d, &d->all);
}
