// SPDX-License-Identifier: GPL-2.0
/*
 * kstats: summarize, compare and export kstats distributions.
 *
 * Reads the text of /sys/kernel/debug/kstats/NAME (a path, a metric name
 * or - for stdin) and prints percentiles with their error bounds, the
 * histogram, JSON, CSV or OpenMetrics; follows a live metric; subtracts
 * two snapshots; compares two distributions; times a kernel function
 * for the length of a command (kstats trace). See kstats(1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kstats.h"

#define MAX_PCTS 32
#define KSTATS_VERSION "0.1"

static const char *prog = "kstats";

static struct {
	double pct[MAX_PCTS];
	int npct;
	int bits;		/* --bits, or -1 */
	long cpu;		/* --cpu, or -1 */
	int per_cpu;
	int human;		/* --unit: 0 none, 1 ns, 2 us, 3 ms, 4 s */
	enum { OUT_SUMMARY, OUT_HIST, OUT_JSON, OUT_CSV, OUT_OPENMETRICS } out;
	double interval;
	long count;		/* --count, 0 = forever */
	int rows;		/* --rows: a line per interval */
	const char *name;	/* for OpenMetrics */
	int le_bits;		/* --le-bits: the frac_bits of OpenMetrics' buckets */
	const char *outfile;	/* -o */
	int log2;		/* --hist --log2 */
	long pid;		/* kstats trace --pid */
	const char *cgroup;	/* kstats trace --cgroup */
} opt = { .bits = -1, .cpu = -1 };

static const char kstats_help[] =
"usage: kstats [options] INPUT             summarize a distribution\n"
"       kstats [options] --merge INPUT...   summarize several as one\n"
"       kstats [options] --interval SECS INPUT  follow a live metric\n"
"       kstats [options] --diff OLD NEW     what happened between two snapshots\n"
"       kstats [options] --compare A B      compare two distributions\n"
"       kstats trace [pcpu:|fprobe:]FUNC [options] [-p PID] [-c PATH]\n"
"                    [-d SECS | -- COMMAND...]\n"
"                                          time FUNC while COMMAND runs, for\n"
"                                          SECS, or until Ctrl-C; then summarize\n"
"       kstats trace 'GLOB' [options] [--name NAME] [-n N] [-p PID] [-c PATH]\n"
"                    [-d SECS | -- COMMAND...]\n"
"                                          the same for every function that GLOB\n"
"                                          (*, ?, [) matches, a group; then a\n"
"                                          table of them\n"
"       kstats top [NAME] [-i SECS] [-n N] [-s KEY] [--dir DIR]\n"
"                                          the functions of group NAME (or every\n"
"                                          metric), live: kstats top --help\n"
"\n"
"INPUT is a file, a metric name (looked up in kstats/ under the debugfs\n"
"mount of /proc/mounts) or - for standard input.\n"
"INPUT may be a group's directory (kstats/NAME/, with a _summary): the table\n"
"of its functions, or a distribution per function with --json, --csv (a\n"
"column function), --openmetrics (a label function), --hist or --per-cpu.\n"
"\n"
"  -p, --percentiles LIST  percentiles to print (default 50,90,95,99,99.9);\n"
"                          in kstats trace, -p is --pid: --percentiles there\n"
"  -b, --bits N            frac_bits of the input (default: inferred)\n"
"      --cpu N             one CPU only (not with --openmetrics)\n"
"      --per-cpu           one row per CPU (the summary, or --openmetrics)\n"
"  -u, --unit U            the values are in U (ns, us, ms or s): print them\n"
"                          with a unit, scaled up to s, 3 significant digits\n"
"                          (bounds rounded outwards, so that they hold)\n"
"      --hist              terminal histogram: a row per slot [lo, hi] from the\n"
"                          first to the last (empty ones too), a bar of the\n"
"                          density per octave on the scale said, CDF, count,\n"
"                          cumulative %, percentiles\n"
"      --log2              with --hist: slots of powers of 2 (frac_bits 0)\n"
"      --json              JSON (min and max as their slots' bounds:\n"
"                          min_bounds, max_bounds; with -u, its unit)\n"
"      --csv               one CSV row per slot: slot,lo,hi,count,mean,cdf,\n"
"                          fraction,per_octave,per_unit (densities)\n"
"      --openmetrics       OpenMetrics histogram (Prometheus textfile): the\n"
"                          family kstats_latency_seconds with -u, else\n"
"                          kstats_latency; labels metric and, with --per-cpu, cpu\n"
"      --name NAME         the metric label for --openmetrics (default: INPUT;\n"
"                          needed for standard input)\n"
"      --le-bits N         --openmetrics buckets: the slots of frac_bits N, the\n"
"                          same for every input (default 0: powers of 2)\n"
"  -o, --output FILE       write to FILE through a temporary file and rename()\n"
"      --merge             sum the distributions of several inputs (of\n"
"                          different frac_bits: at the coarsest, exactly)\n"
"  -i, --interval SECS     print the samples of each interval, and their rate\n"
"                          (--csv: one CSV, led by interval,time,seconds;\n"
"                          --json: JSON Lines; --openmetrics: an exposition\n"
"                          per interval)\n"
"  -c, --count K           with --interval: stop after K intervals\n"
"      --rows              with --interval: a line per interval (time, count,\n"
"                          rate, percentiles, by default 50,90,99, max<=, the\n"
"                          total of the samples), as vmstat\n"
"      --diff              subtract the first input from the second\n"
"      --compare           compare two inputs: changes, 95% intervals, KS test\n"
"  -d, --duration SECS     kstats trace: trace for SECS seconds\n"
"  -p, --pid PID           kstats trace: only the calls of process PID\n"
"  -c, --cgroup PATH       kstats trace: only the calls of the tasks of cgroup\n"
"                          PATH (cgroup v2, from its root) and below it\n"
"  -n, --lines N           kstats trace 'GLOB': the first N rows of its table\n"
"      --name NAME         kstats trace 'GLOB': the group's name (default\n"
"                          kstats-trace-PID)\n"
"  -h, --help              this text\n"
"  -V, --version           the version\n"
"\n"
"An option that would do nothing where it is given is a usage error.\n"
"\n"
"Exit status: 0, 1 on a usage or system error, 2 on malformed input (also\n"
"truncated, with counts out of range, or without the CPU of --cpu); for\n"
"kstats trace -- COMMAND, COMMAND's status (128 + N if killed by signal N).\n";

static void show_help(FILE *f)
{
	fputs(kstats_help, f);
}

static char *out_tmp;		/* -o: the temporary file, until renamed */

static void report(const char *fmt, va_list ap)
{
	if (out_tmp)
		unlink(out_tmp);

	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(fmt, ap);
	va_end(ap);
	exit(status);
}

/* A usage error: what is wrong, in a line, and where to read more. */
#define usage_error kstats_usage_error

/* The debugfs mount point, from /proc/mounts; NULL if not mounted. */
static char *debugfs_dir(const char *what)
{
	char line[4096], dev[256], dir[2048], type[64];
	char *path = NULL;
	FILE *m;

	m = fopen("/proc/mounts", "r");
	if (!m)
		die(1, "%s: /proc/mounts cannot be read", what);
	while (!path && fgets(line, sizeof(line), m)) {
		if (sscanf(line, "%255s %2047s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "debugfs")) {
			path = strdup(dir);
			if (!path)
				die(1, "out of memory");
		}
	}
	fclose(m);
	return path;
}

/* A metric name: the file kstats/NAME under the debugfs mount. */
static char *resolve(const char *input)
{
	char *dir, *path;

	if (!strcmp(input, "-") || strchr(input, '/') || !access(input, F_OK))
		return strdup(input);
	dir = debugfs_dir(input);
	if (!dir)
		die(1, "%s: no such file, and debugfs is not mounted", input);
	if (asprintf(&path, "%s/kstats/%s", dir, input) < 0)
		die(1, "out of memory");
	free(dir);
	return path;
}

/* Read @f, opened from @path, into @d; closes @f unless it is stdin. */
static void load_file(struct ks_data *d, FILE *f, const char *path)
{
	struct stat st;

	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode))
		die(1, "%s: %s", path, strerror(EISDIR));
	ks_data_init(d);
	if (ks_read(d, f) || ks_finish(d, opt.bits))
		die(2, "%s: %s", path, d->err);
	if (f != stdin)
		fclose(f);
}

