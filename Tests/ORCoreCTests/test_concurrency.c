/*
 * test_concurrency.c — several threads and several processes on one file.
 *
 *  - Readers in threads during a writer: every snapshot keeps the writer's
 *    invariant (the accounts always sum to the same total), versions never go
 *    back, and the writer grows the map meanwhile.
 *  - Writers in turns: each thread increments counters N times, some through
 *    a shared handle, some through their own; nothing is lost.
 *  - Two processes (fork; each side opens the file itself after the fork):
 *    strict alternation through pipes, then free-running increments with an
 *    exact final count, and map growth seen across processes.
 *  - A child killed with SIGKILL inside a write transaction: every commit it
 *    reported through a pipe is there, nothing of the open transaction is,
 *    the checker passes and the next writer gets the lock.
 *  - The checker, which walks the file's pages with pread, during commits
 *    that free and reuse pages: it never reports damage that is not there.
 *
 * Ordering uses pipes, waitpid, and condition variables; there are no sleeps.
 * Waits have deadlines (poll timeouts, an alarm as the last resort) so that a
 * deadlock fails the run instead of hanging it.
 */
#include "harness.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static double now_s(void) /* for deadlines only */
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- failures inside threads and children ---- */

typedef struct terr {
    pthread_mutex_t mu;
    int failures;
    char msg[512];
} terr;

static void terr_note(terr *e, const char *file, int line, const char *fmt, ...)
{
    pthread_mutex_lock(&e->mu);
    if (e->failures++ == 0) {
        int n = snprintf(e->msg, sizeof e->msg, "%s:%d: ", file, line);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg + n, sizeof e->msg - (size_t)n, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&e->mu);
}
#define TFAIL(e, ...) terr_note((e), __FILE__, __LINE__, __VA_ARGS__)
/* In a thread: on failure note it and leave through `done`. */
#define TOK(e, expr)                                                                \
    do {                                                                            \
        int t_rc_ = (expr);                                                         \
        if (t_rc_ != ORC_OK) {                                                      \
            TFAIL((e), "%s returned %s (%s)", #expr, orc_strerror(t_rc_), orc_last_error()); \
            goto done;                                                              \
        }                                                                           \
    } while (0)

/* In a forked child: report and exit. */
#define COK(expr)                                                                   \
    do {                                                                            \
        int c_rc_ = (expr);                                                         \
        if (c_rc_ != ORC_OK) {                                                      \
            fprintf(stderr, "  child %s:%d: %s returned %s (%s)\n", __FILE__, __LINE__, #expr, \
                    orc_strerror(c_rc_), orc_last_error());                         \
            _exit(10);                                                              \
        }                                                                           \
    } while (0)
#define CCHECK(cond)                                                                \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "  child %s:%d: CHECK(%s)\n", __FILE__, __LINE__, #cond); \
            _exit(11);                                                              \
        }                                                                           \
    } while (0)

/* A failure found by the test itself in shared code: printed, returned as a status. */
static int test_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int test_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "  [pid %d] ", (int)getpid());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return ORC_ERR_INTERNAL;
}

/* ---- pipes with deadlines ---- */

static bool pipe_write_i64(int fd, int64_t v)
{
    return write(fd, &v, sizeof v) == (ssize_t)sizeof v;
}

/* Reads one value; false on EOF, error or after `seconds`. */
static bool pipe_read_i64(int fd, int64_t *v, int seconds)
{
    size_t got = 0;
    while (got < sizeof *v) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, seconds * 1000);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        ssize_t n = read(fd, (char *)v + got, sizeof *v - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        got += (size_t)n;
    }
    return true;
}

/*
 * Waits for a child and returns its exit status (128 + signal when killed),
 * or -1. `fd` is the read end of a pipe whose only writer is the child: its
 * end of file says the child is gone, so the wait has a deadline without any
 * polling loop. fd < 0 when the child was already sent SIGKILL.
 */
