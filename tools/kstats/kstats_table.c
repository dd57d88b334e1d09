// SPDX-License-Identifier: GPL-2.0
/*
 * The table of functions of kstats top and of a group: its options (-n,
 * -s), its columns (count, rate/s, the percentiles, max<=, total), plain
 * lines, and the cells of a terminal's screen with the columns that fit.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstats_top.h"

/* The keys of kstats top, and the names of -s, by enum kstats_sort (SORT_PCT: pQ). */
static const char sort_keys[] = "tpcnmar";
static const char * const sort_names[] = { "total", "p", "count", "name", "max", "avg", "rate" };

const double *table_pcts(const struct kstats_opt *o, int *n)
{
	static const double pcts[] = { 50, 99 };

	*n = o->pcts ? o->npct : (int)ARRAY_SIZE(pcts);
	return o->pcts ? o->pct : pcts;
}

int pct_last(const struct kstats_opt *o)
{
	int n;

	table_pcts(o, &n);
	return n - 1;
}

/* The name of the key p's sort: "p99", the last percentile column. */
const char *pct_key_name(const struct kstats_opt *o)
{
	static char name[40];
	const double *pcts;
	char q[32];
	int n;

	pcts = table_pcts(o, &n);
	snprintf(name, sizeof(name), "p%s", pct_name(q, sizeof(q), pcts[n - 1]));
	return name;
}

const char *sort_name(const struct kstats_opt *o)
{
	static char name[40];
	const double *pcts;
	char q[32];
	int n;

	if (o->sort != SORT_PCT)
		return sort_names[o->sort];
	pcts = table_pcts(o, &n);
	snprintf(name, sizeof(name), "p%s", pct_name(q, sizeof(q), pcts[o->sort_pct]));
	return name;
}

int sort_of_key(int key)
{
	const char *k = key ? strchr(sort_keys, key) : NULL;

	return k ? k - sort_keys : -1;
}

void table_opt_lines(struct kstats_opt *o, const char *arg)
{
	char *end;

	o->lines = strtol(arg, &end, 10);
	if (*end || end == arg || o->lines <= 0)
		kstats_usage_error("--lines: '%s' is not a positive number", arg);
}

