/*
 * test_random.c — random operation sequences checked against a model.
 *
 * Two classes: Obj {id: int primary key, n: indexed int, s: indexed optional
 * string, d: optional double, ref: link to Obj, li: list of int, ll: list of
 * links to Obj} and Plain {v: indexed optional int, t: string}. Each write
 * transaction applies a few random operations to the engine and to an
 * in-memory model, then commits or aborts at random. After every commit the
 * whole file is compared with the model (counts, keys, every value and list,
 * primary-key lookups, index query results, backlinks) and orc_env_check
 * runs; after an abort the model rolls back and the comparison must still
 * hold. Halfway through, the file is closed and reopened.
 *
 * Object keys are checked to be fresh: a created object's key exceeds every
 * key committed before, erased ones included.
 *
 * Size: 6 seeds of 200 transactions by default (about a second in a Debug
 * build); ORC_TEST_LONG=1 runs 20 seeds of 500. ORC_TEST_SEED fixes the
 * first seed; a failure prints the seed and transaction number.
 */
#include "harness.h"
#include "query_builder.h"

#include <stdlib.h>

/* ---- the model ---- */

#define MAX_OBJ 6000
#define MAX_LIST 6
#define NSTR 7
#define ID_RANGE 150

static char long1[460], long2[460];
static orc_value str_value(int s)
{
    static const char *short_strs[] = {"", "a", "b", "a\0", "zz"};
    static const size_t short_len[] = {0, 1, 1, 2, 2};
    if (s < 0) return v_null();
    if (s < 5) return v_strn(short_strs[s], short_len[s]);
    return s == 5 ? v_strn(long1, sizeof long1) : v_strn(long2, sizeof long2);
}

typedef struct mobj {
    uint64_t key;
    bool alive;
    int64_t id, n;
    int s;          /* -1 null */
    bool has_d;
    double d;
    bool has_ref;
    uint64_t ref;
    int nli, nll;
    int64_t li[MAX_LIST];
    uint64_t ll[MAX_LIST];
} mobj;

typedef struct mplain {
    uint64_t key;
    bool alive, has_v;
    int64_t v;
    int t;
} mplain;

typedef struct model {
    mobj o[MAX_OBJ];
    int no;
    mplain p[MAX_OBJ];
    int np;
    uint64_t max_obj_key, max_plain_key; /* highest keys ever committed */
} model;

typedef struct ids {
    uint32_t obj, plain;
    uint16_t id, n, s, d, ref, li, ll, v, t;
} ids;

static bool obj_alive(const model *m, int i) { return m->o[i].alive; }
static bool plain_alive(const model *m, int i) { return m->p[i].alive; }

/* A random index below `n` for which `alive` holds, or -1 when there is none. */
static int random_alive(const model *m, int n, bool (*alive)(const model *, int), uint64_t *rng)
{
    int count = 0;
    for (int i = 0; i < n; i++) count += alive(m, i);
    if (!count) return -1;
    int pick = (int)(test_rand(rng) % (uint64_t)count);
    for (int i = 0; i < n; i++)
        if (alive(m, i) && pick-- == 0) return i;
    return -1;
}
static int live_obj(const model *m, uint64_t *rng) { return random_alive(m, m->no, obj_alive, rng); }
static int live_plain(const model *m, uint64_t *rng) { return random_alive(m, m->np, plain_alive, rng); }
static int obj_by_id(const model *m, int64_t id)
{
    for (int i = 0; i < m->no; i++)
        if (m->o[i].alive && m->o[i].id == id) return i;
    return -1;
}

/* Erasing an object: links to it become null, list entries of it go. */
static void model_erase_obj(model *m, int i)
{
    uint64_t key = m->o[i].key;
    m->o[i].alive = false;
    for (int j = 0; j < m->no; j++) {
        mobj *o = &m->o[j];
        if (!o->alive) continue;
        if (o->has_ref && o->ref == key) o->has_ref = false;
        int w = 0;
        for (int e = 0; e < o->nll; e++)
            if (o->ll[e] != key) o->ll[w++] = o->ll[e];
        o->nll = w;
    }
}

