// SPDX-License-Identifier: GPL-2.0
/*
 * kstats top and a group's table: their rows, a function or a metric
 * each, read from a group's _summary, each function's file or a metric's
 * CPUS lines; the samples between two reads; sorted.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "kstats_top.h"

void *top_alloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p && n)
		kstats_die(1, "out of memory");
	return p;
}

static char *top_vprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		kstats_die(1, "out of memory");
	return s;
}

char *top_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = top_vprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* @h with room for slot @slot, the new slots empty. */
static void hist_room(struct ks_hist *h, size_t slot)
{
	size_t n = h->nslots * 2 > 64 ? h->nslots * 2 : 64;

	if (slot < h->nslots)
		return;
	n = n > slot + 1 ? n : slot + 1;
	n = n < KS_MAX_SLOTS ? n : KS_MAX_SLOTS;
	h->count = top_alloc(h->count, n * sizeof(*h->count));
	h->sum = top_alloc(h->sum, n * sizeof(*h->sum));
	memset(h->count + h->nslots, 0, (n - h->nslots) * sizeof(*h->count));
	memset(h->sum + h->nslots, 0, (n - h->nslots) * sizeof(*h->sum));
	h->nslots = n;
}

static size_t hash_str(const char *s)
{
	uint64_t h = 14695981039346656037ull;	/* FNV-1a */

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ull;
	}
	return h;
}

static void hash_insert(struct top *t, size_t i)
{
	size_t mask = t->hsize - 1, h = hash_str(t->rows[i].name) & mask;

	while (t->hash[h])
		h = (h + 1) & mask;
	t->hash[h] = i + 1;
}

/* The row @prefix@name, made (empty) if new and @make, else NULL. */
static struct row *row_find(struct top *t, const char *prefix, const char *name, bool make)
{
	static char *key;
	static size_t keycap;
	size_t lp = strlen(prefix), ln = strlen(name), h, i;
	struct row *r;

	if (lp + ln + 1 > keycap) {
		keycap = (lp + ln + 1) * 2;
		key = top_alloc(key, keycap);
	}
	memcpy(key, prefix, lp);
	memcpy(key + lp, name, ln + 1);
	if (t->hsize) {
		for (h = hash_str(key) & (t->hsize - 1); t->hash[h];
		     h = (h + 1) & (t->hsize - 1)) {
			r = &t->rows[t->hash[h] - 1];
			if (!strcmp(r->name, key))
				return r;
		}
	}
	if (!make)
		return NULL;
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->rows = top_alloc(t->rows, t->cap * sizeof(*t->rows));
	}
	if ((t->nrows + 1) * 2 > t->hsize) {
		t->hsize = t->hsize ? t->hsize * 2 : 128;
		free(t->hash);
		t->hash = calloc(t->hsize, sizeof(*t->hash));
		if (!t->hash)
			kstats_die(1, "out of memory");
		for (i = 0; i < t->nrows; i++)
			hash_insert(t, i);
	}
	r = &t->rows[t->nrows];
	memset(r, 0, sizeof(*r));
	r->name = strdup(key);
	r->shown = top_alloc(NULL, 4 * strlen(key) + 1);
	if (!r->name)
		kstats_die(1, "out of memory");
	shown(r->shown, 4 * strlen(key) + 1, key);
	r->bits[0] = -1;
	r->bits[1] = -1;
	r->bits[2] = -1;
	r->prv = 1;
	hash_insert(t, t->nrows++);
	return r;
}

/* The row @prefix@name, made (empty) if new. */
static struct row *row_get(struct top *t, const char *prefix, const char *name)
{
	return row_find(t, prefix, name, true);
}

/* The histogram that the read under way fills. */
static struct ks_hist *row_next(struct row *r)
{
	return &r->hist[ROW_NEXT(r)];
}

#define SUMMARY_FIELDS 10

/*
 * @path, a file of the kstats directory that is not a metric (@why): skipped,
 * and said on standard error once (once the screen is left, on a terminal).
 */
