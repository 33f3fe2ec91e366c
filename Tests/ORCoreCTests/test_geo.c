/*
 * test_geo.c — group `geo`: the sphere geometry of geo.c on its own, and the
 * GEOWITHIN predicate compiled and run over a realm whose Person objects
 * hold an embedded, GeoJSON-shaped Location (a `type` string and a list of
 * `coordinates`: longitude, latitude).
 */
#include "geo.h"
#include "harness.h"

#include <math.h>
#include <stdlib.h>

/* ------------------------------------------------------------------------ */
/* Geometry                                                                 */
/* ------------------------------------------------------------------------ */

static geo_coord C(double lat, double lng) { return (geo_coord){lng, lat, 0}; }

/* A polygon from (lat, lng) pairs, rings separated by sizes. */
static int polygon(geo_shape *s, const double (*ll)[2], const uint32_t *sizes, uint32_t nrings, char *why, size_t n)
{
    uint32_t total = 0;
    for (uint32_t i = 0; i < nrings; i++) total += sizes[i];
    geo_coord *pts = malloc(total * sizeof *pts);
    for (uint32_t i = 0; i < total; i++) pts[i] = C(ll[i][0], ll[i][1]);
    int rc = geo_polygon_init(s, pts, sizes, nrings, why, n);
    free(pts);
    return rc;
}

TEST(geo_box_and_circle)
{
    geo_shape s;
    char why[256];
    CHECK_OK(geo_box_init(&s, C(55.6279, 12.0825), C(55.6762, 12.5684), why, sizeof why));
    CHECK(geo_contains(&s, 12.5683, 55.6761));
    CHECK(geo_contains(&s, 12.0826, 55.6280));
    CHECK(!geo_contains(&s, -74.0060, 40.7128));
    CHECK(geo_contains(&s, 12.0825, 55.6279)); /* a corner: edges belong to the box */
    /* a box across the antimeridian: left longitude greater than right */
    CHECK_OK(geo_box_init(&s, C(-10, 170), C(10, -170), why, sizeof why));
    CHECK(geo_contains(&s, 179, 0) && geo_contains(&s, -179, 0) && geo_contains(&s, 180, 0));
    CHECK(!geo_contains(&s, 0, 0));
    CHECK_OK(geo_box_init(&s, C(-90, -180), C(90, 180), why, sizeof why));
    CHECK(geo_contains(&s, 0, 0) && geo_contains(&s, -180, -90));
    CHECK_RC(geo_box_init(&s, C(1, 1), C(0, 0), why, sizeof why), ORC_ERR_INVALID_ARG);
    CHECK_STR(why, "Invalid rectangle");

    /* 0.001 rad is 6.4 km: Copenhagen's centre in, Roskilde's edge (30 km) out */
    CHECK_OK(geo_circle_init(&s, C(55.67, 12.56), 0.001, why, sizeof why));
    CHECK(geo_contains(&s, 12.5683, 55.6761));
    CHECK(!geo_contains(&s, 12.0826, 55.6280));
    /* great-circle distance across the pole: 2 degrees apart, not 180 of longitude */
    CHECK_OK(geo_circle_init(&s, C(89, 0), 2.5 * 3.14159265358979 / 180, why, sizeof why));
    CHECK(geo_contains(&s, 180, 89));
    CHECK_OK(geo_circle_init(&s, C(0, 0), 4, why, sizeof why)); /* more than pi: the whole sphere */
    CHECK(geo_contains(&s, 180, 0));
    CHECK_RC(geo_circle_init(&s, C(0, 0), -1, why, sizeof why), ORC_ERR_INVALID_ARG);
    CHECK_RC(geo_circle_init(&s, C(0, 0), NAN, why, sizeof why), ORC_ERR_INVALID_ARG);
    /* stored points out of range or not finite never match */
    CHECK(!geo_contains(&s, 0, 91) && !geo_contains(&s, NAN, 0) && !geo_contains(&s, 181, 0));
}

