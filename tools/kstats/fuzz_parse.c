// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes, split in lines, through the kstats parser.
 * It must accept or reject each input with an error message, never crash,
 * leak or read out of bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kstats_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ks_data d;
	unsigned long lineno = 0;
	size_t start = 0, i;
	int ret = 0;

	ks_data_init(&d);
	for (i = 0; i <= size && !ret; i++) {
		if (i < size && data[i] != '\n')
			continue;
		ret = ks_parse_line(&d, (const char *)data + start, i - start, ++lineno);
		start = i + 1;
	}
	if (!ret)
		ret = ks_finish(&d, -1);
	if (ret && !strstr(d.err, "line ") && !strstr(d.err, "inconsistent"))
		__builtin_trap();	/* every error says where or why */
	ks_data_free(&d);
	return 0;
}