static void top_skip(struct top *t, const char *path, const char *why)
{
	size_t i, n = strlen(path);

	/* Each entry is "PATH: not a kstats metric...". */
	for (i = 0; i < t->nskipped; i++)
		if (!strncmp(t->skipped[i], path, n) &&
		    !strncmp(t->skipped[i] + n, ": not a kstats metric", 21))
			return;
	t->skipped = top_alloc(t->skipped, (t->nskipped + 1) * sizeof(*t->skipped));
	t->skipped[t->nskipped++] = top_printf("%s: not a kstats metric, skipped (%s)", path, why);
}

void top_say_skipped(struct top *t)
{
	if (t->hold)
		return;
	for (; t->said < t->nskipped; t->said++)
		kstats_warn("%s%s", t->who ? t->who : "top: ", t->skipped[t->said]);
}

/*
 * Malformed text at @path: an error (exit 2) when @t is strict, else why
 * this read is skipped, kept in @t->bad. Returns -1.
 */
static int top_bad(struct top *t, const char *path, const char *fmt, ...)
{
	char *why;
	va_list ap;

	va_start(ap, fmt);
	why = top_vprintf(fmt, ap);
	va_end(ap);
	if (t->strict)
		kstats_die(2, "%s: %s", path, why);
	free(t->bad);
	t->bad = top_printf("%s: %s", path, why);
	free(why);
	return -1;
}

/*
 * Samples of @r in the read before above the last slot it has now, where
 * none of its slots up to that one has fewer: the lines of a _summary cut
 * short inside @r's (rewritten in place while read), or a reset whose
 * samples since all fell lower (told apart by the next read). 0 otherwise.
 */
static uint64_t cut_above(const struct row *r)
{
	const struct ks_hist *now = &r->hist[ROW_NEXT(r)], *was = &r->hist[r->cur];
	uint64_t above = 0;
	size_t s, last = 0;

	if (r->bits[r->cur] != r->bits[ROW_NEXT(r)])
		return 0;
	for (s = 0; s < now->nslots; s++)
		if (now->count[s])
			last = s;
	for (s = 0; s < was->nslots; s++) {
		uint64_t c = s < now->nslots ? now->count[s] : 0;

		if (s <= last && c < was->count[s])
			return 0;
		if (s > last)
			above += was->count[s];
	}
	return above;
}

/*
 * The lines of a group's _summary at @path, into the rows @prefix FUNC:
 * 0, or the errno of its open or read (a group removed meanwhile).
 * Malformed text is an error, as any input of the tool's.
 */
