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
 * kretprobe keeping the entry time per CPU (pcpu:), or an fprobe (fprobe:),
 * which hooks the function through ftrace and keeps the entry time in its
 * per-call entry data. A stretch of code is timed between two kprobes or
 * tracepoints; the end closes the start that the same CPU opened. Each mode
 * uses only the probe mechanism's own registration and teardown: once they
 * have returned, no handler runs, and a call still in flight returns
 * without one.
 *
 * A trace of code in a module is detached when that module is unloaded,
 * as kprobes do with their probes: its metrics stay, and _control lists it
 * as gone, until it is removed.
 *
 * See Documentation/dev-tools/kstats.rst.
 */

#define pr_fmt(fmt) "kstats_trace: " fmt

#include <kunit/visibility.h>
#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/kstats.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

#include "kstats_trace.h"

/*
 * Groups (fprobe:GLOB as NAME) read the functions that ftrace's filter
 * matched from ftrace's hash, whose layout is private to kernel/trace/.
 * Built out of tree without the kernel's kernel/trace/trace.h, and on
 * kernels without fprobe, they are refused.
 */
#if IS_ENABLED(CONFIG_FPROBE) && __has_include("trace.h")
#include <linux/rethook.h>
#include "trace.h"
#define KSTATS_TRACE_GROUPS	1
#else
#define KSTATS_TRACE_GROUPS	0
#endif

/* Only with KUnit: out of tree, kernels before 6.3 have no static stubs. */
#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/static_stub.h>
#endif

#define KSTATS_TRACE_GAP	"GAP-"
#define KSTATS_TRACE_TP		"tp:"
#define KSTATS_TRACE_TP_SYM	"__tracepoint_"
#define KSTATS_TRACE_MAX_WORDS	12
/* Refused commands kept in error_log, the oldest replaced first. */
#define KSTATS_TRACE_ERRORS	8
/* The characters of a glob, beside those of symbols. */
#define KSTATS_TRACE_GLOB	"*?["

/* The calls of a group's functions in flight at once, at most. */
#define KSTATS_TRACE_GROUP_ACTIVE	4096

static unsigned int max_functions = 1000;
module_param(max_functions, uint, 0644);
MODULE_PARM_DESC(max_functions,
		 "Most functions a group (trace fprobe:GLOB as NAME) may time (default 1000)");

static unsigned long max_memory_mb = 256;
module_param(max_memory_mb, ulong, 0644);
MODULE_PARM_DESC(max_memory_mb,
		 "Most memory, in MiB, that all traces together may take (default 256)");

/*
 * A probe point of a trace: where the command put it, and what is attached
 * there. The address and the probe are set when the trace is attached.
 */
struct kstats_trace_point {
	const char *sym;		/* symbol, or tracepoint name */
	unsigned int offset;
	bool tracepoint;
	unsigned long addr;		/* the code probed; 0 for a tracepoint */
	char mod[MODULE_NAME_LEN];	/* the module of @addr, or "" */
	/*
	 * The probe of an end of a pair: a kprobe at the code, or for a
	 * tracepoint @tp, at its probe stub (see kstats_trace_tp_ours()).
	 */
	struct kprobe kp;
	struct tracepoint *tp;
};

/*
 * A function of a group: its address as ftrace calls the handlers with
 * it, and its metric. Set up before the fprobe is registered and never
 * changed while it is, but for @gone, which only the listing reads.
 */
struct kstats_trace_func {
	unsigned long ip;
	struct kstats *ks;
	bool gone;			/* its module went */
};

/* A call of a group's function, in the fprobe's entry data. */
struct kstats_trace_call {
	u64 start;
	struct kstats_trace_func *func;
};

/* What a CPU remembers between two probe hits. */
struct kstats_trace_cpu {
	u64 start;		/* time of the open start, 0 if none */
	u64 last_ret;		/* time of the last return, 0 if none */
	/*
	 * The task that opened the start: only its end closes it. Compared,
	 * never dereferenced: a task that went leaves its start open, and
	 * the next start on the CPU replaces it (counted as missed).
	 */
	const struct task_struct *owner;
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
	/* The function (entry/return forms), or the two ends of a pair. */
	struct kstats_trace_point start, end;
	/* Set when the module of a point went: the probes are detached. */
	char gone[MODULE_NAME_LEN];
	/* Filters: only the calls of this process, or of this cgroup's subtree. */
	struct pid *pid;		/* NULL for every process */
	int pid_nr;			/* as the command gave it */
	struct cgroup *cgrp;		/* NULL for every cgroup */
	char *cgroup_path;
	size_t memory;			/* of the metrics, counted in the budget */
	/*
	 * A group: @ks is the group of metrics, one per function of @funcs;
	 * @table maps the address of a call to its function, by open
	 * addressing, in a power of two of slots, at least twice @nr_funcs.
	 */
	struct kstats_trace_func *funcs;
	unsigned int nr_funcs, nr_gone;
	struct kstats_trace_func **table;
	unsigned int table_bits;
	char *gone_mods;		/* modules gone, comma-separated */
	int stuck;			/* the error of a detach that failed */
	union {
		struct kretprobe krp;
		struct fprobe fp;
	};
};

/* What each mode does, indexed by enum kstats_trace_mode. */
struct kstats_trace_mode_ops {
	const char *name;
	const char *prefix;		/* of the function, in commands */
	int (*attach)(struct kstats_trace *t);
	/*
	 * Returns 0 once no handler of @t runs or will run; on an error,
	 * leaves the probe as it was, so that it can be called again.
	 */
	int (*detach)(struct kstats_trace *t);
	/* Hits the mechanism itself lost. */
	unsigned long (*missed)(struct kstats_trace *t);
};

/*
 * kstats_trace_cmd_mutex serializes the commands: the one that holds it
 * owns error_log's command (kstats_trace_cmdline), and checks that the
 * function of a trace or the two of a pair are named by one function
 * each, a walk of ftrace's functions, without kstats_trace_mutex. That
 * one, taken inside it, serializes the commands' changes (a group's walk
 * of its glob, the probes' registration), the module notifier and the
 * readers of _control, and protects kstats_trace_list; probe handlers
 * never take either.
 */
static DEFINE_MUTEX(kstats_trace_cmd_mutex);
static DEFINE_MUTEX(kstats_trace_mutex);
static LIST_HEAD(kstats_trace_list);
static struct dentry *kstats_trace_control, *kstats_trace_error_log;
/* The memory of the metrics of all traces, in bytes. */
static size_t kstats_trace_memory;

/*
 * kstats_trace_err_lock protects error_log's entries and the command being
 * carried out (NULL outside commands, set by the holder of
 * kstats_trace_cmd_mutex): the KUnit suite calls the parser, which reports
 * errors, without either mutex (its errors then go to error_log with the
 * command being carried out, if there is one).
 */
static DEFINE_MUTEX(kstats_trace_err_lock);
static const char *kstats_trace_cmdline;
/*
 * The copy of the command that the parser splits into words, its length,
 * and how many blanks the command line left out at its start: a word at
 * fault in the copy is marked where it is, not where it first appears.
 */
static const char *kstats_trace_cmdcopy;
static size_t kstats_trace_cmdlen, kstats_trace_cmdskip;

/* A refused command, as error_log shows it. */
struct kstats_trace_error {
	u64 ts;			/* local_clock(), 0 if the entry is unused */
	char *cmd;
	char *msg;
	unsigned int pos;	/* of the word at fault in cmd */
};

static struct kstats_trace_error kstats_trace_errors[KSTATS_TRACE_ERRORS];
static unsigned int kstats_trace_next_error;

/*
 * Reports why a command fails, @fmt without a trailing newline: to the
 * kernel log and, with the command and a caret under @word, to error_log.
 * @word is a word of the command being parsed, marked where it is, or
 * another string, marked where it first appears (as tracefs places its
 * caret).
 */
static __printf(2, 3) void kstats_trace_err(const char *word, const char *fmt, ...)
{
	struct kstats_trace_error *e;
	const char *at = NULL;
	va_list args;
	char *msg;

	va_start(args, fmt);
	msg = kvasprintf(GFP_KERNEL, fmt, args);
	va_end(args);
	if (!msg)
		return;
	pr_warn("%s\n", msg);
	guard(mutex)(&kstats_trace_err_lock);
	if (!kstats_trace_cmdline) {
		kfree(msg);
		return;
	}
	e = &kstats_trace_errors[kstats_trace_next_error];
	kfree(e->cmd);
	kfree(e->msg);
	e->cmd = kstrdup(kstats_trace_cmdline, GFP_KERNEL);
	e->msg = msg;
	if (word && *word && e->cmd) {
		if (word >= kstats_trace_cmdcopy + kstats_trace_cmdskip &&
		    word < kstats_trace_cmdcopy + kstats_trace_cmdlen)
			at = e->cmd + (word - kstats_trace_cmdcopy - kstats_trace_cmdskip);
		else
			at = strstr(e->cmd, word);
	}
	e->pos = at && (size_t)(at - e->cmd) < strlen(e->cmd) ? at - e->cmd : 0;
	e->ts = local_clock() ?: 1;
	kstats_trace_next_error = (kstats_trace_next_error + 1) % KSTATS_TRACE_ERRORS;
}

/*
 * Timestamps: the fast NMI-safe monotonic clock, the same on all CPUs, as a
 * kretprobe or fprobe may return on another CPU than it entered on.
 */
static __always_inline u64 kstats_trace_now(void)
{
	return ktime_get_mono_fast_ns();
}

/*
 * Whether the current task's calls are timed: it belongs to the process of
 * pid N, and to the cgroup of cgroup PATH or one below it. No lock, no
 * call, no allocation: the task's own thread group pid, and its css_set,
 * read in the RCU-sched read-side section that every handler runs in
 * (preemption disabled), as BPF programs read it. In an interrupt, the
 * task is the one interrupted.
 */
static __always_inline bool kstats_trace_wanted(const struct kstats_trace *t)
{
	if (t->pid && task_tgid(current) != t->pid)
		return false;
	return !t->cgrp || task_under_cgroup_hierarchy(current, t->cgrp);
}

/*
 * Handlers run with preemption disabled (kprobe, ftrace and tracepoint
 * callbacks all do), but an interrupt may hit another probe of the same
 * trace on this CPU: the per-CPU times are swapped with this_cpu_xchg(),
 * which is atomic with respect to local interrupts.
 */
static __always_inline void kstats_trace_gap(struct kstats_trace *t, u64 now)
{
	u64 last = this_cpu_xchg(t->cpu->last_ret, 0), ns;

	if (last && kstats_trace_elapsed(last, now, &ns))
		kstats_record(t->gap, ns);
}

/* A call's time into @ks, or a missed one if the clock went back. */
static __always_inline void kstats_trace_record_in(struct kstats_trace *t, struct kstats *ks,
						   u64 start, u64 now)
{
	u64 ns;

	if (kstats_trace_elapsed(start, now, &ns))
		kstats_record(ks, ns);
	else
		atomic_long_inc(&t->missed);
}

