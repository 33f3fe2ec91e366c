/*
 * index.c — secondary indexes and backlinks.
 *
 * SECONDARY INDEX ("idx"). A value's group is u32 BE table | u16 BE col |
 * keyenc(value); keyenc is prefix-free, so groups order as their values do.
 *
 * CHUNKS (format 3 files): the objects holding a value are kept in chunks:
 *   group | u64 BE first object key  -> the chunk's further keys, ascending, each
 *                                       the LEB128 varint of its distance (>= 1)
 *                                       from the key before it
 * A chunk holds at most IDX_CHUNK_MAX bytes of distances, and each starts above
 * the end of the one before it in its group. One LMDB entry carries up to 241
 * objects: the node header and group are paid per chunk, not per object, and an
 * object costs the bytes of its distance (one, for a value held by every 128th
 * object or more often). An insert or removal reads the chunk where the key
 * belongs (the last one starting at or below it) and writes it back; keys past
 * the group's last key fill its last chunk and then start new ones, and a chunk
 * overfilled anywhere else is split evenly, leaving room on both sides. A chunk
 * emptied by removals goes; chunks are never merged.
 *
 * ENTRIES (files of formats 1 and 2): one LMDB key per (object, indexed column):
 *   group | u64 BE object key  -> empty
 *
 * Equal values are never duplicates of one LMDB key, so no MDB_DUPSORT
 * database is needed (LMDB 0.9.24's duplicate-key cursors have known bugs).
 * keyenc truncates long strings, so a scan yields candidates: callers recheck
 * the row. Scans treat both bounds as inclusive for the same reason.
 *
 * DEFERRED INSERTS: idx_insert records the entry in txn->idx_pending instead of
 * putting it. idx_flush puts the pending entries sorted, before anything reads or
 * removes index entries in the transaction (idx_scan, idx_remove, idx_drop) and
 * at commit: sorted, each group's keys are merged into its chunks in one pass
 * (one chunk read per chunk touched, not per key), and what lies past the
 * database's last key is appended (MDB_APPEND). Inserted one by one, the entries
 * of a bulk insert would land at one insertion point per indexed value, and every
 * page split there leaves a half-empty page behind; appended, the pages are full.
 * A pending buffer past IDX_PENDING_MAX bytes is flushed at once.
 *
 * BACKLINKS ("blink"): one LMDB key per (target, origin object, origin column):
 *   u32 BE target table | u64 BE target key | u32 BE origin table |
 *   u16 BE origin col | u64 BE origin key  -> u32 LE number of references
 * The count covers a list holding the same target several times.
 */
#include "index.h"

#include <stdint.h>
#include <stdlib.h>

#define BLINK_KEY 26
#define GROUP_MAX (IDX_PREFIX_BYTES + KEYENC_MAX) /* a value group's longest */

static int idx_key(orc_txn *txn, uint32_t table, uint16_t col, const orc_value *v, uint64_t key, orc_buf *b)
{
    b->size = 0;
    int rc = buf_reserve(b, IDX_PREFIX_BYTES + 16);
    if (rc) return rc;
    st32be(b->data, table);
    st16be(b->data + 4, col);
    b->size = IDX_PREFIX_BYTES;
    if ((rc = keyenc(b, v, NULL))) return rc;
    if ((rc = buf_reserve(b, 8))) return rc;
    st64be(b->data + b->size, key);
    b->size += 8;
    return ORC_OK;
}

static int mdb_write_rc(orc_txn *txn, int mrc, const char *what)
{
    if (mrc == MDB_MAP_FULL) return ORC_ERR_MAP_FULL;
    return txn_poison(txn, orc_fail_mdb(mrc, what));
}

#define IDX_PENDING_MAX ((size_t)64 << 20)

int idx_insert(orc_txn *txn, uint32_t table, uint16_t col, const orc_value *v, uint64_t key)
{
    int rc = idx_key(txn, table, col, v, key, &txn->scratch2);
    if (rc) return rc;
    orc_buf *p = &txn->idx_pending;
    if ((rc = buf_reserve(p, 2 + txn->scratch2.size))) return rc;
    st16(p->data + p->size, (uint16_t)txn->scratch2.size);
    memcpy(p->data + p->size + 2, txn->scratch2.data, txn->scratch2.size);
    p->size += 2 + txn->scratch2.size;
    txn->idx_pending_n++;
    return p->size > IDX_PENDING_MAX ? idx_flush(txn) : ORC_OK;
}

void idx_forget(orc_txn *txn)
{
    txn->idx_pending.size = 0;
    txn->idx_pending_n = 0;
}

