/* exitcode.c - failures to exit statuses (exitcode.h). */
#include "exitcode.h"

#include <stddef.h>

/* One row per failure kind. */
static const struct {
	enum failure failure;
	enum fsmix_exit status;
} exit_table[] = {
    {FAIL_NONE, EXIT_OK},
    {FAIL_IO, EXIT_RUN_FAILED},
    {FAIL_INPUT, EXIT_BAD_INPUT},
    {FAIL_UNSUPPORTED, EXIT_UNSUPPORTED},
    {FAIL_INTERRUPTED, EXIT_INTERRUPTED},
};

#define N_EXITS (sizeof(exit_table) / sizeof(exit_table[0]))

int exit_status_of(enum failure f)
{
	for (size_t i = 0; i < N_EXITS; i++)
		if (exit_table[i].failure == f)
			return (int)exit_table[i].status;
	return EXIT_RUN_FAILED;
}
