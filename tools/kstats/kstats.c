// SPDX-License-Identifier: GPL-2.0
/* kstats: the options of every mode, their checks, and the dispatch to each mode. */
#define _GNU_SOURCE
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstats.h"

#define KSTATS_VERSION "0.1"

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
"  -u, --unit U            print the values in U (ns, us, ms or s; auto: each\n"
"                          scaled up to s), 3 significant digits (bounds\n"
"                          rounded outwards, so that they hold); the values\n"
"                          are nanoseconds unless --input-unit says otherwise;\n"
"                          none: plain numbers, as recorded\n"
"      --input-unit U      the values are in U (ns, us, ms or s); alone, they\n"
"                          are printed as with -u auto (kstats trace: ns)\n"
"      --hist              terminal histogram: a row per slot [lo, hi] from the\n"
"                          first to the last (empty ones too), a bar of the\n"
"                          density per octave on the scale said, CDF, count,\n"
"                          cumulative %, percentiles\n"
"      --log2              with --hist: slots of powers of 2 (frac_bits 0)\n"
"      --json              JSON (min and max as their slots' bounds:\n"
"                          min_bounds, max_bounds; with -u, its unit)\n"
"      --hgrm              HdrHistogram's percentile distribution (.hgrm): a\n"
"                          row per non-empty slot, its upper bound, the\n"
"                          fraction and count up to it (with -u, in\n"
"                          milliseconds)\n"
"      --csv               one CSV row per slot: slot,lo,hi,count,mean,cdf,\n"
"                          fraction,per_octave,per_unit (densities)\n"
"      --openmetrics       OpenMetrics histogram (Prometheus textfile): the\n"
"                          family kstats_latency_seconds with --input-unit,\n"
"                          else kstats_latency; labels metric and (--per-cpu)\n"
"                          cpu\n"
"      --name NAME         the metric label for --openmetrics (default: INPUT;\n"
"                          needed for standard input)\n"
"      --le-bits N         --openmetrics buckets: the slots of frac_bits N, the\n"
"                          same for every input (default 0: powers of 2)\n"
"      --series-max N      --openmetrics: refuse to write more than N series\n"
"                          (default 100000; 0: any)\n"
"  -o, --output FILE       write to FILE through a temporary file and rename()\n"
"                          (--interval --openmetrics: each exposition)\n"
"      --merge             sum the distributions of several inputs (of\n"
"                          different frac_bits: at the coarsest, exactly; of\n"
"                          groups' directories: their table)\n"
"  -i, --interval SECS     print the samples of each interval, and their rate\n"
"                          (--csv: one CSV, led by interval,time,seconds;\n"
"                          --json: JSON Lines; --openmetrics: an exposition\n"
"                          per interval of the totals since the start, as\n"
"                          counters); of a group's directory: its table\n"
"  -c, --count K           with --interval: stop after K intervals\n"
"      --rows              with --interval: a line per interval (time, count,\n"
"                          rate, percentiles, by default 50,90,99, max<=, the\n"
"                          total of the samples, avg), as vmstat\n"
"      --diff              subtract the first input from the second (of two\n"
"                          snapshots of a group's directory: its table)\n"
"      --compare           compare two inputs: changes, 95% intervals, KS test\n"
"                          (of different frac_bits: at the coarsest, exactly);\n"
"                          of two groups (directories): a row per function of\n"
"                          both, sorted by the significant change (--json too)\n"
"      --fail-if STAT>N%   with --compare: exit 3 when STAT (mean or pQ) changed\n"
"                          by more than N% (STAT<N%: less), all its interval\n"
"                          beyond; of groups, naming each function; repeatable\n"
"  -d, --duration SECS     kstats trace: trace for SECS seconds\n"
"  -p, --pid PID           kstats trace: only the calls of process PID\n"
"  -c, --cgroup PATH       kstats trace: only the calls of the tasks of cgroup\n"
"                          PATH (cgroup v2, from its root) and below it\n"
"  -n, --lines N           a group's table (DIR, kstats trace 'GLOB'): its\n"
"                          first N rows\n"
"  -s, --sort KEY          a group's table: sorted by total (default), count,\n"
"                          rate (with a rate/s column), name, max, avg, or\n"
"                          pQ, a percentile column (p50, p99)\n"
"      --name NAME         kstats trace 'GLOB': the group's name (default\n"
"                          kstats-trace-PID)\n"
"  -h, --help              this text\n"
"  -V, --version           the version\n"
"\n"
"An option that would do nothing where it is given is a usage error.\n"
"\n"
"Exit status: 0, 1 on a usage or system error, 2 on malformed input (also\n"
"truncated, with counts out of range, or without the CPU of --cpu), 3 when a\n"
"--fail-if rule fails; for kstats trace -- COMMAND, that of COMMAND (128 + N\n"
"if a signal N killed it).\n";

