// SPDX-License-Identifier: GPL-2.0
/* kstats: the options of every mode, their checks, and the dispatch to each mode. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstats.h"

#define KSTATS_VERSION "0.1"

struct kstats_opt opt = { .bits = -1, .cpu = -1 };

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
"  -u, --unit U            the values are in U (ns, us, ms or s): print them\n"
"                          with a unit, scaled up to s, 3 significant digits\n"
"                          (bounds rounded outwards, so that they hold)\n"
"      --hist              terminal histogram: a row per slot [lo, hi] from the\n"
"                          first to the last (empty ones too), a bar of the\n"
"                          density per octave on the scale said, CDF, count,\n"
"                          cumulative %, percentiles\n"
"      --log2              with --hist: slots of powers of 2 (frac_bits 0)\n"
"      --json              JSON (min and max as their slots' bounds:\n"
"                          min_bounds, max_bounds; with -u, its unit)\n"
"      --csv               one CSV row per slot: slot,lo,hi,count,mean,cdf,\n"
"                          fraction,per_octave,per_unit (densities)\n"
"      --openmetrics       OpenMetrics histogram (Prometheus textfile): the\n"
"                          family kstats_latency_seconds with -u, else\n"
"                          kstats_latency; labels metric and, with --per-cpu, cpu\n"
"      --name NAME         the metric label for --openmetrics (default: INPUT;\n"
"                          needed for standard input)\n"
"      --le-bits N         --openmetrics buckets: the slots of frac_bits N, the\n"
"                          same for every input (default 0: powers of 2)\n"
"  -o, --output FILE       write to FILE through a temporary file and rename()\n"
"                          (--interval --openmetrics: each exposition)\n"
"      --merge             sum the distributions of several inputs (of\n"
"                          different frac_bits: at the coarsest, exactly)\n"
"  -i, --interval SECS     print the samples of each interval, and their rate\n"
"                          (--csv: one CSV, led by interval,time,seconds;\n"
"                          --json: JSON Lines; --openmetrics: an exposition\n"
"                          per interval of the totals since the start, as\n"
"                          counters)\n"
"  -c, --count K           with --interval: stop after K intervals\n"
"      --rows              with --interval: a line per interval (time, count,\n"
"                          rate, percentiles, by default 50,90,99, max<=, the\n"
"                          total of the samples), as vmstat\n"
"      --diff              subtract the first input from the second\n"
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
"                          name, or pQ, a percentile column (p50, p99)\n"
"      --name NAME         kstats trace 'GLOB': the group's name (default\n"
"                          kstats-trace-PID)\n"
"  -h, --help              this text\n"
"  -V, --version           the version\n"
"\n"
"An option that would do nothing where it is given is a usage error.\n"
"\n"
"Exit status: 0, 1 on a usage or system error, 2 on malformed input (also\n"
"truncated, with counts out of range, or without the CPU of --cpu), 3 when\n"
"a --fail-if rule fails; for\n"
"kstats trace -- COMMAND, COMMAND's status (128 + N if killed by signal N).\n";

/* The options of a group's table that were given, for their errors. */
static const char *lines_sort(int lines, const char *sort)
{
	return lines && sort ? "--lines and --sort" : lines ? "--lines" : "--sort";
}

static void show_help(FILE *f)
{
	fputs(kstats_help, f);
}

void parse_pcts(const char *list)
{
	char *copy = strdup(list), *t, *save = NULL, *end;

	if (!copy)
		die(1, "out of memory");
	opt.npct = 0;
	for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		double q = strtod(t, &end);

		if (*end || end == t || !(q > 0 && q <= 100) || opt.npct == MAX_PCTS)
			usage_error("--percentiles: '%s': not in (0, 100], or more than %d",
				    t, MAX_PCTS);
		opt.pct[opt.npct++] = q;
	}
	free(copy);
	if (!opt.npct)
		usage_error("--percentiles: no percentile");
}

/*
 * --fail-if STAT>N% or STAT<N%: STAT is mean or pQ, one of -p's columns;
 * N signed or not (+5 and 5 alike).
 */
