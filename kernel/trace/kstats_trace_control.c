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
 * This file is the control file: the list of traces, the commands that
 * add and remove them (each mode's attach and detach in its own file, see
 * kstats_trace.h), the module notifier, the listing, and the module's
 * init and exit. See Documentation/dev-tools/kstats.rst.
 */

#define pr_fmt(fmt) "kstats_trace: " fmt

#include <kunit/visibility.h>
#include <linux/bsearch.h>
#include <linux/cgroup.h>
#include <linux/debugfs.h>
#include <linux/kallsyms.h>
#include <linux/kstats.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kstats_trace.h"

/* Only with KUnit: out of tree, kernels before 6.3 have no static stubs. */
#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/static_stub.h>
#endif

unsigned int kstats_trace_max_functions = 1000;
module_param_named(max_functions, kstats_trace_max_functions, uint, 0644);
MODULE_PARM_DESC(max_functions,
		 "Most functions a group (trace fprobe:GLOB as NAME) may time (default 1000)");

static unsigned long max_memory_mb = 256;

/* max_memory_mb, refused when it is more bytes than a size_t holds. */
static int kstats_trace_set_max_memory(const char *val, const struct kernel_param *kp)
{
	unsigned long mb;
	int ret;

	ret = kstrtoul(val, 0, &mb);
	if (ret)
		return ret;
	if (mb > SIZE_MAX >> 20) {
		pr_warn("max_memory_mb %lu: at most %zu\n", mb, SIZE_MAX >> 20);
		return -ERANGE;
	}
	*(unsigned long *)kp->arg = mb;
	return 0;
}

static const struct kernel_param_ops kstats_trace_max_memory_ops = {
	.set = kstats_trace_set_max_memory,
	.get = param_get_ulong,
};

module_param_cb(max_memory_mb, &kstats_trace_max_memory_ops, &max_memory_mb, 0644);
MODULE_PARM_DESC(max_memory_mb,
		 "Most memory, in MiB, that all traces together may take (default 256)");

/*
 * kstats_trace_cmd_mutex serializes the commands: the one that holds it
 * owns error_log's command (kstats_trace_errlog_begin()), and checks that the
 * function of a trace or the two of a pair are named by one function
 * each, a walk of ftrace's functions, without kstats_trace_mutex. That
 * one, taken inside it, serializes the commands' changes (a group's walk
 * of its glob, the probes' registration), the module notifier and the
 * readers of _control, and protects kstats_trace_list; probe handlers
 * never take either.
 */
static DEFINE_MUTEX(kstats_trace_cmd_mutex);
/* Inside kstats_trace_cmd_mutex: the traces, and their probes. */
DEFINE_MUTEX(kstats_trace_mutex);
static LIST_HEAD(kstats_trace_list);
static struct dentry *kstats_trace_control, *kstats_trace_error_log;
/* The memory of the metrics and pools of all traces, in bytes. */
static size_t kstats_trace_memory;

/* What each mode does, indexed by enum kstats_trace_mode. */
static const struct kstats_trace_mode_ops kstats_trace_mode_ops[] = {
	[KSTATS_TRACE_KRETPROBE] = {
		.name = "kretprobe",
		.attach = kstats_trace_krp_attach,
		.detach = kstats_trace_krp_detach,
		.missed = kstats_trace_krp_missed,
	},
	[KSTATS_TRACE_PCPU] = {
		.name = "pcpu",
		.attach = kstats_trace_krp_attach,
		.detach = kstats_trace_krp_detach,
		.missed = kstats_trace_krp_missed,
	},
	[KSTATS_TRACE_FPROBE] = {
		.name = "fprobe",
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
		.missed = kstats_trace_grp_missed,
	},
};

static_assert(ARRAY_SIZE(kstats_trace_mode_ops) == KSTATS_TRACE_NR_MODES);

