/* query_builder.c — query programs for the tests (query_builder.h). */
#include "query_builder.h"

#include <stdlib.h>
#include <string.h>

void qb_put(qb *q, const void *d, size_t n)
{
    if (q->n + n > q->cap) {
        q->cap = (q->n + n) * 2 + 64;
        q->p = realloc(q->p, q->cap);
    }
    memcpy(q->p + q->n, d, n);
    q->n += n;
}
void qb_u8(qb *q, uint8_t v) { qb_put(q, &v, 1); }
void qb_le(qb *q, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) qb_u8(q, (uint8_t)(v >> (8 * i)));
}
void qb_value(qb *q, const orc_value *v)
{
    qb_u8(q, (uint8_t)v->type);
    switch (v->type) {
    case ORC_TYPE_NULL: break;
    case ORC_TYPE_BOOL: qb_u8(q, v->boolean); break;
    case ORC_TYPE_INT: qb_le(q, (uint64_t)v->integer, 8); break;
    case ORC_TYPE_FLOAT: {
        uint32_t b;
        memcpy(&b, &v->fnum, 4);
        qb_le(q, b, 4);
        break;
    }
    case ORC_TYPE_DOUBLE: {
        uint64_t b;
        memcpy(&b, &v->dnum, 8);
        qb_le(q, b, 8);
        break;
    }
    case ORC_TYPE_STRING:
    case ORC_TYPE_BINARY:
        qb_le(q, v->string.size, 4);
        qb_put(q, v->string.data, v->string.size);
        break;
    case ORC_TYPE_TIMESTAMP:
        qb_le(q, (uint64_t)v->timestamp.seconds, 8);
        qb_le(q, (uint32_t)v->timestamp.nanoseconds, 4);
        break;
    case ORC_TYPE_DECIMAL:
        qb_le(q, v->decimal.w[0], 8);
        qb_le(q, v->decimal.w[1], 8);
        break;
    case ORC_TYPE_OBJECT_ID: qb_put(q, v->object_id, 12); break;
    case ORC_TYPE_UUID: qb_put(q, v->uuid, 16); break;
    case ORC_TYPE_LINK:
        qb_le(q, v->link.table, 4);
        qb_le(q, v->link.key, 8);
        break;
    default: break;
    }
}
/* CMP op flags ANY, PATH(col), then the caller's right side. */
void qb_cmp_path(qb *q, uint8_t op, uint8_t flags, uint16_t col)
{
    qb_u8(q, ORC_OP_CMP);
    qb_u8(q, op);
    qb_u8(q, flags);
    qb_u8(q, ORC_Q_DEFAULT);
    qb_u8(q, ORC_EXPR_PATH);
    qb_u8(q, 1);
    qb_u8(q, ORC_STEP_PROP);
    qb_le(q, col, 2);
    qb_u8(q, ORC_AGG_NONE);
}
void qb_cmp_const(qb *q, uint8_t op, uint8_t flags, uint16_t col, const orc_value *v)
{
    qb_cmp_path(q, op, flags, col);
    qb_u8(q, ORC_EXPR_CONST);
    qb_value(q, v);
}
void qb_cmp_list(qb *q, uint8_t op, uint16_t col, const orc_value *vals, size_t n)
{
    qb_cmp_path(q, op, 0, col);
    qb_u8(q, ORC_EXPR_LIST);
    qb_le(q, n, 4);
    for (size_t i = 0; i < n; i++) qb_value(q, &vals[i]);
}
