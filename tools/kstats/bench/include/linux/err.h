/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KSTATS_MODEL_ERR_H
#define _KSTATS_MODEL_ERR_H

#include <errno.h>
#include <stdbool.h>

#define MAX_ERRNO	4095

static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

/* As the kernel's: one comparison, once the compiler has merged the two. */
static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return __builtin_expect(!ptr, 0) ||
	       __builtin_expect((unsigned long)ptr >= (unsigned long)-MAX_ERRNO, 0);
}

#endif
