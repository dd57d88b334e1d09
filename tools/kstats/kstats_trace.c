// SPDX-License-Identifier: GPL-2.0
/* kstats trace: a function traced for a time or a command, then summarized. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kstats_top.h"

/*
 * kstats trace: one trace added through kstats/_control, and removed on
 * every way out once added (exit() runs trace_cleanup(); the signals that
 * end a trace are blocked and waited for, never delivered).
 */
static struct {
	char *control;		/* kstats/_control */
	char *dir;		/* kstats/ */
	const char *name;	/* the metric: FUNC without its prefix */
	int added;		/* ours, and not yet removed */
} tr;

/*
 * One command to _control, a line in one write, as echo writes it: 0, or
 * the errno of the write (the kernel refused the command), or of the open
 * if *@opened is cleared.
 */
static int trace_write(const char *cmd, int *opened)
{
	int fd, err = 0;
	char *line;

	*opened = 1;
	if (asprintf(&line, "%s\n", cmd) < 0)
		return errno;
	fd = open(tr.control, O_WRONLY);
	*opened = fd >= 0;
	if (fd < 0) {
		err = errno;
		free(line);
		return err;
	}
	if (write(fd, line, strlen(line)) < 0)
		err = errno;
	close(fd);
	free(line);
	return err;
}

/* The last entry of kstats/error_log (3 lines), on stderr. */
static void trace_show_error(void)
{
	char line[512], last[3][512] = { "", "", "" }, *path;
	int n = 0, i;
	FILE *f;

	if (asprintf(&path, "%s/error_log", tr.dir) < 0)
		return;
	f = fopen(path, "r");
	free(path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		snprintf(last[n++ % 3], sizeof(last[0]), "%s", line);
	fclose(f);
	for (i = n > 3 ? n - 3 : 0; i < n; i++)
		fputs(last[i % 3], stderr);
}

static void trace_cleanup(void)
{
	int err, opened;
	char *cmd;

	if (!tr.added)
		return;
	tr.added = 0;
	if (asprintf(&cmd, "remove %s", tr.name) < 0)
		return;
	err = trace_write(cmd, &opened);
	if (err)
		kstats_warn("%s: %s", cmd, strerror(err));
	free(cmd);
}

/* Why _control cannot be written, and what to do about it. */
static void trace_cannot(int err)
{
	char level[128] = "";
	FILE *f;

	if (err == ENOENT)
		die(1, "trace: no %s: modprobe kstats_trace (or CONFIG_KSTATS_TRACE=y)",
		    tr.control);
	f = fopen("/sys/kernel/security/lockdown", "r");
	if (f) {
		if (!fgets(level, sizeof(level), f))
			level[0] = '\0';
		fclose(f);
	}
	if (err == EPERM && level[0] && !strstr(level, "[none]"))
		die(1, "trace: %s: %s: kernel lockdown (%.*s) closes debugfs to writes",
		    tr.control, strerror(err), (int)strcspn(level, "\n"), level);
	die(1, "trace: %s: %s", tr.control, strerror(err));
}

/* Waits for one of @set, @secs seconds at most if > 0; 0 on timeout. */
static int trace_wait(const sigset_t *set, double secs)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
	int sig;

	do
		sig = secs > 0 ? sigtimedwait(set, NULL, &ts) : sigwaitinfo(set, NULL);
	while (sig < 0 && errno == EINTR);
	return sig < 0 ? 0 : sig;
}

/*
 * The function of kstats trace [pcpu:|fprobe:]FUNC, as the kernel names the
 * trace: FUNC, which may be MODULE:SYMBOL.
 */
const char *trace_func(const char *spec)
{
	static const char * const forms[] = { "pcpu:", "fprobe:", NULL };
	const char * const *f;

	for (f = forms; *f; f++)
		if (!strncmp(spec, *f, strlen(*f)))
			return spec + strlen(*f);
	return spec;
}

/*
 * kstats trace 'GLOB': a glob (*, ? or [) in the function makes a group,
 * traced by fprobe: its name (--name, or kstats-trace-PID), and *@spec
 * becomes "fprobe:GLOB as NAME". Without a glob, NULL.
 */
static const char *trace_group(const struct kstats_opt *o, const char **spec)
{
	const char *func = trace_func(*spec), *name = o->name, *c;
	char *group;

	if (!strpbrk(func, "*?[")) {
		if (o->lines)
			kstats_usage_error("trace: --lines: only with a glob (%s)",
					   "a group of functions");
		return NULL;
	}
	if (o->out == OUT_HGRM)
		kstats_usage_error("trace: '%s': --hgrm is of one function, not of a glob's group",
				   *spec);
	if (func != *spec && strncmp(*spec, "fprobe:", 7))
		kstats_usage_error("trace: '%s': a glob is traced by fprobe: only", *spec);
	/* A group has no CPUs. */
	if (o->per_cpu || o->cpu >= 0)
		kstats_usage_error("trace: '%s': --per-cpu and --cpu do not apply to a glob (%s)",
				   *spec, "its group's summary has no CPUs");
	if (name) {
		for (c = name; *c && *c != '/' && *c > ' ' && *c != 0x7f; c++)
			;
		if (!*name || *c || *name == '_' || *name == '.')
			kstats_usage_error("trace: --name '%s' is not a group name (%s)", name,
					   "a file name without '/' or blanks, not starting with _ or .");
		group = strdup(name);
	} else {
		group = top_printf("kstats-trace-%d", (int)getpid());
	}
	if (!group)
		kstats_die(1, "out of memory");
	*spec = top_printf("fprobe:%s as %s", func, group);
	return group;
}

