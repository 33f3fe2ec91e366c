/*
 * schema_api.c — the schema calls of orcore.h: lookups by name and position, and
 * changes (classes, properties, primary keys, indexes), each recorded in the log.
 * A change copies the transaction's schema first (copy on write, schema.c); the
 * commit stores and publishes it (txn.c).
 */
#include "object.h"

#include <stdlib.h>

/* The transaction's own mutable schema (copy on write, schema.c). */
static int schema_mutable(orc_txn *txn, orc_schema **out)
{
    int rc = txn_require_write(txn);
    if (rc) return rc;
    if (!txn->schema_dirty) {
        orc_schema *copy;
        if ((rc = schema_clone(txn->schema, &copy))) return rc;
        copy->gen = txn->schema->gen + 1;
        schema_release(txn->schema);
        txn->schema = copy;
        txn->schema_dirty = true;
    }
    *out = txn->schema;
    txn_touched(txn);
    return ORC_OK;
}

/* ---- lookups --------------------------------------------------------------------- */

static void class_info(const orc_class *c, orc_class_info *out)
{
    *out = (orc_class_info){
        .name = c->name, .table = c->table, .kind = c->kind, .pk_col = c->pk_col, .prop_count = c->live_props};
}

static void prop_info(const orc_prop *p, orc_prop_info *out)
{
    *out = (orc_prop_info){.name = p->name, .col = p->col, .type = p->type, .collection = p->collection,
                           .flags = p->flags, .link_table = p->link_table};
}

uint32_t orc_schema_class_count(orc_txn *txn)
{
    uint32_t n = 0;
    if (!txn || !txn->schema) return 0;
    for (uint32_t t = 1; t <= txn->schema->ntables; t++) n += txn->schema->classes[t].name != NULL;
    return n;
}

int orc_schema_class_at(orc_txn *txn, uint32_t i, orc_class_info *out)
{
    if (!txn || !out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_schema_class_at needs a transaction and an out pointer");
    for (uint32_t t = 1; t <= txn->schema->ntables; t++) {
        if (!txn->schema->classes[t].name) continue;
        if (i-- == 0) {
            class_info(&txn->schema->classes[t], out);
            return ORC_OK;
        }
    }
    return orc_fail(ORC_ERR_OUT_OF_RANGE, "class index out of range");
}

static const orc_class *find_class(const orc_schema *s, const char *name)
{
    for (uint32_t t = 1; t <= s->ntables; t++)
        if (s->classes[t].name && strcmp(s->classes[t].name, name) == 0) return &s->classes[t];
    return NULL;
}

static const orc_prop *find_prop(const orc_class *c, const char *name)
{
    for (uint16_t i = 0; i < c->ncols; i++)
        if (c->props[i].name && strcmp(c->props[i].name, name) == 0) return &c->props[i];
    return NULL;
}

int orc_schema_class_find(orc_txn *txn, const char *name, orc_class_info *out)
{
    if (!txn || !name || !out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_schema_class_find needs a name");
    const orc_class *c = find_class(txn->schema, name);
    if (!c) return orc_fail(ORC_ERR_NOT_FOUND, "no class named '%s'", name);
    class_info(c, out);
    return ORC_OK;
}

int orc_schema_class_get(orc_txn *txn, uint32_t table, orc_class_info *out)
{
    int rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (c) class_info(c, out);
    return rc;
}

int orc_schema_prop_at(orc_txn *txn, uint32_t table, uint32_t i, orc_prop_info *out)
{
    int rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    for (uint16_t col = 0; col < c->ncols; col++) {
        if (!c->props[col].name) continue;
        if (i-- == 0) {
            prop_info(&c->props[col], out);
            return ORC_OK;
        }
    }
    return orc_fail(ORC_ERR_OUT_OF_RANGE, "property index out of range for class '%s'", c->name);
}

int orc_schema_prop_find(orc_txn *txn, uint32_t table, const char *name, orc_prop_info *out)
{
    int rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    const orc_prop *p = name ? find_prop(c, name) : NULL;
    if (!p) return orc_fail(ORC_ERR_NOT_FOUND, "class '%s' has no property '%s'", c->name, name ? name : "(null)");
    prop_info(p, out);
    return ORC_OK;
}

/* The property at `col` of class `table`, and the class in *cls; NULL with *rc when either is missing. */
static const orc_prop *prop_req(orc_txn *txn, uint32_t table, uint16_t col, const orc_class **cls, int *rc)
{
    const orc_class *c = schema_class_req(txn, table, rc);
    if (!c) return NULL;
    const orc_prop *p = class_prop(c, col);
    if (!p) *rc = orc_fail(ORC_ERR_NOT_FOUND, "class '%s' has no column %u", c->name, col);
    *cls = c;
    return p;
}

int orc_schema_prop_get(orc_txn *txn, uint32_t table, uint16_t col, orc_prop_info *out)
{
    int rc;
    const orc_class *c;
    const orc_prop *p = prop_req(txn, table, col, &c, &rc);
    if (!p) return rc;
    prop_info(p, out);
    return ORC_OK;
}

/* ---- changes ---------------------------------------------------------------------- */

static int check_name(const char *name, const char *what)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > ORC_MAX_NAME)
        return orc_fail(ORC_ERR_INVALID_ARG, "a %s name must have 1 to %d bytes", what, ORC_MAX_NAME);
    return ORC_OK;
}

