/*
 * row.c — the row record: one object's scalar values (layout in internal.h).
 *
 * Reading a column touches the header, one null bit and one 8-byte slot (and
 * for variable-size types the bytes the slot points at): no other column is
 * decoded. Every offset read from a row is checked against the row's size, so
 * a damaged row is ORC_ERR_CORRUPT, never a read outside it.
 *
 * A row may hold fewer slots than its class has columns (properties added
 * later): those read as the property's default. Removed columns keep their
 * slot until the row is next rewritten, when they become null.
 */
#include "internal.h"

#include <stdlib.h>

static inline size_t slots_offset(uint16_t ncols) { return (4 + ((size_t)ncols + 7) / 8 + 7) & ~(size_t)7; }

static bool inline_type(orc_type t)
{
    return t == ORC_TYPE_BOOL || t == ORC_TYPE_INT || t == ORC_TYPE_FLOAT || t == ORC_TYPE_DOUBLE || t == ORC_TYPE_LINK;
}

void prop_default(const orc_prop *p, orc_value *out)
{
    memset(out, 0, sizeof *out);
    if ((p->flags & ORC_PROP_OPTIONAL) || p->type == ORC_TYPE_MIXED || p->type == ORC_TYPE_LINK) {
        out->type = ORC_TYPE_NULL;
        return;
    }
    out->type = p->type;
    if (p->type == ORC_TYPE_STRING || p->type == ORC_TYPE_BINARY) out->string.data = "";
    if (p->type == ORC_TYPE_DECIMAL) out->decimal.w[1] = 0x3040000000000000ULL; /* 0E0 */
}

static int corrupt(const orc_class *c, uint16_t col, const char *what)
{
    return orc_fail(ORC_ERR_CORRUPT, "a row of class '%s' is damaged (column %u: %s)", c->name ? c->name : "?", col, what);
}

int row_get(const orc_class *c, const uint8_t *row, size_t size, uint16_t col, orc_value *out)
{
    const orc_prop *p = class_prop(c, col);
    if (!p) return orc_fail(ORC_ERR_NOT_FOUND, "class '%s' has no column %u", c->name, col);
    if (p->collection != ORC_COLL_NONE)
        return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' is a collection; use the collection functions", c->name, p->name);
    if (size < 4) return corrupt(c, col, "row shorter than its header");
    uint16_t ncols = ld16(row);
    size_t s = slots_offset(ncols);
    if (s + (size_t)ncols * 8 > size) return corrupt(c, col, "slots beyond the row");
    if (col >= ncols) {
        prop_default(p, out);
        return ORC_OK;
    }
    if (row[4 + col / 8] & (1u << (col % 8))) {
        out->type = ORC_TYPE_NULL;
        return ORC_OK;
    }
    const uint8_t *slot = row + s + (size_t)col * 8;
    out->type = p->type;
    switch (p->type) {
    case ORC_TYPE_BOOL: out->boolean = ld64(slot) != 0; return ORC_OK;
    case ORC_TYPE_INT: out->integer = (int64_t)ld64(slot); return ORC_OK;
    case ORC_TYPE_FLOAT: memcpy(&out->fnum, slot, 4); return ORC_OK;
    case ORC_TYPE_DOUBLE: memcpy(&out->dnum, slot, 8); return ORC_OK;
    case ORC_TYPE_LINK:
        out->link.table = p->link_table;
        out->link.key = ld64(slot);
        return ORC_OK;
    default: break;
    }
    uint32_t off = ld32(slot), len = ld32(slot + 4);
    size_t var_start = s + (size_t)ncols * 8;
    if (off < var_start || off > size || len > size - off) return corrupt(c, col, "value outside the row");
    const uint8_t *v = row + off;
    switch (p->type) {
    case ORC_TYPE_STRING:
    case ORC_TYPE_BINARY:
        out->string.data = (const char *)v;
        out->string.size = len;
        return ORC_OK;
    case ORC_TYPE_TIMESTAMP:
        if (len != 12) return corrupt(c, col, "timestamp size");
        out->timestamp.seconds = (int64_t)ld64(v);
        out->timestamp.nanoseconds = (int32_t)ld32(v + 8);
        return ORC_OK;
    case ORC_TYPE_DECIMAL:
        if (len != 16) return corrupt(c, col, "decimal size");
        out->decimal.w[0] = ld64(v);
        out->decimal.w[1] = ld64(v + 8);
        return ORC_OK;
    case ORC_TYPE_OBJECT_ID:
        if (len != 12) return corrupt(c, col, "ObjectId size");
        memcpy(out->object_id, v, 12);
        return ORC_OK;
    case ORC_TYPE_UUID:
        if (len != 16) return corrupt(c, col, "UUID size");
        memcpy(out->uuid, v, 16);
        return ORC_OK;
    case ORC_TYPE_MIXED: {
        size_t pos = 0;
        if (val_decode(v, len, &pos, out) || pos != len || out->type == ORC_TYPE_NULL)
            return corrupt(c, col, "mixed value");
        return ORC_OK;
    }
    default: return corrupt(c, col, "unknown type");
    }
}

