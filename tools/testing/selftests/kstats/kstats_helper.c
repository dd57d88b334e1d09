// SPDX-License-Identifier: GPL-2.0
/*
 * Helper of the kstats selftests, built static so that it runs in a
 * minimal VM:
 *
 *   kstats_helper getppid N     N getppid() calls on the CPU it starts on
 *                               (pinned there: a pcpu: trace or a pair
 *                               loses the calls that migrate); prints the
 *                               ns per call
 *   kstats_helper pair N        N getpid() + getppid() pairs
 *   kstats_helper spin SECONDS  getppid() in a loop for SECONDS, at nice 19:
 *                               every CPU calls the function, and the
 *                               commands under test still get to run; a
 *                               spin-wait hint after each call lets an
 *                               emulator that runs all CPUs on one thread
 *                               (qemu's TCG) switch CPUs there, so that
 *                               the calls of all CPUs interleave and an
 *                               IPI is answered at once, not at the next
 *                               time slice; prints the calls made when
 *                               the time is up or on SIGTERM
 *   kstats_helper pause S      one pause(), the system call, until SIGUSR1,
 *                               or S seconds at most
 *   kstats_helper sleep MS [COUNT]
 *                               COUNT nanosleep() calls of MS ms each (1);
 *                               prints the CPU it woke on after each
 *   kstats_helper write FILE STRING
 *                               one write() of STRING (with \n, \t, \0 and
 *                               \\ escapes) to FILE; prints OK or the errno
 *                               name, such as EINVAL
 *   kstats_helper writes FILE   the same for each line of standard input
 *                               (without its newline; open, write, close
 *                               each time) in one process: a command and
 *                               its result and milliseconds per line
 *   kstats_helper read FILE     read() FILE to its end; prints OK or the
 *                               errno name
 *   kstats_helper listen N SECONDS
 *                               N listening TCP sockets (as many lines of
 *                               /proc/net/tcp); prints OK, then sleeps
 *
 *   kstats_helper add-nth DIR NAME CALLS COMMAND
 *                               COMMAND written to DIR/_control with its
 *                               Nth fault injection point failing, N from 1
 *                               until the write no longer reaches its Nth:
 *                               each time the write fails and NAME is
 *                               neither listed nor a file of DIR, or it
 *                               succeeds, NAME counts each of 20 calls
 *                               (CALLS: getppid, or pair) and a remove of
 *                               NAME succeeds; prints the points reached,
 *                               or the first of these rules broken, then
 *                               exits 1
 *
 * With KSTATS_MAKE_IT_FAIL=1 in the environment, write and read turn on
 * fault injection for their task (/proc/self/make-it-fail) once FILE is
 * open: only the kernel's handling of the write or read is made to fail.
 * With KSTATS_FAIL_NTH=N, write makes the Nth fault injection point of
 * its write() fail (/proc/self/fail-nth), and says after its result
 * whether that point was reached: "OK injected", "EBUSY not"...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The pause instruction of x86, yield of arm64: a hint, nothing else. */
