/* stopsig.c - the stop signals and their process-wide count (stopsig.h). */
#include "stopsig.h"

#include <stdatomic.h>

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
static atomic_uint received;

void stopsig_fill(sigset_t *set)
{
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(set, stop_signals[i]);
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
