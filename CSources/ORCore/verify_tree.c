/*
 * verify_tree.c — the deep check of verify_pages (ORC_ENV_VERIFY): walks every
 * tree a meta page reaches (the free database, the main database, each named
 * database) page by page, checking what verify.c's WHAT IS CHECKED lists as 5
 * to 9: pages visited once, node areas that tile, ascending keys within their
 * branch bounds, overflow runs, counts equal to the database record's, and free
 * lists. Byte layouts at the top of verify.c.
 */
#include "verify_impl.h"

#include <stdlib.h>

/* ------------------------------------------------------------------------ */
/* Pages and nodes                                                          */
/* ------------------------------------------------------------------------ */

static unsigned node_ksize(const uint8_t *nd) { return ld16(nd + 6); }
static unsigned node_flags(const uint8_t *nd) { return ld16(nd + 4); }
static uint64_t node_dsize(const uint8_t *nd) { return ld16(nd) | (uint64_t)ld16(nd + 2) << 16; }
static uint64_t node_child(const uint8_t *nd)
{
    return ld16(nd) | (uint64_t)ld16(nd + 2) << 16 | (uint64_t)ld16(nd + 4) << 32;
}
static const uint8_t *page_node(const uint8_t *pg, unsigned i) { return pg + ld16(pg + PAGEHDRSZ + 2 * i); }

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * Checks a branch or leaf page's header and node table. `want` is P_BRANCH or
 * P_LEAF. With `tiling`, the nodes must also fill the node area exactly.
 */
int verify_check_node_page(verifier *v, const char *db, const uint8_t *pg, uint64_t pgno, unsigned want, bool tiling,
                           unsigned *nkeys_out)
{
    const uint32_t ps = v->psize;
    const char *kind = want == P_LEAF ? "leaf" : "branch";
    uint64_t label = ld64(pg);
    unsigned flags = ld16(pg + 10), lower = ld16(pg + 12), upper = ld16(pg + 14);
    if (label != pgno)
        return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': page %llu is labelled page %llu", db, (ull)pgno, (ull)label);
    if (flags != want)
        return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': page %llu has flags 0x%x where a %s page (0x%x) belongs", db,
                   (ull)pgno, flags, kind, want);
    if (lower < PAGEHDRSZ || (lower - PAGEHDRSZ) % 2 || lower > upper || upper > ps)
        return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': %s page %llu has impossible bounds lower %u, upper %u", db, kind,
                   (ull)pgno, lower, upper);
    unsigned n = (lower - PAGEHDRSZ) / 2;
    if (n == 0) return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': %s page %llu has no nodes", db, kind, (ull)pgno);
    for (unsigned i = 0; i < n; i++) {
        unsigned off = ld16(pg + PAGEHDRSZ + 2 * i);
        if (off < upper || off % 2 || off + NODESIZE > ps)
            return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': %s page %llu: node %u has offset %u, outside %u ... %u", db,
                       kind, (ull)pgno, i, off, upper, ps - NODESIZE);
        const uint8_t *nd = pg + off;
        unsigned ks = node_ksize(nd);
        if (ks > MAX_KEYSIZE)
            return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': %s page %llu: node %u has a %u-byte key (the limit is %u)",
                       db, kind, (ull)pgno, i, ks, MAX_KEYSIZE);
        uint64_t size = NODESIZE + ks;
        if (want == P_LEAF) {
            unsigned f = node_flags(nd);
            if (f & F_DUPDATA)
                return verify_bad(v, ORC_ERR_CORRUPT,
                           "database '%s': leaf page %llu: node %u holds duplicates (F_DUPDATA), which ORCore never writes",
                           db, (ull)pgno, i);
            if ((f & ~(F_BIGDATA | F_SUBDATA)) || f == (F_BIGDATA | F_SUBDATA))
                return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': leaf page %llu: node %u has flags 0x%x", db, (ull)pgno,
                           i, f);
            uint64_t ds = node_dsize(nd);
            if ((f & F_SUBDATA) && ds != DBREC_SIZE)
                return verify_bad(v, ORC_ERR_CORRUPT,
                           "database '%s': leaf page %llu: node %u is a database record of %llu bytes, not %u", db,
                           (ull)pgno, i, (ull)ds, DBREC_SIZE);
            size += (f & F_BIGDATA) ? 8 : ds;
        }
        if (size > ps - off)
            return verify_bad(v, ORC_ERR_CORRUPT,
                       "database '%s': %s page %llu: node %u (%llu bytes at offset %u) runs past the end of the page", db,
                       kind, (ull)pgno, i, (ull)size, off);
        if (tiling) v->extent[i] = (uint32_t)off << 16 | (uint32_t)((size + 1) & ~(uint64_t)1);
    }
    if (tiling) {
        qsort(v->extent, n, sizeof *v->extent, cmp_u32);
        uint32_t expect = upper;
        for (unsigned i = 0; i < n; i++) {
            uint32_t off = v->extent[i] >> 16;
            if (off != expect)
                return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': %s page %llu: %s at offset %u (the node area %s at %u)",
                           db, kind, (ull)pgno, off < expect ? "nodes overlap" : "a gap before the node",
                           off, off < expect ? "is already used" : "continues", expect);
            expect += v->extent[i] & 0xffff;
        }
        if (expect != ps)
            return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': %s page %llu: the nodes end at %u, not at the page end %u",
                       db, kind, (ull)pgno, expect, ps);
    }
    *nkeys_out = n;
    return ORC_OK;
}

