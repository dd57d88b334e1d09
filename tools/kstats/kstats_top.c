// SPDX-License-Identifier: GPL-2.0
/*
 * kstats top, and groups. A group is one fprobe over every function that
 * an ftrace glob matches (kstats trace 'GLOB'): the directory kstats/NAME/
 * holds a metric file per function, and _summary, a line per function and
 * non-empty slot, its counts summed over the CPUs:
 *
 *   function vfs_read bits 1 slot 21 count 1234 avg 1530
 *
 * kstats top shows, for each function of a group (or each metric), the
 * samples of the last interval: the difference of two reads. It reads a
 * group's _summary, and only the CPUS lines of a metric's file.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "kstats.h"

#define SUMMARY "_summary"

enum sort_key { SORT_TOTAL, SORT_PCT, SORT_COUNT, SORT_NAME, NR_SORTS };
/* The keys of kstats top, and the names of -s, by enum sort_key (SORT_PCT: pQ). */
static const char sort_keys[] = "tpcn";
static const char * const sort_names[] = { "total", "p", "count", "name" };

/* -u is kstats's (opt.human), and so is -p (opt.pct, if opt.pcts). */
static struct {
	long lines;		/* -n: the rows shown; 0: all (a terminal's height) */
	enum sort_key sort;
	int sort_pct;		/* SORT_PCT: the column of the percentile */
} top_opt = { .sort_pct = 1 };

/* The percentile columns of the table: -p, or p50 and p99. */
static const double *table_pcts(int *n)
{
	static const double pcts[] = { 50, 99 };

	*n = opt.pcts ? opt.npct : (int)ARRAY_SIZE(pcts);
	return opt.pcts ? opt.pct : pcts;
}

/* The last percentile column, which the key p sorts by. */
static int pct_last(void)
{
	int n;

	table_pcts(&n);
	return n - 1;
}

/* The name of the key p's sort: "p99", the last percentile column. */
static const char *pct_key_name(void)
{
	static char name[40];
	const double *pcts;
	int n;

	char q[32];

	pcts = table_pcts(&n);
	snprintf(name, sizeof(name), "p%s", pct_name(q, sizeof(q), pcts[n - 1]));
	return name;
}

/* The name of the sort: "total", "p99"... */
static const char *sort_name(void)
{
	static char name[40];
	const double *pcts;
	char q[32];
	int n;

	if (top_opt.sort != SORT_PCT)
		return sort_names[top_opt.sort];
	pcts = table_pcts(&n);
	snprintf(name, sizeof(name), "p%s", pct_name(q, sizeof(q), pcts[top_opt.sort_pct]));
	return name;
}

/* A function of a group, or a metric. */
struct row {
	char *name;		/* FUNC, METRIC, or GROUP/FUNC (kstats top alone) */
	char *shown;		/* the name with control characters escaped */
	/* The last two reads, cumulative: hist[cur] is the last. */
	struct ks_hist hist[2];
	int bits[2];		/* -1: no samples */
	uint64_t samples[2];
	int cur;
	unsigned long seen;	/* the read that last listed it */
	/* The samples between the last two reads. */
	uint64_t n;
	uint64_t max;		/* the upper bound of the largest sample's slot */
	double total;
	double pct[MAX_PCTS];	/* of the columns (table_pcts()) */
};

struct top {
	char *path;		/* a group's directory or a metric; NULL: all of dir */
	char *dir;		/* the kstats directory, for a NULL path */
	int group;		/* path is a group's directory */
	int files;		/* --files: a group's function files, not _summary */
	struct row *rows;
	size_t nrows, cap;
	size_t *hash;		/* index of a row + 1, 0 where free */
	size_t hsize;		/* a power of 2, at least twice nrows */
	unsigned long gen;	/* reads so far */
	int bits;		/* of the last _summary line read, or -1 */
	int missing;		/* the errno of the last read of path, or 0 */
	/*
	 * Malformed text in a live read (a file rewritten in place while
	 * read, as rsync or a network file system copy does): that read is
	 * skipped, said the first time. With @strict (the
	 * first read, and a snapshot), it is an error.
	 */
	int strict;
	char *bad;		/* why the last read was skipped, or NULL */
	int bad_said;
	/* Files of the directory that are not metrics: skipped, each said once. */
	char **skipped;
	size_t nskipped, said;
};

/* A terminal in raw mode, on the alternate screen: left on every way out. */
static struct termios tty_saved;
static int tty_raw, tty_screen;

static void tty_leave(void)
{
	if (tty_screen) {
		fputs("\033[?25h\033[?1049l", stdout);
		fflush(stdout);
		tty_screen = 0;
	}
	if (tty_raw) {
		tcsetattr(STDIN_FILENO, TCSANOW, &tty_saved);
		tty_raw = 0;
	}
}

static void tty_enter(void)
{
	struct termios raw;

	if (isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &tty_saved)) {
		raw = tty_saved;
		/* Keys one at a time, not echoed; ^C and ^Z stay signals. */
		raw.c_lflag &= ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		if (!tcsetattr(STDIN_FILENO, TCSANOW, &raw))
			tty_raw = 1;
	}
	/* An error's message goes to the terminal as it was. */
	kstats_on_error(tty_leave);
	/* The alternate screen, without a cursor: as top and htop. */
	fputs("\033[?1049h\033[?25l", stdout);
	tty_screen = 1;
}

static void *top_alloc(void *p, size_t n)
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

static char *top_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = top_vprintf(fmt, ap);
	va_end(ap);
	return s;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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

/* The row @prefix@name, made (empty) if new. */
static struct row *row_get(struct top *t, const char *prefix, const char *name)
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
	hash_insert(t, t->nrows++);
	return r;
}

