// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_trace: a group, trace fprobe:GLOB as NAME: one fprobe on every
 * function that an ftrace glob matches, and a metric per function, in the
 * directory NAME. Built where kstats_trace_sym.c can read ftrace's hash.
 */

#define pr_fmt(fmt) "kstats_trace: " fmt

#include <linux/fprobe.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/kstats.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "kstats_trace.h"
#include "kstats_trace_record.h"

#if !KSTATS_TRACE_GROUPS
#error "groups are built only where kstats_trace.h finds trace.h, with CONFIG_FPROBE"
#endif

/* The calls of a group's functions in flight at once, by default at most. */
#define KSTATS_TRACE_GROUP_ACTIVE	4096

/*
 * A call of a group's function, in the fprobe's entry data: as struct
 * kstats_trace_fp_data, with the function; @func is used only if @gen is
 * the fprobe's (it may be another group's, freed).
 */
struct kstats_trace_call {
	u64 gen;
	u64 start;
	struct kstats_trace_func *func;
};

/* A call may return into another trace's fprobe: the generation first. */
static_assert(offsetof(struct kstats_trace_call, gen) ==
	      offsetof(struct kstats_trace_fp_data, gen));
#if KSTATS_FPROBE_FGRAPH
static_assert(sizeof(struct kstats_trace_call) <= MAX_FPROBE_DATA_SIZE);
#endif

/*
 * The function of a group called at @ip, in constant time: @ip's slot
 * of the table, or the first of the slots after it that holds @ip. The
 * table is at most half full, so that the run of slots to go through is
 * short; an empty slot ends it.
 */
static __always_inline struct kstats_trace_func *
kstats_trace_func_find(const struct kstats_trace *t, unsigned long ip)
{
	unsigned int mask = (1U << t->grp.table_bits) - 1;
	unsigned int i = hash_long(ip, t->grp.table_bits);
	struct kstats_trace_func *f;

	for (;; i = (i + 1) & mask) {
		f = t->grp.table[i];
		if (!f || f->ip == ip)
			return f;
	}
}

/* Whether @t's fprobe is on the function whose ftrace site is @ip. */
bool kstats_trace_grp_has(const struct kstats_trace *t, unsigned long ip)
{
	const struct kstats_trace_func *f;

	if (!t->grp.table)
		return false;
	f = kstats_trace_func_find(t, ip);
	return f && !f->gone;
}

static int kstats_trace_grp_entry(struct fprobe *fp, unsigned long ip,
				  unsigned long ret_ip, struct kstats_fprobe_regs *regs,
				  void *data)
{
	struct kstats_trace *t = container_of(fp, struct kstats_trace, fp);
	struct kstats_trace_call *call = data;

	call->gen = 0;
	if (!kstats_trace_wanted(t))
		return 1;
	call->func = kstats_trace_func_find(t, ip);
	/* Not one of the group's: cannot be, as ftrace calls only those. */
	if (unlikely(!call->func)) {
		this_cpu_inc(t->cpu->missed);
		return 1;
	}
	call->gen = t->fp_gen;
	call->start = kstats_trace_now();
	return 0;
}

NOKPROBE_SYMBOL(kstats_trace_grp_entry);

static void kstats_trace_grp_exit(struct fprobe *fp, unsigned long ip,
				  unsigned long ret_ip, struct kstats_fprobe_regs *regs,
				  void *data)
{
	struct kstats_trace *t = container_of(fp, struct kstats_trace, fp);
	struct kstats_trace_call *call = data;

	if (likely(call && call->gen == t->fp_gen))
		kstats_trace_record_in(t, call->func->ks, call->start, kstats_trace_now());
}

NOKPROBE_SYMBOL(kstats_trace_grp_exit);
KSTATS_FPROBE_COMPAT(kstats_trace_grp_entry, kstats_trace_grp_exit);

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
	f = kmalloc_obj(*f);
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
void kstats_trace_freed_clear(void)
{
	struct kstats_trace_freed *f, *tmp;

	list_for_each_entry_safe(f, tmp, &kstats_trace_freed_list, node) {
		list_del(&f->node);
		kfree(f);
	}
}

