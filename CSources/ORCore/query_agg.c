/*
 * query_agg.c — the accumulators of aggregates: @count, @size, @min, @max, @sum
 * and @avg over a path's values (query_eval.c), and over matching objects
 * (orc_query_aggregate, query_eval.c).
 *
 * Aggregates (@sum, orc_query_aggregate) accumulate ints in an int64 while
 * they fit; a sum that overflows int64 continues in double and the result
 * is a double. Floats and doubles sum as double, decimals as decimal (a
 * mixed collection holding decimals sums as decimal). @avg is a double, or a
 * decimal for decimals. @min / @max consider numbers and timestamps only.
 */
#include "query_impl.h"

void qacc_init(qacc *a, uint8_t agg, orc_type zero_type)
{
    memset(a, 0, sizeof *a);
    a->agg = agg;
    a->zero_type = zero_type;
}

void qacc_add(qacc *a, const orc_value *v)
{
    switch (a->agg) {
    case ORC_AGG_COUNT:
    case ORC_AGG_SIZE:
        a->n++;
        return;
    case Q_AGG_LENGTH:
        if (v->type == ORC_TYPE_STRING || v->type == ORC_TYPE_BINARY) {
            a->n = v->string.size;
            a->has_best = true;
        }
        return;
    case ORC_AGG_MIN:
    case ORC_AGG_MAX:
        if (!type_is_numeric(v->type) && v->type != ORC_TYPE_TIMESTAMP) return;
        if (a->has_best) {
            int c = orc_value_compare(v, &a->best);
            if (a->agg == ORC_AGG_MIN ? c >= 0 : c <= 0) return;
        }
        a->best = *v;
        a->has_best = true;
        return;
    default: /* SUM, AVG */
        break;
    }
    switch (v->type) {
    case ORC_TYPE_INT: {
        int64_t r;
        if (a->overflow) {
            a->dsum += (double)v->integer;
        } else if (__builtin_add_overflow(a->isum, v->integer, &r)) {
            a->overflow = true;
            a->dsum += (double)a->isum + (double)v->integer;
            a->isum = 0;
        } else {
            a->isum = r;
        }
        break;
    }
    case ORC_TYPE_FLOAT:
        a->dsum += v->fnum;
        a->has_dbl = true;
        break;
    case ORC_TYPE_DOUBLE:
        a->dsum += v->dnum;
        a->has_dbl = true;
        break;
    case ORC_TYPE_DECIMAL:
        a->xsum = a->has_dec ? dec_add(a->xsum, v->decimal) : v->decimal;
        a->has_dec = true;
        break;
    default:
        return;
    }
    a->n++;
}

void qacc_result(const qacc *a, orc_value *out)
{
    memset(out, 0, sizeof *out);
    switch (a->agg) {
    case ORC_AGG_COUNT:
    case ORC_AGG_SIZE:
        out->type = ORC_TYPE_INT;
        out->integer = (int64_t)a->n;
        return;
    case Q_AGG_LENGTH:
        out->type = a->has_best ? ORC_TYPE_INT : ORC_TYPE_NULL;
        out->integer = (int64_t)a->n;
        return;
    case ORC_AGG_MIN:
    case ORC_AGG_MAX:
        if (a->has_best) *out = a->best;
        else out->type = ORC_TYPE_NULL;
        return;
    default:
        break;
    }
    bool dbl = a->has_dbl || a->overflow;
    if (a->n == 0) {
        if (a->agg == ORC_AGG_AVG) {
            out->type = ORC_TYPE_NULL;
        } else if (a->zero_type == ORC_TYPE_DECIMAL) {
            out->type = ORC_TYPE_DECIMAL;
            out->decimal = dec_from_int(0);
        } else if (a->zero_type == ORC_TYPE_FLOAT || a->zero_type == ORC_TYPE_DOUBLE) {
            out->type = ORC_TYPE_DOUBLE;
            out->dnum = 0;
        } else {
            out->type = ORC_TYPE_INT;
            out->integer = 0;
        }
        return;
    }
    if (a->has_dec) {
        orc_decimal128 x = a->xsum;
        if (a->isum) x = dec_add(x, dec_from_int(a->isum));
        if (dbl) x = dec_add(x, dec_from_double(a->dsum));
        out->type = ORC_TYPE_DECIMAL;
        out->decimal = a->agg == ORC_AGG_AVG ? dec_div_int(x, (int64_t)a->n) : x;
    } else if (dbl || a->agg == ORC_AGG_AVG) {
        double d = a->dsum + (double)a->isum;
        out->type = ORC_TYPE_DOUBLE;
        out->dnum = a->agg == ORC_AGG_AVG ? d / (double)a->n : d;
    } else {
        out->type = ORC_TYPE_INT;
        out->integer = a->isum;
    }
}