TEST(geo_polygon_contains)
{
    geo_shape s;
    char why[256];
    /* written clockwise: it still bounds the smaller region */
    static const double tri[][2] = {{40.0096192, -75.5175781}, {60, 20}, {20, 20}, {-75.5175781, -75.5175781},
                                    {40.0096192, -75.5175781}};
    uint32_t one = 5;
    CHECK_OK(polygon(&s, tri, &one, 1, why, sizeof why));
    CHECK(geo_contains(&s, -74.0060, 40.7128));
    CHECK(geo_contains(&s, 12.5683, 55.6761));
    CHECK(!geo_contains(&s, -76, -76));
    CHECK(!geo_contains(&s, 100, 0));
    geo_shape_free(&s);

    /* the outer ring with a hole that is the polygon above: only what lies between matches */
    static const double holed[][2] = {{50, -80}, {61, 21}, {21, 21}, {-80, -80}, {50, -80},
                                      {40.0096192, -75.5175781}, {60, 20}, {20, 20}, {-75.5175781, -75.5175781},
                                      {40.0096192, -75.5175781}};
    uint32_t two[] = {5, 5};
    CHECK_OK(polygon(&s, holed, two, 2, why, sizeof why));
    CHECK(geo_contains(&s, -76, -76));
    CHECK(!geo_contains(&s, -74.0060, 40.7128));
    CHECK(!geo_contains(&s, 12.5683, 55.6761));
    geo_shape_free(&s);

    /* edges are great-circle arcs: the top edge, between longitudes -60 and 60 at latitude
       60, bulges to latitude 73.9 at longitude 0, so (65, 0) is inside, which a flat map denies */
    static const double cap[][2] = {{60, -60}, {0, -60}, {0, 60}, {60, 60}, {60, -60}};
    uint32_t five = 5;
    CHECK_OK(polygon(&s, cap, &five, 1, why, sizeof why));
    CHECK(geo_contains(&s, 0, 30));
    CHECK(geo_contains(&s, 0, 65));
    geo_shape_free(&s);
}

TEST(geo_polygon_refusals)
{
    geo_shape s;
    char why[512];
    static const double crossing[][2] = {{50, -50}, {55, 55}, {-50, 50}, {70, -25}, {50, -50}};
    uint32_t five = 5;
    CHECK_RC(polygon(&s, crossing, &five, 1, why, sizeof why), ORC_ERR_INVALID_ARG);
    CHECK_STR(why, "Ring 0 is not valid: 'Edges 0 and 2 cross. Edge locations in degrees: "
                   "[50.0000000, -50.0000000]-[55.0000000, 55.0000000] and "
                   "[-50.0000000, 50.0000000]-[70.0000000, -25.0000000]'");

    static const double outside[][2] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}, {0, 0}, {2, 2}, {2, 3}, {3, 3}, {3, 2}, {2, 2}};
    uint32_t sq[] = {5, 5};
    CHECK_RC(polygon(&s, outside, sq, 2, why, sizeof why), ORC_ERR_INVALID_ARG);
    CHECK(strstr(why, "Secondary ring 1 not contained by first exterior ring") != NULL);
    /* a hole whose side lies on the outer ring's side is not inside it */
    static const double touching[][2] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}, {0, 0},
                                         {0, 0.1}, {0.5, 0.1}, {0.5, 0.5}, {0, 0.5}, {0, 0.1}};
    CHECK_RC(polygon(&s, touching, sq, 2, why, sizeof why), ORC_ERR_INVALID_ARG);
    CHECK(strstr(why, "Secondary ring 1 not contained") != NULL);
    static const double poking[][2] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}, {0, 0},
                                       {0.25, 0.5}, {0.75, 0.5}, {0.75, 1.5}, {0.25, 1.5}, {0.25, 0.5}};
    CHECK_RC(polygon(&s, poking, sq, 2, why, sizeof why), ORC_ERR_INVALID_ARG);
    CHECK(strstr(why, "Secondary ring 1 not contained") != NULL);

    static const double shared[][2] = {{50, -80}, {60, 20}, {20, 20}, {-80, -80}, {50, -80},
                                       {40.0096192, -75.5175781}, {60, 20}, {20, 20}, {-75.5175781, -75.5175781},
                                       {40.0096192, -75.5175781}};
    CHECK_RC(polygon(&s, shared, sq, 2, why, sizeof why), ORC_ERR_INVALID_ARG);
    CHECK_STR(why, "Polygon isn't valid: 'Duplicate edge: ring 1, edge 1 and ring 0, edge 1'");

    static const double nested[][2] = {{50, -80}, {62, 22}, {22, 22}, {-80, -80}, {50, -80},
                                       {45, -77}, {61, 21}, {21, 21}, {-77, -77}, {45, -77},
                                       {40.0096192, -75.5175780}, {60, 20}, {20, 20}, {-75.5175781, -75.5175781},
                                       {40.0096192, -75.5175780}};
    uint32_t three[] = {5, 5, 5};
    CHECK_RC(polygon(&s, nested, three, 3, why, sizeof why), ORC_ERR_INVALID_ARG);
    CHECK_STR(why, "Polygon interior rings cannot be nested: 2");

    static const double open[][2] = {{0, 0}, {1, 1}, {2, 0}, {3, 3}};
    uint32_t four = 4;
    CHECK_RC(polygon(&s, open, &four, 1, why, sizeof why), ORC_ERR_INVALID_ARG);
    CHECK(strstr(why, "Ring is not closed") != NULL);
    static const double flat[][2] = {{0, 0}, {1, 1}, {1, 1}, {0, 0}};
    CHECK_RC(polygon(&s, flat, &four, 1, why, sizeof why), ORC_ERR_INVALID_ARG);
    CHECK_STR(why, "Ring 0 must have at least 3 different vertices, 2 unique vertices were provided");

    /* the checks compare pairs of edges: a polygon past GEO_MAX_POINTS is refused before any */
    uint32_t big = GEO_MAX_POINTS + 1;
    geo_coord *pts = calloc(big, sizeof *pts);
    CHECK_RC(geo_polygon_init(&s, pts, &big, 1, why, sizeof why), ORC_ERR_INVALID_ARG);
    free(pts);
    CHECK(strstr(why, "more than the 10000") != NULL);
}

