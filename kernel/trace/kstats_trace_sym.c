// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_trace: symbols, and the functions ftrace lists. The one file of
 * kstats_trace that reads ftrace's private hash (kernel/trace/trace.h),
 * where the kernel has it: groups, and the check that a name is one
 * function's, need it.
 */

#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "kstats_trace.h"

#if KSTATS_TRACE_GROUPS
#include "trace.h"
#endif

/*
 * Why kprobes refused a place, for the message: -EINVAL is a place they
 * may not probe: __init code freed after boot, data, a function marked
 * NOKPROBE_SYMBOL() or noinstr, or text reserved for jump labels, static
 * calls or BUG().
 */
const char *kstats_trace_why(int ret)
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
const char *kstats_trace_sym_mod(char *buf, unsigned long ip)
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
int kstats_trace_addr(struct kstats_trace *t, struct kstats_trace_point *p)
{
	struct kprobe kp = {
		.symbol_name = p->sym,
		.offset = p->offset,
		.flags = KPROBE_FLAG_DISABLED,
	};
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		kstats_trace_err(p->sym, "%s: cannot probe %s+%u: %d%s", t->name, p->sym,
				 p->offset, ret, kstats_trace_why(ret));
		return ret;
	}
	p->addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

/* Addresses in order, for sort() and bsearch(). */
int kstats_trace_cmp_ip(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

#if KSTATS_TRACE_GROUPS
/*
 * ftrace's filter of @filter (a glob, as set_ftrace_filter takes it) on an
 * ftrace_ops of its own, never registered, so that nobody else sees it: in
 * *@hash the functions that ftrace can trace and @filter matches, or NULL,
 * and in *@ret the error of ftrace_set_filter() (-EINVAL when nothing
 * matched). Returns the ops, NULL without memory; the hash is read until
 * kstats_trace_hash_put() drops both.
 */
static struct ftrace_ops *kstats_trace_hash_get(const char *filter, struct ftrace_hash **hash,
						int *ret)
{
	struct ftrace_ops *ops;
	char *buf;

	ops = kzalloc_obj(*ops);
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

static void kstats_trace_hash_put(struct ftrace_ops *ops)
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
 * out, and those whose code is about to be freed; more than @max (the
 * max_functions of groups) are refused.
 */
int kstats_trace_glob_funcs(struct kstats_trace *t, unsigned int max, unsigned long **addrs,
			    unsigned int *nr)
{
	unsigned int n = 0;
	char name[KSYM_SYMBOL_LEN];
	struct ftrace_func_entry *e;
	struct ftrace_hash *hash;
	struct ftrace_ops *ops;
	unsigned long *ips = NULL, i;
	int ret;

	ops = kstats_trace_hash_get(t->start.sym, &hash, &ret);
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
	kstats_trace_hash_put(ops);
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
 * The names of the last traces made, each found named by one function,
 * with the generation of the module notifier's count when they were
 * looked up: an add on one of them again, before a module came or went,
 * does not walk ftrace's functions again (as long, under KASAN and TCG,
 * as the rest of the add: 10 adds and removes took 1.2 s, 2.3 s with the
 * walk). Only adds that were made fill it: each step of a failed add is
 * taken again by the next. Under kstats_trace_cmd_mutex. A module is seen
 * by ftrace and kallsyms before the notifier says it comes (and one that
 * fails there is never notified): meanwhile a name remembered unique may
 * have a second function, the same window as a walk just before it came.
 */
#define KSTATS_TRACE_KNOWN	4
static struct {
	char sym[KSYM_NAME_LEN];
	unsigned long gen;
} kstats_trace_known[KSTATS_TRACE_KNOWN];
static unsigned int kstats_trace_known_next;
static atomic_long_t kstats_trace_sym_gen = ATOMIC_LONG_INIT(1);

/* A module comes, goes, or frees its init code: the names may change. */
void kstats_trace_syms_changed(void)
{
	atomic_long_inc(&kstats_trace_sym_gen);
}

/* Read before the names of an add are looked up. */
unsigned long kstats_trace_syms_gen(void)
{
	return atomic_long_read(&kstats_trace_sym_gen);
}

static bool kstats_trace_unique_cached(const char *sym)
{
	unsigned long gen = kstats_trace_syms_gen();
	unsigned int i;

#ifdef CONFIG_FAULT_INJECTION
	/*
	 * A task failing its Nth allocation (/proc/self/fail-nth) walks:
	 * the same N fails the same allocation whatever was added before.
	 */
	if (READ_ONCE(current->fail_nth))
		return false;
#endif
	for (i = 0; i < KSTATS_TRACE_KNOWN; i++)
		if (kstats_trace_known[i].gen == gen && !strcmp(kstats_trace_known[i].sym, sym))
			return true;
	return false;
}

/*
 * @p, of an add that was made, was found named by one function when the
 * notifier's count was @gen (kstats_trace_syms_gen(), read before).
 */
void kstats_trace_unique_remember(const struct kstats_trace_where *p, unsigned long gen)
{
	unsigned int i = kstats_trace_known_next;

	if (p->tracepoint || strlen(p->sym) >= KSYM_NAME_LEN ||
	    kstats_trace_unique_cached(p->sym))
		return;
	strscpy(kstats_trace_known[i].sym, p->sym, sizeof(kstats_trace_known[i].sym));
	kstats_trace_known[i].gen = gen;
	kstats_trace_known_next = (i + 1) % KSTATS_TRACE_KNOWN;
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
int kstats_trace_unique(const char *name, const struct kstats_trace_where *p)
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

	if (p->tracepoint || kstats_trace_unique_cached(p->sym))
		return 0;
	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	ops = buf ? kstats_trace_hash_get(func, &hash, &ret) : NULL;
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
	kstats_trace_hash_put(ops);
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
#else
/* Without ftrace's hash, names that several functions share are not seen. */
int kstats_trace_unique(const char *name, const struct kstats_trace_where *p)
{
	return 0;
}

void kstats_trace_syms_changed(void)
{
}

unsigned long kstats_trace_syms_gen(void)
{
	return 0;
}

void kstats_trace_unique_remember(const struct kstats_trace_where *p, unsigned long gen)
{
}
#endif /* KSTATS_TRACE_GROUPS */
