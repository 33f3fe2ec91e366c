/*
 * collection.c — lists, sets and dictionaries: the blob, the cache, reads.
 *
 * OWNS
 *   The "coll" database: one record per non-empty collection property of an
 *   object. This file decodes, checks, builds and stores the records and
 *   answers the reads (orc_coll_size / get / find, orc_dict_key_at / get,
 *   coll_load / coll_elem for the query engine and the checker).
 *   collection_write.c has the mutations (orc_list_*, orc_set_*, orc_dict_*,
 *   orc_coll_clear) and the hooks object.c calls when an object is erased
 *   (coll_erase_object), a link target is erased (coll_remove_links) or an
 *   embedded element is created (coll_attach). collection_impl.h joins them.
 *
 * RECORD
 *   key    u32 BE table | u64 BE object key | u16 BE column     (14 bytes)
 *   value  the collection blob:
 *
 *     offset   size   field
 *     0        4      u32 LE count n (n >= 1: an empty collection has no record)
 *     4        4*n    u32 LE offset of element i from the blob start
 *     4+4n     ...    the elements, back to back in index order
 *
 *   element: list, set   one tagged value (val_encode)
 *            dictionary  a tagged STRING key, then a tagged value
 *
 * INVARIANTS
 *   1. Element i occupies exactly [off[i], off[i+1]) (the last one up to the
 *      blob's end): off[0] = 4+4n and the offsets strictly increase. Loading
 *      checks this once per blob, so every element access afterwards is O(1)
 *      and in bounds, and decoding an element must consume its span exactly.
 *   2. Set elements strictly increase in orc_value_compare order; dictionary
 *      keys strictly increase in byte order (a prefix sorts first).
 *   3. Elements fit the property: its type, null when it is optional, any
 *      value type for mixed; links name the property's target table. Link
 *      dictionaries may always hold null (an erased target leaves null there,
 *      as in Realm).
 *   4. For every link element (link or mixed collections) the "blink" record
 *      (target, origin table, column, origin key) counts its occurrences.
 *   5. A collection owns the embedded objects it links to: removing or
 *      replacing the element erases the object, after the element and its
 *      backlink are gone (so the object's erasure finds nothing to unlink).
 *
 * WHY THIS SHAPE
 *   One record per collection keeps a read to one lookup. Swift reads a List
 *   element by element, so the last blob loaded stays cached in the
 *   transaction, keyed by owner, column, generation and version: walking a
 *   list costs O(1) per element. A write rewrites the whole record (O(n)); the
 *   new blob is built in a buffer first, because the old one lives in pages
 *   the put may reuse. For the same reason no pointer into the map is held
 *   across a write: whatever a mutation needs from the old blob (link
 *   targets, a logged value) is taken before the first write.
 *
 * The order in which a mutation validates, logs and writes is described at
 * the top of collection_write.c.
 */
#include "collection_impl.h"

#include <inttypes.h>
#include <stdlib.h>

#define COLL_KEY_SIZE 14
/* Dictionary keys are quoted in messages up to this many bytes. */
#define KEY_QUOTE 64

struct orc_coll_cache {
    bool valid;
    bool owner_checked;   /* the owning object's existence was checked for this entry */
    uint32_t table;
    uint64_t key;
    uint16_t col;
    uint64_t generation;
    uint64_t version;
    const uint8_t *blob;  /* into the map; NULL for an empty collection */
    size_t size;
    uint32_t count;
    orc_buf build;        /* reused: the blob being written */
    orc_buf enc;          /* reused: one encoded element */
};

/* ---- names for messages ------------------------------------------------------ */

