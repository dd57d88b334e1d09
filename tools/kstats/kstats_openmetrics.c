// SPDX-License-Identifier: GPL-2.0
/* kstats --openmetrics: histograms in the OpenMetrics text format. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstats.h"

/*
 * A label value of OpenMetrics into @out (@n bytes): the name of the
 * metric (its last path component) as shown() shows it (a control
 * character as \xNN, newline too, a backslash as \\, as the table
 * prints it), then backslash and double quote escaped as OpenMetrics
 * asks; cut short, where @n is too small, between two characters.
 */
void om_label(char *out, size_t n, const char *in)
{
	const char *base = strrchr(in, '/');
	size_t i = 0;
	char e[8];
	int k;

	for (base = base && base[1] ? base + 1 : in; *base; base++) {
		unsigned char c = *base;

		if (c < 0x20 || c == 0x7f)
			k = snprintf(e, sizeof(e), "\\\\x%02x", c);
		else if (c == '\\')
			k = snprintf(e, sizeof(e), "\\\\\\\\");
		else if (c == '"')
			k = snprintf(e, sizeof(e), "\\\"");
		else
			k = snprintf(e, sizeof(e), "%c", c);
		if (i + k >= n)
			break;
		memcpy(out + i, e, k);
		i += k;
	}
	out[i] = '\0';
}

/* A value in the family's unit: seconds with -u, else as recorded. */
static double om_value(const struct kstats_opt *o, double v)
{
	static const double scale[] = { 1, 1 / 1e9, 1 / 1e6, 1 / 1e3, 1 };

	return v * scale[o->human];
}

/*
 * A bucket's bound in the family's unit, exactly: the integer bound in
 * the unit recorded, or in seconds with -u, its decimal by integer
 * division and remainder (a double has 53 bits: 2^63 - 1 ns would print
 * below itself, as 9223372036.85).
 */
static const char *om_le(const struct kstats_opt *o, char *buf, size_t n, uint64_t v)
{
	return fmt_fixed(buf, n, v, o->human ? 3 * (4 - o->human) : 0);
}

/*
 * One series: a bucket for each slot of frac_bits --le-bits but the
 * last (+Inf holds it), empty ones included, so that every series of the
 * family has the same bounds, whatever its input: sums across CPUs and
 * hosts are then right. A slot of a coarser frac_bits is a union of
 * finer ones, so each count is exact.
 */
void om_series(const struct kstats_opt *o, const char *family, const char *labels,
	       const struct ks_data *d,
	       const struct ks_hist *h)
{
	unsigned int nr = ks_nr_slots(o->le_bits), cs;
	uint64_t *count = calloc(nr, sizeof(*count)), cum = 0;
	double sum = 0;
	char le[40];
	size_t s;

	if (!count)
		die(1, "out of memory");
	for (s = 0; s < h->nslots; s++) {
		if (!h->count[s])
			continue;
		count[ks_slot(ks_slot_min(s, d->bits), o->le_bits)] += h->count[s];
		sum += h->sum[s];
	}
	for (cs = 0; cs + 1 < nr; cs++) {
		cum += count[cs];
		printf("%s_bucket{%sle=\"%s\"} %llu\n", family, labels,
		       om_le(o, le, sizeof(le), ks_slot_max(cs, o->le_bits)),
		       (unsigned long long)cum);
	}
	cum += count[cs];
	printf("%s_bucket{%sle=\"+Inf\"} %llu\n", family, labels, (unsigned long long)cum);
	printf("%s_sum{%.*s} %.12g\n", family, (int)strlen(labels) - 1, labels, om_value(o, sum));
	printf("%s_count{%.*s} %llu\n", family, (int)strlen(labels) - 1, labels,
	       (unsigned long long)cum);
	free(count);
}

void om_series_check(const struct kstats_opt *o, size_t labelsets, int gone)
{
	unsigned int each = ks_nr_slots(o->le_bits) + 2;
	unsigned long long n = (unsigned long long)labelsets * each;

	/*
	 * A scrape of millions of series (1000 functions on 64 CPUs with
	 * --per-cpu) can swamp the Prometheus server that takes it.
	 */
	if (!o->series_max || n <= (unsigned long long)o->series_max)
		return;
	if (gone)
		kstats_warn("--openmetrics: %llu series, more than --series-max %ld: %s", n,
			    o->series_max, "written, as a trace that is gone cannot be read again");
	else
		die(1,
		    "--openmetrics: %llu series (%zu label set%s of %u: %s %d, _sum, _count), more than --series-max %ld; %s",
		    n, labelsets, labelsets == 1 ? "" : "s", each, "the buckets of --le-bits",
		    o->le_bits, o->series_max, "give --series-max N (0: no limit) to write them");
}

/*
 * OpenMetrics, one family per unit (Prometheus' base unit, seconds, when
 * the values' unit is known), the metric as a label: sum by (le) adds up CPUs, hosts
 * and metrics alike.
 */
void print_openmetrics(const struct kstats_opt *o, const struct ks_data *d, const char *input)
{
	const char *family = o->human ? "kstats_latency_seconds" : "kstats_latency";
	char metric[OM_LABEL_MAX], labels[OM_LABEL_MAX + 64];
	size_t c, n;

	if (o->le_bits > d->bits)
		die(1, "--le-bits %d: finer than the input's frac_bits %d", o->le_bits,
		    d->bits);
	om_label(metric, sizeof(metric), o->name ? o->name : input);
	for (c = 0, n = 0; o->per_cpu && c < d->ncpus; c++)
		n += d->cpu[c].nslots > 0;
	om_series_check(o, o->per_cpu ? n : 1, 0);
	printf("# HELP %s kstats latency distribution%s\n", family,
	       o->human ? ", in seconds" : ", in the unit recorded");
	printf("# TYPE %s histogram\n", family);
	if (o->human)
		printf("# UNIT %s seconds\n", family);
	if (!o->per_cpu) {
		snprintf(labels, sizeof(labels), "metric=\"%s\",", metric);
		om_series(o, family, labels, d, &d->all);
	} else {
		for (c = 0; c < d->ncpus; c++) {
			if (!d->cpu[c].nslots)
				continue;
			snprintf(labels, sizeof(labels), "metric=\"%s\",cpu=\"%zu\",", metric, c);
			om_series(o, family, labels, d, &d->cpu[c]);
		}
	}
	printf("# EOF\n");
}

const char *om_family(const struct kstats_opt *o)
{
	return o->human ? "kstats_latency_seconds" : "kstats_latency";
}
