/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KSTATS_MODEL_ERR_H
#define _KSTATS_MODEL_ERR_H

#include <errno.h>

static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

#endif
