// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf modules of kstats alone: the parser (kstats_parse.c), the
 * statistics (kstats_stats.c) and the numbers as printed
 * (kstats_format.c), linked without the rest of the tool (see the
 * Makefile), which they take nothing from: their inputs are arguments.
 * Prints "ok N WHAT" or "not ok N WHAT # DETAIL" per check, for
 * test_kstats.py.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kstats.h"

static int nr;

static void check(int ok, const char *what, const char *detail)
{
	nr++;
	if (ok)
		printf("ok %d %s\n", nr, what);
	else
		printf("not ok %d %s # %s\n", nr, what, detail);
}

static void check_str(const char *got, const char *want, const char *what)
{
	char detail[320];

	snprintf(detail, sizeof(detail), "'%s', not '%s'", got, want);
	check(!strcmp(got, want), what, detail);
}

/* The text of a metric, as the kernel prints it: @n samples 1..@n, one CPU. */
static char *metric_text(int bits, unsigned int n)
{
	uint64_t *count = calloc(ks_nr_slots(bits), sizeof(*count));
	double *sum = calloc(ks_nr_slots(bits), sizeof(*sum));
	unsigned int v, s, cum = 0;
	size_t len = 0;
	char *text = NULL;
	FILE *f = open_memstream(&text, &len);

	if (!count || !sum || !f)
		abort();
	for (v = 1; v <= n; v++) {
		count[ks_slot(v, bits)]++;
		sum[ks_slot(v, bits)] += v;
	}
	for (s = 0; s < ks_nr_slots(bits); s++) {
		if (!count[s])
			continue;
		cum += count[s];
		fprintf(f, "slot %u CPU  0    count %8llu avg %8llu p %f\n", s,
			(unsigned long long)count[s], (unsigned long long)(sum[s] / count[s]),
			(double)cum / n);
		fprintf(f, "slot %u CPUS 1    count %8llu avg %8llu p %f\n", s,
			(unsigned long long)count[s], (unsigned long long)(sum[s] / count[s]),
			(double)cum / n);
	}
	fclose(f);
	free(count);
	free(sum);
	return text;
}

int main(void)
{
	static const double pct[] = { 50, 99 };
	char buf[64], detail[320];
	struct ks_data d;
	struct stats st;
	char *text;
	FILE *f;
	int i;

	/* The parser: the text of 1000 samples 1..1000, frac_bits inferred. */
	text = metric_text(3, 1000);
	f = fmemopen(text, strlen(text), "r");
	ks_data_init(&d);
	i = ks_read(&d, f) || ks_finish(&d, -1);
	snprintf(detail, sizeof(detail), "error '%s', bits %d", d.err, d.bits);
	check(!i && d.bits == 3 && d.have_all, "parse: a metric's text, frac_bits 3 inferred",
	      detail);
	fclose(f);

	/* The statistics: each percentile's slot holds the true value. */
	compute(&d.all, d.bits, pct, 2, &st);
	snprintf(detail, sizeof(detail), "n %llu", (unsigned long long)st.n);
	check(st.n == 1000, "compute: the count", detail);
	for (i = 0; i < 2; i++) {
		double truth = pct[i] * 10;	/* of 1..1000 */
		char what[64];

		snprintf(what, sizeof(what), "compute: p%g's bounds hold its true value", pct[i]);
		snprintf(detail, sizeof(detail), "%g in [%llu, %llu]", truth,
			 (unsigned long long)st.pct[i].lo, (unsigned long long)st.pct[i].hi);
		check(st.pct[i].lo <= truth && truth <= st.pct[i].hi &&
		      st.pct[i].lo <= st.pct[i].value && st.pct[i].value <= st.pct[i].hi,
		      what, detail);
	}
	snprintf(detail, sizeof(detail), "%g and %g", kstats_percentile(&d.all, st.n, 99),
		 st.pct[1].value);
	check(kstats_percentile(&d.all, st.n, 99) == st.pct[1].value,
	      "kstats_percentile() is compute()'s", detail);
	snprintf(detail, sizeof(detail), "mean %g", st.mean);
	check(fabs(st.mean - 500.5) < 8, "compute: the mean, of the slots' whole means", detail);
	ks_data_free(&d);
	free(text);

	/* Numbers, as printed: plain, or in a unit with 3 digits, bounds outwards. */
	check_str(fmt_val(buf, sizeof(buf), 1530, 0), "1530", "fmt_val: no unit, plain");
	check_str(fmt_val(buf, sizeof(buf), 1530, 1), "1.53 us", "fmt_val: ns, scaled");
	check_str(fmt_val(buf, sizeof(buf), 2400, 1), "2.40 us", "fmt_val: trailing zeros kept");
	check_str(fmt_lo(buf, sizeof(buf), 1539, 1), "1.53 us", "fmt_lo: rounded down");
	check_str(fmt_hi(buf, sizeof(buf), 1531, 1), "1.54 us", "fmt_hi: rounded up");
	check_str(fmt_hi(buf, sizeof(buf), 1531, 0), "1531", "fmt_hi: no unit, exact");
	check_str(fmt_exact(buf, sizeof(buf), 1151, 1), "1.151 us", "fmt_exact: ns, exact");
	check_str(fmt_val(buf, sizeof(buf), 2.5e9, 1), "2.50 s", "fmt_val: up to s");
	check_str(pct_name(buf, sizeof(buf), 99.9999999), "99.9999999",
		  "pct_name: the percentile asked");
	return 0;
}
