/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats_trace: the commands of /sys/kernel/debug/kstats/_control, and what
 * the files of the module share:
 *
 *   kstats_trace_control.c  the control file, the list of traces, add and
 *                           remove, the module notifier, the listing, init
 *   kstats_trace_parse.c    the parser of a command, with its prefix table
 *   kstats_trace_errlog.c   error_log, and the report of a refused command
 *   kstats_trace_sym.c      symbols, and lookups in ftrace's functions
 *   kstats_trace_func.c     a function: kretprobe, pcpu: and fprobe:
 *   kstats_trace_anchor.c   a function never called, for an fprobe of its own
 *   kstats_trace_pair.c     code between two points: kprobe and tracepoint ends
 *   kstats_trace_group.c    a group: fprobe:GLOB as NAME
 *   kstats_trace_record.h   the record path, inline in the handlers
 *   kstats_trace_compat.h   what differs between the kernels it builds for
 *   kstats_trace_kunit.c    the KUnit suite, a module of its own
 *
 * kstats_trace_group.o is built where KSTATS_TRACE_GROUPS is 1 below: in
 * the tree with CONFIG_FPROBE, and out of tree (Kbuild) where trace.h is
 * found too.
 */
#ifndef _KERNEL_TRACE_KSTATS_TRACE_H
#define _KERNEL_TRACE_KSTATS_TRACE_H

#include <linux/errno.h>
#include <linux/fprobe.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "kstats_trace_compat.h"

#if !KSTATS_FPROBE_FGRAPH
#include <linux/rethook.h>
#endif

/* Longest command line accepted by _control, and longest write. */
#define KSTATS_TRACE_LINE_MAX	1024
#define KSTATS_TRACE_WRITE_MAX	(64 * 1024)
#define KSTATS_TRACE_DEFAULT_BITS	3
/*
 * Groups time many functions: at bits 1 (slots at most 50% of their
 * values wide), 2 KiB per function per CPU, so that 1,000 functions on 64 CPUs
 * take 125 MiB.
 */
#define KSTATS_TRACE_GROUP_BITS		1

/*
 * maxactive N: the calls in flight at once that a trace's probe holds,
 * where it has a pool of them (kretprobes; fprobes before 6.14), at most:
 * for a function, as kprobe and fprobe events take it; for a group, whose
 * functions share one pool, more.
 */
#define KSTATS_TRACE_MAXACTIVE_FUNC	4096
#define KSTATS_TRACE_MAXACTIVE_MAX	65536

#define KSTATS_TRACE_GAP	"GAP-"
#define KSTATS_TRACE_TP		"tp:"

/*
 * Groups (fprobe:GLOB as NAME) read the functions that ftrace's filter
 * matched from ftrace's hash, whose layout is private to kernel/trace/
 * (kstats_trace_sym.c reads it). Built out of tree without the kernel's
 * kernel/trace/trace.h, on kernels without fprobe, and on those before
 * mod->mem (KSTATS_MOD_MEM), they are refused.
 */
#if IS_ENABLED(CONFIG_FPROBE) && __has_include("trace.h") && KSTATS_MOD_MEM
#define KSTATS_TRACE_GROUPS	1
#else
#define KSTATS_TRACE_GROUPS	0
#endif

enum kstats_trace_verb {
	KSTATS_TRACE_ADD,
	KSTATS_TRACE_REMOVE,
	KSTATS_TRACE_NONE,		/* a comment */
};

enum kstats_trace_mode {
	KSTATS_TRACE_KRETPROBE,		/* trace FUNC */
	KSTATS_TRACE_PCPU,		/* trace pcpu:FUNC */
	KSTATS_TRACE_FPROBE,		/* trace fprobe:FUNC */
	KSTATS_TRACE_PAIR,		/* trace NAME start P end P */
	KSTATS_TRACE_GROUP,		/* trace fprobe:GLOB as NAME */
	KSTATS_TRACE_NR_MODES,
};