/* LMDB's default key order: bytes, then length. Entries are u16 size | key. */
static int entry_order(const void *a, const void *b)
{
    const uint8_t *x = *(const uint8_t *const *)a, *y = *(const uint8_t *const *)b;
    size_t nx = ld16(x), ny = ld16(y);
    int c = memcmp(x + 2, y + 2, nx < ny ? nx : ny);
    return c ? c : (nx > ny) - (nx < ny);
}

/*
 * ORDERING BY VALUE GROUPS
 * An entry is its value's group (table | col | keyenc(value)) and then the object
 * key. keyenc is prefix-free, so no group is a prefix of another and the entries'
 * order is the groups' order, then the object keys'. A bulk insert gives few groups
 * (one per distinct value) whose keys arrive ascending: the entries are ordered by
 * hashing each into its group (one pass over the buffer) and sorting the groups
 * only, instead of comparing entries n log n times through pointers scattered over
 * the buffer. A group whose keys did not arrive ascending is sorted by key; when
 * the groups are not much fewer than the entries, qsort is as good and is used.
 */
typedef struct igroup {
    const uint8_t *v;  /* the group's bytes (an entry without its object key) */
    uint32_t nv;
    uint32_t first, last; /* the group's chain of entries: next[i] follows entry i */
    uint32_t count;
    uint64_t top;         /* the largest object key so far */
    bool ascending;
} igroup;

static int group_order(const void *a, const void *b)
{
    const igroup *x = a, *y = b;
    int c = memcmp(x->v, y->v, x->nv < y->nv ? x->nv : y->nv);
    return c ? c : (x->nv > y->nv) - (x->nv < y->nv);
}

static int u64_order(const void *a, const void *b)
{
    uint64_t x = ld64be(*(const uint8_t *const *)a), y = ld64be(*(const uint8_t *const *)b);
    return (x > y) - (x < y);
}

static uint64_t group_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) h = (h ^ ld64(p + i)) * 0xFF51AFD7ED558CCDULL;
    uint64_t tail = 0;
    if (n > i) memcpy(&tail, p + i, n - i);
    h = (h ^ tail) * 0xC4CEB9FE1A85EC53ULL;
    return h ^ (h >> 29);
}

/*
 * Puts e[0..n) (entry pointers in buffer order) into LMDB key order through value
 * groups. Returns 1 when it did, 0 when the caller should qsort (too many groups,
 * or an entry too short to hold an object key), -1 when out of memory.
 */
static int order_by_groups(const uint8_t **e, size_t n)
{
    size_t gmax = n / 4, slots = 64;
    while (slots < 2 * gmax) slots *= 2;
    igroup *g = malloc((gmax ? gmax : 1) * sizeof *g);
    uint32_t *slot = malloc(slots * sizeof *slot), *next = malloc(n * sizeof *next);
    const uint8_t **tmp = malloc(n * sizeof *tmp);
    int result = -1;
    if (!g || !slot || !next || !tmp) goto out;
    memset(slot, 0xFF, slots * sizeof *slot);
    size_t ng = 0;
    result = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = ld16(e[i]);
        if (len < IDX_PREFIX_BYTES + 8) goto out;
        const uint8_t *v = e[i] + 2;
        uint32_t nv = (uint32_t)(len - 8);
        uint64_t key = ld64be(v + nv);
        size_t at = group_hash(v, nv) & (slots - 1);
        while (slot[at] != UINT32_MAX && (g[slot[at]].nv != nv || memcmp(g[slot[at]].v, v, nv)))
            at = (at + 1) & (slots - 1);
        if (slot[at] == UINT32_MAX) {
            if (ng == gmax) goto out; /* about as many groups as entries: qsort */
            slot[at] = (uint32_t)ng;
            g[ng++] = (igroup){.v = v, .nv = nv, .first = (uint32_t)i, .last = (uint32_t)i, .count = 1,
                               .top = key, .ascending = true};
        } else {
            igroup *gr = &g[slot[at]];
            next[gr->last] = (uint32_t)i;
            gr->last = (uint32_t)i;
            gr->count++;
            if (key < gr->top) gr->ascending = false;
            else gr->top = key;
        }
    }
    qsort(g, ng, sizeof *g, group_order);
    for (size_t j = 1; j < ng; j++)
        if (g[j - 1].nv < g[j].nv && !memcmp(g[j - 1].v, g[j].v, g[j - 1].nv)) goto out; /* not prefix-free */
    size_t o = 0;
    for (size_t j = 0; j < ng; j++) {
        size_t start = o;
        for (uint32_t i = g[j].first, c = 0; c < g[j].count; c++, i = next[i]) tmp[o++] = e[i];
        if (!g[j].ascending) {
            /* sort by object key: the last 8 bytes */
            for (size_t m = start; m < o; m++) tmp[m] += 2 + g[j].nv;
            qsort(tmp + start, o - start, sizeof *tmp, u64_order);
            for (size_t m = start; m < o; m++) tmp[m] -= 2 + g[j].nv;
        }
    }
    memcpy(e, tmp, n * sizeof *e);
    result = 1;
