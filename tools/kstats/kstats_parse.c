// SPDX-License-Identifier: GPL-2.0
/*
 * kstats: reading the text of /sys/kernel/debug/kstats/NAME, one line per
 * slot and CPU:
 *
 *   slot 55  CPU  1    count       18 avg      480 p 0.002572
 *   slot 55  CPUS 4    count      814 avg      480 p 0.002474
 *
 * Memory is proportional to the number of slots and CPUs, not of lines.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kstats_parse.h"

/* p, the cumulative fraction, is printed in millionths. */
#define KS_PPM 1000000u

/* For the errors that one input made of several gives. */
#define MERGE_HINT " (several inputs? --merge sums them)"

unsigned int ks_nr_slots(int bits)
{
	return (65 - bits) << bits;
}

uint64_t ks_slot(uint64_t val, int bits)
{
	uint64_t v = val >> bits;
	unsigned int bucket = v ? 64 - __builtin_clzll(v) : 0;

	if (!bucket)
		return val;
	return ((uint64_t)bucket << bits) | ((val >> (bucket - 1)) & ((1u << bits) - 1));
}

uint64_t ks_slot_min(unsigned int slot, int bits)
{
	unsigned int bucket = slot >> bits;
	uint64_t mant = (1u << bits) | (slot & ((1u << bits) - 1));

	return bucket ? mant << (bucket - 1) : slot;
}

uint64_t ks_slot_max(unsigned int slot, int bits)
{
	unsigned int bucket = slot >> bits;

	return ks_slot_min(slot, bits) + (bucket > 1 ? (1ull << (bucket - 1)) - 1 : 0);
}

void ks_data_init(struct ks_data *d)
{
	memset(d, 0, sizeof(*d));
	d->bits = -1;
	d->bits_ok = (1u << (KS_MAX_BITS + 1)) - 1;
}

static void ks_hist_free(struct ks_hist *h)
{
	free(h->count);
	free(h->sum);
	memset(h, 0, sizeof(*h));
}

void ks_data_free(struct ks_data *d)
{
	size_t i;

	for (i = 0; i < d->ncpus; i++)
		ks_hist_free(&d->cpu[i]);
	free(d->cpu);
	ks_hist_free(&d->all);
}

