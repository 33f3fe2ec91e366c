/*
 * object.c — objects: create, read, write, erase; primary keys; links.
 *
 * INVARIANTS (checked by orc_env_check)
 *  1. Table t's objects live in database "t<t>" under u64 BE keys that are
 *     never reused: keys come from the table's next_key, so every new key is
 *     the largest and inserts append (MDB_APPEND: full pages, no splits).
 *  2. A class with a primary key has one "p<t>" entry per object:
 *     keyenc(pk value) -> u64 LE key. Uniqueness is checked before any write.
 *  3. Every indexed column has one "idx" entry per object (null included);
 *     inside a write transaction some may still be pending (index.c, DEFERRED
 *     INSERTS) until idx_flush, which every index read runs first.
 *  4. Every non-null link (single, in a mixed value, in a collection) has its
 *     "blink" reference; an embedded object has exactly one, from its owner.
 *  5. The table state's count equals the number of rows.
 *
 * Every public write validates its arguments before its first write, so a
 * rejected call leaves the transaction usable. A failure after a partial
 * write poisons the transaction (txn_poison): only abort remains.
 */
#include "object.h"

#include <stdlib.h>

static int write_rc(orc_txn *txn, int mrc, const char *what)
{
    if (mrc == MDB_MAP_FULL) return ORC_ERR_MAP_FULL;
    return txn_poison(txn, orc_fail_mdb(mrc, what));
}

/*
 * Checks a value for a property (or a collection element of it). Links must
 * point at a live object of the target class; links to embedded objects are
 * refused here (they are made by orc_obj_create_embedded).
 */
static int check_value(orc_txn *txn, const orc_class *c, const orc_prop *p, const orc_value *v)
{
    if (v->type == ORC_TYPE_NULL) {
        if ((p->flags & ORC_PROP_OPTIONAL) || p->type == ORC_TYPE_MIXED) return ORC_OK;
        return orc_fail(ORC_ERR_NOT_NULLABLE, "'%s.%s' is not optional", c->name, p->name);
    }
    if ((unsigned)v->type > ORC_TYPE_LINK)
        return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' got a value of unknown type %d", c->name, p->name, (int)v->type);
    if (p->type != ORC_TYPE_MIXED && v->type != p->type)
        return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' holds %s values, not %s", c->name, p->name, obj_type_name(p->type),
                        obj_type_name(v->type));
    if ((v->type == ORC_TYPE_STRING || v->type == ORC_TYPE_BINARY) && v->string.size && !v->string.data)
        return orc_fail(ORC_ERR_INVALID_ARG, "'%s.%s' got a string without data", c->name, p->name);
    if (v->type == ORC_TYPE_TIMESTAMP) {
        int32_t ns = v->timestamp.nanoseconds;
        if (ns <= -1000000000 || ns >= 1000000000 || (v->timestamp.seconds > 0 && ns < 0) ||
            (v->timestamp.seconds < 0 && ns > 0))
            return orc_fail(ORC_ERR_INVALID_ARG, "'%s.%s' got a timestamp with %d nanoseconds", c->name, p->name, ns);
    }
    if ((p->flags & ORC_PROP_PRIMARY_KEY) && v->type == ORC_TYPE_STRING && v->string.size > ORC_MAX_PK_STRING)
        return orc_fail(ORC_ERR_INVALID_ARG, "'%s.%s' is the primary key; its strings have at most %d bytes, not %zu",
                        c->name, p->name, ORC_MAX_PK_STRING, v->string.size);
    if (v->type == ORC_TYPE_LINK) {
        if (p->type == ORC_TYPE_LINK && v->link.table != p->link_table)
            return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' links to table %u, not table %u", c->name, p->name,
                            p->link_table, v->link.table);
        const orc_class *target = schema_class(txn, v->link.table);
        if (!target) return orc_fail(ORC_ERR_NOT_FOUND, "'%s.%s' got a link to unknown table %u", c->name, p->name, v->link.table);
        if (target->kind == ORC_CLASS_EMBEDDED)
            return orc_fail(ORC_ERR_EMBEDDED, "'%s.%s': embedded '%s' objects are created in place with orc_obj_create_embedded",
                            c->name, p->name, target->name);
        if (!orc_obj_exists(txn, v->link.table, v->link.key))
            return orc_fail(ORC_ERR_NOT_FOUND, "'%s.%s' got a link to missing object %llu of class '%s'", c->name, p->name,
                            (unsigned long long)v->link.key, target->name);
    }
    return ORC_OK;
}

