/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats_trace: the record path, inline in every handler. No lock, no
 * allocation, no call but the clock's and kstats_record().
 */
#ifndef _KERNEL_TRACE_KSTATS_TRACE_RECORD_H
#define _KERNEL_TRACE_KSTATS_TRACE_RECORD_H

#include <linux/cgroup.h>
#include <linux/kstats.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>

#include "kstats_trace.h"

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
		this_cpu_inc(t->cpu->missed);
}

static __always_inline void kstats_trace_record(struct kstats_trace *t, u64 start, u64 now)
{
	kstats_trace_record_in(t, t->ks, start, now);
}

static __always_inline void kstats_trace_open(struct kstats_trace *t, u64 now)
{
	this_cpu_write(t->cpu->owner, current);
	this_cpu_write(t->cpu->migrations, current->se.nr_migrations);
	/* A start that overwrites an open one loses that one. */
	if (this_cpu_xchg(t->cpu->start, now))
		this_cpu_inc(t->cpu->missed);
}

/*
 * The end of the start this CPU has open, if the same task opened it and
 * has stayed on this CPU since. An end of another task (one that slept,
 * and woke up on this CPU) is missed and leaves the start open for its
 * own task: it would time no call. An end of the same task after it moved
 * is missed too, and drops the start: that is of an earlier call, whose
 * end came on another CPU, and no later end of the task can be its.
 */
static __always_inline void kstats_trace_close(struct kstats_trace *t, u64 now)
{
	u64 start;

	if (this_cpu_read(t->cpu->owner) != current) {
		this_cpu_inc(t->cpu->missed);
		return;
	}
	start = this_cpu_xchg(t->cpu->start, 0);
	if (start && this_cpu_read(t->cpu->migrations) == current->se.nr_migrations)
		kstats_trace_record(t, start, now);
	else
		this_cpu_inc(t->cpu->missed);
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

#endif /* _KERNEL_TRACE_KSTATS_TRACE_RECORD_H */
