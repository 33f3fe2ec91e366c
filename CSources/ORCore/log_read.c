/*
 * log_read.c — decoding changesets (orc_changeset_iter). The format is documented
 * in log.c; replay.c re-executes decoded changesets through the engine.
 *
 * INVARIANTS
 *  1. Decoding never reads past `size`: every field is bounds-checked before
 *     it is read, varints are at most 10 bytes, counts are checked against the
 *     bytes left, and any malformed byte yields ORC_ERR_CORRUPT with its offset.
 *  2. A changeset with a header is checked whole at init (magic, checksum);
 *     its instruction count is checked at the end, so a changeset cut at an
 *     instruction boundary is as corrupt as one cut in the middle.
 *  3. A header-less stream (a write transaction's txn->changeset before
 *     log_commit, the redo log of map growth) is decoded to its end.
 *  4. Replay runs only instructions a caller made (DERIVED and INITIAL ones are
 *     consequences the engine derives again) and checks that every key, table
 *     id and column id the engine hands out equals the recorded one: the
 *     instructions that follow name objects by those ids.
 *
 * ITERATOR PRIVATE STATE
 *   `pending`          initial SETs of the last CREATE still to be returned
 *   `create`           that CREATE (table, key, pk for its SETs); its unused
 *                      fields carry the iterator's bookkeeping:
 *   create.index2      instructions the header announces that are not decoded yet
 *   create.child_table 1 for a header-less stream
 */
#include "log.h"
#include "log_format.h"

#include <stdio.h>
#include <stdlib.h>

#define IT_LEFT(it) ((it)->create.index2)
#define IT_BARE(it) ((it)->create.child_table)

/* ---- bounds-checked reading ---------------------------------------------- */

typedef struct rd {
    const uint8_t *d;
    size_t size;
    size_t pos;
} rd;

static bool rd_u8(rd *r, uint8_t *out)
{
    if (r->pos >= r->size) return false;
    *out = r->d[r->pos++];
    return true;
}

static bool rd_var(rd *r, uint64_t *out) { return leb_get(r->d, r->size, &r->pos, out); }

static bool rd_var_max(rd *r, uint64_t max, uint64_t *out) { return rd_var(r, out) && *out <= max; }

static bool rd_col(rd *r, uint16_t *out)
{
    uint64_t v;
    if (!rd_var_max(r, UINT16_MAX, &v)) return false;
    *out = (uint16_t)v;
    return true;
}

static bool rd_bytes(rd *r, size_t max, const char **p, size_t *n)
{
    uint64_t len;
    if (!rd_var(r, &len) || len > max || len > r->size - r->pos) return false;
    *p = (const char *)r->d + r->pos;
    *n = (size_t)len;
    r->pos += (size_t)len;
    return true;
}

static bool rd_val(rd *r, orc_value *out)
{
    return r->pos < r->size && val_decode(r->d, r->size, &r->pos, out) == ORC_OK;
}

static int bad(const orc_changeset_iter *it, size_t at, const char *what)
{
    return orc_fail(ORC_ERR_CORRUPT, "changeset of version %llu: %s at offset %zu",
                    (unsigned long long)it->version, what, at);
}

/* ---- the iterator ----------------------------------------------------------- */

int orc_changeset_iter_init(orc_changeset_iter *it, const void *data, size_t size)
{
    if (!it || (!data && size)) return orc_fail(ORC_ERR_INVALID_ARG, "orc_changeset_iter_init needs an iterator and data");
    memset(it, 0, sizeof *it);
    const uint8_t *d = data;
    if (size < CS_HEADER_SIZE) return bad(it, size, "header truncated");
    if (d[0] != CS_MAGIC) return bad(it, 0, "bad magic byte");
    uint64_t version = ld64(d + 1);
    uint32_t count = ld32(d + 9);
    it->version = version;
    if (ld64(d + 13) != cs_checksum(version, count, d + CS_HEADER_SIZE, size - CS_HEADER_SIZE))
        return bad(it, 13, "checksum mismatch");
    it->data = d;
    it->size = size;
    it->pos = CS_HEADER_SIZE;
    IT_LEFT(it) = count;
    return ORC_OK;
}

/* Starts iterating a header-less instruction stream. */
void log_iter_bare(orc_changeset_iter *it, const uint8_t *data, size_t size)
{
    memset(it, 0, sizeof *it);
    it->data = data;
    it->size = size;
    IT_BARE(it) = 1;
}

