/*
 * query_plan.c — the planner: how a compiled query finds its candidates.
 *
 * THE PLANNER looks at the predicate and, when it is an AND, at its
 * conjuncts (nested ANDs flattened). A conjunct qualifies when it compares
 * one plain property that is the primary key or ORC_PROP_INDEXED, with the
 * default quantifier and no string flags, against constants of exactly the
 * property's type (for mixed: bool, string, timestamp, ObjectId or UUID, so
 * that index order and comparison agree). Primary keys serve EQ / IN,
 * indexes EQ / IN / BETWEEN / ordering (ranges on one column intersect).
 * Cheapest first: primary key EQ, primary key IN, index EQ, index IN,
 * closed range, open range. Candidates are rechecked against the whole
 * predicate, so the plan only has to never miss a match; the recheck (and
 * reading the row at all) is skipped only when the plan is EXACT (see
 * plan_exact).
 */
#include "query_impl.h"

#include <stdlib.h>

typedef struct cands {
    qnode **v;
    size_t n, cap;
    bool other;              /* the predicate has more than ANDs of CMPs */
} cands;

static int collect_conjuncts(qnode *n, cands *c)
{
    if (n->kind == ORC_OP_AND) {
        for (uint32_t i = 0; i < n->n; i++) {
            int rc = collect_conjuncts(n->kids[i], c);
            if (rc != ORC_OK) return rc;
        }
        return ORC_OK;
    }
    if (n->kind != ORC_OP_CMP) {
        c->other = true;
        return ORC_OK;
    }
    int rc = array_reserve(&c->v, c->n, &c->cap, sizeof *c->v, 8, "query: the plan's comparisons");
    if (rc) return rc;
    c->v[c->n++] = n;
    return ORC_OK;
}

static bool index_type_ok(const orc_prop *p, const orc_value *v)
{
    if (p->type == ORC_TYPE_MIXED)
        return v->type == ORC_TYPE_BOOL || v->type == ORC_TYPE_STRING || v->type == ORC_TYPE_TIMESTAMP ||
               v->type == ORC_TYPE_OBJECT_ID || v->type == ORC_TYPE_UUID;
    return v->type == p->type;
}

/* Whether a conjunct can use the primary key or an index; fills *prop. */
static bool plannable(const orc_class *c, const qnode *n, const orc_prop **prop)
{
    if (n->lhs.kind != QE_PATH || !n->lhs.path.simple || n->quant != ORC_Q_DEFAULT || n->flags) return false;
    switch (n->op) {
    case ORC_CMP_EQ: case ORC_CMP_LT: case ORC_CMP_LE: case ORC_CMP_GT: case ORC_CMP_GE:
        if (n->rhs.kind != QE_CONST) return false;
        break;
    case ORC_CMP_IN: case ORC_CMP_BETWEEN:
        break;
    default:
        return false;
    }
    const orc_prop *p = class_prop(c, n->lhs.path.steps[0].col);
    if (!p || p->collection != ORC_COLL_NONE) return false;
    bool pk = c->pk_col >= 0 && (uint16_t)c->pk_col == p->col;
    bool indexed = (p->flags & ORC_PROP_INDEXED) != 0;
    if (!indexed && !(pk && (n->op == ORC_CMP_EQ || n->op == ORC_CMP_IN))) return false;
    if (n->rhs.kind == QE_CONST) {
        if (!index_type_ok(p, &n->rhs.val)) return false;
    } else {
        for (uint32_t i = 0; i < n->rhs.nlist; i++)
            if (!index_type_ok(p, &n->rhs.list[i])) return false;
    }
    *prop = p;
    return true;
}

/* Narrows [*lo, *hi] by one range conjunct. */
static void narrow(const qnode *n, const orc_value **lo, bool *lo_incl, const orc_value **hi, bool *hi_incl)
{
    const orc_value *nlo = NULL, *nhi = NULL;
    bool nlo_incl = true, nhi_incl = true;
    switch (n->op) {
    case ORC_CMP_LT: nhi = &n->rhs.val; nhi_incl = false; break;
    case ORC_CMP_LE: nhi = &n->rhs.val; break;
    case ORC_CMP_GT: nlo = &n->rhs.val; nlo_incl = false; break;
    case ORC_CMP_GE: nlo = &n->rhs.val; break;
    case ORC_CMP_BETWEEN: nlo = &n->rhs.list[0]; nhi = &n->rhs.list[1]; break;
    default: return;
    }
    if (nlo) {
        int c = *lo ? orc_value_compare(nlo, *lo) : 1;
        if (c > 0 || (c == 0 && !nlo_incl)) {
            *lo = nlo;
            *lo_incl = nlo_incl;
        }
    }
    if (nhi) {
        int c = *hi ? orc_value_compare(nhi, *hi) : -1;
        if (c < 0 || (c == 0 && !nhi_incl)) {
            *hi = nhi;
            *hi_incl = nhi_incl;
        }
    }
}

