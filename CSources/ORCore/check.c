/*
 * check.c — orc_env_check: the logical consistency checker.
 *
 * In one read transaction it re-derives, from the rows and collections alone,
 * everything the engine keeps redundantly, and compares:
 *
 *   1. rows        every live column of every row decodes, with the
 *                  property's type; keys are below the table's next_key; the
 *                  row count equals the table state's count
 *   2. primary     one "p<id>" entry per row, keyenc(pk value) -> key, and no
 *      keys        other entries (each entry is re-derived from its row)
 *   3. indexes     one "idx" entry per row and ORC_PROP_INDEXED column for the
 *                  row's current value, and no other entries (format 3: one key
 *                  in a chunk of its value; every chunk decodes, and a value's
 *                  chunks do not overlap)
 *   4. collections every blob of "coll" decodes, elements have the property's
 *                  type, sets are sorted and unique, dictionary keys sorted
 *                  and unique; no blob belongs to a missing object or to a
 *                  property that is not a collection
 *   5. links       every link (single, in collections, in mixed values) names
 *                  a live object of the right class
 *   6. backlinks   "blink" equals the multiset of links found in 5, entry by
 *                  entry and count by count (both sorted the same way)
 *   7. embedded    every embedded object is referred to exactly once
 *   8. log         versions are contiguous from the oldest kept one to the
 *                  current version, and every entry decodes (header,
 *                  checksum, every instruction)
 *
 * Before them it checks the file's pages as an open with ORC_ENV_VERIFY
 * does (verify.c: meta pages, every tree, the free list), through its own
 * read-only descriptor while the read transaction is live: the transaction
 * keeps every page of the newest commit from being reused, so a writer in
 * another thread or process cannot change what the walk reads (and a meta
 * page that changes under it makes verify.c start over). Damaged pages end
 * the check there, as one problem: reading on through LMDB could crash.
 *
 * Damage never crashes it: rows, blobs and log entries are read through the
 * bounds-checked decoders, raw keys are size-checked before use. The first
 * problem is the message of the ORC_ERR_CORRUPT it returns; all are counted.
 * Failures that are not damage (no memory, an LMDB error) stop the check and
 * are returned as they are.
 *
 * Assumption shared with index.c: a column value gets an index entry exactly
 * when keyenc() can encode it (null included).
 */
#include "log_format.h"
#include "object.h"
#include "verify.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A link found in the data: origin (table, col, key) -> target (table, key). */
typedef struct ref {
    uint32_t ttable, otable;
    uint64_t tkey, okey;
    uint16_t ocol;
} ref;

typedef struct ck {
    orc_txn *txn;
    size_t problems;
    char first[1024];
    int err;             /* an operational failure: stop */
    ref *refs;
    size_t nrefs, cap;
    orc_keys embedded;   /* (table, key) pairs of embedded objects, flattened */
    orc_buf kb;          /* key building */
} ck;

