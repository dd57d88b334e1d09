/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats_trace: the commands of /sys/kernel/debug/kstats/_control, shared
 * by kstats_trace.c and its KUnit test.
 */
#ifndef _KERNEL_TRACE_KSTATS_TRACE_H
#define _KERNEL_TRACE_KSTATS_TRACE_H

#include <linux/types.h>

/* Longest command line accepted by _control. */
#define KSTATS_TRACE_LINE_MAX	1024
#define KSTATS_TRACE_DEFAULT_BITS	3

enum kstats_trace_verb {
	KSTATS_TRACE_ADD,
	KSTATS_TRACE_REMOVE,
};

enum kstats_trace_mode {
	KSTATS_TRACE_KRETPROBE,		/* trace FUNC */
	KSTATS_TRACE_PCPU,		/* trace pcpu:FUNC */
	KSTATS_TRACE_FPROBE,		/* trace fprobe:FUNC */
	KSTATS_TRACE_PAIR,		/* trace NAME start P end P */
};

/* One end of a pair: SYM[+OFF] (a kprobe) or a tracepoint. */
struct kstats_trace_point {
	const char *sym;		/* symbol, or tracepoint name */
	unsigned int offset;
	bool tracepoint;
};

struct kstats_trace_cmd {
	enum kstats_trace_verb verb;
	enum kstats_trace_mode mode;
	const char *name;		/* the metric */
	struct kstats_trace_point start, end;	/* end unused but for pairs */
	unsigned int bits;
};

#ifdef CONFIG_KSTATS_TRACE_DIRECT
/* fprobe: on x86_64: the trampoline, and the hooks it calls. */
struct kstats_trace_frame;
void kstats_trace_direct(void);
long kstats_trace_direct_enter(struct kstats_trace_frame *f);
void kstats_trace_direct_exit(struct kstats_trace_frame *f);
#endif

#if IS_ENABLED(CONFIG_KUNIT)
/* Visible to the KUnit suite only (VISIBLE_IF_KUNIT). */
int kstats_trace_parse(char *line, struct kstats_trace_cmd *cmd);
int kstats_trace_exec(const char *buf, size_t len);
#endif

#endif /* _KERNEL_TRACE_KSTATS_TRACE_H */
