// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kstats: the slot mapping, and the debugfs files read and
 * written through their file operations on a kernel mount of debugfs.
 */

#include <kunit/resource.h>
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/cpu.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/kstats.h>
#include <linux/mount.h>
#include <linux/prandom.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "kstats_kunit.h"

/* The frac_bits of kstats_test_edges_all_cpus(), for its IPI function. */
static unsigned int kstats_test_edges_bits;

static const unsigned int kstats_test_bits[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };

static void kstats_test_bits_desc(const unsigned int *bits, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "frac_bits=%u", *bits);
}

KUNIT_ARRAY_PARAM(kstats_test_bits, kstats_test_bits, kstats_test_bits_desc);

KUNIT_DEFINE_ACTION_WRAPPER(kstats_test_delete, kstats_delete, struct kstats *);

/* A metric deleted when the test ends, even when an assertion fails. */
static struct kstats *kstats_test_new(struct kunit *test, const char *name,
				      unsigned int bits)
{
	struct kstats *ks = kstats_new(name, bits);

	KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, ks, "kstats_new(%s, %u)", name, bits);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kstats_test_delete, ks), 0);
	return ks;
}

/* Delete a metric from kstats_test_new() now. */
static void kstats_test_delete_now(struct kunit *test, struct kstats *ks)
{
	kunit_release_action(test, kstats_test_delete, ks);
}

/* Check that @val lies in its slot and that the slot is narrow enough. */
static void kstats_test_check_val(struct kunit *test, u64 val, unsigned int bits)
{
	unsigned int slot = kstats_slot(val, bits);
	u64 lo = kstats_slot_min(slot, bits);
	u64 hi = kstats_slot_max(slot, bits);
	u64 width = hi - lo + 1;

	KUNIT_EXPECT_LT_MSG(test, slot, kstats_nr_slots(bits), "val %llu", val);
	KUNIT_EXPECT_LE_MSG(test, lo, val, "slot %u", slot);
	KUNIT_EXPECT_GE_MSG(test, hi, val, "slot %u", slot);
	/* A slot is one value wide, or at most 2^-bits of its values. */
	KUNIT_EXPECT_TRUE_MSG(test, width == 1 || width <= lo >> bits,
			      "slot %u [%llu, %llu] too wide", slot, lo, hi);
}

/* The slot as the original RFC computes it, with a branch. */
static unsigned int kstats_test_rfc_slot(u64 val, unsigned int bits)
{
	unsigned int bucket = fls64(val >> bits);

	if (!bucket)
		return val;
	return (bucket << bits) | ((val >> (bucket - 1)) & ((1U << bits) - 1));
}

/* Reproducible values spread over the whole u64 range. */
static u64 kstats_test_rand(struct rnd_state *rs)
{
	u64 x = prandom_u32_state(rs);

	x = x << 32 | prandom_u32_state(rs);
	return x >> (x >> 58);		/* every magnitude */
}

static void kstats_test_slot_boundaries(struct kunit *test)
{
	unsigned int bits = *(const unsigned int *)test->param_value;
	struct rnd_state rs;
	unsigned int k;

	/* The branch-free kstats_slot() against the RFC's formula. */
	prandom_seed_state(&rs, bits + 1);
	for (k = 0; k < 100000; k++) {
		u64 val = kstats_test_rand(&rs);

		KUNIT_ASSERT_EQ_MSG(test, kstats_slot(val, bits),
				    kstats_test_rfc_slot(val, bits), "val %llu", val);
	}
	for (k = 0; k < 64; k++) {
		KUNIT_ASSERT_EQ(test, kstats_slot(BIT_ULL(k) - 1, bits),
				kstats_test_rfc_slot(BIT_ULL(k) - 1, bits));
		KUNIT_ASSERT_EQ(test, kstats_slot(BIT_ULL(k), bits),
				kstats_test_rfc_slot(BIT_ULL(k), bits));
	}

	kstats_test_check_val(test, 0, bits);
	kstats_test_check_val(test, 1, bits);
	kstats_test_check_val(test, U64_MAX, bits);
	for (k = 0; k < 64; k++) {
		kstats_test_check_val(test, BIT_ULL(k) - 1, bits);
		kstats_test_check_val(test, BIT_ULL(k), bits);
		kstats_test_check_val(test, BIT_ULL(k) + 1, bits);
	}
	KUNIT_EXPECT_EQ(test, kstats_slot(0, bits), 0);
	KUNIT_EXPECT_EQ(test, kstats_slot(U64_MAX, bits),
			kstats_nr_slots(bits) - 1);
}

/*
 * The slots tile [0, U64_MAX] in order: each slot's bounds map back to it,
 * and each slot starts right after the previous one ends. This is what
 * makes the slot number monotone in the value.
 */