/* ------------------------------------------------------------------------ */
/* GEOWITHIN in programs                                                    */
/* ------------------------------------------------------------------------ */

typedef struct geo_fx {
    orc_env *env;
    orc_txn *w;
    uint32_t person, location, flat;
    uint16_t name, loc, flat_loc, type, coords, flat_type, flat_coords;
    uint64_t keys[8];
} geo_fx;

static int add_prop(orc_txn *txn, uint32_t table, const char *name, orc_type type, orc_collection coll,
                    uint32_t flags, uint32_t link_table, uint16_t *col)
{
    orc_prop_spec spec = {.name = name, .type = type, .collection = coll, .flags = flags, .link_table = link_table};
    return orc_prop_add(txn, table, &spec, col);
}

/* A person with a location of `type` and n coordinates (lng, lat, ...); type NULL: no location. */
static bool add_person(geo_fx *f, int i, const char *type, const double *coords, size_t n)
{
    orc_value name = v_str("p");
    HOK(orc_obj_create(f->w, f->person, &f->name, &name, 1, &f->keys[i]));
    if (!type) return true;
    uint64_t child;
    HOK(orc_obj_create_embedded(f->w, f->person, f->keys[i], f->loc, 0, NULL, &child));
    orc_value t = v_str(type);
    HOK(orc_obj_set(f->w, f->location, child, f->type, &t));
    for (size_t k = 0; k < n; k++) {
        orc_value d = v_double(coords[k]);
        HOK(orc_list_insert(f->w, f->location, child, f->coords, k, &d));
    }
    return true;
}

/* Diana (New York), Maria (Copenhagen), Tomas (Roskilde), Alba (-76, -76), Manuela (none),
   Pia, whose location says "Polygon" though it lies in Copenhagen, Ole, whose location has
   one coordinate, and Eva, whose latitude (95) is out of range. */
