// SPDX-License-Identifier: GPL-2.0
/*
 * kstats top's terminal: raw mode and the alternate screen, left on every
 * way out; its size; the lines of a screen; the signals that end, stop or
 * redraw it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <unistd.h>

#include "kstats_top.h"

/* A terminal in raw mode, on the alternate screen: left on every way out. */
static struct termios tty_saved;
static int tty_raw, tty_screen;

void tty_leave(void)
{
	if (tty_screen) {
		fputs("\033[?25h\033[?1049l", stdout);
		fflush(stdout);
		tty_screen = 0;
	}
	if (tty_raw) {
		tcsetattr(STDIN_FILENO, TCSANOW, &tty_saved);
		tty_raw = 0;
	}
}

void tty_enter(void)
{
	struct termios raw;

	if (isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &tty_saved)) {
		raw = tty_saved;
		/* Keys one at a time, not echoed; ^C and ^Z stay signals. */
		raw.c_lflag &= ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		if (!tcsetattr(STDIN_FILENO, TCSANOW, &raw))
			tty_raw = 1;
	}
	/* An error's message goes to the terminal as it was. */
	kstats_on_error(tty_leave);
	/* The alternate screen, without a cursor: as top and htop. */
	fputs("\033[?1049h\033[?25l", stdout);
	tty_screen = 1;
}

/*
 * The width that a table on standard output fits: a terminal's (COLUMNS
 * where set, as --hist and ls(1) take it), 0 into a pipe or a file, whose
 * reports keep every column.
 */
int out_width(void)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");

	if (!isatty(STDOUT_FILENO))
		return 0;
	if (env && atoi(env) > 0)
		return atoi(env);
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return 80;
}

void term_size(int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

/* The lines of the screen not written yet. */
static int screen_lines;

void screen_begin(int rows)
{
	screen_lines = rows;
	fputs("\033[H", stdout);
}

int screen_left(void)
{
	return screen_lines;
}

/*
 * A line of the screen: cut to its width, without control characters; a
 * character of UTF-8 (the blocks of a histogram's bars) is one column.
 */
void screen_line(const char *s, int cols, const char *attr)
{
	int i, col = 0, follow = 0;

	if (attr)
		fputs(attr, stdout);
	for (i = 0; s[i]; i++) {
		unsigned char c = s[i];

		/*
		 * A continuation byte after a lead byte takes no column of
		 * its own; any other byte (Latin-1's too) takes one.
		 */
		if (follow && (c & 0xc0) == 0x80) {
			follow--;
		} else {
			follow = c >= 0xf0 && c < 0xf8 ? 3 : c >= 0xe0 && c < 0xf0 ? 2 :
				 c >= 0xc0 && c < 0xe0 ? 1 : 0;
			if (col++ == cols)
				break;
		}
		putchar(c < 0x20 || c == 0x7f ? '?' : c);
	}
	/* The screen's last line ends without a newline, which would scroll it. */
	if (attr)
		fputs("\033[m", stdout);
	fputs(--screen_lines > 0 ? "\033[K\n" : "\033[K", stdout);
}

/*
 * The signals that kstats top on a terminal takes (from a signalfd: they
 * are blocked; or from a pipe, without signalfd): those that end it
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT), SIGTSTP, and SIGWINCH and SIGCONT
 * to redraw.
 */
static const int top_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGTSTP, SIGCONT };

/*
 * Where signalfd() is not (a kernel without CONFIG_SIGNALFD), a pipe that
 * a handler writes each signal's number into: the same signals, polled
 * the same way.
 */
static int sig_pipe[2] = { -1, -1 };

static void sig_to_pipe(int sig)
{
	unsigned char c = sig;
	int e = errno;
	ssize_t n;

	/* A full pipe: a signal of each kind is already waiting. */
	n = write(sig_pipe[1], &c, 1);
	(void)n;
	errno = e;
}

/* A signalfd of them, blocked; or the pipe their handler writes to. */
int catch_signals(void)
{
	struct sigaction old, sa = { .sa_handler = sig_to_pipe, .sa_flags = SA_RESTART };
	sigset_t set;
	size_t i;
	int fd;

	sigemptyset(&set);
	for (i = 0; i < ARRAY_SIZE(top_signals); i++) {
		/* SIGHUP stays ignored under nohup. */
		if (top_signals[i] == SIGHUP && !sigaction(SIGHUP, NULL, &old) &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaddset(&set, top_signals[i]);
	}
	/* These end kstats top, as trace's end a trace (see trace_main()). */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd >= 0)
		return fd;
	/* No signalfd() in the kernel: the pipe. */
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK))
		kstats_die(1, "top: signalfd, then pipe: %s", strerror(errno));
	sa.sa_mask = set;
	for (i = 0; i < ARRAY_SIZE(top_signals); i++)
		if (sigismember(&set, top_signals[i]))
			sigaction(top_signals[i], &sa, NULL);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	return sig_pipe[0];
}

/* The next signal that @fd (a signalfd, or the pipe) has, or 0. */
static int next_signal(int fd)
{
	struct signalfd_siginfo si;
	unsigned char c;

	if (fd == sig_pipe[0])
		return read(fd, &c, 1) == 1 ? c : 0;
	return read(fd, &si, sizeof(si)) == sizeof(si) ? (int)si.ssi_signo : 0;
}

/*
 * @sig, taken with its default action: unblocked (signalfd) or with no
 * handler (the pipe) while it is raised; as before once it returns.
 */
static void raise_default(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	sigset_t one;

	sigemptyset(&one);
	sigaddset(&one, sig);
	sigaction(sig, &dfl, &old);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	/* Continued (SIGTSTP). */
	if (sig_pipe[0] < 0)
		sigprocmask(SIG_BLOCK, &one, NULL);
	sigaction(sig, &old, NULL);
}

/*
 * The signals read from @fd: 1 to redraw. One that ends kstats top
 * restores the terminal, then ends it as it would have (its default
 * action); SIGTSTP stops it with the terminal restored, which it takes
 * again once continued.
 */
int top_signal(int fd)
{
	int redraw = 0, sig;

	while ((sig = next_signal(fd))) {
		switch (sig) {
		case SIGWINCH:
		case SIGCONT:
			redraw = 1;
			break;
		case SIGTSTP:
			tty_leave();
			fflush(stdout);
			raise_default(SIGTSTP);
			tty_enter();
			redraw = 1;
			break;
		default:
			tty_leave();
			raise_default(sig);
			exit(128 + sig);
		}
	}
	return redraw;
}
