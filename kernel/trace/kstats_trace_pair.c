// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_trace: the code between two points, each a kprobe or a
 * tracepoint (trace NAME start POINT end POINT); the end closes the start
 * that the same CPU opened.
 */

#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "kstats_trace.h"
#include "kstats_trace_record.h"

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
 * Unregisters @kp, a kprobe of @t, and notes when kprobes kept it: its
 * address cleared, the kprobe left in kprobes' table (see struct
 * kstats_trace), @t then not to be freed. A kprobe with no handler was
 * never registered (a tracepoint end without a probe stub).
 */
void kstats_trace_kp_unregister(struct kstats_trace *t, struct kprobe *kp)
{
	if (!kp->pre_handler)
		return;
	unregister_kprobe(kp);
	if (!kp->addr)
		t->kept = true;
}

/*
 * register_kprobe() of an end's @kp, failed where kprobes said it had
 * registered a kprobe that it does not have (kstats_kprobe_registered()):
 * not armed and not in kprobes' table, where unregistering finds nothing;
 * most likely for want of ftrace's memory. With no handler, @kp is not
 * unregistered again.
 */
static int kstats_trace_kp_register(struct kprobe *kp)
{
	int ret = register_kprobe(kp);

	if (ret || kstats_kprobe_registered(kp))
		return ret;
	unregister_kprobe(kp);
	kp->pre_handler = NULL;
	return -ENOMEM;
}

/*
 * Where the kprobe of an end at @kp's place goes: on x86, past the call to
 * __fentry__ where that place is one (found as kprobes find it, with @kp
 * registered disabled, which patches no code), so that it is not a kprobe
 * on ftrace but an int3 or a jump-optimized kprobe. Two reasons: kprobes
 * cannot disarm a kprobe on ftrace when ftrace cannot allocate its new
 * filter, and WARN (undoing a half-made pair when memory runs out did);
 * and on 7.3 a kprobe on ftrace and an fprobe with an exit handler on the
 * same function crash the kernel when either comes or goes while the
 * function runs (kstats.rst). x86's ftrace site is one 5-byte instruction;
 * other architectures' are not all so (LoongArch's second instruction is
 * ftrace's to rewrite): there the end stays where kprobes put it. Sets
 * @p->kp.addr; returns whether it moved it, or the error.
 */
static int kstats_trace_past_fentry(struct kstats_trace_point *p, struct kprobe *kp)
{
	int ret;

	kp->flags = KPROBE_FLAG_DISABLED;
	ret = register_kprobe(kp);
	if (ret)
		return ret;
	p->kp.addr = kp->addr;
#if defined(CONFIG_X86) && defined(CONFIG_KPROBES_ON_FTRACE)
	if (kprobe_ftrace(kp)) {
		p->kp.addr = (kprobe_opcode_t *)((unsigned long)kp->addr + MCOUNT_INSN_SIZE);
		ret = 1;
	}
#endif
	unregister_kprobe(kp);
	return ret;
}

#if KSTATS_TP_PROBESTUB
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
 * The kprobe of a tracepoint end goes in the tracepoint's probe stub, past
 * its call to __fentry__ where it has one. The stub is empty: its first
 * argument, the probe's data, is still in its register there.
 */
static int kstats_trace_stub_addr(struct kstats_trace *t, struct kstats_trace_point *p,
				  struct tracepoint *tp)
{
	struct kprobe kp = { .addr = (kprobe_opcode_t *)tp->probestub };
	int ret;

	ret = kstats_trace_past_fentry(p, &kp);
	if (ret < 0) {
		kstats_trace_err(p->sym, "%s: cannot locate the probe stub of tracepoint %s: %d%s",
				 t->name, p->sym, ret, kstats_trace_why(ret));
		return ret;
	}
	/* Not moved: it may be on the stub's ftrace site. */
	return ret ? 0 : kstats_trace_kprobe_clash_at(t, p->sym, (unsigned long)p->kp.addr);
}

/* A tracepoint end: the kprobe on its stub, then the stub as its probe. */
static int kstats_trace_tp_attach(struct kstats_trace *t, struct kstats_trace_point *p,
				  struct tracepoint *tp, bool start)
{
	int ret;

	/* The kprobe first: the stub is not called with @p before. */
	ret = kstats_trace_stub_addr(t, p, tp);
	if (ret)
		return ret;
	p->kp.pre_handler = start ? kstats_trace_tp_start : kstats_trace_tp_end;
	ret = kstats_trace_kp_register(&p->kp);
	if (ret) {
		kstats_trace_err(p->sym, "%s: cannot put a kprobe on the probe stub of tracepoint %s: %d%s",
				 t->name, p->sym, ret, kstats_trace_why(ret));
		return ret;
	}
	ret = tracepoint_probe_register(tp, tp->probestub, p);
	if (ret) {
		kstats_trace_kp_unregister(t, &p->kp);
		kstats_trace_err(p->sym, "%s: cannot attach to tracepoint %s: %d",
				 t->name, p->sym, ret);
		return ret;
	}
	return 0;
}

/* The tracepoint of @p, if it is one, calls the stub with @p no more. */
static void kstats_trace_tp_detach(struct kstats_trace *t, struct kstats_trace_point *p)
{
	if (p->tracepoint)
		tracepoint_probe_unregister(p->tp, p->tp->probestub, p);
}
#else /* !KSTATS_TP_PROBESTUB */
/*
 * Tracepoints without a probe stub: a tracepoint end is a probe of
 * kstats, called with the tracepoint's arguments after @data (the end),
 * which it ignores, as the C calling convention allows (not with
 * CONFIG_CFI_CLANG, which checks the prototype: refused there). Its kprobe
 * is never registered, which unregister_kprobes() skips.
 */