void parse_fail_if(const char *spec, struct kstats_fail_if *r)
{
	const char *op = strpbrk(spec, "<>");
	char stat[32], *end;
	int i;

	if (!op || (size_t)(op - spec) >= sizeof(stat))
		usage_error("--fail-if: '%s' is not STAT>N%% or STAT<N%% (STAT: mean or pQ)",
			    spec);
	snprintf(stat, sizeof(stat), "%.*s", (int)(op - spec), spec);
	r->text = spec;
	r->op = *op;
	r->pct = strtod(op + 1, &end);
	if (end == op + 1 || strcmp(end, "%"))
		usage_error("--fail-if: '%s': the threshold is a percentage, as +5%%", spec);
	if (!strcmp(stat, "mean")) {
		r->stat = -1;
		return;
	}
	for (i = 0; i < opt.npct; i++) {
		char q[32];

		if (stat[0] == 'p' && !strcmp(stat + 1, pct_name(q, sizeof(q), opt.pct[i]))) {
			r->stat = i;
			return;
		}
	}
	usage_error("--fail-if: '%s' is not mean or a percentile of -p (p50, p99...)", stat);
}

int kstats_bits(void)
{
	return opt.bits;
}

int main(int argc, char **argv)
{
	static const char formats[] = "--hist, --json, --csv or --openmetrics";
	enum { O_PCTS = 256, O_COUNT, O_CPU, O_PER_CPU, O_HIST, O_JSON, O_CSV, O_OM,
	       O_NAME, O_DIFF, O_CMP, O_ROWS, O_LE_BITS, O_MERGE, O_LOG2, O_PID, O_CGROUP,
	       O_FAIL_IF };
	static const struct option lopts[] = {
		{ "percentiles", required_argument, NULL, O_PCTS },
		{ "bits", required_argument, NULL, 'b' },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "per-cpu", no_argument, NULL, O_PER_CPU },
		{ "unit", required_argument, NULL, 'u' },
		{ "hist", no_argument, NULL, O_HIST },
		{ "json", no_argument, NULL, O_JSON },
		{ "csv", no_argument, NULL, O_CSV },
		{ "openmetrics", no_argument, NULL, O_OM },
		{ "name", required_argument, NULL, O_NAME },
		{ "le-bits", required_argument, NULL, O_LE_BITS },
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
	int c, mode_diff = 0, mode_cmp = 0, mode_merge = 0, trace = 0, ret;
	int le_bits = 0;
	unsigned int outs = 0;	/* the output formats given, by bit */
	const char *spec = NULL, *label, *sort = NULL;
	int lines = 0;
	double secs = 0;
	char *end;

	parse_pcts("50,90,95,99,99.9");
	if (argc > 1 && !strcmp(argv[1], "top"))
		return top_main(argc - 1, argv + 1);	/* kstats_top.c */
	/*
	 * kstats trace FUNC [options] [--] [COMMAND...]: FUNC stands for
	 * argv[0], and the options end at the command.
	 */
	if (argc > 1 && !strcmp(argv[1], "trace")) {
		const char *func;

		if (argc < 3)
			usage_error("trace: no function: kstats trace FUNC [options]");
		trace = 1;
		spec = argv[2];
		if (*spec == '-')
			usage_error("trace: the function comes first: kstats trace FUNC [options]");
		func = trace_func(spec);
		if (!*func)
			usage_error("trace: '%s' is not a function", spec);
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
			parse_pcts(optarg);
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
			for (opt.human = 4; opt.human; opt.human--)
				if (!strcmp(optarg, unit_names[opt.human - 1]))
					break;
			if (!opt.human)
				usage_error("--unit: '%s' is not ns, us, ms or s", optarg);
			break;
		case 'V':
			printf("kstats %s\n", KSTATS_VERSION);
			return 0;
		case O_HIST:
			opt.out = OUT_HIST;
			outs |= 1u << opt.out;
			break;
		case O_JSON:
			opt.out = OUT_JSON;
			outs |= 1u << opt.out;
			break;
		case O_CSV:
			opt.out = OUT_CSV;
			outs |= 1u << opt.out;
			break;
		case O_OM:
			opt.out = OUT_OPENMETRICS;
			outs |= 1u << opt.out;
			break;
		case O_NAME:
			opt.name = optarg;
			break;
		case O_LE_BITS:
			opt.le_bits = strtol(optarg, &end, 10);
			if (*end || end == optarg || opt.le_bits < 0 || opt.le_bits > KS_MAX_BITS)
				usage_error("--le-bits: '%s' is not in 0..%d", optarg, KS_MAX_BITS);
			le_bits = 1;
			break;
		case 'o':
			opt.outfile = optarg;
			break;
		case O_MERGE:
			mode_merge = 1;
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
			secs = strtod(optarg, &end);
			if (*end || end == optarg || !(secs > 0))
				usage_error("--duration: '%s' is not a positive number of seconds",
					    optarg);
			break;
		case O_ROWS:
			opt.rows = 1;
			break;
		case 'n':
			top_opt_lines(optarg);
			lines = 1;
			break;
		case 's':
			sort = optarg;	/* once -p is known */
			break;
		case O_DIFF:
			mode_diff = 1;
			break;
		case O_CMP:
			mode_cmp = 1;
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

	/*
	 * An option that would do nothing where it is given is refused: what
	 * was asked for would not be done, and nothing would say so.
	 */
	if (outs & (outs - 1))
		usage_error("--hist, --json, --csv and --openmetrics: one at a time");

	/* A table of functions: a group's (DIR, below), or of kstats trace 'GLOB'. */
	if (sort)
		top_opt_sort(sort);
	if ((lines || sort) && !trace &&
	    (mode_diff || mode_cmp || mode_merge || opt.interval > 0 || !kstats_group_table()))
		usage_error("%s: only for the table of a group (DIR, %s)", lines_sort(lines, sort),
			    "kstats trace 'GLOB', kstats top");
	if (opt.log2 && opt.out != OUT_HIST)
		usage_error("--log2: only with --hist");
	if (le_bits && opt.out != OUT_OPENMETRICS)
		usage_error("--le-bits: only with --openmetrics");
	if (opt.name && opt.out != OUT_OPENMETRICS && !trace)
		usage_error("--name: only with --openmetrics, or kstats trace 'GLOB'");
	if (opt.count && !(opt.interval > 0))
		usage_error("--count: only with --interval");
	if (opt.rows && !(opt.interval > 0))
		usage_error("--rows: only with --interval");
	if (opt.rows && opt.out != OUT_SUMMARY)
		usage_error("--rows: its own lines, not with %s", formats);
	if (mode_cmp && opt.out != OUT_SUMMARY && opt.out != OUT_JSON)
		usage_error("--compare: its own text, or --json of two groups, not with %s",
			    formats);
	if (opt.per_cpu && opt.cpu >= 0)
		usage_error("--cpu and --per-cpu: one or the other");
	if (opt.per_cpu && (mode_cmp || opt.rows || opt.out == OUT_HIST || opt.out == OUT_CSV))
		usage_error("--per-cpu: not with %s (--cpu N: one CPU's)",
			    mode_cmp ? "--compare" : opt.rows ? "--rows" :
			    opt.out == OUT_HIST ? "--hist" : "--csv");
	if (opt.per_cpu && opt.out == OUT_JSON)
		usage_error("--per-cpu: not with --json, which has every CPU under \"cpus\"");
	if (opt.cpu >= 0 && opt.out == OUT_OPENMETRICS)
		usage_error("--cpu: not with --openmetrics (--per-cpu: a series per CPU)");
	if (opt.pcts && (opt.out == OUT_CSV || opt.out == OUT_OPENMETRICS))
		usage_error("--percentiles: not with %s, whose rows are the slots",
			    opt.out == OUT_CSV ? "--csv" : "--openmetrics");
	if (opt.human && opt.out == OUT_CSV)
		usage_error("--unit: not with --csv, whose numbers are as recorded");
	if (mode_diff + mode_cmp + mode_merge > 1)
		usage_error("--diff, --compare and --merge: one at a time");
	if (opt.outfile && mode_cmp)
		usage_error("-o: not with --compare");
	if (opt.nfail_if && !mode_cmp)
		usage_error("--fail-if: only with --compare");
	for (c = 0; c < opt.nfail_if; c++)
		parse_fail_if(opt.fail_if[c].text, &opt.fail_if[c]);
	/* Each interval's exposition replaces the file; other formats add up. */
	if (opt.outfile && opt.interval > 0 && opt.out != OUT_OPENMETRICS)
		usage_error("-o with --interval: only --openmetrics, %s",
			    "whose each exposition replaces FILE (redirect the others' output)");
	if (trace && argc && secs > 0)
		usage_error("trace: either --duration or a command, not both");
	if (!trace && (mode_diff || mode_cmp) && argc != 2)
		usage_error("%s: two inputs, %s, not %d", mode_diff ? "--diff" : "--compare",
			    mode_diff ? "OLD and NEW" : "A and B", argc);
	if (!trace && !argc)
		usage_error("no input: a file, a metric name or - (standard input)");
	if (!trace && !(mode_diff || mode_cmp || mode_merge) && argc > 1)
		usage_error("%d inputs where one was expected (more: --merge, --diff, --compare)",
			    argc);
	if (opt.interval > 0 && (mode_diff || mode_cmp || mode_merge))
		usage_error("--interval: not with --diff, --compare or --merge");
	if (opt.interval > 0 && argc && !strcmp(argv[0], "-"))
		usage_error("--interval: not on standard input, which cannot be read again");
	/* The input whose name labels the output: NEW of --diff. */
	label = trace ? spec : mode_merge ? merged_name(argc, argv) :
		mode_diff ? argv[1] : argv[0];
	if (opt.out == OUT_OPENMETRICS && !opt.name && !strcmp(label, "-"))
		usage_error("--openmetrics: standard input has no name for the metric label: %s",
			    "give it with --name NAME");
	/* A line of vmstat's width: the usual three percentiles. */
	if (opt.rows && !opt.pcts)
		parse_pcts("50,90,99");
	if (opt.outfile && opt.interval <= 0)
		out_begin(opt.outfile);
	ret = 0;
	if (trace) {
		ret = trace_main(spec, argc, argv, secs);
	} else if (mode_diff || mode_cmp) {
		struct ks_data a, b;
		char *pa = resolve(argv[0]), *pb = resolve(argv[1]);
		int ga = group_dir(pa), gb = group_dir(pb);

		if (ga != gb || (ga && !mode_cmp))
			usage_error("%s: %s", mode_cmp ? "--compare" : "--diff",
				    mode_cmp ? "two groups (directories), or two metrics" :
				    "two metrics, not groups");
		if (mode_cmp && opt.out == OUT_JSON && !ga)
			usage_error("--compare --json: of two groups (directories) only");
		if (ga) {
			ret = compare_groups(pa, pb, argv[0], argv[1]);
			free(pa);
			free(pb);
			goto done;
		}
		load(&a, pa);
		load(&b, pb);
		if (mode_cmp) {
			ret = compare_inputs(&a, &b, argv[0], argv[1]);
		} else {
			diff(&a, &b, argv[1]);
			output(&a, argv[1]);
		}
		ks_data_free(&a);
		ks_data_free(&b);
		free(pa);
		free(pb);
	} else if (mode_merge) {
		struct ks_data d;

		merge_inputs(&d, argc, argv);
		output(&d, merged_name(argc, argv));
		ks_data_free(&d);
	} else if (opt.interval > 0) {
		follow(argv[0]);
	} else {
		struct ks_data d;
		char *path = resolve(argv[0]);

		if (group_dir(path)) {
			group_main(path, argv[0]);	/* kstats_top.c */
		} else {
			if (lines || sort)
				usage_error("%s: %s is not a group (a directory with a _summary)",
					    lines_sort(lines, sort), argv[0]);
			load(&d, path);
			output(&d, argv[0]);
			ks_data_free(&d);
		}
		free(path);
	}
done:
	if (opt.outfile && opt.interval <= 0)
		out_commit(opt.outfile);
	return ret;
}