static void kstats_test_slot_tiling(struct kunit *test)
{
	unsigned int bits = *(const unsigned int *)test->param_value;
	unsigned int slot, nr = kstats_nr_slots(bits);

	KUNIT_EXPECT_EQ(test, kstats_slot_min(0, bits), 0);
	KUNIT_EXPECT_EQ(test, kstats_slot_max(nr - 1, bits), U64_MAX);
	for (slot = 0; slot < nr; slot++) {
		u64 lo = kstats_slot_min(slot, bits);
		u64 hi = kstats_slot_max(slot, bits);

		KUNIT_ASSERT_LE(test, lo, hi);
		KUNIT_ASSERT_EQ(test, kstats_slot(lo, bits), slot);
		KUNIT_ASSERT_EQ(test, kstats_slot(hi, bits), slot);
		KUNIT_ASSERT_EQ(test, kstats_slot(lo + (hi - lo) / 2, bits), slot);
		if (slot)
			KUNIT_ASSERT_EQ(test, lo, kstats_slot_max(slot - 1, bits) + 1);
	}
}

struct kstats_test_rfc {
	u64 val;
	unsigned int bits;
	unsigned int slot;
};

/* Slot numbers of the original RFC, some from its slides. */
static const struct kstats_test_rfc kstats_test_rfc_slots[] = {
	{ 480, 3, 55 }, { 20130, 3, 97 }, { 20294, 3, 97 },
	{ 7, 3, 7 }, { 8, 3, 8 }, { 15, 3, 15 }, { 16, 3, 16 }, { 17, 3, 16 },
	{ 18, 3, 17 }, { 0, 0, 0 }, { 1, 0, 1 }, { 3, 0, 2 }, { 4, 0, 3 },
	{ U64_MAX, 0, 64 }, { U64_MAX, 8, 14591 }, { 255, 8, 255 },
	{ 256, 8, 256 }, { 512, 8, 512 }, { 513, 8, 512 }, { 514, 8, 513 },
};

static void kstats_test_rfc_desc(const struct kstats_test_rfc *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "val=%llu bits=%u", t->val, t->bits);
}

KUNIT_ARRAY_PARAM(kstats_test_rfc, kstats_test_rfc_slots, kstats_test_rfc_desc);

static void kstats_test_rfc_numbering(struct kunit *test)
{
	const struct kstats_test_rfc *t = test->param_value;

	KUNIT_EXPECT_EQ(test, kstats_slot(t->val, t->bits), t->slot);
}

/*
 * debugfs, mounted while this module is loaded, so that the tests of kstats
 * and of its users (kstats_trace) open the files as user space does.
 */
static struct vfsmount *kstats_test_mnt;

/**
 * kstats_kunit_open() - open a file of /sys/kernel/debug/kstats
 * @name: the file, in the kstats directory
 * @flags: open flags, such as O_RDONLY or O_WRONLY | O_TRUNC
 *
 * For the KUnit suites of kstats and of its users, which close it with
 * kstats_kunit_close().
 *
 * Context: process context; may sleep.
 * Return: the open file, or an error pointer.
 */
struct file *kstats_kunit_open(const char *name, int flags)
{
	char *path;
	struct file *file;

	if (IS_ERR(kstats_test_mnt))
		return ERR_CAST(kstats_test_mnt);
	path = kasprintf(GFP_KERNEL, "kstats/%s", name);
	if (!path)
		return ERR_PTR(-ENOMEM);
	file = file_open_root_mnt(kstats_test_mnt, path, flags, 0);
	kfree(path);
	return file;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_kunit_open);

/**
 * kstats_kunit_close() - close a file that kstats_kunit_open() opened
 * @file: the file
 *
 * Releases it before it returns: fput() from the test's kernel thread
 * would release it later, in a work that flush_delayed_fput() does not
 * wait for, and a test that counts the references of a module, or that
 * removes what the file shows, would see it still open. __fput_sync(), as
 * the comment above it asks, only because a test's thread holds no lock
 * that the release could need, and has no part in an unmount.
 *
 * Context: process context, holding no lock; may sleep.
 */
void kstats_kunit_close(struct file *file)
{
	__fput_sync(file);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_kunit_close);

KUNIT_DEFINE_ACTION_WRAPPER(kstats_test_kvfree, kvfree, const void *);

/**
 * kstats_kunit_read() - the whole content of a file of the kstats directory
 * @test: the test, which owns the buffer returned
 * @name: the file, in the kstats directory
 *
 * For the KUnit suites of kstats and of its users. Reads in small pieces,
 * so that the output crosses many read() calls, into a buffer that grows
 * with it: a metric with every slot filled on every possible CPU fits.
 * Fails the test on any error but a missing file.
 *
 * Context: process context; may sleep.
 * Return: the content, NUL terminated, or NULL if there is no such file.
 */
