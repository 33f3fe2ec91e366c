/*
 * verify_impl.h — what verify.c (reading, the meta pages, one pass, repair) and
 * verify_tree.c (the deep walk of every tree's pages) share. Nothing else
 * includes it; the byte layouts are drawn at the top of verify.c.
 */
#ifndef ORCORE_VERIFY_IMPL_H
#define ORCORE_VERIFY_IMPL_H

#include "verify.h"

#include <lmdb.h>
#include <stdio.h>

_Static_assert(sizeof(size_t) == 8 && sizeof(void *) == 8, "verify.c decodes the 64-bit LMDB page layout");

#define META_END 152u /* page header + MDB_meta */
#define MAX_KEYSIZE 511u
#define LMDB_DATA_VERSION 1u

#define DUP_FLAGS (MDB_DUPSORT | MDB_DUPFIXED | MDB_INTEGERDUP | MDB_REVERSEDUP)
#define ATTEMPTS 4

enum tree_kind { TREE_FREE, TREE_MAIN, TREE_NAMED };
enum key_order { ORDER_BYTES, ORDER_REVERSE_BYTES, ORDER_INTEGER };

typedef struct dbrec {
    uint32_t pad;
    uint16_t flags, depth;
    uint64_t branch, leaf, overflow, entries, root;
} dbrec;

typedef struct meta {
    uint8_t raw[META_END];
    size_t got;      /* bytes read into raw */
    uint64_t offset; /* where raw was read */
    uint64_t pgno, last_pg, txnid;
    uint16_t pflags;
    uint32_t magic, version, psize;
    dbrec dbs[2];    /* [0] free, [1] main */
    bool hdr_ok;     /* LMDB would accept this as a meta page */
    char why[160];   /* why it is not acceptable */
} meta;

typedef struct subdb {
    char name[64];
    dbrec db;
} subdb;

typedef struct tree {
    const char *name;
    enum tree_kind kind;
    enum key_order order;
    dbrec db;
    uint64_t branch, leaf, overflow, entries; /* counted by the walk */
} tree;

typedef struct keyref {
    const uint8_t *p;
    size_t n;
    bool set;
} keyref;

typedef struct verifier {
    int fd;
    bool deep;
    uint64_t fsize;
    uint32_t psize;
    uint64_t last_pg, txnid, file_pages;
    uint8_t *used, *freed; /* bitmaps over last_pg + 1 pages */
    uint8_t *level[MAX_DEPTH + 1];
    uint32_t *extent;      /* node offset << 16 | padded size, for the tiling check */
    uint8_t *data;         /* a free-list record read from overflow pages */
    size_t data_cap;
    subdb *subs;
    size_t nsubs, subs_cap;
    int repair_from, repair_to; /* meta slots, or -1: set when only a meta page is damaged */
    char why[512];
} verifier;

/** Records why the file fails a check in v->why; returns `code`. */
int verify_bad(verifier *v, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

typedef unsigned long long ull;

static inline bool bit_get(const uint8_t *map, uint64_t i) { return (map[i >> 3] >> (i & 7)) & 1; }
static inline void bit_set(uint8_t *map, uint64_t i) { map[i >> 3] |= (uint8_t)(1u << (i & 7)); }

/* verify.c */
int verify_truncated(verifier *v, const char *db, const char *what, uint64_t pgno);
int verify_read_page(verifier *v, const char *db, const char *what, uint64_t pgno, size_t skip, void *buf, size_t n);
void verify_parse_dbrec(const uint8_t *p, dbrec *d);

/* verify_tree.c */
int verify_check_node_page(verifier *v, const char *db, const uint8_t *pg, uint64_t pgno, unsigned want, bool tiling,
                           unsigned *nkeys_out);
int verify_check_dbrec(verifier *v, const char *db, const dbrec *d);
enum key_order verify_order_of(uint16_t flags);
int verify_walk_tree(verifier *v, tree *t);
int verify_alloc_maps(verifier *v);
void verify_free(verifier *v);

#endif /* ORCORE_VERIFY_IMPL_H */