/* The bytes a variable-size value occupies in the variable area. */
static int var_put(orc_buf *b, const orc_prop *p, const orc_value *v)
{
    switch (p->type) {
    case ORC_TYPE_STRING:
    case ORC_TYPE_BINARY: return buf_put(b, v->string.data, v->string.size);
    case ORC_TYPE_TIMESTAMP: {
        int rc = buf_put_u64(b, (uint64_t)v->timestamp.seconds);
        return rc ? rc : buf_put_u32(b, (uint32_t)v->timestamp.nanoseconds);
    }
    case ORC_TYPE_DECIMAL: {
        int rc = buf_put_u64(b, v->decimal.w[0]);
        return rc ? rc : buf_put_u64(b, v->decimal.w[1]);
    }
    case ORC_TYPE_OBJECT_ID: return buf_put(b, v->object_id, 12);
    case ORC_TYPE_UUID: return buf_put(b, v->uuid, 16);
    case ORC_TYPE_MIXED: return val_encode(b, v);
    default: return orc_fail(ORC_ERR_INTERNAL, "no variable encoding for type %d", (int)p->type);
    }
}

int row_build(const orc_class *c, const orc_value *vals, orc_buf *out)
{
    uint16_t ncols = c->ncols;
    size_t s = slots_offset(ncols);
    size_t fixed = s + (size_t)ncols * 8;
    out->size = 0;
    int rc = buf_reserve(out, fixed + 64);
    if (rc) return rc;
    memset(out->data, 0, fixed);
    st16(out->data, ncols);
    out->size = fixed;
    for (uint16_t col = 0; col < ncols; col++) {
        const orc_prop *p = class_prop(c, col);
        const orc_value *v = vals ? &vals[col] : NULL;
        if (!p || p->collection != ORC_COLL_NONE || !v || v->type == ORC_TYPE_NULL) {
            out->data[4 + col / 8] |= (uint8_t)(1u << (col % 8));
            continue;
        }
        uint8_t *slot = out->data + s + (size_t)col * 8;
        if (inline_type(p->type)) {
            uint64_t bits = 0;
            switch (p->type) {
            case ORC_TYPE_BOOL: bits = v->boolean ? 1 : 0; break;
            case ORC_TYPE_INT: bits = (uint64_t)v->integer; break;
            case ORC_TYPE_FLOAT: memcpy(&bits, &v->fnum, 4); break;
            case ORC_TYPE_DOUBLE: memcpy(&bits, &v->dnum, 8); break;
            case ORC_TYPE_LINK: bits = v->link.key; break;
            default: break;
            }
            st64(slot, bits);
            continue;
        }
        size_t off = out->size;
        if ((rc = var_put(out, p, v))) return rc;
        if (out->size > UINT32_MAX) return orc_fail(ORC_ERR_INVALID_ARG, "a row of class '%s' exceeds 4 GiB", c->name);
        slot = out->data + s + (size_t)col * 8; /* the buffer may have moved */
        st32(slot, (uint32_t)off);
        st32(slot + 4, (uint32_t)(out->size - off));
    }
    return ORC_OK;
}

int row_update(const orc_class *c, const uint8_t *row, size_t size, const uint16_t *cols, const orc_value *vals,
               size_t n, orc_buf *out)
{
    orc_value local[32];
    orc_value *all = c->ncols <= 32 ? local : malloc((size_t)c->ncols * sizeof *all);
    if (!all) return orc_fail(ORC_ERR_NOMEM, "allocating a row update");
    int rc = ORC_OK;
    for (uint16_t col = 0; col < c->ncols && !rc; col++) {
        const orc_prop *p = class_prop(c, col);
        if (!p || p->collection != ORC_COLL_NONE) {
            all[col].type = ORC_TYPE_NULL;
            continue;
        }
        rc = row_get(c, row, size, col, &all[col]);
    }
    for (size_t i = 0; i < n && !rc; i++) all[cols[i]] = vals[i];
    /* `row` lives in the map; row_build copies every value into `out` before the caller replaces it. */
    if (!rc) rc = row_build(c, all, out);
    if (all != local) free(all);
    return rc;
}
