/*
 * test_env.c — environments: create, open, close, reopen, sharing a file
 * between handles, read-only handles, statistics, deleting files, map growth
 * and the error texts.
 *
 * Durability here means "survives close and reopen in this process"; the
 * kill-a-writer case lives in test_concurrency.c. Map growth is driven with
 * initial_map_size = 1 MiB so that a few tens of megabytes of rows must grow
 * the map many times, both inside one transaction and across many.
 */
#include "harness.h"
#include "scan.h" /* the row readers: which snapshots walked */

#include <dlfcn.h>
#include <errno.h>
#include <lmdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void fill_pattern(uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (uint8_t)x;
    }
}

/* Class "Item" {n: int, s: string}; returns the table and its columns. */

static bool make_item_class(orc_txn *w, uint32_t *table, uint16_t *cn, uint16_t *cs)
{
    HOK(orc_class_add(w, "Item", ORC_CLASS_TOP_LEVEL, table));
    orc_prop_spec n = {.name = "n", .type = ORC_TYPE_INT};
    orc_prop_spec s = {.name = "s", .type = ORC_TYPE_STRING};
    HOK(orc_prop_add(w, *table, &n, cn));
    HOK(orc_prop_add(w, *table, &s, cs));
    return true;
}

static bool item_add(orc_txn *w, uint32_t table, uint16_t cn, uint16_t cs, int64_t n, const char *s,
                     uint64_t *key)
{
    uint16_t cols[2] = {cn, cs};
    orc_value vals[2] = {v_int(n), v_str(s)};
    HOK(orc_obj_create(w, table, cols, vals, 2, key));
    return true;
}

/* Reads Item objects and checks that n runs 0..count-1 in key order with s = "item-<n>". */
static bool items_match(orc_env *env, uint64_t count)
{
    orc_txn *r;
    orc_class_info ci;
    orc_prop_info pn, ps;
    HOK(orc_txn_begin(env, ORC_TXN_READ, &r));
    bool ok = false;
    orc_keys keys = {0};
    if (orc_schema_class_find(r, "Item", &ci) != ORC_OK) goto out;
    if (orc_schema_prop_find(r, ci.table, "n", &pn) != ORC_OK) goto out;
    if (orc_schema_prop_find(r, ci.table, "s", &ps) != ORC_OK) goto out;
    if (orc_table_keys(r, ci.table, &keys) != ORC_OK || keys.count != count) goto out;
    for (size_t i = 0; i < keys.count; i++) {
        orc_value v;
        char want[32];
        if (orc_obj_get(r, ci.table, keys.keys[i], pn.col, &v) != ORC_OK) goto out;
        if (v.type != ORC_TYPE_INT || v.integer != (int64_t)i) goto out;
        if (orc_obj_get(r, ci.table, keys.keys[i], ps.col, &v) != ORC_OK) goto out;
        snprintf(want, sizeof want, "item-%zu", i);
        if (v.type != ORC_TYPE_STRING || v.string.size != strlen(want) ||
            memcmp(v.string.data, want, v.string.size) != 0)
            goto out;
    }
    ok = true;
out:
    if (!ok) test_fail(__FILE__, __LINE__, "items do not match (want %" PRIu64 "; %s)", count, orc_last_error());
    orc_keys_free(&keys);
    orc_txn_abort(r);
    return ok;
}

TEST(env_create_close_reopen_keeps_data)
{
    const char *p = test_path("durable.realm");
    char path[600];
    snprintf(path, sizeof path, "%s", p);
    orc_env *env;
    orc_txn *w;
    uint32_t t;
    uint16_t cn, cs;
    uint64_t version;

    CHECK(!file_exists(path));
    CHECK_OK(orc_env_open(path, 0, NULL, &env)); /* default flags: synced commits */
    CHECK_STR(orc_env_path(env), path);
    CHECK(file_exists(path));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_item_class(w, &t, &cn, &cs));
    for (int i = 0; i < 100; i++) {
        char s[32];
        snprintf(s, sizeof s, "item-%d", i);
        CHECK(item_add(w, t, cn, cs, i, s, NULL));
    }
    CHECK_OK(orc_meta_set(w, "app.owner", "alice", 5));
    CHECK_OK(orc_txn_commit(w, &version));
    CHECK_EQ(version, 1);
    orc_env_close(env);

    /* Reopen several times, adding a batch each time. */
    for (int round = 1; round <= 5; round++) {
        CHECK_OK(orc_env_open(path, ORC_ENV_NO_CREATE, NULL, &env));
        CHECK_OK(orc_env_version(env, &version));
        CHECK_EQ(version, round);
        CHECK(items_match(env, 100 * (uint64_t)round));
        orc_txn *r;
        const void *data;
        size_t size;
        CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
        CHECK_OK(orc_meta_get(r, "app.owner", &data, &size));
        CHECK_EQ(size, 5);
        CHECK(memcmp(data, "alice", 5) == 0);
        orc_txn_abort(r);

        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        orc_class_info ci;
        CHECK_OK(orc_schema_class_find(w, "Item", &ci));
        CHECK_EQ(ci.table, t);
        for (int i = 100 * round; i < 100 * (round + 1); i++) {
            char s[32];
            snprintf(s, sizeof s, "item-%d", i);
            CHECK(item_add(w, t, cn, cs, i, s, NULL));
        }
        CHECK_OK(orc_txn_commit(w, &version));
        CHECK_EQ(version, round + 1);
        CHECK_ENV(env);
        orc_env_close(env);
    }
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_CREATE, NULL, &env));
    CHECK(items_match(env, 600));
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(env_no_create_missing_file_is_not_found)
{
    const char *path = test_path("missing.realm");
    orc_env *env = NULL;
    CHECK_RC(orc_env_open(path, ORC_ENV_NO_CREATE, NULL, &env), ORC_ERR_NOT_FOUND);
    CHECK(strncmp(orc_last_error(), "ORC_ERR_NOT_FOUND", 17) == 0);
    CHECK_EQ(orc_last_status(), ORC_ERR_NOT_FOUND);
    CHECK(!file_exists(path));
    /* A read-only open of a missing file is also NOT_FOUND and creates nothing. */
    CHECK_RC(orc_env_open(path, ORC_ENV_READ_ONLY, NULL, &env), ORC_ERR_NOT_FOUND);
    CHECK(!file_exists(path));
    char lock[640];
    snprintf(lock, sizeof lock, "%s-lock", path);
    CHECK(!file_exists(lock));
    /* A missing directory is an errno, not a crash. */
    char deep[700];
    snprintf(deep, sizeof deep, "%s/no/such/dir/x.realm", test_dir());
    int rc = orc_env_open(deep, 0, NULL, &env);
    CHECK(rc != ORC_OK);
    CHECK_EQ(rc, ENOENT);
}

