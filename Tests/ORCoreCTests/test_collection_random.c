/*
 * test_collection_random.c — randomized operations on lists, sets and
 * dictionaries, checked after every commit against in-memory models, and
 * link collections whose backlinks orc_env_check verifies at the end. Seeds
 * come from test_seed() (ORC_TEST_SEED reproduces a run).
 */
#include "collection_fixture.h"

#include <stdlib.h>

enum { RL_OWNERS = 3, RL_COLS = 2, RL_LISTS = RL_OWNERS * RL_COLS, RL_MAX = 120 };

typedef struct model_list {
    int64_t v[RL_MAX];
    bool null[RL_MAX];
    size_t n;
} model_list;

/* Random list operations on several optional int lists, checked against arrays. */
TEST(collection_random_lists)
{
    orc_env *env;
    orc_txn *txn;
    uint32_t t;
    uint16_t cols[RL_COLS];
    uint64_t owners[RL_OWNERS];
    uint64_t rng = test_seed();
    static model_list model[RL_LISTS], saved[RL_LISTS];
    memset(model, 0, sizeof model);
    CHECK_OK(test_open_writing(test_path("random.realm"), &env, &txn));
    CHECK_OK(orc_class_add(txn, "Owner", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(txn, t, "a", ORC_TYPE_INT, ORC_COLL_LIST, ORC_PROP_OPTIONAL, 0, &cols[0]));
    CHECK_OK(add_prop(txn, t, "b", ORC_TYPE_INT, ORC_COLL_LIST, ORC_PROP_OPTIONAL, 0, &cols[1]));
    for (int i = 0; i < RL_OWNERS; i++) CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &owners[i]));
    CHECK_OK(orc_txn_commit(txn, NULL));

    int ops = 0;
    for (int round = 0; ops < 6000; round++) {
        memcpy(saved, model, sizeof model);
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
        int n_ops = 1 + (int)(test_rand(&rng) % 60);
        for (int op = 0; op < n_ops; op++, ops++) {
            int li = (int)(test_rand(&rng) % RL_LISTS);
            model_list *m = &model[li];
            uint64_t k_owner = owners[li / RL_COLS];
            uint64_t k = k_owner;
            uint16_t col = cols[li % RL_COLS];
            uint64_t r = test_rand(&rng);
            size_t i = m->n ? (size_t)(test_rand(&rng) % (m->n + 1)) : 0;
            bool is_null = test_rand(&rng) % 10 == 0;
            int64_t x = (int64_t)(test_rand(&rng) % 1000) - 500;
            orc_value v = is_null ? v_null() : v_int(x);
            switch (r % 16) {
            case 5: { /* several inserts at once */
                size_t k = 1 + (size_t)(test_rand(&rng) % 4);
                if (m->n + k > RL_MAX) break;
                orc_value vs[4];
                bool nulls[4];
                int64_t xs[4];
                for (size_t j = 0; j < k; j++) {
                    nulls[j] = test_rand(&rng) % 10 == 0;
                    xs[j] = (int64_t)(test_rand(&rng) % 1000) - 500;
                    vs[j] = nulls[j] ? v_null() : v_int(xs[j]);
                }
                CHECK_OK(orc_list_insert_many(txn, t, k_owner, col, i, vs, k));
                memmove(&m->v[i + k], &m->v[i], (m->n - i) * sizeof *m->v);
                memmove(&m->null[i + k], &m->null[i], (m->n - i) * sizeof *m->null);
                for (size_t j = 0; j < k; j++) {
                    m->v[i + j] = xs[j];
                    m->null[i + j] = nulls[j];
                }
                m->n += k;
                break;
            }
            case 0: case 1: case 2: case 3: case 4: /* insert */
                if (m->n == RL_MAX) break;
                CHECK_OK(orc_list_insert(txn, t, k, col, i, &v));
                memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof *m->v);
                memmove(&m->null[i + 1], &m->null[i], (m->n - i) * sizeof *m->null);
                m->v[i] = x;
                m->null[i] = is_null;
                m->n++;
                break;
            case 6: case 7: /* set */
                if (i == m->n) {
                    CHECK_RC(orc_list_set(txn, t, k, col, i, &v), ORC_ERR_OUT_OF_RANGE);
                    break;
                }
                CHECK_OK(orc_list_set(txn, t, k, col, i, &v));
                m->v[i] = x;
                m->null[i] = is_null;
                break;
            case 8: case 9: case 10: /* erase */
                if (i == m->n) {
                    CHECK_RC(orc_list_erase(txn, t, k, col, i), ORC_ERR_OUT_OF_RANGE);
                    break;
                }
                CHECK_OK(orc_list_erase(txn, t, k, col, i));
                memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof *m->v);
                memmove(&m->null[i], &m->null[i + 1], (m->n - i - 1) * sizeof *m->null);
                m->n--;
                break;
            case 11: case 12: { /* move */
                size_t to = m->n ? (size_t)(test_rand(&rng) % (m->n + 1)) : 0;
                if (i == m->n || to == m->n) {
                    CHECK_RC(orc_list_move(txn, t, k, col, i, to), ORC_ERR_OUT_OF_RANGE);
                    break;
                }
                CHECK_OK(orc_list_move(txn, t, k, col, i, to));
                int64_t mv = m->v[i];
                bool mn = m->null[i];
                memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof *m->v);
                memmove(&m->null[i], &m->null[i + 1], (m->n - i - 1) * sizeof *m->null);
                memmove(&m->v[to + 1], &m->v[to], (m->n - 1 - to) * sizeof *m->v);
                memmove(&m->null[to + 1], &m->null[to], (m->n - 1 - to) * sizeof *m->null);
                m->v[to] = mv;
                m->null[to] = mn;
                break;
            }
            case 13: { /* find */
                size_t at;
                int rc = orc_coll_find(txn, t, k, col, &v, &at);
                size_t want = m->n;
                for (size_t j = 0; j < m->n && want == m->n; j++)
                    if (m->null[j] == is_null && (is_null || m->v[j] == x)) want = j;
                if (want == m->n) CHECK_RC(rc, ORC_ERR_NOT_FOUND);
                else {
                    CHECK_OK(rc);
                    CHECK_EQ(at, want);
                }
                break;
            }
            case 14: /* read one element inside the transaction */
                if (m->n) {
                    size_t j = (size_t)(test_rand(&rng) % m->n);
                    orc_value got;
                    CHECK_OK(orc_coll_get(txn, t, k, col, j, &got));
                    CHECK(m->null[j] ? got.type == ORC_TYPE_NULL : same(got, v_int(m->v[j])));
                }
                break;
            default: /* clear, rarely */
                if (test_rand(&rng) % 4 == 0) {
                    CHECK_OK(orc_coll_clear(txn, t, k, col));
                    m->n = 0;
                }
                break;
            }
        }
        if (test_rand(&rng) % 8 == 0) {
            orc_txn_abort(txn);
            memcpy(model, saved, sizeof model);
        } else {
            CHECK_OK(orc_txn_commit(txn, NULL));
        }
        CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &txn));
        for (int li = 0; li < RL_LISTS; li++) {
            int rc = list_matches(txn, t, owners[li / RL_COLS], cols[li % RL_COLS], model[li].v, model[li].null,
                                  model[li].n);
            if (rc) {
                test_fail(__FILE__, __LINE__, "round %d list %d differs from the model (%d, seed %" PRIu64 ")",
                          round, li, rc, test_seed());
                orc_txn_abort(txn);
                orc_env_close(env);
                return;
            }
        }
        orc_txn_abort(txn);
    }
    CHECK_ENV(env);
    orc_env_close(env);
}