static void kstats_trace_tp_start(void *data)
{
	struct kstats_trace *t = container_of(data, struct kstats_trace, start);

	if (kstats_trace_wanted(t))
		kstats_trace_open(t, kstats_trace_now());
}

static void kstats_trace_tp_end(void *data)
{
	struct kstats_trace *t = container_of(data, struct kstats_trace, end);

	if (kstats_trace_wanted(t))
		kstats_trace_close(t, kstats_trace_now());
}

static void *kstats_trace_tp_probe(const struct kstats_trace *t,
				   const struct kstats_trace_point *p)
{
	return p == &t->start ? (void *)kstats_trace_tp_start :
				(void *)kstats_trace_tp_end;
}

static int kstats_trace_tp_attach(struct kstats_trace *t, struct kstats_trace_point *p,
				  struct tracepoint *tp, bool start)
{
	int ret;

	if (IS_ENABLED(CONFIG_CFI_CLANG)) {
		kstats_trace_err(p->sym, "%s: tracepoint ends need a kernel whose tracepoints have probe stubs, with CONFIG_CFI_CLANG",
				 t->name);
		return -EOPNOTSUPP;
	}
	ret = tracepoint_probe_register(tp, kstats_trace_tp_probe(t, p), p);
	if (ret)
		kstats_trace_err(p->sym, "%s: cannot attach to tracepoint %s: %d",
				 t->name, p->sym, ret);
	return ret;
}

static void kstats_trace_tp_detach(struct kstats_trace *t, struct kstats_trace_point *p)
{
	if (p->tracepoint)
		tracepoint_probe_unregister(p->tp, kstats_trace_tp_probe(t, p), p);
}
#endif /* KSTATS_TP_PROBESTUB */

/* One end of a pair: a kprobe, or a tracepoint of the kernel proper. */
static int kstats_trace_point_attach(struct kstats_trace *t,
				     struct kstats_trace_point *p, bool start)
{
	struct kprobe at = { .symbol_name = p->sym };
	int ret, moved;

	if (p->tracepoint) {
		struct kstats_trace_tp_lookup lookup = { .name = p->sym };

		for_each_kernel_tracepoint(kstats_trace_tp_match, &lookup);
		if (!lookup.tp) {
			kstats_trace_err(p->sym, "%s: no tracepoint %s in the kernel",
					 t->name, p->sym);
			return -ENOENT;
		}
		ret = kstats_trace_tp_attach(t, p, lookup.tp, start);
		if (ret)
			return ret;
		p->tp = lookup.tp;
		return 0;
	}

	moved = 0;
	if (p->offset || !IS_ENABLED(CONFIG_X86) || !IS_ENABLED(CONFIG_KPROBES_ON_FTRACE)) {
		/* Where it may be on ftrace: not beside an fprobe. */
		ret = kstats_trace_kprobe_clash(t, p);
		if (ret)
			return ret;
		p->kp.symbol_name = p->sym;
		p->kp.offset = p->offset;
	} else {
		/* A function's start: past its call to __fentry__. */
		moved = kstats_trace_past_fentry(p, &at);
		if (moved < 0) {
			kstats_trace_err(p->sym, "%s: cannot put a kprobe at %s+0: %d%s",
					 t->name, p->sym, moved, kstats_trace_why(moved));
			return moved;
		}
	}
	p->kp.pre_handler = start ? kstats_trace_kp_start : kstats_trace_kp_end;
	ret = kstats_trace_kp_register(&p->kp);
	if (moved && (ret == -EINVAL || ret == -EILSEQ)) {
		/* Not probeable past the call (a jump label, say): on it. */
		pr_info("%s: %s: no kprobe past __fentry__ at %pS (%d): the end is on ftrace's call\n",
			t->name, p->sym, p->kp.addr, ret);
		p->kp.addr = at.addr;
		p->kp.flags = 0;
		ret = kstats_trace_kprobe_clash(t, p);
		if (ret)
			return ret;
		ret = kstats_trace_kp_register(&p->kp);
	}
	if (ret) {
		kstats_trace_err(p->sym, "%s: cannot put a kprobe at %s+%u: %d%s",
				 t->name, p->sym, p->offset, ret, kstats_trace_why(ret));
		return ret;
	}
	p->addr = (unsigned long)p->kp.addr;
	return 0;
}

/* trace NAME start POINT end POINT */
int kstats_trace_pair_attach(struct kstats_trace *t)
{
	int ret;

	ret = kstats_trace_point_attach(t, &t->start, true);
	if (ret)
		return ret;
	ret = kstats_trace_point_attach(t, &t->end, false);
	if (ret) {
		kstats_trace_tp_detach(t, &t->start);
		kstats_trace_kp_unregister(t, &t->start.kp);
		tracepoint_synchronize_unregister();
	}
	return ret;
}

/*
 * Once unregister_kprobes() has returned (one grace period for both), no
 * handler of the trace runs: a call of a tracepoint's stub still in flight
 * with an end finds no kprobe there.
 */
int kstats_trace_pair_detach(struct kstats_trace *t)
{
	struct kprobe *kps[] = { &t->start.kp, &t->end.kp };

	kstats_trace_tp_detach(t, &t->start);
	kstats_trace_tp_detach(t, &t->end);
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	tracepoint_synchronize_unregister();
	return 0;
}

unsigned long kstats_trace_pair_missed(struct kstats_trace *t)
{
	return t->start.kp.nmissed + t->end.kp.nmissed;
}
