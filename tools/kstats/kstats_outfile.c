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
/* The signals that end kstats; their actions before out_begin(), where it took them. */
static const int out_ends[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static struct sigaction out_old[ARRAY_SIZE(out_ends)];
static bool out_took[ARRAY_SIZE(out_ends)];

/* The temporary file removed, on an error. */
static void out_abort(void)
{
	if (out_tmp)
		unlink(out_tmp);
}

/* A signal that ends kstats while it writes: the temporary file removed, then its end. */
static void out_signal(int sig)
{
	unlink(out_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * -o FILE: standard output goes to a temporary file beside FILE, renamed
 * to FILE once complete, so that a reader (node_exporter's textfile
 * collector) never sees half of it. It does not end in .prom. With @hold
 * (each exposition of --interval), the signals that end kstats (Ctrl-C,
 * systemd's SIGTERM) wait until it is renamed, so that none leaves it
 * behind: it is written in milliseconds, and --interval sleeps without
 * one. Without (one output, which may wait for its input), those of their
 * default action remove it, then end kstats as they would have.
 */
void out_begin(const char *file, bool hold)
{
	struct sigaction sa = { .sa_handler = out_signal };
	mode_t mask = umask(0);
	sigset_t set;
	size_t i;
	int fd;

	umask(mask);
	sigemptyset(&set);
	for (i = 0; i < ARRAY_SIZE(out_ends); i++)
		sigaddset(&set, out_ends[i]);
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
	for (i = 0; !hold && i < ARRAY_SIZE(out_ends); i++) {
		sigaction(out_ends[i], NULL, &out_old[i]);
		out_took[i] = out_old[i].sa_handler == SIG_DFL;
		if (out_took[i])
			sigaction(out_ends[i], &sa, NULL);
	}
	if (fchmod(fd, 0666 & ~mask) || dup2(fd, STDOUT_FILENO) < 0)
		die(1, "%s: %s", out_tmp, strerror(errno));
	close(fd);
}

void out_commit(const char *file)
{
	size_t i;

	if (fflush(stdout) || fsync(STDOUT_FILENO))
		die(1, "%s: %s", out_tmp, strerror(errno));
	if (rename(out_tmp, file))
		die(1, "%s: %s", file, strerror(errno));
	kstats_on_error_remove(out_abort);
	for (i = 0; i < ARRAY_SIZE(out_ends); i++)
		if (out_took[i] && !sigaction(out_ends[i], &out_old[i], NULL))
			out_took[i] = false;
	free(out_tmp);
	out_tmp = NULL;
	if (out_held)
		sigprocmask(SIG_SETMASK, &out_mask, NULL);
	out_held = false;
}
