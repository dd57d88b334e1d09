// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_trace: time kernel functions, and stretches of code between two
 * points, into kstats metrics, on a running kernel:
 *
 *   echo trace __do_softirq > /sys/kernel/debug/kstats/_control
 *   watch grep CPUS /sys/kernel/debug/kstats/__do_softirq
 *   echo remove __do_softirq > /sys/kernel/debug/kstats/_control
 *
 * A function is timed from entry to return with a kretprobe (default), a
 * kretprobe keeping the entry time per CPU (pcpu:), or through ftrace alone
 * (fprobe:): on x86_64, an ftrace direct trampoline that calls the function
 * and keeps the entry time in its own stack frame; elsewhere the function
 * graph tracer when built in the kernel tree, else an fprobe.
 * A stretch of code is timed between two kprobes or tracepoints; the end
 * closes the start that the same CPU opened.
 *
 * See Documentation/dev-tools/kstats.rst.
 */

#define pr_fmt(fmt) "kstats_trace: " fmt

#include <kunit/visibility.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/kstats.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#ifdef CONFIG_KSTATS_TRACE_DIRECT
#include <asm/linkage.h>
#include <asm/unwind_hints.h>
#endif

#include "kstats_trace.h"

#define KSTATS_TRACE_GAP	"GAP-"
#define KSTATS_TRACE_TP		"tp:"
#define KSTATS_TRACE_TP_SYM	"__tracepoint_"
#define KSTATS_TRACE_MAX_WORDS	8

static const char * const kstats_trace_modes[] = {
	[KSTATS_TRACE_KRETPROBE] = "kretprobe",
	[KSTATS_TRACE_PCPU] = "pcpu",
	[KSTATS_TRACE_FPROBE] = "fprobe",
	[KSTATS_TRACE_PAIR] = "pair",
};

/* What a CPU remembers between two probe hits. */
struct kstats_trace_cpu {
	u64 start;		/* time of the open start, 0 if none */
	u64 last_ret;		/* time of the last return, 0 if none */
	long inflight;		/* fprobe: calls entered here, minus returns */
};

/* One end of a pair: a kprobe, or a tracepoint when tp is set. */
struct kstats_trace_end {
	struct kprobe kp;
	struct tracepoint *tp;
};

struct kstats_trace {
	struct list_head node;		/* in kstats_trace_list */
	enum kstats_trace_mode mode;
	unsigned int bits;
	struct kstats *ks;
	struct kstats *gap;		/* return to next call; not for pairs */
	struct kstats_trace_cpu __percpu *cpu;
	atomic_long_t missed;		/* ends without a start, lost starts */
	char *name;
	struct kstats_trace_point start;	/* the function, for entry/return */
	struct kstats_trace_point end;
	union {
		struct kretprobe krp;
		struct fprobe fp;
#ifdef CONFIG_KSTATS_TRACE_FGRAPH
		struct fgraph_ops gops;
#endif
#ifdef CONFIG_KSTATS_TRACE_DIRECT
		struct {
			struct ftrace_ops ops;
			struct hlist_node node;	/* in kstats_trace_direct_hash */
			unsigned long ip;	/* the function's fentry call */
			struct delayed_work reap;	/* calls left at removal */
		} direct;
#endif
		struct {
			struct kstats_trace_end start;
			struct kstats_trace_end end;
		} pair;
	};
};

/*
 * kstats_trace_mutex serializes the commands and protects kstats_trace_list;
 * probe handlers never take it.
 */
static DEFINE_MUTEX(kstats_trace_mutex);
static LIST_HEAD(kstats_trace_list);
/* Removed fprobe: traces with calls in flight, until these return. */
static LIST_HEAD(kstats_trace_reaping);
static struct dentry *kstats_trace_control;

/*
 * Timestamps: the fast NMI-safe monotonic clock, the same on all CPUs, as a
 * kretprobe or fprobe may return on another CPU than it entered on.
 */
static __always_inline u64 kstats_trace_now(void)
{
	return ktime_get_mono_fast_ns();
}

/*
 * Handlers run with preemption disabled (kprobe, ftrace and tracepoint
 * callbacks all do), but an interrupt may hit another probe of the same
 * trace on this CPU: the per-CPU times are swapped with this_cpu_xchg(),
 * which is atomic with respect to local interrupts.
 */
static __always_inline void kstats_trace_gap(struct kstats_trace *t, u64 now)
{
	u64 last = this_cpu_xchg(t->cpu->last_ret, 0);

	if (last)
		kstats_record(t->gap, now - last);
}

static __always_inline void kstats_trace_open(struct kstats_trace *t, u64 now)
{
	/* A start that overwrites an open one loses that one. */
	if (this_cpu_xchg(t->cpu->start, now))
		atomic_long_inc(&t->missed);
}

static __always_inline void kstats_trace_close(struct kstats_trace *t, u64 now)
{
	u64 start = this_cpu_xchg(t->cpu->start, 0);

	if (start)
		kstats_record(t->ks, now - start);
	else
		atomic_long_inc(&t->missed);
}

/* A call: the gap since the last return, and the entry time kept. */
static __always_inline void kstats_trace_enter(struct kstats_trace *t, u64 now, u64 *entry)
{
	kstats_trace_gap(t, now);
	if (entry)
		*entry = now;
	else
		kstats_trace_open(t, now);
}

/* A return: the call's time, and the start of the next gap. */
static __always_inline void kstats_trace_return(struct kstats_trace *t, u64 now, u64 *entry)
{
	if (entry)
		kstats_record(t->ks, now - *entry);
	else
		kstats_trace_close(t, now);
	this_cpu_write(t->cpu->last_ret, now);
}