static int wait_child(pid_t pid, int fd, int seconds)
{
    int status;
    if (fd >= 0) {
        int64_t ignored;
        while (pipe_read_i64(fd, &ignored, seconds)) {
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        char c;
        if (poll(&p, 1, 0) != 1 || read(fd, &c, 1) != 0) { /* not at end of file: deadline passed */
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* ---- readers during a writer ---- */

#define NACCOUNTS 10
#define TOTAL 1000

typedef struct bank {
    orc_env *env;
    uint32_t t, tlog;
    uint16_t cbal, cblob;
    uint64_t accounts[NACCOUNTS];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    int started;
    uint64_t final_version;
    terr err;
    double deadline;
} bank;

typedef struct reader_arg {
    bank *b;
    bool use_renew;
    long reads;
} reader_arg;

static bool bank_done(bank *b)
{
    pthread_mutex_lock(&b->mu);
    bool d = b->done;
    pthread_mutex_unlock(&b->mu);
    return d;
}

static void *reader_main(void *p)
{
    reader_arg *a = p;
    bank *b = a->b;
    orc_txn *r = NULL;
    uint64_t last_version = 0;
    pthread_mutex_lock(&b->mu);
    b->started++;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    for (;;) {
        bool finished = bank_done(b); /* read once more after the writer is done */
        if (a->use_renew && r) {
            TOK(&b->err, orc_txn_renew(r));
        } else {
            TOK(&b->err, orc_txn_begin(b->env, ORC_TXN_READ, &r));
        }
        uint64_t v = orc_txn_version(r);
        if (v < last_version) TFAIL(&b->err, "version went back from %" PRIu64 " to %" PRIu64, last_version, v);
        last_version = v;
        int64_t sum = 0;
        uint64_t count;
        TOK(&b->err, orc_table_count(r, b->t, &count));
        if (count != NACCOUNTS) TFAIL(&b->err, "%" PRIu64 " accounts at version %" PRIu64, count, v);
        for (int i = 0; i < NACCOUNTS; i++) {
            orc_value bal;
            TOK(&b->err, orc_obj_get(r, b->t, b->accounts[i], b->cbal, &bal));
            sum += bal.integer;
        }
        if (sum != TOTAL) TFAIL(&b->err, "accounts sum to %" PRId64 " at version %" PRIu64, sum, v);
        if (!a->use_renew) {
            orc_txn_abort(r);
            r = NULL;
        }
        a->reads++;
        if (finished) {
            if (v != b->final_version)
                TFAIL(&b->err, "last read saw version %" PRIu64 ", final is %" PRIu64, v, b->final_version);
            break;
        }
        if (now_s() > b->deadline) {
            TFAIL(&b->err, "the writer did not finish before the deadline (starved?)");
            break;
        }
    }
done:
    orc_txn_abort(r);
    return NULL;
}

static void *writer_main(void *p)
{
    bank *b = p;
    uint64_t rng = 0x9E3779B97F4A7C15ULL;
    static uint8_t blob[200000];
    memset(blob, 0x5a, sizeof blob);
    orc_txn *w = NULL;
    /* Start only when every reader is running, so the writes overlap the reads. */
    pthread_mutex_lock(&b->mu);
    while (b->started < 3) pthread_cond_wait(&b->cv, &b->mu);
    pthread_mutex_unlock(&b->mu);
    for (int i = 0; i < 300; i++) {
        TOK(&b->err, orc_txn_begin(b->env, ORC_TXN_WRITE, &w));
        int from = (int)(test_rand(&rng) % NACCOUNTS), to = (int)(test_rand(&rng) % NACCOUNTS);
        int64_t amount = (int64_t)(test_rand(&rng) % 50);
        TOK(&b->err, orc_obj_add_int(w, b->t, b->accounts[from], b->cbal, -amount));
        TOK(&b->err, orc_obj_add_int(w, b->t, b->accounts[to], b->cbal, amount));
        if (i % 7 == 0) { /* grow the file while readers hold snapshots */
            orc_value v = v_bin(blob, sizeof blob);
            TOK(&b->err, orc_obj_create(w, b->tlog, &b->cblob, &v, 1, NULL));
        }
        if (i % 10 == 9) {
            /* A half transfer, then abort: readers must never see it. */
            TOK(&b->err, orc_obj_add_int(w, b->t, b->accounts[0], b->cbal, 1000000));
            orc_txn_abort(w);
        } else {
            TOK(&b->err, orc_txn_commit(w, NULL));
        }
        w = NULL;
    }
done:
    orc_txn_abort(w);
    orc_env_version(b->env, &b->final_version);
    pthread_mutex_lock(&b->mu);
    b->done = true;
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

GUARDED_TEST(concurrency_readers_see_consistent_snapshots, 120)
{
    static bank b;
    memset(&b, 0, sizeof b);
    pthread_mutex_init(&b.mu, NULL);
    pthread_cond_init(&b.cv, NULL);
    pthread_mutex_init(&b.err.mu, NULL);
    orc_env_options opt = {.initial_map_size = 1 << 20};
    CHECK_OK(orc_env_open(test_path("bank.realm"), ORC_ENV_NO_SYNC, &opt, &b.env));
    orc_txn *w;
    CHECK_OK(orc_txn_begin(b.env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "Account", ORC_CLASS_TOP_LEVEL, &b.t));
    CHECK_OK(orc_class_add(w, "Blob", ORC_CLASS_TOP_LEVEL, &b.tlog));
    orc_prop_spec sb = {.name = "balance", .type = ORC_TYPE_INT};
    orc_prop_spec sx = {.name = "data", .type = ORC_TYPE_BINARY};
    CHECK_OK(orc_prop_add(w, b.t, &sb, &b.cbal));
    CHECK_OK(orc_prop_add(w, b.tlog, &sx, &b.cblob));
    for (int i = 0; i < NACCOUNTS; i++) {
        orc_value v = v_int(TOTAL / NACCOUNTS);
        CHECK_OK(orc_obj_create(w, b.t, &b.cbal, &v, 1, &b.accounts[i]));
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    b.deadline = now_s() + 60;

    pthread_t readers[3], writer;
    reader_arg ra[3] = {{&b, false, 0}, {&b, true, 0}, {&b, false, 0}};
    for (int i = 0; i < 3; i++) CHECK(pthread_create(&readers[i], NULL, reader_main, &ra[i]) == 0);
    CHECK(pthread_create(&writer, NULL, writer_main, &b) == 0);
    pthread_join(writer, NULL);
    for (int i = 0; i < 3; i++) pthread_join(readers[i], NULL);
    if (b.err.failures) test_fail(__FILE__, __LINE__, "%d failures, first: %s", b.err.failures, b.err.msg);
    CHECK_EQ(b.err.failures, 0);
    for (int i = 0; i < 3; i++) CHECK(ra[i].reads >= 2);
    CHECK_EQ(b.final_version, 1 + 270); /* 30 of 300 aborted */
    orc_env_info info;
    CHECK_OK(orc_env_info_get(b.env, &info));
    CHECK(info.map_size > (size_t)1 << 20);
    CHECK_ENV(b.env);
    orc_env_close(b.env);
}

/* ---- writers in turns ---- */

typedef struct counters {
    const char *path;
    orc_env *shared;
    uint32_t t;
    uint16_t ctotal, cper[4];
    uint64_t key;
    terr err;
} counters;

typedef struct writer_arg {
    counters *c;
    int id;
} writer_arg;

#define TURNS 150

static void *turn_writer(void *p)
{
    writer_arg *a = p;
    counters *c = a->c;
    orc_env *env = c->shared, *own = NULL;
    orc_txn *w = NULL;
    if (a->id >= 2) {
        TOK(&c->err, orc_env_open(c->path, ORC_ENV_NO_SYNC, NULL, &own));
        env = own;
    }
    for (int i = 0; i < TURNS; i++) {
        TOK(&c->err, orc_txn_begin(env, ORC_TXN_WRITE, &w));
        /* One commutative increment, one read-modify-write. */
        TOK(&c->err, orc_obj_add_int(w, c->t, c->key, c->ctotal, 1));
        orc_value v;
        TOK(&c->err, orc_obj_get(w, c->t, c->key, c->cper[a->id], &v));
        if (v.integer != i) TFAIL(&c->err, "thread %d saw its counter at %" PRId64 ", want %d", a->id, v.integer, i);
        v.integer++;
        TOK(&c->err, orc_obj_set(w, c->t, c->key, c->cper[a->id], &v));
        TOK(&c->err, orc_txn_commit(w, NULL));
        w = NULL;
    }
done:
    orc_txn_abort(w);
    orc_env_close(own);
    return NULL;
}

GUARDED_TEST(concurrency_writers_in_turns_lose_nothing, 120)
{
    static counters c;
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("turns.realm"));
    memset(&c, 0, sizeof c);
    pthread_mutex_init(&c.err.mu, NULL);
    c.path = path;
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &c.shared));
    orc_txn *w, *r;
    CHECK_OK(orc_txn_begin(c.shared, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "Counter", ORC_CLASS_TOP_LEVEL, &c.t));
    orc_prop_spec s = {.name = "total", .type = ORC_TYPE_INT};
    CHECK_OK(orc_prop_add(w, c.t, &s, &c.ctotal));
    for (int i = 0; i < 4; i++) {
        char name[8];
        snprintf(name, sizeof name, "t%d", i);
        s.name = name;
        CHECK_OK(orc_prop_add(w, c.t, &s, &c.cper[i]));
    }
    CHECK_OK(orc_obj_create(w, c.t, NULL, NULL, 0, &c.key));
    uint64_t v0;
    CHECK_OK(orc_txn_commit(w, &v0));

    pthread_t th[4];
    writer_arg wa[4];
    for (int i = 0; i < 4; i++) {
        wa[i] = (writer_arg){&c, i};
        CHECK(pthread_create(&th[i], NULL, turn_writer, &wa[i]) == 0);
    }
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    if (c.err.failures) test_fail(__FILE__, __LINE__, "%d failures, first: %s", c.err.failures, c.err.msg);
    CHECK_EQ(c.err.failures, 0);

    CHECK_OK(orc_txn_begin(c.shared, ORC_TXN_READ, &r));
    orc_value v;
    CHECK_OK(orc_obj_get(r, c.t, c.key, c.ctotal, &v));
    CHECK_EQ(v.integer, 4 * TURNS);
    for (int i = 0; i < 4; i++) {
        CHECK_OK(orc_obj_get(r, c.t, c.key, c.cper[i], &v));
        CHECK_EQ(v.integer, TURNS);
    }
    CHECK_EQ(orc_txn_version(r), v0 + 4 * TURNS);
    orc_txn_abort(r);
    CHECK_ENV(c.shared);
    orc_env_close(c.shared);
}

/* ---- a second writer waits for the first ---- */

typedef struct waiter {
    orc_env *env;
    uint32_t t;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stage;
    uint64_t seen_count;
    int rc;
} waiter;

static void *second_writer(void *p)
{
    waiter *s = p;
    orc_txn *w;
    pthread_mutex_lock(&s->mu);
    s->stage = 2; /* about to begin */
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    s->rc = orc_txn_begin(s->env, ORC_TXN_WRITE, &w);
    if (s->rc) return NULL;
    s->rc = orc_table_count(w, s->t, &s->seen_count);
    orc_txn_abort(w);
    return NULL;
}

GUARDED_TEST(concurrency_second_writer_waits_and_sees_the_first, 60)
{
    static waiter s;
    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.cv, NULL);
    CHECK_OK(orc_env_open(test_path("wait.realm"), ORC_ENV_NO_SYNC, NULL, &s.env));
    orc_txn *w;
    CHECK_OK(orc_txn_begin(s.env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "X", ORC_CLASS_TOP_LEVEL, &s.t));
    CHECK_OK(orc_txn_commit(w, NULL));

    CHECK_OK(orc_txn_begin(s.env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_obj_create(w, s.t, NULL, NULL, 0, NULL));
    pthread_t th;
    CHECK(pthread_create(&th, NULL, second_writer, &s) == 0);
    pthread_mutex_lock(&s.mu);
    while (s.stage < 2) pthread_cond_wait(&s.cv, &s.mu);
    pthread_mutex_unlock(&s.mu);
    /* More work while the other thread is (at the latest soon) blocked in begin. */
    for (int i = 0; i < 200; i++) CHECK_OK(orc_obj_create(w, s.t, NULL, NULL, 0, NULL));
    CHECK_OK(orc_txn_commit(w, NULL));
    pthread_join(th, NULL);
    CHECK_OK(s.rc);
    CHECK_EQ(s.seen_count, 201); /* its transaction began after this one committed */
    orc_env_close(s.env);
}

/* ---- two processes ---- */

typedef struct proc_ids {
    uint32_t t;
    uint16_t cn, cside;
    uint64_t key;
} proc_ids;

static int make_counter_file(const char *path, proc_ids *ids)
{
    orc_env *env;
    orc_txn *w;
    int rc = orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env);
    if (rc) return rc;
    orc_prop_spec sn = {.name = "n", .type = ORC_TYPE_INT};
    orc_prop_spec ss = {.name = "side", .type = ORC_TYPE_INT};
    if (!(rc = orc_txn_begin(env, ORC_TXN_WRITE, &w))) {
        if (!(rc = orc_class_add(w, "Counter", ORC_CLASS_TOP_LEVEL, &ids->t)) &&
            !(rc = orc_prop_add(w, ids->t, &sn, &ids->cn)) && !(rc = orc_prop_add(w, ids->t, &ss, &ids->cside)) &&
            !(rc = orc_obj_create(w, ids->t, NULL, NULL, 0, &ids->key)))
            rc = orc_txn_commit(w, NULL);
        else
            orc_txn_abort(w);
    }
    orc_env_close(env);
    return rc;
}

#define ROUNDS 40
#define FREE_RUN 150

/*
 * One side of the alternation: on its turn (a token read from `in`), check
 * that n is what strict alternation predicts, increment it and note the side,
 * then pass the token on `out`. Then FREE_RUN unordered increments.
 */
static int side_run(const char *path, const proc_ids *ids, int side, int in, int out, orc_env **env_out)
{
    orc_env *env;
    orc_txn *w;
    int rc = orc_env_open(path, ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, NULL, &env);
    if (rc) return rc;
    *env_out = env;
    for (int round = 0; round < ROUNDS; round++) {
        int64_t token;
        if (side == 1 || round > 0) {
            if (!pipe_read_i64(in, &token, 30)) return test_error("side %d: no token in round %d", side, round);
            if (token != 2 * round + side) return test_error("side %d: token %" PRId64, side, token);
        }
        if ((rc = orc_txn_begin(env, ORC_TXN_WRITE, &w))) return rc;
        orc_value n, last;
        if ((rc = orc_obj_get(w, ids->t, ids->key, ids->cn, &n)) ||
            (rc = orc_obj_get(w, ids->t, ids->key, ids->cside, &last))) {
            orc_txn_abort(w);
            return rc;
        }
        if (n.integer != 2 * round + side || (n.integer > 0 && last.integer != 1 - side)) {
            orc_txn_abort(w);
            return test_error("side %d round %d: n = %" PRId64 ", last side %" PRId64, side, round,
                            n.integer, last.integer);
        }
        n.integer++;
        orc_value me = v_int(side);
        if ((rc = orc_obj_set(w, ids->t, ids->key, ids->cn, &n)) ||
            (rc = orc_obj_set(w, ids->t, ids->key, ids->cside, &me))) {
            orc_txn_abort(w);
            return rc;
        }
        if ((rc = orc_txn_commit(w, NULL))) return rc;
        if (!pipe_write_i64(out, 2 * round + side + 1)) return test_error("side %d: pipe write", side);
    }
    /* Side 0 moved first, so it waits for side 1's last turn before running freely. */
    int64_t last;
    if (side == 0 && (!pipe_read_i64(in, &last, 30) || last != 2 * ROUNDS))
        return test_error("side 0: no final token");
    for (int i = 0; i < FREE_RUN; i++) {
        if ((rc = orc_txn_begin(env, ORC_TXN_WRITE, &w))) return rc;
        if ((rc = orc_obj_add_int(w, ids->t, ids->key, ids->cn, 1))) {
            orc_txn_abort(w);
            return rc;
        }
        if ((rc = orc_txn_commit(w, NULL))) return rc;
    }
    return ORC_OK;
}

GUARDED_TEST(concurrency_two_processes_alternate_and_count_exactly, 120)
{
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("procs.realm"));
    proc_ids ids;
    CHECK_OK(make_counter_file(path, &ids)); /* closed again: nothing of it is open across the fork */
    int to_child[2], to_parent[2];
    CHECK(pipe(to_child) == 0 && pipe(to_parent) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(to_child[1]);
        close(to_parent[0]);
        orc_env *env = NULL;
        int rc = side_run(path, &ids, 1, to_child[0], to_parent[1], &env);
        if (rc) fprintf(stderr, "  child: %s (%s)\n", orc_strerror(rc), orc_last_error());
        orc_env_close(env);
        _exit(rc ? 20 : 0);
    }
    close(to_child[0]);
    close(to_parent[1]);
    orc_env *env = NULL;
    int rc = side_run(path, &ids, 0, to_parent[0], to_child[1], &env);
    close(to_child[1]);
    int status = wait_child(pid, to_parent[0], 60);
    close(to_parent[0]);
    CHECK_OK(rc);
    CHECK_EQ(status, 0);

    orc_txn *r;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    orc_value n;
    CHECK_OK(orc_obj_get(r, ids.t, ids.key, ids.cn, &n));
    CHECK_EQ(n.integer, 2 * ROUNDS + 2 * FREE_RUN);
    CHECK_EQ(orc_txn_version(r), 1 + 2 * ROUNDS + 2 * FREE_RUN);
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}

/* Writes `mb` MB of blobs in one transaction; returns the new version. */
static int write_blobs(orc_env *env, uint32_t t, uint16_t c, int first, int count, uint64_t *version)
{
    static uint8_t buf[1 << 20];
    orc_txn *w;
    int rc = orc_txn_begin(env, ORC_TXN_WRITE, &w);
    if (rc) return rc;
    for (int i = first; i < first + count && !rc; i++) {
        memset(buf, (uint8_t)i, sizeof buf);
        orc_value v = v_bin(buf, sizeof buf);
        rc = orc_obj_create(w, t, &c, &v, 1, NULL);
    }
    if (rc) {
        orc_txn_abort(w);
        return rc;
    }
    return orc_txn_commit(w, version);
}

/* Every blob i (in key order) is 1 MB of byte i. */
static int read_blobs(orc_env *env, uint32_t t, uint16_t c, int want)
{
    orc_txn *r;
    orc_keys keys = {0};
    int rc = orc_txn_begin(env, ORC_TXN_READ, &r);
    if (rc) return rc;
    if (!(rc = orc_table_keys(r, t, &keys)) && keys.count != (size_t)want)
        rc = test_error("%zu blobs, want %d", keys.count, want);
    for (size_t i = 0; !rc && i < keys.count; i++) {
        orc_value v;
        if ((rc = orc_obj_get(r, t, keys.keys[i], c, &v))) break;
        if (v.string.size != 1 << 20) rc = test_error("blob %zu has %zu bytes", i, v.string.size);
        const uint8_t *p = (const uint8_t *)v.string.data;
        for (size_t j = 0; !rc && j < v.string.size; j += 4093)
            if (p[j] != (uint8_t)i) rc = test_error("blob %zu byte %zu is %u", i, j, p[j]);
    }
    orc_keys_free(&keys);
    orc_txn_abort(r);
    return rc;
}

GUARDED_TEST(concurrency_map_growth_seen_across_processes, 120)
{
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("procgrow.realm"));
    uint32_t t;
    uint16_t c;
    {
        orc_env *env;
        orc_txn *w;
        CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        CHECK_OK(orc_class_add(w, "Blob", ORC_CLASS_TOP_LEVEL, &t));
        orc_prop_spec s = {.name = "b", .type = ORC_TYPE_BINARY};
        CHECK_OK(orc_prop_add(w, t, &s, &c));
        CHECK_OK(orc_txn_commit(w, NULL));
        orc_env_close(env);
    }
    int to_child[2], to_parent[2];
    CHECK(pipe(to_child) == 0 && pipe(to_parent) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    orc_env_options opt = {.initial_map_size = 1 << 20};
    if (pid == 0) {
        close(to_child[1]);
        close(to_parent[0]);
        orc_env *env;
        int64_t token;
        uint64_t version;
        COK(orc_env_open(path, ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, &opt, &env));
        CCHECK(pipe_write_i64(to_parent[1], 1)); /* opened */
        CCHECK(pipe_read_i64(to_child[0], &token, 30) && token == 2);
        COK(write_blobs(env, t, c, 0, 20, &version)); /* grows the map well past both initial sizes */
        CCHECK(pipe_write_i64(to_parent[1], (int64_t)version));
        CCHECK(pipe_read_i64(to_child[0], &token, 60) && token > (int64_t)version);
        COK(read_blobs(env, t, c, 30)); /* the parent grew it further */
        orc_env_close(env);
        _exit(0);
    }
    close(to_child[0]);
    close(to_parent[1]);
    orc_env *env;
    int64_t msg;
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, &opt, &env));
    CHECK(pipe_read_i64(to_parent[0], &msg, 30) && msg == 1);
    /* Hold the small map mapped (a read of the old state) while the child grows the file. */
    CHECK_OK(read_blobs(env, t, c, 0));
    CHECK(pipe_write_i64(to_child[1], 2));
    CHECK(pipe_read_i64(to_parent[0], &msg, 60));
    uint64_t version;
    CHECK_OK(orc_env_version(env, &version));
    CHECK_EQ(version, (uint64_t)msg);
    CHECK_OK(read_blobs(env, t, c, 20));
    CHECK_OK(write_blobs(env, t, c, 20, 10, &version));
    CHECK(pipe_write_i64(to_child[1], (int64_t)version));
    int status = wait_child(pid, to_parent[0], 60);
    CHECK_EQ(status, 0);
    CHECK_OK(read_blobs(env, t, c, 30));
    CHECK_ENV(env);
    orc_env_close(env);
    close(to_child[1]);
    close(to_parent[0]);
}

