/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats: reading the text of /sys/kernel/debug/kstats/NAME.
 *
 * Shared by the tool and its fuzz target.
 */
#ifndef KSTATS_PARSE_H
#define KSTATS_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KS_MAX_BITS	8
#define KS_MAX_SLOTS	((65 - KS_MAX_BITS) << KS_MAX_BITS)
#define KS_MAX_CPUS	(1 << 16)

/* One histogram: per slot, the number of samples and their sum. */
struct ks_hist {
	size_t nslots;		/* slots allocated, at least highest used + 1 */
	uint64_t *count;
	double *sum;	/* count * mean of each slot */
	/* Parsing: the highest p read, in millionths, and its line. */
	uint32_t max_ppm;
	unsigned long max_line;
};

struct ks_data {
	struct ks_hist *cpu;	/* per CPU, from the "CPU" lines */
	size_t ncpus;		/* CPU ids allocated: highest seen + 1 */
	struct ks_hist all;	/* from the "CPUS" lines */
	int have_all;		/* any CPUS line? */
	int bits;		/* frac_bits, once known; -1 before */
	unsigned int bits_ok;	/* bit b set: frac_bits b fits every line */
	unsigned long lines;
	unsigned long possible;	/* CPU count of the CPUS lines */
	uint64_t samples_all;	/* the counts of the CPUS lines, summed */
	uint64_t samples_cpu;	/* and of the CPU lines: both fit in 64 bits */
	char err[256];		/* the first error, with its line number */
};

void ks_data_init(struct ks_data *d);
void ks_data_free(struct ks_data *d);
/* Parse one line (no newline); 0, or -1 with d->err set. */
int ks_parse_line(struct ks_data *d, const char *line, size_t len,
		  unsigned long lineno);
/* Read a whole stream; 0, or -1 with d->err set. */
int ks_read(struct ks_data *d, FILE *f);
/*
 * Settle frac_bits (forced >= 0 or inferred) and check the whole input:
 * complete (not truncated) and consistent; 0, or -1 with d->err set.
 */
int ks_finish(struct ks_data *d, int forced_bits);

/* A decimal u64 and nothing else: 0, -1, or -ERANGE above UINT64_MAX. */
int ks_u64(const char *s, uint64_t *v);
uint64_t ks_slot(uint64_t val, int bits);
uint64_t ks_slot_min(unsigned int slot, int bits);
uint64_t ks_slot_max(unsigned int slot, int bits);
unsigned int ks_nr_slots(int bits);

#endif
