// SPDX-License-Identifier: GPL-2.0
/*
 * kstats: per-CPU log-linear histograms of kernel latencies and values.
 *
 * Each metric has, for every possible CPU, one counter pair (samples, sum)
 * per slot. kstats_record(), inline in <linux/kstats.h>, adds to the pair
 * of the current CPU with this_cpu operations: no lock, no atomic
 * instruction, no allocation.
 * Readers sum the CPUs up when /sys/kernel/debug/kstats/NAME is opened.
 *
 * See Documentation/dev-tools/kstats.rst.
 */

#define pr_fmt(fmt) "kstats: " fmt

#include <linux/cpu.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/kstats.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uio.h>

/*
 * Slots are allocated in chunks of KSTATS_CHUNK_SLOTS (8 KiB per CPU): the
 * per-CPU allocator refuses objects larger than PCPU_MIN_UNIT_SIZE (32 KiB),
 * and a metric with frac_bits 8 has 14592 slots. Metrics with frac_bits up
 * to 3 fit in a single chunk.
 *
 * The sum of a slot adds up the values of its samples shifted right by
 * max(shift - KSTATS_SUM_BITS, 0), where 2^shift is the slot's width: their
 * offsets from the lower bound of the slot, cut to their KSTATS_SUM_BITS
 * most significant bits, plus that bound, which readers take out again.
 * The mean printed for a slot is then always within the slot, and is exact
 * for slots up to 2^KSTATS_SUM_BITS wide. The sum may wrap: modulo 2^64 the
 * offsets come out right until 2^47 samples have landed in one slot of one
 * CPU.
 */

/* The files of kstats_trace, in the same directory. */
#define KSTATS_CONTROL_NAME	"_control"
#define KSTATS_ERROR_LOG_NAME	"error_log"
/* The file of a group that sums up its metrics. */
#define KSTATS_SUMMARY_NAME	"_summary"

/* One line of output per (slot, CPU) and one per slot for all CPUs. */
#define KSTATS_ALL_CPUS		(-1)
#define KSTATS_PPM		1000000U

/* A line of output, taken from one snapshot of all the counters. */
struct kstats_line {
	unsigned int slot;
	int cpu;			/* or KSTATS_ALL_CPUS */
	u32 ppm;			/* cumulative fraction, in millionths */
	u64 samples;
	u64 avg;
};

struct kstats_snapshot {
	size_t nr_lines;
	size_t max_lines;
	struct kstats_line *lines;
};

/*
 * kstats_mutex protects kstats_list, the names in it, and the creation and
 * removal of the debugfs files, so that a name is never in use twice.
 */
static DEFINE_MUTEX(kstats_mutex);
static LIST_HEAD(kstats_list);

/*
 * kstats_members_mutex protects the lists of the metrics of groups, which
 * the readers of a group's summary go through while they hold its file:
 * not kstats_mutex, under which kstats_delete() waits for them.
 */
static DEFINE_MUTEX(kstats_members_mutex);
static struct dentry *kstats_dir;

/* The mean of @samples (> 0) values of @slot whose sum kstats_record() kept. */
static u64 kstats_slot_avg(unsigned int slot, unsigned int frac_bits,
			   u64 samples, u64 sum)
{
	unsigned int bucket = slot >> frac_bits;
	unsigned int shift = bucket > 1 ? bucket - 1 : 0;
	unsigned int cut = shift > KSTATS_SUM_BITS ? shift - KSTATS_SUM_BITS : 0;
	u64 lo = kstats_slot_min(slot, frac_bits);
	u64 hi = kstats_slot_max(slot, frac_bits);
	/* The offsets from lo, in units of 2^cut: right modulo 2^64. */
	s64 offsets = sum - samples * (lo >> cut);
	u64 offset;

	/*
	 * The count and the sum of a sample are two additions, which a reader
	 * may see one without the other, and which a task migrated between
	 * them adds on two CPUs: never let that show as a mean out of the
	 * slot. The mean offset is bounded before it is scaled back, so that
	 * neither the shift nor the addition to lo can wrap, even in the slots
	 * at the top of the u64 range.
	 */
	if (offsets < 0)
		return lo;
	offset = div64_u64(offsets, samples);
	if (offset > (hi - lo) >> cut)
		return hi;
	/*
	 * Undo the cut, adding back half of what it lost on average: at most
	 * 2^shift - 2^(cut - 1), within the slot.
	 */
	if (cut)
		offset = (offset << cut) + (1ULL << (cut - 1));
	return lo + offset;
}

