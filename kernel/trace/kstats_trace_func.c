// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_trace: a function timed from entry to return, with a kretprobe
 * (trace FUNC), a kretprobe keeping the entry time per CPU (trace
 * pcpu:FUNC), or an fprobe, which hooks the function through ftrace and
 * keeps the entry time in its per-call entry data (trace fprobe:FUNC).
 */

#include <linux/atomic.h>
#include <linux/fprobe.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/workqueue.h>

#include "kstats_trace.h"
#include "kstats_trace_record.h"

static int kstats_trace_krp_entry(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	struct kstats_trace *t = container_of(get_kretprobe(ri),
					      struct kstats_trace, krp);

	/* Not wanted: no return handler either. */
	if (!kstats_trace_wanted(t))
		return 1;
	/* pcpu: keeps the entry time per CPU, not in the instance. */
	kstats_trace_enter(t, kstats_trace_now(),
			   t->mode == KSTATS_TRACE_PCPU ? NULL : (u64 *)ri->data);
	return 0;
}

NOKPROBE_SYMBOL(kstats_trace_krp_entry);

static int kstats_trace_krp_return(struct kretprobe_instance *ri,
				   struct pt_regs *regs)
{
	struct kstats_trace *t = container_of(get_kretprobe(ri),
					      struct kstats_trace, krp);
	kstats_trace_return(t, kstats_trace_now(),
			    t->mode == KSTATS_TRACE_PCPU ? NULL : (u64 *)ri->data);
	return 0;
}

NOKPROBE_SYMBOL(kstats_trace_krp_return);

static int kstats_trace_fp_entry(struct fprobe *fp, unsigned long ip,
				 unsigned long ret_ip, struct kstats_fprobe_regs *regs,
				 void *data)
{
	struct kstats_trace *t = container_of(fp, struct kstats_trace, fp);
	struct kstats_trace_fp_data *d = data;

	/* Not wanted: no exit handler either, or one that skips the call. */
	if (!kstats_trace_wanted(t)) {
		d->gen = 0;
		return 1;
	}
	d->gen = t->fp_gen;
	kstats_trace_enter(t, kstats_trace_now(), &d->start);
	return 0;
}

NOKPROBE_SYMBOL(kstats_trace_fp_entry);

static void kstats_trace_fp_exit(struct fprobe *fp, unsigned long ip,
				 unsigned long ret_ip, struct kstats_fprobe_regs *regs,
				 void *data)
{
	struct kstats_trace *t = container_of(fp, struct kstats_trace, fp);
	struct kstats_trace_fp_data *d = data;

	if (likely(d && d->gen == t->fp_gen))
		kstats_trace_return(t, kstats_trace_now(), &d->start);
}

NOKPROBE_SYMBOL(kstats_trace_fp_exit);
KSTATS_FPROBE_COMPAT(kstats_trace_fp_entry, kstats_trace_fp_exit);

/*
 * The handlers of an fprobe: trace with no filter and no gap, the common
 * case, chosen at attach: no more than a timer on an fprobe must do (the
 * entry time into the call's entry data, and at the return the time since,
 * recorded), not a test of options that cannot change while attached.
 */
static int kstats_trace_fp_entry_plain(struct fprobe *fp, unsigned long ip,
				       unsigned long ret_ip,
				       struct kstats_fprobe_regs *regs, void *data)
{
	struct kstats_trace_fp_data *d = data;

	d->gen = container_of(fp, struct kstats_trace, fp)->fp_gen;
	d->start = kstats_trace_now();
	return 0;
}

NOKPROBE_SYMBOL(kstats_trace_fp_entry_plain);

static void kstats_trace_fp_exit_plain(struct fprobe *fp, unsigned long ip,
				       unsigned long ret_ip,
				       struct kstats_fprobe_regs *regs, void *data)
{
	struct kstats_trace *t = container_of(fp, struct kstats_trace, fp);
	struct kstats_trace_fp_data *d = data;

	if (likely(d && d->gen == t->fp_gen))
		kstats_trace_record(t, d->start, kstats_trace_now());
}

