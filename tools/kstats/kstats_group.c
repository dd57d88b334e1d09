// SPDX-License-Identifier: GPL-2.0
/* kstats: a group's functions in the output format asked (its table: kstats_top.c). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "kstats.h"

int kstats_group_table(void)
{
	return opt.out == OUT_SUMMARY && !opt.per_cpu;
}

void kstats_group_begin(const char *group)
{
	switch (opt.out) {
	case OUT_JSON:
		printf("{\"group\":");
		json_string(group);
		printf(",\"functions\":{");
		break;
	case OUT_OPENMETRICS:
		printf("# HELP %s kstats latency distribution%s\n", om_family(),
		       opt.human ? ", in seconds" : ", in the unit recorded");
		printf("# TYPE %s histogram\n", om_family());
		if (opt.human)
			printf("# UNIT %s seconds\n", om_family());
		break;
	default:
		break;
	}
}

/*
 * One function @func of @group, the @i-th: in JSON, a member of
 * "functions"; in CSV, rows with a first column; in OpenMetrics, series
 * of the family of every metric, with the labels metric (the group, or
 * --name) and function, and the buckets of every series (--le-bits);
 * otherwise the function's name, then its output.
 */
void kstats_group_output(const struct ks_data *d, const char *group, const char *func,
			 size_t i)
{
	char metric[512], fn[512], labels[1200];
	size_t c;

	switch (opt.out) {
	case OUT_JSON:
		printf("%s", i ? "," : "");
		json_string(func);
		putchar(':');
		json_stats(d, selected(d, func), 1);
		break;
	case OUT_CSV:
		print_csv(d, selected(d, func), NULL, func, !i);
		break;
	case OUT_OPENMETRICS:
		if (opt.le_bits > d->bits)
			die(1, "--le-bits %d: finer than the frac_bits %d of %s", opt.le_bits,
			    d->bits, func);
		om_label(metric, sizeof(metric), opt.name ? opt.name : group);
		om_label(fn, sizeof(fn), func);
		if (!opt.per_cpu) {
			snprintf(labels, sizeof(labels), "metric=\"%s\",function=\"%s\",",
				 metric, fn);
			om_series(om_family(), labels, d, &d->all);
			break;
		}
		for (c = 0; c < d->ncpus; c++) {
			if (!d->cpu[c].nslots)
				continue;
			snprintf(labels, sizeof(labels),
				 "metric=\"%s\",function=\"%s\",cpu=\"%zu\",", metric, fn, c);
			om_series(om_family(), labels, d, &d->cpu[c]);
		}
		break;
	default:
		printf("%sfunction %s\n", i ? "\n" : "", shown(fn, sizeof(fn), func));
		output(d, func);
		break;
	}
}

void kstats_group_end(size_t n)
{
	if (opt.out == OUT_CSV && !n)
		print_csv(NULL, &(struct ks_hist){ 0 }, NULL, "", 1);
	else if (opt.out == OUT_JSON)
		printf("}}\n");
	else if (opt.out == OUT_OPENMETRICS)
		printf("# EOF\n");
}
