/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats: summarize, compare and export kstats distributions.
 *
 * Reads the text of /sys/kernel/debug/kstats/NAME (a path, a metric name
 * or - for stdin) and prints percentiles with their error bounds, the
 * histogram, JSON, CSV or OpenMetrics; follows a live metric; subtracts
 * two snapshots; compares two distributions; times a kernel function
 * for the length of a command (kstats trace). See kstats(1).
 *
 * What the files of the tool share, one section per file: kstats.c has
 * main(), which dispatches a subcommand (top, trace) to its file, or
 * parses the options into a struct kstats_opt, checks them in one place
 * and passes them to the file of each mode. No module keeps options of
 * its own. The leaf modules take their inputs as arguments and link
 * alone (tests/leaf_test.c): kstats_parse.c reads the input text (also
 * for the fuzz target), kstats_stats.c computes, kstats_format.c prints
 * numbers, kstats_err.c reports errors. kstats top's files share
 * kstats_top.h.
 */
#ifndef KSTATS_H
#define KSTATS_H

#include <stdbool.h>
#include <time.h>

#include "kstats_parse.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define MAX_PCTS 32
#define MAX_FAIL_IF 8
/* The exit status of kstats --compare when a --fail-if rule fails. */
#define EXIT_FAIL_IF 3

enum kstats_out { OUT_SUMMARY, OUT_HIST, OUT_JSON, OUT_CSV, OUT_OPENMETRICS, OUT_HGRM };

/* The order of a table of functions (-s, kstats top's keys). */
/* SORT_RATE: count / the interval, the same for every row: count's order. */
enum kstats_sort {
	SORT_TOTAL, SORT_PCT, SORT_COUNT, SORT_NAME, SORT_MAX, SORT_AVG, SORT_RATE, NR_SORTS
};

/*
 * The options, parsed by main() (kstats.c) or top_main() (kstats_top.c)
 * and passed down to each mode: no module reads options of its own.
 */
struct kstats_opt {
	double pct[MAX_PCTS];
	int npct;
	int pcts;		/* -p given: also the columns of a group's table */
	int bits;		/* --bits, or -1 */
	long cpu;		/* --cpu, or -1 */
	int per_cpu;
	int human;		/* the values' unit: 0 none, 1 ns, 2 us, 3 ms, 4 s */
	int disp;		/* --unit: the unit to print them in as human's; 0 each its own */
	enum kstats_out out;
	double interval;
	long count;		/* --count, 0 = forever */
	int rows;		/* --rows: a line per interval */
	const char *name;	/* for OpenMetrics */
	int le_bits;		/* --le-bits: the frac_bits of OpenMetrics' buckets */
	long series_max;	/* --series-max: OpenMetrics' series at most; 0: any */
	const char *outfile;	/* -o */
	int log2;		/* --hist --log2 */
	long pid;		/* kstats trace --pid */
	const char *cgroup;	/* kstats trace --cgroup */
	/* --fail-if STAT>N% or STAT<N%, each: its text, statistic, sign, N */
	struct kstats_fail_if {
		const char *text;	/* the rule, without blanks: spec */
		char spec[64];
		int stat;	/* -1: the mean; else a column of pct */
		int op;		/* '>' or '<' */
		double pct;
	} fail_if[MAX_FAIL_IF];
	int nfail_if;
	/* A table of functions (a group's, kstats top's) */
	long lines;		/* -n: the rows shown; 0: all (a terminal's height) */
	enum kstats_sort sort;	/* -s */
	int sort_pct;		/* SORT_PCT: the column of the percentile */
	int reverse;		/* kstats top's key R: the sort reversed */
};

/* kstats_err.c: errors and warnings */
extern const char *prog;
/* "kstats: MESSAGE" on standard error, after the cleanups; exit(@status). */
_Noreturn void kstats_die(int status, const char *fmt, ...);
/* A usage error: what is wrong, in a line, and where to read more; exit(1). */
_Noreturn void kstats_usage_error(const char *fmt, ...);
/* "kstats: MESSAGE" on standard error, and go on. */
void kstats_warn(const char *fmt, ...);
/* @fn runs before the message of an error (a few, each once). */
void kstats_on_error(void (*fn)(void));
void kstats_on_error_remove(void (*fn)(void));
#define die kstats_die
#define usage_error kstats_usage_error

