/*
 * test_copy.c — orc_env_copy: the copy opens with the same schema, objects,
 * collections, metadata, versions and changeset log as the original; it
 * holds only committed state; it refuses an existing destination; it is
 * compacted (not bigger than the original after many erases); and object keys
 * stay unique across it (a key erased before the copy is not handed out by it).
 *
 * The comparison walks both files through the public API only, so it checks
 * what a user of the copy would see.
 */
#include "harness.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>




static off_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* One object's properties, collections included, in two transactions. */
static bool objects_equal(orc_txn *a, orc_txn *b, uint32_t t, uint64_t key, const orc_class_info *ci)
{
    for (uint32_t i = 0; i < ci->prop_count; i++) {
        orc_prop_info p;
        HOK(orc_schema_prop_at(a, t, i, &p));
        if (p.collection == ORC_COLL_NONE) {
            orc_value va, vb;
            HOK(orc_obj_get(a, t, key, p.col, &va));
            HOK(orc_obj_get(b, t, key, p.col, &vb));
            if (!value_identical(&va, &vb)) HFAIL("%s.%s of key %" PRIu64 " differs in the copy", ci->name, p.name, key);
            continue;
        }
        size_t na, nb;
        HOK(orc_coll_size(a, t, key, p.col, &na));
        HOK(orc_coll_size(b, t, key, p.col, &nb));
        if (na != nb) HFAIL("%s.%s of key %" PRIu64 ": %zu elements, copy %zu", ci->name, p.name, key, na, nb);
        for (size_t e = 0; e < na; e++) {
            orc_value va, vb;
            HOK(orc_coll_get(a, t, key, p.col, e, &va));
            HOK(orc_coll_get(b, t, key, p.col, e, &vb));
            if (!value_identical(&va, &vb)) HFAIL("%s.%s[%zu] of key %" PRIu64 " differs", ci->name, p.name, e, key);
            if (p.collection == ORC_COLL_DICT) {
                HOK(orc_dict_key_at(a, t, key, p.col, e, &va));
                HOK(orc_dict_key_at(b, t, key, p.col, e, &vb));
                if (!value_identical(&va, &vb)) HFAIL("%s.%s key #%zu differs", ci->name, p.name, e);
            }
        }
    }
    return true;
}

