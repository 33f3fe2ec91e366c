/*
 * test_index_chunks.c — format 3's index chunks and primary-key values (index.c,
 * CHUNKS; scan.h, pk_value_put), and format 2 files, which keep one index entry
 * per object and 8-byte primary-key values.
 *
 * The file is read with LMDB itself to see the layout: chunk sizes after ascending
 * inserts, inserts between a value's keys and erasures; damaged chunks are written
 * the same way and must be reported, never followed.
 */
#include "harness.h"
#include "index_fixture.h"
#include "object.h"

#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>

/* Job: id Int (primary key) | v Int (indexed) | s String (indexed) */
typedef struct jobs {
    orc_env *env;
    uint32_t T;
    uint16_t id, v, s;
} jobs;

static orc_value iv(int64_t i) { return (orc_value){.type = ORC_TYPE_INT, .integer = i}; }
static orc_value sv(const char *s) { return (orc_value){.type = ORC_TYPE_STRING, .string = {s, strlen(s)}}; }

static int jobs_open(const char *path, jobs *j)
{
    int rc = orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &j->env);
    orc_txn *w;
    if (!rc) rc = orc_txn_begin(j->env, ORC_TXN_WRITE, &w);
    if (rc) return rc;
    orc_class_info ci;
    if (orc_schema_class_find(w, "Job", &ci) == ORC_OK) {
        orc_prop_info id, v, s;
        j->T = ci.table;
        rc = orc_schema_prop_find(w, j->T, "id", &id);
        if (!rc) rc = orc_schema_prop_find(w, j->T, "v", &v);
        if (!rc) rc = orc_schema_prop_find(w, j->T, "s", &s);
        j->id = id.col, j->v = v.col, j->s = s.col;
        orc_txn_abort(w);
        return rc;
    }
    orc_prop_spec id = {.name = "id", .type = ORC_TYPE_INT, .flags = ORC_PROP_PRIMARY_KEY};
    orc_prop_spec v = {.name = "v", .type = ORC_TYPE_INT, .flags = ORC_PROP_INDEXED};
    orc_prop_spec s = {.name = "s", .type = ORC_TYPE_STRING, .flags = ORC_PROP_INDEXED};
    rc = orc_class_add(w, "Job", ORC_CLASS_TOP_LEVEL, &j->T);
    if (!rc) rc = orc_prop_add(w, j->T, &id, &j->id);
    if (!rc) rc = orc_prop_add(w, j->T, &v, &j->v);
    if (!rc) rc = orc_prop_add(w, j->T, &s, &j->s);
    if (!rc) return orc_txn_commit(w, NULL);
    orc_txn_abort(w);
    return rc;
}

static const char *names[] = {"ann", "bo", "cy"};

static int add_job(orc_txn *w, const jobs *j, int64_t id, int64_t v, uint64_t *key)
{
    uint16_t cols[3] = {j->id, j->v, j->s};
    orc_value vals[3] = {iv(id), iv(v), sv(names[v % 3])};
    return orc_obj_create(w, j->T, cols, vals, 3, key);
}

/* A closed realm file opened with LMDB itself, in one transaction. */
typedef struct raw {
    MDB_env *env;
    MDB_txn *txn;
} raw;

/* Opens `path` and begins a transaction (read-only unless `write`); false, with nothing left open, on failure. */
static bool raw_begin(const char *path, bool write, raw *r)
{
    if (mdb_env_create(&r->env)) return false;
    unsigned flags = write ? 0 : MDB_RDONLY;
    if (mdb_env_set_maxdbs(r->env, 64) || mdb_env_open(r->env, path, MDB_NOSUBDIR | flags, 0644)
        || mdb_txn_begin(r->env, NULL, flags, &r->txn)) {
        mdb_env_close(r->env);
        return false;
    }
    return true;
}

/* Ends raw_begin's transaction, committed when `ok` and aborted otherwise, and closes the file; whether all went well. */
static bool raw_end(raw *r, bool ok)
{
    if (ok) ok = mdb_txn_commit(r->txn) == 0;
    else mdb_txn_abort(r->txn);
    mdb_env_close(r->env);
    return ok;
}

/* The chunks of one value of Job.v, read with LMDB: their count, keys, and data sizes. */
typedef struct chunk_stats {
    size_t chunks, keys, smallest, full; /* smallest: data bytes of the smallest chunk but the last */
    uint64_t first_keys[4096];
} chunk_stats;

