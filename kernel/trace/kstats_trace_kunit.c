// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kstats_trace: the _control command parser on a table of
 * good and bad lines, and traces added, hit and removed on the running
 * kernel (this needs kprobes: run it in a VM, not in UML).
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kstats.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../../lib/tests/kstats_kunit.h"
#include "kstats_trace.h"
#include "kstats_trace_record.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

struct kstats_trace_test_parse {
	const char *line;
	int ret;
	enum kstats_trace_verb verb;
	enum kstats_trace_mode mode;
	const char *name;
	const char *start;
	unsigned int start_off;
	bool start_tp;
	const char *end;
	unsigned int end_off;
	bool end_tp;
	unsigned int bits;
	int pid;
	const char *cgroup;
	bool gap;
	unsigned int maxactive;
};

#define GOOD(l, v, m, n, s, so, st, e, eo, et, b) \
	{ .line = l, .ret = 0, .verb = v, .mode = m, .name = n, .start = s, \
	  .start_off = so, .start_tp = st, .end = e, .end_off = eo, \
	  .end_tp = et, .bits = b }
/* Entry/return forms: the function is the start point, and the name. */
#define FUNC(l, m, f, b) \
	GOOD(l, KSTATS_TRACE_ADD, KSTATS_TRACE_##m, f, NULL, 0, false, NULL, 0, false, b)
#define BAD(l, r) { .line = l, .ret = r }
/* With gap: the function f, mode m, bits b, and a GAP- metric. */
#define GAPF(l, m, f, b) \
	{ .line = l, .ret = 0, .verb = KSTATS_TRACE_ADD, .mode = KSTATS_TRACE_##m, \
	  .name = f, .bits = b, .gap = true }
/* With filters: the function foo, bits b, pid p, cgroup c. */
#define FILT(l, b, p, c) \
	{ .line = l, .ret = 0, .verb = KSTATS_TRACE_ADD, .mode = KSTATS_TRACE_KRETPROBE, \
	  .name = "foo", .bits = b, .pid = p, .cgroup = c }

static const struct kstats_trace_test_parse kstats_trace_test_lines[] = {
	FUNC("trace foo", KRETPROBE, "foo", 3),
	FUNC("trace foo\n", KRETPROBE, "foo", 3),
	FUNC("  trace\tfoo  ", KRETPROBE, "foo", 3),
	FUNC("trace pcpu:foo bits 5", PCPU, "foo", 5),
	FUNC("trace fprobe:foo bits 0", FPROBE, "foo", 0),
	FUNC("trace __do_softirq bits 8\n", KRETPROBE, "__do_softirq", 8),
	FUNC("trace foo.isra.0", KRETPROBE, "foo.isra.0", 3),
	FUNC("trace start bits 4", KRETPROBE, "start", 4),
	GOOD("trace n start a+0x10 end b+4", KSTATS_TRACE_ADD, KSTATS_TRACE_PAIR,
	     "n", "a", 16, false, "b", 4, false, 3),
	GOOD("trace sirq start __tracepoint_softirq_entry end tp:softirq_exit bits 6",
	     KSTATS_TRACE_ADD, KSTATS_TRACE_PAIR, "sirq", "softirq_entry", 0, true,
	     "softirq_exit", 0, true, 6),
	GOOD("trace mix start tp:irq_handler_entry end handle_irq_event+3",
	     KSTATS_TRACE_ADD, KSTATS_TRACE_PAIR, "mix", "irq_handler_entry", 0,
	     true, "handle_irq_event", 3, false, 3),
	GOOD("remove foo", KSTATS_TRACE_REMOVE, 0, "foo", NULL, 0, false, NULL,
	     0, false, 0),
	GOOD("remove GAP-foo\n", KSTATS_TRACE_REMOVE, 0, "GAP-foo", NULL, 0, false,
	     NULL, 0, false, 0),
	FUNC("trace foo # a comment\n", KRETPROBE, "foo", 3),
	FUNC("trace foo bits 2#\n", KRETPROBE, "foo", 2),
	GOOD("# trace [pcpu:|fprobe:]FUNC [bits N]\n", KSTATS_TRACE_NONE, 0, NULL,
	     NULL, 0, false, NULL, 0, false, 0),
	GOOD("  #", KSTATS_TRACE_NONE, 0, NULL, NULL, 0, false, NULL, 0, false, 0),
	BAD("# a comment\ntrace foo", -EINVAL),
	BAD("trace # foo", -EINVAL),
	BAD("", -EINVAL),
	BAD("\n", -EINVAL),
	BAD("   ", -EINVAL),
	BAD("foo", -EINVAL),
	BAD("TRACE foo", -EINVAL),
	BAD("trace", -EINVAL),
	BAD("remove", -EINVAL),
	BAD("remove a b", -EINVAL),
	BAD("trace foo bits 9", -ERANGE),
	BAD("trace foo bits 4294967296", -EINVAL),
	BAD("trace foo bits -1", -EINVAL),
	BAD("trace foo bits x", -EINVAL),
	BAD("trace foo bits", -EINVAL),
	BAD("trace foo extra", -EINVAL),
	BAD("trace foo bar bits 3", -EINVAL),
	BAD("trace n start a end", -EINVAL),
	BAD("trace n start a stop b", -EINVAL),
	BAD("trace n begin a end b", -EINVAL),
	BAD("trace n start a end b c", -EINVAL),
	BAD("trace fo/o", -EINVAL),
	BAD("trace pcpu:", -EINVAL),
	BAD("trace fprobe:pcpu:foo", -EINVAL),
	BAD("trace foo+4", -EINVAL),
	BAD("trace n start a+x end b", -EINVAL),
	BAD("trace n start a+ end b", -EINVAL),
	BAD("trace n start tp:a+1 end b", -EINVAL),
	BAD("trace n start tp: end b", -EINVAL),
	BAD("trace n start __tracepoint_ end b", -EINVAL),
	BAD("trace foo\nbar", -EINVAL),
	BAD("trace foo\n\n", -EINVAL),
	BAD("trace foo\r", -EINVAL),
	BAD("trace a b c d e f g h i j k l m", -EINVAL),
	FILT("trace foo pid 42", 3, 42, NULL),
	FILT("trace foo cgroup /a/b bits 5", 5, 0, "/a/b"),
	FILT("trace foo bits 1 pid 7 cgroup /", 1, 7, "/"),
	FILT("trace foo cgroup /x pid 9", 3, 9, "/x"),
	/* The longest command: twelve words. */
	{ .line = "trace n start a end b bits 2 pid 3 cgroup /c", .verb = KSTATS_TRACE_ADD,
	  .mode = KSTATS_TRACE_PAIR, .name = "n", .start = "a", .end = "b", .bits = 2,
	  .pid = 3, .cgroup = "/c" },
	BAD("trace foo pid 0", -EINVAL),
	BAD("trace foo pid -5", -EINVAL),
	BAD("trace foo pid x", -EINVAL),
	BAD("trace foo pid", -EINVAL),
	BAD("trace foo pid 1 pid 2", -EINVAL),
	BAD("trace foo bits 1 bits 2", -EINVAL),
	BAD("trace foo cgroup a/b", -EINVAL),
	BAD("trace foo cgroup /a cgroup /b", -EINVAL),
	BAD("trace foo cgroup", -EINVAL),
	BAD("trace foo pid 4 extra", -EINVAL),
	/* gap: a bare word among the options, for a function only. */
	GAPF("trace foo gap", KRETPROBE, "foo", 3),
	GAPF("trace fprobe:foo gap bits 2", FPROBE, "foo", 2),
	GAPF("trace pcpu:foo gap bits 5", PCPU, "foo", 5),
	FUNC("trace gap", KRETPROBE, "gap", 3),
	BAD("trace foo gap gap", -EINVAL),
	BAD("trace n start a end b gap", -EINVAL),
	BAD("trace fprobe:a* as g gap", -EINVAL),
	/* maxactive N: 1 to 4096 for a function, to 65536 for a group. */
	{ .line = "trace foo maxactive 100", .verb = KSTATS_TRACE_ADD,
	  .mode = KSTATS_TRACE_KRETPROBE, .name = "foo", .bits = 3, .maxactive = 100 },
	{ .line = "trace pcpu:foo maxactive 1 bits 2", .verb = KSTATS_TRACE_ADD,
	  .mode = KSTATS_TRACE_PCPU, .name = "foo", .bits = 2, .maxactive = 1 },
	{ .line = "trace fprobe:foo gap maxactive 4096", .verb = KSTATS_TRACE_ADD,
	  .mode = KSTATS_TRACE_FPROBE, .name = "foo", .bits = 3, .gap = true,
	  .maxactive = 4096 },
	{ .line = "trace fprobe:vfs_* as v maxactive 65536 bits 2 pid 3 cgroup /c",
	  .verb = KSTATS_TRACE_ADD, .mode = KSTATS_TRACE_GROUP, .name = "v",
	  .start = "vfs_*", .bits = 2, .pid = 3, .cgroup = "/c", .maxactive = 65536 },
	BAD("trace foo maxactive 0", -EINVAL),
	BAD("trace foo maxactive -1", -EINVAL),
	BAD("trace foo maxactive x", -EINVAL),
	BAD("trace foo maxactive", -EINVAL),
	BAD("trace foo maxactive 4097", -ERANGE),
	BAD("trace pcpu:foo maxactive 65536", -ERANGE),
	BAD("trace fprobe:vfs_* as v maxactive 65537", -ERANGE),
	BAD("trace foo maxactive 4294967296", -EINVAL),
	BAD("trace foo maxactive 1 maxactive 2", -EINVAL),
	BAD("trace n start a end b maxactive 4", -EINVAL),
	/* Groups: a glob, fprobe: and a name; bits 1 unless given. */
	GOOD("trace fprobe:vfs_* as v", KSTATS_TRACE_ADD, KSTATS_TRACE_GROUP, "v",
	     "vfs_*", 0, false, NULL, 0, false, 1),
	GOOD("trace fprobe:__x64_sys_get?[pu]id* as ids bits 4", KSTATS_TRACE_ADD,
	     KSTATS_TRACE_GROUP, "ids", "__x64_sys_get?[pu]id*", 0, false, NULL, 0,
	     false, 4),
	{ .line = "trace fprobe:*_show as s pid 3", .verb = KSTATS_TRACE_ADD,
	  .mode = KSTATS_TRACE_GROUP, .name = "s", .start = "*_show", .bits = 1,
	  .pid = 3 },
	BAD("trace fprobe:vfs_*", -EINVAL),
	BAD("trace vfs_*", -EINVAL),
	BAD("trace vfs_* as v", -EINVAL),
	BAD("trace pcpu:vfs_* as v", -EINVAL),
	/* A name is a group too: of the functions that share it. */
	GOOD("trace fprobe:vfs_read as v", KSTATS_TRACE_ADD, KSTATS_TRACE_GROUP, "v",
	     "vfs_read", 0, false, NULL, 0, false, 1),
	BAD("trace fprobe:123 as v", -EINVAL),
	BAD("trace fprobe:1* as v", -EINVAL),
	BAD("trace fprobe:!vfs_* as v", -EINVAL),
	BAD("trace fprobe:vfs/* as v", -EINVAL),
	BAD("trace fprobe:vfs_* as", -EINVAL),
	BAD("trace fprobe:vfs_* is v", -EINVAL),
	BAD("trace n start vfs_* end b", -EINVAL),
	/* MODULE:SYMBOL, as kprobe events take it. */
	FUNC("trace kstats_bench:foo", KRETPROBE, "kstats_bench:foo", 3),
	FUNC("trace fprobe:mod_x:foo.isra.0 bits 2", FPROBE, "mod_x:foo.isra.0", 2),
	BAD("trace mod-x:foo", -EINVAL),
	BAD("trace tp:foo", -EINVAL),
	BAD("trace fprobe:tp:foo", -EINVAL),
	GOOD("trace n start m:a+4 end b", KSTATS_TRACE_ADD, KSTATS_TRACE_PAIR,
	     "n", "m:a", 4, false, "b", 0, false, 3),
	BAD("trace :foo", -EINVAL),
	BAD("trace a/b:foo", -EINVAL),
	BAD("trace mod:", -EINVAL),
	BAD("trace m:a:b", -EINVAL),
	BAD("trace 123", -EINVAL),
	BAD("trace kstats_trace:foo", -EPERM),
	BAD("trace kstats_bench:kstats_record", -EPERM),
	BAD("trace kstats_record", -EPERM),
	BAD("trace fprobe:kstats_new", -EPERM),
	BAD("trace pcpu:kstats_trace_exec", -EPERM),
	BAD("trace n start kstats_record end foo", -EPERM),
	BAD("trace n start foo end kstats_delete+2", -EPERM),
};

static void kstats_trace_test_desc(const struct kstats_trace_test_parse *t,
				   char *desc)
{
	char *c;

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "'%s'", t->line);
	for (c = desc; *c; c++)
		if (*c == '\n' || *c == '\t' || *c == '\r')
			*c = ' ';
}