static const char *type_name(orc_type t)
{
    static const char *names[] = {"null", "bool", "int", "float", "double", "string", "binary",
                                  "timestamp", "decimal", "objectId", "uuid", "link", "mixed"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "unknown";
}

static const char *kind_name(orc_collection k)
{
    switch (k) {
    case ORC_COLL_LIST: return "a list";
    case ORC_COLL_SET: return "a set";
    case ORC_COLL_DICT: return "a dictionary";
    default: return "not a collection";
    }
}

static int quote_len(size_t n) { return n > KEY_QUOTE ? KEY_QUOTE : (int)n; }

/* ---- the cache and its buffers ----------------------------------------------- */

static orc_coll_cache *cache_of(orc_txn *txn)
{
    if (!txn->coll_cache) txn->coll_cache = calloc(1, sizeof(orc_coll_cache));
    return txn->coll_cache;
}

void coll_cache_free(orc_txn *txn)
{
    if (!txn || !txn->coll_cache) return;
    buf_free(&txn->coll_cache->build);
    buf_free(&txn->coll_cache->enc);
    free(txn->coll_cache);
    txn->coll_cache = NULL;
}

static bool cache_hit(const orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, bool need_owner)
{
    const orc_coll_cache *k = txn->coll_cache;
    return k && k->valid && k->table == table && k->key == key && k->col == col &&
           k->generation == txn->generation && k->version == txn->version &&
           (k->owner_checked || !need_owner);
}

/* ---- blob decoding ------------------------------------------------------------- */

static void coll_key_make(uint8_t k[COLL_KEY_SIZE], uint32_t table, uint64_t key, uint16_t col)
{
    st32be(k, table);
    st64be(k + 4, key);
    st16be(k + 12, col);
}

int coll_corrupt(const orc_class *cls, const orc_prop *p, uint64_t key, const char *why, uint32_t i)
{
    return orc_fail(ORC_ERR_CORRUPT, "collection '%s.%s' of object %" PRIu64 " is damaged: %s (element %u)",
                    cls->name, p->name, key, why, i);
}

/* Checks invariant 1 of a stored blob; NULL when sound, else the reason (*bad: the element). */
static const char *blob_parse(const uint8_t *data, size_t size, collref *out, uint32_t *bad)
{
    *bad = 0;
    if (size < 4) return "the blob is shorter than its count";
    uint32_t n = ld32(data);
    if (n == 0) {
        /* Never written (an empty collection has no record) but harmless: read as empty. */
        out->blob = NULL;
        out->size = 0;
        out->count = 0;
        return NULL;
    }
    uint64_t header = 4 + 4 * (uint64_t)n;
    if (header + n > size) return "the count is too large for the blob's size";
    uint32_t prev = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t off = ld32(data + 4 + 4 * (size_t)i);
        if (i == 0 ? off != header : off <= prev) {
            *bad = i;
            return "an offset is out of order";
        }
        if (off >= size) {
            *bad = i;
            return "an offset points past the blob";
        }
        prev = off;
    }
    out->blob = data;
    out->size = size;
    out->count = n;
    return NULL;
}

void coll_bounds(const collref *c, uint32_t i, size_t *start, size_t *end)
{
    *start = ld32(c->blob + 4 + 4 * (size_t)i);
    *end = i + 1 < c->count ? ld32(c->blob + 8 + 4 * (size_t)i) : c->size;
}

/* Whether a decoded element fits its property (invariant 3). */
static bool stored_fits(const orc_prop *p, const orc_value *v)
{
    if (v->type == ORC_TYPE_NULL)
        return p->type == ORC_TYPE_MIXED || (p->flags & ORC_PROP_OPTIONAL) ||
               (p->type == ORC_TYPE_LINK && p->collection == ORC_COLL_DICT);
    if (p->type == ORC_TYPE_MIXED) return (unsigned)v->type <= ORC_TYPE_LINK;
    if (v->type != p->type) return false;
    return v->type != ORC_TYPE_LINK || v->link.table == p->link_table;
}