static int read_summary(struct top *t, const char *path, const char *prefix)
{
	static const char * const what[] = { "bits", "slot", "count", "avg" };
	char *line = NULL, *tok[SUMMARY_FIELDS + 1], *save, *p;
	size_t cap = 0, lp = strlen(prefix);
	unsigned long lineno = 0;
	struct row *r = NULL;
	int n, i, err = 0, bits = -1;
	struct ks_hist *h;
	uint64_t v[4], above;
	struct statfs sf;
	ssize_t len;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return errno;
	t->whole = !fstatfs(fileno(f), &sf) &&
		   (sf.f_type == DEBUGFS_MAGIC || sf.f_type == TRACEFS_MAGIC);
	while (!err && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (memchr(line, '\0', len)) {
			err = top_bad(t, path, "line %lu: a NUL character", lineno);
			break;
		}
		n = 0;
		for (p = strtok_r(line, " \t\r\n", &save); p && n <= SUMMARY_FIELDS;
		     p = strtok_r(NULL, " \t\r\n", &save))
			tok[n++] = p;
		if (!n || tok[0][0] == '#')
			continue;
		if (n != SUMMARY_FIELDS || strcmp(tok[0], "function") || strcmp(tok[2], "bits") ||
		    strcmp(tok[4], "slot") || strcmp(tok[6], "count") || strcmp(tok[8], "avg")) {
			err = top_bad(t, path, "line %lu: expected '%s'", lineno,
				      "function FUNC bits B slot S count C avg A");
			break;
		}
		for (i = 0; i < 4 && !err; i++) {
			int e = ks_u64(tok[3 + 2 * i], &v[i]);

			if (e == -ERANGE)
				err = top_bad(t, path,
					      "line %lu: %s '%s' is out of range (above %llu)",
					      lineno, what[i], tok[3 + 2 * i],
					      (unsigned long long)UINT64_MAX);
			else if (e)
				err = top_bad(t, path, "line %lu: %s '%s' is not a number",
					      lineno, what[i], tok[3 + 2 * i]);
		}
		if (err)
			break;
		if (v[0] > KS_MAX_BITS) {
			err = top_bad(t, path, "line %lu: bits %llu is not in 0..%d", lineno,
				      (unsigned long long)v[0], KS_MAX_BITS);
			break;
		}
		if (bits >= 0 && v[0] != (uint64_t)bits) {
			err = top_bad(t, path, "line %lu: bits %llu, but %d on an earlier line",
				      lineno, (unsigned long long)v[0], bits);
			break;
		}
		bits = v[0];
		if (v[1] >= ks_nr_slots(bits)) {
			err = top_bad(t, path, "line %lu: slot %llu is not below %u (bits %d)",
				      lineno, (unsigned long long)v[1], ks_nr_slots(bits), bits);
			break;
		}
		if (!v[2]) {
			err = top_bad(t, path, "line %lu: count 0", lineno);
			break;
		}
		if (v[3] < ks_slot_min(v[1], bits) || v[3] > ks_slot_max(v[1], bits)) {
			err = top_bad(t, path,
				      "line %lu: inconsistent input: %s %llu (bits %d) %s %llu",
				      lineno, "slot", (unsigned long long)v[1], bits,
				      "cannot hold a mean of", (unsigned long long)v[3]);
			break;
		}
		if (!r || strcmp(r->name + lp, tok[1]))
			r = row_get(t, prefix, tok[1]);
		h = row_next(r);
		if (v[1] < h->nslots && h->count[v[1]]) {
			err = top_bad(t, path, "line %lu: slot %llu of %s given twice", lineno,
				      (unsigned long long)v[1], tok[1]);
			break;
		}
		if (__builtin_add_overflow(r->samples[ROW_NEXT(r)], v[2],
					   &r->samples[ROW_NEXT(r)])) {
			err = top_bad(t, path,
				      "line %lu: the counts of %s add up to more than %llu: %s",
				      lineno, tok[1], (unsigned long long)UINT64_MAX,
				      "out of range");
			break;
		}
		hist_room(h, v[1]);
		h->count[v[1]] = v[2];
		h->sum[v[1]] = (double)v[2] * v[3];
		r->bits[ROW_NEXT(r)] = bits;
		r->seen = t->gen;
	}
	if (!err && ferror(f))
		err = errno ?: EIO;
	/*
	 * A copy (not the kernel's file) cut short inside the last
	 * function's lines, at a line's end: a live read skips it once
	 * (said), as one cut between functions (read_group()); the next is
	 * taken, whatever it holds.
	 */
	above = !err && r && !t->whole && !t->strict && !t->cut_skipped && r->listed ?
		cut_above(r) : 0;
	if (above) {
		err = top_bad(t, path, "%s: %s %llu sample%s %s: %s", r->name + lp,
			      "its lines end below the", (unsigned long long)above,
			      above > 1 ? "s" : "", "of higher slots in the read before",
			      "cut short (rewritten while read?)");
		t->cut_skipped = 1;
	}
	free(line);
	fclose(f);
	if (bits >= 0 && !err)
		t->bits = bits;
	return err;
}

/*
 * A metric's file at @path into the row @prefix@name: its CPUS lines, the
 * sums of the CPUs, are all top needs. The CPU lines are parsed only until
 * the first CPUS line (the kernel prints the CPU lines of a slot, then its
 * CPUS line): an input without CPUS lines (grep 'CPU ') is read from them.
 * 0, or the errno of its open or read. A file that is not a metric is an
 * error, or with @lenient (a file of the directory that top lists), skipped.
 */
