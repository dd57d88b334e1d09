// SPDX-License-Identifier: GPL-2.0
/* kstats --merge: the sum of several inputs, at the coarsest frac_bits. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstats.h"

/*
 * --merge: the inputs summed into @d, CPU by CPU and in all. Each input
 * is read at its frac_bits (--bits, or inferred); inputs of different
 * frac_bits are summed at the coarsest of them, where each slot of a
 * finer one lies whole in one slot (a union of finer slots): every count
 * stays exact, only the resolution is that of the coarsest. Said on
 * standard error, with each input's frac_bits.
 */
void merge_inputs(const struct kstats_opt *o, struct ks_data *d, int n, char **inputs)
{
	struct ks_data *in = calloc(n, sizeof(*in));
	int i, bits = KS_MAX_BITS, dashes = 0, differ = 0;
	uint64_t samples = 0;
	size_t c;

	if (!in)
		die(1, "out of memory");
	for (i = 0; i < n; i++)
		dashes += !strcmp(inputs[i], "-");
	if (dashes > 1)
		usage_error("--merge: - (standard input) given twice");
	for (i = 0; i < n; i++) {
		char *path = resolve(inputs[i]);

		load(&in[i], path, o->bits);
		free(path);
		if (in[i].bits < bits)
			bits = in[i].bits;
		differ |= in[i].bits != in[0].bits;
	}
	if (differ) {
		char *list = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&list, &len);

		for (i = 0; f && i < n; i++)
			fprintf(f, "%s %s has %d", i ? "," : "", inputs[i], in[i].bits);
		if (!f || fclose(f))
			die(1, "out of memory");
		kstats_warn("--merge: the inputs' frac_bits differ:%s; merged at frac_bits %d, %s%s",
			    list, bits, "the coarsest (exact: each of its slots is a union ",
			    "of finer ones)");
		free(list);
	}
	ks_data_init(d);
	d->bits = bits;
	for (i = 0; i < n; i++) {
		/*
		 * The samples of all CPUs summed fit in 64 bits: so do those
		 * of each CPU, and of each slot (the parser checked that each
		 * CPUS line has its CPU lines' samples).
		 */
		if (__builtin_add_overflow(samples, in[i].have_all ? in[i].samples_all :
					   in[i].samples_cpu, &samples))
			die(2, "--merge: %s: the samples add up past %llu: out of range",
			    inputs[i], (unsigned long long)UINT64_MAX);
		cpus_grow(d, in[i].ncpus);
		for (c = 0; c < in[i].ncpus; c++)
			hist_add_at(&d->cpu[c], &in[i].cpu[c], in[i].bits, bits);
		hist_add_at(&d->all, &in[i].all, in[i].bits, bits);
		if (in[i].possible > d->possible)
			d->possible = in[i].possible;
		ks_data_free(&in[i]);
	}
	free(in);
}

/* --merge: the inputs' common last path component, or "merged". */
const char *merged_name(int n, char **inputs)
{
	const char *name = strrchr(inputs[0], '/'), *b;
	int i;

	name = name ? name + 1 : inputs[0];
	for (i = 1; i < n; i++) {
		b = strrchr(inputs[i], '/');
		if (strcmp(b ? b + 1 : inputs[i], name))
			return "merged";
	}
	return name;
}
