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
#include <linux/kprobes.h>
#include <linux/kstats.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

#include "kstats_trace.h"

#define KSTATS_TRACE_GAP	"GAP-"
#define KSTATS_TRACE_TP		"tp:"
#define KSTATS_TRACE_TP_SYM	"__tracepoint_"
#define KSTATS_TRACE_MAX_WORDS	12
/* Refused commands kept in error_log, the oldest replaced first. */
#define KSTATS_TRACE_ERRORS	8

/*
 * A probe point of a trace: where the command put it, and what is attached
 * there. The address and the probe are set when the trace is attached.
 */
struct kstats_trace_point {
	const char *sym;		/* symbol, or tracepoint name */
	unsigned int offset;
	bool tracepoint;
	unsigned long addr;		/* the code probed; 0 for a tracepoint */
	union {				/* the probe of an end of a pair */
		struct kprobe kp;
		struct tracepoint *tp;
	};
};

/* What a CPU remembers between two probe hits. */
struct kstats_trace_cpu {
	u64 start;		/* time of the open start, 0 if none */
	u64 last_ret;		/* time of the last return, 0 if none */
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
	/* Returns 0 once no handler of @t runs or will run. */
	int (*detach)(struct kstats_trace *t);
	/* Hits the mechanism itself lost. */
	unsigned long (*missed)(struct kstats_trace *t);
};

/*
 * kstats_trace_mutex serializes the commands, the module notifier and the
 * readers of _control, and protects kstats_trace_list; probe handlers
 * never take it.
 */
static DEFINE_MUTEX(kstats_trace_mutex);
static LIST_HEAD(kstats_trace_list);
static struct dentry *kstats_trace_control, *kstats_trace_error_log;

/*
 * kstats_trace_err_lock protects error_log's entries and the command being
 * carried out (NULL outside commands): the parser reports errors without
 * kstats_trace_mutex when the KUnit suite calls it.
 */
static DEFINE_MUTEX(kstats_trace_err_lock);
static const char *kstats_trace_cmdline;

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
 * kernel log and, with the command and a caret under @word (the first
 * place it appears, as tracefs places its caret), to error_log.
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
	if (word && *word && e->cmd)
		at = strstr(e->cmd, word);
	e->pos = at ? at - e->cmd : 0;
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

