// SPDX-License-Identifier: GPL-2.0
/* kstats --csv: a row per non-empty slot. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kstats.h"

/*
 * @s and a comma, as a CSV field: as shown() shows a name (a control
 * character as \xNN, a backslash as \\), quoted if it holds a comma or
 * a quote.
 */
static void csv_field(const char *s)
{
	bool quote = strpbrk(s, ",\"");

	if (quote)
		putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c == 0x7f)
			printf("\\x%02x", c);
		else if (c == '\\')
			fputs("\\\\", stdout);
		else if (c == '"')
			fputs("\"\"", stdout);
		else
			putchar(c);
	}
	printf(quote ? "\"," : ",");
}

/*
 * A row per non-empty slot. With --interval (@iv), one CSV for all the
 * intervals: the header once, each row led by its interval, time and
 * seconds (an interval without samples has no row). With @func (a group's
 * function), a column function before the slot's; @head: the header too.
 */
void print_csv(const struct kstats_opt *o, const struct ks_data *d, const struct ks_hist *h,
	       const struct interval *iv, const char *func, int head)
{
	uint64_t n = 0, cum = 0;
	size_t s;

	for (s = 0; s < h->nslots; s++)
		n += h->count[s];
	/* --cpu N: a last column says which CPU the rows are of. */
	if (head && (!iv || iv->i == 1))
		printf("%s%sslot,lo,hi,count,mean,cdf,fraction,per_octave,per_unit%s\n",
		       iv ? "interval,time,seconds," : "", func ? "function," : "",
		       o->cpu >= 0 ? ",cpu" : "");
	for (s = 0; s < h->nslots; s++) {
		double f = (double)h->count[s] / n;

		if (!h->count[s])
			continue;
		cum += h->count[s];
		if (iv)
			printf("%ld,%.3f,%.3f,", iv->i, iv->time, iv->secs);
		if (func)
			csv_field(func);
		printf("%zu,%llu,%llu,%llu,%.3f,%.6f,%.6g,%.6g,%.6g", s,
		       (unsigned long long)ks_slot_min(s, d->bits),
		       (unsigned long long)ks_slot_max(s, d->bits),
		       (unsigned long long)h->count[s], slot_mean(h, s),
		       (double)cum / n, f, f / octaves(s, d->bits),
		       f / ((double)ks_slot_max(s, d->bits) - ks_slot_min(s, d->bits) + 1));
		if (o->cpu >= 0)
			printf(",%ld", o->cpu);
		putchar('\n');
	}
}