/* Random link lists, sets and target erasures; backlinks are left to orc_env_check. */
TEST(collection_random_links)
{
    enum { NT = 8, NO = 3 };
    orc_env *env;
    orc_txn *txn;
    uint32_t t, target;
    uint16_t list, set, dict;
    uint64_t owners[NO], targets[NT];
    uint64_t rng = test_seed();
    CHECK_OK(test_open_writing(test_path("random-links.realm"), &env, &txn));
    CHECK_OK(add_link_owner(txn, &target, &t, &list, &set, &dict));
    for (int i = 0; i < NO; i++) CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &owners[i]));
    for (int i = 0; i < NT; i++) CHECK_OK(orc_obj_create(txn, target, NULL, NULL, 0, &targets[i]));
    CHECK_OK(orc_txn_commit(txn, NULL));

    for (int round = 0; round < 40; round++) {
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
        for (int op = 0; op < 50; op++) {
            uint64_t k = owners[test_rand(&rng) % NO];
            int ti = (int)(test_rand(&rng) % NT);
            orc_value l = v_link(target, targets[ti]);
            size_t size;
            char key[8];
            snprintf(key, sizeof key, "k%d", (int)(test_rand(&rng) % 6));
            switch (test_rand(&rng) % 8) {
            case 0: case 1:
                CHECK_OK(orc_coll_size(txn, t, k, list, &size));
                CHECK_OK(orc_list_insert(txn, t, k, list, (size_t)(test_rand(&rng) % (size + 1)), &l));
                break;
            case 2:
                CHECK_OK(orc_coll_size(txn, t, k, list, &size));
                if (size) CHECK_OK(orc_list_erase(txn, t, k, list, (size_t)(test_rand(&rng) % size)));
                if (size > 1) CHECK_OK(orc_list_set(txn, t, k, list, 0, &l));
                break;
            case 3: CHECK_OK(orc_set_insert(txn, t, k, set, &l, NULL)); break;
            case 4: CHECK_OK(orc_set_erase(txn, t, k, set, &l, NULL)); break;
            case 5: CHECK_OK(orc_dict_set(txn, t, k, dict, key, strlen(key), &l)); break;
            case 6: CHECK_OK(orc_dict_erase(txn, t, k, dict, key, strlen(key), NULL)); break;
            default:
                if (test_rand(&rng) % 3 == 0) {
                    /* Replace a target: every element naming it must go. */
                    CHECK_OK(orc_obj_erase(txn, target, targets[ti]));
                    for (int o = 0; o < NO; o++) {
                        size_t at;
                        CHECK_RC(orc_coll_find(txn, t, owners[o], list, &l, &at), ORC_ERR_NOT_FOUND);
                        CHECK_RC(orc_coll_find(txn, t, owners[o], set, &l, &at), ORC_ERR_NOT_FOUND);
                        CHECK_RC(orc_coll_find(txn, t, owners[o], dict, &l, &at), ORC_ERR_NOT_FOUND);
                    }
                    CHECK_OK(orc_obj_create(txn, target, NULL, NULL, 0, &targets[ti]));
                }
                break;
            }
        }
        CHECK_OK(orc_txn_commit(txn, NULL));
    }
    CHECK_ENV(env);
    orc_env_close(env);
}