static bool is_range(uint8_t op)
{
    return op == ORC_CMP_LT || op == ORC_CMP_LE || op == ORC_CMP_GT || op == ORC_CMP_GE || op == ORC_CMP_BETWEEN;
}

/*
 * Whether the chosen plan's candidates are exactly the matching objects, so
 * that rows need not be read at all (an index lookup then costs what the
 * index scan costs). That holds when the predicate is nothing but the
 * conjuncts the plan consumed, and the index cannot report extra keys:
 * primary keys always; equality when every constant's index encoding is
 * exact (not a truncated long string); ranges on types whose encoding is
 * never truncated, with a lower bound (nulls sort first and an ordering
 * comparison never matches them) and inclusive bounds (idx_scan treats
 * every bound as inclusive; int bounds are made inclusive by stepping them).
 */
static int plan_exact(const orc_class *c, const cands *cs, qplan *pl, bool *exact)
{
    *exact = false;
    if (cs->other || pl->kind == QP_SCAN) return ORC_OK;
    for (size_t i = 0; i < cs->n; i++) {
        const orc_prop *p;
        const qnode *n = cs->v[i];
        if (!plannable(c, n, &p) || p->col != pl->col) return ORC_OK;
        if (pl->kind == QP_INDEX_RANGE ? !is_range(n->op) : cs->n != 1) return ORC_OK;
    }
    const orc_prop *p = class_prop(c, pl->col);
    if (pl->kind == QP_PK) {
        *exact = true;
    } else if (pl->kind == QP_INDEX_RANGE) {
        if (p->type == ORC_TYPE_INT && pl->lo && !pl->lo_incl && pl->lo->integer < INT64_MAX) {
            pl->lo_store = *pl->lo;
            pl->lo_store.integer++;
            pl->lo = &pl->lo_store;
            pl->lo_incl = true;
        }
        if (p->type == ORC_TYPE_INT && pl->hi && !pl->hi_incl && pl->hi->integer > INT64_MIN) {
            pl->hi_store = *pl->hi;
            pl->hi_store.integer--;
            pl->hi = &pl->hi_store;
            pl->hi_incl = true;
        }
        *exact = pl->lo && pl->lo_incl && (!pl->hi || pl->hi_incl) &&
                 (p->type == ORC_TYPE_INT || p->type == ORC_TYPE_TIMESTAMP || p->type == ORC_TYPE_OBJECT_ID ||
                  p->type == ORC_TYPE_UUID);
    } else {
        orc_buf b = {0};
        bool all = true;
        for (uint32_t i = 0; i < pl->nvals && all; i++) {
            bool one = false;
            b.size = 0;
            /* a value the encoder refuses is simply not exact: the rows get checked */
            all = keyenc(&b, &pl->vals[i], &one) == ORC_OK && one;
        }
        buf_free(&b);
        *exact = all;
    }
    return ORC_OK;
}

int qplan_choose(orc_txn *txn, orc_query *q)
{
    const orc_class *c = schema_class(txn, q->table);
    cands cs = {0};
    q->plan.kind = QP_SCAN;
    int rc = collect_conjuncts(q->pred, &cs);
    if (rc != ORC_OK) {
        free(cs.v);
        return rc;
    }
    uint64_t best = UINT64_MAX;
    for (size_t i = 0; i < cs.n; i++) {
        const qnode *n = cs.v[i];
        const orc_prop *p;
        if (!plannable(c, n, &p)) continue;
        bool pk = c->pk_col >= 0 && (uint16_t)c->pk_col == p->col;
        qplan cand = {0};
        uint64_t cost;
        cand.col = p->col;
        if (n->op == ORC_CMP_EQ || n->op == ORC_CMP_IN) {
            cand.vals = n->op == ORC_CMP_EQ ? &n->rhs.val : n->rhs.list;
            cand.nvals = n->op == ORC_CMP_EQ ? 1 : n->rhs.nlist;
            cand.kind = pk ? QP_PK : QP_INDEX_EQ;
            cost = (uint64_t)cand.nvals * (pk ? 1 : 50);
        } else {
            /* intersect every range on this column */
            cand.kind = QP_INDEX_RANGE;
            for (size_t j = 0; j < cs.n; j++) {
                const orc_prop *pj;
                const qnode *m = cs.v[j];
                if (m->op == ORC_CMP_EQ || m->op == ORC_CMP_IN) continue;
                if (!plannable(c, m, &pj) || pj->col != p->col) continue;
                narrow(m, &cand.lo, &cand.lo_incl, &cand.hi, &cand.hi_incl);
            }
            cost = cand.lo && cand.hi ? 100000 : 200000;
        }
        if (cost < best) {
            best = cost;
            q->plan = cand;
        }
    }
    rc = plan_exact(c, &cs, &q->plan, &q->plan.exact);
    free(cs.v);
    return rc;
}
