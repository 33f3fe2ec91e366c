/*
 * disk.c — I/O errors and a full disk: `orcore_faults disk` and `fsize`.
 *
 *   orcore_faults disk --shim LIB [--points P] [--commits N] [--seed S]
 *                      [--durability full|no-meta-sync|both] [--log kept|lean|none|all]
 *                      [--self-test report-early]
 *   orcore_faults fsize [--points P] [--commits N] [--seed S] [--durability ...] [--log ...]
 *
 * disk: a dry run of the writer under the shim counts the operations (writes
 * and syncs of the realm file) of opening a new file and committing N
 * transactions. Then P runs, each on a new file, make one operation fail —
 * spread over 1...ops, so faults fall in the open, in data-page writes, in
 * the fdatasync before the meta page, in the meta write itself. Runs
 * alternate EIO and ENOSPC, a fault that strikes once (a transient error:
 * later operations succeed) and one that stays (a full disk: every later
 * operation fails), and the two durability modes; and the log modes in turn
 * (--log all: kept, ORC_ENV_LEAN_LOG, ORC_ENV_NO_LOG, which empties the log a
 * file already has at its first commit).
 *
 * fsize: no shim; the writer sets RLIMIT_FSIZE a little above the file's size
 * after the open, P limits spread from 0 to what N transactions need, so the
 * kernel itself refuses the writes that would grow the file (EFBIG, or a short
 * write that LMDB reports as EIO).
 *
 * Every run must: end the writer normally (no crash, abort or hang; exit 0),
 * report every failure with a status and a message, report a failure when the
 * fault fired, never show the writer a partial state, and leave a file that —
 * opened again without the fault — passes fx_check_file: whole, orc_env_check
 * clean, every reported commit there with its digest, nothing past the last
 * transaction begun, and one more transaction works.
 *
 * --self-test report-early runs the writer that reports a commit before making
 * it; the run passes only if the checks catch a lost commit.
 */
#include "faults.h"
#include "faultfs.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct tally {
    size_t runs, fired, open_failures, commit_failures, env_refusals, reopens, reopen_failures;
    size_t appeared;         /* the failed transaction was there after all (a failure after the commit point) */
    size_t commits_verified; /* reported commits found in the checked files */
    size_t by_errno[4];      /* EIO, ENOSPC, EFBIG, other */
    size_t findings;
    size_t lost;             /* findings that were lost commits (what the self-test wants) */
} tally;

/* One writer run and its checks. `label` names the fault for messages. */
static void one_run(tally *t, const char *shim, char *const env[], char *const args[], const char *path,
                    unsigned flags, long fault_at, const char *label)
{
    fx_child c;
    char buf[128], why[1024];
    t->runs++;
    if (fx_run_writer(shim, env, args, 120, &c) != 0) {
        fx_finding(&t->findings, "%s: the writer could not be started: %s", label, strerror(errno));
        return;
    }
    if (c.timed_out || !WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0) {
        fx_finding(&t->findings, "%s: the writer %s; its last output: %.300s", label, fx_child_describe(&c, buf, sizeof buf),
                c.len > 300 ? c.out + c.len - 300 : c.out);
        fx_child_free(&c);
        return;
    }
    fx_report r;
    if (!fx_report_parse(c.out, c.len, &r) || !r.ended) {
        fx_finding(&t->findings, "%s: bad report: %s", label, r.ended ? r.problem : "no 'end' line");
        fx_report_free(&r);
        fx_child_free(&c);
        return;
    }
    fx_child_free(&c);
    bool fired = fault_at > 0 && r.ops >= fault_at;
    if (fired) t->fired++;
    if (r.open_failed) {
        t->open_failures++;
    }
    if (r.failures) {
        t->commit_failures += r.failures;
        for (int k = 0; k < 4; k++) t->by_errno[k] += r.fail_by_errno[k];
        if (strcmp(r.first_fail, "(no message)") == 0)
            fx_finding(&t->findings, "%s: a failed commit left no message (status %s)", label, fx_status_name(r.first_fail_rc));
    }
    t->env_refusals += r.env_failures;
    /* The file is intact (the check below proves it): calling it damaged would invite deleting it. */
    if (r.env_failures && (r.env_fail_rc == ORC_ERR_CORRUPT || r.env_fail_rc == ORC_ERR_NOT_A_REALM))
        fx_finding(&t->findings, "%s: after the failed write the environment called the file damaged (%s): %s", label,
                fx_status_name(r.env_fail_rc), r.env_fail);
    t->reopens += r.reopens;
    t->reopen_failures += r.reopen_failures;
    if (fired && !r.open_failed && r.failures == 0)
        fx_finding(&t->findings, "%s: the fault fired (operation %ld of %ld) but no call reported a failure", label, fault_at, r.ops);
    if (r.partial_states) fx_finding(&t->findings, "%s: after a failed commit the writer saw a partial state", label);
    uint64_t seq;
    if (!fx_check_file(path, flags, &r, r.last_done, r.last_begun, &seq, why, sizeof why)) {
        fx_finding(&t->findings, "%s: %s", label, why);
        if (strncmp(why, "lost", 4) == 0) t->lost++;
    } else {
        t->commits_verified += r.last_done;
        if (seq > r.last_done) t->appeared++;
    }
    fx_report_free(&r);
}