/* Random set and dictionary operations against sorted models. */
TEST(collection_random_sets_dicts)
{
    enum { NV = 100, NK = 40 };
    orc_env *env;
    orc_txn *txn;
    uint32_t t;
    uint16_t set, dict;
    uint64_t k;
    uint64_t rng = test_seed();
    /* Set model: in[v] for v in -50 ... 49. Dict model: has[key], val[key], null[key]. */
    bool in[NV] = {0}, has[NK] = {0}, isnull[NK] = {0};
    int64_t val[NK] = {0};
    bool s_in[NV], s_has[NK], s_isnull[NK];
    int64_t s_val[NK];
    CHECK_OK(test_open_writing(test_path("random-sets.realm"), &env, &txn));
    CHECK_OK(orc_class_add(txn, "Owner", ORC_CLASS_TOP_LEVEL, &t));
    CHECK_OK(add_prop(txn, t, "set", ORC_TYPE_INT, ORC_COLL_SET, 0, 0, &set));
    CHECK_OK(add_prop(txn, t, "dict", ORC_TYPE_INT, ORC_COLL_DICT, ORC_PROP_OPTIONAL, 0, &dict));
    CHECK_OK(orc_obj_create(txn, t, NULL, NULL, 0, &k));
    CHECK_OK(orc_txn_commit(txn, NULL));

    for (int round = 0; round < 80; round++) {
        memcpy(s_in, in, sizeof in);
        memcpy(s_has, has, sizeof has);
        memcpy(s_isnull, isnull, sizeof isnull);
        memcpy(s_val, val, sizeof val);
        CHECK_OK(orc_txn_begin(env, ORC_TXN_WRITE, &txn));
        for (int op = 0; op < 40; op++) {
            int vi = (int)(test_rand(&rng) % NV), ki = (int)(test_rand(&rng) % NK);
            orc_value v = v_int(vi - 50);
            char key[8];
            snprintf(key, sizeof key, "k%02d", ki);
            bool flag;
            switch (test_rand(&rng) % 9) {
            case 0: case 1: case 2:
                CHECK_OK(orc_set_insert(txn, t, k, set, &v, &flag));
                CHECK_EQ(flag, !in[vi]);
                in[vi] = true;
                break;
            case 3: case 4:
                CHECK_OK(orc_set_erase(txn, t, k, set, &v, &flag));
                CHECK_EQ(flag, in[vi]);
                in[vi] = false;
                break;
            case 5: case 6: {
                bool n = test_rand(&rng) % 5 == 0;
                orc_value dv = n ? v_null() : v;
                CHECK_OK(orc_dict_set(txn, t, k, dict, key, strlen(key), &dv));
                has[ki] = true;
                isnull[ki] = n;
                val[ki] = vi - 50;
                break;
            }
            case 7:
                CHECK_OK(orc_dict_erase(txn, t, k, dict, key, strlen(key), &flag));
                CHECK_EQ(flag, has[ki]);
                has[ki] = false;
                break;
            default:
                if (test_rand(&rng) % 6 == 0) {
                    bool which = test_rand(&rng) % 2;
                    CHECK_OK(orc_coll_clear(txn, t, k, which ? set : dict));
                    if (which) memset(in, 0, sizeof in);
                    else memset(has, 0, sizeof has);
                }
                break;
            }
        }
        if (test_rand(&rng) % 6 == 0) {
            orc_txn_abort(txn);
            memcpy(in, s_in, sizeof in);
            memcpy(has, s_has, sizeof has);
            memcpy(isnull, s_isnull, sizeof isnull);
            memcpy(val, s_val, sizeof val);
        } else {
            CHECK_OK(orc_txn_commit(txn, NULL));
        }
        CHECK_OK(orc_txn_begin(env, ORC_TXN_READ, &txn));
        size_t size, pos = 0;
        CHECK_OK(orc_coll_size(txn, t, k, set, &size));
        for (int vi = 0; vi < NV; vi++) {
            if (!in[vi]) continue;
            orc_value got;
            CHECK(pos < size);
            CHECK_OK(orc_coll_get(txn, t, k, set, pos++, &got));
            CHECK(same(got, v_int(vi - 50)));
        }
        CHECK_EQ(pos, size);
        pos = 0;
        CHECK_OK(orc_coll_size(txn, t, k, dict, &size));
        for (int ki = 0; ki < NK; ki++) {
            if (!has[ki]) continue;
            char key[8];
            snprintf(key, sizeof key, "k%02d", ki);
            orc_value kv, got;
            CHECK(pos < size);
            CHECK_OK(orc_dict_key_at(txn, t, k, dict, pos, &kv));
            CHECK(str_is(kv, key));
            CHECK_OK(orc_coll_get(txn, t, k, dict, pos++, &got));
            CHECK(isnull[ki] ? got.type == ORC_TYPE_NULL : same(got, v_int(val[ki])));
        }
        CHECK_EQ(pos, size);
        orc_txn_abort(txn);
    }
    CHECK_ENV(env);
    orc_env_close(env);
}
