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
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/percpu.h>
#include <linux/types.h>

struct dentry;
struct kstats;

/* Largest accepted frac_bits: 256 slots per power of two. */
#define KSTATS_MAX_FRAC_BITS	8

/* The resolution of @val's slot is 2^__kstats_shift(). */
static __always_inline unsigned int __kstats_shift(u64 val,
						   unsigned int frac_bits)
{
	return fls64((val >> frac_bits) | 1) - 1;
}

/* The slot of @val, given its __kstats_shift() @shift. */
static __always_inline unsigned int __kstats_slot(u64 val, unsigned int frac_bits,
						  unsigned int shift)
{
	return (shift << frac_bits) + (unsigned int)(val >> shift);
}

/**
 * kstats_slot() - map a value to its histogram slot
 * @val: the value
 * @frac_bits: number of fractional bits of the metric
 *
 * The most significant set bit of @val selects a bucket (a power of two) and
 * the @frac_bits bits below it select the slot within the bucket. Values
 * below 2^(@frac_bits + 1) have a slot of their own each. The numbering is
 * that of the original kstats RFC, so that a slot number means the same
 * everywhere.
 *
 * Computed without branches, as kstats_record() needs it: @shift is how far
 * @val must be shifted right to keep its top @frac_bits + 1 bits (0 when it
 * has no more), and the slot is @shift * 2^@frac_bits plus these bits.
 *
 * Context: any context.
 * Return: the slot of @val, between 0 and kstats_nr_slots(@frac_bits) - 1.
 */
static __always_inline unsigned int kstats_slot(u64 val, unsigned int frac_bits)
{
	return __kstats_slot(val, frac_bits, __kstats_shift(val, frac_bits));
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

#if IS_ENABLED(CONFIG_KSTATS)

/* Slots are allocated per CPU in chunks of 512 (8 KiB). */
#define KSTATS_CHUNK_SHIFT	9
#define KSTATS_CHUNK_SLOTS	BIT(KSTATS_CHUNK_SHIFT)

/*
 * A slot keeps the values of its samples cut to KSTATS_SUM_BITS bits below
 * the slot's resolution: its mean is exact for slots up to 2^16 wide.
 */
#define KSTATS_SUM_BITS		16

/* The counters of one slot on one CPU. */
struct kstats_slot {
	u64 samples;
	u64 sum;
};

/*
 * struct kstats - a metric. Its fields belong to lib/kstats.c: they are
 * here only so that kstats_record() is inlined into the code it measures.
 */
struct kstats {
	bool active;
	u8 frac_bits;
	unsigned int nr_slots;
	const char *name;
	struct dentry *file;		/* a directory for a group */
	struct list_head node;		/* in the list of metrics, or of its group */
	struct kstats *group;		/* the group it belongs to, or NULL */
	struct list_head members;	/* of a group: its metrics */
	unsigned int nr_chunks;		/* 0 for a group */
	struct kstats_slot __percpu *chunk[] __counted_by(nr_chunks);
};

/* The per-CPU counters of @slot of @ks. */
static __always_inline struct kstats_slot __percpu *
__kstats_slot_ptr(struct kstats *ks, unsigned int slot)
{
	return ks->chunk[slot >> KSTATS_CHUNK_SHIFT] +
	       (slot & (KSTATS_CHUNK_SLOTS - 1));
}

/**
 * kstats_record() - record one value in a metric
 * @ks: the metric, from kstats_new(); NULL and error pointers are ignored
 * @val: the value, usually a time difference in nanoseconds or cycles
 *
 * Adds @val to the slot it falls in on the current CPU. Every u64 value has
 * a slot: nothing is clamped or dropped. Does nothing while the metric is
 * stopped.
 *
 * Inline, without branches past the two checks, and two this_cpu
 * additions: no lock, no atomic instruction, no allocation, no function
 * call, so that it may stay in hot paths and in probe handlers. Each
 * addition is safe against interrupts, which may record too; preemption
 * is not disabled, so a task migrated between the two can credit the sum
 * of one sample to another CPU than its count: totals stay exact, and
 * readers keep per-CPU means within their slot.
 *
 * Context: any context, including hard interrupts; NMI where this_cpu
 * operations on u64 are NMI safe (one instruction on x86-64, an atomic
 * on arm64), not where they are the generic ones, under
 * local_irq_save(), as on 32-bit x86.
 */
static __always_inline void kstats_record(struct kstats *ks, u64 val)
{
	struct kstats_slot __percpu *s;
	unsigned int shift, slot;

	if (IS_ERR_OR_NULL(ks) || !READ_ONCE(ks->active))
		return;
	/* kstats_slot(), keeping the shift for the sum. */
	shift = __kstats_shift(val, ks->frac_bits);
	slot = __kstats_slot(val, ks->frac_bits, shift);
	s = __kstats_slot_ptr(ks, slot);
	this_cpu_inc(s->samples);
	this_cpu_add(s->sum, val >> (shift > KSTATS_SUM_BITS ?
				      shift - KSTATS_SUM_BITS : 0));
}

struct kstats *kstats_new(const char *name, u8 frac_bits);
struct kstats *kstats_new_group(const char *name);
struct kstats *kstats_new_in(struct kstats *group, const char *name, u8 frac_bits);
u64 kstats_count(struct kstats *ks);
void kstats_delete(struct kstats *ks);
struct dentry *kstats_debugfs_dir(void);

#else /* !CONFIG_KSTATS */

static inline struct kstats *kstats_new(const char *name, u8 frac_bits)
{
	return ERR_PTR(-ENODEV);
}

static inline struct kstats *kstats_new_group(const char *name)
{
	return ERR_PTR(-ENODEV);
}

static inline struct kstats *kstats_new_in(struct kstats *group,
					   const char *name, u8 frac_bits)
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
