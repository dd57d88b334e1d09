/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel's headers, for userspace, to compile the inline
 * kstats_record() of include/linux/kstats.h in record_model.c. The Makefile
 * defines IS_ENABLED() (as if CONFIG_KSTATS=y) and __counted_by().
 */
#ifndef _KSTATS_MODEL_TYPES_H
#define _KSTATS_MODEL_TYPES_H

#include <stdbool.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef int64_t s64;
typedef uint64_t u64;

struct list_head {
	struct list_head *next, *prev;
};

#endif
