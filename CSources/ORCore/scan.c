/*
 * scan.c — reading every row of a table in key order (tscan).
 *
 * WALKING THE LEAVES
 * An LMDB cursor costs about 150 instructions a row for MDB_NEXT (the call, its
 * flag tests, the node read, the page-boundary bookkeeping), more than ORCore then
 * spends testing the row against a query. In a read transaction every page of the
 * snapshot lies in the map and none changes while the transaction lives, so the
 * scan reads the table's B-tree itself: it takes the database record ("t<table>"
 * in the main database: root page, depth, entry count), descends to the leftmost
 * leaf and hands out the leaf's nodes one after another, climbing back up the
 * branch pages it keeps on a stack only when a leaf is done. A row then costs a
 * dozen loads and compares (tscan_next, scan.h).
 *
 * The walk reads exactly what LMDB's cursor would read, in the same order: the
 * layout is LMDB 0.9's on-disk format (verify.c draws it), which every 0.9
 * release shares; with another major or minor version of the library, scans use
 * the cursor. LMDB does not say where its map is (mdb_env_info reports only a
 * fixed address), so the walk takes the mapping of the realm's file that holds
 * the record LMDB returned, from /proc/self/maps, once per map (map_base).
 *
 * MEMORY
 * A scan is bound by memory, not instructions: rows fill a leaf from the page's
 * end down and every leaf is a page of its own, a TLB miss on this machine class.
 * tscan_next asks the cache for the row TSCAN_AHEAD rows on; entering a leaf
 * loads the header of the next one, because a prefetch instruction that misses
 * the TLB is dropped (AMD EPYC, measured: plain prefetches of the next leaf gained
 * nothing, the load took the count of 1,000,000 rows from 21 to 18 ns a row).
 *
 * DAMAGED PAGES
 * LMDB trusts its pages. The walk trusts nothing it reads: a page number must lie
 * in 2 ... the last page that is in the newest meta, in the map and in the file
 * (so no read faults past the end of a truncated file), a page must carry its own
 * number and the flags its level needs, node offsets must fall in the node area
 * and a node's key and value inside the page (or inside its overflow run), leaf
 * nodes must be plain rows with 8-byte keys, and the walk may not hand out more
 * rows than the record counts, nor fewer — which also bounds the work a damaged
 * tree whose branches share pages can cause. Any failure is ORC_ERR_CORRUPT
 * naming the table and page; nothing is read outside the map.
 *
 * WHEN THE CURSOR IS USED
 * Write transactions (their dirty pages live outside the map and their database
 * records in LMDB's transaction), tables of fewer than WALK_MIN_ROWS rows (the
 * walk's setup, a record lookup and the file's size, costs about a microsecond), and
 * whenever the record does not agree with what LMDB reports for the handle
 * (mdb_stat: entries and depth) or the map cannot be found.
 */
#include "scan.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define WALK_MIN_ROWS 64