static int class_add_impl(orc_txn *txn, const char *name, orc_class_kind kind, uint32_t *table_out)
{
    int rc = check_name(name, "class");
    if (rc) return rc;
    if (kind > ORC_CLASS_ASYMMETRIC) return orc_fail(ORC_ERR_INVALID_ARG, "unknown class kind %d", (int)kind);
    orc_schema *s;
    if ((rc = schema_mutable(txn, &s))) return rc;
    if (find_class(s, name)) return orc_fail(ORC_ERR_EXISTS, "a class named '%s' already exists", name);
    if (s->ntables >= ORC_MAX_TABLES) return orc_fail(ORC_ERR_SCHEMA, "a realm holds at most %d classes", ORC_MAX_TABLES);
    orc_class *a = realloc(s->classes, ((size_t)s->ntables + 2) * sizeof *a);
    if (!a) return orc_fail(ORC_ERR_NOMEM, "allocating a class");
    s->classes = a;
    uint32_t t = ++s->ntables;
    orc_class *c = &a[t];
    memset(c, 0, sizeof *c);
    c->table = t;
    c->kind = kind;
    c->pk_col = -1;
    c->name = strdup(name);
    c->props = calloc(1, sizeof *c->props);
    if (!c->name || !c->props || class_summarise(c)) return txn_poison(txn, orc_fail(ORC_ERR_NOMEM, "allocating a class"));
    if (!txn_table_state(txn, t)) return txn_poison(txn, orc_fail(ORC_ERR_NOMEM, "allocating table state"));
    txn->tables_dirty = true;
    MDB_dbi dbi;
    if ((rc = txn_table_dbi(txn, t, &dbi))) return txn_poison(txn, rc);
    if ((rc = log_schema(txn, ORC_INSTR_ADD_CLASS, t, 0, name, NULL, kind))) return rc;
    if (table_out) *table_out = t;
    return ORC_OK;
}

int orc_class_add(orc_txn *txn, const char *name, orc_class_kind kind, uint32_t *table_out)
{
    return ORC_WRITE_OP(txn, class_add_impl(txn, name, kind, table_out));
}

static int class_remove_impl(orc_txn *txn, uint32_t table)
{
    int rc = txn_require_write(txn);
    if (rc) return rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    for (uint32_t t = 1; t <= txn->schema->ntables; t++) {
        const orc_class *o = &txn->schema->classes[t];
        if (!o->name || t == table) continue;
        for (uint16_t i = 0; i < o->ncols; i++)
            if (o->props[i].name && o->props[i].type == ORC_TYPE_LINK && o->props[i].link_table == table)
                return orc_fail(ORC_ERR_SCHEMA, "class '%s' cannot be removed: '%s.%s' links to it", c->name, o->name,
                                o->props[i].name);
    }
    /* REMOVE_CLASS implies the erasures: they are logged as derived, with no CLEAR_TABLE. */
    if ((rc = table_clear_internal(txn, table, false))) return rc;
    /* Its own links to itself and its indexes are gone with its objects; drop the emptied databases' contents. */
    orc_schema *s;
    if ((rc = schema_mutable(txn, &s))) return rc;
    orc_class *mc = &s->classes[table];
    for (uint16_t i = 0; i < mc->ncols; i++)
        if (mc->props[i].name && (mc->props[i].flags & ORC_PROP_INDEXED) && (rc = idx_drop(txn, table, i)))
            return txn_poison(txn, rc);
    MDB_dbi dbi;
    obj_append_forget(txn);
    if (mc->pk_col >= 0 && !(rc = txn_pk_dbi(txn, table, &dbi))) {
        int mrc = mdb_drop(txn->mdb, dbi, 0);
        if (mrc) return txn_poison(txn, orc_fail_mdb(mrc, "emptying a primary key index"));
    }
    if ((rc = log_schema(txn, ORC_INSTR_REMOVE_CLASS, table, 0, NULL, NULL, mc->kind))) return rc;
    class_free(mc);
    memset(mc, 0, sizeof *mc);
    mc->table = table;
    mc->pk_col = -1;
    return ORC_OK;
}