/* kstats.c: the options; main() */
/* --unit U: 1 ns, 2 us, 3 ms, 4 s; a usage error otherwise. */
/* --unit (@opt, @any: auto too) or --input-unit: 1 ns, 2 us, 3 ms, 4 s; 0 auto. */
int parse_unit(const char *opt, const char *arg, int any);
/* -p LIST, into @o->pct */
void parse_pcts(struct kstats_opt *o, const char *list);
/* --fail-if SPEC, into @r, once -p is known */
void parse_fail_if(const struct kstats_opt *o, const char *spec, struct kstats_fail_if *r);

/* kstats_input.c: the inputs */
/* The debugfs mount point (malloc()ed), or NULL if not mounted. */
char *kstats_debugfs(const char *what);
char *resolve(const char *input);
/* @path into @d, of frac_bits @bits (--bits; -1: inferred); an error ends kstats. */
void load(struct ks_data *d, const char *path, int bits);
void not_a_dir(const char *path);
int not_metric(const char *name);

/*
 * kstats_format.c: numbers, as printed; @unit is that of the values
 * (--unit: 0 none, 1 ns ... 4 s): printed scaled up to s, 3 significant
 * digits; with none, plain.
 */
extern const char * const unit_names[];
/*
 * The unit argument of fmt_*(): 0 none (plain numbers), else the values'
 * unit (1 ns, 2 us, 3 ms, 4 s) in its 3 low bits, and above them the unit
 * to print them in (0: each value in its own, scaled up to s).
 */
#define UNIT_IN(unit)	((unit) & 7)
#define UNIT_OUT(unit)	((unit) >> 3)
static inline int ks_unit(const struct kstats_opt *o)
{
	return o->human ? o->human | o->disp << 3 : 0;
}

/* Rounding of a printed number: down, to nearest, up. */
enum { RND_DOWN = -1, RND_NEAR = 0, RND_UP = 1 };
const char *fmt_fixed(char *buf, size_t n, uint64_t v, int frac);
const char *fmt_num(char *buf, size_t n, double v, int dir, int pad, int unit);
const char *fmt_val(char *buf, size_t n, double v, int unit);
const char *fmt_lo(char *buf, size_t n, uint64_t v, int unit);
const char *fmt_hi(char *buf, size_t n, uint64_t v, int unit);
const char *fmt_hi3(char *buf, size_t n, uint64_t v, int unit);
const char *fmt_exact(char *buf, size_t n, uint64_t v, int unit);
const char *fmt_in_slot(char *buf, size_t n, double v, uint64_t lo, uint64_t hi, int unit);
const char *pct_name(char *buf, size_t n, double q);
const char *shown(char *buf, size_t n, const char *s);
/* Text fitted to a terminal's width (kstats_term.c, kstats_table.c). */
int out_width(void);
int cut_name(char *buf, size_t n, const char *name, int w);
/* Where a cut at @at of a name as shown() shows it falls in an escape: its start, its end. */
int esc_at(const char *s, int at);
int esc_after(const char *s, int at);
int cut_unique(char *buf, size_t n, const char * const *names, size_t cnt, size_t self, int w);
int unique_width(const char * const *names, size_t cnt, int w, int max);
void puts_wrapped(const char *text, int cols);

/* kstats_stats.c: percentiles, MAD, and sums and differences of histograms */
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

double slot_mean(const struct ks_hist *h, size_t s);
size_t rank_slot(const struct ks_hist *h, uint64_t r);
void compute(const struct ks_hist *h, int bits, const double *pct, int npct,
	     struct stats *st);
/* The q-th percentile of @h's @n samples, as every output has it. */
double kstats_percentile(const struct ks_hist *h, uint64_t n, double q);
double octaves(size_t s, int bits);
void coarsen(struct ks_hist *out, const struct ks_hist *h, int bits, int to);
void hist_grow(struct ks_hist *h, size_t n);
void cpus_grow(struct ks_data *d, size_t n);
void diff(struct ks_data *old, const struct ks_data *new, const char *what);
void hist_add_at(struct ks_hist *a, const struct ks_hist *h, int bits, int to);
void data_add(struct ks_data *a, const struct ks_data *d);

/* kstats_output.c: one distribution in the output format asked */
const struct ks_hist *selected(const struct kstats_opt *o, const struct ks_data *d,
			       const char *what);
void output(const struct kstats_opt *o, const struct ks_data *d, const char *input);

/* kstats_summary.c: the text summary, and its table of CPUs (--per-cpu) */
void print_summary(const struct kstats_opt *o, const char *label, const struct ks_data *d,
		   const struct ks_hist *h);