/* The histogram that the read under way fills. */
static struct ks_hist *row_next(struct row *r)
{
	return &r->hist[!r->cur];
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

static void top_say_skipped(struct top *t)
{
	if (tty_screen)
		return;
	for (; t->said < t->nskipped; t->said++)
		fprintf(stderr, "kstats: top: %s\n", t->skipped[t->said]);
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
	uint64_t v[4];
	ssize_t len;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return errno;
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
		if (__builtin_add_overflow(r->samples[!r->cur], v[2], &r->samples[!r->cur])) {
			err = top_bad(t, path,
				      "line %lu: the counts of %s add up to more than %llu: %s",
				      lineno, tok[1], (unsigned long long)UINT64_MAX,
				      "out of range");
			break;
		}
		hist_room(h, v[1]);
		h->count[v[1]] = v[2];
		h->sum[v[1]] = (double)v[2] * v[3];
		r->bits[!r->cur] = bits;
		r->seen = t->gen;
	}
	if (!err && ferror(f))
		err = errno ?: EIO;
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
		if (ks_finish(d, kstats_bits()))
			err = -1;
	}
	if (err < 0 && !lenient)
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
		r->bits[!r->cur] = d->bits;
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
		if (e->d_name[0] == '_' || e->d_name[0] == '.' || e->d_type == DT_DIR)
			continue;
		if (summary) {
			row_get(t, prefix, e->d_name)->seen = t->gen;
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
		if (e->d_name[0] == '_' || e->d_name[0] == '.' ||
		    !strcmp(e->d_name, "error_log"))
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
 * The samples of @r between its last two reads: the difference of each
 * slot, and of its sum (the means are printed rounded down: the mean of a
 * difference is kept within its slot, as kstats --diff keeps it). Fewer
 * samples than the read before (a reset, or a group removed and made
 * again) count from nothing. The percentiles are those of every output
 * (kstats_percentile()), of these differences.
 */
static void row_interval(struct row *r)
{
	static struct ks_hist d;
	static size_t dcap;
	const struct ks_hist *a = &r->hist[r->cur], *b = &r->hist[!r->cur];
	int bits = r->bits[!r->cur], reset = 0, k;
	size_t s, last = 0;

	for (s = 0; s < a->nslots && !reset; s++)
		reset = a->count[s] > (s < b->nslots ? b->count[s] : 0);
	if (b->nslots > dcap) {
		dcap = b->nslots;
		d.count = top_alloc(d.count, dcap * sizeof(*d.count));
		d.sum = top_alloc(d.sum, dcap * sizeof(*d.sum));
	}
	d.nslots = b->nslots;
	r->n = 0;
	r->total = 0;
	for (s = 0; s < b->nslots; s++) {
		int old = !reset && s < a->nslots;
		uint64_t n = b->count[s] - (old ? a->count[s] : 0);
		double mean, lo, hi;

		d.count[s] = n;
		d.sum[s] = 0;
		if (!n)
			continue;
		mean = (b->sum[s] - (old ? a->sum[s] : 0)) / n;
		lo = ks_slot_min(s, bits);
		hi = ks_slot_max(s, bits);
		mean = mean < lo ? lo : mean > hi ? hi : mean;
		d.sum[s] = mean * n;
		r->n += n;
		r->total += d.sum[s];
		last = s;
	}
	if (r->n) {
		const double *pcts = table_pcts(&k);

		while (k--)
			r->pct[k] = kstats_percentile(&d, r->n, pcts[k]);
		r->max = ks_slot_max(last, bits);
	}
}

/*
 * One read of everything shown; each row's samples since the read before.
 * Returns -1 when malformed text made it skip this read (see top_bad()):
 * the rows keep the samples of the read before, for the next.
 */
static int top_read(struct top *t)
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
		t->rows[i].bits[!t->rows[i].cur] = -1;
		t->rows[i].samples[!t->rows[i].cur] = 0;
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
		t->missing = 0;
		return -1;
	}
	for (i = 0; i < t->nrows; i++) {
		row_interval(&t->rows[i]);
		t->rows[i].cur = !t->rows[i].cur;
	}
	return 0;
}

/*
 * A live read skipped: said the first time; on a terminal, once the
 * screen is left, with the files skipped.
 */
static void top_say_bad(struct top *t)
{
	if (t->bad_said++)
		return;
	t->skipped = top_alloc(t->skipped, (t->nskipped + 1) * sizeof(*t->skipped));
	t->skipped[t->nskipped++] = top_printf("%s; skipped that read, reading again", t->bad);
	top_say_skipped(t);
}

static struct top *top_new(const char *path, const char *dir, int group)
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
	return t;
}