static int kstats_trace_krp_entry(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	struct kstats_trace *t = container_of(get_kretprobe(ri),
					      struct kstats_trace, krp);
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
				 unsigned long ret_ip, struct pt_regs *regs,
				 void *data)
{
	kstats_trace_enter(container_of(fp, struct kstats_trace, fp),
			   kstats_trace_now(), data);
	return 0;
}

NOKPROBE_SYMBOL(kstats_trace_fp_entry);

static void kstats_trace_fp_exit(struct fprobe *fp, unsigned long ip,
				 unsigned long ret_ip, struct pt_regs *regs,
				 void *data)
{
	kstats_trace_return(container_of(fp, struct kstats_trace, fp),
			    kstats_trace_now(), data);
}

NOKPROBE_SYMBOL(kstats_trace_fp_exit);

#if defined(CONFIG_KSTATS_TRACE_FGRAPH) || defined(CONFIG_KSTATS_TRACE_DIRECT)
/*
 * The address of a function, found the way a kprobe finds it, and only
 * if kprobes would probe it: the probe is registered disabled, so that
 * no code is patched, and removed at once. ftrace cannot be asked by
 * name: it names a location by one of the symbols at its address, not
 * always the one asked for (__do_sys_getppid for __x64_sys_getppid).
 */
static int kstats_trace_addr(struct kstats_trace *t, unsigned long *addr)
{
	struct kprobe kp = {
		.symbol_name = t->start.sym,
		.flags = KPROBE_FLAG_DISABLED,
	};
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		pr_warn("%s: cannot probe %s: %d\n", t->name, t->start.sym, ret);
		return ret;
	}
	*addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}
#endif

#ifdef CONFIG_KSTATS_TRACE_FGRAPH
/*
 * fprobe: through the function graph tracer directly, as fprobe itself
 * does from Linux 6.14: the entry is an ftrace callback without saved
 * registers, the return a hook on the task's shadow return stack, and the
 * entry time is kept on that stack, no object pool involved. The return
 * hook may run preemptible: the per-CPU part runs with preemption off.
 */
static int kstats_trace_fg_entry(struct ftrace_graph_ent *trace,
				 struct fgraph_ops *gops)
{
	struct kstats_trace *t = container_of(gops, struct kstats_trace, gops);
	u64 now = kstats_trace_now();
	u64 *entry = fgraph_reserve_data(gops->idx, sizeof(*entry));

	guard(preempt_notrace)();
	if (unlikely(!entry)) {
		/* The shadow stack is full: no return hook either. */
		kstats_trace_gap(t, now);
		atomic_long_inc(&t->missed);
		return 0;
	}
	kstats_trace_enter(t, now, entry);
	return 1;
}

static void kstats_trace_fg_return(struct ftrace_graph_ret *trace,
				   struct fgraph_ops *gops)
{
	struct kstats_trace *t = container_of(gops, struct kstats_trace, gops);
	u64 now = kstats_trace_now();
	u64 *entry = fgraph_retrieve_data(gops->idx, NULL);

	guard(preempt_notrace)();
	if (entry)
		kstats_trace_return(t, now, entry);
	else
		atomic_long_inc(&t->missed);
}

static int kstats_trace_fg_attach(struct kstats_trace *t)
{
	unsigned long addr;
	int ret;

	ret = kstats_trace_addr(t, &addr);
	if (ret)
		return ret;
	ret = ftrace_set_filter_ip(&t->gops.ops, addr, 0, 1);
	if (ret) {
		pr_warn("%s: ftrace cannot hook %s: %d\n",
			t->name, t->start.sym, ret);
		return ret;
	}
	t->gops.entryfunc = kstats_trace_fg_entry;
	t->gops.retfunc = kstats_trace_fg_return;
	ret = register_ftrace_graph(&t->gops);
	if (ret) {
		pr_warn("%s: cannot hook the returns of %s: %d\n",
			t->name, t->start.sym, ret);
		ftrace_free_filter(&t->gops.ops);
	}
	return ret;
}

static void kstats_trace_fg_detach(struct kstats_trace *t)
{
	unregister_ftrace_graph(&t->gops);
	ftrace_free_filter(&t->gops.ops);
}
#else
static int kstats_trace_fg_attach(struct kstats_trace *t)
{
	return -EOPNOTSUPP;
}

static void kstats_trace_fg_detach(struct kstats_trace *t)
{
}
#endif

#ifdef CONFIG_KSTATS_TRACE_DIRECT
/*
 * fprobe: on x86_64. ftrace makes the function's fentry call a direct
 * call of kstats_trace_direct(): no ftrace_ops loop, no pt_regs saved. The
 * trampoline then does what the caller did: it calls the body of the
 * function with the caller's arguments, times that call, and returns the
 * body's return value to the caller. The entry time is kept in the
 * trampoline's stack frame: the return needs no shadow stack, no object
 * pool and no return address rewritten.
 *
 *	caller:	call FUNC
 *	FUNC:	call kstats_trace_direct		(was: call __fentry__)
 *		  kstats_trace_direct_enter()
 *		  call FUNC+5				(the body)
 *		  kstats_trace_direct_exit()
 *		  return to the caller
 *
 * The registers that pass arguments are saved around the enter hook, and
 * the return value (%rax, %rdx) around the exit hook. Arguments passed on
 * the stack are copied below the frame, up to KSTATS_TRACE_STACK_WORDS
 * words, and not past the end of the stack: a function with more stack
 * arguments must not be traced this way. A call on a stack other than the
 * task's or the IRQ stack (NMI and exception stacks) is not timed: the
 * trampoline returns into the function as __fentry__ would have, and the
 * call is counted as missed. A call that finds no trace (one being added
 * or removed) runs untimed too, counted nowhere.
 *
 * One trampoline serves every trace: it finds the trace by the address of
 * the fentry call, in an RCU hash table. Each trace counts, per CPU, the
 * calls it has in flight; a call that sleeps in the function when its
 * trace is removed still returns through the trampoline and records its
 * sample: the trace and its metrics are freed when the last such call has
 * returned.
 */