static void load(struct ks_data *d, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;

	if (!f)
		die(1, "%s: %s", path, strerror(errno));
	load_file(d, f, path);
}

static const char * const unit_names[] = { "ns", "us", "ms", "s" };

/* Rounding of a printed number: down, to nearest, up. */
enum { RND_DOWN = -1, RND_NEAR = 0, RND_UP = 1 };

static int ndigits(uint64_t v)
{
	int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

static uint64_t pow10u(int e)
{
	uint64_t p = 1;

	while (e-- > 0)
		p *= 10;
	return p;
}

/*
 * @v / 10^@frac (@frac <= 19) exactly, in integer arithmetic, without
 * trailing zeros: 1023 and 9 give 0.000001023.
 */
static const char *fmt_fixed(char *buf, size_t n, uint64_t v, int frac)
{
	uint64_t p = pow10u(frac), r = frac ? v % p : 0;
	int len = snprintf(buf, n, "%llu", (unsigned long long)(frac ? v / p : v));
	char f[40];

	if (r && len > 0 && (size_t)len < n) {
		snprintf(f, sizeof(f), "%0*llu", frac & 31, (unsigned long long)r);
		while (f[frac - 1] == '0')
			frac--;
		snprintf(buf + len, n - len, ".%.*s", frac, f);
	}
	return buf;
}

/*
 * -@m * 10^@e if @neg, else @m * 10^@e, in unit @u (of unit_names), in
 * the largest unit up to s where it is 1000 or more: each digit of @m
 * printed, no other.
 */
static const char *fmt_digits(char *buf, size_t n, int neg, uint64_t m, int e, int u)
{
	const char *sign = neg && m ? "-" : "";
	uint64_t p;

	while (u < 3 && ndigits(m) + e > 3) {
		e -= 3;
		u++;
	}
	if (e > 20) {
		/* Past 10^23 s (a total of many huge samples): in exponent form. */
		snprintf(buf, n, "%s%.*e %s", sign, ndigits(m) - 1, m * pow(10, e), unit_names[u]);
	} else if (e >= 0) {
		snprintf(buf, n, "%s%llu%.*s %s", sign, (unsigned long long)m, e,
			 "00000000000000000000", unit_names[u]);
	} else if (e < -19) {
		snprintf(buf, n, "0 %s", unit_names[u]);
	} else {
		p = pow10u(-e);
		snprintf(buf, n, "%s%llu.%0*llu %s", sign, (unsigned long long)(m / p), -e,
			 (unsigned long long)(m % p), unit_names[u]);
	}
	return buf;
}

/* @v cut to 3 significant digits, rounded as @dir: *@m * 10^*@e. */
static void sig3_u64(uint64_t v, int dir, uint64_t *m, int *e)
{
	int d = ndigits(v);
	uint64_t p, r;

	*m = v;
	*e = 0;
	if (d <= 3)
		return;
	p = pow10u(d - 3);
	r = v % p;
	*m = v / p;
	*e = d - 3;
	if ((dir == RND_UP && r) || (dir == RND_NEAR && r >= p - r))
		(*m)++;
	if (*m == 1000) {
		*m = 100;
		(*e)++;
	}
}

/*
 * A number in the unit of --unit, scaled up to s, with 3 significant
 * digits (trailing zeros kept when @pad: a column of values reads alike),
 * rounded as @dir, so that a bound printed still holds; plain without
 * --unit: @v exactly, an integer.
 */
static const char *fmt_u64(char *buf, size_t n, uint64_t v, int dir, int pad)
{
	uint64_t m;
	int e, d;

	if (!opt.human) {
		snprintf(buf, n, "%llu", (unsigned long long)v);
		return buf;
	}
	sig3_u64(v, dir, &m, &e);
	d = ndigits(m);
	if (pad && v && d < 3) {
		m *= pow10u(3 - d);
		e -= 3 - d;
	}
	return fmt_digits(buf, n, 0, m, e, opt.human - 1);
}

static const char *fmt_num(char *buf, size_t n, double v, int dir, int pad)
{
	double a = fabs(v), x = 0;
	int neg = v < 0, e, i;

	if (!opt.human || !isfinite(v)) {
		snprintf(buf, n, "%.0f", dir == RND_DOWN ? floor(v) : dir == RND_UP ? ceil(v) : v);
		return buf;
	}
	if (neg)
		dir = -dir;
	if (a == floor(a) && a < 0x1p64) {
		fmt_u64(buf + neg, n - neg, (uint64_t)a, dir, pad);
		if (neg)
			buf[0] = '-';
		return buf;
	}
	/* a = x * 10^e, x rounded as dir to 3 digits (100 to 999). */
	e = (int)floor(log10(a)) - 2;
	for (i = 0; i < 4; i++) {
		x = e >= 0 ? a / pow(10, e) : a * pow(10, -e);
		x = dir == RND_DOWN ? floor(x) : dir == RND_UP ? ceil(x) : round(x);
		if (x >= 1000)
			e++;
		else if (x < 100)
			e--;
		else
			break;
	}
	return fmt_digits(buf, n, neg, x < 100 ? 100 : x >= 1000 ? 999 : (uint64_t)x, e,
			  opt.human - 1);
}

/* A value: 3 significant digits with --unit (2.40 us above 2.38 us). */
static const char *fmt_val(char *buf, size_t n, double v)
{
	return fmt_num(buf, n, v, RND_NEAR, 1);
}

/* Bounds, rounded outwards: what is printed holds. */
static const char *fmt_lo(char *buf, size_t n, uint64_t v)
{
	return fmt_u64(buf, n, v, RND_DOWN, 0);
}

static const char *fmt_hi(char *buf, size_t n, uint64_t v)
{
	return fmt_u64(buf, n, v, RND_UP, 0);
}

/*
 * A bound exactly, in integer arithmetic: with --unit, in the largest
 * unit up to s where it is 1 or more (1151 ns: 1.151 us).
 */
static const char *fmt_exact(char *buf, size_t n, uint64_t v)
{
	char num[40];
	int u = opt.human - 1, k = 0;

	if (!opt.human)
		return fmt_fixed(buf, n, v, 0);
	while (u + k < 3 && v >= pow10u(3 * (k + 1)))
		k++;
	snprintf(buf, n, "%s %s", fmt_fixed(num, sizeof(num), v, 3 * k), unit_names[u + k]);
	return buf;
}

struct pct {
	double q;
	double value;
	uint64_t lo, hi;
};

struct stats {
	uint64_t n;
	double sum, mean;	/* of the values */
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

static const char *pct_name(char *buf, size_t n, double q)
{
	snprintf(buf, n, "%g", q);
	return buf;
}

static void print_summary(const char *label, const struct ks_data *d,
			  const struct ks_hist *h)
{
	char a[64], b[64], c[64], q[72];
	struct stats st;
	int i;

	compute(h, d->bits, &st);
	printf("input   %s\n", label);
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
	if (top && opt.cpu >= 0)
		printf(",\"cpu\":%ld", opt.cpu);
	/* The values are as recorded: -u says in what. */
	if (top && opt.human)
		printf(",\"unit\":\"%s\"", unit_names[opt.human - 1]);
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

/*
 * The width of slot @s in octaves (doublings of the value): log2 of
 * (hi + 1) / lo, with 0 taken as 1/2. Slots are log-linear, so a count
 * divided by this is a density that a logarithmic axis shows without the
 * sawtooth of raw counts, whose slots double in width at each power of 2.
 */
static double octaves(size_t s, int bits)
{
	double lo = ks_slot_min(s, bits);

	return log2(((double)ks_slot_max(s, bits) + 1) / (lo > 0 ? lo : 0.5));
}

/*
 * @h's samples in the slots of a coarser frac_bits @to: a slot of @to is a
 * union of slots of @bits, so every count and sum is exact.
 */
static void coarsen(struct ks_hist *out, const struct ks_hist *h, int bits, int to)
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

/* An interval of --interval: its number, its end (Unix time), its length. */
struct interval {
	long i;
	double time, secs;
};

/* @s and a comma, as a CSV field: quoted if it holds a comma or a quote. */
static void csv_field(const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		printf("%s,", s);
		return;
	}
	putchar('"');
	for (; *s; s++)
		printf(*s == '"' ? "\"\"" : "%c", *s);
	printf("\",");
}

/*
 * A row per non-empty slot. With --interval (@iv), one CSV for all the
 * intervals: the header once, each row led by its interval, time and
 * seconds (an interval without samples has no row). With @func (a group's
 * function), a column function before the slot's; @head: the header too.
 */
static void print_csv(const struct ks_data *d, const struct ks_hist *h,
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
		       opt.cpu >= 0 ? ",cpu" : "");
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
		if (opt.cpu >= 0)
			printf(",%ld", opt.cpu);
		putchar('\n');
	}
}