/* ---- a writer killed mid-transaction ---- */

#define KILL_COMMITS 15

/*
 * The child: KILL_COMMITS commits, each setting counter = base + i and adding
 * an Item with v = base + i, reported on `out` after the commit returns; then
 * a big transaction that is never committed, announced with -1; then it waits
 * to be killed.
 */
static void killed_child(const char *path, int out, int never)
{
    orc_env *env;
    orc_txn *w;
    orc_class_info ci;
    orc_prop_info pc, pv;
    COK(orc_env_open(path, ORC_ENV_NO_CREATE, NULL, &env)); /* synced commits */
    COK(orc_txn_begin(env, ORC_TXN_READ, &w));
    COK(orc_schema_class_find(w, "Item", &ci));
    COK(orc_schema_prop_find(w, ci.table, "v", &pv));
    COK(orc_schema_prop_find(w, ci.table, "counter", &pc));
    orc_txn_abort(w);
    orc_keys keys = {0};
    COK(orc_txn_begin(env, ORC_TXN_READ, &w));
    COK(orc_table_keys(w, ci.table, &keys));
    orc_txn_abort(w);
    int64_t base = (int64_t)keys.count;
    static uint8_t junk[100000];
    memset(junk, 0xee, sizeof junk);
    for (int64_t i = 1; i <= KILL_COMMITS; i++) {
        COK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        uint16_t cols[2] = {pv.col, pc.col};
        orc_value vals[2] = {v_int(base + i), v_int(base + i)};
        COK(orc_obj_create(w, ci.table, cols, vals, 2, NULL));
        COK(orc_txn_commit(w, NULL));
        CCHECK(pipe_write_i64(out, base + i));
    }
    COK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    for (int i = 0; i < 300; i++) {
        uint16_t cols[2] = {pv.col, pc.col};
        orc_value vals[2] = {v_int(999999), v_int(999999)};
        COK(orc_obj_create(w, ci.table, cols, vals, 2, NULL));
    }
    COK(orc_meta_set(w, "partial", junk, sizeof junk));
    CCHECK(pipe_write_i64(out, -1));
    int64_t forever;
    pipe_read_i64(never, &forever, 60); /* killed long before */
    _exit(12);
}

