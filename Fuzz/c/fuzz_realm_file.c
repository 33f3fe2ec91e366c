/*
 * fuzz_realm_file.c — opening damaged realm files (target `realm-file`).
 *
 * The input is a whole realm file. The seeds (Fuzz/corpus/realm-file, made by
 * fuzz_seeds) are small valid realms, so most mutations are damaged realms:
 * flipped bytes in pages, meta pages, rows, schema records, index entries and
 * log entries, or a cut file.
 *
 * Each input is written to a scratch file and opened as a user's file of
 * unknown origin would be: orc_env_open with ORC_ENV_VERIFY, which checks
 * every page's structure before LMDB maps the file (verify.c). Then, on a file
 * that opened:
 *   1. orc_env_check (the pages again, then indexes, primary keys, links,
 *      backlinks, log);
 *   2. a read transaction reads everything: every class and property, every
 *      object through the row cursor and orc_obj_get, every primary key through
 *      orc_obj_find (a descent of the index's pages of its own), every table
 *      through a query (a scan that walks the leaf pages itself), every collection element
 *      and dictionary key, backlink counts, and every log entry decoded with
 *      the changeset iterator;
 *   3. when the check found nothing wrong, a write transaction erases the
 *      first object of each class and commits, and orc_env_check must still
 *      pass: a file ORCore calls consistent must stay consistent when written.
 *
 * What it promises: no crash, no sanitizer report, every failure an ORCore
 * status with a message. The limit: LMDB 0.9 trusts its own file, so without
 * ORC_ENV_VERIFY a damaged page deep in a tree can still crash LMDB; this
 * target tests ORCore's own decoding (and verify.c's shield in front of LMDB),
 * which is why it always passes ORC_ENV_VERIFY.
 */
#include "fuzz_support.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

enum { MAX_OBJECTS = 4096, MAX_ELEMENTS = 4096 };

static volatile uint64_t sink;

/* Reads every byte a value points at, so that ASan sees a wild pointer. */
static void touch(const orc_value *v)
{
    if (v->type == ORC_TYPE_STRING || v->type == ORC_TYPE_BINARY) {
        uint64_t h = 0;
        for (size_t i = 0; i < v->string.size; i++) h = h * 31 + (uint8_t)v->string.data[i];
        sink += h;
    } else {
        sink += (uint64_t)v->type;
    }
}

static void read_collection(orc_txn *txn, uint32_t table, uint64_t key, const orc_prop_info *p)
{
    size_t n = 0;
    int rc = orc_coll_size(txn, table, key, p->col, &n);
    fuzz_expect_status(rc, "orc_coll_size");
    if (rc) return;
    for (size_t i = 0; i < n && i < MAX_ELEMENTS; i++) {
        orc_value v;
        rc = orc_coll_get(txn, table, key, p->col, i, &v);
        fuzz_expect_status(rc, "orc_coll_get");
        if (rc) break;
        touch(&v);
        if (p->collection == ORC_COLL_DICT) {
            orc_value k;
            rc = orc_dict_key_at(txn, table, key, p->col, i, &k);
            fuzz_expect_status(rc, "orc_dict_key_at");
            if (rc) break;
            touch(&k);
            if (k.type == ORC_TYPE_STRING) {
                rc = orc_dict_get(txn, table, key, p->col, k.string.data, k.string.size, &v);
                fuzz_expect_status(rc, "orc_dict_get");
            }
        } else if (p->collection == ORC_COLL_SET || p->collection == ORC_COLL_LIST) {
            size_t at;
            fuzz_expect_status(orc_coll_find(txn, table, key, p->col, &v, &at), "orc_coll_find");
        }
    }
}

static void read_table(orc_txn *txn, const orc_class_info *cls)
{
    orc_prop_info props[256];
    uint32_t nprops = 0;
    for (uint32_t i = 0; i < cls->prop_count && nprops < 256; i++) {
        int rc = orc_schema_prop_at(txn, cls->table, i, &props[nprops]);
        fuzz_expect_status(rc, "orc_schema_prop_at");
        if (rc) continue;
        sink += strlen(props[nprops].name);
        orc_prop_info again;
        fuzz_expect_status(orc_schema_prop_find(txn, cls->table, props[nprops].name, &again), "orc_schema_prop_find");
        nprops++;
    }
    uint64_t count = 0;
    fuzz_expect_status(orc_table_count(txn, cls->table, &count), "orc_table_count");

    orc_row *row = NULL;
    int rc = orc_row_open(txn, cls->table, &row);
    fuzz_expect_status(rc, "orc_row_open");
    if (rc) return;
    rc = orc_row_seek(row, 0);
    if (rc == ORC_ERR_NOT_FOUND) rc = orc_row_next(row);
    for (unsigned seen = 0; rc == ORC_OK && seen < MAX_OBJECTS; seen++) {
        uint64_t key = orc_row_key(row);
        for (uint32_t i = 0; i < nprops; i++) {
            orc_value v;
            if (props[i].collection != ORC_COLL_NONE) {
                read_collection(txn, cls->table, key, &props[i]);
                continue;
            }
            int grc = orc_row_get(row, props[i].col, &v);
            fuzz_expect_status(grc, "orc_row_get");
            if (!grc) touch(&v);
            if (!grc && (props[i].flags & ORC_PROP_PRIMARY_KEY)) { /* the index's own descent (scan.c) */
                uint64_t found;
                fuzz_expect_status(orc_obj_find(txn, cls->table, &v, &found), "orc_obj_find");
            }
            grc = orc_obj_get(txn, cls->table, key, props[i].col, &v);
            fuzz_expect_status(grc, "orc_obj_get");
            if (!grc) touch(&v);
        }
        uint64_t links = 0;
        fuzz_expect_status(orc_obj_backlink_count(txn, cls->table, key, &links), "orc_obj_backlink_count");
        rc = orc_row_next(row);
    }
    if (rc != ORC_ERR_NOT_FOUND) fuzz_expect_status(rc, "orc_row_next");
    orc_row_close(row);
    /* the whole table through a query: the scan's own walk of the leaf pages (scan.c) */
    static const uint8_t all[] = {ORC_OP_TRUE};
    orc_query *q;
    rc = orc_query_compile(txn, cls->table, all, sizeof all, &q);
    fuzz_expect_status(rc, "orc_query_compile");
    if (rc) return;
    orc_keys keys = {0};
    fuzz_expect_status(orc_query_run(txn, q, &keys), "orc_query_run");
    sink += keys.count;
    orc_keys_free(&keys);
    orc_query_free(q);
}