int coll_elem(const collref *c, uint32_t i, orc_value *dkey, orc_value *value)
{
    if (i >= c->count)
        return orc_fail(ORC_ERR_OUT_OF_RANGE, "index %u is past the end of a collection of %u elements", i,
                        c->count);
    size_t start, end, pos;
    coll_bounds(c, i, &start, &end);
    pos = start;
    orc_value k = {.type = ORC_TYPE_NULL}, v;
    if (c->prop && c->prop->collection == ORC_COLL_DICT) {
        if (val_decode(c->blob, end, &pos, &k) != ORC_OK || k.type != ORC_TYPE_STRING)
            return orc_fail(ORC_ERR_CORRUPT, "a dictionary element's key is damaged (element %u at offset %zu)", i,
                            start);
    }
    if (val_decode(c->blob, end, &pos, &v) != ORC_OK || pos != end)
        return orc_fail(ORC_ERR_CORRUPT, "a collection element is damaged (element %u at offset %zu)", i, start);
    if (c->prop && !stored_fits(c->prop, &v))
        return orc_fail(ORC_ERR_CORRUPT, "collection element %u is a %s, which property '%s' cannot hold", i,
                        type_name(v.type), c->prop->name);
    if (dkey) *dkey = k;
    if (value) *value = v;
    return ORC_OK;
}

/* ---- loading ------------------------------------------------------------------- */

int coll_resolve(orc_txn *txn, uint32_t table, uint16_t col, orc_collection want, const orc_class **cls_out,
                        const orc_prop **prop_out)
{
    int rc = ORC_ERR_NOT_FOUND;
    const orc_class *c = schema_class_req(txn, table, &rc);
    if (!c) return rc ? rc : orc_fail(ORC_ERR_NOT_FOUND, "no class with table id %u", table);
    const orc_prop *p = class_prop(c, col);
    if (!p) return orc_fail(ORC_ERR_NOT_FOUND, "class '%s' has no property with column %u", c->name, col);
    if (p->collection == ORC_COLL_NONE || (want != ORC_COLL_NONE && p->collection != want)) {
        if (want == ORC_COLL_NONE)
            return orc_fail(ORC_ERR_WRONG_TYPE, "property '%s.%s' is not a collection", c->name, p->name);
        return orc_fail(ORC_ERR_WRONG_TYPE, "property '%s.%s' is %s, not %s", c->name, p->name,
                        kind_name(p->collection), kind_name(want));
    }
    *cls_out = c;
    *prop_out = p;
    return ORC_OK;
}

/* Loads (cls, key, p) into *out, through the cache; `need_owner` checks that the object exists. */
int coll_load_prop(orc_txn *txn, const orc_class *cls, const orc_prop *p, uint64_t key, bool need_owner, collref *out)
{
    out->prop = p;
    if (cache_hit(txn, cls->table, key, p->col, need_owner)) {
        const orc_coll_cache *k = txn->coll_cache;
        out->blob = k->blob;
        out->size = k->size;
        out->count = k->count;
        return ORC_OK;
    }
    if (!txn->mdb) return orc_fail(ORC_ERR_BAD_TXN, "the transaction has ended");
    if (need_owner) {
        const uint8_t *row;
        size_t rsize;
        int rc = obj_row(txn, cls->table, key, &row, &rsize);
        if (rc == ORC_ERR_NOT_FOUND)
            return orc_fail(ORC_ERR_NOT_FOUND, "no object with key %" PRIu64 " in class '%s'", key, cls->name);
        if (rc) return rc;
    }
    uint8_t kb[COLL_KEY_SIZE];
    coll_key_make(kb, cls->table, key, p->col);
    MDB_val mk = {COLL_KEY_SIZE, kb}, mv;
    int mrc = mdb_get(txn->mdb, txn->core->dbi_coll, &mk, &mv);
    out->blob = NULL;
    out->size = 0;
    out->count = 0;
    if (mrc && mrc != MDB_NOTFOUND) return orc_fail_mdb(mrc, "reading a collection");
    if (!mrc) {
        uint32_t bad;
        const char *why = blob_parse(mv.mv_data, mv.mv_size, out, &bad);
        if (why) return coll_corrupt(cls, p, key, why, bad);
    }
    orc_coll_cache *k = cache_of(txn);
    if (k) {
        bool same = k->valid && k->table == cls->table && k->key == key && k->col == p->col &&
                    k->generation == txn->generation && k->version == txn->version;
        k->owner_checked = need_owner || (same && k->owner_checked);
        k->valid = true;
        k->table = cls->table;
        k->key = key;
        k->col = p->col;
        k->generation = txn->generation;
        k->version = txn->version;
        k->blob = out->blob;
        k->size = out->size;
        k->count = out->count;
    }
    return ORC_OK;
}