/* kstats trace SPEC [-- COMMAND...]: @argv is the command, if @argc. */
int trace_main(const struct kstats_opt *o, const char *spec, int argc, char **argv,
	       double secs)
{
	char *cmd, *metric, *debugfs;
	int err, sig, opened, status = 0, ret = 0;
	sigset_t set;
	pid_t child = 0;
	struct ks_data d;
	const char *group;
	double t0;

	/* main() checked that there is one; a glob makes a group. */
	group = trace_group(o, &spec);
	tr.name = group ?: trace_func(spec);
	if (geteuid())
		die(1, "trace: needs root, to write to debugfs (kstats/_control)");
	debugfs = kstats_debugfs("trace");
	if (!debugfs)
		die(1, "trace: debugfs is not mounted: mount -t debugfs none /sys/kernel/debug");
	if (asprintf(&tr.dir, "%s/kstats", debugfs) < 0 ||
	    asprintf(&tr.control, "%s/_control", tr.dir) < 0 ||
	    asprintf(&metric, "%s/%s", tr.dir, tr.name) < 0 ||
	    asprintf(&cmd, "trace %s bits %d%s%.0ld%s%s", spec,
		     o->bits >= 0 ? o->bits : group ? 1 : 3,
		     o->pid ? " pid " : "", o->pid, o->cgroup ? " cgroup " : "",
		     o->cgroup ?: "") < 0)
		die(1, "out of memory");
	free(debugfs);
	if (access(tr.control, F_OK))
		trace_cannot(errno);

	/*
	 * From here on, these end the trace, when this process asks. Their
	 * action is the default, also when a shell started this in the
	 * background with SIGINT ignored: an ignored signal is discarded even
	 * while blocked, and could not end the trace; an ignored SIGCHLD
	 * would also reap the command unseen. SIGHUP stays ignored under
	 * nohup.
	 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	atexit(trace_cleanup);
	err = trace_write(cmd, &opened);
	if (!opened)
		trace_cannot(err);
	if (err == EEXIST)
		die(1, "trace: %s is traced already, or its name is in use; not touching it",
		    tr.name);
	if (err) {
		trace_show_error();
		die(1, "trace: '%s': %s", cmd, strerror(err));
	}
	tr.added = 1;
	t0 = now_s(CLOCK_MONOTONIC);
	free(cmd);

	if (argc) {
		fflush(NULL);
		child = fork();
		if (child < 0)
			die(1, "trace: fork: %s", strerror(errno));
		if (!child) {
			sigprocmask(SIG_UNBLOCK, &set, NULL);
			execvp(argv[0], argv);
			fprintf(stderr, "%s: trace: cannot run %s: %s\n", prog, argv[0],
				strerror(errno));
			_exit(127);
		}
		/*
		 * Until the command ends (SIGCHLD also comes when it stops);
		 * a signal to us is passed on to it.
		 */
		for (;;) {
			sig = trace_wait(&set, 0);
			if (sig == SIGCHLD && waitpid(child, &status, WNOHANG) == child)
				break;
			if (sig && sig != SIGCHLD)
				kill(child, sig);
		}
		if (WIFEXITED(status))
			ret = WEXITSTATUS(status);
		else if (WIFSIGNALED(status))
			ret = 128 + WTERMSIG(status);
		if (ret)
			kstats_warn("trace: %s %s %d", argv[0],
				    WIFSIGNALED(status) ? "killed by signal" : "exited with status",
				    WIFSIGNALED(status) ? WTERMSIG(status) : ret);
	} else {
		if (secs > 0)
			fprintf(stderr, "Tracing %s for %g s, Ctrl-C to end sooner.\n",
				tr.name, secs);
		else
			fprintf(stderr, "Tracing %s, Ctrl-C to end.\n", tr.name);
		sigdelset(&set, SIGCHLD);
		trace_wait(&set, secs);
	}

	if (group) {
		struct top *g = group_snapshot(o, metric);

		trace_cleanup();
		group_report(o, g, group, now_s(CLOCK_MONOTONIC) - t0);
		free(metric);
		return ret;
	}
	load(&d, metric, o->bits);
	trace_cleanup();
	output(o, &d, tr.name);
	ks_data_free(&d);
	free(metric);
	return ret;
}
