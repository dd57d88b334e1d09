// SPDX-License-Identifier: GPL-2.0
/*
 * kstats: summarize, compare and export kstats distributions.
 *
 * Reads the text of /sys/kernel/debug/kstats/NAME (a path, a metric name
 * or - for stdin) and prints percentiles with their error bounds, the
 * histogram, JSON, CSV or OpenMetrics; follows a live metric; subtracts
 * two snapshots; compares two distributions. See kstats(1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "kstats_parse.h"

#define MAX_PCTS 32

static const char *prog = "kstats";

static struct {
	double pct[MAX_PCTS];
	int npct;
	int bits;		/* --bits, or -1 */
	long cpu;		/* --cpu, or -1 */
	int per_cpu;
	int human;		/* --unit ns */
	enum { OUT_SUMMARY, OUT_HIST, OUT_JSON, OUT_CSV, OUT_OPENMETRICS } out;
	double interval;
	long count;		/* --count, 0 = forever */
	const char *name;	/* for OpenMetrics */
} opt = { .bits = -1, .cpu = -1 };

static void show_help(FILE *f)
{
	fprintf(f,
"usage: kstats [options] INPUT             summarize a distribution\n"
"       kstats [options] --interval SECS INPUT  follow a live metric\n"
"       kstats [options] --diff OLD NEW     what happened between two snapshots\n"
"       kstats [options] --compare A B      compare two distributions\n"
"\n"
"INPUT is a file, a metric name (looked up in kstats/ under the debugfs\n"
"mount of /proc/mounts) or - for standard input.\n"
"\n"
"  -p, --percentiles LIST  percentiles to print (default 50,90,95,99,99.9)\n"
"  -b, --bits N            frac_bits of the input (default: inferred)\n"
"      --cpu N             one CPU only\n"
"      --per-cpu           one row per CPU\n"
"  -u, --unit ns           print values as ns, us, ms, s\n"
"      --hist              terminal histogram and CDF\n"
"      --json              JSON\n"
"      --csv               one CSV row per slot: slot,lo,hi,count,mean,cdf\n"
"      --openmetrics       OpenMetrics histogram (Prometheus textfile)\n"
"      --name NAME         metric name for --openmetrics (default: INPUT)\n"
"  -i, --interval SECS     print the samples of each interval, and their rate\n"
"  -c, --count K           stop after K intervals\n"
"      --diff              subtract the first input from the second\n"
"      --compare           compare two inputs: percentiles, KS test p-value\n"
"  -h, --help              this text\n"
"\n"
"Exit status: 0, 1 on a usage or system error, 2 on malformed input.\n");
}

