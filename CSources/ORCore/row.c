/*
 * row.c — the row record: one object's scalar values (layout in row.h).
 *
 * Fields have the width their type needs (a bool is one byte, an ObjectId
 * twelve inline), and strings are only an end offset into the variable area,
 * so a row is close to the size of its data: scans touch fewer pages. Reading
 * a column touches the header, one null bit, its field and, for a variable
 * column, the end of the variable column before it: no other column is
 * decoded. Every offset read from a row is checked against the row's size, so
 * a damaged row is ORC_ERR_CORRUPT, never a read outside it.
 *
 * A row may hold fewer columns than its class has (properties added later):
 * those read as the property's default. Removed columns keep their field
 * until the row is next rewritten, when they become null.
 */
#include "row.h"

#include <stdlib.h>

static bool var_type(orc_type t) { return t == ORC_TYPE_STRING || t == ORC_TYPE_BINARY || t == ORC_TYPE_MIXED; }

static uint32_t field_width(const orc_prop *p, bool wide)
{
    if (p->collection != ORC_COLL_NONE) return 0;
    switch (p->type) {
    case ORC_TYPE_BOOL: return 1;
    case ORC_TYPE_FLOAT: return 4;
    case ORC_TYPE_INT:
    case ORC_TYPE_DOUBLE:
    case ORC_TYPE_LINK: return 8;
    case ORC_TYPE_TIMESTAMP:
    case ORC_TYPE_OBJECT_ID: return 12;
    case ORC_TYPE_DECIMAL:
    case ORC_TYPE_UUID: return 16;
    case ORC_TYPE_STRING:
    case ORC_TYPE_BINARY:
    case ORC_TYPE_MIXED: return wide ? 4 : 2;
    default: return 0;
    }
}