static __always_inline void kstats_trace_record(struct kstats_trace *t, u64 start, u64 now)
{
	kstats_trace_record_in(t, t->ks, start, now);
}

static __always_inline void kstats_trace_open(struct kstats_trace *t, u64 now)
{
	this_cpu_write(t->cpu->owner, current);
	/* A start that overwrites an open one loses that one. */
	if (this_cpu_xchg(t->cpu->start, now))
		atomic_long_inc(&t->missed);
}

/*
 * The end of the start this CPU has open, if the same task opened it. An
 * end of another task (one that slept, and woke up on this CPU) is missed
 * and leaves the start open for its own task: it would time no call.
 */
static __always_inline void kstats_trace_close(struct kstats_trace *t, u64 now)
{
	u64 start;

	if (this_cpu_read(t->cpu->owner) != current) {
		atomic_long_inc(&t->missed);
		return;
	}
	start = this_cpu_xchg(t->cpu->start, 0);
	if (start)
		kstats_trace_record(t, start, now);
	else
		atomic_long_inc(&t->missed);
}

/* A call: the gap since the last return, if asked, and the entry time kept. */
static __always_inline void kstats_trace_enter(struct kstats_trace *t, u64 now, u64 *entry)
{
	if (t->gap)
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
		kstats_trace_record(t, *entry, now);
	else
		kstats_trace_close(t, now);
	if (t->gap)
		this_cpu_write(t->cpu->last_ret, now);
}

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
				 unsigned long ret_ip, struct pt_regs *regs,
				 void *data)
{
	struct kstats_trace *t = container_of(fp, struct kstats_trace, fp);

	/* Not wanted: no exit handler either. */
	if (!kstats_trace_wanted(t))
		return 1;
	kstats_trace_enter(t, kstats_trace_now(), data);
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

/*
 * The handlers of an fprobe: trace with no filter and no gap, the common
 * case, chosen at attach: no more than a timer on an fprobe must do (the
 * entry time into the call's entry data, and at the return the time since,
 * recorded), not a test of options that cannot change while attached.
 */
static int kstats_trace_fp_entry_plain(struct fprobe *fp, unsigned long ip,
				       unsigned long ret_ip, struct pt_regs *regs,
				       void *data)
{
	*(u64 *)data = kstats_trace_now();
	return 0;
}

NOKPROBE_SYMBOL(kstats_trace_fp_entry_plain);

static void kstats_trace_fp_exit_plain(struct fprobe *fp, unsigned long ip,
				       unsigned long ret_ip, struct pt_regs *regs,
				       void *data)
{
	kstats_trace_record(container_of(fp, struct kstats_trace, fp),
			    *(u64 *)data, kstats_trace_now());
}

NOKPROBE_SYMBOL(kstats_trace_fp_exit_plain);

#if KSTATS_TRACE_GROUPS
/*
 * The function of a group called at @ip, in constant time: @ip's slot
 * of the table, or the first of the slots after it that holds @ip. The
 * table is at most half full, so that the run of slots to go through is
 * short; an empty slot ends it.
 */
static __always_inline struct kstats_trace_func *
kstats_trace_func_find(const struct kstats_trace *t, unsigned long ip)
{
	unsigned int mask = (1U << t->table_bits) - 1;
	unsigned int i = hash_long(ip, t->table_bits);
	struct kstats_trace_func *f;

	for (;; i = (i + 1) & mask) {
		f = t->table[i];
		if (!f || f->ip == ip)
			return f;
	}
}

static int kstats_trace_grp_entry(struct fprobe *fp, unsigned long ip,
				  unsigned long ret_ip, struct pt_regs *regs,
				  void *data)
{
	struct kstats_trace *t = container_of(fp, struct kstats_trace, fp);
	struct kstats_trace_call *call = data;

	if (!kstats_trace_wanted(t))
		return 1;
	call->func = kstats_trace_func_find(t, ip);
	/* Not one of the group's: cannot be, as ftrace calls only those. */
	if (unlikely(!call->func)) {
		atomic_long_inc(&t->missed);
		return 1;
	}
	call->start = kstats_trace_now();
	return 0;
}

NOKPROBE_SYMBOL(kstats_trace_grp_entry);

static void kstats_trace_grp_exit(struct fprobe *fp, unsigned long ip,
				  unsigned long ret_ip, struct pt_regs *regs,
				  void *data)
{
	struct kstats_trace *t = container_of(fp, struct kstats_trace, fp);
	struct kstats_trace_call *call = data;

	kstats_trace_record_in(t, call->func->ks, call->start, kstats_trace_now());
}

NOKPROBE_SYMBOL(kstats_trace_grp_exit);
#endif /* KSTATS_TRACE_GROUPS */

static int kstats_trace_kp_start(struct kprobe *p, struct pt_regs *regs)
{
	struct kstats_trace *t = container_of(p, struct kstats_trace, start.kp);

	if (kstats_trace_wanted(t))
		kstats_trace_open(t, kstats_trace_now());
	return 0;
}

NOKPROBE_SYMBOL(kstats_trace_kp_start);

static int kstats_trace_kp_end(struct kprobe *p, struct pt_regs *regs)
{
	struct kstats_trace *t = container_of(p, struct kstats_trace, end.kp);

	if (kstats_trace_wanted(t))
		kstats_trace_close(t, kstats_trace_now());
	return 0;
}

NOKPROBE_SYMBOL(kstats_trace_kp_end);

/*
 * A tracepoint end is the tracepoint's probe stub, __probestub_NAME(), an
 * empty function of the tracepoint's own prototype, registered as a probe
 * with the end's kstats_trace_point as its data, and a kprobe on that stub,
 * as trace_fprobe.c attaches to tracepoints: the tracepoint calls a probe
 * of its type (which kCFI checks), whatever its arguments. Every user of
 * the stub goes through the one function (each end of kstats with its own
 * data, a tracepoint probe event with none), so a kprobe acts only on calls
 * whose first argument is its point.
 */
static __always_inline bool kstats_trace_tp_ours(const struct kstats_trace_point *p,
						 struct pt_regs *regs)
{
	return regs_get_kernel_argument(regs, 0) == (unsigned long)p;
}

static int kstats_trace_tp_start(struct kprobe *kp, struct pt_regs *regs)
{
	struct kstats_trace *t = container_of(kp, struct kstats_trace, start.kp);

	if (kstats_trace_tp_ours(&t->start, regs) && kstats_trace_wanted(t))
		kstats_trace_open(t, kstats_trace_now());
	return 0;
}

NOKPROBE_SYMBOL(kstats_trace_tp_start);

static int kstats_trace_tp_end(struct kprobe *kp, struct pt_regs *regs)
{
	struct kstats_trace *t = container_of(kp, struct kstats_trace, end.kp);

	if (kstats_trace_tp_ours(&t->end, regs) && kstats_trace_wanted(t))
		kstats_trace_close(t, kstats_trace_now());
	return 0;
}

NOKPROBE_SYMBOL(kstats_trace_tp_end);

/*
 * Why kprobes refused a place, for the message: -EINVAL is a place they
 * may not probe: __init code freed after boot, data, a function marked
 * NOKPROBE_SYMBOL() or noinstr, or text reserved for jump labels, static
 * calls or BUG().
 */
static const char *kstats_trace_why(int ret)
{
	if (ret != -EINVAL)
		return "";
	return " (not probeable: freed __init, data, NOKPROBE/noinstr or reserved text)";
}

/*
 * The symbol at @ip in @buf (KSYM_SYMBOL_LEN bytes), and the name of its
 * module, in @buf too, or NULL for vmlinux: sprint_symbol() writes
 * "SYM [MODULE]" for a module's.
 */
static const char *kstats_trace_sym_mod(char *buf, unsigned long ip)
{
	char *mod;

	sprint_symbol_no_offset(buf, ip);
	mod = strchr(buf, ' ');
	if (!mod)
		return NULL;
	*mod = '\0';
	mod += 2;
	mod[strcspn(mod, "]")] = '\0';
	return mod;
}

/*
 * The address of a point, found the way a kprobe finds it, and only if
 * kprobes would probe it (a function on kprobes' blacklist is refused even
 * where fprobe would take it): the probe is registered disabled, so that
 * no code is patched, and removed at once. For sym+0 it is the function's
 * start or, past an endbr64, its fentry call: ftrace takes either.
 */
static int kstats_trace_addr(struct kstats_trace *t, struct kstats_trace_point *p)
{
	struct kprobe kp = {
		.symbol_name = p->sym,
		.offset = p->offset,
		.flags = KPROBE_FLAG_DISABLED,
	};
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		kstats_trace_err(p->sym, "%s: cannot probe %s: %d%s", t->name, p->sym, ret,
				 kstats_trace_why(ret));
		return ret;
	}
	p->addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

/* trace FUNC and trace pcpu:FUNC: a kretprobe. */
static int kstats_trace_krp_attach(struct kstats_trace *t)
{
	int ret;

	t->krp.kp.symbol_name = t->start.sym;
	t->krp.entry_handler = kstats_trace_krp_entry;
	t->krp.handler = kstats_trace_krp_return;
	/* pcpu: keeps the entry time per CPU, not per instance. */
	t->krp.data_size = t->mode == KSTATS_TRACE_PCPU ? 0 : sizeof(u64);
	ret = register_kretprobe(&t->krp);
	if (ret) {
		kstats_trace_err(t->start.sym, "%s: cannot put a kretprobe on %s: %d%s",
				 t->name, t->start.sym, ret, kstats_trace_why(ret));
		return ret;
	}
	t->start.addr = (unsigned long)t->krp.kp.addr;
	return 0;
}

static int kstats_trace_krp_detach(struct kstats_trace *t)
{
	unregister_kretprobe(&t->krp);
	return 0;
}

static unsigned long kstats_trace_krp_missed(struct kstats_trace *t)
{
	return t->krp.nmissed + t->krp.kp.nmissed;
}

/*
 * trace fprobe:FUNC: an fprobe at the function's address, so that the
 * trace knows the address when a module goes. The entry time is its entry
 * data; a call in flight when it is unregistered returns without calling
 * the exit handler.
 */
static int kstats_trace_fp_attach(struct kstats_trace *t)
{
	int ret;

	if (!IS_ENABLED(CONFIG_FPROBE)) {
		kstats_trace_err(NULL, "%s: fprobe: needs CONFIG_FPROBE", t->name);
		return -EOPNOTSUPP;
	}
	ret = kstats_trace_addr(t, &t->start);
	if (ret)
		return ret;
	/* Filters and the gap are set before attach, and never change. */
	if (t->pid || t->cgrp || t->gap) {
		t->fp.entry_handler = kstats_trace_fp_entry;
		t->fp.exit_handler = kstats_trace_fp_exit;
	} else {
		t->fp.entry_handler = kstats_trace_fp_entry_plain;
		t->fp.exit_handler = kstats_trace_fp_exit_plain;
	}
	t->fp.entry_data_size = sizeof(u64);
	ret = register_fprobe_ips(&t->fp, &t->start.addr, 1);
	if (ret)
		kstats_trace_err(t->start.sym, "%s: cannot put an fprobe on %s: %d",
				 t->name, t->start.sym, ret);
	return ret;
}

/* Fails only once ftrace has shut itself down: the fprobe stays listed. */
static int kstats_trace_fp_detach(struct kstats_trace *t)
{
	return unregister_fprobe(&t->fp);
}

static unsigned long kstats_trace_fp_missed(struct kstats_trace *t)
{
	return t->fp.nmissed;
}

/*
 * What a detach that returned @ret leaves: nothing to do, or a trace that
 * is not to be freed, as a handler may still run. It is kept, listed as
 * stuck with the error, and this module is pinned, for the handlers' code,
 * until a later detach succeeds. Returns whether @t is detached.
 */
static bool kstats_trace_detached(struct kstats_trace *t, int ret)
{
	if (ret) {
		if (!t->stuck)
			__module_get(THIS_MODULE);
		t->stuck = ret;
		return false;
	}
	if (t->stuck)
		module_put(THIS_MODULE);
	t->stuck = 0;
	return true;
}

/* The memory of @n metrics of @bits, on every possible CPU. */
static size_t kstats_trace_metric_memory(unsigned int n, unsigned int bits)
{
	return (size_t)n * kstats_nr_slots(bits) * sizeof(struct kstats_slot) *
	       num_possible_cpus();
}

/*
 * Counts @size more bytes for @t in the budget of all traces, or refuses
 * them, before anything of that size is allocated.
 */
static int kstats_trace_budget(struct kstats_trace *t, size_t size, const char *what)
{
	unsigned long mb = READ_ONCE(max_memory_mb);
	u64 max = (u64)mb << 20;

	lockdep_assert_held(&kstats_trace_mutex);
	if (size > max || kstats_trace_memory > max - size) {
		kstats_trace_err(NULL, "%s: %s would take %zu KiB on %u CPUs; the traces take %zu of the %lu MiB of max_memory_mb",
				 t->name, what, size >> 10, num_possible_cpus(),
				 kstats_trace_memory >> 20, mb);
		return -ENOMEM;
	}
	kstats_trace_memory += size;
	t->memory += size;
	return 0;
}

#if KSTATS_TRACE_GROUPS
static int kstats_trace_cmp_ip(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Module text that is about to be freed: a module going, or the init code
 * of a module that is live. ftrace drops such functions from the filters
 * of its own tracers only, later than the module notifier runs: a group
 * added meanwhile would keep their addresses, and trace what is loaded
 * there later. The module notifier lists the ranges, under
 * kstats_trace_mutex, and forgets them when a module comes to the same
 * addresses, which it can only once they are freed.
 */
struct kstats_trace_freed {
	struct list_head node;
	unsigned long start, size;
};

static LIST_HEAD(kstats_trace_freed_list);
/* A range could not be listed: no group takes a module's function. */
static bool kstats_trace_freed_lost;

static void kstats_trace_freed_add(const struct module *mod, enum mod_mem_type type)
{
	struct kstats_trace_freed *f;

	if (!mod->mem[type].size)
		return;
	f = kmalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		/* From now on, no group takes any function of a module. */
		pr_warn("%s: out of memory: groups leave out the functions of modules\n",
			mod->name);
		kstats_trace_freed_lost = true;
		return;
	}
	f->start = (unsigned long)mod->mem[type].base;
	f->size = mod->mem[type].size;
	list_add(&f->node, &kstats_trace_freed_list);
}

static void kstats_trace_freed_forget(const struct module *mod)
{
	struct kstats_trace_freed *f, *tmp;

	list_for_each_entry_safe(f, tmp, &kstats_trace_freed_list, node) {
		for_each_mod_mem_type(type) {
			unsigned long base = (unsigned long)mod->mem[type].base;

			if (mod->mem[type].size && f->start < base + mod->mem[type].size &&
			    base < f->start + f->size) {
				list_del(&f->node);
				kfree(f);
				break;
			}
		}
	}
}

/* kstats_trace going: the list goes too. */
static void kstats_trace_freed_clear(void)
{
	struct kstats_trace_freed *f, *tmp;

	list_for_each_entry_safe(f, tmp, &kstats_trace_freed_list, node) {
		list_del(&f->node);
		kfree(f);
	}
}

/* The text a module's new state will free, or that its coming reuses. */
static void kstats_trace_freed_note(const struct module *mod, unsigned long state)
{
	lockdep_assert_held(&kstats_trace_mutex);
	if (state == MODULE_STATE_COMING) {
		kstats_trace_freed_forget(mod);
		return;
	}
	if (state == MODULE_STATE_GOING)
		kstats_trace_freed_add(mod, MOD_TEXT);
	kstats_trace_freed_add(mod, MOD_INIT_TEXT);
}

/* @ip, of the function @sym ("SYM [MODULE]" in a module), is freed soon. */
static bool kstats_trace_grp_freed(unsigned long ip, const char *sym)
{
	struct kstats_trace_freed *f;

	lockdep_assert_held(&kstats_trace_mutex);
	list_for_each_entry(f, &kstats_trace_freed_list, node)
		if (ip - f->start < f->size)
			return true;
	/* Not listed for lack of memory: no function of a module, then. */
	return kstats_trace_freed_lost && strchr(sym, '[');
}

/*
 * ftrace's filter of @filter (a glob, as set_ftrace_filter takes it) on an
 * ftrace_ops of its own, never registered, so that nobody else sees it: in
 * *@hash the functions that ftrace can trace and @filter matches, or NULL,
 * and in *@ret the error of ftrace_set_filter() (-EINVAL when nothing
 * matched). Returns the ops, NULL without memory; the hash is read until
 * kstats_trace_filter_put() drops both.
 */
static struct ftrace_ops *kstats_trace_filter_get(const char *filter, struct ftrace_hash **hash,
						  int *ret)
{
	struct ftrace_ops *ops;
	char *buf;

	ops = kzalloc(sizeof(*ops), GFP_KERNEL);
	/* A copy: ftrace's parser of the filter writes into it. */
	buf = kstrdup(filter, GFP_KERNEL);
	if (!ops || !buf) {
		kfree(ops);
		kfree(buf);
		return NULL;
	}
	*ret = ftrace_set_filter(ops, buf, strlen(buf), 1);
	kfree(buf);
	mutex_lock(&ops->func_hash->regex_lock);
	*hash = *ret ? NULL :
		rcu_dereference_protected(ops->func_hash->filter_hash,
					  lockdep_is_held(&ops->func_hash->regex_lock));
	return ops;
}

static void kstats_trace_filter_put(struct ftrace_ops *ops)
{
	mutex_unlock(&ops->func_hash->regex_lock);
	ftrace_free_filter(ops);
	kfree(ops);
}

/*
 * The addresses of the functions that ftrace's filter matches with the
 * group's glob, as ftrace calls the handlers with them: from the hash of
 * a filter made for that and dropped after, so that only the functions
 * ftrace can trace are in it, in address order. Those of kstats are left
 * out, and those whose code is about to be freed.
 */
static int kstats_trace_grp_match(struct kstats_trace *t, unsigned long **addrs,
				  unsigned int *nr)
{
	unsigned int n = 0, max = READ_ONCE(max_functions);
	char name[KSYM_SYMBOL_LEN];
	struct ftrace_func_entry *e;
	struct ftrace_hash *hash;
	struct ftrace_ops *ops;
	unsigned long *ips = NULL, i;
	int ret;

	ops = kstats_trace_filter_get(t->start.sym, &hash, &ret);
	if (!ops)
		return -ENOMEM;
	if (ret == -EINVAL || (!ret && (!hash || !hash->count))) {
		kstats_trace_err(t->start.sym, "%s: no function that ftrace can trace matches %s",
				 t->name, t->start.sym);
		ret = -ENOENT;
		goto out;
	}
	if (ret) {
		kstats_trace_err(t->start.sym, "%s: ftrace refused the glob %s: %d",
				 t->name, t->start.sym, ret);
		goto out;
	}
	if (hash->count > max) {
		kstats_trace_err(t->start.sym, "%s: %s matches %lu functions, more than max_functions (%u): narrow the glob, or raise /sys/module/kstats_trace/parameters/max_functions",
				 t->name, t->start.sym, hash->count, max);
		ret = -E2BIG;
		goto out;
	}
	ips = kvcalloc(hash->count, sizeof(*ips), GFP_KERNEL);
	if (!ips) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < BIT(hash->size_bits); i++) {
		hlist_for_each_entry(e, &hash->buckets[i], hlist) {
			sprint_symbol_no_offset(name, e->ip);
			if (!str_has_prefix(name, "kstats_") &&
			    !kstats_trace_grp_freed(e->ip, name))
				ips[n++] = e->ip;
		}
	}
	if (!n) {
		kstats_trace_err(t->start.sym, "%s: %s matches only functions of kstats, which cannot trace itself, or of modules going",
				 t->name, t->start.sym);
		ret = -EPERM;
		goto out;
	}
	sort(ips, n, sizeof(*ips), kstats_trace_cmp_ip, NULL);
	*addrs = ips;
	*nr = n;
	ips = NULL;
out:
	kstats_trace_filter_put(ops);
	kvfree(ips);
	return ret;
}

