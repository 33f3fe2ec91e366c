/*
 * value.c — values: the tagged codec, the order-preserving key encoding,
 * orc_value_compare, and the decimal128 arithmetic the engine needs.
 *
 * THE TAGGED ENCODING (val_encode / val_decode), the `value` production of
 * orcore.h's query grammar, also used by rows (MIXED slots), collections and
 * the changeset log. Integers are little-endian.
 *
 *   type       payload
 *   NULL       (nothing)
 *   BOOL       u8 0 or 1 (any other byte is corrupt)
 *   INT        i64
 *   FLOAT      f32 (IEEE bits)
 *   DOUBLE     f64 (IEEE bits)
 *   STRING     u32 length, bytes
 *   BINARY     u32 length, bytes
 *   TIMESTAMP  i64 seconds, i32 nanoseconds
 *   DECIMAL    u64 low word, u64 high word
 *   OBJECT_ID  12 bytes
 *   UUID       16 bytes
 *   LINK       u32 table, u64 key
 *
 * MIXED is a property type, never a value type: encoding or decoding it fails.
 *
 * THE KEY ENCODING (keyenc) turns a value into bytes whose memcmp order is
 * orc_value_compare's order, for the "idx" and "p<id>" databases.
 *
 *   kind       bytes
 *   NULL       0x05
 *   INT        0x10, u64 BE of (value XOR 2^63)
 *   FLOAT,     0x11, u64 BE of the double's bits: positive -> bits | 2^63,
 *   DOUBLE           negative -> ~bits; -0.0 is written as +0.0, every NaN as
 *                    eight zero bytes (below -inf: NaN is the lowest number)
 *   BOOL       0x20, 00 or 01
 *   STRING     0x30, bytes with 00 escaped as 00 FF, then 00 00
 *   BINARY     0x38, as STRING
 *   TIMESTAMP  0x40, u64 BE (seconds XOR 2^63), u32 BE (nanoseconds XOR 2^31)
 *   OBJECT_ID  0x48, 12 bytes
 *   UUID       0x50, 16 bytes
 *   LINK       0x58, u32 BE table, u64 BE key
 *
 * Invariants:
 *  1. Within one tag, memcmp order equals orc_value_compare order, and equal
 *     values have identical encodings (so -0.0 and 0.0, and all NaNs, share one).
 *  2. Tags ascend in orc_value_compare's kind order (null, numbers, bool,
 *     strings, binaries, timestamps, ObjectIds, UUIDs, links).
 *  3. Ints and floating-point numbers have different tags, so 1 and 1.5 do not
 *     interleave in an index of a MIXED property. The query planner therefore
 *     uses an index only for constants of the column's own type; any other
 *     comparison scans. Decimals (only ever in MIXED indexes) encode their
 *     raw bits: consistent for index maintenance, not ordered, never planned.
 *  4. Encodings are prefix-free (string terminators 00 00 / 00 01 never occur
 *     inside the escaped bytes), so callers may append an object key and the
 *     order of (value, key) pairs is kept.
 *  5. A whole encoding is at most KEYENC_MAX bytes, which keeps every "idx"
 *     key (6 + KEYENC_MAX + 8 bytes) under LMDB's 511-byte key limit even for
 *     strings full of NULs. A string or binary whose escaped bytes do not fit
 *     keeps the longest prefix of whole escaped bytes that fits and ends in
 *     00 01 instead of 00 00; *exact_out is then false. Truncation never
 *     contradicts the order: a <= b implies enc(a) <= enc(b) (two values may
 *     share an encoding, so index users recheck rows).
 *
 * COMPARISON (orc_value_compare) is a total order: kinds rank null < numbers
 * < bool < string < binary < timestamp < ObjectId < UUID < link (MIXED and
 * unknown type codes last, by code). Numbers compare by value across types:
 * int against float / double exactly (no rounding of the int above 2^53),
 * -0.0 equals 0, every NaN (float, double or decimal) equals every other NaN
 * and is below -infinity. A decimal against a float or double compares with
 * the shortest decimal that reads back as that double (dec_from_double), so
 * decimal 0.1 equals double 0.1. Timestamps compare seconds, then
 * nanoseconds, which is time order given orcore.h's same-sign rule.
 *
 * DECIMAL128 (BID): the high word holds the sign (bit 63), then either a
 * 14-bit biased exponent (bits 62..49, bias 6176) and the top 49 bits of a
 * 113-bit coefficient, or, when bits 62..61 are 11, the "large coefficient"
 * form (exponent in bits 60..47), which is always above 10^34 - 1 and so is
 * non-canonical and reads as zero; bits 62..58 = 11110 is infinity and 11111
 * NaN. Arithmetic works on (sign, coefficient, exponent) with unsigned
 * __int128 and rounds half-to-even to 34 digits.
 */
