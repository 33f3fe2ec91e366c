/*
 * geo.c — the geometry of GEOWITHIN on the unit sphere.
 *
 * MODEL
 *   A point (longitude, latitude in degrees) is the unit vector
 *   (cos lat cos lng, cos lat sin lng, sin lat). A polygon's edge is the
 *   shorter great-circle arc between two vertices. A ring is kept without its
 *   closing vertex and oriented counter-clockwise around the region it
 *   bounds: a ring whose left side covers more than half the sphere is
 *   reversed ("normalized"), so a ring always bounds the smaller region.
 *
 * CONTAINMENT
 *   box     lat_lo <= lat <= lat_hi and the longitude in the interval that
 *           runs east from lng_lo to lng_hi (edges included; -180 and 180 are
 *           one meridian).
 *   circle  the great-circle angle from the centre is at most the radius.
 *   polygon inside the outer ring and inside no hole. A point is inside a
 *           ring when the ring winds once counter-clockwise around it: the
 *           signed angles its edges subtend at the point add up to 2*pi
 *           (each edge is shorter than pi, so each angle is the arc's exact
 *           sweep). Points on a boundary fall on either side.
 *
 * CHECKS (geo_polygon_init), in this order, each with its own message:
 *   coordinates in range; ring closed; 3 distinct vertices after merging
 *   repeats; no vertex twice, no antipodal neighbours, no two non-adjacent
 *   edges crossing (indices as written); normalize; each hole inside the
 *   outer ring (its vertices inside or on the outer ring's vertices, no edge
 *   crossing, each edge not shared with the outer ring running inside); no
 *   edge in two rings; no two holes crossing; no hole inside another.
 *   The checks compare every pair of edges of a ring, so a polygon is limited
 *   to GEO_MAX_POINTS points.
 */
#include "geo.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Vectors                                                                  */
/* ------------------------------------------------------------------------ */

#define GEO_PI 3.14159265358979323846
static const double DEG = GEO_PI / 180.0;

static geo_vec vec_of(double lng, double lat)
{
    double cl = cos(lat * DEG);
    geo_vec v = {cl * cos(lng * DEG), cl * sin(lng * DEG), sin(lat * DEG)};
    return v;
}

static double dot(geo_vec a, geo_vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

static geo_vec cross(geo_vec a, geo_vec b)
{
    geo_vec c = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return c;
}

static double norm(geo_vec a) { return sqrt(dot(a, a)); }

static bool same(geo_vec a, geo_vec b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

/* The sign of the triple product: +1 when a, b, c turn counter-clockwise. */
static int ccw(geo_vec a, geo_vec b, geo_vec c)
{
    double d = dot(cross(a, b), c);
    return d > 0 ? 1 : d < 0 ? -1 : 0;
}

/* The great-circle angle between two unit vectors. */
static double angle(geo_vec a, geo_vec b) { return atan2(norm(cross(a, b)), dot(a, b)); }

static bool valid_coord(double lng, double lat)
{
    return isfinite(lng) && isfinite(lat) && fabs(lng) <= 180 && fabs(lat) <= 90;
}

/* ------------------------------------------------------------------------ */
/* Edges and rings                                                          */
/* ------------------------------------------------------------------------ */

/* Whether arcs ab and cd cross at a point interior to both (sharing an endpoint is not crossing). */
static bool edges_cross(geo_vec a, geo_vec b, geo_vec c, geo_vec d)
{
    if (same(a, c) || same(a, d) || same(b, c) || same(b, d)) return false;
    int acb = -ccw(a, b, c);
    if (acb == 0 || ccw(a, b, d) != acb) return false;
    if (-ccw(c, d, b) != acb) return false;
    return ccw(c, d, a) == acb;
}

/* Whether p lies on arc ab (not at its ends), within rounding. */
static bool on_edge(geo_vec p, geo_vec a, geo_vec b)
{
    geo_vec nrm = cross(a, b);
    double len = norm(nrm);
    if (len == 0 || fabs(dot(nrm, p)) > 1e-14 * len) return false;
    return dot(cross(a, p), nrm) > 0 && dot(cross(p, b), nrm) > 0;
}

static bool ring_on_boundary(const geo_ring *r, geo_vec p)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (on_edge(p, r->v[i], r->v[(i + 1) % r->n])) return true;
    return false;
}

static bool ring_has_vertex(const geo_ring *r, geo_vec p)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (same(r->v[i], p)) return true;
    return false;
}