out:
    free(g);
    free(slot);
    free(next);
    free(tmp);
    return result;
}

int idx_order(const uint8_t **e, size_t n)
{
    size_t ordered = 1; /* entries that arrive in order (ascending values) need no sort */
    while (ordered < n && entry_order(&e[ordered - 1], &e[ordered]) <= 0) ordered++;
    if (ordered >= n) return ORC_OK;
    int grouped = n >= 64 && n < UINT32_MAX ? order_by_groups(e, n) : 0;
    if (grouped < 0) return ORC_ERR_NOMEM;
    if (!grouped) qsort(e, n, sizeof *e, entry_order);
    return ORC_OK;
}

/*
 * Puts in ascending key order: appended (MDB_APPEND: no descent, full pages) once past
 * the database's last key when the puts began (copied: the puts move pages).
 */
typedef struct appender {
    uint8_t last[GROUP_MAX + 8];
    size_t nlast;
    bool appending;
} appender;

static int appender_start(orc_txn *txn, MDB_cursor *cur, appender *ap)
{
    MDB_val k, d;
    int mrc = mdb_cursor_get(cur, &k, &d, MDB_LAST);
    ap->appending = mrc == MDB_NOTFOUND;
    ap->nlast = 0;
    if (mrc == 0 && k.mv_size <= sizeof ap->last) {
        memcpy(ap->last, k.mv_data, k.mv_size);
        ap->nlast = k.mv_size;
    } else if (mrc == 0) {
        ap->nlast = SIZE_MAX; /* never written: index keys are at most sizeof ap->last bytes */
    } else if (mrc != MDB_NOTFOUND) {
        return txn_poison(txn, orc_fail_mdb(mrc, "reading the index's last key"));
    }
    return ORC_OK;
}

/* MDB_APPEND for a key past the last one, else 0; keys must come in ascending order. */
static unsigned append_flag(appender *ap, const uint8_t *key, size_t kn)
{
    if (!ap->appending && ap->nlast != SIZE_MAX) {
        int c = memcmp(key, ap->last, kn < ap->nlast ? kn : ap->nlast);
        ap->appending = c > 0 || (c == 0 && kn > ap->nlast);
    }
    return ap->appending ? MDB_APPEND : 0;
}

/* Format 1 and 2 files: one LMDB key per entry, e[] in key order. */
static int entries_put(orc_txn *txn, const uint8_t **e, size_t n)
{
    MDB_cursor *cur = NULL;
    int mrc = mdb_cursor_open(txn->mdb, txn->core->dbi_idx, &cur);
    if (mrc) return mdb_write_rc(txn, mrc, "adding index entries");
    appender ap;
    int rc = appender_start(txn, cur, &ap);
    for (size_t i = 0; i < n && !rc && !mrc; i++) {
        /* the ordered entries lie all over the pending buffer: fetch ahead */
        if (i + 16 < n) __builtin_prefetch(e[i + 16]);
        MDB_val k = {ld16(e[i]), (void *)(e[i] + 2)}, d = {0, NULL};
        unsigned flags = append_flag(&ap, k.mv_data, k.mv_size);
        mrc = mdb_cursor_put(cur, &k, &d, flags);
        /* the same entry twice: the second one changes nothing */
        if (mrc == MDB_KEYEXIST && flags) mrc = 0;
    }
    mdb_cursor_close(cur);
    if (rc) return rc;
    return mrc ? mdb_write_rc(txn, mrc, "adding index entries") : ORC_OK;
}

static int chunks_put(orc_txn *txn, const uint8_t **e, size_t n);

int idx_flush(orc_txn *txn)
{
    size_t n = txn->idx_pending_n;
    if (!n) return ORC_OK;
    const uint8_t **e = malloc(n * sizeof *e);
    if (!e) return txn_poison(txn, orc_fail(ORC_ERR_NOMEM, "sorting %zu index entries", n));
    const uint8_t *at = txn->idx_pending.data;
    for (size_t i = 0; i < n; i++) {
        e[i] = at;
        at += 2 + ld16(at);
    }
    if (idx_order(e, n)) {
        free(e);
        return txn_poison(txn, orc_fail(ORC_ERR_NOMEM, "sorting %zu index entries", n));
    }
    int rc = txn->core->format >= 3 ? chunks_put(txn, e, n) : entries_put(txn, e, n);
    free(e);
    idx_forget(txn);
    return rc;
}