/*
 * The start of the function at @ip, from the offset that sprint_symbol()
 * writes ("SYM+0x4/0x20 [MODULE]"); 0 if no symbol holds @ip.
 */
static unsigned long kstats_trace_func_start(char *buf, unsigned long ip)
{
	unsigned long off, size;
	char *plus;

	sprint_symbol(buf, ip);
	plus = strrchr(buf, '+');
	if (!plus || sscanf(plus, "+%lx/%lx", &off, &size) != 2)
		return 0;
	return ip - off;
}

/*
 * A function named by one symbol only, as trace_kprobe refuses a name that
 * several symbols share, which kallsyms would resolve to the first,
 * silently. kallsyms cannot be searched from a module: these are counted
 * among the functions ftrace lists (where kprobes and fprobes go at a
 * function's start), those named @p->sym, or for MODULE:SYM in that module
 * only. When ftrace lists one, the function kprobes resolve the name to
 * must be that one: not a notrace function of the same name. The walk of
 * ftrace's functions is long (as a write of set_ftrace_filter): it runs
 * before kstats_trace_mutex, which readers of _control and the module
 * notifier take. Like trace_kprobe's check, its answer is not checked
 * again: a module that comes with the name between it and the probe's
 * registration is not seen.
 */
static int kstats_trace_unique(const char *name, const struct kstats_trace_where *p)
{
	const char *colon = strchr(p->sym, ':');
	const char *func = colon ? colon + 1 : p->sym, *mod;
	size_t mlen = colon ? colon - p->sym : 0;
	struct kprobe kp = { .symbol_name = p->sym, .flags = KPROBE_FLAG_DISABLED };
	unsigned long n = 0, nmod = 0, i, listed = 0;
	bool unlisted = false;
	struct ftrace_func_entry *e;
	struct ftrace_hash *hash;
	struct ftrace_ops *ops;
	char *buf;
	int ret;

	if (p->tracepoint)
		return 0;
	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	ops = buf ? kstats_trace_filter_get(func, &hash, &ret) : NULL;
	if (!ops) {
		kfree(buf);
		return -ENOMEM;
	}
	for (i = 0; hash && i < BIT(hash->size_bits); i++) {
		hlist_for_each_entry(e, &hash->buckets[i], hlist) {
			mod = kstats_trace_sym_mod(buf, e->ip);
			if (colon && (!mod || strlen(mod) != mlen || strncmp(mod, p->sym, mlen)))
				continue;
			nmod += !!mod;
			listed = e->ip;
			n++;
		}
	}
	kstats_trace_filter_put(ops);
	/* -EINVAL: nothing matched; a kprobe may still go there. */
	if (ret && ret != -EINVAL) {
		kstats_trace_err(p->sym, "%s: ftrace cannot look %s up: %d", name, p->sym, ret);
		goto out;
	}
	ret = 0;
	if (n == 1 && !register_kprobe(&kp)) {
		/* Resolved as the probe will be, but not armed. */
		unlisted = kstats_trace_func_start(buf, (unsigned long)kp.addr) !=
			   kstats_trace_func_start(buf, listed);
		unregister_kprobe(&kp);
	}
	if (n <= 1 && !unlisted)
		goto out;
	ret = -EADDRNOTAVAIL;
	if (unlisted)
		kstats_trace_err(p->sym, "%s: %s names a function that ftrace lists and another, which kprobes take: trace fprobe:%s times the one ftrace lists",
				 name, p->sym, p->sym);
	else if (colon || !nmod)
		kstats_trace_err(p->sym, "%s: %lu functions are named %s: trace fprobe:%s as NAME times each in its own file",
				 name, n, p->sym, func);
	else
		kstats_trace_err(p->sym, "%s: %lu functions are named %s: MODULE:%s names the one of a module, and trace fprobe:%s as NAME times each in its own file",
				 name, n, func, func, func);
out:
	kfree(buf);
	return ret;
}

