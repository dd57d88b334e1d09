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
 * (fprobe:, with the function graph tracer when built in the kernel tree,
 * else with an fprobe).
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
#include <linux/kprobes.h>
#include <linux/kstats.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
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
static void kstats_trace_gap(struct kstats_trace *t, u64 now)
{
	u64 last = this_cpu_xchg(t->cpu->last_ret, 0);

	if (last)
		kstats_record(t->gap, now - last);
}

static void kstats_trace_open(struct kstats_trace *t, u64 now)
{
	/* A start that overwrites an open one loses that one. */
	if (this_cpu_xchg(t->cpu->start, now))
		atomic_long_inc(&t->missed);
}

static void kstats_trace_close(struct kstats_trace *t, u64 now)
{
	u64 start = this_cpu_xchg(t->cpu->start, 0);

	if (start)
		kstats_record(t->ks, now - start);
	else
		atomic_long_inc(&t->missed);
}

/* A call: the gap since the last return, and the entry time kept. */
static void kstats_trace_enter(struct kstats_trace *t, u64 now, u64 *entry)
{
	kstats_trace_gap(t, now);
	if (entry)
		*entry = now;
	else
		kstats_trace_open(t, now);
}

/* A return: the call's time, and the start of the next gap. */
static void kstats_trace_return(struct kstats_trace *t, u64 now, u64 *entry)
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

/*
 * The address of a function, found the way a kprobe finds it, and only
 * if kprobes would probe it: the probe is registered disabled, so that
 * no code is patched, and removed at once. ftrace cannot be asked by
 * name: it names a location by one of the symbols at its address, not
 * always the one asked for (__do_sys_getppid for __x64_sys_getppid).
 */
static int kstats_trace_fg_addr(struct kstats_trace *t, unsigned long *addr)
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

static int kstats_trace_fg_attach(struct kstats_trace *t)
{
	unsigned long addr;
	int ret;

	ret = kstats_trace_fg_addr(t, &addr);
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

static struct kstats_trace *kstats_trace_find(const char *name)
{
	struct kstats_trace *t;

	lockdep_assert_held(&kstats_trace_mutex);
	list_for_each_entry(t, &kstats_trace_list, node)
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
		if (IS_ENABLED(CONFIG_KSTATS_TRACE_FGRAPH))
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
	t = kstats_trace_find(name);
	if (!t) {
		pr_warn("remove %s: not traced\n", name);
		return -ENOENT;
	}
	list_del(&t->node);
	kstats_trace_detach(t);
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
		if (IS_ENABLED(CONFIG_KSTATS_TRACE_FGRAPH))
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
		kstats_trace_free(t);
	}
	mutex_unlock(&kstats_trace_mutex);
}

module_init(kstats_trace_init);
module_exit(kstats_trace_exit);

MODULE_DESCRIPTION("kstats: time kernel functions and code through _control");
MODULE_LICENSE("GPL");