char *kstats_kunit_read(struct kunit *test, const char *name)
{
	size_t size = SZ_64K, len = 0;
	char *buf, *bigger;
	struct file *file;
	loff_t pos = 0;
	ssize_t n;

	file = kstats_kunit_open(name, O_RDONLY);
	if (PTR_ERR(file) == -ENOENT)
		return NULL;
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(file), "open %s: %ld", name,
			       PTR_ERR(file));
	buf = kvzalloc(size, GFP_KERNEL);
	if (!buf)
		kstats_kunit_close(file);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* Small reads, so that the output crosses many read() calls. */
	do {
		if (len == size - 1) {
			bigger = kvrealloc(buf, 2 * size, GFP_KERNEL | __GFP_ZERO);
			if (!bigger)
				break;
			buf = bigger;
			size *= 2;
		}
		n = kernel_read(file, buf + len, min_t(size_t, 100, size - 1 - len), &pos);
		if (n > 0)
			len += n;
	} while (n > 0);
	kstats_kunit_close(file);
	if (kunit_add_action_or_reset(test, kstats_test_kvfree, buf))
		KUNIT_FAIL_AND_ABORT(test, "no memory for the buffer of %s", name);
	KUNIT_ASSERT_EQ(test, n, 0);
	buf[len] = '\0';
	return buf;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_kunit_read);

/* The content of a metric file, which must exist. */
static char *kstats_test_read(struct kunit *test, const char *name)
{
	char *text = kstats_kunit_read(test, name);

	KUNIT_ASSERT_NOT_NULL_MSG(test, text, "no file %s", name);
	return text;
}

static ssize_t kstats_test_write(struct kunit *test, const char *name,
				 const char *cmd)
{
	struct file *file = kstats_kunit_open(name, O_WRONLY);
	loff_t pos = 0;
	ssize_t ret;

	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	ret = kernel_write(file, cmd, strlen(cmd), &pos);
	kstats_kunit_close(file);
	return ret;
}

struct kstats_test_line {
	unsigned int slot;
	bool all;
	unsigned int cpu;
	u64 count;
	u64 avg;
	unsigned int ppm;
};

/*
 * Parse one line and check that it is exactly in the documented format, by
 * printing the parsed fields again with the format of the RFC.
 */
static bool kstats_test_parse(struct kunit *test, const char *line, size_t len,
			      struct kstats_test_line *l)
{
	unsigned int whole, frac;
	char c, again[128];

	if (sscanf(line, "slot %u CPU%c %u count %llu avg %llu p %u.%u", &l->slot,
		   &c, &l->cpu, &l->count, &l->avg, &whole, &frac) != 7)
		return false;
	if ((c != ' ' && c != 'S') || whole > 1 || frac > 999999)
		return false;
	l->all = c == 'S';
	l->ppm = whole * 1000000 + frac;
	snprintf(again, sizeof(again),
		 "slot %-3u CPU%c %-4u count %8llu avg %8llu p %c.%06u", l->slot,
		 c, l->cpu, l->count, l->avg, '0' + whole, frac);
	return strlen(again) == len && !memcmp(again, line, len);
}

/*
 * Parse a metric's output, check every property the format promises, and
 * return the number of samples of each slot (from the CPUS lines).
 */
