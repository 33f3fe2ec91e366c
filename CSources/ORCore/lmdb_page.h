/*
 * lmdb_page.h — the constants of LMDB 0.9's on-disk page layout (64-bit builds).
 *
 * Two parts of ORCore read pages themselves: verify.c checks a file before LMDB
 * maps it, and scan.c walks a table's leaf pages in a read snapshot. verify.c's
 * header comment draws the layout (page header, node, database record).
 */
#ifndef ORCORE_LMDB_PAGE_H
#define ORCORE_LMDB_PAGE_H

#include <stdbool.h>
#include <stdint.h>

#define PAGEHDRSZ 16u
#define NODESIZE 8u
#define DBREC_SIZE 48u
#define NUM_METAS 2u
#define MAX_DEPTH 32u    /* LMDB's cursor stack: no tree is deeper */
#define PGNO_NONE UINT64_MAX
#define MIN_PSIZE 512u
#define MAX_PSIZE 32768u /* LMDB 0.9's MAX_PAGESIZE */
#define LMDB_MAGIC 0xBEEFC0DEu /* a meta page's, at PAGEHDRSZ */

/* A page size LMDB 0.9 can have written: a power of two in MIN_PSIZE ... MAX_PSIZE. */
static inline bool psize_sane(uint64_t ps) { return ps >= MIN_PSIZE && ps <= MAX_PSIZE && (ps & (ps - 1)) == 0; }

/* page flags (the header's u16 at offset 10) */
#define P_BRANCH 0x01u
#define P_LEAF 0x02u
#define P_OVERFLOW 0x04u
#define P_META 0x08u
#define P_LEAF2 0x20u
#define P_SUBP 0x40u

/* leaf node flags (the node's u16 at offset 4) */
#define F_BIGDATA 0x01u
#define F_SUBDATA 0x02u
#define F_DUPDATA 0x04u

/* The main database's handle in every transaction (LMDB's MAIN_DBI). */
#define LMDB_MAIN_DBI 1u

#endif