/*
 * idx_flush for a read outside any write operation: a full map is grown here (the
 * transaction is replayed, which defers its entries again) and the flush retried.
 */
static int flush_for_read(orc_txn *txn)
{
    for (;;) {
        int rc = idx_flush(txn);
        if (rc != ORC_ERR_MAP_FULL || txn->op_depth || txn->replaying) return rc;
        if ((rc = txn_grow(txn, txn->changeset.size))) return rc;
    }
}

/* ---- chunks (format 3 files) -------------------------------------------------------- */

int idx_chunk_decode(uint64_t first, const uint8_t *d, size_t n, uint64_t *out, size_t *count)
{
    if (n > IDX_CHUNK_MAX) return ORC_ERR_CORRUPT;
    size_t c = 0, at = 0;
    uint64_t k = first;
    out[c++] = k;
    while (at < n) {
        size_t from = at;
        uint64_t delta;
        /* cut short, wider than 64 bits, or not in its fewest bytes (a last byte of zero) */
        if (!leb_get(d, n, &at, &delta) || (at - from > 1 && d[at - 1] == 0)) return ORC_ERR_CORRUPT;
        if (delta == 0 || delta > UINT64_MAX - k) return ORC_ERR_CORRUPT;
        out[c++] = k += delta;
    }
    *count = c;
    return ORC_OK;
}

/* A value's chunk, copied out of LMDB (writes move pages). */
typedef struct chunk {
    bool found;
    uint8_t key[GROUP_MAX + 8];
    size_t kn;
    size_t n;
    uint64_t keys[IDX_CHUNK_KEYS];
    bool has_next;       /* the value has a chunk after this one, */
    uint64_t next_first; /* whose first key this is */
} chunk;

static bool in_group(const MDB_val *k, const uint8_t *g, size_t gn)
{
    return k->mv_size == gn + 8 && memcmp(k->mv_data, g, gn) == 0;
}

static int chunk_damaged(const uint8_t *key, size_t kn)
{
    return orc_fail(ORC_ERR_CORRUPT, "an index chunk of table %u column %u is damaged",
                    kn >= IDX_PREFIX_BYTES ? ld32be(key) : 0, kn >= IDX_PREFIX_BYTES ? ld16be(key + 4) : 0);
}

/*
 * The chunk of group g (table | col | keyenc(value), gn bytes) where `key` belongs: the
 * last one whose first key is `key` or below, else the group's first chunk; c->found
 * false when the group has none. Leaves `cur` anywhere.
 */
static int find_chunk(orc_txn *txn, MDB_cursor *cur, const uint8_t *g, size_t gn, uint64_t key, chunk *c)
{
    uint8_t seek[GROUP_MAX + 8];
    memcpy(seek, g, gn);
    st64be(seek + gn, key);
    MDB_val k = {gn + 8, seek}, d;
    c->found = c->has_next = false;
    int mrc = mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE);
    if (mrc && mrc != MDB_NOTFOUND) return orc_fail_mdb(mrc, "finding an index chunk");
    bool after = mrc == 0 && in_group(&k, g, gn); /* a chunk of the group starts at or after key */
    if (!after || ld64be((const uint8_t *)k.mv_data + gn) != key) {
        MDB_val pk, pd;
        int prc = mdb_cursor_get(cur, &pk, &pd, mrc == 0 ? MDB_PREV : MDB_LAST);
        if (prc && prc != MDB_NOTFOUND) return orc_fail_mdb(prc, "finding an index chunk");
        if (prc == 0 && in_group(&pk, g, gn)) {
            k = pk;
            d = pd;
        } else if (after) {
            k = (MDB_val){gn + 8, seek};
            if ((mrc = mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE))) return orc_fail_mdb(mrc, "finding an index chunk");
        } else {
            return ORC_OK;
        }
    }
    c->found = true;
    c->kn = k.mv_size;
    memcpy(c->key, k.mv_data, k.mv_size);
    if (idx_chunk_decode(ld64be(c->key + gn), d.mv_data, d.mv_size, c->keys, &c->n)) return chunk_damaged(c->key, c->kn);
    mrc = mdb_cursor_get(cur, &k, &d, MDB_NEXT);
    if (mrc && mrc != MDB_NOTFOUND) return orc_fail_mdb(mrc, "finding an index chunk");
    if (mrc == 0 && in_group(&k, g, gn)) {
        c->has_next = true;
        c->next_first = ld64be((const uint8_t *)k.mv_data + gn);
    }
    return ORC_OK;
}