NOKPROBE_SYMBOL(kstats_trace_fp_exit_plain);
KSTATS_FPROBE_COMPAT(kstats_trace_fp_entry_plain, kstats_trace_fp_exit_plain);

/*
 * The generations of fprobes, from a random start, so that the fprobes of
 * a kstats_trace loaded again do not take those of the one before, whose
 * calls may still be in flight.
 */
static atomic64_t kstats_trace_fp_gens = ATOMIC64_INIT(0);

void kstats_trace_fp_init(void)
{
	atomic64_set(&kstats_trace_fp_gens, get_random_u64() >> 1);
}

/* A generation for an fprobe about to be registered: never 0, never reused. */
u64 kstats_trace_fp_new_gen(void)
{
	u64 gen;

	do {
		gen = atomic64_inc_return(&kstats_trace_fp_gens);
	} while (unlikely(!gen));
	return gen;
}

#if KSTATS_FPROBE_FGRAPH
/*
 * fprobe on the function-graph tracer has one fgraph_ops for every
 * fprobe, registered while any fprobe with an exit handler is, and given
 * the next of fgraph's 16 indexes each time it is registered again. A
 * call in flight keeps its frame across that; when it returns under the
 * index that fgraph sets on every frame (0), fprobe_return() finds no
 * data of its own there and WARNs (7.3): removing the last trace while
 * its function sleeps, then adding one, is enough. So while kstats_trace
 * has an fprobe, and fgraph_hold_secs after the last goes (a trace
 * removed and added again, as kstats trace runs do), it also holds one
 * fprobe of its own, on kstats_trace_anchor(), which is never called:
 * fprobe's fgraph_ops stays registered, with its index. That costs what
 * fgraph costs while registered: a shadow stack of 4 KiB for each task
 * made meanwhile (the others have theirs), and no other function traced.
 * While fprobe holds index 0, any other user of fgraph makes it WARN the
 * same way: the anchor is registered twice, to leave that index. The
 * kernel bug stays for a return after the hold, and for an index 0 that
 * the second registration comes back to (kstats.rst). A trace whose
 * anchor cannot be registered (no memory) is refused.
 */
static unsigned int kstats_trace_fgraph_hold_secs = 60;
module_param_named(fgraph_hold_secs, kstats_trace_fgraph_hold_secs, uint, 0644);
MODULE_PARM_DESC(fgraph_hold_secs,
		 "Seconds that fprobe's function-graph ops is held after the last fprobe of kstats_trace goes (kernels whose fprobe is on fgraph)");

static int kstats_trace_anchor_entry(struct fprobe *fp, unsigned long ip,
				     unsigned long ret_ip,
				     struct kstats_fprobe_regs *regs, void *data)
{
	return 1;
}

NOKPROBE_SYMBOL(kstats_trace_anchor_entry);

/* Its exit handler makes it an fprobe of fgraph's; never called either. */
static void kstats_trace_anchor_exit(struct fprobe *fp, unsigned long ip,
				     unsigned long ret_ip,
				     struct kstats_fprobe_regs *regs, void *data)
{
}

NOKPROBE_SYMBOL(kstats_trace_anchor_exit);

static struct fprobe kstats_trace_fgraph_fp = {
	.entry_handler = kstats_trace_anchor_entry,
	.exit_handler = kstats_trace_anchor_exit,
};

/* Under kstats_trace_mutex: the anchor is registered; the traces on it. */
static bool kstats_trace_fgraph_held;
static unsigned int kstats_trace_fgraph_users;

static void kstats_trace_fgraph_unhold(void)
{
	lockdep_assert_held(&kstats_trace_mutex);
	if (kstats_trace_fgraph_held && !kstats_trace_fgraph_users) {
		unregister_fprobe(&kstats_trace_fgraph_fp);
		kstats_trace_fgraph_held = false;
	}
}

static void kstats_trace_fgraph_work_fn(struct work_struct *work)
{
	mutex_lock(&kstats_trace_mutex);
	kstats_trace_fgraph_unhold();
	mutex_unlock(&kstats_trace_mutex);
}