KUNIT_ARRAY_PARAM(kstats_trace_test_lines, kstats_trace_test_lines,
		  kstats_trace_test_desc);

static void kstats_trace_test_point(struct kunit *test,
				    const struct kstats_trace_where *p,
				    const char *sym, unsigned int off, bool tp)
{
	KUNIT_EXPECT_STREQ(test, p->sym, sym);
	KUNIT_EXPECT_EQ(test, p->offset, off);
	KUNIT_EXPECT_EQ(test, p->tracepoint, tp);
}

static void kstats_trace_test_parse(struct kunit *test)
{
	const struct kstats_trace_test_parse *t = test->param_value;
	struct kstats_trace_cmd cmd;
	char *line = kunit_kzalloc(test, strlen(t->line) + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, line);
	strscpy(line, t->line, strlen(t->line) + 1);
	KUNIT_ASSERT_EQ(test, kstats_trace_parse(line, &cmd), t->ret);
	if (t->ret)
		return;
	KUNIT_EXPECT_EQ(test, cmd.verb, t->verb);
	if (t->verb == KSTATS_TRACE_NONE)
		return;
	KUNIT_EXPECT_STREQ(test, cmd.name, t->name);
	if (t->verb == KSTATS_TRACE_REMOVE)
		return;
	KUNIT_EXPECT_EQ(test, cmd.mode, t->mode);
	KUNIT_EXPECT_EQ(test, cmd.bits, t->bits);
	KUNIT_EXPECT_EQ(test, cmd.gap, t->gap);
	KUNIT_EXPECT_EQ(test, cmd.maxactive, t->maxactive);
	KUNIT_EXPECT_EQ(test, cmd.pid, t->pid);
	if (t->cgroup)
		KUNIT_EXPECT_STREQ(test, cmd.cgroup, t->cgroup);
	else
		KUNIT_EXPECT_NULL(test, cmd.cgroup);
	kstats_trace_test_point(test, &cmd.start, t->start ?: t->name,
				t->start_off, t->start_tp);
	if (t->mode == KSTATS_TRACE_PAIR)
		kstats_trace_test_point(test, &cmd.end, t->end, t->end_off,
					t->end_tp);
}