static void die(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* A metric name: the file kstats/NAME under the debugfs mount. */
static char *resolve(const char *input)
{
	char line[4096], dev[256], dir[2048], type[64];
	FILE *m;
	char *path = NULL;

	if (!strcmp(input, "-") || strchr(input, '/') || !access(input, F_OK))
		return strdup(input);
	m = fopen("/proc/mounts", "r");
	if (!m)
		die(1, "%s: no such file, and /proc/mounts cannot be read", input);
	while (fgets(line, sizeof(line), m)) {
		if (sscanf(line, "%255s %2047s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "debugfs")) {
			if (asprintf(&path, "%s/kstats/%s", dir, input) < 0)
				die(1, "out of memory");
			break;
		}
	}
	fclose(m);
	if (!path)
		die(1, "%s: no such file, and debugfs is not mounted", input);
	return path;
}

static void load(struct ks_data *d, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;

	if (!f)
		die(1, "%s: %s", path, strerror(errno));
	ks_data_init(d);
	if (ks_read(d, f, path) || ks_finish(d, opt.bits))
		die(2, "%s: %s", path, d->err);
	if (f != stdin)
		fclose(f);
}

/* Numbers: plain, or with a time unit for --unit ns. */
static const char *fmt_val(char *buf, size_t n, double v)
{
	static const char * const units[] = { "ns", "us", "ms", "s" };
	int u = 0;

	if (!opt.human) {
		snprintf(buf, n, "%.0f", v);
		return buf;
	}
	while (u < 3 && fabs(v) >= 1000) {
		v /= 1000;
		u++;
	}
	snprintf(buf, n, "%.3g %s", v, units[u]);
	return buf;
}

struct pct {
	double q;
	double value;
	uint64_t lo, hi;
};

struct stats {
	uint64_t n;
	double mean;
	int first, last;		/* first and last non-empty slots */
	struct pct pct[MAX_PCTS];
	double mad, mad_lo, mad_hi;
};

static double slot_mean(const struct ks_hist *h, size_t s)
{
	return h->sum[s] / h->count[s];
}

/* The slot holding the sample of rank r (1-based, nearest rank). */
static size_t rank_slot(const struct ks_hist *h, uint64_t r)
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
	uint64_t r = (uint64_t)ceil((double)q / 100 * n);

	return r < 1 ? 1 : r > n ? n : r;
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
 * Percentiles and the median absolute deviation. A percentile is the
 * mean of the slot holding the sample of its rank: the true percentile of
 * the samples lies within that slot's bounds. The MAD of the samples lies
 * within the median of the smallest and of the largest distances between
 * each slot and the median's slot.
 */
static void compute(const struct ks_hist *h, int bits, struct stats *st)
{
	struct dev *dv, *dlo, *dhi;
	double sum = 0, m;
	uint64_t mlo, mhi;
	size_t s, k = 0;
	int i;

	memset(st, 0, sizeof(*st));
	st->first = st->last = -1;
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
	st->mean = sum / st->n;
	for (i = 0; i < opt.npct; i++) {
		s = rank_slot(h, rank_of(opt.pct[i], st->n));
		st->pct[i].q = opt.pct[i];
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
		dv[k].count = dlo[k].count = dhi[k].count = h->count[s];
		k++;
	}
	st->mad = wmedian(dv, k, st->n);
	st->mad_lo = wmedian(dlo, k, st->n);
	st->mad_hi = wmedian(dhi, k, st->n);
	free(dv);
}

static const char *pct_name(char *buf, size_t n, double q)
{
	snprintf(buf, n, "%g", q);
	return buf;
}

static void print_summary(const char *label, const struct ks_data *d,
			  const struct ks_hist *h)
{
	char a[64], b[64], c[64], q[32];
	struct stats st;
	int i;

	compute(h, d->bits, &st);
	printf("input   %s\n", label);
	printf("bits    %d (slots at most %.3g%% wide)\n", d->bits,
	       100.0 / (1 << d->bits));
	printf("count   %llu\n", (unsigned long long)st.n);
	if (!st.n)
		return;
	printf("mean    %s\n", fmt_val(a, sizeof(a), st.mean));
	printf("min     %-12s [%s, %s]\n", fmt_val(a, sizeof(a), slot_mean(h, st.first)),
	       fmt_val(b, sizeof(b), ks_slot_min(st.first, d->bits)),
	       fmt_val(c, sizeof(c), ks_slot_max(st.first, d->bits)));
	printf("max     %-12s [%s, %s]\n", fmt_val(a, sizeof(a), slot_mean(h, st.last)),
	       fmt_val(b, sizeof(b), ks_slot_min(st.last, d->bits)),
	       fmt_val(c, sizeof(c), ks_slot_max(st.last, d->bits)));
	for (i = 0; i < opt.npct; i++)
		printf("p%-6s %-12s [%s, %s]\n", pct_name(q, sizeof(q), st.pct[i].q),
		       fmt_val(a, sizeof(a), st.pct[i].value),
		       fmt_val(b, sizeof(b), st.pct[i].lo),
		       fmt_val(c, sizeof(c), st.pct[i].hi));
	printf("mad     %-12s [%s, %s]\n", fmt_val(a, sizeof(a), st.mad),
	       fmt_val(b, sizeof(b), st.mad_lo), fmt_val(c, sizeof(c), st.mad_hi));
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

static void print_per_cpu(const struct ks_data *d)
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

static void json_stats(const struct ks_data *d, const struct ks_hist *h, int top)
{
	struct stats st;
	char q[32];
	int i;

	compute(h, d->bits, &st);
	printf("{\"count\":%llu", (unsigned long long)st.n);
	if (st.n) {
		printf(",\"mean\":%.3f,\"min\":%.0f,\"max\":%.0f",
		       st.mean, slot_mean(h, st.first), slot_mean(h, st.last));
		printf(",\"min_bounds\":[%llu,%llu],\"max_bounds\":[%llu,%llu]",
		       (unsigned long long)ks_slot_min(st.first, d->bits),
		       (unsigned long long)ks_slot_max(st.first, d->bits),
		       (unsigned long long)ks_slot_min(st.last, d->bits),
		       (unsigned long long)ks_slot_max(st.last, d->bits));
	}
	if (top)
		printf(",\"bits\":%d", d->bits);
	if (st.n) {
		printf(",\"percentiles\":{");
		for (i = 0; i < opt.npct; i++)
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
			json_stats(d, &d->cpu[c], 0);
			first = 0;
		}
		printf("}");
	}
	printf("}");
}

static void print_csv(const struct ks_data *d, const struct ks_hist *h)
{
	uint64_t n = 0, cum = 0;
	size_t s;

	for (s = 0; s < h->nslots; s++)
		n += h->count[s];
	printf("slot,lo,hi,count,mean,cdf\n");
	for (s = 0; s < h->nslots; s++) {
		if (!h->count[s])
			continue;
		cum += h->count[s];
		printf("%zu,%llu,%llu,%llu,%.3f,%.6f\n", s,
		       (unsigned long long)ks_slot_min(s, d->bits),
		       (unsigned long long)ks_slot_max(s, d->bits),
		       (unsigned long long)h->count[s], slot_mean(h, s),
		       (double)cum / n);
	}
}

/* A metric name of OpenMetrics: [a-zA-Z_:][a-zA-Z0-9_:]* */
static void om_name(char *out, size_t n, const char *in)
{
	const char *base = strrchr(in, '/');
	size_t i = 0;

	base = base ? base + 1 : in;
	i = snprintf(out, n, "kstats_");
	for (; *base && i + 1 < n; base++)
		out[i++] = (*base >= 'a' && *base <= 'z') || (*base >= 'A' && *base <= 'Z') ||
			   (*base >= '0' && *base <= '9') || *base == '_' ? *base : '_';
	out[i] = '\0';
}

static void om_series(const char *name, const char *labels, const struct ks_data *d,
		      const struct ks_hist *h)
{
	uint64_t cum = 0;
	double sum = 0;
	size_t s;

	for (s = 0; s < h->nslots; s++) {
		if (!h->count[s])
			continue;
		cum += h->count[s];
		sum += h->sum[s];
		printf("%s_bucket{%sle=\"%llu\"} %llu\n", name, labels,
		       (unsigned long long)ks_slot_max(s, d->bits), (unsigned long long)cum);
	}
	printf("%s_bucket{%sle=\"+Inf\"} %llu\n", name, labels, (unsigned long long)cum);
	printf("%s_sum%s%.*s%s %.0f\n", name, *labels ? "{" : "",
	       *labels ? (int)strlen(labels) - 1 : 0, labels, *labels ? "}" : "", sum);
	printf("%s_count%s%.*s%s %llu\n", name, *labels ? "{" : "",
	       *labels ? (int)strlen(labels) - 1 : 0, labels, *labels ? "}" : "",
	       (unsigned long long)cum);
}

static void print_openmetrics(const struct ks_data *d, const char *input)
{
	char name[256], labels[64];
	size_t c;

	om_name(name, sizeof(name), opt.name ? opt.name : input);
	printf("# HELP %s kstats distribution of %s\n", name, opt.name ? opt.name : input);
	printf("# TYPE %s histogram\n", name);
	if (!opt.per_cpu) {
		om_series(name, "", d, &d->all);
	} else {
		for (c = 0; c < d->ncpus; c++) {
			if (!d->cpu[c].nslots)
				continue;
			snprintf(labels, sizeof(labels), "cpu=\"%zu\",", c);
			om_series(name, labels, d, &d->cpu[c]);
		}
	}
	printf("# EOF\n");
}

static int term_width(void)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");

	if (cols && atoi(cols) > 20)
		return atoi(cols);
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 20)
		return ws.ws_col;
	return 80;
}