/* ---- one random operation, applied to both ---- */

static bool random_op(orc_txn *w, const ids *x, model *m, uint64_t *rng)
{
    uint64_t op = test_rand(rng) % 100;
    int i = live_obj(m, rng);
    int alive = 0;
    for (int k = 0; k < m->no; k++) alive += m->o[k].alive;
    if (op < 14 || i < 0) { /* create an Obj (a duplicate id is refused) */
        if (m->no >= MAX_OBJ) return true;
        int64_t id = (int64_t)(test_rand(rng) % ID_RANGE);
        int64_t n = (int64_t)(test_rand(rng) % 10);
        int s = (int)(test_rand(rng) % (NSTR + 1)) - 1;
        uint16_t cols[3] = {x->id, x->n, x->s};
        orc_value vals[3] = {v_int(id), v_int(n), str_value(s)};
        uint64_t key;
        int rc = orc_obj_create(w, x->obj, cols, vals, 3, &key);
        if (obj_by_id(m, id) >= 0) {
            if (rc != ORC_ERR_EXISTS) HFAIL("duplicate id %" PRId64 ": got %s", id, orc_strerror(rc));
            return true;
        }
        HOK(rc);
        for (int k = 0; k < m->no; k++)
            if (key <= m->o[k].key) HFAIL("new key %" PRIu64 " not above earlier key %" PRIu64, key, m->o[k].key);
        if (key <= m->max_obj_key) HFAIL("key %" PRIu64 " reused (max committed %" PRIu64 ")", key, m->max_obj_key);
        m->o[m->no++] = (mobj){.key = key, .alive = true, .id = id, .n = n, .s = s};
        return true;
    }
    mobj *o = &m->o[i];
    if (op < 22 && alive > 20) { /* erase */
        HOK(orc_obj_erase(w, x->obj, o->key));
        model_erase_obj(m, i);
        return true;
    }
    if (op < 32) {
        int64_t n = (int64_t)(test_rand(rng) % 10);
        orc_value v = v_int(n);
        HOK(orc_obj_set(w, x->obj, o->key, x->n, &v));
        o->n = n;
        return true;
    }
    if (op < 36) { /* add_int keeps n in 0..9 */
        int64_t delta = o->n >= 5 ? -(int64_t)(test_rand(rng) % 5) : (int64_t)(test_rand(rng) % 5);
        HOK(orc_obj_add_int(w, x->obj, o->key, x->n, delta));
        o->n += delta;
        return true;
    }
    if (op < 44) {
        int s = (int)(test_rand(rng) % (NSTR + 1)) - 1;
        orc_value v = str_value(s);
        HOK(orc_obj_set(w, x->obj, o->key, x->s, &v));
        o->s = s;
        return true;
    }
    if (op < 48) {
        bool has = test_rand(rng) % 4 != 0;
        double d = (double)(int64_t)(test_rand(rng) % 2000 - 1000) / 8.0;
        orc_value v = has ? v_double(d) : v_null();
        uint16_t cols[2] = {x->d, x->n};
        orc_value vals[2] = {v, v_int(o->n)};
        HOK(orc_obj_set_many(w, x->obj, o->key, cols, vals, 2));
        o->has_d = has;
        o->d = d;
        return true;
    }
    if (op < 56) {
        int j = test_rand(rng) % 5 ? live_obj(m, rng) : -1;
        orc_value v = j >= 0 ? v_link(x->obj, m->o[j].key) : v_null();
        HOK(orc_obj_set(w, x->obj, o->key, x->ref, &v));
        o->has_ref = j >= 0;
        if (j >= 0) o->ref = m->o[j].key;
        return true;
    }
    if (op < 60) { /* changing the primary key is refused */
        orc_value v = v_int(o->id + 1000);
        int rc = orc_obj_set(w, x->obj, o->key, x->id, &v);
        if (rc != ORC_ERR_INVALID_ARG) HFAIL("changing a primary key gave %s", orc_strerror(rc));
        return true;
    }
    if (op < 70) { /* list of ints */
        uint64_t lop = test_rand(rng) % 6;
        if (lop <= 1 && o->nli < MAX_LIST) {
            size_t at = (size_t)(test_rand(rng) % (uint64_t)(o->nli + 1));
            int64_t val = (int64_t)(test_rand(rng) % 100);
            orc_value v = v_int(val);
            HOK(orc_list_insert(w, x->obj, o->key, x->li, at, &v));
            memmove(&o->li[at + 1], &o->li[at], (size_t)(o->nli - (int)at) * sizeof o->li[0]);
            o->li[at] = val;
            o->nli++;
        } else if (lop == 2 && o->nli > 0) {
            size_t at = (size_t)(test_rand(rng) % (uint64_t)o->nli);
            HOK(orc_list_erase(w, x->obj, o->key, x->li, at));
            memmove(&o->li[at], &o->li[at + 1], (size_t)(o->nli - (int)at - 1) * sizeof o->li[0]);
            o->nli--;
        } else if (lop == 3 && o->nli > 0) {
            size_t at = (size_t)(test_rand(rng) % (uint64_t)o->nli);
            int64_t val = -(int64_t)(test_rand(rng) % 100);
            orc_value v = v_int(val);
            HOK(orc_list_set(w, x->obj, o->key, x->li, at, &v));
            o->li[at] = val;
        } else if (lop == 4 && o->nli > 1) {
            size_t from = (size_t)(test_rand(rng) % (uint64_t)o->nli), to = (size_t)(test_rand(rng) % (uint64_t)o->nli);
            HOK(orc_list_move(w, x->obj, o->key, x->li, from, to));
            int64_t val = o->li[from];
            memmove(&o->li[from], &o->li[from + 1], (size_t)(o->nli - (int)from - 1) * sizeof o->li[0]);
            memmove(&o->li[to + 1], &o->li[to], (size_t)(o->nli - 1 - (int)to) * sizeof o->li[0]);
            o->li[to] = val;
        } else if (lop == 5) {
            HOK(orc_coll_clear(w, x->obj, o->key, x->li));
            o->nli = 0;
        } else {
            size_t past = (size_t)o->nli + 1;
            orc_value v = v_int(1);
            int rc = orc_list_insert(w, x->obj, o->key, x->li, past, &v);
            if (rc != ORC_ERR_OUT_OF_RANGE) HFAIL("insert past the end gave %s", orc_strerror(rc));
        }
        return true;
    }
    if (op < 78) { /* list of links */
        if (test_rand(rng) % 3 && o->nll < MAX_LIST) {
            int j = live_obj(m, rng);
            size_t at = (size_t)(test_rand(rng) % (uint64_t)(o->nll + 1));
            orc_value v = v_link(x->obj, m->o[j].key);
            HOK(orc_list_insert(w, x->obj, o->key, x->ll, at, &v));
            memmove(&o->ll[at + 1], &o->ll[at], (size_t)(o->nll - (int)at) * sizeof o->ll[0]);
            o->ll[at] = m->o[j].key;
            o->nll++;
        } else if (o->nll > 0) {
            size_t at = (size_t)(test_rand(rng) % (uint64_t)o->nll);
            HOK(orc_list_erase(w, x->obj, o->key, x->ll, at));
            memmove(&o->ll[at], &o->ll[at + 1], (size_t)(o->nll - (int)at - 1) * sizeof o->ll[0]);
            o->nll--;
        }
        return true;
    }
    /* Plain objects. */
    int p = live_plain(m, rng);
    if (op < 86 || p < 0) {
        if (m->np >= MAX_OBJ) return true;
        bool has = test_rand(rng) % 3 != 0;
        int64_t v = (int64_t)(test_rand(rng) % 5);
        int t = (int)(test_rand(rng) % NSTR);
        uint16_t cols[2] = {x->v, x->t};
        orc_value vals[2] = {has ? v_int(v) : v_null(), str_value(t)};
        uint64_t key;
        HOK(orc_obj_create(w, x->plain, cols, vals, 2, &key));
        for (int k = 0; k < m->np; k++)
            if (key <= m->p[k].key) HFAIL("new Plain key %" PRIu64 " not above %" PRIu64, key, m->p[k].key);
        if (key <= m->max_plain_key) HFAIL("Plain key %" PRIu64 " reused", key);
        m->p[m->np++] = (mplain){.key = key, .alive = true, .has_v = has, .v = v, .t = t};
        return true;
    }
    mplain *pl = &m->p[p];
    if (op < 90) {
        HOK(orc_obj_erase(w, x->plain, pl->key));
        pl->alive = false;
        return true;
    }
    if (op < 99) {
        bool has = test_rand(rng) % 3 != 0;
        int64_t v = (int64_t)(test_rand(rng) % 5);
        orc_value val = has ? v_int(v) : v_null();
        HOK(orc_obj_set(w, x->plain, pl->key, x->v, &val));
        pl->has_v = has;
        pl->v = v;
        return true;
    }
    HOK(orc_table_clear(w, x->plain));
    for (int k = 0; k < m->np; k++) m->p[k].alive = false;
    return true;
}