#include "value.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned __int128 u128;

/* ------------------------------------------------------------------------ */
/* The tagged codec                                                         */
/* ------------------------------------------------------------------------ */

/* Payload size of fixed-size types; -1 for variable-size or invalid. */
static int fixed_payload(orc_type t)
{
    switch (t) {
    case ORC_TYPE_NULL: return 0;
    case ORC_TYPE_BOOL: return 1;
    case ORC_TYPE_INT: return 8;
    case ORC_TYPE_FLOAT: return 4;
    case ORC_TYPE_DOUBLE: return 8;
    case ORC_TYPE_TIMESTAMP: return 12;
    case ORC_TYPE_DECIMAL: return 16;
    case ORC_TYPE_OBJECT_ID: return 12;
    case ORC_TYPE_UUID: return 16;
    case ORC_TYPE_LINK: return 12;
    default: return -1;
    }
}

/* Returns 0 for MIXED and unknown types, which have no encoding. */
size_t val_encoded_size(const orc_value *v)
{
    if (v->type == ORC_TYPE_STRING || v->type == ORC_TYPE_BINARY) return 1 + 4 + v->string.size;
    int n = fixed_payload(v->type);
    return n < 0 ? 0 : 1 + (size_t)n;
}

int val_encodable(const orc_value *v)
{
    switch (v->type) {
    case ORC_TYPE_STRING:
    case ORC_TYPE_BINARY:
        if (v->string.size > UINT32_MAX)
            return orc_fail(ORC_ERR_INVALID_ARG, "a %s value of %zu bytes is too long (at most 4 GiB)",
                            v->type == ORC_TYPE_STRING ? "string" : "binary", v->string.size);
        if (v->string.size && !v->string.data)
            return orc_fail(ORC_ERR_INVALID_ARG, "a %s value of %zu bytes has no data",
                            v->type == ORC_TYPE_STRING ? "string" : "binary", v->string.size);
        return ORC_OK;
    case ORC_TYPE_MIXED: return orc_fail(ORC_ERR_WRONG_TYPE, "MIXED is a property type, not a value type");
    default:
        if (fixed_payload(v->type) < 0) return orc_fail(ORC_ERR_INVALID_ARG, "unknown value type %d", (int)v->type);
        return ORC_OK;
    }
}

size_t val_write(uint8_t *p, const orc_value *v)
{
    p[0] = (uint8_t)v->type;
    switch (v->type) {
    case ORC_TYPE_BOOL: p[1] = v->boolean ? 1 : 0; return 2;
    case ORC_TYPE_INT: st64(p + 1, (uint64_t)v->integer); return 9;
    case ORC_TYPE_FLOAT: memcpy(p + 1, &v->fnum, 4); return 5;
    case ORC_TYPE_DOUBLE: memcpy(p + 1, &v->dnum, 8); return 9;
    case ORC_TYPE_STRING:
    case ORC_TYPE_BINARY:
        st32(p + 1, (uint32_t)v->string.size);
        if (v->string.size) memcpy(p + 5, v->string.data, v->string.size);
        return 5 + v->string.size;
    case ORC_TYPE_TIMESTAMP:
        st64(p + 1, (uint64_t)v->timestamp.seconds);
        st32(p + 9, (uint32_t)v->timestamp.nanoseconds);
        return 13;
    case ORC_TYPE_DECIMAL:
        st64(p + 1, v->decimal.w[0]);
        st64(p + 9, v->decimal.w[1]);
        return 17;
    case ORC_TYPE_OBJECT_ID: memcpy(p + 1, v->object_id, 12); return 13;
    case ORC_TYPE_UUID: memcpy(p + 1, v->uuid, 16); return 17;
    case ORC_TYPE_LINK:
        st32(p + 1, v->link.table);
        st64(p + 5, v->link.key);
        return 13;
    default: return 1; /* NULL; val_encodable admits nothing else */
    }
}

