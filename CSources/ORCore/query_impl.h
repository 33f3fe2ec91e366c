/*
 * query_impl.h — the compiled form of a query, shared by the query layer's
 * files and by nothing else:
 *
 *   query.c       parsing a program, resolving its paths against the schema,
 *                 type checks, the handle
 *   query_plan.c  the planner's choice of primary key, index or scan
 *   query_eval.c  evaluating a predicate on one object: paths, comparisons,
 *                 quantifiers, SUBQUERY, aggregates; the matching loop
 *                 (table scan, index candidates, domain) and the public
 *                 run / count / aggregate calls
 *   query_agg.c   the accumulators of @count, @min, @max, @sum, @avg
 *   query_sort.c  the descriptors: SORT, DISTINCT, LIMIT
 *   query_geo.c   GEOWITHIN: its shape, and matching a GeoJSON-shaped location
 *
 * INVARIANTS
 *  1. A compiled query names classes by table id and properties by column
 *     id only, never by orc_class pointers: those belong to one transaction's
 *     schema. Evaluation looks classes up with schema_class(), and running
 *     is refused unless txn->schema->gen equals the generation seen at
 *     compile time, so every id resolved at compile time still means the
 *     same thing.
 *  2. Every check that can fail on the program's content happens at compile
 *     time; evaluation fails only on storage errors (a damaged row, LMDB).
 *  3. Constants point into the query's own copy of the program bytes.
 *  4. Scratch buffers inside nodes and steps (right-hand values, backlink
 *     origins) are reused across rows so that evaluation does not allocate
 *     per row. They are safe because no node or step is re-entered while its
 *     scratch is in use: paths contain no predicates, and a SUBQUERY's
 *     predicate is made of nodes of its own. A query is therefore used by
 *     one thread at a time (as orc_query_used_index already implies).
 */
#ifndef ORCORE_QUERY_IMPL_H
#define ORCORE_QUERY_IMPL_H

#include "collection.h"
#include "geo.h"
#include "object_read.h"
#include "text.h"

/** Predicates and SUBQUERYs may nest this deep. */
#define Q_MAX_DEPTH 64

/** Resolved step kinds. A PROP step on a dictionary followed by a key step becomes one QS_DICT step. */
enum { QS_PROP = 0, QS_BACKLINK = 1, QS_DICT = 2 };

typedef struct qstep {
    uint8_t kind;
    uint16_t col;            /* QS_PROP / QS_DICT: column of the current class; QS_BACKLINK: origin column */
    uint32_t origin_table;   /* QS_BACKLINK */
    orc_type type;           /* the property's type (QS_BACKLINK: ORC_TYPE_LINK) */
    orc_collection coll;
    uint32_t next_table;     /* class of the objects this step reaches (link target or origin), else 0 */
    const uint8_t *dkey;     /* QS_DICT: the key (into the program copy) */
    uint32_t dkey_len;
    uint32_t at;             /* byte offset in the program, for messages */
    orc_keys scratch;        /* QS_BACKLINK: the current object's origins, reused */
} qstep;

typedef struct qpath {
    uint32_t table;          /* the class the path starts from */
    uint8_t nsteps;
    qstep *steps;
    uint8_t agg;             /* orc_agg, or Q_AGG_LENGTH */
    bool multi;              /* the steps may yield other than exactly one value */
    bool single;             /* after the aggregate, exactly one value per object */
    bool simple;             /* one plain property and no aggregate: read straight from the row */
    orc_type rtype;          /* type of the yielded values; MIXED = any; DOUBLE stands for "a number" after @sum/@avg */
    uint32_t rlink;          /* for LINK results: the target table */
} qpath;

/** @count / @size of a single string or binary: its length in bytes. */
#define Q_AGG_LENGTH 100

enum { QE_PATH = ORC_EXPR_PATH, QE_CONST = ORC_EXPR_CONST, QE_LIST = ORC_EXPR_LIST, QE_SUBQUERY = ORC_EXPR_SUBQUERY };

struct qnode;

typedef struct qexpr {
    uint8_t kind;
    qpath path;              /* QE_PATH, QE_SUBQUERY */
    orc_value val;           /* QE_CONST */
    orc_value *list;         /* QE_LIST */
    uint32_t nlist;
    struct qnode *sub;       /* QE_SUBQUERY: predicate on the path's target class */
} qexpr;

typedef struct qnode {
    uint8_t kind;            /* ORC_OP_* */
    geo_shape *geo;          /* GEOWITHIN: the region; lhs / rhs are the location's type and coordinates paths */
    uint32_t n;              /* AND / OR / NOT children */
    struct qnode **kids;
    uint8_t op, flags, quant; /* CMP */
    bool fast;               /* CMP of a simple path with one constant, no quantifier */
    qexpr lhs, rhs;
    orc_value *rv;           /* scratch: right-hand values of a path or SUBQUERY */
    size_t rn, rcap;
} qnode;

