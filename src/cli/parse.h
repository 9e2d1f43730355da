/* parse.h - argv to struct cli through the option table (options.h). */
#ifndef FSMIX_PARSE_H
#define FSMIX_PARSE_H

#include <stddef.h>

#include "cli.h"
#include "failure.h"

/* cli_parse - fill c (zeroed by the caller) from argv: the command word (none: `fsmix PROFILE`
 * is run), every option through its row's setter, then command_check. FAIL_NONE with
 * c->action set, or FAIL_INPUT with the message for "fsmix: MESSAGE" in err. */
enum failure cli_parse(int argc, char **argv, struct cli *c, char *err, size_t errlen);

/* cli_free - what cli_parse allocated in c (the options given, the sweep's dimensions); c may
 * then be zeroed and parsed again. */
void cli_free(struct cli *c);

#endif