static int read_metric(struct top *t, const char *path, const char *prefix, const char *name,
		       int lenient)
{
	unsigned long lineno = 0;
	struct ks_data all, cpu, *d = &cpu;
	char *line = NULL;
	struct ks_hist *h;
	struct row *r;
	size_t cap = 0;
	int err = 0;
	ssize_t len;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return errno;
	ks_data_init(&all);
	ks_data_init(&cpu);
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (len && line[len - 1] == '\n')
			len--;
		if (memmem(line, len, " CPUS ", 6))
			d = &all;
		else if (!all.have_all)
			d = &cpu;
		else
			continue;
		if (ks_parse_line(d, line, len, lineno)) {
			err = -1;
			break;
		}
	}
	if (!err && ferror(f))
		err = errno ?: EIO;
	free(line);
	fclose(f);
	if (!err) {
		d = all.have_all ? &all : &cpu;
		if (ks_finish(d, t->bits_opt))
			err = -1;
	}
	/*
	 * A file of the directory read as a metric before and malformed
	 * now (rewritten as it was read) skips this read, as a malformed
	 * file named does: skipped as not a metric, its row would be gone
	 * and its next read counted from the start.
	 */
	if (err < 0 && (!lenient || row_find(t, prefix, name, false)))
		top_bad(t, path, "%s", d->err);
	else if (err < 0)
		top_skip(t, path, d->err);
	if (!err) {
		r = row_get(t, prefix, name);
		h = row_next(r);
		if (d->all.nslots) {
			hist_room(h, d->all.nslots - 1);
			memcpy(h->count, d->all.count, d->all.nslots * sizeof(*h->count));
			memcpy(h->sum, d->all.sum, d->all.nslots * sizeof(*h->sum));
		}
		r->bits[ROW_NEXT(r)] = d->bits;
		r->seen = t->gen;
	}
	ks_data_free(&all);
	ks_data_free(&cpu);
	return err > 0 ? err : 0;
}

/*
 * The functions of the group at @path, as the rows @prefix FUNC: those
 * listed, and the samples of _summary (or of each function's file, with
 * --files or without a _summary). 0, or the errno that kept it from being
 * read.
 */
static int read_group(struct top *t, const char *path, const char *prefix)
{
	int summary = 0, err = 0;
	struct dirent *e;
	char *p;
	DIR *dir;

	dir = opendir(path);
	if (!dir)
		return errno;
	if (!t->files) {
		p = top_printf("%s/" SUMMARY, path);
		err = read_summary(t, p, prefix);
		free(p);
		summary = !err;
		if (err == ENOENT)
			err = 0;	/* a copy without it: the files */
	}
	while (!err && (e = readdir(dir))) {
		if (not_metric(e->d_name) || e->d_type == DT_DIR)
			continue;
		if (summary) {
			struct row *r = row_get(t, prefix, e->d_name);

			r->seen = t->gen;
			/*
			 * A function of samples in the read before, with no line
			 * now: a copy of _summary cut short at a line's end
			 * (rewritten in place while read), or reset. A live read
			 * skips it once (said); the next is taken.
			 */
			if (!t->whole && !t->strict && r->listed && r->samples[r->cur] &&
			    r->bits[ROW_NEXT(r)] < 0 && !t->cut_skipped) {
				p = top_printf("%s/" SUMMARY, path);
				err = top_bad(t, p, "%s: %s %llu %s", e->d_name,
					      "no line, where the read before had",
					      (unsigned long long)r->samples[r->cur],
					      "samples: cut short (rewritten while read?)");
				free(p);
				t->cut_skipped = 1;
			}
			continue;
		}
		p = top_printf("%s/%s", path, e->d_name);
		/* A function gone meanwhile (its module unloaded) is not listed. */
		read_metric(t, p, prefix, e->d_name, 0);
		free(p);
	}
	closedir(dir);
	return err;
}

/* Every metric of the kstats directory, and every function of its groups. */
static int read_all(struct top *t)
{
	struct dirent *e;
	struct stat st;
	char *p, *prefix;
	DIR *dir;

	dir = opendir(t->dir);
	if (!dir)
		return errno;
	while ((e = readdir(dir))) {
		if (not_metric(e->d_name))
			continue;
		p = top_printf("%s/%s", t->dir, e->d_name);
		if (e->d_type == DT_DIR ||
		    (e->d_type == DT_UNKNOWN && !stat(p, &st) && S_ISDIR(st.st_mode))) {
			prefix = top_printf("%s/", e->d_name);
			read_group(t, p, prefix);
			free(prefix);
		} else {
			read_metric(t, p, "", e->d_name, 1);
		}
		free(p);
	}
	closedir(dir);
	return 0;
}

