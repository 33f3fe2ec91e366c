/*
 * object_read.c — reading objects: an object's row (through the row readers of
 * scan.c or one cursor kept on the table), primary-key lookups, orc_obj_get,
 * orc_obj_exists, orc_obj_next, table counts and keys, and the row readers of
 * orcore.h. Below the log: the log records primary keys it reads here. The
 * writes are in object.c; the invariants at its top hold for what is read here.
 */
#include "object_read.h"

#include <stdlib.h>

const char *obj_type_name(orc_type t)
{
    static const char *names[] = {"null", "bool", "int", "float", "double", "string", "binary", "timestamp",
                                  "decimal128", "ObjectId", "UUID", "link", "mixed"};
    return (unsigned)t <= ORC_TYPE_MIXED ? names[t] : "unknown";
}

/*
 * Reads in a read transaction go through the table's row reader (scan.c, READING
 * ROWS BY KEY), which walks the pages itself. Tables it does not read (small ones)
 * go through one cursor (txn->obj_cursor, on the table
 * txn->obj_cursor_table) that stays on the last row returned. A key above that
 * row's is first looked for one step further (MDB_NEXT), which is where it is when
 * objects are read in key order (iterating a table's Results): no B-tree descent.
 * (Only for a key close above: see NEXT_STEP_GAP.)
 * Otherwise, and when the step lands elsewhere, the cursor descends (MDB_SET_KEY)
 * as mdb_get would.
 */
/*
 * The step is tried only for a key at most this far above the last row's: the next row
 * is the one asked for only when no row lies between them, and a lookup far away (a
 * primary-key lookup at random) would pay for a wasted step before its descent.
 */
#define NEXT_STEP_GAP 64

/* Whether the read cursor stands on the row last_row describes, in `table`. */
static bool obj_cursor_positioned(const orc_txn *txn, uint32_t table)
{
    return txn->obj_cursor && txn->obj_cursor_table == table && txn->last_row.data
           && txn->last_row.generation == txn->generation && txn->last_row.table == table;
}

/* Makes txn->obj_cursor a cursor on `table` (a read transaction's). */
static int obj_cursor_on(orc_txn *txn, uint32_t table, MDB_dbi dbi)
{
    if (txn->obj_cursor_table != table) cursor_drop(&txn->obj_cursor);
    if (!txn->obj_cursor) {
        int mrc = mdb_cursor_open(txn->mdb, dbi, &txn->obj_cursor);
        if (mrc) return orc_fail_mdb(mrc, "opening an object cursor");
        txn->obj_cursor_table = table;
    }
    return ORC_OK;
}

static void remember_row(orc_txn *txn, uint32_t table, uint64_t key, const MDB_val *d, const orc_class *cls)
{
    txn->last_row.generation = txn->generation;
    txn->last_row.key = key;
    txn->last_row.table = table;
    txn->last_row.data = d->mv_data;
    txn->last_row.size = d->mv_size;
    txn->last_row.cls = cls;
}

static int read_row(orc_txn *txn, uint32_t table, uint64_t key, MDB_val *d)
{
    MDB_dbi dbi;
    int rc = txn_table_dbi(txn, table, &dbi);
    if (rc) return rc;
    uint8_t kb[8];
    MDB_val k = key_val(kb, key);
    if (txn->write) {
        int mrc = mdb_get(txn->mdb, dbi, &k, d);
        return mrc == MDB_NOTFOUND ? ORC_ERR_NOT_FOUND : mrc ? orc_fail_mdb(mrc, "reading an object") : ORC_OK;
    }
    if ((rc = rows_get(txn, table, key, d)) != ROWS_BY_CURSOR) return rc;
    bool positioned = obj_cursor_positioned(txn, table);
    if ((rc = obj_cursor_on(txn, table, dbi))) return rc;
    /* The cursor's position is only known while last_row describes it. */
    txn->last_row.data = NULL;
    if (positioned && key > txn->last_row.key && key - txn->last_row.key <= NEXT_STEP_GAP) {
        MDB_val nk;
        int mrc = mdb_cursor_get(txn->obj_cursor, &nk, d, MDB_NEXT);
        if (mrc == 0 && nk.mv_size == 8 && ld64be(nk.mv_data) == key) return ORC_OK;
        if (mrc && mrc != MDB_NOTFOUND) return orc_fail_mdb(mrc, "reading an object");
    }
    int mrc = mdb_cursor_get(txn->obj_cursor, &k, d, MDB_SET_KEY);
    return mrc == MDB_NOTFOUND ? ORC_ERR_NOT_FOUND : mrc ? orc_fail_mdb(mrc, "reading an object") : ORC_OK;
}

