/*
 * test_scan.c — the table scan (group `scan`).
 *
 * In a read transaction a scan walks the table's leaf pages in the map (scan.c);
 * in a write transaction it steps an LMDB cursor. The tests hold the walk to the
 * cursor: the same keys, row sizes and row bytes in the same order, over tables
 * of every shape the engine makes (one leaf or several levels, rows on overflow
 * pages, leaves thinned by erasures, rows rewritten longer and shorter), at the
 * size where the walk starts to be used, and across map growth, which moves the
 * map the walk reads. Damaged pages are test_damaged.c's.
 */
#include "harness.h"
#include "object.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

typedef struct seen {
    uint64_t *keys;
    size_t *sizes;
    uint64_t *sums;
    size_t n, cap;
} seen;

static void seen_free(seen *s)
{
    free(s->keys);
    free(s->sizes);
    free(s->sums);
    memset(s, 0, sizeof *s);
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/*
 * Every row of `table` as `txn` scans it. *walked tells whether the scan walked
 * the pages (no cursor after tscan_open).
 */
static int scan_all(orc_txn *txn, uint32_t table, seen *out, bool *walked)
{
    tscan s;
    int rc = tscan_open(txn, table, &s);
    if (rc) return rc;
    *walked = s.cur == NULL && s.walk;
    while ((rc = tscan_next(&s)) == ORC_OK) {
        if (out->n == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 1024;
            uint64_t *k = realloc(out->keys, cap * sizeof *k);
            if (k) out->keys = k;
            size_t *z = realloc(out->sizes, cap * sizeof *z);
            if (z) out->sizes = z;
            uint64_t *h = realloc(out->sums, cap * sizeof *h);
            if (h) out->sums = h;
            if (!k || !z || !h) {
                tscan_close(&s);
                return ORC_ERR_NOMEM;
            }
            out->cap = cap;
        }
        out->keys[out->n] = s.key;
        out->sizes[out->n] = s.size;
        out->sums[out->n] = fnv(s.row, s.size);
        out->n++;
    }
    tscan_close(&s);
    return rc == ORC_ERR_NOT_FOUND ? ORC_OK : rc;
}

/* The read snapshot's walk against a write transaction's cursor over the same data. */
static void same_as_cursor(orc_env *env, uint32_t table, size_t want_rows, const char *what)
{
    orc_txn *r, *w;
    seen a = {0}, b = {0};
    bool walked = false, cursor_walked = true;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_OK(scan_all(r, table, &a, &walked));
    orc_txn_abort(r);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(scan_all(w, table, &b, &cursor_walked));
    orc_txn_abort(w);
    if (a.n != want_rows || b.n != want_rows) {
        test_fail(__FILE__, __LINE__, "%s: the walk saw %zu rows, the cursor %zu, the table holds %zu", what, a.n,
                  b.n, want_rows);
        goto out;
    }
    if (walked != (want_rows >= 64) || cursor_walked) {
        test_fail(__FILE__, __LINE__, "%s: %zu rows, walked %d in the read transaction, %d in the write one", what,
                  want_rows, walked, cursor_walked);
        goto out;
    }
    for (size_t i = 0; i < a.n; i++)
        if (a.keys[i] != b.keys[i] || a.sizes[i] != b.sizes[i] || a.sums[i] != b.sums[i]) {
            test_fail(__FILE__, __LINE__, "%s: row %zu differs: key %llu/%llu, %zu/%zu bytes", what, i,
                      (unsigned long long)a.keys[i], (unsigned long long)b.keys[i], a.sizes[i], b.sizes[i]);
            goto out;
        }
out:
    seen_free(&a);
    seen_free(&b);
}

static void add_prop(orc_txn *w, uint32_t table, const char *name, orc_type type, uint16_t *col)
{
    orc_prop_spec spec = {.name = name, .type = type, .collection = ORC_COLL_NONE, .flags = 0, .link_table = 0};
    CHECK_OK(orc_prop_add(w, table, &spec, col));
}

/* A text of n bytes that differs with `seed` (over a page: an overflow row). */
static const char *text_of(size_t n, uint64_t seed)
{
    static char buf[20000];
    for (size_t i = 0; i < n && i < sizeof buf; i++) buf[i] = (char)('a' + (seed + i * 7) % 26);
    return buf;
}

static size_t random_size(uint64_t *rnd)
{
    uint64_t r = test_rand(rnd) % 100;
    if (r < 3) return 4097 + (size_t)(test_rand(rnd) % 15000); /* overflow pages */
    if (r < 10) return 600 + (size_t)(test_rand(rnd) % 1400);  /* few rows a leaf */
    return (size_t)(test_rand(rnd) % 80);
}

TEST(scan_walk_matches_cursor_over_random_tables)
{
    orc_env *env;
    orc_txn *w;
    uint32_t T;
    uint16_t c_n, c_s;
    uint64_t rnd = test_seed();
    CHECK_OK(test_open_writing(test_path("scan-random.realm"), &env, &w));
    CHECK_OK(orc_class_add(w, "Row", ORC_CLASS_TOP_LEVEL, &T));
    add_prop(w, T, "n", ORC_TYPE_INT, &c_n);
    add_prop(w, T, "s", ORC_TYPE_STRING, &c_s);
    CHECK_OK(orc_txn_commit(w, NULL));

    size_t cap = 40000, live = 0;
    uint64_t *keys = malloc(cap * sizeof *keys);
    CHECK(keys);
    for (int round = 0; round < 8; round++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        /* grow: a few thousand new rows of random sizes */
        size_t add = 1000 + (size_t)(test_rand(&rnd) % 3000);
        for (size_t i = 0; i < add && live < cap; i++) {
            size_t n = random_size(&rnd);
            uint16_t cols[2] = {c_n, c_s};
            orc_value vals[2] = {v_int((int64_t)(test_rand(&rnd) % 1000)), v_strn(text_of(n, i), n)};
            CHECK_OK(orc_obj_create(w, T, cols, vals, 2, &keys[live]));
            live++;
        }
        /* thin: erase a random share, in runs (whole leaves) and singly */
        size_t erase = live / (3 + (size_t)(test_rand(&rnd) % 5));
        for (size_t erased = 0; erased < erase;) {
            size_t at = (size_t)(test_rand(&rnd) % live);
            size_t run = test_rand(&rnd) % 4 ? 1 : 1 + (size_t)(test_rand(&rnd) % 60);
            for (; run && at < live && erased < erase; at++) {
                if (!keys[at]) continue; /* erased before */
                CHECK_OK(orc_obj_erase(w, T, keys[at]));
                keys[at] = 0;
                erased++;
                run--;
            }
        }
        size_t kept = 0; /* keys stay ascending: a run of them is a run of neighbouring rows */
        for (size_t i = 0; i < live; i++)
            if (keys[i]) keys[kept++] = keys[i];
        live = kept;
        /* rewrite: rows grow onto overflow pages and shrink back */
        for (size_t i = 0; i < live / 10; i++) {
            size_t n = random_size(&rnd);
            orc_value v = v_strn(text_of(n, (uint64_t)round), n);
            CHECK_OK(orc_obj_set(w, T, keys[(size_t)(test_rand(&rnd) % live)], c_s, &v));
        }
        CHECK_OK(orc_txn_commit(w, NULL));
        char what[64];
        snprintf(what, sizeof what, "round %d", round);
        same_as_cursor(env, T, live, what);
    }

    /* a query's count over the walk equals the write transaction's over the cursor */
    uint8_t prog[32] = {ORC_OP_CMP, ORC_CMP_GE, 0, ORC_Q_DEFAULT, ORC_EXPR_PATH, 1, ORC_STEP_PROP};
    st16(prog + 7, c_n);
    prog[9] = ORC_AGG_NONE;
    prog[10] = ORC_EXPR_CONST;
    prog[11] = ORC_TYPE_INT;
    st64(prog + 12, 500);
    uint64_t counted[2];
    for (int k = 0; k < 2; k++) {
        orc_txn *t;
        orc_query *q;
        CHECK_OK(orc_txn_begin(env, k ? ORC_TXN_WRITE : ORC_TXN_READ, &t));
        CHECK_OK(orc_query_compile(t, T, prog, 20, &q));
        CHECK_OK(orc_query_count(t, q, &counted[k]));
        orc_query_free(q);
        orc_txn_abort(t);
    }
    CHECK_EQ(counted[0], counted[1]);
    if (!(counted[0] > live / 3 && counted[0] < live * 2 / 3)) test_fail(__FILE__, __LINE__, "%llu of %zu rows have n >= 500", (unsigned long long)counted[0], live);
    CHECK_OK(orc_env_check(env, NULL));
    free(keys);
    orc_env_close(env);
}

/* Tables around the size where the walk takes over, and an emptied one. */
TEST(scan_walk_starts_at_its_threshold)
{
    orc_env *env;
    orc_txn *w;
    CHECK_OK(orc_env_open(test_path("scan-sizes.realm"), ORC_ENV_NO_SYNC, NULL, &env));
    static const size_t sizes[] = {0, 1, 63, 64, 65, 200, 5000};
    uint32_t T[7];
    uint16_t col[7];
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    for (int t = 0; t < 7; t++) {
        char name[16];
        snprintf(name, sizeof name, "S%d", t);
        CHECK_OK(orc_class_add(w, name, ORC_CLASS_TOP_LEVEL, &T[t]));
        add_prop(w, T[t], "n", ORC_TYPE_INT, &col[t]);
        for (size_t i = 0; i < sizes[t]; i++) {
            orc_value v = v_int((int64_t)i);
            CHECK_OK(orc_obj_create(w, T[t], &col[t], &v, 1, NULL));
        }
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    for (int t = 0; t < 7; t++) {
        char what[32];
        snprintf(what, sizeof what, "%zu rows", sizes[t]);
        same_as_cursor(env, T[t], sizes[t], what);
    }
    /* emptied by erasing every row: the database is there, the walk is not used */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_table_clear(w, T[6]));
    CHECK_OK(orc_txn_commit(w, NULL));
    same_as_cursor(env, T[6], 0, "cleared");
    orc_env_close(env);
}

/*
 * The map moves when it grows (LMDB maps the file again): a scan after growth
 * must read the new map. Each round scans (the walk finds the map), then writes
 * enough to outgrow a map that starts at 1 MiB, then scans again.
 */
TEST(scan_walk_follows_the_map_when_it_grows)
{
    orc_env *env;
    orc_txn *w;
    uint32_t T;
    uint16_t c;
    orc_env_options opt = {.initial_map_size = 1u << 20};
    CHECK_OK(orc_env_open(test_path("scan-grow.realm"), ORC_ENV_NO_SYNC, &opt, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "Row", ORC_CLASS_TOP_LEVEL, &T));
    add_prop(w, T, "s", ORC_TYPE_STRING, &c);
    CHECK_OK(orc_txn_commit(w, NULL));
    size_t rows = 0;
    for (int round = 0; round < 6; round++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        size_t add = (size_t)2000 << round;
        for (size_t i = 0; i < add; i++) {
            orc_value v = v_strn(text_of(100, i), 100);
            CHECK_OK(orc_obj_create(w, T, &c, &v, 1, NULL));
        }
        rows += add;
        CHECK_OK(orc_txn_commit(w, NULL));
        same_as_cursor(env, T, rows, "after growth");
    }
    /* the map did grow past its first size: the rounds scanned more than one map */
    orc_txn *r;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK(r->core->map_size > (1u << 20));
    orc_txn_abort(r);
    orc_env_close(env);
}

/*
 * Readers scanning while a writer grows the table and the map under them. A
 * reader scans once after each commit it sees (the map can grow only while no
 * transaction of the process is open, so readers must leave it gaps).
 */
typedef struct scanner {
    orc_env *env;
    uint32_t table;
    int commits; /* written by the writer */
    int stop;
    int scans, failures;
    char why[256];
} scanner;

static void *scan_loop(void *arg)
{
    scanner *sc = arg;
    int last = -1;
    for (;;) {
        int now = __atomic_load_n(&sc->commits, __ATOMIC_ACQUIRE);
        if (now == last) {
            if (__atomic_load_n(&sc->stop, __ATOMIC_ACQUIRE)) break;
            sched_yield();
            continue;
        }
        last = now;
        orc_txn *r;
        if (orc_txn_begin(sc->env, ORC_TXN_READ, &r) != ORC_OK) continue;
        uint64_t count = 0;
        int rc = orc_table_count(r, sc->table, &count);
        seen s = {0};
        bool walked = false;
        if (rc == ORC_OK) rc = scan_all(r, sc->table, &s, &walked);
        /* every row of the snapshot, in ascending key order */
        bool ok = rc == ORC_OK && s.n == count && walked == (count >= 64);
        for (size_t i = 1; ok && i < s.n; i++) ok = s.keys[i] > s.keys[i - 1];
        if (!ok && __atomic_fetch_add(&sc->failures, 1, __ATOMIC_RELAXED) == 0)
            snprintf(sc->why, sizeof sc->why, "rc %d (%s), %zu rows scanned of %llu, walked %d", rc, orc_last_error(),
                     s.n, (unsigned long long)count, walked);
        seen_free(&s);
        orc_txn_abort(r);
        __atomic_fetch_add(&sc->scans, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

TEST(scan_walk_beside_a_growing_writer)
{
    orc_env *env;
    orc_txn *w;
    scanner sc = {0};
    uint16_t col;
    orc_env_options opt = {.initial_map_size = 1u << 20};
    CHECK_OK(orc_env_open(test_path("scan-threads.realm"), ORC_ENV_NO_SYNC, &opt, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "Row", ORC_CLASS_TOP_LEVEL, &sc.table));
    add_prop(w, sc.table, "s", ORC_TYPE_STRING, &col);
    CHECK_OK(orc_txn_commit(w, NULL));
    sc.env = env;
    pthread_t th[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&th[i], NULL, scan_loop, &sc) == 0);
    for (int commit = 1; commit <= 40; commit++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        for (int i = 0; i < 1000; i++) {
            orc_value v = v_strn(text_of(120, (uint64_t)i), 120);
            CHECK_OK(orc_obj_create(w, sc.table, &col, &v, 1, NULL));
        }
        CHECK_OK(orc_txn_commit(w, NULL));
        __atomic_store_n(&sc.commits, commit, __ATOMIC_RELEASE);
    }
    /* each reader scans the final table too: wait, with a deadline, until both have */
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int before = __atomic_load_n(&sc.scans, __ATOMIC_RELAXED);
    __atomic_store_n(&sc.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (sc.failures) test_fail(__FILE__, __LINE__, "%d scans failed; the first: %s", sc.failures, sc.why);
    CHECK(sc.scans >= 2 && sc.scans >= before);
    orc_txn *r;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK(r->core->map_size > (1u << 20));
    orc_txn_abort(r);
    orc_env_close(env);
}

/* ------------------------------------------------------------------------ */
/* Rows by key (scan.c, READING ROWS BY KEY)                                */
/* ------------------------------------------------------------------------ */

/* One read of a row by key: its status and, when found, a digest of its row. */
static int read_one(orc_txn *t, uint32_t table, uint64_t key, uint64_t *digest)
{
    const uint8_t *row;
    size_t size;
    int rc = obj_row(t, table, key, &row, &size);
    *digest = rc == ORC_OK ? fnv(row, size) ^ size : 0;
    return rc;
}

/*
 * Reads by key in a read transaction (the row readers) against the same reads in
 * a write transaction (mdb_get), over tables thinned by erasures with rows on
 * overflow pages, in every order a reader meets: ascending one by one (the step),
 * ascending with gaps below and above the step's reach, at random, descending,
 * keys never used, 0 and the largest; spread over more tables than there are
 * readers, so readers are set up again mid-way; and orc_obj_next from the start.
 */
TEST(scan_rows_by_key_match_the_cursor)
{
    orc_env *env;
    orc_txn *w;
    enum { TABLES = 10, ROWS = 3000 };
    uint32_t T[TABLES];
    uint16_t c_s[TABLES];
    uint64_t rnd = test_seed() ^ 0x5eed;
    CHECK_OK(test_open_writing(test_path("scan-keys.realm"), &env, &w));
    uint64_t max_key = 0;
    for (int t = 0; t < TABLES; t++) {
        char name[16];
        snprintf(name, sizeof name, "K%d", t);
        CHECK_OK(orc_class_add(w, name, ORC_CLASS_TOP_LEVEL, &T[t]));
        add_prop(w, T[t], "s", ORC_TYPE_STRING, &c_s[t]);
        size_t rows = t == TABLES - 1 ? 40 : ROWS; /* the last is small: read through the cursor */
        for (size_t i = 0; i < rows; i++) {
            size_t n = random_size(&rnd);
            orc_value v = v_strn(text_of(n, i + (size_t)t), n);
            uint64_t k;
            CHECK_OK(orc_obj_create(w, T[t], &c_s[t], &v, 1, &k));
            if (k > max_key) max_key = k;
        }
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    for (int t = 0; t < TABLES; t++)
        for (uint64_t k = 1; k <= max_key; k++) /* runs of erased rows, and single ones */
            if ((k / 100) % 5 == 3 || test_rand(&rnd) % 7 == 0) {
                int rc = orc_obj_erase(w, T[t], k);
                if (rc != ORC_ERR_NOT_FOUND) CHECK_OK(rc);
            }
    CHECK_OK(orc_txn_commit(w, NULL));

    /* the keys to read, in several orders */
    size_t nq = 0, cap = (size_t)(max_key + 10) * 6;
    uint64_t *qs = malloc(cap * sizeof *qs);
    uint32_t *qt = malloc(cap * sizeof *qt);
    CHECK(qs && qt);
    for (uint64_t k = 0; k <= max_key + 2; k++) qs[nq] = k, qt[nq++] = T[0];                   /* ascending */
    for (uint64_t k = 1; k <= max_key; k += 1 + test_rand(&rnd) % 90) qs[nq] = k, qt[nq++] = T[1]; /* gaps */
    for (uint64_t k = max_key + 1; k > 0; k--) qs[nq] = k, qt[nq++] = T[2];                    /* descending */
    for (size_t i = 0; i < (size_t)max_key; i++) {                                                /* at random */
        qs[nq] = test_rand(&rnd) % (max_key + 3);
        qt[nq++] = T[test_rand(&rnd) % TABLES];
    }
    for (uint64_t k = 1; k <= max_key; k++) qs[nq] = k, qt[nq++] = T[k % TABLES];              /* tables in turn */
    qs[nq] = UINT64_MAX, qt[nq++] = T[3];

    orc_txn *r;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    size_t found = 0;
    for (size_t i = 0; i < nq; i++) {
        uint64_t a, b;
        int ra = read_one(r, qt[i], qs[i], &a), rb = read_one(w, qt[i], qs[i], &b);
        if (ra != rb || a != b) {
            test_fail(__FILE__, __LINE__, "read %zu (table %u, key %llu): %d / %d, digest %llx / %llx", i,
                      (unsigned)qt[i], (unsigned long long)qs[i], ra, rb, (unsigned long long)a, (unsigned long long)b);
            break;
        }
        found += ra == ORC_OK;
    }
    CHECK(found > nq / 3 && found < nq);
    /* the reads went through row readers (the small table's through the cursor) */
    bool usable = false, small_usable = false, shaped = false;
    for (unsigned i = 0; r->readers && i < ROW_READERS; i++) {
        if (r->readers[i].table && r->readers[i].table != T[TABLES - 1]) usable |= r->readers[i].usable;
        if (r->readers[i].table == T[TABLES - 1]) small_usable |= r->readers[i].usable;
        /* their descents asked for leaves from the last leaf's shape (ASKING FOR A LEAF BEFORE SEARCHING IT) */
        shaped |= r->readers[i].usable && r->readers[i].w.depth > 1 && r->readers[i].w.shape.n > 0;
    }
    CHECK(usable && !small_usable && shaped);
    /* every table from the start with orc_obj_next, and a restart in the middle */
    for (int t = 0; t < TABLES; t++) {
        uint64_t ka = 0, kb = 0;
        size_t n = 0;
        for (;;) {
            int ra = orc_obj_next(r, T[t], ka, &ka), rb = orc_obj_next(w, T[t], kb, &kb);
            if (ra != rb || (ra == ORC_OK && ka != kb)) {
                test_fail(__FILE__, __LINE__, "table %d, step %zu: %d / %d, key %llu / %llu", t, n, ra, rb,
                          (unsigned long long)ka, (unsigned long long)kb);
                break;
            }
            if (ra != ORC_OK) {
                CHECK_RC(ra, ORC_ERR_NOT_FOUND);
                break;
            }
            n++;
            if (n == 50) { /* a point read elsewhere moves the reader; next must find its way back */
                uint64_t d;
                (void)read_one(r, T[t], max_key / 2, &d);
            }
        }
        CHECK(n > 10);
    }
    orc_txn_abort(w);
    orc_txn_abort(r);
    free(qs);
    free(qt);
    orc_env_close(env);
}

/* ------------------------------------------------------------------------ */
/* Primary keys (scan.c, FINDING PRIMARY KEYS)                              */
/* ------------------------------------------------------------------------ */

enum { PK_INT, PK_STRING, PK_OID, PK_UUID, PK_OPT, PK_SMALL, PK_CLASSES };
static const unsigned pk_count[PK_CLASSES] = {6000, 5000, 5000, 3000, 400, 40};

/*
 * Key i of class c, spread the ways keys are: dense runs and cubes far apart
 * (ints, with both ends of the range), strings sharing long prefixes, of many
 * lengths, empty, with zero bytes (escaped by keyenc), ObjectIds counting up
 * behind one timestamp and at random, random UUIDs, a null among optional ints.
 */
static orc_value pk_key(int c, unsigned i, uint8_t buf[320])
{
    uint64_t r = 0x9e3779b97f4a7c15ull * (i + 1) ^ (uint64_t)c << 40;
    r ^= r >> 29;
    r *= 0xbf58476d1ce4e5b9ull;
    r ^= r >> 32;
    switch (c) {
    case PK_INT:
        if (i == 0) return v_int(INT64_MIN);
        if (i == 1) return v_int(INT64_MAX);
        if (i < 3000) return v_int((int64_t)i);                                        /* a dense run */
        int64_t x = (int64_t)i - 2800;
        return v_int(x * x * x * (i % 2 ? 1 : -1)); /* cubes, far apart */
    case PK_STRING: {
        if (i == 0) return v_strn("", 0);
        int n;
        if (i % 5 == 0) n = snprintf((char *)buf, 320, "%u", (unsigned)r); /* short, random */
        else n = snprintf((char *)buf, 320, "tenant/0042/projects/alpha/tasks/%0*u", 1 + (int)(i % 9), i); /* shared prefix */
        if (i % 17 == 0) { /* a zero byte */
            memmove(buf + n / 2 + 1, buf + n / 2, (size_t)n - (size_t)n / 2);
            buf[n / 2] = 0;
            n++;
        }
        if (i % 23 == 0) {                                                                /* long */
            memset(buf + n, 'z', 200);
            n += 200;
        }
        return v_strn((const char *)buf, (size_t)n);
    }
    case PK_OID: {
        orc_value v = {.type = ORC_TYPE_OBJECT_ID};
        if (i % 2) {
            uint64_t r2 = (r ^ 0x5851f42d4c957f2dull) * 0x9e3779b97f4a7c15ull;
            for (int j = 0; j < 8; j++) v.object_id[j] = (uint8_t)(r >> (8 * j));
            for (int j = 0; j < 4; j++) v.object_id[8 + j] = (uint8_t)(r2 >> (8 * j));
        } else {
            static const uint8_t head[9] = {0x65, 0x43, 0x21, 0x00, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
            memcpy(v.object_id, head, 9);
            v.object_id[9] = (uint8_t)(i >> 16), v.object_id[10] = (uint8_t)(i >> 8), v.object_id[11] = (uint8_t)i;
        }
        return v;
    }
    case PK_UUID: {
        orc_value v = {.type = ORC_TYPE_UUID};
        uint64_t r2 = (r ^ 0x5851f42d4c957f2dull) * 0x9e3779b97f4a7c15ull;
        for (int j = 0; j < 8; j++) v.uuid[j] = (uint8_t)(r >> (8 * j)), v.uuid[8 + j] = (uint8_t)(r2 >> (8 * j));
        return v;
    }
    case PK_OPT: return i == 0 ? v_null() : v_int((int64_t)i * 7);
    default: return v_int((int64_t)i * 3);
    }
}

/* A key near k that may or may not be stored: one step off in its last byte, longer, shorter. */
static orc_value pk_near(orc_value k, unsigned how, uint8_t buf[330])
{
    switch (k.type) {
    case ORC_TYPE_INT: k.integer += how % 3 == 0 ? 1 : how % 3 == 1 ? -1 : 1000003; return k;
    case ORC_TYPE_STRING: {
        size_t n = k.string.size;
        memcpy(buf, k.string.data, n);
        if (how % 3 == 0) buf[n++] = (uint8_t)('a' + how % 26);
        else if (how % 3 == 1 && n) n--;
        else if (n) buf[n - 1]++;
        return v_strn((const char *)buf, n);
    }
    case ORC_TYPE_OBJECT_ID: k.object_id[11 - how % 3] ^= (uint8_t)(1 + how % 7); return k;
    case ORC_TYPE_UUID: k.uuid[15 - how % 5] += 1; return k;
    default: return v_int((int64_t)how);
    }
}

/*
 * Primary-key lookups in a read transaction (the index's own descent) against the
 * same lookups in a write transaction (mdb_get): every stored key of six classes
 * (int, string, ObjectId, UUID, optional int with a null, one class too small for
 * the walk), keys beside each stored one and at random, after erasures thin the
 * index's pages unevenly, so the leaf a lookup asks for from the last leaf's shape
 * is often shaped otherwise. The large classes' lookups went through the walk.
 */
TEST(scan_pk_lookups_match_mdb_get)
{
    static const orc_type types[PK_CLASSES] = {ORC_TYPE_INT, ORC_TYPE_STRING, ORC_TYPE_OBJECT_ID, ORC_TYPE_UUID,
                                               ORC_TYPE_INT, ORC_TYPE_INT};
    orc_env *env;
    orc_txn *w;
    uint32_t T[PK_CLASSES];
    uint16_t col[PK_CLASSES];
    uint8_t buf[330];
    uint64_t rnd = test_seed() ^ 0x9c;
    CHECK_OK(test_open_writing(test_path("scan-pk.realm"), &env, &w));
    for (int c = 0; c < PK_CLASSES; c++) {
        char name[16];
        snprintf(name, sizeof name, "PK%d", c);
        CHECK_OK(orc_class_add(w, name, ORC_CLASS_TOP_LEVEL, &T[c]));
        orc_prop_spec spec = {.name = "id", .type = types[c], .collection = ORC_COLL_NONE,
                              .flags = ORC_PROP_PRIMARY_KEY | (c == PK_OPT ? ORC_PROP_OPTIONAL : 0u)};
        CHECK_OK(orc_prop_add(w, T[c], &spec, &col[c]));
        for (unsigned i = 0; i < pk_count[c]; i++) {
            orc_value v = pk_key(c, i, buf);
            uint64_t k;
            CHECK_OK(orc_obj_create(w, T[c], &col[c], &v, 1, &k));
        }
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w)); /* erasures: runs and single objects */
    for (int c = 0; c < PK_CLASSES - 1; c++)
        for (unsigned i = 0; i < pk_count[c]; i++)
            if ((i / 150) % 4 == 2 || test_rand(&rnd) % 6 == 0) {
                orc_value v = pk_key(c, i, buf);
                uint64_t k;
                CHECK_OK(orc_obj_find(w, T[c], &v, &k));
                CHECK_OK(orc_obj_erase(w, T[c], k));
            }
    CHECK_OK(orc_txn_commit(w, NULL));

    orc_txn *r;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    size_t found = 0, missing = 0;
    for (int c = 0; c < PK_CLASSES; c++) {
        for (unsigned i = 0; i < 3 * pk_count[c] + 50; i++) {
            unsigned which = i % pk_count[c];
            orc_value v = pk_key(c, which, buf);
            uint8_t near_buf[330];
            if (i >= pk_count[c] && i < 3 * pk_count[c]) v = pk_near(v, i, near_buf);
            else if (i >= 3 * pk_count[c]) v = pk_key(c, pk_count[c] + (unsigned)(test_rand(&rnd) % 100000), buf);
            uint64_t a = 0, b = 0;
            int ra = orc_obj_find(r, T[c], &v, &a), rb = orc_obj_find(w, T[c], &v, &b);
            if (ra != rb || (ra == ORC_OK && a != b)) {
                test_fail(__FILE__, __LINE__, "class %d, lookup %u: %d / %d, key %llu / %llu", c, i, ra, rb,
                          (unsigned long long)a, (unsigned long long)b);
                goto out;
            }
            if (ra == ORC_OK) found++;
            else {
                CHECK_RC(ra, ORC_ERR_NOT_FOUND);
                missing++;
            }
        }
    }
    CHECK(found > 10000 && missing > 10000);
    /* the large classes' indexes were read by the walk, the small one's by mdb_get */
    for (int c = 0; c < PK_CLASSES; c++) {
        bool walked = false;
        for (unsigned i = 0; r->readers && i < ROW_READERS; i++)
            if (r->readers[i].table == T[c])
                walked = r->readers[i].usable && r->readers[i].pk_walk && r->readers[i].pk_shape.n > 0;
        if (walked != (c != PK_SMALL)) test_fail(__FILE__, __LINE__, "class %d: walked %d", c, walked);
    }
out:
    orc_txn_abort(w);
    orc_txn_abort(r);
    orc_env_close(env);
}