static inline void spin_hint(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause");
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static int show_help(void)
{
	fprintf(stderr, "usage: kstats_helper getppid N | pair N | ids N M | spin S\n");
	fprintf(stderr, "       kstats_helper sleep MS [COUNT] | pause S\n");
	fprintf(stderr, "       kstats_helper write FILE STR | writes FILE | read FILE\n");
	fprintf(stderr, "       kstats_helper listen N S | halves N FILE FIFO\n");
	return 2;
}

static size_t unescape(const char *in, char *out)
{
	size_t n = 0;

	for (; *in; in++) {
		if (*in != '\\' || !in[1]) {
			out[n++] = *in;
			continue;
		}
		switch (*++in) {
		case 'n':
			out[n++] = '\n';
			break;
		case 't':
			out[n++] = '\t';
			break;
		case '0':
			out[n++] = '\0';
			break;
		default:
			out[n++] = *in;
		}
	}
	return n;
}

/* A signal that only ends a pause(). */
static void on_signal(int sig)
{
	(void)sig;
}

/*
 * /proc/self/make-it-fail, opened before fault injection is turned on and
 * kept open: turning it off again is then a write, which allocates
 * nothing, where a new open would need a file (a slab object that fails
 * where every slab allocation does, kstats_torture.sh's sweep). With
 * injection left on, the helper's next page fault in a mapping it had not
 * written to (its anon_vma, a slab object) failed for good: the task
 * retried it forever ("Huh VM_FAULT_OOM leaked out to the #PF handler").
 */
static int make_it_fail_fd = -1;

/* After open(): fault injection for this task, when asked. */
static void make_it_fail(void)
{
	const char *env = getenv("KSTATS_MAKE_IT_FAIL");

	if (!env || strcmp(env, "1"))
		return;
	make_it_fail_fd = open("/proc/self/make-it-fail", O_WRONLY);
	if (make_it_fail_fd < 0 || write(make_it_fail_fd, "1", 1) != 1) {
		perror("make-it-fail");
		exit(1);
	}
}

/*
 * Fault injection off again, before the result is printed: printing to a
 * pipe allocates too, and a result lost so would read as a failure of
 * what succeeded.
 */
static void make_it_fail_end(void)
{
	if (make_it_fail_fd < 0)
		return;
	if (write(make_it_fail_fd, "0", 1) != 1) {
		perror("make-it-fail off");
		exit(1);
	}
	close(make_it_fail_fd);
	make_it_fail_fd = -1;
}

/*
 * With KSTATS_FAIL_NTH=N: the Nth fault injection point that the write
 * reaches fails (/proc/self/fail-nth, set once FILE is open). Returns the
 * open /proc/self/fail-nth, or -1 when not asked.
 */
static int fail_nth_start(void)
{
	const char *env = getenv("KSTATS_FAIL_NTH");
	int fd;

	if (!env)
		return -1;
	fd = open("/proc/self/fail-nth", O_RDWR);
	if (fd < 0 || write(fd, env, strlen(env)) != (ssize_t)strlen(env)) {
		perror("fail-nth");
		exit(1);
	}
	return fd;
}

/* " injected" if the Nth point was reached (fail-nth reads 0), or " not". */
static const char *fail_nth_end(int fd)
{
	char buf[32] = "";
	ssize_t n;

	if (fd < 0)
		return "";
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	/* Not reached: no later system call of this task may fail. */
	if (pwrite(fd, "0", 1, 0) != 1) {
		perror("fail-nth");
		exit(1);
	}
	close(fd);
	return n > 0 && atoi(buf) == 0 ? " injected" : " not";
}

/* Pins the caller to the CPU it runs on; nonzero on failure. */
static int pin_to_this_cpu(void)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		perror("sched_setaffinity");
		return 1;
	}
	return 0;
}

/* Whether _control of DIR lists the trace NAME. */
static int listed(const char *dir, const char *name)
{
	char path[4096], line[4096], want[512];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/_control", dir);
	snprintf(want, sizeof(want), "name %s ", name);
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(1);
	}
	while (fgets(line, sizeof(line), f))
		found |= !strncmp(line, want, strlen(want));
	fclose(f);
	return found;
}

/* The count of the metric DIR/NAME, its CPUS lines added up; -1 if none. */
static long long counted(const char *dir, const char *name)
{
	char path[4096], line[256];
	long long total = 0, n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "slot %*u CPUS %*u count %lld", &n) == 1)
			total += n;
	fclose(f);
	return total;
}