/* Density as a bar of dark shade, the CDF continued in light shade. */
static void print_hist(const struct ks_hist *h)
{
	int width = term_width() - 24, i;
	uint64_t n = 0, cum = 0, max = 0;
	char v[64];
	size_t s;

	for (s = 0; s < h->nslots; s++) {
		n += h->count[s];
		if (h->count[s] > max)
			max = h->count[s];
	}
	if (width < 10)
		width = 10;
	printf("%10s \u2502%*s%-*s%10s\n", "value", width / 2, "", width - width / 2,
	       "\u250a", "count");
	for (s = 0; s < h->nslots; s++) {
		int bar, cdf;

		if (!h->count[s])
			continue;
		cum += h->count[s];
		bar = (int)((double)h->count[s] / max * width / 2 + 0.5);
		cdf = (int)((double)cum / n * width + 0.5);
		printf("%10s \u2502", fmt_val(v, sizeof(v), slot_mean(h, s)));
		for (i = 0; i < width; i++)
			fputs(i < bar ? "\u2592" : i < cdf ? "\u2591" : " ", stdout);
		printf("%10llu\n", (unsigned long long)h->count[s]);
	}
}

static const struct ks_hist *selected(const struct ks_data *d)
{
	static const struct ks_hist empty;

	if (opt.cpu < 0)
		return &d->all;
	return (size_t)opt.cpu < d->ncpus ? &d->cpu[opt.cpu] : &empty;
}