int coll_load(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, collref *out)
{
    const orc_class *cls = NULL;
    const orc_prop *p = NULL;
    int rc = coll_resolve(txn, table, col, ORC_COLL_NONE, &cls, &p);
    return rc ? rc : coll_load_prop(txn, cls, p, key, false, out);
}

int coll_open(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, orc_collection want, bool write,
                     site *s)
{
    if (!txn) return orc_fail(ORC_ERR_INVALID_ARG, "no transaction");
    int rc = write ? txn_require_write(txn)
             : txn->failed ? orc_fail(ORC_ERR_BAD_TXN, "the transaction failed earlier; only abort is possible")
                           : ORC_OK;
    if (!rc) rc = coll_resolve(txn, table, col, want, &s->cls, &s->prop);
    if (!rc) rc = coll_load_prop(txn, s->cls, s->prop, key, true, &s->c);
    s->key = key;
    return rc;
}

int coll_out_of_range(const site *s, size_t i)
{
    return orc_fail(ORC_ERR_OUT_OF_RANGE, "index %zu is out of range for '%s.%s' of object %" PRIu64 " (size %u)", i,
                    s->cls->name, s->prop->name, s->key, s->c.count);
}

/* ---- values -------------------------------------------------------------------- */

bool coll_is_embedded(orc_txn *txn, uint32_t table)
{
    const orc_class *t = schema_class(txn, table);
    return t && t->kind == ORC_CLASS_EMBEDDED;
}

/*
 * Checks that `v` may be an element of `p`. Writes also check nullability,
 * the link target's existence and that it is not embedded; a lookup only
 * needs the type to be comparable (a null that cannot be stored is simply
 * absent).
 */