static unsigned durability_flags(int argc, char **argv, size_t run)
{
    const char *d = fx_opt(argc, argv, "durability", "both");
    unsigned flags;
    if (!fx_durability_flags(d, run / 4, &flags)) {
        fprintf(stderr, "orcore_faults: --durability is full, no-meta-sync or both, not '%s'\n", d);
        exit(2);
    }
    return flags;
}

/* The log flags of run `run` (--log, default all: the three in turn). */
static unsigned log_flags(int argc, char **argv, size_t run)
{
    const char *m = fx_opt(argc, argv, "log", "all");
    unsigned flags;
    if (!fx_log_flags(m, run, &flags)) {
        fprintf(stderr, "orcore_faults: --log is kept, lean, none or all, not '%s'\n", m);
        exit(2);
    }
    return flags;
}

static void print_tally(const char *what, const tally *t, double secs)
{
    printf("%s: %zu runs, %zu faults fired; %zu open failures, %zu commit failures "
           "(EIO %zu, ENOSPC %zu, EFBIG %zu, other %zu); %zu environments refused reads after a failure "
           "(%zu reopened, %zu reopen failures); %zu failed commits were there after all; "
           "%zu reported commits verified; %zu findings; %.1f s\n",
           what, t->runs, t->fired, t->open_failures, t->commit_failures, t->by_errno[0], t->by_errno[1],
           t->by_errno[2], t->by_errno[3], t->env_refusals, t->reopens, t->reopen_failures, t->appeared,
           t->commits_verified, t->findings, secs);
}

int fx_disk_main(int argc, char **argv)
{
    const char *shim = fx_opt_required(argc, argv, "disk", "shim", "LIB (the faultfs library)");
    uint64_t points = fx_opt_u64(argc, argv, "points", 24);
    uint64_t commits = fx_opt_u64(argc, argv, "commits", 12);
    uint64_t seed = fx_opt_u64(argc, argv, "seed", 1);
    bool report_early = fx_self_test(argc, argv, "disk", "report-early");
    double t0 = fx_now();
    char *dir = fx_make_dir(argc, argv, "orc-disk");
    char path[4096], seedbuf[32], commitsbuf[32], fenv[4200], atenv[64], errenv[64], stenv[64];
    snprintf(seedbuf, sizeof seedbuf, "%llu", (unsigned long long)seed);
    snprintf(commitsbuf, sizeof commitsbuf, "%llu", (unsigned long long)commits);

    /* The dry run: how many operations, and the shim must see them. */
    snprintf(path, sizeof path, "%s/dry.realm", dir);
    snprintf(fenv, sizeof fenv, FAULTFS_ENV_FILE "=%s", path);
    char *dry_env[] = {fenv, NULL};
    char *dry_args[] = {path, "--seed", seedbuf, "--commits", commitsbuf, NULL};
    fx_child c;
    fx_report r;
    char buf[128];
    if (fx_run_writer(shim, dry_env, dry_args, 120, &c) != 0 || !WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0 ||
        !fx_report_parse(c.out, c.len, &r) || r.last_done != commits || r.ops <= 0) {
        fprintf(stderr, "orcore_faults disk: the dry run failed (%s): %.400s\n", fx_child_describe(&c, buf, sizeof buf),
                c.out ? c.out : "");
        return 1;
    }
    long total_ops = r.ops;
    fx_report_free(&r);
    fx_child_free(&c);
    printf("disk: a new file and %llu transactions make %ld writes and syncs of the file\n",
           (unsigned long long)commits, total_ops);

    tally t = {0};
    uint64_t rng = seed * 0x9E3779B97F4A7C15ULL + 7;
    for (uint64_t i = 0; i < points; i++) {
        /* Spread the points over 1...ops: a random one inside each of `points` equal strides. */
        long lo = 1 + (long)((double)i * total_ops / points), hi = (long)((double)(i + 1) * total_ops / points);
        if (hi < lo) hi = lo;
        long at = lo + (long)(fw_rand(&rng) % (uint64_t)(hi - lo + 1));
        int err = i % 2 ? ENOSPC : EIO;
        bool sticky = (i / 2) % 2 == 1;
        unsigned flags = durability_flags(argc, argv, (size_t)i), logf = log_flags(argc, argv, (size_t)i / 8);
        snprintf(path, sizeof path, "%s/run%llu.realm", dir, (unsigned long long)i);
        snprintf(fenv, sizeof fenv, FAULTFS_ENV_FILE "=%s", path);
        snprintf(atenv, sizeof atenv, FAULTFS_ENV_FAIL_AT "=%ld", at);
        snprintf(errenv, sizeof errenv, FAULTFS_ENV_FAIL_ERRNO "=%d", err);
        snprintf(stenv, sizeof stenv, FAULTFS_ENV_STICKY "=%d", sticky ? 1 : 0);
        char *env[] = {fenv, atenv, errenv, stenv, NULL};
        char *args[12] = {path, "--seed", seedbuf, "--commits", commitsbuf};
        int n = 5;
        if (flags & ORC_ENV_NO_META_SYNC) args[n++] = "--no-meta-sync";
        if (fx_log_arg(logf)) args[n++] = (char *)fx_log_arg(logf);
        if (report_early) args[n++] = "--report-early";
        args[n] = NULL;
        char label[160];
        snprintf(label, sizeof label, "operation %ld of %ld fails with %s%s (%s, %s)", at, total_ops,
                 err == EIO ? "EIO" : "ENOSPC", sticky ? " and every later one too" : " once",
                 flags ? "no-meta-sync" : "full durability", fx_log_name(logf));
        one_run(&t, shim, env, args, path, flags, at, label);
        orc_env_delete_files(path);
    }
    print_tally("disk", &t, fx_now() - t0);
    remove_tree(dir);
    free(dir);
    if (report_early) {
        printf("self-test report-early: %zu lost commits caught (at least one needed)\n", t.lost);
        return t.lost > 0 ? 0 : 1;
    }
    return t.findings ? 1 : 0;
}

