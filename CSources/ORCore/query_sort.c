/*
 * query_sort.c — a query's descriptors, applied in program order to the
 * matching keys:
 *
 *   SORT      by the values of one or more single-valued paths (through
 *             links, or reduced by an aggregate), each ascending or
 *             descending, in ORCore's value order (orc_value_compare): null
 *             first when ascending, last when descending. The sort is stable,
 *             so ties keep the order they came in (key order, domain order,
 *             or the order an earlier SORT left).
 *   DISTINCT  keeps the first object of each distinct tuple of path values
 *             (values equal under orc_value_compare), in the current order.
 *   LIMIT n   keeps the first n.
 *
 * Both SORT and DISTINCT read each object's path values once into an array
 * of n * paths values (strings point into the map, valid for the
 * transaction), then order an index array with qsort_r; ties are broken by
 * the index, which is what makes the sort stable.
 */
#include "query_impl.h"

#include <stdlib.h>

typedef struct sortctx {
    const orc_value *vals;   /* n rows of k values */
    unsigned k;
    const bool *ascending;   /* NULL: all ascending (DISTINCT) */
} sortctx;

static int by_values(const void *a, const void *b, void *arg)
{
    const sortctx *s = arg;
    size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
    for (unsigned j = 0; j < s->k; j++) {
        int c = orc_value_compare(&s->vals[ia * s->k + j], &s->vals[ib * s->k + j]);
        if (c) return !s->ascending || s->ascending[j] ? c : -c;
    }
    return (ia > ib) - (ia < ib);
}

/* Reads the values of `k` paths for each of n objects, and an identity index. */
static int load_values(orc_txn *txn, orc_query *q, const uint64_t *keys, size_t n, qpath *paths, unsigned k,
                       orc_value **vals_out, size_t **idx_out)
{
    *vals_out = NULL;
    *idx_out = NULL;
    if (k && n > SIZE_MAX / sizeof(orc_value) / k)
        return orc_fail(ORC_ERR_NOMEM, "query: too many objects to sort (%zu)", n);
    orc_value *vals = malloc(n * k * sizeof *vals + 1);
    size_t *idx = malloc(n * sizeof *idx + 1);
    if (!vals || !idx) {
        free(vals);
        free(idx);
        return orc_fail(ORC_ERR_NOMEM, "query: out of memory sorting %zu objects", n);
    }
    for (size_t i = 0; i < n; i++) {
        qobj o;
        idx[i] = i;
        int rc = qobj_load(txn, q->table, keys[i], &o);
        for (unsigned j = 0; j < k; j++) {
            orc_value *v = &vals[i * k + j];
            if (rc == ORC_ERR_NOT_FOUND) {
                memset(v, 0, sizeof *v);
                v->type = ORC_TYPE_NULL;
                continue;
            }
            if (rc == ORC_OK) rc = qpath_first(txn, &paths[j], &o, v);
            if (rc != ORC_OK) break;
        }
        if (rc != ORC_OK && rc != ORC_ERR_NOT_FOUND) {
            free(vals);
            free(idx);
            return rc;
        }
    }
    *vals_out = vals;
    *idx_out = idx;
    return ORC_OK;
}

static int apply_sort(orc_txn *txn, orc_query *q, const qdesc *d, uint64_t *keys, size_t n)
{
    orc_value *vals;
    size_t *idx;
    if (n < 2 || d->n == 0) return ORC_OK;
    int rc = load_values(txn, q, keys, n, d->paths, d->n, &vals, &idx);
    if (rc != ORC_OK) return rc;
    sortctx s = {.vals = vals, .k = d->n, .ascending = d->ascending};
    qsort_r(idx, n, sizeof *idx, by_values, &s);
    free(vals);
    uint64_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp) {
        free(idx);
        return orc_fail(ORC_ERR_NOMEM, "query: out of memory sorting %zu objects", n);
    }
    for (size_t i = 0; i < n; i++) tmp[i] = keys[idx[i]];
    memcpy(keys, tmp, n * sizeof *keys);
    free(tmp);
    free(idx);
    return ORC_OK;
}

static int apply_distinct(orc_txn *txn, orc_query *q, const qdesc *d, uint64_t *keys, size_t *n)
{
    orc_value *vals;
    size_t *idx;
    if (*n < 2) return ORC_OK;
    if (d->n == 0) { /* no paths: every object has the same (empty) tuple */
        *n = 1;
        return ORC_OK;
    }
    int rc = load_values(txn, q, keys, *n, d->paths, d->n, &vals, &idx);
    if (rc != ORC_OK) return rc;
    sortctx s = {.vals = vals, .k = d->n, .ascending = NULL};
    qsort_r(idx, *n, sizeof *idx, by_values, &s);
    bool *keep = calloc(*n, sizeof *keep);
    if (!keep) {
        free(vals);
        free(idx);
        return orc_fail(ORC_ERR_NOMEM, "query: out of memory for DISTINCT over %zu objects", *n);
    }
    /* within a group of equal tuples the first index is the earliest object */
    for (size_t i = 0; i < *n; i++) {
        bool first = i == 0;
        for (unsigned j = 0; !first && j < d->n; j++)
            if (orc_value_compare(&vals[idx[i] * d->n + j], &vals[idx[i - 1] * d->n + j]) != 0) first = true;
        if (first) keep[idx[i]] = true;
    }
    size_t w = 0;
    for (size_t i = 0; i < *n; i++)
        if (keep[i]) keys[w++] = keys[i];
    *n = w;
    free(keep);
    free(vals);
    free(idx);
    return ORC_OK;
}

int qdesc_apply(orc_txn *txn, orc_query *q, uint64_t *keys, size_t *n)
{
    for (uint32_t i = 0; i < q->ndescs; i++) {
        const qdesc *d = &q->descs[i];
        int rc = ORC_OK;
        switch (d->kind) {
        case ORC_DESC_SORT:
            rc = apply_sort(txn, q, d, keys, *n);
            break;
        case ORC_DESC_DISTINCT:
            rc = apply_distinct(txn, q, d, keys, n);
            break;
        default:
            if (d->limit < *n) *n = (size_t)d->limit;
            break;
        }
        if (rc != ORC_OK) return rc;
    }
    return ORC_OK;
}