static int kstats_snapshot_add(struct kstats_snapshot *snap,
			       unsigned int slot, int cpu, u64 samples, u64 avg)
{
	struct kstats_line *line;

	if (snap->nr_lines == snap->max_lines) {
		size_t max = max_t(size_t, 64, 2 * snap->max_lines);

		line = kvmalloc_array(max, sizeof(*line), GFP_KERNEL);
		if (!line)
			return -ENOMEM;
		if (snap->nr_lines)
			memcpy(line, snap->lines, snap->nr_lines * sizeof(*line));
		kvfree(snap->lines);
		snap->lines = line;
		snap->max_lines = max;
	}
	line = &snap->lines[snap->nr_lines++];
	line->slot = slot;
	line->cpu = cpu;
	line->samples = samples;
	line->avg = avg;
	return 0;
}

/*
 * Read every counter once, keeping the non-empty (slot, CPU) pairs in
 * output order, then compute the cumulative fractions from that one copy,
 * so that they never decrease and end at exactly 1 whatever the writers do
 * meanwhile. Only the lines are kept: no buffer of all the counters.
 */
static int kstats_snapshot_take(struct kstats *ks, struct kstats_snapshot *snap)
{
	u64 *total, *cum;
	unsigned int slot;
	size_t i;
	int cpu, ret = 0;

	/* One entry per CPU id, and the last one for all CPUs. */
	total = kcalloc(2 * (nr_cpu_ids + 1), sizeof(*total), GFP_KERNEL);
	if (!total)
		return -ENOMEM;
	cum = total + nr_cpu_ids + 1;

	for (slot = 0; slot < ks->nr_slots && !ret; slot++) {
		u64 all_samples = 0, all_sum = 0;

		for_each_possible_cpu(cpu) {
			struct kstats_slot *s;
			u64 samples, sum;

			s = per_cpu_ptr(__kstats_slot_ptr(ks, slot), cpu);
			samples = READ_ONCE(s->samples);
			sum = READ_ONCE(s->sum);
			/*
			 * A kstats_record() that moved to another CPU between
			 * its two additions left its count there and its sum
			 * here: the sum still counts in the line of all CPUs,
			 * which stays exact.
			 */
			all_sum += sum;
			if (!samples)
				continue;
			ret = kstats_snapshot_add(snap, slot, cpu, samples,
						  kstats_slot_avg(slot, ks->frac_bits,
								  samples, sum));
			if (ret)
				break;
			total[cpu] += samples;
			all_samples += samples;
		}
		if (all_samples && !ret) {
			ret = kstats_snapshot_add(snap, slot, KSTATS_ALL_CPUS,
						  all_samples,
						  kstats_slot_avg(slot, ks->frac_bits,
								  all_samples, all_sum));
			total[nr_cpu_ids] += all_samples;
		}
		cond_resched();
	}

	for (i = 0; i < snap->nr_lines && !ret; i++) {
		struct kstats_line *line = &snap->lines[i];
		int idx = line->cpu == KSTATS_ALL_CPUS ? nr_cpu_ids : line->cpu;

		cum[idx] += line->samples;
		line->ppm = mul_u64_u64_div_u64(cum[idx], KSTATS_PPM, total[idx]);
	}
	kfree(total);
	return ret;
}

static void *kstats_seq_start(struct seq_file *m, loff_t *pos)
{
	struct kstats_snapshot *snap = m->private;

	return *pos < snap->nr_lines ? &snap->lines[*pos] : NULL;
}

static void *kstats_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return kstats_seq_start(m, pos);
}

static void kstats_seq_stop(struct seq_file *m, void *v)
{
}

static int kstats_seq_show(struct seq_file *m, void *v)
{
	const struct kstats_line *line = v;
	bool all = line->cpu == KSTATS_ALL_CPUS;

	/* The RFC's format: field 6 is the count, 8 the mean, 10 the CDF. */
	seq_printf(m, "slot %-3u CPU%c %-4u count %8llu avg %8llu p %c.%06u\n",
		   line->slot, all ? 'S' : ' ',
		   all ? num_possible_cpus() : line->cpu,
		   line->samples, line->avg,
		   line->ppm == KSTATS_PPM ? '1' : '0', line->ppm % KSTATS_PPM);
	return 0;
}