static void top_free(struct top *t)
{
	size_t i;
	int k;

	for (i = 0; i < t->nrows; i++) {
		for (k = 0; k < 2; k++) {
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

/* Rows with samples first, in the order of the key; then by name. */
static int row_cmp(const void *pa, const void *pb)
{
	const struct row *a = *(const struct row * const *)pa;
	const struct row *b = *(const struct row * const *)pb;
	double x = 0, y = 0;

	if (top_opt.sort != SORT_NAME && !a->n != !b->n)
		return a->n ? -1 : 1;
	switch (top_opt.sort) {
	case SORT_TOTAL:
		x = a->total;
		y = b->total;
		break;
	case SORT_PCT:
		x = a->n ? a->pct[top_opt.sort_pct] : 0;
		y = b->n ? b->pct[top_opt.sort_pct] : 0;
		break;
	case SORT_COUNT:
		x = a->n;
		y = b->n;
		break;
	default:
		break;
	}
	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The rows that the last read listed, sorted: *@n of them. */
static struct row **top_sorted(struct top *t, size_t *n)
{
	struct row **v = top_alloc(NULL, (t->nrows + 1) * sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].seen == t->gen)
			v[(*n)++] = &t->rows[i];
	qsort(v, *n, sizeof(*v), row_cmp);
	return v;
}

/* @buf without the blank between a number and its unit (2.40us). */
static const char *no_blank(char *buf)
{
	char *blank = strchr(buf, ' ');

	if (blank)
		memmove(blank, blank + 1, strlen(blank));
	return buf;
}

/*
 * A value: plain, or with -u scaled with its unit, 3 significant digits,
 * trailing zeros kept (2.40us above 2.38us), as kstats's summary has it.
 */
static const char *fmt_value(char *buf, size_t n, double v)
{
	return no_blank((char *)fmt_val(buf, n, v));
}

/*
 * An upper bound, max<=: exact, or with -u rounded up to 3 significant
 * digits (as kstats's summary has it), so that it holds.
 */
static const char *fmt_bound(char *buf, size_t n, uint64_t v)
{
	return no_blank((char *)fmt_hi3(buf, n, v));
}

/* The width of the columns after the name, with their blanks. */
static int cols_w(void)
{
	int npct;

	table_pcts(&npct);
	return 11 * (3 + npct) + 13;
}

/* The heads of the columns; without rate/s for a table of no interval. */
static void table_head(char *buf, size_t n, int w, int rate)
{
	const double *pcts;
	int i, k, npct;

	pcts = table_pcts(&npct);
	k = snprintf(buf, n, "%-*s %10s", w, "function", "count");
	if (rate && k >= 0 && (size_t)k < n)
		k += snprintf(buf + k, n - k, " %10s", "rate/s");
	for (i = 0; i < npct && k >= 0 && (size_t)k < n; i++) {
		char col[40], q[32];

		snprintf(col, sizeof(col), "p%s", pct_name(q, sizeof(q), pcts[i]));
		k += snprintf(buf + k, n - k, " %10s", col);
	}
	if (k >= 0 && (size_t)k < n)
		snprintf(buf + k, n - k, " %10s %12s", "max<=", "total");
}

/*
 * The line of @r, named @name in a column of width @w; @secs the interval
 * (0: unknown, a rate of "-"), with a rate column if @rate.
 */
static void table_row(char *buf, size_t n, const struct row *r, const char *name, int w,
		      double secs, int rate)
{
	char per_s[32] = "-", v[32];
	int i, k, npct;

	table_pcts(&npct);
	if (secs > 0)
		snprintf(per_s, sizeof(per_s), "%.1f", r->n / secs);
	k = snprintf(buf, n, "%-*s %10llu", w, name, (unsigned long long)r->n);
	if (rate && k >= 0 && (size_t)k < n)
		k += snprintf(buf + k, n - k, " %10s", per_s);
	/* No samples: no percentile, maximum or total. */
	for (i = 0; i < npct + 2 && k >= 0 && (size_t)k < n; i++) {
		snprintf(v, sizeof(v), "%s", "-");
		if (r->n && i == npct)
			fmt_bound(v, sizeof(v), r->max);
		else if (r->n)
			fmt_value(v, sizeof(v), i < npct ? r->pct[i] : r->total);
		k += snprintf(buf + k, n - k, i == npct + 1 ? " %12s" : " %10s", v);
	}
}

/*
 * Plain text: the column heads and the rows, at most -n; the samples of
 * an interval of @secs, or with @secs 0 all of a snapshot, without rates.
 */
static void print_table(struct top *t, double secs)
{
	size_t n, i, w = 8;
	struct row **v = top_sorted(t, &n);
	char *buf;

	if (top_opt.lines > 0 && (size_t)top_opt.lines < n)
		n = top_opt.lines;
	for (i = 0; i < n; i++)
		w = strlen(v[i]->shown) > w ? strlen(v[i]->shown) : w;
	buf = top_alloc(NULL, w + cols_w() + 64);
	table_head(buf, w + cols_w() + 64, w, secs > 0);
	puts(buf);
	for (i = 0; i < n; i++) {
		table_row(buf, w + cols_w() + 64, v[i], v[i]->shown, w, secs, secs > 0);
		puts(buf);
	}
	free(buf);
	free(v);
}

static size_t top_listed(struct top *t, size_t *called)
{
	size_t i, n = 0;

	*called = 0;
	for (i = 0; i < t->nrows; i++) {
		n += t->rows[i].seen == t->gen;
		*called += t->rows[i].seen == t->gen && t->rows[i].n;
	}
	return n;
}

/* What kstats top shows, for its header lines. */
/* What top shows, for its header: the directory, or @name; escaped. */
static const char *top_what(struct top *t, const char *name)
{
	static char buf[4096];

	return shown(buf, sizeof(buf), !t->path ? t->dir : name);
}

static void term_size(int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

/* A line of the screen: cut to its width, without control characters. */
/* The lines of the screen that draw() has not written yet. */
static int screen_left;

static void screen_line(const char *s, int cols, const char *attr)
{
	int i;

	if (attr)
		fputs(attr, stdout);
	for (i = 0; s[i] && i < cols; i++)
		putchar((unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i]);
	/* The screen's last line ends without a newline, which would scroll it. */
	if (attr)
		fputs("\033[m", stdout);
	fputs(--screen_left > 0 ? "\033[K\n" : "\033[K", stdout);
}

/* The cells of the terminal's table (count, rate/s, pQ..., max<=, total). */
#define TOP_COLS	(3 + MAX_PCTS + 1)
#define TOP_CELL	32

/* @r's cells, as table_row() prints them. */
static void row_cells(const struct row *r, double secs, char cell[][TOP_CELL])
{
	int i, npct;

	table_pcts(&npct);
	snprintf(cell[0], TOP_CELL, "%llu", (unsigned long long)r->n);
	snprintf(cell[1], TOP_CELL, "-");
	if (secs > 0)
		snprintf(cell[1], TOP_CELL, "%.1f", r->n / secs);
	for (i = 0; i < npct + 2; i++) {
		snprintf(cell[2 + i], TOP_CELL, "-");
		if (r->n && i == npct)
			fmt_bound(cell[2 + i], TOP_CELL, r->max);
		else if (r->n)
			fmt_value(cell[2 + i], TOP_CELL, i < npct ? r->pct[i] : r->total);
	}
}

/*
 * Which columns fit @cols: each as wide as its widest cell, names at
 * least 8 wide; when they do not all fit, whole columns go, never digits:
 * total, rate/s, the percentiles but the last, max<=, the last, the
 * column of the sort kept longest, the count never. Returns the width of
 * the names.
 */
static int top_fit(int cols, int ncol, const int *w, int namew, int *keep)
{
	int order[TOP_COLS], n = 0, sum = 0, c, k, npct = ncol - 4;
	int sort = top_opt.sort == SORT_TOTAL ? ncol - 1 :
		   top_opt.sort == SORT_PCT ? 2 + top_opt.sort_pct : 0;

	order[n++] = ncol - 1;			/* total */
	order[n++] = 1;				/* rate/s */
	for (c = npct; c >= 2; c--)		/* percentiles but the last */
		order[n++] = c;
	order[n++] = ncol - 2;			/* max<= */
	order[n++] = npct + 1;			/* the last percentile */
	for (c = 0; c < ncol; c++) {
		keep[c] = 1;
		sum += 1 + w[c];
	}
	for (k = 0; k < n && 8 + sum > cols; k++) {
		if (order[k] == sort || !keep[order[k]])
			continue;
		keep[order[k]] = 0;
		sum -= 1 + w[order[k]];
	}
	if (8 + sum > cols && sort && keep[sort]) {
		keep[sort] = 0;
		sum -= 1 + w[sort];
	}
	return namew < cols - sum ? namew : cols - sum > 8 ? cols - sum : 8;
}

/*
 * The screen: what is shown, the keys, and the table, as many rows as the
 * terminal has room for, every line within its width (whole columns left
 * out where they do not fit); on a terminal of fewer than 4 lines, the
 * header and the column heads first.
 */
static void draw(struct top *t, const char *name, double secs)
{
	static const char * const heads[] = { "count", "rate/s" };
	size_t n, i, called, listed = top_listed(t, &called);
	int rows, cols, namew = 8, ncol, npct, c, k, w[TOP_COLS], keep[TOP_COLS];
	struct row **v = top_sorted(t, &n);
	char buf[1024], (*cell)[TOP_COLS][TOP_CELL];
	char head[TOP_COLS][TOP_CELL];
	const double *pcts = table_pcts(&npct);

	term_size(&rows, &cols);
	screen_left = rows;
	fputs("\033[H", stdout);
	if (secs > 0)
		snprintf(buf, sizeof(buf),
			 "kstats top: %s %s, %zu %s, %zu with samples in the last %.2f s, sort: %s",
			 t->path ? (t->group ? "group" : "metric") : "dir", top_what(t, name),
			 listed, t->path && t->group ? "functions" : "metrics", called, secs,
			 sort_name());
	else
		snprintf(buf, sizeof(buf),
			 "kstats top: %s %s, %zu %s, %zu with samples since the start, sort: %s",
			 t->path ? (t->group ? "group" : "metric") : "dir", top_what(t, name),
			 listed, t->path && t->group ? "functions" : "metrics", called,
			 sort_name());
	screen_line(buf, cols, NULL);
	/* The keys' line goes first when lines are short. */
	if (rows >= 4) {
		if (t->missing)
			snprintf(buf, sizeof(buf), "%s: %s; waiting for it", top_what(t, name),
				 strerror(t->missing));
		else
			snprintf(buf, sizeof(buf), "keys: t total, p %s, c count, n name, q quit",
				 pct_key_name());
		screen_line(buf, cols, NULL);
	}
	if (top_opt.lines > 0 && (size_t)top_opt.lines < n)
		n = top_opt.lines;
	n = screen_left > 1 && n > (size_t)screen_left - 1 ? (size_t)screen_left - 1 :
	    screen_left > 1 ? n : 0;
	ncol = 4 + npct;
	for (c = 0; c < 2; c++)
		snprintf(head[c], TOP_CELL, "%s", heads[c]);
	for (c = 0; c < npct; c++)
		snprintf(head[2 + c], TOP_CELL, "p%s", pct_name(buf, sizeof(buf), pcts[c]));
	snprintf(head[ncol - 2], TOP_CELL, "max<=");
	snprintf(head[ncol - 1], TOP_CELL, "total");
	for (c = 0; c < ncol; c++)
		w[c] = strlen(head[c]);
	cell = top_alloc(NULL, (n + 1) * sizeof(*cell));
	for (i = 0; i < n; i++) {
		row_cells(v[i], secs, cell[i]);
		for (c = 0; c < ncol; c++)
			w[c] = (int)strlen(cell[i][c]) > w[c] ? (int)strlen(cell[i][c]) : w[c];
		namew = (int)strlen(v[i]->shown) > namew ? (int)strlen(v[i]->shown) : namew;
	}
	namew = top_fit(cols, ncol, w, namew, keep);
	namew = namew < (int)sizeof(buf) / 2 ? namew : (int)sizeof(buf) / 2;
	if (screen_left > 0) {
		k = snprintf(buf, sizeof(buf), "%-*s", namew, "function");
		for (c = 0; c < ncol; c++)
			if (keep[c])
				k += snprintf(buf + k, sizeof(buf) - k, " %*s", w[c], head[c]);
		screen_line(buf, cols, "\033[7m");
	}
	for (i = 0; i < n; i++) {
		/*
		 * A name cut short keeps its start and its end, a '~' between:
		 * names of a prefix (foo.isra.0, foo.constprop.0) stay apart.
		 */
		if ((int)strlen(v[i]->shown) > namew) {
			int head = (namew - 1) / 2, tail = namew - 1 - head;

			k = snprintf(buf, sizeof(buf), "%.*s~%s", head, v[i]->shown,
				     v[i]->shown + strlen(v[i]->shown) - tail);
		} else {
			k = snprintf(buf, sizeof(buf), "%-*s", namew, v[i]->shown);
		}
		for (c = 0; c < ncol; c++)
			if (keep[c])
				k += snprintf(buf + k, sizeof(buf) - k, " %*s", w[c], cell[i][c]);
		screen_line(buf, cols, NULL);
	}
	fputs("\033[J", stdout);
	fflush(stdout);
	free(cell);
	free(v);
}

/*
 * The signals that kstats top on a terminal takes (from a signalfd: they
 * are blocked; or from a pipe, without signalfd): those that end it
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT), SIGTSTP, and SIGWINCH and SIGCONT
 * to redraw.
 */
static const int top_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGTSTP, SIGCONT };

/*
 * Where signalfd() is not (a kernel without CONFIG_SIGNALFD), a pipe that
 * a handler writes each signal's number into: the same signals, polled
 * the same way.
 */
static int sig_pipe[2] = { -1, -1 };

static void sig_to_pipe(int sig)
{
	unsigned char c = sig;
	int e = errno;
	ssize_t n;

	/* A full pipe: a signal of each kind is already waiting. */
	n = write(sig_pipe[1], &c, 1);
	(void)n;
	errno = e;
}

/* A signalfd of them, blocked; or the pipe their handler writes to. */
static int catch_signals(void)
{
	struct sigaction old, sa = { .sa_handler = sig_to_pipe, .sa_flags = SA_RESTART };
	sigset_t set;
	size_t i;
	int fd;

	sigemptyset(&set);
	for (i = 0; i < ARRAY_SIZE(top_signals); i++) {
		/* SIGHUP stays ignored under nohup. */
		if (top_signals[i] == SIGHUP && !sigaction(SIGHUP, NULL, &old) &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaddset(&set, top_signals[i]);
	}
	/* These end kstats top, as trace's end a trace (see trace_main()). */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd >= 0)
		return fd;
	/* No signalfd() in the kernel: the pipe. */
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK))
		kstats_die(1, "top: signalfd, then pipe: %s", strerror(errno));
	sa.sa_mask = set;
	for (i = 0; i < ARRAY_SIZE(top_signals); i++)
		if (sigismember(&set, top_signals[i]))
			sigaction(top_signals[i], &sa, NULL);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	return sig_pipe[0];
}

/* The next signal that @fd (a signalfd, or the pipe) has, or 0. */
static int next_signal(int fd)
{
	struct signalfd_siginfo si;
	unsigned char c;

	if (fd == sig_pipe[0])
		return read(fd, &c, 1) == 1 ? c : 0;
	return read(fd, &si, sizeof(si)) == sizeof(si) ? (int)si.ssi_signo : 0;
}

/*
 * @sig, taken with its default action: unblocked (signalfd) or with no
 * handler (the pipe) while it is raised; as before once it returns.
 */
static void raise_default(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	sigset_t one;

	sigemptyset(&one);
	sigaddset(&one, sig);
	sigaction(sig, &dfl, &old);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	/* Continued (SIGTSTP). */
	if (sig_pipe[0] < 0)
		sigprocmask(SIG_BLOCK, &one, NULL);
	sigaction(sig, &old, NULL);
}

/*
 * The signals read from @fd: 1 to redraw. One that ends kstats top
 * restores the terminal, then ends it as it would have (its default
 * action); SIGTSTP stops it with the terminal restored, which it takes
 * again once continued.
 */
static int top_signal(int fd)
{
	int redraw = 0, sig;

	while ((sig = next_signal(fd))) {
		switch (sig) {
		case SIGWINCH:
		case SIGCONT:
			redraw = 1;
			break;
		case SIGTSTP:
			tty_leave();
			fflush(stdout);
			raise_default(SIGTSTP);
			tty_enter();
			redraw = 1;
			break;
		default:
			tty_leave();
			raise_default(sig);
			exit(128 + sig);
		}
	}
	return redraw;
}

/* The keys of kstats top read: 1 to redraw, -1 to quit. */
static int top_keys(int *stdin_open)
{
	char buf[64];
	ssize_t n, i;
	int ret = 0;
	const char *k;

	n = read(STDIN_FILENO, buf, sizeof(buf));
	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			*stdin_open = 0;
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (buf[i] == 'q' || buf[i] == 'Q')
			return -1;
		k = buf[i] ? strchr(sort_keys, buf[i]) : NULL;
		if (k) {
			top_opt.sort = k - sort_keys;
			/* p: the last percentile column. */
			if (top_opt.sort == SORT_PCT)
				top_opt.sort_pct = pct_last();
			ret = 1;
		}
	}
	return ret;
}

