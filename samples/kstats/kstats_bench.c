// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kernel microbenchmark built on kstats.
 *
 * Controlled through /sys/kernel/kstats_bench/:
 *
 *   target    fib_lookup, memcpy, kmalloc or clock
 *   loops     timed iterations per CPU (1 to 1000000)
 *   warmup    untimed iterations per CPU before them (0 to 1000000)
 *   size      data set: routes for fib_lookup, bytes for memcpy, largest
 *             allocation for kmalloc
 *   cpus      CPUs to run on at once, as a list ("0", "0-3")
 *   mode      none, preempt (preemption off) or irq (interrupts off)
 *   subtract  1: subtract the cost of the clock pair from each sample
 *   run       read: run the benchmark, print its summary
 *   cost      read: the cost of kstats_record() against its peers
 *   record    write "BITS VALUE...": the values (at most 64), recorded in
 *             that order on one CPU into the metric bench_record, made
 *             anew with BITS fractional bits: a known input, for readers
 *             of metrics (tools/kstats's tests) to check their rendering
 *             against
 *   fprobe_floor
 *             a function of the kernel image: an fprobe with empty
 *             handlers on it ("" removes it), the floor of kstats_trace's
 *             fprobe: form; "FUNC clock": handlers that read
 *             ktime_get_mono_fast_ns() at entry and return, as any timer
 *             does; "FUNC local": the same with local_clock(); not for a
 *             module's function, as nothing removes it when that module
 *             goes
 *
 * Every timed iteration is recorded in the kstats metric bench_TARGET
 * (bench_clock_SOURCE for the clocks), so the whole distribution is in
 * /sys/kernel/debug/kstats; run prints, per metric, the summary line
 * "min=.. max=.. count=.. 50th=.. 90th=.. 95th=.. 99th=.. mad=..".
 *
 * The traps of microbenchmarks, and what is done about each:
 * - dead code: every result is consumed (kstats_bench_sink);
 * - cold caches and first-touch faults: warm-up iterations, not timed;
 * - a data set that is too small or too regular: its size is a parameter
 *   and it is walked in the order of a linear congruential generator;
 * - measurement overhead: the clock pair is timed first and reported with
 *   the results; it is subtracted only when asked;
 * - preemption and interrupts: mode preempt or irq turns them off around
 *   each iteration;
 * - parallel runs that do not overlap: one thread per CPU, all spinning on
 *   a barrier through warm-up, timing only once all are present.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/fprobe.h>
#include <linux/kobject.h>
#include <linux/kstats.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sync_core.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#if IS_ENABLED(CONFIG_INET)
#include <net/ip_fib.h>
#endif
#ifdef CONFIG_X86
#include <asm/msr.h>
#endif

/* What differs between the kernels that kstats builds for. */
#include "../../kernel/trace/kstats_trace_compat.h"

#define BENCH_MAX_LOOPS		1000000UL
#define BENCH_MAX_SIZE		(64UL << 20)

enum bench_target { BENCH_FIB, BENCH_MEMCPY, BENCH_KMALLOC, BENCH_CLOCK };

static const char * const bench_targets[] = {
	[BENCH_FIB] = "fib_lookup",
	[BENCH_MEMCPY] = "memcpy",
	[BENCH_KMALLOC] = "kmalloc",
	[BENCH_CLOCK] = "clock",
	NULL
};

enum bench_mode { BENCH_NONE, BENCH_PREEMPT, BENCH_IRQ };

static const char * const bench_modes[] = {
	[BENCH_NONE] = "none",
	[BENCH_PREEMPT] = "preempt",
	[BENCH_IRQ] = "irq",
	NULL
};

/* The clocks of the clock target, as in the kstats slides. */
enum bench_clock {
	CLK_KTIME, CLK_LOCAL,
#ifdef CONFIG_X86
	CLK_RDTSC, CLK_RDTSC_ORDERED, CLK_RDTSCP, CLK_RDTSC_SYNC,
#endif
	NR_CLOCKS
};

static const char * const bench_clocks[] = {
	[CLK_KTIME] = "ktime_get_ns",
	[CLK_LOCAL] = "local_clock",
#ifdef CONFIG_X86
	[CLK_RDTSC] = "rdtsc",
	[CLK_RDTSC_ORDERED] = "rdtsc_ordered",
	[CLK_RDTSCP] = "rdtscp",
	[CLK_RDTSC_SYNC] = "sync_core_rdtsc",
#endif
};

/* bench_mutex serializes runs and parameter changes. */
static DEFINE_MUTEX(bench_mutex);
static unsigned int bench_target = BENCH_MEMCPY;	/* enum bench_target */
static unsigned long bench_loops = 10000;
static unsigned long bench_warmup = 1000;
static unsigned long bench_size = 4096;
static cpumask_var_t bench_cpus;
static unsigned int bench_mode;		/* enum bench_mode */
static bool bench_subtract;

/* The metrics of the last run, kept for reading until the next one. */
static struct kstats *bench_ks[NR_CLOCKS];
/* Results are added here, so that no timed work is dead code. */
static u64 kstats_bench_sink;

struct bench_run;

struct bench_thread {
	struct task_struct *task;
	struct bench_run *run;
	unsigned int cpu;
	u64 *samples[NR_CLOCKS];
	u64 overhead;			/* median ns of a clock pair */
	int ret;
	struct completion done;
};

struct bench_run {
	atomic_t ready;			/* threads through warm-up */
	unsigned int nr_threads;
	void *src, *dst;		/* memcpy data set */
};

/*
 * The benchmark's one generator, cheap enough to run inside timed loops:
 * a 64-bit LCG (Knuth's MMIX constants), whose high bits are the random
 * ones.
 */
static __always_inline u64 bench_next(u64 *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x;
}

/* 32 random bits. */
static __always_inline u32 bench_rand32(u64 *x)
{
	return bench_next(x) >> 32;
}

#ifdef CONFIG_X86
static u64 bench_rdtscp(void)
{
	u32 lo, hi, aux;

	asm volatile("rdtscp" : "=a" (lo), "=d" (hi), "=c" (aux));
	return ((u64)hi << 32) | lo;
}
#endif

/* One clock read; the TSC ones count cycles, the others ns. */
static __always_inline u64 bench_read_clock(enum bench_clock c)
{
	switch (c) {
	case CLK_KTIME:
		return ktime_get_ns();
	case CLK_LOCAL:
		return local_clock();
#ifdef CONFIG_X86
	case CLK_RDTSC:
		return rdtsc();
	case CLK_RDTSC_ORDERED:
		return rdtsc_ordered();
	case CLK_RDTSCP:
		return bench_rdtscp();
	case CLK_RDTSC_SYNC:
		sync_core();
		return rdtsc();
#endif
	default:
		return 0;
	}
}

static void bench_irq_off(unsigned long *flags)
{
	if (bench_mode == BENCH_IRQ)
		local_irq_save(*flags);
	else if (bench_mode == BENCH_PREEMPT)
		preempt_disable();
}

static void bench_irq_on(unsigned long *flags)
{
	if (bench_mode == BENCH_IRQ)
		local_irq_restore(*flags);
	else if (bench_mode == BENCH_PREEMPT)
		preempt_enable();
}

/* The work of one iteration: returns something to consume. */
static u64 bench_work(struct bench_run *run, u64 *seed)
{
	switch (bench_target) {
	case BENCH_MEMCPY: {
		/* Copy 64 bytes from a place drawn in the data set. */
		size_t off = (bench_rand32(seed) % (bench_size / 64)) * 64;

		memcpy(run->dst, run->src + off, 64);
		return *(u64 *)run->dst;
	}
	case BENCH_KMALLOC: {
		void *p = kmalloc(8 + bench_rand32(seed) % bench_size, GFP_ATOMIC);

		kfree(p);
		return (uintptr_t)p;
	}
#if IS_ENABLED(CONFIG_INET)
	case BENCH_FIB: {
		/* A destination in 10.0.0.0/8: routed, or not, by the table. */
		struct flowi4 fl4 = {
			.daddr = htonl(0x0a000000 | (bench_rand32(seed) & 0xffffff)),
		};
		struct fib_result res;
		int err;

		rcu_read_lock();
		err = fib_lookup(&init_net, &fl4, &res, 0);
		rcu_read_unlock();
		return err;
	}
#endif
	default:
		return 0;
	}
}

static int bench_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The median cost of a pair of clock reads, the measurement's floor. */
static u64 bench_overhead(enum bench_clock c)
{
	u64 v[101];
	int i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		u64 t0 = bench_read_clock(c);

		v[i] = bench_read_clock(c) - t0;
	}
	sort(v, ARRAY_SIZE(v), sizeof(v[0]), bench_cmp, NULL);
	return v[ARRAY_SIZE(v) / 2];
}