/* Whether this LMDB library shares the 0.9 page layout (checked once). */
static bool layout_known(void)
{
    static int known = -1;
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (k < 0) {
        int major = 0, minor = 0, patch = 0;
        mdb_version(&major, &minor, &patch);
        k = major == 0 && minor == 9;
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k;
}

static int bad(const tscan *s, uint64_t pgno, const char *what)
{
    return orc_fail(ORC_ERR_CORRUPT, "table %u's rows are damaged: page %llu %s", (unsigned)s->table,
                    (unsigned long long)pgno, what);
}

/* The page `pgno` if it may be read and carries its own number and exactly the flags `want`; else NULL. */
static const uint8_t *page_at(const tscan *s, uint64_t pgno, unsigned want)
{
    if (pgno < NUM_METAS || pgno > s->last_pg) return NULL;
    const uint8_t *pg = s->map + pgno * s->psize;
    if (ld64(pg) != pgno) return NULL;
    unsigned flags = ld16(pg + 10) & (P_BRANCH | P_LEAF | P_OVERFLOW | P_META | P_LEAF2 | P_SUBP);
    return flags == want ? pg : NULL;
}

/* Checks a branch or leaf page's node table; sets *n and *upper. */
static bool node_table(const tscan *s, const uint8_t *pg, unsigned *n, unsigned *upper)
{
    unsigned lower = ld16(pg + 12), up = ld16(pg + 14);
    if (lower < PAGEHDRSZ || lower > up || up > s->psize || (lower - PAGEHDRSZ) % 2) return false;
    *n = (lower - PAGEHDRSZ) / 2;
    *upper = up;
    return true;
}

/* The child page named by node i of branch page `pg`; false when the node lies outside the node area. */
static bool child_at(const tscan *s, const uint8_t *pg, unsigned upper, unsigned i, uint64_t *child)
{
    unsigned off = ld16(pg + PAGEHDRSZ + 2u * i);
    if (off < upper || off > s->psize - NODESIZE) return false;
    const uint8_t *node = pg + off;
    *child = (uint64_t)ld16(node) | (uint64_t)ld16(node + 2) << 16 | (uint64_t)ld16(node + 4) << 32;
    return true;
}

/*
 * Brings in the leaf after the one being entered (the parent's next child, when the
 * parent has one): a load of its header, which also fills the TLB (see MEMORY), and
 * a prefetch of its last line, where its first rows are. Only a page the walk may
 * read is touched; it is checked when it is entered.
 */
static void prefetch_next_leaf(const tscan *s)
{
    if (!s->top) return;
    const struct tscan_level *l = &s->up[s->top - 1];
    uint64_t next;
    if (l->i >= l->n || !child_at(s, l->page, l->upper, l->i, &next)) return;
    if (next < NUM_METAS || next > s->last_pg) return;
    const uint8_t *pg = s->map + next * s->psize;
    __asm__ volatile("" : : "r"(*(const volatile uint64_t *)pg));
    __builtin_prefetch(pg + s->psize - 64);
}

/*
 * ASKING FOR A LEAF BEFORE SEARCHING IT
 * A lookup's leaf (a row by key, a primary key) costs three cache misses one after
 * the other: the page header (also the TLB miss), then the node pointer the search
 * guesses, then the node it points to. Their places can be guessed before the page
 * is read, from the leaf the same tree's last lookup searched (its node count and
 * the bytes its nodes fill; a tree's leaves are much alike) and from where the key
 * lies between the parent's separators: nodes fill a leaf from its end down in key
 * order (appended pages; a page filled otherwise only wastes the touch). So once
 * the parent names the leaf, the three lines are loaded together (loads, not
 * prefetches: see MEMORY), and the search then finds them in the cache. A
 * primary-key lookup and a property read among 1,000,000 objects (openrealm-bench):
 * 1,053-1,133 ns before, 736-843 ns after; raw LMDB's single mdb_get 717-857 ns in
 * the same runs. The loads stay inside the page, which the walk may read (page
 * number checked); what they read is not used: the page is checked when entered.
 */
static void touch(const uint8_t *p) { __asm__ volatile("" : : "r"(*(const volatile uint8_t *)p)); }

static void ask_for_leaf(const tscan *s, uint64_t pgno, const leaf_shape *shape, unsigned g)
{
    if (pgno < NUM_METAS || pgno > s->last_pg || !shape->n || g >= shape->n) return;
    const uint8_t *pg = s->map + pgno * s->psize;
    touch(pg);
    touch(pg + PAGEHDRSZ + 2u * g);
    size_t off = s->psize - (size_t)(g + 1) * shape->used / shape->n; /* node g's place in such a page */
    if (off < PAGEHDRSZ || off >= s->psize) return;
    touch(pg + off);
    if (off + 64 < s->psize) touch(pg + off + 64);
}

/* Remembers the shape of the leaf just searched, for the next ask_for_leaf. */
static void note_leaf(const tscan *s, leaf_shape *shape, unsigned n, unsigned upper)
{
    shape->n = n;
    shape->used = (unsigned)s->psize - upper;
}

/*
 * Checks page `pgno` as a tree's page at its level: a leaf, or a branch with at least
 * one child. Sets *pg, *n and *upper; returns what is wrong with it, or NULL.
 */
static const char *page_fault(const tscan *s, uint64_t pgno, bool leaf, const uint8_t **pg, unsigned *n,
                              unsigned *upper)
{
    if (!(*pg = page_at(s, pgno, leaf ? P_LEAF : P_BRANCH)))
        return leaf ? "is not the leaf page its parent names" : "is not the branch page its parent names";
    if (!node_table(s, *pg, n, upper)) return "has a damaged node table";
    if (!leaf && *n == 0) return "is an empty branch page";
    return NULL;
}

/*
 * Enters page `pgno` at level s->top: a leaf at the tree's depth, a branch (with at
 * least one child, and room on the stack) above it. Sets *pg, *n and *upper.
 */
static int enter(tscan *s, uint64_t pgno, bool leaf, const uint8_t **pg, unsigned *n, unsigned *upper)
{
    const char *fault = page_fault(s, pgno, leaf, pg, n, upper);
    if (fault) return bad(s, pgno, fault);
    if (!leaf && s->top >= MAX_DEPTH) return bad(s, pgno, "lies deeper than any B-tree");
    return ORC_OK;
}

/* Descends from page `pgno` at level s->top (the root is level 0) to the leftmost leaf below it. */
static int descend(tscan *s, uint64_t pgno)
{
    for (;;) {
        bool leaf = s->top + 1 == s->depth;
        const uint8_t *pg;
        unsigned n = 0, upper = 0;
        int rc = enter(s, pgno, leaf, &pg, &n, &upper);
        if (rc) return rc;
        if (leaf) {
            prefetch_next_leaf(s);
            s->leaf = pg;
            s->li = 0;
            s->ln = n;
            s->upper = upper;
            return ORC_OK;
        }
        s->up[s->top++] = (struct tscan_level){.page = pg, .i = 1, .n = n, .upper = upper};
        uint64_t child;
        if (!child_at(s, pg, upper, 0, &child)) return bad(s, pgno, "has a node outside its node area");
        pgno = child;
    }
}

/* The next leaf: up the stack to the first branch page with a child left, then down again. */
static int next_leaf(tscan *s)
{
    while (s->top && s->up[s->top - 1].i >= s->up[s->top - 1].n) s->top--;
    if (!s->top) return ORC_ERR_NOT_FOUND;
    struct tscan_level *l = &s->up[s->top - 1];
    uint64_t child;
    if (!child_at(s, l->page, l->upper, l->i++, &child)) return bad(s, ld64(l->page), "has a node outside its node area");
    return descend(s, child);
}

int tscan_node(tscan *s)
{
    const uint8_t *pg = s->leaf;
    uint64_t pgno = ld64(pg);
    unsigned off = ld16(pg + PAGEHDRSZ + 2u * s->li);
    if (off < s->upper || off > s->psize - NODESIZE - 8u) return bad(s, pgno, "has a node outside its node area");
    const uint8_t *n = pg + off;
    size_t dsize = (size_t)ld16(n) | (size_t)ld16(n + 2) << 16;
    unsigned flags = ld16(n + 4), ksize = ld16(n + 6);
    if (ksize != 8) return bad(s, pgno, "has a row whose object key is not 8 bytes");
    if (flags == F_BIGDATA) {
        /* the row lives in an overflow run: its first page's number is the node's data */
        if (off > s->psize - NODESIZE - 16u) return bad(s, pgno, "has a node outside its node area");
        uint64_t ov = ld64(n + NODESIZE + 8u);
        uint64_t pages = (PAGEHDRSZ + (uint64_t)dsize + s->psize - 1) / s->psize;
        const uint8_t *op = page_at(s, ov, P_OVERFLOW);
        if (!op || pages > s->last_pg - ov + 1 || ld32(op + 12) < pages)
            return bad(s, pgno, "names an overflow run that does not hold its row");
        s->row = op + PAGEHDRSZ;
    } else if (flags == 0) {
        if (dsize > s->psize - off - NODESIZE - 8u) return bad(s, pgno, "has a row that runs past the page");
        s->row = n + NODESIZE + 8u;
    } else {
        return bad(s, pgno, "has a node that is not a row");
    }
    s->li++;
    s->left--;
    s->key = ld64be(n + NODESIZE);
    s->size = dsize;
    return ORC_OK;
}

int tscan_next_slow(tscan *s)
{
    if (s->walk) {
        if (s->li < s->ln) return bad(s, ld64(s->leaf), "holds more rows than the table's record counts");
        for (;;) {
            int rc = next_leaf(s);
            if (rc == ORC_ERR_NOT_FOUND) {
                s->walk = false; /* done: later calls keep answering NOT_FOUND */
                if (s->left)
                    return orc_fail(ORC_ERR_CORRUPT, "table %u's rows are damaged: %llu of the rows its record counts are missing",
                                    (unsigned)s->table, (unsigned long long)s->left);
                return ORC_ERR_NOT_FOUND;
            }
            if (rc != ORC_OK) return rc;
            if (s->li < s->ln) {
                if (!s->left) return bad(s, ld64(s->leaf), "holds more rows than the table's record counts");
                return tscan_node(s);
            }
        }
    }
    if (!s->cur) return ORC_ERR_NOT_FOUND;
    MDB_val k, d;
    int mrc = mdb_cursor_get(s->cur, &k, &d, s->started ? MDB_NEXT : MDB_FIRST);
    s->started = true;
    if (mrc == MDB_NOTFOUND) return ORC_ERR_NOT_FOUND;
    if (mrc) return orc_fail_mdb(mrc, "scanning a table");
    if (k.mv_size != 8) return orc_fail(ORC_ERR_CORRUPT, "an object key has %zu bytes", k.mv_size);
    s->key = ld64be(k.mv_data);
    s->row = d.mv_data;
    s->size = d.mv_size;
    return ORC_OK;
}

/*
 * The mapping of `core`'s file that holds `inside` (a pointer LMDB returned), from
 * /proc/self/maps: its start is LMDB's map (the whole file from offset 0). Cached
 * in the core until the map is set again. NULL when it cannot be found, and when
 * the pages found there are not LMDB's meta pages 0 and 1.
 */
static const uint8_t *map_base(orc_envcore *core, const void *inside, size_t psize, size_t *len)
{
    pthread_mutex_lock(&core->lock);
    const uint8_t *base = core->scan_map;
    *len = core->scan_map_len;
    if (!base) {
        FILE *f = fopen("/proc/self/maps", "re");
        char line[512];
        uintptr_t at = (uintptr_t)inside;
        while (f && fgets(line, sizeof line, f)) {
            unsigned long long lo, hi, off, ino;
            char perms[8];
            if (sscanf(line, "%llx-%llx %7s %llx %*s %llu", &lo, &hi, perms, &off, &ino) != 5) continue;
            if (at < lo || at >= hi) continue;
            if (off == 0 && ino == (unsigned long long)core->ino && perms[0] == 'r') {
                base = (const uint8_t *)(uintptr_t)lo;
                *len = (size_t)(hi - lo);
            }
            break;
        }
        if (f) fclose(f);
        if (base && *len >= NUM_METAS * psize)
            for (unsigned m = 0; m < NUM_METAS; m++) {
                const uint8_t *meta = base + m * psize;
                if (ld64(meta) != m || !(ld16(meta + 10) & P_META) || ld32(meta + PAGEHDRSZ) != LMDB_MAGIC) base = NULL;
            }
        else
            base = NULL;
        core->scan_map = base;
        core->scan_map_len = base ? *len : 0;
    }
    pthread_mutex_unlock(&core->lock);
    return base;
}

/*
 * What every walk of a read transaction's snapshot shares: the map, the page size
 * and the last page a walk may read. Found once per transaction generation (a
 * renewed snapshot may see a grown file and a new map). False: use the cursor.
 */
static bool walk_env(orc_txn *txn, const void *inside, size_t psize)
{
    if (txn->walkenv.generation == txn->generation) return txn->walkenv.map != NULL;
    txn->walkenv.generation = txn->generation;
    txn->walkenv.map = NULL;
    MDB_envinfo info;
    mdb_env_info(txn->core->mdb, &info);
    if (!psize_sane(psize)) return false;
    /* the file's size as far as it needs to be known (env.c, THE FILE'S SIZE: no fstat per snapshot) */
    uint64_t file_size;
    if (env_file_size(txn->core, ((uint64_t)info.me_last_pgno + 1) * psize, &file_size) != ORC_OK) return false;
    if (file_size < NUM_METAS * psize) return false;
    size_t map_len;
    const uint8_t *map = map_base(txn->core, inside, psize, &map_len);
    if (!map) return false;
    /* the newest meta's last page bounds every snapshot's; the map and the file bound the reads */
    uint64_t last = info.me_last_pgno;
    uint64_t in_map = map_len / psize, in_file = file_size / psize;
    if (last > in_map - 1) last = in_map - 1;
    if (last > in_file - 1) last = in_file - 1;
    txn->walkenv.map = map;
    txn->walkenv.psize = psize;
    txn->walkenv.last_pg = last;
    return true;
}

/*
 * The record (root, depth, entries) of `table`'s object database or, with `pk`, its
 * primary-key database, from the main database: NULL when the database has fewer than
 * `min` entries or the record is not the one LMDB reads for the handle `dbi` (mdb_stat,
 * into *st, disagrees). Either way its reader uses LMDB.
 */
static const uint8_t *db_record(orc_txn *txn, uint32_t table, bool pk, MDB_dbi dbi, uint64_t min, MDB_stat *st)
{
    if (mdb_stat(txn->mdb, dbi, st) || st->ms_entries < min) return NULL;
    char name[16];
    table_db_format(name, table, pk);
    MDB_val k = {strlen(name), name}, v;
    if (mdb_get(txn->mdb, LMDB_MAIN_DBI, &k, &v) || v.mv_size != DBREC_SIZE) return NULL;
    const uint8_t *rec = v.mv_data;
    if (ld64(rec + 32) != st->ms_entries || ld16(rec + 6) != st->ms_depth || ld16(rec + 4) != 0) return NULL;
    return rec;
}

/*
 * Prepares a walk of `table` in a read transaction: the table's record, checked
 * against LMDB's view of the handle, and the snapshot's map. ORC_OK, ORC_ERR_NOT_FOUND
 * when the cursor should be used instead (nothing reported), or ORC_ERR_CORRUPT.
 */
static int walk_setup(orc_txn *txn, uint32_t table, MDB_dbi dbi, tscan *s)
{
    if (txn->write || !layout_known()) return ORC_ERR_NOT_FOUND;
    MDB_stat st;
    const uint8_t *rec = db_record(txn, table, false, dbi, WALK_MIN_ROWS, &st);
    if (!rec || !walk_env(txn, rec, st.ms_psize)) return ORC_ERR_NOT_FOUND;
    unsigned depth = ld16(rec + 6);
    uint64_t entries = ld64(rec + 32), root = ld64(rec + 40);
    s->map = txn->walkenv.map;
    s->psize = txn->walkenv.psize;
    s->last_pg = txn->walkenv.last_pg;
    s->left = entries;
    s->depth = depth;
    s->root = root;
    s->table = table;
    s->top = 0;
    s->li = s->ln = 0;
    if (depth < 1 || depth > MAX_DEPTH) return bad(s, root, "is the root of a tree of impossible depth");
    s->walk = true;
    return ORC_OK;
}

int tscan_open(orc_txn *txn, uint32_t table, tscan *s)
{
    memset(s, 0, offsetof(tscan, up));
    MDB_dbi dbi;
    int rc = txn_table_dbi(txn, table, &dbi);
    if (rc) return rc;
    rc = walk_setup(txn, table, dbi, s);
    if (rc == ORC_OK && (rc = descend(s, s->root)) == ORC_OK) return ORC_OK;
    if (rc != ORC_ERR_NOT_FOUND) {
        s->walk = false;
        s->li = s->ln = 0;
        return rc;
    }
    memset(s, 0, offsetof(tscan, up));
    s->table = table;
    int mrc = mdb_cursor_open(txn->mdb, dbi, &s->cur);
    return mrc ? orc_fail_mdb(mrc, "opening a table cursor") : ORC_OK;
}

void tscan_close(tscan *s) { cursor_drop(&s->cur); }

/* ------------------------------------------------------------------------ */
/* READING ROWS BY KEY                                                      */
/* ------------------------------------------------------------------------ */
/*
 * A read transaction reads rows by key through a row reader per table (the last
 * ROW_READERS tables read, for one snapshot generation): the same walk, standing
 * after the last row it returned. A key a little above that row's (reading the
 * objects of a Results in key order) is found by stepping on through the leaf,
 * and across to the next one, without a descent; any other key by a descent of
 * the walk's own, a search of each page on the way down (SEARCHING A PAGE; object
 * keys are 8 bytes, big-endian: their order is the integers'). What LMDB's MDB_SET_KEY and
 * MDB_NEXT did, in fewer instructions, with every field read checked as the scan
 * checks it. Tables the walk does not read (small ones; see WHEN THE CURSOR IS
 * USED) answer ROWS_BY_CURSOR and stay with the cursor.
 */

/* The key of node i of a leaf or branch page (branch nodes from 1 on carry keys). */
static int node_key(const tscan *s, const uint8_t *pg, unsigned upper, unsigned i, uint64_t *key)
{
    unsigned off = ld16(pg + PAGEHDRSZ + 2u * i);
    if (off < upper || off > s->psize - NODESIZE - 8u) return bad(s, ld64(pg), "has a node outside its node area");
    if (ld16(pg + off + 6) != 8) return bad(s, ld64(pg), "has a key that is not an 8-byte object key");
    *key = ld64be(pg + off + NODESIZE);
    return ORC_OK;
}

/*
 * SEARCHING A PAGE
 * A descent's time goes to memory: each page is a TLB miss, and a binary search
 * of it six or seven cache misses, each waiting on the one before. Keys are not
 * spread at random, though: object keys are handed out in order (gaps only where
 * rows were erased), and primary keys mostly share prefixes that leave a page's
 * keys evenly spread after them. So a page search guesses the node from where
 * the key lies between the page's bounds — the separators on either side of its
 * node in the parent, which the parent's search has just read, or else the
 * page's own first and last keys (two loads that go out together) — and reads the
 * guess and its neighbour: on a page of consecutive keys, the answer after two
 * key loads past the page's header. A guess that misses leaves the range on its
 * far side to a binary search, so the guess only ever costs time, never the
 * answer. page_search is the object keys' (u64, compared as integers),
 * bpage_search the primary keys' (byte strings in LMDB's default order, the
 * guess made from the eight bytes after the bounds' common prefix).
 */

/*
 * What the parent page says of a page's keys: every key is at least lo and below
 * hi (the separators beside the parent's node for it). Known for pages under a
 * node with a separator on each side; the guess then needs no read of the page's
 * own first and last keys.
 */
typedef struct ukey_bounds {
    bool known;
    uint64_t lo, hi;
} ukey_bounds;

/* The guess at the answer in [lo, hi - 1] for x among keys spread evenly over [f, l). */
static unsigned guess_in(unsigned lo, unsigned hi, uint64_t f, uint64_t l, uint64_t x)
{
    if (l <= f || x <= f) return lo;
    unsigned g = lo + (unsigned)((double)((x < l ? x : l) - f) / (double)(l - f) * (double)(hi - lo));
    return g > hi - 1 ? hi - 1 : g;
}

/* The first node in [from, n) of page `pg` whose key is `key` or above (n if none), into *at. */
static int page_search(const tscan *s, const uint8_t *pg, unsigned upper, unsigned from, unsigned n, uint64_t key,
                       const ukey_bounds *b, unsigned *at)
{
    unsigned lo = from, hi = n; /* the answer lies in [lo, hi] */
    uint64_t k = 0;
    int rc;
    if (hi - lo > 4) {
        unsigned g;
        if (b && b->known) {
            g = guess_in(lo, hi, b->lo, b->hi, key);
        } else {
            uint64_t first = 0, last = 0;
            if ((rc = node_key(s, pg, upper, lo, &first)) || (rc = node_key(s, pg, upper, hi - 1, &last))) return rc;
            if (key <= first) return *at = lo, ORC_OK;
            if (key > last) return *at = hi, ORC_OK;
            g = guess_in(lo, hi, first, last == UINT64_MAX ? last : last + 1, key);
        }
        /* the guess, and its neighbour on the answer's side */
        if ((rc = node_key(s, pg, upper, g, &k))) return rc;
        if (k >= key) {
            if (g == lo) return *at = lo, ORC_OK;
            if ((rc = node_key(s, pg, upper, g - 1, &k))) return rc;
            if (k < key) return *at = g, ORC_OK;
            hi = g - 1;
        } else {
            if (g + 1 == hi) return *at = hi, ORC_OK;
            if ((rc = node_key(s, pg, upper, g + 1, &k))) return rc;
            if (k >= key) return *at = g + 1, ORC_OK;
            lo = g + 2;
        }
    }
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if ((rc = node_key(s, pg, upper, mid, &k))) return rc;
        if (k < key) lo = mid + 1;
        else hi = mid;
    }
    *at = lo;
    return ORC_OK;
}