#define KSTATS_TRACE_STACK_WORDS	16
#define KSTATS_TRACE_FRAME_SIZE		200
#define KSTATS_TRACE_REAP_DELAY		(HZ / 10)

/* The trampoline's stack frame, from its stack pointer up. */
struct kstats_trace_frame {
	unsigned long stack[KSTATS_TRACE_STACK_WORDS];	/* arguments, copied */
	unsigned long pad;		/* keeps the body's stack alignment */
	u64 entry;			/* the entry time */
	struct kstats_trace *t;
	unsigned long regs[6];		/* %r9, %r8, %rcx, %rdx, %rsi, %rdi */
	unsigned long bp;		/* the frame pointer: %rbp */
	unsigned long ip;		/* the body, after the fentry call */
	unsigned long ret;		/* the return address in the caller */
	unsigned long args[];		/* the caller's stack arguments */
};

static_assert(offsetof(struct kstats_trace_frame, bp) == KSTATS_TRACE_FRAME_SIZE);
static_assert(offsetof(struct kstats_trace_frame, regs) == KSTATS_TRACE_FRAME_SIZE - 48);
/* The body's stack pointer at entry, as the caller's was, modulo 16. */
static_assert(KSTATS_TRACE_FRAME_SIZE % 16 == 8);

#ifdef CONFIG_MITIGATION_RETPOLINE
#define KSTATS_TRACE_CALL_BODY	"	call __x86_indirect_thunk_rax\n"
#else
#define KSTATS_TRACE_CALL_BODY	"	call *%rax\n"
#endif

#define KSTATS_TRACE_LOAD_ARGS		\
	"	movq -8(%rbp), %rdi\n"	\
	"	movq -16(%rbp), %rsi\n"	\
	"	movq -24(%rbp), %rdx\n"	\
	"	movq -32(%rbp), %rcx\n"	\
	"	movq -40(%rbp), %r8\n"	\
	"	movq -48(%rbp), %r9\n"

asm("	.pushsection .text, \"ax\", @progbits\n"
	"	.type kstats_trace_direct, @function\n"
	"kstats_trace_direct:\n"
	"	pushq %rbp\n"
	"	movq %rsp, %rbp\n"
	"	subq $" __stringify(KSTATS_TRACE_FRAME_SIZE) ", %rsp\n"
	"	movq %rdi, -8(%rbp)\n"
	"	movq %rsi, -16(%rbp)\n"
	"	movq %rdx, -24(%rbp)\n"
	"	movq %rcx, -32(%rbp)\n"
	"	movq %r8, -40(%rbp)\n"
	"	movq %r9, -48(%rbp)\n"
	"	movq %rsp, %rdi\n"
	"	call kstats_trace_direct_enter\n"
	"	testq %rax, %rax\n"
	"	js 1f\n"
	/* Copy %rax words of stack arguments. */
	"	movq %rax, %rcx\n"
	"	leaq 24(%rbp), %rsi\n"
	"	movq %rsp, %rdi\n"
	"	rep movsq\n"
	KSTATS_TRACE_LOAD_ARGS
	"	movq 8(%rbp), %rax\n"
	KSTATS_TRACE_CALL_BODY
	"	movq %rax, -8(%rbp)\n"
	"	movq %rdx, -16(%rbp)\n"
	"	movq %rsp, %rdi\n"
	"	call kstats_trace_direct_exit\n"
	"	movq -8(%rbp), %rax\n"
	"	movq -16(%rbp), %rdx\n"
	"	leave\n"
	/* Drop the return address into the body: back to the caller. */
	"	addq $8, %rsp\n"
	UNWIND_HINT_FUNC
	ASM_RET
	/* Not timed: into the body, as from __fentry__. */
	"1:\n"
	KSTATS_TRACE_LOAD_ARGS
	"	leave\n"
	ASM_RET
	"	.size kstats_trace_direct, .-kstats_trace_direct\n"
	"	.popsection\n"
);
NOKPROBE_SYMBOL(kstats_trace_direct);

static DEFINE_HASHTABLE(kstats_trace_direct_hash, 6);

static __always_inline struct kstats_trace *
kstats_trace_direct_find(unsigned long ip)
{
	struct kstats_trace *t;

	hash_for_each_possible_rcu_notrace(kstats_trace_direct_hash, t,
					   direct.node, ip)
		if (t->direct.ip == ip)
			return t;
	return NULL;
}

/*
 * The end of the stack that @sp is on, if it is the task's stack or this
 * CPU's IRQ stack (whose top word keeps the stack pointer it came from);
 * 0 on any other. Called with preemption disabled.
 */
