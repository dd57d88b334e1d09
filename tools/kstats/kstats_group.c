// SPDX-License-Identifier: GPL-2.0
/*
 * kstats: a group's directory as an input, and the end of kstats trace
 * 'GLOB': the table of its functions (kstats_table.c), or each function
 * in the output format asked.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kstats_top.h"

int kstats_group_table(const struct kstats_opt *o)
{
	return o->out == OUT_SUMMARY && !o->per_cpu;
}

/*
 * A group in the output format asked (--json, --csv, --openmetrics,
 * --hist, --per-cpu): begin, then each function (@i from 0), then end.
 */
static void group_begin(const struct kstats_opt *o, const char *group,
			const struct interval *iv)
{
	switch (o->out) {
	case OUT_JSON:
		if (iv)
			printf("{\"interval\":%ld,\"time\":%.3f,\"seconds\":%.3f,\"group\":",
			       iv->i, iv->time, iv->secs);
		else
			printf("{\"group\":");
		json_string(group);
		printf(",\"functions\":{");
		break;
	case OUT_OPENMETRICS:
		printf("# HELP %s kstats latency distribution%s\n", om_family(o),
		       o->human ? ", in seconds" : ", in the unit recorded");
		printf("# TYPE %s histogram\n", om_family(o));
		if (o->human)
			printf("# UNIT %s seconds\n", om_family(o));
		break;
	default:
		break;
	}
}

/*
 * One function @func of @group, the @i-th: in JSON, a member of
 * "functions" (of an interval @iv, its rate, @reset and stats, as
 * --interval of a metric has them); in CSV, rows with a first column; in
 * OpenMetrics, series of the family of every metric, with the labels
 * metric (the group, or --name) and function, and the buckets of every
 * series (--le-bits); otherwise the function's name, then its output.
 */
static void group_output(const struct kstats_opt *o, const struct ks_data *d,
			 const char *group, const char *func, size_t i, const struct interval *iv,
			 bool reset)
{
	char metric[OM_LABEL_MAX], fn[OM_LABEL_MAX], labels[2 * OM_LABEL_MAX + 64];
	uint64_t n = 0;
	size_t c;

	switch (o->out) {
	case OUT_JSON:
		printf("%s", i ? "," : "");
		json_string(func);
		putchar(':');
		if (!iv) {
			json_stats(o, d, selected(o, d, func), 1);
			break;
		}
		for (c = 0; c < d->all.nslots; c++)
			n += d->all.count[c];
		printf("{\"rate\":%.1f,\"reset\":%s,\"stats\":", n / iv->secs,
		       reset ? "true" : "false");
		json_stats(o, d, selected(o, d, func), 1);
		putchar('}');
		break;
	case OUT_CSV:
		print_csv(o, d, selected(o, d, func), iv, func, !i);
		break;
	case OUT_OPENMETRICS:
		if (o->le_bits > d->bits)
			die(1, "--le-bits %d: finer than the frac_bits %d of %s", o->le_bits,
			    d->bits, func);
		om_label(metric, sizeof(metric), o->name ? o->name : group);
		om_label(fn, sizeof(fn), func);
		if (!o->per_cpu) {
			snprintf(labels, sizeof(labels), "metric=\"%s\",function=\"%s\",",
				 metric, fn);
			om_series(o, om_family(o), labels, d, &d->all);
			break;
		}
		for (c = 0; c < d->ncpus; c++) {
			if (!d->cpu[c].nslots)
				continue;
			snprintf(labels, sizeof(labels),
				 "metric=\"%s\",function=\"%s\",cpu=\"%zu\",", metric, fn, c);
			om_series(o, om_family(o), labels, d, &d->cpu[c]);
		}
		break;
	default:
		printf("%sfunction %s\n", i ? "\n" : "", shown(fn, sizeof(fn), func));
		output(o, d, func);
		break;
	}
}

static void group_end(const struct kstats_opt *o, size_t n, const struct interval *iv)
{
	if (o->out == OUT_CSV && !n)
		print_csv(o, NULL, &(struct ks_hist){ 0 }, iv, "", 1);
	else if (o->out == OUT_JSON)
		printf("}}\n");
	else if (o->out == OUT_OPENMETRICS)
		printf("# EOF\n");
}

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