/* Functions to trace, called only by this test. */
static noinline __noclone int kstrace_test_fn(int x)
{
	/* Keep the call: the compiler must not know what it returns. */
	barrier();
	return x + 1;
}

static noinline __noclone int kstrace_test_end(int x)
{
	barrier();
	return x - 1;
}

struct kstrace_test_two {
	long a, b;
};

/*
 * Ten arguments, the last four on the stack, and a return value in two
 * registers (%rax and %rdx on x86_64): a traced call must see and return
 * exactly what an untraced one does, in every form.
 */
static noinline __noclone struct kstrace_test_two
kstrace_test_args(long a, long b, long c, long d, long e, long f, long g,
		  long h, long i, long j)
{
	struct kstrace_test_two r = {
		.a = a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f,
		.b = 7 * g + 8 * h + 9 * i + 10 * j,
	};

	barrier();
	return r;
}

struct kstrace_test_sleep {
	struct completion entered, go, done;
	int ret;
};

/* Sleeps in the function until told to return. */
static noinline __noclone int kstrace_test_sleep(struct kstrace_test_sleep *s)
{
	complete(&s->entered);
	wait_for_completion(&s->go);
	barrier();
	return 1;
}

static int kstrace_test_sleeper(void *data)
{
	struct kstrace_test_sleep *s = data;

	s->ret = kstrace_test_sleep(s);
	kthread_complete_and_exit(&s->done, 0);
}

/* The content of a file that must exist, such as _control. */
static char *kstats_trace_test_file(struct kunit *test, const char *name)
{
	char *text = kstats_kunit_read(test, name);

	KUNIT_ASSERT_NOT_NULL_MSG(test, text, "no file %s", name);
	return text;
}

/* The sample count of a trace, from its line in _control; -1 if none. */
/*
 * The number after @key in the listing's line of the trace @name: -1 if
 * there is no such trace, -2 if its line has no @key.
 */
static long long kstats_trace_test_field(struct kunit *test, const char *name,
					 const char *key)
{
	char *text = kstats_trace_test_file(test, "_control");
	char want[80], *line, *end;
	long long n;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, text);
	snprintf(want, sizeof(want), "name %s ", name);
	line = strstr(text, want);
	if (!line)
		return -1;
	end = strchrnul(line, '\n');
	*end = '\0';
	snprintf(want, sizeof(want), " %s ", key);
	line = strstr(line, want);
	if (!line)
		return -2;
	ret = sscanf(line + strlen(want), "%lld", &n);
	KUNIT_ASSERT_EQ(test, ret, 1);
	return n;
}

static long long kstats_trace_test_samples(struct kunit *test, const char *name)
{
	return kstats_trace_test_field(test, name, "samples");
}

static int kstats_trace_test_exec(const char *cmd)
{
	return kstats_trace_exec(cmd, strlen(cmd));
}

static const char * const kstats_trace_test_modes[] = { "", "pcpu:", "fprobe:" };

/* Each entry/return form counts every call, exactly. */
static void kstats_trace_test_count(struct kunit *test)
{
	const char *name = "kstrace_test_fn";
	unsigned int i, mode;
	char cmd[64];
	int sum = 0;

	for (mode = 0; mode < ARRAY_SIZE(kstats_trace_test_modes); mode++) {
		snprintf(cmd, sizeof(cmd), "trace %s%s bits 4 gap",
			 kstats_trace_test_modes[mode], name);
		KUNIT_ASSERT_EQ_MSG(test, kstats_trace_test_exec(cmd), 0, "%s", cmd);
		KUNIT_EXPECT_EQ(test, kstats_trace_test_samples(test, name), 0);
		/* pcpu: loses a call that returns on another CPU, as documented. */
		migrate_disable();
		for (i = 0; i < 100; i++)
			sum += kstrace_test_fn(i);
		migrate_enable();
		KUNIT_EXPECT_EQ_MSG(test, kstats_trace_test_samples(test, name), 100,
				    "%s", cmd);
		KUNIT_EXPECT_NOT_NULL(test, kstats_kunit_read(test, name));
		KUNIT_EXPECT_NOT_NULL(test, kstats_kunit_read(test, "GAP-kstrace_test_fn"));
		KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_fn\n"), 0);
		KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, name));
		KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "GAP-kstrace_test_fn"));
		KUNIT_EXPECT_EQ(test, kstats_trace_test_samples(test, name), -1);
	}
	KUNIT_EXPECT_EQ(test, sum, 3 * 4950 + 300);
}