GUARDED_TEST(concurrency_killed_writer_leaves_every_reported_commit, 180)
{
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("killed.realm"));
    uint32_t t;
    uint16_t cv, cc;
    {
        orc_env *env;
        orc_txn *w;
        CHECK_OK(orc_env_open(path, 0, NULL, &env));
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        CHECK_OK(orc_class_add(w, "Item", ORC_CLASS_TOP_LEVEL, &t));
        orc_prop_spec sv = {.name = "v", .type = ORC_TYPE_INT, .flags = ORC_PROP_INDEXED};
        orc_prop_spec sc = {.name = "counter", .type = ORC_TYPE_INT};
        CHECK_OK(orc_prop_add(w, t, &sv, &cv));
        CHECK_OK(orc_prop_add(w, t, &sc, &cc));
        CHECK_OK(orc_txn_commit(w, NULL));
        orc_env_close(env);
    }
    int64_t reported = 0;
    for (int round = 0; round < 3; round++) {
        int out[2], never[2];
        CHECK(pipe(out) == 0 && pipe(never) == 0);
        /* Round 1 keeps the file open in this process (opened after the fork) while the child dies. */
        orc_env *env = NULL;
        fflush(NULL);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            close(out[0]);
            close(never[1]);
            killed_child(path, out[1], never[0]);
        }
        close(out[1]);
        close(never[0]);
        if (round == 1) CHECK_OK(orc_env_open(path, 0, NULL, &env));
        int64_t msg;
        bool marker = false;
        while (pipe_read_i64(out[0], &msg, 60)) {
            if (msg == -1) {
                marker = true;
                break;
            }
            CHECK_EQ(msg, reported + 1);
            reported = msg;
        }
        CHECK(marker);
        kill(pid, SIGKILL);
        int status = wait_child(pid, -1, 30);
        CHECK_EQ(status, 128 + SIGKILL);
        close(out[0]);
        close(never[1]);
        CHECK_EQ(reported, (round + 1) * KILL_COMMITS);

        if (!env) CHECK_OK(orc_env_open(path, 0, NULL, &env));
        CHECK_ENV(env);
        orc_txn *r, *w;
        CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
        orc_keys keys = {0};
        CHECK_OK(orc_table_keys(r, t, &keys));
        CHECK_EQ(keys.count, reported);
        for (size_t i = 0; i < keys.count; i++) {
            orc_value v;
            CHECK_OK(orc_obj_get(r, t, keys.keys[i], cv, &v));
            CHECK_EQ(v.integer, (int64_t)i + 1);
        }
        orc_keys_free(&keys);
        const void *d;
        size_t n;
        CHECK_RC(orc_meta_get(r, "partial", &d, &n), ORC_ERR_NOT_FOUND);
        uint64_t version = orc_txn_version(r);
        /* The schema commit, every item commit, and one survivor commit per earlier round. */
        CHECK_EQ(version, 1 + (uint64_t)reported + (uint64_t)round);
        orc_txn_abort(r);
        /* The dead writer's lock is recovered: this process can write. */
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        CHECK_OK(orc_meta_set(w, "survivor", "y", 1));
        uint64_t v2;
        CHECK_OK(orc_txn_commit(w, &v2));
        CHECK_EQ(v2, version + 1);
        CHECK_ENV(env);
        orc_env_close(env);
    }
}

