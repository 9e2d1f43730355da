/* usage.h - `fsmix --help` and the man page's SYNOPSIS and OPTIONS, both generated from the
 * command table (commands.h) and the option table (options.h). */
#ifndef FSMIX_USAGE_H
#define FSMIX_USAGE_H

#include <stdio.h>

/* usage_print - the --help text: the usage lines, every documented option by section, output
 * files and exit statuses. */
void usage_print(FILE *out);

/* usage_print_man - `fsmix --help-man`: docs/fsmix.1's generated SYNOPSIS and OPTIONS
 * sections, each between its begin and end marker lines (tests/e2e/man_current.sh compares
 * them with the page). */
void usage_print_man(FILE *out);

#endif