static __always_inline unsigned long kstats_trace_stack_end(unsigned long sp)
{
	unsigned long base = (unsigned long)task_stack_page(current);
	unsigned long top;

	if (sp - base <= THREAD_SIZE)
		return base + THREAD_SIZE;
	top = (unsigned long)__this_cpu_read(pcpu_hot.hardirq_stack_ptr) + 8;
	if (sp - (top - IRQ_STACK_SIZE) <= IRQ_STACK_SIZE)
		return top;
	return 0;
}

/*
 * Called by the trampoline at the function's entry, with the frame in
 * which to keep the trace and the entry time. Returns the number of stack
 * words to copy for the body, or -1 to run the function untimed.
 */
long notrace kstats_trace_direct_enter(struct kstats_trace_frame *f)
{
	unsigned long sp = (unsigned long)f->args, end;
	struct kstats_trace *t;
	long words = -1;
	u64 now;

	preempt_disable_notrace();
	t = kstats_trace_direct_find(f->ip - MCOUNT_INSN_SIZE);
	if (unlikely(!t))
		goto out;
	end = kstats_trace_stack_end(sp);
	if (unlikely(!end)) {
		atomic_long_inc(&t->missed);
		goto out;
	}
	this_cpu_inc(t->cpu->inflight);
	f->t = t;
	now = kstats_trace_now();
	kstats_trace_enter(t, now, &f->entry);
	words = min_t(unsigned long, KSTATS_TRACE_STACK_WORDS,
		      (end - sp) / sizeof(long));
out:
	preempt_enable_notrace();
	return words;
}

NOKPROBE_SYMBOL(kstats_trace_direct_enter);

/* Called by the trampoline when the body has returned. */
void notrace kstats_trace_direct_exit(struct kstats_trace_frame *f)
{
	struct kstats_trace *t = f->t;
	u64 now = kstats_trace_now();

	preempt_disable_notrace();
	kstats_trace_return(t, now, &f->entry);
	/*
	 * The call's last access to the trace, which may be freed once the
	 * sum of the counters is 0: x86 does not move the loads and stores
	 * above after this store.
	 */
	this_cpu_dec(t->cpu->inflight);
	preempt_enable_notrace();
}

NOKPROBE_SYMBOL(kstats_trace_direct_exit);

static int kstats_trace_direct_attach(struct kstats_trace *t)
{
	struct kstats_trace *other;
	unsigned long addr;
	int ret;

	ret = kstats_trace_addr(t, &addr);
	if (ret)
		return ret;
	/* Without IBT, the fentry call is the function's first instruction. */
	t->direct.ip = addr;
	other = kstats_trace_direct_find(t->direct.ip);
	if (other) {
		pr_warn("%s: %s is traced already, as %s\n",
			t->name, t->start.sym, other->name);
		return -EBUSY;
	}
	ret = ftrace_set_filter_ip(&t->direct.ops, t->direct.ip, 0, 0);
	if (ret) {
		pr_warn("%s: ftrace cannot hook %s: %d\n",
			t->name, t->start.sym, ret);
		return ret;
	}
	hash_add_rcu(kstats_trace_direct_hash, &t->direct.node, t->direct.ip);
	ret = register_ftrace_direct(&t->direct.ops,
				     (unsigned long)kstats_trace_direct);
	if (ret) {
		pr_warn("%s: cannot attach to %s (a BPF trampoline there?): %d\n",
			t->name, t->start.sym, ret);
		hash_del_rcu(&t->direct.node);
		synchronize_rcu();
		ftrace_free_filter(&t->direct.ops);
	}
	return ret;
}

/*
 * Once unregister_ftrace_direct() has returned, no task is left between a
 * fentry call and the count of its call in flight (it waits for a
 * tasks-RCU grace period); once synchronize_rcu() has, no enter hook uses
 * the hash entry.
 */
static void kstats_trace_direct_detach(struct kstats_trace *t)
{
	unregister_ftrace_direct(&t->direct.ops,
				 (unsigned long)kstats_trace_direct, true);
	hash_del_rcu(&t->direct.node);
	synchronize_rcu();
}

/*
 * The calls in flight: entries minus returns, summed over the CPUs. Once
 * the trace is detached the counters only go down, so a sum of 0 is
 * final.
 */
static long kstats_trace_inflight(struct kstats_trace *t)
{
	long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(t->cpu, cpu)->inflight);
	return n;
}

static void kstats_trace_free(struct kstats_trace *t);

static void kstats_trace_reap(struct work_struct *work)
{
	struct kstats_trace *t = container_of(to_delayed_work(work),
					      struct kstats_trace, direct.reap);

	if (kstats_trace_inflight(t)) {
		schedule_delayed_work(&t->direct.reap, KSTATS_TRACE_REAP_DELAY);
		return;
	}
	mutex_lock(&kstats_trace_mutex);
	list_del(&t->node);
	mutex_unlock(&kstats_trace_mutex);
	kstats_trace_free(t);
	/* kstats_trace_exit() waits until this function has returned. */
	module_put(THIS_MODULE);
}

/*
 * A removed trace with calls in flight (sleeping in the function) is
 * freed when they have returned, by a work item that holds the module.
 * Returns whether it was handed over.
 */
static bool kstats_trace_reap_later(struct kstats_trace *t)
{
	long n;

	if (t->mode != KSTATS_TRACE_FPROBE)
		return false;
	n = kstats_trace_inflight(t);
	if (!n)
		return false;
	pr_info("%s: removed, calls in flight: %ld; its metrics go when they return\n",
		t->name, n);
	__module_get(THIS_MODULE);
	list_add_tail(&t->node, &kstats_trace_reaping);
	INIT_DELAYED_WORK(&t->direct.reap, kstats_trace_reap);
	schedule_delayed_work(&t->direct.reap, KSTATS_TRACE_REAP_DELAY);
	return true;
}