static void output(const struct ks_data *d, const char *input)
{
	switch (opt.out) {
	case OUT_SUMMARY:
		if (opt.per_cpu)
			print_per_cpu(d);
		else
			print_summary(input, d, selected(d));
		break;
	case OUT_HIST:
		print_hist(selected(d));
		break;
	case OUT_JSON:
		json_stats(d, selected(d), 1);
		putchar('\n');
		break;
	case OUT_CSV:
		print_csv(d, selected(d));
		break;
	case OUT_OPENMETRICS:
		print_openmetrics(d, input);
		break;
	}
}

/* @a = @b - @a, slot by slot: the samples recorded between two snapshots. */
static void hist_sub(struct ks_hist *a, const struct ks_hist *b, int bits, const char *what)
{
	size_t s;

	for (s = 0; s < a->nslots; s++)
		if (a->count[s] && (s >= b->nslots || b->count[s] < a->count[s]))
			die(2, "%s: slot %zu lost samples: not a later snapshot (reset?)",
			    what, s);
	if (b->nslots > a->nslots) {
		uint64_t *c = realloc(a->count, b->nslots * sizeof(*c));
		double *m = realloc(a->sum, b->nslots * sizeof(*m));

		if (!c || !m)
			die(1, "out of memory");
		memset(c + a->nslots, 0, (b->nslots - a->nslots) * sizeof(*c));
		memset(m + a->nslots, 0, (b->nslots - a->nslots) * sizeof(*m));
		a->count = c;
		a->sum = m;
		a->nslots = b->nslots;
	}
	for (s = 0; s < a->nslots; s++) {
		uint64_t n = b->count[s] - a->count[s];
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

static void diff(struct ks_data *old, const struct ks_data *new, const char *what)
{
	size_t c;

	if (old->bits != new->bits)
		die(2, "%s: frac_bits %d and %d differ", what, old->bits, new->bits);
	hist_sub(&old->all, &new->all, new->bits, what);
	if (new->ncpus > old->ncpus) {
		struct ks_hist *h = realloc(old->cpu, new->ncpus * sizeof(*h));

		if (!h)
			die(1, "out of memory");
		memset(h + old->ncpus, 0, (new->ncpus - old->ncpus) * sizeof(*h));
		old->cpu = h;
		old->ncpus = new->ncpus;
	}
	for (c = 0; c < new->ncpus; c++)
		hist_sub(&old->cpu[c], &new->cpu[c], new->bits, what);
}

/* Kolmogorov's distribution: P(sqrt(n) D > lambda), as Numerical Recipes. */
static double ks_q(double lambda)
{
	double sum = 0, term, sign = 1;
	int j;

	if (lambda < 1e-3)
		return 1;
	for (j = 1; j <= 100; j++) {
		term = sign * 2 * exp(-2.0 * j * j * lambda * lambda);
		sum += term;
		if (fabs(term) < 1e-12 * fabs(sum))
			return sum < 0 ? 0 : sum > 1 ? 1 : sum;
		sign = -sign;
	}
	return 1;
}

static void compare(const struct ks_data *a, const struct ks_data *b,
		    const char *na, const char *nb)
{
	const struct ks_hist *ha = selected(a), *hb = selected(b);
	struct stats sa, sb;
	char x[64], y[64], q[32];
	uint64_t ca = 0, cb = 0;
	size_t s, n;
	double dmax = 0, ne, p;
	int i;

	if (a->bits != b->bits)
		die(2, "frac_bits differ: %d in %s, %d in %s", a->bits, na, b->bits, nb);
	compute(ha, a->bits, &sa);
	compute(hb, b->bits, &sb);
	if (!sa.n || !sb.n)
		die(2, "%s is empty", !sa.n ? na : nb);
	printf("%-8s %14s %14s %9s\n", "", "A", "B", "change");
	printf("%-8s %14llu %14llu\n", "count", (unsigned long long)sa.n,
	       (unsigned long long)sb.n);
	printf("%-8s %14s %14s %+8.2f%%\n", "mean", fmt_val(x, sizeof(x), sa.mean),
	       fmt_val(y, sizeof(y), sb.mean), (double)((sb.mean - sa.mean) / sa.mean * 100));
	for (i = 0; i < opt.npct; i++) {
		char col[40];

		snprintf(col, sizeof(col), "p%s", pct_name(q, sizeof(q), opt.pct[i]));
		printf("%-8s %14s %14s %+8.2f%%\n", col,
		       fmt_val(x, sizeof(x), sa.pct[i].value),
		       fmt_val(y, sizeof(y), sb.pct[i].value),
		       (double)((sb.pct[i].value - sa.pct[i].value) / sa.pct[i].value * 100));
	}
	/*
	 * Two-sample Kolmogorov-Smirnov test on the binned data: the largest
	 * difference of the CDFs at the slot boundaries. Binning can only
	 * hide differences, so the p-value errs on the side of "same".
	 */
	n = ha->nslots > hb->nslots ? ha->nslots : hb->nslots;
	for (s = 0; s < n; s++) {
		ca += s < ha->nslots ? ha->count[s] : 0;
		cb += s < hb->nslots ? hb->count[s] : 0;
		dmax = fmax(dmax, fabs((double)ca / sa.n - (double)cb / sb.n));
	}
	ne = (double)sa.n * sb.n / (sa.n + sb.n);
	p = ks_q((sqrt(ne) + 0.12 + 0.11 / sqrt(ne)) * dmax);
	printf("ks D=%.6f p-value=%.3g %s\n", dmax, p,
	       p < 0.01 ? "(different, at 1%)" : "(no significant difference, at 1%)");
}

static void parse_pcts(const char *list)
{
	char *copy = strdup(list), *t, *save = NULL, *end;

	if (!copy)
		die(1, "out of memory");
	opt.npct = 0;
	for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		double q = strtod(t, &end);

		if (*end || end == t || !(q > 0 && q <= 100) || opt.npct == MAX_PCTS)
			die(1, "-p: '%s' is not a percentile in (0, 100] (at most %d)", t,
			    MAX_PCTS);
		opt.pct[opt.npct++] = q;
	}
	free(copy);
	if (!opt.npct)
		die(1, "-p: no percentile");
}

static void follow(const char *input)
{
	struct ks_data prev, cur;
	struct timespec ts = { (time_t)opt.interval,
			       (long)((opt.interval - (time_t)opt.interval) * 1e9) };
	char *path = resolve(input);
	long i;

	load(&prev, path);
	for (i = 0; !opt.count || i < opt.count; i++) {
		struct stats st;

		nanosleep(&ts, NULL);
		load(&cur, path);
		diff(&prev, &cur, path);
		compute(selected(&prev), prev.bits, &st);
		printf("interval %ld rate %.1f/s\n", i + 1, st.n / opt.interval);
		output(&prev, input);
		fflush(stdout);
		ks_data_free(&prev);
		prev = cur;
	}
	ks_data_free(&prev);
	free(path);
}

int main(int argc, char **argv)
{
	enum { O_CPU = 256, O_PER_CPU, O_HIST, O_JSON, O_CSV, O_OM, O_NAME, O_DIFF, O_CMP };
	static const struct option lopts[] = {
		{ "percentiles", required_argument, NULL, 'p' },
		{ "bits", required_argument, NULL, 'b' },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "per-cpu", no_argument, NULL, O_PER_CPU },
		{ "unit", required_argument, NULL, 'u' },
		{ "hist", no_argument, NULL, O_HIST },
		{ "json", no_argument, NULL, O_JSON },
		{ "csv", no_argument, NULL, O_CSV },
		{ "openmetrics", no_argument, NULL, O_OM },
		{ "name", required_argument, NULL, O_NAME },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "diff", no_argument, NULL, O_DIFF },
		{ "compare", no_argument, NULL, O_CMP },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c, mode_diff = 0, mode_cmp = 0;
	char *end;

	parse_pcts("50,90,95,99,99.9");
	while ((c = getopt_long(argc, argv, "p:b:u:i:c:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			parse_pcts(optarg);
			break;
		case 'b':
			opt.bits = strtol(optarg, &end, 10);
			if (*end || end == optarg || opt.bits < 0 || opt.bits > KS_MAX_BITS)
				die(1, "--bits: '%s' is not in 0..%d", optarg, KS_MAX_BITS);
			break;
		case O_CPU:
			opt.cpu = strtol(optarg, &end, 10);
			if (*end || end == optarg || opt.cpu < 0)
				die(1, "--cpu: '%s' is not a CPU number", optarg);
			break;
		case O_PER_CPU:
			opt.per_cpu = 1;
			break;
		case 'u':
			if (strcmp(optarg, "ns"))
				die(1, "--unit: only ns is known");
			opt.human = 1;
			break;
		case O_HIST:
			opt.out = OUT_HIST;
			break;
		case O_JSON:
			opt.out = OUT_JSON;
			break;
		case O_CSV:
			opt.out = OUT_CSV;
			break;
		case O_OM:
			opt.out = OUT_OPENMETRICS;
			break;
		case O_NAME:
			opt.name = optarg;
			break;
		case 'i':
			opt.interval = strtod(optarg, &end);
			if (*end || end == optarg || !(opt.interval > 0))
				die(1, "--interval: '%s' is not a positive number of seconds",
				    optarg);
			break;
		case 'c':
			opt.count = strtol(optarg, &end, 10);
			if (*end || end == optarg || opt.count <= 0)
				die(1, "--count: '%s' is not a positive number", optarg);
			break;
		case O_DIFF:
			mode_diff = 1;
			break;
		case O_CMP:
			mode_cmp = 1;
			break;
		case 'h':
			show_help(stdout);
			return 0;
		default:
			show_help(stderr);
			return 1;
		}
	}
	argc -= optind;
	argv += optind;

	if (mode_diff || mode_cmp) {
		struct ks_data a, b;
		char *pa, *pb;

		if (argc != 2 || (mode_diff && mode_cmp) || opt.interval > 0) {
			show_help(stderr);
			return 1;
		}
		pa = resolve(argv[0]);
		pb = resolve(argv[1]);
		load(&a, pa);
		load(&b, pb);
		if (mode_cmp) {
			compare(&a, &b, argv[0], argv[1]);
		} else {
			diff(&a, &b, argv[1]);
			output(&a, argv[1]);
		}
		ks_data_free(&a);
		ks_data_free(&b);
		free(pa);
		free(pb);
		return 0;
	}
	if (argc != 1) {
		show_help(stderr);
		return 1;
	}
	if (opt.interval > 0) {
		follow(argv[0]);
	} else {
		struct ks_data d;
		char *path = resolve(argv[0]);

		load(&d, path);
		output(&d, argv[0]);
		ks_data_free(&d);
		free(path);
	}
	return 0;
}