static bool value_is_link(const orc_value *v) { return v->type == ORC_TYPE_LINK; }

/* Index, backlink and embedded-owner bookkeeping for one column's value leaving or entering a row. */
static int column_leave(orc_txn *txn, const orc_class *c, const orc_prop *p, uint64_t key, const orc_value *old,
                        bool erase_embedded)
{
    int rc = ORC_OK;
    if (p->flags & ORC_PROP_INDEXED) rc = idx_remove(txn, c->table, p->col, old, key);
    if (!rc && value_is_link(old)) {
        rc = blink_remove(txn, old->link.table, old->link.key, c->table, p->col, key);
        const orc_class *t = schema_class(txn, old->link.table);
        if (!rc && erase_embedded && t && t->kind == ORC_CLASS_EMBEDDED)
            rc = obj_erase_internal(txn, old->link.table, old->link.key, true);
    }
    return rc;
}

static int column_enter(orc_txn *txn, const orc_class *c, const orc_prop *p, uint64_t key, const orc_value *v)
{
    int rc = ORC_OK;
    if (p->flags & ORC_PROP_INDEXED) rc = idx_insert(txn, c->table, p->col, v, key);
    if (!rc && value_is_link(v)) rc = blink_add(txn, v->link.table, v->link.key, c->table, p->col, key);
    return rc;
}

/* ---- create ------------------------------------------------------------------------ */

/* Fills `all` (c->ncols entries) with defaults and the given values, validating them. */
static int gather_values(orc_txn *txn, const orc_class *c, const uint16_t *cols, const orc_value *values, size_t n,
                         orc_value *all, uint8_t *given)
{
    memset(given, 0, c->ncols);
    for (size_t i = 0; i < n; i++) {
        const orc_prop *p = class_prop(c, cols[i]);
        if (!p) return orc_fail(ORC_ERR_NOT_FOUND, "class '%s' has no column %u", c->name, cols[i]);
        if (given[cols[i]]) return orc_fail(ORC_ERR_INVALID_ARG, "'%s.%s' is given twice", c->name, p->name);
        if (p->collection != ORC_COLL_NONE)
            return orc_fail(ORC_ERR_INVALID_ARG, "'%s.%s' is a collection; fill it after creating the object", c->name, p->name);
        int rc = check_value(txn, c, p, &values[i]);
        if (rc) return rc;
        given[cols[i]] = 1;
        all[cols[i]] = values[i];
    }
    if (c->pk_col >= 0 && !given[c->pk_col])
        return orc_fail(ORC_ERR_INVALID_ARG, "creating a '%s' needs its primary key '%s'", c->name, c->props[c->pk_col].name);
    for (uint16_t col = 0; col < c->ncols; col++) {
        if (given[col]) continue;
        const orc_prop *p = class_prop(c, col);
        if (p) prop_default(p, &all[col]);
        else all[col].type = ORC_TYPE_NULL;
    }
    return ORC_OK;
}

#define PK_APPEND_RETRY 64

void obj_append_forget(orc_txn *txn)
{
    cursor_drop(&txn->append.row);
    cursor_drop(&txn->append.pk);
    txn->append.table = 0;
}

/* The append cursor `slot` (&txn->append.row or .pk) on `dbi` of `table`. */
static int append_cursor(orc_txn *txn, uint32_t table, MDB_dbi dbi, MDB_cursor **slot)
{
    if (txn->append.table != table) obj_append_forget(txn);
    txn->append.table = table;
    if (*slot) return ORC_OK;
    int mrc = mdb_cursor_open(txn->mdb, dbi, slot);
    return mrc ? orc_fail_mdb(mrc, "opening an append cursor") : ORC_OK;
}