int coll_check_value(orc_txn *txn, const site *s, const orc_value *v, bool write)
{
    const orc_prop *p = s->prop;
    const char *cn = s->cls->name, *pn = p->name;
    if (!v) return orc_fail(ORC_ERR_INVALID_ARG, "no value given for '%s.%s'", cn, pn);
    if ((unsigned)v->type > ORC_TYPE_LINK)
        return orc_fail(ORC_ERR_WRONG_TYPE, "a value of type %s (%d) cannot be an element of '%s.%s'",
                        type_name(v->type), (int)v->type, cn, pn);
    if (v->type == ORC_TYPE_NULL) {
        bool nullable = p->type == ORC_TYPE_MIXED || (p->flags & ORC_PROP_OPTIONAL) ||
                        (p->type == ORC_TYPE_LINK && p->collection == ORC_COLL_DICT);
        if (!nullable && write) return orc_fail(ORC_ERR_NOT_NULLABLE, "'%s.%s' cannot hold null", cn, pn);
        return ORC_OK;
    }
    if (p->type != ORC_TYPE_MIXED && v->type != p->type)
        return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' holds %s elements, not %s", cn, pn, type_name(p->type),
                        type_name(v->type));
    switch (v->type) {
    case ORC_TYPE_STRING:
    case ORC_TYPE_BINARY:
        if (!v->string.data && v->string.size)
            return orc_fail(ORC_ERR_INVALID_ARG, "a %s of %zu bytes without data for '%s.%s'", type_name(v->type),
                            v->string.size, cn, pn);
        if (v->string.size > UINT32_MAX)
            return orc_fail(ORC_ERR_INVALID_ARG, "a %s of %zu bytes is too large for '%s.%s'", type_name(v->type),
                            v->string.size, cn, pn);
        break;
    case ORC_TYPE_TIMESTAMP: {
        int64_t sec = v->timestamp.seconds;
        int32_t ns = v->timestamp.nanoseconds;
        if (ns < -999999999 || ns > 999999999 || (sec > 0 && ns < 0) || (sec < 0 && ns > 0))
            return orc_fail(ORC_ERR_INVALID_ARG, "timestamp %" PRId64 "s %dns for '%s.%s' is malformed", sec, ns,
                            cn, pn);
        break;
    }
    case ORC_TYPE_LINK: {
        if (p->type == ORC_TYPE_LINK && v->link.table != p->link_table) {
            const orc_class *want = schema_class(txn, p->link_table);
            return orc_fail(ORC_ERR_WRONG_TYPE, "'%s.%s' links to class '%s', not to table %u", cn, pn,
                            want ? want->name : "?", v->link.table);
        }
        if (!write) break;
        const orc_class *t = schema_class(txn, v->link.table);
        if (!t)
            return orc_fail(ORC_ERR_NOT_FOUND, "a link in '%s.%s' names table %u, which has no class", cn, pn,
                            v->link.table);
        if (t->kind == ORC_CLASS_EMBEDDED)
            return orc_fail(ORC_ERR_EMBEDDED,
                            "'%s.%s' cannot take a link to embedded class '%s': create the element with "
                            "orc_obj_create_embedded",
                            cn, pn, t->name);
        const uint8_t *row;
        size_t rsize;
        int rc = obj_row(txn, v->link.table, v->link.key, &row, &rsize);
        if (rc == ORC_ERR_NOT_FOUND)
            return orc_fail(ORC_ERR_NOT_FOUND, "link target %" PRIu64 " of class '%s' (for '%s.%s') does not exist",
                            v->link.key, t->name, cn, pn);
        if (rc) return rc;
        break;
    }
    default: break;
    }
    return ORC_OK;
}