static const char top_help[] =
"usage: kstats top [NAME] [options]\n"
"\n"
"The functions of group NAME (kstats trace 'GLOB', or trace fprobe:GLOB as\n"
"NAME written to kstats/_control), or the metric NAME, or without NAME every\n"
"metric and every function of every group, with the samples of the last\n"
"interval: count, rate, p50, p99 (the means of their slots, or -p), max<=\n"
"(an upper bound: that of the slot of the largest sample) and total (the sum\n"
"of the values). Keys on a terminal: t total, p p99 (the last percentile), c\n"
"count, n name (the sort), q quit. Into a pipe: a table per interval. NAME\n"
"is a path if it holds a '/' or, without --dir, names a file or directory\n"
"here (as an INPUT of kstats); else it is looked up in the kstats directory.\n"
"\n"
"  -i, --interval SECS  refresh every SECS seconds (default 1)\n"
"  -n, --lines N        show N rows at most (default: the terminal's height,\n"
"                       or every row into a pipe)\n"
"  -p, --percentiles LIST\n"
"                       the percentile columns (default 50,99)\n"
"  -s, --sort KEY       total (default), count, name, or pQ, a percentile\n"
"                       column (p50, p99)\n"
"  -c, --count K        stop after K intervals\n"
"  -d, --duration SECS  stop after SECS seconds\n"
"  -u, --unit U         the values are in U (ns, us, ms or s): print them with\n"
"                       a unit, scaled up to s\n"
"  -b, --batch          plain tables, also on a terminal\n"
"      --dir DIR        the kstats directory (default: kstats/ under the\n"
"                       debugfs mount of /proc/mounts)\n"
"      --files          read each function's file, not the group's _summary\n"
"  -h, --help           this text\n";