static const char kstats_trace_test_pair_cmd[] =
	"trace kunit_pair start kstrace_test_fn end kstrace_test_end bits 2";
static const char kstats_trace_test_tp_cmd[] =
	"trace kunit_tp start __tracepoint_softirq_entry end tp:softirq_exit";
static const char kstats_trace_test_tp_line[] =
	"name kunit_tp mode pair start tp:softirq_entry end tp:softirq_exit bits 3 ";

/* A kprobe pair: one sample per start closed by an end on this CPU. */
static void kstats_trace_test_pair(struct kunit *test)
{
	unsigned int i;
	int sum = 0;

	KUNIT_ASSERT_EQ(test, kstats_trace_test_exec(kstats_trace_test_pair_cmd), 0);
	/* Migration would pair a start and an end of different CPUs. */
	migrate_disable();
	for (i = 0; i < 50; i++)
		sum += kstrace_test_end(kstrace_test_fn(i));
	/* Ends without a start: missed, not recorded. */
	sum += kstrace_test_end(0);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, kstats_trace_test_samples(test, "kunit_pair"), 50);
	KUNIT_EXPECT_NOT_NULL(test, strstr(kstats_trace_test_file(test, "_control"),
					   " missed 1 memory "));
	/* No GAP metric for pairs. */
	KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "GAP-kunit_pair"));
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kunit_pair"), 0);
	KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "kunit_pair"));
	KUNIT_EXPECT_EQ(test, sum, 1225 - 1);
}

/* Calls of a kthread of its own: its process is another than the test's. */
struct kstrace_test_other {
	struct completion go, done;
	int calls, sum;
};

static int kstrace_test_other_fn(void *data)
{
	struct kstrace_test_other *o = data;
	int i;

	wait_for_completion(&o->go);
	migrate_disable();
	for (i = 0; i < o->calls; i++)
		o->sum += kstrace_test_end(kstrace_test_fn(i));
	migrate_enable();
	kthread_complete_and_exit(&o->done, 0);
}

/*
 * pid N: in every form, only the calls of process N are timed, while
 * another process calls the same functions; the filter is listed, and a
 * process that does not exist is refused.
 */
static void kstats_trace_test_pid(struct kunit *test)
{
	static const char * const forms[] = {
		"trace %skstrace_test_fn pid %d",
		"trace kunit_pid start kstrace_test_fn end kstrace_test_end pid %d",
	};
	struct kstrace_test_other *o;
	struct task_struct *k;
	unsigned int mode, f, i;
	const char *name;
	char cmd[96], want[32], *text;
	int sum = 0;

	for (f = 0; f < ARRAY_SIZE(forms); f++) {
		for (mode = 0; mode < (f ? 1 : ARRAY_SIZE(kstats_trace_test_modes)); mode++) {
			name = f ? "kunit_pid" : "kstrace_test_fn";
			o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, o);
			init_completion(&o->go);
			init_completion(&o->done);
			o->calls = 70;
			if (f)
				snprintf(cmd, sizeof(cmd), forms[f], task_tgid_nr(current));
			else
				snprintf(cmd, sizeof(cmd), forms[f], kstats_trace_test_modes[mode],
					 task_tgid_nr(current));
			KUNIT_ASSERT_EQ_MSG(test, kstats_trace_test_exec(cmd), 0, "%s", cmd);
			snprintf(want, sizeof(want), " pid %d\n", task_tgid_nr(current));
			KUNIT_EXPECT_NOT_NULL(test, strstr(kstats_trace_test_file(test, "_control"),
							   want));
			/* No assertion from here until the thread is done. */
			k = kthread_run(kstrace_test_other_fn, o, "kstrace_other");
			if (!IS_ERR(k)) {
				complete(&o->go);
				migrate_disable();
				for (i = 0; i < 40; i++)
					sum += kstrace_test_end(kstrace_test_fn(i));
				migrate_enable();
				wait_for_completion(&o->done);
			}
			KUNIT_EXPECT_FALSE(test, IS_ERR(k));
			KUNIT_EXPECT_EQ_MSG(test, kstats_trace_test_samples(test, name), 40,
					    "%s", cmd);
			/* The other thread's returns were not seen either: nothing missed. */
			text = kstats_trace_test_file(test, "_control");
			KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(text, want), "%s", cmd);
			KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(text, " missed 0 memory "),
						  "%s", cmd);
			snprintf(cmd, sizeof(cmd), "remove %s", name);
			KUNIT_EXPECT_EQ(test, kstats_trace_test_exec(cmd), 0);
			/* Its sum, 70 calls of fn then end, is 0 + ... + 69. */
			KUNIT_EXPECT_EQ(test, o->sum, IS_ERR(k) ? 0 : 2415);
		}
	}
	KUNIT_EXPECT_EQ(test, sum, 4 * 780);
	/* Beyond any pid_max: no such process; nothing is left behind. */
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("trace kstrace_test_fn pid 2147483647"),
			-ESRCH);
	KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "kstrace_test_fn"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(kstats_trace_test_file(test, "error_log"),
					   "pid 2147483647: no such process"));
#ifdef CONFIG_CGROUPS
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("trace kstrace_test_fn cgroup /kstrace_none"),
			-ENOENT);
	KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "kstrace_test_fn"));
	/* The root cgroup holds every task. */
	KUNIT_ASSERT_EQ(test, kstats_trace_test_exec("trace kstrace_test_fn cgroup /"), 0);
	for (i = 0; i < 10; i++)
		sum += kstrace_test_fn(i);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_samples(test, "kstrace_test_fn"), 10);
	KUNIT_EXPECT_NOT_NULL(test, strstr(kstats_trace_test_file(test, "_control"),
					   " cgroup /\n"));
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_fn"), 0);
#endif
}

/* A tracepoint pair attaches and detaches. */
static void kstats_trace_test_tracepoints(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, kstats_trace_test_exec(kstats_trace_test_tp_cmd), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(kstats_trace_test_file(test, "_control"),
					   kstats_trace_test_tp_line));
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kunit_tp"), 0);
}