static bool utf8_valid(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint32_t cp;
        if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F;
        else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F;
        else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07;
        else return false;
        if (n - i < len) return false;
        for (size_t j = 1; j < len; j++) {
            if ((s[i + j] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (s[i + j] & 0x3F);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += len;
    }
    return true;
}

/* Keys that can be stored: non-empty UTF-8, no '.', not starting with '$' (Realm's rules). */
int coll_check_key(const site *s, const char *k, size_t n)
{
    const char *cn = s->cls->name, *pn = s->prop->name;
    if (!k && n) return orc_fail(ORC_ERR_INVALID_ARG, "a dictionary key of %zu bytes without data for '%s.%s'", n, cn, pn);
    if (n == 0) return orc_fail(ORC_ERR_INVALID_ARG, "dictionary keys of '%s.%s' must not be empty", cn, pn);
    if (n > UINT32_MAX) return orc_fail(ORC_ERR_INVALID_ARG, "a dictionary key of %zu bytes is too long", n);
    if (k[0] == '$')
        return orc_fail(ORC_ERR_INVALID_ARG, "dictionary key '%.*s' of '%s.%s' starts with '$'", quote_len(n), k, cn,
                        pn);
    if (memchr(k, '.', n))
        return orc_fail(ORC_ERR_INVALID_ARG, "dictionary key '%.*s' of '%s.%s' contains '.'", quote_len(n), k, cn, pn);
    if (!utf8_valid((const uint8_t *)k, n))
        return orc_fail(ORC_ERR_INVALID_ARG, "a dictionary key of '%s.%s' is not valid UTF-8", cn, pn);
    return ORC_OK;
}

/* Encodes one element into the cache's `enc` buffer. */
int coll_encode(orc_txn *txn, const orc_value *dkey, const orc_value *v, const orc_buf **out)
{
    orc_coll_cache *k = cache_of(txn);
    if (!k) return orc_fail(ORC_ERR_NOMEM, "allocating the collection cache");
    k->enc.size = 0;
    int rc = dkey ? val_encode(&k->enc, dkey) : ORC_OK;
    if (!rc) rc = val_encode(&k->enc, v);
    if (rc) return rc;
    if (k->enc.size > UINT32_MAX / 2) return orc_fail(ORC_ERR_INVALID_ARG, "a collection element is too large");
    *out = &k->enc;
    return ORC_OK;
}

void coll_link_of(orc_txn *txn, const orc_value *v, linkref *out)
{
    out->table = 0;
    out->key = 0;
    out->embedded = false;
    if (v->type != ORC_TYPE_LINK) return;
    out->table = v->link.table;
    out->key = v->link.key;
    out->embedded = coll_is_embedded(txn, v->link.table);
}

static int linkvec_push(linkvec *lv, const linkref *l)
{
    int rc = array_reserve(&lv->v, lv->n, &lv->cap, sizeof *lv->v, 16, "a list of links");
    if (rc) return rc;
    lv->v[lv->n++] = *l;
    return ORC_OK;
}

/* The link elements of a whole collection, taken out before it is rewritten. */
int coll_collect_links(orc_txn *txn, const collref *c, linkvec *out)
{
    if (!prop_may_link(c->prop)) return ORC_OK;
    for (uint32_t i = 0; i < c->count; i++) {
        orc_value v = {.type = ORC_TYPE_NULL};
        int rc = coll_elem(c, i, NULL, &v);
        if (rc) return rc;
        linkref l;
        coll_link_of(txn, &v, &l);
        if (l.table && (rc = linkvec_push(out, &l))) return rc;
    }
    return ORC_OK;
}

/* Removes an element's backlink and erases the embedded object it owned (invariant 5). */
int coll_drop_link(orc_txn *txn, const linkref *l, uint32_t otable, uint16_t ocol, uint64_t okey)
{
    if (!l->table) return ORC_OK;
    int rc = blink_remove(txn, l->table, l->key, otable, ocol, okey);
    if (!rc && l->embedded) rc = obj_erase_internal(txn, l->table, l->key, true);
    return rc;
}

/* ---- blob building ------------------------------------------------------------- */

static int too_large(void) { return orc_fail(ORC_ERR_INVALID_ARG, "the collection would exceed 4 GB"); }

/*
 * The blob of `c` with elements [at, at+del) replaced by `ins` (NULL: nothing
 * inserted), built into `out`; an empty result leaves out->size 0. Invariant 1
 * lets the untouched runs move with two memcpys and shifted offsets.
 */
int coll_splice(const collref *c, uint32_t at, uint32_t del, const orc_buf *ins, orc_buf *out)
{
    uint32_t n = c->count;
    uint64_t newn = (uint64_t)n - del + (ins ? 1 : 0);
    out->size = 0;
    if (newn == 0) return ORC_OK;
    if (newn > UINT32_MAX) return too_large();
    size_t area = 4 + 4 * (size_t)n; /* old first element */
    size_t end = n ? c->size : area;
    size_t cut_from = at < n ? ld32(c->blob + 4 + 4 * (size_t)at) : end;
    size_t cut_to = at + del < n ? ld32(c->blob + 4 + 4 * (size_t)(at + del)) : end;
    size_t prefix = cut_from - area, suffix = end - cut_to, ins_len = ins ? ins->size : 0;
    uint64_t header = 4 + 4 * newn;
    uint64_t total = header + prefix + ins_len + suffix;
    if (total > UINT32_MAX) return too_large();
    int rc = buf_reserve(out, (size_t)total);
    if (rc) return rc;
    uint8_t *d = out->data;
    st32(d, (uint32_t)newn);
    size_t e = 0;
    for (uint32_t j = 0; j < at; j++)
        st32(d + 4 + 4 * e++, (uint32_t)(ld32(c->blob + 4 + 4 * (size_t)j) - area + header));
    if (ins) st32(d + 4 + 4 * e++, (uint32_t)(header + prefix));
    for (uint32_t j = at + del; j < n; j++)
        st32(d + 4 + 4 * e++, (uint32_t)(ld32(c->blob + 4 + 4 * (size_t)j) - cut_to + header + prefix + ins_len));
    if (prefix) memcpy(d + header, c->blob + area, prefix);
    if (ins_len) memcpy(d + header + prefix, ins->data, ins_len);
    if (suffix) memcpy(d + header + prefix + ins_len, c->blob + cut_to, suffix);
    out->size = (size_t)total;
    return ORC_OK;
}

/* A blob made of pieces (each starting an element unless `cont`). */
int coll_build_pieces(const piece *ps, size_t np, orc_buf *out)
{
    uint64_t n = 0, bytes = 0;
    for (size_t i = 0; i < np; i++) {
        if (!ps[i].cont) n++;
        bytes += ps[i].n;
    }
    out->size = 0;
    if (n == 0) return ORC_OK;
    uint64_t header = 4 + 4 * n, total = header + bytes;
    if (n > UINT32_MAX || total > UINT32_MAX) return too_large();
    int rc = buf_reserve(out, (size_t)total);
    if (rc) return rc;
    uint8_t *d = out->data;
    st32(d, (uint32_t)n);
    size_t off = (size_t)header, e = 0;
    for (size_t i = 0; i < np; i++) {
        if (!ps[i].cont) st32(d + 4 + 4 * e++, (uint32_t)off);
        if (ps[i].n) memcpy(d + off, ps[i].p, ps[i].n);
        off += ps[i].n;
    }
    out->size = (size_t)total;
    return ORC_OK;
}

int coll_build_buf(orc_txn *txn, orc_buf **out)
{
    orc_coll_cache *k = cache_of(txn);
    if (!k) return orc_fail(ORC_ERR_NOMEM, "allocating the collection cache");
    *out = &k->build;
    return ORC_OK;
}

/* Writes (or, when empty, deletes) the record. */
int coll_store(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const orc_buf *blob)
{
    uint8_t kb[COLL_KEY_SIZE];
    coll_key_make(kb, table, key, col);
    MDB_val mk = {COLL_KEY_SIZE, kb};
    int mrc;
    if (blob->size == 0) {
        mrc = mdb_del(txn->mdb, txn->core->dbi_coll, &mk, NULL);
        if (mrc == MDB_NOTFOUND) mrc = MDB_SUCCESS;
    } else {
        MDB_val mv = {blob->size, blob->data};
        mrc = mdb_put(txn->mdb, txn->core->dbi_coll, &mk, &mv, 0);
    }
    if (txn->coll_cache) txn->coll_cache->valid = false;
    if (mrc) return txn_poison(txn, orc_fail_mdb(mrc, "writing a collection"));
    txn_touched(txn);
    return ORC_OK;
}

/* ---- searching ----------------------------------------------------------------- */

/* The first position whose element is >= v; *found when it equals v. */
int coll_set_search(const collref *c, const orc_value *v, uint32_t *pos, bool *found)
{
    uint32_t lo = 0, hi = c->count;
    *found = false;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        orc_value e;
        int rc = coll_elem(c, mid, NULL, &e);
        if (rc) return rc;
        int cmp = orc_value_compare(&e, v);
        if (cmp < 0) lo = mid + 1;
        else {
            hi = mid;
            if (cmp == 0) *found = true; /* unique elements: this is the one */
        }
    }
    *pos = lo;
    return ORC_OK;
}

static int key_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int r = n ? memcmp(a, b, n) : 0;
    if (r) return r;
    return an < bn ? -1 : an > bn;
}

