/*
 * test_index_bulk.c — deferred index entries (index.c, "DEFERRED INSERTS").
 *
 * A write transaction keeps the index entries of the objects it creates aside and
 * puts them sorted when something reads or removes index entries, and at commit.
 * These tests check that nothing can tell: queries inside the transaction see the
 * pending entries, changes and erasures after them are right, map growth in the
 * middle replays them, orc_env_check finds every entry after commit, and a bulk
 * insert leaves full chunks in full index pages (the reason for deferring).
 */
#include "harness.h"
#include "index_fixture.h"
#include "query_builder.h"
#include "object.h"

#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>

/* Task: assignee String (indexed, 100 values) | n Int (indexed, i % 7) */
typedef struct bfx {
    orc_env *env;
    uint32_t T;
    uint16_t who, n;
} bfx;

static int bfx_schema(orc_txn *w, bfx *f)
{
    int rc = orc_class_add(w, "Task", ORC_CLASS_TOP_LEVEL, &f->T);
    orc_prop_spec who = {.name = "assignee", .type = ORC_TYPE_STRING, .flags = ORC_PROP_INDEXED};
    orc_prop_spec n = {.name = "n", .type = ORC_TYPE_INT, .flags = ORC_PROP_INDEXED};
    if (!rc) rc = orc_prop_add(w, f->T, &who, &f->who);
    if (!rc) rc = orc_prop_add(w, f->T, &n, &f->n);
    return rc;
}

static int add_task(orc_txn *w, const bfx *f, int i, uint64_t *key)
{
    char name[16];
    int len = snprintf(name, sizeof name, "user %d", i % 100);
    uint16_t cols[2] = {f->who, f->n};
    orc_value vals[2] = {{.type = ORC_TYPE_STRING, .string = {name, (size_t)len}},
                         {.type = ORC_TYPE_INT, .integer = i % 7}};
    return orc_obj_create(w, f->T, cols, vals, 2, key);
}

/* How many objects `col == v` finds through the index (count and run must agree). */
long long index_eq_count(orc_txn *txn, uint32_t table, uint16_t col, orc_value v)
{
    qb prog = {0};
    qb_cmp_const(&prog, ORC_CMP_EQ, 0, col, &v);
    orc_query *q = NULL;
    uint64_t n = 0;
    orc_keys k = {0};
    long long res = -1;
    if (orc_query_compile(txn, table, prog.p, prog.n, &q) == ORC_OK && orc_query_count(txn, q, &n) == ORC_OK
        && orc_query_used_index(q) && orc_query_run(txn, q, &k) == ORC_OK && k.count == n)
        res = (long long)n;
    orc_query_free(q);
    orc_keys_free(&k);
    free(prog.p);
    return res;
}

static orc_value vs(const char *s) { return (orc_value){.type = ORC_TYPE_STRING, .string = {s, strlen(s)}}; }
static orc_value vi(int64_t i) { return (orc_value){.type = ORC_TYPE_INT, .integer = i}; }

TEST(index_bulk_reads_see_pending_entries)
{
    bfx f = {0};
    orc_txn *w;
    const int N = 3000;
    uint64_t keys[3000];
    CHECK_OK(test_open_writing(test_path("pending.realm"), &f.env, &w));
    CHECK_OK(bfx_schema(w, &f));
    for (int i = 0; i < N; i++) CHECK_OK(add_task(w, &f, i, &keys[i]));
    /* read before any flush: the query puts the pending entries first */
    CHECK_EQ(index_eq_count(w, f.T, f.who, vs("user 7")), N / 100);
    CHECK_EQ(index_eq_count(w, f.T, f.n, vi(3)), (N + 3) / 7);
    /* entries deferred after a flush, then changed and erased before the next one */
    for (int i = N; i < N + 100; i++) CHECK_OK(add_task(w, &f, i, NULL));
    orc_value other = vs("user 7");
    CHECK_OK(orc_obj_set(w, f.T, keys[8], f.who, &other)); /* user 8 -> user 7 */
    CHECK_OK(orc_obj_erase(w, f.T, keys[107]));            /* a user 7 */
    CHECK_EQ(index_eq_count(w, f.T, f.who, vs("user 7")), N / 100 + 1 + 1 - 1);
    CHECK_EQ(index_eq_count(w, f.T, f.who, vs("user 8")), N / 100 + 1 - 1);
    CHECK_COMMIT_ENV(w, f.env);

    /* a transaction that only creates, then commits: every entry is there */
    CHECK_OK(orc_txn_begin(f.env, ORC_TXN_WRITE, &w));
    for (int i = N + 100; i < N + 200; i++) CHECK_OK(add_task(w, &f, i, NULL));
    CHECK_COMMIT_ENV(w, f.env);
    orc_txn *r;
    CHECK_OK(orc_txn_begin(f.env, ORC_TXN_READ, &r));
    CHECK_EQ(index_eq_count(r, f.T, f.who, vs("user 7")), (N + 200) / 100 + 1 - 1);
    CHECK_EQ(index_eq_count(r, f.T, f.who, vs("user 99")), (N + 200) / 100);
    orc_txn_abort(r);

    /* an aborted transaction leaves no entry behind */
    CHECK_OK(orc_txn_begin(f.env, ORC_TXN_WRITE, &w));
    for (int i = 0; i < 50; i++) CHECK_OK(add_task(w, &f, 5, NULL));
    orc_txn_abort(w);
    CHECK_OK(orc_txn_begin(f.env, ORC_TXN_READ, &r));
    CHECK_EQ(index_eq_count(r, f.T, f.who, vs("user 5")), (N + 200) / 100);
    orc_txn_abort(r);
    CHECK_ENV(f.env);
    orc_env_close(f.env);
}

