// SPDX-License-Identifier: GPL-2.0-only
/*
 * Target for inherit and -p tests. Usage: threads K [wait]
 * A thread and a forked child each call work(K), which makes K getppid()
 * system calls; the main thread makes none. So a trace of the whole
 * process tree sees exactly 2*K calls: K with tid != pid (the thread) and
 * K from another pid (the child).
 * "wait": the thread is started first and parked; main prints
 * "ready PID TID" and waits for SIGUSR1 before releasing the thread and
 * forking (so that a tracer attached with -p PID meanwhile sees both an
 * existing thread and a new child).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int released, thread_tid;
static long k = 100;

__attribute__((noinline)) long work(long n)
{
	long sum = 0;

	for (long i = 0; i < n; i++)
		sum += syscall(SYS_getppid);
	return sum;
}

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	thread_tid = (int)syscall(SYS_gettid);
	pthread_cond_broadcast(&cond);
	while (!released)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	work(k);
	return NULL;
}

int main(int argc, char **argv)
{
	int wait_sig = argc > 2 && !strcmp(argv[2], "wait");
	pthread_t t;
	sigset_t mask;
	pid_t child;
	int sig, status = 0;

	if (argc > 1)
		k = strtol(argv[1], NULL, 0);
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, NULL);	/* the thread inherits it */
	if (pthread_create(&t, NULL, thread_main, NULL))
		return 1;
	pthread_mutex_lock(&lock);
	while (!thread_tid)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	if (wait_sig) {
		printf("ready %d %d\n", (int)getpid(), thread_tid);
		fflush(stdout);
		sigwait(&mask, &sig);
	}
	pthread_mutex_lock(&lock);
	released = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	child = fork();
	if (child == 0) {
		work(k);
		_exit(0);
	}
	pthread_join(t, NULL);
	if (child > 0)
		waitpid(child, &status, 0);
	return child > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
