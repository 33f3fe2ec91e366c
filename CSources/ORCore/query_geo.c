/*
 * query_geo.c — the GEOWITHIN predicate: reading its shape from a program,
 * and matching an object whose location (an embedded object shaped like a
 * GeoJSON point) lies in that shape. The geometry is geo.c's.
 *
 * A location matches when its `type` string is "Point" (any case) and its
 * `coordinates` list holds at least a longitude and a latitude, in range;
 * a third value (altitude) is ignored. A null link, another type, too few
 * coordinates or coordinates out of range never match.
 *
 * Shape bytes (orcore.h, "Queries"):
 *   shape := 0x01 BOX     f64 lng f64 lat  f64 lng f64 lat      (bottom-left, top-right)
 *          | 0x02 POLYGON u32 nrings (u32 npoints (f64 lng f64 lat f64 alt){npoints}){nrings}
 *          | 0x03 CIRCLE  f64 lng f64 lat f64 alt  f64 radius (radians)
 * An invalid region is ORC_ERR_INVALID_ARG, its message naming the shape and
 * what is wrong with it.
 */
#include "query_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rd {
    const uint8_t *p;
    size_t size, pos;
} rd;

static int need(rd *r, size_t n, const char *what)
{
    if (r->size - r->pos < n)
        return orc_fail(ORC_ERR_QUERY, "query: byte %zu: truncated %s (%zu bytes needed, %zu left)", r->pos, what, n,
                        r->size - r->pos);
    return ORC_OK;
}

static double f64(rd *r)
{
    uint64_t bits = ld64(r->p + r->pos);
    double d;
    memcpy(&d, &bits, 8);
    r->pos += 8;
    return d;
}

static uint32_t u32(rd *r)
{
    uint32_t v = ld32(r->p + r->pos);
    r->pos += 4;
    return v;
}

int qgeo_parse(const uint8_t *prog, size_t size, size_t *pos, geo_shape **out)
{
    rd r = {prog, size, *pos};
    size_t at = r.pos;
    int rc = need(&r, 1, "GEOWITHIN shape kind");
    if (rc) return rc;
    uint8_t kind = r.p[r.pos++];
    geo_coord two[2];
    geo_coord *pts = two;
    uint32_t *sizes = NULL, nrings = 0;
    double radius = 0;

    switch (kind) {
    case GEO_BOX:
        if ((rc = need(&r, 32, "GEOWITHIN box"))) return rc;
        for (int i = 0; i < 2; i++) {
            two[i].lng = f64(&r);
            two[i].lat = f64(&r);
            two[i].alt = 0;
        }
        break;
    case GEO_CIRCLE:
        if ((rc = need(&r, 32, "GEOWITHIN circle"))) return rc;
        two[0].lng = f64(&r);
        two[0].lat = f64(&r);
        two[0].alt = f64(&r);
        radius = f64(&r);
        break;
    case GEO_POLYGON: {
        if ((rc = need(&r, 4, "GEOWITHIN polygon ring count"))) return rc;
        nrings = u32(&r);
        /* each ring takes at least its 4-byte count: no allocation outgrows the program */
        if (nrings > (r.size - r.pos) / 4)
            return orc_fail(ORC_ERR_QUERY, "query: byte %zu: %u polygon rings cannot fit in the %zu bytes left", at + 1,
                            nrings, r.size - r.pos);
        sizes = calloc(nrings ? nrings : 1, sizeof *sizes);
        size_t total = 0, start = r.pos;
        for (uint32_t i = 0; sizes && i < nrings; i++) {
            if ((rc = need(&r, 4, "GEOWITHIN polygon point count"))) break;
            sizes[i] = u32(&r);
            if (sizes[i] > (r.size - r.pos) / 24) {
                rc = orc_fail(ORC_ERR_QUERY, "query: byte %zu: %u polygon points cannot fit in the %zu bytes left",
                              r.pos - 4, sizes[i], r.size - r.pos);
                break;
            }
            r.pos += (size_t)sizes[i] * 24;
            total += sizes[i];
        }
        if (!sizes) return orc_fail(ORC_ERR_NOMEM, "query: out of memory for a polygon");
        if (rc) {
            free(sizes);
            return rc;
        }
        pts = malloc((total ? total : 1) * sizeof *pts);
        if (!pts) {
            free(sizes);
            return orc_fail(ORC_ERR_NOMEM, "query: out of memory for a polygon of %zu points", total);
        }
        r.pos = start;
        size_t k = 0;
        for (uint32_t i = 0; i < nrings; i++) {
            r.pos += 4;
            for (uint32_t j = 0; j < sizes[i]; j++, k++) {
                pts[k].lng = f64(&r);
                pts[k].lat = f64(&r);
                pts[k].alt = f64(&r);
            }
        }
        break;
    }
    default:
        return orc_fail(ORC_ERR_QUERY, "query: byte %zu: unknown GEOWITHIN shape %u (expected 1-3)", at, kind);
    }

    geo_shape *s = calloc(1, sizeof *s);
    char why[512];
    why[0] = 0;
    if (!s) {
        rc = orc_fail(ORC_ERR_NOMEM, "query: out of memory for a shape");
    } else {
        rc = kind == GEO_BOX      ? geo_box_init(s, two[0], two[1], why, sizeof why)
             : kind == GEO_CIRCLE ? geo_circle_init(s, two[0], radius, why, sizeof why)
                                  : geo_polygon_init(s, pts, sizes, nrings, why, sizeof why);
        if (rc == ORC_ERR_NOMEM) {
            rc = orc_fail(ORC_ERR_NOMEM, "query: out of memory for a shape");
        } else if (rc != ORC_OK) {
            char desc[768];
            geo_describe(desc, sizeof desc, kind, pts, sizes, nrings, radius);
            rc = orc_fail(rc, "query: byte %zu: Invalid region in GEOWITHIN query for parameter '%s': '%s'", at, desc,
                          why);
        }
    }
    if (pts != two) free(pts);
    free(sizes);
    if (rc != ORC_OK) {
        free(s);
        return rc;
    }
    *pos = r.pos;
    *out = s;
    return ORC_OK;
}

void qgeo_free(geo_shape *s)
{
    geo_shape_free(s);
    free(s);
}

typedef struct coords {
    double v[2];
    uint32_t n;
    bool bad;
} coords;

static int coords_visit(void *ctx, const orc_value *v)
{
    coords *c = ctx;
    if (v->type != ORC_TYPE_DOUBLE) {
        c->bad = true;
        return 1;
    }
    if (c->n < 2) c->v[c->n] = v->dnum;
    c->n++;
    return c->n >= 2 ? 1 : 0;
}

static bool is_point(const orc_value *v)
{
    static const char want[] = "point";
    if (v->type != ORC_TYPE_STRING || v->string.size != 5) return false;
    for (int i = 0; i < 5; i++) {
        char c = v->string.data[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != want[i]) return false;
    }
    return true;
}

int qgeo_eval(orc_txn *txn, qnode *n, const qobj *o, bool *out)
{
    *out = false;
    orc_value type;
    int rc = qpath_first(txn, &n->lhs.path, o, &type);
    if (rc != ORC_OK || !is_point(&type)) return rc;
    coords c = {{0, 0}, 0, false};
    rc = qpath_each(txn, &n->rhs.path, o, coords_visit, &c);
    if (rc < 0) return rc;
    *out = !c.bad && c.n >= 2 && geo_contains(n->geo, c.v[0], c.v[1]);
    return ORC_OK;
}