/* Creates the row and its index entries; `log_it` false for embedded children (logged by their parent). */
static int create_row(orc_txn *txn, const orc_class *c, uint64_t key, const uint16_t *cols, const orc_value *values,
                      size_t n, bool log_it, uint64_t *key_out)
{
    orc_value local[32];
    uint8_t given_local[32];
    orc_value *all = c->ncols <= 32 ? local : malloc((size_t)c->ncols * sizeof *all);
    uint8_t *given = c->ncols <= 32 ? given_local : malloc(c->ncols);
    int rc = (!all || !given) ? orc_fail(ORC_ERR_NOMEM, "allocating an object") : ORC_OK;
    if (!rc) rc = gather_values(txn, c, cols, values, n, all, given);
    MDB_dbi dbi, pk_dbi = 0;
    if (!rc) rc = txn_table_dbi(txn, c->table, &dbi);
    if (!rc && c->pk_col >= 0) rc = txn_pk_dbi(txn, c->table, &pk_dbi);
    orc_table_state *st = rc ? NULL : txn_table_state(txn, c->table);
    if (!rc && !st) rc = orc_fail(ORC_ERR_NOMEM, "allocating table state");
    if (!rc && key && key < st->next_key && orc_obj_exists(txn, c->table, key))
        rc = orc_fail(ORC_ERR_EXISTS, "class '%s' already has an object with key %llu", c->name, (unsigned long long)key);
    if (!rc) rc = row_build(c, all, &txn->scratch);
    if (rc) goto done;
    if (!key) key = st->next_key;

    /*
     * The primary key goes in first, with MDB_NOOVERWRITE: a duplicate is
     * found by the put itself (one B-tree descent, not a lookup and a put)
     * while nothing has been written yet, so it needs no poisoning.
     *
     * Primary keys that ascend (ObjectIds made one after another, counters) are
     * first put with MDB_APPEND: LMDB then compares the key with the last one only,
     * instead of searching every page on the way down, and fills pages completely.
     * A key that is not above the last one gets MDB_KEYEXIST with nothing written
     * (for a duplicate too), and the ordinary put follows; after one such miss the
     * transaction tries appending only every PK_APPEND_RETRY creates.
     */
    int mrc;
    if (c->pk_col >= 0) {
        orc_buf *b = &txn->scratch3;
        bool exact = true;
        b->size = 0;
        if ((rc = keyenc(b, &all[c->pk_col], &exact))) goto done;
        if (!exact) {
            rc = orc_fail(ORC_ERR_INVALID_ARG, "the primary key of '%s' is too long to index", c->name);
            goto done;
        }
        uint8_t pkv[8];
        size_t npkv = pk_value_put(pkv, key, txn->core->format);
        MDB_val pk = {b->size, b->data}, pv = {npkv, pkv};
        mrc = MDB_KEYEXIST;
        bool append = st->pk_unordered == 0 || st->pk_unordered % PK_APPEND_RETRY == 0;
        if (append) {
            if ((rc = append_cursor(txn, c->table, pk_dbi, &txn->append.pk))) goto done;
            mrc = mdb_cursor_put(txn->append.pk, &pk, &pv, MDB_NOOVERWRITE | MDB_APPEND);
        }
        if (mrc == MDB_KEYEXIST) {
            st->pk_unordered++;
            /* The ordinary put below writes the primary keys under the append cursor. */
            cursor_drop(&txn->append.pk);
            pv = (MDB_val){npkv, pkv};
            mrc = mdb_put(txn->mdb, pk_dbi, &pk, &pv, MDB_NOOVERWRITE);
        }
        if (mrc == MDB_KEYEXIST) {
            rc = orc_fail(ORC_ERR_EXISTS, "class '%s' already has an object with this primary key", c->name);
            goto done;
        }
        if (mrc) {
            rc = write_rc(txn, mrc, "storing a primary key");
            goto done;
        }
    }
    uint8_t kb[8];
    MDB_val k = key_val(kb, key), d = {txn->scratch.size, txn->scratch.data};
    if (key >= st->next_key) {
        /* A new largest key (invariant 1): appended through the table's cursor. */
        if ((rc = append_cursor(txn, c->table, dbi, &txn->append.row))) goto done;
        mrc = mdb_cursor_put(txn->append.row, &k, &d, MDB_APPEND);
    } else {
        obj_append_forget(txn);
        mrc = mdb_put(txn->mdb, dbi, &k, &d, MDB_NOOVERWRITE);
    }
    if (mrc) {
        rc = write_rc(txn, mrc, "storing an object");
        goto done;
    }
    if (key >= st->next_key) st->next_key = key + 1;
    st->count++;
    txn->tables_dirty = true;
    txn_touched(txn);
    if (c->has_index || c->has_links)
        for (uint16_t col = 0; col < c->ncols && !rc; col++) {
            const orc_prop *p = class_prop(c, col);
            if (p && p->collection == ORC_COLL_NONE) rc = column_enter(txn, c, p, key, &all[col]);
        }
    if (!rc && log_it) rc = log_create(txn, c, key, cols, values, n);
    if (!rc && key_out) *key_out = key;
done:
    if (all != local) free(all);
    if (given != given_local) free(given);
    return rc;
}