static bool is_object_op(unsigned op) { return op >= ORC_INSTR_CREATE && op <= ORC_INSTR_CREATE_EMBEDDED; }
static bool is_schema_op(unsigned op) { return op >= ORC_INSTR_ADD_CLASS && op <= ORC_INSTR_CLEAR_TABLE; }

/* Decodes the body of an object instruction (after table, key, pk). */
static bool read_object_body(rd *r, orc_instr *out)
{
    uint64_t v;
    uint8_t u;
    switch (out->op) {
    case ORC_INSTR_CREATE: {
        uint64_t n;
        /* Each initial pair takes at least 2 bytes. */
        if (!rd_var(r, &n) || n > UINT32_MAX || n > (r->size - r->pos) / 2) return false;
        out->index = n;
        return true;
    }
    case ORC_INSTR_ERASE: return true;
    case ORC_INSTR_SET:
    case ORC_INSTR_SET_INSERT:
    case ORC_INSTR_SET_ERASE: return rd_col(r, &out->col) && rd_val(r, &out->value);
    case ORC_INSTR_ADD_INT:
        if (!rd_col(r, &out->col) || !rd_var(r, &v)) return false;
        out->delta = cs_unzigzag(v);
        return true;
    case ORC_INSTR_LIST_INSERT:
    case ORC_INSTR_LIST_SET: return rd_col(r, &out->col) && rd_var(r, &out->index) && rd_val(r, &out->value);
    case ORC_INSTR_LIST_ERASE: return rd_col(r, &out->col) && rd_var(r, &out->index);
    case ORC_INSTR_LIST_MOVE: return rd_col(r, &out->col) && rd_var(r, &out->index) && rd_var(r, &out->index2);
    case ORC_INSTR_COLL_CLEAR: return rd_col(r, &out->col);
    case ORC_INSTR_DICT_SET:
    case ORC_INSTR_DICT_ERASE:
        if (!rd_col(r, &out->col) || !rd_bytes(r, SIZE_MAX, &out->dict_key.string.data, &out->dict_key.string.size))
            return false;
        out->dict_key.type = ORC_TYPE_STRING;
        return out->op == ORC_INSTR_DICT_ERASE || rd_val(r, &out->value);
    case ORC_INSTR_CREATE_EMBEDDED:
        if (!rd_col(r, &out->col) || !rd_u8(r, &u) || u > 1) return false;
        if (u == 1) {
            if (!rd_bytes(r, SIZE_MAX, &out->dict_key.string.data, &out->dict_key.string.size)) return false;
            out->dict_key.type = ORC_TYPE_STRING;
        } else if (!rd_var(r, &out->index)) {
            return false;
        }
        if (!rd_var_max(r, UINT32_MAX, &v)) return false;
        out->child_table = (uint32_t)v;
        return rd_var(r, &out->child_key);
    default: return false;
    }
}

static bool read_schema_body(rd *r, orc_instr *out)
{
    uint64_t v;
    uint8_t u;
    switch (out->op) {
    case ORC_INSTR_ADD_CLASS:
        if (!rd_bytes(r, ORC_MAX_NAME, &out->name, &out->name_len) || !rd_u8(r, &u) || u > ORC_CLASS_ASYMMETRIC)
            return false;
        out->kind = (orc_class_kind)u;
        return true;
    case ORC_INSTR_REMOVE_CLASS:
    case ORC_INSTR_CLEAR_TABLE: return true;
    case ORC_INSTR_RENAME_CLASS: return rd_bytes(r, ORC_MAX_NAME, &out->name, &out->name_len);
    case ORC_INSTR_ADD_PROP:
        if (!rd_col(r, &out->col) || !rd_bytes(r, ORC_MAX_NAME, &out->name, &out->name_len)) return false;
        if (!rd_u8(r, &u) || u < ORC_TYPE_BOOL || u > ORC_TYPE_MIXED) return false;
        out->prop_type = (orc_type)u;
        if (!rd_u8(r, &u) || u > ORC_COLL_DICT) return false;
        out->collection = (orc_collection)u;
        if (!rd_var_max(r, UINT32_MAX, &v)) return false;
        out->prop_flags = (uint32_t)v;
        if (!rd_var_max(r, UINT32_MAX, &v)) return false;
        out->link_table = (uint32_t)v;
        return true;
    case ORC_INSTR_REMOVE_PROP:
    case ORC_INSTR_SET_PRIMARY_KEY: return rd_col(r, &out->col);
    case ORC_INSTR_RENAME_PROP: return rd_col(r, &out->col) && rd_bytes(r, ORC_MAX_NAME, &out->name, &out->name_len);
    case ORC_INSTR_SET_INDEXED:
        if (!rd_col(r, &out->col) || !rd_var_max(r, UINT32_MAX, &v)) return false;
        out->prop_flags = (uint32_t)v;
        return true;
    default: return false;
    }
}