static u64 *kstats_test_check_output(struct kunit *test, const char *text,
				     unsigned int bits, u64 *total)
{
	unsigned int nr = kstats_nr_slots(bits);
	u64 *slots = kunit_kcalloc(test, nr, sizeof(u64), GFP_KERNEL);
	unsigned int *ppm = kunit_kcalloc(test, nr_cpu_ids + 1, sizeof(*ppm),
					  GFP_KERNEL);
	u64 cpu_sum = 0;
	int last_slot = -1, lines = 0;
	unsigned int last_cpu = 0;
	const char *p = text;

	KUNIT_ASSERT_NOT_NULL(test, slots);
	KUNIT_ASSERT_NOT_NULL(test, ppm);
	*total = 0;
	while (*p) {
		const char *eol = strchr(p, '\n');
		struct kstats_test_line l;
		unsigned int idx;

		KUNIT_ASSERT_NOT_NULL_MSG(test, eol, "line %d not terminated", lines);
		KUNIT_ASSERT_TRUE_MSG(test, kstats_test_parse(test, p, eol - p, &l),
				      "bad line %d: %.*s", lines, (int)(eol - p), p);
		lines++;
		KUNIT_ASSERT_LT(test, l.slot, nr);
		/* Slots ascend; a slot's CPU lines, then its CPUS line. */
		if (cpu_sum)
			KUNIT_EXPECT_EQ(test, (int)l.slot, last_slot);
		else
			KUNIT_EXPECT_GT(test, (int)l.slot, last_slot);
		KUNIT_EXPECT_TRUE(test, l.all || !cpu_sum || l.cpu > last_cpu);
		KUNIT_EXPECT_GT(test, l.count, 0);
		KUNIT_EXPECT_GE(test, l.avg, kstats_slot_min(l.slot, bits));
		KUNIT_EXPECT_LE(test, l.avg, kstats_slot_max(l.slot, bits));
		if (l.all) {
			KUNIT_EXPECT_EQ(test, l.cpu, num_possible_cpus());
			/* The CPUS line is the sum of the slot's CPU lines. */
			KUNIT_EXPECT_EQ(test, l.count, cpu_sum);
			KUNIT_EXPECT_EQ(test, slots[l.slot], 0);
			slots[l.slot] = l.count;
			*total += l.count;
			cpu_sum = 0;
			idx = nr_cpu_ids;
		} else {
			KUNIT_ASSERT_LT(test, l.cpu, nr_cpu_ids);
			cpu_sum += l.count;
			last_cpu = l.cpu;
			idx = l.cpu;
		}
		/* The cumulative fractions never decrease. */
		KUNIT_EXPECT_GE(test, l.ppm, ppm[idx]);
		ppm[idx] = l.ppm;
		last_slot = l.slot;
		p = eol + 1;
	}
	/* Every CPU line is followed by its slot's CPUS line. */
	KUNIT_EXPECT_EQ(test, cpu_sum, 0);
	/* ... and the last fraction of each CPU, and of all, is 1.000000. */
	if (lines)
		KUNIT_EXPECT_EQ(test, ppm[nr_cpu_ids], 1000000);
	return slots;
}

static void kstats_test_output(struct kunit *test)
{
	unsigned int bits = *(const unsigned int *)test->param_value;
	unsigned int i, slot, nr = kstats_nr_slots(bits);
	u64 *expect = kunit_kcalloc(test, nr, sizeof(u64), GFP_KERNEL);
	u64 *got, total, n = 0;
	struct kstats *ks;
	struct rnd_state rs;

	KUNIT_ASSERT_NOT_NULL(test, expect);
	prandom_seed_state(&rs, 1);
	ks = kstats_test_new(test, "kunit_output", bits);
	/* Empty metric, empty file. */
	KUNIT_EXPECT_STREQ(test, kstats_test_read(test, "kunit_output"), "");

	for (i = 0; i < 1000; i++) {
		u64 val = kstats_test_rand(&rs);

		kstats_record(ks, val);
		expect[kstats_slot(val, bits)]++;
		n++;
	}
	kstats_record(ks, 0);
	kstats_record(ks, U64_MAX);
	expect[0]++;
	expect[nr - 1]++;
	n += 2;

	got = kstats_test_check_output(test, kstats_test_read(test, "kunit_output"),
				       bits, &total);
	KUNIT_EXPECT_EQ(test, total, n);
	for (slot = 0; slot < nr; slot++)
		KUNIT_EXPECT_EQ_MSG(test, got[slot], expect[slot], "slot %u", slot);
}

/* The mean printed for a slot, against the exact mean of its samples. */
static u64 kstats_test_avg(struct kunit *test, const char *name, unsigned int slot)
{
	char *text = kstats_test_read(test, name), *p;
	struct kstats_test_line l;

	for (p = text; *p; p = strchr(p, '\n') + 1) {
		KUNIT_ASSERT_TRUE(test, kstats_test_parse(test, p, strchr(p, '\n') - p, &l));
		if (l.all && l.slot == slot)
			return l.avg;
	}
	KUNIT_FAIL(test, "no CPUS line for slot %u", slot);
	return 0;
}

static void kstats_test_mean(struct kunit *test)
{
	struct kstats *ks = kstats_test_new(test, "kunit_mean", 3);
	unsigned int i, slot;
	u64 lo, width, avg, exact;

	/* A slot 64 wide: the mean is exact, rounded down. */
	slot = kstats_slot(1000, 3);
	lo = kstats_slot_min(slot, 3);
	KUNIT_ASSERT_EQ(test, kstats_slot_max(slot, 3) - lo + 1, 64);
	for (i = 0; i < 10; i++)
		kstats_record(ks, lo + i * 7);	/* mean lo + 31.5 */
	KUNIT_EXPECT_EQ(test, kstats_test_avg(test, "kunit_mean", slot), lo + 31);

	/* A slot 2^37 wide, where the sum keeps 16 bits of the offsets. */
	slot = kstats_slot(BIT_ULL(40), 3);
	lo = kstats_slot_min(slot, 3);
	width = kstats_slot_max(slot, 3) - lo + 1;
	exact = 0;
	for (i = 0; i < 1000; i++) {
		u64 off = div_u64(width, 1000) * i + 12345;

		kstats_record(ks, lo + off);
		exact += off;
	}
	exact = lo + div_u64(exact, 1000);
	avg = kstats_test_avg(test, "kunit_mean", slot);
	KUNIT_EXPECT_LE_MSG(test, abs_diff(avg, exact), width >> 15,
			    "avg %llu exact %llu", avg, exact);

	/* The largest values: no overflow, the mean stays in the slot. */
	for (i = 0; i < 1000; i++)
		kstats_record(ks, U64_MAX - i);
	slot = kstats_slot(U64_MAX, 3);
	avg = kstats_test_avg(test, "kunit_mean", slot);
	KUNIT_EXPECT_GE(test, avg, U64_MAX - (kstats_slot_max(slot, 3) -
					      kstats_slot_min(slot, 3)) / 0x8000);
}