int obj_row(orc_txn *txn, uint32_t table, uint64_t key, const uint8_t **row, size_t *size)
{
    if (!txn->write && txn->last_row.data && txn->last_row.generation == txn->generation && txn->last_row.key == key
        && txn->last_row.table == table) {
        *row = txn->last_row.data;
        *size = txn->last_row.size;
        return ORC_OK;
    }
    MDB_val d;
    int rc = read_row(txn, table, key, &d);
    if (rc == ORC_ERR_NOT_FOUND) {
        const orc_class *c = schema_class(txn, table);
        return orc_fail(ORC_ERR_NOT_FOUND, "class '%s' has no object with key %llu", c ? c->name : "?",
                        (unsigned long long)key);
    }
    if (rc) return rc;
    *row = d.mv_data;
    *size = d.mv_size;
    if (!txn->write) remember_row(txn, table, key, &d, NULL);
    return ORC_OK;
}

int orc_obj_next(orc_txn *txn, uint32_t table, uint64_t after, uint64_t *key_out)
{
    int rc;
    if (!key_out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_obj_next needs an out pointer");
    MDB_val k, d;
    int mrc;
    const orc_class *c;
    if (txn && !txn->write && txn->last_row.key == after && obj_cursor_positioned(txn, table)) {
        /* One step from the row returned last: the table was looked up for it. */
        c = txn->last_row.cls;
        txn->last_row.data = NULL;
        mrc = mdb_cursor_get(txn->obj_cursor, &k, &d, MDB_NEXT);
        goto stepped;
    }
    if (!(c = schema_class_req(txn, table, &rc))) return rc;
    if (txn && !txn->write) {
        /* the table's row reader (scan.c), unless the table is read through the cursor */
        uint64_t key;
        rc = rows_next(txn, table, after, &key, &d);
        if (rc == ORC_OK) {
            if (key <= after) return orc_fail(ORC_ERR_CORRUPT, "table %u's keys are out of order", (unsigned)table);
            remember_row(txn, table, key, &d, c);
            *key_out = key;
            return ORC_OK;
        }
        if (rc != ROWS_BY_CURSOR) return rc;
    }
    if (after == UINT64_MAX) return ORC_ERR_NOT_FOUND;
    MDB_dbi dbi;
    if ((rc = txn_table_dbi(txn, table, &dbi))) return rc;
    uint8_t kb[8];
    k = key_val(kb, after + 1);
    if (txn->write) {
        /* Rows move as a write transaction writes: a cursor of its own, from the root. */
        MDB_cursor *cur;
        if ((mrc = mdb_cursor_open(txn->mdb, dbi, &cur))) return orc_fail_mdb(mrc, "opening a table cursor");
        mrc = mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE);
        mdb_cursor_close(cur);
    } else {
        if ((rc = obj_cursor_on(txn, table, dbi))) return rc;
        txn->last_row.data = NULL;
        mrc = mdb_cursor_get(txn->obj_cursor, &k, &d, MDB_SET_RANGE);
    }
stepped:
    if (mrc == MDB_NOTFOUND) return ORC_ERR_NOT_FOUND;
    if (mrc) return orc_fail_mdb(mrc, "walking a table");
    if (k.mv_size != 8) return orc_fail(ORC_ERR_CORRUPT, "an object key has %zu bytes", k.mv_size);
    uint64_t key = ld64be(k.mv_data);
    if (key <= after) return orc_fail(ORC_ERR_CORRUPT, "table %u's keys are out of order", (unsigned)table);
    if (!txn->write) remember_row(txn, table, key, &d, c);
    *key_out = key;
    return ORC_OK;
}


/* ---- primary keys ------------------------------------------------------------------ */