int orc_class_remove(orc_txn *txn, uint32_t table) { return ORC_WRITE_OP(txn, class_remove_impl(txn, table)); }

static int class_rename_impl(orc_txn *txn, uint32_t table, const char *new_name)
{
    int rc = check_name(new_name, "class");
    if (rc) return rc;
    if ((rc = txn_require_write(txn))) return rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    const orc_class *other = find_class(txn->schema, new_name);
    if (other && other != c) return orc_fail(ORC_ERR_EXISTS, "a class named '%s' already exists", new_name);
    orc_schema *s;
    if ((rc = schema_mutable(txn, &s))) return rc;
    char *n = strdup(new_name);
    if (!n) return orc_fail(ORC_ERR_NOMEM, "allocating a name");
    free(s->classes[table].name);
    s->classes[table].name = n;
    return log_schema(txn, ORC_INSTR_RENAME_CLASS, table, 0, new_name, NULL, s->classes[table].kind);
}

int orc_class_rename(orc_txn *txn, uint32_t table, const char *new_name)
{
    return ORC_WRITE_OP(txn, class_rename_impl(txn, table, new_name));
}

static bool pk_type_ok(orc_type t)
{
    return t == ORC_TYPE_INT || t == ORC_TYPE_STRING || t == ORC_TYPE_OBJECT_ID || t == ORC_TYPE_UUID;
}

static bool index_type_ok(orc_type t)
{
    return t == ORC_TYPE_BOOL || t == ORC_TYPE_INT || t == ORC_TYPE_STRING || t == ORC_TYPE_TIMESTAMP ||
           t == ORC_TYPE_OBJECT_ID || t == ORC_TYPE_UUID || t == ORC_TYPE_MIXED;
}

/* Rebuilds the primary key index of `table` from its rows (col < 0: just empties it). */
static int pk_rebuild(orc_txn *txn, uint32_t table, int32_t col)
{
    MDB_dbi dbi;
    int rc = txn_pk_dbi(txn, table, &dbi);
    if (rc) return rc;
    obj_append_forget(txn);
    int mrc = mdb_drop(txn->mdb, dbi, 0);
    if (mrc) return orc_fail_mdb(mrc, "emptying a primary key index");
    if (col < 0) return ORC_OK;
    const orc_class *c = schema_class(txn, table);
    tscan s;
    if ((rc = tscan_open(txn, table, &s))) return rc;
    orc_buf *b = &txn->scratch;
    while ((rc = tscan_next(&s)) == ORC_OK) {
        orc_value v;
        if ((rc = row_get(c, s.row, s.size, (uint16_t)col, &v))) break;
        b->size = 0;
        bool exact = true;
        if ((rc = keyenc(b, &v, &exact))) break;
        if (!exact || (v.type == ORC_TYPE_STRING && v.string.size > ORC_MAX_PK_STRING)) {
            rc = orc_fail(ORC_ERR_INVALID_ARG, "'%s.%s' cannot become the primary key: a value has more than %d bytes",
                          c->name, c->props[col].name, ORC_MAX_PK_STRING);
            break;
        }
        uint8_t kv[8];
        MDB_val k = {b->size, b->data}, d = {pk_value_put(kv, s.key, txn->core->format), kv};
        mrc = mdb_put(txn->mdb, dbi, &k, &d, MDB_NOOVERWRITE);
        if (mrc == MDB_KEYEXIST) {
            rc = orc_fail(ORC_ERR_EXISTS, "class '%s' has duplicate values of '%s'; it cannot become the primary key",
                          c->name, c->props[col].name);
            break;
        }
        if (mrc) {
            rc = mrc == MDB_MAP_FULL ? ORC_ERR_MAP_FULL : orc_fail_mdb(mrc, "building a primary key index");
            break;
        }
    }
    tscan_close(&s);
    return rc == ORC_ERR_NOT_FOUND ? ORC_OK : rc;
}