/* ---- comparing the file with the model ---- */

static bool query_is(orc_txn *r, uint32_t t, uint16_t col, const orc_value *c, const uint64_t *want, size_t n,
                     const char *what)
{
    qb q = {0};
    orc_query *query;
    orc_keys got = {0};
    qb_cmp_const(&q, ORC_CMP_EQ, 0, col, c);
    int compiled = orc_query_compile(r, t, q.p, q.n, &query);
    free(q.p);
    HOK(compiled);
    int rc = orc_query_run(r, query, &got);
    orc_query_free(query);
    HOK(rc);
    bool ok = test_keys_equal(&got, want, n, what);
    orc_keys_free(&got);
    return ok;
}

static bool verify(orc_txn *r, const ids *x, const model *m)
{
    static uint64_t want[MAX_OBJ];
    orc_keys keys = {0};
    size_t n = 0;
    /* Obj: keys, count, values, lists. */
    for (int i = 0; i < m->no; i++)
        if (m->o[i].alive) want[n++] = m->o[i].key;
    uint64_t count;
    HOK(orc_table_count(r, x->obj, &count));
    if (count != n) HFAIL("Obj count %" PRIu64 ", want %zu", count, n);
    HOK(orc_table_keys(r, x->obj, &keys));
    bool ok = test_keys_equal(&keys, want, n, "Obj keys");
    orc_keys_free(&keys);
    if (!ok) return false;
    for (int i = 0; i < m->no; i++) {
        const mobj *o = &m->o[i];
        orc_value v;
        if (!o->alive) {
            if (orc_obj_exists(r, x->obj, o->key)) HFAIL("erased Obj %" PRIu64 " exists", o->key);
            continue;
        }
        HOK(orc_obj_get(r, x->obj, o->key, x->id, &v));
        if (v.integer != o->id) HFAIL("Obj %" PRIu64 " id %" PRId64 ", want %" PRId64, o->key, v.integer, o->id);
        HOK(orc_obj_get(r, x->obj, o->key, x->n, &v));
        if (v.integer != o->n) HFAIL("Obj %" PRIu64 " n %" PRId64 ", want %" PRId64, o->key, v.integer, o->n);
        HOK(orc_obj_get(r, x->obj, o->key, x->s, &v));
        orc_value ws = str_value(o->s);
        if (orc_value_compare(&v, &ws) != 0 || v.type != ws.type) HFAIL("Obj %" PRIu64 " s differs (want #%d)", o->key, o->s);
        HOK(orc_obj_get(r, x->obj, o->key, x->d, &v));
        if (o->has_d ? (v.type != ORC_TYPE_DOUBLE || v.dnum != o->d) : v.type != ORC_TYPE_NULL)
            HFAIL("Obj %" PRIu64 " d differs", o->key);
        HOK(orc_obj_get(r, x->obj, o->key, x->ref, &v));
        if (o->has_ref ? (v.type != ORC_TYPE_LINK || v.link.key != o->ref || v.link.table != x->obj)
                       : v.type != ORC_TYPE_NULL)
            HFAIL("Obj %" PRIu64 " ref differs", o->key);
        size_t size;
        HOK(orc_coll_size(r, x->obj, o->key, x->li, &size));
        if (size != (size_t)o->nli) HFAIL("Obj %" PRIu64 " li has %zu, want %d", o->key, size, o->nli);
        for (int e = 0; e < o->nli; e++) {
            HOK(orc_coll_get(r, x->obj, o->key, x->li, (size_t)e, &v));
            if (v.integer != o->li[e]) HFAIL("Obj %" PRIu64 " li[%d] differs", o->key, e);
        }
        HOK(orc_coll_size(r, x->obj, o->key, x->ll, &size));
        if (size != (size_t)o->nll) HFAIL("Obj %" PRIu64 " ll has %zu, want %d", o->key, size, o->nll);
        for (int e = 0; e < o->nll; e++) {
            HOK(orc_coll_get(r, x->obj, o->key, x->ll, (size_t)e, &v));
            if (v.type != ORC_TYPE_LINK || v.link.key != o->ll[e]) HFAIL("Obj %" PRIu64 " ll[%d] differs", o->key, e);
        }
        /* Backlinks: who refers to this object through ref, and through ll (once per object). */
        for (int which = 0; which < 2; which++) {
            size_t nb = 0;
            for (int j = 0; j < m->no; j++) {
                const mobj *p = &m->o[j];
                if (!p->alive) continue;
                bool links = false;
                if (which == 0) links = p->has_ref && p->ref == o->key;
                else
                    for (int e = 0; e < p->nll; e++) links |= p->ll[e] == o->key;
                if (links) want[nb++] = p->key;
            }
            orc_keys bl = {0};
            HOK(orc_obj_backlinks(r, x->obj, o->key, x->obj, which ? x->ll : x->ref, &bl));
            ok = test_keys_equal(&bl, want, nb, which ? "backlinks via ll" : "backlinks via ref");
            orc_keys_free(&bl);
            if (!ok) return false;
        }
    }
    /* Primary keys. */
    for (int64_t id = 0; id < ID_RANGE; id++) {
        orc_value v = v_int(id);
        uint64_t key;
        int i = obj_by_id(m, id);
        int rc = orc_obj_find(r, x->obj, &v, &key);
        if (i >= 0) {
            HOK(rc);
            if (key != m->o[i].key) HFAIL("id %" PRId64 " finds %" PRIu64 ", want %" PRIu64, id, key, m->o[i].key);
        } else if (rc != ORC_ERR_NOT_FOUND) {
            HFAIL("absent id %" PRId64 ": %s", id, orc_strerror(rc));
        }
    }
    /* Index queries. */
    for (int64_t val = 0; val < 10; val++) {
        n = 0;
        for (int i = 0; i < m->no; i++)
            if (m->o[i].alive && m->o[i].n == val) want[n++] = m->o[i].key;
        orc_value c = v_int(val);
        if (!query_is(r, x->obj, x->n, &c, want, n, "n ==")) return false;
    }
    for (int s = -1; s < NSTR; s++) {
        n = 0;
        for (int i = 0; i < m->no; i++)
            if (m->o[i].alive && m->o[i].s == s) want[n++] = m->o[i].key;
        orc_value c = str_value(s);
        if (!query_is(r, x->obj, x->s, &c, want, n, "s ==")) HFAIL("s == #%d", s);
    }
    /* Plain. */
    n = 0;
    for (int i = 0; i < m->np; i++)
        if (m->p[i].alive) want[n++] = m->p[i].key;
    HOK(orc_table_count(r, x->plain, &count));
    if (count != n) HFAIL("Plain count %" PRIu64 ", want %zu", count, n);
    for (int i = 0; i < m->np; i++) {
        const mplain *p = &m->p[i];
        if (!p->alive) continue;
        orc_value v;
        HOK(orc_obj_get(r, x->plain, p->key, x->v, &v));
        if (p->has_v ? (v.type != ORC_TYPE_INT || v.integer != p->v) : v.type != ORC_TYPE_NULL)
            HFAIL("Plain %" PRIu64 " v differs", p->key);
        HOK(orc_obj_get(r, x->plain, p->key, x->t, &v));
        orc_value wt = str_value(p->t);
        if (orc_value_compare(&v, &wt) != 0) HFAIL("Plain %" PRIu64 " t differs", p->key);
    }
    for (int64_t val = -1; val < 5; val++) {
        n = 0;
        for (int i = 0; i < m->np; i++)
            if (m->p[i].alive && (val < 0 ? !m->p[i].has_v : (m->p[i].has_v && m->p[i].v == val)))
                want[n++] = m->p[i].key;
        orc_value c = val < 0 ? v_null() : v_int(val);
        if (!query_is(r, x->plain, x->v, &c, want, n, "v ==")) return false;
    }
    return true;
}