/* The consistency of a database record on its own (its pages are checked by the walk). */
int verify_check_dbrec(verifier *v, const char *db, const dbrec *d)
{
    if (d->root == PGNO_NONE) {
        if (d->depth || d->branch || d->leaf || d->overflow || d->entries)
            return verify_bad(v, ORC_ERR_CORRUPT,
                       "database '%s' has no root but records depth %u, %llu branch, %llu leaf, %llu overflow pages and "
                       "%llu entries",
                       db, d->depth, (ull)d->branch, (ull)d->leaf, (ull)d->overflow, (ull)d->entries);
        return ORC_OK;
    }
    if (d->root < NUM_METAS || d->root > v->last_pg)
        return verify_bad(v, ORC_ERR_CORRUPT, "database '%s' has root page %llu, outside 2 ... %llu", db, (ull)d->root,
                   (ull)v->last_pg);
    if (d->depth < 1 || d->depth > MAX_DEPTH)
        return verify_bad(v, ORC_ERR_CORRUPT, "database '%s' has depth %u", db, d->depth);
    uint64_t avail = v->last_pg - 1;
    if (d->leaf < 1 || d->branch > avail || d->leaf > avail || d->overflow > avail ||
        d->branch + d->leaf + d->overflow > avail || d->branch < (uint64_t)d->depth - 1 ||
        (d->depth == 1) != (d->branch == 0) || d->entries < d->leaf)
        return verify_bad(v, ORC_ERR_CORRUPT,
                   "database '%s' records depth %u, %llu branch, %llu leaf, %llu overflow pages and %llu entries, "
                   "impossible in %llu pages",
                   db, d->depth, (ull)d->branch, (ull)d->leaf, (ull)d->overflow, (ull)d->entries, (ull)avail);
    return ORC_OK;
}

/* ------------------------------------------------------------------------ */
/* Tree walk                                                                */
/* ------------------------------------------------------------------------ */

static int key_compare(enum key_order order, const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    if (order == ORDER_INTEGER) {
        uint64_t x = an == 4 ? ld32(a) : ld64(a), y = bn == 4 ? ld32(b) : ld64(b);
        return x < y ? -1 : x > y;
    }
    if (order == ORDER_REVERSE_BYTES) {
        for (size_t i = 1; i <= n; i++)
            if (a[an - i] != b[bn - i]) return a[an - i] < b[bn - i] ? -1 : 1;
    } else {
        int c = n ? memcmp(a, b, n) : 0;
        if (c) return c;
    }
    return an < bn ? -1 : an > bn;
}

