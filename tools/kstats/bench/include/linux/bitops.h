/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KSTATS_MODEL_BITOPS_H
#define _KSTATS_MODEL_BITOPS_H

#include <linux/compiler.h>
#include <linux/types.h>

#define BIT(nr)		(1UL << (nr))

/* As arch/x86/include/asm/bitops.h: no branch, 0 for 0. */
static __always_inline int fls64(u64 x)
{
	s64 bitpos = -1;

	__asm__("bsrq %1,%q0" : "+r" (bitpos) : "rm" (x));
	return bitpos + 1;
}

#endif
