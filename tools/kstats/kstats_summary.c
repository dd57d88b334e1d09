// SPDX-License-Identifier: GPL-2.0
/* kstats: the text summary of a distribution, and its table of CPUs. */
#define _GNU_SOURCE
#include <stdio.h>

#include "kstats.h"

void print_summary(const char *label, const struct ks_data *d, const struct ks_hist *h)
{
	char a[64], b[64], c[64], q[72], name[4096];
	struct stats st;
	int i;

	compute(h, d->bits, &st);
	printf("input   %s\n", shown(name, sizeof(name), label));
	if (opt.cpu >= 0)
		printf("cpu     %ld\n", opt.cpu);
	printf("bits    %d (slots at most %.3g%% wide)\n", d->bits,
	       100.0 / (1 << d->bits));
	printf("count   %llu\n", (unsigned long long)st.n);
	if (!st.n)
		return;
	printf("mean    %s\n", fmt_val(a, sizeof(a), st.mean));
	/*
	 * The smallest and largest samples lie in the first and last slots:
	 * their means are not them, the slots' bounds hold.
	 */
	snprintf(q, sizeof(q), ">= %s", fmt_lo(a, sizeof(a), ks_slot_min(st.first, d->bits)));
	printf("min     %-12s [%s, %s]\n", q,
	       fmt_lo(b, sizeof(b), ks_slot_min(st.first, d->bits)),
	       fmt_hi(c, sizeof(c), ks_slot_max(st.first, d->bits)));
	snprintf(q, sizeof(q), "<= %s", fmt_hi(a, sizeof(a), ks_slot_max(st.last, d->bits)));
	printf("max     %-12s [%s, %s]\n", q,
	       fmt_lo(b, sizeof(b), ks_slot_min(st.last, d->bits)),
	       fmt_hi(c, sizeof(c), ks_slot_max(st.last, d->bits)));
	for (i = 0; i < opt.npct; i++)
		printf("p%-6s %-12s [%s, %s]\n", pct_name(q, sizeof(q), st.pct[i].q),
		       fmt_val(a, sizeof(a), st.pct[i].value),
		       fmt_lo(b, sizeof(b), st.pct[i].lo),
		       fmt_hi(c, sizeof(c), st.pct[i].hi));
	printf("mad     %-12s [%s, %s]\n", fmt_val(a, sizeof(a), st.mad),
	       fmt_num(b, sizeof(b), st.mad_lo, RND_DOWN, 0),
	       fmt_num(c, sizeof(c), st.mad_hi, RND_UP, 0));
}

static void print_row(const char *who, const struct ks_data *d, const struct ks_hist *h)
{
	char a[64];
	struct stats st;
	int i;

	compute(h, d->bits, &st);
	printf("%-6s %10llu", who, (unsigned long long)st.n);
	if (!st.n) {
		putchar('\n');
		return;
	}
	printf(" %12s", fmt_val(a, sizeof(a), st.mean));
	for (i = 0; i < opt.npct; i++)
		printf(" %12s", fmt_val(a, sizeof(a), st.pct[i].value));
	printf(" %12s\n", fmt_val(a, sizeof(a), st.mad));
}

void print_per_cpu(const struct ks_data *d)
{
	char q[32], who[24];
	size_t c;
	int i;

	printf("%-6s %10s %12s", "cpu", "count", "mean");
	for (i = 0; i < opt.npct; i++) {
		char col[40];

		snprintf(col, sizeof(col), "p%s", pct_name(q, sizeof(q), opt.pct[i]));
		printf(" %12s", col);
	}
	printf(" %12s\n", "mad");
	for (c = 0; c < d->ncpus; c++) {
		if (!d->cpu[c].nslots)
			continue;
		snprintf(who, sizeof(who), "%zu", c);
		print_row(who, d, &d->cpu[c]);
	}
	print_row("all", d, &d->all);
}
