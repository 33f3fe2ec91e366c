/*
 * buf.c — growable byte buffers, key arrays and the growth of other arrays.
 *
 * Buffers and arrays double their capacity, so appending n bytes or elements
 * costs amortised O(n); the changeset of a million-object transaction is built
 * in one of these.
 */
#include "base.h"

#include <stdint.h>
#include <stdlib.h>

int buf_reserve(orc_buf *b, size_t extra)
{
    if (b->size + extra <= b->cap) return ORC_OK;
    size_t need = b->size + extra;
    if (need < b->size) return orc_fail(ORC_ERR_NOMEM, "buffer size overflow");
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap *= 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p) return orc_fail(ORC_ERR_NOMEM, "cannot grow a buffer to %zu bytes", cap);
    b->data = p;
    b->cap = cap;
    return ORC_OK;
}

int buf_put(orc_buf *b, const void *p, size_t n)
{
    int rc = buf_reserve(b, n);
    if (rc) return rc;
    if (n) memcpy(b->data + b->size, p, n);
    b->size += n;
    return ORC_OK;
}

int buf_put_u8(orc_buf *b, uint8_t v) { return buf_put(b, &v, 1); }
int buf_put_u16(orc_buf *b, uint16_t v) { return buf_put(b, &v, 2); }
int buf_put_u32(orc_buf *b, uint32_t v) { return buf_put(b, &v, 4); }
int buf_put_u64(orc_buf *b, uint64_t v) { return buf_put(b, &v, 8); }

void buf_free(orc_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->size = b->cap = 0;
}

int array_reserve(void *items_at, size_t count, size_t *cap, size_t size, size_t first, const char *what)
{
    if (count < *cap) return ORC_OK;
    size_t want = *cap ? *cap * 2 : first;
    if (want < *cap || want > SIZE_MAX / size) return orc_fail(ORC_ERR_NOMEM, "%s: size overflow", what);
    /* The caller's pointer is read and written as bytes: its type is the caller's. */
    void *items;
    memcpy(&items, items_at, sizeof items);
    void *grown = realloc(items, want * size);
    if (!grown) return orc_fail(ORC_ERR_NOMEM, "cannot grow %s to %zu elements", what, want);
    memcpy(items_at, &grown, sizeof grown);
    *cap = want;
    return ORC_OK;
}

int keys_push(orc_keys *k, uint64_t key)
{
    int rc = array_reserve(&k->keys, k->count, &k->capacity, sizeof *k->keys, 64, "a key array");
    if (rc) return rc;
    k->keys[k->count++] = key;
    return ORC_OK;
}

void orc_keys_free(orc_keys *keys)
{
    if (!keys) return;
    free(keys->keys);
    keys->keys = NULL;
    keys->count = keys->capacity = 0;
}