/* Every form passes stack arguments and two-register return values through. */
static void kstats_trace_test_args(struct kunit *test)
{
	struct kstrace_test_two want, got;
	unsigned int mode;
	char cmd[64];
	long i;

	for (mode = 0; mode < ARRAY_SIZE(kstats_trace_test_modes); mode++) {
		snprintf(cmd, sizeof(cmd), "trace %skstrace_test_args",
			 kstats_trace_test_modes[mode]);
		for (i = 0; i < 3; i++) {
			want = kstrace_test_args(i, 1, 2, 3, 4, 5, 6, 7, 8, 9 - i);
			KUNIT_ASSERT_EQ_MSG(test, kstats_trace_test_exec(cmd), 0, "%s", cmd);
			migrate_disable();
			got = kstrace_test_args(i, 1, 2, 3, 4, 5, 6, 7, 8, 9 - i);
			migrate_enable();
			KUNIT_EXPECT_EQ(test,
					kstats_trace_test_samples(test, "kstrace_test_args"), 1);
			KUNIT_EXPECT_EQ(test,
					kstats_trace_test_exec("remove kstrace_test_args"), 0);
			KUNIT_EXPECT_EQ_MSG(test, got.a, want.a, "%s", cmd);
			KUNIT_EXPECT_EQ_MSG(test, got.b, want.b, "%s", cmd);
		}
	}
	KUNIT_EXPECT_EQ(test, want.b, 7 * 6 + 8 * 7 + 9 * 8 + 10 * 7);
}

/*
 * In every entry/return mode, a trace removed while a call sleeps in the
 * function goes at once, name and metrics; the call then returns as if
 * untraced, and the name can be traced again.
 */
static void kstats_trace_test_inflight(struct kunit *test)
{
	const char *name = "kstrace_test_sleep";
	struct kstrace_test_sleep *s;
	struct task_struct *task;
	unsigned int mode;
	char cmd[64];

	for (mode = 0; mode < ARRAY_SIZE(kstats_trace_test_modes); mode++) {
		s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, s);
		init_completion(&s->entered);
		init_completion(&s->go);
		init_completion(&s->done);
		snprintf(cmd, sizeof(cmd), "trace %s%s", kstats_trace_test_modes[mode], name);
		KUNIT_ASSERT_EQ(test, kstats_trace_test_exec(cmd), 0);
		task = kthread_run(kstrace_test_sleeper, s, "kstrace_sleeper");
		if (IS_ERR(task)) {
			kstats_trace_test_exec("remove kstrace_test_sleep");
			KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(task));
			return;
		}
		wait_for_completion(&s->entered);
		KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_sleep"), 0);
		KUNIT_EXPECT_EQ(test, kstats_trace_test_samples(test, name), -1);
		KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, name));
		KUNIT_EXPECT_EQ_MSG(test, kstats_trace_test_exec(cmd), 0, "%s", cmd);
		KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_sleep"), 0);
		complete(&s->go);
		wait_for_completion(&s->done);
		KUNIT_EXPECT_EQ(test, s->ret, 1);
	}
}

/* With no trace, _control shows its commands as comments. */
static void kstats_trace_test_usage(struct kunit *test)
{
	char *text = kstats_trace_test_file(test, "_control");
	char *line;

	KUNIT_ASSERT_NOT_NULL(test, text);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(text, "# trace [pcpu:|fprobe:]FUNC [OPTIONS]"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\n# remove NAME\n"));
	while ((line = strsep(&text, "\n")) && *line)
		KUNIT_EXPECT_EQ_MSG(test, *line, '#', "%s", line);
	KUNIT_ASSERT_EQ(test, kstats_trace_test_exec("trace kstrace_test_fn"), 0);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(kstats_trace_test_file(test, "_control"),
					       "name kstrace_test_fn mode kretprobe "));
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_fn"), 0);
}

struct kstats_trace_test_err {
	const char *cmd;
	int ret;
};

/* Commands that parse but cannot be carried out, and the error of each. */
static void kstats_trace_test_errors(struct kunit *test)
{
	static const struct kstats_trace_test_err errs[] = {
		/* First: error_log keeps the last eight, checked below. */
		{ "trace fprobe:kstrace_no_such_* as x", -ENOENT },
		{ "trace fprobe:kstrace_test_* as kstrace_test_fn", -EEXIST },
		{ "trace kstrace_no_such_function", -ENOENT },
		{ "trace fprobe:kstrace_no_such_function", -ENOENT },
		{ "trace pcpu:kstrace_no_such_function", -ENOENT },
		{ "trace x start kstrace_no_such_function end kstrace_test_fn", -ENOENT },
		{ "trace x start kstrace_test_fn end kstrace_no_such_function", -ENOENT },
		{ "trace x start tp:kstrace_no_such_tp end tp:softirq_exit", -ENOENT },
		{ "trace x start tp:softirq_entry end __tracepoint_kstrace_no_such", -ENOENT },
		{ "remove kstrace_not_traced", -ENOENT },
		{ "trace kstrace_test_fn", -EEXIST },
		{ "trace fprobe:kstrace_test_fn", -EEXIST },
		{ "trace GAP-kstrace_test_fn start kstrace_test_fn end kstrace_test_end",
		  -EEXIST },
		{ "trace _control start kstrace_test_fn end kstrace_test_end", -EINVAL },
		{ "trace kstrace_test_end bits 9", -ERANGE },
	};
	static const char nul_cmd[] = "trace kstrace_test_fn\0x";
	char *before, *after, *nul, *log, *name;
	struct file *file;
	unsigned int i;

	/* With gap: its GAP- metric's name is taken too. */
	KUNIT_ASSERT_EQ(test, kstats_trace_test_exec("trace kstrace_test_fn gap"), 0);
	before = kstats_trace_test_file(test, "_control");
	for (i = 0; i < ARRAY_SIZE(errs); i++) {
		KUNIT_EXPECT_EQ_MSG(test, kstats_trace_test_exec(errs[i].cmd), errs[i].ret,
				    "'%s'", errs[i].cmd);
		/* Nothing changed: the same traces, no file left behind. */
		after = kstats_trace_test_file(test, "_control");
		KUNIT_EXPECT_STREQ(test, after, before);
		KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "x"));
		KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "kstrace_no_such_function"));
		KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "GAP-kstrace_no_such"));
		KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "kstrace_test_end"));
	}

	/*
	 * error_log keeps each refusal: the reason, the command, a caret
	 * under the word at fault; echo > error_log clears it.
	 */
	log = kstats_kunit_read(test, "error_log");
	KUNIT_ASSERT_NOT_NULL(test, log);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "] kstats_trace: error: bits 9 out of range 0..8\n"
					   "  Command: trace kstrace_test_end bits 9\n"
					   "                                       ^\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, ": no tracepoint kstrace_no_such_tp in the kernel\n"
					   "  Command: trace x start tp:kstrace_no_such_tp end tp:softirq_exit\n"
					   "                            ^\n"));
	file = kstats_kunit_open("error_log", O_WRONLY | O_TRUNC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	kstats_kunit_close(file);
	KUNIT_EXPECT_STREQ(test, kstats_trace_test_file(test, "error_log"), "");

	/* Too long, and a NUL inside. */
	nul = kunit_kzalloc(test, KSTATS_TRACE_LINE_MAX + 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nul);
	memset(nul, ' ', KSTATS_TRACE_LINE_MAX + 1);
	memcpy(nul, "remove kstrace_test_fn", strlen("remove kstrace_test_fn"));
	KUNIT_EXPECT_EQ(test, kstats_trace_exec(nul, KSTATS_TRACE_LINE_MAX + 1), -E2BIG);
	KUNIT_EXPECT_EQ(test, kstats_trace_exec(nul, KSTATS_TRACE_LINE_MAX), 0);
	KUNIT_EXPECT_EQ(test, kstats_trace_exec(nul_cmd, sizeof(nul_cmd) - 1), -EINVAL);
	KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "kstrace_test_fn"));

	/*
	 * Names as long as a file name may be, and not a character more: a
	 * function's name leaves room for "GAP-". The limit is checked before
	 * the symbol is looked up: one character less is an unknown symbol.
	 */
	name = kunit_kzalloc(test, NAME_MAX + 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, name);
	snprintf(name, NAME_MAX + 64, "trace x%0*d", NAME_MAX - 4, 0);
	KUNIT_EXPECT_EQ(test, kstats_trace_exec(name, strlen(name)), -ENAMETOOLONG);
	snprintf(name, NAME_MAX + 64, "trace x%0*d", NAME_MAX - 5, 0);
	KUNIT_EXPECT_EQ(test, kstats_trace_exec(name, strlen(name)), -ENOENT);
	snprintf(name, NAME_MAX + 64, "trace y%0*d start tp:softirq_entry end tp:softirq_exit",
		 NAME_MAX, 0);
	KUNIT_EXPECT_EQ(test, kstats_trace_exec(name, strlen(name)), -ENAMETOOLONG);
	snprintf(name, NAME_MAX + 64, "trace y%0*d start tp:kstrace_no_such_tp end tp:softirq_exit",
		 NAME_MAX - 1, 0);
	KUNIT_EXPECT_EQ(test, kstats_trace_exec(name, strlen(name)), -ENOENT);
	/* Refused by the parser, which says so in error_log. */
	log = kstats_trace_test_file(test, "error_log");
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "error: name longer than 251 characters: x000"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "error: name longer than 255 characters: y000"));
}