/* The options of a group's table that were given, for their errors. */
static const char *lines_sort(int lines, const char *sort)
{
	return lines && sort ? "--lines and --sort" : lines ? "--lines" : "--sort";
}

static void show_help(FILE *f)
{
	fputs(kstats_help, f);
}

void parse_pcts(struct kstats_opt *o, const char *list)
{
	char *copy = strdup(list), *t, *save = NULL, *end;

	if (!copy)
		die(1, "out of memory");
	o->npct = 0;
	for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		double q = strtod(t, &end);

		if (*end || end == t || !(q > 0 && q <= 100) || o->npct == MAX_PCTS)
			usage_error("--percentiles: '%s': not in (0, 100], or more than %d",
				    t, MAX_PCTS);
		o->pct[o->npct++] = q;
	}
	free(copy);
	if (!o->npct)
		usage_error("--percentiles: no percentile");
}

/*
 * --fail-if STAT>N% or STAT<N%: STAT is mean or pQ, one of -p's columns;
 * N signed or not (+5 and 5 alike).
 */
void parse_fail_if(const struct kstats_opt *o, const char *text, struct kstats_fail_if *r)
{
	char stat[32], *end, spec[sizeof(r->spec)];
	const char *op;
	size_t i, k;

	/* Blanks are allowed, as in PromQL: 'p99 > +5%'. */
	for (i = 0, k = 0; text[i] && k + 1 < sizeof(spec); i++)
		if (!isspace((unsigned char)text[i]))
			spec[k++] = text[i];
	spec[k] = '\0';
	op = strpbrk(spec, "<>");
	if (!op || (size_t)(op - spec) >= sizeof(stat))
		usage_error("--fail-if: '%s' is not STAT>N%% or STAT<N%% (STAT: mean or pQ)",
			    text);
	snprintf(stat, sizeof(stat), "%.*s", (int)(op - spec), spec);
	snprintf(r->spec, sizeof(r->spec), "%s", spec);
	r->text = r->spec;
	r->op = *op;
	r->pct = strtod(op + 1, &end);
	if (end == op + 1 || strcmp(end, "%"))
		usage_error("--fail-if: '%s': the threshold is a percentage, as +5%%", text);
	if (!strcmp(stat, "mean")) {
		r->stat = -1;
		return;
	}
	for (i = 0; i < (size_t)o->npct; i++) {
		char q[32];

		if (stat[0] == 'p' && !strcmp(stat + 1, pct_name(q, sizeof(q), o->pct[i]))) {
			r->stat = i;
			return;
		}
	}
	usage_error("--fail-if: '%s' is not mean or a percentile of -p (p50, p99...)", stat);
}

int parse_unit(const char *opt, const char *arg, int any)
{
	int u;

	for (u = 4; u; u--)
		if (!strcmp(arg, unit_names[u - 1]))
			return u;
	if (any && !strcmp(arg, "auto"))
		return 0;
	usage_error("%s: '%s' is not ns, us, ms, s%s", opt, arg, any ? ", auto or none" : "");
}