/* Positions the walk at the first row whose key is `key` or above (li may be ln: the next leaf's first). */
static int seek(tscan *s, uint64_t key)
{
    s->top = 0;
    uint64_t pgno = s->root;
    bool has_lo = false, has_hi = false; /* what the parents say of this page's keys */
    ukey_bounds b = {0};
    for (;;) {
        bool leaf = s->top + 1 == s->depth;
        const uint8_t *pg;
        unsigned n = 0, upper = 0, lo;
        b.known = has_lo && has_hi && b.hi > b.lo;
        int rc = enter(s, pgno, leaf, &pg, &n, &upper);
        if (rc) return rc;
        if (leaf) {
            if ((rc = page_search(s, pg, upper, 0, n, key, &b, &lo))) return rc; /* the first node whose key is >= key */
            note_leaf(s, &s->shape, n, upper);
            s->leaf = pg;
            s->li = lo;
            s->ln = n;
            s->upper = upper;
            return ORC_OK;
        }
        /* the first child whose lower bound is above key; take the one before */
        if (key == UINT64_MAX) lo = n;
        else if ((rc = page_search(s, pg, upper, 1, n, key + 1, &b, &lo))) return rc;
        uint64_t child;
        if (!child_at(s, pg, upper, lo - 1, &child)) return bad(s, pgno, "has a node outside its node area");
        /* the child's keys lie between the separators beside it (lines the search read) */
        if (lo - 1 >= 1) {
            if ((rc = node_key(s, pg, upper, lo - 1, &b.lo))) return rc;
            has_lo = true;
        }
        if (lo < n) {
            if ((rc = node_key(s, pg, upper, lo, &b.hi))) return rc;
            has_hi = true;
        }
        s->up[s->top++] = (struct tscan_level){.page = pg, .i = lo, .n = n, .upper = upper};
        pgno = child;
        if (s->top + 1 == s->depth && has_lo && has_hi && b.hi > b.lo && s->shape.n)
            ask_for_leaf(s, pgno, &s->shape, guess_in(0, s->shape.n, b.lo, b.hi, key));
    }
}