/*
 * A return that reads an earlier time than its entry (the clock went back
 * across a timekeeping update, or another CPU's read was later) is a
 * missed sample, not about 2^64 ns.
 */
static void kstats_trace_test_elapsed(struct kunit *test)
{
	u64 ns = 0;

	KUNIT_EXPECT_TRUE(test, kstats_trace_elapsed(1000, 1500, &ns));
	KUNIT_EXPECT_EQ(test, ns, 500);
	KUNIT_EXPECT_TRUE(test, kstats_trace_elapsed(1000, 1000, &ns));
	KUNIT_EXPECT_EQ(test, ns, 0);
	KUNIT_EXPECT_FALSE(test, kstats_trace_elapsed(1500, 1000, &ns));
	KUNIT_EXPECT_FALSE(test, kstats_trace_elapsed(1, 0, &ns));
	KUNIT_EXPECT_FALSE(test, kstats_trace_elapsed(BIT_ULL(63) + 1, 1, &ns));
}

/* The samples of function @func in a group's summary @text. */
static long long kstats_trace_test_summed(const char *text, const char *func)
{
	char key[80];
	long long n = 0, count;
	const char *line;

	snprintf(key, sizeof(key), "function %s bits ", func);
	for (line = text; (line = strstr(line, key)); line++) {
		const char *c = strstr(line, " count ");

		if (c && sscanf(c, " count %lld", &count) == 1)
			n += count;
	}
	return n;
}

/*
 * A group over this suite's functions: one metric per function, each
 * counting exactly its own calls, in its file and in the summary; the
 * group listed with its glob; gone, all of it, once removed.
 */
static void kstats_trace_test_group(struct kunit *test)
{
	/* A function of a module is named MODULE:FUNCTION. */
	const char *mod = IS_MODULE(CONFIG_KSTATS_TRACE_KUNIT_TEST) ? KBUILD_MODNAME ":" : "";
	char fn[64], end[64], file[80];
	char *text;
	int i, sum = 0;

	snprintf(fn, sizeof(fn), "%skstrace_test_fn", mod);
	snprintf(end, sizeof(end), "%skstrace_test_end", mod);
	snprintf(file, sizeof(file), "kunit_grp/%s", fn);

	KUNIT_ASSERT_EQ(test, kstats_trace_test_exec("trace fprobe:kstrace_test_* as kunit_grp"),
			0);
	for (i = 0; i < 10; i++)
		sum += kstrace_test_fn(i);
	for (i = 0; i < 20; i++)
		sum += kstrace_test_end(i);
	KUNIT_EXPECT_EQ(test, sum, 45 + 10 + 190 - 20);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_samples(test, "kunit_grp"), 30);
	text = kstats_trace_test_file(test, "_control");
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "name kunit_grp mode group glob kstrace_test_* "));
	text = kstats_kunit_read(test, "kunit_grp/_summary");
	KUNIT_ASSERT_NOT_NULL(test, text);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_summed(text, fn), 10);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_summed(text, end), 20);
	KUNIT_EXPECT_NOT_NULL(test, kstats_kunit_read(test, file));
	/* A name of the group, or in it, is not a trace of its own. */
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_fn"), -ENOENT);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("trace fprobe:kstrace_test_* as kunit_grp"),
			-EEXIST);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kunit_grp"), 0);
	KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, file));
	KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "kunit_grp/_summary"));
	KUNIT_EXPECT_EQ(test, kstats_trace_test_samples(test, "kunit_grp"), -1);
}

/*
 * maxactive N sizes the pool of calls in flight of a probe that has one,
 * listed and counted in the budget: kretprobes, and fprobes before 6.14.
 * On the function-graph tracer, fprobe: and groups have no pool and
 * refuse it, changing nothing.
 */