/* What a command line asks for, beside its options. */
struct kstats_cmd {
	int diff, cmp, merge;	/* --diff, --compare, --merge */
	int trace;		/* kstats trace */
	const char *spec;	/* kstats trace SPEC */
	double secs;		/* kstats trace -d */
	unsigned int outs;	/* the output formats given, by bit */
	int le_bits;		/* --le-bits given */
	int series_max;		/* --series-max given */
	int lines;		/* -n given */
	const char *sort;	/* -s */
	const char *unit;	/* --unit or --input-unit, the last given */
	int plain;		/* --unit none */
};

/*
 * What rules out a group's table where -n or -s is given: --compare, a
 * format or --per-cpu, as ", not with OPTION"; "" if none does.
 */
static const char *table_by(const struct kstats_opt *o, const struct kstats_cmd *k)
{
	static const char * const outs[] = {
		[OUT_HIST] = ", not with --hist", [OUT_JSON] = ", not with --json",
		[OUT_CSV] = ", not with --csv", [OUT_OPENMETRICS] = ", not with --openmetrics",
		[OUT_HGRM] = ", not with --hgrm",
	};

	if (k->cmp)
		return ", not with --compare";
	if (o->out != OUT_SUMMARY)
		return outs[o->out];
	return o->per_cpu ? ", not with --per-cpu" : "";
}

/*
 * An option that would do nothing where it is given is refused: what was
 * asked for would not be done, and nothing would say so. Also the inputs'
 * count, and --fail-if's rules (once -p is known).
 */