/*
 * A kstats_record() that migrates between its two additions leaves its
 * count on one CPU and its sum on another, for good: the mean of the line
 * of all CPUs counts that sum.
 */
static void kstats_test_mean_split(struct kunit *test)
{
	unsigned int slot = kstats_slot(1000, 3);
	int a = cpumask_first(cpu_possible_mask);
	int b = cpumask_next(a, cpu_possible_mask);
	struct kstats *ks;

	if (b >= nr_cpu_ids)
		kunit_skip(test, "needs two possible CPUs");
	ks = kstats_test_new(test, "kunit_mean_split", 3);
	/* What kstats_record(ks, 1000) adds, split between two CPUs. */
	per_cpu_ptr(__kstats_slot_ptr(ks, slot), a)->samples = 1;
	per_cpu_ptr(__kstats_slot_ptr(ks, slot), b)->sum = 1000;
	KUNIT_EXPECT_EQ(test, kstats_test_avg(test, "kunit_mean_split", slot), 1000);
}

/*
 * The slots at or above 2^63, with one more sample in the sum than in the
 * count, at the top of each slot, as a reader sees when a CPU is between
 * the two additions of kstats_record(): every mean stays in its slot.
 */
static void kstats_test_mean_top(struct kunit *test)
{
	unsigned int bits = *(const unsigned int *)test->param_value;
	unsigned int slot, nr = kstats_nr_slots(bits);
	int cpu = cpumask_first(cpu_possible_mask);
	struct kstats *ks;
	u64 total;

	ks = kstats_test_new(test, "kunit_mean_top", bits);
	for (slot = kstats_slot(BIT_ULL(63), bits); slot < nr; slot++) {
		struct kstats_slot *s = per_cpu_ptr(__kstats_slot_ptr(ks, slot), cpu);
		u64 hi = kstats_slot_max(slot, bits);
		unsigned int shift = __kstats_shift(hi, bits);

		/* What kstats_record(ks, hi) adds to the sum, twice. */
		s->sum = 2 * (hi >> (shift - KSTATS_SUM_BITS));
		s->samples = 1;
	}
	/* Every mean is checked against its slot's bounds. */
	kstats_test_check_output(test, kstats_test_read(test, "kunit_mean_top"),
				 bits, &total);
	KUNIT_EXPECT_EQ(test, total, nr - kstats_slot(BIT_ULL(63), bits));
}

static void kstats_test_commands(struct kunit *test)
{
	static const char * const bad[] = {
		"", "\n", "bogus", "startx", "stop\n\n", " start", "reset now",
		"st", "resetresetreset",
	};
	struct kstats *ks = kstats_test_new(test, "kunit_cmd", 3);
	char *before;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, kstats_test_write(test, "kunit_cmd", "stop"), 4);
	kstats_record(ks, 100);
	KUNIT_EXPECT_STREQ(test, kstats_test_read(test, "kunit_cmd"), "");

	KUNIT_EXPECT_EQ(test, kstats_test_write(test, "kunit_cmd", "START\n"), 6);
	kstats_record(ks, 100);
	kstats_record(ks, 100);
	before = kstats_test_read(test, "kunit_cmd");
	KUNIT_EXPECT_NOT_NULL(test, strstr(before, "count        2 avg      100 p 1.000000\n"));

	/* Bad commands: -EINVAL and nothing changes, recording goes on. */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ_MSG(test, kstats_test_write(test, "kunit_cmd", bad[i]),
				    -EINVAL, "command '%s'", bad[i]);
		KUNIT_EXPECT_STREQ(test, kstats_test_read(test, "kunit_cmd"), before);
	}

	KUNIT_EXPECT_EQ(test, kstats_test_write(test, "kunit_cmd", "Reset\n"), 6);
	KUNIT_EXPECT_STREQ(test, kstats_test_read(test, "kunit_cmd"), "");
	kstats_record(ks, 7);
	KUNIT_EXPECT_NOT_NULL(test, strstr(kstats_test_read(test, "kunit_cmd"),
					   "slot 7   CPUS"));
}