/*
 * Sets @t stuck, or not, by what its detach returned: after an error,
 * @ret, it is not to be freed, as a handler may still run. It stays listed
 * as stuck with the error, and this module is pinned, for the handlers'
 * code, until a detach succeeds, which unpins it. Returns whether @t is
 * stuck.
 */
bool kstats_trace_set_stuck(struct kstats_trace *t, int ret)
{
	if (ret) {
		if (!t->stuck)
			__module_get(THIS_MODULE);
		t->stuck = ret;
		return true;
	}
	if (t->stuck)
		module_put(THIS_MODULE);
	t->stuck = 0;
	return false;
}

/*
 * The memory of @n metrics of @bits, on every possible CPU; SIZE_MAX, more
 * than any budget, when that is more than a size_t holds (on 32 bits).
 */
size_t kstats_trace_metric_memory(unsigned int n, unsigned int bits)
{
	size_t size = sizeof(struct kstats_slot);

	if (check_mul_overflow(size, (size_t)kstats_nr_slots(bits), &size) ||
	    check_mul_overflow(size, (size_t)n, &size) ||
	    check_mul_overflow(size, (size_t)num_possible_cpus(), &size))
		return SIZE_MAX;
	return size;
}

/*
 * Counts @size more bytes for @t in the budget of all traces, or refuses
 * them, before anything of that size is allocated.
 */
