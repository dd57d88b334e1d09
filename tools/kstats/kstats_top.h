/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats top, and the table of a group's functions: what their files
 * share. A group is one fprobe over every function that an ftrace glob
 * matches (kstats trace 'GLOB'): the directory kstats/NAME/ holds a
 * metric file per function, and _summary, a line per function and
 * non-empty slot, its counts summed over the CPUs:
 *
 *   function vfs_read bits 1 slot 21 count 1234 avg 1530
 *
 * kstats top shows, for each function of a group (or each metric), the
 * samples of the last interval: the difference of two reads. It reads a
 * group's _summary, and only the CPUS lines of a metric's file.
 *
 * kstats_rows.c: the rows, read and differenced; kstats_table.c: their
 * table, its columns and what fits a width; kstats_term.c: the terminal
 * (screen, signals); kstats_top.c: kstats top's options, keys and loops;
 * kstats_group.c: a group's directory as an input of kstats.
 */
#ifndef KSTATS_TOP_H
#define KSTATS_TOP_H

#include <stdarg.h>
#include <stdbool.h>

#include "kstats.h"

#define SUMMARY "_summary"

/* A function of a group, or a metric. */
struct row {
	char *name;		/* FUNC, METRIC, or GROUP/FUNC (kstats top alone) */
	char *shown;		/* the name with control characters escaped */
	/*
	 * The last two reads, cumulative: hist[cur] is the last, hist[prv]
	 * the one before; the third, ROW_NEXT(), the read under way, which
	 * a read skipped (malformed text) leaves the other two intact for.
	 */
	struct ks_hist hist[3];
	int bits[3];		/* -1: no samples */
	uint64_t samples[3];
	int cur, prv;
	unsigned long seen;	/* the read that last listed it */
	int listed;		/* by the last read that was not skipped */
	/*
	 * Since the read before: '+' listed now and not then (a function
	 * traced since, a module loaded), '-' listed then and not now; else ' '.
	 */
	char mark;
	/* The samples between the last two reads. */
	uint64_t n;
	bool reset;		/* fewer than the read before: counted from nothing */
	uint64_t max;		/* the upper bound of the largest sample's slot */
	double total;
	double pct[MAX_PCTS];	/* of the columns (top->pct) */
};

/* The histogram of a row that the read under way fills. */
static inline int ROW_NEXT(const struct row *r)
{
	return 3 - r->cur - r->prv;
}

struct top {
	char *path;		/* a group's directory or a metric; NULL: all of dir */
	char *dir;		/* the kstats directory, for a NULL path */
	int group;		/* path is a group's directory */
	int files;		/* --files: a group's function files, not _summary */
	int bits_opt;		/* --bits: the frac_bits of the files read, or -1 */
	const double *pct;	/* the percentile columns of each row */
	int npct;
	struct row *rows;
	size_t nrows, cap;
	size_t *hash;		/* index of a row + 1, 0 where free */
	size_t hsize;		/* a power of 2, at least twice nrows */
	unsigned long gen;	/* reads so far */
	unsigned long reads;	/* reads not skipped */
	int show_gone;		/* top_sorted() lists the rows marked '-' too, last */
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
	int cut_skipped;	/* the last read skipped as a _summary cut short */
	/*
	 * The last _summary read was the kernel's, from debugfs: a copy it
	 * made whole when opened, which no read can find cut short.
	 */
	int whole;
	int bad_said;
	/* Files of the directory that are not metrics: skipped, each said once. */
	char **skipped;
	size_t nskipped, said;
	int hold;		/* on a terminal's screen: said once it is left */
	const char *who;	/* what says them: "top: " (NULL), or "" (kstats) */
};

/* kstats_rows.c: the rows */
void *top_alloc(void *p, size_t n);
char *top_printf(const char *fmt, ...);
/*
 * What to read: the group's directory or the metric @path (@group: a
 * group's), or with a NULL @path every metric of the kstats directory
 * @dir; its files of frac_bits @bits (-1: inferred); each row with the
 * @npct percentiles @pct.
 */
struct top *top_new(const char *path, const char *dir, int group, int bits,
		    const double *pct, int npct);
void top_free(struct top *t);
/* A read; -1 when malformed text made it skip it (said by top_say_bad()). */
int top_read(struct top *t);
void top_say_bad(struct top *t);
/* The rows of @src's last read added to @t's, at frac_bits @bits (--merge). */
void top_add(struct top *t, const struct top *src, int bits);
/* The files skipped, said on standard error (unless @t->hold). */
void top_say_skipped(struct top *t);
/*
 * The rows that the last read listed, sorted by @sort (@sort_pct),
 * @reverse: in the reverse order (those without samples still last): *@n.
 */
struct row **top_sorted(struct top *t, enum kstats_sort sort, int sort_pct, int reverse,
			size_t *n);
/*
 * The samples of @r's last interval (as its cells show them), in a
 * histogram valid until the next call; *@bits: its frac_bits.
 */
const struct ks_hist *row_hist(const struct row *r, int *bits);
/* The rows listed; *@called: those with samples. */
size_t top_listed(struct top *t, size_t *called);
/*
 * The frac_bits of the rows listed, for a header: "1", "1-5" (rows of
 * different ones), "-" (none known); @wide adds the width of the
 * coarsest slots, "1 (slots at most 50% wide)".
 */
const char *top_bits(struct top *t, int wide);
/* What @t shows, for a header: the directory, or @name; escaped. */
const char *top_what(struct top *t, const char *name);

/* kstats_table.c: the table */
/* The percentile columns: -p, or p50 and p99. */
const double *table_pcts(const struct kstats_opt *o, int *n);
/* The last percentile column, which the key p sorts by, and its name. */
int pct_last(const struct kstats_opt *o);
const char *pct_key_name(const struct kstats_opt *o);
/* The name of the sort: "total", "p99"... */
const char *sort_name(const struct kstats_opt *o);
/* The sort of a key of kstats top (t, p, c, n), or -1. */
int sort_of_key(int key);
/* Plain text: the column heads and the rows, at most -n, over @secs (0: all). */
void print_table(const struct kstats_opt *o, struct top *t, double secs, int cols);
/* The cells of a terminal's table (count, rate/s, pQ..., max<=, total, avg). */
#define TOP_COLS	(3 + MAX_PCTS + 2)
#define TOP_CELL	32
void row_cells(const struct kstats_opt *o, const struct row *r, double secs,
	       char cell[][TOP_CELL]);
/*
 * The cells of @n rows @v into @cell, the widest of each of @ncol columns
 * into @w (at least as wide as they come) and the names into @names;
 * returns the widest name, @namew at least.
 */
int rows_cells(const struct kstats_opt *o, struct row **v, size_t n, double secs,
	       char cell[][TOP_COLS][TOP_CELL], int ncol, int *w, const char **names, int namew);
/* Which of @ncol columns of widths @w fit @cols: @keep; the names' width. */
int top_fit(const struct kstats_opt *o, int cols, int ncol, const int *w, int namew, int minw,
	    int *keep);

/* kstats_term.c: the terminal */
/* Raw mode and the alternate screen; left on every way out. */
void tty_enter(void);
void tty_leave(void);
void term_size(int *rows, int *cols);
/* A screen of @rows lines begins; a line of it; the lines left. */
void screen_begin(int rows);
void screen_line(const char *s, int cols, const char *attr);
int screen_left(void);
/* The signals of kstats top: a descriptor to poll; 1 to redraw. */
int catch_signals(void);
int top_signal(int fd);

#endif