/* Checks key i of a page against its predecessor and the bounds set by the branch keys above. */
static int check_key(verifier *v, const tree *t, uint64_t pgno, unsigned i, const uint8_t *key, size_t ks,
                     const keyref *prev, const keyref *lo, const keyref *hi)
{
    if (t->order == ORDER_INTEGER && ks != 4 && ks != 8)
        return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': page %llu: node %u has a %zu-byte integer key", t->name,
                   (ull)pgno, i, ks);
    /* Integer keys of one database all have one size; compare only then (no read past a short key). */
    if (t->order == ORDER_INTEGER &&
        ((prev->set && prev->n != ks) || (lo->set && lo->n != ks) || (hi->set && hi->n != ks)))
        return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': page %llu: node %u's integer key differs in size from its neighbours",
                   t->name, (ull)pgno, i);
    if (prev->set && key_compare(t->order, prev->p, prev->n, key, ks) >= 0)
        return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': page %llu: key %u is not greater than key %u", t->name, (ull)pgno,
                   i, i - 1);
    if (lo->set && key_compare(t->order, lo->p, lo->n, key, ks) > 0)
        return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': page %llu: key %u sorts before its branch key", t->name,
                   (ull)pgno, i);
    if (hi->set && key_compare(t->order, key, ks, hi->p, hi->n) >= 0)
        return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': page %llu: key %u does not sort before the next branch key",
                   t->name, (ull)pgno, i);
    return ORC_OK;
}

/* Marks an overflow run as used and checks its header. */
static int visit_overflow(verifier *v, tree *t, uint64_t leaf_pg, unsigned i, uint64_t ov, uint64_t dsize)
{
    if (ov < NUM_METAS || ov > v->last_pg)
        return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': leaf page %llu: node %u's value is on page %llu, outside 2 ... %llu",
                   t->name, (ull)leaf_pg, i, (ull)ov, (ull)v->last_pg);
    uint8_t h[PAGEHDRSZ];
    int rc = verify_read_page(v, t->name, "overflow", ov, 0, h, sizeof h);
    if (rc) return rc;
    uint64_t label = ld64(h), pages = ld32(h + 12), need = (PAGEHDRSZ - 1 + dsize) / v->psize + 1;
    if (label != ov)
        return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': overflow page %llu is labelled page %llu", t->name, (ull)ov,
                   (ull)label);
    if (ld16(h + 10) != P_OVERFLOW)
        return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': page %llu has flags 0x%x where an overflow page (0x%x) belongs",
                   t->name, (ull)ov, ld16(h + 10), P_OVERFLOW);
    if (pages < need || pages > v->last_pg - ov + 1)
        return verify_bad(v, ORC_ERR_CORRUPT,
                   "database '%s': overflow page %llu runs %llu pages; its %llu-byte value needs %llu and the file ends at "
                   "page %llu",
                   t->name, (ull)ov, (ull)pages, (ull)dsize, (ull)need, (ull)v->last_pg);
    if ((ov + pages) * v->psize > v->fsize) return verify_truncated(v, t->name, "overflow", ov + pages - 1);
    for (uint64_t p = ov; p < ov + pages; p++) {
        if (bit_get(v->used, p))
            return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': page %llu of the overflow run at %llu is reached twice",
                       t->name, (ull)p, (ull)ov);
        bit_set(v->used, p);
    }
    t->overflow += pages;
    return ORC_OK;
}

