/*
 * test_txn.c — transactions: version numbers, snapshot isolation and renew,
 * abort, the one-writer-per-thread rule, the generation counter, and the
 * metadata store.
 *
 * Snapshot tests keep an old reader open across commits, so the engine must
 * let one thread hold several read transactions (and a write transaction
 * next to them) on the same environment.
 */
#include "harness.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

/* A fresh file at `name` with class "C" {x: int}. */
static int setup(const char *name, orc_env **env, uint32_t *table, uint16_t *col)
{
    orc_txn *w;
    int rc = orc_env_open(name, ORC_ENV_NO_SYNC, NULL, env);
    if (rc) return rc;
    if ((rc = orc_txn_begin(*env, ORC_TXN_WRITE, &w))) return rc;
    orc_prop_spec x = {.name = "x", .type = ORC_TYPE_INT};
    if ((rc = orc_class_add(w, "C", ORC_CLASS_TOP_LEVEL, table)) || (rc = orc_prop_add(w, *table, &x, col))) {
        orc_txn_abort(w);
        return rc;
    }
    return orc_txn_commit(w, NULL);
}

static int64_t get_x(orc_txn *txn, uint32_t t, uint64_t key, uint16_t col)
{
    orc_value v;
    if (orc_obj_get(txn, t, key, col, &v) != ORC_OK || v.type != ORC_TYPE_INT) return INT64_MIN;
    return v.integer;
}

TEST(txn_versions_count_every_commit)
{
    orc_env *env;
    orc_txn *w, *r;
    uint64_t v;
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("versions.realm"));
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_env_version(env, &v));
    CHECK_EQ(v, 0);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_EQ(orc_txn_version(r), 0);
    CHECK(!orc_txn_is_write(r));
    orc_txn_abort(r);

    /* An empty write transaction is still a version. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK(orc_txn_is_write(w));
    CHECK_EQ(orc_txn_version(w), 0);
    CHECK_OK(orc_txn_commit(w, &v));
    CHECK_EQ(v, 1);

    uint32_t t;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_EQ(orc_txn_version(w), 1);
    CHECK_OK(orc_class_add(w, "A", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(orc_txn_commit(w, &v));
    CHECK_EQ(v, 2);

    /* Aborts do not count. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_obj_create(w, t, NULL, NULL, 0, NULL));
    orc_txn_abort(w);
    CHECK_OK(orc_env_version(env, &v));
    CHECK_EQ(v, 2);

    for (uint64_t i = 3; i < 40; i++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        CHECK_EQ(orc_txn_version(w), i - 1);
        if (i % 2) CHECK_OK(orc_obj_create(w, t, NULL, NULL, 0, NULL));
        CHECK_OK(orc_txn_commit(w, &v));
        CHECK_EQ(v, i);
    }
    CHECK_OK(orc_env_version(env, &v));
    CHECK_EQ(v, 39);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_EQ(orc_txn_version(r), 39);
    /* Committing a read transaction just ends it. */
    CHECK_OK(orc_txn_commit(r, NULL));
    orc_env_close(env);

    /* The version survives reopening, and counting goes on from it. */
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, NULL, &env));
    CHECK_OK(orc_env_version(env, &v));
    CHECK_EQ(v, 39);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_txn_commit(w, &v));
    CHECK_EQ(v, 40);
    orc_env_close(env);
}