static DECLARE_DELAYED_WORK(kstats_trace_fgraph_work, kstats_trace_fgraph_work_fn);

/*
 * Before @t's fprobe is registered: the anchor, registered if it is not.
 * Returns 0, or the error of its registration: @t is then refused, not
 * left to the kernel's bug, and is no user of the anchor.
 */
int kstats_trace_fgraph_hold(struct kstats_trace *t)
{
	unsigned long ip = (unsigned long)kstats_trace_anchor;
	int ret;

	lockdep_assert_held(&kstats_trace_mutex);
	/* A release running now waits for the mutex, then finds a user. */
	cancel_delayed_work(&kstats_trace_fgraph_work);
	if (!kstats_trace_fgraph_held) {
		/*
		 * Registered twice: where it registers fprobe's fgraph_ops,
		 * the first takes fgraph's next index, which after boot is
		 * 0, the index under which every other user of fgraph (the
		 * function_graph tracer) would make fprobe WARN too.
		 */
		ret = register_fprobe_ips(&kstats_trace_fgraph_fp, &ip, 1);
		if (!ret) {
			unregister_fprobe(&kstats_trace_fgraph_fp);
			ret = register_fprobe_ips(&kstats_trace_fgraph_fp, &ip, 1);
		}
		if (ret) {
			kstats_trace_err(t->start.sym, "%s: cannot register fprobe's function-graph ops (kstats' anchor): %d%s",
					 t->name, ret, kstats_trace_why(ret));
			return ret;
		}
		kstats_trace_fgraph_held = true;
	}
	kstats_trace_fgraph_users++;
	t->fgraph_user = true;
	return 0;
}

/* @t, whose fprobe is unregistered, is freed. */
void kstats_trace_fgraph_put(struct kstats_trace *t)
{
	lockdep_assert_held(&kstats_trace_mutex);
	if (!t->fgraph_user || --kstats_trace_fgraph_users)
		return;
	mod_delayed_work(system_wq, &kstats_trace_fgraph_work,
			 READ_ONCE(kstats_trace_fgraph_hold_secs) * HZ);
}

/* At unloading, after kstats_trace_fgraph_release(), without the mutex. */
void kstats_trace_fgraph_cancel(void)
{
	cancel_delayed_work_sync(&kstats_trace_fgraph_work);
}

/* At unloading, once every trace is detached, under kstats_trace_mutex. */
void kstats_trace_fgraph_release(void)
{
	kstats_trace_fgraph_users = 0;
	kstats_trace_fgraph_unhold();
}
#endif /* KSTATS_FPROBE_FGRAPH */

/*
 * The memory of a pool of @nr calls in flight of @entry bytes each, as
 * rethook keeps it in an objpool (from 6.7): per possible CPU, a
 * page-aligned slot of a pointer per entry (a power of two) and its share
 * of the entries. Before 6.7, rethook keeps a list of nodes, each its own
 * allocation: the figure is close to theirs.
 */
size_t kstats_trace_pool_memory(unsigned int nr, size_t entry)
{
	unsigned int cpus = num_possible_cpus();

	return cpus * PAGE_ALIGN(64 + roundup_pow_of_two(nr) * sizeof(void *) +
				 DIV_ROUND_UP(nr, cpus) * ALIGN(entry, sizeof(long)));
}