TEST(env_invalid_arguments)
{
    orc_env *env = NULL;
    CHECK_RC(orc_env_open(NULL, 0, NULL, &env), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_env_open(test_path("x.realm"), 0, NULL, NULL), ORC_ERR_INVALID_ARG);
    CHECK(strncmp(orc_last_error(), "ORC_ERR_INVALID_ARG", 19) == 0);
    orc_env_close(NULL); /* ignored */
    orc_txn_abort(NULL);
}

TEST(env_read_only_handle_refuses_writes)
{
    const char *p = test_path("ro.realm");
    char path[600];
    snprintf(path, sizeof path, "%s", p);
    orc_env *env, *ro;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t cn, cs;

    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_item_class(w, &t, &cn, &cs));
    CHECK(item_add(w, t, cn, cs, 0, "item-0", NULL));
    CHECK_OK(orc_txn_commit(w, NULL));
    orc_env_close(env);

    /* Alone in the process. */
    CHECK_OK(orc_env_open(path, ORC_ENV_READ_ONLY, NULL, &ro));
    CHECK_RC(orc_txn_begin(ro, ORC_TXN_WRITE, &w), ORC_ERR_READ_ONLY);
    CHECK(strncmp(orc_last_error(), "ORC_ERR_READ_ONLY", 17) == 0);
    CHECK(items_match(ro, 1));
    /* Writes inside a read transaction are refused too. */
    CHECK_OK(orc_txn_begin(ro, ORC_TXN_READ, &r));
    CHECK(!orc_txn_is_write(r));
    CHECK_RC(orc_obj_create(r, t, NULL, NULL, 0, NULL), ORC_ERR_READ_ONLY);
    CHECK_RC(orc_meta_set(r, "k", "v", 1), ORC_ERR_READ_ONLY);
    orc_txn_abort(r);

    /* A read-write handle opened after the read-only one can write; the read-only one still cannot. */
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(item_add(w, t, cn, cs, 1, "item-1", NULL));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_RC(orc_txn_begin(ro, ORC_TXN_WRITE, &w), ORC_ERR_READ_ONLY);
    CHECK(items_match(ro, 2));
    orc_env_close(env);
    orc_env_close(ro);

    /* Read-only after a read-write handle in the same process. */
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_env_open(path, ORC_ENV_READ_ONLY, NULL, &ro));
    CHECK_RC(orc_txn_begin(ro, ORC_TXN_WRITE, &w), ORC_ERR_READ_ONLY);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(item_add(w, t, cn, cs, 2, "item-2", NULL));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK(items_match(ro, 3));
    orc_env_close(ro);
    CHECK_ENV(env);
    orc_env_close(env);
}

GUARDED_TEST(env_same_file_twice_shares_data, 60)
{
    const char *p = test_path("shared.realm");
    char path[600], alias[700];
    snprintf(path, sizeof path, "%s", p);
    /* The same file through a different spelling of its path. */
    snprintf(alias, sizeof alias, "%s/./%s", test_dir(), strrchr(path, '/') + 1);
    orc_env *a, *b;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t cn, cs;
    uint64_t ka, kb, va, vb;

    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &a));
    CHECK_OK(orc_env_open(alias, ORC_ENV_NO_SYNC, NULL, &b));
    CHECK_STR(orc_env_path(b), alias);

    CHECK_OK(orc_txn_begin(a, ORC_TXN_WRITE, &w));
    CHECK(make_item_class(w, &t, &cn, &cs));
    CHECK(item_add(w, t, cn, cs, 0, "item-0", &ka));
    CHECK_OK(orc_txn_commit(w, NULL));

    /* Visible through b after the commit. */
    CHECK_OK(orc_txn_begin(b, ORC_TXN_READ, &r));
    CHECK(orc_obj_exists(r, t, ka));
    orc_txn_abort(r);

    /* Writes through b are visible through a. */
    CHECK_OK(orc_txn_begin(b, ORC_TXN_WRITE, &w));
    CHECK(item_add(w, t, cn, cs, 1, "item-1", &kb));
    /* Before b commits, a's readers do not see the object. */
    CHECK_OK(orc_txn_begin(a, ORC_TXN_READ, &r));
    CHECK(!orc_obj_exists(r, t, kb));
    orc_txn_abort(r);
    CHECK_OK(orc_txn_commit(w, &vb));
    CHECK_OK(orc_env_version(a, &va));
    CHECK_EQ(va, vb);
    CHECK(items_match(a, 2));

    /* One handle closing leaves the other working. */
    orc_env_close(a);
    CHECK(items_match(b, 2));
    CHECK_OK(orc_txn_begin(b, ORC_TXN_WRITE, &w));
    CHECK(item_add(w, t, cn, cs, 2, "item-2", NULL));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK(items_match(b, 3));
    CHECK_ENV(b);
    orc_env_close(b);
}

