/*
 * schema.c — the stored schema: encoding and the in-memory form (the lookups a
 * transaction makes are in txn.h, the public lookups and changes in schema_api.c).
 *
 * A transaction reads one immutable orc_schema (shared, reference counted).
 * A write transaction that changes the schema first clones it (copy on
 * write) and bumps its generation; the commit stores it and publishes it to
 * the environment's cache. Table ids and column ids are never reused: a
 * removed class or property keeps its slot with a NULL name.
 *
 * BLOB ("orc.schema" in "meta"), little-endian:
 *   u32 magic 'ORS1' | u64 generation | u32 ntables
 *   per table id 1 ... ntables:
 *     u8 live
 *     live:  u8 kind | i32 pk_col | u16 name_len | name | u16 ncols
 *            per column: u8 live | (live: u16 name_len | name) | u8 type | u8 collection
 *              live: u32 flags | u32 link_table
 *            (removed columns keep their type: old rows still hold their fields)
 */
#include "row.h"
#include "schema.h"

#include <stdlib.h>

#define SCHEMA_MAGIC 0x3153524fu /* "ORS1" */

/* ---- encoding ------------------------------------------------------------------ */

typedef struct reader {
    const uint8_t *p;
    size_t n, pos;
    bool bad;
} reader;

static const uint8_t *take(reader *r, size_t n)
{
    if (r->bad || n > r->n - r->pos) {
        r->bad = true;
        return NULL;
    }
    const uint8_t *p = r->p + r->pos;
    r->pos += n;
    return p;
}
static uint8_t rd8(reader *r) { const uint8_t *p = take(r, 1); return p ? *p : 0; }
static uint16_t rd16(reader *r) { const uint8_t *p = take(r, 2); return p ? ld16(p) : 0; }
static uint32_t rd32(reader *r) { const uint8_t *p = take(r, 4); return p ? ld32(p) : 0; }
static uint64_t rd64(reader *r) { const uint8_t *p = take(r, 8); return p ? ld64(p) : 0; }

