// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_faults: kernel reports on request, for the self-test of the kstats
 * test harness (harness/guest-faults.sh), which checks that each report
 * becomes a failure of make check. Not part of kstats; never load it on a
 * machine you care about.
 *
 * Each word written to /sys/kernel/debug/kstats_faults does one thing:
 *	lockdep	take two mutexes in one order, then in the other: lockdep
 *		reports a possible circular locking dependency
 *	warn	WARN()
 *	hang	start a kernel thread that sleeps uninterruptibly, for the
 *		hung task detector, until "release"
 *	release	wake that thread
 *	leak	allocate objects from kstats_faults_leak() and drop them:
 *		kmemleak reports them with that function in their backtrace
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define KSTATS_FAULTS_LEAKS	8

static DEFINE_MUTEX(kstats_faults_a);
static DEFINE_MUTEX(kstats_faults_b);
static DECLARE_COMPLETION(kstats_faults_release);
/*
 * The hung thread, pinned so that exit can stop it after it returned;
 * set once, under kstats_faults_lock.
 */
static struct task_struct *kstats_faults_hung;
static DEFINE_MUTEX(kstats_faults_lock);
static struct dentry *kstats_faults_file;

static noinline void kstats_faults_lockdep(void)
{
	mutex_lock(&kstats_faults_a);
	mutex_lock(&kstats_faults_b);
	mutex_unlock(&kstats_faults_b);
	mutex_unlock(&kstats_faults_a);

	mutex_lock(&kstats_faults_b);
	mutex_lock(&kstats_faults_a);
	mutex_unlock(&kstats_faults_a);
	mutex_unlock(&kstats_faults_b);
}

/*
 * Several objects: a stale copy of one pointer on a stack that kmemleak
 * scans would hide that one, not all of them. Each is larger than any
 * kmalloc cache's (KMALLOC_MAX_CACHE_SIZE), so that the page allocator
 * serves it: a slab cache's per-CPU arrays of objects (sheaves, 7.0) keep
 * stale copies of the pointers they handed out, and on 7.3 those hid
 * every one of 8 objects of 64 bytes from kmemleak.
 */
#define KSTATS_FAULTS_LEAK_SIZE	(2 * KMALLOC_MAX_CACHE_SIZE)

static noinline void kstats_faults_leak(void)
{
	int i;

	for (i = 0; i < KSTATS_FAULTS_LEAKS; i++) {
		char *p = kmalloc(KSTATS_FAULTS_LEAK_SIZE, GFP_KERNEL);

		if (p)
			strscpy(p, "kstats_faults: leaked on purpose",
				KSTATS_FAULTS_LEAK_SIZE);
	}
}

static int kstats_faults_hang_fn(void *unused)
{
	wait_for_completion(&kstats_faults_release);
	return 0;
}

/* A thread that sleeps uninterruptibly until "release"; one at most. */
static int kstats_faults_hang(void)
{
	struct task_struct *t;

	guard(mutex)(&kstats_faults_lock);
	if (kstats_faults_hung)
		return -EBUSY;
	t = kthread_create(kstats_faults_hang_fn, NULL, "kstats_hung");
	if (IS_ERR(t))
		return PTR_ERR(t);
	/* Pinned before it runs, and may return. */
	get_task_struct(t);
	kstats_faults_hung = t;
	wake_up_process(t);
	return 0;
}

static ssize_t kstats_faults_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	char buf[16], *word;
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	word = strim(buf);

	if (!strcmp(word, "lockdep")) {
		kstats_faults_lockdep();
	} else if (!strcmp(word, "warn")) {
		WARN(1, "kstats_faults: WARN on request\n");
	} else if (!strcmp(word, "hang")) {
		ret = kstats_faults_hang();
		if (ret)
			return ret;
	} else if (!strcmp(word, "release")) {
		complete_all(&kstats_faults_release);
	} else if (!strcmp(word, "leak")) {
		kstats_faults_leak();
	} else {
		pr_warn("unknown fault '%s'\n", word);
		return -EINVAL;
	}
	return count;
}

static const struct file_operations kstats_faults_fops = {
	.owner = THIS_MODULE,
	.write = kstats_faults_write,
};

static int __init kstats_faults_init(void)
{
	kstats_faults_file = debugfs_create_file("kstats_faults", 0200, NULL,
						 NULL, &kstats_faults_fops);
	return 0;
}

static void __exit kstats_faults_exit(void)
{
	debugfs_remove(kstats_faults_file);
	complete_all(&kstats_faults_release);
	if (kstats_faults_hung) {
		kthread_stop(kstats_faults_hung);
		put_task_struct(kstats_faults_hung);
	}
}

module_init(kstats_faults_init);
module_exit(kstats_faults_exit);
MODULE_DESCRIPTION("Kernel reports on request, for the kstats harness's self-test");
MODULE_LICENSE("GPL");