TEST(env_info_and_version)
{
    const char *path = test_path("info.realm");
    orc_env *env;
    orc_env_info info, info2;
    orc_txn *w, *r;
    uint64_t version;
    uint32_t t;
    uint16_t cn, cs;

    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_env_version(env, &version));
    CHECK_EQ(version, 0);
    CHECK_OK(orc_env_info_get(env, &info));
    CHECK_EQ(info.version, 0);
    CHECK(info.page_size >= 512 && (info.page_size & (info.page_size - 1)) == 0);
    CHECK(info.map_size >= info.used_bytes);
    CHECK(info.used_bytes > 0);

    /* A read transaction takes a reader slot. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_OK(orc_env_info_get(env, &info2));
    CHECK(info2.readers >= 1);
    orc_txn_abort(r);

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_item_class(w, &t, &cn, &cs));
    static uint8_t blob[1 << 20];
    fill_pattern(blob, sizeof blob, 7);
    orc_prop_spec bs = {.name = "b", .type = ORC_TYPE_BINARY};
    uint16_t cb;
    CHECK_OK(orc_prop_add(w, t, &bs, &cb));
    for (int i = 0; i < 4; i++) {
        orc_value vb = v_bin(blob, sizeof blob);
        CHECK_OK(orc_obj_create(w, t, &cb, &vb, 1, NULL));
    }
    CHECK_OK(orc_txn_commit(w, &version));
    CHECK_EQ(version, 1);
    CHECK_OK(orc_env_info_get(env, &info2));
    CHECK_EQ(info2.version, 1);
    CHECK_EQ(info2.page_size, info.page_size);
    CHECK(info2.used_bytes >= info.used_bytes + 4 * sizeof blob);
    CHECK(info2.map_size >= info2.used_bytes);
    CHECK_OK(orc_env_version(env, &version));
    CHECK_EQ(version, 1);
    orc_env_close(env);
}

TEST(env_version_string)
{
    const char *v = orc_version_string();
    CHECK(v != NULL);
    CHECK(strncmp(v, "ORCore ", 7) == 0);
    CHECK(strstr(v, "LMDB 0.9.") != NULL);
    CHECK(strstr(v, "zstd ") != NULL);
    CHECK(v == orc_version_string()); /* static */
    CHECK_EQ(ORC_FORMAT_VERSION, 3);
}

TEST(env_delete_files)
{
    const char *p = test_path("del.realm");
    char path[600], lock[640];
    snprintf(path, sizeof path, "%s", p);
    snprintf(lock, sizeof lock, "%s-lock", path);
    orc_env *env;
    orc_txn *w;

    /* Nothing there: fine. */
    CHECK_OK(orc_env_delete_files(path));

    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_meta_set(w, "x", "y", 1));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK(file_exists(path));
    CHECK(file_exists(lock));
    /* Open in this process: refused, and nothing is removed. */
    CHECK_RC(orc_env_delete_files(path), ORC_ERR_BUSY);
    CHECK(file_exists(path));
    orc_env_close(env);

    CHECK_OK(orc_env_delete_files(path));
    CHECK(!file_exists(path));
    CHECK(!file_exists(lock));
    CHECK_OK(orc_env_delete_files(path));

    /* The path can be created afresh: a new, empty realm. */
    uint64_t version;
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_env_version(env, &version));
    CHECK_EQ(version, 0);
    orc_txn *r;
    const void *d;
    size_t n;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_RC(orc_meta_get(r, "x", &d, &n), ORC_ERR_NOT_FOUND);
    CHECK_EQ(orc_schema_class_count(r), 0);
    orc_txn_abort(r);
    orc_env_close(env);
}

TEST(env_file_mode_option)
{
    const char *path = test_path("mode.realm");
    orc_env_options opt = {.file_mode = 0600};
    orc_env *env;
    struct stat st;
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, &opt, &env));
    CHECK(stat(path, &st) == 0);
    CHECK_EQ(st.st_mode & 0777, 0600);
    orc_env_close(env);
}

TEST(env_max_readers_option)
{
    const char *path = test_path("readers.realm");
    orc_env_options opt = {.max_readers = 4};
    orc_env *env;
    orc_txn *r[5];
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, &opt, &env));
    for (int i = 0; i < 4; i++) CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r[i]));
    CHECK_RC(orc_txn_begin(env, ORC_TXN_READ, &r[4]), ORC_ERR_BUSY);
    orc_txn_abort(r[0]);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r[0]));
    for (int i = 0; i < 4; i++) orc_txn_abort(r[i]);
    orc_env_close(env);
}

/* Class "Blob" {i: int, data: binary}. */
static bool make_blob_class(orc_txn *w, uint32_t *t, uint16_t *ci, uint16_t *cd)
{
    HOK(orc_class_add(w, "Blob", ORC_CLASS_TOP_LEVEL, t));
    orc_prop_spec si = {.name = "i", .type = ORC_TYPE_INT, .flags = ORC_PROP_INDEXED};
    orc_prop_spec sd = {.name = "data", .type = ORC_TYPE_BINARY};
    HOK(orc_prop_add(w, *t, &si, ci));
    HOK(orc_prop_add(w, *t, &sd, cd));
    return true;
}