int row_layout(orc_class *c)
{
    free(c->row_off);
    free(c->row_prev_var);
    size_t n = c->ncols;
    c->row_off = malloc(2 * (n + 1) * sizeof *c->row_off);
    c->row_prev_var = malloc((n ? n : 1) * sizeof *c->row_prev_var);
    if (!c->row_off || !c->row_prev_var) return ORC_ERR_NOMEM;
    for (int wide = 0; wide < 2; wide++) {
        uint32_t *off = c->row_off + wide * (n + 1);
        uint32_t at = 0;
        for (size_t col = 0; col < n; col++) {
            off[col] = at;
            at += field_width(&c->props[col], wide);
        }
        off[n] = at;
    }
    int32_t prev = -1;
    for (size_t col = 0; col < n; col++) {
        c->row_prev_var[col] = prev;
        const orc_prop *p = &c->props[col];
        if (p->collection == ORC_COLL_NONE && var_type(p->type)) prev = (int32_t)col;
    }
    return ORC_OK;
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

/* The end of a variable column's bytes, relative to the variable area. */
static uint32_t var_end(const uint8_t *field, bool wide) { return wide ? ld32(field) : ld16(field); }

int row_get(const orc_class *c, const uint8_t *row, size_t size, uint16_t col, orc_value *out)
{
    const orc_prop *p = class_prop(c, col);
    if (!p) return orc_fail(ORC_ERR_NOT_FOUND, "class '%s' has no column %u", c->name, col);
    if (p->collection != ORC_COLL_NONE)
        return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' is a collection; use the collection functions", c->name, p->name);
    if (size < 4) return corrupt(c, col, "row shorter than its header");
    uint16_t k = ld16(row);
    uint16_t flags = ld16(row + 2);
    if (k > c->ncols || (flags & ~1u)) return corrupt(c, col, "header");
    bool wide = flags & 1;
    const uint32_t *off = c->row_off + (wide ? c->ncols + 1 : 0);
    size_t fixed = 4 + ((size_t)k + 7) / 8;
    size_t var = fixed + off[k]; /* off[k]: the widths of the first k columns */
    if (var > size) return corrupt(c, col, "fields beyond the row");
    if (col >= k) {
        prop_default(p, out);
        return ORC_OK;
    }
    if (row[4 + col / 8] & (1u << (col % 8))) {
        out->type = ORC_TYPE_NULL;
        return ORC_OK;
    }
    const uint8_t *f = row + fixed + off[col];
    out->type = p->type;
    switch (p->type) {
    case ORC_TYPE_BOOL: out->boolean = *f != 0; return ORC_OK;
    case ORC_TYPE_INT: out->integer = (int64_t)ld64(f); return ORC_OK;
    case ORC_TYPE_FLOAT: memcpy(&out->fnum, f, 4); return ORC_OK;
    case ORC_TYPE_DOUBLE: memcpy(&out->dnum, f, 8); return ORC_OK;
    case ORC_TYPE_LINK:
        out->link.table = p->link_table;
        out->link.key = ld64(f);
        return ORC_OK;
    case ORC_TYPE_TIMESTAMP:
        out->timestamp.seconds = (int64_t)ld64(f);
        out->timestamp.nanoseconds = (int32_t)ld32(f + 8);
        return ORC_OK;
    case ORC_TYPE_DECIMAL:
        out->decimal.w[0] = ld64(f);
        out->decimal.w[1] = ld64(f + 8);
        return ORC_OK;
    case ORC_TYPE_OBJECT_ID: memcpy(out->object_id, f, 12); return ORC_OK;
    case ORC_TYPE_UUID: memcpy(out->uuid, f, 16); return ORC_OK;
    default: break;
    }
    int32_t prev = c->row_prev_var[col];
    uint32_t start = prev < 0 ? 0 : var_end(row + fixed + off[prev], wide);
    uint32_t end = var_end(f, wide);
    if (start > end || end > size - var) return corrupt(c, col, "value outside the row");
    const uint8_t *v = row + var + start;
    uint32_t len = end - start;
    if (p->type == ORC_TYPE_MIXED) {
        size_t pos = 0;
        if (val_decode(v, len, &pos, out) || pos != len || out->type == ORC_TYPE_NULL)
            return corrupt(c, col, "mixed value");
        return ORC_OK;
    }
    out->string.data = (const char *)v;
    out->string.size = len;
    return ORC_OK;
}

static size_t var_size(const orc_prop *p, const orc_value *v)
{
    if (!p || p->collection != ORC_COLL_NONE || !var_type(p->type) || !v || v->type == ORC_TYPE_NULL) return 0;
    return p->type == ORC_TYPE_MIXED ? val_encoded_size(v) : v->string.size;
}

int row_build(const orc_class *c, const orc_value *vals, orc_buf *out)
{
    uint16_t k = c->ncols;
    size_t total_var = 0;
    for (uint16_t col = 0; col < k; col++) total_var += var_size(class_prop(c, col), vals ? &vals[col] : NULL);
    if (total_var > UINT32_MAX - 65536) return orc_fail(ORC_ERR_INVALID_ARG, "a row of class '%s' exceeds 4 GiB", c->name);
    bool wide = total_var > UINT16_MAX;
    const uint32_t *off = c->row_off + (wide ? c->ncols + 1 : 0);
    size_t fixed = 4 + ((size_t)k + 7) / 8;
    size_t var = fixed + off[k];
    out->size = 0;
    int rc = buf_reserve(out, var + total_var);
    if (rc) return rc;
    memset(out->data, 0, var);
    st16(out->data, k);
    st16(out->data + 2, wide ? 1 : 0);
    out->size = var;
    for (uint16_t col = 0; col < k; col++) {
        const orc_prop *p = &c->props[col];
        const orc_value *v = vals ? &vals[col] : NULL;
        bool live = p->name && p->collection == ORC_COLL_NONE;
        uint8_t *f = out->data + fixed + off[col];
        if (!live || !v || v->type == ORC_TYPE_NULL) {
            out->data[4 + col / 8] |= (uint8_t)(1u << (col % 8));
            /* A null variable column still ends where the previous one did. */
            if (p->collection == ORC_COLL_NONE && var_type(p->type)) {
                uint32_t end = (uint32_t)(out->size - var);
                if (wide) st32(f, end);
                else st16(f, (uint16_t)end);
            }
            continue;
        }
        switch (p->type) {
        case ORC_TYPE_BOOL: *f = v->boolean ? 1 : 0; break;
        case ORC_TYPE_INT: st64(f, (uint64_t)v->integer); break;
        case ORC_TYPE_FLOAT: memcpy(f, &v->fnum, 4); break;
        case ORC_TYPE_DOUBLE: memcpy(f, &v->dnum, 8); break;
        case ORC_TYPE_LINK: st64(f, v->link.key); break;
        case ORC_TYPE_TIMESTAMP:
            st64(f, (uint64_t)v->timestamp.seconds);
            st32(f + 8, (uint32_t)v->timestamp.nanoseconds);
            break;
        case ORC_TYPE_DECIMAL:
            st64(f, v->decimal.w[0]);
            st64(f + 8, v->decimal.w[1]);
            break;
        case ORC_TYPE_OBJECT_ID: memcpy(f, v->object_id, 12); break;
        case ORC_TYPE_UUID: memcpy(f, v->uuid, 16); break;
        case ORC_TYPE_STRING:
        case ORC_TYPE_BINARY:
        case ORC_TYPE_MIXED: {
            /* Reserved above: the buffer does not move, so `f` stays valid. */
            if (p->type == ORC_TYPE_MIXED) {
                if ((rc = val_encode(out, v))) return rc;
            } else if (v->string.size) {
                memcpy(out->data + out->size, v->string.data, v->string.size);
                out->size += v->string.size;
            }
            uint32_t end = (uint32_t)(out->size - var);
            if (wide) st32(f, end);
            else st16(f, (uint16_t)end);
            break;
        }
        default: return orc_fail(ORC_ERR_INTERNAL, "no row field for type %d", (int)p->type);
        }
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
