/*
 * row.h — the row record (row.c): one object's scalar values, laid out by its class.
 *
 *   offset  size        field
 *   0       2           u16 k: the columns this row holds (later ones read as default)
 *   2       2           u16 flags: bit 0 = wide (variable ends are u32, else u16)
 *   4       ceil(k/8)   null bitmap, bit c set = column c is null
 *   F       fixed(k)    one field per column, F = 4 + ceil(k/8), at row_off[c]:
 *                       BOOL 1 | INT, DOUBLE, LINK (target key) 8 | FLOAT 4 |
 *                       TIMESTAMP 12 (i64 s, i32 ns) | DECIMAL 16 | OBJECT_ID 12 |
 *                       UUID 16 | STRING, BINARY, MIXED: the end of its bytes in
 *                       the variable area (u16, or u32 when wide) | collections 0
 *   F + fixed(k)        the variable area: variable columns' bytes in column
 *                       order, each from the previous one's end (MIXED: tagged value)
 *   Widths come from column types, removed columns included, so the layout of
 *   the first k columns is the same for every row of the class.
 */
#ifndef ORCORE_ROW_H
#define ORCORE_ROW_H

#include "schema.h"
#include "value.h"

/** Computes a class's row layout (row_off, row_prev_var) from its column types. ORC_OK or ORC_ERR_NOMEM. */
int row_layout(orc_class *c);
/** Reads column `col` of a row into `out`. Strings point into `row`. Returns ORC_OK or ORC_ERR_CORRUPT. */
int row_get(const orc_class *c, const uint8_t *row, size_t size, uint16_t col, orc_value *out);
/** Builds a row: `vals` has c->ncols entries (NULL entries and collections read as null/default). */
int row_build(const orc_class *c, const orc_value *vals, orc_buf *out);
/** Rewrites `row` with the given columns replaced. */
int row_update(const orc_class *c, const uint8_t *row, size_t size, const uint16_t *cols,
               const orc_value *vals, size_t n, orc_buf *out);
/** The default value of a property for rows that predate it. */
void prop_default(const orc_prop *p, orc_value *out);

#endif /* ORCORE_ROW_H */
