/*
 * faults.h — what the parts of orcore_faults share: the writer child and how
 * it is started, the writer's report, and the check of a file against it.
 *
 * The writer (writer.c) runs in a child process, started by exec of this same
 * program (so LD_PRELOAD can put the fault shim in front of libc), and writes
 * one line per event to its stdout, a pipe the parent reads:
 *
 *   opened                      orc_env_open returned ORC_OK
 *   open-fail <rc> <message>    it failed (the writer then ends)
 *   begin <seq> <digest>        orc_txn_commit of transaction seq is called next
 *   commit <seq>                it returned ORC_OK
 *   fail <seq> <rc> <message>   it (or a call before it) failed
 *   state <seq> <whole>         after a failure, what this environment still reads
 *   env-fail <rc> <message>     the environment refused that read: it is closed and reopened
 *   reopened | reopen-fail <rc> <message>
 *   ops <n>                     operations the shim counted (writes and syncs of the file)
 *   end                         the writer is done and exits 0
 */
#ifndef ORC_FAULTS_H
#define ORC_FAULTS_H

#include "orcore.h"
#include "remove_tree.h"
#include "workload.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FX_MAX_SEQ 100000

/** Entry points of the subcommands (argv[0] is the subcommand). */
int fx_writer_main(int argc, char **argv);
int fx_disk_main(int argc, char **argv);
int fx_fsize_main(int argc, char **argv);
int fx_power_main(int argc, char **argv);

/* ---- options ---- */

/** The value of `--name` in argv, or `fallback`. */
const char *fx_opt(int argc, char **argv, const char *name, const char *fallback);
/** Whether the flag `--name` is in argv. */
bool fx_flag(int argc, char **argv, const char *name);
/** A number option; exits with a message naming the option when it is not a number. */
uint64_t fx_opt_u64(int argc, char **argv, const char *name, uint64_t fallback);
/** The value of `--name`, which the `mode` run needs: exits with "--name WHAT is required" when it is absent. */
const char *fx_opt_required(int argc, char **argv, const char *mode, const char *name, const char *what);
/** Whether `--self-test` is `wanted`; exits with a message naming `wanted` when it is something else. */
bool fx_self_test(int argc, char **argv, const char *mode, const char *wanted);

/** A fresh empty directory for a run (under --directory or TMPDIR); removed by remove_tree. */
char *fx_make_dir(int argc, char **argv, const char *prefix);

/** The environment flags of `--durability` `mode` (full, no-meta-sync, or both: the two
 *  alternating with `turn`); false for another mode. */
bool fx_durability_flags(const char *mode, uint64_t turn, unsigned *flags);
/** The log flags of `--log` `mode` (kept: none; lean: ORC_ENV_LEAN_LOG; none: ORC_ENV_NO_LOG;
 *  all: the three in turn with `turn`); false for another mode. */
bool fx_log_flags(const char *mode, uint64_t turn, unsigned *flags);
/** The writer's argument for log flags (NULL for a kept log). */
const char *fx_log_arg(unsigned flags);
/** What the log flags are called in a run's label. */
const char *fx_log_name(unsigned flags);

/** Seconds on the monotonic clock. */
double fx_now(void);
/** Counts a finding in `*count` and prints the first five to stderr. */
void fx_finding(size_t *count, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- the writer child ---- */

/** What a writer child printed and how it ended. */
typedef struct fx_child {
    char *out;
    size_t len;
    int status;      /**< from waitpid */
    bool timed_out;  /**< killed after the deadline */
} fx_child;

/**
 * Runs `orcore_faults writer <args...>` in a child with `env` (NULL-terminated
 * "NAME=value" strings) added to its environment and, when `shim` is not
 * NULL, LD_PRELOAD set to it; collects its stdout. Returns 0, or -1 when the
 * child could not be started (errno set).
 */
int fx_run_writer(const char *shim, char *const env[], char *const args[], double timeout_s, fx_child *out);
void fx_child_free(fx_child *c);
/** "exited 0", "exited 3", "killed by signal 6 (Aborted)", "timed out". */
const char *fx_child_describe(const fx_child *c, char *buf, size_t n);

/** The writer's report, parsed. */
typedef struct fx_report {
    bool opened, open_failed;
    int open_rc;
    uint64_t last_done;       /**< highest seq reported by `commit` (0: none) */
    uint64_t last_begun;      /**< highest seq reported by `begin` */
    uint64_t *digest;         /**< digest[seq]: the digest of seq's last `begin` */
    size_t failures;          /**< `fail` lines */
    size_t fail_by_errno[4];  /**< of which with EIO, ENOSPC, EFBIG, another status */
    size_t env_failures;      /**< `env-fail` lines */
    int env_fail_rc;          /**< the first `env-fail` line's status */
    char env_fail[256];       /**< and its message */
    size_t reopens, reopen_failures;
    size_t partial_states;    /**< `state` lines with whole 0: a failed commit left a partial state in view */
    long ops;
    bool ended;
    int first_fail_rc;
    char first_fail[256];     /**< the first `fail` line's message */
    char problem[512];        /**< a malformed report, or a fail line without a message */
} fx_report;

/** Parses a writer's output. Returns false (reason in r->problem) on a malformed line. */
bool fx_report_parse(const char *out, size_t len, fx_report *r);
void fx_report_free(fx_report *r);

/**
 * The check every fault test ends with, on a file no fault touches any more:
 * it opens with ORC_ENV_VERIFY, orc_env_check passes, it is whole, it holds
 * at least `must_hold` transactions and at most `may_hold`, each Commit k <=
 * its seq carries the digest the writer reported for k, and it takes one more
 * transaction after which orc_env_check passes again. Returns true when all
 * hold; otherwise false with the reason in `why`. `seq_out` receives the seq
 * found (may be NULL).
 */
bool fx_check_file(const char *path, unsigned open_flags, const fx_report *r, uint64_t must_hold, uint64_t may_hold,
                   uint64_t *seq_out, char *why, size_t why_size);

/** Names an ORCore status for messages. */
const char *fx_status_name(int rc);

#endif