/* Whether the ring winds counter-clockwise once around p (see CONTAINMENT). */
static bool ring_contains(const geo_ring *r, geo_vec p)
{
    double sum = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        geo_vec a = r->v[i], b = r->v[(i + 1) % r->n];
        sum += atan2(dot(p, cross(a, b)), dot(a, b) - dot(p, a) * dot(p, b));
    }
    return sum > GEO_PI;
}

/* The sum of the turning angles at the vertices: 2*pi minus the area on the ring's left. */
static double ring_turning(const geo_ring *r)
{
    double sum = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        geo_vec a = r->v[(i + r->n - 1) % r->n], b = r->v[i], c = r->v[(i + 1) % r->n];
        double t = angle(cross(a, b), cross(b, c));
        sum += ccw(a, b, c) >= 0 ? t : -t;
    }
    return sum;
}

static bool ring_has_edge(const geo_ring *r, geo_vec a, geo_vec b, uint32_t *which)
{
    for (uint32_t i = 0; i < r->n; i++) {
        geo_vec c = r->v[i], d = r->v[(i + 1) % r->n];
        if ((same(a, c) && same(b, d)) || (same(a, d) && same(b, c))) {
            if (which) *which = i;
            return true;
        }
    }
    return false;
}

static bool rings_cross(const geo_ring *r, const geo_ring *s)
{
    for (uint32_t i = 0; i < r->n; i++)
        for (uint32_t j = 0; j < s->n; j++)
            if (edges_cross(r->v[i], r->v[(i + 1) % r->n], s->v[j], s->v[(j + 1) % s->n])) return true;
    return false;
}

