/* options.c - the option table (options.h): every option's rows, grouped by the section of
 * --help they are documented in (a new option is a row here, with its setter in option_set.c),
 * and the sections' headings. Every message here is the one fsmix has always printed (tests grep
 * them). */
#include "options.h"

#include "option_set.h"

#define RUN     CMD_BIT(CMD_RUN)
#define CHECK   CMD_BIT(CMD_CHECK)
#define CLEAN   CMD_BIT(CMD_CLEAN)
#define COMPARE CMD_BIT(CMD_COMPARE)
#define PLOT    CMD_BIT(CMD_PLOT)
#define KEYS    CMD_BIT(CMD_KEYS)
#define VERIFY  CMD_BIT(CMD_VERIFY)
#define CRASH   CMD_BIT(CMD_CRASHTEST)
#define ANY     (RUN | CHECK | CLEAN | COMPARE | PLOT | KEYS | VERIFY | CRASH | CMD_BIT(CMD_HELP))
#define PROFILE (RUN | CHECK | CLEAN | VERIFY) /* the commands that load a profile */
#define RUNNER  (PROFILE | CRASH) /* ... and crashtest's own run takes these overrides */

static const char run_only[] = "--continue-on-error, --cleanup and --build-threads are options "
                               "of 'run' only";
static const char sweep_only[] = "thread lists, --sweep and --repeat are options of 'run' only";
static const char output_only[] = "--csv, --format and --interval are options of 'run' only";
static const char json_misuse[] = "--json is an option of 'run', 'check', 'verify' and "
                                  "'crashtest', not '%s'";