int val_encode(orc_buf *b, const orc_value *v)
{
    int rc = val_encodable(v);
    if (!rc) rc = buf_reserve(b, val_encoded_size(v));
    if (rc) return rc;
    b->size += val_write(b->data + b->size, v);
    return ORC_OK;
}

int val_decode(const uint8_t *data, size_t size, size_t *pos, orc_value *out)
{
    size_t at = *pos;
    if (at >= size) return orc_fail(ORC_ERR_CORRUPT, "value at offset %zu: no type byte (%zu bytes)", at, size);
    uint8_t t = data[at];
    const uint8_t *p = data + at + 1;
    size_t avail = size - at - 1;
    int fixed = fixed_payload((orc_type)t);

    if (t == ORC_TYPE_STRING || t == ORC_TYPE_BINARY) {
        if (avail < 4)
            return orc_fail(ORC_ERR_CORRUPT, "value at offset %zu: truncated %s length", at,
                            t == ORC_TYPE_STRING ? "string" : "binary");
        uint32_t len = ld32(p);
        if (avail - 4 < len)
            return orc_fail(ORC_ERR_CORRUPT, "value at offset %zu: %s of %u bytes overruns the %zu bytes left",
                            at, t == ORC_TYPE_STRING ? "string" : "binary", len, avail - 4);
        memset(out, 0, sizeof *out);
        out->type = (orc_type)t;
        out->string.data = (const char *)p + 4;
        out->string.size = len;
        *pos = at + 1 + 4 + len;
        return ORC_OK;
    }
    if (fixed < 0) {
        if (t == ORC_TYPE_MIXED)
            return orc_fail(ORC_ERR_CORRUPT, "value at offset %zu: type MIXED is not a value type", at);
        return orc_fail(ORC_ERR_CORRUPT, "value at offset %zu: unknown type byte %u", at, t);
    }
    if (avail < (size_t)fixed)
        return orc_fail(ORC_ERR_CORRUPT, "value at offset %zu: type %u needs %d bytes, %zu left", at, t,
                        fixed, avail);

    memset(out, 0, sizeof *out);
    out->type = (orc_type)t;
    switch ((orc_type)t) {
    case ORC_TYPE_NULL: break;
    case ORC_TYPE_BOOL:
        if (p[0] > 1) return orc_fail(ORC_ERR_CORRUPT, "value at offset %zu: bool byte %u is not 0 or 1", at, p[0]);
        out->boolean = p[0] == 1;
        break;
    case ORC_TYPE_INT: out->integer = (int64_t)ld64(p); break;
    case ORC_TYPE_FLOAT: memcpy(&out->fnum, p, 4); break;
    case ORC_TYPE_DOUBLE: memcpy(&out->dnum, p, 8); break;
    case ORC_TYPE_TIMESTAMP:
        out->timestamp.seconds = (int64_t)ld64(p);
        out->timestamp.nanoseconds = (int32_t)ld32(p + 8);
        break;
    case ORC_TYPE_DECIMAL:
        out->decimal.w[0] = ld64(p);
        out->decimal.w[1] = ld64(p + 8);
        break;
    case ORC_TYPE_OBJECT_ID: memcpy(out->object_id, p, 12); break;
    case ORC_TYPE_UUID: memcpy(out->uuid, p, 16); break;
    case ORC_TYPE_LINK:
        out->link.table = ld32(p);
        out->link.key = ld64(p + 4);
        break;
    default: break; /* unreachable: fixed_payload() accepted the type */
    }
    *pos = at + 1 + (size_t)fixed;
    return ORC_OK;
}

/* ------------------------------------------------------------------------ */
/* The key encoding                                                         */
/* ------------------------------------------------------------------------ */

enum {
    KEY_NULL = 0x05,
    KEY_INT = 0x10,
    KEY_DOUBLE = 0x11,
    KEY_DECIMAL = 0x12,
    KEY_BOOL = 0x20,
    KEY_STRING = 0x30,
    KEY_BINARY = 0x38,
    KEY_TIMESTAMP = 0x40,
    KEY_OBJECT_ID = 0x48,
    KEY_UUID = 0x50,
    KEY_LINK = 0x58,
};