static int bench_thread_fn(void *arg)
{
	struct bench_thread *th = arg;
	struct bench_run *run = th->run;
	unsigned long i, flags = 0;
	u64 seed = th->cpu + 1;
	int c;

	th->overhead = bench_overhead(CLK_KTIME);
	for (i = 0; i < bench_warmup; i++)
		kstats_bench_sink += bench_work(run, &seed);
	/* Time only once every thread is here. */
	atomic_inc(&run->ready);
	while (atomic_read(&run->ready) < run->nr_threads)
		cpu_relax();

	for (i = 0; i < bench_loops; i++) {
		u64 t0, t1;

		if (bench_target == BENCH_CLOCK) {
			for (c = 0; c < NR_CLOCKS; c++) {
				bench_irq_off(&flags);
				t0 = bench_read_clock(c);
				t1 = bench_read_clock(c);
				bench_irq_on(&flags);
				th->samples[c][i] = t1 - t0;
				kstats_record(bench_ks[c], t1 - t0);
			}
			continue;
		}
		bench_irq_off(&flags);
		t0 = ktime_get_ns();
		kstats_bench_sink += bench_work(run, &seed);
		t1 = ktime_get_ns();
		bench_irq_on(&flags);
		t1 -= t0;
		if (bench_subtract)
			t1 = t1 > th->overhead ? t1 - th->overhead : 0;
		th->samples[0][i] = t1;
		kstats_record(bench_ks[0], t1);
		if (bench_mode == BENCH_NONE && !(i & 1023))
			cond_resched();
	}
	complete(&th->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static unsigned int bench_nr_metrics(void)
{
	return bench_target == BENCH_CLOCK ? NR_CLOCKS : 1;
}

static void bench_delete_metrics(void)
{
	int c;

	for (c = 0; c < NR_CLOCKS; c++) {
		kstats_delete(bench_ks[c]);
		bench_ks[c] = NULL;
	}
}

static int bench_create_metrics(void)
{
	char name[64];
	unsigned int c;

	bench_delete_metrics();
	for (c = 0; c < bench_nr_metrics(); c++) {
		if (bench_target == BENCH_CLOCK)
			snprintf(name, sizeof(name), "bench_clock_%s", bench_clocks[c]);
		else
			snprintf(name, sizeof(name), "bench_%s", bench_targets[bench_target]);
		bench_ks[c] = kstats_new(name, 3);
		if (IS_ERR(bench_ks[c])) {
			int ret = PTR_ERR(bench_ks[c]);

			bench_ks[c] = NULL;
			bench_delete_metrics();
			return ret;
		}
	}
	return 0;
}

/* The summary line of the seed: exact percentiles of all the samples. */
static int bench_summary(char *buf, int len, const char *name, u64 *v,
			 size_t n, u64 overhead)
{
	u64 med, min, max, p50, p90, p95, p99;
	size_t i;

	sort(v, n, sizeof(*v), bench_cmp, NULL);
	min = v[0];
	max = v[n - 1];
	p50 = v[DIV_ROUND_UP(n * 50, 100) - 1];
	p90 = v[DIV_ROUND_UP(n * 90, 100) - 1];
	p95 = v[DIV_ROUND_UP(n * 95, 100) - 1];
	p99 = v[DIV_ROUND_UP(n * 99, 100) - 1];
	med = p50;
	for (i = 0; i < n; i++)
		v[i] = v[i] > med ? v[i] - med : med - v[i];
	sort(v, n, sizeof(*v), bench_cmp, NULL);
	return scnprintf(buf, len,
			 "%s: min=%llu max=%llu count=%zu 50th=%llu 90th=%llu 95th=%llu 99th=%llu mad=%llu overhead=%llu\n",
			 name, min, max, n, p50, p90, p95, p99,
			 v[DIV_ROUND_UP(n, 2) - 1], overhead);
}

static ssize_t bench_run(char *buf)
{
	unsigned int nr = cpumask_weight(bench_cpus), i = 0, c, cpu;
	struct bench_thread *th;
	struct bench_run run = { .nr_threads = nr };
	u64 *all = NULL, overhead = 0;
	ssize_t len = 0;
	int ret;

	if (!cpumask_subset(bench_cpus, cpu_online_mask)) {
		pr_warn("run: CPUs %*pbl are not all online\n", cpumask_pr_args(bench_cpus));
		return -EINVAL;
	}
	if (bench_target == BENCH_FIB && !IS_ENABLED(CONFIG_INET)) {
		pr_warn("run: fib_lookup needs CONFIG_INET\n");
		return -EOPNOTSUPP;
	}
	th = kcalloc(nr, sizeof(*th), GFP_KERNEL);
	run.src = kvzalloc(max(bench_size, 64UL), GFP_KERNEL);
	run.dst = kzalloc(64, GFP_KERNEL);
	all = kvmalloc_array(nr * bench_loops, sizeof(u64), GFP_KERNEL);
	ret = -ENOMEM;
	if (!th || !run.src || !run.dst || !all)
		goto out;
	ret = bench_create_metrics();
	if (ret)
		goto out;

	for_each_cpu(cpu, bench_cpus) {
		th[i].cpu = cpu;
		th[i].run = &run;
		init_completion(&th[i].done);
		for (c = 0; c < bench_nr_metrics(); c++) {
			th[i].samples[c] = kvmalloc_array(bench_loops, sizeof(u64), GFP_KERNEL);
			if (!th[i].samples[c]) {
				ret = -ENOMEM;
				goto stop;
			}
		}
		th[i].task = kthread_create_on_cpu(bench_thread_fn, &th[i], cpu,
						   "kstats_bench/%u");
		if (IS_ERR(th[i].task)) {
			ret = PTR_ERR(th[i].task);
			th[i].task = NULL;
			goto stop;
		}
		i++;
	}
	for (i = 0; i < nr; i++)
		wake_up_process(th[i].task);
	for (i = 0; i < nr; i++)
		wait_for_completion(&th[i].done);

	for (c = 0; c < bench_nr_metrics(); c++) {
		size_t n = 0;

		for (i = 0; i < nr; i++) {
			memcpy(all + n, th[i].samples[c], bench_loops * sizeof(u64));
			n += bench_loops;
			overhead = max(overhead, th[i].overhead);
		}
		len += bench_summary(buf + len, PAGE_SIZE - len,
				     bench_target == BENCH_CLOCK ? bench_clocks[c] :
				     bench_targets[bench_target], all, n,
				     bench_target == BENCH_CLOCK ? 0 : overhead);
	}
	ret = 0;
stop:
	/* A thread that was never woken stops before running. */
	for (i = 0; i < nr; i++) {
		if (th[i].task)
			kthread_stop(th[i].task);
		for (c = 0; c < NR_CLOCKS; c++)
			kvfree(th[i].samples[c]);
	}
	/* A run that fails leaves no metric behind. */
	if (ret)
		bench_delete_metrics();
out:
	kvfree(all);
	kfree(run.dst);
	kvfree(run.src);
	kfree(th);
	return ret ? ret : len;
}

/*
 * The cost of kstats_record() against its floor and its peers: each case
 * runs COST_BATCHES batches of COST_OPS operations with preemption off, and
 * its line gives the median and p99 of the ns per operation of a batch, and
 * the ratio of the median to the "limit" case: two this_cpu_add() on a slot
 * picked from the same value stream, the floor of any per-CPU histogram.
 */
#define COST_BATCHES	200
#define COST_OPS	1000
#define COST_SLOTS	512

struct cost_slot {
	u64 count;
	u64 sum;
};

/* Allocated for a run: a module's static per-CPU area is small. */
static struct cost_slot __percpu *cost_pcpu;
static struct {
	atomic64_t count;
	atomic64_t sum;
} cost_shared[65];
static struct cost_slot cost_locked[65];
static DEFINE_SPINLOCK(cost_lock);
static struct kstats *cost_ks[3];	/* frac_bits 0, 3 and 8 */

enum cost_case {
	COST_EMPTY, COST_LIMIT, COST_REC0_HOT, COST_REC0, COST_REC3_HOT, COST_REC3,
	COST_REC8_HOT, COST_REC8, COST_ATOMIC, COST_SPINLOCK, COST_LOCAL_CLOCK,
	COST_KTIME, NR_COST_CASES
};

static const char * const cost_names[] = {
	[COST_EMPTY] = "empty",
	[COST_LIMIT] = "limit",
	[COST_REC0_HOT] = "kstats_record_bits0_hot",
	[COST_REC0] = "kstats_record_bits0_spread",
	[COST_REC3_HOT] = "kstats_record_bits3_hot",
	[COST_REC3] = "kstats_record_bits3_spread",
	[COST_REC8_HOT] = "kstats_record_bits8_hot",
	[COST_REC8] = "kstats_record_bits8_spread",
	[COST_ATOMIC] = "shared_atomic_log2",
	[COST_SPINLOCK] = "spinlock_log2",
	[COST_LOCAL_CLOCK] = "local_clock_pair_record",
	[COST_KTIME] = "ktime_get_ns_pair_record",
};

/* The cases that run on all CPUs at once too. */
static const enum cost_case cost_parallel[] = {
	COST_LIMIT, COST_REC3, COST_ATOMIC, COST_SPINLOCK,
};

/* Values of every magnitude. */
static __always_inline u64 cost_next(u64 *x)
{
	u64 v = bench_next(x);

	return v >> (v >> 58);
}

/* One operation of a case; the switch is resolved outside the loop. */
static __always_inline void cost_op(enum cost_case c, u64 v)
{
	unsigned int i = ilog2(v | 1);
	u64 t0;

	switch (c) {
	case COST_EMPTY:
		OPTIMIZER_HIDE_VAR(v);
		break;
	case COST_LIMIT:
		this_cpu_add(cost_pcpu[v & (COST_SLOTS - 1)].count, 1);
		this_cpu_add(cost_pcpu[v & (COST_SLOTS - 1)].sum, v);
		break;
	case COST_REC0_HOT:
	case COST_REC0:
		kstats_record(cost_ks[0], c == COST_REC0 ? v : 1000);
		break;
	case COST_REC3_HOT:
	case COST_REC3:
		kstats_record(cost_ks[1], c == COST_REC3 ? v : 1000);
		break;
	case COST_REC8_HOT:
	case COST_REC8:
		kstats_record(cost_ks[2], c == COST_REC8 ? v : 1000);
		break;
	case COST_ATOMIC:
		atomic64_inc(&cost_shared[i].count);
		atomic64_add(v, &cost_shared[i].sum);
		break;
	case COST_SPINLOCK:
		spin_lock(&cost_lock);
		cost_locked[i].count++;
		cost_locked[i].sum += v;
		spin_unlock(&cost_lock);
		break;
	case COST_LOCAL_CLOCK:
		t0 = local_clock();
		kstats_record(cost_ks[1], local_clock() - t0);
		break;
	case COST_KTIME:
		t0 = ktime_get_ns();
		kstats_record(cost_ks[1], ktime_get_ns() - t0);
		break;
	default:
		break;
	}
}

/* A batch of one case; inlined with a constant case, the switch goes. */
static __always_inline void cost_loop(enum cost_case c, u64 *x)
{
	unsigned int i;

	for (i = 0; i < COST_OPS; i++)
		cost_op(c, cost_next(x));
}

/* ns per operation of one batch, in 1/10 ns. */
static u64 cost_batch(enum cost_case c, u64 *x)
{
	u64 t0;

	preempt_disable();
	t0 = local_clock();
	switch (c) {
	case COST_EMPTY:
		cost_loop(COST_EMPTY, x);
		break;
	case COST_LIMIT:
		cost_loop(COST_LIMIT, x);
		break;
	case COST_REC0_HOT:
		cost_loop(COST_REC0_HOT, x);
		break;
	case COST_REC0:
		cost_loop(COST_REC0, x);
		break;
	case COST_REC3_HOT:
		cost_loop(COST_REC3_HOT, x);
		break;
	case COST_REC3:
		cost_loop(COST_REC3, x);
		break;
	case COST_REC8_HOT:
		cost_loop(COST_REC8_HOT, x);
		break;
	case COST_REC8:
		cost_loop(COST_REC8, x);
		break;
	case COST_ATOMIC:
		cost_loop(COST_ATOMIC, x);
		break;
	case COST_SPINLOCK:
		cost_loop(COST_SPINLOCK, x);
		break;
	case COST_LOCAL_CLOCK:
		cost_loop(COST_LOCAL_CLOCK, x);
		break;
	case COST_KTIME:
		cost_loop(COST_KTIME, x);
		break;
	default:
		break;
	}
	t0 = local_clock() - t0;
	preempt_enable();
	return div_u64(t0 * 10, COST_OPS);
}

struct cost_thread {
	struct task_struct *task;
	enum cost_case c;
	atomic_t *ready;
	unsigned int nr;
	u64 batch[COST_BATCHES];
	struct completion done;
};

static int cost_thread_fn(void *arg)
{
	struct cost_thread *ct = arg;
	u64 x = (uintptr_t)ct;
	int b;

	cost_batch(ct->c, &x);			/* warm-up */
	atomic_inc(ct->ready);
	while (atomic_read(ct->ready) < ct->nr)
		cpu_relax();
	for (b = 0; b < COST_BATCHES; b++)
		ct->batch[b] = cost_batch(ct->c, &x);
	complete(&ct->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

/* Median and p99 (in 1/10 ns) of the batches of @c on @nr CPUs at once. */
static int cost_case(enum cost_case c, unsigned int nr, u64 *med, u64 *p99)
{
	struct cost_thread *ct = kcalloc(nr, sizeof(*ct), GFP_KERNEL);
	u64 *all = kcalloc(nr * COST_BATCHES, sizeof(u64), GFP_KERNEL);
	atomic_t ready = ATOMIC_INIT(0);
	unsigned int i = 0, cpu, n = 0;
	int ret = -ENOMEM;

	if (!ct || !all)
		goto out;
	for_each_online_cpu(cpu) {
		if (i == nr)
			break;
		ct[i].c = c;
		ct[i].ready = &ready;
		ct[i].nr = nr;
		init_completion(&ct[i].done);
		ct[i].task = kthread_create_on_cpu(cost_thread_fn, &ct[i], cpu,
						   "kstats_cost/%u");
		if (IS_ERR(ct[i].task)) {
			ret = PTR_ERR(ct[i].task);
			ct[i].task = NULL;
			break;
		}
		i++;
	}
	if (i == nr) {
		for (i = 0; i < nr; i++)
			wake_up_process(ct[i].task);
		for (i = 0; i < nr; i++) {
			wait_for_completion(&ct[i].done);
			memcpy(all + n, ct[i].batch, sizeof(ct[i].batch));
			n += COST_BATCHES;
		}
		sort(all, n, sizeof(u64), bench_cmp, NULL);
		*med = all[n / 2];
		*p99 = all[DIV_ROUND_UP(n * 99, 100) - 1];
		ret = 0;
	}
	for (i = 0; i < nr; i++)
		if (ct[i].task)
			kthread_stop(ct[i].task);
out:
	kfree(all);
	kfree(ct);
	return ret;
}

static int cost_line(char *buf, int len, const char *name, u64 med, u64 p99, u64 limit)
{
	return scnprintf(buf, len, "case %s ns %llu.%llu p99 %llu.%llu ratio %llu.%02llu\n",
			 name, med / 10, med % 10, p99 / 10, p99 % 10,
			 med / limit, (med * 100 / limit) % 100);
}

static ssize_t bench_cost(char *buf)
{
	static const u8 bits[] = { 0, 3, 8 };
	u64 med[NR_COST_CASES], p99[NR_COST_CASES], m, p, limit = 1;
	unsigned int i, nr = num_online_cpus();
	char name[64];
	ssize_t len = 0;
	int ret = 0;

	cost_pcpu = __alloc_percpu(COST_SLOTS * sizeof(struct cost_slot),
				   __alignof__(struct cost_slot));
	if (!cost_pcpu)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(bits); i++) {
		snprintf(name, sizeof(name), "bench_cost_bits%u", bits[i]);
		cost_ks[i] = kstats_new(name, bits[i]);
		if (IS_ERR(cost_ks[i])) {
			ret = PTR_ERR(cost_ks[i]);
			goto out;
		}
	}
	for (i = 0; i < NR_COST_CASES; i++) {
		ret = cost_case(i, 1, &med[i], &p99[i]);
		if (ret)
			goto out;
	}
	for (i = 0; i < NR_COST_CASES; i++)
		len += cost_line(buf + len, PAGE_SIZE - len, cost_names[i], med[i],
				 p99[i], max(med[COST_LIMIT], 1ULL));
	/* The same on every online CPU at once: the ratios show the scaling. */
	for (i = 0; i < ARRAY_SIZE(cost_parallel); i++) {
		ret = cost_case(cost_parallel[i], nr, &m, &p);
		if (ret)
			goto out;
		if (!i)
			limit = max(m, 1ULL);
		snprintf(name, sizeof(name), "%s_%ucpus", cost_names[cost_parallel[i]], nr);
		len += cost_line(buf + len, PAGE_SIZE - len, name, m, p, limit);
	}
out:
	for (i = 0; i < ARRAY_SIZE(cost_ks); i++) {
		kstats_delete(cost_ks[i]);
		cost_ks[i] = NULL;
	}
	free_percpu(cost_pcpu);
	cost_pcpu = NULL;
	return ret ? ret : len;
}

/* sysfs: one file per parameter, as in the seed's kbench. */

/* The parameters that take one word of a NULL-terminated list. */
struct bench_choice {
	struct kobj_attribute attr;
	const char * const *words;
	unsigned int *val;
};

static ssize_t choice_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct bench_choice *c = container_of(attr, struct bench_choice, attr);

	return sysfs_emit(buf, "%s\n", c->words[READ_ONCE(*c->val)]);
}

static ssize_t choice_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	struct bench_choice *c = container_of(attr, struct bench_choice, attr);
	int i = __sysfs_match_string(c->words, -1, buf);

	if (i < 0) {
		pr_warn("%s: unknown value\n", attr->attr.name);
		return -EINVAL;
	}
	mutex_lock(&bench_mutex);
	*c->val = i;
	mutex_unlock(&bench_mutex);
	return count;
}

#define BENCH_CHOICE(n, v, w) \
	{ .attr = __ATTR(n, 0644, choice_show, choice_store), .words = (w), \
	  .val = &(v) }

static struct bench_choice bench_choices[] = {
	BENCH_CHOICE(target, bench_target, bench_targets),
	BENCH_CHOICE(mode, bench_mode, bench_modes),
};

/* The numeric parameters, with their ranges. */
struct bench_param {
	struct kobj_attribute attr;
	unsigned long *val;
	unsigned long min, max;
};

static ssize_t param_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct bench_param *p = container_of(attr, struct bench_param, attr);

	return sysfs_emit(buf, "%lu\n", READ_ONCE(*p->val));
}