/*
 * A label value of OpenMetrics: the name of the metric (its last path
 * component), with backslash, double quote and newline escaped.
 */
static void om_label(char *out, size_t n, const char *in)
{
	const char *base = strrchr(in, '/');
	size_t i = 0;

	base = base && base[1] ? base + 1 : in;
	for (; *base && i + 3 < n; base++) {
		if (*base == '\\' || *base == '"' || *base == '\n')
			out[i++] = '\\';
		out[i++] = *base == '\n' ? 'n' : *base;
	}
	out[i] = '\0';
}

/* A value in the family's unit: seconds with -u, else as recorded. */
static double om_value(double v)
{
	static const double scale[] = { 1, 1 / 1e9, 1 / 1e6, 1 / 1e3, 1 };

	return v * scale[opt.human];
}

/*
 * A bucket's bound in the family's unit, exactly: the integer bound in
 * the unit recorded, or in seconds with -u, its decimal by integer
 * division and remainder (a double has 53 bits: 2^63 - 1 ns would print
 * below itself, as 9223372036.85).
 */
static const char *om_le(char *buf, size_t n, uint64_t v)
{
	return fmt_fixed(buf, n, v, opt.human ? 3 * (4 - opt.human) : 0);
}

/*
 * One series: a bucket for each slot of frac_bits opt.le_bits but the
 * last (+Inf holds it), empty ones included, so that every series of the
 * family has the same bounds, whatever its input: sums across CPUs and
 * hosts are then right. A slot of a coarser frac_bits is a union of
 * finer ones, so each count is exact.
 */
static void om_series(const char *family, const char *labels, const struct ks_data *d,
		      const struct ks_hist *h)
{
	unsigned int nr = ks_nr_slots(opt.le_bits), cs;
	uint64_t *count = calloc(nr, sizeof(*count)), cum = 0;
	double sum = 0;
	char le[40];
	size_t s;

	if (!count)
		die(1, "out of memory");
	for (s = 0; s < h->nslots; s++) {
		if (!h->count[s])
			continue;
		count[ks_slot(ks_slot_min(s, d->bits), opt.le_bits)] += h->count[s];
		sum += h->sum[s];
	}
	for (cs = 0; cs + 1 < nr; cs++) {
		cum += count[cs];
		printf("%s_bucket{%sle=\"%s\"} %llu\n", family, labels,
		       om_le(le, sizeof(le), ks_slot_max(cs, opt.le_bits)),
		       (unsigned long long)cum);
	}
	cum += count[cs];
	printf("%s_bucket{%sle=\"+Inf\"} %llu\n", family, labels, (unsigned long long)cum);
	printf("%s_sum{%.*s} %.12g\n", family, (int)strlen(labels) - 1, labels, om_value(sum));
	printf("%s_count{%.*s} %llu\n", family, (int)strlen(labels) - 1, labels,
	       (unsigned long long)cum);
	free(count);
}

/*
 * OpenMetrics, one family per unit (Prometheus' base unit, seconds, when
 * -u gives one), the metric as a label: sum by (le) adds up CPUs, hosts
 * and metrics alike.
 */
