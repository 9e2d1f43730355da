/* cli.h - the parsed command line: what the option table (options.c, parse.c) fills from argv
 * and the command handlers (commands.c, cmd_*.c) read. */
#ifndef FSMIX_CLI_H
#define FSMIX_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "overrides.h"
#include "sweep.h"

#define MAX_OVERRIDES 256

/* The subcommands, in the order of --help and the man page's SYNOPSIS (commands.c). */
enum command_id {
	CMD_RUN,
	CMD_CHECK,
	CMD_CLEAN,
	CMD_COMPARE,
	CMD_PLOT,
	CMD_KEYS,
	CMD_VERIFY,
	CMD_CRASHTEST,
	CMD_HELP
};

/* A set of commands, as in the option table's "which commands take it". */
#define CMD_BIT(id) (1u << (id))

/* What main does once argv is parsed. */
enum cli_action {
	ACT_COMMAND,  /* run c->command */
	ACT_USAGE,    /* no command: the usage text to stderr, exit status 2 */
	ACT_HELP,     /* --help, -h, fsmix help: the usage text to stdout */
	ACT_VERSION,  /* --version, -V */
	ACT_HELP_MAN, /* --help-man (hidden): docs/fsmix.1's generated SYNOPSIS and OPTIONS */
};

struct command;

/* fsmix crashtest's own options (cmd_crashtest.c; docs/durability.md, "Every crash state"). */
enum ct_fault { CT_FAULT_NONE, CT_FAULT_IGNORE_FLUSH, CT_FAULT_REORDER };
struct ct_opts {
	const char *fs;         /* --fs ext4|xfs|btrfs */
	uint64_t size;          /* --size: bytes of the image */
	const char *mkfs_opts;  /* --mkfs-options: words split at spaces */
	const char *mount_opts; /* --mount-options: mount(2)'s data string */
	size_t states;          /* --states N: flush points explored; 0: all */
	unsigned reorder;       /* --reorder K: random subsets per flush point */
	bool one_state;         /* --state N given */
	size_t state;           /* ... its number */
	bool keep;              /* --keep: the state left mounted */
	const char *image;      /* --image FILE: where --state N's image goes */
	const char *run_dir;    /* --run-dir DIR: keep (or reuse) the record, base and log */
	enum ct_fault fault;    /* --disk-fault (a test aid) */
};

struct cli {
	enum cli_action action;
	const struct command *command; /* NULL: no command word and no profile */
	int argc;                      /* the whole command line, for the reports */
	char **argv;
	bool *given; /* [n_option_rows]: the option table's row i was given (options.h); cli_free */

	const char *profile;
	const char *key; /* keys KEY */
	struct override ovr[MAX_OVERRIDES];
	size_t n_ovr;
	bool strict_ffsb, json, markdown, continue_on_error, cleanup, ffsb_only;
	const char *json_path, *csv_path; /* run --json FILE / --csv FILE */
	const char *lat_log_path;         /* run --lat-log FILE, plot --lat-log LOG */
	const char *durability_log_path;  /* run and verify --durability-log FILE */
	int model;                        /* verify --model: enum dm_model (0: linux) */
	uint64_t cut_at_ns; /* verify --cut-at: CLOCK_MONOTONIC ns of the power cut (0: none) */
	double interval_s;
	bool crash, crash_random; /* run --crash-after [random:]S */
	double crash_after_s;
	struct sweep_dim dims[SWEEP_MAX_DIMS]; /* --threads LIST, --sweep SECTION.KEY=LIST */
	size_t n_dims;
	unsigned repeat;        /* --repeat N, or until's MAX */
	double until_pct;       /* --repeat until:PCT[:MAX]; 0: a fixed count */
	bool shared_tree;       /* run/clean --shared-tree: one tree for every MPI rank */
	unsigned build_threads; /* run --build-threads; 0: one per CPU */
	const char *plot_path;  /* run --plot, compare --plot, plot -o */
	bool force;             /* compare: different profiles */
	struct ct_opts ct;      /* crashtest */
	char **files;           /* compare and plot arguments */
	size_t n_files;
};

/* stdout_outputs - how many outputs go to stdout ("-"): it can carry one document, and then
 * the text report moves to stderr. */
int stdout_outputs(const struct cli *c);

#endif
