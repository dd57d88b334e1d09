// SPDX-License-Identifier: GPL-2.0
/* kstats --interval: the samples of each interval of a live metric. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kstats.h"

/* 1 if @new is a later snapshot of @old: no slot of any CPU, or of CPUS, has fewer. */
static int hist_later(const struct ks_hist *old, const struct ks_hist *new)
{
	size_t s;

	for (s = 0; s < old->nslots; s++)
		if (old->count[s] && (s >= new->nslots || new->count[s] < old->count[s]))
			return 0;
	return 1;
}

/* The CPUS lines too: an input may have no CPU line. */
static int later(const struct ks_data *old, const struct ks_data *new)
{
	size_t c;

	if (old->bits != new->bits || old->ncpus > new->ncpus ||
	    !hist_later(&old->all, &new->all))
		return 0;
	for (c = 0; c < old->ncpus; c++)
		if (!hist_later(&old->cpu[c], &new->cpu[c]))
			return 0;
	return 1;
}

double now_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One interval of --interval, as --rows, --json (a JSON line) or else. */
static void follow_print(const struct kstats_opt *o, const struct ks_data *d, const char *input,
			 long i, double secs, int reset)
{
	char x[32], clock[16];
	struct stats st;
	time_t now;
	struct tm tm;
	int k;

	compute(selected(o, d, input), d->bits, o->pct, o->npct, &st);
	if (o->rows) {
		if (i == 1) {
			if (o->cpu >= 0)
				printf("cpu %ld\n", o->cpu);
			printf("%-8s %8s %10s %10s", "time", "interval", "count", "rate/s");
			for (k = 0; k < o->npct; k++) {
				char col[40];

				snprintf(col, sizeof(col), "p%s",
					 pct_name(x, sizeof(x), o->pct[k]));
				printf(" %11s", col);
			}
			printf(" %11s %11s %11s\n", "max<=", "total", "avg");
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
		for (k = 0; k < o->npct; k++)
			printf(" %11s", !st.n ? "-" :
			       fmt_in_slot(x, sizeof(x), st.pct[k].value, st.pct[k].lo,
					   st.pct[k].hi, ks_unit(o)));
		printf(" %11s", !st.n ? "-" :
		       fmt_hi(x, sizeof(x), ks_slot_max(st.last, d->bits), ks_unit(o)));
		printf(" %11s", fmt_val(x, sizeof(x), st.sum, ks_unit(o)));
		printf(" %11s%s\n", st.n ? fmt_val(x, sizeof(x), st.mean, ks_unit(o)) : "-",
		       reset ? "  (reset)" : "");
	} else if (o->out == OUT_CSV) {
		struct interval iv = { i, now_s(CLOCK_REALTIME), secs };

		print_csv(o, d, selected(o, d, input), &iv, NULL, 1);
	} else if (o->out == OUT_OPENMETRICS) {
		/*
		 * An exposition per interval, of the totals so far; nothing
		 * between them. With -o, each replaces the file whole, for
		 * node_exporter's textfile collector.
		 */
		if (o->outfile)
			out_begin(o->outfile, true);
		output(o, d, input);
		if (o->outfile)
			out_commit(o->outfile);
	} else if (o->out == OUT_JSON) {
		printf("{\"interval\":%ld,\"time\":%.3f,\"seconds\":%.3f",
		       i, now_s(CLOCK_REALTIME), secs);
		printf(",\"rate\":%.1f,\"reset\":%s,\"stats\":", st.n / secs,
		       reset ? "true" : "false");
		json_stats(o, d, selected(o, d, input), 1);
		printf("}\n");
	} else {
		printf("interval %ld seconds %.3f rate %.1f/s%s\n", i, secs, st.n / secs,
		       reset ? " (after a reset)" : "");
		output(o, d, input);
	}
	fflush(stdout);
}

/*
 * 0, or the errno that kept @path from being read: a metric removed
 * between two intervals (ENOENT at open, or EIO from debugfs when it goes
 * while open) is waited for, not an error. Malformed text (a file
 * rewritten in place while read, as rsync or a network file system copy
 * does) is -1, with why in @why (BUFSIZ bytes): that read is skipped.
 */
static int try_load(const struct kstats_opt *o, struct ks_data *d, const char *path, char *why)
{
	FILE *f = fopen(path, "r");
	int err;

	if (!f)
		return errno;
	ks_data_init(d);
	if (ks_read(d, f)) {
		err = ferror(f) ? (errno ?: EIO) : 0;
		fclose(f);
		if (!err) {
			snprintf(why, BUFSIZ, "%s", d->err);
			err = -1;
		}
		ks_data_free(d);
		return err;
	}
	fclose(f);
	if (ks_finish(d, o->bits)) {
		snprintf(why, BUFSIZ, "%s", d->err);
		ks_data_free(d);
		return -1;
	}
	return 0;
}

/*
 * --interval: the samples of each interval, the difference of two
 * snapshots over the time measured between them. A snapshot with fewer
 * samples than the one before (a reset, or a remove and a new trace)
 * starts again from it, and is said to; a metric that is gone is waited
 * for. --openmetrics: the totals of the intervals so far.
 */
void follow(const struct kstats_opt *o, const char *input)
{
	struct timespec ts = { (time_t)o->interval,
			       (long)((o->interval - (time_t)o->interval) * 1e9) };
	char *path = resolve(input);
	struct ks_data prev, cur, total;
	double t0, t;
	long i = 0;
	int err, gone = 0, bad = 0, reset;
	char why[BUFSIZ];

	load(&prev, path, o->bits);
	selected(o, &prev, path);	/* --cpu N of this input, said now */
	ks_data_init(&total);
	t0 = now_s(CLOCK_MONOTONIC);
	while (!o->count || i < o->count) {
		nanosleep(&ts, NULL);
		err = try_load(o, &cur, path, why);
		/* Malformed: no output for this read, the next covers it; said once. */
		if (err < 0) {
			if (!bad++)
				kstats_warn("%s: %s; skipped that read, reading again", path, why);
			continue;
		}
		if (err) {
			if (!gone++)
				kstats_warn("%s: %s; waiting for it", path, strerror(err));
			continue;
		}
		t = now_s(CLOCK_MONOTONIC);
		reset = gone || !later(&prev, &cur);
		if (reset) {
			kstats_warn("%s: %s; counting from it again", path,
				    gone ? "back" : "reset");
			/* The interval is what the new snapshot holds. */
			ks_data_free(&prev);
			ks_data_init(&prev);
			prev.bits = cur.bits;
			prev.possible = cur.possible;
		}
		gone = 0;
		diff(&prev, &cur, path);
		/*
		 * OpenMetrics' histograms are counters: the totals of the
		 * intervals so far, which a reset does not lower. A reader
		 * (Prometheus' rate()) takes each interval's from them.
		 */
		if (o->out == OUT_OPENMETRICS)
			data_add(&total, &prev);
		follow_print(o, o->out == OUT_OPENMETRICS ? &total : &prev, input, ++i, t - t0,
			     reset);
		ks_data_free(&prev);
		prev = cur;
		t0 = t;
	}
	ks_data_free(&prev);
	ks_data_free(&total);
	free(path);
}
