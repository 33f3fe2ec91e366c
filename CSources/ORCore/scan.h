/*
 * scan.h — reading rows (scan.c): sequential table scans and, in read snapshots,
 * rows and primary keys by key from a walk of the table's pages kept standing.
 */
#ifndef ORCORE_SCAN_H
#define ORCORE_SCAN_H

#include "lmdb_page.h"
#include "txn.h"

/*
 * A primary-key entry's value, the object key: u64 LE in files before format 3; from
 * format 3 as few LE bytes as it needs (1 to 8, the last not zero unless it is the only one).
 */
static inline size_t pk_value_put(uint8_t out[8], uint64_t key, uint32_t format)
{
    st64(out, key);
    if (format < 3) return 8;
    size_t n = 8;
    while (n > 1 && out[n - 1] == 0) n--;
    return n;
}

/** Decodes a primary-key entry's value; false when it is not one the file's format writes. */
static inline bool pk_value_get(const uint8_t *p, size_t n, uint32_t format, uint64_t *key)
{
    if (format < 3 ? n != 8 : n < 1 || n > 8 || (n > 1 && p[n - 1] == 0)) return false;
    uint8_t b[8] = {0};
    memcpy(b, p, n);
    *key = ld64(b);
    return true;
}

/** An object key as the LMDB key of its row: u64 BE in buf. */
static inline MDB_val key_val(uint8_t buf[8], uint64_t key)
{
    st64be(buf, key);
    return (MDB_val){8, buf};
}

/*
 * A sequential scan over a table's rows, in key order (scan.c). In a read
 * transaction it walks the table's leaf pages in the map itself; in a write
 * transaction, and for small tables, it steps an LMDB cursor.
 */
/* A leaf's node count and the bytes its nodes fill (scan.c, ASKING FOR A LEAF BEFORE SEARCHING IT). */
typedef struct leaf_shape {
    unsigned n, used;
} leaf_shape;
typedef struct tscan {
    MDB_cursor *cur;          /* the cursor path */
    const uint8_t *row;       /* the current row: its bytes, size and object key */
    size_t size;
    uint64_t key;
    uint32_t table;
    bool started;             /* the cursor path: MDB_FIRST was done */
    /* the page walk (scan.c, "WALKING THE LEAVES") */
    const uint8_t *leaf;      /* the current leaf page */
    unsigned li, ln;          /* its next node and its node count (0 when not walking) */
    unsigned upper;           /* where its node area starts */
    bool walk;
    const uint8_t *map;
    size_t psize;
    uint64_t last_pg;         /* the last page number the walk may read */
    uint64_t left;            /* rows the table's database record still promises */
    uint64_t root;            /* the tree's root page */
    unsigned depth, top;      /* the tree's depth; branch pages on the stack */
    leaf_shape shape;         /* the last leaf a seek searched */
    struct tscan_level { const uint8_t *page; unsigned i, n, upper; } up[MAX_DEPTH]; /* last */
} tscan;
/* How many rows ahead the walk asks the cache for a row it will read (the offset is in the page). */
#define TSCAN_AHEAD 4
int tscan_open(orc_txn *txn, uint32_t table, tscan *s);
/** The page walk's step to the next leaf, and the cursor path. */
int tscan_next_slow(tscan *s);
/** Reads the current leaf's node s->li (scan.c checks each field against the page). */
int tscan_node(tscan *s);
/** Asks the cache for the row TSCAN_AHEAD nodes on in the current leaf (a hint: nothing is checked). */
static inline void tscan_prefetch(const tscan *s)
{
    if (s->li + TSCAN_AHEAD < s->ln) __builtin_prefetch(s->leaf + ld16(s->leaf + PAGEHDRSZ + 2u * (s->li + TSCAN_AHEAD)));
}
/** Advances to the first (first call) or next row. Returns ORC_OK or ORC_ERR_NOT_FOUND at the end. */
static inline int tscan_next(tscan *s)
{
    if (s->li < s->ln && s->left) {
        /* the common step: a plain row on the current leaf */
        const uint8_t *pg = s->leaf;
        unsigned off = ld16(pg + PAGEHDRSZ + 2u * s->li);
        tscan_prefetch(s);
        if (off >= s->upper && off <= s->psize - NODESIZE - 8u) {
            const uint8_t *n = pg + off;
            size_t dsize = (size_t)ld16(n) | (size_t)ld16(n + 2) << 16;
            if (ld16(n + 4) == 0 && ld16(n + 6) == 8 && dsize <= s->psize - off - NODESIZE - 8u) {
                s->li++;
                s->left--;
                s->key = ld64be(n + NODESIZE);
                s->row = n + NODESIZE + 8u;
                s->size = dsize;
                return ORC_OK;
            }
        }
        return tscan_node(s); /* an overflow row, or damage */
    }
    return tscan_next_slow(s);
}
void tscan_close(tscan *s);

/*
 * A read transaction's reader of one table's rows by key (scan.c, "READING ROWS BY
 * KEY"): a walk kept standing after the last row it returned.
 */
typedef struct row_reader {
    uint32_t table;        /* 0: a free slot */
    uint64_t generation;   /* the transaction generation it belongs to */
    bool usable;           /* the walk reads this table (else the cursor does) */
    bool positioned;       /* w.li is the first node past every key <= at */
    uint64_t at;
    bool pk_known;         /* pk_walk, pk_root and pk_depth are set for this generation */
    bool pk_walk;          /* pk_get descends the primary-key index (else mdb_get does) */
    unsigned pk_depth;
    uint64_t pk_root;
    leaf_shape pk_shape;   /* the primary-key index's last leaf searched */
    tscan w;
} row_reader;
#define ROW_READERS 8
/* rows_get / rows_next: this table is read through the LMDB cursor instead. */
#define ROWS_BY_CURSOR 1
/**
 * The row of `key` (read transactions). ORC_OK, ORC_ERR_NOT_FOUND (no such row;
 * nothing reported), ROWS_BY_CURSOR, or a reported error (ORC_ERR_CORRUPT).
 */
int rows_get(orc_txn *txn, uint32_t table, uint64_t key, MDB_val *row);
/** The first row with a key above `after`; statuses as rows_get (NOT_FOUND: none). */
int rows_next(orc_txn *txn, uint32_t table, uint64_t after, uint64_t *key, MDB_val *row);
/**
 * The object key stored in `table`'s primary-key index under the key bytes t
 * (keyenc) — read transactions; statuses as rows_get (ROWS_BY_CURSOR: use mdb_get).
 */
int pk_get(orc_txn *txn, uint32_t table, const uint8_t *t, size_t tn, uint64_t *key);

#endif /* ORCORE_SCAN_H */