int fx_fsize_main(int argc, char **argv)
{
    uint64_t points = fx_opt_u64(argc, argv, "points", 12);
    uint64_t commits = fx_opt_u64(argc, argv, "commits", 30);
    uint64_t seed = fx_opt_u64(argc, argv, "seed", 1);
    double t0 = fx_now();
    char *dir = fx_make_dir(argc, argv, "orc-fsize");
    char path[4096], seedbuf[32], commitsbuf[32], extrabuf[32], buf[128];
    snprintf(seedbuf, sizeof seedbuf, "%llu", (unsigned long long)seed);
    snprintf(commitsbuf, sizeof commitsbuf, "%llu", (unsigned long long)commits);

    /* The dry run: how large the file grows without a limit. */
    snprintf(path, sizeof path, "%s/dry.realm", dir);
    char *dry_args[] = {path, "--seed", seedbuf, "--commits", commitsbuf, NULL};
    fx_child c;
    fx_report r;
    struct stat st;
    if (fx_run_writer(NULL, NULL, dry_args, 120, &c) != 0 || !WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0 ||
        !fx_report_parse(c.out, c.len, &r) || r.last_done != commits || stat(path, &st) != 0) {
        fprintf(stderr, "orcore_faults fsize: the dry run failed (%s): %.400s\n", fx_child_describe(&c, buf, sizeof buf),
                c.out ? c.out : "");
        return 1;
    }
    fx_report_free(&r);
    fx_child_free(&c);
    uint64_t grown = (uint64_t)st.st_size;
    printf("fsize: a new file grows to %llu bytes over %llu transactions\n", (unsigned long long)grown,
           (unsigned long long)commits);

    tally t = {0};
    uint64_t rng = seed * 0x9E3779B97F4A7C15ULL + 11;
    for (uint64_t i = 0; i < points; i++) {
        uint64_t extra = (uint64_t)((double)i * grown / points) + fw_rand(&rng) % 4096;
        unsigned flags = durability_flags(argc, argv, (size_t)i * 4), logf = log_flags(argc, argv, (size_t)i / 2);
        snprintf(path, sizeof path, "%s/run%llu.realm", dir, (unsigned long long)i);
        snprintf(extrabuf, sizeof extrabuf, "%llu", (unsigned long long)extra);
        char *args[12] = {path, "--seed", seedbuf, "--commits", commitsbuf, "--fsize-extra", extrabuf};
        int n = 7;
        if (flags & ORC_ENV_NO_META_SYNC) args[n++] = "--no-meta-sync";
        if (fx_log_arg(logf)) args[n++] = (char *)fx_log_arg(logf);
        args[n] = NULL;
        char label[160];
        snprintf(label, sizeof label, "RLIMIT_FSIZE %llu bytes above the opened file (%s, %s)", (unsigned long long)extra,
                 flags ? "no-meta-sync" : "full durability", fx_log_name(logf));
        size_t before = t.commit_failures;
        one_run(&t, NULL, NULL, args, path, flags, 0, label);
        if (t.commit_failures > before) t.fired++;
        orc_env_delete_files(path);
    }
    print_tally("fsize", &t, fx_now() - t0);
    remove_tree(dir);
    free(dir);
    if (t.fired == 0) {
        fprintf(stderr, "orcore_faults fsize: no limit made a commit fail; the test injected nothing\n");
        return 1;
    }
    return t.findings ? 1 : 0;
}