/* One free-list record: u64 n, then n page numbers in descending order. */
static int free_record(verifier *v, tree *t, uint64_t pgno, unsigned i, const uint8_t *key, size_t ks,
                       const uint8_t *data, uint64_t dsize)
{
    if (ks != 8)
        return verify_bad(v, ORC_ERR_CORRUPT, "free database: page %llu: node %u has a %zu-byte key, not a txnid", (ull)pgno, i,
                   ks);
    uint64_t id = ld64(key);
    if (id == 0 || id > v->txnid)
        return verify_bad(v, ORC_ERR_CORRUPT, "free database: page %llu: a record of txnid %llu, after the meta's txnid %llu",
                   (ull)pgno, (ull)id, (ull)v->txnid);
    if (dsize < 8 || dsize % 8)
        return verify_bad(v, ORC_ERR_CORRUPT, "free database: the record of txnid %llu has %llu bytes", (ull)id, (ull)dsize);
    uint64_t n = ld64(data);
    if (n > dsize / 8 - 1)
        return verify_bad(v, ORC_ERR_CORRUPT, "free database: the record of txnid %llu lists %llu pages in %llu bytes", (ull)id,
                   (ull)n, (ull)dsize);
    uint64_t prev = UINT64_MAX;
    for (uint64_t j = 1; j <= n; j++) {
        uint64_t p = ld64(data + 8 * j);
        if (p < NUM_METAS || p > v->last_pg)
            return verify_bad(v, ORC_ERR_CORRUPT, "free database: the record of txnid %llu lists page %llu, outside 2 ... %llu",
                       (ull)id, (ull)p, (ull)v->last_pg);
        if (p >= prev)
            return verify_bad(v, ORC_ERR_CORRUPT, "free database: the record of txnid %llu is not in descending order at page %llu",
                       (ull)id, (ull)p);
        if (bit_get(v->freed, p))
            return verify_bad(v, ORC_ERR_CORRUPT, "free database: page %llu is listed free twice", (ull)p);
        bit_set(v->freed, p);
        prev = p;
    }
    return ORC_OK;
}

static int add_subdb(verifier *v, const uint8_t *key, size_t ks, const uint8_t *rec)
{
    if (array_reserve(&v->subs, v->nsubs, &v->subs_cap, sizeof *v->subs, 16, "the list of named databases"))
        return verify_bad(v, ORC_ERR_NOMEM, "allocating the list of named databases");
    subdb *s = &v->subs[v->nsubs++];
    size_t n = ks < sizeof s->name - 1 ? ks : sizeof s->name - 1;
    for (size_t i = 0; i < n; i++) s->name[i] = key[i] >= 0x20 && key[i] < 0x7f ? (char)key[i] : '?';
    s->name[n] = 0;
    verify_parse_dbrec(rec, &s->db);
    return ORC_OK;
}

/* Leaf nodes: values on overflow pages, free-list records, named database records. */
static int walk_leaf(verifier *v, tree *t, const uint8_t *pg, uint64_t pgno, unsigned n, const keyref *lo,
                     const keyref *hi)
{
    keyref prev = {0};
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *nd = page_node(pg, i), *key = nd + NODESIZE;
        size_t ks = node_ksize(nd);
        const uint8_t *data = key + ks;
        unsigned f = node_flags(nd);
        uint64_t dsize = node_dsize(nd);
        int rc = v->deep ? check_key(v, t, pgno, i, key, ks, &prev, lo, hi) : ORC_OK;
        if (rc) return rc;
        prev = (keyref){key, ks, true};
        if (f & F_BIGDATA) {
            uint64_t ov = ld64(data);
            if ((rc = visit_overflow(v, t, pgno, i, ov, dsize))) return rc;
            if (t->kind == TREE_FREE) {
                if (dsize > v->data_cap) {
                    uint8_t *d = realloc(v->data, dsize);
                    if (!d) return verify_bad(v, ORC_ERR_NOMEM, "allocating %llu bytes for a free-list record", (ull)dsize);
                    v->data = d;
                    v->data_cap = dsize;
                }
                if ((rc = verify_read_page(v, t->name, "overflow", ov, PAGEHDRSZ, v->data, dsize))) return rc;
                data = v->data;
            }
        }
        if (t->kind == TREE_FREE) {
            if (f & F_SUBDATA)
                return verify_bad(v, ORC_ERR_CORRUPT, "free database: page %llu: node %u is a database record", (ull)pgno, i);
            if ((rc = free_record(v, t, pgno, i, key, ks, data, dsize))) return rc;
        } else if (f & F_SUBDATA) {
            if (t->kind != TREE_MAIN)
                return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': leaf page %llu: node %u is a nested database record",
                           t->name, (ull)pgno, i);
            if ((rc = add_subdb(v, key, ks, data))) return rc;
        }
    }
    t->leaf++;
    t->entries += n;
    return ORC_OK;
}