void print_per_cpu(const struct kstats_opt *o, const struct ks_data *d);

/* kstats_hist.c: --hist */
void print_hist(const struct kstats_opt *o, const struct ks_hist *hist, int hbits);
/* The same into @f, within @cols columns; @compact: runs of empty slots a row. */
void hist_write(FILE *f, const struct kstats_opt *o, const struct ks_hist *hist, int hbits,
		int cols, int compact);

/* kstats_json.c: --json */
void json_stats(const struct kstats_opt *o, const struct ks_data *d, const struct ks_hist *h,
		int top);
void json_string(const char *s);

/* kstats_csv.c: --csv */
/* An interval of --interval: its number, its end (Unix time), its length. */
struct interval {
	long i;
	double time, secs;
};

void print_csv(const struct kstats_opt *o, const struct ks_data *d, const struct ks_hist *h,
	       const struct interval *iv, const char *func, int head);

/* kstats_openmetrics.c: --openmetrics */
const char *om_family(const struct kstats_opt *o);
/* Room for a label value of a name of up to NAME_MAX (255) bytes, each escaped (\\xNN). */
#define OM_LABEL_MAX (5 * 255 + 1)
void om_label(char *out, size_t n, const char *in);
void om_series(const struct kstats_opt *o, const char *family, const char *labels,
	       const struct ks_data *d, const struct ks_hist *h);
void print_openmetrics(const struct kstats_opt *o, const struct ks_data *d, const char *input);
/*
 * The series of @labelsets label sets: an error above --series-max; with
 * @gone (what was read cannot be read again: kstats trace 'GLOB'), said.
 */
void om_series_check(const struct kstats_opt *o, size_t labelsets, int gone);

/* kstats_hgrm.c: --hgrm, HdrHistogram's percentile distribution */
void print_hgrm(const struct kstats_opt *o, const struct ks_data *d, const struct ks_hist *h);

/* kstats_compare.c: --compare */
int compare_inputs(const struct kstats_opt *o, const struct ks_data *a, const struct ks_data *b,
		   const char *na, const char *nb);
int compare_groups(const struct kstats_opt *o, const char *da, const char *db, const char *na,
		   const char *nb);

/* kstats_merge.c: --merge */
void merge_inputs(const struct kstats_opt *o, struct ks_data *d, int n, char **inputs);
const char *merged_name(int n, char **inputs);

/* kstats_follow.c: --interval */
double now_s(clockid_t clock);
void follow(const struct kstats_opt *o, const char *input);

/* kstats_trace.c: kstats trace */
int trace_main(const struct kstats_opt *o, const char *spec, int argc, char **argv,
	       double secs);
const char *trace_func(const char *spec);

/* kstats_outfile.c: -o, a file written whole or not at all */
void out_begin(const char *file, bool hold);
void out_commit(const char *file);

/* kstats_group.c: a group's directory as an input; the end of kstats trace 'GLOB' */
/* Whether the output asked is the summary: a group's is a table. */
int kstats_group_table(const struct kstats_opt *o);
/* Whether @path is a group's directory: a directory with a _summary. */
int group_dir(const char *path);
/* kstats [options] DIR: the table of its functions, or each in the format asked. */
void group_main(const struct kstats_opt *o, const char *path, const char *input);
/* kstats trace 'GLOB': the group's functions, read from @path before its removal... */
struct top *group_snapshot(const struct kstats_opt *o, const char *path);
/* ...then printed: over @secs seconds. */
void group_report(const struct kstats_opt *o, struct top *t, const char *group, double secs);
/* kstats --interval SECS DIR of a group's directory @path, named @input. */
void group_follow(const struct kstats_opt *o, const char *path, const char *input);
/* kstats --merge of @n groups' directories @paths, named @inputs. */
void group_merge(const struct kstats_opt *o, int n, char **paths, char **inputs);
/* kstats --diff OLD NEW of two snapshots of a group's directory (@input: NEW's name). */
void group_diff(const struct kstats_opt *o, const char *old, const char *new, const char *input);
/* --compare of groups: an error where a _summary lists a function without a file. */
void group_need_files(const struct kstats_opt *o, const char *path);

/* kstats_table.c: the options of a table of functions */
/* -n N */
void table_opt_lines(struct kstats_opt *o, const char *arg);
/* -s KEY, once -p is known: total, count, name or pQ, a percentile column. */
void table_opt_sort(struct kstats_opt *o, const char *arg);

/* kstats_top.c: kstats top */
int top_main(int argc, char **argv);

#endif