static bool read_chunks(const char *path, const jobs *j, int64_t v, chunk_stats *cs)
{
    memset(cs, 0, sizeof *cs);
    cs->smallest = SIZE_MAX;
    orc_buf g = {0};
    uint8_t head[IDX_PREFIX_BYTES];
    st32be(head, j->T);
    st16be(head + 4, j->v);
    orc_value val = iv(v);
    raw r;
    if (buf_put(&g, head, sizeof head) || keyenc(&g, &val, NULL) || !raw_begin(path, false, &r)) {
        buf_free(&g);
        return false;
    }
    MDB_dbi dbi;
    MDB_cursor *cur = NULL;
    bool ok = !mdb_dbi_open(r.txn, "idx", 0, &dbi) && !mdb_cursor_open(r.txn, dbi, &cur);
    static uint64_t got[IDX_CHUNK_KEYS];
    MDB_val k = {g.size, g.data}, d;
    size_t last_size = 0;
    for (int rc = ok ? mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE) : 1; ok && rc == 0;
         rc = mdb_cursor_get(cur, &k, &d, MDB_NEXT)) {
        if (k.mv_size != g.size + 8 || memcmp(k.mv_data, g.data, g.size)) break;
        size_t n;
        ok = idx_chunk_decode(ld64be((const uint8_t *)k.mv_data + g.size), d.mv_data, d.mv_size, got, &n) == ORC_OK;
        if (cs->chunks && last_size < cs->smallest) cs->smallest = last_size;
        if (cs->chunks < 4096) cs->first_keys[cs->chunks] = got[0];
        cs->chunks++;
        cs->keys += n;
        cs->full += d.mv_size + 10 > IDX_CHUNK_MAX;
        last_size = d.mv_size;
    }
    if (cur) mdb_cursor_close(cur); /* a read-only transaction's cursors are the caller's to close */
    buf_free(&g);
    return raw_end(&r, ok);
}