const struct option_row option_rows[] = {
    /* Profile overrides */
    {.name = "time",
     .short_name = 't',
     .arg = ARG_REQUIRED,
     .value = "S",
     .commands = RUNNER,
     .set = set_time,
     .section = SEC_OVERRIDES,
     .help = "run length in seconds (the global key time)",
     .man = "Run length in seconds (the global key\n.BR time )."},
    {.name = "location",
     .short_name = 'l',
     .arg = ARG_REQUIRED,
     .value = "[N=]DIR",
     .commands = PROFILE,
     .set = set_location,
     .section = SEC_OVERRIDES,
     .help = "location of every filesystem, or of filesystem N only",
     .man = "Location of every filesystem, or of filesystem N only."},
    {.name = "threads",
     .short_name = 'n',
     .arg = ARG_REQUIRED,
     .value = "[G=]N",
     .commands = RUNNER,
     .is_form = is_count,
     .set = set_threads,
     .section = SEC_OVERRIDES,
     .help = "num_threads of every thread group, or of group G only",
     .man = "Threads of every thread group, or of group G only (the key\n.BR num_threads )."},
    {.name = "iodepth",
     .arg = ARG_REQUIRED,
     .value = "[G=]N",
     .commands = RUNNER,
     .is_form = is_count,
     .set = set_iodepth,
     .section = SEC_OVERRIDES,
     .help = "iodepth of every thread group, or of group G only (engine=io_uring)",
     .man = "Operations each thread keeps in flight, in every thread group or in group G only\n"
            "(the key\n.BR iodepth ;\nabove 1 only with engine=io_uring; docs/engines.md)."},
    {.name = "set",
     .short_name = 's',
     .arg = ARG_REQUIRED,
     .value = "SECTION.KEY=V",
     .commands = RUNNER,
     .set = set_key,
     .section = SEC_OVERRIDES,
     .help = "any key, e.g. --set filesystem0.num_files=2000,\n"
             "--set threadgroup0.enable_stats=1, --set time=10",
     .man = "Set any profile key, e.g.\n.BR \"\\-\\-set filesystem0.num_files=2000\" ;\n"
            "a key without a section is a global key."},
    {.name = "seed",
     .arg = ARG_REQUIRED,
     .value = "N",
     .commands = RUNNER,
     .set = set_seed,
     .section = SEC_OVERRIDES,
     .help = "random seed (the global key seed)",
     .man = "Random seed of the run (the global key\n.BR seed )."},
    {.name = "fidelity",
     .arg = ARG_REQUIRED,
     .value = "MODE",
     .commands = RUNNER,
     .set = set_fidelity,
     .section = SEC_OVERRIDES,
     .help = "exact (default) or ffsb6: FFSB 6.0's biased op and\n"
             "size picks and byte counts (the global key fidelity)",
     .man = "What the run reproduces (the global key\n.BR fidelity ):\n.B exact\n"
            "(the default) runs the profile as written;\n.B ffsb6\n"
            "reproduces FFSB 6.0's departures from it: its biased operation and file size\n"
            "picks and its read and write byte counts, so that results compare with\n"
            "published FFSB figures. Accepted with\n.BR \\-\\-strict\\-ffsb ."},
    {.name = "ramp",
     .arg = ARG_REQUIRED,
     .value = "S",
     .commands = RUNNER,
     .set = set_ramp,
     .section = SEC_OVERRIDES,
     .help = "warm-up: run S seconds uncounted, then time more\n"
             "seconds (the global key ramp_time)",
     .man = "Warm-up (the global key\n.BR ramp_time ):\n"
            "the workers run S seconds before anything is counted, then the run lasts\n"
            ".B time\nmore seconds. Refused with\n.BR num_ops ."},
    {.name = "verify",
     .arg = ARG_NONE,
     .commands = PROFILE,
     .set = set_verify,
     .section = SEC_OVERRIDES,
     .help = "check the content of every read (the global key verify=1)",
     .man = "Check what every read op reads against the content fsmix wrote (the global key\n"
            ".BR verify=1 ,\nan fsmix extension): a mismatch is an error of kind verify, and\n"
            "stops the run unless\n.BR \\-\\-continue\\-on\\-error ."},
    {.name = "strict-ffsb",
     .arg = ARG_NONE,
     .commands = PROFILE,
     .set = set_strict,
     .section = SEC_OVERRIDES,
     .help = "accept only what FFSB 6.0 runs unchanged: no fsmix\n"
             "extensions, no FFSB 5 keys or names",
     .man = "Accept only what FFSB 6.0 would accept and read the same way: fsmix extensions,\n"
            "FFSB 5 keys and names and other spellings are errors."},

    /* Run options */
    {.name = "continue-on-error",
     .arg = ARG_NONE,
     .commands = RUN,
     .misuse = run_only,
     .set = set_continue,
     .section = SEC_RUN,
     .help = "count failed operations and go on (default: stop the run)",
     .man = "Count failed operations and go on; by default the first error stops the run."},
    {.name = "cleanup",
     .arg = ARG_NONE,
     .commands = RUN,
     .misuse = run_only,
     .set = set_cleanup,
     .section = SEC_RUN,
     .help = "remove fsmix's trees (<location>/fsmix.fsN) after the run",
     .man = "Remove fsmix's trees after the run. A tree that cannot be removed (an I/O error)\n"
            "makes the exit status 1 even after a good run; the trees are removed before the\n"
            "JSON and CSV are written, so their exit status and error say so. SIGINT, SIGTERM\n"
            "or SIGHUP during the removal stops it where it is (exit status 130, \"interrupted\":\n"
            "true); fsmix clean removes the rest."},
    {.name = "shared-tree",
     .arg = ARG_NONE,
     .commands = RUN | CLEAN,
     .set = set_shared_tree,
     .section = SEC_RUN,
     .help = "MPI: every rank works in one tree, <location>/fsmix.fsN\n"
             "(default: a tree per rank; docs/distributed.md)",
     .man = "Under MPI, every rank works in one shared tree\n.IR location /fsmix.fs N\n"
            "instead of a tree of its own: rank 0 builds or reuses it, the other ranks attach\n"
            "to it after a barrier, and each rank creates and deletes only the files of its own\n"
            "ids (id modulo the ranks); reads, stats and appends pick any rank's files, and a\n"
            "file its owner deleted meanwhile is a skipped pick. With\n.BR clean ,\n"
            "rank 0 alone removes the shared tree. A single process ignores it (its tree is\n"
            "fsmix.fsN already). See docs/distributed.md."},
    {.name = "build-threads",
     .arg = ARG_REQUIRED,
     .value = "N",
     .commands = RUN,
     .misuse = run_only,
     .set = set_build_threads,
     .section = SEC_RUN,
     .help = "threads that build a file tree (default: one per CPU, 2-16)",
     .man = "Threads that build a file tree, 1 to 256 (default: one per CPU, at least 2, at\n"
            "most 16). The tree is the same whatever N is."},
    {.name = "json",
     .arg = ARG_NEXT,
     .value = "FILE",
     .commands = RUN | COMPARE | VERIFY | CRASH,
     .misuse = json_misuse,
     .set = set_json,
     .section = SEC_RUN,
     .help = "write the results as JSON (docs/output.md; '-': stdout)",
     .man = "Write the results, or the comparison, as JSON (docs/output.md);\n.B \\-\n"
            "is standard output. See OUTPUT FILES."},
    {.name = "csv",
     .arg = ARG_REQUIRED,
     .value = "FILE",
     .commands = RUN | COMPARE,
     .misuse = output_only,
     .set = set_csv,
     .section = SEC_RUN,
     .help = "write one CSV row per group and operation or syscall",
     .man = "Write one CSV row per group and operation or syscall, or the comparison's table\n"
            "(docs/output.md);\n.B \\-\nis standard output. See OUTPUT FILES."},
    {.name = "format",
     .arg = ARG_REQUIRED,
     .value = "ffsb",
     .commands = RUN,
     .misuse = output_only,
     .set = set_format,
     .section = SEC_RUN,
     .help = "print only the FFSB-compatible part of the text report",
     .man = "Print only the FFSB-compatible part of the text report\n"
            ".RB ( \"\\-\\-format text\" ,\nthe default, prints all of it)."},
    {.name = "interval",
     .arg = ARG_REQUIRED,
     .value = "S",
     .commands = RUN,
     .misuse = output_only,
     .set = set_interval,
     .section = SEC_RUN,
     .help = "record ops/s, MB/s and op p99 every S seconds (JSON, CSV)",
     .man = "Record ops/s, MB/s and the 99th percentile of operation latency every S seconds\n"
            "(0.01 to 86400), for the whole run and per thread group, in the JSON and CSV.\n"
            "Not in sweeps."},
    {.name = "lat-log",
     .arg = ARG_REQUIRED,
     .value = "FILE",
     .commands = RUN,
     .misuse = "--lat-log is an option of 'run' only",
     .set = set_lat_log,
     .section = SEC_RUN,
     .help = "one line per operation: time, group, thread, op, latency ns,\n"
             "bytes, ns in sync calls, response ns (docs/ops.md;\n"
             "'-': stdout)",
     .man = "One line per operation: time, group, thread, operation, latency in ns, bytes, ns\n"
            "in sync calls, response ns (docs/ops.md);\n.B \\-\n"
            "is standard output. Not in sweeps."},
    {.name = "crash-after",
     .arg = ARG_REQUIRED,
     .value = "[random:]S",
     .commands = RUN,
     .misuse = "--crash-after is an option of 'run' only",
     .set = set_crash_after,
     .section = SEC_RUN,
     .help = "crash the tested filesystems S s into the run, or at a\n"
             "moment in [0, S) drawn from the seed (shutdown ioctl; a\n"
             "dedicated test filesystem only: docs/durability.md)",
     .man = "Crash the tested filesystems S seconds into the run phase, or with\n.BI random: S\n"
            "at a moment drawn from [0, S) with the run's seed (printed; the same\n.B \\-\\-seed\n"
            "gives the same moment): the shutdown ioctl\n.RB ( FS_IOC_SHUTDOWN )\n"
            "without flushing the journal, as xfstests simulates a crash. Only on ext4, xfs and\n"
            "f2fs (checked before anything is built; elsewhere exit 3), as root, and before the\n"
            "end of the run's time (else exit 2); not in sweeps or MPI jobs. Only on a\n"
            "dedicated test filesystem (else exit 2, before anything is built): a loop or other\n"
            "block device mounted from its root, which holds nothing but fsmix's trees\n"
            "(fsmix.fsN...), lost+found and the directories on the way to the locations; never\n"
            "the filesystem of /, of the current directory or of an output (standard output and\n"
            "error included). After the shutdown every call fails with EIO: the workers stop at\n"
            "once and those failures are not errors; the stop reason is \"crashed\", the tree is\n"
            "left in place (no\n.BR \\-\\-cleanup )\n"
            "and the exit status is 0. Then unmount, mount (the journal is replayed) and run\n"
            ".BR \"fsmix verify\" .\nSee docs/durability.md."},

    {.name = "durability-log",
     .arg = ARG_REQUIRED,
     .value = "FILE",
     .commands = RUN | VERIFY,
     .set = set_durability_log,
     .section = SEC_RUN,
     .help = "run: journal every acknowledged fsync, fdatasync,\n"
             "O_SYNC write, sync and syncfs (and the writes they\n"
             "cover) in a new or empty FILE on another filesystem\n"
             "(/dev/null, a FIFO: never synced, no crash check);\n"
             "verify: the journal to check (docs/output.md)",
     .man = "With\n.BR run :\n"
            "record every durability point the kernel acknowledged (fsync, fdatasync, O_SYNC\n"
            "and O_DSYNC writes, sync, syncfs, and dirsync's directory fsyncs) and every write,\n"
            "create and delete they cover, in FILE, which must be on another filesystem than\n"
            "every location (links followed), new or empty, yours, writable by no one else (exit\n"
            "2 otherwise): a file that holds anything is never overwritten; /dev/null or a FIFO\n"
            "is never synced: no log for a crash. With\n.BR verify :\nthe journal whose\n"
            "promises are checked (a bad log: exit 2). Not in sweeps; docs/output.md."},
    {.name = "model",
     .arg = ARG_REQUIRED,
     .value = "linux|posix",
     .commands = VERIFY | CRASH,
     .set = set_model,
     .section = SEC_RUN,
     .help = "verify: linux (default; ext4, xfs, btrfs): fsync of\n"
             "a new file makes its name durable; posix: only a\n"
             "fsync of its directory (dirsync=1) or sync does",
     .man = "The durability model of\n.BR verify :\n.B linux\n"
            "(the default; ext4, xfs, btrfs): the fsync of a new file also makes its name\n"
            "durable;\n.BR posix :\n"
            "a name is durable only after its directory was fsynced (the key\n.BR dirsync )\n"
            "or a sync or syncfs; see docs/durability.md."},

    {.name = "cut-at",
     .arg = ARG_REQUIRED,
     .value = "NS",
     .commands = VERIFY,
     .set = set_cut_at,
     .section = SEC_RUN,
     .help = "verify: the power cut's CLOCK_MONOTONIC time in ns\n"
             "(fsmix-powercut's cut_mono_ns): what the run was told\n"
             "from then on is no promise (its process outlived the cut)",
     .man = "With\n.BR verify :\n"
            "the time of the power cut, CLOCK_MONOTONIC in nanoseconds, as the\n"
            ".B cut_mono_ns\n"
            "counter of fsmix-powercut(1) gives it. A real power cut stops the program too; a\n"
            "simulated one leaves it running, and a sync call that returns after the cut (the\n"
            "disk already dead) is no promise a real cut could have broken: the log's records\n"
            "acknowledged at or after NS are checked as what the run did after the crash (as\n"
            "crashtest does for each state), not as promises; docs/durability.md."},

    {.name = "mpi",
     .arg = ARG_NONE,
     .commands = RUN | CLEAN,
     .misuse = "--mpi is an option of 'run' and 'clean' only",
     .set = set_mpi,
     .section = SEC_RUN,
     .help = "join an MPI job even where no launcher's environment is seen\n"
             "(mpirun -np N fsmix run ...: docs/distributed.md)",
     .man = "Join an MPI job even where no launcher's environment is seen. Under\n"
            ".BR \"mpirun \\-np N fsmix run PROFILE\" ,\n"
            "fsmix joins the job by itself: every rank works in a tree of its own,\n"
            ".IR location /fsmix.fs N .r RANK ,\n"
            "all ranks start and stop together, and rank 0 prints and writes one report of the\n"
            "job (the merged figures, the spread over the ranks, every rank's totals, each\n"
            "host's device counters);\n.B \\-\\-lat\\-log\n.I FILE\n"
            "is written by each rank as\n.IR FILE .r RANK .\n"
            "Without a launcher fsmix is a single process and never starts MPI. See\n"
            "docs/distributed.md."},

    /* Sweeps */
    {.name = "threads",
     .short_name = 'n',
     .arg = ARG_REQUIRED,
     .value = "[G=]LIST",
     .commands = RUN,
     .misuse = sweep_only,
     .is_form = is_list,
     .set = set_thread_list,
     .section = SEC_SWEEP,
     .help = "run once per thread count: 1,2,4  1-64:x2  1-8:+1",
     .man = "Sweep: run once per thread count, e.g. 1,2,4 or 1\\-64:x2 or 1\\-8:+1."},
    {.name = "iodepth",
     .arg = ARG_REQUIRED,
     .value = "[G=]LIST",
     .commands = RUN,
     .misuse = sweep_only,
     .is_form = is_list,
     .set = set_iodepth_list,
     .section = SEC_SWEEP,
     .help = "run once per iodepth (engine=io_uring): 1,8,32  1-64:x2",
     .man = "Sweep: run once per iodepth of every thread group (or of group G), e.g.\n"
            "1\\-64:x2; the groups need engine=io_uring (docs/engines.md)."},
    {.name = "sweep",
     .arg = ARG_REQUIRED,
     .value = "SEC.KEY=LIST",
     .commands = RUN,
     .misuse = sweep_only,
     .set = set_sweep,
     .section = SEC_SWEEP,
     .help = "run once per value of any key, e.g. filesystem0.num_files=1000,2000",
     .man = "Sweep any profile key, e.g.\n.BR \"\\-\\-sweep filesystem0.num_files=1000,2000\" ."},
    {.name = "repeat",
     .arg = ARG_REQUIRED,
     .value = "N|until:PCT[:MAX]",
     .commands = RUN,
     .misuse = sweep_only,
     .set = set_repeat,
     .section = SEC_SWEEP,
     .help = "run every point N times, or until the 95% CI of its mean trans/s is\n"
             "within +-PCT% (at least 3, at most MAX runs, default 20); the table\n"
             "gives mean +- stddev and the CI",
     .man = "Run every point N times, 1 to 1000; or, with\n"
            ".BI until: PCT [: MAX ]\n"
            "(e.g. until:2%:20), until the 95% confidence interval of its mean trans/s\n"
            "(Student's t) is within \\(+-PCT % of the mean, after at least 3 and at most\n"
            "MAX runs (default 20). The summary gives mean, standard deviation and the\n"
            "confidence interval of every figure, and whether the target was reached."},
    {.name = "plot",
     .arg = ARG_REQUIRED,
     .value = "FILE",
     .commands = RUN | COMPARE,
     .set = set_picture,
     .section = SEC_SWEEP,
     .help = "draw the sweep, or a single run over time (needs --interval);\n"
             ".png or .svg, needs gnuplot",
     .man = "Draw the sweep, the comparison, or a single run over time (needs\n"
            ".BR \\-\\-interval )\nwith gnuplot (.png or .svg)."},

    /* Check options */
    {.name = "json",
     .arg = ARG_OPTIONAL,
     .commands = CHECK,
     .misuse = json_misuse,
     .set = set_json,
     .section = SEC_CHECK,
     .help = "print the resolved profile as JSON",
     .man = "Print the resolved profile as JSON (docs/output.md)."},

    /* Crashtest options */
    {.name = "fs",
     .arg = ARG_REQUIRED,
     .value = "ext4|xfs|btrfs",
     .commands = CRASH,
     .set = set_ct_fs,
     .section = SEC_CRASHTEST,
     .help = "the filesystem made on the recorded disk (needed)",
     .man = "The filesystem made on the recorded disk: ext4, xfs or btrfs (needed)."},
    {.name = "size",
     .arg = ARG_REQUIRED,
     .value = "SIZE",
     .commands = CRASH,
     .set = set_ct_size,
     .section = SEC_CRASHTEST,
     .help = "the disk's size, 16M to 64G, e.g. 1G (default: 64M\n"
             "for ext4, 256M for btrfs, 320M for xfs)",
     .man = "The recorded disk's size, 16M to 64G (a number with K, M or G; default 64M\n"
            "for ext4, 256M for btrfs and 320M for xfs, which their mkfs accept)."},
    {.name = "mkfs-options",
     .arg = ARG_REQUIRED,
     .value = "OPTS",
     .commands = CRASH,
     .set = set_ct_mkfs,
     .section = SEC_CRASHTEST,
     .help = "words given to mkfs.FS (split at spaces)",
     .man = "Words given to mkfs.FS, split at spaces."},
    {.name = "mount-options",
     .arg = ARG_REQUIRED,
     .value = "OPTS",
     .commands = CRASH,
     .set = set_ct_mount,
     .section = SEC_CRASHTEST,
     .help = "the filesystem's mount options, e.g. barrier=0\n"
             "(every mount: the run's and each state's)",
     .man = "The filesystem's mount options (mount(2)'s data string, e.g.\n.BR barrier=0 ),\n"
            "for the run's mount and each state's."},
    {.name = "states",
     .arg = ARG_REQUIRED,
     .value = "all|N",
     .commands = CRASH,
     .set = set_ct_states,
     .section = SEC_CRASHTEST,
     .help = "every flush point (default) or N of them, evenly\n"
             "spread (the last among them)",
     .man = "The flush points explored: every one (all, the default) or N of them spread\n"
            "evenly over the record, the last among them."},
    {.name = "reorder",
     .arg = ARG_REQUIRED,
     .value = "K",
     .commands = CRASH,
     .set = set_ct_reorder,
     .section = SEC_CRASHTEST,
     .help = "K random subsets of the cached writes per flush\n"
             "point besides none (seeded by --seed; 0 to 1000,\n"
             "default 0)",
     .man = "Besides none of the writes cached after a flush point, K random subsets of\n"
            "them per flush point (drawn from\n.BR \\-\\-seed ;\n0 to 1000, default 0)."},
    {.name = "state",
     .arg = ARG_REQUIRED,
     .value = "N",
     .commands = CRASH,
     .set = set_ct_state,
     .section = SEC_CRASHTEST,
     .help = "rebuild state N (as numbered by a crashtest) as an\n"
             "image (--image FILE) instead of exploring",
     .man = "Rebuild state N (the number a crashtest reports) as an image file\n"
            "(\n.BR \\-\\-image )\ninstead of exploring; with\n.BR \\-\\-run\\-dir ,\n"
            "the states of that saved run, so the same N gives the same bytes."},
    {.name = "image",
     .arg = ARG_REQUIRED,
     .value = "FILE",
     .commands = CRASH,
     .set = set_ct_image,
     .section = SEC_CRASHTEST,
     .help = "--state N: the new image file (never overwritten)",
     .man = "With\n.BR \\-\\-state :\nthe image file to make (new: never overwritten)."},
    {.name = "keep",
     .arg = ARG_NONE,
     .commands = CRASH,
     .set = set_ct_keep,
     .section = SEC_CRASHTEST,
     .help = "--state N: leave the image mounted (at FILE.mnt)",
     .man = "With\n.BR \\-\\-state :\nleave the image attached to a loop device and mounted\n"
            "at\n.IR FILE .mnt\n(journal replayed) for a human to look at."},
    {.name = "run-dir",
     .arg = ARG_REQUIRED,
     .value = "DIR",
     .commands = CRASH,
     .set = set_ct_run_dir,
     .section = SEC_CRASHTEST,
     .help = "keep the run's record, base image and log in DIR\n"
             "(new); a DIR kept before is replayed, not run again",
     .man = "Keep the run's record, base image and durability log in DIR (made; it must not\n"
            "exist). Given a DIR a crashtest kept, the run is not made again: its states are\n"
            "explored or rebuilt from what DIR holds."},
    {.name = "disk-fault",
     .arg = ARG_REQUIRED,
     .value = "ignore-flush|reorder-across-flush",
     .commands = CRASH,
     .set = set_ct_fault,
     .section = SEC_CRASHTEST,
     .help = "a test aid: states of a disk that ignores\n"
             "flushes, or persists writes after a flush and\n"
             "loses those it acknowledged",
     .man = "A test aid: explore the states of a broken disk.\n.B ignore-flush\n"
            "acknowledges flushes and keeps only what it wrote back 1 s after it arrived;\n"
            ".B reorder-across-flush\n"
            "keeps the writes after flush K and loses those flush K acknowledged\n"
            "(docs/durability.md)."},

    /* Compare options */
    {.name = "force",
     .arg = ARG_NONE,
     .commands = COMPARE,
     .set = set_force,
     .section = SEC_COMPARE,
     .help = "compare results of different profiles",
     .man = "Compare results of different profiles."},

    /* Plot options */
    {.name = "output",
     .short_name = 'o',
     .arg = ARG_REQUIRED,
     .value = "FILE",
     .commands = PLOT,
     .set = set_picture,
     .section = SEC_PLOT,
     .help = "the picture to write: its name ends in .png or .svg",
     .man = "The picture to write: its name ends in .png or .svg."},
    {.name = "lat-log",
     .arg = ARG_REQUIRED,
     .value = "LOG",
     .commands = PLOT,
     .misuse = "--lat-log is an option of 'run' only",
     .set = set_lat_log,
     .section = SEC_PLOT,
     .help = "draw a latency log of run --lat-log instead of a result",
     .man = "Draw a latency log written by\n.BR \"run \\-\\-lat\\-log\" ;\n"
            "see COMPARE AND PLOT."},

    /* Keys options */
    {.name = "markdown",
     .arg = ARG_NONE,
     .commands = KEYS,
     .set = set_markdown,
     .section = SEC_KEYS,
     .help = "the reference as Markdown (docs/profile.md)",
     .man = "Print the reference as Markdown: the generated part of docs/profile.md."},

    /* Help */
    {.name = "help",
     .short_name = 'h',
     .arg = ARG_NONE,
     .commands = ANY,
     .set = set_help,
     .section = SEC_GENERAL,
     .help = "print this help and exit",
     .man = "Print the usage, every option and the exit statuses, and exit."},
    {.name = "version",
     .short_name = 'V',
     .arg = ARG_NONE,
     .commands = ANY,
     .set = set_version,
     .section = SEC_GENERAL,
     .help = "print fsmix's version and exit",
     .man = "Print fsmix's version and exit."},
    {.name = "help-man",
     .arg = ARG_NONE,
     .commands = ANY,
     .set = set_help_man,
     .section = SEC_HIDDEN,
     .help = "",
     .man = ""},
};

const size_t n_option_rows = sizeof(option_rows) / sizeof(option_rows[0]);

const char *const section_help_heading[N_SECTIONS] = {
    [SEC_OVERRIDES] = "Profile overrides (run and check; each is validated like the profile):",
    [SEC_RUN] = "Run options:",
    [SEC_SWEEP] = "Sweeps (run):",
    [SEC_CHECK] = "Check options:",
    [SEC_COMPARE] = "Compare options:",
    [SEC_PLOT] = "Plot options:",
    [SEC_KEYS] = "Keys options:",
    [SEC_CRASHTEST] = "Crashtest options (also --time, --set, --seed, --json, --model):",
    [SEC_GENERAL] = "Help:",
};

const char *const section_man_heading[N_SECTIONS] = {
    [SEC_OVERRIDES] = "Profile overrides",
    [SEC_RUN] = "Run options",
    [SEC_SWEEP] = "Sweeps",
    [SEC_CHECK] = "Check options",
    [SEC_COMPARE] = "Compare options",
    [SEC_PLOT] = "Plot options",
    [SEC_KEYS] = "Keys options",
    [SEC_CRASHTEST] = "Crashtest options",
    [SEC_GENERAL] = "Help",
};
