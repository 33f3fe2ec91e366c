/*
 * value.h — the value layer (value.c): the tagged value codec, the order-preserving
 * key encoding of indexes and primary keys, decimal128 arithmetic. Layout in value.c.
 */
#ifndef ORCORE_VALUE_H
#define ORCORE_VALUE_H

#include "base.h"

/* ------------------------------------------------------------------------ */
/* value.c                                                                  */
/* ------------------------------------------------------------------------ */

/** Appends the tagged encoding of `v` (the `value` production of the query grammar). */
int val_encode(orc_buf *b, const orc_value *v);
/** Whether `v` has a tagged encoding: ORC_OK, or the error val_encode would report. */
int val_encodable(const orc_value *v);
/** Writes the encoding of a value val_encodable admits at `p` (val_encoded_size(v) bytes); returns its size. */
size_t val_write(uint8_t *p, const orc_value *v);
/**
 * Decodes a tagged value at data[*pos], bounds-checked against `size`;
 * advances *pos. Strings point into `data`. Returns ORC_OK or ORC_ERR_CORRUPT
 * (the caller decides whether that is a corrupt file or a bad query).
 */
int val_decode(const uint8_t *data, size_t size, size_t *pos, orc_value *out);
/** The size of v's tagged encoding; 0 for MIXED or an unknown type. */
size_t val_encoded_size(const orc_value *v);

/**
 * The longest key encoding in bytes, tag and terminator included; a string or
 * binary whose escaped bytes exceed KEYENC_MAX - 3 keeps the longest prefix
 * that fits and ends in 00 01 (`*exact_out` false).
 */
#define KEYENC_MAX 400
/**
 * Appends the order-preserving encoding of `v` to `b`: byte strings that sort
 * (memcmp) as orc_value_compare orders the values, for the types that can be
 * indexed or be primary keys. Strings are escaped (00 -> 00 FF) and end in
 * 00 00; truncated strings end in 00 01 instead. `exact_out` may be NULL.
 */
int keyenc(orc_buf *b, const orc_value *v, bool *exact_out);

/** True when `t` is numeric (int, float, double, decimal). */
static inline bool type_is_numeric(orc_type t)
{
    return t == ORC_TYPE_INT || t == ORC_TYPE_FLOAT || t == ORC_TYPE_DOUBLE || t == ORC_TYPE_DECIMAL;
}
/** Decimal128 helpers: compare, from double / int, to double, add, divide by an integer. */
int dec_compare(orc_decimal128 a, orc_decimal128 b);
orc_decimal128 dec_from_int(int64_t v);
orc_decimal128 dec_from_double(double v);
double dec_to_double(orc_decimal128 d);
bool dec_is_nan(orc_decimal128 d);
orc_decimal128 dec_add(orc_decimal128 a, orc_decimal128 b);
/** n = 0 gives ±infinity (0 / 0: NaN). */
orc_decimal128 dec_div_int(orc_decimal128 a, int64_t n);

#endif /* ORCORE_VALUE_H */