/* Every Blob's data must be fill_pattern(size_of(i), i); sizes from size_of. */
static bool blobs_match(orc_env *env, uint64_t count, size_t (*size_of)(int64_t))
{
    orc_txn *r;
    orc_class_info ci;
    orc_prop_info pi, pd;
    orc_keys keys = {0};
    static uint8_t want[8 << 20];
    bool ok = false;
    HOK(orc_txn_begin(env, ORC_TXN_READ, &r));
    if (orc_schema_class_find(r, "Blob", &ci) || orc_schema_prop_find(r, ci.table, "i", &pi) ||
        orc_schema_prop_find(r, ci.table, "data", &pd) || orc_table_keys(r, ci.table, &keys)) {
        test_fail(__FILE__, __LINE__, "blob schema: %s", orc_last_error());
        goto out;
    }
    if (keys.count != count) {
        test_fail(__FILE__, __LINE__, "%zu blobs, want %" PRIu64, keys.count, count);
        goto out;
    }
    for (size_t k = 0; k < keys.count; k++) {
        orc_value vi, vd;
        if (orc_obj_get(r, ci.table, keys.keys[k], pi.col, &vi) ||
            orc_obj_get(r, ci.table, keys.keys[k], pd.col, &vd)) {
            test_fail(__FILE__, __LINE__, "read blob: %s", orc_last_error());
            goto out;
        }
        size_t n = size_of(vi.integer);
        fill_pattern(want, n, (uint64_t)vi.integer);
        if (vi.integer != (int64_t)k || vd.type != ORC_TYPE_BINARY || vd.string.size != n ||
            memcmp(vd.string.data, want, n) != 0) {
            test_fail(__FILE__, __LINE__, "blob %zu differs (i=%" PRId64 ", size %zu want %zu)", k,
                      vi.integer, vd.string.size, n);
            goto out;
        }
    }
    ok = true;
out:
    orc_keys_free(&keys);
    orc_txn_abort(r);
    return ok;
}

static size_t size_big_txn(int64_t i) { return i == 7 ? (size_t)(5 << 20) : 1000 + (size_t)(i % 50); }
static size_t size_small_txn(int64_t i) { return 500 + (size_t)(i % 1500); }

GUARDED_TEST(env_map_grows_in_one_transaction, 120)
{
    const char *path = test_path("grow1.realm");
    orc_env_options opt = {.initial_map_size = 1 << 20};
    orc_env *env;
    orc_txn *w;
    uint32_t t;
    uint16_t ci, cd;
    static uint8_t buf[8 << 20];
    orc_env_info before, after;

    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, &opt, &env));
    CHECK_OK(orc_env_info_get(env, &before));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_blob_class(w, &t, &ci, &cd));
    /* ~30 MB of rows plus one 5 MB value (bigger than the whole initial map). */
    const int n = 30000;
    for (int i = 0; i < n; i++) {
        size_t sz = size_big_txn(i);
        fill_pattern(buf, sz, (uint64_t)i);
        uint16_t cols[2] = {ci, cd};
        orc_value vals[2] = {v_int(i), v_bin(buf, sz)};
        CHECK_OK(orc_obj_create(w, t, cols, vals, 2, NULL));
    }
    uint64_t version;
    CHECK_OK(orc_txn_commit(w, &version));
    CHECK_EQ(version, 1);
    CHECK_OK(orc_env_info_get(env, &after));
    CHECK(after.map_size > before.map_size);
    CHECK(after.used_bytes > (size_t)30 << 20);
    CHECK(after.map_size >= after.used_bytes);
    CHECK(blobs_match(env, n, size_big_txn));
    CHECK_ENV(env);
    orc_env_close(env);

    /* And after reopening with the small initial size again. */
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, &opt, &env));
    CHECK(blobs_match(env, n, size_big_txn));
    orc_env_close(env);
}

GUARDED_TEST(env_map_grows_across_many_transactions, 120)
{
    const char *path = test_path("grow2.realm");
    orc_env_options opt = {.initial_map_size = 1 << 20};
    orc_env *env;
    orc_txn *w;
    uint32_t t;
    uint16_t ci, cd;
    static uint8_t buf[4096];
    uint64_t version = 0;

    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, &opt, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_blob_class(w, &t, &ci, &cd));
    CHECK_OK(orc_txn_commit(w, NULL));
    int64_t next = 0;
    for (int txn = 0; txn < 400; txn++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        for (int j = 0; j < 25; j++, next++) {
            size_t sz = size_small_txn(next);
            fill_pattern(buf, sz, (uint64_t)next);
            uint16_t cols[2] = {ci, cd};
            orc_value vals[2] = {v_int(next), v_bin(buf, sz)};
            CHECK_OK(orc_obj_create(w, t, cols, vals, 2, NULL));
        }
        CHECK_OK(orc_txn_commit(w, &version));
        CHECK_EQ(version, txn + 2);
    }
    CHECK(blobs_match(env, (uint64_t)next, size_small_txn));
    orc_env_info info;
    CHECK_OK(orc_env_info_get(env, &info));
    CHECK(info.used_bytes > (size_t)10 << 20);
    CHECK_ENV(env);
    orc_env_close(env);
}

/*
 * Growth while this thread holds a read transaction on the same file: the
 * contract allows ORC_ERR_MAP_FULL ("growth was blocked by open
 * transactions") but not a hang, and once the reader ends the write succeeds.
 */