/*
 * The samples between @a and @b, two reads of a row (frac_bits @bits),
 * into @d (*@dcap slots allocated), with their count, sum and last slot:
 * the difference of each slot, and of its sum (the means are printed
 * rounded down: the mean of a difference is kept within its slot, as
 * kstats --diff keeps it). Fewer samples than the read before (a reset,
 * or a group removed and made again) count from nothing. The percentiles
 * are those of every output (kstats_percentile()), of these differences.
 * Returns whether it was a reset.
 */
static bool row_delta(const struct ks_hist *a, const struct ks_hist *b, int bits,
		      struct ks_hist *d, size_t *dcap, uint64_t *count, double *total,
		      size_t *last)
{
	size_t s;
	int reset = 0;

	for (s = 0; s < a->nslots && !reset; s++)
		reset = a->count[s] > (s < b->nslots ? b->count[s] : 0);
	if (b->nslots > *dcap) {
		*dcap = b->nslots;
		d->count = top_alloc(d->count, *dcap * sizeof(*d->count));
		d->sum = top_alloc(d->sum, *dcap * sizeof(*d->sum));
	}
	d->nslots = b->nslots;
	*count = 0;
	*total = 0;
	*last = 0;
	for (s = 0; s < b->nslots; s++) {
		int old = !reset && s < a->nslots;
		uint64_t n = b->count[s] - (old ? a->count[s] : 0);
		double mean, lo, hi;

		d->count[s] = n;
		d->sum[s] = 0;
		if (!n)
			continue;
		mean = (b->sum[s] - (old ? a->sum[s] : 0)) / n;
		lo = ks_slot_min(s, bits);
		hi = ks_slot_max(s, bits);
		mean = mean < lo ? lo : mean > hi ? hi : mean;
		d->sum[s] = mean * n;
		*count += n;
		*total += d->sum[s];
		*last = s;
	}
	return reset;
}

static struct ks_hist delta;
static size_t delta_cap;

static void row_interval(struct row *r, const double *pct, int pct_n)
{
	int bits = r->bits[ROW_NEXT(r)], k;
	size_t last;

	r->reset = row_delta(&r->hist[r->cur], &r->hist[ROW_NEXT(r)], bits, &delta, &delta_cap,
			     &r->n, &r->total, &last);
	if (r->n) {
		for (k = 0; k < pct_n; k++)
			r->pct[k] = kstats_percentile(&delta, r->n, pct[k]);
		r->max = ks_slot_max(last, bits);
	}
}

const struct ks_hist *row_hist(const struct row *r, int *bits)
{
	uint64_t n;
	double total;
	size_t last;

	*bits = r->bits[r->cur];
	row_delta(&r->hist[r->prv], &r->hist[r->cur], *bits, &delta, &delta_cap, &n, &total,
		  &last);
	return &delta;
}

/*
 * The rows of @src's last read added to @t's (kstats --merge of groups):
 * each function's samples summed at frac_bits @bits, as coarse as every
 * row's or coarser (a union of finer slots: each count stays exact).
 * Each row's cells are those of the sum, as if one read had found it.
 */