/* Returns the next initial SET of the pending CREATE. */
static int next_initial(orc_changeset_iter *it, orc_instr *out)
{
    rd r = {it->data, it->size, it->pos};
    uint16_t col;
    orc_value value;
    if (!rd_col(&r, &col) || !rd_val(&r, &value)) return bad(it, it->pos, "malformed initial value");
    memset(out, 0, sizeof *out);
    out->op = ORC_INSTR_SET;
    out->flags = ORC_INSTR_INITIAL | (it->create.flags & ORC_INSTR_DERIVED);
    out->table = it->create.table;
    out->key = it->create.key;
    out->has_pk = it->create.has_pk;
    out->pk = it->create.pk;
    out->col = col;
    out->value = value;
    it->pos = r.pos;
    it->pending--;
    return ORC_OK;
}

int orc_changeset_iter_next(orc_changeset_iter *it, orc_instr *out)
{
    if (!it || !out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_changeset_iter_next needs an iterator and an instruction");
    if (it->pending) return next_initial(it, out);
    if (it->pos >= it->size) {
        if (!IT_BARE(it) && IT_LEFT(it) != 0) return bad(it, it->pos, "changeset ends before its last instruction");
        return orc_fail(ORC_ERR_NOT_FOUND, "end of the changeset");
    }
    if (!IT_BARE(it) && IT_LEFT(it) == 0) return bad(it, it->pos, "bytes after the last instruction");

    size_t at = it->pos;
    rd r = {it->data, it->size, it->pos};
    orc_instr in;
    memset(&in, 0, sizeof in);
    uint8_t op, flags;
    uint64_t v;
    if (!rd_u8(&r, &op) || !rd_u8(&r, &flags)) return bad(it, at, "truncated instruction");
    if (!is_object_op(op) && !is_schema_op(op)) return bad(it, at, "unknown instruction op");
    if (flags & ~CS_F_KNOWN) return bad(it, at + 1, "unknown instruction flags");
    if ((flags & CS_F_PK_FIRST) && (op != ORC_INSTR_CREATE || (flags & CS_F_HAS_PK)))
        return bad(it, at + 1, "bad primary key flags");
    in.op = (orc_instr_op)op;
    in.flags = flags & CS_F_DERIVED;
    if (!rd_var_max(&r, UINT32_MAX, &v)) return bad(it, r.pos, "bad table id");
    in.table = (uint32_t)v;
    if (is_schema_op(op)) {
        if (flags & (CS_F_HAS_PK | CS_F_PK_FIRST)) return bad(it, at + 1, "primary key flags on a schema instruction");
        if (!read_schema_body(&r, &in)) return bad(it, r.pos, "malformed schema instruction");
    } else {
        if (!rd_var(&r, &in.key)) return bad(it, r.pos, "bad object key");
        if (flags & CS_F_HAS_PK) {
            size_t pk_at = r.pos;
            if (!rd_val(&r, &in.pk)) return bad(it, pk_at, "malformed primary key");
            in.has_pk = true;
        }
        if (!read_object_body(&r, &in)) return bad(it, r.pos, "malformed instruction");
        if (op == ORC_INSTR_CREATE && (flags & CS_F_PK_FIRST)) {
            /* The primary key is the first initial value: peek at it. */
            rd peek = r;
            uint16_t col;
            if (in.index == 0 || !rd_col(&peek, &col) || !rd_val(&peek, &in.pk))
                return bad(it, r.pos, "malformed primary key value");
            in.has_pk = true;
        }
    }
    it->pos = r.pos;
    uint64_t left = IT_LEFT(it);
    uint32_t bare = IT_BARE(it);
    if (!bare) left--;
    if (op == ORC_INSTR_CREATE) {
        it->create = in;
        it->pending = (uint32_t)in.index;
    }
    IT_LEFT(it) = left;
    IT_BARE(it) = bare;
    *out = in;
    return ORC_OK;
}