static const struct seq_operations kstats_seq_ops = {
	.start = kstats_seq_start,
	.next = kstats_seq_next,
	.stop = kstats_seq_stop,
	.show = kstats_seq_show,
};

static int kstats_release(struct inode *inode, struct file *file)
{
	struct kstats_snapshot *snap = ((struct seq_file *)file->private_data)->private;

	kvfree(snap->lines);
	return seq_release_private(inode, file);
}

/*
 * The file is created with debugfs_create_file_unsafe(): open and write hold
 * a debugfs reference while they use the metric, and kstats_delete() waits
 * for them in debugfs_remove(). Reads use only the snapshot owned by the
 * open file, so a reader keeps its data even when the metric goes away.
 */
static int kstats_open(struct inode *inode, struct file *file)
{
	struct dentry *dentry = file->f_path.dentry;
	struct kstats_snapshot *snap;
	int ret;

	ret = debugfs_file_get(dentry);
	if (ret)
		return ret;
	snap = __seq_open_private(file, &kstats_seq_ops, sizeof(*snap));
	if (!snap) {
		ret = -ENOMEM;
		goto out;
	}
	if (file->f_mode & FMODE_READ) {
		ret = kstats_snapshot_take(inode->i_private, snap);
		if (ret)
			kstats_release(inode, file);
	}
out:
	debugfs_file_put(dentry);
	return ret;
}

/* One chunk of a metric's counters, cleared on each CPU by kstats_reset(). */
struct kstats_reset_chunk {
	struct kstats *ks;
	unsigned int i, n;
};

static void kstats_reset_local(void *arg)
{
	const struct kstats_reset_chunk *c = arg;

	memset(this_cpu_ptr(c->ks->chunk[c->i]), 0, c->n * sizeof(struct kstats_slot));
}

/*
 * Each CPU's counters are cleared on that CPU, a chunk at a time in an
 * IPI: kstats_record()'s this_cpu operations there are atomic with
 * respect to it (one instruction on x86, interrupts off for the generic
 * ones), whether the recorder runs with preemption on or off, in an
 * interrupt or in an NMI. A memset() from another CPU could be overwritten
 * by an increment's store of the count it had read before, putting the
 * whole count back. An offline CPU records nothing while cpus_read_lock()
 * is held: its counters are cleared from here. A sample recorded on a CPU
 * while its counters are cleared may be kept in part (a count without its
 * sum, or the other way round); the means stay within their slots (see
 * kstats_slot_avg()).
 */
static void kstats_reset(struct kstats *ks)
{
	struct kstats_reset_chunk c = { .ks = ks };
	int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		for (c.i = 0; c.i < ks->nr_chunks; c.i++) {
			c.n = min_t(unsigned int, KSTATS_CHUNK_SLOTS,
				    ks->nr_slots - c.i * KSTATS_CHUNK_SLOTS);
			if (cpu_online(cpu))
				smp_call_function_single(cpu, kstats_reset_local, &c, 1);
			else
				memset(per_cpu_ptr(ks->chunk[c.i], cpu), 0,
				       c.n * sizeof(struct kstats_slot));
		}
		cond_resched();
	}
	cpus_read_unlock();
}

static ssize_t kstats_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct dentry *dentry = file->f_path.dentry;
	struct kstats *ks = file_inode(file)->i_private;
	size_t len = iov_iter_count(from);
	char buf[8];
	ssize_t ret;

	if (len >= sizeof(buf))
		goto invalid;
	if (copy_from_iter(buf, len, from) != len)
		return -EFAULT;
	buf[len] = '\0';
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';

	ret = debugfs_file_get(dentry);
	if (ret)
		return ret;
	ret = len;
	if (!strcasecmp(buf, "start"))
		WRITE_ONCE(ks->active, true);
	else if (!strcasecmp(buf, "stop"))
		WRITE_ONCE(ks->active, false);
	else if (!strcasecmp(buf, "reset"))
		kstats_reset(ks);
	else
		ret = -EINVAL;
	debugfs_file_put(dentry);
	if (ret > 0)
		return ret;
invalid:
	pr_warn_ratelimited("%pd: unknown command, expected start, stop or reset\n",
			    dentry);
	return -EINVAL;
}

static const struct file_operations kstats_fops = {
	.owner = THIS_MODULE,
	.open = kstats_open,
	.read_iter = seq_read_iter,
	.write_iter = kstats_write_iter,
	.llseek = seq_lseek,
	.release = kstats_release,
};