int obj_create_internal(orc_txn *txn, uint32_t table, uint64_t key, const uint16_t *cols, const orc_value *values,
                        size_t n, uint64_t *key_out)
{
    int rc = txn_require_write(txn);
    if (rc) return rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    if (c->kind == ORC_CLASS_EMBEDDED)
        return orc_fail(ORC_ERR_INVALID_ARG, "'%s' is embedded: create it with orc_obj_create_embedded", c->name);
    if (n && (!cols || !values)) return orc_fail(ORC_ERR_INVALID_ARG, "values given without columns");
    return create_row(txn, c, key, cols, values, n, true, key_out);
}

int orc_obj_create(orc_txn *txn, uint32_t table, const uint16_t *cols, const orc_value *values, size_t n,
                   uint64_t *key_out)
{
    return ORC_WRITE_OP(txn, obj_create_internal(txn, table, 0, cols, values, n, key_out));
}


/* ---- write ----------------------------------------------------------------------------- */

/*
 * Sets columns of one object with one row rewrite. `derived` marks sets the
 * engine makes itself (links nulled because their target was erased).
 */
static int set_columns(orc_txn *txn, const orc_class *c, uint64_t key, const uint16_t *cols, const orc_value *vals,
                       size_t n, bool derived)
{
    const uint8_t *row = NULL;
    size_t size = 0;
    int rc = obj_row(txn, c->table, key, &row, &size);
    if (rc) return rc;
    orc_value olds_local[16];
    orc_value *olds = n <= 16 ? olds_local : malloc(n * sizeof *olds);
    if (!olds) return orc_fail(ORC_ERR_NOMEM, "allocating an update");
    for (size_t i = 0; i < n && !rc; i++) {
        const orc_prop *p = class_prop(c, cols[i]);
        if (!p) {
            rc = orc_fail(ORC_ERR_NOT_FOUND, "class '%s' has no column %u", c->name, cols[i]);
            break;
        }
        for (size_t j = 0; j < i && !rc; j++)
            if (cols[j] == cols[i]) rc = orc_fail(ORC_ERR_INVALID_ARG, "'%s.%s' is given twice", c->name, p->name);
        if (rc) break;
        if ((rc = row_get(c, row, size, cols[i], &olds[i]))) break;
        if (derived) continue;
        /* check_value refuses links to embedded objects (they are made by orc_obj_create_embedded). */
        if ((rc = check_value(txn, c, p, &vals[i]))) break;
        if ((int32_t)cols[i] == c->pk_col && orc_value_compare(&olds[i], &vals[i]) != 0)
            rc = orc_fail(ORC_ERR_INVALID_ARG, "the primary key '%s.%s' of an existing object cannot change", c->name, p->name);
    }
    if (!rc) rc = row_update(c, row, size, cols, vals, n, &txn->scratch);
    if (rc) goto done;
    /* Index and backlink bookkeeping reads `olds`, which may point into the old row: do it before the put. */
    for (size_t i = 0; i < n && !rc; i++) {
        const orc_prop *p = &c->props[cols[i]];
        if ((p->flags & ORC_PROP_INDEXED) || value_is_link(&olds[i]))
            rc = column_leave(txn, c, p, key, &olds[i], false);
    }
    /* Embedded children replaced by null are erased after the parent's row no longer names them. */
    MDB_dbi dbi;
    if (!rc) rc = txn_table_dbi(txn, c->table, &dbi);
    if (!rc) {
        uint8_t kb[8];
        MDB_val k = key_val(kb, key), d = {txn->scratch.size, txn->scratch.data};
        obj_append_forget(txn); /* a longer row may split the page the append cursor is on */
        int mrc = mdb_put(txn->mdb, dbi, &k, &d, 0);
        if (mrc) rc = write_rc(txn, mrc, "updating an object");
        txn_touched(txn);
    }
    for (size_t i = 0; i < n && !rc; i++) {
        const orc_prop *p = &c->props[cols[i]];
        if ((p->flags & ORC_PROP_INDEXED) || value_is_link(&vals[i])) rc = column_enter(txn, c, p, key, &vals[i]);
    }
    for (size_t i = 0; i < n && !rc; i++) rc = log_set(txn, c, key, cols[i], &vals[i], derived);
    /* Derived sets null links whose target is being erased already: never erase it again here. */
    for (size_t i = 0; i < n && !rc && !derived; i++) {
        /* The old values may have pointed into the replaced row; only link keys are used here. */
        if (!value_is_link(&olds[i])) continue;
        const orc_class *t = schema_class(txn, olds[i].link.table);
        if (t && t->kind == ORC_CLASS_EMBEDDED && !(value_is_link(&vals[i]) && vals[i].link.key == olds[i].link.key))
            rc = obj_erase_internal(txn, olds[i].link.table, olds[i].link.key, true);
    }
done:
    if (olds != olds_local) free(olds);
    return rc;
}