static int put_chunk(orc_txn *txn, appender *ap, const uint8_t *key, size_t kn, const uint8_t *data, size_t dn)
{
    unsigned flags = ap ? append_flag(ap, key, kn) : 0;
    MDB_val k = {kn, (void *)key}, d = {dn, (void *)data};
    int mrc = mdb_put(txn->mdb, txn->core->dbi_idx, &k, &d, flags);
    return mrc ? mdb_write_rc(txn, mrc, "writing an index chunk") : ORC_OK;
}

/*
 * Replaces chunk c (when found) of group g by chunks holding m[0..nm), ascending.
 * Appended keys (`appended`: m starts with c's keys) fill each chunk before the next
 * starts, so ascending inserts leave full chunks; otherwise an overfull chunk is split
 * into even parts, leaving room on both sides for later inserts between its keys.
 */
static int write_chunks(orc_txn *txn, const uint8_t *g, size_t gn, const chunk *c, const uint64_t *m, size_t nm,
                        bool appended, appender *ap)
{
    if (c->found && (nm == 0 || m[0] != c->keys[0])) {
        MDB_val k = {c->kn, (void *)c->key};
        int mrc = mdb_del(txn->mdb, txn->core->dbi_idx, &k, NULL);
        if (mrc) return mdb_write_rc(txn, mrc, "removing an index chunk");
    }
    size_t total = 0, target = IDX_CHUNK_MAX;
    for (size_t i = 1; i < nm; i++) total += leb_size(m[i] - m[i - 1]);
    if (!appended && total > IDX_CHUNK_MAX) {
        size_t parts = (total + IDX_CHUNK_MAX - 1) / IDX_CHUNK_MAX;
        target = (total + parts - 1) / parts;
    }
    uint8_t key[GROUP_MAX + 8], data[IDX_CHUNK_MAX];
    memcpy(key, g, gn);
    for (size_t s = 0; s < nm;) {
        size_t e = s + 1, used = 0;
        while (e < nm) {
            uint64_t delta = m[e] - m[e - 1];
            if (used + leb_size(delta) > target) break;
            used += leb_put(data + used, delta);
            e++;
        }
        if (!(appended && c->found && s == 0 && e == c->n)) { /* else: the chunk as it was */
            st64be(key + gn, m[s]);
            int rc = put_chunk(txn, ap, key, gn + 8, data, used);
            if (rc) return rc;
        }
        s = e;
    }
    return ORC_OK;
}

/* e[0..n) in key order: each value group's keys are merged into its chunks. */
static int chunks_put(orc_txn *txn, const uint8_t **e, size_t n)
{
    MDB_cursor *cur = NULL;
    int mrc = mdb_cursor_open(txn->mdb, txn->core->dbi_idx, &cur);
    if (mrc) return txn_poison(txn, orc_fail_mdb(mrc, "opening an index cursor"));
    chunk *c = malloc(sizeof *c);
    appender *ap = malloc(sizeof *ap);
    uint64_t *m = NULL;
    size_t mcap = 0;
    int rc = c && ap ? appender_start(txn, cur, ap) : txn_poison(txn, orc_fail(ORC_ERR_NOMEM, "adding index entries"));
    for (size_t i = 0; i < n && !rc;) {
        const uint8_t *g = e[i] + 2;
        size_t gn = ld16(e[i]) - 8, j = i;
        while (j < n && ld16(e[j]) == gn + 8 && memcmp(e[j] + 2, g, gn) == 0) j++;
        for (size_t a = i; a < j && !rc;) {
            if ((rc = find_chunk(txn, cur, g, gn, ld64be(e[a] + 2 + gn), c))) {
                rc = txn_poison(txn, rc);
                break;
            }
            size_t b = a;
            while (b < j && (!c->has_next || ld64be(e[b] + 2 + gn) < c->next_first)) b++;
            size_t want = (c->found ? c->n : 0) + (b - a);
            if (want > mcap) {
                size_t cap = mcap ? mcap : 256;
                while (cap < want) cap *= 2;
                uint64_t *grown = realloc(m, cap * sizeof *m);
                if (!grown) {
                    rc = txn_poison(txn, orc_fail(ORC_ERR_NOMEM, "adding %zu index entries", want));
                    break;
                }
                m = grown;
                mcap = cap;
            }
            /* merge the chunk's keys and the new ones; a key already there changes nothing */
            size_t nm = 0, x = 0, nc = c->found ? c->n : 0, added = 0;
            /* past the value's last key: fill chunks; anywhere else: split evenly */
            bool appended = c->found && !c->has_next && ld64be(e[a] + 2 + gn) > c->keys[c->n - 1];
            for (size_t y = a; y < b; y++) {
                uint64_t k = ld64be(e[y] + 2 + gn);
                while (x < nc && c->keys[x] < k) m[nm++] = c->keys[x++];
                if ((x < nc && c->keys[x] == k) || (nm && m[nm - 1] == k)) continue;
                m[nm++] = k;
                added++;
            }
            while (x < nc) m[nm++] = c->keys[x++];
            if (added) rc = write_chunks(txn, g, gn, c, m, nm, appended || !c->found, ap);
            a = b;
        }
        i = j;
    }
    mdb_cursor_close(cur);
    free(c);
    free(ap);
    free(m);
    return rc;
}