static void check_opts(struct kstats_opt *o, const struct kstats_cmd *k, int argc, char **argv)
{
	static const char formats[] = "--hist, --json, --csv, --openmetrics or --hgrm";
	int c;

	if (k->outs & (k->outs - 1))
		usage_error("--hist, --json, --csv, --openmetrics and --hgrm: one at a time");
	/* A table of functions: a group's (DIR, below), or of kstats trace 'GLOB'. */
	if (k->sort)
		table_opt_sort(o, k->sort);
	/* Of groups: checked once the inputs are known (run_two(), run_merge(), run_follow()). */
	if ((k->lines || k->sort) && !k->trace && (k->cmp || !kstats_group_table(o)))
		usage_error("%s: only for the table of a group (DIR, %s)%s",
			    lines_sort(k->lines, k->sort), "kstats trace 'GLOB', kstats top",
			    table_by(o, k));
	if (o->log2 && o->out != OUT_HIST)
		usage_error("--log2: only with --hist");
	if (k->le_bits && o->out != OUT_OPENMETRICS)
		usage_error("--le-bits: only with --openmetrics");
	if (k->series_max && o->out != OUT_OPENMETRICS)
		usage_error("--series-max: only with --openmetrics");
	if (o->name && o->out != OUT_OPENMETRICS && !k->trace)
		usage_error("--name: only with --openmetrics, or kstats trace 'GLOB'");
	if (o->count && !(o->interval > 0))
		usage_error("--count: only with --interval");
	if (o->rows && !(o->interval > 0))
		usage_error("--rows: only with --interval");
	if (o->rows && o->out != OUT_SUMMARY)
		usage_error("--rows: its own lines, not with %s", formats);
	if (k->cmp && o->out != OUT_SUMMARY && o->out != OUT_JSON)
		usage_error("--compare: its own text, or --json of two groups, not with %s",
			    formats);
	if (o->per_cpu && o->cpu >= 0)
		usage_error("--cpu and --per-cpu: one or the other");
	if (o->per_cpu && (k->cmp || o->rows || o->out == OUT_HIST || o->out == OUT_CSV))
		usage_error("--per-cpu: not with %s (--cpu N: one CPU's)",
			    k->cmp ? "--compare" : o->rows ? "--rows" :
			    o->out == OUT_HIST ? "--hist" : "--csv");
	if (o->out == OUT_HGRM && (o->per_cpu || o->interval > 0))
		usage_error("--hgrm: one distribution, not with %s",
			    o->per_cpu ? "--per-cpu (--cpu N: one CPU's)" : "--interval");
	if (o->per_cpu && o->out == OUT_JSON)
		usage_error("--per-cpu: not with --json, which has every CPU under \"cpus\"");
	if (o->cpu >= 0 && o->out == OUT_OPENMETRICS)
		usage_error("--cpu: not with --openmetrics (--per-cpu: a series per CPU)");
	if (o->pcts && (o->out == OUT_CSV || o->out == OUT_OPENMETRICS || o->out == OUT_HGRM))
		usage_error("--percentiles: not with %s, whose rows are the slots",
			    o->out == OUT_CSV ? "--csv" :
			    o->out == OUT_HGRM ? "--hgrm" : "--openmetrics");
	if (k->unit && o->out == OUT_CSV)
		usage_error("%s: not with --csv, whose numbers are as recorded", k->unit);
	/* A unit to print in, where the output's own is fixed: it would do nothing. */
	if (k->unit && !strcmp(k->unit, "--unit") && o->disp &&
	    (o->out == OUT_OPENMETRICS || o->out == OUT_JSON || o->out == OUT_HGRM))
		usage_error("--unit %s: %s; the values' unit is --input-unit",
			    unit_names[o->disp - 1],
			    o->out == OUT_OPENMETRICS ? "--openmetrics writes seconds" :
			    o->out == OUT_HGRM ? "--hgrm writes milliseconds" :
			    "--json writes the values as recorded");
	if (k->diff + k->cmp + k->merge > 1)
		usage_error("--diff, --compare and --merge: one at a time");
	if (o->outfile && k->cmp)
		usage_error("-o: not with --compare");
	if (o->nfail_if && !k->cmp)
		usage_error("--fail-if: only with --compare");
	for (c = 0; c < o->nfail_if; c++)
		parse_fail_if(o, o->fail_if[c].text, &o->fail_if[c]);
	/* Each interval's exposition replaces the file; other formats add up. */
	if (o->outfile && o->interval > 0 && o->out != OUT_OPENMETRICS)
		usage_error("-o with --interval: only --openmetrics, %s",
			    "whose each exposition replaces FILE (redirect the others' output)");
	if (k->trace && argc && k->secs > 0)
		usage_error("trace: either --duration or a command, not both");
	if (!k->trace && (k->diff || k->cmp) && argc != 2)
		usage_error("%s: two inputs, %s, not %d", k->diff ? "--diff" : "--compare",
			    k->diff ? "OLD and NEW" : "A and B", argc);
	if (!k->trace && !argc)
		usage_error("no input: a file, a metric name or - (standard input)");
	if (!k->trace && !(k->diff || k->cmp || k->merge) && argc > 1)
		usage_error("%d inputs where one was expected (more: --merge, --diff, --compare)",
			    argc);
	if (o->interval > 0 && (k->diff || k->cmp || k->merge))
		usage_error("--interval: not with --diff, --compare or --merge");
	if (o->interval > 0 && argc && !strcmp(argv[0], "-"))
		usage_error("--interval: not on standard input, which cannot be read again");
}

/* -s rate of a table without a rate/s column: that of snapshots. */
static void check_rate(const struct kstats_opt *o, const struct kstats_cmd *k)
{
	if (k->sort && o->sort == SORT_RATE)
		usage_error("--sort rate: %s (%s); %s", "only for a table with a rate/s column",
			    "--interval, kstats trace 'GLOB', kstats top",
			    "a snapshot's has none: -s count sorts alike");
}

/*
 * What the inputs rule out, once known: -n and -s where no table of a
 * group is printed (@groups 0); --per-cpu, --cpu and --hgrm of groups
 * (@who of them, "--diff" or "--merge"), read from their _summary files.
 */
static void check_groups(const struct kstats_opt *o, const struct kstats_cmd *k, int groups,
			 const char *who)
{
	if (!groups && (k->lines || k->sort))
		usage_error("%s: only for the table of a group (DIR, %s)",
			    lines_sort(k->lines, k->sort), "kstats trace 'GLOB', kstats top");
	if (groups && who && o->out == OUT_HGRM)
		usage_error("%s --hgrm: of one function's file (DIR/FUNC), not of a group", who);
	if (groups && who && (o->per_cpu || o->cpu >= 0))
		usage_error("%s of groups: not --per-cpu or --cpu, %s", who,
			    "from their _summary files, the sums of the CPUs");
	if (groups && who)
		check_rate(o, k);
}