static void problem(ck *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(ck *k, const char *fmt, ...)
{
    if (k->problems++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(k->first, sizeof k->first, fmt, ap);
        va_end(ap);
    }
}

/* The thread's last message without its "ORC_ERR_X: " prefix. */
static const char *last_msg(void)
{
    const char *m = orc_last_error();
    const char *sep = strncmp(m, "ORC_ERR_", 8) == 0 ? strstr(m, ": ") : NULL;
    return sep ? sep + 2 : m;
}

static const char *cname(const orc_txn *txn, uint32_t table)
{
    const orc_class *c = schema_class(txn, table);
    return c ? c->name : "?";
}

static const char *pname(const orc_txn *txn, uint32_t table, uint16_t col)
{
    const orc_class *c = schema_class(txn, table);
    const orc_prop *p = c ? class_prop(c, col) : NULL;
    return p ? p->name : "?";
}

/* Records an operational failure; returns true when the check must stop. */
static bool op_fail(ck *k, int rc)
{
    if (rc && !k->err) k->err = rc;
    return k->err != 0;
}

static bool mdb_fail(ck *k, int mrc, const char *what)
{
    return mrc && mrc != MDB_NOTFOUND && op_fail(k, orc_fail_mdb(mrc, what));
}

/* ---- links ----------------------------------------------------------------- */

static void add_ref(ck *k, uint32_t ttable, uint64_t tkey, uint32_t otable, uint16_t ocol, uint64_t okey)
{
    int rc = array_reserve(&k->refs, k->nrefs, &k->cap, sizeof *k->refs, 256, "the link records");
    if (rc) {
        op_fail(k, rc);
        return;
    }
    k->refs[k->nrefs++] = (ref){ttable, otable, tkey, okey, ocol};
}

/* A link value found at (c, key, p); `where` names the element for messages. */
static void check_link(ck *k, const orc_class *c, uint64_t key, const orc_prop *p, const orc_value *v, const char *where)
{
    uint32_t ttable = p->type == ORC_TYPE_LINK ? p->link_table : v->link.table;
    if (p->type == ORC_TYPE_LINK && v->link.table != 0 && v->link.table != p->link_table) {
        problem(k, "table '%s' key %llu column '%s'%s: link to table %u, the property links to table %u", c->name,
                (unsigned long long)key, p->name, where, v->link.table, p->link_table);
        return;
    }
    const orc_class *tc = schema_class(k->txn, ttable);
    if (!tc) {
        problem(k, "table '%s' key %llu column '%s'%s: link to missing class %u", c->name, (unsigned long long)key,
                p->name, where, ttable);
        return;
    }
    if (!orc_obj_exists(k->txn, ttable, v->link.key))
        problem(k, "table '%s' key %llu column '%s'%s: dangling link to '%s' key %llu", c->name,
                (unsigned long long)key, p->name, where, tc->name, (unsigned long long)v->link.key);
    add_ref(k, ttable, v->link.key, c->table, p->col, key);
}

/* Whether a (non-link-checked) value fits its property; reports when not. */
static bool check_type(ck *k, const orc_class *c, uint64_t key, const orc_prop *p, const orc_value *v, const char *where)
{
    if (p->type == ORC_TYPE_MIXED || v->type == p->type) return true;
    if (v->type == ORC_TYPE_NULL) {
        if ((p->flags & ORC_PROP_OPTIONAL) || p->type == ORC_TYPE_LINK) return true;
        problem(k, "table '%s' key %llu column '%s'%s: null in a required property", c->name, (unsigned long long)key,
                p->name, where);
        return false;
    }
    problem(k, "table '%s' key %llu column '%s'%s: a value of type %d in a property of type %d", c->name,
            (unsigned long long)key, p->name, where, v->type, p->type);
    return false;
}

/* ---- rows -------------------------------------------------------------------- */

static void check_pk_row(ck *k, const orc_class *c, bool has_db, MDB_dbi pdb, uint64_t key, const orc_value *v)
{
    k->kb.size = 0;
    if (keyenc(&k->kb, v, NULL)) {
        problem(k, "table '%s' key %llu: the primary key value cannot be key-encoded", c->name, (unsigned long long)key);
        return;
    }
    MDB_val kv = {k->kb.size, k->kb.data}, dv;
    uint64_t named;
    int mrc = has_db ? mdb_get(k->txn->mdb, pdb, &kv, &dv) : MDB_NOTFOUND;
    if (mrc == MDB_NOTFOUND)
        problem(k, "table '%s' key %llu: missing primary key entry", c->name, (unsigned long long)key);
    else if (mdb_fail(k, mrc, "reading a primary key entry"))
        return;
    else if (!pk_value_get(dv.mv_data, dv.mv_size, k->txn->core->format, &named))
        problem(k, "table '%s' key %llu: its primary key entry holds a malformed %zu-byte object key", c->name,
                (unsigned long long)key, dv.mv_size);
    else if (named != key)
        problem(k, "table '%s' key %llu: its primary key entry names key %llu", c->name, (unsigned long long)key,
                (unsigned long long)named);
}

static void check_idx_row(ck *k, const orc_class *c, const orc_prop *p, uint64_t key, const orc_value *v)
{
    k->kb.size = 0;
    if (keyenc(&k->kb, v, NULL)) return; /* not indexable: no entry expected */
    bool found;
    int rc = idx_contains(k->txn, c->table, p->col, v, key, &found);
    if (rc == ORC_ERR_CORRUPT)
        problem(k, "table '%s' key %llu column '%s': %s", c->name, (unsigned long long)key, p->name, orc_last_error());
    else if (rc)
        op_fail(k, rc);
    else if (!found)
        problem(k, "table '%s' key %llu column '%s': missing index entry for its value", c->name,
                (unsigned long long)key, p->name);
}

static int dict_key_cmp(const orc_value *a, const orc_value *b)
{
    size_t n = a->string.size < b->string.size ? a->string.size : b->string.size;
    int r = n ? memcmp(a->string.data, b->string.data, n) : 0;
    if (r) return r;
    return a->string.size < b->string.size ? -1 : a->string.size > b->string.size;
}

static void check_collection(ck *k, const orc_class *c, uint64_t key, const orc_prop *p)
{
    collref cr;
    int rc = coll_load(k->txn, c->table, key, p->col, &cr);
    if (rc) {
        if (rc == ORC_ERR_CORRUPT || rc == ORC_ERR_WRONG_TYPE)
            problem(k, "table '%s' key %llu column '%s': collection does not decode: %s", c->name,
                    (unsigned long long)key, p->name, last_msg());
        else
            op_fail(k, rc);
        return;
    }
    orc_value prev = {0}, prev_key = {0}, v, dk;
    char where[48];
    for (uint32_t i = 0; i < cr.count; i++) {
        snprintf(where, sizeof where, " element %u", i);
        memset(&dk, 0, sizeof dk);
        if ((rc = coll_elem(&cr, i, p->collection == ORC_COLL_DICT ? &dk : NULL, &v))) {
            problem(k, "table '%s' key %llu column '%s'%s: does not decode: %s", c->name, (unsigned long long)key,
                    p->name, where, last_msg());
            return;
        }
        if (p->collection == ORC_COLL_DICT) {
            if (dk.type != ORC_TYPE_STRING) {
                problem(k, "table '%s' key %llu column '%s'%s: dictionary key is not a string", c->name,
                        (unsigned long long)key, p->name, where);
                return;
            }
            if (i > 0 && dict_key_cmp(&prev_key, &dk) >= 0)
                problem(k, "table '%s' key %llu column '%s'%s: dictionary keys out of order or repeated", c->name,
                        (unsigned long long)key, p->name, where);
            prev_key = dk;
        }
        if (p->collection == ORC_COLL_SET) {
            if (i > 0 && orc_value_compare(&prev, &v) >= 0)
                problem(k, "table '%s' key %llu column '%s'%s: set elements out of order or repeated", c->name,
                        (unsigned long long)key, p->name, where);
            prev = v;
        }
        if (check_type(k, c, key, p, &v, where) && v.type == ORC_TYPE_LINK) check_link(k, c, key, p, &v, where);
        if (k->err) return;
    }
}

static void check_row(ck *k, const orc_class *c, bool has_pdb, MDB_dbi pdb, uint64_t key, const uint8_t *row,
                      size_t size)
{
    for (uint16_t col = 0; col < c->ncols && !k->err; col++) {
        const orc_prop *p = class_prop(c, col);
        if (!p) continue;
        if (p->collection != ORC_COLL_NONE) {
            check_collection(k, c, key, p);
            continue;
        }
        orc_value v;
        if (row_get(c, row, size, col, &v)) {
            problem(k, "table '%s' key %llu column '%s': the row does not decode: %s", c->name,
                    (unsigned long long)key, p->name, last_msg());
            continue;
        }
        if (!check_type(k, c, key, p, &v, "")) continue;
        if (c->pk_col == (int32_t)col) check_pk_row(k, c, has_pdb, pdb, key, &v);
        if (p->flags & ORC_PROP_INDEXED) check_idx_row(k, c, p, key, &v);
        if (v.type == ORC_TYPE_LINK) check_link(k, c, key, p, &v, "");
    }
}

static void check_table(ck *k, const orc_class *c)
{
    orc_txn *txn = k->txn;
    MDB_dbi pdb = 0;
    bool has_pdb = false;
    if (c->pk_col >= 0) {
        int rc = txn_pk_dbi(txn, c->table, &pdb);
        if (rc && rc != ORC_ERR_NOT_FOUND && op_fail(k, rc)) return;
        has_pdb = rc == ORC_OK;
    }
    orc_table_state *st = txn_table_state(txn, c->table);
    if (!st) problem(k, "table '%s': its state (next key, count) cannot be read", c->name);
    tscan s;
    uint64_t rows = 0;
    int rc = tscan_open(txn, c->table, &s);
    if (rc == ORC_OK) {
        while (!k->err && (rc = tscan_next(&s)) == ORC_OK) {
            rows++;
            if (st && (s.key == 0 || s.key >= st->next_key))
                problem(k, "table '%s' key %llu: not below the table's next key %llu", c->name,
                        (unsigned long long)s.key, (unsigned long long)st->next_key);
            if (c->kind == ORC_CLASS_EMBEDDED &&
                (keys_push(&k->embedded, c->table) || keys_push(&k->embedded, s.key))) {
                op_fail(k, ORC_ERR_NOMEM);
                break;
            }
            check_row(k, c, has_pdb, pdb, s.key, s.row, s.size);
        }
        tscan_close(&s);
        if (rc == ORC_ERR_CORRUPT) problem(k, "table '%s': the table cannot be scanned: %s", c->name, last_msg());
        else if (rc != ORC_ERR_NOT_FOUND && rc != ORC_OK) op_fail(k, rc);
    } else if (rc == ORC_ERR_CORRUPT) {
        problem(k, "table '%s': the table cannot be opened: %s", c->name, last_msg());
    } else if (rc != ORC_ERR_NOT_FOUND) {
        op_fail(k, rc);
    }
    if (!k->err && st && st->count != rows)
        problem(k, "table '%s': the table state counts %llu objects, the table holds %llu", c->name,
                (unsigned long long)st->count, (unsigned long long)rows);
}

/* ---- stray entries ------------------------------------------------------------ */

/* Whether `enc` is the key encoding of column `col` of object (c, key); false also when the row is missing. */
static bool entry_matches_row(ck *k, const orc_class *c, uint16_t col, uint64_t key, const uint8_t *enc, size_t n,
                              bool *missing)
{
    const uint8_t *row;
    size_t size;
    *missing = false;
    int rc = obj_row(k->txn, c->table, key, &row, &size);
    if (rc) {
        if (rc == ORC_ERR_NOT_FOUND) *missing = true;
        else op_fail(k, rc);
        return false;
    }
    orc_value v;
    if (row_get(c, row, size, col, &v)) return true; /* reported by the row scan */
    k->kb.size = 0;
    if (keyenc(&k->kb, &v, NULL)) return false;
    return k->kb.size == n && memcmp(k->kb.data, enc, n) == 0;
}

static void check_pk_entries(ck *k, const orc_class *c)
{
    MDB_dbi pdb;
    int rc = txn_pk_dbi(k->txn, c->table, &pdb);
    if (rc) {
        if (rc != ORC_ERR_NOT_FOUND) op_fail(k, rc);
        return;
    }
    MDB_cursor *cur;
    int mrc = mdb_cursor_open(k->txn->mdb, pdb, &cur);
    if (mdb_fail(k, mrc, "opening a primary key cursor")) return;
    MDB_val kv, dv;
    for (mrc = mdb_cursor_get(cur, &kv, &dv, MDB_FIRST); mrc == 0 && !k->err;
         mrc = mdb_cursor_get(cur, &kv, &dv, MDB_NEXT)) {
        if (c->pk_col < 0) {
            problem(k, "table '%s': primary key entries in a class without a primary key", c->name);
            break;
        }
        uint64_t key;
        if (!pk_value_get(dv.mv_data, dv.mv_size, k->txn->core->format, &key)) {
            problem(k, "table '%s': a primary key entry holds a malformed %zu-byte object key", c->name, dv.mv_size);
            continue;
        }
        bool missing;
        if (entry_matches_row(k, c, (uint16_t)c->pk_col, key, kv.mv_data, kv.mv_size, &missing) || k->err) continue;
        if (missing)
            problem(k, "table '%s': a primary key entry names missing key %llu", c->name, (unsigned long long)key);
        else
            problem(k, "table '%s': stray primary key entry for key %llu (not its primary key value)", c->name,
                    (unsigned long long)key);
    }
    mdb_fail(k, mrc, "reading primary key entries");
    mdb_cursor_close(cur);
}

/* Format 3: a chunk's keys ascend, and each chunk starts above the end of the one before it in its group. */
typedef struct chunk_walk {
    uint8_t group[IDX_PREFIX_BYTES + KEYENC_MAX];
    size_t ngroup;
    uint64_t last;
    uint64_t keys[IDX_CHUNK_KEYS];
} chunk_walk;

static void check_idx_entries(ck *k)
{
    bool chunked = k->txn->core->format >= 3;
    chunk_walk *w = malloc(sizeof *w);
    if (!w) {
        op_fail(k, orc_fail(ORC_ERR_NOMEM, "checking the index"));
        return;
    }
    w->ngroup = SIZE_MAX;
    MDB_cursor *cur;
    int mrc = mdb_cursor_open(k->txn->mdb, k->txn->core->dbi_idx, &cur);
    if (mdb_fail(k, mrc, "opening an index cursor")) {
        free(w);
        return;
    }
    MDB_val kv, dv;
    for (mrc = mdb_cursor_get(cur, &kv, &dv, MDB_FIRST); mrc == 0 && !k->err;
         mrc = mdb_cursor_get(cur, &kv, &dv, MDB_NEXT)) {
        const uint8_t *e = kv.mv_data;
        if (kv.mv_size < IDX_PREFIX_BYTES + 1 + 8 || kv.mv_size > IDX_PREFIX_BYTES + KEYENC_MAX + 8) {
            problem(k, "index: an entry key of %zu bytes is too short or too long", kv.mv_size);
            continue;
        }
        uint32_t table = ld32be(e);
        uint16_t col = ld16be(e + 4);
        size_t ngroup = kv.mv_size - 8;
        size_t n = 1;
        w->keys[0] = ld64be(e + ngroup);
        if (chunked) {
            if (idx_chunk_decode(w->keys[0], dv.mv_data, dv.mv_size, w->keys, &n)) {
                problem(k, "index: the chunk of table %u column %u at key %llu is damaged", table, col,
                        (unsigned long long)w->keys[0]);
                continue;
            }
            if (w->ngroup == ngroup && memcmp(w->group, e, ngroup) == 0 && w->keys[0] <= w->last)
                problem(k, "index: table %u column %u: a chunk starting at key %llu overlaps the one before it (to %llu)",
                        table, col, (unsigned long long)w->keys[0], (unsigned long long)w->last);
            memcpy(w->group, e, ngroup);
            w->ngroup = ngroup;
            w->last = w->keys[n - 1];
        } else if (dv.mv_size) {
            problem(k, "index: an entry of table %u column %u holds data", table, col);
        }
        const orc_class *c = schema_class(k->txn, table);
        const orc_prop *p = c ? class_prop(c, col) : NULL;
        if (!p || !(p->flags & ORC_PROP_INDEXED) || p->collection != ORC_COLL_NONE) {
            problem(k, "index: stray entry for table %u column %u, which has no index", table, col);
            continue;
        }
        for (size_t i = 0; i < n && !k->err; i++) {
            bool missing;
            uint64_t key = w->keys[i];
            if (entry_matches_row(k, c, col, key, e + IDX_PREFIX_BYTES, ngroup - IDX_PREFIX_BYTES, &missing) || k->err)
                continue;
            if (missing)
                problem(k, "index: table '%s' column '%s' has an entry for missing key %llu", c->name, p->name,
                        (unsigned long long)key);
            else
                problem(k, "index: table '%s' key %llu column '%s': stray index entry for a value the row does not hold",
                        c->name, (unsigned long long)key, p->name);
        }
    }
    mdb_fail(k, mrc, "reading index entries");
    mdb_cursor_close(cur);
    free(w);
}

static void check_coll_entries(ck *k)
{
    MDB_cursor *cur;
    int mrc = mdb_cursor_open(k->txn->mdb, k->txn->core->dbi_coll, &cur);
    if (mdb_fail(k, mrc, "opening a collection cursor")) return;
    MDB_val kv, dv;
    for (mrc = mdb_cursor_get(cur, &kv, &dv, MDB_FIRST); mrc == 0 && !k->err;
         mrc = mdb_cursor_get(cur, &kv, &dv, MDB_NEXT)) {
        if (kv.mv_size != 14) {
            problem(k, "collections: an entry key has %zu bytes, not 14", kv.mv_size);
            continue;
        }
        const uint8_t *e = kv.mv_data;
        uint32_t table = ld32be(e);
        uint64_t key = ld64be(e + 4);
        uint16_t col = ld16be(e + 12);
        const orc_class *c = schema_class(k->txn, table);
        const orc_prop *p = c ? class_prop(c, col) : NULL;
        if (!p || p->collection == ORC_COLL_NONE)
            problem(k, "collections: a blob for table %u key %llu column %u, which is not a collection", table,
                    (unsigned long long)key, col);
        else if (!orc_obj_exists(k->txn, table, key))
            problem(k, "collections: table '%s' column '%s' has a blob for missing key %llu", c->name, p->name,
                    (unsigned long long)key);
    }
    mdb_fail(k, mrc, "reading collections");
    mdb_cursor_close(cur);
}

/* ---- backlinks and embedded objects -------------------------------------------------- */

static int ref_cmp(const void *pa, const void *pb)
{
    const ref *a = pa, *b = pb;
    if (a->ttable != b->ttable) return a->ttable < b->ttable ? -1 : 1;
    if (a->tkey != b->tkey) return a->tkey < b->tkey ? -1 : 1;
    if (a->otable != b->otable) return a->otable < b->otable ? -1 : 1;
    if (a->ocol != b->ocol) return a->ocol < b->ocol ? -1 : 1;
    if (a->okey != b->okey) return a->okey < b->okey ? -1 : 1;
    return 0;
}

static void blink_problem(ck *k, const ref *r, const char *what)
{
    problem(k, "backlinks: '%s' key %llu from '%s' key %llu column '%s': %s", cname(k->txn, r->ttable),
            (unsigned long long)r->tkey, cname(k->txn, r->otable), (unsigned long long)r->okey,
            pname(k->txn, r->otable, r->ocol), what);
}

static void check_backlinks(ck *k)
{
    MDB_cursor *cur;
    int mrc = mdb_cursor_open(k->txn->mdb, k->txn->core->dbi_blink, &cur);
    if (mdb_fail(k, mrc, "opening a backlink cursor")) return;
    MDB_val kv, dv;
    size_t i = 0;
    bool have = (mrc = mdb_cursor_get(cur, &kv, &dv, MDB_FIRST)) == 0;
    while (!k->err && (i < k->nrefs || have)) {
        ref e = {0};
        if (have) {
            const uint8_t *p = kv.mv_data;
            if (kv.mv_size != 26 || dv.mv_size != 4) {
                problem(k, "backlinks: an entry of %zu + %zu bytes, not 26 + 4", kv.mv_size, dv.mv_size);
                have = (mrc = mdb_cursor_get(cur, &kv, &dv, MDB_NEXT)) == 0;
                continue;
            }
            e = (ref){ld32be(p), ld32be(p + 12), ld64be(p + 4), ld64be(p + 18), ld16be(p + 16)};
        }
        int cmp = i >= k->nrefs ? 1 : !have ? -1 : ref_cmp(&k->refs[i], &e);
        if (cmp < 0) {
            blink_problem(k, &k->refs[i], "missing backlink");
            const ref *r = &k->refs[i];
            while (i < k->nrefs && ref_cmp(&k->refs[i], r) == 0) i++;
            continue;
        }
        if (cmp > 0) {
            blink_problem(k, &e, "stray backlink (no such link)");
        } else {
            uint64_t count = 0;
            while (i + count < k->nrefs && ref_cmp(&k->refs[i + count], &e) == 0) count++;
            i += count;
            if (ld32(dv.mv_data) != count) {
                char msg[96];
                snprintf(msg, sizeof msg, "backlink counts %u references, the data holds %llu", ld32(dv.mv_data),
                         (unsigned long long)count);
                blink_problem(k, &e, msg);
            }
        }
        have = (mrc = mdb_cursor_get(cur, &kv, &dv, MDB_NEXT)) == 0;
    }
    mdb_fail(k, mrc, "reading backlinks");
    mdb_cursor_close(cur);
}

static void check_embedded(ck *k)
{
    size_t i = 0; /* refs and embedded keys are both sorted by (table, key) */
    for (size_t e = 0; e + 1 < k->embedded.count; e += 2) {
        ref want = {.ttable = (uint32_t)k->embedded.keys[e], .tkey = k->embedded.keys[e + 1]};
        while (i < k->nrefs && (k->refs[i].ttable < want.ttable ||
                                (k->refs[i].ttable == want.ttable && k->refs[i].tkey < want.tkey)))
            i++;
        size_t owners = 0;
        while (i < k->nrefs && k->refs[i].ttable == want.ttable && k->refs[i].tkey == want.tkey) {
            owners++;
            i++;
        }
        if (owners != 1)
            problem(k, "table '%s' key %llu: embedded object with %zu owning links, not 1", cname(k->txn, want.ttable),
                    (unsigned long long)want.tkey, owners);
    }
}

/* ---- the log ------------------------------------------------------------------------------ */

static void check_log_entry(ck *k, uint64_t ver, const uint8_t *e, size_t size, orc_buf *scratch)
{
    const uint8_t *raw;
    size_t raw_size;
    bool compressed;
    if (log_entry_decode(ver, e, size, &raw, &raw_size, &compressed)) {
        problem(k, "log: %s", last_msg());
        return;
    }
    if (compressed) {
        scratch->size = 0;
        if (op_fail(k, buf_reserve(scratch, raw_size))) return;
        if (log_entry_inflate(ver, e, size, scratch->data, raw_size)) {
            problem(k, "log: %s", last_msg());
            return;
        }
        raw = scratch->data;
    }
    orc_changeset_iter it;
    orc_instr in;
    int rc = orc_changeset_iter_init(&it, raw, raw_size);
    if (!rc && it.version != ver) {
        problem(k, "log: the entry of version %llu holds the changeset of version %llu", (unsigned long long)ver,
                (unsigned long long)it.version);
        return;
    }
    while (!rc) rc = orc_changeset_iter_next(&it, &in);
    if (rc != ORC_ERR_NOT_FOUND) problem(k, "log: %s", last_msg());
}

static void check_log(ck *k)
{
    orc_txn *txn = k->txn;
    uint64_t first = orc_log_first_version(txn), expect = first;
    MDB_cursor *cur;
    int mrc = mdb_cursor_open(txn->mdb, txn->core->dbi_log, &cur);
    if (mdb_fail(k, mrc, "opening a log cursor")) return;
    orc_buf scratch = {0};
    MDB_val kv, dv;
    for (mrc = mdb_cursor_get(cur, &kv, &dv, MDB_FIRST); mrc == 0 && !k->err;
         mrc = mdb_cursor_get(cur, &kv, &dv, MDB_NEXT)) {
        if (kv.mv_size != 8) {
            problem(k, "log: a key of %zu bytes, not 8", kv.mv_size);
            continue;
        }
        uint64_t ver = ld64be(kv.mv_data);
        if (ver != expect)
            problem(k, "log: versions %llu to %llu are missing (the log runs from %llu)", (unsigned long long)expect,
                    (unsigned long long)ver - 1, (unsigned long long)first);
        if (ver > txn->version)
            problem(k, "log: an entry for version %llu, after the current version %llu", (unsigned long long)ver,
                    (unsigned long long)txn->version);
        expect = ver + 1;
        check_log_entry(k, ver, dv.mv_data, dv.mv_size, &scratch);
    }
    mdb_fail(k, mrc, "reading the log");
    mdb_cursor_close(cur);
    buf_free(&scratch);
    if (!k->err && first != 0 && expect <= txn->version)
        problem(k, "log: versions %llu to %llu are missing at its end", (unsigned long long)expect,
                (unsigned long long)txn->version);
}

/* ---- the whole check ------------------------------------------------------------------------ */

static void check_removed_table(ck *k, uint32_t table)
{
    MDB_dbi dbi;
    int rc = txn_table_dbi(k->txn, table, &dbi);
    if (rc) {
        if (rc != ORC_ERR_NOT_FOUND) op_fail(k, rc);
        return;
    }
    MDB_stat st;
    int mrc = mdb_stat(k->txn->mdb, dbi, &st);
    if (mdb_fail(k, mrc, "reading a table's size")) return;
    if (!mrc && st.ms_entries)
        problem(k, "table %u: %zu rows left in a removed class", table, (size_t)st.ms_entries);
}

/*
 * The file's page structure (verify.c's deep walk), through a read-only
 * descriptor, so that nothing is repaired here. It reopens LMDB's own
 * descriptor (the file LMDB maps, even if its path was renamed since), or
 * the path where /proc is missing.
 */
static int check_pages(orc_envcore *core)
{
    const char *path = core->path;
    int fd = -1, mfd;
    if (mdb_env_get_fd(core->mdb, &mfd) == 0) {
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", mfd);
        fd = open(self, O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0) fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return orc_fail(e, "opening '%s' to check its pages: %s", path, strerror(e));
    }
    int rc = verify_pages(path, fd, true);
    close(fd);
    return rc;
}

int orc_env_check(orc_env *env, size_t *problems_out)
{
    if (problems_out) *problems_out = 0;
    if (!env) return orc_fail(ORC_ERR_INVALID_ARG, "orc_env_check needs an environment");
    orc_txn *txn;
    int rc = orc_txn_begin(env, ORC_TXN_READ, &txn);
    if (rc) return rc;
    if ((rc = check_pages(env->core))) {
        orc_txn_abort(txn);
        if (rc == ORC_ERR_CORRUPT && problems_out) *problems_out = 1;
        return rc;
    }
    ck k = {.txn = txn};
    uint32_t ntables = txn->schema ? txn->schema->ntables : 0;
    for (uint32_t t = 1; t <= ntables && !k.err; t++) {
        const orc_class *c = schema_class(txn, t);
        if (!c) {
            check_removed_table(&k, t);
            continue;
        }
        check_table(&k, c);
        if (!k.err) check_pk_entries(&k, c);
    }
    if (!k.err) check_idx_entries(&k);
    if (!k.err) check_coll_entries(&k);
    if (!k.err) {
        if (k.nrefs) qsort(k.refs, k.nrefs, sizeof *k.refs, ref_cmp);
        check_backlinks(&k);
    }
    if (!k.err) check_embedded(&k);
    if (!k.err) check_log(&k);
    orc_txn_abort(txn);
    free(k.refs);
    orc_keys_free(&k.embedded);
    buf_free(&k.kb);
    if (k.err) return k.err;
    if (problems_out) *problems_out = k.problems;
    if (k.problems)
        return orc_fail(ORC_ERR_CORRUPT, "%s (%zu problem%s found)", k.first, k.problems, k.problems == 1 ? "" : "s");
    return ORC_OK;
}