/* At module exit: wait for the calls in flight, which cannot be left. */
static void kstats_trace_wait(struct kstats_trace *t)
{
	long n;

	if (t->mode != KSTATS_TRACE_FPROBE)
		return;
	n = kstats_trace_inflight(t);
	if (n)
		pr_warn("%s: waiting for calls in flight: %ld\n", t->name, n);
	while (kstats_trace_inflight(t))
		schedule_timeout_idle(KSTATS_TRACE_REAP_DELAY);
}
#else
static int kstats_trace_direct_attach(struct kstats_trace *t)
{
	return -EOPNOTSUPP;
}

static void kstats_trace_direct_detach(struct kstats_trace *t)
{
}

static bool kstats_trace_reap_later(struct kstats_trace *t)
{
	return false;
}

static void kstats_trace_wait(struct kstats_trace *t)
{
}
#endif

static int kstats_trace_kp_start(struct kprobe *p, struct pt_regs *regs)
{
	kstats_trace_open(container_of(p, struct kstats_trace, pair.start.kp),
			  kstats_trace_now());
	return 0;
}

NOKPROBE_SYMBOL(kstats_trace_kp_start);

static int kstats_trace_kp_end(struct kprobe *p, struct pt_regs *regs)
{
	kstats_trace_close(container_of(p, struct kstats_trace, pair.end.kp),
			   kstats_trace_now());
	return 0;
}

NOKPROBE_SYMBOL(kstats_trace_kp_end);

/*
 * Tracepoint probes are called with the tracepoint's arguments after @data;
 * these ignore them, which the C calling convention allows (and why
 * KSTATS_TRACE depends on !CFI_CLANG, which checks the prototype).
 */
static void kstats_trace_tp_start(void *data)
{
	kstats_trace_open(data, kstats_trace_now());
}

static void kstats_trace_tp_end(void *data)
{
	kstats_trace_close(data, kstats_trace_now());
}

/* Symbols: what kallsyms may hold (letters, digits, '_', '.', '$'). */
static bool kstats_trace_valid_sym(const char *sym)
{
	const char *c;

	if (!*sym || strlen(sym) >= KSYM_NAME_LEN)
		return false;
	for (c = sym; *c; c++)
		if (!isalnum(*c) && *c != '_' && *c != '.' && *c != '$')
			return false;
	return true;
}

/* kstats must not time itself: its record path would recurse. */
static int kstats_trace_check_sym(const char *sym)
{
	if (!kstats_trace_valid_sym(sym)) {
		pr_warn("invalid symbol '%s'\n", sym);
		return -EINVAL;
	}
	if (str_has_prefix(sym, "kstats_")) {
		pr_warn("%s: kstats cannot trace itself\n", sym);
		return -EPERM;
	}
	return 0;
}

/* SYM[+OFF], __tracepoint_NAME or tp:NAME */
static int kstats_trace_parse_point(char *word, struct kstats_trace_point *p)
{
	char *plus;
	size_t n;

	p->offset = 0;
	p->tracepoint = false;
	n = str_has_prefix(word, KSTATS_TRACE_TP);
	if (!n)
		n = str_has_prefix(word, KSTATS_TRACE_TP_SYM);
	if (n) {
		p->sym = word + n;
		p->tracepoint = true;
		if (!kstats_trace_valid_sym(p->sym) || strpbrk(p->sym, ".$")) {
			pr_warn("invalid tracepoint '%s'\n", word);
			return -EINVAL;
		}
		return 0;
	}
	plus = strchr(word, '+');
	if (plus) {
		*plus++ = '\0';
		if (kstrtouint(plus, 0, &p->offset)) {
			pr_warn("invalid offset '+%s' of '%s'\n", plus, word);
			return -EINVAL;
		}
	}
	p->sym = word;
	return kstats_trace_check_sym(word);
}

/**
 * kstats_trace_parse() - parse one command of the _control file
 * @line: the command, NUL terminated; one trailing newline is allowed.
 *	Modified: @cmd points into it.
 * @cmd: the parsed command
 *
 * The commands are ``trace [pcpu:|fprobe:]FUNC [bits N]``,
 * ``trace NAME start POINT end POINT [bits N]`` where a POINT is
 * ``SYM[+OFF]``, ``__tracepoint_NAME`` or ``tp:NAME``, and ``remove NAME``.
 * Only the syntax is checked here: whether symbols exist and names are free
 * is known when the command is carried out.
 *
 * Context: any context.
 * Return: 0, -EINVAL for a malformed command, -ERANGE for bits out of
 * range, -EPERM for a kstats function; a warning says what was wrong.
 */