static int chunks_remove(orc_txn *txn, const uint8_t *g, size_t gn, uint32_t table, uint16_t col, uint64_t key)
{
    MDB_cursor *cur;
    int mrc = mdb_cursor_open(txn->mdb, txn->core->dbi_idx, &cur);
    if (mrc) return txn_poison(txn, orc_fail_mdb(mrc, "opening an index cursor"));
    chunk *c = malloc(sizeof *c);
    int rc = c ? find_chunk(txn, cur, g, gn, key, c) : orc_fail(ORC_ERR_NOMEM, "removing an index entry");
    mdb_cursor_close(cur);
    if (rc) {
        free(c);
        return txn_poison(txn, rc);
    }
    size_t at = 0;
    while (c->found && at < c->n && c->keys[at] < key) at++;
    if (!c->found || at == c->n || c->keys[at] != key) {
        free(c);
        return txn_poison(txn, orc_fail(ORC_ERR_CORRUPT, "index entry of table %u column %u for object %llu is missing",
                                        table, col, (unsigned long long)key));
    }
    uint64_t m[IDX_CHUNK_KEYS];
    size_t nm = 0;
    for (size_t i = 0; i < c->n; i++)
        if (i != at) m[nm++] = c->keys[i];
    rc = write_chunks(txn, g, gn, c, m, nm, false, NULL);
    free(c);
    return rc;
}

int idx_contains(orc_txn *txn, uint32_t table, uint16_t col, const orc_value *v, uint64_t key, bool *found)
{
    *found = false;
    orc_buf b = {0};
    int rc = idx_key(txn, table, col, v, key, &b);
    if (rc) {
        buf_free(&b);
        return rc;
    }
    if (txn->core->format < 3) {
        MDB_val k = {b.size, b.data}, d;
        int mrc = mdb_get(txn->mdb, txn->core->dbi_idx, &k, &d);
        *found = mrc == 0;
        rc = mrc && mrc != MDB_NOTFOUND ? orc_fail_mdb(mrc, "reading an index entry") : ORC_OK;
    } else {
        chunk *c = malloc(sizeof *c);
        MDB_cursor *cur = NULL;
        int mrc = c ? mdb_cursor_open(txn->mdb, txn->core->dbi_idx, &cur) : 0;
        rc = !c ? orc_fail(ORC_ERR_NOMEM, "reading an index entry")
             : mrc ? orc_fail_mdb(mrc, "opening an index cursor")
                   : find_chunk(txn, cur, b.data, b.size - 8, key, c);
        for (size_t i = 0; !rc && c->found && i < c->n; i++) *found |= c->keys[i] == key;
        if (cur) mdb_cursor_close(cur);
        free(c);
    }
    buf_free(&b);
    return rc;
}

int idx_remove(orc_txn *txn, uint32_t table, uint16_t col, const orc_value *v, uint64_t key)
{
    int rc = idx_flush(txn);
    if (rc) return rc;
    rc = idx_key(txn, table, col, v, key, &txn->scratch2);
    if (rc) return rc;
    if (txn->core->format >= 3) return chunks_remove(txn, txn->scratch2.data, txn->scratch2.size - 8, table, col, key);
    MDB_val k = {txn->scratch2.size, txn->scratch2.data};
    int mrc = mdb_del(txn->mdb, txn->core->dbi_idx, &k, NULL);
    if (mrc == MDB_NOTFOUND)
        return txn_poison(txn, orc_fail(ORC_ERR_CORRUPT, "index entry of table %u column %u for object %llu is missing",
                                        table, col, (unsigned long long)key));
    return mrc ? mdb_write_rc(txn, mrc, "removing an index entry") : ORC_OK;
}