/* Moves past emptied leaves to a node to read: ORC_OK (w.li < w.ln), ORC_ERR_NOT_FOUND at the end. */
static int at_node(tscan *s)
{
    while (s->li >= s->ln) {
        int rc = next_leaf(s);
        if (rc) return rc;
    }
    return ORC_OK;
}

/* The reader of `table` in this generation, set up when needed; NULL with *rc ROWS_BY_CURSOR or an error. */
static row_reader *reader_for(orc_txn *txn, uint32_t table, int *rc)
{
    *rc = ROWS_BY_CURSOR;
    if (txn->write) return NULL;
    if (!txn->readers && !(txn->readers = calloc(ROW_READERS, sizeof *txn->readers))) return NULL;
    for (unsigned i = 0; i < ROW_READERS; i++) {
        row_reader *r = &txn->readers[i];
        if (r->table == table && r->generation == txn->generation) return r->usable ? r : NULL;
    }
    row_reader *r = &txn->readers[txn->reader_next++ % ROW_READERS];
    r->table = 0;
    MDB_dbi dbi;
    if ((*rc = txn_table_dbi(txn, table, &dbi))) return NULL;
    memset(&r->w, 0, offsetof(tscan, up));
    int st = walk_setup(txn, table, dbi, &r->w);
    if (st != ORC_OK && st != ORC_ERR_NOT_FOUND) {
        *rc = st;
        return NULL;
    }
    r->table = table;
    r->generation = txn->generation;
    r->usable = st == ORC_OK;
    r->positioned = false;
    r->pk_known = false;
    r->w.left = UINT64_MAX; /* read by key: the record's count bounds nothing here */
    *rc = ROWS_BY_CURSOR;
    return r->usable ? r : NULL;
}