/* ---- opening beside another process's write transaction ---- */

/*
 * Opening a realm needs no write transaction: a process opens (and reads) a file
 * while another holds a long write. The open used to wait for the writer, which
 * made concurrency_killed_writer_leaves_every_reported_commit hang now and then
 * until its child gave up: its parent opened the file while the child sat in a
 * write transaction waiting to be killed.
 */
GUARDED_TEST(concurrency_open_does_not_wait_for_another_process_writing, 120)
{
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("open-beside-writer.realm"));
    {
        orc_env *env;
        orc_txn *w;
        uint32_t t;
        CHECK_OK(orc_env_open(path, 0, NULL, &env));
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        CHECK_OK(orc_class_add(w, "Item", ORC_CLASS_TOP_LEVEL, &t));
        CHECK_OK(orc_meta_set(w, "before", "b", 1));
        CHECK_OK(orc_txn_commit(w, NULL));
        orc_env_close(env);
    }
    int held[2], opened[2];
    CHECK(pipe(held) == 0 && pipe(opened) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(held[0]);
        close(opened[1]);
        orc_env *env;
        orc_txn *w;
        COK(orc_env_open(path, ORC_ENV_NO_CREATE, NULL, &env));
        COK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        COK(orc_meta_set(w, "during", "d", 1));
        CCHECK(pipe_write_i64(held[1], 1));
        int64_t v;
        bool told = pipe_read_i64(opened[0], &v, 20); /* the parent opened while this write was held */
        orc_txn_abort(w);
        orc_env_close(env);
        _exit(told ? 0 : 13);
    }
    close(held[1]);
    close(opened[0]);
    int64_t msg;
    CHECK(pipe_read_i64(held[0], &msg, 60));
    orc_env *env;
    CHECK_OK(orc_env_open(path, 0, NULL, &env));
    orc_txn *r;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    const void *d;
    size_t n;
    CHECK_OK(orc_meta_get(r, "before", &d, &n));
    CHECK_RC(orc_meta_get(r, "during", &d, &n), ORC_ERR_NOT_FOUND);
    orc_txn_abort(r);
    CHECK(pipe_write_i64(opened[1], 1));
    CHECK_EQ(wait_child(pid, held[0], 60), 0);
    /* and this process writes once the other's write has ended */
    orc_txn *w;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_meta_set(w, "after", "a", 1));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    orc_env_close(env);
    close(held[0]);
    close(opened[1]);
}