static int set_pk_impl(orc_txn *txn, uint32_t table, int32_t col)
{
    int rc = txn_require_write(txn);
    if (rc) return rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    if (col >= 0) {
        const orc_prop *p = class_prop(c, (uint16_t)col);
        if (col > UINT16_MAX || !p) return orc_fail(ORC_ERR_NOT_FOUND, "class '%s' has no column %d", c->name, col);
        if (!pk_type_ok(p->type) || p->collection != ORC_COLL_NONE)
            return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' cannot be a primary key: only int, string, ObjectId and UUID can",
                            c->name, p->name);
        if (c->kind == ORC_CLASS_EMBEDDED)
            return orc_fail(ORC_ERR_SCHEMA, "embedded class '%s' cannot have a primary key", c->name);
    }
    if (c->pk_col == col) return ORC_OK;
    orc_schema *s;
    if ((rc = schema_mutable(txn, &s))) return rc;
    orc_class *mc = &s->classes[table];
    if (mc->pk_col >= 0) mc->props[mc->pk_col].flags &= ~(uint32_t)ORC_PROP_PRIMARY_KEY;
    mc->pk_col = col;
    if (col >= 0) mc->props[col].flags |= ORC_PROP_PRIMARY_KEY;
    if ((rc = pk_rebuild(txn, table, col))) return txn_poison(txn, rc);
    return log_schema(txn, ORC_INSTR_SET_PRIMARY_KEY, table, (uint16_t)(col < 0 ? 0xFFFF : col), NULL, NULL, mc->kind);
}

int orc_class_set_primary_key(orc_txn *txn, uint32_t table, int32_t col)
{
    return ORC_WRITE_OP(txn, set_pk_impl(txn, table, col));
}

