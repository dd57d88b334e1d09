// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of the kstats debugfs files, built static for a minimal VM:
 *
 *   kstats_fuzz DIR [SEED [COUNT]]
 *
 * writes COUNT (3000) random and mutated commands to DIR/_control (words
 * of the grammar in wrong orders, huge numbers, odd characters, long
 * lines, embedded NULs, partial writes) and to the metric files of DIR,
 * from the seed SEED: a number; - or none for $KSTATS_SEED, or without
 * it, one from the clock. The first line of output says the seed, which
 * repeats the run. Every write must succeed or fail with one of the
 * errnos the documentation lists; a failed write must leave the traces
 * listed in _control as they were, a successful one must add or remove
 * exactly the trace it named, with its files. At the end it removes what
 * it added and checks that valid commands still work: a trace of
 * getppid() counts exactly the calls made. Prints a summary line last;
 * exits 1 on the first broken rule, with the command that broke it and
 * the seed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_LINE	8192
#define MAX_LIST	65536
#define MAX_ACTIVE	4

static const char *dir;
static char ctl[4096];
static unsigned long long seed;
static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned int pick(unsigned int n)
{
	return rnd() % n;
}

static const char *const words[] = {
	"trace", "remove", "start", "end", "bits", "trace", "remove", "bits",
	"pcpu:", "fprobe:", "tp:", "__tracepoint_", "tp:softirq_entry",
	"tp:softirq_exit", "__tracepoint_softirq_entry", "softirq_exit",
	"__x64_sys_getppid", "__x64_sys_getpid", "fprobe:__x64_sys_getppid",
	"pcpu:__x64_sys_getpid", "__x64_sys_getppid+4", "__x64_sys_getpid+0x0",
	"kstats_record", "fprobe:kstats_new", "kstats_fuzz_no_such_fn",
	"tp:kstats_fuzz_no_such_tp", "fz0", "fz1", "fz2", "fz3", "GAP-fz0",
	"_control", "0", "3", "8", "9", "-1", "4294967296",
	"18446744073709551616", "0x10", "+4", "a/b", "..", ".", "$", "*", "?",
	"[", "\\", "%", "\xc3\xa9", "\x01", "\x7f", "\t", "pcpu:pcpu:x", "#", "# x",
};