TEST(txn_read_snapshot_isolation_and_renew)
{
    orc_env *env;
    orc_txn *w, *r, *r2;
    uint32_t t;
    uint16_t c;
    uint64_t k1, k2, v, count;
    CHECK_OK(setup(test_path("snap.realm"), &env, &t, &c));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    orc_value one = v_int(1);
    CHECK_OK(orc_obj_create(w, t, &c, &one, 1, &k1));
    CHECK_OK(orc_txn_commit(w, &v));
    CHECK_EQ(v, 2);

    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_EQ(orc_txn_version(r), 2);
    CHECK_EQ(get_x(r, t, k1, c), 1);

    /* A commit after the reader began: object changed, object added, class added, metadata set. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    orc_value two = v_int(2);
    CHECK_OK(orc_obj_set(w, t, k1, c, &two));
    CHECK_OK(orc_obj_create(w, t, &c, &two, 1, &k2));
    uint32_t t2;
    CHECK_OK(orc_class_add(w, "Later", ORC_CLASS_TOP_LEVEL, &t2));
    CHECK_OK(orc_meta_set(w, "user.k", "v", 1));
    /* Uncommitted writes are invisible to the reader too. */
    CHECK_EQ(get_x(r, t, k1, c), 1);
    CHECK_OK(orc_txn_commit(w, &v));
    CHECK_EQ(v, 3);

    CHECK_EQ(orc_txn_version(r), 2);
    CHECK_EQ(get_x(r, t, k1, c), 1);
    CHECK(!orc_obj_exists(r, t, k2));
    CHECK_OK(orc_table_count(r, t, &count));
    CHECK_EQ(count, 1);
    orc_class_info ci;
    CHECK_RC(orc_schema_class_find(r, "Later", &ci), ORC_ERR_NOT_FOUND);
    CHECK_EQ(orc_schema_class_count(r), 1);
    const void *d;
    size_t n;
    CHECK_RC(orc_meta_get(r, "user.k", &d, &n), ORC_ERR_NOT_FOUND);

    /* A reader begun now sees the commit; the old one still does not. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r2));
    CHECK_EQ(orc_txn_version(r2), 3);
    CHECK_EQ(get_x(r2, t, k1, c), 2);
    CHECK_EQ(get_x(r, t, k1, c), 1);
    orc_txn_abort(r2);

    CHECK_OK(orc_txn_renew(r));
    CHECK_EQ(orc_txn_version(r), 3);
    CHECK_EQ(get_x(r, t, k1, c), 2);
    CHECK(orc_obj_exists(r, t, k2));
    CHECK_OK(orc_table_count(r, t, &count));
    CHECK_EQ(count, 2);
    CHECK_OK(orc_schema_class_find(r, "Later", &ci));
    CHECK_EQ(ci.table, t2);
    CHECK_OK(orc_meta_get(r, "user.k", &d, &n));
    CHECK_EQ(n, 1);

    /* Renew with nothing new keeps the version. */
    CHECK_OK(orc_txn_renew(r));
    CHECK_EQ(orc_txn_version(r), 3);
    orc_txn_abort(r);

    /* Renew refuses write transactions. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_RC(orc_txn_renew(w), ORC_ERR_INVALID_ARG);
    orc_txn_abort(w);
    orc_env_close(env);
}

TEST(txn_many_snapshots_on_one_thread)
{
    orc_env *env;
    orc_txn *w, *r[10];
    uint32_t t;
    uint16_t c;
    uint64_t k;
    CHECK_OK(setup(test_path("many.realm"), &env, &t, &c));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    orc_value zero = v_int(0);
    CHECK_OK(orc_obj_create(w, t, &c, &zero, 1, &k));
    CHECK_OK(orc_txn_commit(w, NULL));
    for (int i = 0; i < 10; i++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r[i]));
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        orc_value v = v_int(i + 1);
        CHECK_OK(orc_obj_set(w, t, k, c, &v));
        CHECK_OK(orc_txn_commit(w, NULL));
    }
    for (int i = 0; i < 10; i++) {
        CHECK_EQ(get_x(r[i], t, k, c), i);
        CHECK_EQ(orc_txn_version(r[i]), 2 + i);
    }
    for (int i = 0; i < 10; i++) orc_txn_abort(r[i]);
    orc_env_close(env);
}

TEST(txn_abort_discards_everything)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t c;
    uint64_t k, v, count;
    char path[600];
    snprintf(path, sizeof path, "%s", test_path("abort.realm"));
    CHECK_OK(setup(path, &env, &t, &c));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    orc_value five = v_int(5);
    CHECK_OK(orc_obj_create(w, t, &c, &five, 1, &k));
    CHECK_OK(orc_meta_set(w, "keep", "yes", 3));
    CHECK_OK(orc_txn_commit(w, &v));
    CHECK_EQ(v, 2);

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    /* Objects. */
    orc_value nine = v_int(9);
    CHECK_OK(orc_obj_set(w, t, k, c, &nine));
    uint64_t k2;
    CHECK_OK(orc_obj_create(w, t, &c, &nine, 1, &k2));
    /* Schema: new class, new property, renamed class and property, index. */
    uint32_t tn;
    CHECK_OK(orc_class_add(w, "New", ORC_CLASS_TOP_LEVEL, &tn));
    orc_prop_spec y = {.name = "y", .type = ORC_TYPE_STRING, .flags = ORC_PROP_OPTIONAL};
    uint16_t cy;
    CHECK_OK(orc_prop_add(w, t, &y, &cy));
    CHECK_OK(orc_prop_rename(w, t, c, "renamed_x"));
    CHECK_OK(orc_class_rename(w, t, "RenamedC"));
    CHECK_OK(orc_prop_set_indexed(w, t, c, true));
    /* Metadata. */
    CHECK_OK(orc_meta_set(w, "new", "1", 1));
    CHECK_OK(orc_meta_delete(w, "keep"));
    /* Visible inside the transaction. */
    CHECK_EQ(get_x(w, t, k, c), 9);
    CHECK_EQ(orc_schema_class_count(w), 2);
    orc_txn_abort(w);

    CHECK_OK(orc_env_version(env, &v));
    CHECK_EQ(v, 2);
    for (int pass = 0; pass < 2; pass++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
        CHECK_EQ(orc_txn_version(r), 2);
        CHECK_EQ(get_x(r, t, k, c), 5);
        CHECK(!orc_obj_exists(r, t, k2));
        CHECK_OK(orc_table_count(r, t, &count));
        CHECK_EQ(count, 1);
        CHECK_EQ(orc_schema_class_count(r), 1);
        orc_class_info ci;
        CHECK_RC(orc_schema_class_find(r, "New", &ci), ORC_ERR_NOT_FOUND);
        CHECK_RC(orc_schema_class_find(r, "RenamedC", &ci), ORC_ERR_NOT_FOUND);
        CHECK_OK(orc_schema_class_find(r, "C", &ci));
        CHECK_EQ(ci.prop_count, 1);
        orc_prop_info pi;
        CHECK_OK(orc_schema_prop_find(r, t, "x", &pi));
        CHECK_EQ(pi.flags & ORC_PROP_INDEXED, 0);
        CHECK_RC(orc_schema_prop_find(r, t, "y", &pi), ORC_ERR_NOT_FOUND);
        const void *d;
        size_t n;
        CHECK_RC(orc_meta_get(r, "new", &d, &n), ORC_ERR_NOT_FOUND);
        CHECK_OK(orc_meta_get(r, "keep", &d, &n));
        CHECK_EQ(n, 3);
        orc_txn_abort(r);
        /* Second pass: after reopening, nothing of the aborted transaction reached the file. */
        orc_env_close(env);
        CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, NULL, &env));
    }

    /* The schema cache is not poisoned: the same changes can be made and committed now. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "New", ORC_CLASS_TOP_LEVEL, &tn));
    CHECK_OK(orc_prop_add(w, t, &y, &cy));
    CHECK_OK(orc_txn_commit(w, &v));
    CHECK_EQ(v, 3);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_EQ(orc_schema_class_count(r), 2);
    orc_value vy;
    CHECK_OK(orc_obj_get(r, t, k, cy, &vy));
    CHECK_EQ(vy.type, ORC_TYPE_NULL);
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(txn_abort_then_reopen)
{
    const char *p = test_path("abort-reopen.realm");
    char path[600];
    snprintf(path, sizeof path, "%s", p);
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t;
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "Kept", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "Dropped", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(orc_obj_create(w, t, NULL, NULL, 0, NULL));
    CHECK_OK(orc_meta_set(w, "m", "x", 1));
    orc_txn_abort(w);
    orc_env_close(env);

    CHECK_OK(orc_env_open(path, ORC_ENV_NO_CREATE | ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_EQ(orc_schema_class_count(r), 1);
    orc_class_info ci;
    CHECK_RC(orc_schema_class_find(r, "Dropped", &ci), ORC_ERR_NOT_FOUND);
    const void *d;
    size_t n;
    CHECK_RC(orc_meta_get(r, "m", &d, &n), ORC_ERR_NOT_FOUND);
    CHECK_EQ(orc_txn_version(r), 1);
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}

GUARDED_TEST(txn_second_write_on_same_thread_is_busy, 60)
{
    const char *p = test_path("busy.realm");
    char path[600];
    snprintf(path, sizeof path, "%s", p);
    orc_env *env, *env2;
    orc_txn *w, *w2 = NULL;
    uint32_t t;
    uint64_t k, v;
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env2));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_class_add(w, "C", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_RC(orc_txn_begin(env, ORC_TXN_WRITE, &w2), ORC_ERR_BUSY);
    CHECK(strncmp(orc_last_error(), "ORC_ERR_BUSY", 12) == 0);
    /* Through another handle on the same file: still the same environment. */
    CHECK_RC(orc_txn_begin(env2, ORC_TXN_WRITE, &w2), ORC_ERR_BUSY);
    /* Read transactions are fine meanwhile. */
    orc_txn *r;
    CHECK_OK(orc_txn_begin(env2, ORC_TXN_READ, &r));
    orc_txn_abort(r);
    /* The first transaction is unaffected. */
    CHECK_OK(orc_obj_create(w, t, NULL, NULL, 0, &k));
    CHECK_OK(orc_txn_commit(w, &v));
    CHECK_EQ(v, 1);

    /* After it ended, a write can begin again (through either handle). */
    CHECK_OK(orc_txn_begin(env2, ORC_TXN_WRITE, &w2));
    CHECK(orc_obj_exists(w2, t, k));
    CHECK_RC(orc_txn_begin(env, ORC_TXN_WRITE, &w), ORC_ERR_BUSY);
    orc_txn_abort(w2);
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_txn_commit(w, &v));
    CHECK_EQ(v, 2);

    /* Two different files: one write transaction each is allowed on one thread. */
    orc_env *other;
    orc_txn *wo;
    CHECK_OK(orc_env_open(test_path("busy-other.realm"), ORC_ENV_NO_SYNC, NULL, &other));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_txn_begin(other, ORC_TXN_WRITE, &wo));
    CHECK_OK(orc_txn_commit(wo, NULL));
    CHECK_OK(orc_txn_commit(w, NULL));
    orc_env_close(other);
    orc_env_close(env2);
    orc_env_close(env);
}