/* One write of CMD to CTL, with the Nth fault injection point failing if n. */
static int write_nth(const char *ctl, const char *cmd, int n, int *injected)
{
	char nth[16];
	int fd, err = 0, nfd = -1;

	fd = open(ctl, O_WRONLY);
	if (fd < 0) {
		perror(ctl);
		exit(1);
	}
	if (n) {
		nfd = open("/proc/self/fail-nth", O_RDWR);
		snprintf(nth, sizeof(nth), "%d", n);
		if (nfd < 0 || write(nfd, nth, strlen(nth)) != (ssize_t)strlen(nth)) {
			perror("fail-nth");
			exit(1);
		}
	}
	if (write(fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		err = errno ?: EIO;
	if (nfd >= 0)
		*injected = !strcmp(fail_nth_end(nfd), " injected");
	close(fd);
	return err;
}

static int add_nth(const char *dir, const char *name, const char *calls,
		   const char *cmd)
{
	char ctl[4096], remove[512];
	int n, err, injected = 0;
	long long got;

	/* One CPU: a pair or a pcpu: trace loses the calls that migrate. */
	if (pin_to_this_cpu())
		return 1;
	snprintf(ctl, sizeof(ctl), "%s/_control", dir);
	snprintf(remove, sizeof(remove), "remove %s", name);
	for (n = 1; n <= 300; n++) {
		err = write_nth(ctl, cmd, n, &injected);
		if (err) {
			if (listed(dir, name) || counted(dir, name) >= 0) {
				printf("%s: failed with fault %d (%s), but left %s\n",
				       cmd, n, strerrorname_np(err), name);
				return 1;
			}
		} else {
			if (!listed(dir, name)) {
				printf("%s: made with fault %d, but not listed\n", cmd, n);
				return 1;
			}
			for (int i = 0; i < 20; i++) {
				if (!strcmp(calls, "pair"))
					syscall(SYS_getpid);
				syscall(SYS_getppid);
			}
			got = counted(dir, name);
			if (got < 20) {
				printf("%s: made with fault %d, counted %lld of 20 calls\n",
				       cmd, n, got);
				return 1;
			}
			err = write_nth(ctl, remove, 0, &injected);
			if (err) {
				printf("%s: made with fault %d, its remove fails: %s\n",
				       cmd, n, strerrorname_np(err));
				return 1;
			}
		}
		if (!injected) {
			printf("points %d\n", n - 1);
			return 0;
		}
	}
	printf("%s: the write still reaches its fault at %d\n", cmd, n);
	return 1;
}

int main(int argc, char **argv)
{
	long i, n;

	if (argc == 3 && !strcmp(argv[1], "read")) {
		char buf[4096];
		ssize_t ret;
		int err, fd = open(argv[2], O_RDONLY);

		if (fd < 0) {
			printf("open: %s\n", strerrorname_np(errno));
			return 1;
		}
		make_it_fail();
		while ((ret = read(fd, buf, sizeof(buf))) > 0)
			;
		err = errno;
		make_it_fail_end();
		printf("%s\n", ret < 0 ? strerrorname_np(err) : "OK");
		close(fd);
		return 0;
	}

	if (argc == 3 && !strcmp(argv[1], "writes")) {
		char line[4096], buf[4096];
		size_t len;
		ssize_t ret;
		double t0;
		int fd;

		while (fgets(line, sizeof(line), stdin)) {
			line[strcspn(line, "\n")] = '\0';
			len = unescape(line, buf);
			t0 = now_ns();
			fd = open(argv[2], O_WRONLY);
			if (fd < 0) {
				printf("%s: open: %s\n", line, strerrorname_np(errno));
				return 1;
			}
			ret = write(fd, buf, len);
			close(fd);
			printf("%s: %s %.1f ms\n", line,
			       ret < 0 ? strerrorname_np(errno) :
			       ret == (ssize_t)len ? "OK" : "SHORT",
			       (now_ns() - t0) / 1e6);
			fflush(stdout);
		}
		return 0;
	}

	if (argc == 6 && !strcmp(argv[1], "add-nth"))
		return add_nth(argv[2], argv[3], argv[4], argv[5]);
	if (argc < 3)
		return show_help();
	if (!strcmp(argv[1], "write")) {
		const char *injected;
		int fd, nth, err;
		char *buf;
		size_t len;
		ssize_t ret;

		if (argc != 4)
			return show_help();
		buf = malloc(strlen(argv[3]) + 1);
		if (!buf)
			return 1;
		len = unescape(argv[3], buf);
		fd = open(argv[2], O_WRONLY);
		if (fd < 0) {
			printf("open: %s\n", strerrorname_np(errno));
			return 1;
		}
		make_it_fail();
		nth = fail_nth_start();
		ret = write(fd, buf, len);
		err = errno;
		make_it_fail_end();
		injected = fail_nth_end(nth);
		if (ret < 0)
			printf("%s%s\n", strerrorname_np(err), injected);
		else if (ret == (ssize_t)len)
			printf("OK%s\n", injected);
		else
			printf("SHORT %zd%s\n", ret, injected);
		close(fd);
		free(buf);
		return 0;
	}

	n = atol(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "listen")) {
		struct sockaddr_in addr = { .sin_family = AF_INET };

		for (i = 0; i < n; i++) {
			int fd = socket(AF_INET, SOCK_STREAM, 0);

			if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
			    listen(fd, 1)) {
				perror("listen");
				return 1;
			}
		}
		printf("OK\n");
		fflush(stdout);
		sleep(atoi(argv[3]));
	} else if (!strcmp(argv[1], "getppid")) {
		double t0;

		if (pin_to_this_cpu())
			return 1;
		t0 = now_ns();
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		printf("calls %ld ns_per_call %.1f\n", n, (now_ns() - t0) / (n ? n : 1));
	} else if (!strcmp(argv[1], "halves") && argc == 5) {
		/*
		 * N getppid() calls, then FILE made, a line read from FIFO and
		 * N more: in one process, with a pause that the caller ends.
		 */
		char line[16];
		int fd;

		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		fd = open(argv[3], O_WRONLY | O_CREAT, 0644);
		if (fd < 0 || close(fd)) {
			perror(argv[3]);
			return 1;
		}
		fd = open(argv[4], O_RDONLY);
		if (fd < 0 || read(fd, line, sizeof(line)) < 0) {
			perror(argv[4]);
			return 1;
		}
		close(fd);
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
	} else if (!strcmp(argv[1], "pair")) {
		for (i = 0; i < n; i++) {
			syscall(SYS_getpid);
			syscall(SYS_getppid);
		}
	} else if (!strcmp(argv[1], "pause")) {
		/* One pause(), the system call, ended by SIGUSR1 or alarm(). */
		struct sigaction sa = { .sa_handler = on_signal };

		if (sigaction(SIGUSR1, &sa, NULL) || sigaction(SIGALRM, &sa, NULL)) {
			perror("sigaction");
			return 1;
		}
		alarm(n);
#ifdef SYS_pause
		syscall(SYS_pause);
#else
		pause();
#endif
	} else if (!strcmp(argv[1], "sleep")) {
		/* COUNT nanosleep() of N ms each, the system call itself. */
		struct timespec ts = { .tv_sec = n / 1000, .tv_nsec = n % 1000 * 1000000 };
		long count = argc > 3 ? atol(argv[3]) : 1;

		for (i = 0; i < count; i++) {
			if (syscall(SYS_nanosleep, &ts, NULL)) {
				perror("nanosleep");
				return 1;
			}
			printf("woke on cpu %d\n", sched_getcpu());
			fflush(stdout);
		}
	} else if (!strcmp(argv[1], "ids") && argc == 4) {
		/* N getpid() calls, then M getppid(), in one process. */
		long m = atol(argv[3]);

		for (i = 0; i < n; i++)
			syscall(SYS_getpid);
		for (i = 0; i < m; i++)
			syscall(SYS_getppid);
	} else if (!strcmp(argv[1], "spin")) {
		double end = now_ns() + n * 1e9;
		long calls = 0;
		sigset_t term, pending;

		if (setpriority(PRIO_PROCESS, 0, 19)) {
			perror("setpriority");
			return 1;
		}
		/* SIGTERM stays pending, and ends the loop. */
		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		sigprocmask(SIG_BLOCK, &term, NULL);
		while (now_ns() < end) {
			for (i = 0; i < 1000; i++, calls++) {
				syscall(SYS_getppid);
				spin_hint();
			}
			if (!sigpending(&pending) && sigismember(&pending, SIGTERM))
				break;
		}
		printf("calls %ld\n", calls);
	} else {
		return show_help();
	}
	return 0;
}