/* The errnos _control and the metric files may give, and their names. */
static const struct {
	int err;
	const char *name;
} errnos[] = {
	{ EINVAL, "EINVAL" }, { ENOENT, "ENOENT" }, { EEXIST, "EEXIST" },
	{ ERANGE, "ERANGE" }, { E2BIG, "E2BIG" }, { EPERM, "EPERM" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { ENOSPC, "ENOSPC" }, { EADDRNOTAVAIL, "EADDRNOTAVAIL" },
};

#define NR_ERRNOS	ARRAY_SIZE(errnos)

static unsigned long seen[NR_ERRNOS];

static int allowed(int err)
{
	unsigned int i;

	for (i = 0; i < NR_ERRNOS; i++)
		if (errnos[i].err == err) {
			seen[i]++;
			return 1;
		}
	return 0;
}

static void show(const char *what, const char *buf, size_t len)
{
	size_t i;

	fprintf(stderr, "%s: \"", what);
	for (i = 0; i < len && i < 200; i++) {
		unsigned char c = buf[i];

		if (c >= 32 && c < 127 && c != '"' && c != '\\')
			fputc(c, stderr);
		else
			fprintf(stderr, "\\x%02x", c);
	}
	fprintf(stderr, "%s\" (%zu bytes)\n", len > 200 ? "..." : "", len);
}

static void die(const char *why, const char *buf, size_t len)
{
	fprintf(stderr, "kstats_fuzz: seed %llu: %s\n", seed, why);
	if (buf)
		show("command", buf, len);
	exit(1);
}

/* One write() of len bytes; 0 or the errno. */
static int write_file(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return errno;
	n = write(fd, buf, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		die("short write accepted", buf, len);
	close(fd);
	return err;
}

/* The names listed in _control, as one sorted-by-order string. */
static void list(char *out)
{
	static char raw[MAX_LIST];
	int fd = open(ctl, O_RDONLY);
	ssize_t n, got = 0;
	char *line, *save = NULL;

	if (fd < 0)
		die("cannot open _control", NULL, 0);
	while ((n = read(fd, raw + got, sizeof(raw) - 1 - got)) > 0)
		got += n;
	close(fd);
	raw[got] = '\0';
	out[0] = '\0';
	for (line = strtok_r(raw, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[512];

		/* With no trace, _control shows its commands as comments. */
		if (line[0] == '#')
			continue;
		if (sscanf(line, "name %511s ", name) != 1)
			die("_control lists a line without a name", line, strlen(line));
		strcat(out, name);
		strcat(out, " ");
	}
}

static int exists(const char *name)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !stat(path, &st);
}

static int listed(const char *names, const char *name)
{
	size_t n = strlen(name);
	const char *p = names;

	while ((p = strstr(p, name))) {
		if ((p == names || p[-1] == ' ') && p[n] == ' ')
			return 1;
		p += n;
	}
	return 0;
}

static size_t gen_words(char *buf)
{
	unsigned int n = pick(9), i;
	size_t len = 0;

	for (i = 0; i < n; i++) {
		const char *w = words[pick(ARRAY_SIZE(words))];
		const char *sep = i ? (pick(8) ? " " : (pick(2) ? "  " : "\t")) : "";

		len += snprintf(buf + len, MAX_LINE - len, "%s%s", sep, w);
	}
	switch (pick(4)) {
	case 0:
		buf[len++] = '\n';
		break;
	case 1:
		buf[len++] = '\n';
		buf[len++] = '\n';
		break;
	}
	return len;
}

static size_t gen_valid(char *buf)
{
	static const char *const cmds[] = {
		"trace fz%u __x64_sys_getppid bits %u",
		"trace fz%u start __x64_sys_getpid end __x64_sys_getppid bits %u",
		"trace fz%u start tp:softirq_entry end tp:softirq_exit bits %u",
		"trace fz%u start __tracepoint_softirq_entry end __x64_sys_getppid+0 bits %u",
		"remove fz%u",
		"remove fz%u",
	};
	unsigned int c = pick(ARRAY_SIZE(cmds) + 3);

	switch (c) {
	case 6:
		return snprintf(buf, MAX_LINE, "trace %s__x64_sys_getppid\n",
				pick(2) ? "pcpu:" : "fprobe:");
	case 7:
		return snprintf(buf, MAX_LINE, "remove __x64_sys_getppid");
	case 8:
		return snprintf(buf, MAX_LINE, "trace __x64_sys_getpid bits %u",
				pick(10));
	}
	return snprintf(buf, MAX_LINE, cmds[c], pick(4), pick(10));
}

/* A valid command, then mutated, cut, lengthened or left as it is. */
static size_t gen_control(char *buf)
{
	size_t len, i, n;

	switch (pick(6)) {
	case 0:
		return gen_words(buf);
	case 1:			/* a long line */
		n = 900 + pick(4000);
		len = snprintf(buf, MAX_LINE, "trace ");
		for (i = len; i < n && i < MAX_LINE - 1; i++)
			buf[i] = pick(30) ? 'a' + pick(26) : ' ';
		return i;
	case 2:			/* cut: a partial write */
		len = gen_valid(buf);
		return len ? pick(len) : 0;
	case 3:			/* mutated bytes, NULs included */
		len = gen_valid(buf);
		for (n = 1 + pick(3); n; n--) {
			i = pick(len + 1);
			switch (pick(3)) {
			case 0:
				buf[i < len ? i : len - 1] = pick(256);
				break;
			case 1:
				memmove(buf + i + 1, buf + i, len - i);
				buf[i] = pick(4) ? pick(256) : '\0';
				len++;
				break;
			default:
				if (len > 1 && i < len) {
					memmove(buf + i, buf + i + 1, len - i - 1);
					len--;
				}
			}
		}
		return len;
	}
	return gen_valid(buf);
}

/*
 * The commands of a write: its lines that are not empty (_control takes a
 * command per line, each on its own, and skips empty lines).
 */
static unsigned int commands(const char *buf, size_t len)
{
	unsigned int n = 0;
	size_t i, start = 0;

	for (i = 0; i <= len; i++) {
		if (i == len || buf[i] == '\n') {
			n += i > start;
			start = i + 1;
		}
	}
	return n;
}

/* What a successful command must have done to the list of names. */
static void check_success(const char *buf, size_t len, const char *before,
			  const char *after)
{
	char verb[16], name[512], line[MAX_LINE + 1];

	memcpy(line, buf, len);
	line[len] = '\0';
	/* A '#' starts a comment; a comment alone does nothing. */
	if (strchr(line, '#')) {
		*strchr(line, '#') = '\0';
		if (sscanf(line, "%15s", verb) != 1) {
			if (strcmp(before, after))
				die("a comment changed the traces", buf, len);
			return;
		}
	}
	if (sscanf(line, "%15s %511s", verb, name) != 2)
		die("a command without a name was accepted", buf, len);
	if (!strcmp(verb, "remove")) {
		if (!listed(before, name) || listed(after, name) || exists(name))
			die("remove did not remove exactly its trace", buf, len);
		return;
	}
	if (strcmp(verb, "trace"))
		die("an unknown verb was accepted", buf, len);
	if (strchr(name, ':'))
		memmove(name, strchr(name, ':') + 1, strlen(strchr(name, ':')));
	if (listed(before, name) || !listed(after, name) || !exists(name))
		die("trace did not add exactly its trace", buf, len);
	if (strlen(after) != strlen(before) + strlen(name) + 1)
		die("trace added more than its trace", buf, len);
}

static void metric_write(void)
{
	static const char *const cmds[] = {
		"start", "stop", "reset", "start\n", "reset\n", "stop\nstart",
		"", "res", "resetx", "bits 3", "\0reset",
	};
	char path[4096], buf[64];
	struct dirent *e, *chosen = NULL;
	unsigned int n = 0;
	size_t len;
	DIR *d = opendir(dir);
	int err;

	if (!d)
		die("cannot open the kstats directory", NULL, 0);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, "_control") &&
		    !pick(++n))
			chosen = e;
	if (!chosen) {
		closedir(d);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, chosen->d_name);
	closedir(d);
	n = pick(ARRAY_SIZE(cmds) + 1);
	if (n < ARRAY_SIZE(cmds)) {
		len = strlen(cmds[n]) + (n == ARRAY_SIZE(cmds) - 1);
		memcpy(buf, cmds[n], len);
	} else {
		for (len = 0; len < 1 + pick(40); len++)
			buf[len] = pick(256);
	}
	err = write_file(path, buf, len);
	if (err && !allowed(err)) {
		fprintf(stderr, "kstats_fuzz: %s: %s\n", path, strerror(err));
		die("a metric file gave an undocumented errno", buf, len);
	}
}