static uint64_t double_key(double d)
{
    if (isnan(d)) return 0;
    if (d == 0) d = 0.0; /* folds -0.0 into +0.0 */
    uint64_t bits;
    memcpy(&bits, &d, 8);
    return (bits >> 63) ? ~bits : bits | (1ULL << 63);
}

/* Escapes bytes (00 -> 00 FF) into out[], at most KEYENC_MAX - 3 of them. */
static size_t escape_bytes(const uint8_t *s, size_t n, uint8_t *out, bool *exact)
{
    const size_t budget = KEYENC_MAX - 3; /* tag and terminator */
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        size_t need = s[i] ? 1 : 2;
        if (o + need > budget) {
            *exact = false;
            return o;
        }
        out[o++] = s[i];
        if (!s[i]) out[o++] = 0xFF;
    }
    *exact = true;
    return o;
}

int keyenc(orc_buf *b, const orc_value *v, bool *exact_out)
{
    uint8_t k[KEYENC_MAX];
    size_t n = 1;
    bool exact = true;
    switch (v->type) {
    case ORC_TYPE_NULL: k[0] = KEY_NULL; break;
    case ORC_TYPE_INT:
        k[0] = KEY_INT;
        st64be(k + 1, (uint64_t)v->integer ^ (1ULL << 63));
        n = 9;
        break;
    case ORC_TYPE_FLOAT:
    case ORC_TYPE_DOUBLE:
        k[0] = KEY_DOUBLE;
        st64be(k + 1, double_key(v->type == ORC_TYPE_FLOAT ? (double)v->fnum : v->dnum));
        n = 9;
        break;
    case ORC_TYPE_BOOL:
        k[0] = KEY_BOOL;
        k[1] = v->boolean ? 1 : 0;
        n = 2;
        break;
    case ORC_TYPE_STRING:
    case ORC_TYPE_BINARY:
        if (v->string.size && !v->string.data)
            return orc_fail(ORC_ERR_INVALID_ARG, "a %s value of %zu bytes has no data",
                            v->type == ORC_TYPE_STRING ? "string" : "binary", v->string.size);
        k[0] = v->type == ORC_TYPE_STRING ? KEY_STRING : KEY_BINARY;
        n = 1 + escape_bytes((const uint8_t *)v->string.data, v->string.size, k + 1, &exact);
        k[n++] = 0x00;
        k[n++] = exact ? 0x00 : 0x01;
        break;
    case ORC_TYPE_TIMESTAMP:
        k[0] = KEY_TIMESTAMP;
        st64be(k + 1, (uint64_t)v->timestamp.seconds ^ (1ULL << 63));
        st32be(k + 9, (uint32_t)v->timestamp.nanoseconds ^ (1U << 31));
        n = 13;
        break;
    case ORC_TYPE_OBJECT_ID:
        k[0] = KEY_OBJECT_ID;
        memcpy(k + 1, v->object_id, 12);
        n = 13;
        break;
    case ORC_TYPE_UUID:
        k[0] = KEY_UUID;
        memcpy(k + 1, v->uuid, 16);
        n = 17;
        break;
    case ORC_TYPE_LINK:
        k[0] = KEY_LINK;
        st32be(k + 1, v->link.table);
        st64be(k + 5, v->link.key);
        n = 13;
        break;
    case ORC_TYPE_DECIMAL:
        /*
         * Decimals reach an index only inside mixed properties, whose numeric
         * lookups the planner leaves to a scan: the bits need only be
         * consistent, not ordered (1.0 and 1.00 are different keys).
         */
        k[0] = KEY_DECIMAL;
        st64be(k + 1, v->decimal.w[1]);
        st64be(k + 9, v->decimal.w[0]);
        n = 17;
        break;
    case ORC_TYPE_MIXED:
        return orc_fail(ORC_ERR_WRONG_TYPE, "MIXED is a property type, not a value type");
    default:
        return orc_fail(ORC_ERR_INVALID_ARG, "unknown value type %d", (int)v->type);
    }
    if (exact_out) *exact_out = exact;
    return buf_put(b, k, n);
}

/* ------------------------------------------------------------------------ */
/* Decimal128                                                               */
/* ------------------------------------------------------------------------ */