static int set_many_impl(orc_txn *txn, uint32_t table, uint64_t key, const uint16_t *cols, const orc_value *vals, size_t n)
{
    int rc = txn_require_write(txn);
    if (rc) return rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    if (n && (!cols || !vals)) return orc_fail(ORC_ERR_INVALID_ARG, "values given without columns");
    for (size_t i = 0; i < n; i++) {
        const orc_prop *p = class_prop(c, cols[i]);
        if (p && p->collection != ORC_COLL_NONE)
            return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' is a collection; use the collection functions", c->name, p->name);
    }
    return set_columns(txn, c, key, cols, vals, n, false);
}

int orc_obj_set(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const orc_value *value)
{
    if (!value) return orc_fail(ORC_ERR_INVALID_ARG, "orc_obj_set needs a value");
    return ORC_WRITE_OP(txn, set_many_impl(txn, table, key, &col, value, 1));
}

int orc_obj_set_many(orc_txn *txn, uint32_t table, uint64_t key, const uint16_t *cols, const orc_value *values, size_t n)
{
    return ORC_WRITE_OP(txn, set_many_impl(txn, table, key, cols, values, n));
}

static int add_int_impl(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, int64_t delta)
{
    int rc = txn_require_write(txn);
    if (rc) return rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    orc_value v;
    if ((rc = orc_obj_get(txn, table, key, col, &v))) return rc;
    if (v.type != ORC_TYPE_INT)
        return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' does not hold an int (it is %s)", c->name, c->props[col].name,
                        obj_type_name(v.type));
    if ((int32_t)col == c->pk_col) return orc_fail(ORC_ERR_INVALID_ARG, "the primary key '%s.%s' cannot change", c->name, c->props[col].name);
    v.integer = (int64_t)((uint64_t)v.integer + (uint64_t)delta); /* wraps like Realm's integer adds */
    size_t mark = txn->changeset.size;
    uint32_t count = txn->instr_count;
    if ((rc = set_columns(txn, c, key, &col, &v, 1, false))) return rc;
    /* Record the addition itself (it commutes in sync) instead of the SET. */
    txn->changeset.size = mark;
    txn->instr_count = count;
    return log_add_int(txn, c, key, col, delta);
}