static ssize_t param_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	struct bench_param *p = container_of(attr, struct bench_param, attr);
	unsigned long v;

	if (kstrtoul(buf, 0, &v) || v < p->min || v > p->max) {
		pr_warn("%s: expected a number from %lu to %lu\n",
			attr->attr.name, p->min, p->max);
		return -EINVAL;
	}
	mutex_lock(&bench_mutex);
	*p->val = v;
	mutex_unlock(&bench_mutex);
	return count;
}

static unsigned long bench_subtract_ul;

#define BENCH_PARAM(n, v, lo, hi) \
	{ .attr = __ATTR(n, 0644, param_show, param_store), .val = &(v), \
	  .min = (lo), .max = (hi) }

static struct bench_param bench_params[] = {
	BENCH_PARAM(loops, bench_loops, 1, BENCH_MAX_LOOPS),
	BENCH_PARAM(warmup, bench_warmup, 0, BENCH_MAX_LOOPS),
	BENCH_PARAM(size, bench_size, 64, BENCH_MAX_SIZE),
	BENCH_PARAM(subtract, bench_subtract_ul, 0, 1),
};

static ssize_t cpus_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(bench_cpus));
}

static ssize_t cpus_store(struct kobject *kobj, struct kobj_attribute *attr,
			  const char *buf, size_t count)
{
	cpumask_var_t mask;
	int ret;

	if (!alloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	ret = cpulist_parse(buf, mask);
	if (ret || cpumask_empty(mask) || !cpumask_subset(mask, cpu_online_mask)) {
		pr_warn("cpus: expected a list of online CPUs, such as 0-%u\n",
			num_online_cpus() - 1);
		ret = -EINVAL;
	} else {
		mutex_lock(&bench_mutex);
		cpumask_copy(bench_cpus, mask);
		mutex_unlock(&bench_mutex);
		ret = count;
	}
	free_cpumask_var(mask);
	return ret;
}

static ssize_t run_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	ssize_t ret;

	mutex_lock(&bench_mutex);
	bench_subtract = bench_subtract_ul;
	ret = bench_run(buf);
	mutex_unlock(&bench_mutex);
	return ret;
}