#define DEC_BIAS 6176
#define DEC_EMIN (-6176) /* lowest exponent (of the coefficient's last digit) */
#define DEC_EMAX 6111    /* highest exponent */
#define DEC_HI_NAN 0x7C00000000000000ULL
#define DEC_HI_INF 0x7800000000000000ULL

enum { DEC_FINITE, DEC_INF, DEC_NAN };

typedef struct decparts {
    int kind;
    bool neg;
    u128 coef; /* < 10^34 for finite values read from BID */
    int32_t exp;
} decparts;

#define P19 ((u128)10000000000000000000ULL)
static const u128 pow10_table[39] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
    1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
    1000000000000000000ULL, P19, P19 * 10, P19 * 100, P19 * 1000, P19 * 10000, P19 * 100000,
    P19 * 1000000, P19 * 10000000, P19 * 100000000, P19 * 1000000000, P19 * 10000000000ULL,
    P19 * 100000000000ULL, P19 * 1000000000000ULL, P19 * 10000000000000ULL, P19 * 100000000000000ULL,
    P19 * 1000000000000000ULL, P19 * 10000000000000000ULL, P19 * 100000000000000000ULL,
    P19 * 1000000000000000000ULL, P19 * P19,
};

static inline u128 pow10_u128(int n) { return pow10_table[n]; } /* n in 0 ... 38 */

static int digits_u128(u128 c)
{
    int d = 1;
    while (d < 39 && c >= pow10_u128(d)) d++;
    return d;
}

static decparts dec_unpack(orc_decimal128 d)
{
    decparts p = { DEC_FINITE, (d.w[1] >> 63) != 0, 0, 0 };
    uint64_t hi = d.w[1];
    if (((hi >> 61) & 3) == 3) {
        unsigned top = (unsigned)(hi >> 58) & 0x1F;
        if (top == 0x1F) p.kind = DEC_NAN;
        else if (top == 0x1E) p.kind = DEC_INF;
        else p.exp = (int32_t)((hi >> 47) & 0x3FFF) - DEC_BIAS; /* coefficient >= 2^113: non-canonical, zero */
        return p;
    }
    p.exp = (int32_t)((hi >> 49) & 0x3FFF) - DEC_BIAS;
    p.coef = ((u128)(hi & ((1ULL << 49) - 1)) << 64) | d.w[0];
    if (p.coef >= pow10_u128(34)) p.coef = 0;
    return p;
}

static orc_decimal128 dec_special(int kind, bool neg)
{
    orc_decimal128 r = { { 0, (kind == DEC_NAN ? DEC_HI_NAN : DEC_HI_INF) | ((uint64_t)neg << 63) } };
    return r;
}

/* Packs a coefficient < 10^34 with an exponent in range. */
static orc_decimal128 dec_pack(bool neg, u128 coef, int32_t exp)
{
    orc_decimal128 r;
    r.w[0] = (uint64_t)coef;
    r.w[1] = ((uint64_t)neg << 63) | ((uint64_t)(exp + DEC_BIAS) << 49) | (uint64_t)(coef >> 64);
    return r;
}

/*
 * Rounds coef * 10^exp (plus a fraction of its last digit when `sticky`) to
 * 34 digits and the exponent range, half to even. Callers that set `sticky`
 * pass a coefficient of at least 35 digits, so some digit is dropped.
 */
static orc_decimal128 dec_round_pack(bool neg, u128 coef, int32_t exp, bool sticky)
{
    unsigned rd = 0; /* the highest dropped digit */
    const u128 p34 = pow10_u128(34);
    while (coef >= p34 || exp < DEC_EMIN) {
        if (coef == 0) { /* underflow: whatever was dropped is below half a unit */
            sticky |= rd != 0;
            rd = 0;
            exp = DEC_EMIN;
            break;
        }
        sticky |= rd != 0;
        rd = (unsigned)(coef % 10);
        coef /= 10;
        exp++;
    }
    if (rd > 5 || (rd == 5 && (sticky || (coef & 1)))) {
        coef++;
        if (coef == p34) {
            coef /= 10;
            exp++;
        }
    }
    while (exp > DEC_EMAX && coef != 0 && coef * 10 < p34) { /* clamp: add trailing zeros */
        coef *= 10;
        exp--;
    }
    if (exp > DEC_EMAX) {
        if (coef != 0) return dec_special(DEC_INF, neg);
        exp = DEC_EMAX;
    }
    return dec_pack(neg, coef, exp);
}