TEST(txn_generation_changes_on_writes)
{
    orc_env *env;
    orc_txn *w;
    uint32_t t;
    uint16_t c;
    uint64_t k;
    CHECK_OK(setup(test_path("gen.realm"), &env, &t, &c));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    uint64_t g = orc_txn_generation(w), g2;
    orc_value one = v_int(1);
    CHECK_OK(orc_obj_create(w, t, &c, &one, 1, &k));
    g2 = orc_txn_generation(w);
    CHECK(g2 != g);
    g = g2;
    orc_value two = v_int(2);
    CHECK_OK(orc_obj_set(w, t, k, c, &two));
    g2 = orc_txn_generation(w);
    CHECK(g2 != g);
    g = g2;
    CHECK_OK(orc_obj_add_int(w, t, k, c, 3));
    g2 = orc_txn_generation(w);
    CHECK(g2 != g);
    g = g2;
    CHECK_OK(orc_meta_set(w, "g", "1", 1));
    g2 = orc_txn_generation(w);
    CHECK(g2 != g);
    g = g2;
    orc_prop_spec s = {.name = "s", .type = ORC_TYPE_STRING};
    uint16_t cs;
    CHECK_OK(orc_prop_add(w, t, &s, &cs));
    g2 = orc_txn_generation(w);
    CHECK(g2 != g);
    g = g2;
    CHECK_OK(orc_obj_erase(w, t, k));
    g2 = orc_txn_generation(w);
    CHECK(g2 != g);
    CHECK_OK(orc_txn_commit(w, NULL));
    orc_env_close(env);
}