static int pk_lookup(orc_txn *txn, const orc_class *c, const orc_value *pk, uint64_t *key_out)
{
    MDB_dbi dbi;
    int rc = txn_pk_dbi(txn, c->table, &dbi);
    if (rc == ORC_ERR_NOT_FOUND) return orc_fail_later(ORC_ERR_NOT_FOUND, "class '", c->name, "' has no objects yet");
    if (rc) return rc;
    orc_buf *b = &txn->scratch3;
    b->size = 0;
    bool exact = true;
    if ((rc = keyenc(b, pk, &exact))) return rc;
    if (!exact) return ORC_ERR_NOT_FOUND; /* longer than any stored key may be */
    if ((rc = pk_get(txn, c->table, b->data, b->size, key_out)) != ROWS_BY_CURSOR) return rc;
    MDB_val k = {b->size, b->data}, d;
    int mrc = mdb_get(txn->mdb, dbi, &k, &d);
    if (mrc == MDB_NOTFOUND) return ORC_ERR_NOT_FOUND;
    if (mrc) return orc_fail_mdb(mrc, "reading a primary key");
    if (!pk_value_get(d.mv_data, d.mv_size, txn->core->format, key_out))
        return orc_fail(ORC_ERR_CORRUPT, "a primary key entry of class '%s' has a malformed %zu-byte object key", c->name,
                        d.mv_size);
    return ORC_OK;
}