static int walk_page(verifier *v, tree *t, uint64_t pgno, uint64_t parent, unsigned level, const keyref *lo,
                     const keyref *hi)
{
    if (pgno < NUM_METAS || pgno > v->last_pg)
        return verify_bad(v, ORC_ERR_CORRUPT, "database '%s': page %llu (a child of page %llu) is outside 2 ... %llu", t->name,
                   (ull)pgno, (ull)parent, (ull)v->last_pg);
    if (bit_get(v->used, pgno))
        return verify_bad(v, ORC_ERR_CORRUPT,
                   "database '%s': page %llu (a child of page %llu) is reached twice: a cycle or a page shared by two "
                   "trees",
                   t->name, (ull)pgno, (ull)parent);
    bit_set(v->used, pgno);
    if (!v->level[level] && !(v->level[level] = malloc(v->psize)))
        return verify_bad(v, ORC_ERR_NOMEM, "allocating a page buffer");
    uint8_t *pg = v->level[level];
    bool leaf = level == t->db.depth;
    int rc = verify_read_page(v, t->name, leaf ? "leaf" : "branch", pgno, 0, pg, v->psize);
    unsigned n;
    if (!rc) rc = verify_check_node_page(v, t->name, pg, pgno, leaf ? P_LEAF : P_BRANCH, v->deep, &n);
    if (rc) return rc;
    if (leaf) return walk_leaf(v, t, pg, pgno, n, lo, hi);

    t->branch++;
    keyref prev = {0};
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *nd = page_node(pg, i);
        keyref key = {nd + NODESIZE, node_ksize(nd), true};
        /* LMDB never compares the first key of a branch page. */
        if (i > 0 && v->deep && (rc = check_key(v, t, pgno, i, key.p, key.n, &prev, lo, hi))) return rc;
        if (i > 0) prev = key;
        keyref child_lo = i > 0 ? key : *lo, child_hi = *hi;
        if (i + 1 < n) {
            const uint8_t *next = page_node(pg, i + 1);
            child_hi = (keyref){next + NODESIZE, node_ksize(next), true};
        }
        if ((rc = walk_page(v, t, node_child(nd), pgno, level + 1, &child_lo, &child_hi))) return rc;
    }
    return ORC_OK;
}

enum key_order verify_order_of(uint16_t flags)
{
    if (flags & MDB_REVERSEKEY) return ORDER_REVERSE_BYTES;
    if (flags & MDB_INTEGERKEY) return ORDER_INTEGER;
    return ORDER_BYTES;
}

/* Walks a tree and compares what it found with the database record. */
int verify_walk_tree(verifier *v, tree *t)
{
    if (t->db.root == PGNO_NONE) return ORC_OK;
    keyref none = {0};
    int rc = walk_page(v, t, t->db.root, 0, 1, &none, &none);
    if (rc) return rc;
    if (t->branch != t->db.branch || t->leaf != t->db.leaf || t->overflow != t->db.overflow ||
        t->entries != t->db.entries)
        return verify_bad(v, ORC_ERR_CORRUPT,
                   "database '%s' has %llu branch, %llu leaf, %llu overflow pages and %llu entries, but its record says "
                   "%llu, %llu, %llu and %llu",
                   t->name, (ull)t->branch, (ull)t->leaf, (ull)t->overflow, (ull)t->entries, (ull)t->db.branch,
                   (ull)t->db.leaf, (ull)t->db.overflow, (ull)t->db.entries);
    return ORC_OK;
}

int verify_alloc_maps(verifier *v)
{
    size_t bytes = (size_t)(v->last_pg / 8 + 1);
    free(v->used);
    free(v->freed);
    free(v->extent);
    v->used = calloc(bytes, 1);
    v->freed = calloc(bytes, 1);
    v->extent = malloc(v->psize / 2 * sizeof *v->extent);
    v->nsubs = 0;
    if (!v->used || !v->freed || !v->extent)
        return verify_bad(v, ORC_ERR_NOMEM, "allocating page maps for %llu pages", (ull)(v->last_pg + 1));
    return ORC_OK;
}

void verify_free(verifier *v)
{
    free(v->used);
    free(v->freed);
    free(v->extent);
    free(v->data);
    free(v->subs);
    for (unsigned i = 0; i <= MAX_DEPTH; i++) free(v->level[i]);
}