/*
 * A group's summary: the text made when the file is opened, from one pass
 * over the counters of its metrics, served as it is.
 */
struct kstats_summary {
	char *buf;
	size_t len, size;
};

/* Room for @n more bytes, in a buffer grown by doubling. */
static int kstats_summary_room(struct kstats_summary *sum, size_t n)
{
	size_t size = max_t(size_t, PAGE_SIZE, sum->size);
	char *buf;

	if (sum->len + n <= sum->size)
		return 0;
	while (size < sum->len + n)
		size *= 2;
	buf = kvmalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (sum->len)
		memcpy(buf, sum->buf, sum->len);
	kvfree(sum->buf);
	sum->buf = buf;
	sum->size = size;
	return 0;
}

/* The lines of metric @ks: its non-empty slots, all CPUs summed. */
static int kstats_summary_add(struct kstats_summary *sum, struct kstats *ks)
{
	/*
	 * "function NAME bits B slot S count N avg A\n" and its NUL: N and A
	 * have at most 20 digits, B 1 and S 5.
	 */
	size_t max = strlen(ks->name) + 81;
	unsigned int slot;
	int cpu, ret;

	for (slot = 0; slot < ks->nr_slots; slot++) {
		u64 samples = 0, total = 0;

		for_each_possible_cpu(cpu) {
			struct kstats_slot *s = per_cpu_ptr(__kstats_slot_ptr(ks, slot), cpu);

			samples += READ_ONCE(s->samples);
			total += READ_ONCE(s->sum);
		}
		if (!samples)
			continue;
		ret = kstats_summary_room(sum, max);
		if (ret)
			return ret;
		sum->len += scnprintf(sum->buf + sum->len, sum->size - sum->len,
				      "function %s bits %u slot %u count %llu avg %llu\n",
				      ks->name, ks->frac_bits, slot, samples,
				      kstats_slot_avg(slot, ks->frac_bits, samples, total));
	}
	return 0;
}

static int kstats_summary_open(struct inode *inode, struct file *file)
{
	struct dentry *dentry = file->f_path.dentry;
	struct kstats *group = inode->i_private, *ks;
	struct kstats_summary *sum;
	int ret;

	/*
	 * Its metrics' files take writes, so debugfs refuses to open them
	 * under LOCKDOWN_DEBUGFS; the summary, read-only, it would open: it
	 * is refused too, so that lockdown closes all of a group or none.
	 */
	ret = security_locked_down(LOCKDOWN_DEBUGFS);
	if (ret)
		return ret;
	ret = debugfs_file_get(dentry);
	if (ret)
		return ret;
	sum = kzalloc_obj(*sum);
	if (!sum) {
		ret = -ENOMEM;
		goto out;
	}
	mutex_lock(&kstats_members_mutex);
	list_for_each_entry(ks, &group->members, node) {
		ret = kstats_summary_add(sum, ks);
		if (ret)
			break;
		cond_resched();
	}
	mutex_unlock(&kstats_members_mutex);
	if (ret) {
		kvfree(sum->buf);
		kfree(sum);
	} else {
		file->private_data = sum;
	}
out:
	debugfs_file_put(dentry);
	return ret;
}

static ssize_t kstats_summary_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct kstats_summary *sum = iocb->ki_filp->private_data;
	loff_t pos = iocb->ki_pos;
	size_t n;

	if (pos < 0)
		return -EINVAL;
	if ((size_t)pos >= sum->len || !iov_iter_count(to))
		return 0;
	n = copy_to_iter(sum->buf + pos, sum->len - pos, to);
	if (!n)
		return -EFAULT;
	iocb->ki_pos += n;
	return n;
}

static int kstats_summary_release(struct inode *inode, struct file *file)
{
	struct kstats_summary *sum = file->private_data;

	kvfree(sum->buf);
	kfree(sum);
	return 0;
}

static const struct file_operations kstats_summary_fops = {
	.owner = THIS_MODULE,
	.open = kstats_summary_open,
	.read_iter = kstats_summary_read_iter,
	.llseek = default_llseek,
	.release = kstats_summary_release,
};

