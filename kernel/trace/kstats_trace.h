/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats_trace: the commands of /sys/kernel/debug/kstats/_control, shared
 * by kstats_trace.c and its KUnit test.
 */
#ifndef _KERNEL_TRACE_KSTATS_TRACE_H
#define _KERNEL_TRACE_KSTATS_TRACE_H

#include <linux/types.h>

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
};

/*
 * The time from @start to @now, in *@ns; false when @now is before @start:
 * ktime_get_mono_fast_ns() is not monotonic across a timekeeping update,
 * and an NMI, or a return on another CPU, may read an earlier time than
 * the start did. Such a sample is missed, not recorded as about 2^64 ns.
 */
static __always_inline bool kstats_trace_elapsed(u64 start, u64 now, u64 *ns)
{
	*ns = now - start;
	return (s64)*ns >= 0;
}

#if IS_ENABLED(CONFIG_KUNIT)
struct kstats_trace;

/* Visible to the KUnit suite only (VISIBLE_IF_KUNIT). */
int kstats_trace_parse(char *line, struct kstats_trace_cmd *cmd);
int kstats_trace_exec(const char *buf, size_t len);
int kstats_trace_detach_mode(struct kstats_trace *t);
int kstats_trace_locked_down(void);
#endif

#endif /* _KERNEL_TRACE_KSTATS_TRACE_H */