/* The frac_bits of the group at @path: @bits (--bits), or those of its _summary. */
static int group_bits(const char *path, int bits)
{
	char *p = top_printf("%s/" SUMMARY, path), line[1024];
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
 * The CPUs with samples of each of the @n functions @names of the group at
 * @path, summed: the label sets of --openmetrics --per-cpu, counted before
 * anything is written. A file that cannot be read counts nothing here.
 */
static size_t group_cpus(const char *path, char **names, size_t n)
{
	size_t i, c, sets = 0;
	struct ks_data d;
	char *p;
	FILE *f;

	for (i = 0; i < n; i++) {
		p = top_printf("%s/%s", path, names[i]);
		f = fopen(p, "r");
		free(p);
		if (!f)
			continue;
		ks_data_init(&d);
		if (!ks_read(&d, f))
			for (c = 0; c < d.ncpus; c++)
				sets += d.cpu[c].nslots > 0;
		fclose(f);
		ks_data_free(&d);
	}
	return sets;
}

/*
 * The rows of the group at @path, read once, strictly (malformed text is
 * an error); an error that names @who (the subcommand) if it cannot be.
 */
static struct top *group_read(const struct kstats_opt *o, const char *path, const char *who)
{
	const double *pcts;
	struct top *t;
	int npct;

	pcts = table_pcts(o, &npct);
	t = top_new(path, NULL, 1, o->bits, pcts, npct);
	t->who = "";
	t->strict = 1;
	top_read(t);
	if (t->missing)
		kstats_die(1, "%s%s: %s", who, path, strerror(t->missing));
	return t;
}

/*
 * Of the group at @path read into @t, the functions that its _summary and
 * its files disagree on, as a list ", f1, f2" (@list, to free): with
 * @nofile, those of lines in _summary without a file (a copy of _summary
 * alone); else those of a file with lines and none in _summary (a copy of
 * _summary cut short, or a function called first while it was copied).
 * Their number.
 */
static size_t group_disagree(struct top *t, const char *path, bool nofile, char **list)
{
	size_t i, n = 0, len = 0;
	struct stat st;
	FILE *f;

	f = open_memstream(list, &len);
	if (!f)
		kstats_die(1, "out of memory");
	for (i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];
		char *p = top_printf("%s/%s", path, r->name);
		bool has_file = !stat(p, &st), lines = r->bits[r->cur] >= 0;

		free(p);
		if (nofile ? lines && !has_file : !lines && has_file && st.st_size > 0)
			fprintf(f, "%s %s", n++ ? "," : "", r->name);
	}
	if (fclose(f))
		kstats_die(1, "out of memory");
	return n;
}

/*
 * --compare of groups reads each function's file: a copy of a group with
 * lines in its _summary of functions without a file (of _summary alone)
 * would compare fewer, or none, and say nothing. An error, exit 2.
 */
void group_need_files(const struct kstats_opt *o, const char *path)
{
	struct top *t = top_new(path, NULL, 1, o->bits, NULL, 0);
	char *list = NULL;
	size_t n = 0;

	/* Its names only, and --compare does not read it: malformed is no error. */
	t->who = "";
	if (!top_read(t) && !t->missing)
		n = group_disagree(t, path, true, &list);

	if (n)
		kstats_die(2, "--compare: %s: %zu function%s %s %s%s:%s", path, n, n > 1 ? "s" : "",
			   "of its _summary without a file",
			   "(--compare reads each function's file: ",
			   "copy the whole directory)", list);
	free(list);
	top_free(t);
}

/*
 * The group at @path, read as an input (kstats DIR, --diff, --merge): as
 * a metric's slots and means, the bits of its _summary fit --bits or not.
 */
static struct top *group_input(const struct kstats_opt *o, const char *path, const char *who)
{
	struct top *t = group_read(o, path, who);

	if (o->bits >= 0 && t->bits >= 0 && t->bits != o->bits)
		kstats_die(2, "%s%s: inconsistent input: %s %d, not %d (--bits)", who, path,
			   "its _summary has bits", t->bits, o->bits);
	return t;
}

/*
 * The functions of @t, each with the samples of its last interval (its
 * _summary's: no CPUs), or with @whole all of its samples, by name, in
 * the format asked (not the table); @iv: the interval of --interval;
 * @gone: of a trace ended (kstats trace 'GLOB'), that cannot be read again.
 */
