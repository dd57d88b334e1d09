/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats: per-CPU log-linear histograms of kernel latencies and values.
 *
 * A metric keeps, per CPU and per slot, the number of samples and their
 * sum, and shows the whole distribution in /sys/kernel/debug/kstats/NAME.
 * See Documentation/dev-tools/kstats.rst.
 */
#ifndef _LINUX_KSTATS_H
#define _LINUX_KSTATS_H

#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/types.h>

struct dentry;
struct kstats;

/* Largest accepted frac_bits: 256 slots per power of two. */
#define KSTATS_MAX_FRAC_BITS	8

/**
 * kstats_slot() - map a value to its histogram slot
 * @val: the value
 * @frac_bits: number of fractional bits of the metric
 *
 * The most significant set bit of @val selects a bucket (a power of two) and
 * the @frac_bits bits below it select the slot within the bucket. Values
 * below 2^@frac_bits have a slot of their own each. The numbering is that of
 * the original kstats RFC, so that a slot number means the same everywhere.
 *
 * Context: any context.
 * Return: the slot of @val, between 0 and kstats_nr_slots(@frac_bits) - 1.
 */
static inline unsigned int kstats_slot(u64 val, unsigned int frac_bits)
{
	unsigned int bucket = fls64(val >> frac_bits);

	if (!bucket)
		return val;
	return (bucket << frac_bits) |
	       ((val >> (bucket - 1)) & ((1U << frac_bits) - 1));
}

/**
 * kstats_nr_slots() - number of slots needed to hold any u64 value
 * @frac_bits: number of fractional bits of the metric
 *
 * Return: the number of slots of a metric with @frac_bits fractional bits.
 */
static inline unsigned int kstats_nr_slots(unsigned int frac_bits)
{
	return (65 - frac_bits) << frac_bits;
}

/**
 * kstats_slot_min() - smallest value that falls in a slot
 * @slot: the slot
 * @frac_bits: number of fractional bits of the metric
 *
 * Return: the lower bound, inclusive, of the values mapped to @slot.
 */
static inline u64 kstats_slot_min(unsigned int slot, unsigned int frac_bits)
{
	unsigned int bucket = slot >> frac_bits;
	u64 mant = (1U << frac_bits) | (slot & ((1U << frac_bits) - 1));

	return bucket ? mant << (bucket - 1) : slot;
}

/**
 * kstats_slot_max() - largest value that falls in a slot
 * @slot: the slot
 * @frac_bits: number of fractional bits of the metric
 *
 * A slot of bucket b > 1 is 2^(b-1) wide, at most 2^-@frac_bits of the
 * values it holds; slots of buckets 0 and 1 hold a single value each.
 *
 * Return: the upper bound, inclusive, of the values mapped to @slot.
 */
static inline u64 kstats_slot_max(unsigned int slot, unsigned int frac_bits)
{
	unsigned int bucket = slot >> frac_bits;

	return kstats_slot_min(slot, frac_bits) +
	       (bucket > 1 ? (1ULL << (bucket - 1)) - 1 : 0);
}

#if IS_REACHABLE(CONFIG_KSTATS)

struct kstats *kstats_new(const char *name, u8 frac_bits);
struct kstats *kstats_create(const char *name, u8 frac_bits);
void kstats_record(struct kstats *ks, u64 val);
u64 kstats_count(struct kstats *ks);
void kstats_delete(struct kstats *ks);
struct dentry *kstats_debugfs_dir(void);

#else /* !CONFIG_KSTATS */

static inline struct kstats *kstats_new(const char *name, u8 frac_bits)
{
	return NULL;
}

static inline struct kstats *kstats_create(const char *name, u8 frac_bits)
{
	return ERR_PTR(-ENODEV);
}

static inline void kstats_record(struct kstats *ks, u64 val) { }
static inline u64 kstats_count(struct kstats *ks) { return 0; }
static inline void kstats_delete(struct kstats *ks) { }

static inline struct dentry *kstats_debugfs_dir(void)
{
	return ERR_PTR(-ENODEV);
}

#endif /* CONFIG_KSTATS */

#endif /* _LINUX_KSTATS_H */
