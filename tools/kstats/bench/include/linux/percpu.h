/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU variables as x86 has them, with threads for CPUs: a __percpu
 * pointer is an offset from the base of a segment (%gs in the kernel, %fs,
 * the thread's TLS block, here), and this_cpu_add() is one addition to
 * memory through the segment, safe against interrupts.
 */
#ifndef _KSTATS_MODEL_PERCPU_H
#define _KSTATS_MODEL_PERCPU_H

#include <linux/compiler.h>
#include <linux/types.h>

#define __percpu

static __always_inline void this_cpu_add_8(u64 *var, u64 val)
{
	__asm__ volatile("addq %1, %%fs:%0" : "+m" (*var) : "er" (val));
}

#define this_cpu_add(var, val)	this_cpu_add_8(&(var), (val))
#define this_cpu_inc(var)	this_cpu_add(var, 1)

#endif