/*
 * Where a probe goes, as a command names it: the function of an
 * entry/return form, or one end of a pair, SYM[+OFF] (a kprobe) or a
 * tracepoint.
 */
struct kstats_trace_where {
	const char *sym;		/* symbol, or tracepoint name */
	unsigned int offset;
	bool tracepoint;
};

/* A command, as parsed: words of the line, nothing looked up yet. */
struct kstats_trace_cmd {
	enum kstats_trace_verb verb;
	enum kstats_trace_mode mode;
	const char *name;		/* the metric, or the group */
	/* end unused but for pairs; for a group, start.sym is the glob */
	struct kstats_trace_where start, end;
	unsigned int bits;
	bool bits_set;			/* bits N given */
	bool gap;			/* gap: a GAP-NAME metric too */
	int pid;			/* pid N: a process; 0 for all */
	const char *cgroup;		/* cgroup PATH (cgroup v2); NULL for all */
	unsigned int maxactive;		/* maxactive N; 0 for the default */
};

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
	 * tracepoint @tp, at its probe stub (see kstats_trace_pair.c).
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

/*
 * The functions of a group, each with its metric in the group's
 * directory. @table maps the address of a call to its function, by open
 * addressing, in a power of two of slots, at least twice @nr_funcs.
 */
struct kstats_trace_group {
	struct kstats_trace_func *funcs;
	unsigned int nr_funcs, nr_gone;
	struct kstats_trace_func **table;
	unsigned int table_bits;
	char *gone_mods;		/* modules gone, comma-separated */
	unsigned long missed;		/* by the fprobe before it was registered again */
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
	/*
	 * The owner's migrations when it opened the start: its end closes
	 * the start only if the task has not moved since, which tells its
	 * call from an earlier one of the same task whose end was on
	 * another CPU.
	 */
	u64 migrations;
	/*
	 * Ends without a start, lost starts, times that went back, counted
	 * on the CPU that saw them, summed when read.
	 */
	unsigned long missed;
};

/*
 * The entry data of an fprobe's call: the start, and the generation of
 * the fprobe that wrote it, @t->fp_gen, never 0. On the function-graph
 * tracer (KSTATS_FPROBE_FGRAPH), a call in flight when its fprobe went
 * returns into the fprobe at that address if one was registered there
 * since, a new trace in the old one's memory: the exit handler uses the
 * data only if its generation is the fprobe's own. An entry handler that
 * does not want the call says so with a generation of 0 too, for kernels
 * on which it cannot stop the exit handler (KSTATS_FPROBE_VOID).
 */
struct kstats_trace_fp_data {
	u64 gen;
	u64 start;
};

struct kstats_trace {
	struct list_head node;		/* in the list of traces */
	enum kstats_trace_mode mode;
	unsigned int bits;
	struct kstats *ks;		/* a group: the group of metrics */
	struct kstats *gap;		/* return to next call; not for pairs */
	struct kstats_trace_cpu __percpu *cpu;
	char *name;
	/* The function (entry/return forms), or the two ends of a pair. */
	struct kstats_trace_point start, end;
	/* Set when the module of a point went: the probes are detached. */
	char gone[MODULE_NAME_LEN];
	/*
	 * Task filters: only the calls of this process, or of this cgroup's
	 * subtree.
	 */
	struct pid *pid;		/* NULL for every process */
	int pid_nr;			/* as the command gave it */
	struct cgroup *cgrp;		/* NULL for every cgroup */
	char *cgroup_path;
	size_t memory;			/* counted in the budget */
	unsigned int maxactive;		/* as the command gave it; 0: default */
	struct kstats_trace_group grp;	/* a group's functions */
	int stuck;			/* the error of a detach that failed */
	/*
	 * kprobes kept a kprobe of @t in its table when it was unregistered
	 * (a kprobe on ftrace that could not be disarmed, on a kernel whose
	 * kprobes still do so): @t is never unregistered again, nor freed.
	 */
	bool kept;
	u64 fp_gen;			/* of the fprobe: kstats_trace_fp_data */
	bool fgraph_user;		/* kstats_trace_fgraph_hold() counts it */
	union {
		struct kretprobe krp;
		struct fprobe fp;
	};
};