static int prop_add_impl(orc_txn *txn, uint32_t table, const orc_prop_spec *spec, uint16_t *col_out)
{
    if (!spec) return orc_fail(ORC_ERR_INVALID_ARG, "orc_prop_add needs a property spec");
    int rc = check_name(spec->name, "property");
    if (rc) return rc;
    if ((rc = txn_require_write(txn))) return rc;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc;
    if (find_prop(c, spec->name)) return orc_fail(ORC_ERR_EXISTS, "class '%s' already has a property '%s'", c->name, spec->name);
    if (spec->type < ORC_TYPE_BOOL || spec->type > ORC_TYPE_MIXED)
        return orc_fail(ORC_ERR_INVALID_ARG, "'%s.%s' has unknown type %d", c->name, spec->name, (int)spec->type);
    if (spec->collection > ORC_COLL_DICT)
        return orc_fail(ORC_ERR_INVALID_ARG, "'%s.%s' has unknown collection kind %d", c->name, spec->name, (int)spec->collection);
    if (spec->flags & ~(uint32_t)(ORC_PROP_OPTIONAL | ORC_PROP_PRIMARY_KEY | ORC_PROP_INDEXED))
        return orc_fail(ORC_ERR_INVALID_ARG, "'%s.%s' has unknown flags 0x%x", c->name, spec->name, spec->flags);
    if (spec->type == ORC_TYPE_LINK) {
        if (!schema_class(txn, spec->link_table))
            return orc_fail(ORC_ERR_NOT_FOUND, "'%s.%s' links to table %u, which does not exist", c->name, spec->name,
                            spec->link_table);
    } else if (spec->link_table) {
        return orc_fail(ORC_ERR_INVALID_ARG, "'%s.%s' is not a link but names a link target", c->name, spec->name);
    }
    if (spec->flags & ORC_PROP_PRIMARY_KEY) {
        if (!pk_type_ok(spec->type) || spec->collection != ORC_COLL_NONE)
            return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' cannot be a primary key: only int, string, ObjectId and UUID can",
                            c->name, spec->name);
        if (c->pk_col >= 0) return orc_fail(ORC_ERR_SCHEMA, "class '%s' already has a primary key", c->name);
        if (c->kind == ORC_CLASS_EMBEDDED)
            return orc_fail(ORC_ERR_SCHEMA, "embedded class '%s' cannot have a primary key", c->name);
    }
    if ((spec->flags & ORC_PROP_INDEXED) && (!index_type_ok(spec->type) || spec->collection != ORC_COLL_NONE))
        return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' cannot be indexed: its type has no index", c->name, spec->name);
    if (c->ncols == UINT16_MAX - 1) return orc_fail(ORC_ERR_SCHEMA, "class '%s' has too many properties", c->name);
    uint64_t count = 0;
    if ((spec->flags & ORC_PROP_PRIMARY_KEY) && (rc = orc_table_count(txn, table, &count))) return rc;
    if (count > 1)
        return orc_fail(ORC_ERR_SCHEMA, "'%s.%s' cannot be added as a primary key: %llu existing objects would share a value",
                        c->name, spec->name, (unsigned long long)count);

    orc_schema *s;
    if ((rc = schema_mutable(txn, &s))) return rc;
    orc_class *mc = &s->classes[table];
    orc_prop *a = realloc(mc->props, ((size_t)mc->ncols + 1) * sizeof *a);
    if (!a) return txn_poison(txn, orc_fail(ORC_ERR_NOMEM, "allocating a property"));
    mc->props = a;
    uint16_t col = mc->ncols++;
    orc_prop *p = &a[col];
    p->name = strdup(spec->name);
    if (!p->name) return txn_poison(txn, orc_fail(ORC_ERR_NOMEM, "allocating a property"));
    p->col = col;
    p->type = spec->type;
    p->collection = spec->collection;
    p->flags = spec->flags;
    /* A single link can always be null: its target may be erased. */
    if (p->type == ORC_TYPE_LINK && p->collection == ORC_COLL_NONE) p->flags |= ORC_PROP_OPTIONAL;
    p->link_table = spec->link_table;
    if (p->flags & ORC_PROP_PRIMARY_KEY) mc->pk_col = col;
    if ((rc = class_summarise(mc))) return txn_poison(txn, orc_fail(rc, "allocating a row layout"));
    if ((rc = log_schema(txn, ORC_INSTR_ADD_PROP, table, col, p->name, p, mc->kind))) return rc;
    if ((p->flags & ORC_PROP_INDEXED) && (rc = idx_build(txn, table, col))) return txn_poison(txn, rc);
    if ((p->flags & ORC_PROP_PRIMARY_KEY) && (rc = pk_rebuild(txn, table, col))) return txn_poison(txn, rc);
    if (col_out) *col_out = col;
    return ORC_OK;
}

int orc_prop_add(orc_txn *txn, uint32_t table, const orc_prop_spec *spec, uint16_t *col_out)
{
    return ORC_WRITE_OP(txn, prop_add_impl(txn, table, spec, col_out));
}

/* Drops what a column's values hold outside the row: backlinks, embedded children, collections. */
static int drop_column_values(orc_txn *txn, const orc_class *c, const orc_prop *p)
{
    if (p->collection == ORC_COLL_NONE && !prop_may_link(p)) return ORC_OK;
    orc_keys keys = {0};
    int rc = orc_table_keys(txn, c->table, &keys);
    for (size_t i = 0; !rc && i < keys.count; i++) {
        if (p->collection != ORC_COLL_NONE) {
            rc = orc_coll_clear(txn, c->table, keys.keys[i], p->col);
            continue;
        }
        orc_value v;
        if ((rc = orc_obj_get(txn, c->table, keys.keys[i], p->col, &v))) break;
        if (v.type != ORC_TYPE_LINK) continue;
        orc_value null = {.type = ORC_TYPE_NULL};
        /* Setting the link to null removes the backlink and erases an embedded target. */
        const orc_class *target = schema_class(txn, v.link.table);
        if (target && target->kind == ORC_CLASS_EMBEDDED) {
            rc = orc_obj_set(txn, c->table, keys.keys[i], p->col, &null);
        } else {
            rc = blink_remove(txn, v.link.table, v.link.key, c->table, p->col, keys.keys[i]);
        }
    }
    orc_keys_free(&keys);
    return rc;
}