static bool make_schema(orc_txn *w, ids *x)
{
    HOK(orc_class_add(w, "Obj", ORC_CLASS_TOP_LEVEL, &x->obj));
    HOK(orc_class_add(w, "Plain", ORC_CLASS_TOP_LEVEL, &x->plain));
    orc_prop_spec s;
    s = (orc_prop_spec){.name = "id", .type = ORC_TYPE_INT, .flags = ORC_PROP_PRIMARY_KEY};
    HOK(orc_prop_add(w, x->obj, &s, &x->id));
    s = (orc_prop_spec){.name = "n", .type = ORC_TYPE_INT, .flags = ORC_PROP_INDEXED};
    HOK(orc_prop_add(w, x->obj, &s, &x->n));
    s = (orc_prop_spec){.name = "s", .type = ORC_TYPE_STRING, .flags = ORC_PROP_INDEXED | ORC_PROP_OPTIONAL};
    HOK(orc_prop_add(w, x->obj, &s, &x->s));
    s = (orc_prop_spec){.name = "d", .type = ORC_TYPE_DOUBLE, .flags = ORC_PROP_OPTIONAL};
    HOK(orc_prop_add(w, x->obj, &s, &x->d));
    s = (orc_prop_spec){.name = "ref", .type = ORC_TYPE_LINK, .flags = ORC_PROP_OPTIONAL, .link_table = x->obj};
    HOK(orc_prop_add(w, x->obj, &s, &x->ref));
    s = (orc_prop_spec){.name = "li", .type = ORC_TYPE_INT, .collection = ORC_COLL_LIST};
    HOK(orc_prop_add(w, x->obj, &s, &x->li));
    s = (orc_prop_spec){.name = "ll", .type = ORC_TYPE_LINK, .collection = ORC_COLL_LIST, .link_table = x->obj};
    HOK(orc_prop_add(w, x->obj, &s, &x->ll));
    s = (orc_prop_spec){.name = "v", .type = ORC_TYPE_INT, .flags = ORC_PROP_INDEXED | ORC_PROP_OPTIONAL};
    HOK(orc_prop_add(w, x->plain, &s, &x->v));
    s = (orc_prop_spec){.name = "t", .type = ORC_TYPE_STRING};
    HOK(orc_prop_add(w, x->plain, &s, &x->t));
    return true;
}