/* Growth cannot wait for this thread's own reader: MAP_FULL comes at once, not after a timeout. */
GUARDED_TEST(env_map_growth_with_open_reader_on_same_thread, 20)
{
    const char *path = test_path("grow3.realm");
    orc_env_options opt = {.initial_map_size = 1 << 20};
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t ci, cd;
    static uint8_t buf[1 << 16];

    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, &opt, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_blob_class(w, &t, &ci, &cd));
    CHECK_OK(orc_txn_commit(w, NULL));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    int rc = orc_txn_begin(env, ORC_TXN_WRITE, &w);
    CHECK_OK(rc);
    for (int i = 0; i < 80 && rc == ORC_OK; i++) {
        fill_pattern(buf, sizeof buf, (uint64_t)i);
        uint16_t cols[2] = {ci, cd};
        orc_value vals[2] = {v_int(i), v_bin(buf, sizeof buf)};
        rc = orc_obj_create(w, t, cols, vals, 2, NULL);
    }
    if (rc == ORC_OK) {
        rc = orc_txn_commit(w, NULL);
    } else {
        orc_txn_abort(w);
    }
    CHECK_EQ(rc, ORC_ERR_MAP_FULL);
    CHECK(strstr(orc_last_error(), "this thread has another transaction open") != NULL);
    /* The old reader still sees its snapshot: no Blob objects. */
    uint64_t count;
    CHECK_OK(orc_table_count(r, t, &count));
    CHECK_EQ(count, 0);
    orc_txn_abort(r);
    if (rc != ORC_OK) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        for (int i = 0; i < 80; i++) {
            fill_pattern(buf, sizeof buf, (uint64_t)i);
            uint16_t cols[2] = {ci, cd};
            orc_value vals[2] = {v_int(i), v_bin(buf, sizeof buf)};
            CHECK_OK(orc_obj_create(w, t, cols, vals, 2, NULL));
        }
        CHECK_OK(orc_txn_commit(w, NULL));
    }
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_OK(orc_table_count(r, t, &count));
    CHECK_EQ(count, 80);
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}

static void *last_error_in_thread(void *arg)
{
    const char **out = arg;
    out[0] = orc_last_error();
    out[1] = orc_last_status() == ORC_OK ? "ok" : "bad";
    return NULL;
}

TEST(env_error_texts_start_with_code_name)
{
    static const struct {
        int code;
        const char *name;
    } codes[] = {
        {ORC_ERR_NOT_FOUND, "ORC_ERR_NOT_FOUND"},   {ORC_ERR_EXISTS, "ORC_ERR_EXISTS"},
        {ORC_ERR_INVALID_ARG, "ORC_ERR_INVALID_ARG"}, {ORC_ERR_WRONG_TYPE, "ORC_ERR_WRONG_TYPE"},
        {ORC_ERR_NOT_NULLABLE, "ORC_ERR_NOT_NULLABLE"}, {ORC_ERR_READ_ONLY, "ORC_ERR_READ_ONLY"},
        {ORC_ERR_CORRUPT, "ORC_ERR_CORRUPT"},       {ORC_ERR_NOT_A_REALM, "ORC_ERR_NOT_A_REALM"},
        {ORC_ERR_FORMAT_VERSION, "ORC_ERR_FORMAT_VERSION"}, {ORC_ERR_SCHEMA, "ORC_ERR_SCHEMA"},
        {ORC_ERR_MAP_FULL, "ORC_ERR_MAP_FULL"},     {ORC_ERR_BUSY, "ORC_ERR_BUSY"},
        {ORC_ERR_QUERY, "ORC_ERR_QUERY"},           {ORC_ERR_OUT_OF_RANGE, "ORC_ERR_OUT_OF_RANGE"},
        {ORC_ERR_TRIMMED, "ORC_ERR_TRIMMED"},       {ORC_ERR_BAD_TXN, "ORC_ERR_BAD_TXN"},
        {ORC_ERR_NOMEM, "ORC_ERR_NOMEM"},           {ORC_ERR_EMBEDDED, "ORC_ERR_EMBEDDED"},
        {ORC_ERR_INCOMPATIBLE_LOCK, "ORC_ERR_INCOMPATIBLE_LOCK"}, {ORC_ERR_INTERNAL, "ORC_ERR_INTERNAL"},
    };
    CHECK_EQ(sizeof codes / sizeof codes[0], ORC_ERR_LAST - ORC_ERR_FIRST + 1);
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *s = orc_strerror(codes[i].code);
        size_t n = strlen(codes[i].name);
        CHECK(strncmp(s, codes[i].name, n) == 0);
        CHECK(s[n] == ':'); /* not a longer name with the same prefix */
    }
    CHECK(strcmp(orc_strerror(ENOENT), strerror(ENOENT)) == 0);

    /* A failing call leaves a message that starts with the name and names the input. */
    const char *p = test_path("missing-for-text.realm");
    orc_env *env;
    CHECK_RC(orc_env_open(p, ORC_ENV_NO_CREATE, NULL, &env), ORC_ERR_NOT_FOUND);
    CHECK(strncmp(orc_last_error(), "ORC_ERR_NOT_FOUND", 17) == 0);
    CHECK(strstr(orc_last_error(), "missing-for-text.realm") != NULL);

    /* Another thread has its own (empty) last error. */
    pthread_t th;
    const char *seen[2];
    CHECK(pthread_create(&th, NULL, last_error_in_thread, seen) == 0);
    pthread_join(th, NULL);
    CHECK_STR(seen[0], "");
    CHECK_STR(seen[1], "ok");
    /* And this thread's message survives successful calls. */
    CHECK_OK(orc_env_open(test_path("ok.realm"), ORC_ENV_NO_SYNC, NULL, &env));
    CHECK(strstr(orc_last_error(), "missing-for-text.realm") != NULL);
    orc_txn *w;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    uint32_t t;
    CHECK_OK(orc_class_add(w, "Dup", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_RC(orc_class_add(w, "Dup", ORC_CLASS_TOP_LEVEL, &t), ORC_ERR_EXISTS);
    CHECK(strncmp(orc_last_error(), "ORC_ERR_EXISTS", 14) == 0);
    CHECK(strstr(orc_last_error(), "Dup") != NULL);
    CHECK_EQ(orc_last_status(), ORC_ERR_EXISTS);
    orc_txn_abort(w);
    orc_env_close(env);
}

TEST(env_not_a_realm_file)
{
    const char *path = test_path("garbage.realm");
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    static uint8_t junk[16384];
    fill_pattern(junk, sizeof junk, 99);
    CHECK(fwrite(junk, 1, sizeof junk, f) == sizeof junk);
    fclose(f);
    orc_env *env = NULL;
    int rc = orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env);
    CHECK(rc == ORC_ERR_NOT_A_REALM || rc == ORC_ERR_CORRUPT);
    /* The junk is left alone. */
    struct stat st;
    CHECK(stat(path, &st) == 0);
    CHECK_EQ(st.st_size, sizeof junk);

    /* An empty file is not a realm either (and must not be "repaired" into one silently). */
    const char *empty = test_path("empty.realm");
    f = fopen(empty, "wb");
    CHECK(f != NULL);
    fclose(f);
    rc = orc_env_open(empty, ORC_ENV_READ_ONLY, NULL, &env);
    CHECK(rc != ORC_OK);
}