int idx_build(orc_txn *txn, uint32_t table, uint16_t col)
{
    const orc_class *c = schema_class(txn, table);
    if (!c) return orc_fail(ORC_ERR_NOT_FOUND, "no class with table id %u", table);
    tscan s;
    int rc = tscan_open(txn, table, &s);
    if (rc) return rc;
    while ((rc = tscan_next(&s)) == ORC_OK) {
        orc_value v;
        if ((rc = row_get(c, s.row, s.size, col, &v))) break;
        if ((rc = idx_insert(txn, table, col, &v, s.key))) break;
    }
    tscan_close(&s);
    return rc == ORC_ERR_NOT_FOUND ? ORC_OK : rc;
}

int idx_drop(orc_txn *txn, uint32_t table, uint16_t col)
{
    int rc = idx_flush(txn);
    if (rc) return rc;
    MDB_cursor *cur;
    int mrc = mdb_cursor_open(txn->mdb, txn->core->dbi_idx, &cur);
    if (mrc) return orc_fail_mdb(mrc, "opening an index cursor");
    uint8_t prefix[IDX_PREFIX_BYTES];
    st32be(prefix, table);
    st16be(prefix + 4, col);
    MDB_val k = {IDX_PREFIX_BYTES, prefix}, d;
    mrc = mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE);
    while (mrc == 0 && k.mv_size >= IDX_PREFIX_BYTES && memcmp(k.mv_data, prefix, IDX_PREFIX_BYTES) == 0) {
        if ((mrc = mdb_cursor_del(cur, 0))) break;
        /* Re-seek rather than trust the cursor's position after a delete (0.9.24 cursor fix-ups). */
        k.mv_size = IDX_PREFIX_BYTES;
        k.mv_data = prefix;
        mrc = mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE);
    }
    mdb_cursor_close(cur);
    if (mrc && mrc != MDB_NOTFOUND) return mdb_write_rc(txn, mrc, "dropping an index");
    return ORC_OK;
}

/*
 * A scan's visitor answers 0 to go on, 1 to stop, or an error: whether the
 * answer `r` ends the scan, with an error stored in `*rc`.
 */
static bool visit_ends_scan(int r, int *rc)
{
    if (r && r != 1) *rc = r;
    return r != 0;
}

int idx_scan(orc_txn *txn, uint32_t table, uint16_t col, const orc_value *lo, bool lo_incl, const orc_value *hi,
             bool hi_incl, key_cb cb, void *ctx)
{
    if (txn->write) {
        int frc = flush_for_read(txn);
        if (frc) return frc;
    }
    orc_buf lob = {0}, hib = {0};
    int rc = buf_reserve(&lob, IDX_PREFIX_BYTES);
    if (rc) return rc;
    st32be(lob.data, table);
    st16be(lob.data + 4, col);
    lob.size = IDX_PREFIX_BYTES;
    if (lo) rc = keyenc(&lob, lo, NULL);
    if (!rc && hi) rc = keyenc(&hib, hi, NULL);
    bool chunked = txn->core->format >= 3;
    uint64_t keys[IDX_CHUNK_KEYS];
    MDB_cursor *cur = NULL;
    int mrc = rc ? 0 : mdb_cursor_open(txn->mdb, txn->core->dbi_idx, &cur);
    if (mrc) rc = orc_fail_mdb(mrc, "opening an index cursor");
    if (!rc) {
        MDB_val k = {lob.size, lob.data}, d;
        mrc = mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE);
        while (mrc == 0) {
            const uint8_t *p = k.mv_data;
            if (k.mv_size < IDX_PREFIX_BYTES + 8 || memcmp(p, lob.data, IDX_PREFIX_BYTES) != 0) break;
            size_t vlen = k.mv_size - IDX_PREFIX_BYTES - 8;
            if (hi) {
                size_t m = vlen < hib.size ? vlen : hib.size;
                int c = memcmp(p + IDX_PREFIX_BYTES, hib.data, m);
                if (c > 0 || (c == 0 && vlen > hib.size)) break;
            }
            size_t n = 1;
            keys[0] = ld64be(p + k.mv_size - 8);
            if (chunked && idx_chunk_decode(keys[0], d.mv_data, d.mv_size, keys, &n)) {
                rc = chunk_damaged(p, k.mv_size);
                break;
            }
            int r = 0;
            for (size_t i = 0; i < n && !r; i++) r = cb(ctx, keys[i]);
            if (visit_ends_scan(r, &rc)) break;
            mrc = mdb_cursor_get(cur, &k, &d, MDB_NEXT);
        }
        if (!rc && mrc && mrc != MDB_NOTFOUND) rc = orc_fail_mdb(mrc, "scanning an index");
    }
    if (cur) mdb_cursor_close(cur);
    buf_free(&lob);
    buf_free(&hib);
    (void)lo_incl;
    (void)hi_incl;
    return rc;
}