static double top_secs(const char *opt, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	if (*end || end == arg || !(v > 0) || v > 1e9)
		kstats_usage_error("%s: '%s' is not a positive number of seconds", opt, arg);
	return v;
}

static long top_long(const char *opt, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg || v <= 0)
		kstats_usage_error("%s: '%s' is not a positive number", opt, arg);
	return v;
}

void top_opt_lines(const char *arg)
{
	top_opt.lines = top_long("--lines", arg);
}

static void top_opt_unit(const char *arg)
{
	for (opt.human = 4; opt.human; opt.human--)
		if (!strcmp(arg, unit_names[opt.human - 1]))
			return;
	kstats_usage_error("--unit: '%s' is not ns, us, ms or s", arg);
}

/* -s KEY, once -p is known: total, count, name or pQ, a percentile column. */
void top_opt_sort(const char *arg)
{
	char cols[MAX_PCTS * 24] = "", qn[32], *end;
	const double *pcts;
	int k, n, len = 0;
	double q;

	for (k = 0; k < NR_SORTS && strcmp(arg, sort_names[k]); k++)
		;
	if (k < NR_SORTS && k != SORT_PCT) {
		top_opt.sort = k;
		return;
	}
	pcts = table_pcts(&n);
	q = arg[0] == 'p' ? strtod(arg + 1, &end) : 0;
	for (k = 0; arg[0] == 'p' && !*end && end != arg + 1 && k < n; k++) {
		if (pcts[k] == q) {
			top_opt.sort = SORT_PCT;
			top_opt.sort_pct = k;
			return;
		}
	}
	for (k = 0; k < n && len >= 0 && (size_t)len < sizeof(cols); k++)
		len += snprintf(cols + len, sizeof(cols) - len, "%sp%s", k ? ", " : "",
				pct_name(qn, sizeof(qn), pcts[k]));
	kstats_usage_error("--sort: '%s' is not total, count, name or a percentile column (%s)",
			   arg, cols);
}