static void print_openmetrics(const struct ks_data *d, const char *input)
{
	const char *family = opt.human ? "kstats_latency_seconds" : "kstats_latency";
	char metric[512], labels[600];
	size_t c;

	if (opt.le_bits > d->bits)
		die(1, "--le-bits %d: finer than the input's frac_bits %d", opt.le_bits,
		    d->bits);
	om_label(metric, sizeof(metric), opt.name ? opt.name : input);
	printf("# HELP %s kstats latency distribution%s\n", family,
	       opt.human ? ", in seconds" : ", in the unit recorded");
	printf("# TYPE %s histogram\n", family);
	if (opt.human)
		printf("# UNIT %s seconds\n", family);
	if (!opt.per_cpu) {
		snprintf(labels, sizeof(labels), "metric=\"%s\",", metric);
		om_series(family, labels, d, &d->all);
	} else {
		for (c = 0; c < d->ncpus; c++) {
			if (!d->cpu[c].nslots)
				continue;
			snprintf(labels, sizeof(labels), "metric=\"%s\",cpu=\"%zu\",", metric, c);
			om_series(family, labels, d, &d->cpu[c]);
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

/* The smallest of 1, 2 and 5 times a power of 10 that is @x or more. */
static double nice_up(double x)
{
	static const double m[] = { 1, 2, 5, 10 };
	double p = pow(10, floor(log10(x)));
	int i;

	for (i = 0; i < 3 && m[i] * p < x * (1 - 1e-12); i++)
		;
	return m[i] * p;
}

/* The exact bounds of slot @s: "[lo, hi]". */
static const char *slot_range(char *buf, size_t n, size_t s, int bits)
{
	char lo[48], hi[48];

	snprintf(buf, n, "[%s, %s]", fmt_exact(lo, sizeof(lo), ks_slot_min(s, bits)),
		 fmt_exact(hi, sizeof(hi), ks_slot_max(s, bits)));
	return buf;
}

/*
 * As funclatency and bpftrace print a histogram: a row per slot from the
 * first non-empty one to the last, empty ones included (a gap between two
 * modes shows), each labelled with its exact range. Its bar: a dark part
 * for the slot's density, its samples per octave (slots double in width
 * at each power of two: raw counts would show false peaks there), on the
 * scale said above the rows; continued in light shade up to the
 * cumulative fraction (the full bar is 100%). The bar is closed, then the
 * count, the cumulative % and the percentiles that fall in the slot. With
 * --log2, the slots of frac_bits 0: one octave each.
 */
static void print_hist(const struct ks_hist *hist, int hbits)
{
	int bits = opt.log2 ? 0 : hbits, width, rangew = 7, i;
	const struct ks_hist *h = hist;
	struct ks_hist coarse = { 0 };
	double dmax = 0, scale = 1;
	uint64_t n = 0, cum = 0;
	struct stats st;
	char r[112], q[32];
	size_t s;

	if (opt.log2 && hbits > 0) {
		coarsen(&coarse, hist, hbits, 0);
		h = &coarse;
	}
	compute(h, bits, &st);
	for (s = 0; s < h->nslots; s++) {
		n += h->count[s];
		if (h->count[s])
			dmax = fmax(dmax, h->count[s] / octaves(s, bits));
	}
	for (s = st.first; n && s <= (size_t)st.last; s++)
		rangew = fmax(rangew, strlen(slot_range(r, sizeof(r), s, bits)));
	/* The range, " |", the bar, "|", the count, the cum%, percentiles. */
	width = term_width() - rangew - 34;
	if (width < 10)
		width = 10;
	/* The densest slot fills half of the bar, at most: one block is a round number. */
	if (dmax > 0)
		scale = nice_up(dmax / (width / 2));
	if (opt.cpu >= 0)
		printf("cpu %ld\n", opt.cpu);
	printf("\u2592 = %g samples per octave (density); ", scale);
	printf("\u2591 up to the cumulative %%, 100%% at full width\n");
	printf("%*s \u2502%*s\u2502%11s %7s  %s\n", rangew, "range", width, "", "count", "cum%",
	       "percentiles");
	for (s = st.first; n && s <= (size_t)st.last; s++) {
		int bar, cdf, first = 1;

		cum += h->count[s];
		bar = (int)(h->count[s] / octaves(s, bits) / scale + 0.5);
		cdf = (int)((double)cum / n * width + 0.5);
		printf("%*s \u2502", rangew, slot_range(r, sizeof(r), s, bits));
		for (i = 0; i < width; i++)
			fputs(i < bar ? "\u2592" : i < cdf ? "\u2591" : " ", stdout);
		printf("\u2502%11llu %6.2f%%", (unsigned long long)h->count[s], 100.0 * cum / n);
		for (i = 0; i < opt.npct; i++) {
			if (ks_slot(st.pct[i].lo, bits) != s)
				continue;
			printf("%s p%s", first ? " " : ",", pct_name(q, sizeof(q), opt.pct[i]));
			first = 0;
		}
		putchar('\n');
	}
	free(coarse.count);
	free(coarse.sum);
}

/*
 * The samples of --cpu N, or of all CPUs. A CPU that the CPUS lines count
 * has none when it has no line; one beyond them (or beyond the CPU lines,
 * without CPUS lines) is an input error: not this input's.
 */
static const struct ks_hist *selected(const struct ks_data *d, const char *what)
{
	static const struct ks_hist empty;
	size_t ncpus = d->ncpus > d->possible ? d->ncpus : d->possible;

	if (opt.cpu < 0)
		return &d->all;
	if ((size_t)opt.cpu < d->ncpus)
		return &d->cpu[opt.cpu];
	/* An empty metric (no line) says nothing of its CPUs. */
	if ((size_t)opt.cpu >= ncpus && ncpus)
		die(2, "%s: --cpu %ld: the input has CPUs 0 to %zu only", what, opt.cpu,
		    ncpus - 1);
	return &empty;
}

static void output(const struct ks_data *d, const char *input)
{
	switch (opt.out) {
	case OUT_SUMMARY:
		if (opt.per_cpu)
			print_per_cpu(d);
		else
			print_summary(input, d, selected(d, input));
		break;
	case OUT_HIST:
		print_hist(selected(d, input), d->bits);
		break;
	case OUT_JSON:
		json_stats(d, selected(d, input), 1);
		putchar('\n');
		break;
	case OUT_CSV:
		print_csv(d, selected(d, input), NULL, NULL, 1);
		break;
	case OUT_OPENMETRICS:
		print_openmetrics(d, input);
		break;
	}
}

/* @h with at least @n slots, the new ones empty. */
static void hist_grow(struct ks_hist *h, size_t n)
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
static void cpus_grow(struct ks_data *d, size_t n)
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
	cpus_grow(old, new->ncpus);
	for (c = 0; c < new->ncpus; c++)
		hist_sub(&old->cpu[c], &new->cpu[c], new->bits, what);
}

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

/* A column head: @name, or its last @w - 3 characters after "...". */
static const char *head(char *buf, size_t n, const char *name, int w)
{
	size_t len = strlen(name);

	if (len <= (size_t)w)
		snprintf(buf, n, "%s", name);
	else
		snprintf(buf, n, "...%s", name + len - (w - 3));
	return buf;
}

/*
 * One line of the comparison: the two values, the change of B from A and
 * the 95% interval of that change, in % of A (absolute when A is 0), and
 * "~" when the interval holds 0: within the resolution and the noise.
 * Without an interval (@few), the change alone and why.
 */
static void compare_line(const char *what, int w, double va, double vb,
			 double dlo, double dhi, bool few)
{
	char x[64], y[64], l[64], h[64];

	printf("%-8s %*s %*s", what, w, fmt_val(x, sizeof(x), va),
	       w, fmt_val(y, sizeof(y), vb));
	if (va > 0)
		printf(" %+9.2f%%", (vb - va) / va * 100);
	else
		printf(" %10s", "(A is 0)");
	if (few)
		printf("  too few samples for an interval\n");
	else if (va > 0)
		printf("  [%+.1f%%, %+.1f%%]%s\n", dlo / va * 100, dhi / va * 100,
		       dlo <= 0 && dhi >= 0 ? "  ~" : "");
	else
		printf("  [%s, %s]%s\n", fmt_num(l, sizeof(l), dlo, RND_DOWN, 0),
		       fmt_num(h, sizeof(h), dhi, RND_UP, 0),
		       dlo <= 0 && dhi >= 0 ? "  ~" : "");
}

static void compare(const struct ks_data *a, const struct ks_data *b,
		    const char *na, const char *nb)
{
	const struct ks_hist *ha = selected(a, na), *hb = selected(b, nb);
	struct stats sa, sb;
	char q[32], x[64], y[64];
	uint64_t ca = 0, cb = 0;
	size_t s, n, at = 0;
	double dmax = 0, ne, p, alo = 0, ahi = 0, blo = 0, bhi = 0, se;
	bool ok;
	int i, w;

	if (a->bits != b->bits)
		die(2, "frac_bits differ: %d in %s, %d in %s", a->bits, na, b->bits, nb);
	compute(ha, a->bits, &sa);
	compute(hb, b->bits, &sb);
	if (!sa.n || !sb.n)
		die(2, "%s is empty", !sa.n ? na : nb);
	w = strlen(na) > strlen(nb) ? strlen(na) : strlen(nb);
	w = w < 14 ? 14 : w > 30 ? 30 : w;
	snprintf(q, sizeof(q), "cpu %ld", opt.cpu);
	printf("%-8s %*s %*s %10s  %s\n", opt.cpu >= 0 ? q : "", w, head(x, sizeof(x), na, w),
	       w, head(y, sizeof(y), nb, w), "change", "95% interval of the change");
	printf("%-8s %*llu %*llu\n", "count", w, (unsigned long long)sa.n,
	       w, (unsigned long long)sb.n);
	/* The mean: its standard error, from each input's variance. */
	se = sqrt(hist_var(ha, a->bits, &sa) / sa.n + hist_var(hb, b->bits, &sb) / sb.n);
	compare_line("mean", w, sa.mean, sb.mean, sb.mean - sa.mean - 1.96 * se,
		     sb.mean - sa.mean + 1.96 * se, sa.n < 2 || sb.n < 2);
	for (i = 0; i < opt.npct; i++) {
		char col[40];

		snprintf(col, sizeof(col), "p%s", pct_name(q, sizeof(q), opt.pct[i]));
		ok = pct_interval(ha, a->bits, sa.n, opt.pct[i], &alo, &ahi) &&
		     pct_interval(hb, b->bits, sb.n, opt.pct[i], &blo, &bhi);
		compare_line(col, w, sa.pct[i].value, sb.pct[i].value, blo - ahi, bhi - alo, !ok);
	}
	printf("~: the interval holds 0, the change is within the resolution (slot bounds)\n"
	       "   and the sampling noise (sample counts); intervals of at least 95%%,\n"
	       "   assuming independent samples\n");
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
		d = fabs((double)ca / sa.n - (double)cb / sb.n);
		if (d > dmax) {
			dmax = d;
			at = s;
		}
	}
	ne = (double)sa.n * sb.n / (sa.n + sb.n);
	p = ks_q((sqrt(ne) + 0.12 + 0.11 / sqrt(ne)) * dmax);
	printf("ks D=%.6f p-value=%.3g %s\n", dmax, p,
	       p < 0.01 ? "(different, at 1%)" : "(no significant difference, at 1%)");
	printf("   D: the largest gap between the two CDFs, %.2f%% of the samples",
	       dmax * 100);
	if (dmax > 0)
		printf(", at %s", fmt_exact(x, sizeof(x), ks_slot_max(at, a->bits)));
	printf(";\n   p: the chance of a gap as large if both were independent samples of\n"
	       "   one distribution\n");
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
			usage_error("--percentiles: '%s': not in (0, 100], or more than %d",
				    t, MAX_PCTS);
		opt.pct[opt.npct++] = q;
	}
	free(copy);
	if (!opt.npct)
		usage_error("--percentiles: no percentile");
}