/* What kstats_new() returns on failure may be used: it does nothing. */
static void kstats_test_null(struct kunit *test)
{
	kstats_record(NULL, 1);
	kstats_record(NULL, U64_MAX);
	kstats_record(ERR_PTR(-ENOMEM), 1);
	KUNIT_EXPECT_EQ(test, kstats_count(NULL), 0);
	KUNIT_EXPECT_EQ(test, kstats_count(ERR_PTR(-EEXIST)), 0);
	kstats_delete(NULL);
	kstats_delete(ERR_PTR(-EINVAL));
}

static void kstats_test_invalid(struct kunit *test)
{
	static const char * const names[] = {
		"", "a/b", "/", ".", "..", "a b", "tab\t", "new\nline", "_control",
		"error_log",
	};
	struct kstats *ks, *dup;
	unsigned int i;
	char *name;

	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new(NULL, 3)), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(kstats_new(names[i], 3)), -EINVAL,
				    "'%s'", names[i]);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new("kunit_bits", KSTATS_MAX_FRAC_BITS + 1)),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new("kunit_bits", 255)), -ERANGE);

	/* Names as long as debugfs takes, and not a character more. */
	name = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, name);
	memset(name, 'x', 1023);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new(name, 3)), -ENAMETOOLONG);
	name[NAME_MAX + 1] = '\0';
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new(name, 3)), -ENAMETOOLONG);
	name[NAME_MAX] = '\0';
	ks = kstats_test_new(test, name, 3);
	kstats_record(ks, 5);
	KUNIT_EXPECT_NOT_NULL(test, strstr(kstats_test_read(test, name), "slot 5   CPUS"));
	kstats_test_delete_now(test, ks);

	ks = kstats_test_new(test, "kunit_dup", 3);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new("kunit_dup", 4)), -EEXIST);
	/* The failed duplicate changed nothing. */
	kstats_record(ks, 3);
	KUNIT_EXPECT_NOT_NULL(test, strstr(kstats_test_read(test, "kunit_dup"),
					   "slot 3   CPUS"));
	kstats_test_delete_now(test, ks);
	/* Once deleted, the name can be used again. */
	dup = kstats_test_new(test, "kunit_dup", 4);
	KUNIT_EXPECT_STREQ(test, kstats_test_read(test, "kunit_dup"), "");
}

/* frac_bits whose every slot, on every CPU, fits in the test's buffer. */
static const unsigned int kstats_test_few_bits[] = { 0, 3 };

KUNIT_ARRAY_PARAM(kstats_test_few_bits, kstats_test_few_bits, kstats_test_bits_desc);

#define KSTATS_TEST_ROUNDS	8

/*
 * On each CPU: both ends of every slot, 0 and U64_MAX, a few times, into
 * the first metric; the top of every slot into the second.
 */
static void kstats_test_record_edges(void *arg)
{
	struct kstats **ks = arg;
	unsigned int bits = kstats_test_edges_bits;
	unsigned int i, slot;

	for (i = 0; i < KSTATS_TEST_ROUNDS; i++) {
		for (slot = 0; slot < kstats_nr_slots(bits); slot++) {
			kstats_record(ks[0], kstats_slot_min(slot, bits));
			kstats_record(ks[0], kstats_slot_max(slot, bits));
			kstats_record(ks[1], kstats_slot_max(slot, bits));
		}
		kstats_record(ks[0], 0);
		kstats_record(ks[0], U64_MAX);
	}
}

/*
 * Every slot boundary, 0 and U64_MAX recorded on all CPUs at once: exact
 * counts per slot, and every mean inside its slot although the sums of
 * the slots' largest values are at their limit (every offset the largest).
 */
