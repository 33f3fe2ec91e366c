/* power_image.c — the journal read back and the file after a power cut (see power.h). */
#include "power.h"
#include "workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SECTOR 512

bool pw_journal_load(const char *path, pw_journal *j)
{
    memset(j, 0, sizeof *j);
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fclose(f);
        return false;
    }
    size_t n = (size_t)st.st_size;
    j->buf = malloc(n ? n : 1);
    if (!j->buf || fread(j->buf, 1, n, f) != n) {
        fclose(f);
        free(j->buf);
        j->buf = NULL;
        errno = EIO;
        return false;
    }
    fclose(f);
    size_t cap = 1024;
    j->recs = malloc(cap * sizeof *j->recs);
    if (!j->recs) abort();
    size_t pos = 0;
    while (pos + sizeof(faultfs_rec) <= n) {
        faultfs_rec r;
        memcpy(&r, j->buf + pos, sizeof r);
        size_t data = (r.kind == FAULTFS_REC_WRITE || r.kind == FAULTFS_REC_DSYNC_WRITE) ? r.size : 0;
        if (pos + sizeof r + data > n) break; /* torn last record */
        if (j->count == cap) {
            cap *= 2;
            j->recs = realloc(j->recs, cap * sizeof *j->recs);
            if (!j->recs) abort();
        }
        j->recs[j->count++] = (pw_rec){r.kind, r.size, r.offset, r.value, j->buf + pos + sizeof r};
        switch (r.kind) {
        case FAULTFS_REC_WRITE: j->writes++; break;
        case FAULTFS_REC_DSYNC_WRITE: j->dsync_writes++; break;
        case FAULTFS_REC_SYNC: j->syncs++; break;
        default: j->marks++; break;
        }
        pos += sizeof r + data;
    }
    return true;
}

void pw_journal_free(pw_journal *j)
{
    free(j->buf);
    free(j->recs);
    memset(j, 0, sizeof *j);
}

static double chance(uint64_t *rng) { return (double)(fw_rand(rng) >> 11) / (double)(1ULL << 53); }

static bool reserve(uint8_t **buf, size_t *cap, size_t *size, size_t need)
{
    if (need > *cap) {
        size_t c = *cap ? *cap : 1 << 16;
        while (c < need) c *= 2;
        uint8_t *b = realloc(*buf, c);
        if (!b) return false;
        *buf = b;
        *cap = c;
    }
    if (need > *size) {
        memset(*buf + *size, 0, need - *size);
        *size = need;
    }
    return true;
}

bool pw_image_build(const pw_journal *j, const pw_cut *cut, uint64_t *rng, uint8_t **buf, size_t *cap, size_t *size,
                    pw_image_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    *size = 0;
    long last_sync = -1;
    for (size_t i = 0; i < cut->cut && i < j->count; i++)
        if (j->recs[i].kind == FAULTFS_REC_SYNC) last_sync = (long)i;
    if (cut->ignore_syncs) last_sync = -1;
    stats->last_sync = last_sync;
    size_t end = cut->cut < j->count ? cut->cut + 1 : j->count; /* the record in flight may have reached the disk */
    for (size_t i = 0; i < end; i++) {
        const pw_rec *r = &j->recs[i];
        if (r->kind != FAULTFS_REC_WRITE && r->kind != FAULTFS_REC_DSYNC_WRITE) continue;
        bool completed = i < cut->cut;
        bool durable = (long)i < last_sync || (completed && r->kind == FAULTFS_REC_DSYNC_WRITE && !cut->ignore_syncs);
        uint64_t w_end = r->offset + r->size;
        if (!durable && chance(rng) >= cut->keep) {
            stats->volatile_lost++;
            /* Its size may have reached the disk without its data. */
            if (w_end > *size && chance(rng) < 0.5 && !reserve(buf, cap, size, (size_t)w_end)) return false;
            continue;
        }
        if (!reserve(buf, cap, size, (size_t)w_end)) return false;
        if (durable) {
            stats->durable++;
        } else {
            stats->volatile_kept++;
        }
        if (!durable && chance(rng) < cut->tear) {
            stats->torn++;
            /* Some of its sectors: each whole or not at all. */
            uint64_t s = r->offset;
            while (s < w_end) {
                uint64_t next = (s / SECTOR + 1) * SECTOR;
                if (next > w_end) next = w_end;
                if (chance(rng) < 0.5) memcpy(*buf + s, r->data + (s - r->offset), (size_t)(next - s));
                s = next;
            }
        } else {
            memcpy(*buf + r->offset, r->data, r->size);
        }
    }
    return true;
}
