// SPDX-License-Identifier: GPL-2.0
/* kstats: one distribution in the output format asked. */
#define _GNU_SOURCE
#include <stdio.h>

#include "kstats.h"

/*
 * The samples of --cpu N, or of all CPUs. A CPU that the CPUS lines count
 * has none when it has no line; one beyond them (or beyond the CPU lines,
 * without CPUS lines) is an input error: not this input's.
 */
const struct ks_hist *selected(const struct ks_data *d, const char *what)
{
	static const struct ks_hist empty;
	size_t ncpus = d->ncpus > d->possible ? d->ncpus : d->possible;

	if (opt.cpu < 0)
		return &d->all;
	if ((size_t)opt.cpu < d->ncpus)
		return &d->cpu[opt.cpu];
	/* An empty metric (no line) says nothing of its CPUs. */
	if ((size_t)opt.cpu >= ncpus && ncpus)
		die(2, "%s: --cpu %ld: the input has CPUs 0 to %zu only", what, opt.cpu,
		    ncpus - 1);
	return &empty;
}

void output(const struct ks_data *d, const char *input)
{
	switch (opt.out) {
	case OUT_SUMMARY:
		if (opt.per_cpu)
			print_per_cpu(d);
		else
			print_summary(input, d, selected(d, input));
		break;
	case OUT_HIST:
		print_hist(selected(d, input), d->bits);
		break;
	case OUT_JSON:
		json_stats(d, selected(d, input), 1);
		putchar('\n');
		break;
	case OUT_CSV:
		print_csv(d, selected(d, input), NULL, NULL, 1);
		break;
	case OUT_OPENMETRICS:
		print_openmetrics(d, input);
		break;
	}
}