int orc_obj_add_int(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, int64_t delta)
{
    return ORC_WRITE_OP(txn, add_int_impl(txn, table, key, col, delta));
}

/* ---- embedded objects ---------------------------------------------------------------------- */

static int create_embedded_impl(orc_txn *txn, uint32_t parent_table, uint64_t parent_key, uint16_t col, size_t index,
                                const orc_value *dict_key, uint64_t *child_out)
{
    int rc = txn_require_write(txn);
    if (rc) return rc;
    const orc_class *c = schema_class_req(txn, parent_table, &rc);
    if (!c) return rc;
    const orc_prop *p = class_prop(c, col);
    if (!p) return orc_fail(ORC_ERR_NOT_FOUND, "class '%s' has no column %u", c->name, col);
    const orc_class *child = p->type == ORC_TYPE_LINK ? schema_class(txn, p->link_table) : NULL;
    if (!child || child->kind != ORC_CLASS_EMBEDDED)
        return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' does not link to an embedded class", c->name, p->name);
    if (p->collection == ORC_COLL_SET)
        return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' is a set; sets cannot hold embedded objects", c->name, p->name);
    if (p->collection == ORC_COLL_DICT && (!dict_key || dict_key->type != ORC_TYPE_STRING))
        return orc_fail(ORC_ERR_INVALID_ARG, "'%s.%s' is a dictionary: give a string key", c->name, p->name);
    const uint8_t *row = NULL;
    size_t size = 0;
    if ((rc = obj_row(txn, parent_table, parent_key, &row, &size))) return rc;
    if (p->collection == ORC_COLL_LIST) {
        size_t n;
        if ((rc = orc_coll_size(txn, parent_table, parent_key, col, &n))) return rc;
        if (index > n)
            return orc_fail(ORC_ERR_OUT_OF_RANGE, "index %zu is past the end of '%s.%s' (%zu elements)", index, c->name,
                            p->name, n);
    }
    uint64_t child_key;
    if ((rc = create_row(txn, child, 0, NULL, NULL, 0, false, &child_key))) return rc;
    if (p->collection == ORC_COLL_NONE) {
        orc_value link = {.type = ORC_TYPE_LINK};
        link.link.table = child->table;
        link.link.key = child_key;
        orc_value old;
        if ((rc = orc_obj_get(txn, parent_table, parent_key, col, &old))) return txn_poison(txn, rc);
        /* The log gets CREATE_EMBEDDED, not a SET: set_columns logs, so cut its instruction. */
        size_t mark = txn->changeset.size;
        uint32_t count = txn->instr_count;
        rc = set_columns(txn, c, parent_key, &col, &link, 1, true);
        if (rc) return txn_poison(txn, rc);
        txn->changeset.size = mark;
        txn->instr_count = count;
        if (old.type == ORC_TYPE_LINK) rc = obj_erase_internal(txn, old.link.table, old.link.key, true);
    } else {
        rc = coll_attach(txn, parent_table, parent_key, col, index, dict_key, child->table, child_key);
    }
    if (rc) return txn_poison(txn, rc);
    if ((rc = log_create_embedded(txn, c, parent_key, col, index, dict_key, child->table, child_key))) return rc;
    if (child_out) *child_out = child_key;
    return ORC_OK;
}

int orc_obj_create_embedded(orc_txn *txn, uint32_t parent_table, uint64_t parent_key, uint16_t col, size_t index,
                            const orc_value *dict_key, uint64_t *child_key_out)
{
    return ORC_WRITE_OP(txn, create_embedded_impl(txn, parent_table, parent_key, col, index, dict_key, child_key_out));
}

/* ---- erase ----------------------------------------------------------------------------------- */