static int kstats_check_name(const char *name)
{
	const char *c;

	if (!name || !*name) {
		pr_warn("empty metric name\n");
		return -EINVAL;
	}
	/* Checked here, before anything is made, rather than by debugfs. */
	if (strlen(name) > NAME_MAX) {
		pr_warn("metric name longer than %d characters: %.32s...\n",
			NAME_MAX, name);
		return -ENAMETOOLONG;
	}
	/* Names are file names, and words of the _control file. */
	for (c = name; *c; c++) {
		if (*c == '/' || !isgraph(*c)) {
			pr_warn("invalid metric name '%s': '/', blanks and control characters are not allowed\n",
				name);
			return -EINVAL;
		}
	}
	if (!strcmp(name, ".") || !strcmp(name, "..") ||
	    !strcmp(name, KSTATS_CONTROL_NAME) || !strcmp(name, KSTATS_ERROR_LOG_NAME) ||
	    !strcmp(name, KSTATS_SUMMARY_NAME)) {
		pr_warn("invalid metric name '%s'\n", name);
		return -EINVAL;
	}
	return 0;
}

/* The metric or group @name at the top, or in @group. */
static struct kstats *kstats_find(struct kstats *group, const char *name)
{
	struct list_head *list = group ? &group->members : &kstats_list;
	struct kstats *ks;

	if (group)
		lockdep_assert_held(&kstats_members_mutex);
	else
		lockdep_assert_held(&kstats_mutex);
	list_for_each_entry(ks, list, node)
		if (!strcmp(ks->name, name))
			return ks;
	return NULL;
}

static void kstats_free(struct kstats *ks)
{
	unsigned int i;

	for (i = 0; i < ks->nr_chunks; i++)
		free_percpu(ks->chunk[i]);
	kfree(ks->name);
	kfree(ks);
}

/* A metric, or a group, which has no counters, if @group. */
static struct kstats *kstats_alloc(const char *name, u8 frac_bits, bool group)
{
	unsigned int i, nr_slots = group ? 0 : kstats_nr_slots(frac_bits);
	unsigned int nr_chunks = DIV_ROUND_UP(nr_slots, KSTATS_CHUNK_SLOTS);
	struct kstats *ks;

	ks = kzalloc(struct_size(ks, chunk, nr_chunks), GFP_KERNEL);
	if (!ks)
		return NULL;
	ks->nr_chunks = nr_chunks;
	ks->nr_slots = nr_slots;
	ks->frac_bits = frac_bits;
	ks->active = true;
	INIT_LIST_HEAD(&ks->node);
	INIT_LIST_HEAD(&ks->members);
	ks->name = kstrdup(name, GFP_KERNEL);
	if (!ks->name)
		goto fail;
	for (i = 0; i < nr_chunks; i++) {
		unsigned int n = min_t(unsigned int, KSTATS_CHUNK_SLOTS,
				       nr_slots - i * KSTATS_CHUNK_SLOTS);

		/* A failure is the caller's -ENOMEM, not a stack dump. */
		ks->chunk[i] = __alloc_percpu_gfp(n * sizeof(struct kstats_slot),
						  __alignof__(struct kstats_slot),
						  GFP_KERNEL | __GFP_NOWARN);
		if (!ks->chunk[i])
			goto fail;
	}
	return ks;
fail:
	kstats_free(ks);
	return NULL;
}

/**
 * kstats_debugfs_dir() - the kstats directory of debugfs
 *
 * For kstats_trace, whose _control file acts on all metrics and sits
 * beside them. The directory is created on first use.
 *
 * Context: process context; may sleep.
 * Return: the dentry of /sys/kernel/debug/kstats, or an error pointer when
 * debugfs is disabled (-EPERM with debugfs=off), to be passed to debugfs
 * functions as it is.
 */
struct dentry *kstats_debugfs_dir(void)
{
	struct dentry *dir;

	mutex_lock(&kstats_mutex);
	/*
	 * Created on first use, so that built-in users may come early; a
	 * failure is not kept, the next call tries again.
	 */
	dir = kstats_dir;
	if (!dir) {
		dir = debugfs_create_dir("kstats", NULL);
		if (!IS_ERR(dir))
			kstats_dir = dir;
	}
	mutex_unlock(&kstats_mutex);
	return dir;
}
EXPORT_SYMBOL_GPL(kstats_debugfs_dir);

