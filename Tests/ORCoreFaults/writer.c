/*
 * writer.c — the writer child of every fault test (`orcore_faults writer`).
 *
 *   orcore_faults writer PATH --seed S --commits N [--no-meta-sync]
 *                        [--fsize-extra BYTES] [--max-failures K] [--report-early]
 *
 * Opens PATH, then commits transactions 1...N of the workload (workload.h),
 * continuing from what the file holds, and reports every step on stdout
 * (faults.h lists the lines). Under the fault shim it also puts marks in the
 * shim's journal: OPENED after the open, BEGIN just before orc_txn_commit,
 * DONE after it returned ORC_OK.
 *
 * When a commit fails the writer checks what the failure left: its own
 * environment must either still read a whole state (the failed transaction
 * absent, or — when the failure came after the commit point — present in
 * full) or refuse the read with a status; then the environment is closed and
 * opened again. It gives up after K failures (default 3). It exits 0 whenever
 * it got to the end of this plan, whatever failed on the way: a crash, an
 * abort or a hang is what the parent treats as a failure of ORCore.
 *
 * --fsize-extra sets RLIMIT_FSIZE to the file's size after the open plus
 * BYTES, with SIGXFSZ ignored: writes past it fail with EFBIG (a short write
 * where one crosses it), as on a full disk, without any shim.
 *
 * --report-early reports `commit` before calling orc_txn_commit instead of
 * after: a deliberately wrong writer, for the self-test that shows the checks
 * catch a commit reported but not durable.
 */
#include "faults.h"
#include "faultfs.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static faultfs_mark_fn mark;
static bool report_early;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[700];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
    /* One line, no newline inside a message. */
    for (int i = 0; i < n; i++)
        if (line[i] == '\n') line[i] = ' ';
    line[n++] = '\n';
    for (int off = 0; off < n;) {
        ssize_t w = write(1, line + off, (size_t)(n - off));
        if (w <= 0) _exit(3);
        off += (int)w;
    }
}

static void before_commit(uint64_t seq, uint64_t digest, void *ctx)
{
    (void)ctx;
    say("begin %llu %llu", (unsigned long long)seq, (unsigned long long)digest);
    if (mark) mark(FAULTFS_MARK_BEGIN, seq, digest);
    if (report_early) say("commit %llu", (unsigned long long)seq);
}

static int open_env(const char *path, unsigned flags, orc_env **env)
{
    int rc = orc_env_open(path, flags, NULL, env);
    if (rc) return rc;
    if (mark) mark(FAULTFS_MARK_OPENED, 0, 0);
    return ORC_OK;
}

int fx_writer_main(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: orcore_faults writer PATH --seed S --commits N [...]\n");
        return 2;
    }
    const char *path = argv[1];
    uint64_t rng = fx_opt_u64(argc, argv, "seed", 1) * 0x9E3779B97F4A7C15ULL + 1;
    uint64_t commits = fx_opt_u64(argc, argv, "commits", 20);
    uint64_t max_failures = fx_opt_u64(argc, argv, "max-failures", 3);
    uint64_t fsize_extra = fx_opt_u64(argc, argv, "fsize-extra", 0);
    bool fsize = fx_opt(argc, argv, "fsize-extra", NULL) != NULL;
    report_early = fx_flag(argc, argv, "report-early");
    unsigned flags = fx_flag(argc, argv, "no-meta-sync") ? ORC_ENV_NO_META_SYNC : 0;
    if (fx_flag(argc, argv, "no-log")) flags |= ORC_ENV_NO_LOG;
    if (fx_flag(argc, argv, "lean-log")) flags |= ORC_ENV_LEAN_LOG;
    mark = (faultfs_mark_fn)dlsym(RTLD_DEFAULT, "faultfs_mark");
    faultfs_ops_fn ops = (faultfs_ops_fn)dlsym(RTLD_DEFAULT, "faultfs_ops");

    orc_env *env;
    int rc = open_env(path, flags, &env);
    if (rc) {
        say("open-fail %d %s", rc, orc_last_error());
        say("ops %ld", ops ? ops() : 0L);
        say("end");
        return 0;
    }
    say("opened");
    if (fsize) {
        struct stat st;
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {0, 0};
        getrlimit(RLIMIT_FSIZE, &rl);
        rlim_t lim = stat(path, &st) == 0 ? (rlim_t)st.st_size + (rlim_t)fsize_extra : (rlim_t)fsize_extra;
        if (rl.rlim_max != RLIM_INFINITY && lim > rl.rlim_max) lim = rl.rlim_max;
        rl.rlim_cur = lim;
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) {
            fprintf(stderr, "orcore_faults writer: setrlimit(RLIMIT_FSIZE) failed\n");
            return 2;
        }
    }

    fw_state st;
    char why[512];
    if ((rc = fw_read_state(env, &st, why, sizeof why)) || !st.whole) {
        fprintf(stderr, "orcore_faults writer: the file it starts from is not whole: %s\n", why);
        return 2;
    }
    uint64_t failures = 0;
    while (env && st.seq < commits) {
        uint64_t seq = st.seq + 1, digest = 0;
        rc = fw_commit(env, &rng, seq, &digest, before_commit, NULL);
        if (rc == ORC_OK) {
            if (mark) mark(FAULTFS_MARK_DONE, seq, 0);
            if (!report_early) say("commit %llu", (unsigned long long)seq);
            st.seq = seq;
            continue;
        }
        const char *msg = orc_last_error();
        say("fail %llu %d %s", (unsigned long long)seq, rc, *msg ? msg : "(no message)");
        if (++failures > max_failures) break;
        /*
         * What did the failure leave in this environment? A whole state, and
         * then the writer goes on with the same environment, or a refusal,
         * and then it is closed and opened again.
         */
        rc = fw_read_state(env, &st, why, sizeof why);
        if (rc == ORC_OK) {
            say("state %llu %d", (unsigned long long)st.seq, st.whole ? 1 : 0);
            if (!st.whole) break;
            continue;
        }
        say("env-fail %d %s", rc, why);
        orc_env_close(env);
        env = NULL;
        rc = open_env(path, flags, &env);
        if (rc) {
            say("reopen-fail %d %s", rc, orc_last_error());
            env = NULL;
            break;
        }
        say("reopened");
        rc = fw_read_state(env, &st, why, sizeof why);
        if (rc) {
            say("env-fail %d %s", rc, why);
            break;
        }
        say("state %llu %d", (unsigned long long)st.seq, st.whole ? 1 : 0);
        if (!st.whole) break;
    }
    if (env) orc_env_close(env);
    say("ops %ld", ops ? ops() : 0L);
    say("end");
    return 0;
}