/*
 * A write transaction that is the first in the process to use a table opens the
 * table's databases; if a reader opens the same databases before that writer ends
 * and the writer then aborts, LMDB closes the handles the writer opened. The reader
 * must not be left with (and must not publish) a handle that is closed, or reused
 * for another database: the table would read the primary-key index as its rows.
 */
TEST(env_aborted_writer_does_not_close_a_readers_table_handles)
{
    const char *p = test_path("abort-dbi.realm");
    char path[600];
    snprintf(path, sizeof path, "%s", p);
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t cn, cs;
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_item_class(w, &t, &cn, &cs));
    CHECK_OK(orc_class_set_primary_key(w, t, cs));
    for (int i = 0; i < 20; i++) {
        char s[32];
        snprintf(s, sizeof s, "item-%d", i);
        CHECK(item_add(w, t, cn, cs, i, s, NULL));
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    orc_env_close(env);

    for (int round = 0; round < 2; round++) {
        /* A fresh process view: no table database opened yet. */
        CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        orc_keys keys = {0};
        /* round 0: the writer opens the rows; round 1: the primary-key index. */
        if (round == 0) {
            CHECK_OK(orc_table_keys(w, t, &keys));
            orc_keys_free(&keys);
        } else {
            orc_value pk = v_str("item-3");
            uint64_t k;
            CHECK_OK(orc_obj_find(w, t, &pk, &k));
        }
        /* A reader on this thread opens both before the writer ends. */
        CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
        CHECK_OK(orc_table_keys(r, t, &keys));
        CHECK_EQ(keys.count, 20);
        orc_keys_free(&keys);
        orc_value pk = v_str("item-5");
        uint64_t k5;
        CHECK_OK(orc_obj_find(r, t, &pk, &k5));
        orc_txn_abort(r);
        orc_txn_abort(w);
        /* Later readers (which open nothing new) still read rows as rows. */
        CHECK(items_match(env, 20));
        CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
        CHECK_OK(orc_obj_find(r, t, &pk, &k5));
        CHECK(orc_obj_exists(r, t, k5));
        orc_txn_abort(r);
        CHECK_ENV(env);
        orc_env_close(env);
    }
}

/* A table another process creates while this one has the file open is readable
 * here from the next transaction on (its database handle is opened then). */
TEST(env_table_created_by_another_process_is_readable)
{
    const char *p = test_path("other-process.realm");
    char path[600];
    snprintf(path, sizeof path, "%s", p);
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t cn, cs;
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_meta_set(w, "x", "y", 1));
    CHECK_OK(orc_txn_commit(w, NULL));
    /* A reader of the old snapshot stays open across the other process's commit. */
    orc_txn *old;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &old));

    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        orc_env *e;
        orc_txn *cw;
        if (orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &e) != ORC_OK) _exit(2);
        if (orc_txn_begin(e, ORC_TXN_WRITE, &cw) != ORC_OK) _exit(3);
        if (!make_item_class(cw, &t, &cn, &cs)) _exit(4);
        for (int i = 0; i < 5; i++) {
            char s[32];
            snprintf(s, sizeof s, "item-%d", i);
            if (!item_add(cw, t, cn, cs, i, s, NULL)) _exit(5);
        }
        if (orc_txn_commit(cw, NULL) != ORC_OK) _exit(6);
        orc_env_close(e);
        _exit(0);
    }
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    orc_class_info ci;
    CHECK_RC(orc_schema_class_find(old, "Item", &ci), ORC_ERR_NOT_FOUND);
    orc_txn_abort(old);
    CHECK(items_match(env, 5));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_schema_class_find(w, "Item", &ci));
    CHECK(item_add(w, ci.table, 0, 1, 5, "item-5", NULL));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK(items_match(env, 6));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}

/* Raw LMDB access to a closed realm file, for the layout tests. */
typedef struct {
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi main, meta;
} raw_file;