/* kstats top [NAME] [options]: @argv[0] is "top". */
int top_main(int argc, char **argv)
{
	enum { O_DIR = 256, O_FILES, O_CPU };
	static const struct option lopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "percentiles", required_argument, NULL, 'p' },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "lines", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "unit", required_argument, NULL, 'u' },
		{ "batch", no_argument, NULL, 'b' },
		{ "dir", required_argument, NULL, O_DIR },
		{ "files", no_argument, NULL, O_FILES },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	double interval = 1, secs = 0, t0, t1, next, wait;
	int c, tty, files = 0, batch = 0, stdin_open, redraw, k, gone = 0;
	const char *name = NULL, *dir = NULL, *sort = NULL;
	char *debugfs = NULL, *kdir, *path = NULL;
	bool local;
	struct pollfd pfd[2] = { { .fd = -1, .events = POLLIN }, { .events = POLLIN } };
	long count = 0, i;
	struct timespec ts;
	struct stat st;
	struct top *t;

	argv[0] = (char *)"kstats";
	while ((c = getopt_long(argc, argv, "i:p:n:s:c:d:u:bh", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			interval = top_secs("--interval", optarg);
			break;
		case 'p':
			parse_pcts(optarg);
			opt.pcts = 1;
			break;
		case O_CPU:
			kstats_usage_error("top: --cpu: %s (kstats --cpu N INPUT: one CPU's)",
					   "its rows are the sums of the CPUs");
		case 'n':
			top_opt_lines(optarg);
			break;
		case 's':
			sort = optarg;
			break;
		case 'c':
			count = top_long("--count", optarg);
			break;
		case 'd':
			secs = top_secs("--duration", optarg);
			break;
		case 'u':
			top_opt_unit(optarg);
			break;
		case 'b':
			batch = 1;
			break;
		case O_DIR:
			dir = optarg;
			break;
		case O_FILES:
			files = 1;
			break;
		case 'h':
			fputs(top_help, stdout);
			return 0;
		default:
			fprintf(stderr, "Try 'kstats top --help'.\n");
			return 1;
		}
	}
	argc -= optind;
	argv += optind;
	if (sort)
		top_opt_sort(sort);
	if (argc > 1)
		kstats_usage_error("top: %d names where one at most was expected", argc);
	if (count && secs > 0)
		kstats_usage_error("top: either --count or --duration, not both");
	if (secs > 0)
		count = (long)fmax(1, ceil(secs / interval - 0.000001));
	name = argc ? argv[0] : NULL;
	/* As an INPUT: a path, or a file here, before a name under debugfs. */
	local = name && (strchr(name, '/') || (!dir && !access(name, F_OK)));
	if (!dir) {
		debugfs = kstats_debugfs("top");
		if (!debugfs && !local)
			kstats_die(1, "top: debugfs is not mounted: %s",
				   "mount -t debugfs none /sys/kernel/debug");
	}
	kdir = dir ? strdup(dir) : debugfs ? top_printf("%s/kstats", debugfs) : NULL;
	free(debugfs);
	if (name) {
		path = local ? strdup(name) : top_printf("%s/%s", kdir, name);
		if (!path)
			kstats_die(1, "out of memory");
		if (stat(path, &st))
			kstats_die(1, "top: %s: %s", path, strerror(errno));
		t = top_new(path, NULL, S_ISDIR(st.st_mode));
	} else {
		if (stat(kdir, &st) || !S_ISDIR(st.st_mode))
			kstats_die(1, "top: %s: %s", kdir, strerror(errno ?: ENOTDIR));
		t = top_new(NULL, kdir, 0);
	}
	t->files = files;
	tty = !batch && isatty(STDOUT_FILENO);

	t0 = mono_s();
	t->strict = 1;
	top_read(t);
	t->strict = 0;
	if (t->missing)
		kstats_die(1, "top: %s: %s", path ?: kdir, strerror(t->missing));
	next = t0 + interval;
	if (!tty) {
		for (i = 1; !count || i <= count; i++) {
			ts.tv_sec = (time_t)next;
			ts.tv_nsec = (long)((next - (time_t)next) * 1e9);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
			t1 = mono_s();
			/* Malformed text: no table for this read, the next covers it. */
			if (top_read(t)) {
				top_say_bad(t);
				next = fmax(next + interval, t1);
				i--;
				continue;
			}
			/* A group removed is waited for (its table empty), as --interval. */
			if (t->missing && !gone++)
				fprintf(stderr, "kstats: top: %s: %s; waiting for it\n",
					top_what(t, name), strerror(t->missing));
			else if (!t->missing && gone)
				fprintf(stderr, "kstats: top: %s: back\n", top_what(t, name));
			gone = t->missing ? gone : 0;
			printf("interval %ld seconds %.3f %s %s %s %zu sort %s\n", i, t1 - t0,
			       t->path ? (t->group ? "group" : "metric") : "dir", top_what(t, name),
			       t->path && t->group ? "functions" : "metrics",
			       top_listed(t, &(size_t){ 0 }), sort_name());
			print_table(t, t1 - t0);
			if (fflush(stdout))
				kstats_die(1, "top: standard output: %s", strerror(errno));
			t0 = t1;
			next = fmax(next + interval, t1);
		}
		top_free(t);
		free(kdir);
		free(path);
		return 0;
	}

	/* A terminal: the screen redrawn at each read and key. */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	atexit(tty_leave);
	pfd[1].fd = catch_signals();
	stdin_open = isatty(STDIN_FILENO);
	tty_enter();
	draw(t, name, 0);
	secs = 0;
	for (i = 0; !count || i < count;) {
		t1 = mono_s();
		if (t1 >= next) {
			next = fmax(next + interval, t1);
			/* Malformed text: the screen as it was, the next read covers it. */
			if (top_read(t)) {
				top_say_bad(t);
				continue;
			}
			secs = t1 - t0;
			draw(t, name, secs);
			i++;
			t0 = t1;
			continue;
		}
		wait = next - t1;
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - (time_t)wait) * 1e9);
		redraw = 0;
		/* A closed standard input is polled no more. */
		pfd[0].fd = stdin_open ? STDIN_FILENO : -1;
		if (ppoll(pfd, 2, &ts, NULL) > 0) {
			if (pfd[1].revents & POLLIN)
				redraw = top_signal(pfd[1].fd);
			if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
				k = top_keys(&stdin_open);
				if (k < 0)
					break;
				redraw |= k;
			}
		}
		if (redraw)
			draw(t, name, secs);
	}
	tty_leave();
	top_say_skipped(t);
	top_free(t);
	free(kdir);
	free(path);
	return 0;
}