/* Reads node w.li (ORC_OK) into *key / *row and stands the reader after it. */
static int take(row_reader *r, uint64_t *key, MDB_val *row)
{
    tscan *w = &r->w;
    tscan_prefetch(w);
    int rc = tscan_node(w);
    if (rc) {
        r->positioned = false;
        return rc;
    }
    r->at = r->w.key;
    *key = r->w.key;
    row->mv_data = (void *)r->w.row;
    row->mv_size = r->w.size;
    return ORC_OK;
}

/* Steps at most this far above the last row (as NEXT_STEP_GAP in object.c): farther keys descend. */
#define STEP_GAP 64

int rows_get(orc_txn *txn, uint32_t table, uint64_t key, MDB_val *row)
{
    int rc;
    row_reader *r = reader_for(txn, table, &rc);
    if (!r) return rc;
    tscan *w = &r->w;
    uint64_t k = 0;
    if (r->positioned && key > r->at && key - r->at <= STEP_GAP) {
        for (;;) {
            rc = at_node(w);
            if (rc == ORC_ERR_NOT_FOUND) return rc; /* past the last row: still positioned */
            if (rc || (rc = node_key(w, w->leaf, w->upper, w->li, &k))) break;
            if (k == key) return take(r, &k, row);
            if (k > key) return ORC_ERR_NOT_FOUND;
            r->at = k; /* a row between: step over it */
            w->li++;
        }
        r->positioned = false;
        return rc;
    }
    r->positioned = false;
    if ((rc = seek(w, key))) return rc;
    r->positioned = key > 0;
    r->at = key - 1; /* seek stopped before the first key >= key */
    if (w->li >= w->ln) return ORC_ERR_NOT_FOUND; /* the leaf's keys are all below: no such row */
    if ((rc = node_key(w, w->leaf, w->upper, w->li, &k))) {
        r->positioned = false;
        return rc;
    }
    if (k != key) return ORC_ERR_NOT_FOUND;
    return take(r, &k, row);
}