static bool raw_open(const char *path, raw_file *r)
{
    if (mdb_env_create(&r->env) || mdb_env_set_maxdbs(r->env, 64)) return false;
    if (mdb_env_open(r->env, path, MDB_NOSUBDIR, 0644)) return false;
    if (mdb_txn_begin(r->env, NULL, 0, &r->txn)) return false;
    return !mdb_dbi_open(r->txn, NULL, 0, &r->main) && !mdb_dbi_open(r->txn, "meta", 0, &r->meta);
}

static int raw_get(raw_file *r, MDB_dbi d, const char *name, MDB_val *v)
{
    MDB_val k = {strlen(name), (void *)name};
    return mdb_get(r->txn, d, &k, v);
}

static bool raw_close(raw_file *r, bool commit)
{
    bool ok = commit ? mdb_txn_commit(r->txn) == 0 : (mdb_txn_abort(r->txn), true);
    mdb_env_close(r->env);
    return ok;
}

/* The version and table states: in the main database in a new file; a format 1
 * file (from a build before format 2: both in "meta") is read and written in its
 * own layout and stays format 1. (The class has no index and no primary key, the
 * layouts format 3 changed; test_index_chunks.c has files of format 2.) */
TEST(env_layout_of_new_and_format_1_files)
{
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("layout.realm"));
    orc_env *env;
    orc_txn *w;
    uint32_t table;
    uint16_t cn, cs;
    uint64_t key, version;
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_item_class(w, &table, &cn, &cs));
    CHECK(item_add(w, table, cn, cs, 0, "item-0", &key));
    CHECK_OK(orc_txn_commit(w, &version));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(item_add(w, table, cn, cs, 1, "item-1", &key));
    CHECK_OK(orc_txn_commit(w, &version));
    CHECK_EQ(version, 2);
    orc_env_close(env);

    raw_file r;
    MDB_val v;
    CHECK(raw_open(path, &r));
    CHECK_OK(raw_get(&r, r.meta, "orc.format", &v));
    CHECK(v.mv_size == 4 && ld32(v.mv_data) == ORC_FORMAT_VERSION);
    CHECK_OK(raw_get(&r, r.main, "orc.version", &v));
    CHECK(v.mv_size == 8 && ld64(v.mv_data) == 2);
    CHECK_OK(raw_get(&r, r.main, "orc.tables", &v));
    CHECK_EQ(raw_get(&r, r.meta, "orc.version", &v), MDB_NOTFOUND);
    CHECK_EQ(raw_get(&r, r.meta, "orc.tables", &v), MDB_NOTFOUND);

    /* Into format 1's layout, as an earlier build wrote it. */
    const char *moved[] = {"orc.version", "orc.tables"};
    for (int i = 0; i < 2; i++) {
        MDB_val k = {strlen(moved[i]), (void *)moved[i]};
        CHECK_OK(mdb_get(r.txn, r.main, &k, &v));
        uint8_t copy[256];
        CHECK(v.mv_size <= sizeof copy);
        memcpy(copy, v.mv_data, v.mv_size);
        MDB_val c = {v.mv_size, copy};
        CHECK_OK(mdb_put(r.txn, r.meta, &k, &c, 0));
        CHECK_OK(mdb_del(r.txn, r.main, &k, NULL));
    }
    uint32_t one = 1;
    MDB_val fk = {10, "orc.format"}, fv = {4, &one};
    CHECK_OK(mdb_put(r.txn, r.meta, &fk, &fv, 0));
    CHECK(raw_close(&r, true));

    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC | ORC_ENV_READ_ONLY, NULL, &env));
    CHECK_OK(orc_env_version(env, &version));
    CHECK_EQ(version, 2);
    CHECK(items_match(env, 2));
    orc_env_close(env);

    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(item_add(w, table, cn, cs, 2, "item-2", &key));
    CHECK_EQ(key, 3); /* the next key came from format 1's table states */
    CHECK_OK(orc_txn_commit(w, &version));
    CHECK_EQ(version, 3);
    CHECK(items_match(env, 3));
    CHECK_OK(orc_env_check(env, NULL));
    orc_env_close(env);

    CHECK(raw_open(path, &r));
    CHECK_OK(raw_get(&r, r.meta, "orc.format", &v));
    CHECK(v.mv_size == 4 && ld32(v.mv_data) == 1);
    CHECK_OK(raw_get(&r, r.meta, "orc.version", &v));
    CHECK(v.mv_size == 8 && ld64(v.mv_data) == 3);
    CHECK_EQ(raw_get(&r, r.main, "orc.version", &v), MDB_NOTFOUND);
    CHECK_EQ(raw_get(&r, r.main, "orc.tables", &v), MDB_NOTFOUND);

    /* A later format than this build's is refused. */
    uint32_t later = ORC_FORMAT_VERSION + 1;
    fv.mv_data = &later;
    CHECK_OK(mdb_put(r.txn, r.meta, &fk, &fv, 0));
    CHECK(raw_close(&r, true));
    CHECK_RC(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env), ORC_ERR_FORMAT_VERSION);
}

/* A syncing commit writes into space the file already has: the file is extended
 * in chunks of zero pages ahead of the pages in use (txn.c, THE FILE'S TAIL), so
 * that fdatasync need not persist a new size for every commit that grows it. */