/* Schema, objects, versions and log of two environments are the same. */
static bool envs_equal(orc_env *ea, orc_env *eb, const char *const *meta_names, size_t nmeta)
{
    orc_txn *a = NULL, *b = NULL;
    orc_keys ka = {0}, kb = {0};
    bool ok = false;
    if (orc_txn_begin(ea, ORC_TXN_READ, &a) || orc_txn_begin(eb, ORC_TXN_READ, &b)) {
        test_fail(__FILE__, __LINE__, "begin: %s", orc_last_error());
        goto out;
    }
    if (orc_txn_version(a) != orc_txn_version(b)) {
        test_fail(__FILE__, __LINE__, "version %" PRIu64 ", copy %" PRIu64, orc_txn_version(a), orc_txn_version(b));
        goto out;
    }
    uint32_t nclasses = orc_schema_class_count(a);
    if (nclasses != orc_schema_class_count(b)) {
        test_fail(__FILE__, __LINE__, "class counts differ");
        goto out;
    }
    for (uint32_t i = 0; i < nclasses; i++) {
        orc_class_info ca, cb;
        if (orc_schema_class_at(a, i, &ca) || orc_schema_class_at(b, i, &cb)) goto fail;
        if (ca.table != cb.table || strcmp(ca.name, cb.name) || ca.kind != cb.kind || ca.pk_col != cb.pk_col ||
            ca.prop_count != cb.prop_count) {
            test_fail(__FILE__, __LINE__, "class %s differs in the copy", ca.name);
            goto out;
        }
        for (uint32_t j = 0; j < ca.prop_count; j++) {
            orc_prop_info pa, pb;
            if (orc_schema_prop_at(a, ca.table, j, &pa) || orc_schema_prop_at(b, ca.table, j, &pb)) goto fail;
            if (pa.col != pb.col || strcmp(pa.name, pb.name) || pa.type != pb.type || pa.collection != pb.collection ||
                pa.flags != pb.flags || pa.link_table != pb.link_table) {
                test_fail(__FILE__, __LINE__, "property %s.%s differs in the copy", ca.name, pa.name);
                goto out;
            }
        }
        ka.count = kb.count = 0;
        if (orc_table_keys(a, ca.table, &ka) || orc_table_keys(b, ca.table, &kb)) goto fail;
        if (ka.count != kb.count || (ka.count && memcmp(ka.keys, kb.keys, ka.count * sizeof *ka.keys))) {
            test_fail(__FILE__, __LINE__, "class %s: keys differ (%zu vs %zu)", ca.name, ka.count, kb.count);
            goto out;
        }
        for (size_t k = 0; k < ka.count; k++) {
            if (!objects_equal(a, b, ca.table, ka.keys[k], &ca)) goto out;
            uint64_t ba, bb;
            if (orc_obj_backlink_count(a, ca.table, ka.keys[k], &ba) ||
                orc_obj_backlink_count(b, ca.table, ka.keys[k], &bb))
                goto fail;
            if (ba != bb) {
                test_fail(__FILE__, __LINE__, "backlink counts differ");
                goto out;
            }
        }
    }
    for (size_t i = 0; i < nmeta; i++) {
        const void *da, *db;
        size_t na, nb;
        int ra = orc_meta_get(a, meta_names[i], &da, &na), rb = orc_meta_get(b, meta_names[i], &db, &nb);
        if (ra != rb || (ra == ORC_OK && (na != nb || memcmp(da, db, na)))) {
            test_fail(__FILE__, __LINE__, "metadata '%s' differs in the copy", meta_names[i]);
            goto out;
        }
    }
    uint64_t first = orc_log_first_version(a);
    if (first != orc_log_first_version(b)) {
        test_fail(__FILE__, __LINE__, "log starts at %" PRIu64 ", copy at %" PRIu64, first,
                  orc_log_first_version(b));
        goto out;
    }
    for (uint64_t v = first; first && v <= orc_txn_version(a); v++) {
        const void *da, *db;
        size_t na, nb;
        if (orc_log_get(a, v, &da, &na) || orc_log_get(b, v, &db, &nb)) goto fail;
        if (na != nb || memcmp(da, db, na)) {
            test_fail(__FILE__, __LINE__, "changeset %" PRIu64 " differs in the copy", v);
            goto out;
        }
    }
    ok = true;
    goto out;
fail:
    test_fail(__FILE__, __LINE__, "reading for the comparison: %s", orc_last_error());
out:
    orc_keys_free(&ka);
    orc_keys_free(&kb);
    orc_txn_abort(a);
    orc_txn_abort(b);
    return ok;
}

typedef struct model_ids {
    uint32_t person, dog, addr;
    uint16_t p_name, p_age, p_dogs, p_tags, p_addr, p_blob, d_name, a_city;
} model_ids;