/* ---- the checker's page walk during commits ---- */

enum { CHURN_CHECKS = 16 };

typedef struct churn {
    orc_env *env;
    uint32_t t;
    uint16_t col;
    terr err;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t commits;
    bool stop;
} churn;

/* Commits until told to stop: each adds 40 objects with 300-byte strings and erases the older half. */
static void *churn_writer(void *p)
{
    churn *c = p;
    static char text[300];
    memset(text, 'x', sizeof text);
    uint64_t keys[4096];
    size_t nkeys = 0;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        bool stop = c->stop;
        pthread_mutex_unlock(&c->mu);
        if (stop) break;
        orc_txn *w;
        TOK(&c->err, orc_txn_begin(c->env, ORC_TXN_WRITE, &w));
        for (int i = 0; i < 40 && nkeys < 4096; i++) {
            orc_value v = v_strn(text, sizeof text);
            int rc = orc_obj_create(w, c->t, &c->col, &v, 1, &keys[nkeys]);
            if (rc) {
                orc_txn_abort(w);
                TOK(&c->err, rc);
            }
            nkeys++;
        }
        size_t half = nkeys / 2;
        for (size_t i = 0; i < half; i++) {
            int rc = orc_obj_erase(w, c->t, keys[i]);
            if (rc) {
                orc_txn_abort(w);
                TOK(&c->err, rc);
            }
        }
        memmove(keys, keys + half, (nkeys - half) * sizeof *keys);
        nkeys -= half;
        TOK(&c->err, orc_txn_commit(w, NULL));
        pthread_mutex_lock(&c->mu);
        c->commits++;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
    }
