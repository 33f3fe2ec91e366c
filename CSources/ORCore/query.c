/*
 * query.c — compiling predicate programs (the byte format documented under
 * "Queries" in orcore.h) into the tree of query_impl.h, and the query handle;
 * query_plan.c chooses how to find the candidates.
 *
 * COMPILING happens in one pass over the bytes. Every read is bounds-checked
 * and every failure names the byte offset: unknown opcodes, truncated
 * values, counts that cannot fit in the bytes left (so that no allocation is
 * ever larger than the program itself), nesting deeper than Q_MAX_DEPTH and
 * trailing bytes that are not descriptors are ORC_ERR_QUERY. A path is first
 * read structurally, then resolved against the schema the transaction sees:
 *
 *   state "at an object of class C"  --PROP p-->  at p's link target (p links),
 *                                                 at p's values (otherwise)
 *                                     --BACKLINK(T, c)-->  at an object of T
 *                                                 (T.c must link to C)
 *   a PROP step on a dictionary followed by a DICT_KEY step becomes one
 *   QS_DICT step (the value at that key); without a key the dictionary is a
 *   collection of its values.
 *   "at values" is final: only the aggregate may follow.
 *
 * A path is MULTI when a list, set, keyless dictionary or backlink step can
 * yield other than one value; MULTI paths are quantified (ANY by default),
 * single ones yield exactly one value, a null for a null link on the way.
 * Aggregates: @count/@size (the number of values; for a single string or
 * binary its length in bytes), @min/@max (numbers, timestamps, mixed),
 * @sum/@avg (numbers, mixed), @keys/@values (a keyless dictionary). The
 * reducing ones reduce EVERY value the path yields from one object to one
 * value: `items.price` with @sum sums the prices of all linked items.
 *
 * TYPE RULES (ORC_ERR_WRONG_TYPE): numbers compare across int, float,
 * double and decimal; other types only with themselves; links only with
 * links to the same class; a null constant and mixed properties with
 * anything. Ordering operators and BETWEEN do not apply to bools and links;
 * BEGINSWITH / ENDSWITH / CONTAINS / LIKE need strings or binaries (or mixed).
 */
#include "query_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------------ */
/* Names for messages                                                       */
/* ------------------------------------------------------------------------ */