/* What each mode does, indexed by enum kstats_trace_mode. */
struct kstats_trace_mode_ops {
	const char *name;
	int (*attach)(struct kstats_trace *t);
	/*
	 * Returns 0 once no handler of @t runs or will run; on an error,
	 * leaves the probe as it was, so that it can be called again.
	 */
	int (*detach)(struct kstats_trace *t);
	/* Hits the mechanism itself lost. */
	unsigned long (*missed)(struct kstats_trace *t);
};

/* kstats_trace_control.c */
extern struct mutex kstats_trace_mutex;
extern unsigned int kstats_trace_max_functions;
size_t kstats_trace_metric_memory(unsigned int n, unsigned int bits);
#if KSTATS_FPROBE_FGRAPH
int kstats_trace_kprobe_clash_at(const struct kstats_trace *t, const char *word,
				 unsigned long addr);
int kstats_trace_kprobe_clash(struct kstats_trace *t, struct kstats_trace_point *p);
int kstats_trace_fprobe_clash(const struct kstats_trace *t, const unsigned long *ips,
			      unsigned int n);
#else
static inline int kstats_trace_kprobe_clash_at(const struct kstats_trace *t, const char *word,
					       unsigned long addr)
{
	return 0;
}

static inline int kstats_trace_kprobe_clash(struct kstats_trace *t,
					    struct kstats_trace_point *p)
{
	return 0;
}

static inline int kstats_trace_fprobe_clash(const struct kstats_trace *t,
					    const unsigned long *ips, unsigned int n)
{
	return 0;
}
#endif
int kstats_trace_budget(struct kstats_trace *t, size_t size, const char *what);
bool kstats_trace_set_stuck(struct kstats_trace *t, int ret);

/* kstats_trace_errlog.c */
extern const struct file_operations kstats_trace_error_log_fops;
__printf(2, 3) void kstats_trace_err(const char *word, const char *fmt, ...);
void kstats_trace_errlog_begin(const char *cmdline, const char *copy, size_t len,
			       size_t skip);
void kstats_trace_errlog_end(void);
void kstats_trace_errlog_clear(void);

/* kstats_trace_parse.c */
int kstats_trace_parse(char *line, struct kstats_trace_cmd *cmd);

/* kstats_trace_sym.c */
const char *kstats_trace_why(int ret);
const char *kstats_trace_sym_mod(char *buf, unsigned long ip);
int kstats_trace_cmp_ip(const void *a, const void *b);
int kstats_trace_addr(struct kstats_trace *t, struct kstats_trace_point *p);
int kstats_trace_unique(const char *name, const struct kstats_trace_where *p);
void kstats_trace_syms_changed(void);
unsigned long kstats_trace_syms_gen(void);
void kstats_trace_unique_remember(const struct kstats_trace_where *p, unsigned long gen);
int kstats_trace_glob_funcs(struct kstats_trace *t, unsigned int max, unsigned long **addrs,
			    unsigned int *nr);

/* kstats_trace_func.c: trace FUNC, trace pcpu:FUNC, trace fprobe:FUNC */
size_t kstats_trace_pool_memory(unsigned int nr, size_t entry);
#if !KSTATS_FPROBE_FGRAPH
/*
 * An entry of an fprobe's pool: rethook's node, the entry's ip and parent
 * ip, and @data bytes of entry data.
 */
