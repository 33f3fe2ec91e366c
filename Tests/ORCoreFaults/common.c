/* common.c — options, run directories, the writer child, its report and the final file check (faults.h). */
#include "faults.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- options ---- */

const char *fx_opt(int argc, char **argv, const char *name, const char *fallback)
{
    for (int i = 1; i + 1 < argc; i++)
        if (argv[i][0] == '-' && argv[i][1] == '-' && strcmp(argv[i] + 2, name) == 0) return argv[i + 1];
    return fallback;
}

bool fx_flag(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-' && argv[i][1] == '-' && strcmp(argv[i] + 2, name) == 0) return true;
    return false;
}

uint64_t fx_opt_u64(int argc, char **argv, const char *name, uint64_t fallback)
{
    const char *s = fx_opt(argc, argv, name, NULL);
    if (!s) return fallback;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || *s == '-') {
        fprintf(stderr, "orcore_faults: --%s needs a non-negative number, not '%s'\n", name, s);
        exit(2);
    }
    return v;
}

const char *fx_opt_required(int argc, char **argv, const char *mode, const char *name, const char *what)
{
    const char *s = fx_opt(argc, argv, name, NULL);
    if (!s) {
        fprintf(stderr, "orcore_faults %s: --%s %s is required\n", mode, name, what);
        exit(2);
    }
    return s;
}

bool fx_self_test(int argc, char **argv, const char *mode, const char *wanted)
{
    const char *s = fx_opt(argc, argv, "self-test", NULL);
    if (s && strcmp(s, wanted) != 0) {
        fprintf(stderr, "orcore_faults %s: --self-test takes %s\n", mode, wanted);
        exit(2);
    }
    return s != NULL;
}

char *fx_make_dir(int argc, char **argv, const char *prefix)
{
    const char *base = fx_opt(argc, argv, "directory", getenv("TMPDIR"));
    if (!base || !*base) base = "/tmp";
    char *dir = malloc(strlen(base) + strlen(prefix) + 16);
    if (!dir) abort();
    sprintf(dir, "%s/%s-XXXXXX", base, prefix);
    if (!mkdtemp(dir)) {
        fprintf(stderr, "orcore_faults: cannot create a directory under '%s': %s\n", base, strerror(errno));
        exit(2);
    }
    return dir;
}

/* ---- the writer child ---- */

bool fx_durability_flags(const char *mode, uint64_t turn, unsigned *flags)
{
    if (strcmp(mode, "full") == 0) *flags = 0;
    else if (strcmp(mode, "no-meta-sync") == 0) *flags = ORC_ENV_NO_META_SYNC;
    else if (strcmp(mode, "both") == 0) *flags = turn % 2 ? ORC_ENV_NO_META_SYNC : 0;
    else return false;
    return true;
}

bool fx_log_flags(const char *mode, uint64_t turn, unsigned *flags)
{
    static const unsigned turns[3] = {0, ORC_ENV_LEAN_LOG, ORC_ENV_NO_LOG};
    if (strcmp(mode, "kept") == 0) *flags = 0;
    else if (strcmp(mode, "lean") == 0) *flags = ORC_ENV_LEAN_LOG;
    else if (strcmp(mode, "none") == 0) *flags = ORC_ENV_NO_LOG;
    else if (strcmp(mode, "all") == 0) *flags = turns[turn % 3];
    else return false;
    return true;
}

const char *fx_log_arg(unsigned flags)
{
    return flags & ORC_ENV_NO_LOG ? "--no-log" : flags & ORC_ENV_LEAN_LOG ? "--lean-log" : NULL;
}

const char *fx_log_name(unsigned flags)
{
    return flags & ORC_ENV_NO_LOG ? "no log" : flags & ORC_ENV_LEAN_LOG ? "lean log" : "log kept";
}

