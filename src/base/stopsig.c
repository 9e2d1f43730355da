/* stopsig.c - the stop signals and their process-wide count (stopsig.h). */
#include "stopsig.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
static atomic_uint received;

void stopsig_fill(sigset_t *set)
{
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(set, stop_signals[i]);
}

void stopsig_block(void)
{
	sigset_t set;
	sigemptyset(&set);
	stopsig_fill(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

void stopsig_note(void)
{
	atomic_fetch_add(&received, 1);
}

unsigned stopsig_count(void)
{
	return atomic_load(&received);
}

bool stopsig_arrived(unsigned snapshot)
{
	if (atomic_load(&received) != snapshot)
		return true;
	sigset_t pending;
	if (sigpending(&pending))
		return false;
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		if (sigismember(&pending, stop_signals[i]) == 1)
			return true;
	return false;
}

size_t stopsig_usr1_message(char *buf, unsigned long pid)
{
	static const char head[] = "fsmix: ignoring SIGUSR1 from pid ";
	static const char tail[] = " (SIGINT, SIGTERM or SIGHUP stop fsmix)\n";
	char digits[24];
	size_t n = 0, len = sizeof(head) - 1;
	do
		digits[n++] = (char)('0' + pid % 10);
	while ((pid /= 10) && n < sizeof(digits));
	memcpy(buf, head, len);
	while (n)
		buf[len++] = digits[--n];
	memcpy(buf + len, tail, sizeof(tail) - 1);
	return len + sizeof(tail) - 1;
}

static void on_sigusr1(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	int saved = errno;
	char msg[STOPSIG_USR1_MSG_MAX];
	size_t n = stopsig_usr1_message(msg, si ? (unsigned long)si->si_pid : 0);
	ssize_t w = write(STDERR_FILENO, msg, n);
	(void)w;
	errno = saved;
}

void stopsig_ignore_usr1(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigusr1;
	sa.sa_flags = SA_RESTART | SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}
