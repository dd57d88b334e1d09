// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_trace: the function where kstats_trace_fgraph_hold() puts its
 * fprobe. Never called; built with the function tracer's flags, unlike
 * the rest of kstats_trace, so that ftrace can attach to it.
 */

#include <linux/compiler.h>

#include "kstats_trace.h"

noinline void kstats_trace_anchor(void)
{
	barrier();
}