/* A call's time, or a missed one if the clock went back. */
static __always_inline void kstats_trace_record(struct kstats_trace *t, u64 start, u64 now)
{
	u64 ns;

	if (kstats_trace_elapsed(start, now, &ns))
		kstats_record(t->ks, ns);
	else
		atomic_long_inc(&t->missed);
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
		kstats_trace_record(t, start, now);
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
		kstats_trace_record(t, *entry, now);
	else
		kstats_trace_close(t, now);
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
 * Tracepoint probes are called with the tracepoint's arguments after @data;
 * these ignore them, which the C calling convention allows (and why
 * KSTATS_TRACE depends on !CFI_CLANG, which checks the prototype).
 */
static void kstats_trace_tp_start(void *data)
{
	if (kstats_trace_wanted(data))
		kstats_trace_open(data, kstats_trace_now());
}

static void kstats_trace_tp_end(void *data)
{
	if (kstats_trace_wanted(data))
		kstats_trace_close(data, kstats_trace_now());
}

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
	t->fp.entry_handler = kstats_trace_fp_entry;
	t->fp.exit_handler = kstats_trace_fp_exit;
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
		ret = tracepoint_probe_register(lookup.tp,
						start ? (void *)kstats_trace_tp_start :
							(void *)kstats_trace_tp_end,
						t);
		if (ret) {
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

static void kstats_trace_point_detach(struct kstats_trace *t,
				      struct kstats_trace_point *p, bool start)
{
	if (p->tracepoint)
		tracepoint_probe_unregister(p->tp,
					    start ? (void *)kstats_trace_tp_start :
						    (void *)kstats_trace_tp_end,
					    t);
	else
		unregister_kprobe(&p->kp);
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
		kstats_trace_point_detach(t, &t->start, true);
		tracepoint_synchronize_unregister();
	}
	return ret;
}

static int kstats_trace_pair_detach(struct kstats_trace *t)
{
	kstats_trace_point_detach(t, &t->start, true);
	kstats_trace_point_detach(t, &t->end, false);
	tracepoint_synchronize_unregister();
	return 0;
}

static unsigned long kstats_trace_pair_missed(struct kstats_trace *t)
{
	return (t->start.tracepoint ? 0 : t->start.kp.nmissed) +
	       (t->end.tracepoint ? 0 : t->end.kp.nmissed);
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
};

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
		kstats_trace_err(sym, "invalid symbol '%s'", sym);
		return -EINVAL;
	}
	if (str_has_prefix(sym, "kstats_")) {
		kstats_trace_err(sym, "%s: kstats cannot trace itself", sym);
		return -EPERM;
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
 * bits N, pid N, cgroup PATH. Takes them off the end of @argv.
 */
static int kstats_trace_parse_options(char **argv, int *argc,
				      struct kstats_trace_cmd *cmd)
{
	bool bits = false;
	char *key, *val;

	/* "trace FUNC" or "trace NAME start P end P" stays before them. */
	while (*argc >= 4) {
		key = argv[*argc - 2];
		val = argv[*argc - 1];
		if (!strcmp(key, "bits")) {
			if (bits) {
				kstats_trace_err(key, "bits given twice");
				return -EINVAL;
			}
			bits = true;
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
 * ``SYM[+OFF]``, ``__tracepoint_NAME`` or ``tp:NAME``, and ``remove NAME``.
 * The OPTIONS, in any order: ``bits N``; ``pid N``, only the calls of the
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
	if (argc != 2) {
		kstats_trace_err(NULL, "usage: trace [pcpu:|fprobe:]FUNC [OPTIONS] or trace NAME start POINT end POINT [OPTIONS]; OPTIONS: bits N, pid N, cgroup PATH");
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
 * Detaches @t unless its module's going did. Returns false if the
 * mechanism refused: a handler may still run, so @t is not to be freed
 * (it is leaked, with a warning).
 */
static bool kstats_trace_detach(struct kstats_trace *t)
{
	int ret;

	if (t->gone[0])
		return true;
	ret = kstats_trace_mode_ops[t->mode].detach(t);
	WARN_ONCE(ret, "kstats_trace: %s cannot be detached (%d): leaked\n", t->name, ret);
	return !ret;
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
	kstats_delete(t->ks);
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

	t->ks = kstats_new(t->name, t->bits);
	if (IS_ERR(t->ks)) {
		ret = PTR_ERR(t->ks);
		kstats_trace_err(t->name, "%s: cannot create the metric: %d", t->name, ret);
		goto fail;
	}
	if (t->mode != KSTATS_TRACE_PAIR) {
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

	ret = kstats_trace_mode_ops[t->mode].attach(t);
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
	t = kstats_trace_find(name);
	if (!t) {
		kstats_trace_err(name, "remove %s: not traced", name);
		return -ENOENT;
	}
	list_del(&t->node);
	if (kstats_trace_detach(t))
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
 * Context: process context; takes kstats_trace_mutex, may sleep.
 * Return: 0, or the errors of kstats_trace_parse(), -E2BIG for a command
 * longer than KSTATS_TRACE_LINE_MAX, -ENOENT for an unknown symbol,
 * tracepoint, cgroup or name to remove, -ESRCH for a pid that is no
 * process, -EOPNOTSUPP for a cgroup without CONFIG_CGROUPS, -EEXIST for a
 * name in use, -ENOMEM, or the error of the probe's registration; a
 * warning says what was wrong.
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
	mutex_lock(&kstats_trace_mutex);
	scoped_guard(mutex, &kstats_trace_err_lock)
		kstats_trace_cmdline = strim(text);
	if (strlen(line) != len) {
		kstats_trace_err(NULL, "NUL character in command");
		ret = -EINVAL;
	} else {
		ret = kstats_trace_parse(line, &cmd);
	}
	if (!ret && cmd.verb == KSTATS_TRACE_REMOVE)
		ret = kstats_trace_remove(cmd.name);
	else if (!ret && cmd.verb == KSTATS_TRACE_ADD)
		ret = kstats_trace_add(&cmd);
	scoped_guard(mutex, &kstats_trace_err_lock)
		kstats_trace_cmdline = NULL;
	mutex_unlock(&kstats_trace_mutex);
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
	else
		return NOTIFY_DONE;
	mutex_lock(&kstats_trace_mutex);
	list_for_each_entry(t, &kstats_trace_list, node) {
		if (t->gone[0] || !(within(t->start.addr, mod) ||
				    within(t->end.addr, mod)))
			continue;
		if (!kstats_trace_detach(t))
			continue;
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
	return atomic_long_read(&t->missed) +
	       kstats_trace_mode_ops[t->mode].missed(t);
}

static void kstats_trace_show_point(struct seq_file *m, const char *what,
				    const struct kstats_trace_point *p)
{
	seq_printf(m, " %s %s%s", what, p->tracepoint ? KSTATS_TRACE_TP : "",
		   p->sym);
	if (p->offset)
		seq_printf(m, "+%u", p->offset);
}

/* The commands, shown when there is no trace to list. */
static const char kstats_trace_usage[] =
	"# trace [pcpu:|fprobe:]FUNC [OPTIONS]    time FUNC from entry to return\n"
	"# trace NAME start POINT end POINT [OPTIONS]\n"
	"#     time the code between two points: SYM[+OFF], or tp:TRACEPOINT\n"
	"#     OPTIONS: bits N (resolution, 0..8), pid N (one process only),\n"
	"#     cgroup PATH (the tasks of a cgroup v2 subtree only)\n"
	"# remove NAME\n"
	"# Each trace is listed here, as\n"
	"# name NAME mode MODE start POINT end POINT bits N samples N missed N\n"
	"#     [pid N] [cgroup PATH] [gone MODULE]\n"
	"# and timed into kstats/NAME and, but for pairs, kstats/GAP-NAME; see\n"
	"# error_log for why a command failed.\n";

/* One line per trace: its name, mode, points, bits and counts. */
static int kstats_trace_show(struct seq_file *m, void *v)
{
	struct kstats_trace *t;

	mutex_lock(&kstats_trace_mutex);
	if (list_empty(&kstats_trace_list))
		seq_puts(m, kstats_trace_usage);
	list_for_each_entry(t, &kstats_trace_list, node) {
		seq_printf(m, "name %s mode %s", t->name,
			   kstats_trace_mode_ops[t->mode].name);
		kstats_trace_show_point(m, "start", &t->start);
		if (t->mode == KSTATS_TRACE_PAIR)
			kstats_trace_show_point(m, "end", &t->end);
		else
			seq_printf(m, " end %s%%return", t->start.sym);
		seq_printf(m, " bits %u samples %llu missed %lu", t->bits,
			   kstats_count(t->ks), kstats_trace_missed(t));
		if (t->pid)
			seq_printf(m, " pid %d", t->pid_nr);
		if (t->cgroup_path)
			seq_printf(m, " cgroup %s", t->cgroup_path);
		if (t->gone[0])
			seq_printf(m, " gone %s", t->gone);
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

	/* No command can start once the files are gone. */
	debugfs_remove(kstats_trace_error_log);
	debugfs_remove(kstats_trace_control);
	mutex_lock(&kstats_trace_mutex);
	list_for_each_entry_safe(t, tmp, &kstats_trace_list, node) {
		list_del(&t->node);
		if (kstats_trace_detach(t))
			kstats_trace_free(t);
	}
	mutex_unlock(&kstats_trace_mutex);
	scoped_guard(mutex, &kstats_trace_err_lock)
		kstats_trace_clear_errors();
	/* After the traces: a module going meanwhile found them detached. */
	unregister_module_notifier(&kstats_trace_module_nb);
}

module_init(kstats_trace_init);
module_exit(kstats_trace_exit);

MODULE_DESCRIPTION("kstats: time kernel functions and code through _control");
MODULE_LICENSE("GPL");