static void kstats_test_edges_all_cpus(struct kunit *test)
{
	unsigned int bits = *(const unsigned int *)test->param_value;
	unsigned int slot, nr = kstats_nr_slots(bits), cpus;
	struct kstats *ks[2] = {
		kstats_test_new(test, "kunit_edges", bits),
		kstats_test_new(test, "kunit_tops", bits),
	};
	struct kstats_test_line l;
	u64 *got, total, lo, hi;
	char *text, *p;

	kstats_test_edges_bits = bits;
	cpus_read_lock();
	cpus = num_online_cpus();
	on_each_cpu(kstats_test_record_edges, ks, 1);
	cpus_read_unlock();

	got = kstats_test_check_output(test, kstats_test_read(test, "kunit_edges"),
				       bits, &total);
	KUNIT_EXPECT_EQ(test, total, (u64)cpus * KSTATS_TEST_ROUNDS * (2 * nr + 2));
	for (slot = 0; slot < nr; slot++)
		KUNIT_EXPECT_EQ_MSG(test, got[slot], (u64)cpus * KSTATS_TEST_ROUNDS *
				    (2 + (slot == 0) + (slot == nr - 1)),
				    "slot %u", slot);

	/*
	 * Only the top of each slot: the sum of the offsets is as large as
	 * it gets for its count, and the mean is the top, exactly up to 2^16
	 * values wide, within the kept 16 bits above.
	 */
	text = kstats_test_read(test, "kunit_tops");
	kstats_test_check_output(test, text, bits, &total);
	KUNIT_EXPECT_EQ(test, total, (u64)cpus * KSTATS_TEST_ROUNDS * nr);
	for (p = text; *p; p = strchr(p, '\n') + 1) {
		KUNIT_ASSERT_TRUE(test, kstats_test_parse(test, p, strchr(p, '\n') - p, &l));
		lo = kstats_slot_min(l.slot, bits);
		hi = kstats_slot_max(l.slot, bits);
		if (hi - lo < BIT_ULL(16))
			KUNIT_EXPECT_EQ_MSG(test, l.avg, hi, "slot %u", l.slot);
		else
			KUNIT_EXPECT_GE_MSG(test, l.avg, hi - ((hi - lo) >> 15),
					    "slot %u", l.slot);
	}
}

/* A recorder of kstats_test_reset_all_cpus(), on one CPU. */
struct kstats_test_recorder {
	struct kstats *ks;
	struct task_struct *task;
	atomic_long_t recorded;		/* after each record */
};

static int kstats_test_record_loop(void *arg)
{
	struct kstats_test_recorder *r = arg;

	while (!kthread_should_stop()) {
		kstats_record(r->ks, 100);
		atomic_long_inc(&r->recorded);
		cond_resched();
	}
	return 0;
}

static long kstats_test_recorded(struct kstats_test_recorder *r, unsigned int n)
{
	long sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += atomic_long_read(&r[i].recorded);
	return sum;
}

/*
 * Resets while every CPU records: after the last reset, once recording
 * has stopped, the metric holds no more samples than were recorded after
 * that reset began. A clear of a CPU's counters from another CPU could
 * lose the reset, an increment there storing back the count it had read
 * before it (a real race on hardware; the test's TCG, which runs one
 * instruction of one CPU at a time, cannot show it).
 */
static void kstats_test_reset_all_cpus(struct kunit *test)
{
	struct kstats *ks = kstats_test_new(test, "kunit_reset", 3);
	struct kstats_test_recorder *r;
	unsigned int i, n = 0, round;
	long before, after, want;
	u64 total;
	int cpu;

	r = kunit_kcalloc(test, nr_cpu_ids, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		r[n].ks = ks;
		r[n].task = kthread_create_on_cpu(kstats_test_record_loop, &r[n], cpu,
						  "kstats_test/%u");
		if (IS_ERR(r[n].task))
			break;
		wake_up_process(r[n++].task);
	}
	cpus_read_unlock();
	KUNIT_EXPECT_EQ(test, n, num_online_cpus());
	for (round = 0; round < 10 && n; round++) {
		/* Samples recorded before each reset (a minute at most). */
		unsigned long timeout = jiffies + 60 * HZ;

		want = kstats_test_recorded(r, n) + 100 * n;
		while (kstats_test_recorded(r, n) < want && time_before(jiffies, timeout))
			cond_resched();
		KUNIT_EXPECT_GE(test, kstats_test_recorded(r, n), want);
		KUNIT_EXPECT_EQ(test, kstats_test_write(test, "kunit_reset", "reset"), 5);
	}
	before = kstats_test_recorded(r, n);
	KUNIT_EXPECT_EQ(test, kstats_test_write(test, "kunit_reset", "reset"), 5);
	for (i = 0; i < n; i++)
		kthread_stop(r[i].task);
	after = kstats_test_recorded(r, n);
	kstats_test_check_output(test, kstats_test_read(test, "kunit_reset"), 3, &total);
	KUNIT_EXPECT_LE_MSG(test, total, (u64)(after - before),
			    "%ld recorded in all, %ld after the last reset began",
			    after, after - before);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_GT(test, atomic_long_read(&r[i].recorded), 0);
}