/* A metric, or a group if @group_dir, at the top or in @group. */
static struct kstats *__kstats_new(struct kstats *group, const char *name,
				   u8 frac_bits, bool group_dir)
{
	struct dentry *dir, *file;
	struct kstats *ks;
	int ret;

	ret = kstats_check_name(name);
	if (ret)
		return ERR_PTR(ret);
	if (frac_bits > KSTATS_MAX_FRAC_BITS) {
		pr_warn("%s: frac_bits %u out of range 0..%u\n",
			name, frac_bits, KSTATS_MAX_FRAC_BITS);
		return ERR_PTR(-ERANGE);
	}
	ks = kstats_alloc(name, frac_bits, group_dir);
	if (!ks) {
		pr_warn("%s: out of memory\n", name);
		return ERR_PTR(-ENOMEM);
	}

	/* Only now: a refused name creates nothing, not even the directory. */
	dir = group ? group->file : kstats_debugfs_dir();
	mutex_lock(group ? &kstats_members_mutex : &kstats_mutex);
	if (kstats_find(group, name)) {
		ret = -EEXIST;
		pr_warn("%s%s%s: name already in use\n", group ? group->name : "",
			group ? "/" : "", name);
		goto fail;
	}
	/*
	 * The file is the only way to the data: a metric without it fails,
	 * unlike most users of debugfs, which go on without their files.
	 */
	if (group_dir) {
		ks->file = debugfs_create_dir(ks->name, dir);
		file = IS_ERR(ks->file) ? ks->file :
			debugfs_create_file_unsafe(KSTATS_SUMMARY_NAME, 0400,
						   ks->file, ks, &kstats_summary_fops);
	} else {
		ks->file = debugfs_create_file_unsafe(ks->name, 0600, dir, ks,
						      &kstats_fops);
		file = ks->file;
	}
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		if (!IS_ERR(ks->file))
			debugfs_remove(ks->file);
		pr_warn("%s: cannot create its debugfs file: %d\n", name, ret);
		goto fail;
	}
	ks->group = group;
	list_add_tail(&ks->node, group ? &group->members : &kstats_list);
	mutex_unlock(group ? &kstats_members_mutex : &kstats_mutex);
	return ks;
fail:
	mutex_unlock(group ? &kstats_members_mutex : &kstats_mutex);
	kstats_free(ks);
	return ERR_PTR(ret);
}

/**
 * kstats_new() - create a metric and its file /sys/kernel/debug/kstats/NAME
 * @name: name of the metric and of its file: at most NAME_MAX characters,
 *	no '/', blanks or control characters, not in use by another metric
 *	or group, not "_control" or "error_log" (the files of kstats_trace)
 *	or "_summary"
 * @frac_bits: number of fractional bits, 0 to KSTATS_MAX_FRAC_BITS: each
 *	power of two is split into 2^@frac_bits slots, so that a slot is at
 *	most 2^-@frac_bits of the values it holds. 3 is a good default.
 *
 * For any kernel code that measures itself, and for kstats_trace. The
 * metric starts recording at once. Its memory is allocated here for every
 * possible CPU: (65 - @frac_bits) << @frac_bits slots of 16 bytes per CPU,
 * 7936 bytes at @frac_bits 3.
 *
 * On failure, nothing is left behind and a warning says why. The error
 * pointer returned may be kept: kstats_record(), kstats_count() and
 * kstats_delete() ignore it, so that code can go on without its metric.
 *
 * Context: process context; may sleep.
 * Return: the new metric; ERR_PTR(-EINVAL) for an invalid name,
 * ERR_PTR(-ENAMETOOLONG) for a name longer than NAME_MAX, ERR_PTR(-ERANGE)
 * for @frac_bits out of range, ERR_PTR(-EEXIST) if the name is in use,
 * ERR_PTR(-ENOMEM) if memory ran out, or the error of debugfs if the file
 * cannot be created (-EPERM when debugfs is disabled with debugfs=off).
 */
struct kstats *kstats_new(const char *name, u8 frac_bits)
{
	return __kstats_new(NULL, name, frac_bits, false);
}
EXPORT_SYMBOL_GPL(kstats_new);

/**
 * kstats_new_group() - create a group of metrics, the directory
 *	/sys/kernel/debug/kstats/NAME/
 * @name: name of the group and of its directory, as for kstats_new()
 *
 * For a set of metrics of one kind, such as kstats_trace's timing of
 * every function that a pattern matches: kstats_new_in() adds them, each
 * with its own file in the directory, and kstats_delete() of the group
 * removes them all. The directory also holds "_summary", which lists,
 * for every metric of the group and every non-empty slot, the samples of
 * all CPUs, one line each: "function NAME bits B slot S count N avg A".
 * It serves readers that follow many metrics at once, at the cost of one
 * pass over the counters and none of the per-CPU lines.
 *
 * Context: process context; may sleep.
 * Return: the new group, or an error pointer, as kstats_new() returns
 * them. A group has no counters: it is not to be passed to
 * kstats_record().
 */