static ssize_t cost_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	ssize_t ret;

	mutex_lock(&bench_mutex);
	ret = bench_cost(buf);
	mutex_unlock(&bench_mutex);
	return ret;
}

/*
 * Functions of a module for the selftest of kstats_trace's groups (the
 * glob ksgrp_*): writing N to group_calls calls the first N times and the
 * second 2N times (and ksdup_call, below, N times).
 */
static unsigned long ksgrp_calls[2], ksdup_calls;

/* Each with an effect of its own, so that the compiler keeps both. */
static noinline void ksgrp_bench_a(void)
{
	WRITE_ONCE(ksgrp_calls[0], ksgrp_calls[0] + 1);
}

static noinline void ksgrp_bench_b(void)
{
	WRITE_ONCE(ksgrp_calls[1], ksgrp_calls[1] + 1);
}

/*
 * A name that kstats_sample has too, for the selftest of MODULE:SYMBOL:
 * called once per group_calls round.
 */
static noinline void ksdup_call(void)
{
	WRITE_ONCE(ksdup_calls, ksdup_calls + 1);
}

static ssize_t group_calls_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	unsigned int i, n;

	if (kstrtouint(buf, 10, &n) || n > 1000000)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		ksgrp_bench_a();
		ksgrp_bench_b();
		ksgrp_bench_b();
		ksdup_call();
		cond_resched();
	}
	return count;
}