TEST(index_bulk_survives_map_growth)
{
    bfx f = {0};
    orc_txn *w;
    orc_env_options opt = {.initial_map_size = 1 << 20};
    const int N = 60000; /* several MB of rows and entries: the 1 MiB map grows while entries are pending */
    CHECK_OK(orc_env_open(test_path("growidx.realm"), ORC_ENV_NO_SYNC, &opt, &f.env));
    CHECK_OK(orc_txn_begin(f.env, ORC_TXN_WRITE, &w));
    CHECK_OK(bfx_schema(w, &f));
    for (int i = 0; i < N / 2; i++) CHECK_OK(add_task(w, &f, i, NULL));
    CHECK_EQ(index_eq_count(w, f.T, f.who, vs("user 42")), N / 2 / 100);
    for (int i = N / 2; i < N; i++) CHECK_OK(add_task(w, &f, i, NULL));
    CHECK_COMMIT_ENV(w, f.env);
    orc_txn *r;
    CHECK_OK(orc_txn_begin(f.env, ORC_TXN_READ, &r));
    CHECK_EQ(index_eq_count(r, f.T, f.who, vs("user 42")), N / 100);
    CHECK_EQ(index_eq_count(r, f.T, f.n, vi(6)), N / 7);
    orc_txn_abort(r);
    orc_env_close(f.env);
}

TEST(index_bulk_insert_fills_pages)
{
    bfx f = {0};
    orc_txn *w;
    const int N = 40000;
    const char *path = test_path("packed.realm");
    CHECK_OK(test_open_writing(path, &f.env, &w));
    CHECK_OK(bfx_schema(w, &f));
    for (int i = 0; i < N; i++) CHECK_OK(add_task(w, &f, i, NULL));
    CHECK_COMMIT_ENV(w, f.env);
    orc_env_close(f.env);

    /* Read the "idx" database with LMDB itself: every object in a chunk, the chunks of
     * each value full but its last, the leaf pages the fewest the chunks fit in. */
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_stat st;
    CHECK(mdb_env_create(&env) == 0);
    CHECK(mdb_env_set_maxdbs(env, 1024) == 0);
    CHECK(mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY, 0644) == 0);
    CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0);
    CHECK(mdb_dbi_open(txn, "idx", 0, &dbi) == 0);
    CHECK(mdb_stat(txn, dbi, &st) == 0);
    MDB_cursor *cur;
    MDB_val k, d, nk, nd;
    size_t bytes = 0, keys = 0, chunks = 0, short_chunks = 0;
    static uint64_t got[IDX_CHUNK_KEYS];
    CHECK(mdb_cursor_open(txn, dbi, &cur) == 0);
    for (int rc = mdb_cursor_get(cur, &k, &d, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &d, MDB_NEXT)) {
        size_t n = 0;
        CHECK_OK(idx_chunk_decode(ld64be((const uint8_t *)k.mv_data + k.mv_size - 8), d.mv_data, d.mv_size, got, &n));
        keys += n;
        chunks++;
        bytes += 8 + k.mv_size + d.mv_size + 2; /* node header, key, data, slot */
        /* a chunk with room left must be its value's last: the next key has another value */
        MDB_val pk = k;
        int next = mdb_cursor_get(cur, &nk, &nd, MDB_NEXT);
        if (next == 0 && d.mv_size + 10 < IDX_CHUNK_MAX && nk.mv_size == pk.mv_size
            && memcmp(nk.mv_data, pk.mv_data, pk.mv_size - 8) == 0)
            short_chunks++;
        if (next == 0) CHECK(mdb_cursor_get(cur, &k, &d, MDB_PREV) == 0);
    }
    mdb_cursor_close(cur);
    size_t least = (bytes + (st.ms_psize - 16) - 1) / (st.ms_psize - 16);
    mdb_txn_abort(txn);
    mdb_env_close(env);
    CHECK_EQ(keys, 2 * N);
    CHECK_EQ(short_chunks, 0);
    /* 100 + 7 values: a few hundred chunks, not an entry per object */
    if (chunks > 2 * N / 100) test_fail(__FILE__, __LINE__, "%zu chunks for %d objects", chunks, 2 * N);
    if (st.ms_leaf_pages > least + least / 10 + 1)
        test_fail(__FILE__, __LINE__, "%zu leaf pages for chunks that fit in %zu", st.ms_leaf_pages, least);
}