/* A function's file name, and where it is among the group's functions. */
struct kstats_trace_grp_name {
	char *name;
	unsigned int idx;
};

static int kstats_trace_cmp_name(const void *a, const void *b)
{
	const struct kstats_trace_grp_name *x = a, *y = b;

	return strcmp(x->name, y->name) ?: (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * The files of the functions at @ips (in address order): SYM, or
 * MODULE:SYM for a function in a module (the form of kprobe events); a
 * name that several functions share gets @2, @3... in address order after
 * the first. A name longer than a file name may be is cut, keeping room
 * for the suffix that tells it apart.
 */
static int kstats_trace_grp_names(struct kstats_trace *t, const unsigned long *ips,
				  unsigned int n, struct kstats_trace_grp_name **names)
{
	struct kstats_trace_grp_name *nm;
	const char *mod;
	unsigned int i, dup = 1;
	char *sym;
	int ret = 0;

	sym = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	nm = kvcalloc(n, sizeof(*nm), GFP_KERNEL);
	if (!sym || !nm) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		mod = kstats_trace_sym_mod(sym, ips[i]);
		nm[i].idx = i;
		/* Room for "@N", N up to max_functions, in NAME_MAX. */
		nm[i].name = kasprintf(GFP_KERNEL, "%s%s%.*s", mod ?: "", mod ? ":" : "",
				       (int)(NAME_MAX - 12 - (mod ? strlen(mod) + 1 : 0)),
				       sym);
		if (!nm[i].name) {
			ret = -ENOMEM;
			goto out;
		}
		cond_resched();
	}
	sort(nm, n, sizeof(*nm), kstats_trace_cmp_name, NULL);
	for (i = 1; i < n; i++) {
		char *name;

		if (strcmp(nm[i].name, nm[i - 1].name)) {
			dup = 1;
			continue;
		}
		/* The first of a run keeps its name, the next are numbered. */
		name = kasprintf(GFP_KERNEL, "%s@%u", nm[i - dup].name, dup + 1);
		if (!name) {
			ret = -ENOMEM;
			goto out;
		}
		dup++;
		kfree(nm[i].name);
		nm[i].name = name;
	}
out:
	kfree(sym);
	if (ret) {
		if (nm)
			for (i = 0; i < n; i++)
				kfree(nm[i].name);
		kvfree(nm);
		kstats_trace_err(NULL, "%s: out of memory for the names of %u functions",
				 t->name, n);
		return ret;
	}
	*names = nm;
	return 0;
}

/*
 * The memory of the fprobe's pool of calls in flight, which rethook keeps
 * in an objpool: per possible CPU, a page-aligned slot of a pointer per
 * entry (a power of two) and its share of the entries.
 */
static size_t kstats_trace_pool_memory(unsigned int nr, size_t entry)
{
	unsigned int cpus = num_possible_cpus();

	return cpus * PAGE_ALIGN(64 + roundup_pow_of_two(nr) * sizeof(void *) +
				 DIV_ROUND_UP(nr, cpus) * ALIGN(entry, sizeof(long)));
}

/*
 * trace fprobe:GLOB as NAME: one fprobe on every function that GLOB
 * matches, registered by address, and a metric per function in the
 * group NAME. The handlers find a call's function in a table made here
 * and left as it is while the fprobe is registered.
 */
static int kstats_trace_grp_attach(struct kstats_trace *t)
{
	unsigned int i, j, n, cpus = num_possible_cpus();
	struct kstats_trace_grp_name *names = NULL;
	unsigned long *ips;
	size_t entry;
	int ret;

	ret = kstats_trace_grp_match(t, &ips, &n);
	if (ret)
		return ret;
	/*
	 * The calls in flight at once, each with an entry of the fprobe's
	 * pool: fprobe's default, 2 per function per CPU, is far more than
	 * most machines run at once, and its objpool costs a pointer per
	 * entry per CPU. Calls past this are missed.
	 */
	t->fp.nr_maxactive = min_t(size_t, (size_t)2 * n * cpus, KSTATS_TRACE_GROUP_ACTIVE);
	/* rethook's node, the entry's ip and parent ip, and the call. */
	entry = sizeof(struct rethook_node) + 2 * sizeof(long) + sizeof(struct kstats_trace_call);
	ret = kstats_trace_budget(t, kstats_trace_metric_memory(n, t->bits) +
				  kstats_trace_pool_memory(t->fp.nr_maxactive, entry),
				  "the group");
	if (ret)
		goto out;
	ret = kstats_trace_grp_names(t, ips, n, &names);
	if (ret)
		goto out;
	t->nr_funcs = n;
	t->table_bits = ilog2(roundup_pow_of_two(2 * n));
	t->funcs = kvcalloc(n, sizeof(*t->funcs), GFP_KERNEL);
	t->table = kvcalloc(BIT(t->table_bits), sizeof(*t->table), GFP_KERNEL);
	if (!t->funcs || !t->table) {
		kstats_trace_err(NULL, "%s: out of memory for %u functions", t->name, n);
		ret = -ENOMEM;
		goto out;
	}
	t->ks = kstats_new_group(t->name);
	if (IS_ERR(t->ks)) {
		ret = PTR_ERR(t->ks);
		kstats_trace_err(t->name, "%s: cannot create the group: %d", t->name, ret);
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct kstats_trace_func *f = &t->funcs[names[i].idx];

		f->ip = ips[names[i].idx];
		f->ks = kstats_new_in(t->ks, names[i].name, t->bits);
		if (IS_ERR(f->ks)) {
			ret = PTR_ERR(f->ks);
			kstats_trace_err(t->name, "%s: cannot create the metric %s: %d",
					 t->name, names[i].name, ret);
			goto out;
		}
		for (j = hash_long(f->ip, t->table_bits); t->table[j];
		     j = (j + 1) & (BIT(t->table_bits) - 1))
			;
		t->table[j] = f;
		cond_resched();
	}
	/*
	 * No RCU flag needed for the cgroup filter: fprobe calls the entry
	 * handler only once rethook has a node, which it gives only where
	 * RCU is watching.
	 */
	t->fp.entry_handler = kstats_trace_grp_entry;
	t->fp.exit_handler = kstats_trace_grp_exit;
	t->fp.entry_data_size = sizeof(struct kstats_trace_call);
	ret = register_fprobe_ips(&t->fp, ips, n);
	if (ret)
		kstats_trace_err(t->start.sym, "%s: cannot put an fprobe on the %u functions of %s: %d",
				 t->name, n, t->start.sym, ret);
out:
	if (names)
		for (i = 0; i < n; i++)
			kfree(names[i].name);
	kvfree(names);
	kvfree(ips);
	return ret;
}

/*
 * A module going: the group's functions in it leave ftrace's filter, so
 * that code loaded there later is not traced; the rest go on. When none
 * would be left, the fprobe goes, as an empty filter traces everything.
 * Returns false if the group could not be detached.
 */
static bool kstats_trace_grp_going(struct kstats_trace *t, struct module *mod,
				   bool (*within)(unsigned long addr, const struct module *mod))
{
	unsigned int i, n = 0;
	unsigned long *ips;
	char *gone;
	int ret = 0;

	for (i = 0; i < t->nr_funcs; i++)
		n += !t->funcs[i].gone && within(t->funcs[i].ip, mod);
	if (!n)
		return true;
	ips = kcalloc(n, sizeof(*ips), GFP_KERNEL);
	if (ips && n < t->nr_funcs - t->nr_gone) {
		for (i = 0, n = 0; i < t->nr_funcs; i++)
			if (!t->funcs[i].gone && within(t->funcs[i].ip, mod))
				ips[n++] = t->funcs[i].ip;
		ret = ftrace_set_filter_ips(&t->fp.ops, ips, n, 1, 0);
	}
	kfree(ips);
	/* None left, or no way to take these out: the whole group goes. */
	if (!ips || ret || n == t->nr_funcs - t->nr_gone) {
		if (!kstats_trace_detached(t, unregister_fprobe(&t->fp)))
			return false;
		strscpy(t->gone, mod->name, sizeof(t->gone));
	}
	for (i = 0; i < t->nr_funcs; i++) {
		if (!t->funcs[i].gone && (t->gone[0] || within(t->funcs[i].ip, mod))) {
			t->funcs[i].gone = true;
			t->nr_gone++;
		}
	}
	/* The init code of a module that stays: MODULE(init). */
	gone = kasprintf(GFP_KERNEL, "%s%s%s%s", t->gone_mods ?: "",
			 t->gone_mods ? "," : "", mod->name,
			 within == within_module_init ? "(init)" : "");
	if (gone) {
		kfree(t->gone_mods);
		t->gone_mods = gone;
	}
	return true;
}

static int kstats_trace_grp_detach(struct kstats_trace *t)
{
	return unregister_fprobe(&t->fp);
}
#else
static void kstats_trace_freed_note(const struct module *mod, unsigned long state)
{
}

static void kstats_trace_freed_clear(void)
{
}

static int kstats_trace_grp_attach(struct kstats_trace *t)
{
	kstats_trace_err(t->start.sym, IS_ENABLED(CONFIG_FPROBE) ?
			 "%s: groups need the kernel's kernel/trace/trace.h at build time" :
			 "%s: groups need fprobe, which this kernel does not have (CONFIG_FPROBE)",
			 t->name);
	return -EOPNOTSUPP;
}

static bool kstats_trace_grp_going(struct kstats_trace *t, struct module *mod,
				   bool (*within)(unsigned long addr, const struct module *mod))
{
	return true;
}

static int kstats_trace_grp_detach(struct kstats_trace *t)
{
	return 0;
}

/* Without ftrace's hash, names that several functions share are not seen. */
static int kstats_trace_unique(const char *name, const struct kstats_trace_where *p)
{
	return 0;
}
#endif /* KSTATS_TRACE_GROUPS */

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

/*
 * Where the kprobe of a tracepoint end goes in the tracepoint's probe stub:
 * past the stub's call to __fentry__ where it has one (found as kprobes
 * find the function's entry, with a probe registered disabled, which
 * patches no code), so that it is not a kprobe on ftrace but an int3 or a
 * jump-optimized kprobe, neither of whose removal allocates. kprobes cannot
 * disarm a kprobe on ftrace when ftrace cannot allocate its new filter, and
 * WARN: undoing a half-made pair when memory runs out did. The stub is
 * empty: its first argument, the probe's data, is still in its register.
 */
static int kstats_trace_stub_addr(struct kstats_trace *t, struct kstats_trace_point *p,
				  struct tracepoint *tp)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)tp->probestub,
		.flags = KPROBE_FLAG_DISABLED,
	};
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		kstats_trace_err(p->sym, "%s: cannot locate the probe stub of tracepoint %s: %d%s",
				 t->name, p->sym, ret, kstats_trace_why(ret));
		return ret;
	}
	p->kp.addr = kp.addr;