bool dec_is_nan(orc_decimal128 d) { return dec_unpack(d).kind == DEC_NAN; }

static int dec_cmp_parts(decparts a, decparts b)
{
    if (a.kind == DEC_NAN || b.kind == DEC_NAN) return (b.kind == DEC_NAN) - (a.kind == DEC_NAN);
    /* Signs: zero of either sign sits between the negatives and positives. */
    int sa = a.kind == DEC_FINITE && a.coef == 0 ? 0 : (a.neg ? -1 : 1);
    int sb = b.kind == DEC_FINITE && b.coef == 0 ? 0 : (b.neg ? -1 : 1);
    if (sa != sb) return sa < sb ? -1 : 1;
    if (sa == 0) return 0;
    /* Same sign: compare magnitudes, then flip for negatives. */
    int mag;
    if (a.kind == DEC_INF || b.kind == DEC_INF) {
        mag = (a.kind == DEC_INF) - (b.kind == DEC_INF);
    } else {
        /* A value lies in [10^(digits-1+exp), 10^(digits+exp)). */
        int32_t ma = digits_u128(a.coef) + a.exp, mb = digits_u128(b.coef) + b.exp;
        if (ma != mb) {
            mag = ma < mb ? -1 : 1;
        } else {
            /* Same magnitude: the exponents differ by at most 33, so scaling fits in 34 digits. */
            u128 ca = a.coef, cb = b.coef;
            if (a.exp > b.exp) ca *= pow10_u128(a.exp - b.exp);
            else if (b.exp > a.exp) cb *= pow10_u128(b.exp - a.exp);
            mag = ca < cb ? -1 : ca > cb;
        }
    }
    return sa < 0 ? -mag : mag;
}

int dec_compare(orc_decimal128 a, orc_decimal128 b) { return dec_cmp_parts(dec_unpack(a), dec_unpack(b)); }

orc_decimal128 dec_from_int(int64_t v)
{
    bool neg = v < 0;
    uint64_t mag = neg ? 0 - (uint64_t)v : (uint64_t)v;
    return dec_pack(neg, mag, 0);
}

/*
 * Integers below 10^34 convert exactly; other doubles become the shortest
 * decimal (at most 17 significant digits) that reads back as the same double.
 * Distinct doubles give distinct decimals in the same order, and no integer
 * lies between a non-integral double and its shortest decimal, so comparing
 * through this conversion agrees with the exact int / double comparison.
 */
orc_decimal128 dec_from_double(double v)
{
    if (isnan(v)) return dec_special(DEC_NAN, false);
    if (isinf(v)) return dec_special(DEC_INF, v < 0);
    if (v == 0) return dec_pack(signbit(v) != 0, 0, 0);
    if (v == trunc(v) && fabs(v) < 1e34) /* the largest such double is below 10^34: 34 digits */
        return dec_pack(v < 0, (u128)fabs(v), 0);

    char text[48];
    for (int prec = 0; prec <= 16; prec++) {
        snprintf(text, sizeof text, "%.*e", prec, v);
        if (strtod(text, NULL) == v) break;
    }
    /* text is [-]d[<point>ddd]e<sign>ddd; the point is whatever the locale prints. */
    const char *c = text;
    bool neg = false;
    if (*c == '-') {
        neg = true;
        c++;
    }
    u128 coef = 0;
    int32_t exp = 0, frac_digits = 0;
    bool after_first = false;
    for (; *c && *c != 'e' && *c != 'E'; c++) {
        if (*c >= '0' && *c <= '9') {
            coef = coef * 10 + (unsigned)(*c - '0');
            if (after_first) frac_digits++;
            after_first = true;
        }
    }
    if (*c == 'e' || *c == 'E') exp = (int32_t)strtol(c + 1, NULL, 10);
    exp -= frac_digits;
    while (exp > 0 && coef < pow10_u128(33)) { /* 1e20 as 100000000000000000000, not 1E+20 */
        coef *= 10;
        exp--;
    }
    return dec_round_pack(neg, coef, exp, false);
}