static bool geo_fx_open(geo_fx *f, const char *path)
{
    memset(f, 0, sizeof *f);
    HOK(test_open_writing(path, &f->env, &f->w));
    HOK(orc_class_add(f->w, "Location", ORC_CLASS_EMBEDDED, &f->location));
    HOK(add_prop(f->w, f->location, "type", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0, &f->type));
    HOK(add_prop(f->w, f->location, "coordinates", ORC_TYPE_DOUBLE, ORC_COLL_LIST, 0, 0, &f->coords));
    HOK(orc_class_add(f->w, "Flat", ORC_CLASS_TOP_LEVEL, &f->flat));
    HOK(add_prop(f->w, f->flat, "type", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0, &f->flat_type));
    HOK(add_prop(f->w, f->flat, "coordinates", ORC_TYPE_DOUBLE, ORC_COLL_LIST, 0, 0, &f->flat_coords));
    HOK(orc_class_add(f->w, "Person", ORC_CLASS_TOP_LEVEL, &f->person));
    HOK(add_prop(f->w, f->person, "name", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0, &f->name));
    HOK(add_prop(f->w, f->person, "location", ORC_TYPE_LINK, ORC_COLL_NONE, ORC_PROP_OPTIONAL, f->location, &f->loc));
    HOK(add_prop(f->w, f->person, "flat", ORC_TYPE_LINK, ORC_COLL_NONE, ORC_PROP_OPTIONAL, f->flat, &f->flat_loc));
    static const double ny[] = {-74.0060, 40.7128}, cph[] = {12.5683, 55.6761, 10}, rsk[] = {12.0826, 55.6280},
                        alba[] = {-76, -76};
    return add_person(f, 0, "Point", ny, 2) && add_person(f, 1, "point", cph, 3) && add_person(f, 2, "Point", rsk, 2) &&
           add_person(f, 3, "Point", alba, 2) && add_person(f, 4, NULL, NULL, 0) &&
           add_person(f, 5, "Polygon", cph, 2) && add_person(f, 6, "Point", cph, 1) &&
           add_person(f, 7, "Point", (const double[]){12.5683, 95}, 2);
}

typedef struct prog {
    uint8_t b[4096];
    size_t n;
} prog;

static void put(prog *p, const void *d, size_t n) { memcpy(p->b + p->n, d, n), p->n += n; }
static void u8(prog *p, uint8_t v) { put(p, &v, 1); }
static void u16(prog *p, uint16_t v) { put(p, &v, 2); }
static void u32(prog *p, uint32_t v) { put(p, &v, 4); }
static void f64(prog *p, double v) { put(p, &v, 8); }

/* GEOWITHIN's head: the paths link.type and link.coordinates. */
static void geo_head(prog *p, uint16_t link, uint16_t type, uint16_t coords)
{
    p->n = 0;
    u8(p, ORC_OP_GEO_WITHIN);
    u8(p, 2), u8(p, ORC_STEP_PROP), u16(p, link), u8(p, ORC_STEP_PROP), u16(p, type), u8(p, 0);
    u8(p, 2), u8(p, ORC_STEP_PROP), u16(p, link), u8(p, ORC_STEP_PROP), u16(p, coords), u8(p, 0);
}

static void box(prog *p, double lat0, double lng0, double lat1, double lng1)
{
    u8(p, GEO_BOX), f64(p, lng0), f64(p, lat0), f64(p, lng1), f64(p, lat1);
}

/* Runs the program; the indexes of the matching persons, as "1,2". */
static bool run(geo_fx *f, const prog *p, char *out, size_t n)
{
    orc_query *q = NULL;
    HOK(orc_query_compile(f->w, f->person, p->b, p->n, &q));
    orc_keys keys = {0};
    int rc = orc_query_run(f->w, q, &keys);
    orc_query_free(q);
    HOK(rc);
    out[0] = 0;
    for (size_t i = 0; i < keys.count; i++)
        for (int k = 0; k < 8; k++)
            if (keys.keys[i] == f->keys[k])
                snprintf(out + strlen(out), n - strlen(out), "%s%d", strlen(out) ? "," : "", k);
    orc_keys_free(&keys);
    return true;
}