/* A small realm with a primary key, an index, links, a dictionary, embedded objects and a blob. */
static bool build_source(orc_env *env, model_ids *m, uint64_t *max_key)
{
    orc_txn *w;
    HOK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    HOK(orc_class_add(w, "Dog", ORC_CLASS_TOP_LEVEL, &m->dog));
    HOK(orc_class_add(w, "Address", ORC_CLASS_EMBEDDED, &m->addr));
    HOK(orc_class_add(w, "Person", ORC_CLASS_TOP_LEVEL, &m->person));
    orc_prop_spec s;
    s = (orc_prop_spec){.name = "name", .type = ORC_TYPE_STRING};
    HOK(orc_prop_add(w, m->dog, &s, &m->d_name));
    s = (orc_prop_spec){.name = "city", .type = ORC_TYPE_STRING};
    HOK(orc_prop_add(w, m->addr, &s, &m->a_city));
    s = (orc_prop_spec){.name = "name", .type = ORC_TYPE_STRING, .flags = ORC_PROP_PRIMARY_KEY};
    HOK(orc_prop_add(w, m->person, &s, &m->p_name));
    s = (orc_prop_spec){.name = "age", .type = ORC_TYPE_INT, .flags = ORC_PROP_INDEXED};
    HOK(orc_prop_add(w, m->person, &s, &m->p_age));
    s = (orc_prop_spec){.name = "dogs", .type = ORC_TYPE_LINK, .collection = ORC_COLL_LIST, .link_table = m->dog};
    HOK(orc_prop_add(w, m->person, &s, &m->p_dogs));
    s = (orc_prop_spec){.name = "tags", .type = ORC_TYPE_INT, .collection = ORC_COLL_DICT, .flags = ORC_PROP_OPTIONAL};
    HOK(orc_prop_add(w, m->person, &s, &m->p_tags));
    s = (orc_prop_spec){.name = "addr", .type = ORC_TYPE_LINK, .flags = ORC_PROP_OPTIONAL, .link_table = m->addr};
    HOK(orc_prop_add(w, m->person, &s, &m->p_addr));
    s = (orc_prop_spec){.name = "blob", .type = ORC_TYPE_BINARY, .flags = ORC_PROP_OPTIONAL};
    HOK(orc_prop_add(w, m->person, &s, &m->p_blob));
    HOK(orc_meta_set(w, "app.schema_version", "\x07\0\0\0", 4));
    HOK(orc_txn_commit(w, NULL));

    static uint8_t blob[70000];
    for (size_t i = 0; i < sizeof blob; i++) blob[i] = (uint8_t)(i * 31 + 7);
    uint64_t dogs[20];
    *max_key = 0;
    for (int round = 0; round < 5; round++) {
        HOK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        for (int i = 0; i < 4; i++) {
            char name[16];
            snprintf(name, sizeof name, "dog%d", round * 4 + i);
            orc_value v = v_str(name);
            HOK(orc_obj_create(w, m->dog, &m->d_name, &v, 1, &dogs[round * 4 + i]));
        }
        for (int i = 0; i < 10; i++) {
            char name[16];
            snprintf(name, sizeof name, "p%02d", round * 10 + i);
            uint16_t cols[3] = {m->p_name, m->p_age, m->p_blob};
            orc_value vals[3] = {v_str(name), v_int((round * 10 + i) % 7), v_bin(blob, (size_t)(i * 7000))};
            uint64_t k;
            HOK(orc_obj_create(w, m->person, cols, vals, i % 3 ? 3 : 2, &k));
            if (k > *max_key) *max_key = k;
            for (int d = 0; d <= i % 4; d++) {
                orc_value l = v_link(m->dog, dogs[(round * 4 + d * 3) % (round * 4 + 4)]);
                HOK(orc_list_insert(w, m->person, k, m->p_dogs, (size_t)d, &l));
            }
            orc_value t = v_int(i);
            HOK(orc_dict_set(w, m->person, k, m->p_tags, "x", 1, &t));
            if (i % 2) {
                uint64_t a;
                HOK(orc_obj_create_embedded(w, m->person, k, m->p_addr, 0, NULL, &a));
                orc_value city = v_str(i % 4 == 1 ? "Oslo" : "Lima");
                HOK(orc_obj_set(w, m->addr, a, m->a_city, &city));
            }
        }
        HOK(orc_meta_set(w, "app.round", &round, sizeof round));
        HOK(orc_txn_commit(w, NULL));
    }
    /* Erase a few, including the newest person (its key must not come back through the copy). */
    HOK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    HOK(orc_obj_erase(w, m->dog, dogs[3]));
    orc_value last = v_str("p49"), mid = v_str("p13");
    uint64_t k;
    HOK(orc_obj_find(w, m->person, &last, &k));
    HOK(orc_obj_erase(w, m->person, k));
    HOK(orc_obj_find(w, m->person, &mid, &k));
    HOK(orc_obj_erase(w, m->person, k));
    HOK(orc_txn_commit(w, NULL));
    return true;
}

/* A new realm at `path` holding build_source's model. */
static bool open_built_source(const char *path, orc_env **env, model_ids *m, uint64_t *max_key)
{
    HOK(orc_env_open(path, ORC_ENV_NO_SYNC, NULL, env));
    return build_source(*env, m, max_key);
}

/* Opens a copy orc_env_copy made (it must exist). */
static int open_copy(const char *path, orc_env **copy)
{
    return orc_env_open(path, ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, NULL, copy);
}