static void group_each(const struct kstats_opt *o, struct top *t, const char *group,
		       const struct interval *iv, bool whole, bool gone)
{
	struct row **v;
	struct ks_data d;
	size_t n, i;
	int bits;

	v = top_sorted(t, SORT_NAME, 0, 0, &n);
	/* Refused, but where the trace that made the group is gone (@gone). */
	if (o->out == OUT_OPENMETRICS)
		om_series_check(o, n, gone);
	group_begin(o, group, iv);
	for (i = 0; i < n; i++) {
		ks_data_init(&d);
		if (whole) {
			d.all = v[i]->hist[v[i]->cur];
			bits = v[i]->bits[v[i]->cur];
		} else {
			d.all = *row_hist(v[i], &bits);
		}
		d.have_all = 1;
		d.bits = bits >= 0 ? bits : t->bits >= 0 ? t->bits : 1;
		group_output(o, &d, group, v[i]->name, i, iv,
			     !whole && v[i]->seen == t->gen && v[i]->reset);
	}
	group_end(o, n, iv);
	free(v);
}

/*
 * The line over a group's table: @lead (the interval's, or ""), the
 * group, its functions, @secs (or ""), the sort and the bits, with the
 * slots' width where the terminal has room for it.
 */
static void group_head(const struct kstats_opt *o, struct top *t, const char *lead,
		       const char *group, const char *secs)
{
	int w = out_width(), wide, n = 0;
	char *head = NULL;

	for (wide = 1; wide >= 0; wide--) {
		free(head);
		n = asprintf(&head, "%sgroup %s functions %zu%s sort %s bits %s", lead,
			     top_what(t, group), top_listed(t, &(size_t){ 0 }), secs,
			     sort_name(o), top_bits(t, wide));
		if (n < 0)
			kstats_die(1, "out of memory");
		if (!w || n <= w)
			break;
	}
	puts(head);
	free(head);
}

/*
 * The functions of @t, with the samples of its last interval: the
 * group's table, led by its line (with @secs, the seconds it covers), or
 * each function in the format asked (@gone: group_each()'s).
 */
static void group_print(const struct kstats_opt *o, struct top *t, const char *group,
			double secs, bool gone)
{
	char s[48] = "";

	if (!kstats_group_table(o)) {
		group_each(o, t, group, NULL, false, gone);
		return;
	}
	if (secs > 0)
		snprintf(s, sizeof(s), " seconds %.3f", secs);
	group_head(o, t, "", group, s);
	print_table(o, t, secs, out_width());
}

/*
 * kstats [options] DIR, DIR a group's: the table of its functions from
 * its _summary; or each function's file in the format asked.
 */
void group_main(const struct kstats_opt *o, const char *path, const char *input)
{
	char *group = group_name(input), **names = NULL, *p;
	size_t n = 0, i, k = 0;
	struct dirent *e;
	struct ks_data d;
	struct top *t;
	int bits;
	FILE *f;
	DIR *dir;

	if (o->out == OUT_HGRM)
		kstats_usage_error("--hgrm: of one function's file (%s/FUNC), not of a group",
				   path);
	if (kstats_group_table(o) && o->cpu >= 0)
		kstats_usage_error("--cpu: not with a group's table: %s (%s: each function's)",
				   "its _summary has no CPUs", "--json, --csv or --hist");
	if (kstats_group_table(o)) {
		t = group_input(o, path, "");
		group_print(o, t, group, 0, false);
		top_free(t);
		free(group);
		return;
	}
	bits = group_bits(path, o->bits);
	dir = opendir(path);
	if (!dir)
		kstats_die(1, "%s: %s", path, strerror(errno));
	while ((e = readdir(dir))) {
		if (not_metric(e->d_name) || e->d_type == DT_DIR)
			continue;
		names = top_alloc(names, (n + 1) * sizeof(*names));
		names[n] = strdup(e->d_name);
		if (!names[n++])
			kstats_die(1, "out of memory");
	}
	closedir(dir);
	qsort(names, n, sizeof(*names), name_cmp);
	if (o->out == OUT_OPENMETRICS)
		om_series_check(o, o->per_cpu ? group_cpus(path, names, n) : n, 0);
	group_begin(o, group, NULL);
	for (i = 0; i < n; i++) {
		p = top_printf("%s/%s", path, names[i]);
		f = fopen(p, "r");
		/* A function gone meanwhile (its module unloaded) is not listed. */
		if (f) {
			ks_data_init(&d);
			if (ks_read(&d, f) || ks_finish(&d, bits))
				kstats_die(2, "%s: %s", p, d.err);
			fclose(f);
			group_output(o, &d, group, names[i], k++, NULL, false);
			ks_data_free(&d);
		} else if (errno != ENOENT) {
			kstats_die(1, "%s: %s", p, strerror(errno));
		}
		free(p);
		free(names[i]);
	}
	group_end(o, k, NULL);
	free(names);
	free(group);
}

struct top *group_snapshot(const struct kstats_opt *o, const char *path)
{
	return group_read(o, path, "trace: ");
}

