// SPDX-License-Identifier: GPL-2.0
/*
 * kstats: errors and warnings on standard error, each a line led by the
 * program's name; before an error's message, the cleanups registered
 * (the temporary file of -o removed, kstats top's terminal restored).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kstats.h"

const char *prog = "kstats";

#define KSTATS_MAX_CLEANUPS 4

static void (*cleanups[KSTATS_MAX_CLEANUPS])(void);

void kstats_on_error(void (*fn)(void))
{
	int i, free_slot = -1;

	for (i = 0; i < KSTATS_MAX_CLEANUPS; i++) {
		if (cleanups[i] == fn)
			return;		/* each once */
		if (!cleanups[i] && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0)
		abort();	/* a fixed set of callers: a bug */
	cleanups[free_slot] = fn;
}

void kstats_on_error_remove(void (*fn)(void))
{
	int i;

	for (i = 0; i < KSTATS_MAX_CLEANUPS; i++)
		if (cleanups[i] == fn)
			cleanups[i] = NULL;
}

/*
 * "kstats: MESSAGE" and a newline, each control character of MESSAGE (a
 * byte below 0x20, or 0x7f: of a name, a path or an input's line it
 * quotes) as \xNN, as shown() prints names: a message cannot clear the
 * screen or split its line.
 */
static void message(const char *fmt, va_list ap)
{
	va_list aq;
	char *msg;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	msg = n >= 0 ? malloc(n + 1) : NULL;
	fprintf(stderr, "%s: ", prog);
	if (!msg) {
		vfprintf(stderr, fmt, ap);	/* out of memory: as it is */
	} else {
		vsnprintf(msg, n + 1, fmt, ap);
		for (char *p = msg; *p; p++) {
			unsigned char c = *p;

			if (c < 0x20 || c == 0x7f)
				fprintf(stderr, "\\x%02x", c);
			else
				fputc(c, stderr);
		}
		free(msg);
	}
	fputc('\n', stderr);
}

/* The cleanups registered, then "kstats: MESSAGE". */
static void report(const char *fmt, va_list ap)
{
	int i;

	for (i = KSTATS_MAX_CLEANUPS - 1; i >= 0; i--)
		if (cleanups[i])
			cleanups[i]();
	message(fmt, ap);
}

void kstats_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(fmt, ap);
	va_end(ap);
	exit(status);
}

void kstats_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", prog);
	exit(1);
}

void kstats_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message(fmt, ap);
	va_end(ap);
}