int rows_next(orc_txn *txn, uint32_t table, uint64_t after, uint64_t *key, MDB_val *row)
{
    int rc;
    row_reader *r = reader_for(txn, table, &rc);
    if (!r) return rc;
    tscan *w = &r->w;
    if (!r->positioned || r->at != after) {
        r->positioned = false;
        if (after == UINT64_MAX) return ORC_ERR_NOT_FOUND;
        if ((rc = seek(w, after + 1))) return rc;
        r->positioned = true;
        r->at = after;
    }
    rc = at_node(w);
    if (rc) {
        if (rc != ORC_ERR_NOT_FOUND) r->positioned = false;
        return rc;
    }
    return take(r, key, row);
}

/* ------------------------------------------------------------------------ */
/* FINDING PRIMARY KEYS                                                     */
/* ------------------------------------------------------------------------ */
/*
 * A primary-key lookup in a read transaction descends the class's index ("p<t>":
 * keyenc(value) -> u64 LE object key) itself, as mdb_get would: the index's record
 * from the main database, found once per snapshot and kept in the table's row
 * reader (checked against mdb_stat of the handle, as a walk's is), then one page
 * search per level (SEARCHING A PAGE) in LMDB's default key order: bytes, then the
 * shorter key first. The pages are checked as the walk checks a table's: page
 * number and flags, node offsets, a key inside its page, a leaf value of exactly
 * eight bytes beside its key. The lookup's two descents (index, then table) are
 * each a TLB miss and the cache misses of a page search, which is what the guess
 * cuts. Indexes of tables the walk does not read, and write transactions, use
 * mdb_get (ROWS_BY_CURSOR).
 */

