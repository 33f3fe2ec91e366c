/*
 * person_fixture.h — the Person / Address / Note schema shared by the `log`
 * and `check` groups: table ids in creation order and Person's columns.
 *   Person (1): id pk, name, age indexed, friend, tags, nums, dict, addr, addrs, any, friends.
 *   Address (2, embedded): city. Note (3): text, n.
 */
#ifndef ORC_PERSON_FIXTURE_H
#define ORC_PERSON_FIXTURE_H

#include "harness.h"

enum { PERSON = 1, ADDRESS = 2, NOTE = 3 };
enum { P_ID, P_NAME, P_AGE, P_FRIEND, P_TAGS, P_NUMS, P_DICT, P_ADDR, P_ADDRS, P_ANY, P_FRIENDS, P_NCOLS };
enum { A_CITY };
enum { N_TEXT, N_N };

static const orc_prop_spec person_props[P_NCOLS] = {
    {"id", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_PRIMARY_KEY, 0},
    {"name", ORC_TYPE_STRING, ORC_COLL_NONE, 0, 0},
    {"age", ORC_TYPE_INT, ORC_COLL_NONE, ORC_PROP_INDEXED, 0},
    {"friend", ORC_TYPE_LINK, ORC_COLL_NONE, ORC_PROP_OPTIONAL, PERSON},
    {"tags", ORC_TYPE_STRING, ORC_COLL_LIST, 0, 0},
    {"nums", ORC_TYPE_INT, ORC_COLL_SET, 0, 0},
    {"dict", ORC_TYPE_STRING, ORC_COLL_DICT, ORC_PROP_OPTIONAL, 0},
    {"addr", ORC_TYPE_LINK, ORC_COLL_NONE, ORC_PROP_OPTIONAL, ADDRESS},
    {"addrs", ORC_TYPE_LINK, ORC_COLL_LIST, 0, ADDRESS},
    {"any", ORC_TYPE_MIXED, ORC_COLL_NONE, ORC_PROP_OPTIONAL, 0},
    {"friends", ORC_TYPE_LINK, ORC_COLL_LIST, 0, PERSON},
};

#endif