#define BENCH_RECORD_MAX	64

/* bench_record, the metric of the record file; under bench_mutex. */
static struct kstats *bench_record_ks;

static ssize_t record_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	unsigned int bits, i, n = 0;
	char *s, *p, *word;
	struct kstats *ks;
	u64 *vals;
	ssize_t ret = -EINVAL;

	s = kstrndup(buf, count, GFP_KERNEL);
	vals = kcalloc(BENCH_RECORD_MAX, sizeof(*vals), GFP_KERNEL);
	if (!s || !vals) {
		ret = -ENOMEM;
		goto out;
	}
	p = strim(s);
	word = strsep(&p, " ");
	if (kstrtouint(word, 10, &bits) || bits > KSTATS_MAX_FRAC_BITS)
		goto bad;
	while ((word = strsep(&p, " "))) {
		if (!*word)
			continue;
		if (n == BENCH_RECORD_MAX || kstrtou64(word, 10, &vals[n]))
			goto bad;
		n++;
	}

	mutex_lock(&bench_mutex);
	kstats_delete(bench_record_ks);
	bench_record_ks = NULL;
	ks = kstats_new("bench_record", bits);
	if (IS_ERR(ks)) {
		ret = PTR_ERR(ks);
	} else {
		bench_record_ks = ks;
		/* All on one CPU, so that its lines are known. */
		preempt_disable();
		for (i = 0; i < n; i++)
			kstats_record(ks, vals[i]);
		preempt_enable();
		ret = count;
	}
	mutex_unlock(&bench_mutex);
	goto out;