/* Whether ring `in` lies inside ring `out` (see CHECKS). */
static bool ring_inside(const geo_ring *in, const geo_ring *out)
{
    for (uint32_t i = 0; i < in->n; i++) {
        geo_vec p = in->v[i];
        if (ring_has_vertex(out, p)) continue;
        if (ring_on_boundary(out, p) || !ring_contains(out, p)) return false;
    }
    if (rings_cross(in, out)) return false;
    for (uint32_t i = 0; i < in->n; i++) {
        geo_vec a = in->v[i], b = in->v[(i + 1) % in->n];
        if (ring_has_edge(out, a, b, NULL)) continue;
        geo_vec m = {a.x + b.x, a.y + b.y, a.z + b.z};
        double len = norm(m);
        if (len == 0) return false;
        m.x /= len, m.y /= len, m.z /= len;
        if (!ring_has_vertex(out, m) && (ring_on_boundary(out, m) || !ring_contains(out, m))) return false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Shapes                                                                   */
/* ------------------------------------------------------------------------ */

static int invalid(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int invalid(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return ORC_ERR_INVALID_ARG;
}

int geo_box_init(geo_shape *s, geo_coord lo, geo_coord hi, char *why, size_t n)
{
    memset(s, 0, sizeof *s);
    if (!valid_coord(lo.lng, lo.lat) || !valid_coord(hi.lng, hi.lat)) {
        geo_coord bad = valid_coord(lo.lng, lo.lat) ? hi : lo;
        return invalid(why, n, "Longitude/latitude is out of bounds, lng: %g lat: %g", bad.lng, bad.lat);
    }
    if (lo.lat > hi.lat) return invalid(why, n, "Invalid rectangle");
    s->kind = GEO_BOX;
    s->lat_lo = lo.lat;
    s->lat_hi = hi.lat;
    /* -180 and 180 are one meridian: an interval starting at -180 starts at 180 unless it ends there. */
    s->lng_full = lo.lng == -180 && hi.lng == 180;
    s->lng_lo = lo.lng == -180 && hi.lng != 180 ? 180 : lo.lng;
    s->lng_hi = hi.lng == -180 && lo.lng != 180 ? 180 : hi.lng;
    return ORC_OK;
}

int geo_circle_init(geo_shape *s, geo_coord center, double radius, char *why, size_t n)
{
    memset(s, 0, sizeof *s);
    if (!valid_coord(center.lng, center.lat))
        return invalid(why, n, "Longitude/latitude is out of bounds, lng: %g lat: %g", center.lng, center.lat);
    if (!(radius >= 0)) return invalid(why, n, "The radius of a circle must be a non-negative number");
    s->kind = GEO_CIRCLE;
    s->center = vec_of(center.lng, center.lat);
    s->radius = radius;
    return ORC_OK;
}

void geo_shape_free(geo_shape *s)
{
    if (!s) return;
    for (uint32_t i = 0; i < s->nrings; i++) free(s->rings[i].v);
    free(s->rings);
    s->rings = NULL;
    s->nrings = 0;
}

/* Builds ring `i` from its written points into s->rings[i] (s->nrings counts built rings). */
static int build_ring(geo_shape *s, uint32_t i, const geo_coord *pts, uint32_t size, char *why, size_t n)
{
    if (size == 0) return invalid(why, n, "Ring has no vertices");
    for (uint32_t k = 0; k < size; k++)
        if (!valid_coord(pts[k].lng, pts[k].lat))
            return invalid(why, n, "Longitude/latitude is out of bounds, lng: %g lat: %g", pts[k].lng, pts[k].lat);
    const geo_coord *f = &pts[0], *l = &pts[size - 1];
    if (f->lng != l->lng || f->lat != l->lat || f->alt != l->alt)
        return invalid(why, n, "Ring is not closed, first vertex '[%g, %g, %g]' does not equal last vertex '[%g, %g, %g]'",
                       f->lng, f->lat, f->alt, l->lng, l->lat, l->alt);

    geo_ring *r = &s->rings[i];
    r->v = malloc(size * sizeof *r->v);
    geo_coord *kept = malloc(size * sizeof *kept); /* the merged vertices as written, for messages */
    if (!r->v || !kept) {
        free(kept);
        return ORC_ERR_NOMEM;
    }
    s->nrings = i + 1;
    uint32_t m = 0;
    for (uint32_t k = 0; k < size; k++) {
        geo_vec v = vec_of(pts[k].lng, pts[k].lat);
        if (m > 0 && same(r->v[m - 1], v)) continue;
        kept[m] = pts[k];
        r->v[m++] = v;
    }
    if (m > 0) m--; /* the closing vertex */
    r->n = m;
    int rc = ORC_OK;
    if (m < 3) {
        rc = invalid(why, n, "Ring %u must have at least 3 different vertices, %u unique vertices were provided", i, m);
        goto done;
    }
    for (uint32_t a = 0; a < m; a++) {
        for (uint32_t b = a + 1; b < m; b++) {
            if (same(r->v[a], r->v[b])) {
                rc = invalid(why, n, "Ring %u is not valid: 'Duplicate vertex: vertices %u and %u are the same'", i, a, b);
                goto done;
            }
        }
        geo_vec next = r->v[(a + 1) % m];
        if (r->v[a].x == -next.x && r->v[a].y == -next.y && r->v[a].z == -next.z) {
            rc = invalid(why, n, "Ring %u is not valid: 'Vertices %u and %u are antipodal'", i, a, (a + 1) % m);
            goto done;
        }
    }
    for (uint32_t a = 0; a < m; a++) {
        for (uint32_t b = a + 2; b < m; b++) {
            if (a == 0 && b == m - 1) continue; /* adjacent through the closing edge */
            if (edges_cross(r->v[a], r->v[a + 1], r->v[b], r->v[(b + 1) % m])) {
                const geo_coord *p = &kept[a], *q = &kept[a + 1], *u = &kept[b], *w = &kept[(b + 1) % m];
                rc = invalid(why, n,
                             "Ring %u is not valid: 'Edges %u and %u cross. Edge locations in degrees: "
                             "[%.7f, %.7f]-[%.7f, %.7f] and [%.7f, %.7f]-[%.7f, %.7f]'",
                             i, a, b, p->lat, p->lng, q->lat, q->lng, u->lat, u->lng, w->lat, w->lng);
                goto done;
            }
        }
    }
    if (ring_turning(r) < 0) { /* the left side is the larger region: bound the smaller one */
        for (uint32_t a = 0, b = m - 1; a < b; a++, b--) {
            geo_vec t = r->v[a];
            r->v[a] = r->v[b];
            r->v[b] = t;
        }
    }
    if (i > 0 && !ring_inside(r, &s->rings[0]))
        rc = invalid(why, n,
                     "Secondary ring %u not contained by first exterior ring - secondary rings must be holes in the first ring",
                     i);
done:
    free(kept);
    return rc;
}

int geo_polygon_init(geo_shape *s, const geo_coord *pts, const uint32_t *sizes, uint32_t nrings, char *why, size_t n)
{
    memset(s, 0, sizeof *s);
    uint64_t total = 0;
    for (uint32_t i = 0; i < nrings; i++) total += sizes[i];
    if (nrings == 0) return invalid(why, n, "Polygon has no rings.");
    if (total > GEO_MAX_POINTS)
        return invalid(why, n, "Polygon has %llu points, more than the %u a query may use", (unsigned long long)total,
                       (unsigned)GEO_MAX_POINTS);
    s->kind = GEO_POLYGON;
    s->rings = calloc(nrings, sizeof *s->rings);
    if (!s->rings) return ORC_ERR_NOMEM;
    int rc = ORC_OK;
    const geo_coord *at = pts;
    for (uint32_t i = 0; i < nrings && rc == ORC_OK; i++) {
        rc = build_ring(s, i, at, sizes[i], why, n);
        at += sizes[i];
    }
    for (uint32_t j = 1; j < nrings && rc == ORC_OK; j++) {
        for (uint32_t i = 0; i < j && rc == ORC_OK; i++) {
            const geo_ring *r = &s->rings[j];
            for (uint32_t e = 0; e < r->n; e++) {
                uint32_t f;
                if (ring_has_edge(&s->rings[i], r->v[e], r->v[(e + 1) % r->n], &f)) {
                    rc = invalid(why, n, "Polygon isn't valid: 'Duplicate edge: ring %u, edge %u and ring %u, edge %u'",
                                 j, e, i, f);
                    break;
                }
            }
        }
    }
    for (uint32_t j = 2; j < nrings && rc == ORC_OK; j++)
        for (uint32_t i = 1; i < j && rc == ORC_OK; i++)
            if (rings_cross(&s->rings[i], &s->rings[j]))
                rc = invalid(why, n, "Polygon isn't valid: 'Ring %u crosses ring %u'", j, i);
    for (uint32_t j = 2; j < nrings && rc == ORC_OK; j++)
        for (uint32_t i = 1; i < j && rc == ORC_OK; i++)
            if (ring_inside(&s->rings[j], &s->rings[i]) || ring_inside(&s->rings[i], &s->rings[j]))
                rc = invalid(why, n, "Polygon interior rings cannot be nested: %u", j);
    if (rc != ORC_OK) geo_shape_free(s);
    return rc;
}

bool geo_contains(const geo_shape *s, double lng, double lat)
{
    if (!valid_coord(lng, lat)) return false;
    switch (s->kind) {
    case GEO_BOX: {
        if (lat < s->lat_lo || lat > s->lat_hi) return false;
        if (s->lng_full) return true;
        double x = lng == -180 ? 180 : lng;
        return s->lng_lo <= s->lng_hi ? s->lng_lo <= x && x <= s->lng_hi : x >= s->lng_lo || x <= s->lng_hi;
    }
    case GEO_CIRCLE:
        return s->radius >= GEO_PI || angle(s->center, vec_of(lng, lat)) <= s->radius;
    case GEO_POLYGON: {
        geo_vec p = vec_of(lng, lat);
        if (!ring_contains(&s->rings[0], p)) return false;
        for (uint32_t i = 1; i < s->nrings; i++)
            if (ring_contains(&s->rings[i], p)) return false;
        return true;
    }
    default:
        return false;
    }
}

/* ------------------------------------------------------------------------ */
/* Descriptions                                                             */
/* ------------------------------------------------------------------------ */

typedef struct out {
    char *buf;
    size_t n, len;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out *o, const char *fmt, ...)
{
    if (o->len >= o->n) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(o->buf + o->len, o->n - o->len, fmt, ap);
    va_end(ap);
    if (w > 0) o->len = o->len + (size_t)w < o->n ? o->len + (size_t)w : o->n;
}

void geo_describe(char *buf, size_t n, uint8_t kind, const geo_coord *pts, const uint32_t *sizes, uint32_t nrings,
                  double radius)
{
    if (n == 0) return;
    buf[0] = 0;
    out o = {buf, n, 0};
    switch (kind) {
    case GEO_BOX:
        put(&o, "GeoBox([%g, %g], [%g, %g])", pts[0].lng, pts[0].lat, pts[1].lng, pts[1].lat);
        break;
    case GEO_CIRCLE:
        put(&o, "GeoCircle([%g, %g, %g], %g)", pts[0].lng, pts[0].lat, pts[0].alt, radius);
        break;
    case GEO_POLYGON:
        put(&o, "GeoPolygon(");
        for (uint32_t i = 0; i < nrings; i++) {
            put(&o, "%s{", i ? ", " : "");
            for (uint32_t k = 0; k < sizes[i]; k++, pts++)
                put(&o, "%s[%g, %g, %g]", k ? ", " : "", pts->lng, pts->lat, pts->alt);
            put(&o, "}");
        }
        put(&o, ")");
        break;
    default:
        put(&o, "?");
    }
}