TEST(index_chunk_decode_rejects_malformed_chunks)
{
    uint64_t out[IDX_CHUNK_KEYS];
    size_t n = 0;
    /* 10, then +1, +300 (two bytes), +2^63 - 1 (nine bytes) */
    const uint8_t good[] = {0x01, 0xAC, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
    CHECK_OK(idx_chunk_decode(10, good, sizeof good, out, &n));
    CHECK_EQ(n, 4);
    CHECK(out[0] == 10 && out[1] == 11 && out[2] == 311 && out[3] == 311 + ((UINT64_C(1) << 63) - 1));
    CHECK_OK(idx_chunk_decode(7, NULL, 0, out, &n));
    CHECK(n == 1 && out[0] == 7);
    struct {
        const char *what;
        uint8_t bytes[12];
        size_t n;
        uint64_t first;
    } bad[] = {
        {"a zero distance", {0x00}, 1, 1},
        {"a varint cut short", {0x05, 0x80}, 2, 1},
        {"a varint not in its fewest bytes", {0x80, 0x00}, 2, 1},
        {"a varint past 64 bits", {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02}, 10, 1},
        {"eleven varint bytes", {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 11, 1},
        {"a key past UINT64_MAX", {0x02}, 1, UINT64_MAX - 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (idx_chunk_decode(bad[i].first, bad[i].bytes, bad[i].n, out, &n) != ORC_ERR_CORRUPT)
            test_fail(__FILE__, __LINE__, "%s was accepted", bad[i].what);
    /* more bytes than a chunk holds, although each varint is fine */
    uint8_t ones[IDX_CHUNK_MAX + 1];
    memset(ones, 1, sizeof ones);
    CHECK_OK(idx_chunk_decode(1, ones, IDX_CHUNK_MAX, out, &n));
    CHECK_EQ(n, IDX_CHUNK_KEYS);
    CHECK_RC(idx_chunk_decode(1, ones, sizeof ones, out, &n), ORC_ERR_CORRUPT);
}

TEST(index_chunk_primary_key_values_take_the_bytes_they_need)
{
    uint8_t b[8];
    uint64_t k;
    struct {
        uint64_t key;
        size_t n;
    } cases[] = {{0, 1}, {1, 1}, {255, 1}, {256, 2}, {70000, 3}, {UINT64_C(1) << 40, 6}, {UINT64_MAX, 8}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = pk_value_put(b, cases[i].key, 3);
        CHECK_EQ(n, cases[i].n);
        CHECK(pk_value_get(b, n, 3, &k) && k == cases[i].key);
        CHECK_EQ(pk_value_put(b, cases[i].key, 2), 8);
        CHECK(pk_value_get(b, 8, 2, &k) && k == cases[i].key);
        CHECK(!pk_value_get(b, 8, 3, &k) || cases[i].n == 8); /* format 3 reads only the fewest bytes */
    }
    const uint8_t wide[2] = {5, 0};
    CHECK(!pk_value_get(wide, 2, 3, &k));
    CHECK(!pk_value_get(wide, 0, 3, &k));
    CHECK(!pk_value_get(wide, 2, 2, &k));
}

/*
 * Ascending inserts fill each chunk of a value before the next; objects moved into a
 * value between its keys split chunks evenly; erasing a chunk's first key moves the
 * chunk to its next key; erasing every object of a value leaves no chunk of it.
 */
TEST(index_chunks_fill_split_and_empty)
{
    const char *path = test_path("chunks.realm");
    jobs j;
    orc_txn *w;
    const int N = 6000;
    static uint64_t keys[6000];
    CHECK_OK(jobs_open(path, &j));
    CHECK_OK(orc_txn_begin(j.env, ORC_TXN_WRITE, &w));
    for (int i = 0; i < N; i++) CHECK_OK(add_job(w, &j, i, i % 2 ? 1 : 0, &keys[i])); /* v = 0 and 1 in turn */
    CHECK_COMMIT_ENV(w, j.env);
    orc_env_close(j.env);
    static chunk_stats cs;
    CHECK(read_chunks(path, &j, 0, &cs));
    CHECK_EQ(cs.keys, N / 2);
    CHECK_EQ(cs.full, cs.chunks - 1); /* distances of 2: one byte each, 241 keys a chunk */
    CHECK_EQ(cs.chunks, (N / 2 + IDX_CHUNK_KEYS - 1) / IDX_CHUNK_KEYS);

    /* every v = 1 object into v = 0, a few at a time: inserts between keys of full chunks */
    CHECK_OK(jobs_open(path, &j));
    for (int round = 0; round < 3; round++) {
        CHECK_OK(orc_txn_begin(j.env, ORC_TXN_WRITE, &w));
        for (int i = 1 + 2 * round; i < N; i += 6) {
            orc_value zero = iv(0);
            CHECK_OK(orc_obj_set(w, j.T, keys[i], j.v, &zero));
        }
        CHECK_COMMIT_ENV(w, j.env);
    }
    orc_txn *r;
    CHECK_OK(orc_txn_begin(j.env, ORC_TXN_READ, &r));
    CHECK_EQ(index_eq_count(r, j.T, j.v, iv(0)), N);
    CHECK_EQ(index_eq_count(r, j.T, j.v, iv(1)), 0);
    orc_txn_abort(r);
    orc_env_close(j.env);
    CHECK(read_chunks(path, &j, 0, &cs));
    CHECK_EQ(cs.keys, N);
    if (cs.smallest < IDX_CHUNK_MAX / 3)
        test_fail(__FILE__, __LINE__, "a chunk of %zu bytes among %zu: splits were not even", cs.smallest, cs.chunks);
    CHECK(read_chunks(path, &j, 1, &cs));
    CHECK_EQ(cs.chunks, 0);

    /* erase the first key of every chunk but the first: each chunk starts at its next key */
    CHECK(read_chunks(path, &j, 0, &cs));
    size_t chunks = cs.chunks;
    static uint64_t firsts[4096];
    memcpy(firsts, cs.first_keys, chunks * sizeof *firsts);
    CHECK_OK(jobs_open(path, &j));
    CHECK_OK(orc_txn_begin(j.env, ORC_TXN_WRITE, &w));
    for (size_t c = 1; c < chunks; c++) CHECK_OK(orc_obj_erase(w, j.T, firsts[c]));
    CHECK_COMMIT_ENV(w, j.env);
    orc_env_close(j.env);
    CHECK(read_chunks(path, &j, 0, &cs));
    CHECK_EQ(cs.chunks, chunks);
    CHECK_EQ(cs.keys, N - (chunks - 1));
    for (size_t c = 1; c < chunks; c++) CHECK(cs.first_keys[c] > firsts[c] && cs.first_keys[c] < firsts[c] + 8);

    /* and every object of v = 0: no chunk is left */
    CHECK_OK(jobs_open(path, &j));
    CHECK_OK(orc_txn_begin(j.env, ORC_TXN_WRITE, &w));
    for (int i = 0; i < N; i++) {
        int rc = orc_obj_erase(w, j.T, keys[i]);
        CHECK(rc == ORC_OK || rc == ORC_ERR_NOT_FOUND);
    }
    CHECK_COMMIT_ENV(w, j.env);
    orc_env_close(j.env);
    CHECK(read_chunks(path, &j, 0, &cs));
    CHECK_EQ(cs.chunks, 0);
}

/* Many transactions of creates, moves between values and erasures, against a model. */
TEST(index_chunks_random_changes_match_a_model)
{
    const char *path = test_path("chunkmodel.realm");
    jobs j;
    orc_txn *w;
    enum { N = 4000, VALUES = 4 };
    static uint64_t keys[N + 4000];
    static int value[N + 4000]; /* -1: erased, -2: made by an aborted transaction */
    uint64_t seed = test_seed();
    CHECK_OK(jobs_open(path, &j));
    CHECK_OK(orc_txn_begin(j.env, ORC_TXN_WRITE, &w));
    for (int i = 0; i < N; i++) {
        value[i] = 0; /* one value first: long runs of full chunks to insert into */
        CHECK_OK(add_job(w, &j, i, 0, &keys[i]));
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    int made = N;
    for (int t = 0; t < 40; t++) {
        CHECK_OK(orc_txn_begin(j.env, ORC_TXN_WRITE, &w));
        int made0 = made, ops = 1 + (int)(test_rand(&seed) % 300);
        for (int o = 0; o < ops; o++) {
            unsigned what = (unsigned)(test_rand(&seed) % 10);
            int i = (int)(test_rand(&seed) % (uint64_t)made);
            if (what == 0 && made < N + 4000) {
                int v = (int)(test_rand(&seed) % VALUES);
                CHECK_OK(add_job(w, &j, made, v, &keys[made]));
                value[made++] = v;
            } else if (what == 1 && value[i] >= 0) {
                CHECK_OK(orc_obj_erase(w, j.T, keys[i]));
                value[i] = -1;
            } else if (value[i] >= 0) {
                int v = (int)(test_rand(&seed) % VALUES);
                orc_value nv = iv(v);
                CHECK_OK(orc_obj_set(w, j.T, keys[i], j.v, &nv));
                value[i] = v;
            }
            if (o % 97 == 0) { /* a read inside the transaction flushes what is pending */
                long long want = 0;
                for (int k = 0; k < made; k++) want += value[k] == 1;
                CHECK_EQ(index_eq_count(w, j.T, j.v, iv(1)), want);
            }
        }
        if (t % 7 == 6) {
            /* forget it in the model too: reload the values from the file; the objects it
             * made are gone for good (their keys go to the next transaction's objects) */
            orc_txn_abort(w);
            for (int k = made0; k < made; k++) value[k] = -2;
            orc_txn *r;
            CHECK_OK(orc_txn_begin(j.env, ORC_TXN_READ, &r));
            for (int k = 0; k < made0; k++) {
                if (value[k] == -2) continue;
                orc_value out;
                int rc = orc_obj_get(r, j.T, keys[k], j.v, &out);
                CHECK(rc == ORC_OK || rc == ORC_ERR_NOT_FOUND);
                value[k] = rc ? -1 : (int)out.integer;
            }
            orc_txn_abort(r);
            continue;
        }
        CHECK_COMMIT_ENV(w, j.env);
        orc_txn *r;
        CHECK_OK(orc_txn_begin(j.env, ORC_TXN_READ, &r));
        for (int v = 0; v < VALUES; v++) {
            long long want = 0;
            for (int k = 0; k < made; k++) want += value[k] == v;
            CHECK_EQ(index_eq_count(r, j.T, j.v, iv(v)), want);
        }
        orc_txn_abort(r);
    }
    orc_env_close(j.env);
}

/* ---- damage ----------------------------------------------------------------------- */

/* Rewrites the data of the n-th "idx" chunk of Job.v, or (`overlap`) puts that data
 * under a chunk key one past that chunk's first key, inside it. */
static bool damage_chunk(const char *path, const jobs *j, int nth, const uint8_t *data, size_t size, bool overlap)
{
    raw r;
    if (!raw_begin(path, true, &r)) return false;
    MDB_dbi dbi;
    MDB_cursor *cur;
    bool ok = !mdb_dbi_open(r.txn, "idx", 0, &dbi) && !mdb_cursor_open(r.txn, dbi, &cur);
    uint8_t head[IDX_PREFIX_BYTES];
    st32be(head, j->T);
    st16be(head + 4, j->v);
    MDB_val k = {sizeof head, head}, d;
    int rc = ok ? mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE) : 1;
    for (int i = 0; rc == 0 && i < nth; i++) rc = mdb_cursor_get(cur, &k, &d, MDB_NEXT);
    ok = ok && rc == 0 && k.mv_size <= 512;
    uint8_t key[512];
    size_t kn = ok ? k.mv_size : 0;
    if (ok) memcpy(key, k.mv_data, kn);
    if (ok && overlap) st64be(key + kn - 8, ld64be(key + kn - 8) + 1);
    MDB_val nk = {kn, key}, nd = {size, (void *)data};
    ok = ok && mdb_put(r.txn, dbi, &nk, &nd, 0) == 0;
    return raw_end(&r, ok);
}

TEST(index_chunks_damage_is_reported)
{
    static const struct {
        const char *what;
        uint8_t data[4];
        size_t n;
        bool overlap;
        const char *check; /* what orc_env_check says */
    } cases[] = {
        {"a cut varint", {0x01, 0x80}, 2, false, "is damaged"},
        {"a zero distance", {0x01, 0x00}, 2, false, "is damaged"},
        /* the rows' keys past its first are looked up in it: the first problem found */
        {"an overlapping chunk", {0x02}, 1, true, "missing index entry"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char name[32];
        snprintf(name, sizeof name, "dmgchunk%zu.realm", c);
        const char *path = test_path(name);
        jobs j;
        orc_txn *w;
        static uint64_t keys[3000];
        CHECK_OK(jobs_open(path, &j));
        CHECK_OK(orc_txn_begin(j.env, ORC_TXN_WRITE, &w));
        for (int i = 0; i < 3000; i++) CHECK_OK(add_job(w, &j, i, i % 3, &keys[i]));
        CHECK_OK(orc_txn_commit(w, NULL));
        orc_env_close(j.env);
        CHECK(damage_chunk(path, &j, 1, cases[c].data, cases[c].n, cases[c].overlap));

        CHECK_OK(jobs_open(path, &j));
        size_t problems = 0;
        CHECK_RC(orc_env_check(j.env, &problems), ORC_ERR_CORRUPT);
        if (!strstr(orc_last_error(), cases[c].check))
            test_fail(__FILE__, __LINE__, "%s: check says \"%s\"", cases[c].what, orc_last_error());
        orc_txn *r;
        CHECK_OK(orc_txn_begin(j.env, ORC_TXN_READ, &r));
        long long n = index_eq_count(r, j.T, j.v, iv(0));
        orc_txn_abort(r);
        if (!cases[c].overlap) {
            CHECK_EQ(n, -1); /* the query failed: */
            CHECK_OK(orc_txn_begin(j.env, ORC_TXN_READ, &r));
            uint8_t prog[] = {ORC_OP_CMP, ORC_CMP_EQ, 0, ORC_Q_DEFAULT, ORC_EXPR_PATH, 1, ORC_STEP_PROP,
                              (uint8_t)j.v, 0, ORC_AGG_NONE, ORC_EXPR_CONST, ORC_TYPE_INT, 0, 0, 0, 0, 0, 0, 0, 0};
            orc_query *q;
            uint64_t count;
            CHECK_OK(orc_query_compile(r, j.T, prog, sizeof prog, &q));
            CHECK_RC(orc_query_count(r, q, &count), ORC_ERR_CORRUPT);
            if (!strstr(orc_last_error(), "index chunk of table"))
                test_fail(__FILE__, __LINE__, "%s: the query says \"%s\"", cases[c].what, orc_last_error());
            orc_query_free(q);
            orc_txn_abort(r);
            /* changing an object whose key lies in the damaged chunk fails the write */
            CHECK_OK(orc_txn_begin(j.env, ORC_TXN_WRITE, &w));
            int rc = ORC_OK;
            for (int i = 0; i < 3000 && rc == ORC_OK; i += 3) rc = orc_obj_erase(w, j.T, keys[i]);
            CHECK_EQ(rc, ORC_ERR_CORRUPT);
            orc_txn_abort(w);
        }
        orc_env_close(j.env);
    }
}

/* ---- format 2 files ----------------------------------------------------------------- */

/* Empties `to`, then moves every entry of `from` into it (`from` is left empty). */
static bool replace_from(MDB_txn *txn, MDB_dbi from, MDB_dbi to)
{
    MDB_cursor *cur;
    MDB_val k, d;
    bool ok = !mdb_drop(txn, to, 0) && !mdb_cursor_open(txn, from, &cur);
    for (int rc = ok ? mdb_cursor_get(cur, &k, &d, MDB_FIRST) : 1; ok && rc == 0; rc = mdb_cursor_get(cur, &k, &d, MDB_NEXT))
        ok = mdb_put(txn, to, &k, &d, 0) == 0;
    return ok && !mdb_drop(txn, from, 0);
}

/*
 * Rewrites a closed file into format 2's layout, as a build of format 2 wrote it: each
 * chunk of "idx" becomes one key per object with empty data, each primary-key value
 * eight bytes, and "orc.format" 2.
 */
static bool downgrade_to_format_2(const char *path)
{
    raw r;
    if (!raw_begin(path, true, &r)) return false;
    MDB_txn *txn = r.txn;
    MDB_dbi idx, meta, p1, scratch;
    MDB_cursor *cur;
    bool ok = !mdb_dbi_open(txn, "idx", 0, &idx) && !mdb_dbi_open(txn, "meta", 0, &meta)
              && !mdb_dbi_open(txn, "p1", 0, &p1) && !mdb_dbi_open(txn, "downgrade", MDB_CREATE, &scratch);
    static uint64_t got[IDX_CHUNK_KEYS];
    MDB_val k, d;
    /* each chunk's keys as entries, into a scratch database, then in place of the chunks */
    ok = ok && !mdb_cursor_open(txn, idx, &cur);
    for (int rc = ok ? mdb_cursor_get(cur, &k, &d, MDB_FIRST) : 1; ok && rc == 0; rc = mdb_cursor_get(cur, &k, &d, MDB_NEXT)) {
        size_t n;
        ok = idx_chunk_decode(ld64be((uint8_t *)k.mv_data + k.mv_size - 8), d.mv_data, d.mv_size, got, &n) == ORC_OK;
        for (size_t i = 0; ok && i < n; i++) {
            uint8_t e[512];
            memcpy(e, k.mv_data, k.mv_size - 8);
            st64be(e + k.mv_size - 8, got[i]);
            MDB_val ek = {k.mv_size, e}, ed = {0, NULL};
            ok = mdb_put(txn, scratch, &ek, &ed, 0) == 0;
        }
    }
    ok = ok && replace_from(txn, scratch, idx);
    /* the primary-key values the same way (no rewrite in place: a bigger value moves nodes) */
    ok = ok && !mdb_cursor_open(txn, p1, &cur);
    for (int rc = ok ? mdb_cursor_get(cur, &k, &d, MDB_FIRST) : 1; ok && rc == 0; rc = mdb_cursor_get(cur, &k, &d, MDB_NEXT)) {
        uint64_t key;
        uint8_t wide[8];
        ok = pk_value_get(d.mv_data, d.mv_size, 3, &key);
        st64(wide, key);
        MDB_val wd = {8, wide};
        ok = ok && mdb_put(txn, scratch, &k, &wd, 0) == 0;
    }
    ok = ok && replace_from(txn, scratch, p1) && !mdb_drop(txn, scratch, 1);
    uint32_t two = 2;
    MDB_val fk = {10, "orc.format"}, fv = {4, &two};
    ok = ok && mdb_put(txn, meta, &fk, &fv, 0) == 0;
    return raw_end(&r, ok);
}

/* The layout of a format 2 file: entries without data, one per object and index; 8-byte primary-key values. */
static bool format_2_layout(const char *path, size_t *entries, size_t *pks)
{
    raw r;
    if (!raw_begin(path, false, &r)) return false;
    MDB_dbi idx, meta, p1;
    MDB_cursor *cur = NULL;
    bool ok = !mdb_dbi_open(r.txn, "idx", 0, &idx) && !mdb_dbi_open(r.txn, "meta", 0, &meta)
              && !mdb_dbi_open(r.txn, "p1", 0, &p1);
    MDB_val k = {10, "orc.format"}, d;
    ok = ok && !mdb_get(r.txn, meta, &k, &d) && d.mv_size == 4 && ld32(d.mv_data) == 2;
    *entries = *pks = 0;
    MDB_dbi dbs[2] = {idx, p1};
    size_t *counts[2] = {entries, pks};
    for (int db = 0; db < 2 && ok; db++) {
        ok = !mdb_cursor_open(r.txn, dbs[db], &cur);
        for (int rc = ok ? mdb_cursor_get(cur, &k, &d, MDB_FIRST) : 1; ok && rc == 0; rc = mdb_cursor_get(cur, &k, &d, MDB_NEXT)) {
            ok = d.mv_size == (db == 0 ? 0 : 8); /* entries hold no data; primary-key values 8 bytes */
            ++*counts[db];
        }
        if (cur) mdb_cursor_close(cur);
        cur = NULL;
    }
    return raw_end(&r, ok);
}

TEST(index_chunks_format_2_files_keep_their_layout)
{
    const char *path = test_path("format2.realm");
    jobs j;
    orc_txn *w, *r;
    enum { N = 2000 };
    static uint64_t keys[N + 500];
    CHECK_OK(jobs_open(path, &j));
    CHECK_OK(orc_txn_begin(j.env, ORC_TXN_WRITE, &w));
    for (int i = 0; i < N; i++) CHECK_OK(add_job(w, &j, i, i % 5, &keys[i]));
    CHECK_OK(orc_txn_commit(w, NULL));
    orc_env_close(j.env);
    CHECK(downgrade_to_format_2(path));
    size_t entries, pks;
    CHECK(format_2_layout(path, &entries, &pks));
    CHECK_EQ(entries, 2 * N);
    CHECK_EQ(pks, N);

    /* read, then changed in every way the index sees, and still format 2 */
    CHECK_OK(jobs_open(path, &j));
    CHECK_ENV(j.env);
    CHECK_OK(orc_txn_begin(j.env, ORC_TXN_READ, &r));
    CHECK_EQ(index_eq_count(r, j.T, j.v, iv(3)), N / 5);
    CHECK_EQ(index_eq_count(r, j.T, j.s, sv("bo")), 2 * N / 5); /* v = 1 and 4 */
    uint64_t key;
    orc_value id = iv(1234);
    CHECK_OK(orc_obj_find(r, j.T, &id, &key));
    CHECK(key == keys[1234]);
    orc_txn_abort(r);
    CHECK_OK(orc_txn_begin(j.env, ORC_TXN_WRITE, &w));
    for (int i = N; i < N + 500; i++) CHECK_OK(add_job(w, &j, i, 3, &keys[i]));
    for (int i = 0; i < N; i += 10) {
        orc_value three = iv(3);
        CHECK_OK(orc_obj_set(w, j.T, keys[i], j.v, &three)); /* i % 5 == 0 -> 3 */
    }
    for (int i = 1; i < N; i += 10) CHECK_OK(orc_obj_erase(w, j.T, keys[i])); /* 200 of v = 1 */
    CHECK_COMMIT_ENV(w, j.env);
    CHECK_OK(orc_txn_begin(j.env, ORC_TXN_READ, &r));
    CHECK_EQ(index_eq_count(r, j.T, j.v, iv(3)), N / 5 + 500 + N / 10);
    CHECK_EQ(index_eq_count(r, j.T, j.v, iv(1)), N / 5 - N / 10);
    CHECK_EQ(index_eq_count(r, j.T, j.v, iv(0)), N / 5 - N / 10);
    id = iv(N + 499);
    CHECK_OK(orc_obj_find(r, j.T, &id, &key));
    CHECK(key == keys[N + 499]);
    orc_txn_abort(r);
    orc_env_close(j.env);
    CHECK(format_2_layout(path, &entries, &pks));
    CHECK_EQ(entries, 2 * (N + 500 - N / 10));
    CHECK_EQ(pks, N + 500 - N / 10);
}