bad:
	pr_warn("record: expected BITS (0 to %u) and at most %u decimal values\n",
		KSTATS_MAX_FRAC_BITS, BENCH_RECORD_MAX);
out:
	kfree(vals);
	kfree(s);
	return ret;
}

#if IS_ENABLED(CONFIG_FPROBE)
/*
 * An fprobe with empty handlers and the entry data of kstats_trace's
 * fprobe: form: what the mechanism alone costs a traced call.
 */
static int bench_fp_entry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			  struct kstats_fprobe_regs *regs, void *data)
{
	return 0;
}

static void bench_fp_exit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			  struct kstats_fprobe_regs *regs, void *data)
{
}

KSTATS_FPROBE_COMPAT(bench_fp_entry, bench_fp_exit);

/*
 * The same with the two clock reads of any timer, kstats_trace's clock
 * (or local_clock()), and the difference kept (per CPU, so that it is not
 * dead code): what is left of kstats_trace's cost beyond these is kstats'
 * own.
 */
static DEFINE_PER_CPU(u64, bench_fp_sink);

static int bench_fp_clock_entry(struct fprobe *fp, unsigned long ip,
				unsigned long ret_ip,
				struct kstats_fprobe_regs *regs, void *data)
{
	*(u64 *)data = ktime_get_mono_fast_ns();
	return 0;
}