TEST(txn_metadata)
{
    orc_env *env;
    orc_txn *w, *r;
    const void *d;
    size_t n;
    CHECK_OK(orc_env_open(test_path("meta.realm"), ORC_ENV_NO_SYNC, NULL, &env));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    static const char bin[] = {'a', 0, 'b', 0, (char)0xff};
    CHECK_OK(orc_meta_set(w, "app.bin", bin, sizeof bin));
    CHECK_OK(orc_meta_get(w, "app.bin", &d, &n)); /* visible in its own transaction */
    CHECK_EQ(n, sizeof bin);
    CHECK(memcmp(d, bin, n) == 0);
    static char big[100000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (char)(i * 7);
    CHECK_OK(orc_meta_set(w, "app.big", big, sizeof big));
    CHECK_OK(orc_meta_set(w, "app.empty", "", 0)); /* data non-NULL, size 0: an empty value */
    CHECK_OK(orc_meta_set(w, "app.over", "first", 5));
    CHECK_OK(orc_meta_set(w, "app.over", "second!", 7));
    /* "orc." names are reserved. */
    CHECK_RC(orc_meta_set(w, "orc.format", "x", 1), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_meta_set(w, "orc.mine", "x", 1), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_meta_get(w, "orc.format", &d, &n), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_meta_get(w, "orc.schema", &d, &n), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_meta_delete(w, "orc.schema"), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_meta_delete(w, "orc.version"), ORC_ERR_INVALID_ARG);
    /* Bad names. */
    CHECK_RC(orc_meta_set(w, "", "x", 1), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_meta_set(w, NULL, "x", 1), ORC_ERR_INVALID_ARG);
    CHECK_RC(orc_meta_get(w, NULL, &d, &n), ORC_ERR_INVALID_ARG);
    /* "orc" alone or "orcX" are ordinary names. */
    CHECK_OK(orc_meta_set(w, "orcX", "1", 1));
    CHECK_OK(orc_txn_commit(w, NULL));

    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_OK(orc_meta_get(r, "app.bin", &d, &n));
    CHECK_EQ(n, sizeof bin);
    CHECK(memcmp(d, bin, n) == 0);
    CHECK_OK(orc_meta_get(r, "app.big", &d, &n));
    CHECK_EQ(n, sizeof big);
    CHECK(memcmp(d, big, n) == 0);
    CHECK_OK(orc_meta_get(r, "app.empty", &d, &n));
    CHECK_EQ(n, 0);
    CHECK_OK(orc_meta_get(r, "app.over", &d, &n));
    CHECK_EQ(n, 7);
    CHECK(memcmp(d, "second!", 7) == 0);
    CHECK_OK(orc_meta_get(r, "orcX", &d, &n));
    CHECK_RC(orc_meta_get(r, "app.missing", &d, &n), ORC_ERR_NOT_FOUND);
    /* Writes in a read transaction. */
    CHECK_RC(orc_meta_set(r, "app.x", "1", 1), ORC_ERR_READ_ONLY);
    CHECK_RC(orc_meta_delete(r, "app.bin"), ORC_ERR_READ_ONLY);
    orc_txn_abort(r);

    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_meta_delete(w, "app.bin"));
    CHECK_OK(orc_meta_delete(w, "app.bin")); /* absent: still OK */
    CHECK_OK(orc_meta_delete(w, "never.was"));
    CHECK_RC(orc_meta_get(w, "app.bin", &d, &n), ORC_ERR_NOT_FOUND);
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(txn_metadata_survives_reopen)
{
    const char *p = test_path("meta2.realm");
    char path[600];
    snprintf(path, sizeof path, "%s", p);
    orc_env *env;
    orc_txn *w, *r;
    const void *d;
    size_t n;
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_meta_set(w, "a", "1", 1));
    CHECK_OK(orc_meta_set(w, "b", "22", 2));
    CHECK_RC(orc_meta_delete(w, "orc.format"), ORC_ERR_INVALID_ARG);
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_meta_delete(w, "a"));
    CHECK_OK(orc_txn_commit(w, NULL));
    orc_env_close(env);
    CHECK_OK(orc_env_open(path, ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, NULL, &env));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    CHECK_RC(orc_meta_get(r, "a", &d, &n), ORC_ERR_NOT_FOUND);
    CHECK_OK(orc_meta_get(r, "b", &d, &n));
    CHECK_EQ(n, 2);
    CHECK(memcmp(d, "22", 2) == 0);
    CHECK_EQ(orc_txn_version(r), 2);
    orc_txn_abort(r);
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(txn_writes_refused_in_read_transaction)
{
    orc_env *env;
    orc_txn *w, *r;
    uint32_t t;
    uint16_t c;
    uint64_t k;
    CHECK_OK(setup(test_path("rowrites.realm"), &env, &t, &c));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_obj_create(w, t, NULL, NULL, 0, &k));
    CHECK_OK(orc_txn_commit(w, NULL));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    orc_value one = v_int(1);
    uint32_t t2;
    uint16_t c2;
    orc_prop_spec s = {.name = "z", .type = ORC_TYPE_INT};
    CHECK_RC(orc_class_add(r, "X", ORC_CLASS_TOP_LEVEL, &t2), ORC_ERR_READ_ONLY);
    CHECK_RC(orc_prop_add(r, t, &s, &c2), ORC_ERR_READ_ONLY);
    CHECK_RC(orc_obj_create(r, t, &c, &one, 1, NULL), ORC_ERR_READ_ONLY);
    CHECK_RC(orc_obj_set(r, t, k, c, &one), ORC_ERR_READ_ONLY);
    CHECK_RC(orc_obj_add_int(r, t, k, c, 1), ORC_ERR_READ_ONLY);
    CHECK_RC(orc_obj_erase(r, t, k), ORC_ERR_READ_ONLY);
    CHECK_RC(orc_table_clear(r, t), ORC_ERR_READ_ONLY);
    /* The reader is still usable after refusals. */
    CHECK(orc_obj_exists(r, t, k));
    CHECK_EQ(get_x(r, t, k, c), 0);
    orc_txn_abort(r);
    orc_env_close(env);
}

