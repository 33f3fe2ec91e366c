/*
 * index_fixture.h — what the index tests share.
 */
#ifndef ORC_TEST_INDEX_FIXTURE_H
#define ORC_TEST_INDEX_FIXTURE_H

#include "orcore.h"

/**
 * How many objects of `table` have `col == v`, found through the column's index: the
 * query's count and its run must agree and the plan must use the index; -1 otherwise.
 */
long long index_eq_count(orc_txn *txn, uint32_t table, uint16_t col, orc_value v);

#endif