static void bench_fp_clock_exit(struct fprobe *fp, unsigned long ip,
				unsigned long ret_ip,
				struct kstats_fprobe_regs *regs, void *data)
{
	this_cpu_write(bench_fp_sink, ktime_get_mono_fast_ns() - *(u64 *)data);
}

KSTATS_FPROBE_COMPAT(bench_fp_clock_entry, bench_fp_clock_exit);

static int bench_fp_local_entry(struct fprobe *fp, unsigned long ip,
				unsigned long ret_ip,
				struct kstats_fprobe_regs *regs, void *data)
{
	*(u64 *)data = local_clock();
	return 0;
}

static void bench_fp_local_exit(struct fprobe *fp, unsigned long ip,
				unsigned long ret_ip,
				struct kstats_fprobe_regs *regs, void *data)
{
	this_cpu_write(bench_fp_sink, local_clock() - *(u64 *)data);
}

KSTATS_FPROBE_COMPAT(bench_fp_local_entry, bench_fp_local_exit);

static struct fprobe bench_fp;
/* The function bench_fp is on, "" if none; under bench_mutex. */
static char bench_fp_sym[KSYM_NAME_LEN];

static void bench_fp_remove(void)
{
	if (bench_fp_sym[0])
		unregister_fprobe(&bench_fp);
	bench_fp_sym[0] = '\0';
}