double dec_to_double(orc_decimal128 d)
{
    decparts p = dec_unpack(d);
    if (p.kind == DEC_NAN) return NAN;
    if (p.kind == DEC_INF) return p.neg ? -INFINITY : INFINITY;
    double r;
    if (p.coef == 0) {
        r = 0.0;
    } else if (p.coef < ((u128)1 << 53) && p.exp >= -22 && p.exp <= 22) {
        /* Both operands are exact doubles, so one correctly rounded operation suffices. */
        static const double p10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
        double c = (double)(uint64_t)p.coef;
        r = p.exp >= 0 ? c * p10[p.exp] : c / p10[-p.exp];
    } else {
        /* strtod rounds correctly; digits and an exponent need no locale. */
        char text[64], digits[40];
        int n = 0;
        u128 c = p.coef;
        while (c) {
            digits[n++] = (char)('0' + (int)(c % 10));
            c /= 10;
        }
        for (int i = 0; i < n; i++) text[i] = digits[n - 1 - i];
        snprintf(text + n, sizeof text - (size_t)n, "e%d", (int)p.exp);
        r = strtod(text, NULL);
    }
    return p.neg ? -r : r;
}

orc_decimal128 dec_add(orc_decimal128 a, orc_decimal128 b)
{
    decparts x = dec_unpack(a), y = dec_unpack(b);
    if (x.kind == DEC_NAN || y.kind == DEC_NAN) return dec_special(DEC_NAN, false);
    if (x.kind == DEC_INF || y.kind == DEC_INF) {
        if (x.kind == DEC_INF && y.kind == DEC_INF && x.neg != y.neg) return dec_special(DEC_NAN, false);
        return dec_special(DEC_INF, x.kind == DEC_INF ? x.neg : y.neg);
    }
    if (x.coef == 0 && y.coef == 0)
        return dec_pack(x.neg && y.neg, 0, x.exp < y.exp ? x.exp : y.exp);
    if (x.coef == 0) return dec_pack(y.neg, y.coef, y.exp);
    if (y.coef == 0) return dec_pack(x.neg, x.coef, x.exp);
    if (x.exp < y.exp) {
        decparts t = x;
        x = y;
        y = t;
    }
    /* x has the larger exponent; align both coefficients to one exponent. */
    int32_t d = x.exp - y.exp, dx = digits_u128(x.coef);
    u128 cx, cy;
    int32_t exp;
    bool sticky = false;
    if (dx + d <= 38) { /* exact: x * 10^d < 10^38 and the sum still fits 128 bits */
        cx = x.coef * pow10_u128(d);
        cy = y.coef;
        exp = y.exp;
    } else {
        /* y is far below x's last digit: give x 38 digits and keep what of y reaches them. */
        int32_t s = 38 - dx, shift = d - s;
        cx = x.coef * pow10_u128(s);
        exp = x.exp - s;
        if (shift > 38) {
            cy = 0;
            sticky = true;
        } else {
            cy = y.coef / pow10_u128(shift);
            sticky = y.coef % pow10_u128(shift) != 0;
        }
    }
    if (x.neg == y.neg) return dec_round_pack(x.neg, cx + cy, exp, sticky);
    if (cx >= cy) {
        u128 diff = cx - cy;
        /* cx - (cy + f) with 0 < f < 1 is (diff - 1) + (1 - f). */
        if (sticky) diff -= 1;
        if (diff == 0 && !sticky) return dec_pack(false, 0, exp);
        return dec_round_pack(x.neg, diff, exp, sticky);
    }
    return dec_round_pack(y.neg, cy - cx, exp, false); /* only reachable in the exact case */
}

/* a / n, rounded to 34 digits; n = 0 gives infinity (0 / 0: NaN), as IEEE division does. */
orc_decimal128 dec_div_int(orc_decimal128 a, int64_t n)
{
    decparts x = dec_unpack(a);
    if (x.kind == DEC_NAN) return dec_special(DEC_NAN, false);
    bool neg = x.neg != (n < 0);
    if (x.kind == DEC_INF) return dec_special(DEC_INF, neg);
    if (n == 0) return x.coef == 0 ? dec_special(DEC_NAN, false) : dec_special(DEC_INF, x.neg);
    uint64_t un = n < 0 ? 0 - (uint64_t)n : (uint64_t)n;
    if (x.coef == 0) return dec_pack(neg, 0, x.exp);
    u128 q = x.coef / un, r = x.coef % un;
    int32_t exp = x.exp;
    /* Long division until exact or 35 digits (one to round on); r < 2^64 so r * 10 fits. */
    while (r != 0 && q < pow10_u128(34)) {
        r *= 10;
        q = q * 10 + r / un;
        r %= un;
        exp--;
    }
    return dec_round_pack(neg, q, exp, r != 0);
}