TEST(env_commits_grow_the_file_in_chunks)
{
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("tail.realm"));
    orc_env *env;
    orc_txn *w;
    uint32_t table;
    uint16_t cn, cs;
    uint64_t key;
    CHECK_OK(orc_env_open(path, 0, NULL, &env)); /* synced commits */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_item_class(w, &table, &cn, &cs));
    CHECK_OK(orc_txn_commit(w, NULL));
    static char big[3000];
    memset(big, 'x', sizeof big - 1);
    size_t changes = 0, first_used = 0, last_used = 0;
    off_t last_size = -1;
    for (int i = 0; i < 40; i++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        CHECK(item_add(w, table, cn, cs, i, big, &key)); /* about a page each */
        CHECK_OK(orc_txn_commit(w, NULL));
        struct stat st;
        orc_env_info info;
        CHECK(stat(path, &st) == 0);
        CHECK_OK(orc_env_info_get(env, &info));
        CHECK((size_t)st.st_size >= info.used_bytes);
        if (i == 0) first_used = info.used_bytes;
        last_used = info.used_bytes;
        if (st.st_size != last_size) changes++;
        last_size = st.st_size;
    }
    CHECK(last_used >= first_used + 30 * 4096); /* the commits did grow the data */
    CHECK(changes <= 3);
    CHECK_ENV(env);
    orc_env_close(env);
    CHECK_OK(orc_env_open(path, ORC_ENV_VERIFY, NULL, &env)); /* the zero tail is no damage */
    CHECK_OK(orc_env_check(env, NULL));
    orc_env_close(env);
}

/*
 * This process's fstat calls while fstat_counting is set. The test binary's own
 * fstat comes before libc's for ORCore (linked in) and forwards every call.
 */
static int fstat_counting, fstat_calls;

int fstat(int fd, struct stat *st)
{
    static int (*real)(int, struct stat *);
    if (!real) real = (int (*)(int, struct stat *))dlsym(RTLD_NEXT, "fstat");
    if (__atomic_load_n(&fstat_counting, __ATOMIC_RELAXED)) __atomic_add_fetch(&fstat_calls, 1, __ATOMIC_RELAXED);
    return real(fd, st);
}

/*
 * Commits and read snapshots know the file is large enough without asking the
 * kernel (env.c, THE FILE'S SIZE: on ext4 a stat makes the next commit's sync write
 * the inode too): 60 synced one-object commits, each followed by a snapshot whose
 * reads walk the table, stat the file only when the commits' zero tail runs out.
 * Then another process grows the file far past what this one has seen, and the
 * next snapshot's walk reads every row that process wrote.
 */
/* the wait for the other process has a deadline */
GUARDED_TEST(env_commits_and_snapshots_do_not_stat_the_file, 120)
{
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("nostat.realm"));
    int go[2];
    CHECK(pipe(go) == 0);
    fflush(NULL);
    pid_t pid = fork(); /* before this process opens the file: nothing of it crosses the fork */
    CHECK(pid >= 0);
    if (pid == 0) {
        close(go[1]);
        char c;
        if (read(go[0], &c, 1) != 1) _exit(10);
        orc_env *env;
        orc_txn *w;
        orc_class_info ci;
        orc_prop_info pn, ps;
        if (orc_env_open(path, 0, NULL, &env) || orc_txn_begin(env, ORC_TXN_WRITE, &w)) _exit(11);
        if (orc_schema_class_find(w, "Item", &ci) || orc_schema_prop_find(w, ci.table, "n", &pn) ||
            orc_schema_prop_find(w, ci.table, "s", &ps))
            _exit(12);
        for (int i = 260; i < 20260; i++) {
            char s[32];
            uint64_t key;
            snprintf(s, sizeof s, "item-%d", i);
            if (!item_add(w, ci.table, pn.col, ps.col, i, s, &key)) _exit(13);
        }
        if (orc_txn_commit(w, NULL)) _exit(14);
        orc_env_close(env);
        _exit(0);
    }
    close(go[0]);
    orc_env *env;
    orc_txn *w;
    uint32_t table;
    uint16_t cn, cs;
    uint64_t key;
    CHECK_OK(orc_env_open(path, 0, NULL, &env)); /* synced commits: the ones that keep a zero tail */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(make_item_class(w, &table, &cn, &cs));
    for (int i = 0; i < 200; i++) { /* enough rows for the reads to walk the table */
        char s[32];
        snprintf(s, sizeof s, "item-%d", i);
        CHECK(item_add(w, table, cn, cs, i, s, &key));
    }
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK(items_match(env, 200));
    __atomic_store_n(&fstat_calls, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&fstat_counting, 1, __ATOMIC_RELAXED);
    for (int i = 200; i < 260; i++) {
        char s[32];
        snprintf(s, sizeof s, "item-%d", i);
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        CHECK(item_add(w, table, cn, cs, i, s, &key));
        CHECK_OK(orc_txn_commit(w, NULL));
        CHECK(items_match(env, (uint64_t)i + 1));
    }
    __atomic_store_n(&fstat_counting, 0, __ATOMIC_RELAXED);
    int calls = __atomic_load_n(&fstat_calls, __ATOMIC_RELAXED);
    if (calls > 3) test_fail(__FILE__, __LINE__, "60 commits and 60 snapshots called fstat %d times", calls);

    CHECK(write(go[1], "g", 1) == 1);
    close(go[1]);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(items_match(env, 20260)); /* the other process's rows, past the size this one had seen */
    orc_txn *r;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    orc_value v;
    CHECK_OK(orc_obj_get(r, table, key + 20000, cn, &v));
    CHECK_EQ(v.integer, 20259);
    bool walked = false;
    for (unsigned i = 0; r->readers && i < ROW_READERS; i++) walked |= r->readers[i].table == table && r->readers[i].usable;
    CHECK(walked);
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}