static ssize_t fprobe_floor_show(struct kobject *kobj, struct kobj_attribute *attr,
				 char *buf)
{
	ssize_t ret;

	mutex_lock(&bench_mutex);
	ret = sysfs_emit(buf, "%s\n", bench_fp_sym);
	mutex_unlock(&bench_mutex);
	return ret;
}

static ssize_t fprobe_floor_store(struct kobject *kobj, struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	char sym[KSYM_NAME_LEN], *clock;
	const char *symp = sym;
	int ret = 0;

	if (strscpy(sym, buf, sizeof(sym)) < 0)
		return -ENAMETOOLONG;
	strreplace(sym, '\n', '\0');
	/* "SYM clock" or "SYM local": the handlers read that clock. */
	clock = strchr(sym, ' ');
	if (clock) {
		*clock++ = '\0';
		if (strcmp(clock, "clock") && strcmp(clock, "local")) {
			pr_warn("fprobe_floor: '%s': expected SYM, SYM clock or SYM local\n", buf);
			return -EINVAL;
		}
	}
	mutex_lock(&bench_mutex);
	bench_fp_remove();
	if (sym[0]) {
		/* A struct fprobe is registered again from scratch. */
		memset(&bench_fp, 0, sizeof(bench_fp));
		bench_fp.entry_handler = kstats_fprobe_handler(bench_fp_entry);
		bench_fp.exit_handler = kstats_fprobe_handler(bench_fp_exit);
		if (clock && !strcmp(clock, "clock")) {
			bench_fp.entry_handler = kstats_fprobe_handler(bench_fp_clock_entry);
			bench_fp.exit_handler = kstats_fprobe_handler(bench_fp_clock_exit);
		} else if (clock) {
			bench_fp.entry_handler = kstats_fprobe_handler(bench_fp_local_entry);
			bench_fp.exit_handler = kstats_fprobe_handler(bench_fp_local_exit);
		}
		/* As kstats_trace's: its generation and the entry time. */
		bench_fp.entry_data_size = 2 * sizeof(u64);
		ret = register_fprobe_syms(&bench_fp, &symp, 1);
		if (ret)
			pr_warn("fprobe_floor: cannot put an fprobe on %s: %d\n", sym, ret);
		else
			strscpy(bench_fp_sym, sym, sizeof(bench_fp_sym));
	}
	mutex_unlock(&bench_mutex);
	return ret ? ret : count;
}

static struct kobj_attribute fprobe_floor_attr = __ATTR(fprobe_floor, 0600,
							fprobe_floor_show,
							fprobe_floor_store);
#define BENCH_FPROBE_FLOOR_ATTR	(&fprobe_floor_attr.attr)
#else
static void bench_fp_remove(void)
{
}

#define BENCH_FPROBE_FLOOR_ATTR	NULL
#endif

static struct kobj_attribute cpus_attr = __ATTR_RW(cpus);
static struct kobj_attribute run_attr = __ATTR(run, 0400, run_show, NULL);
static struct kobj_attribute cost_attr = __ATTR(cost, 0400, cost_show, NULL);
static struct kobj_attribute record_attr = __ATTR(record, 0200, NULL, record_store);
static struct kobj_attribute group_calls_attr = __ATTR(group_calls, 0200, NULL,
						       group_calls_store);

static struct attribute *bench_attrs[] = {
	&bench_choices[0].attr.attr, &bench_choices[1].attr.attr,
	&cpus_attr.attr, &run_attr.attr, &cost_attr.attr, &record_attr.attr,
	&group_calls_attr.attr,
	&bench_params[0].attr.attr, &bench_params[1].attr.attr,
	&bench_params[2].attr.attr, &bench_params[3].attr.attr,
	BENCH_FPROBE_FLOOR_ATTR, NULL,
};

static const struct attribute_group bench_group = {
	.attrs = bench_attrs,
};

static struct kobject *bench_kobj;

static int __init kstats_bench_init(void)
{
	int ret;

	if (!zalloc_cpumask_var(&bench_cpus, GFP_KERNEL))
		return -ENOMEM;
	cpumask_set_cpu(cpumask_first(cpu_online_mask), bench_cpus);
	bench_kobj = kobject_create_and_add("kstats_bench", kernel_kobj);
	if (!bench_kobj) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = sysfs_create_group(bench_kobj, &bench_group);
	if (ret) {
		kobject_put(bench_kobj);
		goto fail;
	}
	return 0;
fail:
	free_cpumask_var(bench_cpus);
	return ret;
}

static void __exit kstats_bench_exit(void)
{
	kobject_put(bench_kobj);
	mutex_lock(&bench_mutex);
	bench_fp_remove();
	mutex_unlock(&bench_mutex);
	bench_delete_metrics();
	kstats_delete(bench_record_ks);
	free_cpumask_var(bench_cpus);
}

module_init(kstats_bench_init);
module_exit(kstats_bench_exit);

MODULE_DESCRIPTION("kstats microbenchmarks: kernel functions, clocks and kstats itself");
MODULE_LICENSE("GPL");