/* trace FUNC and trace pcpu:FUNC: a kretprobe. */
int kstats_trace_krp_attach(struct kstats_trace *t)
{
	size_t pool;
	int ret;

	t->krp.kp.symbol_name = t->start.sym;
	t->krp.entry_handler = kstats_trace_krp_entry;
	t->krp.handler = kstats_trace_krp_return;
	/* pcpu: keeps the entry time per CPU, not per instance. */
	t->krp.data_size = t->mode == KSTATS_TRACE_PCPU ? 0 : sizeof(u64);
	/*
	 * The calls in flight at once, each with an instance: maxactive N,
	 * or kprobes' own default, set here to size the budget before the
	 * kretprobe is registered. Calls past it are missed.
	 */
	t->krp.maxactive = t->maxactive ?: max(10U, 2 * num_possible_cpus());
	pool = kstats_trace_pool_memory(t->krp.maxactive,
					sizeof(struct kretprobe_instance) + t->krp.data_size);
	ret = kstats_trace_kprobe_clash(t, &t->start);
	if (!ret)
		ret = kstats_trace_budget(t, pool, "its kretprobe's pool of calls in flight");
	if (ret)
		return ret;
	ret = register_kretprobe(&t->krp);
	if (!ret && !kstats_kprobe_registered(&t->krp.kp)) {
		/*
		 * Not armed, and not in kprobes' table: this frees its rethook
		 * (where kretprobes have none, csky and parisc, its instances
		 * stay allocated). Why arming failed is not told: most likely
		 * ftrace's memory.
		 */
		unregister_kretprobe(&t->krp);
		ret = -ENOMEM;
	}
	if (ret) {
		kstats_trace_err(t->start.sym, "%s: cannot put a kretprobe on %s: %d%s",
				 t->name, t->start.sym, ret, kstats_trace_why(ret));
		return ret;
	}
	t->start.addr = (unsigned long)t->krp.kp.addr;
	return 0;
}

int kstats_trace_krp_detach(struct kstats_trace *t)
{
	unregister_kretprobe(&t->krp);
	return 0;
}

unsigned long kstats_trace_krp_missed(struct kstats_trace *t)
{
	return t->krp.nmissed + t->krp.kp.nmissed;
}

/*
 * trace fprobe:FUNC: an fprobe at the function's address, so that the
 * trace knows the address when a module goes. The entry time is its entry
 * data; a call in flight when it is unregistered returns without calling
 * its exit handler, or one that finds the data of another generation.
 */
int kstats_trace_fp_attach(struct kstats_trace *t)
{
	int ret;

	if (!IS_ENABLED(CONFIG_FPROBE)) {
		kstats_trace_err(NULL, "%s: fprobe: needs CONFIG_FPROBE", t->name);
		return -EOPNOTSUPP;
	}
	ret = kstats_trace_addr(t, &t->start);
	if (!ret)
		ret = kstats_trace_fprobe_clash(t, &t->start.addr, 1);
#if !KSTATS_FPROBE_FGRAPH
	/* maxactive N, or fprobe's own default for one function. */
	t->fp.nr_maxactive = t->maxactive ?: 2 * num_possible_cpus();
	if (!ret) {
		size_t node = kstats_trace_fprobe_node(sizeof(struct kstats_trace_fp_data));

		ret = kstats_trace_budget(t, kstats_trace_pool_memory(t->fp.nr_maxactive, node),
					  "its fprobe's pool of calls in flight");
	}
#endif
	if (!ret)
		ret = kstats_trace_fgraph_hold(t);
	if (ret)
		return ret;
	/* Filters and the gap are set before attach, and never change. */
	if (t->pid || t->cgrp || t->gap) {
		t->fp.entry_handler = kstats_fprobe_handler(kstats_trace_fp_entry);
		t->fp.exit_handler = kstats_fprobe_handler(kstats_trace_fp_exit);
	} else {
		t->fp.entry_handler = kstats_fprobe_handler(kstats_trace_fp_entry_plain);
		t->fp.exit_handler = kstats_fprobe_handler(kstats_trace_fp_exit_plain);
	}
	t->fp.entry_data_size = sizeof(struct kstats_trace_fp_data);
	t->fp_gen = kstats_trace_fp_new_gen();
	ret = register_fprobe_ips(&t->fp, &t->start.addr, 1);
	if (ret)
		kstats_trace_err(t->start.sym, "%s: cannot put an fprobe on %s: %d",
				 t->name, t->start.sym, ret);
	return ret;
}

/* Fails only once ftrace has shut itself down: the fprobe stays listed. */
int kstats_trace_fp_detach(struct kstats_trace *t)
{
	return unregister_fprobe(&t->fp);
}

unsigned long kstats_trace_fp_missed(struct kstats_trace *t)
{
	return t->fp.nmissed;
}