#ifdef CONFIG_KPROBES_ON_FTRACE
	if (kprobe_ftrace(&kp))
		p->kp.addr = (kprobe_opcode_t *)((unsigned long)kp.addr + MCOUNT_INSN_SIZE);
#endif
	unregister_kprobe(&kp);
	return 0;
}

/* One end of a pair: a kprobe, or a tracepoint of the kernel proper. */
static int kstats_trace_point_attach(struct kstats_trace *t,
				     struct kstats_trace_point *p, bool start)
{
	int ret;

	if (p->tracepoint) {
		struct kstats_trace_tp_lookup lookup = { .name = p->sym };

		for_each_kernel_tracepoint(kstats_trace_tp_match, &lookup);
		if (!lookup.tp) {
			kstats_trace_err(p->sym, "%s: no tracepoint %s in the kernel",
					 t->name, p->sym);
			return -ENOENT;
		}
		/* The kprobe first: the stub is not called with @p before. */
		ret = kstats_trace_stub_addr(t, p, lookup.tp);
		if (ret)
			return ret;
		p->kp.pre_handler = start ? kstats_trace_tp_start : kstats_trace_tp_end;
		ret = register_kprobe(&p->kp);
		if (ret) {
			kstats_trace_err(p->sym, "%s: cannot put a kprobe on the probe stub of tracepoint %s: %d%s",
					 t->name, p->sym, ret, kstats_trace_why(ret));
			return ret;
		}
		ret = tracepoint_probe_register(lookup.tp, lookup.tp->probestub, p);
		if (ret) {
			unregister_kprobe(&p->kp);
			kstats_trace_err(p->sym, "%s: cannot attach to tracepoint %s: %d",
					 t->name, p->sym, ret);
			return ret;
		}
		p->tp = lookup.tp;
		return 0;
	}

	p->kp.symbol_name = p->sym;
	p->kp.offset = p->offset;
	p->kp.pre_handler = start ? kstats_trace_kp_start : kstats_trace_kp_end;
	ret = register_kprobe(&p->kp);
	if (ret) {
		kstats_trace_err(p->sym, "%s: cannot put a kprobe at %s+%u: %d%s",
				 t->name, p->sym, p->offset, ret, kstats_trace_why(ret));
		return ret;
	}
	p->addr = (unsigned long)p->kp.addr;
	return 0;
}

/* The tracepoint of @p, if it is one, calls the stub with @p no more. */
static void kstats_trace_tp_detach(struct kstats_trace_point *p)
{
	if (p->tracepoint)
		tracepoint_probe_unregister(p->tp, p->tp->probestub, p);
}

/* trace NAME start POINT end POINT */
static int kstats_trace_pair_attach(struct kstats_trace *t)
{
	int ret;

	ret = kstats_trace_point_attach(t, &t->start, true);
	if (ret)
		return ret;
	ret = kstats_trace_point_attach(t, &t->end, false);
	if (ret) {
		kstats_trace_tp_detach(&t->start);
		unregister_kprobe(&t->start.kp);
		tracepoint_synchronize_unregister();
	}
	return ret;
}

/*
 * Once unregister_kprobes() has returned (one grace period for both), no
 * handler of the trace runs: a call of a tracepoint's stub still in flight
 * with an end finds no kprobe there.
 */
static int kstats_trace_pair_detach(struct kstats_trace *t)
{
	struct kprobe *kps[] = { &t->start.kp, &t->end.kp };

	kstats_trace_tp_detach(&t->start);
	kstats_trace_tp_detach(&t->end);
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	tracepoint_synchronize_unregister();
	return 0;
}

static unsigned long kstats_trace_pair_missed(struct kstats_trace *t)
{
	return t->start.kp.nmissed + t->end.kp.nmissed;
}

static const struct kstats_trace_mode_ops kstats_trace_mode_ops[] = {
	[KSTATS_TRACE_KRETPROBE] = {
		.name = "kretprobe",
		.attach = kstats_trace_krp_attach,
		.detach = kstats_trace_krp_detach,
		.missed = kstats_trace_krp_missed,
	},
	[KSTATS_TRACE_PCPU] = {
		.name = "pcpu",
		.prefix = "pcpu:",
		.attach = kstats_trace_krp_attach,
		.detach = kstats_trace_krp_detach,
		.missed = kstats_trace_krp_missed,
	},
	[KSTATS_TRACE_FPROBE] = {
		.name = "fprobe",
		.prefix = "fprobe:",
		.attach = kstats_trace_fp_attach,
		.detach = kstats_trace_fp_detach,
		.missed = kstats_trace_fp_missed,
	},
	[KSTATS_TRACE_PAIR] = {
		.name = "pair",
		.attach = kstats_trace_pair_attach,
		.detach = kstats_trace_pair_detach,
		.missed = kstats_trace_pair_missed,
	},
	[KSTATS_TRACE_GROUP] = {
		.name = "group",
		.attach = kstats_trace_grp_attach,
		.detach = kstats_trace_grp_detach,
		.missed = kstats_trace_fp_missed,
	},
};

/* Symbols: what kallsyms may hold (letters, digits, '_', '.', '$'). */
static bool kstats_trace_valid_sym(const char *sym)
{
	const char *c;

	/* Not a number either: ftrace's filter takes one as an index. */
	if (!*sym || strlen(sym) >= KSYM_NAME_LEN || isdigit(*sym))
		return false;
	for (c = sym; *c; c++)
		if (!isalnum(*c) && *c != '_' && *c != '.' && *c != '$')
			return false;
	return true;
}

/* A module's name, as MODULE:SYM gives it: @len characters of @mod. */
static bool kstats_trace_valid_mod(const char *mod, size_t len)
{
	size_t i;

	if (!len || len >= MODULE_NAME_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(mod[i]) && mod[i] != '_')
			return false;
	return true;
}

/*
 * SYM, or MODULE:SYM for a function of a module (the form of kprobe
 * events). kstats must not time itself: its record path would recurse.
 */
static int kstats_trace_check_sym(const char *sym)
{
	const char *colon = strchr(sym, ':');
	const char *func = colon ? colon + 1 : sym;
	size_t mlen = colon ? colon - sym : 0;

	if (strpbrk(sym, KSTATS_TRACE_GLOB)) {
		kstats_trace_err(sym, "'%s' is a glob: only trace fprobe:GLOB as NAME takes one",
				 sym);
		return -EINVAL;
	}
	if (str_has_prefix(sym, KSTATS_TRACE_TP)) {
		kstats_trace_err(sym, "'%s': a tracepoint is an end of a pair, trace NAME start POINT end POINT",
				 sym);
		return -EINVAL;
	}
	/* fprobe:pcpu:FUNC is two forms, not the module pcpu. */
	if (colon && (!strncmp(sym, "pcpu:", mlen + 1) || !strncmp(sym, "fprobe:", mlen + 1))) {
		kstats_trace_err(sym, "'%s': one form at most, pcpu: or fprobe:", sym);
		return -EINVAL;
	}
	if (colon && !kstats_trace_valid_mod(sym, mlen)) {
		kstats_trace_err(sym, "invalid module name in '%s': MODULE:SYMBOL, with '_' where the module's file has '-'",
				 sym);
		return -EINVAL;
	}
	if (!kstats_trace_valid_sym(func)) {
		kstats_trace_err(sym, "invalid symbol '%s'", sym);
		return -EINVAL;
	}
	if (str_has_prefix(func, "kstats_") ||
	    (colon && mlen == strlen(KBUILD_MODNAME) && !strncmp(sym, KBUILD_MODNAME, mlen))) {
		kstats_trace_err(sym, "%s: kstats cannot trace itself", sym);
		return -EPERM;
	}
	return 0;
}

/* A glob of ftrace's filter: symbol characters, '*', '?' and [classes]. */
static int kstats_trace_check_glob(const char *glob)
{
	const char *c;

	for (c = glob; *c; c++) {
		if (!isalnum(*c) && !strchr("_.$*?[]!^-", *c)) {
			kstats_trace_err(glob, "invalid glob '%s': symbol characters, '*', '?' and [...] only",
					 glob);
			return -EINVAL;
		}
	}
	/*
	 * A name without a glob's characters is a group too: of the
	 * functions that share it, each in its own file.
	 */
	if (glob[0] == '!' || isdigit(glob[0]) || strlen(glob) >= KSYM_NAME_LEN) {
		kstats_trace_err(glob, "invalid glob '%s': a glob of function names, such as vfs_*",
				 glob);
		return -EINVAL;
	}
	return 0;
}

/*
 * A metric name, as its file's name, with room for a prefix of @extra
 * characters (GAP-): refused here, with the word marked, rather than by
 * kstats_new() once half of the trace is made.
 */
static int kstats_trace_check_name(const char *name, size_t extra)
{
	if (strlen(name) + extra > NAME_MAX) {
		kstats_trace_err(name, "name longer than %zu characters: %.32s...",
				 NAME_MAX - extra, name);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* SYM[+OFF], __tracepoint_NAME or tp:NAME */
static int kstats_trace_parse_point(char *word, struct kstats_trace_where *p)
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
			kstats_trace_err(word, "invalid tracepoint '%s'", word);
			return -EINVAL;
		}
		return 0;
	}
	plus = strchr(word, '+');
	if (plus) {
		*plus++ = '\0';
		if (kstrtouint(plus, 0, &p->offset)) {
			kstats_trace_err(plus, "invalid offset '+%s' of '%s'", plus, word);
			return -EINVAL;
		}
	}
	p->sym = word;
	return kstats_trace_check_sym(word);
}

