/*
 * query_eval.c — running compiled queries: evaluating a predicate on one
 * object's raw row, the matching loop, and orc_query_run / _count /
 * _aggregate.
 *
 * EVALUATION never builds anything for a row: a plain property is read with
 * row_get straight out of the row (the "fast" CMP: one row_get and one
 * comparison), collections with coll_load / coll_elem, links by loading the
 * target's row with obj_row, backlinks with blink_each. Paths are walked
 * depth-first with a visitor that can stop the walk early (ANY stops at the
 * first match, ALL at the first miss), so a quantified comparison over a list
 * reads no more elements than it needs.
 *
 * A path's values meet the right-hand side this way:
 *   CONST / LIST       compared directly (IN: equal to one; BETWEEN: lo <= x <= hi)
 *   PATH / SUBQUERY    collected first into the node's scratch array; then a
 *                      left value matches when it compares true with any of them
 *   quantifier         ANY (default): some left value matches; ALL: every one
 *                      (true for none); NONE: no left value matches
 * A single-valued path yields exactly one value (null when it passes a null
 * link or a missing dictionary key); a multi-valued one yields what it finds.
 *
 * Comparisons: null equals only null and orders with nothing; numbers of
 * different types compare by value (orc_value_compare); other values compare
 * only with their own type; strings under ORC_CMP_* flags go through text.c.
 *
 * Aggregates accumulate in query_agg.c.
 *
 * THE MATCHING LOOP visits, in this order of preference: the domain (in its
 * order, skipping keys that no longer exist), the planner's candidates from
 * the primary key or an index (deduplicated, in key order, each row checked
 * against the whole predicate unless the plan is exact, when run and count
 * read no row at all), or the whole table with a tscan (scan.c: a walk of
 * the leaf pages in a read transaction, an LMDB cursor in a write one).
 */
#include "query_impl.h"

#include <inttypes.h>
#include <stdlib.h>