TEST(geo_query_matches)
{
    TEST_PATH(path, "geo.realm");
    geo_fx f;
    if (!geo_fx_open(&f, path)) return;
    prog p;
    char got[64];

    geo_head(&p, f.loc, f.type, f.coords);
    box(&p, 55.6281, 12.0826, 55.6762, 12.5684);
    CHECK(run(&f, &p, got, sizeof got));
    CHECK_STR(got, "1"); /* Maria; Pia lies there too but is not a "Point" */

    geo_head(&p, f.loc, f.type, f.coords);
    box(&p, 0, -75, 60, 15);
    CHECK(run(&f, &p, got, sizeof got));
    CHECK_STR(got, "0,1,2");

    geo_head(&p, f.loc, f.type, f.coords); /* 100 km around Copenhagen */
    u8(&p, GEO_CIRCLE), f64(&p, 12.56), f64(&p, 55.67), f64(&p, 0), f64(&p, 100.0 / 6378.1);
    CHECK(run(&f, &p, got, sizeof got));
    CHECK_STR(got, "1,2");

    geo_head(&p, f.loc, f.type, f.coords); /* a triangle around Roskilde only */
    static const double tri[][2] = {{55, 12}, {55.67, 12.5}, {55.67, 11.5}, {55, 12}};
    u8(&p, GEO_POLYGON), u32(&p, 1), u32(&p, 4);
    for (int i = 0; i < 4; i++) f64(&p, tri[i][1]), f64(&p, tri[i][0]), f64(&p, 0);
    CHECK(run(&f, &p, got, sizeof got));
    CHECK_STR(got, "2");

    /* the whole sphere: every valid point, and no missing or invalid location */
    geo_head(&p, f.loc, f.type, f.coords);
    u8(&p, GEO_CIRCLE), f64(&p, 0), f64(&p, 0), f64(&p, 0), f64(&p, 4);
    CHECK(run(&f, &p, got, sizeof got));
    CHECK_STR(got, "0,1,2,3");

    /* NOT GEOWITHIN: everyone else, including those without a valid location */
    prog n = {.n = 0};
    geo_head(&p, f.loc, f.type, f.coords);
    box(&p, 0, -75, 60, 15);
    u8(&n, ORC_OP_NOT);
    put(&n, p.b, p.n);
    CHECK(run(&f, &n, got, sizeof got));
    CHECK_STR(got, "3,4,5,6,7");
    orc_txn_abort(f.w);
    orc_env_close(f.env);
}

TEST(geo_query_refusals)
{
    TEST_PATH(path, "geo-refusals.realm");
    geo_fx f;
    if (!geo_fx_open(&f, path)) return;
    prog p;
    orc_query *q = NULL;

    /* a top-level class is not a location */
    geo_head(&p, f.flat_loc, f.flat_type, f.flat_coords);
    box(&p, 0, 0, 1, 1);
    CHECK_RC(orc_query_compile(f.w, f.person, p.b, p.n, &q), ORC_ERR_WRONG_TYPE);
    CHECK(strstr(orc_last_error(), "is not embedded") != NULL);
    /* the paths swapped: a list where the type should be */
    geo_head(&p, f.loc, f.coords, f.type);
    box(&p, 0, 0, 1, 1);
    CHECK_RC(orc_query_compile(f.w, f.person, p.b, p.n, &q), ORC_ERR_WRONG_TYPE);
    /* a shape cut short, an unknown shape, a ring count the bytes cannot hold */
    geo_head(&p, f.loc, f.type, f.coords);
    u8(&p, GEO_BOX), f64(&p, 1);
    CHECK_RC(orc_query_compile(f.w, f.person, p.b, p.n, &q), ORC_ERR_QUERY);
    geo_head(&p, f.loc, f.type, f.coords);
    u8(&p, 9);
    CHECK_RC(orc_query_compile(f.w, f.person, p.b, p.n, &q), ORC_ERR_QUERY);
    geo_head(&p, f.loc, f.type, f.coords);
    u8(&p, GEO_POLYGON), u32(&p, 0xFFFFFFFFu);
    CHECK_RC(orc_query_compile(f.w, f.person, p.b, p.n, &q), ORC_ERR_QUERY);
    geo_head(&p, f.loc, f.type, f.coords);
    u8(&p, GEO_POLYGON), u32(&p, 1), u32(&p, 0x7FFFFFFFu);
    CHECK_RC(orc_query_compile(f.w, f.person, p.b, p.n, &q), ORC_ERR_QUERY);
    /* an invalid region names the shape and why */
    geo_head(&p, f.loc, f.type, f.coords);
    box(&p, 1, 1, 0, 0);
    CHECK_RC(orc_query_compile(f.w, f.person, p.b, p.n, &q), ORC_ERR_INVALID_ARG);
    CHECK(strstr(orc_last_error(),
                 "Invalid region in GEOWITHIN query for parameter 'GeoBox([1, 1], [0, 0])': 'Invalid rectangle'") != NULL);
    geo_head(&p, f.loc, f.type, f.coords);
    u8(&p, GEO_CIRCLE), f64(&p, 0), f64(&p, 0), f64(&p, 0), f64(&p, -1);
    CHECK_RC(orc_query_compile(f.w, f.person, p.b, p.n, &q), ORC_ERR_INVALID_ARG);
    CHECK(strstr(orc_last_error(), "GeoCircle([0, 0, 0], -1)") != NULL);
    CHECK(q == NULL);
    orc_txn_abort(f.w);
    orc_env_close(f.env);
}