int orc_obj_find(orc_txn *txn, uint32_t table, const orc_value *pk, uint64_t *key_out)
{
    int rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    if (!pk || !key_out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_obj_find needs a key value and an out pointer");
    if (c->pk_col < 0) return orc_fail(ORC_ERR_INVALID_ARG, "class '%s' has no primary key", c->name);
    const orc_prop *p = &c->props[c->pk_col];
    if (pk->type == ORC_TYPE_NULL ? !(p->flags & ORC_PROP_OPTIONAL) : pk->type != p->type)
        return orc_fail(ORC_ERR_WRONG_TYPE, "the primary key of '%s' is %s%s, not %s", c->name,
                        (p->flags & ORC_PROP_OPTIONAL) ? "optional " : "", obj_type_name(p->type), obj_type_name(pk->type));
    rc = pk_lookup(txn, c, pk, key_out);
    /* A miss is an answer (is this key free?), asked on every create: its message waits. */
    if (rc == ORC_ERR_NOT_FOUND)
        return orc_fail_later(ORC_ERR_NOT_FOUND, "class '", c->name, "' has no object with that primary key");
    return rc;
}

int obj_pk(orc_txn *txn, const orc_class *c, uint64_t key, orc_value *pk, bool *has_pk)
{
    *has_pk = c->pk_col >= 0;
    if (!*has_pk) {
        pk->type = ORC_TYPE_NULL;
        return ORC_OK;
    }
    const uint8_t *row = NULL;
    size_t size = 0;
    int rc = obj_row(txn, c->table, key, &row, &size);
    return rc ? rc : row_get(c, row, size, (uint16_t)c->pk_col, pk);
}


bool orc_obj_exists(orc_txn *txn, uint32_t table, uint64_t key)
{
    MDB_dbi dbi;
    if (!txn || !txn->mdb || !schema_class(txn, table) || txn_table_dbi(txn, table, &dbi)) return false;
    uint8_t kb[8];
    MDB_val k = key_val(kb, key), d;
    return mdb_get(txn->mdb, dbi, &k, &d) == 0;
}

/* ---- read ---------------------------------------------------------------------------- */

int orc_obj_get(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, orc_value *out)
{
    /* Another property of the row read last (an accessor's properties read one after
     * another): decode it from that row, under the same conditions obj_row reuses it. */
    if (txn && out && !txn->write && txn->last_row.data && txn->last_row.key == key && txn->last_row.table == table
        && txn->last_row.generation == txn->generation) {
        const orc_class *c = txn->last_row.cls ? txn->last_row.cls : schema_class(txn, table);
        if (c) return row_get(c, txn->last_row.data, txn->last_row.size, col, out);
    }
    int rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    if (!out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_obj_get needs an out pointer");
    const uint8_t *row = NULL;
    size_t size = 0;
    if ((rc = obj_row(txn, table, key, &row, &size))) return rc;
    if (!txn->write) txn->last_row.cls = c;
    return row_get(c, row, size, col, out);
}


int orc_table_count(orc_txn *txn, uint32_t table, uint64_t *count_out)
{
    int rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    orc_table_state *st = txn_table_state(txn, table);
    if (!st) return orc_fail(ORC_ERR_NOMEM, "reading table state");
    *count_out = st->count;
    return ORC_OK;
}

int orc_table_keys(orc_txn *txn, uint32_t table, orc_keys *out)
{
    int rc;
    if (!schema_class_req(txn, table, &rc)) return rc;
    tscan s;
    if ((rc = tscan_open(txn, table, &s))) return rc;
    while ((rc = tscan_next(&s)) == ORC_OK)
        if ((rc = keys_push(out, s.key))) break;
    tscan_close(&s);
    return rc == ORC_ERR_NOT_FOUND ? ORC_OK : rc;
}


/* ---- row readers ------------------------------------------------------------------------------- */

struct orc_row {
    orc_txn *txn;
    const orc_class *cls;
    MDB_cursor *cur;
    uint64_t key;
    const uint8_t *data;
    size_t size;
    bool positioned;
};

int orc_row_open(orc_txn *txn, uint32_t table, orc_row **out)
{
    int rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    orc_row *r = calloc(1, sizeof *r);
    if (!r) return orc_fail(ORC_ERR_NOMEM, "allocating a row reader");
    MDB_dbi dbi;
    if ((rc = txn_table_dbi(txn, table, &dbi))) {
        free(r);
        return rc;
    }
    int mrc = mdb_cursor_open(txn->mdb, dbi, &r->cur);
    if (mrc) {
        free(r);
        return orc_fail_mdb(mrc, "opening a row reader");
    }
    r->txn = txn;
    r->cls = c;
    *out = r;
    return ORC_OK;
}

static int row_take(orc_row *r, MDB_val *k, MDB_val *d)
{
    if (k->mv_size != 8) return orc_fail(ORC_ERR_CORRUPT, "an object key has %zu bytes", k->mv_size);
    r->key = ld64be(k->mv_data);
    r->data = d->mv_data;
    r->size = d->mv_size;
    r->positioned = true;
    return ORC_OK;
}

int orc_row_seek(orc_row *r, uint64_t key)
{
    MDB_val k, d;
    /* Walking forward a few steps is much cheaper than a search from the root. */
    if (r->positioned && key > r->key) {
        for (int i = 0; i < 4; i++) {
            int mrc = mdb_cursor_get(r->cur, &k, &d, MDB_NEXT);
            if (mrc) break;
            uint64_t at = k.mv_size == 8 ? ld64be(k.mv_data) : 0;
            if (at == key) return row_take(r, &k, &d);
            if (at > key) break;
        }
    } else if (r->positioned && key == r->key) {
        return ORC_OK;
    }
    uint8_t kb[8];
    k = key_val(kb, key);
    int mrc = mdb_cursor_get(r->cur, &k, &d, MDB_SET_KEY);
    if (mrc == MDB_NOTFOUND) {
        r->positioned = false;
        return orc_fail(ORC_ERR_NOT_FOUND, "class '%s' has no object with key %llu", r->cls->name, (unsigned long long)key);
    }
    if (mrc) return orc_fail_mdb(mrc, "seeking a row");
    return row_take(r, &k, &d);
}

int orc_row_next(orc_row *r)
{
    MDB_val k, d;
    int mrc = mdb_cursor_get(r->cur, &k, &d, r->positioned ? MDB_NEXT : MDB_FIRST);
    if (mrc == MDB_NOTFOUND) return ORC_ERR_NOT_FOUND;
    if (mrc) return orc_fail_mdb(mrc, "reading the next row");
    return row_take(r, &k, &d);
}

uint64_t orc_row_key(const orc_row *r) { return r && r->positioned ? r->key : 0; }

int orc_row_get(orc_row *r, uint16_t col, orc_value *out)
{
    if (!r->positioned) return orc_fail(ORC_ERR_NOT_FOUND, "the row reader is not on an object");
    return row_get(r->cls, r->data, r->size, col, out);
}

void orc_row_close(orc_row *r)
{
    if (!r) return;
    if (r->cur) mdb_cursor_close(r->cur);
    free(r);
}

/* ---- end of the LMDB transaction (hooks, layers.c) ------------------------------------------- */

void obj_read_close(orc_txn *txn) { cursor_drop(&txn->obj_cursor); }

void obj_read_reset(orc_txn *txn) { txn->last_row.data = NULL; }