static const char *const meta_names[] = {"app.schema_version", "app.round", "app.absent"};

TEST(copy_is_identical)
{
    TEST_PATH(src, "src.realm");
    TEST_PATH(dst, "dst.realm");
    orc_env *env, *copy;
    model_ids m;
    uint64_t max_key, v_src, v_copy;
    CHECK(open_built_source(src, &env, &m, &max_key));
    CHECK_OK(orc_env_copy(env, dst));
    CHECK_OK(open_copy(dst, &copy));
    CHECK_ENV(copy);
    CHECK(envs_equal(env, copy, meta_names, 3));

    /* The copy works as a realm: the index answers, the primary key is enforced, keys are fresh. */
    orc_txn *w, *r;
    CHECK_OK(orc_txn_begin(copy, ORC_TXN_WRITE, &w));
    orc_value dup = v_str("p00");
    CHECK_RC(orc_obj_create(w, m.person, &m.p_name, &dup, 1, NULL), ORC_ERR_EXISTS);
    orc_value fresh = v_str("fresh");
    uint64_t k;
    CHECK_OK(orc_obj_create(w, m.person, &m.p_name, &fresh, 1, &k));
    CHECK(k > max_key);
    CHECK_OK(orc_txn_commit(w, &v_copy));
    CHECK_OK(orc_env_version(env, &v_src));
    CHECK_EQ(v_copy, v_src + 1);
    CHECK_ENV(copy);

    /* The original is untouched by writes to the copy. */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &r));
    uint64_t found;
    CHECK_RC(orc_obj_find(r, m.person, &fresh, &found), ORC_ERR_NOT_FOUND);
    orc_txn_abort(r);
    orc_env_close(copy);

    /* After reopening, the copy still equals... itself reopened, and the original up to its version. */
    CHECK_OK(open_copy(dst, &copy));
    CHECK_OK(orc_txn_begin(copy, ORC_TXN_READ, &r));
    CHECK_OK(orc_obj_find(r, m.person, &fresh, &found));
    CHECK_EQ(found, k);
    orc_txn_abort(r);
    orc_env_close(copy);
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(copy_holds_only_committed_state)
{
    TEST_PATH(src, "src2.realm");
    TEST_PATH(dst, "dst2.realm");
    orc_env *env, *copy;
    model_ids m;
    uint64_t max_key;
    CHECK(open_built_source(src, &env, &m, &max_key));
    /* A write transaction in progress on this thread: its changes are not in the copy. */
    orc_txn *w, *r;
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    orc_value name = v_str("uncommitted");
    CHECK_OK(orc_obj_create(w, m.person, &m.p_name, &name, 1, NULL));
    CHECK_OK(orc_meta_set(w, "app.round", "zz", 2));
    CHECK_OK(orc_env_copy(env, dst));
    orc_txn_abort(w);
    CHECK_OK(open_copy(dst, &copy));
    CHECK_OK(orc_txn_begin(copy, ORC_TXN_READ, &r));
    uint64_t k;
    CHECK_RC(orc_obj_find(r, m.person, &name, &k), ORC_ERR_NOT_FOUND);
    orc_txn_abort(r);
    CHECK(envs_equal(env, copy, meta_names, 3));
    CHECK_ENV(copy);
    orc_env_close(copy);
    orc_env_close(env);
}

TEST(copy_refuses_existing_destination)
{
    TEST_PATH(src, "src3.realm");
    TEST_PATH(dst, "dst3.realm");
    orc_env *env;
    orc_txn *w;
    CHECK_OK(test_open_writing(src, &env, &w));
    CHECK_OK(orc_meta_set(w, "k", "v", 1));
    CHECK_OK(orc_txn_commit(w, NULL));
    /* An existing (empty) file is left as it is. */
    FILE *f = fopen(dst, "wb");
    CHECK(f != NULL);
    fputs("keep me", f);
    fclose(f);
    CHECK_RC(orc_env_copy(env, dst), ORC_ERR_EXISTS);
    CHECK(strncmp(orc_last_error(), "ORC_ERR_EXISTS", 14) == 0);
    CHECK_EQ(file_size(dst), 7);
    /* Onto itself. */
    CHECK_RC(orc_env_copy(env, src), ORC_ERR_EXISTS);
    /* A second copy to the same new path: the first succeeds, the second is refused. */
    TEST_PATH(dst2, "dst3b.realm");
    CHECK_OK(orc_env_copy(env, dst2));
    CHECK_RC(orc_env_copy(env, dst2), ORC_ERR_EXISTS);
    /* A missing directory is an errno. */
    char deep[700];
    snprintf(deep, sizeof deep, "%s/no/such/dir/c.realm", test_dir());
    CHECK_RC(orc_env_copy(env, deep), ENOENT);
    CHECK_RC(orc_env_copy(env, NULL), ORC_ERR_INVALID_ARG);
    CHECK_ENV(env);
    orc_env_close(env);
}

