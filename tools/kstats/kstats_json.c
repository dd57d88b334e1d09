// SPDX-License-Identifier: GPL-2.0
/* kstats --json: a distribution, its percentiles and its CPUs. */
#define _GNU_SOURCE
#include <stdio.h>

#include "kstats.h"

void json_stats(const struct kstats_opt *o, const struct ks_data *d, const struct ks_hist *h,
		int top)
{
	struct stats st;
	char q[32];
	int i;

	compute(h, d->bits, o->pct, o->npct, &st);
	printf("{\"count\":%llu", (unsigned long long)st.n);
	if (st.n) {
		/* min and max: their slots' bounds; the slots' means are not them. */
		printf(",\"mean\":%.3f", st.mean);
		printf(",\"min_bounds\":[%llu,%llu],\"max_bounds\":[%llu,%llu]",
		       (unsigned long long)ks_slot_min(st.first, d->bits),
		       (unsigned long long)ks_slot_max(st.first, d->bits),
		       (unsigned long long)ks_slot_min(st.last, d->bits),
		       (unsigned long long)ks_slot_max(st.last, d->bits));
	}
	if (top)
		printf(",\"bits\":%d", d->bits);
	if (top && o->cpu >= 0)
		printf(",\"cpu\":%ld", o->cpu);
	/* The values are as recorded: -u says in what. */
	if (top && o->human)
		printf(",\"unit\":\"%s\"", unit_names[o->human - 1]);
	if (st.n) {
		printf(",\"percentiles\":{");
		for (i = 0; i < o->npct; i++)
			printf("%s\"%s\":{\"value\":%.3f,\"lo\":%llu,\"hi\":%llu}",
			       i ? "," : "", pct_name(q, sizeof(q), st.pct[i].q),
			       st.pct[i].value, (unsigned long long)st.pct[i].lo,
			       (unsigned long long)st.pct[i].hi);
		printf("},\"mad\":%.3f,\"mad_lo\":%.3f,\"mad_hi\":%.3f",
		       st.mad, st.mad_lo, st.mad_hi);
	}
	if (top) {
		size_t c;
		int first = 1;

		printf(",\"cpus\":{");
		for (c = 0; c < d->ncpus; c++) {
			if (!d->cpu[c].nslots)
				continue;
			printf("%s\"%zu\":", first ? "" : ",", c);
			json_stats(o, d, &d->cpu[c], 0);
			first = 0;
		}
		printf("}");
	}
	printf("}");
}

/* A JSON string: the characters that need it escaped, and 0x7f (DEL). */
void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}
