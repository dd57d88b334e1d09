/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KSTATS_MODEL_COMPILER_H
#define _KSTATS_MODEL_COMPILER_H

#include <sys/cdefs.h>		/* __always_inline */

#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

#endif