/* A reader that has the file open keeps its data when the metric goes. */
static void kstats_test_delete_while_open(struct kunit *test)
{
	struct kstats *ks = kstats_test_new(test, "kunit_gone", 3);
	char buf[128] = { };
	struct file *file;
	loff_t pos = 0;

	kstats_record(ks, 5);
	file = kstats_kunit_open("kunit_gone", O_RDONLY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	kstats_test_delete_now(test, ks);
	KUNIT_EXPECT_GT(test, kernel_read(file, buf, sizeof(buf) - 1, &pos), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "slot 5   CPUS"));
	KUNIT_EXPECT_EQ(test, kernel_read(file, buf, sizeof(buf) - 1, &pos), 0);
	kstats_kunit_close(file);
	file = kstats_kunit_open("kunit_gone", O_RDONLY);
	KUNIT_EXPECT_TRUE(test, IS_ERR(file));
}

/*
 * A group: a directory of metrics, their summary (the slots of all CPUs,
 * a line each), names unique in the group and beside it, and all of it
 * gone with the group.
 */
static void kstats_test_group(struct kunit *test)
{
	struct kstats *g, *a, *b, *top;
	char *sum;

	g = kstats_new_group("kunit_group");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kstats_test_delete, g), 0);
	a = kstats_new_in(g, "a", 3);
	b = kstats_new_in(g, "b.isra.0", 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new_in(g, "a", 3)), -EEXIST);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new_in(g, "_summary", 3)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new_in(g, "x/y", 3)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new("kunit_group", 3)), -EEXIST);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new_group("kunit_group")), -EEXIST);
	top = kstats_test_new(test, "a", 3);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new_in(top, "c", 3)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new_in(NULL, "c", 3)), -EINVAL);

	kstats_record(a, 5);
	kstats_record(a, 5);
	kstats_record(a, 1000);
	kstats_record(b, 3);
	KUNIT_EXPECT_EQ(test, kstats_count(a), 3);
	KUNIT_EXPECT_EQ(test, kstats_count(g), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(kstats_test_read(test, "kunit_group/a"),
					   "slot 5   CPUS"));
	sum = kstats_test_read(test, "kunit_group/_summary");
	KUNIT_EXPECT_STREQ(test, sum,
			   "function a bits 3 slot 5 count 2 avg 5\n"
			   "function a bits 3 slot 63 count 1 avg 1000\n"
			   "function b.isra.0 bits 0 slot 2 count 1 avg 3\n");
	/* The top-level "a" is another metric. */
	KUNIT_EXPECT_STREQ(test, kstats_test_read(test, "a"), "");

	kstats_delete(a);
	KUNIT_EXPECT_STREQ(test, kstats_test_read(test, "kunit_group/_summary"),
			   "function b.isra.0 bits 0 slot 2 count 1 avg 3\n");
	kstats_test_delete_now(test, g);
	KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "kunit_group/b.isra.0"));
	KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "kunit_group/_summary"));
	/* Once deleted, the name can be used again. */
	top = kstats_test_new(test, "kunit_group", 3);
	KUNIT_EXPECT_STREQ(test, kstats_test_read(test, "kunit_group"), "");
}

static struct kunit_case kstats_test_cases[] = {
	KUNIT_CASE_PARAM(kstats_test_slot_boundaries, kstats_test_bits_gen_params),
	KUNIT_CASE_PARAM(kstats_test_slot_tiling, kstats_test_bits_gen_params),
	KUNIT_CASE_PARAM(kstats_test_rfc_numbering, kstats_test_rfc_gen_params),
	KUNIT_CASE_PARAM(kstats_test_output, kstats_test_bits_gen_params),
	KUNIT_CASE(kstats_test_mean),
	KUNIT_CASE(kstats_test_mean_split),
	KUNIT_CASE_PARAM(kstats_test_mean_top, kstats_test_bits_gen_params),
	KUNIT_CASE(kstats_test_commands),
	KUNIT_CASE(kstats_test_null),
	KUNIT_CASE(kstats_test_invalid),
	KUNIT_CASE(kstats_test_delete_while_open),
	KUNIT_CASE(kstats_test_group),
	KUNIT_CASE_PARAM(kstats_test_edges_all_cpus, kstats_test_few_bits_gen_params),
	KUNIT_CASE(kstats_test_reset_all_cpus),
	{}
};

static struct kunit_suite kstats_test_suite = {
	.name = "kstats",
	.test_cases = kstats_test_cases,
};

kunit_test_suite(kstats_test_suite);

static int __init kstats_test_init(void)
{
	/* debugfs is built in: its file_system_type holds no module ref. */
	struct file_system_type *type = get_fs_type("debugfs");

	kstats_test_mnt = type ? kern_mount(type) : ERR_PTR(-ENODEV);
	return 0;
}
module_init(kstats_test_init);

static void __exit kstats_test_exit(void)
{
	kern_unmount(kstats_test_mnt);
}
module_exit(kstats_test_exit);

MODULE_DESCRIPTION("KUnit tests for kstats");
MODULE_LICENSE("GPL");