VISIBLE_IF_KUNIT int kstats_trace_parse(char *line, struct kstats_trace_cmd *cmd)
{
	char *argv[KSTATS_TRACE_MAX_WORDS], *word, *func;
	size_t len = strlen(line), n;
	int argc = 0, ret;

	if (len && line[len - 1] == '\n')
		line[--len] = '\0';
	for (word = line; *word; word++) {
		if (iscntrl(*word) && *word != '\t') {
			pr_warn("control character in command\n");
			return -EINVAL;
		}
	}
	while ((word = strsep(&line, " \t"))) {
		if (!*word)
			continue;
		if (argc == KSTATS_TRACE_MAX_WORDS) {
			pr_warn("too many words in command\n");
			return -EINVAL;
		}
		argv[argc++] = word;
	}
	if (!argc) {
		pr_warn("empty command\n");
		return -EINVAL;
	}

	memset(cmd, 0, sizeof(*cmd));
	if (!strcmp(argv[0], "remove")) {
		if (argc != 2) {
			pr_warn("usage: remove NAME\n");
			return -EINVAL;
		}
		cmd->verb = KSTATS_TRACE_REMOVE;
		cmd->name = argv[1];
		return 0;
	}
	if (strcmp(argv[0], "trace")) {
		pr_warn("unknown command '%s': expected trace or remove\n", argv[0]);
		return -EINVAL;
	}

	cmd->verb = KSTATS_TRACE_ADD;
	cmd->bits = KSTATS_TRACE_DEFAULT_BITS;
	if (argc >= 4 && !strcmp(argv[argc - 2], "bits")) {
		if (kstrtouint(argv[argc - 1], 10, &cmd->bits)) {
			pr_warn("invalid bits '%s'\n", argv[argc - 1]);
			return -EINVAL;
		}
		if (cmd->bits > KSTATS_MAX_FRAC_BITS) {
			pr_warn("bits %u out of range 0..%u\n", cmd->bits,
				KSTATS_MAX_FRAC_BITS);
			return -ERANGE;
		}
		argc -= 2;
	}

	if (argc == 6 && !strcmp(argv[2], "start") && !strcmp(argv[4], "end")) {
		cmd->mode = KSTATS_TRACE_PAIR;
		cmd->name = argv[1];
		ret = kstats_trace_parse_point(argv[3], &cmd->start);
		if (!ret)
			ret = kstats_trace_parse_point(argv[5], &cmd->end);
		return ret;
	}
	if (argc != 2) {
		pr_warn("usage: trace [pcpu:|fprobe:]FUNC [bits N] or trace NAME start POINT end POINT [bits N]\n");
		return -EINVAL;
	}

	func = argv[1];
	cmd->mode = KSTATS_TRACE_KRETPROBE;
	n = str_has_prefix(func, "pcpu:");
	if (n) {
		cmd->mode = KSTATS_TRACE_PCPU;
	} else {
		n = str_has_prefix(func, "fprobe:");
		if (n)
			cmd->mode = KSTATS_TRACE_FPROBE;
	}
	func += n;
	cmd->name = func;
	cmd->start.sym = func;
	return kstats_trace_check_sym(func);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_trace_parse);