/*
 * The end of kstats trace 'GLOB': the table of every function of the
 * group, over the @secs seconds of the trace; or each function (from the
 * group's _summary, without CPUs) in the format asked.
 */
void group_report(const struct kstats_opt *o, struct top *t, const char *group, double secs)
{
	group_print(o, t, group, secs, true);
	top_free(t);
}

/*
 * kstats --merge of the @n groups' directories @paths (named @inputs):
 * each function's samples summed over the groups that have it (from
 * their _summary files), at the coarsest frac_bits of them (said, as
 * --merge of metrics says it); the group's table, or each function in
 * the format asked.
 */
void group_merge(const struct kstats_opt *o, int n, char **paths, char **inputs)
{
	struct top **g = top_alloc(NULL, n * sizeof(*g));
	char *list = NULL;
	size_t len = 0;
	int i, bits = KS_MAX_BITS, differ = 0;
	FILE *f;

	for (i = 0; i < n; i++) {
		g[i] = group_input(o, paths[i], "--merge: ");
		if (g[i]->bits >= 0 && g[i]->bits < bits)
			bits = g[i]->bits;
		differ |= g[i]->bits != g[0]->bits;
	}
	if (differ) {
		f = open_memstream(&list, &len);
		for (i = 0; f && i < n; i++)
			fprintf(f, "%s %s has %d", i ? "," : "", inputs[i], g[i]->bits);
		if (!f || fclose(f))
			kstats_die(1, "out of memory");
		kstats_warn("--merge: the groups' frac_bits differ:%s; merged at frac_bits %d, %s%s",
			    list, bits, "the coarsest (exact: each of its slots is a union ",
			    "of finer ones)");
		free(list);
	}
	for (i = 1; i < n; i++) {
		top_add(g[0], g[i], bits);
		top_free(g[i]);
	}
	/* The groups' common name, or "merged". */
	list = group_name(inputs[0]);
	for (i = 1; i < n; i++) {
		char *name = group_name(inputs[i]);

		if (strcmp(name, list)) {
			free(list);
			list = strdup("merged");
		}
		free(name);
		if (!list)
			kstats_die(1, "out of memory");
	}
	group_print(o, g[0], list, 0, false);
	top_free(g[0]);
	free(list);
	free(g);
}

/*
 * kstats --diff OLD NEW of two snapshots of a group's directory (copies,
 * cp -r, taken before and after): what each function of NEW recorded
 * since OLD, from their _summary files. A function new in NEW counts all
 * its samples; one with fewer in NEW (a reset, its module reloaded)
 * counts from nothing; one of OLD gone from NEW is not listed: each said
 * on standard error. Different frac_bits of a function are an error.
 */
void group_diff(const struct kstats_opt *o, const char *old, const char *new, const char *input)
{
	struct top *t = group_input(o, old, "--diff: ");
	char *group = group_name(input), *gone = NULL, *reset = NULL, *fresh = NULL, *list;
	size_t i, ngone = 0, nreset = 0, nnew = 0, both = 0, len = 0, rlen = 0, nlen = 0, k;
	FILE *f, *fr, *fn;

	/* OLD's _summary cut short (an interrupted copy): NEW's count whole. */
	k = group_disagree(t, old, false, &list);
	if (k)
		kstats_warn("--diff: %s: %zu function%s with a file of samples and no line in %s:%s",
			    old, k, k > 1 ? "s" : "",
			    "its _summary (cut short? called first while copied?)", list);
	free(list);
	free(t->path);
	t->path = strdup(new);
	if (!t->path)
		kstats_die(1, "out of memory");
	top_read(t);
	if (t->missing)
		kstats_die(1, "--diff: %s: %s", new, strerror(t->missing));
	f = open_memstream(&gone, &len);
	fr = open_memstream(&reset, &rlen);
	fn = open_memstream(&fresh, &nlen);
	for (i = 0; f && fr && fn && i < t->nrows; i++) {
		const struct row *r = &t->rows[i];

		if (r->bits[r->prv] >= 0 && r->bits[r->cur] >= 0 &&
		    r->bits[r->prv] != r->bits[r->cur])
			kstats_die(2, "--diff: %s: frac_bits %d in %s, %d in %s", r->name,
				   r->bits[r->prv], old, r->bits[r->cur], new);
		if (r->mark == '-') {
			fprintf(f, "%s %s", ngone++ ? "," : "", r->name);
			continue;
		}
		both += r->bits[r->prv] >= 0;
		if (r->reset)
			fprintf(fr, "%s %s", nreset++ ? "," : "", r->name);
		else if (r->bits[r->prv] < 0 && r->bits[r->cur] >= 0)
			fprintf(fn, "%s %s", nnew++ ? "," : "", r->name);
	}
	if (!f || !fr || !fn || fclose(f) || fclose(fr) || fclose(fn))
		kstats_die(1, "out of memory");
	/*
	 * Most functions fewer: not a later snapshot (OLD and NEW swapped, or
	 * a reset of the group), as --diff of two metrics says of one.
	 */
	if (nreset * 2 > both)
		kstats_die(2, "--diff: %s: %zu of %zu functions %s %s: %s", new, nreset, both,
			   "have a slot of fewer samples than in", old,
			   "not a later snapshot (OLD and NEW swapped? the group reset?)");
	if (nreset)
		kstats_warn("--diff: %zu function%s with a slot of fewer samples in %s than in %s %s:%s",
			    nreset, nreset > 1 ? "s" : "", new, old,
			    "(a reset, or a module reloaded), counted from nothing", reset);
	if (ngone)
		kstats_warn("--diff: %zu function%s of %s not in %s (not listed):%s", ngone,
			    ngone > 1 ? "s" : "", old, new, gone);
	if (nnew)
		kstats_warn("--diff: %zu function%s of samples in %s and none in %s %s:%s", nnew,
			    nnew > 1 ? "s" : "", new, old, "(new, or first called), counted whole",
			    fresh);
	free(gone);
	free(reset);
	free(fresh);
	group_print(o, t, group, 0, false);
	top_free(t);
	free(group);
}