const char *qtype_name(orc_type t)
{
    static const char *const names[] = {"null", "bool", "int", "float", "double", "string", "binary",
                                        "timestamp", "decimal", "ObjectId", "UUID", "link", "mixed"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "unknown";
}

static const char *op_name(uint8_t op)
{
    static const char *const names[] = {"?", "==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH",
                                        "CONTAINS", "LIKE", "IN", "BETWEEN"};
    return op < sizeof names / sizeof names[0] ? names[op] : "?";
}

static const char *class_name(orc_txn *txn, uint32_t table)
{
    const orc_class *c = schema_class(txn, table);
    return c ? c->name : "?";
}

/* ------------------------------------------------------------------------ */
/* Reading bytes                                                            */
/* ------------------------------------------------------------------------ */

typedef struct parser {
    orc_txn *txn;
    const uint8_t *p;
    size_t size;
    size_t pos;
} parser;

static size_t left(const parser *ps) { return ps->size - ps->pos; }

static int take(parser *ps, size_t n, const char *what, const uint8_t **out)
{
    if (left(ps) < n)
        return orc_fail(ORC_ERR_QUERY, "query: byte %zu: truncated %s (%zu bytes needed, %zu left)", ps->pos,
                        what, n, left(ps));
    *out = ps->p + ps->pos;
    ps->pos += n;
    return ORC_OK;
}

/* rd_u8, rd_u16, rd_u32 and rd_u64: a little-endian integer, or take's truncation error. */
#define RD_UINT(bits, load)                                                         \
    static int rd_u##bits(parser *ps, const char *what, uint##bits##_t *v)          \
    {                                                                               \
        const uint8_t *b = NULL;                                                    \
        int rc = take(ps, (bits) / 8, what, &b);                                    \
        if (rc == ORC_OK) *v = load(b);                                             \
        return rc;                                                                  \
    }
static inline uint8_t ld8(const uint8_t *p) { return p[0]; }
RD_UINT(8, ld8)
RD_UINT(16, ld16)
RD_UINT(32, ld32)
RD_UINT(64, ld64)
#undef RD_UINT

/* A count read at `at` promising `n` items of at least `min_size` bytes each. */
static int check_count(parser *ps, size_t at, uint64_t n, size_t min_size, const char *what)
{
    if (n > left(ps) / min_size)
        return orc_fail(ORC_ERR_QUERY, "query: byte %zu: %" PRIu64 " %s cannot fit in the %zu bytes left", at, n,
                        what, left(ps));
    return ORC_OK;
}

/* A 32-bit count (`what`), which check_count then holds to `items` of at least `min_size` bytes (`at` as there). */
static int rd_count32(parser *ps, size_t at, const char *what, size_t min_size, const char *items, uint32_t *n)
{
    int rc = rd_u32(ps, what, n);
    return rc ? rc : check_count(ps, at, *n, min_size, items);
}

#define TRY(expr)                                                                                                \
    do {                                                                                                         \
        int try_rc_ = (expr);                                                                                    \
        if (try_rc_ != ORC_OK) return try_rc_;                                                                   \
    } while (0)

static int parse_value(parser *ps, orc_value *v)
{
    size_t at = ps->pos;
    const uint8_t *b = NULL;
    uint8_t t;
    uint32_t len;
    memset(v, 0, sizeof *v);
    TRY(rd_u8(ps, "value type", &t));
    switch (t) {
    case ORC_TYPE_NULL:
        break;
    case ORC_TYPE_BOOL: {
        uint8_t x;
        TRY(rd_u8(ps, "bool value", &x));
        if (x > 1) return orc_fail(ORC_ERR_QUERY, "query: byte %zu: a bool value must be 0 or 1, found %u", ps->pos - 1, x);
        v->boolean = x;
        break;
    }
    case ORC_TYPE_INT:
        TRY(take(ps, 8, "int value", &b));
        v->integer = (int64_t)ld64(b);
        break;
    case ORC_TYPE_FLOAT:
        TRY(take(ps, 4, "float value", &b));
        memcpy(&v->fnum, b, 4);
        break;
    case ORC_TYPE_DOUBLE:
        TRY(take(ps, 8, "double value", &b));
        memcpy(&v->dnum, b, 8);
        break;
    case ORC_TYPE_STRING:
    case ORC_TYPE_BINARY:
        TRY(rd_u32(ps, "string length", &len));
        TRY(take(ps, len, t == ORC_TYPE_STRING ? "string value" : "binary value", &b));
        v->string.data = (const char *)b;
        v->string.size = len;
        break;
    case ORC_TYPE_TIMESTAMP:
        TRY(take(ps, 12, "timestamp value", &b));
        v->timestamp.seconds = (int64_t)ld64(b);
        v->timestamp.nanoseconds = (int32_t)ld32(b + 8);
        if (v->timestamp.nanoseconds > 999999999 || v->timestamp.nanoseconds < -999999999)
            return orc_fail(ORC_ERR_QUERY, "query: byte %zu: timestamp nanoseconds %d out of range", at + 9,
                            v->timestamp.nanoseconds);
        break;
    case ORC_TYPE_DECIMAL:
        TRY(take(ps, 16, "decimal value", &b));
        v->decimal.w[0] = ld64(b);
        v->decimal.w[1] = ld64(b + 8);
        break;
    case ORC_TYPE_OBJECT_ID:
        TRY(take(ps, 12, "ObjectId value", &b));
        memcpy(v->object_id, b, 12);
        break;
    case ORC_TYPE_UUID:
        TRY(take(ps, 16, "UUID value", &b));
        memcpy(v->uuid, b, 16);
        break;
    case ORC_TYPE_LINK:
        TRY(take(ps, 12, "link value", &b));
        v->link.table = ld32(b);
        v->link.key = ld64(b + 4);
        break;
    default:
        return orc_fail(ORC_ERR_QUERY, "query: byte %zu: unknown value type %u (expected 0-11)", at, t);
    }
    v->type = (orc_type)t;
    return ORC_OK;
}

/* ------------------------------------------------------------------------ */
/* Paths                                                                    */
/* ------------------------------------------------------------------------ */

void qpath_clear(qpath *p)
{
    if (!p->steps) return;
    for (unsigned i = 0; i < p->nsteps; i++) free(p->steps[i].scratch.keys);
    free(p->steps);
    p->steps = NULL;
    p->nsteps = 0;
}

/* Reads a path's bytes; the steps keep their raw ORC_STEP_* kinds until resolve_path. */
static int parse_path(parser *ps, qpath *p)
{
    size_t at = ps->pos;
    uint8_t n, agg;
    TRY(rd_u8(ps, "path step count", &n));
    /* a step is at least 3 bytes and the aggregate byte follows */
    if ((size_t)n * 3 + 1 > left(ps))
        return orc_fail(ORC_ERR_QUERY, "query: byte %zu: a path of %u steps cannot fit in the %zu bytes left", at, n,
                        left(ps));
    p->steps = calloc(n ? n : 1, sizeof *p->steps);
    if (!p->steps) return orc_fail(ORC_ERR_NOMEM, "query: out of memory for a path");
    p->nsteps = n;
    for (unsigned i = 0; i < n; i++) {
        qstep *s = &p->steps[i];
        s->at = (uint32_t)ps->pos;
        TRY(rd_u8(ps, "path step kind", &s->kind));
        switch (s->kind) {
        case ORC_STEP_PROP:
            TRY(rd_u16(ps, "property column", &s->col));
            break;
        case ORC_STEP_BACKLINK:
            TRY(rd_u32(ps, "backlink origin table", &s->origin_table));
            TRY(rd_u16(ps, "backlink origin column", &s->col));
            break;
        case ORC_STEP_DICT_KEY: {
            const uint8_t *b = NULL;
            TRY(rd_u32(ps, "dictionary key length", &s->dkey_len));
            TRY(take(ps, s->dkey_len, "dictionary key", &b));
            s->dkey = b;
            break;
        }
        default:
            return orc_fail(ORC_ERR_QUERY, "query: byte %u: unknown path step kind %u (expected 0-2)", s->at,
                            s->kind);
        }
    }
    size_t agg_at = ps->pos;
    TRY(rd_u8(ps, "path aggregate", &agg));
    if (agg > ORC_AGG_VALUES)
        return orc_fail(ORC_ERR_QUERY, "query: byte %zu: unknown aggregate %u (expected 0-8)", agg_at, agg);
    p->agg = agg;
    return ORC_OK;
}

/* The table a step starts from. */
static uint32_t step_source(const qpath *p, unsigned i)
{
    return i == 0 ? p->table : p->steps[i - 1].next_table;
}

/* Names what a path reaches, for messages: "property 'Task.title'". */
static void describe_path(orc_txn *txn, const qpath *p, char *buf, size_t n)
{
    if (p->nsteps == 0) {
        snprintf(buf, n, "the object itself ('%s')", class_name(txn, p->table));
        return;
    }
    const qstep *s = &p->steps[p->nsteps - 1];
    if (s->kind == QS_BACKLINK) {
        const orc_class *oc = schema_class(txn, s->origin_table);
        const orc_prop *pr = oc ? class_prop(oc, s->col) : NULL;
        snprintf(buf, n, "backlinks of '%s.%s'", oc ? oc->name : "?", pr ? pr->name : "?");
        return;
    }
    const orc_class *c = schema_class(txn, step_source(p, p->nsteps - 1));
    const orc_prop *pr = c ? class_prop(c, s->col) : NULL;
    snprintf(buf, n, "property '%s.%s'", c ? c->name : "?", pr ? pr->name : "?");
}

static int resolve_path(parser *ps, uint32_t table, qpath *p, size_t at)
{
    orc_txn *txn = ps->txn;
    uint32_t cur = table;      /* class of the current object; 0 once at values */
    bool dict_open = false;    /* the last step was a dictionary not yet given a key */
    bool multi = false, multi_before_dict = false;
    unsigned w = 0;
    const char *stop_prop = NULL, *stop_class = NULL;

    p->table = table;
    for (unsigned i = 0; i < p->nsteps; i++) {
        qstep s = p->steps[i];
        if (s.kind == ORC_STEP_DICT_KEY) {
            if (!dict_open)
                return orc_fail(ORC_ERR_WRONG_TYPE,
                                "query: byte %u: a dictionary key step must follow a dictionary property", s.at);
            qstep *d = &p->steps[w - 1];
            d->kind = QS_DICT;
            d->dkey = s.dkey;
            d->dkey_len = s.dkey_len;
            multi = multi_before_dict;
            dict_open = false;
            continue;
        }
        dict_open = false;
        if (cur == 0)
            return orc_fail(ORC_ERR_WRONG_TYPE,
                            "query: byte %u: property '%s.%s' holds values, not links; the path cannot go on",
                            s.at, stop_class, stop_prop);
        const orc_class *c = schema_class(txn, cur);
        if (!c) return orc_fail(ORC_ERR_NOT_FOUND, "query: byte %u: no class with table id %u", s.at, cur);
        qstep *o = &p->steps[w++];
        memset(o, 0, sizeof *o);
        o->at = s.at;
        o->col = s.col;
        if (s.kind == ORC_STEP_PROP) {
            const orc_prop *pr = class_prop(c, s.col);
            if (!pr)
                return orc_fail(ORC_ERR_NOT_FOUND, "query: byte %u: class '%s' has no column %u", s.at, c->name,
                                s.col);
            o->kind = QS_PROP;
            o->type = pr->type;
            o->coll = pr->collection;
            o->next_table = pr->type == ORC_TYPE_LINK ? pr->link_table : 0;
            if (pr->collection == ORC_COLL_DICT) {
                dict_open = true;
                multi_before_dict = multi;
            }
            if (pr->collection != ORC_COLL_NONE) multi = true;
            cur = o->next_table;
            stop_class = c->name;
            stop_prop = pr->name;
        } else {
            const orc_class *oc = schema_class(txn, s.origin_table);
            if (!oc)
                return orc_fail(ORC_ERR_NOT_FOUND, "query: byte %u: no class with table id %u for a backlink",
                                s.at, s.origin_table);
            const orc_prop *pr = class_prop(oc, s.col);
            if (!pr)
                return orc_fail(ORC_ERR_NOT_FOUND, "query: byte %u: class '%s' has no column %u", s.at, oc->name,
                                s.col);
            if (pr->type != ORC_TYPE_LINK || pr->link_table != cur)
                return orc_fail(ORC_ERR_WRONG_TYPE, "query: byte %u: property '%s.%s' does not link to class '%s'",
                                s.at, oc->name, pr->name, c->name);
            o->kind = QS_BACKLINK;
            o->type = ORC_TYPE_LINK;
            o->coll = ORC_COLL_LIST;
            o->origin_table = s.origin_table;
            o->next_table = s.origin_table;
            multi = true;
            cur = s.origin_table;
        }
    }
    p->nsteps = (uint8_t)w;
    p->multi = multi;

    /* the type of the values the steps yield */
    if (w == 0) {
        p->rtype = ORC_TYPE_LINK;
        p->rlink = table;
    } else {
        const qstep *s = &p->steps[w - 1];
        p->rtype = s->type;
        p->rlink = s->next_table;
    }

    char desc[2 * ORC_MAX_NAME + 64];
    const qstep *last = w ? &p->steps[w - 1] : NULL;
    bool dict_values = last && last->kind == QS_PROP && last->coll == ORC_COLL_DICT;
    switch (p->agg) {
    case ORC_AGG_NONE:
        break;
    case ORC_AGG_KEYS:
    case ORC_AGG_VALUES:
        if (!dict_values) {
            describe_path(txn, p, desc, sizeof desc);
            return orc_fail(ORC_ERR_WRONG_TYPE, "query: byte %zu: @%s needs a dictionary, but the path reaches %s",
                            at, p->agg == ORC_AGG_KEYS ? "keys" : "values", desc);
        }
        if (p->agg == ORC_AGG_KEYS) {
            p->rtype = ORC_TYPE_STRING;
            p->rlink = 0;
        }
        break;
    case ORC_AGG_COUNT:
    case ORC_AGG_SIZE:
        if (!multi) {
            if (last && last->kind == QS_PROP && last->coll == ORC_COLL_NONE &&
                (last->type == ORC_TYPE_STRING || last->type == ORC_TYPE_BINARY)) {
                p->agg = Q_AGG_LENGTH;
            } else {
                describe_path(txn, p, desc, sizeof desc);
                return orc_fail(ORC_ERR_WRONG_TYPE,
                                "query: byte %zu: @count/@size needs a collection, string or binary, but %s is one %s",
                                at, desc, qtype_name(p->rtype));
            }
        }
        p->rtype = ORC_TYPE_INT;
        p->rlink = 0;
        break;
    case ORC_AGG_MIN:
    case ORC_AGG_MAX:
    case ORC_AGG_SUM:
    case ORC_AGG_AVG: {
        bool minmax = p->agg == ORC_AGG_MIN || p->agg == ORC_AGG_MAX;
        bool ok = type_is_numeric(p->rtype) || p->rtype == ORC_TYPE_MIXED ||
                  (minmax && p->rtype == ORC_TYPE_TIMESTAMP);
        if (!ok) {
            describe_path(txn, p, desc, sizeof desc);
            return orc_fail(ORC_ERR_WRONG_TYPE, "query: byte %zu: %s does not apply to %s (%s)", at,
                            minmax ? "@min/@max" : "@sum/@avg", desc, qtype_name(p->rtype));
        }
        if (!minmax) p->rtype = ORC_TYPE_DOUBLE; /* "a number": checks treat all numbers alike */
        p->rlink = 0;
        break;
    }
    }
    bool reduces = p->agg != ORC_AGG_NONE && p->agg != ORC_AGG_KEYS && p->agg != ORC_AGG_VALUES;
    p->single = reduces || !multi;
    p->simple = w == 1 && p->agg == ORC_AGG_NONE && last->kind == QS_PROP && last->coll == ORC_COLL_NONE;
    return ORC_OK;
}

/* ------------------------------------------------------------------------ */
/* Predicates                                                               */
/* ------------------------------------------------------------------------ */

void qnode_free(qnode *n)
{
    if (!n) return;
    for (uint32_t i = 0; i < n->n && n->kids; i++) qnode_free(n->kids[i]);
    free(n->kids);
    qexpr *es[2] = {&n->lhs, &n->rhs};
    for (int i = 0; i < 2; i++) {
        qpath_clear(&es[i]->path);
        free(es[i]->list);
        qnode_free(es[i]->sub);
    }
    qgeo_free(n->geo);
    free(n->rv);
    free(n);
}

static int parse_pred(parser *ps, uint32_t table, int depth, qnode **out);

static int parse_expr(parser *ps, uint32_t table, int depth, qexpr *e)
{
    size_t at = ps->pos;
    TRY(rd_u8(ps, "expression opcode", &e->kind));
    switch (e->kind) {
    case QE_PATH:
        TRY(parse_path(ps, &e->path));
        return resolve_path(ps, table, &e->path, at);
    case QE_CONST:
        return parse_value(ps, &e->val);
    case QE_LIST: {
        uint32_t n;
        TRY(rd_count32(ps, at + 1, "LIST count", 1, "LIST values", &n));
        e->list = calloc(n ? n : 1, sizeof *e->list);
        if (!e->list) return orc_fail(ORC_ERR_NOMEM, "query: out of memory for a LIST of %u values", n);
        for (uint32_t i = 0; i < n; i++) {
            TRY(parse_value(ps, &e->list[i]));
            e->nlist = i + 1;
        }
        return ORC_OK;
    }
    case QE_SUBQUERY: {
        char desc[2 * ORC_MAX_NAME + 64];
        TRY(parse_path(ps, &e->path));
        TRY(resolve_path(ps, table, &e->path, at));
        if (e->path.rtype != ORC_TYPE_LINK || e->path.agg != ORC_AGG_NONE) {
            describe_path(ps->txn, &e->path, desc, sizeof desc);
            return orc_fail(ORC_ERR_WRONG_TYPE, "query: byte %zu: SUBQUERY needs a path to linked objects, not %s",
                            at, desc);
        }
        return parse_pred(ps, e->path.rlink, depth + 1, &e->sub);
    }
    default:
        return orc_fail(ORC_ERR_QUERY, "query: byte %zu: expected an expression (0x10-0x13), found 0x%02x", at,
                        e->kind);
    }
}

static void expr_type(const qexpr *e, orc_type *t, uint32_t *link)
{
    *link = 0;
    switch (e->kind) {
    case QE_PATH:
        *t = e->path.rtype;
        *link = e->path.rlink;
        break;
    case QE_CONST:
        *t = e->val.type;
        if (e->val.type == ORC_TYPE_LINK) *link = e->val.link.table;
        break;
    default: /* SUBQUERY */
        *t = ORC_TYPE_INT;
        break;
    }
}

static void describe_expr(orc_txn *txn, const qexpr *e, char *buf, size_t n)
{
    if (e->kind == QE_PATH) describe_path(txn, &e->path, buf, n);
    else if (e->kind == QE_SUBQUERY) snprintf(buf, n, "a SUBQUERY count");
    else snprintf(buf, n, "a constant");
}

static bool compatible(orc_type a, uint32_t al, orc_type b, uint32_t bl)
{
    if (a == ORC_TYPE_MIXED || b == ORC_TYPE_MIXED || a == ORC_TYPE_NULL || b == ORC_TYPE_NULL) return true;
    if (type_is_numeric(a) && type_is_numeric(b)) return true;
    if (a != b) return false;
    return a != ORC_TYPE_LINK || al == bl;
}

static bool orderable(orc_type t) { return t != ORC_TYPE_BOOL && t != ORC_TYPE_LINK; }

static bool stringish(orc_type t)
{
    return t == ORC_TYPE_STRING || t == ORC_TYPE_BINARY || t == ORC_TYPE_MIXED;
}

static int type_error(parser *ps, size_t at, const qnode *n, orc_type rt, uint32_t rl, const char *why)
{
    char ld[2 * ORC_MAX_NAME + 64], rd[2 * ORC_MAX_NAME + 64];
    orc_type lt;
    uint32_t ll;
    expr_type(&n->lhs, &lt, &ll);
    describe_expr(ps->txn, &n->lhs, ld, sizeof ld);
    if (n->rhs.kind == QE_LIST) snprintf(rd, sizeof rd, "a LIST value");
    else describe_expr(ps->txn, &n->rhs, rd, sizeof rd);
    char lts[ORC_MAX_NAME + 32], rts[ORC_MAX_NAME + 32];
    if (lt == ORC_TYPE_LINK) snprintf(lts, sizeof lts, "link to '%s'", class_name(ps->txn, ll));
    else snprintf(lts, sizeof lts, "%s", qtype_name(lt));
    if (rt == ORC_TYPE_LINK) snprintf(rts, sizeof rts, "link to '%s'", class_name(ps->txn, rl));
    else snprintf(rts, sizeof rts, "%s", qtype_name(rt));
    return orc_fail(ORC_ERR_WRONG_TYPE, "query: byte %zu: %s (%s) %s %s (%s) by %s", at, ld, lts, why, rd, rts,
                    op_name(n->op));
}

/* An operand whose type the operator cannot take. */
static int operand_error(parser *ps, size_t at, const qnode *n, bool left, orc_type t, const char *needs)
{
    char d[2 * ORC_MAX_NAME + 64];
    if (!left && n->rhs.kind == QE_LIST) snprintf(d, sizeof d, "a LIST value");
    else describe_expr(ps->txn, left ? &n->lhs : &n->rhs, d, sizeof d);
    return orc_fail(ORC_ERR_WRONG_TYPE, "query: byte %zu: %s needs %s, but %s is %s", at, op_name(n->op), needs, d,
                    qtype_name(t));
}

static int check_cmp(parser *ps, size_t at, qnode *n)
{
    uint8_t op = n->op;
    if (n->lhs.kind == QE_LIST)
        return orc_fail(ORC_ERR_QUERY, "query: byte %zu: a LIST may only be the right side of IN or BETWEEN", at);
    if (op == ORC_CMP_IN || op == ORC_CMP_BETWEEN) {
        if (n->rhs.kind != QE_LIST)
            return orc_fail(ORC_ERR_QUERY, "query: byte %zu: %s needs a LIST on its right side", at, op_name(op));
        if (op == ORC_CMP_BETWEEN && n->rhs.nlist != 2)
            return orc_fail(ORC_ERR_QUERY, "query: byte %zu: BETWEEN needs a LIST of 2 values, found %u", at,
                            n->rhs.nlist);
    } else if (n->rhs.kind == QE_LIST) {
        return orc_fail(ORC_ERR_QUERY, "query: byte %zu: a LIST may only be the right side of IN or BETWEEN", at);
    }

    orc_type lt, rt;
    uint32_t ll, rl;
    expr_type(&n->lhs, &lt, &ll);
    bool ordering = op >= ORC_CMP_LT && op <= ORC_CMP_GE;
    ordering = ordering || op == ORC_CMP_BETWEEN;
    bool strop = op >= ORC_CMP_BEGINS_WITH && op <= ORC_CMP_LIKE;
    uint32_t nr = n->rhs.kind == QE_LIST ? n->rhs.nlist : 1;
    if (ordering && !orderable(lt)) return operand_error(ps, at, n, true, lt, "values that can be ordered");
    if (strop && !stringish(lt) && lt != ORC_TYPE_NULL)
        return operand_error(ps, at, n, true, lt, "strings or binaries");
    for (uint32_t i = 0; i < nr; i++) {
        if (n->rhs.kind == QE_LIST) {
            rt = n->rhs.list[i].type;
            rl = rt == ORC_TYPE_LINK ? n->rhs.list[i].link.table : 0;
        } else {
            expr_type(&n->rhs, &rt, &rl);
        }
        if (ordering && !orderable(rt)) return operand_error(ps, at, n, false, rt, "values that can be ordered");
        if (strop && !stringish(rt) && rt != ORC_TYPE_NULL)
            return operand_error(ps, at, n, false, rt, "strings or binaries");
        if (!compatible(lt, ll, rt, rl)) return type_error(ps, at, n, rt, rl, "cannot be compared with");
    }
    n->fast = n->lhs.kind == QE_PATH && n->lhs.path.simple && n->rhs.kind == QE_CONST &&
              (n->quant == ORC_Q_DEFAULT || n->quant == ORC_Q_ANY);
    return ORC_OK;
}

/*
 * GEOWITHIN's two paths: to the location's `type` (a string) and to its
 * `coordinates` (a list of doubles), the same steps but the last, which lead
 * through one link (no collection on the way) to an embedded object.
 */
static int parse_geo(parser *ps, uint32_t table, size_t at, qnode *n)
{
    qpath *tp = &n->lhs.path, *cp = &n->rhs.path;
    n->lhs.kind = n->rhs.kind = QE_PATH;
    TRY(parse_path(ps, tp));
    TRY(resolve_path(ps, table, tp, at));
    TRY(parse_path(ps, cp));
    TRY(resolve_path(ps, table, cp, at));
    if (tp->nsteps < 2 || tp->nsteps != cp->nsteps || tp->multi || tp->agg || cp->agg)
        return orc_fail(ORC_ERR_WRONG_TYPE,
                        "query: byte %zu: GEOWITHIN needs two paths through one link to an embedded object, "
                        "ending at its type and its coordinates",
                        at);
    unsigned last = tp->nsteps - 1u;
    for (unsigned i = 0; i < last; i++) {
        const qstep *a = &tp->steps[i], *b = &cp->steps[i];
        if (a->kind != b->kind || a->col != b->col || a->origin_table != b->origin_table)
            return orc_fail(ORC_ERR_WRONG_TYPE, "query: byte %u: GEOWITHIN's two paths differ before their last step",
                            b->at);
    }
    const qstep *link = &tp->steps[last - 1], *ts = &tp->steps[last], *cs = &cp->steps[last];
    const orc_class *target = schema_class(ps->txn, link->next_table);
    if (link->type != ORC_TYPE_LINK || !target || target->kind != ORC_CLASS_EMBEDDED)
        return orc_fail(ORC_ERR_WRONG_TYPE,
                        "query: byte %zu: GEOWITHIN can only read a link to an embedded class, but class '%s' is "
                        "not embedded",
                        at, target ? target->name : "?");
    if (ts->kind != QS_PROP || ts->type != ORC_TYPE_STRING || ts->coll != ORC_COLL_NONE || cs->kind != QS_PROP ||
        cs->type != ORC_TYPE_DOUBLE || cs->coll != ORC_COLL_LIST)
        return orc_fail(ORC_ERR_WRONG_TYPE,
                        "query: byte %zu: GEOWITHIN needs class '%s' to have a string 'type' and a list of doubles "
                        "'coordinates'",
                        at, target->name);
    return ORC_OK;
}

static int parse_pred(parser *ps, uint32_t table, int depth, qnode **out)
{
    size_t at = ps->pos;
    uint8_t kind;
    if (depth > Q_MAX_DEPTH)
        return orc_fail(ORC_ERR_QUERY, "query: byte %zu: predicates nest deeper than %d", at, Q_MAX_DEPTH);
    TRY(rd_u8(ps, "predicate opcode", &kind));
    qnode *n = calloc(1, sizeof *n);
    if (!n) return orc_fail(ORC_ERR_NOMEM, "query: out of memory for a predicate");
    *out = n;
    n->kind = kind;
    switch (kind) {
    case ORC_OP_AND:
    case ORC_OP_OR: {
        uint32_t cnt;
        TRY(rd_count32(ps, at + 1, "AND/OR count", 1, "predicates", &cnt));
        n->kids = calloc(cnt ? cnt : 1, sizeof *n->kids);
        if (!n->kids) return orc_fail(ORC_ERR_NOMEM, "query: out of memory for %u predicates", cnt);
        n->n = cnt;
        for (uint32_t i = 0; i < cnt; i++) TRY(parse_pred(ps, table, depth + 1, &n->kids[i]));
        return ORC_OK;
    }
    case ORC_OP_NOT:
        n->kids = calloc(1, sizeof *n->kids);
        if (!n->kids) return orc_fail(ORC_ERR_NOMEM, "query: out of memory for NOT");
        n->n = 1;
        return parse_pred(ps, table, depth + 1, &n->kids[0]);
    case ORC_OP_TRUE:
    case ORC_OP_FALSE:
        return ORC_OK;
    case ORC_OP_CMP:
        TRY(rd_u8(ps, "CMP operator", &n->op));
        if (n->op < ORC_CMP_EQ || n->op > ORC_CMP_BETWEEN)
            return orc_fail(ORC_ERR_QUERY, "query: byte %zu: unknown CMP operator %u (expected 1-12)", at + 1, n->op);
        TRY(rd_u8(ps, "CMP flags", &n->flags));
        if (n->flags & ~(ORC_CMP_CASE_INSENSITIVE | ORC_CMP_DIACRITIC_INSENSITIVE))
            return orc_fail(ORC_ERR_QUERY, "query: byte %zu: unknown CMP flags 0x%02x", at + 2, n->flags);
        TRY(rd_u8(ps, "CMP quantifier", &n->quant));
        if (n->quant > ORC_Q_NONE)
            return orc_fail(ORC_ERR_QUERY, "query: byte %zu: unknown quantifier %u (expected 0-3)", at + 3, n->quant);
        TRY(parse_expr(ps, table, depth, &n->lhs));
        TRY(parse_expr(ps, table, depth, &n->rhs));
        return check_cmp(ps, at, n);
    case ORC_OP_GEO_WITHIN:
        TRY(parse_geo(ps, table, at, n));
        return qgeo_parse(ps->p, ps->size, &ps->pos, &n->geo);
    default:
        return orc_fail(ORC_ERR_QUERY, "query: byte %zu: expected a predicate (0x01-0x07), found 0x%02x", at, kind);
    }
}

/* ------------------------------------------------------------------------ */
/* Descriptors                                                              */
/* ------------------------------------------------------------------------ */

static void desc_free(qdesc *d)
{
    for (uint32_t i = 0; i < d->n && d->paths; i++) qpath_clear(&d->paths[i]);
    free(d->paths);
    free(d->ascending);
}

static int parse_desc(parser *ps, uint32_t table, qdesc *d)
{
    size_t at = ps->pos;
    uint8_t n;
    TRY(rd_u8(ps, "descriptor", &d->kind));
    switch (d->kind) {
    case ORC_DESC_SORT:
    case ORC_DESC_DISTINCT: {
        bool sort = d->kind == ORC_DESC_SORT;
        TRY(rd_u8(ps, sort ? "SORT count" : "DISTINCT count", &n));
        TRY(check_count(ps, at + 1, n, sort ? 3 : 2, "paths"));
        d->paths = calloc(n ? n : 1, sizeof *d->paths);
        d->ascending = calloc(n ? n : 1, sizeof *d->ascending);
        if (!d->paths || !d->ascending) return orc_fail(ORC_ERR_NOMEM, "query: out of memory for a descriptor");
        d->n = n;
        for (unsigned i = 0; i < n; i++) {
            size_t pat = ps->pos;
            TRY(parse_path(ps, &d->paths[i]));
            TRY(resolve_path(ps, table, &d->paths[i], pat));
            if (!d->paths[i].single) {
                char desc[2 * ORC_MAX_NAME + 64];
                describe_path(ps->txn, &d->paths[i], desc, sizeof desc);
                return orc_fail(ORC_ERR_WRONG_TYPE, "query: byte %zu: %s needs a path of one value, but %s has many",
                                pat, sort ? "SORT" : "DISTINCT", desc);
            }
            if (sort) {
                uint8_t asc;
                TRY(rd_u8(ps, "SORT direction", &asc));
                if (asc > 1)
                    return orc_fail(ORC_ERR_QUERY, "query: byte %zu: SORT direction must be 0 or 1, found %u",
                                    ps->pos - 1, asc);
                d->ascending[i] = asc;
            }
        }
        return ORC_OK;
    }
    case ORC_DESC_LIMIT:
        return rd_u64(ps, "LIMIT count", &d->limit);
    default:
        return orc_fail(ORC_ERR_QUERY,
                        "query: byte %zu: expected a descriptor (0x20-0x22) or the end after the predicate, found 0x%02x",
                        at, d->kind);
    }
}

/* ------------------------------------------------------------------------ */
/* The handle                                                               */
/* ------------------------------------------------------------------------ */

int orc_query_compile(orc_txn *txn, uint32_t table, const void *program, size_t size, orc_query **out)
{
    int rc;
    if (!out) return orc_fail(ORC_ERR_INVALID_ARG, "orc_query_compile: out is NULL");
    *out = NULL;
    if (!txn || !txn->schema) return orc_fail(ORC_ERR_INVALID_ARG, "orc_query_compile: no transaction");
    if (!program && size) return orc_fail(ORC_ERR_INVALID_ARG, "orc_query_compile: program is NULL");
    if (!schema_class_req(txn, table, &rc)) return rc;

    orc_query *q = calloc(1, sizeof *q);
    if (!q) return orc_fail(ORC_ERR_NOMEM, "query: out of memory");
    q->prog = malloc(size ? size : 1);
    if (!q->prog) {
        free(q);
        return orc_fail(ORC_ERR_NOMEM, "query: out of memory copying a program of %zu bytes", size);
    }
    if (size) memcpy(q->prog, program, size);
    q->prog_size = size;
    q->table = table;
    q->gen = txn->schema->gen;

    parser ps = {.txn = txn, .p = q->prog, .size = size, .pos = 0};
    rc = parse_pred(&ps, table, 1, &q->pred);
    uint32_t cap = 0;
    while (rc == ORC_OK && ps.pos < ps.size) {
        if (q->ndescs == cap) {
            uint32_t ncap = cap ? cap * 2 : 4;
            qdesc *d = realloc(q->descs, ncap * sizeof *d);
            if (!d) {
                rc = orc_fail(ORC_ERR_NOMEM, "query: out of memory for descriptors");
                break;
            }
            q->descs = d;
            cap = ncap;
        }
        qdesc *d = &q->descs[q->ndescs++];
        memset(d, 0, sizeof *d);
        rc = parse_desc(&ps, table, d);
    }
    if (rc == ORC_OK) rc = qplan_choose(txn, q);
    if (rc != ORC_OK) {
        orc_query_free(q);
        return rc;
    }
    *out = q;
    return ORC_OK;
}

void orc_query_free(orc_query *q)
{
    if (!q) return;
    qnode_free(q->pred);
    for (uint32_t i = 0; i < q->ndescs; i++) desc_free(&q->descs[i]);
    free(q->descs);
    free(q->domain);
    free(q->prog);
    free(q);
}

int orc_query_set_domain(orc_query *q, const uint64_t *keys, size_t n)
{
    if (!q) return orc_fail(ORC_ERR_INVALID_ARG, "orc_query_set_domain: query is NULL");
    if (!keys) {
        free(q->domain);
        q->domain = NULL;
        q->ndomain = 0;
        q->has_domain = false;
        return ORC_OK;
    }
    uint64_t *d = n <= SIZE_MAX / sizeof *d ? malloc(n ? n * sizeof *d : 1) : NULL;
    if (!d) return orc_fail(ORC_ERR_NOMEM, "orc_query_set_domain: out of memory for %zu keys", n);
    if (n) memcpy(d, keys, n * sizeof *d);
    free(q->domain);
    q->domain = d;
    q->ndomain = n;
    q->has_domain = true;
    return ORC_OK;
}

bool orc_query_used_index(const orc_query *q) { return q && q->used_index; }