/* The text a module's new state will free, or that its coming reuses. */
void kstats_trace_freed_note(const struct module *mod, unsigned long state)
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
bool kstats_trace_grp_freed(unsigned long ip, const char *sym)
{
	struct kstats_trace_freed *f;

	lockdep_assert_held(&kstats_trace_mutex);
	list_for_each_entry(f, &kstats_trace_freed_list, node)
		if (ip - f->start < f->size)
			return true;
	/* Not listed for lack of memory: no function of a module, then. */
	return kstats_trace_freed_lost && strchr(sym, '[');
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
 * Sizes the fprobe's pool of calls in flight, and returns its memory. On the
 * function-graph tracer, a call's entry data is on its task's shadow
 * stack, which every task has once any function-graph user is registered:
 * no pool.
 */
static size_t kstats_trace_grp_pool(struct kstats_trace *t, unsigned int n)
{
#if KSTATS_FPROBE_FGRAPH
	return 0;
#else
	/*
	 * The calls in flight at once, each with an entry of the fprobe's
	 * pool: maxactive N, or fprobe's default, 2 per function per CPU,
	 * up to KSTATS_TRACE_GROUP_ACTIVE: far more than most machines run
	 * at once, and its objpool costs a pointer per entry per CPU. Calls
	 * past this are missed.
	 */
	t->fp.nr_maxactive = t->maxactive ?:
		min_t(size_t, (size_t)2 * n * num_possible_cpus(), KSTATS_TRACE_GROUP_ACTIVE);
	return kstats_trace_pool_memory(t->fp.nr_maxactive,
					kstats_trace_fprobe_node(sizeof(struct kstats_trace_call)));
#endif
}

/*
 * trace fprobe:GLOB as NAME: one fprobe on every function that GLOB
 * matches, registered by address, and a metric per function in the
 * group NAME. The handlers find a call's function in a table made here
 * and left as it is while the fprobe is registered.
 */
int kstats_trace_grp_attach(struct kstats_trace *t)
{
	struct kstats_trace_grp_name *names = NULL;
	unsigned int i, j, n;
	unsigned long *ips;
	int ret;

	ret = kstats_trace_glob_funcs(t, READ_ONCE(kstats_trace_max_functions), &ips, &n);
	if (ret)
		return ret;
	ret = kstats_trace_budget(t, kstats_trace_metric_memory(n, t->bits) +
				  kstats_trace_grp_pool(t, n), "the group");
	if (ret)
		goto out;
	ret = kstats_trace_grp_names(t, ips, n, &names);
	if (ret)
		goto out;
	t->grp.nr_funcs = n;
	t->grp.table_bits = ilog2(roundup_pow_of_two(2 * n));
	t->grp.funcs = kvcalloc(n, sizeof(*t->grp.funcs), GFP_KERNEL);
	t->grp.table = kvcalloc(BIT(t->grp.table_bits), sizeof(*t->grp.table), GFP_KERNEL);
	if (!t->grp.funcs || !t->grp.table) {
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
		struct kstats_trace_func *f = &t->grp.funcs[names[i].idx];

		f->ip = ips[names[i].idx];
		f->ks = kstats_new_in(t->ks, names[i].name, t->bits);
		if (IS_ERR(f->ks)) {
			ret = PTR_ERR(f->ks);
			kstats_trace_err(t->name, "%s: cannot create the metric %s: %d",
					 t->name, names[i].name, ret);
			goto out;
		}
		for (j = hash_long(f->ip, t->grp.table_bits); t->grp.table[j];
		     j = (j + 1) & (BIT(t->grp.table_bits) - 1))
			;
		t->grp.table[j] = f;
		cond_resched();
	}
	/*
	 * No RCU flag needed for the cgroup filter: fprobe calls the entry
	 * handler only where RCU is watching (rethook gives a node only
	 * there; on the function-graph tracer, fprobe tests it).
	 */
	t->fp.entry_handler = kstats_fprobe_handler(kstats_trace_grp_entry);
	t->fp.exit_handler = kstats_fprobe_handler(kstats_trace_grp_exit);
	t->fp.entry_data_size = sizeof(struct kstats_trace_call);
	t->fp_gen = kstats_trace_fp_new_gen();
	/* After the group's name is taken: a name in use is said first. */
	ret = kstats_trace_fprobe_clash(t, ips, n);
	if (ret)
		goto out;
	ret = kstats_trace_fgraph_hold(t);
	if (ret)
		goto out;
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
 * Takes the group's @n functions within @mod (its init code, with @init)
 * out of its fprobe, the
 * others traced on. Returns 0, or an error with the fprobe as it was, or
 * with @*off set, unregistered.
 */
static int kstats_trace_grp_drop(struct kstats_trace *t, struct module *mod, bool init,
				 unsigned int n, bool *off)
{
	bool (*within)(unsigned long addr, const struct module *mod) =
		init ? within_module_init : within_module;
	unsigned int i, j = 0;
	unsigned long *ips;
	int ret;

#if KSTATS_FPROBE_FGRAPH
	/*
	 * fprobe cannot drop some of an fprobe's functions: it is registered
	 * again with the others, under a new generation (a call in flight
	 * from before returns to data of the old one), while ftrace still
	 * has the records of the code going (this notifier runs first).
	 * fprobe's own notifier would drop a going module's functions, but
	 * leave their addresses in its ftrace filter, and not those of init
	 * code freed.
	 */
	n = t->grp.nr_funcs - t->grp.nr_gone - n;
	ips = kcalloc(n, sizeof(*ips), GFP_KERNEL);
	if (!ips)
		return -ENOMEM;
	for (i = 0; i < t->grp.nr_funcs; i++)
		if (!t->grp.funcs[i].gone && !within(t->grp.funcs[i].ip, mod))
			ips[j++] = t->grp.funcs[i].ip;
	ret = unregister_fprobe(&t->fp);
	if (!ret) {
		/* fprobe counts the calls missed from 0 again. */
		t->grp.missed += t->fp.nmissed;
		t->fp_gen = kstats_trace_fp_new_gen();
		ret = register_fprobe_ips(&t->fp, ips, n);
		if (ret) {
			pr_warn("%s: cannot put the fprobe back on %u functions: %d\n",
				t->name, n, ret);
			*off = true;
		}
	}
#else
	ips = kcalloc(n, sizeof(*ips), GFP_KERNEL);
	if (!ips)
		return -ENOMEM;
	for (i = 0; i < t->grp.nr_funcs; i++)
		if (!t->grp.funcs[i].gone && within(t->grp.funcs[i].ip, mod))
			ips[j++] = t->grp.funcs[i].ip;
	ret = ftrace_set_filter_ips(&t->fp.ops, ips, n, 1, 0);
#endif
	kfree(ips);
	return ret;
}

/*
 * A module going, or with @init its init code freed: the group's functions
 * in it leave ftrace's filter, so that code loaded there later is not
 * traced; the rest go on. When none would be left, the fprobe goes, as an
 * empty filter traces everything. Returns false if the group could not be
 * detached.
 */
bool kstats_trace_grp_going(struct kstats_trace *t, struct module *mod, bool init)
{
	bool (*within)(unsigned long addr, const struct module *mod) =
		init ? within_module_init : within_module;
	unsigned int i, n = 0;
	bool off = false;
	char *gone;
	int ret = 0;

	for (i = 0; i < t->grp.nr_funcs; i++)
		n += !t->grp.funcs[i].gone && within(t->grp.funcs[i].ip, mod);
	if (!n)
		return true;
	if (n < t->grp.nr_funcs - t->grp.nr_gone)
		ret = kstats_trace_grp_drop(t, mod, init, n, &off);
	/* None left, or no way to take these out: the whole group goes. */
	if (ret || n == t->grp.nr_funcs - t->grp.nr_gone) {
		if (ret)
			pr_warn("%s: cannot take the functions of %s%s out of its fprobe: %d; the whole group is detached\n",
				t->name, mod->name, init ? "(init)" : "", ret);
		if (!off && kstats_trace_set_stuck(t, unregister_fprobe(&t->fp)))
			return false;
		strscpy(t->gone, mod->name, sizeof(t->gone));
	}
	for (i = 0; i < t->grp.nr_funcs; i++) {
		if (!t->grp.funcs[i].gone && (t->gone[0] || within(t->grp.funcs[i].ip, mod))) {
			t->grp.funcs[i].gone = true;
			t->grp.nr_gone++;
		}
	}
	/* The init code of a module that stays: MODULE(init). */
	gone = kasprintf(GFP_KERNEL, "%s%s%s%s", t->grp.gone_mods ?: "",
			 t->grp.gone_mods ? "," : "", mod->name,
			 init ? "(init)" : "");
	if (gone) {
		kfree(t->grp.gone_mods);
		t->grp.gone_mods = gone;
	}
	return true;
}

int kstats_trace_grp_detach(struct kstats_trace *t)
{
	return unregister_fprobe(&t->fp);
}

unsigned long kstats_trace_grp_missed(struct kstats_trace *t)
{
	return t->grp.missed + t->fp.nmissed;
}

/* The functions of a group, and their table: its metrics go with t->ks. */
void kstats_trace_grp_free(struct kstats_trace *t)
{
	kvfree(t->grp.funcs);
	kvfree(t->grp.table);
	kfree(t->grp.gone_mods);
}