/*
 * kstats --interval SECS DIR, DIR a group's: at each interval, the table
 * of what its functions recorded in it, with their rate (from its
 * _summary, as kstats top -b); with --json a JSON line, with --csv the
 * rows of one CSV, led by the interval, time and seconds; --openmetrics
 * the totals so far (with -o, each exposition replaces the file). A read
 * of malformed text after the first is skipped (said once), the next
 * covers its time; a group removed is waited for, as a metric is.
 */
void group_follow(const struct kstats_opt *o, const char *path, const char *input)
{
	char *group = group_name(input);
	double next, t0, t1;
	struct timespec ts;
	struct top *t;
	size_t k;
	long i;
	int gone = 0;

	t = group_input(o, path, "");
	t->strict = 0;
	/* Refused before the first interval, not after it. */
	if (o->out == OUT_OPENMETRICS)
		om_series_check(o, top_listed(t, &(size_t){ 0 }), 0);
	t0 = now_s(CLOCK_MONOTONIC);
	next = t0 + o->interval;
	for (i = 1; !o->count || i <= o->count; i++) {
		ts.tv_sec = (time_t)next;
		ts.tv_nsec = (long)((next - (time_t)next) * 1e9);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		t1 = now_s(CLOCK_MONOTONIC);
		next = fmax(next + o->interval, t1);
		if (top_read(t)) {
			top_say_bad(t);
			i--;
			continue;
		}
		if (t->missing && !gone++)
			kstats_warn("%s: %s; waiting for it", input, strerror(t->missing));
		else if (!t->missing && gone)
			kstats_warn("%s: back", input);
		gone = t->missing ? gone : 0;
		for (k = 0; k < t->nrows; k++) {
			const struct row *r = &t->rows[k];

			if (r->seen == t->gen && r->reset)
				kstats_warn("interval %ld: %s: %s (%s): counted from nothing", i,
					    r->name, "a slot of fewer samples than the read before",
					    "a reset, or its module reloaded");
			else if (r->mark == '-' && !t->missing)
				kstats_warn("interval %ld: %s: gone (%s), not listed", i, r->name,
					    "its module unloaded, or its trace removed");
		}
		if (o->out == OUT_OPENMETRICS) {
			if (o->outfile)
				out_begin(o->outfile, true);
			group_each(o, t, group, NULL, true, false);
			if (o->outfile)
				out_commit(o->outfile);
		} else if (o->out != OUT_SUMMARY) {
			struct interval iv = { i, now_s(CLOCK_REALTIME), t1 - t0 };

			group_each(o, t, group, &iv, false, false);
		} else {
			char lead[64];

			snprintf(lead, sizeof(lead), "interval %ld seconds %.3f ", i, t1 - t0);
			group_head(o, t, lead, group, "");
			print_table(o, t, t1 - t0, out_width());
		}
		if (fflush(stdout))
			kstats_die(1, "standard output: %s", strerror(errno));
		t0 = t1;
	}
	top_free(t);
	free(group);
}