static void committed_maxima(model *m)
{
    for (int i = 0; i < m->no; i++)
        if (m->o[i].key > m->max_obj_key) m->max_obj_key = m->o[i].key;
    for (int i = 0; i < m->np; i++)
        if (m->p[i].key > m->max_plain_key) m->max_plain_key = m->p[i].key;
}

/* Drops erased objects from the model's arrays (keeping key order) so they stay small. */
static void compact_model(model *m)
{
    int w = 0;
    for (int i = 0; i < m->no; i++)
        if (m->o[i].alive) m->o[w++] = m->o[i];
    m->no = w;
    w = 0;
    for (int i = 0; i < m->np; i++)
        if (m->p[i].alive) m->p[w++] = m->p[i];
    m->np = w;
}

static bool run_seed(uint64_t seed, int ntxns)
{
    static model m, committed;
    TEST_PATH(path, "random.realm");
    memset(long1, 'x', sizeof long1);
    memcpy(long2, long1, sizeof long2);
    long1[sizeof long1 - 1] = '1';
    long2[sizeof long2 - 1] = '2';
    uint64_t rng = seed | 1;
    orc_env *env;
    orc_txn *w, *r;
    ids x;
    memset(&committed, 0, sizeof committed);
    HOK(test_open_writing(path, &env, &w));
    if (!make_schema(w, &x)) return false;
    HOK(orc_txn_commit(w, NULL));
    uint64_t version = 1;
    for (int txn = 0; txn < ntxns; txn++) {
        if (txn == ntxns / 2) {
            orc_env_close(env);
            HOK(orc_env_open(path, ORC_ENV_NO_SYNC | ORC_ENV_NO_CREATE, NULL, &env));
        }
        m = committed;
        HOK(orc_txn_begin(env, ORC_TXN_WRITE, &w));
        int nops = 1 + (int)(test_rand(&rng) % 15);
        for (int k = 0; k < nops; k++) {
            if (!random_op(w, &x, &m, &rng)) {
                orc_txn_abort(w);
                orc_env_close(env);
                HFAIL("seed %#" PRIx64 " transaction %d op %d", seed, txn, k);
            }
        }
        bool commit = test_rand(&rng) % 5 != 0;
        if (commit) {
            uint64_t v;
            HOK(orc_txn_commit(w, &v));
            if (v != ++version) HFAIL("version %" PRIu64 ", want %" PRIu64, v, version);
            committed_maxima(&m);
            compact_model(&m);
            committed = m;
        } else {
            orc_txn_abort(w);
        }
        HOK(orc_txn_begin(env, ORC_TXN_READ, &r));
        bool ok = verify(r, &x, &committed);
        orc_txn_abort(r);
        if (!ok) {
            orc_env_close(env);
            HFAIL("seed %#" PRIx64 ": after transaction %d (%s)", seed, txn, commit ? "committed" : "aborted");
        }
        if (commit) {
            size_t problems = 0;
            int rc = orc_env_check(env, &problems);
            if (rc) {
                orc_env_close(env);
                HFAIL("seed %#" PRIx64 " transaction %d: orc_env_check: %s (%zu problems)", seed, txn, orc_last_error(),
                      problems);
            }
        }
    }
    orc_env_close(env);
    return true;
}

TEST(random_operations_match_the_model)
{
    bool lng = getenv("ORC_TEST_LONG") != NULL;
    int seeds = lng ? 20 : 6, ntxns = lng ? 500 : 200;
    uint64_t base = test_seed();
    for (int s = 0; s < seeds; s++) CHECK(run_seed(base + (uint64_t)s * 0x9E3779B97F4A7C15ULL, ntxns));
}
