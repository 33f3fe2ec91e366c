/*
 * geo.h — geometry on the unit sphere for GEOWITHIN (geo.c): boxes of
 * latitude and longitude, circles (caps), polygons with holes; checking that a
 * polygon is well formed and asking whether a point lies in a shape.
 *
 * Coordinates come in degrees, longitude first (GeoJSON's order). Points are
 * unit vectors; polygon edges are great-circle arcs. No allocation during
 * geo_contains; the shape owns its rings until geo_shape_free.
 */
#ifndef ORCORE_GEO_H
#define ORCORE_GEO_H

#include "base.h"

/* ------------------------------------------------------------------------ */
/* geo.c                                                                    */
/* ------------------------------------------------------------------------ */

enum { GEO_BOX = 1, GEO_POLYGON = 2, GEO_CIRCLE = 3 };

/** The most points a polygon may have (its checks cost the square of a ring's size). */
#define GEO_MAX_POINTS 10000

/** A point as written: longitude, latitude (degrees), altitude (ignored but printed). */
typedef struct geo_coord {
    double lng, lat, alt;
} geo_coord;

typedef struct geo_vec {
    double x, y, z;
} geo_vec;

/** A ring without its closing vertex, counter-clockwise around the region it bounds. */
typedef struct geo_ring {
    uint32_t n;
    geo_vec *v;
} geo_ring;

typedef struct geo_shape {
    uint8_t kind;                    /* GEO_* */
    double lat_lo, lat_hi;           /* GEO_BOX, degrees */
    double lng_lo, lng_hi;           /* GEO_BOX, in (-180, 180]; lng_lo > lng_hi wraps the antimeridian */
    bool lng_full;                   /* GEO_BOX: every longitude */
    geo_vec center;                  /* GEO_CIRCLE */
    double radius;                   /* GEO_CIRCLE, radians */
    uint32_t nrings;                 /* GEO_POLYGON: rings[0] is the outer ring, the others holes */
    geo_ring *rings;
} geo_shape;

/**
 * The shapes, checked as the query language's contract says. Each returns
 * ORC_OK; ORC_ERR_INVALID_ARG with `why` (n bytes) saying what is wrong with
 * the region ("Ring 0 is not valid: ..."); or ORC_ERR_NOMEM. On failure the
 * shape holds nothing to free.
 *
 * geo_polygon_init: `pts` holds the rings one after another, ring i having
 * sizes[i] points, each closed (its last point equal to its first). Adjacent
 * repeated points are merged. A ring must keep 3 distinct vertices, repeat no
 * vertex, and have no two edges that cross; a ring covering more than half
 * the sphere stands for its complement. Every hole must lie inside the outer
 * ring; no two rings may share an edge or cross; holes may not nest.
 */
int geo_box_init(geo_shape *s, geo_coord lo, geo_coord hi, char *why, size_t n);
int geo_circle_init(geo_shape *s, geo_coord center, double radius, char *why, size_t n);
int geo_polygon_init(geo_shape *s, const geo_coord *pts, const uint32_t *sizes, uint32_t nrings, char *why, size_t n);

/** Frees a shape's rings. Cannot fail. */
void geo_shape_free(geo_shape *s);

/** Whether the point (degrees) lies in the shape. Points out of range or not finite never do. */
bool geo_contains(const geo_shape *s, double lng, double lat);

/**
 * Writes a shape as messages show it: "GeoBox([lng, lat], [lng, lat])",
 * "GeoCircle([lng, lat, alt], radians)", "GeoPolygon({[lng, lat, alt], ...}, {...})",
 * truncated to n bytes. `pts` / `sizes` / `nrings` as geo_polygon_init; a box
 * is two points, a circle one.
 */
void geo_describe(char *buf, size_t n, uint8_t kind, const geo_coord *pts, const uint32_t *sizes, uint32_t nrings,
                  double radius);

#endif /* ORCORE_GEO_H */
