// SPDX-License-Identifier: GPL-2.0
/* kstats -o FILE: a temporary file, renamed to FILE once complete. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kstats.h"

static char *out_tmp;		/* -o: the temporary file, until renamed */
static sigset_t out_mask;	/* the signals blocked before out_begin() */
static bool out_held;		/* out_begin() blocked those that end kstats */

/* The temporary file removed, on an error. */
static void out_abort(void)
{
	if (out_tmp)
		unlink(out_tmp);
}

/*
 * -o FILE: standard output goes to a temporary file beside FILE, renamed
 * to FILE once complete, so that a reader (node_exporter's textfile
 * collector) never sees half of it. It does not end in .prom. With @hold
 * (each exposition of --interval), the signals that end kstats (Ctrl-C,
 * systemd's SIGTERM) wait until it is renamed, so that none leaves it
 * behind: it is written in milliseconds, and --interval sleeps without
 * one.
 */
void out_begin(const char *file, bool hold)
{
	static const int ends[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	mode_t mask = umask(0);
	sigset_t set;
	size_t i;
	int fd;

	umask(mask);
	sigemptyset(&set);
	for (i = 0; i < ARRAY_SIZE(ends); i++)
		sigaddset(&set, ends[i]);
	out_held = hold;
	if (hold)
		sigprocmask(SIG_BLOCK, &set, &out_mask);
	if (asprintf(&out_tmp, "%s.tmp.XXXXXX", file) < 0)
		die(1, "out of memory");
	fd = mkstemp(out_tmp);
	if (fd < 0) {
		free(out_tmp);
		out_tmp = NULL;
		die(1, "%s: %s", file, strerror(errno));
	}
	kstats_on_error(out_abort);
	if (fchmod(fd, 0666 & ~mask) || dup2(fd, STDOUT_FILENO) < 0)
		die(1, "%s: %s", out_tmp, strerror(errno));
	close(fd);
}

void out_commit(const char *file)
{
	if (fflush(stdout) || fsync(STDOUT_FILENO))
		die(1, "%s: %s", out_tmp, strerror(errno));
	if (rename(out_tmp, file))
		die(1, "%s: %s", file, strerror(errno));
	kstats_on_error_remove(out_abort);
	free(out_tmp);
	out_tmp = NULL;
	if (out_held)
		sigprocmask(SIG_SETMASK, &out_mask, NULL);
	out_held = false;
}