int main(int argc, char **argv)
{
	static char buf[MAX_LINE + 8], before[MAX_LIST], after[MAX_LIST];
	unsigned long count, i, ok = 0, bad = 0, metric = 0;
	unsigned int j, n;
	char *name, *save = NULL, *end;
	const char *arg;
	int err;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: kstats_fuzz DIR [SEED|- [COUNT]]\n");
		return 2;
	}
	dir = argv[1];
	arg = argc > 2 && strcmp(argv[2], "-") ? argv[2] : getenv("KSTATS_SEED");
	if (arg && *arg) {
		errno = 0;
		seed = strtoull(arg, &end, 0);
		if (*end || errno || *arg == '-') {
			fprintf(stderr, "kstats_fuzz: seed '%s' is not a number\n", arg);
			return 2;
		}
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (unsigned long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	}
	count = 3000;
	if (argc > 3) {
		errno = 0;
		count = strtoul(argv[3], &end, 0);
		if (*end || errno || !*argv[3] || *argv[3] == '-') {
			fprintf(stderr, "kstats_fuzz: count '%s' is not a number\n", argv[3]);
			return 2;
		}
	}
	/* xorshift64 stays at 0 from 0: one seed in 2^64 would give it. */
	rng = seed * 2654435761u + 1 ?: 1;
	snprintf(ctl, sizeof(ctl), "%s/_control", dir);
	printf("kstats_fuzz: seed %llu, %lu writes to %s\n", seed, count, dir);
	fflush(stdout);

	for (i = 0; i < count; i++) {
		size_t len;

		if (!pick(4)) {
			metric_write();
			metric++;
			continue;
		}
		len = gen_control(buf);
		list(before);
		err = write_file(ctl, buf, len);
		list(after);
		n = commands(buf, len);
		/* No command: nothing done, nothing refused. */
		if (!n && (err || strcmp(before, after)))
			die("a write of empty lines failed or changed the traces", buf, len);
		/*
		 * Several commands: each done or refused on its own, the errno
		 * of the first refused; what each did is not modelled here.
		 */
		if (n > 1) {
			if (err && !allowed(err))
				die("_control gave an undocumented errno", buf, len);
			if (err)
				bad++;
			else
				ok++;
			continue;
		}
		if (!n) {
			ok++;
			continue;
		}
		if (err) {
			if (!allowed(err)) {
				fprintf(stderr, "kstats_fuzz: _control: %s\n",
					strerror(err));
				die("_control gave an undocumented errno", buf, len);
			}
			if (strcmp(before, after))
				die("a failed command changed the traces", buf, len);
			bad++;
			continue;
		}
		check_success(buf, len, before, after);
		ok++;
		/* Keep a few traces: room for EEXIST, not for every slot. */
		for (name = after, j = 0; *name; name++)
			j += *name == ' ';
		if (j > MAX_ACTIVE) {
			*strchr(after, ' ') = '\0';
			snprintf(buf, sizeof(buf), "remove %s", after);
			if (write_file(ctl, buf, strlen(buf)))
				die("cannot remove a trace", buf, strlen(buf));
		}
	}

	/* Clean up, then valid commands must work. */
	list(after);
	for (name = strtok_r(after, " ", &save); name;
	     name = strtok_r(NULL, " ", &save)) {
		snprintf(buf, sizeof(buf), "remove %s", name);
		if (write_file(ctl, buf, strlen(buf)))
			die("cannot remove a trace", buf, strlen(buf));
	}
	snprintf(buf, sizeof(buf), "trace fprobe:__x64_sys_getppid");
	err = write_file(ctl, buf, strlen(buf));
	if (err == EOPNOTSUPP) {
		snprintf(buf, sizeof(buf), "trace __x64_sys_getppid");
		err = write_file(ctl, buf, strlen(buf));
	}
	if (err)
		die("a valid command fails after fuzzing", buf, strlen(buf));
	for (j = 0; j < 1000; j++)
		syscall(SYS_getppid);
	{
		char path[4096], line[256];
		unsigned long long calls = 0, n;
		FILE *f;

		snprintf(path, sizeof(path), "%s/__x64_sys_getppid", dir);
		f = fopen(path, "r");
		if (!f)
			die("no metric after a valid trace", NULL, 0);
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "slot %*u CPUS %*u count %llu", &n) == 1)
				calls += n;
		fclose(f);
		if (calls != 1000) {
			fprintf(stderr, "kstats_fuzz: %llu calls counted, not 1000\n",
				calls);
			die("a valid trace miscounts after fuzzing", buf, strlen(buf));
		}
	}
	snprintf(buf, sizeof(buf), "remove __x64_sys_getppid");
	if (write_file(ctl, buf, strlen(buf)) || exists("__x64_sys_getppid"))
		die("a valid remove fails after fuzzing", buf, strlen(buf));

	printf("kstats_fuzz: seed %llu: %lu writes: %lu commands accepted, ",
	       seed, count, ok);
	printf("%lu rejected, %lu metric writes;", bad, metric);
	for (j = 0; j < NR_ERRNOS; j++)
		if (seen[j])
			printf(" %s %lu", errnos[j].name, seen[j]);
	printf("\n");
	return 0;
}
