// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command a recording or a count runs (`-- CMD ARGS`): forked at once,
 * held on a pipe until every event is open, then released to exec. Also
 * the stop signals shared by record and stat.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktrace_cmd.h"

volatile sig_atomic_t kt_stop_signal;

static void on_stop(int sig)
{
	kt_stop_signal = sig;
}

static void stop_signals_mask(int how)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(how, &set, NULL);
}

void kt_signals_hold(void)
{
	stop_signals_mask(SIG_BLOCK);
}

void kt_signals_release(void)
{
	stop_signals_mask(SIG_UNBLOCK);
}

void kt_signals_install(struct kt_signals *s)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;	/* no SA_RESTART: poll() returns */
	sigemptyset(&sa.sa_mask);
	kt_stop_signal = 0;
	sigaction(SIGINT, &sa, &s->old_int);
	sigaction(SIGTERM, &sa, &s->old_term);
	sigaction(SIGHUP, &sa, &s->old_hup);
	/* A closed pipe (ktrace record | head) is a write error to handle,
	 * not a death that would leave the probes behind. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &s->old_pipe);
	s->installed = true;
	kt_signals_release();	/* one held since main() stops the run */
}

void kt_signals_restore(struct kt_signals *s)
{
	if (!s->installed)
		return;
	sigaction(SIGINT, &s->old_int, NULL);
	sigaction(SIGTERM, &s->old_term, NULL);
	sigaction(SIGHUP, &s->old_hup, NULL);
	sigaction(SIGPIPE, &s->old_pipe, NULL);
	s->installed = false;
}

int kt_workload_fork(struct kt_ctx *ctx, struct kt_workload *w, char **argv)
{
	int go[2];

	w->pid = -1;
	w->go = -1;
	w->reaped = false;
	if (pipe2(go, O_CLOEXEC) < 0)
		return kt_error(ctx, KT_FAIL, "pipe: %s", strerror(errno));
	fflush(ctx->out);
	fflush(ctx->err);
	w->pid = fork();
	if (w->pid < 0) {
		close(go[0]);
		close(go[1]);
		return kt_error(ctx, KT_FAIL, "fork: %s", strerror(errno));
	}
	if (w->pid == 0) {
		struct pollfd p = { .fd = go[0], .events = POLLIN };

		close(go[1]);
		/* its name already, as exec will set it: a count by process
		 * (hist's .execname) that starts at this fork names it so */
		prctl(PR_SET_NAME, basename(argv[0]));
		/* The command gets the default dispositions, not ktrace's. */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		/*
		 * Wait for the byte without reading it: a count by process
		 * (hist's set_event_pid) starts at this fork, and a read of
		 * ktrace's own would land in the command's read sizes. EOF
		 * without a byte: ktrace gave up, do not run.
		 */
		while (poll(&p, 1, -1) < 0 && errno == EINTR)
			;
		if (!(p.revents & POLLIN))
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "ktrace %s: cannot run '%s': %s\n",
			ctx->cmd ? ctx->cmd : "", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	w->go = go[1];
	return KT_OK;
}

int kt_workload_start(struct kt_workload *w)
{
	int ret = write(w->go, "g", 1) == 1 ? 0 : -EIO;

	close(w->go);
	w->go = -1;
	return ret;
}

bool kt_workload_exited(struct kt_workload *w)
{
	if (w->pid <= 0 || w->reaped)
		return w->reaped;
	if (waitpid(w->pid, &w->status, WNOHANG) == w->pid)
		w->reaped = true;
	return w->reaped;
}

int kt_workload_finish(struct kt_workload *w, bool stop)
{
	if (w->go >= 0) {
		close(w->go);	/* never released: the child exits 127 */
		w->go = -1;
	}
	if (w->pid <= 0)
		return -1;
	if (!w->reaped) {
		if (stop)
			kill(w->pid, SIGTERM);
		/* Another stop signal while waiting: no more waiting. */
		while (waitpid(w->pid, &w->status, 0) < 0 && errno == EINTR)
			kill(w->pid, SIGKILL);
		w->reaped = true;
	}
	if (WIFEXITED(w->status))
		return WEXITSTATUS(w->status);
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return KT_FAIL;
}