static struct kstats_trace *kstats_trace_find(struct list_head *list,
					      const char *name)
{
	struct kstats_trace *t;

	lockdep_assert_held(&kstats_trace_mutex);
	list_for_each_entry(t, list, node)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

struct kstats_trace_tp_lookup {
	const char *name;
	struct tracepoint *tp;
};

static void kstats_trace_tp_match(struct tracepoint *tp, void *priv)
{
	struct kstats_trace_tp_lookup *lookup = priv;

	if (!strcmp(tp->name, lookup->name))
		lookup->tp = tp;
}

static int kstats_trace_attach_end(struct kstats_trace *t,
				   struct kstats_trace_end *end,
				   const struct kstats_trace_point *p,
				   bool start)
{
	int ret;

	if (p->tracepoint) {
		struct kstats_trace_tp_lookup lookup = { .name = p->sym };

		for_each_kernel_tracepoint(kstats_trace_tp_match, &lookup);
		if (!lookup.tp) {
			pr_warn("%s: no tracepoint %s in the kernel\n", t->name, p->sym);
			return -ENOENT;
		}
		ret = tracepoint_probe_register(lookup.tp,
						start ? (void *)kstats_trace_tp_start :
							(void *)kstats_trace_tp_end,
						t);
		if (ret) {
			pr_warn("%s: cannot attach to tracepoint %s: %d\n",
				t->name, p->sym, ret);
			return ret;
		}
		end->tp = lookup.tp;
		return 0;
	}

	end->kp.symbol_name = p->sym;
	end->kp.offset = p->offset;
	end->kp.pre_handler = start ? kstats_trace_kp_start : kstats_trace_kp_end;
	ret = register_kprobe(&end->kp);
	if (ret)
		pr_warn("%s: cannot put a kprobe at %s+%u: %d\n",
			t->name, p->sym, p->offset, ret);
	return ret;
}

static void kstats_trace_detach_end(struct kstats_trace *t,
				    struct kstats_trace_end *end, bool start)
{
	if (end->tp)
		tracepoint_probe_unregister(end->tp,
					    start ? (void *)kstats_trace_tp_start :
						    (void *)kstats_trace_tp_end,
					    t);
	else
		unregister_kprobe(&end->kp);
}

static int kstats_trace_attach(struct kstats_trace *t)
{
	const char *sym = t->start.sym;
	int ret;

	switch (t->mode) {
	case KSTATS_TRACE_KRETPROBE:
	case KSTATS_TRACE_PCPU:
		t->krp.kp.symbol_name = sym;
		t->krp.entry_handler = kstats_trace_krp_entry;
		t->krp.handler = kstats_trace_krp_return;
		/* pcpu: keeps the entry time per CPU, not per instance. */
		t->krp.data_size = t->mode == KSTATS_TRACE_PCPU ? 0 : sizeof(u64);
		ret = register_kretprobe(&t->krp);
		if (ret)
			pr_warn("%s: cannot put a kretprobe on %s: %d\n",
				t->name, sym, ret);
		return ret;
	case KSTATS_TRACE_FPROBE:
		if (IS_ENABLED(CONFIG_KSTATS_TRACE_DIRECT))
			return kstats_trace_direct_attach(t);
		if (IS_ENABLED(CONFIG_KSTATS_TRACE_FGRAPH))
			return kstats_trace_fg_attach(t);
		if (!IS_ENABLED(CONFIG_FPROBE)) {
			pr_warn("%s: fprobe: needs CONFIG_FPROBE\n", t->name);
			return -EOPNOTSUPP;
		}
		t->fp.entry_handler = kstats_trace_fp_entry;
		t->fp.exit_handler = kstats_trace_fp_exit;
		t->fp.entry_data_size = sizeof(u64);
		ret = register_fprobe_syms(&t->fp, &sym, 1);
		if (ret)
			pr_warn("%s: cannot put an fprobe on %s: %d\n",
				t->name, sym, ret);
		return ret;
	case KSTATS_TRACE_PAIR:
		ret = kstats_trace_attach_end(t, &t->pair.start, &t->start, true);
		if (ret)
			return ret;
		ret = kstats_trace_attach_end(t, &t->pair.end, &t->end, false);
		if (ret) {
			kstats_trace_detach_end(t, &t->pair.start, true);
			tracepoint_synchronize_unregister();
		}
		return ret;
	}
	return -EINVAL;
}

/* Detach the probes and wait until no handler runs any more. */
static void kstats_trace_detach(struct kstats_trace *t)
{
	switch (t->mode) {
	case KSTATS_TRACE_KRETPROBE:
	case KSTATS_TRACE_PCPU:
		unregister_kretprobe(&t->krp);
		break;
	case KSTATS_TRACE_FPROBE:
		if (IS_ENABLED(CONFIG_KSTATS_TRACE_DIRECT))
			kstats_trace_direct_detach(t);
		else if (IS_ENABLED(CONFIG_KSTATS_TRACE_FGRAPH))
			kstats_trace_fg_detach(t);
		else
			unregister_fprobe(&t->fp);
		break;
	case KSTATS_TRACE_PAIR:
		kstats_trace_detach_end(t, &t->pair.start, true);
		kstats_trace_detach_end(t, &t->pair.end, false);
		tracepoint_synchronize_unregister();
		break;
	}
}

static void kstats_trace_free(struct kstats_trace *t)
{
	kstats_delete(t->gap);
	kstats_delete(t->ks);
	free_percpu(t->cpu);
	kfree(t->end.sym);
	kfree(t->start.sym);
	kfree(t->name);
	kfree(t);
}

static int kstats_trace_add(const struct kstats_trace_cmd *cmd)
{
	struct kstats_trace *t;
	char *gap_name;
	int ret;

	lockdep_assert_held(&kstats_trace_mutex);
	if (kstats_trace_find(&kstats_trace_reaping, cmd->name)) {
		pr_warn("%s: removed, with calls still in flight\n", cmd->name);
		return -EBUSY;
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->mode = cmd->mode;
	t->bits = cmd->bits;
	atomic_long_set(&t->missed, 0);
	t->name = kstrdup(cmd->name, GFP_KERNEL);
	/* Copies: the symbols stay in use while the probes are registered. */
	t->start = cmd->start;
	t->start.sym = kstrdup(cmd->start.sym, GFP_KERNEL);
	t->end = cmd->end;
	if (t->mode == KSTATS_TRACE_PAIR)
		t->end.sym = kstrdup(cmd->end.sym, GFP_KERNEL);
	t->cpu = alloc_percpu_gfp(struct kstats_trace_cpu, GFP_KERNEL | __GFP_NOWARN);
	if (!t->name || !t->start.sym || !t->cpu ||
	    (t->mode == KSTATS_TRACE_PAIR && !t->end.sym)) {
		ret = -ENOMEM;
		goto fail;
	}

	t->ks = kstats_create(t->name, t->bits);
	if (IS_ERR(t->ks)) {
		ret = PTR_ERR(t->ks);
		t->ks = NULL;
		goto fail;
	}
	if (t->mode != KSTATS_TRACE_PAIR) {
		gap_name = kasprintf(GFP_KERNEL, KSTATS_TRACE_GAP "%s", t->name);
		if (!gap_name) {
			ret = -ENOMEM;
			goto fail;
		}
		t->gap = kstats_create(gap_name, t->bits);
		kfree(gap_name);
		if (IS_ERR(t->gap)) {
			ret = PTR_ERR(t->gap);
			t->gap = NULL;
			goto fail;
		}
	}

	ret = kstats_trace_attach(t);
	if (ret)
		goto fail;
	list_add_tail(&t->node, &kstats_trace_list);
	return 0;
fail:
	kstats_trace_free(t);
	return ret;
}

static int kstats_trace_remove(const char *name)
{
	struct kstats_trace *t;

	lockdep_assert_held(&kstats_trace_mutex);
	t = kstats_trace_find(&kstats_trace_list, name);
	if (!t) {
		pr_warn("remove %s: not traced\n", name);
		return -ENOENT;
	}
	list_del(&t->node);
	kstats_trace_detach(t);
	if (!kstats_trace_reap_later(t))
		kstats_trace_free(t);
	return 0;
}

/**
 * kstats_trace_exec() - carry out one command of the _control file
 * @buf: the command, as written; need not be NUL terminated
 * @len: its length in bytes
 *
 * Parses the command (see kstats_trace_parse()) and adds or removes a
 * trace. A command that fails changes nothing: no metric, file or probe
 * of it is left behind.
 *
 * Context: process context; takes kstats_trace_mutex, may sleep.
 * Return: 0, or the errors of kstats_trace_parse(), -E2BIG for a command
 * longer than KSTATS_TRACE_LINE_MAX, -ENOENT for an unknown symbol,
 * tracepoint or name to remove, -EEXIST for a name in use, -ENOMEM, or the
 * error of the probe's registration; a warning says what was wrong.
 */
VISIBLE_IF_KUNIT int kstats_trace_exec(const char *buf, size_t len)
{
	struct kstats_trace_cmd cmd;
	char *line;
	int ret;

	if (len > KSTATS_TRACE_LINE_MAX) {
		pr_warn("command longer than %d bytes\n", KSTATS_TRACE_LINE_MAX);
		return -E2BIG;
	}
	line = kmemdup_nul(buf, len, GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	if (strlen(line) != len) {
		pr_warn("NUL character in command\n");
		ret = -EINVAL;
		goto out;
	}
	ret = kstats_trace_parse(line, &cmd);
	if (ret)
		goto out;

	mutex_lock(&kstats_trace_mutex);
	if (cmd.verb == KSTATS_TRACE_REMOVE)
		ret = kstats_trace_remove(cmd.name);
	else
		ret = kstats_trace_add(&cmd);
	mutex_unlock(&kstats_trace_mutex);
out:
	kfree(line);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_trace_exec);

static ssize_t kstats_trace_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	char *buf;
	int ret;

	if (len > KSTATS_TRACE_LINE_MAX) {
		pr_warn("command longer than %d bytes\n", KSTATS_TRACE_LINE_MAX);
		return -E2BIG;
	}
	buf = memdup_user(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = kstats_trace_exec(buf, len);
	kfree(buf);
	return ret ? ret : len;
}

static unsigned long kstats_trace_missed(struct kstats_trace *t)
{
	unsigned long missed = atomic_long_read(&t->missed);

	switch (t->mode) {
	case KSTATS_TRACE_KRETPROBE:
	case KSTATS_TRACE_PCPU:
		return missed + t->krp.nmissed + t->krp.kp.nmissed;
	case KSTATS_TRACE_FPROBE:
		if (IS_ENABLED(CONFIG_KSTATS_TRACE_DIRECT) ||
		    IS_ENABLED(CONFIG_KSTATS_TRACE_FGRAPH))
			return missed;
		return missed + t->fp.nmissed;
	case KSTATS_TRACE_PAIR:
		return missed + t->pair.start.kp.nmissed + t->pair.end.kp.nmissed;
	}
	return missed;
}

static void kstats_trace_show_point(struct seq_file *m, const char *what,
				    const struct kstats_trace_point *p)
{
	seq_printf(m, " %s %s%s", what, p->tracepoint ? KSTATS_TRACE_TP : "",
		   p->sym);
	if (p->offset)
		seq_printf(m, "+%u", p->offset);
}

/* One line per trace: its name, mode, points, bits and counts. */
static int kstats_trace_show(struct seq_file *m, void *v)
{
	struct kstats_trace *t;

	mutex_lock(&kstats_trace_mutex);
	list_for_each_entry(t, &kstats_trace_list, node) {
		seq_printf(m, "name %s mode %s", t->name,
			   kstats_trace_modes[t->mode]);
		kstats_trace_show_point(m, "start", &t->start);
		if (t->mode == KSTATS_TRACE_PAIR)
			kstats_trace_show_point(m, "end", &t->end);
		else
			seq_printf(m, " end %s%%return", t->start.sym);
		seq_printf(m, " bits %u samples %llu missed %lu\n", t->bits,
			   kstats_count(t->ks), kstats_trace_missed(t));
	}
	mutex_unlock(&kstats_trace_mutex);
	return 0;
}

static int kstats_trace_open_control(struct inode *inode, struct file *file)
{
	return single_open(file, kstats_trace_show, NULL);
}

static const struct file_operations kstats_trace_fops = {
	.owner = THIS_MODULE,
	.open = kstats_trace_open_control,
	.read_iter = seq_read_iter,
	.write = kstats_trace_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init kstats_trace_init(void)
{
	/*
	 * No debugfs proxy needed: an open file holds a reference to this
	 * module (.owner), so the file and the data it uses outlive it.
	 */
	kstats_trace_control = debugfs_create_file_unsafe("_control", 0600,
							  kstats_debugfs_dir(),
							  NULL, &kstats_trace_fops);
	return 0;
}

static void __exit kstats_trace_exit(void)
{
	struct kstats_trace *t, *tmp;

	/* No command can start once the file is gone. */
	debugfs_remove(kstats_trace_control);
	mutex_lock(&kstats_trace_mutex);
	list_for_each_entry_safe(t, tmp, &kstats_trace_list, node) {
		list_del(&t->node);
		kstats_trace_detach(t);
		kstats_trace_wait(t);
		kstats_trace_free(t);
	}
	mutex_unlock(&kstats_trace_mutex);
	/*
	 * No task may run the trampoline's last instructions, after its
	 * call of the exit hook, nor the end of kstats_trace_reap(), when
	 * the module's text goes.
	 */
	if (IS_ENABLED(CONFIG_KSTATS_TRACE_DIRECT))
		synchronize_rcu_tasks();
}

module_init(kstats_trace_init);
module_exit(kstats_trace_exit);

MODULE_DESCRIPTION("kstats: time kernel functions and code through _control");
MODULE_LICENSE("GPL");