/*
 * The options that end a trace command, in any order, each at most once:
 * bits N, pid N, cgroup PATH, gap. Takes them off the end of @argv.
 */
static int kstats_trace_parse_options(char **argv, int *argc,
				      struct kstats_trace_cmd *cmd)
{
	bool bits = false;
	char *key, *val;

	/* "trace FUNC" or "trace NAME start P end P" stays before them. */
	while (*argc >= 3) {
		if (!strcmp(argv[*argc - 1], "gap")) {
			if (cmd->gap) {
				kstats_trace_err(argv[*argc - 1], "gap given twice");
				return -EINVAL;
			}
			cmd->gap = true;
			*argc -= 1;
			continue;
		}
		if (*argc < 4)
			break;
		key = argv[*argc - 2];
		val = argv[*argc - 1];
		if (!strcmp(key, "bits")) {
			if (bits) {
				kstats_trace_err(key, "bits given twice");
				return -EINVAL;
			}
			bits = true;
			cmd->bits_set = true;
			if (kstrtouint(val, 10, &cmd->bits)) {
				kstats_trace_err(val, "invalid bits '%s'", val);
				return -EINVAL;
			}
			if (cmd->bits > KSTATS_MAX_FRAC_BITS) {
				kstats_trace_err(val, "bits %u out of range 0..%u",
						 cmd->bits, KSTATS_MAX_FRAC_BITS);
				return -ERANGE;
			}
		} else if (!strcmp(key, "pid")) {
			if (cmd->pid) {
				kstats_trace_err(key, "pid given twice");
				return -EINVAL;
			}
			if (kstrtoint(val, 10, &cmd->pid) || cmd->pid <= 0) {
				kstats_trace_err(val, "invalid pid '%s'", val);
				cmd->pid = 0;
				return -EINVAL;
			}
		} else if (!strcmp(key, "cgroup")) {
			if (cmd->cgroup) {
				kstats_trace_err(key, "cgroup given twice");
				return -EINVAL;
			}
			if (val[0] != '/') {
				kstats_trace_err(val, "cgroup '%s': a path from the cgroup2 root, starting with /",
						 val);
				return -EINVAL;
			}
			cmd->cgroup = val;
		} else {
			break;
		}
		*argc -= 2;
	}
	return 0;
}

/**
 * kstats_trace_parse() - parse one command of the _control file
 * @line: the command, NUL terminated; one trailing newline is allowed.
 *	Modified: @cmd points into it.
 * @cmd: the parsed command
 *
 * The commands are ``trace [pcpu:|fprobe:]FUNC [OPTIONS]``,
 * ``trace NAME start POINT end POINT [OPTIONS]`` where a POINT is
 * ``SYM[+OFF]``, ``__tracepoint_NAME`` or ``tp:NAME``,
 * ``trace fprobe:GLOB as NAME [OPTIONS]`` (a group: every function that
 * the glob GLOB matches, bits 1 unless given) and ``remove NAME``.
 * The OPTIONS, in any order: ``bits N``; ``gap``, a ``GAP-NAME`` metric
 * too, for a function; ``pid N``, only the calls of the
 * process (thread group) N; ``cgroup PATH``, only those of the tasks in
 * the cgroup v2 PATH (from the root of the cgroup2 hierarchy) or below.
 * A ``#`` starts a comment; a line that is only a comment does nothing.
 * Only the syntax is checked here: whether symbols exist and names are free
 * is known when the command is carried out.
 *
 * Context: process context; may sleep.
 * Return: 0 (@cmd->verb is %KSTATS_TRACE_NONE for a comment), -EINVAL for
 * a malformed command (an option given twice, a pid that is not a
 * positive number, a cgroup path not starting with /), -ERANGE for bits
 * out of range, -ENAMETOOLONG for a
 * name longer than a file name may be (NAME_MAX, less "GAP-" for a
 * function), -EPERM for a kstats function; a warning says what was wrong.
 */
VISIBLE_IF_KUNIT int kstats_trace_parse(char *line, struct kstats_trace_cmd *cmd)
{
	char *argv[KSTATS_TRACE_MAX_WORDS], *word, *func, *comment;
	size_t len = strlen(line), n = 0;
	int argc = 0, ret;
	unsigned int mode;

	memset(cmd, 0, sizeof(*cmd));
	if (len && line[len - 1] == '\n')
		line[--len] = '\0';
	for (word = line; *word; word++) {
		if (iscntrl(*word) && *word != '\t') {
			kstats_trace_err(word, "control character in command");
			return -EINVAL;
		}
	}
	/* A '#' starts a comment, to the end of the line, as in tracefs. */
	comment = strchr(line, '#');
	if (comment)
		*comment = '\0';
	while ((word = strsep(&line, " \t"))) {
		if (!*word)
			continue;
		if (argc == KSTATS_TRACE_MAX_WORDS) {
			kstats_trace_err(word, "too many words in command");
			return -EINVAL;
		}
		argv[argc++] = word;
	}
	if (!argc && comment) {
		cmd->verb = KSTATS_TRACE_NONE;
		return 0;
	}
	if (!argc) {
		kstats_trace_err(NULL, "empty command");
		return -EINVAL;
	}

	if (!strcmp(argv[0], "remove")) {
		if (argc != 2) {
			kstats_trace_err(NULL, "usage: remove NAME");
			return -EINVAL;
		}
		cmd->verb = KSTATS_TRACE_REMOVE;
		cmd->name = argv[1];
		return 0;
	}
	if (strcmp(argv[0], "trace")) {
		kstats_trace_err(argv[0], "unknown command '%s': expected trace or remove",
				 argv[0]);
		return -EINVAL;
	}

	cmd->verb = KSTATS_TRACE_ADD;
	cmd->bits = KSTATS_TRACE_DEFAULT_BITS;
	ret = kstats_trace_parse_options(argv, &argc, cmd);
	if (ret)
		return ret;

	if (cmd->gap && (argc == 6 || (argc == 4 && !strcmp(argv[2], "as")))) {
		kstats_trace_err("gap", "gap: only a function's trace has a GAP- metric, not %s",
				 argc == 6 ? "a pair" : "a group");
		return -EINVAL;
	}
	if (argc == 6 && !strcmp(argv[2], "start") && !strcmp(argv[4], "end")) {
		cmd->mode = KSTATS_TRACE_PAIR;
		cmd->name = argv[1];
		ret = kstats_trace_check_name(cmd->name, 0);
		if (!ret)
			ret = kstats_trace_parse_point(argv[3], &cmd->start);
		if (!ret)
			ret = kstats_trace_parse_point(argv[5], &cmd->end);
		return ret;
	}
	if (argc == 4 && !strcmp(argv[2], "as")) {
		n = str_has_prefix(argv[1], kstats_trace_mode_ops[KSTATS_TRACE_FPROBE].prefix);
		if (!n) {
			kstats_trace_err(argv[1], "'%s': a group is timed by fprobe: trace fprobe:GLOB as NAME",
					 argv[1]);
			return -EINVAL;
		}
		cmd->mode = KSTATS_TRACE_GROUP;
		cmd->name = argv[3];
		cmd->start.sym = argv[1] + n;
		if (!cmd->bits_set)
			cmd->bits = KSTATS_TRACE_GROUP_BITS;
		ret = kstats_trace_check_glob(cmd->start.sym);
		return ret ?: kstats_trace_check_name(cmd->name, 0);
	}
	if (argc != 2) {
		kstats_trace_err(NULL, "usage: trace [pcpu:|fprobe:]FUNC [OPTIONS], trace NAME start POINT end POINT [OPTIONS] or trace fprobe:GLOB as NAME [OPTIONS]; OPTIONS: bits N, pid N, cgroup PATH, gap");
		return -EINVAL;
	}

	func = argv[1];
	cmd->mode = KSTATS_TRACE_KRETPROBE;
	for (mode = 0; mode < ARRAY_SIZE(kstats_trace_mode_ops); mode++) {
		n = str_has_prefix(func, kstats_trace_mode_ops[mode].prefix ?: "");
		if (n) {
			cmd->mode = mode;
			break;
		}
	}
	func += n;
	cmd->name = func;
	cmd->start.sym = func;
	ret = kstats_trace_check_name(func, strlen(KSTATS_TRACE_GAP));
	return ret ?: kstats_trace_check_sym(func);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_trace_parse);

static struct kstats_trace *kstats_trace_find(const char *name)
{
	struct kstats_trace *t;

	lockdep_assert_held(&kstats_trace_mutex);
	list_for_each_entry(t, &kstats_trace_list, node)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

/*
 * The mechanism's detach: the KUnit suite makes it fail, as it would once
 * ftrace has shut itself down, with kunit_activate_static_stub().
 */
VISIBLE_IF_KUNIT int kstats_trace_detach_mode(struct kstats_trace *t)
{
#if IS_ENABLED(CONFIG_KUNIT)
	KUNIT_STATIC_STUB_REDIRECT(kstats_trace_detach_mode, t);
#endif
	return kstats_trace_mode_ops[t->mode].detach(t);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_trace_detach_mode);

/* Detaches @t unless its module's going did; see kstats_trace_detached(). */
static bool kstats_trace_detach(struct kstats_trace *t)
{
	if (t->gone[0])
		return kstats_trace_detached(t, 0);
	return kstats_trace_detached(t, kstats_trace_detach_mode(t));
}

static void kstats_trace_free(struct kstats_trace *t)
{
	put_pid(t->pid);
#ifdef CONFIG_CGROUPS
	if (t->cgrp)
		cgroup_put(t->cgrp);
#endif
	kfree(t->cgroup_path);
	kstats_delete(t->gap);
	/* A group: all its metrics. */
	kstats_delete(t->ks);
	kvfree(t->funcs);
	kvfree(t->table);
	kfree(t->gone_mods);
	kstats_trace_memory -= t->memory;
	free_percpu(t->cpu);
	kfree(t->end.sym);
	kfree(t->start.sym);
	kfree(t->name);
	kfree(t);
}

/*
 * The filters of a new trace: a reference on the process of pid N, as the
 * writer's pid namespace numbers it, and on the cgroup of PATH. Each must
 * exist when the trace is added; a process that exits later only matches
 * no call.
 */
static int kstats_trace_filters(struct kstats_trace *t, const struct kstats_trace_cmd *cmd)
{
	if (cmd->pid) {
		bool leader;

		t->pid = find_get_pid(cmd->pid);
		rcu_read_lock();
		leader = t->pid && pid_task(t->pid, PIDTYPE_TGID);
		rcu_read_unlock();
		if (!leader) {
			char word[24];

			snprintf(word, sizeof(word), "pid %d", cmd->pid);
			kstats_trace_err(word, "pid %d: no such process (a thread? give its tgid)",
					 cmd->pid);
			return -ESRCH;
		}
		t->pid_nr = cmd->pid;
	}
	if (!cmd->cgroup)
		return 0;
#ifdef CONFIG_CGROUPS
	t->cgroup_path = kstrdup(cmd->cgroup, GFP_KERNEL);
	if (!t->cgroup_path)
		return -ENOMEM;
	t->cgrp = cgroup_get_from_path(cmd->cgroup);
	if (IS_ERR(t->cgrp)) {
		int ret = PTR_ERR(t->cgrp);

		t->cgrp = NULL;
		kstats_trace_err(cmd->cgroup, "cgroup %s: not a cgroup of the cgroup2 hierarchy: %d",
				 cmd->cgroup, ret);
		return ret;
	}
	return 0;
#else
	kstats_trace_err(cmd->cgroup, "cgroup %s: this kernel has no cgroups (CONFIG_CGROUPS)",
			 cmd->cgroup);
	return -EOPNOTSUPP;
#endif
}

/* A point of a new trace, at @where; its symbol is a copy (NULL if none). */
static void kstats_trace_point_init(struct kstats_trace_point *p,
				    const struct kstats_trace_where *where)
{
	p->sym = kstrdup(where->sym, GFP_KERNEL);
	p->offset = where->offset;
	p->tracepoint = where->tracepoint;
}

/*
 * The module of a point's code, for the listing (left out without memory).
 * Under kstats_trace_mutex, which the module notifier takes: the module
 * cannot be gone yet.
 */
static void kstats_trace_point_mod(struct kstats_trace_point *p)
{
	const char *mod;
	char *buf;

	if (!p->addr)
		return;
	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!buf)
		return;
	mod = kstats_trace_sym_mod(buf, p->addr);
	if (mod)
		strscpy(p->mod, mod, sizeof(p->mod));
	kfree(buf);
}