static void kstats_trace_test_maxactive(struct kunit *test)
{
	static const char * const fprobes[] = {
		"trace fprobe:kstrace_test_end maxactive 3",
		"trace fprobe:kstrace_test_* as kunit_grp maxactive 3",
	};
	const char *name;
	long long one, many;
	char *before, cmd[32];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, kstats_trace_test_exec("trace kstrace_test_end maxactive 1"), 0);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_field(test, "kstrace_test_end", "maxactive"), 1);
	one = kstats_trace_test_field(test, "kstrace_test_end", "memory");
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_end"), 0);
	/* The default: as kprobes' on a preemptible kernel. */
	KUNIT_ASSERT_EQ(test, kstats_trace_test_exec("trace pcpu:kstrace_test_end"), 0);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_field(test, "kstrace_test_end", "maxactive"),
			max(10U, 2 * num_possible_cpus()));
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_end"), 0);
	KUNIT_ASSERT_EQ(test, kstats_trace_test_exec("trace kstrace_test_end maxactive 4096"),
			0);
	many = kstats_trace_test_field(test, "kstrace_test_end", "memory");
	/* The pool is counted: a pointer per call per CPU at least. */
	KUNIT_EXPECT_GE(test, many - one, 4095LL * sizeof(void *) * num_possible_cpus());
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_end"), 0);

	before = kstats_trace_test_file(test, "_control");
	for (i = 0; i < ARRAY_SIZE(fprobes); i++) {
		if (KSTATS_FPROBE_FGRAPH) {
			KUNIT_EXPECT_EQ_MSG(test, kstats_trace_test_exec(fprobes[i]), -EOPNOTSUPP,
					    "%s", fprobes[i]);
			KUNIT_EXPECT_STREQ(test, kstats_trace_test_file(test, "_control"), before);
			continue;
		}
		KUNIT_ASSERT_EQ_MSG(test, kstats_trace_test_exec(fprobes[i]), 0, "%s", fprobes[i]);
		name = i ? "kunit_grp" : "kstrace_test_end";
		KUNIT_EXPECT_EQ(test, kstats_trace_test_field(test, name, "maxactive"), 3);
		snprintf(cmd, sizeof(cmd), "remove %s", name);
		KUNIT_EXPECT_EQ(test, kstats_trace_test_exec(cmd), 0);
	}
	/* Where fprobe has no pool, no maxactive is listed for it. */
	KUNIT_ASSERT_EQ(test, kstats_trace_test_exec("trace fprobe:kstrace_test_end"), 0);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_field(test, "kstrace_test_end", "maxactive") == -2,
			(bool)KSTATS_FPROBE_FGRAPH);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_end"), 0);
}

static int kstats_trace_test_no_detach(struct kstats_trace *t)
{
	return -ENODEV;
}

/* A stuck trace left by a failed assertion: removed (the stub is gone). */
static void kstats_trace_test_unstick(void *unused)
{
	kstats_trace_test_exec("remove kstrace_test_fn");
}

/*
 * The references on kstats_trace, the owner of _control's file operations:
 * -1 when it is built in. The suite's files are closed when
 * kstats_kunit_close() returns, not later.
 */
static int kstats_trace_test_refs(struct module *mod)
{
#ifdef CONFIG_MODULE_UNLOAD
	if (mod)
		return module_refcount(mod);
#endif
	return -1;
}

/* kstats_trace, the owner of _control's file operations (NULL built in). */
static struct module *kstats_trace_test_owner(struct kunit *test)
{
	struct file *ctl = kstats_kunit_open("_control", O_RDONLY);
	struct module *mod;

	KUNIT_ASSERT_FALSE(test, IS_ERR(ctl));
	mod = ctl->f_op->owner;
	kstats_kunit_close(ctl);
	return mod;
}

/* error_log emptied, for the next test's messages. */
static void kstats_trace_test_clear_log(struct kunit *test)
{
	struct file *log = kstats_kunit_open("error_log", O_WRONLY | O_TRUNC);

	KUNIT_ASSERT_FALSE(test, IS_ERR(log));
	kstats_kunit_close(log);
}

/*
 * The trace of kstrace_test_fn refused twice by remove (EBUSY), pinning
 * kstats_trace (@mod, with @refs references before) once, not twice;
 * listed with @listed after its counts, @logged in error_log.
 */
static void kstats_trace_test_refused(struct kunit *test, struct module *mod, int refs,
				      const char *listed, const char *logged)
{
	char *text;

	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_fn"), -EBUSY);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_fn"), -EBUSY);
	if (refs >= 0)
		KUNIT_EXPECT_EQ(test, kstats_trace_test_refs(mod), refs + 1);
	text = kstats_trace_test_file(test, "_control");
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "name kstrace_test_fn mode kretprobe "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, listed));
	KUNIT_EXPECT_NOT_NULL(test, strstr(kstats_trace_test_file(test, "error_log"), logged));
}

/*
 * A trace whose detach fails, as unregister_fprobe() does once ftrace has
 * shut itself down: it stays, listed as stuck with the error, and pins
 * kstats_trace, whose code its handlers may run; remove says EBUSY, and a
 * later remove that detaches it frees it and unpins. The failure is a
 * static stub: the kretprobe stays registered meanwhile.
 */
static void kstats_trace_test_stuck(struct kunit *test)
{
	const char *fn = "kstrace_test_fn";
	struct module *mod;
	unsigned int i;
	int refs;

	mod = kstats_trace_test_owner(test);
	refs = kstats_trace_test_refs(mod);
	KUNIT_ASSERT_EQ(test, kstats_trace_test_exec("trace kstrace_test_fn"), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kstats_trace_test_unstick, NULL), 0);
	kunit_activate_static_stub(test, kstats_trace_detach_mode, kstats_trace_test_no_detach);
	kstats_trace_test_refused(test, mod, refs, " stuck -19\n",
				  "remove kstrace_test_fn: cannot be detached: -19;");
	/* Still attached: every call counts. */
	for (i = 0; i < 5; i++)
		kstrace_test_fn(i);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_samples(test, fn), 5);

	kunit_deactivate_static_stub(test, kstats_trace_detach_mode);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_fn"), 0);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_samples(test, fn), -1);
	if (refs >= 0)
		KUNIT_EXPECT_EQ(test, kstats_trace_test_refs(mod), refs);
	kstats_trace_test_clear_log(test);
}

/* The trace whose kprobe kstats_trace_test_keep() kept, and its address. */
static struct kstats_trace *kstats_trace_test_kept;
static kprobe_opcode_t *kstats_trace_test_kept_addr;
static unsigned int kstats_trace_test_keeps;

