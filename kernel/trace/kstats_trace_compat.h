/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats_trace on each kernel it builds for: every difference between
 * those kernels that its code depends on, named here once, with the
 * kernel that brought it. Each is told by what the kernel has, never by
 * its version: the kernel's own macro where one comes with the change;
 * else, out of tree, a test of the kernel's headers in Kbuild, which
 * defines KSTATS_COMPAT_*. In the tree, where Kbuild's tests do not run,
 * the kernel is one of those the series is for, which have them all.
 *
 * KSTATS_FPROBE_FGRAPH (6.14): fprobe runs on the function-graph tracer.
 *	Handlers take a struct ftrace_regs; the entry data of a call lives
 *	on the task's shadow stack, at most MAX_FPROBE_DATA_SIZE bytes (the
 *	macro that came with it); there is no rethook, no pool of calls in
 *	flight (nr_maxactive) and no ftrace_ops of the fprobe's own (ops).
 *	A call in flight when its fprobe goes can return into another
 *	fprobe registered since at the same address (kstats_trace_fp_data).
 * KSTATS_FPROBE_VOID (before 6.4; Debian 12's 6.1): fprobe handlers take
 *	no return address, and the entry handler returns nothing: it
 *	cannot keep the exit handler from running. Kbuild: no
 *	fprobe_entry_cb in fprobe.h (6.5, with the return address; 6.4,
 *	whose entry handler returns int without one, is not built for).
 * KSTATS_TP_PROBESTUB (6.5): a tracepoint has a probe stub of its own
 *	prototype, tp->probestub, that a kprobe can be put on. Kbuild:
 *	tracepoint-defs.h names probestub.
 * KSTATS_MOD_MEM (6.4): a module's memory by type, mod->mem[], with
 *	for_each_mod_mem_type(), its macro. Groups need it.
 * KSTATS_COMPAT_KPROBE_UNARMED (after 6.12; 7.3 has it): register_kprobe()
 *	and register_kretprobe() return 0 for a kprobe on ftrace that could
 *	not be armed (ftrace could not add its address to the filter, for
 *	want of memory, or register kprobes' ftrace_ops), and that kprobes
 *	took out of its table again: its handlers never run, and its
 *	unregistration clears its address as for a probe kprobes kept. The
 *	series fixes kprobes. Out of tree, the kernel cannot be told apart
 *	(kprobes.c is not among the headers): Kbuild defines it for every
 *	kernel, and kstats asks kprobes whether it has each kprobe it
 *	registered (kstats_kprobe_registered()).
 * kzalloc_obj() and kmalloc_obj() (7.0, and 6.12.y): slab.h allocates one
 *	object of a type. Kbuild: where slab.h has none, defines them for
 *	every object, lib/kstats.c's too, as kzalloc() and kmalloc() of
 *	its size.
 */
#ifndef _KERNEL_TRACE_KSTATS_TRACE_COMPAT_H
#define _KERNEL_TRACE_KSTATS_TRACE_COMPAT_H

#include <linux/fprobe.h>
#include <linux/kprobes.h>
#include <linux/module.h>

#ifdef MAX_FPROBE_DATA_SIZE
#define KSTATS_FPROBE_FGRAPH	1
#else
#define KSTATS_FPROBE_FGRAPH	0
#endif

#ifdef KSTATS_COMPAT_FPROBE_VOID
#define KSTATS_FPROBE_VOID	1
#else
#define KSTATS_FPROBE_VOID	0
#endif

#ifdef KSTATS_COMPAT_TP_NO_PROBESTUB
#define KSTATS_TP_PROBESTUB	0
#else
#define KSTATS_TP_PROBESTUB	1
#endif

#ifdef for_each_mod_mem_type
#define KSTATS_MOD_MEM		1
#else
#define KSTATS_MOD_MEM		0
#endif

/*
 * Whether kprobes has @kp, an enabled kprobe that register_kprobe() or
 * register_kretprobe() has just said it registered: enable_kprobe() of a
 * registered probe that is enabled changes nothing and returns 0, and
 * -EINVAL for a probe that kprobes does not have (or one whose module
 * went, which kstats_trace_mutex, held, keeps from happening here).
 */
#ifdef KSTATS_COMPAT_KPROBE_UNARMED
static inline bool kstats_kprobe_registered(struct kprobe *kp)
{
	return !enable_kprobe(kp);
}
#else
static inline bool kstats_kprobe_registered(struct kprobe *kp)
{
	return true;
}
#endif

/* The registers that fprobe handlers are given: struct kstats_fprobe_regs. */
#if KSTATS_FPROBE_FGRAPH
#define kstats_fprobe_regs	ftrace_regs
#else
#define kstats_fprobe_regs	pt_regs
#endif

/*
 * The handlers of an fprobe are written as the kernels with a return
 * address have them; where fprobe has none, KSTATS_FPROBE_COMPAT() makes
 * a handler of its prototype for each, and kstats_fprobe_handler() names
 * it. Such an entry handler cannot stop the exit handler: an entry handler
 * of kstats that returns nonzero has marked its entry data as not to be
 * used (struct kstats_trace_fp_data), which the exit handler tests anyway.
 */
#if KSTATS_FPROBE_VOID
#define KSTATS_FPROBE_COMPAT(entry, exit)				\
static void entry##_compat(struct fprobe *fp, unsigned long ip,	\
			   struct pt_regs *regs, void *data)		\
{									\
	entry(fp, ip, 0, regs, data);					\
}									\
NOKPROBE_SYMBOL(entry##_compat);					\
static void exit##_compat(struct fprobe *fp, unsigned long ip,		\
			  struct pt_regs *regs, void *data)		\
{									\
	exit(fp, ip, 0, regs, data);					\
}									\
NOKPROBE_SYMBOL(exit##_compat)
#define kstats_fprobe_handler(handler)	handler##_compat
#else
/* Where they are fprobe's own: of its prototypes, checked. */
#define KSTATS_FPROBE_COMPAT(entry, exit)				\
static_assert(__same_type(&(entry), fprobe_entry_cb) &&		\
	      __same_type(&(exit), fprobe_exit_cb))
#define kstats_fprobe_handler(handler)	handler
#endif

#endif /* _KERNEL_TRACE_KSTATS_TRACE_COMPAT_H */