TEST(copy_is_compacted)
{
    TEST_PATH(src, "src4.realm");
    TEST_PATH(dst, "dst4.realm");
    orc_env *env, *copy;
    orc_txn *w;
    uint32_t t;
    uint16_t cb, ci;
    static uint8_t blob[3000];
    memset(blob, 0xab, sizeof blob);
    CHECK_OK(test_open_writing(src, &env, &w));
    CHECK_OK(orc_class_add(w, "Big", ORC_CLASS_TOP_LEVEL, &t));
    orc_prop_spec sb = {.name = "b", .type = ORC_TYPE_BINARY};
    orc_prop_spec si = {.name = "i", .type = ORC_TYPE_INT, .flags = ORC_PROP_INDEXED};
    CHECK_OK(orc_prop_add(w, t, &sb, &cb));
    CHECK_OK(orc_prop_add(w, t, &si, &ci));
    CHECK_OK(orc_txn_commit(w, NULL));
    static uint64_t keys[6000];
    for (int txn = 0; txn < 6; txn++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        for (int i = 0; i < 1000; i++) {
            uint16_t cols[2] = {cb, ci};
            orc_value vals[2] = {v_bin(blob, sizeof blob), v_int(i)};
            CHECK_OK(orc_obj_create(w, t, cols, vals, 2, &keys[txn * 1000 + i]));
        }
        CHECK_OK(orc_txn_commit(w, NULL));
    }
    /* Erase 90%, and trim the log (which holds the blobs too). */
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    for (int i = 0; i < 6000; i++)
        if (i % 10) CHECK_OK(orc_obj_erase(w, t, keys[i]));
    CHECK_OK(orc_txn_commit(w, NULL));
    uint64_t version, trimmed;
    CHECK_OK(orc_env_version(env, &version));
    CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
    CHECK_OK(orc_log_trim(w, version, &trimmed));
    CHECK_COMMIT_ENV(w, env);

    CHECK_OK(orc_env_copy(env, dst));
    off_t src_size = file_size(src), dst_size = file_size(dst);
    orc_env_info info;
    CHECK_OK(orc_env_info_get(env, &info));
    CHECK(dst_size > 0);
    CHECK(dst_size <= src_size);
    /* 600 objects of 3 KB are about 2 MB; the original used more than 18 MB. */
    CHECK(info.used_bytes > (size_t)18 << 20);
    CHECK(dst_size < (off_t)(info.used_bytes / 3));
    CHECK_OK(open_copy(dst, &copy));
    CHECK_ENV(copy);
    CHECK(envs_equal(env, copy, NULL, 0));
    orc_env_close(copy);
    orc_env_close(env);
}

TEST(copy_from_read_only_handle)
{
    TEST_PATH(src, "src5.realm");
    TEST_PATH(dst, "dst5.realm");
    orc_env *env, *ro, *copy;
    model_ids m;
    uint64_t max_key;
    CHECK(open_built_source(src, &env, &m, &max_key));
    orc_env_close(env);
    CHECK_OK(orc_env_open(src, ORC_ENV_READ_ONLY, NULL, &ro));
    CHECK_OK(orc_env_copy(ro, dst));
    CHECK_OK(open_copy(dst, &copy));
    CHECK(envs_equal(ro, copy, meta_names, 3));
    CHECK_ENV(copy);
    orc_env_close(copy);
    orc_env_close(ro);
}