/** The planner's choice. */
enum { QP_SCAN = 0, QP_PK = 1, QP_INDEX_EQ = 2, QP_INDEX_RANGE = 3 };

typedef struct qplan {
    uint8_t kind;
    uint16_t col;
    const orc_value *vals;   /* QP_PK, QP_INDEX_EQ: the values (IN: several) */
    uint32_t nvals;
    const orc_value *lo, *hi; /* QP_INDEX_RANGE: NULL = open */
    bool lo_incl, hi_incl;
    bool exact;              /* the candidates are exactly the matches: no row needs checking */
    orc_value lo_store, hi_store; /* int bounds made inclusive (lo / hi may point here) */
} qplan;

typedef struct qdesc {
    uint8_t kind;            /* ORC_DESC_* */
    uint32_t n;
    qpath *paths;            /* SORT, DISTINCT */
    bool *ascending;         /* SORT */
    uint64_t limit;          /* LIMIT */
} qdesc;

struct orc_query {
    uint8_t *prog;           /* the program's bytes; constants point here */
    size_t prog_size;
    uint32_t table;
    uint64_t gen;            /* schema generation at compile time */
    qnode *pred;
    qdesc *descs;
    uint32_t ndescs;
    qplan plan;
    bool has_domain;
    uint64_t *domain;
    size_t ndomain;
    bool used_index;
};

/** One object being evaluated. */
typedef struct qobj {
    const orc_class *cls;
    uint32_t table;
    uint64_t key;
    const uint8_t *row;
    size_t size;
} qobj;

/** Path visitors return 0 to go on, 1 to stop, or a negative status. */
typedef int (*qvisit)(void *ctx, const orc_value *v);

/* query_agg.c */
/** An aggregate in the making (query_agg.c). */
typedef struct qacc {
    uint8_t agg;
    orc_type zero_type;      /* the type of an empty sum */
    uint64_t n;              /* values counted (sum / avg: numbers seen) */
    int64_t isum;
    double dsum;
    orc_decimal128 xsum;
    bool has_dbl, has_dec, overflow;
    orc_value best;          /* min / max so far; length: the string */
    bool has_best;
} qacc;
/** Starts an aggregate `agg` (orc_agg or Q_AGG_LENGTH); `zero_type` is the type of an empty sum. */
void qacc_init(qacc *a, uint8_t agg, orc_type zero_type);
/** Adds one value (values the aggregate does not take are skipped). */
void qacc_add(qacc *a, const orc_value *v);
/** The aggregate's value. */
void qacc_result(const qacc *a, orc_value *out);

/* query_eval.c */
/** Calls `fn` for each value the path yields from `o` (after its aggregate). */
int qpath_each(orc_txn *txn, qpath *p, const qobj *o, qvisit fn, void *ctx);
/** The first value a path yields from `o`, or null. */
int qpath_first(orc_txn *txn, qpath *p, const qobj *o, orc_value *out);
/** Loads object (table, key) into `o`. Returns ORC_OK, ORC_ERR_NOT_FOUND, or another status. */
int qobj_load(orc_txn *txn, uint32_t table, uint64_t key, qobj *o);

/* query_sort.c */
/** Applies the descriptors to keys[0..*n), rearranging and shortening it in place. */
int qdesc_apply(orc_txn *txn, orc_query *q, uint64_t *keys, size_t *n);

/* query_plan.c */
/** Chooses q->plan from the predicate and the indexes (primary key, index, or a scan). */
int qplan_choose(orc_txn *txn, orc_query *q);

/* query_geo.c */
/** Reads a GEOWITHIN shape at prog[*pos] and checks it; advances *pos. ORC_ERR_QUERY, ORC_ERR_INVALID_ARG, ORC_ERR_NOMEM. */
int qgeo_parse(const uint8_t *prog, size_t size, size_t *pos, geo_shape **out);
/** Frees a shape from qgeo_parse (NULL is ignored). */
void qgeo_free(geo_shape *s);
/** Whether the location the GEOWITHIN node `n` reads from `o` lies in its shape. */
int qgeo_eval(orc_txn *txn, qnode *n, const qobj *o, bool *out);

/* query.c */
/** Frees a predicate tree (NULL is ignored). */
void qnode_free(qnode *n);
void qpath_clear(qpath *p);
/** A type's name for messages ("int", "string", ...). */
const char *qtype_name(orc_type t);

#endif /* ORCORE_QUERY_IMPL_H */