/*
 * kprobes keeping a kprobe that they were asked to unregister, as they
 * did when they could not disarm a kprobe on ftrace: its address cleared.
 * The kretprobe is unregistered for real here, so that a kstats that
 * freed the trace would leave no handler behind. Once the trace is kept,
 * a detach is a no-op that succeeds.
 */
static int kstats_trace_test_keep(struct kstats_trace *t)
{
	if (kstats_trace_test_kept)
		return 0;
	kstats_trace_test_keeps++;
	unregister_kretprobe(&t->krp);
	kstats_trace_test_kept = t;
	kstats_trace_test_kept_addr = t->krp.kp.addr;
	t->krp.kp.addr = NULL;
	return 0;
}

/*
 * The kept trace goes once the test is done: let go (as kprobes never
 * would) and removed, while the stub still makes its detach a no-op. Only
 * if _control still lists it: a kstats that freed it would have left
 * kstats_trace_test_kept pointing to freed memory.
 */
static void kstats_trace_test_unkeep(void *data)
{
	struct kunit *test = data;
	struct kstats_trace *t = kstats_trace_test_kept;

	if (t && strstr(kstats_trace_test_file(test, "_control"), "name kstrace_test_fn ")) {
		t->kept = false;
		t->krp.kp.addr = kstats_trace_test_kept_addr;
		kstats_trace_test_exec("remove kstrace_test_fn");
	}
	kstats_trace_test_kept = NULL;
}

/*
 * A trace whose kprobe kprobes kept in their table when it was
 * unregistered (kp.addr cleared): kprobes may still run it, so it is never
 * freed, and never unregistered again (a second unregister_kretprobe()
 * would free its rethook twice). remove says EBUSY each time without
 * another detach, _control lists it as "stuck -16 kept", and kstats_trace
 * is pinned once.
 */
static void kstats_trace_test_kept_probe(struct kunit *test)
{
	const char *fn = "kstrace_test_fn";
	struct module *mod;
	unsigned int i;
	int refs;

	mod = kstats_trace_test_owner(test);
	refs = kstats_trace_test_refs(mod);
	kstats_trace_test_kept = NULL;
	kstats_trace_test_keeps = 0;
	KUNIT_ASSERT_EQ(test, kstats_trace_test_exec("trace kstrace_test_fn"), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kstats_trace_test_unstick, NULL), 0);
	kunit_activate_static_stub(test, kstats_trace_detach_mode, kstats_trace_test_keep);
	/* Run before the stub goes (actions run last added first). */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kstats_trace_test_unkeep, test), 0);
	kstats_trace_test_refused(test, mod, refs, " stuck -16 kept\n",
				  "remove kstrace_test_fn: kprobes kept its kprobe");
	KUNIT_EXPECT_EQ(test, kstats_trace_test_keeps, 1);
	/* Unregistered for real by the stub: no call counts now. */
	for (i = 0; i < 5; i++)
		kstrace_test_fn(i);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_samples(test, fn), 0);

	kunit_release_action(test, kstats_trace_test_unkeep, test);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_samples(test, fn), -1);
	if (refs >= 0)
		KUNIT_EXPECT_EQ(test, kstats_trace_test_refs(mod), refs);
	kstats_trace_test_clear_log(test);
}

static int kstats_trace_test_locked(void)
{
	return -EPERM;
}

/*
 * A lockdown policy that forbids probes (an LSM that allows debugfs writes
 * but not LOCKDOWN_KPROBES) refuses every form of add, as kprobe and
 * fprobe events are refused, before anything is made; remove still works.
 */
static void kstats_trace_test_lockdown(struct kunit *test)
{
	static const char * const cmds[] = {
		"trace kstrace_test_fn", "trace pcpu:kstrace_test_fn",
		"trace fprobe:kstrace_test_fn",
		"trace kunit_lp start tp:softirq_entry end tp:softirq_exit",
		"trace kunit_lk start kstrace_test_fn end kstrace_test_end",
		"trace fprobe:kstrace_test_* as kunit_lg",
	};
	unsigned int i;
	char *text;

	KUNIT_ASSERT_EQ(test, kstats_trace_test_exec("trace kstrace_test_end"), 0);
	kunit_activate_static_stub(test, kstats_trace_locked_down, kstats_trace_test_locked);
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		KUNIT_EXPECT_EQ_MSG(test, kstats_trace_test_exec(cmds[i]), -EPERM, "%s", cmds[i]);
	text = kstats_trace_test_file(test, "_control");
	KUNIT_EXPECT_NULL(test, strstr(text, "name kstrace_test_fn "));
	KUNIT_EXPECT_NULL(test, strstr(text, "name kunit_l"));
	KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "kstrace_test_fn"));
	KUNIT_EXPECT_NULL(test, kstats_kunit_read(test, "kunit_lg/_summary"));
	text = kstats_trace_test_file(test, "error_log");
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "kstrace_test_fn: the kernel's lockdown policy"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "forbids probes (LOCKDOWN_KPROBES): -1\n"));
	/* What is there can go. */
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_end"), 0);
	kunit_deactivate_static_stub(test, kstats_trace_locked_down);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("trace kstrace_test_fn"), 0);
	KUNIT_EXPECT_EQ(test, kstats_trace_test_exec("remove kstrace_test_fn"), 0);
	kstats_trace_test_clear_log(test);
}

static struct kunit_case kstats_trace_test_cases[] = {
	KUNIT_CASE_PARAM(kstats_trace_test_parse, kstats_trace_test_lines_gen_params),
	KUNIT_CASE(kstats_trace_test_count),
	KUNIT_CASE(kstats_trace_test_pair),
	KUNIT_CASE(kstats_trace_test_pid),
	KUNIT_CASE(kstats_trace_test_tracepoints),
	KUNIT_CASE(kstats_trace_test_errors),
	KUNIT_CASE(kstats_trace_test_args),
	KUNIT_CASE(kstats_trace_test_inflight),
	KUNIT_CASE(kstats_trace_test_usage),
	KUNIT_CASE(kstats_trace_test_elapsed),
	KUNIT_CASE(kstats_trace_test_group),
	KUNIT_CASE(kstats_trace_test_maxactive),
	KUNIT_CASE(kstats_trace_test_stuck),
	KUNIT_CASE(kstats_trace_test_kept_probe),
	KUNIT_CASE(kstats_trace_test_lockdown),
	{}
};

static struct kunit_suite kstats_trace_test_suite = {
	.name = "kstats_trace",
	.test_cases = kstats_trace_test_cases,
};

kunit_test_suite(kstats_trace_test_suite);

MODULE_DESCRIPTION("KUnit tests for kstats_trace");
MODULE_LICENSE("GPL");
