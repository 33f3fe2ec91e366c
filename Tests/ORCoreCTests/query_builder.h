/*
 * query_builder.h — query programs (the byte format of orcore.h "Queries")
 * built by the tests that run queries of their own: test_index.c,
 * test_random.c, test_index_bulk.c. A qb grows as needed; free(q.p) when done.
 */
#ifndef ORC_TEST_QUERY_BUILDER_H
#define ORC_TEST_QUERY_BUILDER_H

#include "orcore.h"

#include <stddef.h>
#include <stdint.h>

typedef struct qb {
    uint8_t *p;
    size_t n, cap;
} qb;

void qb_put(qb *q, const void *d, size_t n);
void qb_u8(qb *q, uint8_t v);
/** `v`'s low `bytes` bytes, little-endian. */
void qb_le(qb *q, uint64_t v, int bytes);
/** A constant: its type byte, then its encoding. */
void qb_value(qb *q, const orc_value *v);
/** CMP op flags ANY, PATH(col), then the caller's right side. */
void qb_cmp_path(qb *q, uint8_t op, uint8_t flags, uint16_t col);
/** `col` op the constant `v`. */
void qb_cmp_const(qb *q, uint8_t op, uint8_t flags, uint16_t col, const orc_value *v);
/** `col` op a LIST of n constants (IN, BETWEEN). */
void qb_cmp_list(qb *q, uint8_t op, uint16_t col, const orc_value *vals, size_t n);

#endif