/* 1 if @new is a later snapshot of @old: no slot of any CPU has fewer. */
static int later(const struct ks_data *old, const struct ks_data *new)
{
	size_t c, s;

	if (old->bits != new->bits || old->ncpus > new->ncpus)
		return 0;
	for (c = 0; c < old->ncpus; c++)
		for (s = 0; s < old->cpu[c].nslots; s++)
			if (old->cpu[c].count[s] &&
			    (s >= new->cpu[c].nslots ||
			     new->cpu[c].count[s] < old->cpu[c].count[s]))
				return 0;
	return 1;
}

static double now_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One interval of --interval, as --rows, --json (a JSON line) or else. */
static void follow_print(const struct ks_data *d, const char *input, long i, double secs,
			 int reset)
{
	char x[32], clock[16];
	struct stats st;
	time_t now;
	struct tm tm;
	int k;

	compute(selected(d, input), d->bits, &st);
	if (opt.rows) {
		if (i == 1) {
			if (opt.cpu >= 0)
				printf("cpu %ld\n", opt.cpu);
			printf("%-8s %8s %10s %10s", "time", "interval", "count", "rate/s");
			for (k = 0; k < opt.npct; k++) {
				char col[40];

				snprintf(col, sizeof(col), "p%s",
					 pct_name(x, sizeof(x), opt.pct[k]));
				printf(" %11s", col);
			}
			printf(" %11s %11s\n", "max<=", "total");
		}
		/*
		 * The interval's end, local time, as funclatency -T; the last
		 * column, the total of the samples: the time spent in what
		 * they measure, in the interval.
		 */
		now = time(NULL);
		if (!localtime_r(&now, &tm) || !strftime(clock, sizeof(clock), "%H:%M:%S", &tm))
			snprintf(clock, sizeof(clock), "-");
		printf("%-8s %8ld %10llu %10.1f", clock, i, (unsigned long long)st.n, st.n / secs);
		for (k = 0; k < opt.npct; k++)
			printf(" %11s", st.n ? fmt_val(x, sizeof(x), st.pct[k].value) : "-");
		printf(" %11s", st.n ? fmt_hi(x, sizeof(x), ks_slot_max(st.last, d->bits)) : "-");
		printf(" %11s%s\n", fmt_val(x, sizeof(x), st.sum),
		       reset ? "  (reset)" : "");
	} else if (opt.out == OUT_CSV) {
		struct interval iv = { i, now_s(CLOCK_REALTIME), secs };

		print_csv(d, selected(d, input), &iv, NULL, 1);
	} else if (opt.out == OUT_OPENMETRICS) {
		/* An exposition per interval, nothing between them. */
		output(d, input);
	} else if (opt.out == OUT_JSON) {
		printf("{\"interval\":%ld,\"time\":%.3f,\"seconds\":%.3f",
		       i, now_s(CLOCK_REALTIME), secs);
		printf(",\"rate\":%.1f,\"reset\":%s,\"stats\":", st.n / secs,
		       reset ? "true" : "false");
		json_stats(d, selected(d, input), 1);
		printf("}\n");
	} else {
		printf("interval %ld seconds %.3f rate %.1f/s%s\n", i, secs, st.n / secs,
		       reset ? " (after a reset)" : "");
		output(d, input);
	}
	fflush(stdout);
}

/*
 * 0, or the errno that kept @path from being read: a metric removed
 * between two intervals (ENOENT at open, or EIO from debugfs when it goes
 * while open) is waited for, not an error. Malformed text still is.
 */
static int try_load(struct ks_data *d, const char *path)
{
	FILE *f = fopen(path, "r");
	int err;

	if (!f)
		return errno;
	ks_data_init(d);
	if (ks_read(d, f)) {
		err = ferror(f) ? (errno ?: EIO) : 0;
		fclose(f);
		if (!err)
			die(2, "%s: %s", path, d->err);
		ks_data_free(d);
		return err;
	}
	fclose(f);
	if (ks_finish(d, opt.bits))
		die(2, "%s: %s", path, d->err);
	return 0;
}

/*
 * --interval: the samples of each interval, the difference of two
 * snapshots over the time measured between them. A snapshot with fewer
 * samples than the one before (a reset, or a remove and a new trace)
 * starts again from it, and is said to; a metric that is gone is waited
 * for.
 */
static void follow(const char *input)
{
	struct timespec ts = { (time_t)opt.interval,
			       (long)((opt.interval - (time_t)opt.interval) * 1e9) };
	char *path = resolve(input);
	struct ks_data prev, cur;
	double t0, t;
	long i = 0;
	int err, gone = 0, reset;

	load(&prev, path);
	selected(&prev, path);	/* --cpu N of this input, said now */
	t0 = now_s(CLOCK_MONOTONIC);
	while (!opt.count || i < opt.count) {
		nanosleep(&ts, NULL);
		err = try_load(&cur, path);
		if (err) {
			if (!gone++)
				fprintf(stderr, "%s: %s: %s; waiting for it\n", prog, path,
					strerror(err));
			continue;
		}
		t = now_s(CLOCK_MONOTONIC);
		reset = gone || !later(&prev, &cur);
		if (reset) {
			fprintf(stderr, "%s: %s: %s; counting from it again\n", prog, path,
				gone ? "back" : "reset");
			/* The interval is what the new snapshot holds. */
			ks_data_free(&prev);
			ks_data_init(&prev);
			prev.bits = cur.bits;
			prev.possible = cur.possible;
		}
		gone = 0;
		diff(&prev, &cur, path);
		follow_print(&prev, input, ++i, t - t0, reset);
		ks_data_free(&prev);
		prev = cur;
		t0 = t;
	}
	ks_data_free(&prev);
	free(path);
}

/*
 * kstats trace: one trace added through kstats/_control, and removed on
 * every way out once added (exit() runs trace_cleanup(); the signals that
 * end a trace are blocked and waited for, never delivered).
 */
static struct {
	char *control;		/* kstats/_control */
	char *dir;		/* kstats/ */
	const char *name;	/* the metric: FUNC without its prefix */
	int added;		/* ours, and not yet removed */
} tr;

/*
 * One command to _control: 0, or the errno of the write (the kernel
 * refused the command), or of the open if *@opened is cleared.
 */