/* A group's directory: a directory with a _summary. */
int group_dir(const char *path)
{
	struct stat st;
	char *p;
	int ret;

	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return 0;
	p = top_printf("%s/" SUMMARY, path);
	ret = !access(p, F_OK);
	free(p);
	return ret;
}

/* A group's name: the last component of @input, without a trailing '/'. */
static char *group_name(const char *input)
{
	size_t len = strlen(input);
	const char *b;
	char *s;

	while (len > 1 && input[len - 1] == '/')
		len--;
	s = strndup(input, len);
	if (!s)
		kstats_die(1, "out of memory");
	b = strrchr(s, '/');
	if (b && b[1])
		memmove(s, b + 1, strlen(b + 1) + 1);
	return s;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* The frac_bits of the group at @path: --bits, or those of its _summary. */
static int group_bits(const char *path)
{
	char *p = top_printf("%s/" SUMMARY, path), line[1024];
	int bits = kstats_bits();
	FILE *f = bits < 0 ? fopen(p, "r") : NULL;

	while (f && bits < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "function %*s bits %d", &bits) != 1 || bits > KS_MAX_BITS)
			bits = -1;
	if (f)
		fclose(f);
	free(p);
	return bits;
}

/*
 * kstats [options] DIR, DIR a group's: the table of its functions from
 * its _summary; or each function's file in the format asked.
 */