static int acc_visit(void *ctx, const orc_value *v)
{
    qacc_add(ctx, v);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Paths                                                                    */
/* ------------------------------------------------------------------------ */

int qobj_load(orc_txn *txn, uint32_t table, uint64_t key, qobj *o)
{
    o->cls = schema_class(txn, table);
    if (!o->cls) return orc_fail(ORC_ERR_SCHEMA, "query: no class with table id %u", table);
    o->table = table;
    o->key = key;
    return obj_row(txn, table, key, &o->row, &o->size);
}

/* Typed link properties name their target in the schema; make the value say it too. */
static inline void fix_link(const qstep *s, orc_value *v)
{
    if (v->type == ORC_TYPE_LINK && s->type == ORC_TYPE_LINK) v->link.table = s->next_table;
}

/* Nothing was found where a value was expected: a single-valued path still yields (null). */
static int visit_absent(const qpath *p, qvisit fn, void *ctx)
{
    if (p->multi) return 0;
    orc_value nv;
    memset(&nv, 0, sizeof nv);
    nv.type = ORC_TYPE_NULL;
    return fn(ctx, &nv);
}

static int walk(orc_txn *txn, qpath *p, unsigned i, const qobj *o, qvisit fn, void *ctx);

/* Continues a path at the object that step i reached. */
static int follow(orc_txn *txn, qpath *p, unsigned i, uint64_t key, qvisit fn, void *ctx)
{
    qobj t;
    int rc = qobj_load(txn, p->steps[i].next_table, key, &t);
    if (rc == ORC_ERR_NOT_FOUND) return visit_absent(p, fn, ctx);
    if (rc != ORC_OK) return rc;
    return walk(txn, p, i + 1, &t, fn, ctx);
}

/* A value reached by step i: yield it (last step) or follow it (a link). */
static int reach(orc_txn *txn, qpath *p, unsigned i, const orc_value *v, qvisit fn, void *ctx)
{
    if (i + 1 == p->nsteps) return fn(ctx, v);
    if (v->type != ORC_TYPE_LINK) return visit_absent(p, fn, ctx);
    return follow(txn, p, i, v->link.key, fn, ctx);
}

typedef struct blctx {
    orc_keys *keys;
    uint32_t otable;
    uint16_t ocol;
} blctx;

static int bl_collect(void *ctx, uint32_t otable, uint16_t ocol, uint64_t okey, uint32_t count)
{
    blctx *b = ctx;
    if (otable != b->otable || ocol != b->ocol || count == 0) return 0;
    if (b->keys->count && b->keys->keys[b->keys->count - 1] == okey) return 0;
    return keys_push(b->keys, okey);
}

static int walk_backlinks(orc_txn *txn, qpath *p, unsigned i, const qobj *o, qvisit fn, void *ctx)
{
    qstep *s = &p->steps[i];
    blctx b = {.keys = &s->scratch, .otable = s->origin_table, .ocol = s->col};
    s->scratch.count = 0;
    int rc = blink_each(txn, o->table, o->key, s->origin_table, s->col, bl_collect, &b);
    if (rc < 0) return rc;
    bool last = i + 1 == p->nsteps;
    /* deeper steps never touch this step's scratch, so iterating it while recursing is safe */
    for (size_t k = 0; k < s->scratch.count; k++) {
        uint64_t okey = s->scratch.keys[k];
        if (last) {
            orc_value v;
            memset(&v, 0, sizeof v);
            v.type = ORC_TYPE_LINK;
            v.link.table = s->origin_table;
            v.link.key = okey;
            rc = fn(ctx, &v);
        } else {
            rc = follow(txn, p, i, okey, fn, ctx);
        }
        if (rc != 0) return rc;
    }
    return 0;
}

static int walk(orc_txn *txn, qpath *p, unsigned i, const qobj *o, qvisit fn, void *ctx)
{
    int rc;
    orc_value v;
    if (i == p->nsteps) { /* a path of no steps: the object itself */
        memset(&v, 0, sizeof v);
        v.type = ORC_TYPE_LINK;
        v.link.table = o->table;
        v.link.key = o->key;
        return fn(ctx, &v);
    }
    qstep *s = &p->steps[i];
    if (s->kind == QS_BACKLINK) return walk_backlinks(txn, p, i, o, fn, ctx);
    if (s->coll == ORC_COLL_NONE) {
        rc = row_get(o->cls, o->row, o->size, s->col, &v);
        if (rc != ORC_OK) return rc;
        fix_link(s, &v);
        return reach(txn, p, i, &v, fn, ctx);
    }
    collref c;
    rc = coll_load(txn, o->table, o->key, s->col, &c);
    if (rc != ORC_OK) return rc;
    if (s->kind == QS_DICT) {
        /* linear: dictionaries are small, and this keeps us independent of the blob's key order */
        for (uint32_t k = 0; k < c.count; k++) {
            orc_value dk;
            rc = coll_elem(&c, k, &dk, &v);
            if (rc != ORC_OK) return rc;
            if (dk.type == ORC_TYPE_STRING && dk.string.size == s->dkey_len &&
                (s->dkey_len == 0 || memcmp(dk.string.data, s->dkey, s->dkey_len) == 0)) {
                fix_link(s, &v);
                return reach(txn, p, i, &v, fn, ctx);
            }
        }
        return visit_absent(p, fn, ctx);
    }
    bool keys = i + 1 == p->nsteps && p->agg == ORC_AGG_KEYS;
    for (uint32_t k = 0; k < c.count; k++) {
        orc_value dk;
        rc = coll_elem(&c, k, s->coll == ORC_COLL_DICT ? &dk : NULL, &v);
        if (rc != ORC_OK) return rc;
        fix_link(s, &v);
        if (keys) rc = fn(ctx, &dk);
        else if (i + 1 == p->nsteps) rc = fn(ctx, &v);
        else if (v.type == ORC_TYPE_LINK) rc = follow(txn, p, i, v.link.key, fn, ctx);
        else rc = 0;
        if (rc != 0) return rc;
    }
    return 0;
}

int qpath_each(orc_txn *txn, qpath *p, const qobj *o, qvisit fn, void *ctx)
{
    if (p->agg == ORC_AGG_NONE || p->agg == ORC_AGG_KEYS || p->agg == ORC_AGG_VALUES)
        return walk(txn, p, 0, o, fn, ctx);
    qacc a;
    qacc_init(&a, p->agg, p->nsteps ? p->steps[p->nsteps - 1].type : ORC_TYPE_INT);
    int rc = walk(txn, p, 0, o, acc_visit, &a);
    if (rc < 0) return rc;
    orc_value r;
    qacc_result(&a, &r);
    return fn(ctx, &r);
}

static int first_visit(void *ctx, const orc_value *v)
{
    *(orc_value *)ctx = *v;
    return 1;
}

int qpath_first(orc_txn *txn, qpath *p, const qobj *o, orc_value *out)
{
    memset(out, 0, sizeof *out);
    out->type = ORC_TYPE_NULL;
    int rc = qpath_each(txn, p, o, first_visit, out);
    return rc < 0 ? rc : ORC_OK;
}

/* ------------------------------------------------------------------------ */
/* Comparisons                                                              */
/* ------------------------------------------------------------------------ */

static inline bool both_numeric(const orc_value *l, const orc_value *r)
{
    return type_is_numeric(l->type) && type_is_numeric(r->type);
}

static bool v_eq(const orc_value *l, const orc_value *r, unsigned flags)
{
    if (l->type == ORC_TYPE_INT && r->type == ORC_TYPE_INT) return l->integer == r->integer;
    if (l->type == ORC_TYPE_NULL || r->type == ORC_TYPE_NULL) return l->type == r->type;
    if (l->type != r->type) {
        if (!both_numeric(l, r)) return false;
    } else if (l->type == ORC_TYPE_STRING && flags) {
        return text_equal(l->string.data, l->string.size, r->string.data, r->string.size, flags);
    }
    return orc_value_compare(l, r) == 0;
}

/* Three-way comparison when l and r can be ordered against each other. */
static bool v_order(const orc_value *l, const orc_value *r, unsigned flags, int *c)
{
    if (l->type == ORC_TYPE_INT && r->type == ORC_TYPE_INT) {
        *c = (l->integer > r->integer) - (l->integer < r->integer);
        return true;
    }
    if (l->type == ORC_TYPE_NULL || r->type == ORC_TYPE_NULL) return false;
    if (l->type != r->type) {
        if (!both_numeric(l, r)) return false;
    } else if (l->type == ORC_TYPE_STRING && flags) {
        *c = text_compare(l->string.data, l->string.size, r->string.data, r->string.size, flags);
        return true;
    }
    *c = orc_value_compare(l, r);
    return true;
}

static bool v_text(uint8_t op, unsigned flags, const orc_value *l, const orc_value *r)
{
    bool lb = l->type == ORC_TYPE_STRING || l->type == ORC_TYPE_BINARY;
    bool rb = r->type == ORC_TYPE_STRING || r->type == ORC_TYPE_BINARY;
    if (!lb || !rb) return false;
    unsigned f = l->type == ORC_TYPE_STRING && r->type == ORC_TYPE_STRING ? flags : 0;
    const char *s = l->string.data, *t = r->string.data;
    size_t sn = l->string.size, tn = r->string.size;
    switch (op) {
    case ORC_CMP_BEGINS_WITH: return text_begins(s, sn, t, tn, f);
    case ORC_CMP_ENDS_WITH: return text_ends(s, sn, t, tn, f);
    case ORC_CMP_CONTAINS: return text_contains(s, sn, t, tn, f);
    default: return text_like(s, sn, t, tn, f);
    }
}

static bool v_op(uint8_t op, unsigned flags, const orc_value *l, const orc_value *r)
{
    int c;
    switch (op) {
    case ORC_CMP_EQ: return v_eq(l, r, flags);
    case ORC_CMP_NE: return !v_eq(l, r, flags);
    case ORC_CMP_LT: return v_order(l, r, flags, &c) && c < 0;
    case ORC_CMP_LE: return v_order(l, r, flags, &c) && c <= 0;
    case ORC_CMP_GT: return v_order(l, r, flags, &c) && c > 0;
    case ORC_CMP_GE: return v_order(l, r, flags, &c) && c >= 0;
    default: return v_text(op, flags, l, r);
    }
}

/* v_op for the fast CMP: ints compared inline, everything else as v_op does. */
static inline bool fast_op(const qnode *n, const orc_value *l)
{
    const orc_value *r = &n->rhs.val;
    if (l->type == ORC_TYPE_INT && r->type == ORC_TYPE_INT) {
        int64_t a = l->integer, b = r->integer;
        switch (n->op) {
        case ORC_CMP_EQ: return a == b;
        case ORC_CMP_NE: return a != b;
        case ORC_CMP_LT: return a < b;
        case ORC_CMP_LE: return a <= b;
        case ORC_CMP_GT: return a > b;
        case ORC_CMP_GE: return a >= b;
        default: break;
        }
    }
    return v_op(n->op, n->flags, l, r);
}

/*
 * The scan's tightest case: an int column compared with an int constant, read in
 * place from the row (no orc_value, no type dispatch). The probe holds where the
 * field sits in a row that has every column of the class, for both row widths
 * (row.c), so a row costs its header, one null bit and one load.
 */
typedef struct int_probe {
    uint16_t ncols;
    uint8_t null_bit;
    bool negate;           /* NE: outside [lo, hi] */
    uint32_t null_byte;
    uint32_t at[2], need[2]; /* [wide]: the field's offset; the fixed part's end */
    uint64_t lo, span;     /* a matches when (a - lo) <= span, unsigned; span UINT64_MAX... */
    bool none;             /* ...unless the range is empty (< INT64_MIN, > INT64_MAX) */
} int_probe;

static void int_probe_init(int_probe *p, const orc_class *c, uint16_t col, uint8_t op, int64_t b)
{
    size_t fixed = 4 + ((size_t)c->ncols + 7) / 8;
    memset(p, 0, sizeof *p);
    p->ncols = c->ncols;
    p->null_byte = 4 + col / 8;
    p->null_bit = (uint8_t)(1u << (col % 8));
    for (int wide = 0; wide < 2; wide++) {
        const uint32_t *off = c->row_off + wide * (c->ncols + 1);
        p->at[wide] = (uint32_t)(fixed + off[col]);
        p->need[wide] = (uint32_t)(fixed + off[c->ncols]);
    }
    /* every comparison as one range of int64 [lo, hi] */
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    switch (op) {
    case ORC_CMP_EQ: lo = hi = b; break;
    case ORC_CMP_NE: lo = hi = b; p->negate = true; break;
    case ORC_CMP_LT: if (b == INT64_MIN) p->none = true; else hi = b - 1; break;
    case ORC_CMP_LE: hi = b; break;
    case ORC_CMP_GT: if (b == INT64_MAX) p->none = true; else lo = b + 1; break;
    default: lo = b; break; /* ORC_CMP_GE: int_scan_op admits no other */
    }
    p->lo = (uint64_t)lo;
    p->span = (uint64_t)hi - (uint64_t)lo;
}

/*
 * 1 (match), 0 (no match) or -1 when the row is not the plain case (the column is
 * null, the row predates columns added later, the header is unusual): the caller
 * then goes the general way, which also reports damage.
 */
static inline int int_probe_match(const int_probe *p, const uint8_t *row, size_t size)
{
    if (size < 4) return -1;
    uint16_t k = ld16(row), flags = ld16(row + 2);
    if (k != p->ncols || flags > 1 || p->need[flags] > size || (row[p->null_byte] & p->null_bit)) return -1;
    bool in = ld64(row + p->at[flags]) - p->lo <= p->span && !p->none;
    return in != p->negate;
}

/* Whether a fast predicate can use an int_probe: an int property against an int constant. */
static bool int_scan_op(const orc_class *c, const qnode *n)
{
    if (!n->fast || n->rhs.val.type != ORC_TYPE_INT) return false;
    const orc_prop *p = class_prop(c, n->lhs.path.steps[0].col);
    if (!p || p->type != ORC_TYPE_INT || p->collection != ORC_COLL_NONE) return false;
    switch (n->op) {
    case ORC_CMP_EQ: case ORC_CMP_NE: case ORC_CMP_LT: case ORC_CMP_LE: case ORC_CMP_GT: case ORC_CMP_GE: return true;
    default: return false;
    }
}

/* Whether one left value matches the right side. */
static bool match_one(const qnode *n, const orc_value *l, const orc_value *rv, size_t rn)
{
    if (n->op == ORC_CMP_IN) {
        for (size_t i = 0; i < rn; i++)
            if (v_eq(l, &rv[i], n->flags)) return true;
        return false;
    }
    if (n->op == ORC_CMP_BETWEEN) {
        int c;
        return rn == 2 && v_order(l, &rv[0], n->flags, &c) && c >= 0 && v_order(l, &rv[1], n->flags, &c) && c <= 0;
    }
    for (size_t i = 0; i < rn; i++)
        if (v_op(n->op, n->flags, l, &rv[i])) return true;
    return false;
}

/* ------------------------------------------------------------------------ */
/* Predicates                                                               */
/* ------------------------------------------------------------------------ */

static int eval_pred(orc_txn *txn, qnode *n, const qobj *o, bool *out);

typedef struct cmpst {
    const qnode *n;
    const orc_value *rv;
    size_t rn;
    bool hit;                /* ANY / NONE: a value matched; ALL: a value failed */
} cmpst;

static int cmp_visit(void *ctx, const orc_value *v)
{
    cmpst *st = ctx;
    bool m = match_one(st->n, v, st->rv, st->rn);
    if (st->n->quant == ORC_Q_ALL) m = !m;
    if (m) {
        st->hit = true;
        return 1;
    }
    return 0;
}

static int collect_visit(void *ctx, const orc_value *v)
{
    qnode *n = ctx;
    int rc = array_reserve(&n->rv, n->rn, &n->rcap, sizeof *n->rv, 8, "query: the values collected");
    if (rc) return rc;
    n->rv[n->rn++] = *v;
    return 0;
}

typedef struct subst {
    orc_txn *txn;
    qnode *pred;
    int64_t count;
} subst;

static int sub_visit(void *ctx, const orc_value *v)
{
    subst *s = ctx;
    qobj t;
    bool m;
    if (v->type != ORC_TYPE_LINK) return 0;
    int rc = qobj_load(s->txn, v->link.table, v->link.key, &t);
    if (rc == ORC_ERR_NOT_FOUND) return 0;
    if (rc != ORC_OK) return rc;
    rc = eval_pred(s->txn, s->pred, &t, &m);
    if (rc != ORC_OK) return rc;
    if (m) s->count++;
    return 0;
}

static int eval_subquery(orc_txn *txn, qexpr *e, const qobj *o, orc_value *out)
{
    subst s = {.txn = txn, .pred = e->sub, .count = 0};
    int rc = qpath_each(txn, &e->path, o, sub_visit, &s);
    if (rc < 0) return rc;
    memset(out, 0, sizeof *out);
    out->type = ORC_TYPE_INT;
    out->integer = s.count;
    return ORC_OK;
}

static int eval_cmp(orc_txn *txn, qnode *n, const qobj *o, bool *out)
{
    int rc;
    orc_value lv, sv;
    if (n->fast) {
        const qstep *s = &n->lhs.path.steps[0];
        rc = row_get(o->cls, o->row, o->size, s->col, &lv);
        if (rc != ORC_OK) return rc;
        fix_link(s, &lv);
        *out = fast_op(n, &lv);
        return ORC_OK;
    }
    cmpst st = {.n = n};
    switch (n->rhs.kind) {
    case QE_CONST:
        st.rv = &n->rhs.val;
        st.rn = 1;
        break;
    case QE_LIST:
        st.rv = n->rhs.list;
        st.rn = n->rhs.nlist;
        break;
    case QE_PATH:
        n->rn = 0;
        rc = qpath_each(txn, &n->rhs.path, o, collect_visit, n);
        if (rc < 0) return rc;
        st.rv = n->rv;
        st.rn = n->rn;
        break;
    default:
        rc = eval_subquery(txn, &n->rhs, o, &sv);
        if (rc != ORC_OK) return rc;
        st.rv = &sv;
        st.rn = 1;
        break;
    }
    switch (n->lhs.kind) {
    case QE_CONST:
        rc = cmp_visit(&st, &n->lhs.val);
        break;
    case QE_SUBQUERY:
        rc = eval_subquery(txn, &n->lhs, o, &lv);
        if (rc == ORC_OK) rc = cmp_visit(&st, &lv);
        break;
    default:
        rc = qpath_each(txn, &n->lhs.path, o, cmp_visit, &st);
        break;
    }
    if (rc < 0) return rc;
    *out = n->quant == ORC_Q_ALL || n->quant == ORC_Q_NONE ? !st.hit : st.hit;
    return ORC_OK;
}

static int eval_pred(orc_txn *txn, qnode *n, const qobj *o, bool *out)
{
    int rc;
    bool b;
    switch (n->kind) {
    case ORC_OP_AND:
    case ORC_OP_OR: {
        bool is_and = n->kind == ORC_OP_AND;
        for (uint32_t i = 0; i < n->n; i++) {
            rc = eval_pred(txn, n->kids[i], o, &b);
            if (rc != ORC_OK) return rc;
            if (b != is_and) {
                *out = b;
                return ORC_OK;
            }
        }
        *out = is_and;
        return ORC_OK;
    }
    case ORC_OP_NOT:
        rc = eval_pred(txn, n->kids[0], o, &b);
        *out = !b;
        return rc;
    case ORC_OP_TRUE:
        *out = true;
        return ORC_OK;
    case ORC_OP_FALSE:
        *out = false;
        return ORC_OK;
    case ORC_OP_GEO_WITHIN:
        return qgeo_eval(txn, n, o, out);
    default:
        return eval_cmp(txn, n, o, out);
    }
}

/* ------------------------------------------------------------------------ */
/* The matching loop                                                        */
/* ------------------------------------------------------------------------ */

/* Called for each matching object: 0 to go on, 1 to stop, or a status. */
typedef int (*qmatch_fn)(void *ctx, const qobj *o);

static int check_runnable(orc_txn *txn, orc_query *q)
{
    if (!txn || !q) return orc_fail(ORC_ERR_INVALID_ARG, "query: NULL transaction or query");
    if (!txn->schema || txn->schema->gen != q->gen)
        return orc_fail(ORC_ERR_SCHEMA, "query: the schema changed since the query was compiled (generation %" PRIu64
                        ", now %" PRIu64 ")", q->gen, txn->schema ? txn->schema->gen : 0);
    if (!schema_class(txn, q->table))
        return orc_fail(ORC_ERR_SCHEMA, "query: class with table id %u no longer exists", q->table);
    return ORC_OK;
}

static int push_cb(void *ctx, uint64_t key) { return keys_push(ctx, key); }

static int cmp_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The planner's candidate keys, deduplicated, in key order. */
static int candidates(orc_txn *txn, orc_query *q, orc_keys *k)
{
    const qplan *pl = &q->plan;
    int rc = ORC_OK;
    switch (pl->kind) {
    case QP_PK:
        for (uint32_t i = 0; i < pl->nvals && rc == ORC_OK; i++) {
            uint64_t key;
            rc = orc_obj_find(txn, q->table, &pl->vals[i], &key);
            if (rc == ORC_OK) rc = keys_push(k, key);
            else if (rc == ORC_ERR_NOT_FOUND) rc = ORC_OK;
        }
        break;
    case QP_INDEX_EQ:
        for (uint32_t i = 0; i < pl->nvals && rc == ORC_OK; i++) {
            rc = idx_scan(txn, q->table, pl->col, &pl->vals[i], true, &pl->vals[i], true, push_cb, k);
            if (rc > 0) rc = ORC_OK;
        }
        break;
    default:
        rc = idx_scan(txn, q->table, pl->col, pl->lo, pl->lo_incl, pl->hi, pl->hi_incl, push_cb, k);
        if (rc > 0) rc = ORC_OK;
        break;
    }
    if (rc != ORC_OK) return rc;
    bool sorted = true; /* one equality scan already yields key order */
    for (size_t i = 1; i < k->count && sorted; i++) sorted = k->keys[i - 1] < k->keys[i];
    if (!sorted) {
        qsort(k->keys, k->count, sizeof *k->keys, cmp_key);
        size_t w = 1;
        for (size_t i = 1; i < k->count; i++)
            if (k->keys[i] != k->keys[w - 1]) k->keys[w++] = k->keys[i];
        k->count = w;
    }
    return ORC_OK;
}

/*
 * Checks the rows of a list of keys (skipping vanished ones). `exact`: the
 * keys are known to match; their rows are read only when `need_row`.
 */
static int match_keys(orc_txn *txn, orc_query *q, const uint64_t *keys, size_t n, bool exact, bool need_row,
                      qmatch_fn fn, void *ctx)
{
    for (size_t i = 0; i < n; i++) {
        qobj o = {.cls = NULL, .table = q->table, .key = keys[i], .row = NULL, .size = 0};
        bool m = true;
        int rc = ORC_OK;
        if (!exact || need_row) rc = qobj_load(txn, q->table, keys[i], &o);
        if (rc == ORC_ERR_NOT_FOUND) continue;
        if (rc != ORC_OK) return rc;
        if (!exact) rc = eval_pred(txn, q->pred, &o, &m);
        if (rc != ORC_OK) return rc;
        if (!m) continue;
        rc = fn(ctx, &o);
        if (rc == 1) return ORC_OK;
        if (rc != ORC_OK) return rc;
    }
    return ORC_OK;
}

/* Calls fn for each matching object; `need_row`: fn reads the row (else only the key). */
static int each_match(orc_txn *txn, orc_query *q, bool need_row, qmatch_fn fn, void *ctx)
{
    int rc = check_runnable(txn, q);
    if (rc != ORC_OK) return rc;
    q->used_index = false;
    if (q->has_domain) return match_keys(txn, q, q->domain, q->ndomain, false, need_row, fn, ctx);
    if (q->pred->kind == ORC_OP_FALSE) return ORC_OK;
    if (q->plan.kind != QP_SCAN) {
        orc_keys k = {0};
        q->used_index = true;
        rc = candidates(txn, q, &k);
        if (rc == ORC_OK) rc = match_keys(txn, q, k.keys, k.count, q->plan.exact, need_row, fn, ctx);
        free(k.keys);
        return rc;
    }

    tscan s;
    rc = tscan_open(txn, q->table, &s);
    if (rc == ORC_ERR_NOT_FOUND) return ORC_OK; /* a table never written has no database yet */
    if (rc != ORC_OK) return rc;
    qobj o = {.cls = schema_class(txn, q->table), .table = q->table};
    qnode *root = q->pred;
    /* the hot path: one property against one constant, straight out of the row */
    uint16_t fast_col = root->fast ? root->lhs.path.steps[0].col : 0;
    bool fast_int = o.cls && int_scan_op(o.cls, root);
    int_probe probe = {0};
    if (fast_int) int_probe_init(&probe, o.cls, fast_col, root->op, root->rhs.val.integer);
    for (;;) {
        bool m;
        rc = tscan_next(&s);
        if (rc != ORC_OK) {
            if (rc == ORC_ERR_NOT_FOUND) rc = ORC_OK;
            break;
        }
        int im = fast_int ? int_probe_match(&probe, s.row, s.size) : -1;
        if (im == 0) continue;
        o.key = s.key;
        o.row = s.row;
        o.size = s.size;
        if (im > 0) {
            m = true;
        } else if (root->kind == ORC_OP_TRUE) {
            m = true; /* every object (iterating a whole table): nothing to evaluate */
        } else if (root->fast) {
            orc_value lv;
            rc = row_get(o.cls, o.row, o.size, fast_col, &lv);
            if (rc != ORC_OK) break;
            fix_link(&root->lhs.path.steps[0], &lv);
            m = fast_op(root, &lv);
        } else {
            rc = eval_pred(txn, root, &o, &m);
            if (rc != ORC_OK) break;
        }
        if (m) {
            rc = fn(ctx, &o);
            if (rc != ORC_OK) {
                if (rc == 1) rc = ORC_OK;
                break;
            }
        }
    }
    tscan_close(&s);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Public calls                                                             */
/* ------------------------------------------------------------------------ */

typedef struct runst {
    orc_keys *out;
    size_t base;
    uint64_t limit;
} runst;

static int run_push(void *ctx, const qobj *o)
{
    runst *r = ctx;
    int rc = keys_push(r->out, o->key);
    if (rc != ORC_OK) return rc;
    return (uint64_t)(r->out->count - r->base) >= r->limit ? 1 : 0;
}

/* How many matches can be needed at most: a leading LIMIT cuts the scan short. */
static uint64_t leading_limit(const orc_query *q)
{
    return q->ndescs && q->descs[0].kind == ORC_DESC_LIMIT ? q->descs[0].limit : UINT64_MAX;
}

int orc_query_run(orc_txn *txn, orc_query *q, orc_keys *out)
{
    if (!out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_query_run: out is NULL");
    runst r = {.out = out, .base = out->count, .limit = leading_limit(q)};
    int rc = check_runnable(txn, q);
    if (rc != ORC_OK || r.limit == 0) return rc;
    rc = each_match(txn, q, false, run_push, &r);
    if (rc == ORC_OK) {
        size_t n = out->count - r.base;
        rc = qdesc_apply(txn, q, out->keys + r.base, &n);
        out->count = r.base + n;
    }
    if (rc != ORC_OK) out->count = r.base;
    return rc;
}

typedef struct countst {
    uint64_t n, limit;
} countst;

static int count_one(void *ctx, const qobj *o)
{
    countst *c = ctx;
    return ++c->n >= c->limit ? 1 : 0;
}

static int count_key(void *ctx, uint64_t key)
{
    (void)key;
    countst *c = ctx;
    return ++c->n >= c->limit ? 1 : 0;
}

/*
 * Whether the matches can be counted straight off the index: the plan is exact (no row
 * needs checking) and scans one value or one range, where every entry is a distinct
 * object (an indexed column has one entry per object). Several IN values go through
 * the candidates, which deduplicate.
 */
static bool index_countable(const orc_query *q)
{
    const qplan *pl = &q->plan;
    if (!pl->exact || q->pred->kind == ORC_OP_FALSE) return false;
    return (pl->kind == QP_INDEX_EQ && pl->nvals == 1) || pl->kind == QP_INDEX_RANGE;
}

int orc_query_count(orc_txn *txn, orc_query *q, uint64_t *count_out)
{
    if (!count_out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_query_count: count_out is NULL");
    int rc = check_runnable(txn, q);
    if (rc != ORC_OK) return rc;
    bool distinct = false;
    uint64_t limit = UINT64_MAX;
    for (uint32_t i = 0; i < q->ndescs; i++) {
        if (q->descs[i].kind == ORC_DESC_DISTINCT) distinct = true;
        if (q->descs[i].kind == ORC_DESC_LIMIT && q->descs[i].limit < limit) limit = q->descs[i].limit;
    }
    if (distinct) {
        /* which objects survive DISTINCT depends on the values: materialise */
        orc_keys k = {0};
        rc = orc_query_run(txn, q, &k);
        if (rc == ORC_OK) *count_out = k.count;
        free(k.keys);
        return rc;
    }
    /* SORT does not change how many there are, and LIMITs only cap it */
    countst c = {.n = 0, .limit = limit};
    if (limit == 0) {
        *count_out = 0;
        return ORC_OK;
    }
    if (q->pred->kind == ORC_OP_TRUE && !q->has_domain) {
        q->used_index = false;
        rc = orc_table_count(txn, q->table, &c.n);
        if (rc != ORC_OK) return rc;
        *count_out = c.n < limit ? c.n : limit;
        return ORC_OK;
    }
    if (!q->has_domain && index_countable(q)) {
        /* each index entry in range is one match: count them, materialising no key */
        q->used_index = true;
        const qplan *pl = &q->plan;
        rc = pl->kind == QP_INDEX_EQ ? idx_scan(txn, q->table, pl->col, &pl->vals[0], true, &pl->vals[0], true, count_key, &c)
                                     : idx_scan(txn, q->table, pl->col, pl->lo, pl->lo_incl, pl->hi, pl->hi_incl, count_key, &c);
        if (rc > 0) rc = ORC_OK;
        if (rc == ORC_OK) *count_out = c.n;
        return rc;
    }
    rc = each_match(txn, q, false, count_one, &c);
    if (rc == ORC_OK) *count_out = c.n;
    return rc;
}

typedef struct aggst {
    qacc acc;
    uint16_t col;
} aggst;

static int agg_one(void *ctx, const qobj *o)
{
    aggst *a = ctx;
    orc_value v;
    int rc = row_get(o->cls, o->row, o->size, a->col, &v);
    if (rc != ORC_OK) return rc;
    if (v.type != ORC_TYPE_NULL) qacc_add(&a->acc, &v);
    return 0;
}

int orc_query_aggregate(orc_txn *txn, orc_query *q, uint16_t col, orc_agg agg, orc_value *out)
{
    if (!out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_query_aggregate: out is NULL");
    int rc = check_runnable(txn, q);
    if (rc != ORC_OK) return rc;
    const orc_class *c = schema_class(txn, q->table);
    const orc_prop *p = class_prop(c, col);
    if (!p) return orc_fail(ORC_ERR_NOT_FOUND, "orc_query_aggregate: class '%s' has no column %u", c->name, col);
    bool numeric = type_is_numeric(p->type) || p->type == ORC_TYPE_MIXED;
    switch (agg) {
    case ORC_AGG_COUNT:
        break;
    case ORC_AGG_MIN:
    case ORC_AGG_MAX:
        numeric = numeric || p->type == ORC_TYPE_TIMESTAMP;
        /* fall through */
    case ORC_AGG_SUM:
    case ORC_AGG_AVG:
        if (!numeric)
            return orc_fail(ORC_ERR_WRONG_TYPE, "orc_query_aggregate: %s does not apply to property '%s.%s' (%s)",
                            agg == ORC_AGG_MIN || agg == ORC_AGG_MAX ? "@min/@max" : "@sum/@avg", c->name, p->name,
                            qtype_name(p->type));
        break;
    default:
        return orc_fail(ORC_ERR_INVALID_ARG, "orc_query_aggregate: %d is not @min, @max, @sum, @avg or @count",
                        (int)agg);
    }
    if (p->collection != ORC_COLL_NONE)
        return orc_fail(ORC_ERR_WRONG_TYPE, "orc_query_aggregate: property '%s.%s' is a collection", c->name,
                        p->name);

    aggst a = {.col = col};
    qacc_init(&a.acc, (uint8_t)agg, p->type);
    if (q->ndescs == 0) {
        rc = each_match(txn, q, true, agg_one, &a);
    } else {
        orc_keys k = {0};
        rc = orc_query_run(txn, q, &k);
        for (size_t i = 0; rc == ORC_OK && i < k.count; i++) {
            qobj o;
            rc = qobj_load(txn, q->table, k.keys[i], &o);
            if (rc == ORC_OK) rc = agg_one(&a, &o);
        }
        free(k.keys);
    }
    if (rc != ORC_OK) return rc;
    qacc_result(&a.acc, out);
    return ORC_OK;
}