/* ---- backlinks -------------------------------------------------------------------- */

static void blink_key(uint8_t *k, uint32_t tt, uint64_t tk, uint32_t ot, uint16_t oc, uint64_t ok)
{
    st32be(k, tt);
    st64be(k + 4, tk);
    st32be(k + 12, ot);
    st16be(k + 16, oc);
    st64be(k + 18, ok);
}

int blink_add(orc_txn *txn, uint32_t ttable, uint64_t tkey, uint32_t otable, uint16_t ocol, uint64_t okey)
{
    uint8_t kb[BLINK_KEY];
    blink_key(kb, ttable, tkey, otable, ocol, okey);
    MDB_val k = {BLINK_KEY, kb}, d;
    uint32_t count = 0;
    int mrc = mdb_get(txn->mdb, txn->core->dbi_blink, &k, &d);
    if (mrc == 0 && d.mv_size == 4) count = ld32(d.mv_data);
    else if (mrc == 0) return txn_poison(txn, orc_fail(ORC_ERR_CORRUPT, "a backlink record has %zu bytes", d.mv_size));
    else if (mrc != MDB_NOTFOUND) return mdb_write_rc(txn, mrc, "reading a backlink");
    count++;
    d.mv_size = 4;
    d.mv_data = &count;
    mrc = mdb_put(txn->mdb, txn->core->dbi_blink, &k, &d, 0);
    return mrc ? mdb_write_rc(txn, mrc, "adding a backlink") : ORC_OK;
}

int blink_remove(orc_txn *txn, uint32_t ttable, uint64_t tkey, uint32_t otable, uint16_t ocol, uint64_t okey)
{
    uint8_t kb[BLINK_KEY];
    blink_key(kb, ttable, tkey, otable, ocol, okey);
    MDB_val k = {BLINK_KEY, kb}, d;
    int mrc = mdb_get(txn->mdb, txn->core->dbi_blink, &k, &d);
    if (mrc == MDB_NOTFOUND || (mrc == 0 && d.mv_size != 4))
        return txn_poison(txn, orc_fail(ORC_ERR_CORRUPT, "backlink of table %u object %llu from table %u column %u is missing",
                                        ttable, (unsigned long long)tkey, otable, ocol));
    if (mrc) return mdb_write_rc(txn, mrc, "reading a backlink");
    uint32_t count = ld32(d.mv_data);
    if (count > 1) {
        count--;
        d.mv_size = 4;
        d.mv_data = &count;
        mrc = mdb_put(txn->mdb, txn->core->dbi_blink, &k, &d, 0);
    } else {
        mrc = mdb_del(txn->mdb, txn->core->dbi_blink, &k, NULL);
    }
    return mrc ? mdb_write_rc(txn, mrc, "removing a backlink") : ORC_OK;
}

int blink_each(orc_txn *txn, uint32_t ttable, uint64_t tkey, uint32_t otable, uint16_t ocol, blink_cb cb, void *ctx)
{
    uint8_t prefix[BLINK_KEY];
    blink_key(prefix, ttable, tkey, otable, ocol, 0);
    size_t plen = otable ? 18 : 12;
    MDB_cursor *cur;
    int mrc = mdb_cursor_open(txn->mdb, txn->core->dbi_blink, &cur);
    if (mrc) return orc_fail_mdb(mrc, "opening a backlink cursor");
    MDB_val k = {plen, prefix}, d;
    int rc = ORC_OK;
    mrc = mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE);
    while (mrc == 0) {
        const uint8_t *p = k.mv_data;
        if (k.mv_size != BLINK_KEY || memcmp(p, prefix, plen) != 0) break;
        if (d.mv_size != 4) {
            rc = orc_fail(ORC_ERR_CORRUPT, "a backlink record has %zu bytes", d.mv_size);
            break;
        }
        if (visit_ends_scan(cb(ctx, ld32be(p + 12), ld16be(p + 16), ld64be(p + 18), ld32(d.mv_data)), &rc)) break;
        mrc = mdb_cursor_get(cur, &k, &d, MDB_NEXT);
    }
    if (!rc && mrc && mrc != MDB_NOTFOUND) rc = orc_fail_mdb(mrc, "scanning backlinks");
    mdb_cursor_close(cur);
    return rc;
}