int kstats_trace_budget(struct kstats_trace *t, size_t size, const char *what)
{
	unsigned long mb = READ_ONCE(max_memory_mb);
	size_t max = (size_t)mb << 20;

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

static struct kstats_trace *kstats_trace_find(const char *name)
{
	struct kstats_trace *t;

	lockdep_assert_held(&kstats_trace_mutex);
	list_for_each_entry(t, &kstats_trace_list, node)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

#if KSTATS_FPROBE_FGRAPH
/*
 * Where fprobe runs on the function-graph tracer (7.3 seen), a kprobe on a
 * function's ftrace site and an fprobe with an exit handler on the same
 * function crash the kernel when either is registered or unregistered
 * while the function runs: a return through return_to_handler to address
 * 0 (kstats.rst). kstats never puts both on one function itself: an add
 * that would is refused, before its probe is registered. Each fprobe of
 * kstats has an exit handler; the addresses compared are those of ftrace's
 * sites, where fprobes go, and kprobes at a function's start on ftrace:
 * one address on x86, where kprobes resolve FUNC+0 past an ENDBR to the
 * site (an architecture that resolves it otherwise may make them differ,
 * and the clash unseen). Probes of other tracers (kprobe events, BPF) are
 * not seen either.
 */

/*
 * The address of the kprobe of @p, as attached: kept when kprobes keeps
 * the kprobe and clears its @addr (see struct kstats_trace), as such a
 * kprobe may still be in ftrace's filter. A tracepoint end's is on its
 * probe stub.
 */
static unsigned long kstats_trace_kprobe_addr(const struct kstats_trace_point *p)
{
	return p->tracepoint ? (unsigned long)p->kp.addr : p->addr;
}

/* The kprobes of @t, by address, in @addrs[2]; how many. */
static unsigned int kstats_trace_kprobe_addrs(const struct kstats_trace *t,
					      unsigned long *addrs)
{
	if (t->gone[0])
		return 0;
	switch (t->mode) {
	case KSTATS_TRACE_KRETPROBE:
	case KSTATS_TRACE_PCPU:
		addrs[0] = t->start.addr;
		return 1;
	case KSTATS_TRACE_PAIR:
		addrs[0] = kstats_trace_kprobe_addr(&t->start);
		addrs[1] = kstats_trace_kprobe_addr(&t->end);
		return 2;
	default:
		return 0;
	}
}

/* Whether @t has an fprobe on the function whose ftrace site is @addr. */
static bool kstats_trace_fprobe_at(const struct kstats_trace *t, unsigned long addr)
{
	if (t->gone[0])
		return false;
	if (t->mode == KSTATS_TRACE_FPROBE)
		return t->start.addr == addr;
	return t->mode == KSTATS_TRACE_GROUP && kstats_trace_grp_has(t, addr);
}

static void kstats_trace_clash_err(const struct kstats_trace *t, const char *word,
				   unsigned long addr, const struct kstats_trace *other)
{
	kstats_trace_err(word, "%s: %ps has %s of %s already: on this kernel, whose fprobes run on the function-graph tracer, a kprobe and an fprobe on one function crash it when either comes or goes while the function runs; time it with one kind of probe (fprobe:FUNC, or a group)",
			 t->name, (void *)addr,
			 t->mode == KSTATS_TRACE_FPROBE || t->mode == KSTATS_TRACE_GROUP ?
			 "a kprobe" : "an fprobe", other->name);
}

/* Whether any trace of kstats has an fprobe, gone or not. */
static bool kstats_trace_fprobes(void)
{
	struct kstats_trace *t;

	list_for_each_entry(t, &kstats_trace_list, node)
		if (t->mode == KSTATS_TRACE_FPROBE || t->mode == KSTATS_TRACE_GROUP)
			return true;
	return false;
}

/**
 * kstats_trace_kprobe_clash_at() - whether a kprobe may go at an address
 * @t: the trace being attached, not yet in the list of traces
 * @word: the word of its command that named the place, for error_log
 * @addr: where the kprobe goes, as kprobes resolved it
 *
 * Context: holding kstats_trace_mutex, before the kprobe is registered.
 * Return: 0, or -EBUSY when an fprobe of kstats is on the function whose
 * ftrace site is @addr (see above); error_log says which.
 */
int kstats_trace_kprobe_clash_at(const struct kstats_trace *t, const char *word,
				 unsigned long addr)
{
	struct kstats_trace *other;

	lockdep_assert_held(&kstats_trace_mutex);
	list_for_each_entry(other, &kstats_trace_list, node) {
		if (kstats_trace_fprobe_at(other, addr)) {
			kstats_trace_clash_err(t, word, addr, other);
			return -EBUSY;
		}
	}
	return 0;
}

/**
 * kstats_trace_kprobe_clash() - whether a kprobe may go at a point
 * @t: the trace being attached, not yet in the list of traces
 * @p: the point of its kprobe: @p->sym + @p->offset
 *
 * Where kstats has an fprobe, finds the address of @p as kprobes will
 * (sets @p->addr), and compares (kstats_trace_kprobe_clash_at()).
 *
 * Context: holding kstats_trace_mutex, before the kprobe is registered.
 * Return: 0; -EBUSY when an fprobe of kstats is on that function, or the
 * error of the lookup; error_log says which.
 */
int kstats_trace_kprobe_clash(struct kstats_trace *t, struct kstats_trace_point *p)
{
	int ret;

	lockdep_assert_held(&kstats_trace_mutex);
	if (!kstats_trace_fprobes())
		return 0;
	ret = kstats_trace_addr(t, p);
	if (ret)
		return ret;
	return kstats_trace_kprobe_clash_at(t, p->sym, p->addr);
}

/**
 * kstats_trace_fprobe_clash() - whether an fprobe may go on functions
 * @t: the trace being attached, not yet in the list of traces
 * @ips: the ftrace sites of its functions, in address order
 * @n: how many
 *
 * Context: holding kstats_trace_mutex, before the fprobe is registered.
 * Return: 0, or -EBUSY when a kprobe of kstats is at one of @ips (see
 * above); error_log says which.
 */
int kstats_trace_fprobe_clash(const struct kstats_trace *t, const unsigned long *ips,
			      unsigned int n)
{
	struct kstats_trace *other;
	unsigned long addrs[2];
	unsigned int i, nr;

	lockdep_assert_held(&kstats_trace_mutex);
	list_for_each_entry(other, &kstats_trace_list, node) {
		nr = kstats_trace_kprobe_addrs(other, addrs);
		for (i = 0; i < nr; i++) {
			if (addrs[i] && bsearch(&addrs[i], ips, n, sizeof(*ips),
						kstats_trace_cmp_ip)) {
				kstats_trace_clash_err(t, t->start.sym, addrs[i], other);
				return -EBUSY;
			}
		}
	}
	return 0;
}
#endif /* KSTATS_FPROBE_FGRAPH */

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

/*
 * Whether kprobes kept a kprobe of @t that it was asked to unregister:
 * unregister_kprobe() and unregister_kretprobe() return nothing, and
 * clear the probe's address when they leave it in kprobes' table (a
 * kprobe on ftrace that could not be disarmed for want of memory, on
 * kernels before kprobes disarmed it all the same).
 */
static bool kstats_trace_kprobes_kept(struct kstats_trace *t)
{
	switch (t->mode) {
	case KSTATS_TRACE_KRETPROBE:
	case KSTATS_TRACE_PCPU:
		t->kept |= !t->krp.kp.addr;
		break;
	case KSTATS_TRACE_PAIR:
		/* An end's kprobe was registered if it has a handler. */
		t->kept |= (t->start.kp.pre_handler && !t->start.kp.addr) ||
			   (t->end.kp.pre_handler && !t->end.kp.addr);
		break;
	default:
		break;
	}
	return t->kept;
}

/*
 * Detaches @t unless its module's going did; returns whether it is
 * detached (see kstats_trace_set_stuck()). A trace whose kprobe kprobes
 * kept is never detached again: a second unregistration would free its
 * kretprobe's rethook once more, or count the probe out twice.
 */
static bool kstats_trace_detach(struct kstats_trace *t)
{
	int ret = 0;

	if (t->kept)
		ret = -EBUSY;
	else if (!t->gone[0])
		ret = kstats_trace_detach_mode(t);
	if (!ret && kstats_trace_kprobes_kept(t)) {
		pr_warn("%s: kprobes kept its kprobe, which it could not disarm: the trace stays, listed as stuck, and kstats_trace stays loaded\n",
			t->name);
		ret = -EBUSY;
	}
	return !kstats_trace_set_stuck(t, ret);
}

static void kstats_trace_free(struct kstats_trace *t)
{
	kstats_trace_fgraph_put(t);
	put_pid(t->pid);
#ifdef CONFIG_CGROUPS
	if (t->cgrp)
		cgroup_put(t->cgrp);
#endif
	kfree(t->cgroup_path);
	kstats_delete(t->gap);
	/* A group: all its metrics. */
	kstats_delete(t->ks);
	kstats_trace_grp_free(t);
	kstats_trace_memory -= t->memory;
	free_percpu(t->cpu);
	kfree(t->end.sym);
	kfree(t->start.sym);
	kfree(t->name);
	kfree(t);
}

/*
 * The task filters of a new trace: a reference on the process of pid N, as the
 * writer's pid namespace numbers it, and on the cgroup of PATH. Each must
 * exist when the trace is added; a process that exits later only matches
 * no call.
 */
static int kstats_trace_task_filters(struct kstats_trace *t, const struct kstats_trace_cmd *cmd)
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
	if (KSTATS_FPROBE_FGRAPH && cmd->maxactive &&
	    (cmd->mode == KSTATS_TRACE_FPROBE || cmd->mode == KSTATS_TRACE_GROUP)) {
		kstats_trace_err("maxactive",
				 "%s: maxactive: on this kernel fprobe keeps a call's entry data on its task's shadow stack: there is no pool of calls in flight to size",
				 cmd->name);
		return -EOPNOTSUPP;
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
	t = kzalloc_obj(*t);
	if (!t)
		return -ENOMEM;
	t->mode = cmd->mode;
	t->bits = cmd->bits;
	t->maxactive = cmd->maxactive;
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
	ret = kstats_trace_task_filters(t, cmd);
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
	if (ret && t->kept) {
		/* Undone, but kprobes kept a probe of it: never freed. */
		kstats_trace_err(t->name, "%s: kprobes kept a kprobe of the failed attach, which it could not disarm: the trace stays, listed as stuck",
				 t->name);
		kstats_trace_set_stuck(t, -EBUSY);
		list_add_tail(&t->node, &kstats_trace_list);
		return ret;
	}
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
		if (t->kept)
			kstats_trace_err(name, "remove %s: kprobes kept its kprobe, which it could not disarm: it stays, listed as stuck, never freed, with kstats_trace pinned",
					 name);
		else
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
 * of it is left behind, and error_log tells why; but for an add whose
 * undoing left a kprobe that kprobes kept (see kstats_trace_kprobes_kept()):
 * that trace stays, listed as stuck, never freed.
 *
 * Context: process context, holding neither mutex of kstats_trace; takes
 * kstats_trace_cmd_mutex (killable), and kstats_trace_mutex for a command
 * that parsed and passed the checks of an add; may sleep.
 * Return: 0, or the errors of kstats_trace_parse(), -E2BIG for a command
 * longer than KSTATS_TRACE_LINE_MAX, -ENOENT for an unknown symbol,
 * tracepoint, cgroup or name to remove, -EADDRNOTAVAIL for a name that
 * several functions share, -ESRCH for a pid that is no process,
 * -EOPNOTSUPP for a cgroup without CONFIG_CGROUPS or for maxactive where
 * fprobe has no pool of calls in flight (6.14 on), -EEXIST for a name in
 * use, -ENOMEM, the error of the probe's registration, -EBUSY for the
 * remove of a trace whose detach failed (it stays, listed as stuck) or
 * for a kprobe and an fprobe on one function where they clash
 * (kstats_trace_kprobe_clash()), or -EINTR for a fatal signal while it
 * waited for another command; a warning says what was wrong.
 */
VISIBLE_IF_KUNIT int kstats_trace_exec(const char *buf, size_t len)
{
	struct kstats_trace_cmd cmd;
	char *line, *text, *cmdline;
	unsigned long gen;
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
	cmdline = strim(text);
	kstats_trace_errlog_begin(cmdline, line, len, cmdline - text);
	if (strlen(line) != len) {
		kstats_trace_err(NULL, "NUL character in command");
		ret = -EINVAL;
	} else {
		ret = kstats_trace_parse(line, &cmd);
	}
	/* Before the names are looked up: a module may come meanwhile. */
	gen = kstats_trace_syms_gen();
	if (!ret && cmd.verb == KSTATS_TRACE_ADD)
		ret = kstats_trace_may_add(&cmd);
	if (!ret && cmd.verb != KSTATS_TRACE_NONE) {
		mutex_lock(&kstats_trace_mutex);
		switch (cmd.verb) {
		case KSTATS_TRACE_ADD:
			ret = kstats_trace_add(&cmd);
			if (ret || cmd.mode == KSTATS_TRACE_GROUP)
				break;
			kstats_trace_unique_remember(&cmd.start, gen);
			if (cmd.mode == KSTATS_TRACE_PAIR)
				kstats_trace_unique_remember(&cmd.end, gen);
			break;
		case KSTATS_TRACE_REMOVE:
			ret = kstats_trace_remove(cmd.name);
			break;
		default:
			break;
		}
		mutex_unlock(&kstats_trace_mutex);
	}
	kstats_trace_errlog_end();
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

	kstats_trace_syms_changed();
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
			if (!kstats_trace_grp_going(t, mod, state == MODULE_STATE_LIVE))
				pr_warn("%s: cannot be detached as module %s goes: %d; it stays, listed as stuck, with kstats_trace pinned, until a remove detaches it\n",
					t->name, mod->name, t->stuck);
			else if (t->gone[0])
				pr_info("%s: detached as module %s goes; the metrics stay until 'remove %s'\n",
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
	unsigned long missed = kstats_trace_mode_ops[t->mode].missed(t);
	int cpu;

	for_each_possible_cpu(cpu)
		missed += per_cpu_ptr(t->cpu, cpu)->missed;
	return missed;
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
	"#     function's GAP-NAME too: from a return to the next call),\n"
	"#     maxactive N (calls in flight at once, where the probe has a pool)\n"
	"# remove NAME\n"
	"# Each trace is listed here, as\n"
	"# name NAME mode MODE start POINT end POINT bits N samples N missed N\n"
	"#     memory BYTES [maxactive N] [gap GAP-NAME] [pid N] [cgroup PATH]\n"
	"#     [gone MODULE] [stuck ERRNO [kept]]\n"
	"# name NAME mode group glob GLOB functions N bits N samples N missed N\n"
	"#     memory BYTES [maxactive N] [pid N] [cgroup PATH] [gone MODULE,...]\n"
	"#     [stuck ERRNO]\n"
	"# and timed into kstats/NAME and, with gap, kstats/GAP-NAME; see\n"
	"# error_log for why a command failed.\n";

/*
 * The calls in flight at once that the probe holds, where it has a pool of
 * them: kretprobes, and fprobes before 6.14. Calls past it are missed.
 */
static void kstats_trace_show_pool(struct seq_file *m, const struct kstats_trace *t)
{
	unsigned int nr = 0;

	switch (t->mode) {
	case KSTATS_TRACE_KRETPROBE:
	case KSTATS_TRACE_PCPU:
		nr = t->krp.maxactive;
		break;
#if !KSTATS_FPROBE_FGRAPH
	case KSTATS_TRACE_FPROBE:
	case KSTATS_TRACE_GROUP:
		nr = t->fp.nr_maxactive;
		break;
#endif
	default:
		break;
	}
	if (nr)
		seq_printf(m, " maxactive %u", nr);
}

static void kstats_trace_show_task_filters(struct seq_file *m, const struct kstats_trace *t)
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

	for (i = 0; i < t->grp.nr_funcs; i++) {
		samples += kstats_count(t->grp.funcs[i].ks);
		cond_resched();
	}
	seq_printf(m, "name %s mode group glob %s functions %u bits %u samples %llu missed %lu memory %zu",
		   t->name, t->start.sym, t->grp.nr_funcs, t->bits, samples,
		   kstats_trace_missed(t), t->memory);
	kstats_trace_show_pool(m, t);
	kstats_trace_show_task_filters(m, t);
	if (t->grp.gone_mods)
		seq_printf(m, " gone %s", t->grp.gone_mods);
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
		kstats_trace_show_pool(m, t);
		if (t->gap)
			seq_printf(m, " gap %s%s", KSTATS_TRACE_GAP, t->name);
		kstats_trace_show_task_filters(m, t);
		if (t->gone[0])
			seq_printf(m, " gone %s", t->gone);
		if (t->stuck)
			seq_printf(m, " stuck %d%s", t->stuck, t->kept ? " kept" : "");
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

static int __init kstats_trace_init(void)
{
	int ret;

	kstats_trace_fp_init();
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
		if (!ret && kstats_trace_kprobes_kept(t))
			ret = -EBUSY;
		if (!WARN_ONCE(ret, "kstats_trace: %s cannot be detached (%d): leaked\n",
			       t->name, ret))
			kstats_trace_free(t);
	}
	kstats_trace_fgraph_release();
	mutex_unlock(&kstats_trace_mutex);
	/* A release queued by the last free finds nothing left to do. */
	kstats_trace_fgraph_cancel();
	kstats_trace_errlog_clear();
	/* After the traces: a module going meanwhile found them detached. */
	unregister_module_notifier(&kstats_trace_module_nb);
	kstats_trace_freed_clear();
}

module_init(kstats_trace_init);
module_exit(kstats_trace_exit);

MODULE_DESCRIPTION("kstats: time kernel functions and code through _control");
MODULE_LICENSE("GPL");

