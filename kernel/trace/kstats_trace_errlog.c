// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_trace: error_log, the refused commands of _control with a caret
 * under the word at fault, in the format of tracefs' error_log, and the
 * report of why a command fails.
 */

#define pr_fmt(fmt) "kstats_trace: " fmt

#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kstats_trace.h"

/* Refused commands kept in error_log, the oldest replaced first. */
#define KSTATS_TRACE_ERRORS	8

/* A refused command, as error_log shows it. */
struct kstats_trace_error {
	u64 ts;			/* local_clock(), 0 if the entry is unused */
	char *cmd;
	char *msg;
	unsigned int pos;	/* of the word at fault in cmd */
};

/*
 * error_log, and the command being carried out: @cmdline is NULL outside
 * commands, set by the holder of kstats_trace_cmd_mutex.
 */
struct kstats_trace_errlog {
	/*
	 * Protects all of it: the KUnit suite calls the parser, which
	 * reports errors, without either mutex of the commands (its errors
	 * then go to error_log with the command being carried out, if
	 * there is one).
	 */
	struct mutex lock;
	const char *cmdline;
	/*
	 * The copy of the command that the parser splits into words, its
	 * length, and how many blanks the command line left out at its
	 * start: a word at fault in the copy is marked where it is, not
	 * where it first appears.
	 */
	const char *cmdcopy;
	size_t cmdlen, cmdskip;
	struct kstats_trace_error entries[KSTATS_TRACE_ERRORS];
	unsigned int next;		/* the entry to replace next */
};

static struct kstats_trace_errlog kstats_trace_log = {
	.lock = __MUTEX_INITIALIZER(kstats_trace_log.lock),
};

/*
 * Reports why a command fails, @fmt without a trailing newline: to the
 * kernel log and, with the command and a caret under @word, to error_log.
 * @word is a word of the command being parsed, marked where it is, or
 * another string, marked where it first appears (as tracefs places its
 * caret).
 */
void kstats_trace_err(const char *word, const char *fmt, ...)
{
	struct kstats_trace_errlog *log = &kstats_trace_log;
	struct kstats_trace_error *e;
	const char *at = NULL;
	va_list args;
	char *msg;

	va_start(args, fmt);
	msg = kvasprintf(GFP_KERNEL, fmt, args);
	va_end(args);
	if (!msg)
		return;
	pr_warn("%s\n", msg);
	guard(mutex)(&log->lock);
	if (!log->cmdline) {
		kfree(msg);
		return;
	}
	e = &log->entries[log->next];
	kfree(e->cmd);
	kfree(e->msg);
	e->cmd = kstrdup(log->cmdline, GFP_KERNEL);
	e->msg = msg;
	if (word && *word && e->cmd) {
		if (word >= log->cmdcopy + log->cmdskip &&
		    word < log->cmdcopy + log->cmdlen)
			at = e->cmd + (word - log->cmdcopy - log->cmdskip);
		else
			at = strstr(e->cmd, word);
	}
	e->pos = at && (size_t)(at - e->cmd) < strlen(e->cmd) ? at - e->cmd : 0;
	e->ts = local_clock() ?: 1;
	log->next = (log->next + 1) % KSTATS_TRACE_ERRORS;
}

/*
 * The command now carried out, for the entries of its errors: @cmdline
 * as written, less @skip blanks at its start, and @copy, of @len bytes,
 * which the parser splits into words. Both stay until
 * kstats_trace_errlog_end().
 */
void kstats_trace_errlog_begin(const char *cmdline, const char *copy, size_t len,
			       size_t skip)
{
	guard(mutex)(&kstats_trace_log.lock);
	kstats_trace_log.cmdline = cmdline;
	kstats_trace_log.cmdcopy = copy;
	kstats_trace_log.cmdlen = len;
	kstats_trace_log.cmdskip = skip;
}

void kstats_trace_errlog_end(void)
{
	guard(mutex)(&kstats_trace_log.lock);
	kstats_trace_log.cmdline = NULL;
	kstats_trace_log.cmdcopy = NULL;
}

/* error_log emptied: at exit, and by echo > error_log. */
void kstats_trace_errlog_clear(void)
{
	struct kstats_trace_error *e;

	guard(mutex)(&kstats_trace_log.lock);
	for (e = kstats_trace_log.entries;
	     e < kstats_trace_log.entries + KSTATS_TRACE_ERRORS; e++) {
		kfree(e->cmd);
		kfree(e->msg);
		memset(e, 0, sizeof(*e));
	}
}

/* The refused commands, oldest first, in the format of tracefs' error_log. */
static int kstats_trace_error_log_show(struct seq_file *m, void *v)
{
	const struct kstats_trace_error *e;
	unsigned int i;
	u64 sec;
	u32 nsec;

	mutex_lock(&kstats_trace_log.lock);
	for (i = 0; i < KSTATS_TRACE_ERRORS; i++) {
		e = &kstats_trace_log.entries[(kstats_trace_log.next + i) %
					      KSTATS_TRACE_ERRORS];
		if (!e->ts)
			continue;
		sec = div_u64_rem(e->ts, NSEC_PER_SEC, &nsec);
		seq_printf(m, "[%5llu.%06u] kstats_trace: error: %s\n", sec,
			   (u32)(nsec / NSEC_PER_USEC), e->msg);
		seq_printf(m, "  Command: %s\n", e->cmd ?: "");
		seq_printf(m, "%*s^\n", (int)(strlen("  Command: ") + e->pos), "");
	}
	mutex_unlock(&kstats_trace_log.lock);
	return 0;
}

/* Opened for writing with O_TRUNC (echo > error_log): cleared. */
static int kstats_trace_open_error_log(struct inode *inode, struct file *file)
{
	if ((file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC))
		kstats_trace_errlog_clear();
	return single_open(file, kstats_trace_error_log_show, NULL);
}

static ssize_t kstats_trace_write_error_log(struct file *file,
					    const char __user *ubuf,
					    size_t len, loff_t *ppos)
{
	return len;
}

const struct file_operations kstats_trace_error_log_fops = {
	.owner = THIS_MODULE,
	.open = kstats_trace_open_error_log,
	.read_iter = seq_read_iter,
	.write = kstats_trace_write_error_log,
	.llseek = seq_lseek,
	.release = single_release,
};