void table_opt_sort(struct kstats_opt *o, const char *arg)
{
	char cols[MAX_PCTS * 24] = "", qn[32], *end;
	const double *pcts;
	int k, n, len = 0;
	double q;

	for (k = 0; k < NR_SORTS && strcmp(arg, sort_names[k]); k++)
		;
	if (k < NR_SORTS && k != SORT_PCT) {
		o->sort = k;
		return;
	}
	pcts = table_pcts(o, &n);
	q = arg[0] == 'p' ? strtod(arg + 1, &end) : 0;
	for (k = 0; arg[0] == 'p' && !*end && end != arg + 1 && k < n; k++) {
		if (pcts[k] == q) {
			o->sort = SORT_PCT;
			o->sort_pct = k;
			return;
		}
	}
	for (k = 0; k < n && len >= 0 && (size_t)len < sizeof(cols); k++)
		len += snprintf(cols + len, sizeof(cols) - len, "%sp%s", k ? ", " : "",
				pct_name(qn, sizeof(qn), pcts[k]));
	kstats_usage_error("--sort: '%s' is not %s or a percentile column (%s)",
			   arg, "total, count, rate, name, max, avg", cols);
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
static const char *fmt_value(char *buf, size_t n, double v, int unit)
{
	return no_blank((char *)fmt_val(buf, n, v, unit));
}

/*
 * A percentile of @r: the mean of its slot, to the digits that the slot's
 * width supports (fmt_in_slot()), as a value otherwise.
 */
static const char *fmt_pct(char *buf, size_t n, const struct row *r, double v, int unit)
{
	int bits = r->bits[r->cur];
	uint64_t s;

	if (bits < 0 || !(v >= 0))
		return fmt_value(buf, n, v, unit);
	s = ks_slot((uint64_t)v, bits);
	return no_blank((char *)fmt_in_slot(buf, n, v, ks_slot_min(s, bits),
					    ks_slot_max(s, bits), unit));
}

/*
 * An upper bound, max<=: exact, or with -u rounded up to 3 significant
 * digits (as kstats's summary has it), so that it holds.
 */
static const char *fmt_bound(char *buf, size_t n, uint64_t v, int unit)
{
	return no_blank((char *)fmt_hi3(buf, n, v, unit));
}

/* The width of the columns after the name, with their blanks. */
static int cols_w(const struct kstats_opt *o)
{
	int npct;

	table_pcts(o, &npct);
	return 11 * (4 + npct) + 13;
}

/* The heads of the columns; without rate/s for a table of no interval. */
static void table_head(const struct kstats_opt *o, char *buf, size_t n, int w, int rate)
{
	const double *pcts;
	int i, k, npct;

	pcts = table_pcts(o, &npct);
	k = snprintf(buf, n, "%-*s %10s", w, "function", "count");
	if (rate && k >= 0 && (size_t)k < n)
		k += snprintf(buf + k, n - k, " %10s", "rate/s");
	for (i = 0; i < npct && k >= 0 && (size_t)k < n; i++) {
		char col[40], q[32];

		snprintf(col, sizeof(col), "p%s", pct_name(q, sizeof(q), pcts[i]));
		k += snprintf(buf + k, n - k, " %10s", col);
	}
	if (k >= 0 && (size_t)k < n)
		snprintf(buf + k, n - k, " %10s %12s %10s", "max<=", "total", "avg");
}

/*
 * The line of @r, named @name in a column of width @w; @secs the interval
 * (0: unknown, a rate of "-"), with a rate column if @rate.
 */
static void table_row(const struct kstats_opt *o, char *buf, size_t n, const struct row *r,
		      const char *name, int w, double secs, int rate)
{
	char per_s[32] = "-", v[32];
	int i, k, npct;

	table_pcts(o, &npct);
	if (secs > 0)
		snprintf(per_s, sizeof(per_s), "%.1f", r->n / secs);
	k = snprintf(buf, n, "%-*s %10llu", w, name, (unsigned long long)r->n);
	if (rate && k >= 0 && (size_t)k < n)
		k += snprintf(buf + k, n - k, " %10s", per_s);
	/* No samples: no percentile, maximum, total or average. */
	for (i = 0; i < npct + 3 && k >= 0 && (size_t)k < n; i++) {
		snprintf(v, sizeof(v), "%s", "-");
		if (r->n && i == npct)
			fmt_bound(v, sizeof(v), r->max, ks_unit(o));
		else if (r->n && i < npct)
			fmt_pct(v, sizeof(v), r, r->pct[i], ks_unit(o));
		else if (r->n)
			fmt_value(v, sizeof(v), i == npct + 1 ? r->total : r->total / r->n,
				  ks_unit(o));
		k += snprintf(buf + k, n - k, i == npct + 1 ? " %12s" : " %10s", v);
	}
}

/* The length of the escape of a name as shown() shows it at @s: \xNN, \\, or 1. */
static int esc_len(const char *s)
{
	if (s[0] != '\\')
		return 1;
	if (s[1] == '\\')
		return 2;
	if (s[1] == 'x' && isxdigit((unsigned char)s[2]) && isxdigit((unsigned char)s[3]))
		return 4;
	return 1;
}

/*
 * Where a cut at @at of @s, as shown() shows a name (\xNN for a control
 * character, \\ for a backslash), falls inside such an escape: the
 * escape's start; else @at. Read from the start: in \\x1b, the \x1b is
 * not one.
 */
int esc_at(const char *s, int at)
{
	int i, k;

	for (i = 0; i < at && s[i]; i += k) {
		k = esc_len(s + i);
		if (at < i + k)
			return i;
	}
	return at;
}

/* As esc_at(), but the end of the escape that the cut at @at falls in. */
int esc_after(const char *s, int at)
{
	int e = esc_at(s, at);

	return e < at ? e + esc_len(s + e) : at;
}

/*
 * @s cut to its first @head and last @tail characters, a '~' between,
 * into @buf; an escape at either cut left out whole, not split.
 */
static int cut_at(char *buf, size_t n, const char *s, int head, int tail)
{
	int len = strlen(s);

	return snprintf(buf, n, "%.*s~%s", esc_at(s, head), s, s + esc_after(s, len - tail));
}

/*
 * @name into @buf, @w characters at most: cut short, its start and its
 * end kept, a '~' between (names of a prefix, foo.isra.0 and
 * foo.constprop.0, stay apart). Returns its length.
 */
int cut_name(char *buf, size_t n, const char *name, int w)
{
	int len = strlen(name), head = (w - 1) / 2;

	if (len <= w)
		return snprintf(buf, n, "%s", name);
	return cut_at(buf, n, name, head, w - 1 - head);
}

/*
 * Whether @names[@self], shown as its first @head and last @tail
 * characters, would read as another of @names longer than @w (those
 * shorter are shown whole): one of the same start and end.
 */
static bool cut_clash(const char * const *names, size_t cnt, size_t self, int head, int tail,
		      int w)
{
	const char *s = names[self];
	size_t ls = strlen(s), i, l;

	for (i = 0; i < cnt; i++) {
		l = strlen(names[i]);
		if (i != self && (int)l > w && !strncmp(names[i], s, head) &&
		    !strcmp(names[i] + l - tail, s + ls - tail))
			return true;
	}
	return false;
}

/*
 * @names[@self] cut to @w characters as cut_name() cuts it, but where
 * that would read as another of @names (foo_1.constprop.0 and
 * foo_11.constprop.0), its '~' moved, the nearest place first, to where
 * it reads as no other: each name of a table tells its row apart.
 */
static int unique_head(const char * const *names, size_t cnt, size_t self, int w)
{
	int h0 = (w - 1) / 2, d, head;

	for (d = 0; w >= 2 && d < 2 * w; d++) {
		head = d % 2 ? h0 + (d + 1) / 2 : h0 - d / 2;
		if (head >= 0 && head <= w - 1 &&
		    !cut_clash(names, cnt, self, head, w - 1 - head, w))
			return head;
	}
	return -1;
}

int cut_unique(char *buf, size_t n, const char * const *names, size_t cnt, size_t self, int w)
{
	const char *s = names[self];
	int len = strlen(s), head = len > w ? unique_head(names, cnt, self, w) : -1;

	if (head < 0)
		return cut_name(buf, n, s, w);
	return cut_at(buf, n, s, head, w - 1 - head);
}

/* How many of @names, cut by cut_unique() to @w, read as another. */
static size_t alike(const char * const *names, size_t cnt, int w)
{
	size_t i, n = 0;

	for (i = 0; i < cnt; i++)
		n += (int)strlen(names[i]) > w && unique_head(names, cnt, i, w) < 0;
	return n;
}

/*
 * The least width from @w up to @max at which the fewest of @names, cut
 * by cut_unique(), read as another (none, at best); @w where no width
 * tells more of them apart (names alike, or apart only deep in their
 * middle): wider would tell nothing more.
 */
int unique_width(const char * const *names, size_t cnt, int w, int max)
{
	size_t least = alike(names, cnt, w), n;
	int k, best = w;

	for (k = w + 1; least && k <= max; k++) {
		n = alike(names, cnt, k);
		if (n < least) {
			least = n;
			best = k;
		}
	}
	return best;
}

/* @text in lines of @cols columns at most, broken at its blanks. */
void puts_wrapped(const char *text, int cols)
{
	const char *p = text, *end, *brk;

	while (*p) {
		end = p + strlen(p);
		if (end - p > cols) {
			for (brk = p + cols; brk > p && *brk != ' '; brk--)
				;
			end = brk > p ? brk : p + cols;
		}
		printf("%.*s\n", (int)(end - p), p);
		p = end + (*end == ' ');
	}
}

/*
 * The table of @n rows @v in @cols columns, where the plain one is wider:
 * each column as wide as its widest cell, whole columns left out where
 * they do not all fit (as kstats top's), and said below.
 */
static void fit_table(const struct kstats_opt *o, struct row **v, size_t n, double secs,
		      int cols)
{
	static const char * const heads[] = { "count", "rate/s", "max<=", "total", "avg" };
	char (*cell)[TOP_COLS][TOP_CELL] = top_alloc(NULL, (n + 1) * sizeof(*cell));
	char head[TOP_COLS][TOP_CELL], buf[1024], out[512] = "";
	int w[TOP_COLS], keep[TOP_COLS], npct, ncol, c, k, namew = 8, left = 0;
	const double *pcts = table_pcts(o, &npct);
	const char **names = top_alloc(NULL, (n + 1) * sizeof(*names));
	size_t i;

	ncol = 5 + npct;
	for (c = 0; c < ncol; c++) {
		char q[32];

		if (c >= 2 && c < 2 + npct)
			snprintf(head[c], TOP_CELL, "p%s", pct_name(q, sizeof(q), pcts[c - 2]));
		else
			snprintf(head[c], TOP_CELL, "%s", heads[c < 2 ? c : c - npct]);
		w[c] = strlen(head[c]);
	}
	namew = rows_cells(o, v, n, secs, cell, ncol, w, names, namew);
	/* A table of no interval has no rate: a column of no width, left out. */
	if (secs <= 0)
		w[1] = -1;
	/* Names whole up to 24 characters, before a column goes, and apart. */
	namew = top_fit(o, cols, ncol, w, namew,
			unique_width(names, n, namew < 24 ? namew : 24, cols / 2), keep);
	namew = namew < (int)sizeof(buf) / 2 ? namew : (int)sizeof(buf) / 2;
	k = snprintf(buf, sizeof(buf), "%-*s", namew, "function");
	for (c = 0; c < ncol; c++) {
		if (keep[c] && (c != 1 || secs > 0))
			k += snprintf(buf + k, sizeof(buf) - k, " %*s", w[c], head[c]);
		else if (c != 1 || secs > 0)
			left += snprintf(out + left, sizeof(out) - left, "%s%s",
					 left ? ", " : "", head[c]);
	}
	puts(buf);
	for (i = 0; i < n; i++) {
		k = cut_unique(buf, sizeof(buf), names, n, i, namew);
		k += snprintf(buf + k, sizeof(buf) - k, "%*s", namew - k > 0 ? namew - k : 0, "");
		for (c = 0; c < ncol; c++)
			if (keep[c] && (c != 1 || secs > 0))
				k += snprintf(buf + k, sizeof(buf) - k, " %*s", w[c], cell[i][c]);
		puts(buf);
	}
	if (left) {
		snprintf(buf, sizeof(buf), "left out for the width: %s (a wider terminal, or a %s",
			 out, "pipe, shows them)");
		puts_wrapped(buf, cols);
	}
	free(names);
	free(cell);
}

/*
 * Plain text: the column heads and the rows, at most -n; the samples of
 * an interval of @secs, or with @secs 0 all of a snapshot, without rates.
 * Where it is wider than @cols (a terminal's; 0: no limit), fitted to it.
 */
void print_table(const struct kstats_opt *o, struct top *t, double secs, int cols)
{
	size_t n, i, w = 8;
	struct row **v = top_sorted(t, o->sort, o->sort_pct, o->reverse, &n);
	char *buf;

	if (o->lines > 0 && (size_t)o->lines < n)
		n = o->lines;
	for (i = 0; i < n; i++)
		w = strlen(v[i]->shown) > w ? strlen(v[i]->shown) : w;
	if (cols > 0 && (int)(w + cols_w(o)) - (secs > 0 ? 0 : 11) > cols) {
		fit_table(o, v, n, secs, cols);
		free(v);
		return;
	}
	buf = top_alloc(NULL, w + cols_w(o) + 64);
	table_head(o, buf, w + cols_w(o) + 64, w, secs > 0);
	puts(buf);
	for (i = 0; i < n; i++) {
		table_row(o, buf, w + cols_w(o) + 64, v[i], v[i]->shown, w, secs, secs > 0);
		puts(buf);
	}
	free(buf);
	free(v);
}

/* The cells of the rows @v, their columns' widths, and the name column's (kstats_top.h). */
int rows_cells(const struct kstats_opt *o, struct row **v, size_t n, double secs,
	       char cell[][TOP_COLS][TOP_CELL], int ncol, int *w, const char **names, int namew)
{
	size_t i;
	int c;

	for (i = 0; i < n; i++) {
		row_cells(o, v[i], secs, cell[i]);
		for (c = 0; c < ncol; c++)
			w[c] = (int)strlen(cell[i][c]) > w[c] ? (int)strlen(cell[i][c]) : w[c];
		namew = (int)strlen(v[i]->shown) > namew ? (int)strlen(v[i]->shown) : namew;
		names[i] = v[i]->shown;
	}
	return namew;
}

/* @r's cells, as table_row() prints them. */
void row_cells(const struct kstats_opt *o, const struct row *r, double secs,
	       char cell[][TOP_CELL])
{
	int i, npct;

	table_pcts(o, &npct);
	snprintf(cell[0], TOP_CELL, "%llu", (unsigned long long)r->n);
	snprintf(cell[1], TOP_CELL, "-");
	if (secs > 0)
		snprintf(cell[1], TOP_CELL, "%.1f", r->n / secs);
	for (i = 0; i < npct + 3; i++) {
		snprintf(cell[2 + i], TOP_CELL, "-");
		if (r->n && i == npct)
			fmt_bound(cell[2 + i], TOP_CELL, r->max, ks_unit(o));
		else if (r->n && i < npct)
			fmt_pct(cell[2 + i], TOP_CELL, r, r->pct[i], ks_unit(o));
		else if (r->n)
			fmt_value(cell[2 + i], TOP_CELL,
				  i == npct + 1 ? r->total : r->total / r->n, ks_unit(o));
	}
}

/*
 * Which columns fit @cols: each as wide as its widest cell, names at
 * least @minw wide; when they do not all fit, whole columns go, never
 * digits: avg, total, rate/s, the percentiles but the last, max<=, the
 * last, the column of the sort kept longest, the count never. Returns the
 * width of the names.
 */
int top_fit(const struct kstats_opt *o, int cols, int ncol, const int *w, int namew, int minw,
	    int *keep)
{
	int order[TOP_COLS], n = 0, sum = 0, c, k, npct = ncol - 5;
	int sort = o->sort == SORT_TOTAL ? ncol - 2 : o->sort == SORT_MAX ? ncol - 3 :
		   o->sort == SORT_AVG ? ncol - 1 : o->sort == SORT_PCT ? 2 + o->sort_pct : 0;

	order[n++] = ncol - 1;			/* avg */
	order[n++] = ncol - 2;			/* total */
	order[n++] = 1;				/* rate/s */
	for (c = npct; c >= 2; c--)		/* percentiles but the last */
		order[n++] = c;
	order[n++] = ncol - 3;			/* max<= */
	order[n++] = npct + 1;			/* the last percentile */
	for (c = 0; c < ncol; c++) {
		keep[c] = 1;
		sum += 1 + w[c];
	}
	for (k = 0; k < n && minw + sum > cols; k++) {
		if (order[k] == sort || !keep[order[k]])
			continue;
		keep[order[k]] = 0;
		sum -= 1 + w[order[k]];
	}
	if (minw + sum > cols && sort && keep[sort]) {
		keep[sort] = 0;
		sum -= 1 + w[sort];
	}
	return namew < cols - sum ? namew : cols - sum > minw ? cols - sum : minw;
}