/* ------------------------------------------------------------------------ */
/* orc_value_compare                                                        */
/* ------------------------------------------------------------------------ */

/* Kind ranks in the documented order; MIXED and unknown types sort last, by type. */
static int kind_rank(orc_type t)
{
    switch (t) {
    case ORC_TYPE_NULL: return 0;
    case ORC_TYPE_INT:
    case ORC_TYPE_FLOAT:
    case ORC_TYPE_DOUBLE:
    case ORC_TYPE_DECIMAL: return 1;
    case ORC_TYPE_BOOL: return 2;
    case ORC_TYPE_STRING: return 3;
    case ORC_TYPE_BINARY: return 4;
    case ORC_TYPE_TIMESTAMP: return 5;
    case ORC_TYPE_OBJECT_ID: return 6;
    case ORC_TYPE_UUID: return 7;
    case ORC_TYPE_LINK: return 8;
    default: return 9;
    }
}

#define CMP3(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

static int cmp_double(double x, double y)
{
    bool nx = isnan(x), ny = isnan(y);
    if (nx || ny) return (int)ny - (int)nx; /* NaN is the lowest number; NaNs are equal */
    return CMP3(x, y);
}

/* Exact: converting i to double would merge neighbours above 2^53. */
static int cmp_int_double(int64_t i, double d)
{
    if (isnan(d)) return 1;
    if (d >= 9223372036854775808.0) return -1;
    if (d < -9223372036854775808.0) return 1;
    double t = trunc(d);
    int64_t ti = (int64_t)t; /* exact: t is an integer in [-2^63, 2^63) */
    if (i != ti) return CMP3(i, ti);
    return CMP3(t, d); /* i == trunc(d): the fraction decides */
}

static double as_double(const orc_value *v) { return v->type == ORC_TYPE_FLOAT ? (double)v->fnum : v->dnum; }

static orc_decimal128 as_decimal(const orc_value *v)
{
    switch (v->type) {
    case ORC_TYPE_DECIMAL: return v->decimal;
    case ORC_TYPE_INT: return dec_from_int(v->integer);
    default: return dec_from_double(as_double(v));
    }
}

static int cmp_numbers(const orc_value *a, const orc_value *b)
{
    if (a->type == ORC_TYPE_DECIMAL || b->type == ORC_TYPE_DECIMAL) return dec_compare(as_decimal(a), as_decimal(b));
    if (a->type == ORC_TYPE_INT && b->type == ORC_TYPE_INT) return CMP3(a->integer, b->integer);
    if (a->type == ORC_TYPE_INT) return cmp_int_double(a->integer, as_double(b));
    if (b->type == ORC_TYPE_INT) return -cmp_int_double(b->integer, as_double(a));
    return cmp_double(as_double(a), as_double(b));
}

static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return CMP3(an, bn);
}

int orc_value_compare(const orc_value *a, const orc_value *b)
{
    int ka = kind_rank(a->type), kb = kind_rank(b->type);
    if (ka != kb) return CMP3(ka, kb);
    int c;
    switch (ka) {
    case 0: return 0;
    case 1: return cmp_numbers(a, b);
    case 2: return CMP3(a->boolean ? 1 : 0, b->boolean ? 1 : 0);
    case 3:
    case 4: return cmp_bytes(a->string.data, a->string.size, b->string.data, b->string.size);
    case 5:
        if (a->timestamp.seconds != b->timestamp.seconds) return CMP3(a->timestamp.seconds, b->timestamp.seconds);
        return CMP3(a->timestamp.nanoseconds, b->timestamp.nanoseconds);
    case 6: c = memcmp(a->object_id, b->object_id, 12); return CMP3(c, 0);
    case 7: c = memcmp(a->uuid, b->uuid, 16); return CMP3(c, 0);
    case 8:
        if (a->link.table != b->link.table) return CMP3(a->link.table, b->link.table);
        return CMP3(a->link.key, b->link.key);
    default: return CMP3((int)a->type, (int)b->type);
    }
}