static inline size_t kstats_trace_fprobe_node(size_t data)
{
	return sizeof(struct rethook_node) + 2 * sizeof(long) + data;
}
#endif
int kstats_trace_krp_attach(struct kstats_trace *t);
int kstats_trace_krp_detach(struct kstats_trace *t);
unsigned long kstats_trace_krp_missed(struct kstats_trace *t);
void kstats_trace_fp_init(void);
u64 kstats_trace_fp_new_gen(void);
#if KSTATS_FPROBE_FGRAPH
int kstats_trace_fgraph_hold(struct kstats_trace *t);
void kstats_trace_fgraph_put(struct kstats_trace *t);
void kstats_trace_fgraph_cancel(void);
void kstats_trace_fgraph_release(void);
#else
static inline int kstats_trace_fgraph_hold(struct kstats_trace *t)
{
	return 0;
}

static inline void kstats_trace_fgraph_put(struct kstats_trace *t)
{
}

static inline void kstats_trace_fgraph_cancel(void)
{
}

static inline void kstats_trace_fgraph_release(void)
{
}
#endif
int kstats_trace_fp_attach(struct kstats_trace *t);
int kstats_trace_fp_detach(struct kstats_trace *t);
unsigned long kstats_trace_fp_missed(struct kstats_trace *t);

/* kstats_trace_anchor.c: never called (see kstats_trace_fgraph_hold()) */
void kstats_trace_anchor(void);

/* kstats_trace_pair.c: trace NAME start POINT end POINT */
void kstats_trace_kp_unregister(struct kstats_trace *t, struct kprobe *kp);
int kstats_trace_pair_attach(struct kstats_trace *t);
int kstats_trace_pair_detach(struct kstats_trace *t);
unsigned long kstats_trace_pair_missed(struct kstats_trace *t);

/* kstats_trace_group.c: trace fprobe:GLOB as NAME, where groups are built */
#if KSTATS_TRACE_GROUPS
int kstats_trace_grp_attach(struct kstats_trace *t);
int kstats_trace_grp_detach(struct kstats_trace *t);
unsigned long kstats_trace_grp_missed(struct kstats_trace *t);
bool kstats_trace_grp_going(struct kstats_trace *t, struct module *mod, bool init);
void kstats_trace_grp_free(struct kstats_trace *t);
bool kstats_trace_grp_freed(unsigned long ip, const char *sym);
bool kstats_trace_grp_has(const struct kstats_trace *t, unsigned long ip);
void kstats_trace_freed_note(const struct module *mod, unsigned long state);
void kstats_trace_freed_clear(void);
#else
static inline int kstats_trace_grp_attach(struct kstats_trace *t)
{
	kstats_trace_err(t->start.sym, IS_ENABLED(CONFIG_FPROBE) ?
			 "%s: groups need the kernel's kernel/trace/trace.h at build time" :
			 "%s: groups need fprobe, which this kernel does not have (CONFIG_FPROBE)",
			 t->name);
	return -EOPNOTSUPP;
}

static inline int kstats_trace_grp_detach(struct kstats_trace *t)
{
	return 0;
}

static inline unsigned long kstats_trace_grp_missed(struct kstats_trace *t)
{
	return 0;
}

static inline bool kstats_trace_grp_going(struct kstats_trace *t, struct module *mod,
					  bool init)
{
	return true;
}

static inline void kstats_trace_grp_free(struct kstats_trace *t)
{
}

static inline bool kstats_trace_grp_has(const struct kstats_trace *t, unsigned long ip)
{
	return false;
}

static inline void kstats_trace_freed_note(const struct module *mod, unsigned long state)
{
}

static inline void kstats_trace_freed_clear(void)
{
}
#endif /* KSTATS_TRACE_GROUPS */

#if IS_ENABLED(CONFIG_KUNIT)
/* Visible to the KUnit suite only (VISIBLE_IF_KUNIT). */
int kstats_trace_exec(const char *buf, size_t len);
int kstats_trace_detach_mode(struct kstats_trace *t);
int kstats_trace_locked_down(void);
#endif

#endif /* _KERNEL_TRACE_KSTATS_TRACE_H */