struct kstats *kstats_new_group(const char *name)
{
	return __kstats_new(NULL, name, 0, true);
}
EXPORT_SYMBOL_GPL(kstats_new_group);

/**
 * kstats_new_in() - create a metric in a group, and its file
 *	/sys/kernel/debug/kstats/GROUP/NAME
 * @group: the group, from kstats_new_group()
 * @name: name of the metric, unique in @group, as for kstats_new()
 * @frac_bits: number of fractional bits, as for kstats_new()
 *
 * The metric is as one from kstats_new(), and is deleted with its group:
 * kstats_delete() of the metric itself is allowed too.
 *
 * Context: process context; may sleep.
 * Return: the new metric, or an error pointer, as kstats_new() returns
 * them; ERR_PTR(-EINVAL) if @group is not a group.
 */
struct kstats *kstats_new_in(struct kstats *group, const char *name, u8 frac_bits)
{
	if (IS_ERR_OR_NULL(group) || group->nr_chunks) {
		pr_warn("%s: not a group of metrics\n", name);
		return ERR_PTR(-EINVAL);
	}
	return __kstats_new(group, name, frac_bits, false);
}
EXPORT_SYMBOL_GPL(kstats_new_in);

/**
 * kstats_count() - number of samples in a metric, on all CPUs
 * @ks: the metric; NULL and error pointers count 0
 *
 * For the owner of the metric, such as kstats_trace, which lists the
 * number of samples of each trace.
 *
 * Context: any context; the sum of per-CPU counters read one after the
 * other, not a snapshot.
 * Return: the number of samples recorded since creation or the last reset.
 */
u64 kstats_count(struct kstats *ks)
{
	unsigned int slot;
	u64 n = 0;
	int cpu;

	if (IS_ERR_OR_NULL(ks))
		return 0;
	for_each_possible_cpu(cpu)
		for (slot = 0; slot < ks->nr_slots; slot++)
			n += READ_ONCE(per_cpu_ptr(__kstats_slot_ptr(ks, slot),
						   cpu)->samples);
	return n;
}
EXPORT_SYMBOL_GPL(kstats_count);

/**
 * kstats_delete() - remove a metric, its file and its memory, or a group
 *	and all its metrics
 * @ks: the metric or the group, from kstats_new(), kstats_new_group() or
 *	kstats_new_in(); NULL and error pointers are ignored
 *
 * For the owner of the metric, once.
 * Waits for the opens and writes of the files in progress. A reader
 * that has a file open keeps reading the data it opened, then end of file.
 * The caller must make sure that no kstats_record() on @ks, or on a metric
 * of the group @ks, is running or will run.
 *
 * Context: process context; may sleep.
 */
void kstats_delete(struct kstats *ks)
{
	struct kstats *m, *tmp;

	if (IS_ERR_OR_NULL(ks))
		return;
	if (ks->group) {
		/* A metric of a group: its readers of the summary hold that lock. */
		debugfs_remove(ks->file);
		mutex_lock(&kstats_members_mutex);
		list_del(&ks->node);
		mutex_unlock(&kstats_members_mutex);
		kstats_free(ks);
		return;
	}
	mutex_lock(&kstats_mutex);
	/* A group's directory: its files too, once their users are done. */
	debugfs_remove(ks->file);
	list_del(&ks->node);
	mutex_unlock(&kstats_mutex);
	/* Nobody can reach the metrics of the group any more. */
	list_for_each_entry_safe(m, tmp, &ks->members, node) {
		list_del(&m->node);
		kstats_free(m);
		cond_resched();
	}
	kstats_free(ks);
}
EXPORT_SYMBOL_GPL(kstats_delete);

#ifdef MODULE
/*
 * Built out of tree for a kernel without kstats (Kbuild at the top of the
 * kstats tree), the core is a module; in the tree it is built in.
 */
static void __exit kstats_exit(void)
{
	/* Every user held a reference to this module: no metric is left. */
	debugfs_remove(kstats_dir);
}
module_exit(kstats_exit);

MODULE_DESCRIPTION("kstats: per-CPU latency distributions in debugfs");
MODULE_LICENSE("GPL");
#endif