void group_main(const char *path, const char *input)
{
	char *group = group_name(input), **names = NULL, *p;
	size_t n = 0, i, k = 0;
	struct dirent *e;
	struct ks_data d;
	struct top *t;
	int bits;
	FILE *f;
	DIR *dir;

	if (kstats_group_table() && opt.cpu >= 0)
		kstats_usage_error("--cpu: not with a group's table: %s (%s: each function's)",
				   "its _summary has no CPUs", "--json, --csv or --hist");
	if (kstats_group_table()) {
		t = top_new(path, NULL, 1);
		t->strict = 1;
		top_read(t);
		if (t->missing)
			kstats_die(1, "%s: %s", path, strerror(t->missing));
		/* As a metric's slots and means, the bits of _summary fit --bits or not. */
		if (opt.bits >= 0 && t->bits >= 0 && t->bits != opt.bits)
			kstats_die(2, "%s: inconsistent input: %s %d, not %d (--bits)", path,
				   "its _summary has bits", t->bits, opt.bits);
		printf("group %s functions %zu sort %s\n", top_what(t, group),
		       top_listed(t, &(size_t){ 0 }), sort_name());
		print_table(t, 0);
		top_free(t);
		free(group);
		return;
	}
	bits = group_bits(path);
	dir = opendir(path);
	if (!dir)
		kstats_die(1, "%s: %s", path, strerror(errno));
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '_' || e->d_name[0] == '.' || e->d_type == DT_DIR)
			continue;
		names = top_alloc(names, (n + 1) * sizeof(*names));
		names[n] = strdup(e->d_name);
		if (!names[n++])
			kstats_die(1, "out of memory");
	}
	closedir(dir);
	qsort(names, n, sizeof(*names), name_cmp);
	kstats_group_begin(group);
	for (i = 0; i < n; i++) {
		p = top_printf("%s/%s", path, names[i]);
		f = fopen(p, "r");
		/* A function gone meanwhile (its module unloaded) is not listed. */
		if (f) {
			ks_data_init(&d);
			if (ks_read(&d, f) || ks_finish(&d, bits))
				kstats_die(2, "%s: %s", p, d.err);
			fclose(f);
			kstats_group_output(&d, group, names[i], k++);
			ks_data_free(&d);
		} else if (errno != ENOENT) {
			kstats_die(1, "%s: %s", p, strerror(errno));
		}
		free(p);
		free(names[i]);
	}
	kstats_group_end(k);
	free(names);
	free(group);
}

/*
 * kstats trace 'GLOB': a glob (*, ? or [) in the function makes a group,
 * traced by fprobe.
 */
const char *trace_group(const char **spec, const char *name, int per_cpu)
{
	const char *func = trace_func(*spec), *c;
	char *group;

	if (!strpbrk(func, "*?[")) {
		if (top_opt.lines)
			kstats_usage_error("trace: --lines: only with a glob (%s)",
					   "a group of functions");
		return NULL;
	}
	if (func != *spec && strncmp(*spec, "fprobe:", 7))
		kstats_usage_error("trace: '%s': a glob is traced by fprobe: only", *spec);
	if (per_cpu)
		kstats_usage_error("trace: '%s': --per-cpu and --cpu do not apply to a glob (%s)",
				   *spec, "its group's summary has no CPUs");
	if (name) {
		for (c = name; *c && *c != '/' && *c > ' ' && *c != 0x7f; c++)
			;
		if (!*name || *c || *name == '_' || *name == '.')
			kstats_usage_error("trace: --name '%s' is not a group name (%s)", name,
					   "a file name without '/' or blanks, not starting with _ or .");
		group = strdup(name);
	} else {
		group = top_printf("kstats-trace-%d", (int)getpid());
	}
	if (!group)
		kstats_die(1, "out of memory");
	*spec = top_printf("fprobe:%s as %s", func, group);
	return group;
}

struct top *group_snapshot(const char *path)
{
	struct top *t = top_new(path, NULL, 1);

	t->strict = 1;
	top_read(t);
	if (t->missing)
		kstats_die(1, "trace: %s: %s", path, strerror(t->missing));
	return t;
}

/*
 * The end of kstats trace 'GLOB': the table of every function of the
 * group, over the @secs seconds of the trace; or each function (from the
 * group's _summary, without CPUs) in the format asked.
 */
void group_report(struct top *t, const char *group, double secs)
{
	struct row **v;
	struct ks_data d;
	size_t n, i;

	if (kstats_group_table()) {
		printf("group %s functions %zu seconds %.3f sort %s\n", top_what(t, group),
		       top_listed(t, &(size_t){ 0 }), secs, sort_name());
		print_table(t, secs);
		top_free(t);
		return;
	}
	top_opt.sort = SORT_NAME;
	v = top_sorted(t, &n);
	kstats_group_begin(group);
	for (i = 0; i < n; i++) {
		ks_data_init(&d);
		d.all = v[i]->hist[v[i]->cur];
		d.have_all = 1;
		d.bits = v[i]->bits[v[i]->cur] >= 0 ? v[i]->bits[v[i]->cur] :
			 t->bits >= 0 ? t->bits : 1;
		kstats_group_output(&d, group, v[i]->name, i);
	}
	kstats_group_end(n);
	free(v);
	top_free(t);
}