void top_add(struct top *t, const struct top *src, int bits)
{
	const struct row *sr;
	struct ks_hist tmp;
	struct row *r;
	size_t i, last;
	int k;

	for (i = 0; i < t->nrows; i++) {
		r = &t->rows[i];
		if (r->seen != t->gen || r->bits[r->cur] < 0 || r->bits[r->cur] == bits)
			continue;
		tmp = (struct ks_hist){ 0 };
		hist_add_at(&tmp, &r->hist[r->cur], r->bits[r->cur], bits);
		free(r->hist[r->cur].count);
		free(r->hist[r->cur].sum);
		r->hist[r->cur] = tmp;
		r->bits[r->cur] = bits;
	}
	for (i = 0; i < src->nrows; i++) {
		sr = &src->rows[i];
		if (sr->seen != src->gen)
			continue;
		r = row_get(t, "", sr->name);
		if (sr->bits[sr->cur] >= 0) {
			hist_add_at(&r->hist[r->cur], &sr->hist[sr->cur], sr->bits[sr->cur], bits);
			r->bits[r->cur] = bits;
		}
		if (__builtin_add_overflow(r->samples[r->cur], sr->samples[sr->cur],
					   &r->samples[r->cur]))
			kstats_die(2, "--merge: the samples of %s add up past %llu: out of range",
				   r->shown, (unsigned long long)UINT64_MAX);
		r->seen = t->gen;
		r->listed = 1;
	}
	for (i = 0; i < t->nrows; i++) {
		r = &t->rows[i];
		r->n = 0;
		if (r->seen != t->gen || r->bits[r->cur] < 0)
			continue;
		row_delta(&r->hist[r->prv], &r->hist[r->cur], bits, &delta, &delta_cap, &r->n,
			  &r->total, &last);
		for (k = 0; r->n && k < t->npct; k++)
			r->pct[k] = kstats_percentile(&delta, r->n, t->pct[k]);
		if (r->n)
			r->max = ks_slot_max(last, bits);
	}
	t->bits = bits;
}

/*
 * One read of everything shown; each row's samples since the read before.
 * Returns -1 when malformed text made it skip this read (see top_bad()):
 * the rows keep the samples of the read before, for the next.
 */
int top_read(struct top *t)
{
	struct ks_hist *h;
	size_t i;

	free(t->bad);
	t->bad = NULL;
	t->gen++;
	for (i = 0; i < t->nrows; i++) {
		h = row_next(&t->rows[i]);
		if (h->nslots) {
			memset(h->count, 0, h->nslots * sizeof(*h->count));
			memset(h->sum, 0, h->nslots * sizeof(*h->sum));
		}
		t->rows[i].bits[ROW_NEXT(&t->rows[i])] = -1;
		t->rows[i].samples[ROW_NEXT(&t->rows[i])] = 0;
	}
	if (!t->path) {
		t->missing = read_all(t);
	} else if (t->group) {
		t->missing = read_group(t, t->path, "");
	} else {
		const char *base = strrchr(t->path, '/');

		t->missing = read_metric(t, t->path, "", base ? base + 1 : t->path, 0);
	}
	top_say_skipped(t);
	if (t->bad) {
		/*
		 * Skipped: the rows listed are those of the last read, their
		 * histograms untouched; those first seen in this one are not.
		 */
		t->missing = 0;
		t->gen--;
		for (i = 0; i < t->nrows; i++)
			if (t->rows[i].seen > t->gen)
				t->rows[i].seen = t->rows[i].listed ? t->gen : 0;
		return -1;
	}
	t->cut_skipped = 0;
	for (i = 0; i < t->nrows; i++) {
		struct row *r = &t->rows[i];
		int now = r->seen == t->gen, next = ROW_NEXT(r);

		row_interval(r, t->pct, t->npct);
		r->prv = r->cur;
		r->cur = next;
		r->mark = now && !r->listed && t->reads ? '+' : !now && r->listed ? '-' : ' ';
		r->listed = now;
	}
	t->reads++;
	return 0;
}

/*
 * A live read skipped: said the first time; on a terminal, once the
 * screen is left, with the files skipped.
 */
void top_say_bad(struct top *t)
{
	if (t->bad_said++)
		return;
	t->skipped = top_alloc(t->skipped, (t->nskipped + 1) * sizeof(*t->skipped));
	t->skipped[t->nskipped++] = top_printf("%s; skipped that read, reading again", t->bad);
	top_say_skipped(t);
}

struct top *top_new(const char *path, const char *dir, int group, int bits,
		    const double *pct, int npct)
{
	struct top *t = calloc(1, sizeof(*t));

	if (!t)
		kstats_die(1, "out of memory");
	t->path = path ? strdup(path) : NULL;
	t->dir = dir ? strdup(dir) : NULL;
	if ((path && !t->path) || (dir && !t->dir))
		kstats_die(1, "out of memory");
	t->group = group;
	t->bits = -1;
	t->bits_opt = bits;
	t->pct = pct;
	t->npct = npct;
	return t;
}