typedef struct origin {
    uint32_t table;
    uint16_t col;
    uint64_t key;
} origin;

typedef struct origins {
    origin *items;
    size_t count, cap;
} origins;

static int collect_origin(void *ctx, uint32_t otable, uint16_t ocol, uint64_t okey, uint32_t count)
{
    origins *o = ctx;
    int rc = array_reserve(&o->items, o->count, &o->cap, sizeof *o->items, 8, "the backlinks collected");
    if (rc) return rc;
    o->items[o->count++] = (origin){otable, ocol, okey};
    return 0;
}

/* Nulls or removes every link to (table, key) (Realm: links become null, collection entries go). */
static int unlink_incoming(orc_txn *txn, uint32_t table, uint64_t key)
{
    origins o = {0};
    int rc = blink_each(txn, table, key, 0, 0, collect_origin, &o);
    for (size_t i = 0; i < o.count && !rc; i++) {
        const orc_class *oc = schema_class(txn, o.items[i].table);
        const orc_prop *op = oc ? class_prop(oc, o.items[i].col) : NULL;
        if (!op) {
            rc = orc_fail(ORC_ERR_CORRUPT, "a backlink names table %u column %u, which does not exist", o.items[i].table,
                          o.items[i].col);
            break;
        }
        if (op->collection != ORC_COLL_NONE) {
            rc = coll_remove_links(txn, o.items[i].table, o.items[i].key, o.items[i].col, table, key);
        } else {
            orc_value null = {.type = ORC_TYPE_NULL};
            rc = set_columns(txn, oc, o.items[i].key, &o.items[i].col, &null, 1, true);
        }
    }
    free(o.items);
    return rc;
}

int obj_erase_internal(orc_txn *txn, uint32_t table, uint64_t key, bool derived)
{
    int rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    const uint8_t *row = NULL;
    size_t size = 0;
    if ((rc = obj_row(txn, table, key, &row, &size))) return rc;
    orc_value pk = {.type = ORC_TYPE_NULL};
    if (c->pk_col >= 0 && (rc = row_get(c, row, size, (uint16_t)c->pk_col, &pk))) return rc;
    /* Log first: pk may point into the row, which goes below. */
    if ((rc = log_erase(txn, c, key, c->pk_col >= 0 ? &pk : NULL, derived))) return rc;
    obj_append_forget(txn);
    if (c->pk_col >= 0) {
        MDB_dbi pdbi;
        orc_buf *b = &txn->scratch3;
        b->size = 0;
        if ((rc = txn_pk_dbi(txn, table, &pdbi)) || (rc = keyenc(b, &pk, NULL))) return txn_poison(txn, rc);
        MDB_val k = {b->size, b->data};
        int mrc = mdb_del(txn->mdb, pdbi, &k, NULL);
        if (mrc) return write_rc(txn, mrc, "removing a primary key");
    }
    /* Outgoing single links and indexes; embedded children go with their owner. */
    if (c->has_index || c->has_links) {
        for (uint16_t col = 0; col < c->ncols && !rc; col++) {
            const orc_prop *p = class_prop(c, col);
            if (!p || p->collection != ORC_COLL_NONE || (!(p->flags & ORC_PROP_INDEXED) && !prop_may_link(p))) continue;
            orc_value v;
            if ((rc = obj_row(txn, table, key, &row, &size)) || (rc = row_get(c, row, size, col, &v))) break;
            rc = column_leave(txn, c, p, key, &v, true);
        }
        if (rc) return txn_poison(txn, rc);
    }
    if ((rc = coll_erase_object(txn, c, key))) return txn_poison(txn, rc);
    if ((rc = unlink_incoming(txn, table, key))) return txn_poison(txn, rc);
    MDB_dbi dbi;
    if ((rc = txn_table_dbi(txn, table, &dbi))) return txn_poison(txn, rc);
    uint8_t kb[8];
    MDB_val k = key_val(kb, key);
    int mrc = mdb_del(txn->mdb, dbi, &k, NULL);
    if (mrc) return write_rc(txn, mrc, "erasing an object");
    orc_table_state *st = txn_table_state(txn, table);
    if (st && st->count) st->count--;
    txn->tables_dirty = true;
    txn_touched(txn);
    return ORC_OK;
}