int coll_dict_search(const collref *c, const char *k, size_t kn, uint32_t *pos, bool *found)
{
    uint32_t lo = 0, hi = c->count;
    *found = false;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        orc_value ek = {.type = ORC_TYPE_NULL};
        int rc = coll_elem(c, mid, &ek, NULL);
        if (rc) return rc;
        int cmp = key_cmp(ek.string.data, ek.string.size, k, kn);
        if (cmp < 0) lo = mid + 1;
        else {
            hi = mid;
            if (cmp == 0) *found = true;
        }
    }
    *pos = lo;
    return ORC_OK;
}

/* ---- reads --------------------------------------------------------------------- */

int orc_coll_size(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t *size_out)
{
    site s = {0};
    if (!size_out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_coll_size needs an out pointer");
    int rc = coll_open(txn, table, key, col, ORC_COLL_NONE, false, &s);
    if (!rc) *size_out = s.c.count;
    return rc;
}

/* Element i of a collection of kind `want` (ORC_COLL_NONE: any): its key and value, either may be NULL. */
static int elem_at(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, orc_collection want, size_t i,
                   orc_value *key_out, orc_value *value_out)
{
    site s = {0};
    int rc = coll_open(txn, table, key, col, want, false, &s);
    if (rc) return rc;
    if (i >= s.c.count) return coll_out_of_range(&s, i);
    return coll_elem(&s.c, (uint32_t)i, key_out, value_out);
}

int orc_coll_get(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i, orc_value *out)
{
    if (!out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_coll_get needs an out pointer");
    return elem_at(txn, table, key, col, ORC_COLL_NONE, i, NULL, out);
}

int orc_coll_find(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const orc_value *value,
                  size_t *index_out)
{
    site s = {0};
    if (!index_out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_coll_find needs an out pointer");
    int rc = coll_open(txn, table, key, col, ORC_COLL_NONE, false, &s);
    if (!rc) rc = coll_check_value(txn, &s, value, false);
    if (rc) return rc;
    if (s.prop->collection == ORC_COLL_SET) {
        uint32_t pos;
        bool found;
        if ((rc = coll_set_search(&s.c, value, &pos, &found))) return rc;
        if (found) {
            *index_out = pos;
            return ORC_OK;
        }
    } else {
        for (uint32_t i = 0; i < s.c.count; i++) {
            orc_value e;
            if ((rc = coll_elem(&s.c, i, NULL, &e))) return rc;
            if (orc_value_compare(&e, value) == 0) {
                *index_out = i;
                return ORC_OK;
            }
        }
    }
    return orc_fail(ORC_ERR_NOT_FOUND, "'%s.%s' of object %" PRIu64 " does not contain the %s value",
                    s.cls->name, s.prop->name, key, type_name(value->type));
}

int orc_dict_key_at(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, size_t i, orc_value *key_out)
{
    if (!key_out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_dict_key_at needs an out pointer");
    return elem_at(txn, table, key, col, ORC_COLL_DICT, i, key_out, NULL);
}

int orc_dict_get(orc_txn *txn, uint32_t table, uint64_t key, uint16_t col, const char *dkey, size_t dkey_len,
                 orc_value *out)
{
    site s = {0};
    if (!out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_dict_get needs an out pointer");
    if (!dkey && dkey_len) return orc_fail(ORC_ERR_INVALID_ARG, "a dictionary key of %zu bytes without data", dkey_len);
    int rc = coll_open(txn, table, key, col, ORC_COLL_DICT, false, &s);
    if (rc) return rc;
    uint32_t pos;
    bool found;
    if ((rc = coll_dict_search(&s.c, dkey, dkey_len, &pos, &found))) return rc;
    if (!found)
        return orc_fail(ORC_ERR_NOT_FOUND, "dictionary '%s.%s' of object %" PRIu64 " has no key '%.*s'", s.cls->name,
                        s.prop->name, key, quote_len(dkey_len), dkey ? dkey : "");
    return coll_elem(&s.c, pos, NULL, out);
}