/* LMDB's key order over pending entries (u16 size | key), as qsort would give it. */
static int pending_order(const void *a, const void *b)
{
    const uint8_t *x = *(const uint8_t *const *)a, *y = *(const uint8_t *const *)b;
    size_t nx = ld16(x), ny = ld16(y);
    int c = memcmp(x + 2, y + 2, nx < ny ? nx : ny);
    return c ? c : (nx > ny) - (nx < ny);
}

/*
 * idx_order against a plain sort, on entries made as idx_insert makes them: few
 * value groups (the grouped path) and many (its qsort fallback), object keys that
 * arrive ascending, descending or shuffled within a group, the same entry twice,
 * values of several lengths that share leading bytes, two columns and two tables.
 */
TEST(index_bulk_orders_entries_as_lmdb_does)
{
    uint64_t seed = test_seed();
    for (int round = 0; round < 24; round++) {
        size_t n = 64 + (size_t)(test_rand(&seed) % 5000);
        size_t groups = round % 3 == 0 ? 1 + test_rand(&seed) % 8 : round % 3 == 1 ? 1 + n / 10 : n;
        int arrival = round % 4; /* 0 ascending keys, 1 descending, 2 shuffled, 3 ascending with repeats */
        orc_buf buf = {0};
        const uint8_t **e = malloc(n * sizeof *e), **want = malloc(n * sizeof *want);
        size_t *at = malloc(n * sizeof *at);
        CHECK(e && want && at);
        for (size_t i = 0; i < n; i++) {
            uint64_t g = test_rand(&seed) % groups;
            char text[40];
            /* "v", "v1", "v12", ...: values that are prefixes of one another before keyenc */
            int len = snprintf(text, sizeof text, "v%llu", (unsigned long long)(g * 7919 % 100000));
            orc_value v = g % 5 == 4 ? (orc_value){.type = ORC_TYPE_INT, .integer = (int64_t)g - 40}
                                     : (orc_value){.type = ORC_TYPE_STRING, .string = {text, (size_t)len}};
            uint64_t key = arrival == 1 ? n - i : arrival == 2 ? test_rand(&seed) % (4 * n) + 1 : arrival == 3 ? i / 3 + 1 : i + 1;
            orc_buf k = {0};
            CHECK_OK(buf_reserve(&k, 6));
            st32be(k.data, 3 + (uint32_t)(g % 2));
            st16be(k.data + 4, (uint16_t)(g % 3));
            k.size = 6;
            CHECK_OK(keyenc(&k, &v, NULL));
            CHECK_OK(buf_reserve(&k, 8));
            st64be(k.data + k.size, key);
            k.size += 8;
            at[i] = buf.size;
            CHECK_OK(buf_put_u16(&buf, (uint16_t)k.size));
            CHECK_OK(buf_put(&buf, k.data, k.size));
            buf_free(&k);
        }
        for (size_t i = 0; i < n; i++) e[i] = want[i] = buf.data + at[i];
        qsort(want, n, sizeof *want, pending_order);
        CHECK_OK(idx_order(e, n));
        for (size_t i = 0; i < n; i++) {
            /* equal entries may come in either order: compare the bytes */
            size_t ne = ld16(e[i]), nw = ld16(want[i]);
            if (ne != nw || memcmp(e[i], want[i], 2 + ne))
                test_fail(__FILE__, __LINE__, "round %d (%zu entries, %zu groups, arrival %d): entry %zu out of order",
                          round, n, groups, arrival, i);
        }
        free(e);
        free(want);
        free(at);
        buf_free(&buf);
    }
}

/* A bulk insert whose indexed values are all distinct (the ordering's qsort fallback) and
 * one with a few values whose objects arrive across two classes. */
TEST(index_bulk_distinct_values_are_all_found)
{
    bfx f = {0};
    orc_txn *w;
    const int N = 5000;
    CHECK_OK(test_open_writing(test_path("distinct.realm"), &f.env, &w));
    CHECK_OK(bfx_schema(w, &f));
    for (int i = 0; i < N; i++) {
        char name[16];
        int len = snprintf(name, sizeof name, "u%d", (i * 7919) % N);
        uint16_t cols[2] = {f.who, f.n};
        orc_value vals[2] = {{.type = ORC_TYPE_STRING, .string = {name, (size_t)len}}, vi(N - i)};
        CHECK_OK(orc_obj_create(w, f.T, cols, vals, 2, NULL));
    }
    CHECK_COMMIT_ENV(w, f.env);
    orc_txn *r;
    CHECK_OK(orc_txn_begin(f.env, ORC_TXN_READ, &r));
    CHECK_EQ(index_eq_count(r, f.T, f.who, vs("u4999")), 1);
    CHECK_EQ(index_eq_count(r, f.T, f.who, vs("u0")), 1);
    CHECK_EQ(index_eq_count(r, f.T, f.n, vi(1)), 1);
    CHECK_EQ(index_eq_count(r, f.T, f.n, vi(N + 1)), 0);
    orc_txn_abort(r);
    orc_env_close(f.env);
}