/*
 * Whether the lockdown policy forbids probes: the KUnit suite makes it so,
 * as an LSM that allows debugfs writes but not LOCKDOWN_KPROBES would,
 * with kunit_activate_static_stub().
 */
VISIBLE_IF_KUNIT int kstats_trace_locked_down(void)
{
#if IS_ENABLED(CONFIG_KUNIT)
	KUNIT_STATIC_STUB_REDIRECT(kstats_trace_locked_down);
#endif
	return security_locked_down(LOCKDOWN_KPROBES);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_trace_locked_down);

/*
 * What an add checks before it takes kstats_trace_mutex, which the readers
 * of _control and the module notifier wait for: the lockdown policy, and
 * that each name is one function's, a walk of ftrace's functions. A pid or
 * cgroup that does not exist is found after it.
 */
static int kstats_trace_may_add(const struct kstats_trace_cmd *cmd)
{
	int ret;

	lockdep_assert_held(&kstats_trace_cmd_mutex);
	lockdep_assert_not_held(&kstats_trace_mutex);
	/*
	 * As kprobe and fprobe events: a policy that denies kprobes (an LSM
	 * allowing debugfs writes but not LOCKDOWN_KPROBES) is kept, for
	 * every form: a tracepoint end is a kprobe too, on its probe stub.
	 */
	ret = kstats_trace_locked_down();
	if (ret) {
		kstats_trace_err(NULL, "%s: the kernel's lockdown policy forbids probes (LOCKDOWN_KPROBES): %d",
				 cmd->name, ret);
		return ret;
	}
	/* A group's glob names many functions, each in its own file. */
	if (cmd->mode == KSTATS_TRACE_GROUP)
		return 0;
	ret = kstats_trace_unique(cmd->name, &cmd->start);
	if (!ret && cmd->mode == KSTATS_TRACE_PAIR)
		ret = kstats_trace_unique(cmd->name, &cmd->end);
	return ret;
}