void top_free(struct top *t)
{
	size_t i;
	int k;

	for (i = 0; i < t->nrows; i++) {
		for (k = 0; k < 3; k++) {
			free(t->rows[i].hist[k].count);
			free(t->rows[i].hist[k].sum);
		}
		free(t->rows[i].name);
		free(t->rows[i].shown);
	}
	for (i = 0; i < t->nskipped; i++)
		free(t->skipped[i]);
	free(t->skipped);
	free(t->bad);
	free(t->rows);
	free(t->hash);
	free(t->path);
	free(t->dir);
	free(t);
}

/* The order of top_sorted(): a sort, and its percentile column. */
struct row_order {
	enum kstats_sort sort;
	int pct;
	int reverse;
};

/*
 * Rows with samples first, in the order of the key (reversed or not); then
 * by name.
 */
static int row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct row *a = *(const struct row * const *)pa;
	const struct row *b = *(const struct row * const *)pb;
	const struct row_order *ord = arg;
	double x = 0, y = 0;
	int r;

	if (ord->sort != SORT_NAME && !a->n != !b->n)
		return a->n ? -1 : 1;
	switch (ord->sort) {
	case SORT_TOTAL:
		x = a->total;
		y = b->total;
		break;
	case SORT_PCT:
		x = a->n ? a->pct[ord->pct] : 0;
		y = b->n ? b->pct[ord->pct] : 0;
		break;
	case SORT_COUNT:
	case SORT_RATE:
		x = a->n;
		y = b->n;
		break;
	case SORT_MAX:
		x = a->n ? a->max : 0;
		y = b->n ? b->max : 0;
		break;
	case SORT_AVG:
		x = a->n ? a->total / a->n : 0;
		y = b->n ? b->total / b->n : 0;
		break;
	default:
		break;
	}
	r = x != y ? (x > y ? -1 : 1) : strcmp(a->name, b->name);
	return ord->reverse ? -r : r;
}

struct row **top_sorted(struct top *t, enum kstats_sort sort, int sort_pct, int reverse,
			size_t *n)
{
	struct row **v = top_alloc(NULL, (t->nrows + 1) * sizeof(*v));
	struct row_order ord = { sort, sort_pct, reverse };
	size_t i;

	*n = 0;
	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].seen == t->gen)
			v[(*n)++] = &t->rows[i];
	qsort_r(v, *n, sizeof(*v), row_cmp, &ord);
	/* The rows gone since the read before, after the others. */
	for (i = 0; t->show_gone && i < t->nrows; i++)
		if (t->rows[i].mark == '-' && t->rows[i].seen != t->gen)
			v[(*n)++] = &t->rows[i];
	return v;
}

size_t top_listed(struct top *t, size_t *called)
{
	size_t i, n = 0;

	*called = 0;
	for (i = 0; i < t->nrows; i++) {
		n += t->rows[i].seen == t->gen;
		*called += t->rows[i].seen == t->gen && t->rows[i].n;
	}
	return n;
}

const char *top_bits(struct top *t, int wide)
{
	static char buf[64];
	int lo = -1, hi = -1, b;
	size_t i;

	for (i = 0; i < t->nrows; i++) {
		b = t->rows[i].bits[t->rows[i].cur];
		if (t->rows[i].seen != t->gen || b < 0)
			continue;
		lo = lo < 0 || b < lo ? b : lo;
		hi = b > hi ? b : hi;
	}
	if (lo < 0 && t->bits >= 0) {
		lo = t->bits;
		hi = t->bits;
	}
	if (lo < 0)
		return "-";
	if (lo == hi)
		snprintf(buf, sizeof(buf), "%d", lo);
	else
		snprintf(buf, sizeof(buf), "%d-%d", lo, hi);
	if (wide)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 " (slots at most %.3g%% wide)", 100.0 / (1 << lo));
	return buf;
}

const char *top_what(struct top *t, const char *name)
{
	static char buf[4096];

	return shown(buf, sizeof(buf), !t->path ? t->dir : name);
}
