// SPDX-License-Identifier: GPL-2.0-only
/*
 * Time kmalloc() and kfree() with kstats.
 *
 * One kernel thread per online CPU allocates and frees buffers of varied
 * sizes at a steady rate, timing each pair with ktime_get_ns() and recording
 * the time in the kstats metric "sample_kmalloc":
 *
 *   modprobe kstats_sample rate=2000 max_size=65536
 *   grep CPUS /sys/kernel/debug/kstats/sample_kmalloc
 *
 * The sizes follow a log-uniform distribution, so that small and large
 * size classes, and the page allocator beyond KMALLOC_MAX_CACHE_SIZE, all
 * show in the histogram.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kstats.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

static unsigned int rate = 2000;
module_param(rate, uint, 0444);
MODULE_PARM_DESC(rate, "kmalloc/kfree pairs per second on each CPU (default 2000)");

static unsigned int max_size = 65536;
module_param(max_size, uint, 0444);
MODULE_PARM_DESC(max_size, "largest allocation in bytes, 16 to 4194304 (default 65536)");

static uint frac_bits = 3;
module_param(frac_bits, uint, 0444);
MODULE_PARM_DESC(frac_bits, "kstats resolution: 2^frac_bits slots per power of two (default 3)");

static struct kstats *ks;
static DEFINE_PER_CPU(struct task_struct *, sample_thread);

/* A size between 8 and max_size, uniform in its logarithm. */
static size_t sample_size(void)
{
	unsigned int shift = 3 + get_random_u32_below(ilog2(max_size) - 3);

	return (1UL << shift) + get_random_u32_below(1U << shift);
}

/*
 * One allocation and its time. Not inlined, so that kstats_trace's groups
 * have a function of a module to time (its selftest uses the glob ksgrp_*).
 */
static noinline void ksgrp_sample(void)
{
	size_t size = sample_size();
	u64 t0, t1;
	void *p;

	t0 = ktime_get_ns();
	p = kmalloc(size, GFP_KERNEL);
	kfree(p);
	t1 = ktime_get_ns();
	kstats_record(ks, t1 - t0);
}

/*
 * A name that kstats_bench has too, so that the selftest of kstats_trace's
 * MODULE:SYMBOL has two functions of that name: called once per batch.
 */
static atomic_long_t sample_batches;

static noinline void ksdup_call(void)
{
	atomic_long_inc(&sample_batches);
}

static int sample_thread_fn(void *arg)
{
	/* Work in batches of a millisecond's worth of pairs. */
	unsigned int i, batch = max(rate / 1000, 1U);
	unsigned long sleep_us = batch * USEC_PER_SEC / max(rate, 1U);

	while (!kthread_should_stop()) {
		for (i = 0; i < batch; i++)
			ksgrp_sample();
		ksdup_call();
		usleep_range(sleep_us, sleep_us + sleep_us / 8 + 1);
	}
	return 0;
}

static void sample_stop_threads(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct task_struct *t = per_cpu(sample_thread, cpu);

		if (t)
			kthread_stop(t);
		per_cpu(sample_thread, cpu) = NULL;
	}
}

static int __init kstats_sample_init(void)
{
	unsigned int cpu;

	if (max_size < 16 || max_size > SZ_4M) {
		pr_warn("max_size %u out of range 16..%u\n", max_size, SZ_4M);
		return -EINVAL;
	}
	if (frac_bits > KSTATS_MAX_FRAC_BITS) {
		pr_warn("frac_bits %u out of range 0..%u\n", frac_bits,
			KSTATS_MAX_FRAC_BITS);
		return -EINVAL;
	}
	ks = kstats_new("sample_kmalloc", frac_bits);
	if (IS_ERR(ks))
		return PTR_ERR(ks);

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		t = kthread_run_on_cpu(sample_thread_fn, NULL,
				       cpu, "kstats_sample/%u");
		if (IS_ERR(t)) {
			cpus_read_unlock();
			sample_stop_threads();
			kstats_delete(ks);
			return PTR_ERR(t);
		}
		per_cpu(sample_thread, cpu) = t;
	}
	cpus_read_unlock();
	pr_info("timing kmalloc/kfree on %u CPUs, %u per second each\n",
		num_online_cpus(), rate);
	return 0;
}

static void __exit kstats_sample_exit(void)
{
	/* No thread may record once the metric is gone. */
	sample_stop_threads();
	kstats_delete(ks);
}

module_init(kstats_sample_init);
module_exit(kstats_sample_exit);

MODULE_DESCRIPTION("kstats sample: distribution of kmalloc/kfree times");
MODULE_LICENSE("GPL");