static int kstats_trace_add(const struct kstats_trace_cmd *cmd)
{
	struct kstats_trace *t;
	char *gap_name;
	int ret;

	lockdep_assert_held(&kstats_trace_mutex);
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->mode = cmd->mode;
	t->bits = cmd->bits;
	atomic_long_set(&t->missed, 0);
	t->name = kstrdup(cmd->name, GFP_KERNEL);
	/* Copies: the symbols stay in use while the probes are registered. */
	kstats_trace_point_init(&t->start, &cmd->start);
	if (t->mode == KSTATS_TRACE_PAIR)
		kstats_trace_point_init(&t->end, &cmd->end);
	t->cpu = alloc_percpu_gfp(struct kstats_trace_cpu, GFP_KERNEL | __GFP_NOWARN);
	if (!t->name || !t->start.sym || !t->cpu ||
	    (t->mode == KSTATS_TRACE_PAIR && !t->end.sym)) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = kstats_trace_filters(t, cmd);
	if (ret)
		goto fail;

	/* A group makes its metrics once it knows how many functions it has. */
	if (t->mode == KSTATS_TRACE_GROUP)
		goto attach;
	ret = kstats_trace_budget(t, kstats_trace_metric_memory(cmd->gap ? 2 : 1, t->bits),
				  "the trace");
	if (ret)
		goto fail;
	t->ks = kstats_new(t->name, t->bits);
	if (IS_ERR(t->ks)) {
		ret = PTR_ERR(t->ks);
		kstats_trace_err(t->name, "%s: cannot create the metric: %d", t->name, ret);
		goto fail;
	}
	if (cmd->gap) {
		gap_name = kasprintf(GFP_KERNEL, KSTATS_TRACE_GAP "%s", t->name);
		if (!gap_name) {
			ret = -ENOMEM;
			goto fail;
		}
		t->gap = kstats_new(gap_name, t->bits);
		kfree(gap_name);
		if (IS_ERR(t->gap)) {
			ret = PTR_ERR(t->gap);
			kstats_trace_err(t->name, "%s: cannot create the metric %s%s: %d",
					 t->name, KSTATS_TRACE_GAP, t->name, ret);
			goto fail;
		}
	}

attach:
	ret = kstats_trace_mode_ops[t->mode].attach(t);
	if (ret)
		goto fail;
	kstats_trace_point_mod(&t->start);
	kstats_trace_point_mod(&t->end);
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
	t = kstats_trace_find(name);
	if (!t) {
		kstats_trace_err(name, "remove %s: not traced", name);
		return -ENOENT;
	}
	if (!kstats_trace_detach(t)) {
		kstats_trace_err(name, "remove %s: cannot be detached: %d; it stays, listed as stuck, with kstats_trace pinned, until a remove detaches it",
				 name, t->stuck);
		return -EBUSY;
	}
	list_del(&t->node);
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
 * of it is left behind, and error_log tells why.
 *
 * Context: process context, holding neither mutex of kstats_trace; takes
 * kstats_trace_cmd_mutex (killable), and kstats_trace_mutex for a command
 * that parsed and passed the checks of an add; may sleep.
 * Return: 0, or the errors of kstats_trace_parse(), -E2BIG for a command
 * longer than KSTATS_TRACE_LINE_MAX, -ENOENT for an unknown symbol,
 * tracepoint, cgroup or name to remove, -EADDRNOTAVAIL for a name that
 * several functions share, -ESRCH for a pid that is no
 * process, -EOPNOTSUPP for a cgroup without CONFIG_CGROUPS, -EEXIST for a
 * name in use, -ENOMEM, the error of the probe's registration, or -EBUSY
 * for the remove of a trace whose detach failed (it stays, listed as
 * stuck), or -EINTR for a fatal signal while it waited for another
 * command; a warning says what was wrong.
 */
VISIBLE_IF_KUNIT int kstats_trace_exec(const char *buf, size_t len)
{
	struct kstats_trace_cmd cmd;
	char *line, *text;
	int ret;

	if (len > KSTATS_TRACE_LINE_MAX) {
		pr_warn("command longer than %d bytes\n", KSTATS_TRACE_LINE_MAX);
		return -E2BIG;
	}
	/* The command as written, for error_log, and a copy to parse. */
	text = kmemdup_nul(buf, len, GFP_KERNEL);
	line = kmemdup_nul(buf, len, GFP_KERNEL);
	if (!text || !line) {
		ret = -ENOMEM;
		goto out;
	}
	/* A write of many lines may wait long: a fatal signal ends the wait. */
	if (mutex_lock_killable(&kstats_trace_cmd_mutex)) {
		ret = -EINTR;
		goto out;
	}
	scoped_guard(mutex, &kstats_trace_err_lock) {
		kstats_trace_cmdline = strim(text);
		kstats_trace_cmdcopy = line;
		kstats_trace_cmdlen = len;
		kstats_trace_cmdskip = kstats_trace_cmdline - text;
	}
	if (strlen(line) != len) {
		kstats_trace_err(NULL, "NUL character in command");
		ret = -EINVAL;
	} else {
		ret = kstats_trace_parse(line, &cmd);
	}
	if (!ret && cmd.verb == KSTATS_TRACE_ADD)
		ret = kstats_trace_may_add(&cmd);
	if (!ret && cmd.verb != KSTATS_TRACE_NONE) {
		mutex_lock(&kstats_trace_mutex);
		switch (cmd.verb) {
		case KSTATS_TRACE_ADD:
			ret = kstats_trace_add(&cmd);
			break;
		case KSTATS_TRACE_REMOVE:
			ret = kstats_trace_remove(cmd.name);
			break;
		default:
			break;
		}
		mutex_unlock(&kstats_trace_mutex);
	}
	scoped_guard(mutex, &kstats_trace_err_lock) {
		kstats_trace_cmdline = NULL;
		kstats_trace_cmdcopy = NULL;
	}
	mutex_unlock(&kstats_trace_cmd_mutex);
out:
	kfree(line);
	kfree(text);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_trace_exec);

/*
 * A module going: the traces of its code are detached before ftrace
 * forgets its functions and its text is freed, as kprobes kill their
 * probes there; so are the traces of its init code once it is live, when
 * that code is freed. A trace left attached would keep the address in its
 * ftrace filter, and code loaded there later would be traced, or would
 * make ftrace warn. The metrics stay until the trace is removed.
 */
static int kstats_trace_module_notify(struct notifier_block *nb,
				      unsigned long state, void *data)
{
	bool (*within)(unsigned long addr, const struct module *mod);
	struct module *mod = data;
	struct kstats_trace *t;

	if (state == MODULE_STATE_GOING)
		within = within_module;
	else if (state == MODULE_STATE_LIVE)
		within = within_module_init;
	else if (state != MODULE_STATE_COMING)
		return NOTIFY_DONE;
	mutex_lock(&kstats_trace_mutex);
	kstats_trace_freed_note(mod, state);
	if (state == MODULE_STATE_COMING) {
		mutex_unlock(&kstats_trace_mutex);
		return NOTIFY_DONE;
	}
	list_for_each_entry(t, &kstats_trace_list, node) {
		if (t->mode == KSTATS_TRACE_GROUP && !t->gone[0]) {
			if (!kstats_trace_grp_going(t, mod, within))
				pr_warn("%s: cannot be detached as module %s goes: %d; it stays, listed as stuck, with kstats_trace pinned, until a remove detaches it\n",
					t->name, mod->name, t->stuck);
			else if (t->gone[0])
				pr_info("%s: detached: the functions left in the group were of module %s; the metrics stay until 'remove %s'\n",
					t->name, mod->name, t->name);
			continue;
		}
		if (t->gone[0] || !(within(t->start.addr, mod) ||
				    within(t->end.addr, mod)))
			continue;
		if (!kstats_trace_detach(t)) {
			pr_warn("%s: cannot be detached as module %s goes: %d; it stays, listed as stuck, with kstats_trace pinned, until a remove detaches it\n",
				t->name, mod->name, t->stuck);
			continue;
		}
		strscpy(t->gone, mod->name, sizeof(t->gone));
		pr_info("%s: detached: %s of module %s freed; the metrics stay until 'remove %s'\n",
			t->name, state == MODULE_STATE_LIVE ? "init code" : "code",
			mod->name, t->name);
	}
	mutex_unlock(&kstats_trace_mutex);
	return NOTIFY_DONE;
}

/* First among the notifiers of a module going, before it is half gone. */
static struct notifier_block kstats_trace_module_nb = {
	.notifier_call = kstats_trace_module_notify,
	.priority = INT_MAX,
};

/*
 * A write holds one command or several, one per line, as dynamic_events
 * takes them (cat commands > _control): each line is carried out or
 * refused on its own, in order, and the write fails with the error of the
 * first line refused. Blank lines are skipped.
 */
static ssize_t kstats_trace_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	char *buf, *line, *end;
	int ret = 0, err;

	if (len > KSTATS_TRACE_WRITE_MAX) {
		pr_warn("write longer than %d bytes\n", KSTATS_TRACE_WRITE_MAX);
		return -E2BIG;
	}
	buf = memdup_user(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	for (line = buf; line < buf + len; line = end + 1) {
		end = memchr(line, '\n', buf + len - line) ?: buf + len;
		if (end == line)
			continue;
		err = kstats_trace_exec(line, end - line);
		if (!ret)
			ret = err;
	}
	kfree(buf);
	return ret ? ret : len;
}

static unsigned long kstats_trace_missed(struct kstats_trace *t)
{
	return atomic_long_read(&t->missed) +
	       kstats_trace_mode_ops[t->mode].missed(t);
}

/* A point as a command gives it, MODULE:SYM for a module's code, and @tail. */
static void kstats_trace_show_point(struct seq_file *m, const char *what,
				    const struct kstats_trace_point *p, const char *tail)
{
	seq_printf(m, " %s %s", what, p->tracepoint ? KSTATS_TRACE_TP : "");
	if (p->mod[0] && !strchr(p->sym, ':'))
		seq_printf(m, "%s:", p->mod);
	seq_puts(m, p->sym);
	if (p->offset)
		seq_printf(m, "+%u", p->offset);
	seq_puts(m, tail);
}

/* The commands, shown when there is no trace to list. */
static const char kstats_trace_usage[] =
	"# trace [pcpu:|fprobe:]FUNC [OPTIONS]    time FUNC from entry to return\n"
	"# trace NAME start POINT end POINT [OPTIONS]\n"
	"#     time the code between two points: FUNC[+OFF], or tp:TRACEPOINT\n"
	"#     FUNC: a symbol, or MODULE:SYMBOL for a module's; a name that\n"
	"#     several functions share is refused\n"
	"# trace fprobe:GLOB as NAME [OPTIONS]     time every function GLOB matches,\n"
	"#     each into kstats/NAME/FUNCTION\n"
	"#     OPTIONS: bits N (resolution, 0..8), pid N (one process only),\n"
	"#     cgroup PATH (the tasks of a cgroup v2 subtree only), gap (a\n"
	"#     function's GAP-NAME too: from a return to the next call)\n"
	"# remove NAME\n"
	"# Each trace is listed here, as\n"
	"# name NAME mode MODE start POINT end POINT bits N samples N missed N\n"
	"#     memory BYTES [gap GAP-NAME] [pid N] [cgroup PATH] [gone MODULE]\n"
	"#     [stuck ERRNO]\n"
	"# name NAME mode group glob GLOB functions N bits N samples N missed N\n"
	"#     memory BYTES [pid N] [cgroup PATH] [gone MODULE,...] [stuck ERRNO]\n"
	"# and timed into kstats/NAME and, with gap, kstats/GAP-NAME; see\n"
	"# error_log for why a command failed.\n";

static void kstats_trace_show_filters(struct seq_file *m, const struct kstats_trace *t)
{
	if (t->pid)
		seq_printf(m, " pid %d", t->pid_nr);
	if (t->cgroup_path)
		seq_printf(m, " cgroup %s", t->cgroup_path);
}

/* A group: its glob, how many functions, and the samples of all. */
static void kstats_trace_show_group(struct seq_file *m, struct kstats_trace *t)
{
	u64 samples = 0;
	unsigned int i;

	for (i = 0; i < t->nr_funcs; i++) {
		samples += kstats_count(t->funcs[i].ks);
		cond_resched();
	}
	seq_printf(m, "name %s mode group glob %s functions %u bits %u samples %llu missed %lu memory %zu",
		   t->name, t->start.sym, t->nr_funcs, t->bits, samples,
		   kstats_trace_missed(t), t->memory);
	kstats_trace_show_filters(m, t);
	if (t->gone_mods)
		seq_printf(m, " gone %s", t->gone_mods);
	if (t->stuck)
		seq_printf(m, " stuck %d", t->stuck);
	seq_putc(m, '\n');
}

/* One line per trace: its name, mode, points, bits and counts. */
static int kstats_trace_show(struct seq_file *m, void *v)
{
	struct kstats_trace *t;

	mutex_lock(&kstats_trace_mutex);
	if (list_empty(&kstats_trace_list))
		seq_puts(m, kstats_trace_usage);
	list_for_each_entry(t, &kstats_trace_list, node) {
		if (t->mode == KSTATS_TRACE_GROUP) {
			kstats_trace_show_group(m, t);
			continue;
		}
		seq_printf(m, "name %s mode %s", t->name,
			   kstats_trace_mode_ops[t->mode].name);
		kstats_trace_show_point(m, "start", &t->start, "");
		if (t->mode == KSTATS_TRACE_PAIR)
			kstats_trace_show_point(m, "end", &t->end, "");
		else
			kstats_trace_show_point(m, "end", &t->start, "%return");
		seq_printf(m, " bits %u samples %llu missed %lu memory %zu", t->bits,
			   kstats_count(t->ks), kstats_trace_missed(t), t->memory);
		if (t->gap)
			seq_printf(m, " gap %s%s", KSTATS_TRACE_GAP, t->name);
		kstats_trace_show_filters(m, t);
		if (t->gone[0])
			seq_printf(m, " gone %s", t->gone);
		if (t->stuck)
			seq_printf(m, " stuck %d", t->stuck);
		seq_putc(m, '\n');
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

static void kstats_trace_clear_errors(void)
{
	struct kstats_trace_error *e;

	for (e = kstats_trace_errors; e < kstats_trace_errors + KSTATS_TRACE_ERRORS; e++) {
		kfree(e->cmd);
		kfree(e->msg);
		memset(e, 0, sizeof(*e));
	}
}

/* The refused commands, oldest first, in the format of tracefs' error_log. */
static int kstats_trace_error_log_show(struct seq_file *m, void *v)
{
	const struct kstats_trace_error *e;
	unsigned int i;
	u64 sec;
	u32 nsec;

	mutex_lock(&kstats_trace_err_lock);
	for (i = 0; i < KSTATS_TRACE_ERRORS; i++) {
		e = &kstats_trace_errors[(kstats_trace_next_error + i) % KSTATS_TRACE_ERRORS];
		if (!e->ts)
			continue;
		sec = div_u64_rem(e->ts, NSEC_PER_SEC, &nsec);
		seq_printf(m, "[%5llu.%06u] kstats_trace: error: %s\n", sec,
			   (u32)(nsec / NSEC_PER_USEC), e->msg);
		seq_printf(m, "  Command: %s\n", e->cmd ?: "");
		seq_printf(m, "%*s^\n", (int)(strlen("  Command: ") + e->pos), "");
	}
	mutex_unlock(&kstats_trace_err_lock);
	return 0;
}

/* Opened for writing with O_TRUNC (echo > error_log): cleared. */
static int kstats_trace_open_error_log(struct inode *inode, struct file *file)
{
	if ((file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC)) {
		mutex_lock(&kstats_trace_err_lock);
		kstats_trace_clear_errors();
		mutex_unlock(&kstats_trace_err_lock);
	}
	return single_open(file, kstats_trace_error_log_show, NULL);
}

static ssize_t kstats_trace_write_error_log(struct file *file,
					    const char __user *ubuf,
					    size_t len, loff_t *ppos)
{
	return len;
}

static const struct file_operations kstats_trace_error_log_fops = {
	.owner = THIS_MODULE,
	.open = kstats_trace_open_error_log,
	.read_iter = seq_read_iter,
	.write = kstats_trace_write_error_log,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init kstats_trace_init(void)
{
	int ret;

	ret = register_module_notifier(&kstats_trace_module_nb);
	if (ret)
		return ret;
	/*
	 * No debugfs proxy needed: an open file holds a reference to this
	 * module (.owner), so the file and the data it uses outlive it.
	 */
	kstats_trace_control = debugfs_create_file_unsafe("_control", 0600,
							  kstats_debugfs_dir(),
							  NULL, &kstats_trace_fops);
	kstats_trace_error_log = debugfs_create_file_unsafe("error_log", 0600,
							    kstats_debugfs_dir(), NULL,
							    &kstats_trace_error_log_fops);
	return 0;
}

/*
 * Every trace is removed: once its mechanism's unregistration has
 * returned, no handler of it runs or will run, and no call in flight
 * comes back into this module, so nothing is waited for.
 */
static void __exit kstats_trace_exit(void)
{
	struct kstats_trace *t, *tmp;
	int ret;

	/* No command can start once the files are gone. */
	debugfs_remove(kstats_trace_error_log);
	debugfs_remove(kstats_trace_control);
	mutex_lock(&kstats_trace_mutex);
	/* None is stuck: a stuck trace pins this module. */
	list_for_each_entry_safe(t, tmp, &kstats_trace_list, node) {
		list_del(&t->node);
		ret = t->gone[0] ? 0 : kstats_trace_detach_mode(t);
		if (!WARN_ONCE(ret, "kstats_trace: %s cannot be detached (%d): leaked\n",
			       t->name, ret))
			kstats_trace_free(t);
	}
	mutex_unlock(&kstats_trace_mutex);
	scoped_guard(mutex, &kstats_trace_err_lock)
		kstats_trace_clear_errors();
	/* After the traces: a module going meanwhile found them detached. */
	unregister_module_notifier(&kstats_trace_module_nb);
	kstats_trace_freed_clear();
}

module_init(kstats_trace_init);
module_exit(kstats_trace_exit);

MODULE_DESCRIPTION("kstats: time kernel functions and code through _control");
MODULE_LICENSE("GPL");