static void read_log(orc_txn *txn)
{
    uint64_t last = orc_txn_version(txn);
    uint64_t first = orc_log_first_version(txn);
    for (uint64_t v = first ? first : 1; v <= last && v - first < MAX_OBJECTS; v++) {
        const void *data;
        size_t size;
        int rc = orc_log_get(txn, v, &data, &size);
        fuzz_expect_status(rc, "orc_log_get");
        if (rc) continue;
        orc_changeset_iter it;
        rc = orc_changeset_iter_init(&it, data, size);
        fuzz_expect_status(rc, "orc_changeset_iter_init");
        orc_instr in;
        while (!rc && (rc = orc_changeset_iter_next(&it, &in)) == ORC_OK) {
            touch(&in.value);
            sink += in.name_len ? (uint8_t)in.name[in.name_len - 1] : 0;
        }
        if (rc != ORC_ERR_NOT_FOUND) fuzz_expect_status(rc, "orc_changeset_iter_next");
    }
}

static void read_all(orc_env *env)
{
    orc_txn *txn;
    int rc = orc_txn_begin(env, ORC_TXN_READ, &txn);
    fuzz_expect_status(rc, "orc_txn_begin(read)");
    if (rc) return;
    uint32_t classes = orc_schema_class_count(txn);
    for (uint32_t i = 0; i < classes; i++) {
        orc_class_info cls;
        rc = orc_schema_class_at(txn, i, &cls);
        fuzz_expect_status(rc, "orc_schema_class_at");
        if (rc) continue;
        orc_class_info again;
        fuzz_expect_status(orc_schema_class_find(txn, cls.name, &again), "orc_schema_class_find");
        read_table(txn, &cls);
    }
    read_log(txn);
    orc_txn_abort(txn);
}

/* Erases the first object of every class, commits, and checks again. */
static void write_some(orc_env *env)
{
    orc_txn *txn;
    int rc = orc_txn_begin(env, ORC_TXN_WRITE, &txn);
    fuzz_expect_status(rc, "orc_txn_begin(write)");
    if (rc) return;
    uint32_t classes = orc_schema_class_count(txn);
    for (uint32_t i = 0; i < classes && !rc; i++) {
        orc_class_info cls;
        if (orc_schema_class_at(txn, i, &cls) || cls.kind == ORC_CLASS_EMBEDDED) continue;
        orc_keys keys = {0};
        rc = orc_table_keys(txn, cls.table, &keys);
        fuzz_expect_status(rc, "orc_table_keys");
        if (!rc && keys.count) {
            rc = orc_obj_erase(txn, cls.table, keys.keys[0]);
            fuzz_expect_status(rc, "orc_obj_erase");
        }
        orc_keys_free(&keys);
    }
    if (rc) {
        orc_txn_abort(txn);
        return;
    }
    rc = orc_txn_commit(txn, NULL);
    fuzz_expect_status(rc, "orc_txn_commit");
    if (rc) return;
    size_t problems = 0;
    rc = orc_env_check(env, &problems);
    if (rc == ORC_ERR_CORRUPT)
        fuzz_fail("a realm that passed orc_env_check fails it after erasing one object per class: %s",
                  orc_last_error());
    fuzz_expect_status(rc, "orc_env_check after the write");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[600];
    snprintf(path, sizeof path, "%s/damaged.realm", fuzz_dir());
    orc_env_delete_files(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) fuzz_fail("cannot create %s", path);
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) fuzz_fail("cannot write %s", path);
        done += (size_t)n;
    }
    close(fd);

    orc_env *env = NULL;
    int rc = orc_env_open(path, ORC_ENV_VERIFY | ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, NULL, &env);
    fuzz_expect_status(rc, "orc_env_open");
    if (rc == ORC_OK) {
        size_t problems = 0;
        int check = orc_env_check(env, &problems);
        fuzz_expect_status(check, "orc_env_check");
        read_all(env);
        if (check == ORC_OK) write_some(env);
        orc_env_close(env);
    }
    orc_env_delete_files(path);
    return 0;
}
