// SPDX-License-Identifier: GPL-2.0-only
/*
 * A full-screen view on a terminal, for ktrace top, without curses: the
 * few ANSI/ECMA-48 sequences it needs (alternate screen, cursor position,
 * erase in line and display, cursor hidden) are taken by every terminal
 * in use (xterm, VTE, tmux, screen, the Linux console), and leaving
 * libncursesw and libtinfo out spares every ktrace command loading them.
 *
 * A frame is built in one buffer and written in one write(), so the
 * screen never shows half of one.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "ktrace_cmd.h"

#define ESC "\033"

static const char enter[] = ESC "[?1049h" ESC "[?25l" ESC "[H" ESC "[J";
static const char leave[] = ESC "[0m" ESC "[?25h" ESC "[?1049l";

static volatile sig_atomic_t resized;
/* the screen up, for the SIGTSTP handler (one at a time: top's) */
static struct kt_term *active_term;

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

/* All of s, through short writes and interrupts (SIGWINCH). */
static void write_all(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(STDOUT_FILENO, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;		/* the terminal is gone */
		s += w;
		n -= w;
	}
}

/*
 * Ctrl-Z: the terminal is given back as it was, the process stops, and
 * when it is continued (fg) the screen is taken again and redrawn whole,
 * as curses programs do. Only async-signal-safe calls.
 */
static void on_tstp(int sig)
{
	struct kt_term *t = active_term;
	struct sigaction dfl = { .sa_handler = SIG_DFL }, self;
	sigset_t set;
	int e = errno;

	write_all(leave, sizeof(leave) - 1);
	tcsetattr(STDIN_FILENO, TCSADRAIN, &t->saved);
	sigaction(SIGTSTP, &dfl, &self);
	sigemptyset(&set);
	sigaddset(&set, SIGTSTP);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);			/* stopped here until SIGCONT */
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigaction(SIGTSTP, &self, NULL);
	tcsetattr(STDIN_FILENO, TCSADRAIN, &t->raw);
	write_all(enter, sizeof(enter) - 1);
	resized = 1;			/* the next frame draws every row */
	errno = e;
}

int kt_term_start(struct kt_ctx *ctx, struct kt_term *t)
{
	const char *term = getenv("TERM");
	struct sigaction sa;

	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		return kt_usage_error(ctx, NULL,
				      "the screen needs a terminal: use --stdio");
	if (!term || !*term)
		return kt_usage_error(ctx, NULL,
				      "the screen needs a terminal that moves its cursor (TERM is not set): use --stdio");
	if (!strcmp(term, "dumb"))
		return kt_usage_error(ctx, NULL,
				      "the screen needs a terminal that moves its cursor (TERM is 'dumb'): use --stdio");
	if (tcgetattr(STDIN_FILENO, &t->saved))
		return kt_error(ctx, KT_FAIL, "cannot read the terminal's mode: %s",
				strerror(errno));
	/* keys one at a time, unechoed; ISIG kept: Ctrl-C still stops,
	 * Ctrl-Z suspends (on_tstp gives the terminal back meanwhile) */
	t->raw = t->saved;
	t->raw.c_lflag &= ~(ICANON | ECHO);
	t->raw.c_cc[VMIN] = 1;
	t->raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t->raw))
		return kt_error(ctx, KT_FAIL, "cannot set the terminal's mode: %s",
				strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_winch;	/* no SA_RESTART: the poll returns */
	sigemptyset(&sa.sa_mask);
	resized = 0;
	sigaction(SIGWINCH, &sa, &t->old_winch);
	active_term = t;
	sa.sa_handler = on_tstp;
	sigaction(SIGTSTP, &sa, &t->old_tstp);
	t->active = true;
	write_all(enter, sizeof(enter) - 1);
	return KT_OK;
}

void kt_term_stop(struct kt_term *t)
{
	if (t->active) {
		sigaction(SIGTSTP, &t->old_tstp, NULL);
		active_term = NULL;
		write_all(leave, sizeof(leave) - 1);
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &t->saved);
		sigaction(SIGWINCH, &t->old_winch, NULL);
		t->active = false;
	}
	free(t->buf.p);
	t->buf = (struct kt_buf){ 0 };
}

/* Append n bytes of s to the frame; a frame that ran out of memory is
 * dropped at kt_term_flush(). */
static void put(struct kt_term *t, const char *s, size_t n)
{
	if (t->nomem || kt_buf_reserve(&t->buf, n)) {
		t->nomem = true;
		return;
	}
	memcpy(t->buf.p + t->buf.len, s, n);
	t->buf.len += n;
}

/* The cursor to row y (from 0), first column. */
static void put_move(struct kt_term *t, int y)
{
	char s[24];
	int n = snprintf(s, sizeof(s), ESC "[%d;1H", y + 1);

	put(t, s, n);
}

void kt_term_begin(struct kt_term *t)
{
	struct winsize ws;

	t->rows = 24;
	t->cols = 80;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		t->rows = ws.ws_row;
		t->cols = ws.ws_col;
	}
	t->buf.len = 0;
	t->nomem = false;
}

/*
 * Row y: cleared, then s up to the width, counted in characters (a UTF-8
 * sequence is one; its continuation bytes take no column). Control
 * characters show as '?': a name from a traced program never drives
 * the terminal.
 */
void kt_term_line(struct kt_term *t, int y, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int col = 0;

	if (y < 0 || y >= t->rows)
		return;
	put_move(t, y);
	put(t, ESC "[K", 3);
	for (; *p; p++) {
		bool cont = (*p & 0xc0) == 0x80;

		if (!cont && col++ == t->cols)
			break;
		if (*p < 0x20 || *p == 0x7f)
			put(t, "?", 1);
		else
			put(t, (const char *)p, 1);
	}
}

void kt_term_clear(struct kt_term *t, int y)
{
	if (y < 0 || y >= t->rows)
		return;
	put_move(t, y);
	put(t, ESC "[J", 3);
}

void kt_term_flush(struct kt_term *t)
{
	if (!t->nomem)
		write_all((const char *)t->buf.p, t->buf.len);
	t->buf.len = 0;
}

int kt_term_key(void)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	unsigned char c;

	if (resized) {
		resized = 0;
		return KT_KEY_RESIZE;
	}
	if (poll(&pfd, 1, 0) != 1 || read(STDIN_FILENO, &c, 1) != 1)
		return KT_KEY_NONE;
	if (c != 0x1b)
		return c;
	/* an escape sequence (an arrow, F1..F4 as ESC O P..S) is no key:
	 * its bytes are read up to its final one, all there already */
	if (poll(&pfd, 1, 0) != 1 || read(STDIN_FILENO, &c, 1) != 1)
		return KT_KEY_NONE;
	if (c != '[' && c != 'O')
		return KT_KEY_NONE;
	do {
		if (poll(&pfd, 1, 0) != 1 || read(STDIN_FILENO, &c, 1) != 1)
			break;
	} while (c < 0x40 || c > 0x7e);
	return KT_KEY_NONE;
}