double fx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void fx_finding(size_t *count, const char *fmt, ...)
{
    if (++*count > 5) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("  finding: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int fx_run_writer(const char *shim, char *const env[], char *const args[], double timeout_s, fx_child *out)
{
    memset(out, 0, sizeof *out);
    char *argv[64];
    size_t n = 0;
    argv[n++] = "orcore_faults";
    argv[n++] = "writer";
    for (size_t i = 0; args[i] && n < 63; i++) argv[n++] = args[i];
    argv[n] = NULL;

    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(p[1], 1);
        for (size_t i = 0; env && env[i]; i++) putenv(env[i]);
        /* An AddressSanitizer build (ORC_SANITIZE) must accept the shim loaded before its runtime. */
        if (shim) setenv("ASAN_OPTIONS", "verify_asan_link_order=0", 0);
        if (shim) setenv("LD_PRELOAD", shim, 1);
        else unsetenv("LD_PRELOAD");
        execv("/proc/self/exe", argv);
        dprintf(2, "orcore_faults: exec of the writer failed: %s\n", strerror(errno));
        _exit(127);
    }
    close(p[1]);
    size_t cap = 4096;
    out->out = malloc(cap);
    if (!out->out) abort();
    double deadline = fx_now() + timeout_s;
    for (;;) {
        int left_ms = (int)((deadline - fx_now()) * 1000);
        if (left_ms <= 0) {
            kill(pid, SIGKILL);
            out->timed_out = true;
            break;
        }
        struct pollfd pf = {p[0], POLLIN, 0};
        int pr = poll(&pf, 1, left_ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue;
        if (out->len + 1024 > cap) {
            cap *= 2;
            out->out = realloc(out->out, cap);
            if (!out->out) abort();
        }
        ssize_t r = read(p[0], out->out + out->len, cap - out->len - 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        out->len += (size_t)r;
    }
    out->out[out->len] = 0;
    close(p[0]);
    while (waitpid(pid, &out->status, 0) < 0 && errno == EINTR) {
    }
    return 0;
}

void fx_child_free(fx_child *c)
{
    free(c->out);
    c->out = NULL;
}

const char *fx_child_describe(const fx_child *c, char *buf, size_t n)
{
    if (c->timed_out) snprintf(buf, n, "timed out");
    else if (WIFEXITED(c->status)) snprintf(buf, n, "exited %d", WEXITSTATUS(c->status));
    else if (WIFSIGNALED(c->status))
        snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(c->status), strsignal(WTERMSIG(c->status)));
    else snprintf(buf, n, "ended with status %d", c->status);
    return buf;
}

/* ---- the report ---- */

static bool report_bad(fx_report *r, const char *line, size_t n, const char *what)
{
    snprintf(r->problem, sizeof r->problem, "%s: '%.*s'", what, (int)(n > 200 ? 200 : n), line);
    return false;
}

bool fx_report_parse(const char *out, size_t len, fx_report *r)
{
    memset(r, 0, sizeof *r);
    r->digest = calloc(FX_MAX_SEQ + 2, sizeof *r->digest);
    if (!r->digest) abort();
    const char *p = out, *end = out + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char line[600];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        unsigned long long a, b;
        int rc, off = 0;
        if (!nl) return report_bad(r, p, n, "the report ends inside a line");
        if (strcmp(line, "opened") == 0) {
            r->opened = true;
        } else if (sscanf(line, "open-fail %d %n", &rc, &off) == 1 && off > 0) {
            r->open_failed = true;
            r->open_rc = rc;
            if (!line[off]) return report_bad(r, p, n, "an open failure without a message");
        } else if (sscanf(line, "begin %llu %llu", &a, &b) == 2) {
            if (a == 0 || a > FX_MAX_SEQ) return report_bad(r, p, n, "a seq out of range");
            r->digest[a] = b;
            if (a > r->last_begun) r->last_begun = a;
        } else if (sscanf(line, "commit %llu", &a) == 1) {
            /* The same seq again only from --report-early, which reports before committing and retries. */
            if (a > r->last_begun || a < r->last_done) return report_bad(r, p, n, "a commit out of order");
            r->last_done = a;
        } else if (sscanf(line, "fail %llu %d %n", &a, &rc, &off) == 2 && off > 0) {
            if (!line[off] || rc == ORC_OK) return report_bad(r, p, n, "a failure without a status and a message");
            r->fail_by_errno[rc == EIO ? 0 : rc == ENOSPC ? 1 : rc == EFBIG ? 2 : 3]++;
            if (r->failures++ == 0) {
                r->first_fail_rc = rc;
                snprintf(r->first_fail, sizeof r->first_fail, "%s", line + off);
            }
        } else if (sscanf(line, "state %llu %llu", &a, &b) == 2) {
            if (!b) r->partial_states++;
        } else if (sscanf(line, "env-fail %d %n", &rc, &off) == 1 && off > 0) {
            if (r->env_failures++ == 0) {
                r->env_fail_rc = rc;
                snprintf(r->env_fail, sizeof r->env_fail, "%s", line + off);
            }
        } else if (strcmp(line, "reopened") == 0) {
            r->reopens++;
        } else if (sscanf(line, "reopen-fail %d", &rc) == 1) {
            r->reopen_failures++;
        } else if (sscanf(line, "ops %llu", &a) == 1) {
            r->ops = (long)a;
        } else if (strcmp(line, "end") == 0) {
            r->ended = true;
        } else {
            return report_bad(r, p, n, "an unknown report line");
        }
        p = nl + 1;
    }
    return true;
}

void fx_report_free(fx_report *r)
{
    free(r->digest);
    r->digest = NULL;
}

const char *fx_status_name(int rc)
{
    static char buf[64];
    const char *s = orc_strerror(rc);
    const char *colon = strchr(s, ':');
    if (rc < 0 && colon) {
        snprintf(buf, sizeof buf, "%.*s", (int)(colon - s), s);
        return buf;
    }
    snprintf(buf, sizeof buf, "errno %d (%s)", rc, s);
    return buf;
}

/* ---- the final check ---- */

static bool why_set(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool why_set(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return false;
}

bool fx_check_file(const char *path, unsigned open_flags, const fx_report *r, uint64_t must_hold, uint64_t may_hold,
                   uint64_t *seq_out, char *why, size_t why_size)
{
    orc_env *env;
    /* NO_SYNC: the one more transaction below shows the file is usable; its durability is not in question. */
    int rc = orc_env_open(path, open_flags | ORC_ENV_VERIFY | ORC_ENV_NO_SYNC, NULL, &env);
    if (rc) return why_set(why, why_size, "engine: open failed: %s", orc_last_error());
    bool ok = false;
    size_t problems = 0;
    fw_state st;
    char swhy[512];
    if ((rc = orc_env_check(env, &problems))) {
        why_set(why, why_size, "engine: orc_env_check found %zu problems: %s", problems, orc_last_error());
        goto done;
    }
    if ((rc = fw_read_state(env, &st, swhy, sizeof swhy))) {
        why_set(why, why_size, "engine: %s", swhy);
        goto done;
    }
    if (seq_out) *seq_out = st.seq;
    if (!st.whole) {
        why_set(why, why_size, "partial: %s", swhy);
        goto done;
    }
    if (st.seq < must_hold) {
        why_set(why, why_size, "lost: the file holds transaction %llu, but %llu was reported committed",
                (unsigned long long)st.seq, (unsigned long long)must_hold);
        goto done;
    }
    if (st.seq > may_hold) {
        why_set(why, why_size, "phantom: the file holds transaction %llu, but only %llu was ever begun",
                (unsigned long long)st.seq, (unsigned long long)may_hold);
        goto done;
    }
    for (uint64_t k = 1; k <= st.seq; k++) {
        uint64_t d;
        if ((rc = fw_commit_digest(env, k, &d))) {
            why_set(why, why_size, "engine: reading Commit %llu: %s", (unsigned long long)k, orc_last_error());
            goto done;
        }
        if (d != r->digest[k]) {
            why_set(why, why_size, "wrong: Commit %llu has digest %016llx, the writer's transaction had %016llx",
                    (unsigned long long)k, (unsigned long long)d, (unsigned long long)r->digest[k]);
            goto done;
        }
    }
    /* Usable, not just readable: one more transaction, and the checker again. */
    uint64_t rng = 0x5eed ^ st.seq, digest;
    if ((rc = fw_commit(env, &rng, st.seq + 1, &digest, NULL, NULL))) {
        why_set(why, why_size, "engine: a transaction on the recovered file failed: %s", orc_last_error());
        goto done;
    }
    if ((rc = orc_env_check(env, &problems))) {
        why_set(why, why_size, "engine: after one more transaction orc_env_check found %zu problems: %s", problems,
                orc_last_error());
        goto done;
    }
    ok = true;
done:
    orc_env_close(env);
    return ok;
}