static int pk_bad(const tscan *s, uint64_t pgno, const char *what)
{
    return orc_fail(ORC_ERR_CORRUPT, "table %u's primary-key index is damaged: page %llu %s", (unsigned)s->table,
                    (unsigned long long)pgno, what);
}

/* The key of node i of a leaf or branch page of the index: its bytes, checked to lie in the page. */
static int bnode_key(const tscan *s, const uint8_t *pg, unsigned upper, unsigned i, const uint8_t **key, size_t *len)
{
    unsigned off = ld16(pg + PAGEHDRSZ + 2u * i);
    if (off < upper || off > s->psize - NODESIZE) return pk_bad(s, ld64(pg), "has a node outside its node area");
    unsigned ks = ld16(pg + off + 6);
    if (ks > s->psize - NODESIZE - off) return pk_bad(s, ld64(pg), "has a key running past its page");
    *key = pg + off + NODESIZE;
    *len = ks;
    return ORC_OK;
}

/* LMDB's default order (mdb_cmp_memn): the common length's bytes, then the shorter key first. */
static int bkey_cmp(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    int c = memcmp(a, b, na < nb ? na : nb);
    return c ? c : (na > nb) - (na < nb);
}

/* The eight bytes of `k` from `at` on as a big-endian number (zeros past its end): ordered as the keys are. */
static uint64_t bkey_num(const uint8_t *k, size_t len, size_t at)
{
    if (at + 8 <= len) return ld64be(k + at);
    if (at >= len) return 0;
    uint64_t v = 0;
    for (size_t j = at; j < len; j++) v = v << 8 | k[j];
    return v << (8 * (at + 8 - len));
}

/* How many leading bytes a and b share, up to n. */
static size_t common_prefix(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t c = 0;
    while (c + 8 <= n && ld64(a + c) == ld64(b + c)) c += 8;
    while (c < n && a[c] == b[c]) c++;
    return c;
}

/* The bounds a parent gives an index page's keys (ukey_bounds): known when both are set. */
typedef struct bkey_bounds {
    const uint8_t *lo, *hi;
    size_t nlo, nhi;
} bkey_bounds;

/* The guess at the answer in [lo, hi - 1] for t among keys spread evenly from f to l: the eight bytes after their common prefix. */
static unsigned bguess(unsigned lo, unsigned hi, const uint8_t *f, size_t fn, const uint8_t *l, size_t ln, const uint8_t *t,
                       size_t tn)
{
    size_t c = common_prefix(f, l, fn < ln ? fn : ln);
    return guess_in(lo, hi, bkey_num(f, fn, c), bkey_num(l, ln, c), bkey_num(t, tn, c));
}

/*
 * The first node in [from, n) of index page `pg` whose key is above `t` (`above`)
 * or not below it, into *at (n if none); as page_search, with byte-string keys.
 */