done:
    pthread_mutex_lock(&c->mu);
    c->stop = true;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

GUARDED_TEST(concurrency_check_during_commits, 120)
{
    static churn c;
    memset(&c, 0, sizeof c);
    pthread_mutex_init(&c.err.mu, NULL);
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    const char *path = test_path("churn.realm");
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &c.env));
    orc_txn *w;
    CHECK_OK(orc_txn_begin(c.env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "Churn", ORC_CLASS_TOP_LEVEL, &c.t));
    orc_prop_spec s = {.name = "text", .type = ORC_TYPE_STRING};
    CHECK_OK(orc_prop_add(w, c.t, &s, &c.col));
    CHECK_OK(orc_txn_commit(w, NULL));

    pthread_t th;
    CHECK(pthread_create(&th, NULL, churn_writer, &c) == 0);
    int bad = ORC_OK;
    char first[512] = "";
    for (int i = 0; i < CHURN_CHECKS && bad == ORC_OK; i++) {
        /* Let the writer commit at least once more between two checks. */
        pthread_mutex_lock(&c.mu);
        uint64_t seen = c.commits;
        double deadline = now_s() + 60;
        while (c.commits == seen && !c.stop && now_s() < deadline) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 100 * 1000 * 1000;
            if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
            pthread_cond_timedwait(&c.cv, &c.mu, &ts);
        }
        pthread_mutex_unlock(&c.mu);
        size_t problems = 0;
        bad = orc_env_check(c.env, &problems);
        if (bad) snprintf(first, sizeof first, "%s", orc_last_error());
    }
    pthread_mutex_lock(&c.mu);
    c.stop = true;
    uint64_t commits = c.commits;
    pthread_mutex_unlock(&c.mu);
    pthread_join(th, NULL);
    if (bad) test_fail(__FILE__, __LINE__, "orc_env_check during commits: %s (%s)", orc_strerror(bad), first);
    if (c.err.failures) test_fail(__FILE__, __LINE__, "writer: %s", c.err.msg);
    CHECK(commits >= CHURN_CHECKS);
    CHECK_ENV(c.env);
    orc_env_close(c.env);
}
