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
const struct ks_hist *selected(const struct kstats_opt *o, const struct ks_data *d,
			       const char *what)
{
	static const struct ks_hist empty;
	size_t ncpus = d->ncpus > d->possible ? d->ncpus : d->possible;

	if (o->cpu < 0)
		return &d->all;
	if ((size_t)o->cpu < d->ncpus)
		return &d->cpu[o->cpu];
	/* An empty metric (no line) says nothing of its CPUs. */
	if ((size_t)o->cpu >= ncpus && ncpus)
		die(2, "%s: --cpu %ld: the input has CPUs 0 to %zu only", what, o->cpu,
		    ncpus - 1);
	return &empty;
}

void output(const struct kstats_opt *o, const struct ks_data *d, const char *input)
{
	switch (o->out) {
	case OUT_SUMMARY:
		if (o->per_cpu)
			print_per_cpu(o, d);
		else
			print_summary(o, input, d, selected(o, d, input));
		break;
	case OUT_HIST:
		print_hist(o, selected(o, d, input), d->bits);
		break;
	case OUT_JSON:
		json_stats(o, d, selected(o, d, input), 1);
		putchar('\n');
		break;
	case OUT_CSV:
		print_csv(o, d, selected(o, d, input), NULL, NULL, 1);
		break;
	case OUT_OPENMETRICS:
		print_openmetrics(o, d, input);
		break;
	case OUT_HGRM:
		print_hgrm(o, d, selected(o, d, input));
		break;
	}
}