static int bpage_search(const tscan *s, const uint8_t *pg, unsigned upper, unsigned from, unsigned n,
                        const uint8_t *t, size_t tn, bool above, const bkey_bounds *b, unsigned *at)
{
    unsigned lo = from, hi = n; /* the answer lies in [lo, hi] */
    const uint8_t *k = NULL;
    size_t kn = 0;
    int rc, want = above ? 1 : 0; /* a node answers when bkey_cmp(node, t) >= want */
    if (hi - lo > 4) {
        unsigned g;
        if (b && b->lo && b->hi) {
            g = bguess(lo, hi, b->lo, b->nlo, b->hi, b->nhi, t, tn);
        } else {
            const uint8_t *f = NULL, *l = NULL;
            size_t fn = 0, ln = 0;
            if ((rc = bnode_key(s, pg, upper, lo, &f, &fn)) || (rc = bnode_key(s, pg, upper, hi - 1, &l, &ln))) return rc;
            if (bkey_cmp(f, fn, t, tn) >= want) return *at = lo, ORC_OK;
            if (bkey_cmp(l, ln, t, tn) < want) return *at = hi, ORC_OK;
            g = bguess(lo + 1, hi, f, fn, l, ln, t, tn);
        }
        /* the guess, and its neighbour on the answer's side */
        if ((rc = bnode_key(s, pg, upper, g, &k, &kn))) return rc;
        if (bkey_cmp(k, kn, t, tn) >= want) {
            if (g == lo) return *at = lo, ORC_OK;
            if ((rc = bnode_key(s, pg, upper, g - 1, &k, &kn))) return rc;
            if (bkey_cmp(k, kn, t, tn) < want) return *at = g, ORC_OK;
            hi = g - 1;
        } else {
            if (g + 1 == hi) return *at = hi, ORC_OK;
            if ((rc = bnode_key(s, pg, upper, g + 1, &k, &kn))) return rc;
            if (bkey_cmp(k, kn, t, tn) >= want) return *at = g + 1, ORC_OK;
            lo = g + 2;
        }
    }
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if ((rc = bnode_key(s, pg, upper, mid, &k, &kn))) return rc;
        if (bkey_cmp(k, kn, t, tn) < want) lo = mid + 1;
        else hi = mid;
    }
    *at = lo;
    return ORC_OK;
}

/* The index's record for reader r's snapshot: r->pk_root and r->pk_depth, or r->pk_walk false (use mdb_get). */
static int pk_setup(orc_txn *txn, row_reader *r)
{
    r->pk_known = true;
    r->pk_walk = false;
    MDB_dbi dbi;
    int rc = txn_pk_dbi(txn, r->table, &dbi);
    if (rc) return rc == ORC_ERR_NOT_FOUND ? ORC_OK : rc;
    MDB_stat st;
    const uint8_t *rec = db_record(txn, r->table, true, dbi, 1, &st);
    if (!rec || st.ms_psize != r->w.psize) return ORC_OK;
    unsigned depth = ld16(rec + 6);
    if (depth < 1 || depth > MAX_DEPTH) return pk_bad(&r->w, ld64(rec + 40), "is the root of a tree of impossible depth");
    r->pk_root = ld64(rec + 40);
    r->pk_depth = depth;
    r->pk_walk = true;
    return ORC_OK;
}

int pk_get(orc_txn *txn, uint32_t table, const uint8_t *t, size_t tn, uint64_t *key)
{
    int rc;
    row_reader *r = reader_for(txn, table, &rc);
    if (!r) return rc;
    if (!r->pk_known && (rc = pk_setup(txn, r))) return rc;
    if (!r->pk_walk) return ROWS_BY_CURSOR;
    const tscan *s = &r->w;
    uint64_t pgno = r->pk_root;
    bkey_bounds b = {0}; /* what the parents say of the page's keys */
    const uint8_t *k = NULL;
    size_t kn = 0;
    for (unsigned level = 0;; level++) {
        bool leaf = level + 1 == r->pk_depth;
        const uint8_t *pg;
        unsigned n = 0, upper = 0, i;
        const char *fault = page_fault(s, pgno, leaf, &pg, &n, &upper);
        if (fault) return pk_bad(s, pgno, fault);
        if (!leaf) {
            /* the last child whose lower bound is t or below (node 0's bound is below every key) */
            if ((rc = bpage_search(s, pg, upper, 1, n, t, tn, true, &b, &i))) return rc;
            if (!child_at(s, pg, upper, i - 1, &pgno)) return pk_bad(s, pgno, "has a node outside its node area");
            /* the child's keys lie between the separators beside it (lines the search read) */
            if (i - 1 >= 1 && (rc = bnode_key(s, pg, upper, i - 1, &b.lo, &b.nlo))) return rc;
            if (i < n && (rc = bnode_key(s, pg, upper, i, &b.hi, &b.nhi))) return rc;
            if (level + 2 == r->pk_depth && b.lo && b.hi && r->pk_shape.n)
                ask_for_leaf(s, pgno, &r->pk_shape, bguess(0, r->pk_shape.n, b.lo, b.nlo, b.hi, b.nhi, t, tn));
            continue;
        }
        if ((rc = bpage_search(s, pg, upper, 0, n, t, tn, false, &b, &i))) return rc;
        note_leaf(s, &r->pk_shape, n, upper);
        if (i >= n) return ORC_ERR_NOT_FOUND;
        if ((rc = bnode_key(s, pg, upper, i, &k, &kn))) return rc;
        if (bkey_cmp(k, kn, t, tn) != 0) return ORC_ERR_NOT_FOUND;
        const uint8_t *node = k - NODESIZE;
        size_t size = (size_t)ld16(node) | (size_t)ld16(node + 2) << 16;
        if (ld16(node + 4) != 0 || size > 8 || (size_t)(k + kn + size - pg) > s->psize
            || !pk_value_get(k + kn, size, txn->core->format, key))
            return pk_bad(s, pgno, "has an entry whose value is not an object key");
        return ORC_OK;
    }
}