static int prop_remove_impl(orc_txn *txn, uint32_t table, uint16_t col)
{
    int rc = txn_require_write(txn);
    if (rc) return rc;
    const orc_class *c;
    const orc_prop *p = prop_req(txn, table, col, &c, &rc);
    if (!p) return rc;
    if (c->pk_col == col)
        return orc_fail(ORC_ERR_SCHEMA, "'%s.%s' is the primary key; change the primary key first", c->name, p->name);
    if ((rc = drop_column_values(txn, c, p))) return txn_poison(txn, rc);
    if ((p->flags & ORC_PROP_INDEXED) && (rc = idx_drop(txn, table, col))) return txn_poison(txn, rc);
    orc_schema *s;
    if ((rc = schema_mutable(txn, &s))) return rc;
    orc_class *mc = &s->classes[table];
    if ((rc = log_schema(txn, ORC_INSTR_REMOVE_PROP, table, col, NULL, NULL, mc->kind))) return rc;
    free(mc->props[col].name);
    mc->props[col].name = NULL;
    if ((rc = class_summarise(mc))) return txn_poison(txn, orc_fail(rc, "allocating a row layout"));
    return ORC_OK;
}

int orc_prop_remove(orc_txn *txn, uint32_t table, uint16_t col) { return ORC_WRITE_OP(txn, prop_remove_impl(txn, table, col)); }

static int prop_rename_impl(orc_txn *txn, uint32_t table, uint16_t col, const char *new_name)
{
    int rc = check_name(new_name, "property");
    if (rc) return rc;
    if ((rc = txn_require_write(txn))) return rc;
    const orc_class *c;
    const orc_prop *p = prop_req(txn, table, col, &c, &rc);
    if (!p) return rc;
    const orc_prop *other = find_prop(c, new_name);
    if (other && other != p) return orc_fail(ORC_ERR_EXISTS, "class '%s' already has a property '%s'", c->name, new_name);
    orc_schema *s;
    if ((rc = schema_mutable(txn, &s))) return rc;
    char *n = strdup(new_name);
    if (!n) return orc_fail(ORC_ERR_NOMEM, "allocating a name");
    free(s->classes[table].props[col].name);
    s->classes[table].props[col].name = n;
    return log_schema(txn, ORC_INSTR_RENAME_PROP, table, col, new_name, NULL, s->classes[table].kind);
}

int orc_prop_rename(orc_txn *txn, uint32_t table, uint16_t col, const char *new_name)
{
    return ORC_WRITE_OP(txn, prop_rename_impl(txn, table, col, new_name));
}

static int set_indexed_impl(orc_txn *txn, uint32_t table, uint16_t col, bool indexed)
{
    int rc = txn_require_write(txn);
    if (rc) return rc;
    const orc_class *c;
    const orc_prop *p = prop_req(txn, table, col, &c, &rc);
    if (!p) return rc;
    if (indexed && (!index_type_ok(p->type) || p->collection != ORC_COLL_NONE))
        return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' cannot be indexed: its type has no index", c->name, p->name);
    if (((p->flags & ORC_PROP_INDEXED) != 0) == indexed) return ORC_OK;
    orc_schema *s;
    if ((rc = schema_mutable(txn, &s))) return rc;
    orc_class *mc = &s->classes[table];
    if (indexed) mc->props[col].flags |= ORC_PROP_INDEXED;
    else mc->props[col].flags &= ~(uint32_t)ORC_PROP_INDEXED;
    if ((rc = class_summarise(mc))) return txn_poison(txn, orc_fail(rc, "allocating a row layout"));
    rc = indexed ? idx_build(txn, table, col) : idx_drop(txn, table, col);
    if (rc) return txn_poison(txn, rc);
    orc_prop tmp = mc->props[col];
    return log_schema(txn, ORC_INSTR_SET_INDEXED, table, col, NULL, &tmp, mc->kind);
}

int orc_prop_set_indexed(orc_txn *txn, uint32_t table, uint16_t col, bool indexed)
{
    return ORC_WRITE_OP(txn, set_indexed_impl(txn, table, col, indexed));
}