static int ks_error(struct ks_data *d, unsigned long lineno, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(d->err, sizeof(d->err), "line %lu: ", lineno);

	va_start(ap, fmt);
	vsnprintf(d->err + n, sizeof(d->err) - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int ks_hist_grow(struct ks_hist *h, size_t nslots)
{
	uint64_t *c;
	double *s;

	if (nslots <= h->nslots)
		return 0;
	c = realloc(h->count, nslots * sizeof(*c));
	if (!c)
		return -1;
	h->count = c;
	s = realloc(h->sum, nslots * sizeof(*s));
	if (!s)
		return -1;
	h->sum = s;
	memset(c + h->nslots, 0, (nslots - h->nslots) * sizeof(*c));
	memset(s + h->nslots, 0, (nslots - h->nslots) * sizeof(*s));
	h->nslots = nslots;
	return 0;
}

/*
 * A decimal u64 and nothing else: 0, -1 if not a number, or -ERANGE if
 * a number above UINT64_MAX.
 */
int ks_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (*end)
		return -1;
	return errno == ERANGE ? -ERANGE : errno ? -1 : 0;
}

/* "d.dddddd", 0 to 1: 0 and @ppm, the millionths (1000000 for 1). */
static int ks_fraction(const char *s, uint32_t *ppm)
{
	int i;

	if ((s[0] != '0' && s[0] != '1') || s[1] != '.')
		return -1;
	*ppm = 0;
	for (i = 2; i < 8; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*ppm = *ppm * 10 + (s[i] - '0');
	}
	if (s[8] || (s[0] == '1' && *ppm))
		return -1;
	*ppm += s[0] == '1' ? KS_PPM : 0;
	return 0;
}

#define KS_FIELDS 10

int ks_parse_line(struct ks_data *d, const char *line, size_t len,
		  unsigned long lineno)
{
	static const char usage[] =
		"expected 'slot S CPU C count N avg A p P' or 'slot S CPUS N count N avg A p P'";
	char buf[256], *tok[KS_FIELDS + 1], *save = NULL, *t;
	uint64_t slot, cpu, count, avg, *samples;
	struct ks_hist *h;
	uint32_t ppm;
	int n = 0, all, b, err;

	if (memchr(line, '\0', len))
		return ks_error(d, lineno, "NUL character; %s", usage);
	if (len >= sizeof(buf))
		return ks_error(d, lineno, "line too long; %s", usage);
	memcpy(buf, line, len);
	buf[len] = '\0';
	for (t = strtok_r(buf, " \t\r", &save); t && n <= KS_FIELDS;
	     t = strtok_r(NULL, " \t\r", &save))
		tok[n++] = t;
	if (n == 0 || tok[0][0] == '#')
		return 0;	/* blank line, or a comment */
	if (n != KS_FIELDS || strcmp(tok[0], "slot") || strcmp(tok[4], "count") ||
	    strcmp(tok[6], "avg") || strcmp(tok[8], "p"))
		return ks_error(d, lineno, "%s", usage);
	all = !strcmp(tok[2], "CPUS");
	if (!all && strcmp(tok[2], "CPU"))
		return ks_error(d, lineno, "'%s' where CPU or CPUS was expected", tok[2]);
	if (ks_u64(tok[1], &slot) || slot >= KS_MAX_SLOTS)
		return ks_error(d, lineno, "slot '%s' is not a number below %d", tok[1],
				KS_MAX_SLOTS);
	if (ks_u64(tok[3], &cpu) || (!all && cpu >= KS_MAX_CPUS))
		return ks_error(d, lineno, "CPU '%s' is not a number below %d", tok[3],
				KS_MAX_CPUS);
	err = ks_u64(tok[5], &count);
	if (err == -ERANGE)
		return ks_error(d, lineno, "count '%s' is out of range (above %llu)", tok[5],
				(unsigned long long)UINT64_MAX);
	if (err || !count)
		return ks_error(d, lineno, "count '%s' is not a positive number", tok[5]);
	err = ks_u64(tok[7], &avg);
	if (err == -ERANGE)
		return ks_error(d, lineno, "avg '%s' is out of range (above %llu)", tok[7],
				(unsigned long long)UINT64_MAX);
	if (err)
		return ks_error(d, lineno, "avg '%s' is not a number", tok[7]);
	if (ks_fraction(tok[9], &ppm))
		return ks_error(d, lineno, "p '%s' is not a fraction 0.dddddd or 1.000000",
				tok[9]);

	/* Keep the frac_bits for which this slot can hold this mean. */
	for (b = 0; b <= KS_MAX_BITS; b++)
		if ((d->bits_ok & (1u << b)) &&
		    (slot >= ks_nr_slots(b) || avg < ks_slot_min(slot, b) ||
		     avg > ks_slot_max(slot, b)))
			d->bits_ok &= ~(1u << b);
	if (!d->bits_ok)
		return ks_error(d, lineno,
				"inconsistent input: no frac_bits in 0..%d has a slot %llu holding a mean of %llu",
				KS_MAX_BITS, (unsigned long long)slot,
				(unsigned long long)avg);

	if (all) {
		if (d->possible && d->possible != cpu)
			return ks_error(d, lineno,
					"CPUS %llu, but %lu on an earlier line" MERGE_HINT,
					(unsigned long long)cpu, d->possible);
		d->possible = cpu;
		d->have_all = 1;
		h = &d->all;
	} else {
		if (cpu >= d->ncpus) {
			struct ks_hist *c = realloc(d->cpu, (cpu + 1) * sizeof(*c));

			if (!c)
				return ks_error(d, lineno, "out of memory");
			memset(c + d->ncpus, 0, (cpu + 1 - d->ncpus) * sizeof(*c));
			d->cpu = c;
			d->ncpus = cpu + 1;
		}
		h = &d->cpu[cpu];
	}
	/* Slots come in ascending order: grow geometrically, not per line. */
	if (slot >= h->nslots) {
		size_t n = h->nslots * 2 > 64 ? h->nslots * 2 : 64;

		n = n > slot + 1 ? n : slot + 1;
		if (ks_hist_grow(h, n < KS_MAX_SLOTS ? n : KS_MAX_SLOTS))
			return ks_error(d, lineno, "out of memory");
	}
	if (h->count[slot])
		return ks_error(d, lineno, "slot %llu of %s%llu given twice" MERGE_HINT,
				(unsigned long long)slot, all ? "CPUS " : "CPU ",
				(unsigned long long)cpu);
	/*
	 * The samples of all the CPUS lines, and of all the CPU lines, fit in
	 * 64 bits: so do those of any CPU, of any slot, and of the CPUs of a
	 * slot summed. The sums of the values are doubles, which hold the
	 * kernel's: up to 2^64 - 1 samples of up to 2^64 - 1.
	 */
	samples = all ? &d->samples_all : &d->samples_cpu;
	if (__builtin_add_overflow(*samples, count, samples))
		return ks_error(d, lineno,
				"the counts of the %s lines add up to more than %llu: out of range",
				all ? "CPUS" : "CPU", (unsigned long long)UINT64_MAX);
	h->count[slot] = count;
	h->sum[slot] = (double)count * avg;
	if (ppm >= h->max_ppm) {
		h->max_ppm = ppm;
		h->max_line = lineno;
	}
	d->lines++;
	return 0;
}

int ks_read(struct ks_data *d, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned long lineno = 0;
	ssize_t n;
	int ret = 0;

	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (n && line[n - 1] == '\n')
			n--;
		if (ks_parse_line(d, line, n, lineno)) {
			ret = -1;
			break;
		}
	}
	if (!ret && ferror(f)) {
		snprintf(d->err, sizeof(d->err), "%s", strerror(errno));
		ret = -1;
	}
	free(line);
	return ret;
}