/* kstats --interval SECS INPUT: of a metric, or of a group's directory. */
static void run_follow(const struct kstats_opt *o, const struct kstats_cmd *k,
		       const char *input)
{
	char *path = resolve(input);

	check_groups(o, k, group_dir(path), NULL);
	if (!group_dir(path)) {
		free(path);
		follow(o, input);
		return;
	}
	if (o->rows || o->per_cpu || o->cpu >= 0 || o->out == OUT_HIST)
		usage_error("--interval of a group: %s, %s%s", o->rows ? "not --rows" :
			    o->out == OUT_HIST ? "not --hist" : "not --per-cpu or --cpu",
			    "from its _summary, the sums of the CPUs ",
			    "(its table, --json, --csv or --openmetrics)");
	group_follow(o, path, input);
	free(path);
}

/* kstats --merge INPUT...: of metrics, or of groups' directories. */
static void run_merge(const struct kstats_opt *o, const struct kstats_cmd *k, int n, char **argv)
{
	char **paths = calloc(n, sizeof(*paths));
	int i, groups = 0;
	struct ks_data d;

	if (!paths)
		die(1, "out of memory");
	for (i = 0; i < n; i++) {
		paths[i] = resolve(argv[i]);
		groups += group_dir(paths[i]);
	}
	if (groups && groups < n) {
		for (i = 0; i < n; i++)
			if (!group_dir(paths[i]))
				not_a_dir(paths[i]);
		usage_error("--merge: groups (directories) or metrics, not both");
	}
	check_groups(o, k, groups, "--merge");
	if (groups) {
		group_merge(o, n, paths, argv);
	} else {
		merge_inputs(o, &d, n, argv);
		output(o, &d, merged_name(n, argv));
		ks_data_free(&d);
	}
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

/* kstats --diff or --compare A B: of two metrics, or --compare of two groups. */
static int run_two(const struct kstats_opt *o, const struct kstats_cmd *k, char **argv)
{
	char *pa = resolve(argv[0]), *pb = resolve(argv[1]);
	int ga = group_dir(pa), gb = group_dir(pb), ret = 0;
	struct ks_data a, b;

	if (ga != gb) {
		not_a_dir(ga ? pb : pa);
		usage_error("%s: two groups (directories), or two metrics",
			    k->cmp ? "--compare" : "--diff");
	}
	if (k->cmp && o->out == OUT_JSON && !ga)
		usage_error("--compare --json: of two groups (directories) only");
	if (k->diff)
		check_groups(o, k, ga, "--diff");
	if (ga && k->diff) {
		group_diff(o, pa, pb, argv[1]);
	} else if (ga) {
		ret = compare_groups(o, pa, pb, argv[0], argv[1]);
	} else {
		load(&a, pa, o->bits);
		load(&b, pb, o->bits);
		if (k->cmp) {
			ret = compare_inputs(o, &a, &b, argv[0], argv[1]);
		} else {
			diff(&a, &b, argv[1]);
			output(o, &a, argv[1]);
		}
		ks_data_free(&a);
		ks_data_free(&b);
	}
	free(pa);
	free(pb);
	return ret;
}

/* kstats [options] INPUT: a metric, or a group's directory. */
static void run_one(const struct kstats_opt *o, const struct kstats_cmd *k, const char *input)
{
	char *path = resolve(input);
	struct ks_data d;

	if (group_dir(path)) {
		check_rate(o, k);
		group_main(o, path, input);	/* kstats_group.c */
	} else {
		if (k->lines || k->sort)
			usage_error("%s: %s is not a group (a directory with a _summary)",
				    lines_sort(k->lines, k->sort), input);
		load(&d, path, o->bits);
		output(o, &d, input);
		ks_data_free(&d);
	}
	free(path);
}

/* kstats [options] INPUT..., or with @trace kstats trace SPEC [options] [COMMAND]. */
static int kstats_main(int argc, char **argv, int trace)
{
	enum { O_PCTS = 256, O_COUNT, O_CPU, O_PER_CPU, O_HIST, O_JSON, O_CSV, O_OM,
	       O_NAME, O_DIFF, O_CMP, O_ROWS, O_LE_BITS, O_MERGE, O_LOG2, O_PID, O_CGROUP,
	       O_FAIL_IF, O_SERIES_MAX, O_HGRM, O_IN_UNIT };
	static const struct option lopts[] = {
		{ "percentiles", required_argument, NULL, O_PCTS },
		{ "bits", required_argument, NULL, 'b' },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "per-cpu", no_argument, NULL, O_PER_CPU },
		{ "unit", required_argument, NULL, 'u' },
		{ "input-unit", required_argument, NULL, O_IN_UNIT },
		{ "hist", no_argument, NULL, O_HIST },
		{ "json", no_argument, NULL, O_JSON },
		{ "csv", no_argument, NULL, O_CSV },
		{ "openmetrics", no_argument, NULL, O_OM },
		{ "hgrm", no_argument, NULL, O_HGRM },
		{ "name", required_argument, NULL, O_NAME },
		{ "le-bits", required_argument, NULL, O_LE_BITS },
		{ "series-max", required_argument, NULL, O_SERIES_MAX },
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
		{ "fail-if", required_argument, NULL, O_FAIL_IF },
		{ "duration", required_argument, NULL, 'd' },
		{ "lines", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ }
	};
	struct kstats_opt opt = { .bits = -1, .cpu = -1, .sort_pct = 1, .series_max = 100000 };
	struct kstats_cmd k = { .trace = trace };
	const char *label;
	int c, ret;
	char *end;

	parse_pcts(&opt, "50,90,95,99,99.9");
	/*
	 * kstats trace FUNC [options] [--] [COMMAND...]: FUNC stands for
	 * argv[0], and the options end at the command.
	 */
	if (trace) {
		const char *func;

		if (argc < 3)
			usage_error("trace: no function: kstats trace FUNC [options]");
		k.spec = argv[2];
		if (*k.spec == '-')
			usage_error("trace: the function comes first: kstats trace FUNC [options]");
		func = trace_func(k.spec);
		if (!*func)
			usage_error("trace: '%s' is not a function", k.spec);
		argc -= 2;
		argv += 2;
	}
	/* getopt_long()'s messages start with argv[0]: ours with prog. */
	argv[0] = (char *)prog;
	while ((c = getopt_long(argc, argv, trace ? "+p:c:b:u:d:o:n:s:hV" : "p:b:u:i:c:o:n:s:hV",
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
			parse_pcts(&opt, optarg);
			opt.pcts = 1;
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
			/* none: the numbers as recorded, also of kstats trace. */
			k.plain = !strcmp(optarg, "none");
			opt.disp = k.plain ? 0 : parse_unit("--unit", optarg, 1);
			k.unit = k.plain ? NULL : "--unit";
			break;
		case O_IN_UNIT:
			opt.human = parse_unit("--input-unit", optarg, 0);
			k.unit = "--input-unit";
			break;
		case 'V':
			printf("kstats %s\n", KSTATS_VERSION);
			return 0;
		case O_HIST:
			opt.out = OUT_HIST;
			k.outs |= 1u << opt.out;
			break;
		case O_JSON:
			opt.out = OUT_JSON;
			k.outs |= 1u << opt.out;
			break;
		case O_CSV:
			opt.out = OUT_CSV;
			k.outs |= 1u << opt.out;
			break;
		case O_OM:
			opt.out = OUT_OPENMETRICS;
			k.outs |= 1u << opt.out;
			break;
		case O_HGRM:
			opt.out = OUT_HGRM;
			k.outs |= 1u << opt.out;
			break;
		case O_NAME:
			opt.name = optarg;
			break;
		case O_LE_BITS:
			opt.le_bits = strtol(optarg, &end, 10);
			if (*end || end == optarg || opt.le_bits < 0 || opt.le_bits > KS_MAX_BITS)
				usage_error("--le-bits: '%s' is not in 0..%d", optarg, KS_MAX_BITS);
			k.le_bits = 1;
			break;
		case O_SERIES_MAX:
			opt.series_max = strtol(optarg, &end, 10);
			if (*end || end == optarg || opt.series_max < 0)
				usage_error("--series-max: '%s' is not a number of series (0: any)",
					    optarg);
			k.series_max = 1;
			break;
		case 'o':
			opt.outfile = optarg;
			break;
		case O_MERGE:
			k.merge = 1;
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
			k.secs = strtod(optarg, &end);
			if (*end || end == optarg || !(k.secs > 0))
				usage_error("--duration: '%s' is not a positive number of seconds",
					    optarg);
			break;
		case O_ROWS:
			opt.rows = 1;
			break;
		case 'n':
			table_opt_lines(&opt, optarg);
			k.lines = 1;
			break;
		case 's':
			k.sort = optarg;	/* once -p is known */
			break;
		case O_DIFF:
			k.diff = 1;
			break;
		case O_CMP:
			k.cmp = 1;
			break;
		case O_FAIL_IF:
			if (opt.nfail_if == MAX_FAIL_IF)
				usage_error("--fail-if: %d rules at most", MAX_FAIL_IF);
			opt.fail_if[opt.nfail_if++].text = optarg;	/* once -p is known */
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
	check_opts(&opt, &k, argc, argv);
	/*
	 * --unit without --input-unit: the values are nanoseconds, as kstats
	 * trace records them (ftrace's clock); kstats trace prints its own so
	 * by default, each in its unit (but --csv, as recorded).
	 */
	if (!opt.human && (k.unit || (trace && opt.out != OUT_CSV)))
		opt.human = 1;
	if (k.plain)
		opt.human = 0;
	/* The input whose name labels the output: NEW of --diff. */
	label = trace ? k.spec : k.merge ? merged_name(argc, argv) : k.diff ? argv[1] : argv[0];
	if (opt.out == OUT_OPENMETRICS && !opt.name && !strcmp(label, "-"))
		usage_error("--openmetrics: standard input has no name for the metric label: %s",
			    "give it with --name NAME");
	/* A line of vmstat's width: the usual three percentiles. */
	if (opt.rows && !opt.pcts)
		parse_pcts(&opt, "50,90,99");
	if (opt.outfile && opt.interval <= 0)
		out_begin(opt.outfile, false);
	ret = 0;
	if (trace)
		ret = trace_main(&opt, k.spec, argc, argv, k.secs);
	else if (k.diff || k.cmp)
		ret = run_two(&opt, &k, argv);
	else if (k.merge)
		run_merge(&opt, &k, argc, argv);
	else if (opt.interval > 0)
		run_follow(&opt, &k, argv[0]);
	else
		run_one(&opt, &k, argv[0]);
	if (opt.outfile && opt.interval <= 0)
		out_commit(opt.outfile);
	return ret;
}

static int trace_cmd(int argc, char **argv)
{
	return kstats_main(argc, argv, 1);
}

/* kstats SUBCOMMAND ...: each in the file of its own; otherwise kstats [options] INPUT. */
int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*main)(int argc, char **argv);
		int own_argv;	/* its argv[0] is its name; else kstats's */
	} subcommands[] = {
		{ "top", top_main, 1 },		/* kstats_top.c */
		{ "trace", trace_cmd, 0 },	/* kstats_trace.c, with kstats's options */
	};
	size_t i;
	int k;

	for (i = 0; argc > 1 && i < ARRAY_SIZE(subcommands); i++) {
		if (strcmp(argv[1], subcommands[i].name))
			continue;
		k = subcommands[i].own_argv;
		return subcommands[i].main(argc - k, argv + k);
	}
	return kstats_main(argc, argv, 0);
}