/* A read transaction may be used from another thread (one at a time). */
struct reader_arg {
    orc_txn *r;
    uint32_t t;
    uint16_t c;
    uint64_t k;
    int64_t seen;
};
static void *read_elsewhere(void *p)
{
    struct reader_arg *a = p;
    a->seen = get_x(a->r, a->t, a->k, a->c);
    return NULL;
}

TEST(txn_read_transaction_moves_between_threads)
{
    orc_env *env;
    orc_txn *w;
    uint32_t t;
    uint16_t c;
    uint64_t k;
    CHECK_OK(setup(test_path("move.realm"), &env, &t, &c));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    orc_value v = v_int(41);
    CHECK_OK(orc_obj_create(w, t, &c, &v, 1, &k));
    CHECK_OK(orc_txn_commit(w, NULL));
    struct reader_arg a = {.t = t, .c = c, .k = k};
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &a.r));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    v = v_int(42);
    CHECK_OK(orc_obj_set(w, t, k, c, &v));
    CHECK_OK(orc_txn_commit(w, NULL));
    pthread_t th;
    CHECK(pthread_create(&th, NULL, read_elsewhere, &a) == 0);
    pthread_join(th, NULL);
    CHECK_EQ(a.seen, 41);
    CHECK_EQ(get_x(a.r, t, k, c), 41);
    orc_txn_abort(a.r); /* ended on a thread other than the one that used it last */
    orc_env_close(env);
}