/* CPU lines and CPUS lines must agree; without CPUS lines, sum the CPUs. */
static int ks_check_all(struct ks_data *d)
{
	struct ks_hist sum = { 0 };
	size_t c, s;
	int ret = 0;

	for (c = 0; c < d->ncpus; c++) {
		if (ks_hist_grow(&sum, d->cpu[c].nslots))
			goto nomem;
		for (s = 0; s < d->cpu[c].nslots; s++) {
			sum.count[s] += d->cpu[c].count[s];
			sum.sum[s] += d->cpu[c].sum[s];
		}
	}
	if (!d->have_all) {
		d->all = sum;
		return 0;
	}
	if (d->ncpus) {
		size_t n = sum.nslots > d->all.nslots ? sum.nslots : d->all.nslots;

		for (s = 0; s < n; s++) {
			uint64_t a = s < d->all.nslots ? d->all.count[s] : 0;
			uint64_t b = s < sum.nslots ? sum.count[s] : 0;

			if (a != b) {
				snprintf(d->err, sizeof(d->err),
					 "inconsistent input: slot %zu has %llu samples on its CPUS line and %llu on its CPU lines",
					 s, (unsigned long long)a, (unsigned long long)b);
				ret = -1;
				break;
			}
		}
	}
	free(sum.count);
	free(sum.sum);
	return ret;
nomem:
	free(sum.count);
	free(sum.sum);
	snprintf(d->err, sizeof(d->err), "out of memory");
	return -1;
}

/*
 * The kernel prints p, the cumulative fraction of a CPU's samples (or of
 * all CPUs' on the CPUS lines), rounded down to millionths:
 * floor(cum * 10^6 / total), in lib/kstats.c's kstats_snapshot_take(). It
 * is 1.000000 when cum reaches total, on the last line (the highest slot)
 * of each CPU and of the CPUS lines, and below it on every other line.
 * Lines of a CPU or of CPUS whose p stays below 1 are the start of a
 * metric whose end is missing: a truncated input. Each input is checked
 * as read, a file or standard input, a snapshot of --interval or --diff,
 * an input of --merge: each is a metric's whole text (kstats trace reads
 * the metric once it is complete too). Input filtered by CPU (grep 'CPU ',
 * or one CPU's lines) keeps each CPU's last line; input filtered by slot
 * does not, and is truncated indeed.
 */
static int ks_truncated(struct ks_data *d, const struct ks_hist *h, const char *who)
{
	snprintf(d->err, sizeof(d->err),
		 "truncated input: the %s reach p %u.%06u at most (line %lu), not 1.000000",
		 who, h->max_ppm / KS_PPM, h->max_ppm % KS_PPM, h->max_line);
	return -1;
}

static int ks_check_complete(struct ks_data *d)
{
	char who[32];
	size_t c;

	if (d->have_all && d->all.max_ppm != KS_PPM)
		return ks_truncated(d, &d->all, "CPUS lines");
	for (c = 0; c < d->ncpus; c++) {
		if (d->cpu[c].nslots && d->cpu[c].max_ppm != KS_PPM) {
			snprintf(who, sizeof(who), "lines of CPU %zu", c);
			return ks_truncated(d, &d->cpu[c], who);
		}
	}
	return 0;
}

int ks_finish(struct ks_data *d, int forced_bits)
{
	int b;

	if (ks_check_complete(d))
		return -1;
	if (forced_bits >= 0) {
		if (!(d->bits_ok & (1u << forced_bits))) {
			snprintf(d->err, sizeof(d->err),
				 "inconsistent input: the slots and means do not fit frac_bits %d",
				 forced_bits);
			return -1;
		}
		d->bits = forced_bits;
	} else if (d->bits_ok & (1u << 3)) {
		d->bits = 3;	/* the default, when the data allow it */
	} else {
		for (b = 0; !(d->bits_ok & (1u << b)); b++)
			;
		d->bits = b;
	}
	return ks_check_all(d);
}
