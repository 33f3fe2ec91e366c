/*
 * schema.h — the in-memory schema and its stored blob (schema.c). A transaction
 * reads one immutable, reference-counted orc_schema; the lookups by table id are in
 * txn.h (the transaction's schema), the public lookups and changes in schema_api.c.
 */
#ifndef ORCORE_SCHEMA_H
#define ORCORE_SCHEMA_H

#include "base.h"

/* ------------------------------------------------------------------------ */
/* schema.c                                                                 */
/* ------------------------------------------------------------------------ */

#define ORC_MAX_NAME 255
/** Named databases: 5 shared plus 2 per table. */
#define ORC_MAX_DBS 1024
#define ORC_MAX_TABLES ((ORC_MAX_DBS - 8) / 2)

typedef struct orc_prop {
    char *name;            /* NULL for a removed column */
    uint16_t col;
    orc_type type;
    orc_collection collection;
    uint32_t flags;
    uint32_t link_table;
} orc_prop;

typedef struct orc_class {
    char *name;            /* NULL for a removed class */
    uint32_t table;
    orc_class_kind kind;
    int32_t pk_col;
    uint16_t ncols;        /* column slots, removed ones included */
    orc_prop *props;       /* indexed by column id */
    uint32_t live_props;
    bool has_index;        /* some column is ORC_PROP_INDEXED */
    bool has_links;        /* some column holds links (link, mixed, or collections of them) */
    uint32_t *row_off;     /* row layout (row.c): [wide * (ncols + 1) + c] = offset of column c's field */
    int32_t *row_prev_var; /* [c] = the variable-size column before c, or -1 */
} orc_class;

typedef struct orc_schema {
    int refs;
    uint64_t gen;          /* changes with every schema change */
    uint32_t ntables;      /* table ids are 1 ... ntables; classes[0] unused */
    orc_class *classes;    /* indexed by table id */
} orc_schema;

/** Parses a schema blob. Returns ORC_OK, ORC_ERR_SCHEMA (unreadable), ORC_ERR_NOMEM. */
int schema_decode(const uint8_t *data, size_t size, orc_schema **out);
int schema_encode(const orc_schema *s, orc_buf *out);
orc_schema *schema_retain(orc_schema *s);
void schema_release(orc_schema *s);
/** Recomputes a class's derived state (live count, has_index, has_links, the row layout)
 *  after its properties changed. ORC_OK or ORC_ERR_NOMEM. */
int class_summarise(orc_class *c);
/** Frees what a class owns (a removed class keeps its slot, emptied). */
void class_free(orc_class *c);
/** A deep copy for a write transaction's copy-on-write. */
int schema_clone(const orc_schema *s, orc_schema **out);

/** The live property at `col`, or NULL. */
static inline const orc_prop *class_prop(const orc_class *c, uint16_t col)
{
    return (col < c->ncols && c->props[col].name) ? &c->props[col] : NULL;
}
/** Whether a property's values (or elements) are links (ORC_TYPE_LINK or ORC_TYPE_MIXED). */
static inline bool prop_may_link(const orc_prop *p) { return p->type == ORC_TYPE_LINK || p->type == ORC_TYPE_MIXED; }

#endif /* ORCORE_SCHEMA_H */