static int erase_impl(orc_txn *txn, uint32_t table, uint64_t key)
{
    int rc = txn_require_write(txn);
    if (rc) return rc;
    return obj_erase_internal(txn, table, key, false);
}

int orc_obj_erase(orc_txn *txn, uint32_t table, uint64_t key) { return ORC_WRITE_OP(txn, erase_impl(txn, table, key)); }

/* ---- tables ---------------------------------------------------------------------------------- */

int table_clear_internal(orc_txn *txn, uint32_t table, bool log_clear)
{
    int rc = txn_require_write(txn);
    if (rc) return rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    orc_keys keys = {0};
    if ((rc = orc_table_keys(txn, table, &keys))) return rc;
    if (log_clear) rc = log_schema(txn, ORC_INSTR_CLEAR_TABLE, table, 0, NULL, NULL, c->kind);
    for (size_t i = 0; i < keys.count && !rc; i++) {
        /* An earlier erase may have taken this one with it (an embedded child). */
        if (!orc_obj_exists(txn, table, keys.keys[i])) continue;
        rc = obj_erase_internal(txn, table, keys.keys[i], true);
    }
    orc_keys_free(&keys);
    return rc;
}

int orc_table_clear(orc_txn *txn, uint32_t table) { return ORC_WRITE_OP(txn, table_clear_internal(txn, table, true)); }

/* ---- backlinks --------------------------------------------------------------------------------- */

typedef struct blink_keys {
    orc_keys *out;
    origins seen; /* (table, key) of counted origins, for orc_obj_backlink_count */
} blink_keys;

static int push_origin(void *ctx, uint32_t otable, uint16_t ocol, uint64_t okey, uint32_t count)
{
    blink_keys *b = ctx;
    return b->out ? keys_push(b->out, okey) : collect_origin(&b->seen, otable, 0, okey, count);
}

static int origin_order(const void *a, const void *b)
{
    const origin *x = a, *y = b;
    if (x->table != y->table) return x->table < y->table ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

int orc_obj_backlinks(orc_txn *txn, uint32_t table, uint64_t key, uint32_t origin_table, uint16_t origin_col,
                      orc_keys *out)
{
    int rc;
    if (!schema_class_req(txn, table, &rc)) return rc;
    const orc_class *oc = schema_class_req(txn, origin_table, &rc);
    if (!oc) return rc;
    if (!class_prop(oc, origin_col))
        return orc_fail(ORC_ERR_NOT_FOUND, "class '%s' has no column %u", oc->name, origin_col);
    if (!orc_obj_exists(txn, table, key))
        return orc_fail(ORC_ERR_NOT_FOUND, "no object with key %llu in table %u", (unsigned long long)key, table);
    blink_keys b = {out, {0}};
    return blink_each(txn, table, key, origin_table, origin_col, push_origin, &b);
}

int orc_obj_backlink_count(orc_txn *txn, uint32_t table, uint64_t key, uint64_t *count_out)
{
    int rc;
    if (!schema_class_req(txn, table, &rc)) return rc;
    if (!orc_obj_exists(txn, table, key))
        return orc_fail(ORC_ERR_NOT_FOUND, "no object with key %llu in table %u", (unsigned long long)key, table);
    /* Backlinks are grouped by origin column; an object linking through two columns counts once. */
    blink_keys b = {NULL, {0}};
    rc = blink_each(txn, table, key, 0, 0, push_origin, &b);
    if (!rc) {
        if (b.seen.count) qsort(b.seen.items, b.seen.count, sizeof *b.seen.items, origin_order);
        uint64_t n = 0;
        for (size_t i = 0; i < b.seen.count; i++)
            n += i == 0 || origin_order(&b.seen.items[i - 1], &b.seen.items[i]) != 0;
        *count_out = n;
    }
    free(b.seen.items);
    return rc;
}