static int trace_write(const char *cmd, int *opened)
{
	int fd = open(tr.control, O_WRONLY), err = 0;

	*opened = fd >= 0;
	if (fd < 0)
		return errno;
	if (write(fd, cmd, strlen(cmd)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* The last entry of kstats/error_log (3 lines), on stderr. */
static void trace_show_error(void)
{
	char line[512], last[3][512] = { "", "", "" }, *path;
	int n = 0, i;
	FILE *f;

	if (asprintf(&path, "%s/error_log", tr.dir) < 0)
		return;
	f = fopen(path, "r");
	free(path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		snprintf(last[n++ % 3], sizeof(last[0]), "%s", line);
	fclose(f);
	for (i = n > 3 ? n - 3 : 0; i < n; i++)
		fputs(last[i % 3], stderr);
}

static void trace_cleanup(void)
{
	int err, opened;
	char *cmd;

	if (!tr.added)
		return;
	tr.added = 0;
	if (asprintf(&cmd, "remove %s", tr.name) < 0)
		return;
	err = trace_write(cmd, &opened);
	if (err)
		fprintf(stderr, "%s: %s: %s\n", prog, cmd, strerror(err));
	free(cmd);
}

/* Why _control cannot be written, and what to do about it. */
static void trace_cannot(int err)
{
	char level[128] = "";
	FILE *f;

	if (err == ENOENT)
		die(1, "trace: no %s: modprobe kstats_trace (or CONFIG_KSTATS_TRACE=y)",
		    tr.control);
	f = fopen("/sys/kernel/security/lockdown", "r");
	if (f) {
		if (!fgets(level, sizeof(level), f))
			level[0] = '\0';
		fclose(f);
	}
	if (err == EPERM && level[0] && !strstr(level, "[none]"))
		die(1, "trace: %s: %s: kernel lockdown (%.*s) closes debugfs to writes",
		    tr.control, strerror(err), (int)strcspn(level, "\n"), level);
	die(1, "trace: %s: %s", tr.control, strerror(err));
}

/* Waits for one of @set, @secs seconds at most if > 0; 0 on timeout. */
static int trace_wait(const sigset_t *set, double secs)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
	int sig;

	do
		sig = secs > 0 ? sigtimedwait(set, NULL, &ts) : sigwaitinfo(set, NULL);
	while (sig < 0 && errno == EINTR);
	return sig < 0 ? 0 : sig;
}

/* kstats trace SPEC [-- COMMAND...]: @argv is the command, if @argc. */
static int trace_main(const char *spec, int argc, char **argv, double secs)
{
	char *cmd, *metric, *debugfs;
	int err, sig, opened, status = 0, ret = 0;
	sigset_t set;
	pid_t child = 0;
	struct ks_data d;
	const char *group;
	double t0;

	/* main() checked that there is one; a glob makes a group (kstats_top.c). */
	group = trace_group(&spec, opt.name, opt.per_cpu || opt.cpu >= 0);
	tr.name = group ?: strchr(spec, ':') ? strchr(spec, ':') + 1 : spec;
	if (geteuid())
		die(1, "trace: needs root, to write to debugfs (kstats/_control)");
	debugfs = debugfs_dir("trace");
	if (!debugfs)
		die(1, "trace: debugfs is not mounted: mount -t debugfs none /sys/kernel/debug");
	if (asprintf(&tr.dir, "%s/kstats", debugfs) < 0 ||
	    asprintf(&tr.control, "%s/_control", tr.dir) < 0 ||
	    asprintf(&metric, "%s/%s", tr.dir, tr.name) < 0 ||
	    asprintf(&cmd, "trace %s bits %d%s%.0ld%s%s", spec,
		     opt.bits >= 0 ? opt.bits : group ? 1 : 3,
		     opt.pid ? " pid " : "", opt.pid, opt.cgroup ? " cgroup " : "",
		     opt.cgroup ?: "") < 0)
		die(1, "out of memory");
	free(debugfs);
	if (access(tr.control, F_OK))
		trace_cannot(errno);

	/*
	 * From here on, these end the trace, when this process asks. Their
	 * action is the default, also when a shell started this in the
	 * background with SIGINT ignored: an ignored signal is discarded even
	 * while blocked, and could not end the trace; an ignored SIGCHLD
	 * would also reap the command unseen. SIGHUP stays ignored under
	 * nohup.
	 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	atexit(trace_cleanup);
	err = trace_write(cmd, &opened);
	if (!opened)
		trace_cannot(err);
	if (err == EEXIST)
		die(1, "trace: %s is traced already, or its name is in use; not touching it",
		    tr.name);
	if (err) {
		trace_show_error();
		die(1, "trace: '%s': %s", cmd, strerror(err));
	}
	tr.added = 1;
	t0 = now_s(CLOCK_MONOTONIC);
	free(cmd);

	if (argc) {
		fflush(NULL);
		child = fork();
		if (child < 0)
			die(1, "trace: fork: %s", strerror(errno));
		if (!child) {
			sigprocmask(SIG_UNBLOCK, &set, NULL);
			execvp(argv[0], argv);
			fprintf(stderr, "%s: trace: cannot run %s: %s\n", prog, argv[0],
				strerror(errno));
			_exit(127);
		}
		/*
		 * Until the command ends (SIGCHLD also comes when it stops);
		 * a signal to us is passed on to it.
		 */
		for (;;) {
			sig = trace_wait(&set, 0);
			if (sig == SIGCHLD && waitpid(child, &status, WNOHANG) == child)
				break;
			if (sig && sig != SIGCHLD)
				kill(child, sig);
		}
		if (WIFEXITED(status))
			ret = WEXITSTATUS(status);
		else if (WIFSIGNALED(status))
			ret = 128 + WTERMSIG(status);
		if (ret)
			fprintf(stderr, "%s: trace: %s %s %d\n", prog, argv[0],
				WIFSIGNALED(status) ? "killed by signal" : "exited with status",
				WIFSIGNALED(status) ? WTERMSIG(status) : ret);
	} else {
		if (secs > 0)
			fprintf(stderr, "Tracing %s for %g s, Ctrl-C to end sooner.\n",
				tr.name, secs);
		else
			fprintf(stderr, "Tracing %s, Ctrl-C to end.\n", tr.name);
		sigdelset(&set, SIGCHLD);
		trace_wait(&set, secs);
	}

	if (group) {
		struct top *g = group_snapshot(metric);

		trace_cleanup();
		group_report(g, group, now_s(CLOCK_MONOTONIC) - t0);
		free(metric);
		return ret;
	}
	load(&d, metric);
	trace_cleanup();
	output(&d, tr.name);
	ks_data_free(&d);
	free(metric);
	return ret;
}

/*
 * -o FILE: standard output goes to a temporary file beside FILE, renamed
 * to FILE once complete, so that a reader (node_exporter's textfile
 * collector) never sees half of it. It does not end in .prom.
 */
static void out_begin(const char *file)
{
	mode_t mask = umask(0);
	int fd;

	umask(mask);
	if (asprintf(&out_tmp, "%s.tmp.XXXXXX", file) < 0)
		die(1, "out of memory");
	fd = mkstemp(out_tmp);
	if (fd < 0) {
		free(out_tmp);
		out_tmp = NULL;
		die(1, "%s: %s", file, strerror(errno));
	}
	if (fchmod(fd, 0666 & ~mask) || dup2(fd, STDOUT_FILENO) < 0)
		die(1, "%s: %s", out_tmp, strerror(errno));
	close(fd);
}

static void out_commit(const char *file)
{
	if (fflush(stdout) || fsync(STDOUT_FILENO))
		die(1, "%s: %s", out_tmp, strerror(errno));
	if (rename(out_tmp, file))
		die(1, "%s: %s", file, strerror(errno));
	free(out_tmp);
	out_tmp = NULL;
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
static void hist_add_at(struct ks_hist *a, const struct ks_hist *h, int bits, int to)
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

/*
 * --merge: the inputs summed into @d, CPU by CPU and in all. Each input
 * is read at its frac_bits (--bits, or inferred); inputs of different
 * frac_bits are summed at the coarsest of them, where each slot of a
 * finer one lies whole in one slot (a union of finer slots): every count
 * stays exact, only the resolution is that of the coarsest. Said on
 * standard error, with each input's frac_bits.
 */
static void merge_inputs(struct ks_data *d, int n, char **inputs)
{
	struct ks_data *in = calloc(n, sizeof(*in));
	int i, bits = KS_MAX_BITS, dashes = 0, differ = 0;
	uint64_t samples = 0;
	size_t c;

	if (!in)
		die(1, "out of memory");
	for (i = 0; i < n; i++)
		dashes += !strcmp(inputs[i], "-");
	if (dashes > 1)
		usage_error("--merge: - (standard input) given twice");
	for (i = 0; i < n; i++) {
		char *path = resolve(inputs[i]);

		load(&in[i], path);
		free(path);
		if (in[i].bits < bits)
			bits = in[i].bits;
		differ |= in[i].bits != in[0].bits;
	}
	if (differ) {
		fprintf(stderr, "%s: --merge: the inputs' frac_bits differ:", prog);
		for (i = 0; i < n; i++)
			fprintf(stderr, "%s %s has %d", i ? "," : "", inputs[i], in[i].bits);
		fprintf(stderr, "; merged at frac_bits %d, the coarsest (exact: %s)\n", bits,
			"each of its slots is a union of finer ones");
	}
	ks_data_init(d);
	d->bits = bits;
	for (i = 0; i < n; i++) {
		/*
		 * The samples of all CPUs summed fit in 64 bits: so do those
		 * of each CPU, and of each slot (the parser checked that each
		 * CPUS line has its CPU lines' samples).
		 */
		if (__builtin_add_overflow(samples, in[i].have_all ? in[i].samples_all :
					   in[i].samples_cpu, &samples))
			die(2, "--merge: %s: the samples add up past %llu: out of range",
			    inputs[i], (unsigned long long)UINT64_MAX);
		cpus_grow(d, in[i].ncpus);
		for (c = 0; c < in[i].ncpus; c++)
			hist_add_at(&d->cpu[c], &in[i].cpu[c], in[i].bits, bits);
		hist_add_at(&d->all, &in[i].all, in[i].bits, bits);
		if (in[i].possible > d->possible)
			d->possible = in[i].possible;
		ks_data_free(&in[i]);
	}
	free(in);
}

/* --merge: the inputs' common last path component, or "merged". */
static const char *merged_name(int n, char **inputs)
{
	const char *name = strrchr(inputs[0], '/'), *b;
	int i;

	name = name ? name + 1 : inputs[0];
	for (i = 1; i < n; i++) {
		b = strrchr(inputs[i], '/');
		if (strcmp(b ? b + 1 : inputs[i], name))
			return "merged";
	}
	return name;
}

/*
 * For kstats_top.c (kstats.h): kstats top, kstats trace 'GLOB' and group
 * directories as input.
 */
void kstats_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(fmt, ap);
	va_end(ap);
	exit(status);
}

/* A usage error: what is wrong, in a line, and where to read more. */
void kstats_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", prog);
	exit(1);
}

char *kstats_debugfs(const char *what)
{
	return debugfs_dir(what);
}

int kstats_bits(void)
{
	return opt.bits;
}

double kstats_percentile(const struct ks_hist *h, uint64_t n, double q)
{
	return slot_mean(h, rank_slot(h, rank_of(q, n)));
}

int kstats_group_table(void)
{
	return opt.out == OUT_SUMMARY && !opt.per_cpu;
}

/* A JSON string: the characters that need it escaped. */
static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static const char *om_family(void)
{
	return opt.human ? "kstats_latency_seconds" : "kstats_latency";
}

void kstats_group_begin(const char *group)
{
	switch (opt.out) {
	case OUT_JSON:
		printf("{\"group\":");
		json_string(group);
		printf(",\"functions\":{");
		break;
	case OUT_OPENMETRICS:
		printf("# HELP %s kstats latency distribution%s\n", om_family(),
		       opt.human ? ", in seconds" : ", in the unit recorded");
		printf("# TYPE %s histogram\n", om_family());
		if (opt.human)
			printf("# UNIT %s seconds\n", om_family());
		break;
	default:
		break;
	}
}

/*
 * One function @func of @group, the @i-th: in JSON, a member of
 * "functions"; in CSV, rows with a first column; in OpenMetrics, series
 * of the family of every metric, with the labels metric (the group, or
 * --name) and function, and the buckets of every series (--le-bits);
 * otherwise the function's name, then its output.
 */
void kstats_group_output(const struct ks_data *d, const char *group, const char *func,
			 size_t i)
{
	char metric[512], fn[512], labels[1200];
	size_t c;

	switch (opt.out) {
	case OUT_JSON:
		printf("%s", i ? "," : "");
		json_string(func);
		putchar(':');
		json_stats(d, selected(d, func), 1);
		break;
	case OUT_CSV:
		print_csv(d, selected(d, func), NULL, func, !i);
		break;
	case OUT_OPENMETRICS:
		if (opt.le_bits > d->bits)
			die(1, "--le-bits %d: finer than the frac_bits %d of %s", opt.le_bits,
			    d->bits, func);
		om_label(metric, sizeof(metric), opt.name ? opt.name : group);
		om_label(fn, sizeof(fn), func);
		if (!opt.per_cpu) {
			snprintf(labels, sizeof(labels), "metric=\"%s\",function=\"%s\",",
				 metric, fn);
			om_series(om_family(), labels, d, &d->all);
			break;
		}
		for (c = 0; c < d->ncpus; c++) {
			if (!d->cpu[c].nslots)
				continue;
			snprintf(labels, sizeof(labels),
				 "metric=\"%s\",function=\"%s\",cpu=\"%zu\",", metric, fn, c);
			om_series(om_family(), labels, d, &d->cpu[c]);
		}
		break;
	default:
		printf("%sfunction %s\n", i ? "\n" : "", func);
		output(d, func);
		break;
	}
}

void kstats_group_end(size_t n)
{
	if (opt.out == OUT_CSV && !n)
		print_csv(NULL, &(struct ks_hist){ 0 }, NULL, "", 1);
	else if (opt.out == OUT_JSON)
		printf("}}\n");
	else if (opt.out == OUT_OPENMETRICS)
		printf("# EOF\n");
}

int main(int argc, char **argv)
{
	static const char formats[] = "--hist, --json, --csv or --openmetrics";
	enum { O_PCTS = 256, O_COUNT, O_CPU, O_PER_CPU, O_HIST, O_JSON, O_CSV, O_OM,
	       O_NAME, O_DIFF, O_CMP, O_ROWS, O_LE_BITS, O_MERGE, O_LOG2, O_PID, O_CGROUP };
	static const struct option lopts[] = {
		{ "percentiles", required_argument, NULL, O_PCTS },
		{ "bits", required_argument, NULL, 'b' },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "per-cpu", no_argument, NULL, O_PER_CPU },
		{ "unit", required_argument, NULL, 'u' },
		{ "hist", no_argument, NULL, O_HIST },
		{ "json", no_argument, NULL, O_JSON },
		{ "csv", no_argument, NULL, O_CSV },
		{ "openmetrics", no_argument, NULL, O_OM },
		{ "name", required_argument, NULL, O_NAME },
		{ "le-bits", required_argument, NULL, O_LE_BITS },
		{ "output", required_argument, NULL, 'o' },
		{ "merge", no_argument, NULL, O_MERGE },
		{ "log2", no_argument, NULL, O_LOG2 },
		{ "pid", required_argument, NULL, O_PID },
		{ "cgroup", required_argument, NULL, O_CGROUP },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, O_COUNT },
		{ "rows", no_argument, NULL, O_ROWS },
		{ "diff", no_argument, NULL, O_DIFF },
		{ "compare", no_argument, NULL, O_CMP },
		{ "duration", required_argument, NULL, 'd' },
		{ "lines", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ }
	};
	int c, mode_diff = 0, mode_cmp = 0, mode_merge = 0, trace = 0, pcts = 0, ret;
	int le_bits = 0;
	unsigned int outs = 0;	/* the output formats given, by bit */
	const char *spec = NULL, *label;
	double secs = 0;
	char *end;

	parse_pcts("50,90,95,99,99.9");
	if (argc > 1 && !strcmp(argv[1], "top"))
		return top_main(argc - 1, argv + 1);	/* kstats_top.c */
	/*
	 * kstats trace FUNC [options] [--] [COMMAND...]: FUNC stands for
	 * argv[0], and the options end at the command.
	 */
	if (argc > 1 && !strcmp(argv[1], "trace")) {
		const char *func;

		if (argc < 3)
			usage_error("trace: no function: kstats trace FUNC [options]");
		trace = 1;
		spec = argv[2];
		if (*spec == '-')
			usage_error("trace: the function comes first: kstats trace FUNC [options]");
		func = strchr(spec, ':') ? strchr(spec, ':') + 1 : spec;
		if (!*func)
			usage_error("trace: '%s' is not a function", spec);
		argc -= 2;
		argv += 2;
	}
	/* getopt_long()'s messages start with argv[0]: ours with prog. */
	argv[0] = (char *)prog;
	while ((c = getopt_long(argc, argv, trace ? "+p:c:b:u:d:o:n:hV" : "p:b:u:i:c:o:hV",
				lopts, NULL)) != -1) {
		/* kstats trace: -p and -c as funclatency's, PID and cgroup. */
		if (trace && c == 'p')
			c = O_PID;
		else if (trace && c == 'c')
			c = O_CGROUP;
		if (trace && (c == 'i' || c == O_COUNT || c == O_DIFF || c == O_CMP ||
			      c == O_MERGE))
			usage_error("trace: %s do not apply",
				    "--interval, --count, --diff, --compare and --merge");
		if (!trace && (c == 'd' || c == O_PID || c == O_CGROUP))
			usage_error("--duration, --pid and --cgroup: only for kstats trace");
		switch (c) {
		case 'p':
		case O_PCTS:
			parse_pcts(optarg);
			pcts = 1;
			break;
		case 'b':
			opt.bits = strtol(optarg, &end, 10);
			if (*end || end == optarg || opt.bits < 0 || opt.bits > KS_MAX_BITS)
				usage_error("--bits: '%s' is not in 0..%d", optarg, KS_MAX_BITS);
			break;
		case O_CPU:
			opt.cpu = strtol(optarg, &end, 10);
			if (*end || end == optarg || opt.cpu < 0)
				usage_error("--cpu: '%s' is not a CPU number", optarg);
			break;
		case O_PER_CPU:
			opt.per_cpu = 1;
			break;
		case 'u':
			for (opt.human = 4; opt.human; opt.human--)
				if (!strcmp(optarg, unit_names[opt.human - 1]))
					break;
			if (!opt.human)
				usage_error("--unit: '%s' is not ns, us, ms or s", optarg);
			break;
		case 'V':
			printf("kstats %s\n", KSTATS_VERSION);
			return 0;
		case O_HIST:
			opt.out = OUT_HIST;
			outs |= 1u << opt.out;
			break;
		case O_JSON:
			opt.out = OUT_JSON;
			outs |= 1u << opt.out;
			break;
		case O_CSV:
			opt.out = OUT_CSV;
			outs |= 1u << opt.out;
			break;
		case O_OM:
			opt.out = OUT_OPENMETRICS;
			outs |= 1u << opt.out;
			break;
		case O_NAME:
			opt.name = optarg;
			break;
		case O_LE_BITS:
			opt.le_bits = strtol(optarg, &end, 10);
			if (*end || end == optarg || opt.le_bits < 0 || opt.le_bits > KS_MAX_BITS)
				usage_error("--le-bits: '%s' is not in 0..%d", optarg, KS_MAX_BITS);
			le_bits = 1;
			break;
		case 'o':
			opt.outfile = optarg;
			break;
		case O_MERGE:
			mode_merge = 1;
			break;
		case O_LOG2:
			opt.log2 = 1;
			break;
		case O_PID:
			opt.pid = strtol(optarg, &end, 10);
			if (*end || end == optarg || opt.pid <= 0 || opt.pid > INT32_MAX)
				usage_error("--pid: '%s' is not a process id", optarg);
			break;
		case O_CGROUP:
			if (optarg[0] != '/' || strpbrk(optarg, " \t\n#"))
				usage_error("--cgroup: '%s' is not a cgroup v2 path (/a/b)",
					    optarg);
			opt.cgroup = optarg;
			break;
		case 'i':
			opt.interval = strtod(optarg, &end);
			if (*end || end == optarg || !(opt.interval > 0))
				usage_error("--interval: '%s' is not a positive number of seconds",
					    optarg);
			break;
		case 'c':
		case O_COUNT:
			opt.count = strtol(optarg, &end, 10);
			if (*end || end == optarg || opt.count <= 0)
				usage_error("--count: '%s' is not a positive number", optarg);
			break;
		case 'd':
			secs = strtod(optarg, &end);
			if (*end || end == optarg || !(secs > 0))
				usage_error("--duration: '%s' is not a positive number of seconds",
					    optarg);
			break;
		case O_ROWS:
			opt.rows = 1;
			break;
		case 'n':
			if (!trace)
				usage_error("--lines: only for kstats trace 'GLOB' and kstats top");
			top_opt_lines(optarg);
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
			/* getopt_long() said what is wrong. */
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return 1;
		}
	}
	argc -= optind;
	argv += optind;

	/*
	 * An option that would do nothing where it is given is refused: what
	 * was asked for would not be done, and nothing would say so.
	 */
	if (outs & (outs - 1))
		usage_error("--hist, --json, --csv and --openmetrics: one at a time");

	if (opt.log2 && opt.out != OUT_HIST)
		usage_error("--log2: only with --hist");
	if (le_bits && opt.out != OUT_OPENMETRICS)
		usage_error("--le-bits: only with --openmetrics");
	if (opt.name && opt.out != OUT_OPENMETRICS && !trace)
		usage_error("--name: only with --openmetrics, or kstats trace 'GLOB'");
	if (opt.count && !(opt.interval > 0))
		usage_error("--count: only with --interval");
	if (opt.rows && !(opt.interval > 0))
		usage_error("--rows: only with --interval");
	if (opt.rows && opt.out != OUT_SUMMARY)
		usage_error("--rows: its own lines, not with %s", formats);
	if (mode_cmp && opt.out != OUT_SUMMARY)
		usage_error("--compare: its own text, not with %s", formats);
	if (opt.per_cpu && opt.cpu >= 0)
		usage_error("--cpu and --per-cpu: one or the other");
	if (opt.per_cpu && (mode_cmp || opt.rows || opt.out == OUT_HIST || opt.out == OUT_CSV))
		usage_error("--per-cpu: not with %s (--cpu N: one CPU's)",
			    mode_cmp ? "--compare" : opt.rows ? "--rows" :
			    opt.out == OUT_HIST ? "--hist" : "--csv");
	if (opt.per_cpu && opt.out == OUT_JSON)
		usage_error("--per-cpu: not with --json, which has every CPU under \"cpus\"");
	if (opt.cpu >= 0 && opt.out == OUT_OPENMETRICS)
		usage_error("--cpu: not with --openmetrics (--per-cpu: a series per CPU)");
	if (pcts && (opt.out == OUT_CSV || opt.out == OUT_OPENMETRICS))
		usage_error("--percentiles: not with %s, whose rows are the slots",
			    opt.out == OUT_CSV ? "--csv" : "--openmetrics");
	if (opt.human && opt.out == OUT_CSV)
		usage_error("--unit: not with --csv, whose numbers are as recorded");
	if (mode_diff + mode_cmp + mode_merge > 1)
		usage_error("--diff, --compare and --merge: one at a time");
	if (opt.outfile && (opt.interval > 0 || mode_cmp))
		usage_error("-o: not with --interval or --compare");
	if (trace && argc && secs > 0)
		usage_error("trace: either --duration or a command, not both");
	if (!trace && (mode_diff || mode_cmp) && argc != 2)
		usage_error("%s: two inputs, %s, not %d", mode_diff ? "--diff" : "--compare",
			    mode_diff ? "OLD and NEW" : "A and B", argc);
	if (!trace && !argc)
		usage_error("no input: a file, a metric name or - (standard input)");
	if (!trace && !(mode_diff || mode_cmp || mode_merge) && argc > 1)
		usage_error("%d inputs where one was expected (more: --merge, --diff, --compare)",
			    argc);
	if (opt.interval > 0 && (mode_diff || mode_cmp || mode_merge))
		usage_error("--interval: not with --diff, --compare or --merge");
	if (opt.interval > 0 && argc && !strcmp(argv[0], "-"))
		usage_error("--interval: not on standard input, which cannot be read again");
	/* The input whose name labels the output: NEW of --diff. */
	label = trace ? spec : mode_merge ? merged_name(argc, argv) :
		mode_diff ? argv[1] : argv[0];
	if (opt.out == OUT_OPENMETRICS && !opt.name && !strcmp(label, "-"))
		usage_error("--openmetrics: standard input has no name for the metric label: %s",
			    "give it with --name NAME");
	/* A line of vmstat's width: the usual three percentiles. */
	if (opt.rows && !pcts)
		parse_pcts("50,90,99");
	if (opt.outfile)
		out_begin(opt.outfile);
	ret = 0;
	if (trace) {
		ret = trace_main(spec, argc, argv, secs);
	} else if (mode_diff || mode_cmp) {
		struct ks_data a, b;
		char *pa = resolve(argv[0]), *pb = resolve(argv[1]);

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
	} else if (mode_merge) {
		struct ks_data d;

		merge_inputs(&d, argc, argv);
		output(&d, merged_name(argc, argv));
		ks_data_free(&d);
	} else if (opt.interval > 0) {
		follow(argv[0]);
	} else {
		struct ks_data d;
		char *path = resolve(argv[0]);

		if (group_dir(path)) {
			group_main(path, argv[0]);	/* kstats_top.c */
		} else {
			load(&d, path);
			output(&d, argv[0]);
			ks_data_free(&d);
		}
		free(path);
	}
	if (opt.outfile)
		out_commit(opt.outfile);
	return ret;
}