static char *rdname(reader *r)
{
    uint16_t n = rd16(r);
    const uint8_t *p = take(r, n);
    if (!p || n == 0 || n > ORC_MAX_NAME || memchr(p, 0, n)) {
        r->bad = true;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        r->bad = true;
        return NULL;
    }
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

void class_free(orc_class *c)
{
    free(c->name);
    /* A damaged record can fail after ncols is read and before props is allocated. */
    if (c->props)
        for (uint16_t i = 0; i < c->ncols; i++) free(c->props[i].name);
    free(c->props);
    free(c->row_off);
    free(c->row_prev_var);
}

static void schema_free(orc_schema *s)
{
    if (s->classes)
        for (uint32_t t = 1; t <= s->ntables; t++) class_free(&s->classes[t]);
    free(s->classes);
    free(s);
}

/* Derived state: counts, flags and the row layout (row.c). Fails only for memory. */
int class_summarise(orc_class *c)
{
    c->live_props = 0;
    c->has_index = c->has_links = false;
    for (uint16_t i = 0; i < c->ncols; i++) {
        const orc_prop *p = &c->props[i];
        if (!p->name) continue;
        c->live_props++;
        if (p->flags & ORC_PROP_INDEXED) c->has_index = true;
        if (prop_may_link(p)) c->has_links = true;
    }
    return row_layout(c);
}

int schema_decode(const uint8_t *data, size_t size, orc_schema **out)
{
    orc_schema *s = calloc(1, sizeof *s);
    if (!s) return orc_fail(ORC_ERR_NOMEM, "allocating a schema");
    s->refs = 1;
    if (!data) {
        s->classes = calloc(1, sizeof *s->classes);
        if (!s->classes) {
            free(s);
            return orc_fail(ORC_ERR_NOMEM, "allocating a schema");
        }
        *out = s;
        return ORC_OK;
    }
    reader r = {data, size, 0, false};
    if (rd32(&r) != SCHEMA_MAGIC) {
        free(s);
        return orc_fail(ORC_ERR_SCHEMA, "the stored schema has an unknown format");
    }
    s->gen = rd64(&r);
    s->ntables = rd32(&r);
    if (r.bad || s->ntables > ORC_MAX_TABLES) goto bad;
    s->classes = calloc((size_t)s->ntables + 1, sizeof *s->classes);
    if (!s->classes) {
        free(s);
        return orc_fail(ORC_ERR_NOMEM, "allocating a schema");
    }
    for (uint32_t t = 1; t <= s->ntables && !r.bad; t++) {
        orc_class *c = &s->classes[t];
        c->table = t;
        c->pk_col = -1;
        if (!rd8(&r)) continue;
        c->kind = (orc_class_kind)rd8(&r);
        c->pk_col = (int32_t)rd32(&r);
        c->name = rdname(&r);
        c->ncols = rd16(&r);
        if (r.bad || c->kind > ORC_CLASS_ASYMMETRIC || c->pk_col < -1 || c->pk_col >= (int32_t)c->ncols) goto bad;
        c->props = calloc(c->ncols ? c->ncols : 1, sizeof *c->props);
        if (!c->props) goto bad;
        for (uint16_t i = 0; i < c->ncols && !r.bad; i++) {
            orc_prop *p = &c->props[i];
            p->col = i;
            bool live = rd8(&r);
            if (live) p->name = rdname(&r);
            /* Removed columns keep type and collection: old rows still hold their fields. */
            p->type = (orc_type)rd8(&r);
            p->collection = (orc_collection)rd8(&r);
            if (!live) {
                if (p->type < ORC_TYPE_BOOL || p->type > ORC_TYPE_MIXED || p->collection > ORC_COLL_DICT) r.bad = true;
                continue;
            }
            p->flags = rd32(&r);
            p->link_table = rd32(&r);
            if (r.bad || p->type < ORC_TYPE_BOOL || p->type > ORC_TYPE_MIXED || p->collection > ORC_COLL_DICT ||
                (p->type == ORC_TYPE_LINK && (p->link_table == 0 || p->link_table > s->ntables)))
                goto bad;
        }
        if (!r.bad && c->pk_col >= 0 && !c->props[c->pk_col].name) goto bad;
        if (!r.bad && class_summarise(c)) {
            schema_free(s);
            return orc_fail(ORC_ERR_NOMEM, "allocating a schema");
        }
    }
    if (r.bad || r.pos != size) goto bad;
    /* Link targets must be live classes. */
    for (uint32_t t = 1; t <= s->ntables; t++) {
        orc_class *c = &s->classes[t];
        if (!c->name) continue;
        for (uint16_t i = 0; i < c->ncols; i++)
            if (c->props[i].name && c->props[i].type == ORC_TYPE_LINK && !s->classes[c->props[i].link_table].name)
                goto bad;
    }
    *out = s;
    return ORC_OK;
bad:
    schema_free(s);
    return orc_fail(ORC_ERR_SCHEMA, "the stored schema is damaged (at byte %zu of %zu)", r.pos, size);
}

static int put_name(orc_buf *b, const char *name)
{
    size_t n = strlen(name);
    int rc = buf_put_u16(b, (uint16_t)n);
    return rc ? rc : buf_put(b, name, n);
}

int schema_encode(const orc_schema *s, orc_buf *b)
{
    int rc = buf_put_u32(b, SCHEMA_MAGIC);
    if (!rc) rc = buf_put_u64(b, s->gen);
    if (!rc) rc = buf_put_u32(b, s->ntables);
    for (uint32_t t = 1; !rc && t <= s->ntables; t++) {
        const orc_class *c = &s->classes[t];
        if (!c->name) {
            rc = buf_put_u8(b, 0);
            continue;
        }
        rc = buf_put_u8(b, 1);
        if (!rc) rc = buf_put_u8(b, (uint8_t)c->kind);
        if (!rc) rc = buf_put_u32(b, (uint32_t)c->pk_col);
        if (!rc) rc = put_name(b, c->name);
        if (!rc) rc = buf_put_u16(b, c->ncols);
        for (uint16_t i = 0; !rc && i < c->ncols; i++) {
            const orc_prop *p = &c->props[i];
            rc = buf_put_u8(b, p->name != NULL);
            if (!rc && p->name) rc = put_name(b, p->name);
            if (!rc) rc = buf_put_u8(b, (uint8_t)p->type);
            if (!rc) rc = buf_put_u8(b, (uint8_t)p->collection);
            if (rc || !p->name) continue;
            rc = buf_put_u32(b, p->flags);
            if (!rc) rc = buf_put_u32(b, p->link_table);
        }
    }
    return rc;
}

orc_schema *schema_retain(orc_schema *s)
{
    __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
    return s;
}

void schema_release(orc_schema *s)
{
    if (s && __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0) schema_free(s);
}

int schema_clone(const orc_schema *s, orc_schema **out)
{
    orc_buf b = {0};
    int rc = schema_encode(s, &b);
    if (!rc) rc = schema_decode(b.data, b.size, out);
    buf_free(&b);
    return rc;
}
