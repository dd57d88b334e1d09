/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats: what kstats.c and kstats_top.c share. kstats_top.c has kstats
 * top, the groups of kstats trace 'GLOB' and group directories as input;
 * kstats.c the options, the output formats and the percentiles.
 */
#ifndef KSTATS_H
#define KSTATS_H

#include "kstats_parse.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* kstats.c */
_Noreturn void kstats_die(int status, const char *fmt, ...);
_Noreturn void kstats_usage_error(const char *fmt, ...);
/* The debugfs mount point (malloc()ed), or NULL if not mounted. */
char *kstats_debugfs(const char *what);
/* --bits, or -1. */
int kstats_bits(void);
/* The q-th percentile of @h's @n samples, as every output has it. */
double kstats_percentile(const struct ks_hist *h, uint64_t n, double q);
/* Whether the output asked is the summary: a group's is a table. */
int kstats_group_table(void);
/*
 * A group in the output format asked (--json, --csv, --openmetrics,
 * --hist, --per-cpu): begin, then each function (@i from 0), then end.
 */
void kstats_group_begin(const char *group);
void kstats_group_output(const struct ks_data *d, const char *group,
			 const char *func, size_t i);
void kstats_group_end(size_t n);

/* kstats_top.c */
int top_main(int argc, char **argv);
/* kstats [options] DIR: whether @path is a group's directory, and its output. */
int group_dir(const char *path);
void group_main(const char *path, const char *input);
/* kstats trace -n N */
void top_opt_lines(const char *arg);
/*
 * kstats trace: if the function of *@spec is a glob, its group's name
 * (@name, or kstats-trace-PID), and *@spec becomes "fprobe:GLOB as NAME";
 * else NULL. @per_cpu: --per-cpu or --cpu was given (a group has no CPUs).
 */
const char *trace_group(const char **spec, const char *name, int per_cpu);
/* The group's functions, read from @path (before its removal)... */
struct top *group_snapshot(const char *path);
/* ...then printed: over @secs seconds, the glob @glob. */
void group_report(struct top *t, const char *group, double secs);

#endif
