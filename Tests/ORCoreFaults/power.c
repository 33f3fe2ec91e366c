/*
 * power.c — power loss: `orcore_faults power`.
 *
 *   orcore_faults power --shim LIB [--cycles C] [--cuts K] [--commits N] [--seed S]
 *                       [--durability full|no-meta-sync|both] [--log kept|lean|none|all]
 *                       [--self-test ignore-syncs]
 *
 * Each cycle runs the writer under the shim on a new file with a journal: N
 * transactions, every write and sync of the file recorded with the writer's
 * marks between them (OPENED, BEGIN seq digest, DONE seq). Then K cuts, each
 * at a random record (half of them next to a sync or an O_DSYNC write, where
 * the interesting orderings are): the file a disk could hold after a power
 * cut there is rebuilt (power.h: every write before the last completed sync,
 * every completed O_DSYNC write, a random subset of the others, some torn at
 * 512-byte sectors), written to a scratch path and checked:
 *
 *  - the file must open (with ORC_ENV_VERIFY) once the open that created it
 *    was durable — with full durability once orc_env_open returned before the
 *    cut, with no-meta-sync once a sync followed it; before that it may also
 *    be refused, but only with ORC_ERR_NOT_A_REALM or ORC_ERR_CORRUPT;
 *  - every transaction reported done must be there: with full durability
 *    every DONE before the cut (LMDB wrote its meta page through the O_DSYNC
 *    descriptor before orc_txn_commit returned); with no-meta-sync every DONE
 *    before the last sync (the meta page of a commit is synced by the next
 *    commit's fdatasync, so the last commits may be lost);
 *  - nothing past the last BEGIN before the cut, every Commit with the digest
 *    of its BEGIN, the file whole (no partial transaction), orc_env_check
 *    clean, and one more transaction works (fx_check_file).
 *
 * --self-test ignore-syncs builds images as if the disk ignored every sync
 * (and O_DSYNC): with full durability a reported commit must then be lost or
 * the file unreadable, and the run passes only if the checks catch it.
 */
#include "faults.h"
#include "power.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct power_tally {
    size_t cycles, records, writes, dsync_writes, syncs;
    size_t images, opened, refused_before_durable, torn, volatile_kept, volatile_lost;
    size_t commits_required;    /* reported commits each image had to hold, summed */
    size_t commits_lost_allowed; /* reported commits an image lacked where the mode allows it */
    uint64_t most_lost;          /* the most an image lacked */
    size_t in_flight_found;     /* images holding a transaction begun but not reported done */
    size_t findings, lost;
} power_tally;

static bool write_file(const char *path, const uint8_t *buf, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(buf, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* A cut point: half uniform, half next to a sync or an O_DSYNC write. */
static size_t pick_cut(const pw_journal *j, uint64_t *rng)
{
    if (fw_rand(rng) % 2 == 0 || j->syncs + j->dsync_writes == 0) return (size_t)(fw_rand(rng) % (j->count + 1));
    size_t want = (size_t)(fw_rand(rng) % (j->syncs + j->dsync_writes)), seen = 0;
    for (size_t i = 0; i < j->count; i++) {
        uint32_t k = j->recs[i].kind;
        if (k != FAULTFS_REC_SYNC && k != FAULTFS_REC_DSYNC_WRITE) continue;
        if (seen++ == want) return i + (size_t)(fw_rand(rng) % 2); /* just before it completed, or just after */
    }
    return j->count;
}

/* Checks one cut of one cycle's journal. */
static void check_cut(power_tally *t, const pw_journal *j, const pw_cut *cut, const pw_image_stats *is,
                      const char *image, unsigned flags, const char *label)
{
    /* What the writer had said before the cut, and before the last sync. */
    fx_report r;
    memset(&r, 0, sizeof r);
    r.digest = calloc(FX_MAX_SEQ + 2, sizeof *r.digest);
    if (!r.digest) abort();
    long opened_at = -1;
    uint64_t done_before_sync = 0;
    for (size_t i = 0; i < cut->cut && i < j->count; i++) {
        const pw_rec *rec = &j->recs[i];
        if (rec->kind != FAULTFS_REC_MARK) continue;
        if (rec->size == FAULTFS_MARK_OPENED && opened_at < 0) opened_at = (long)i;
        if (rec->size == FAULTFS_MARK_BEGIN && rec->offset <= FX_MAX_SEQ) {
            r.digest[rec->offset] = rec->value;
            if (rec->offset > r.last_begun) r.last_begun = rec->offset;
        }
        if (rec->size == FAULTFS_MARK_DONE) {
            r.last_done = rec->offset;
            if ((long)i < is->last_sync) done_before_sync = rec->offset;
        }
    }
    bool meta_synced = !(flags & ORC_ENV_NO_META_SYNC);
    uint64_t must = meta_synced ? r.last_done : done_before_sync;
    bool must_open = opened_at >= 0 && (meta_synced || opened_at < is->last_sync);

    orc_env *env;
    int rc = orc_env_open(image, ORC_ENV_VERIFY, NULL, &env);
    if (rc) {
        if (must_open) {
            fx_finding(&t->findings, "%s: the file does not open: %s", label, orc_last_error());
        } else if (rc == ORC_ERR_NOT_A_REALM || rc == ORC_ERR_CORRUPT) {
            t->refused_before_durable++;
        } else {
            fx_finding(&t->findings, "%s: a file not yet durable was refused with %s, not NOT_A_REALM or CORRUPT: %s", label,
                     fx_status_name(rc), orc_last_error());
        }
        free(r.digest);
        return;
    }
    orc_env_close(env);
    t->opened++;
    char why[1024];
    uint64_t seq = 0;
    if (!fx_check_file(image, flags, &r, must, r.last_begun, &seq, why, sizeof why)) {
        fx_finding(&t->findings, "%s: %s", label, why);
        if (strncmp(why, "lost", 4) == 0) t->lost++;
    } else {
        t->commits_required += must;
        if (seq < r.last_done) t->commits_lost_allowed += r.last_done - seq;
        if (seq < r.last_done && r.last_done - seq > t->most_lost) t->most_lost = r.last_done - seq;
        if (seq > r.last_done) t->in_flight_found++;
    }
    free(r.digest);
}

int fx_power_main(int argc, char **argv)
{
    const char *shim = fx_opt_required(argc, argv, "power", "shim", "LIB (the faultfs library)");
    uint64_t cycles = fx_opt_u64(argc, argv, "cycles", 2);
    uint64_t cuts = fx_opt_u64(argc, argv, "cuts", 100);
    uint64_t commits = fx_opt_u64(argc, argv, "commits", 30);
    uint64_t seed = fx_opt_u64(argc, argv, "seed", 1);
    const char *durability = fx_opt(argc, argv, "durability", "both");
    const char *log_mode = fx_opt(argc, argv, "log", "all");
    unsigned flags, logf;
    if (!fx_durability_flags(durability, 0, &flags)) {
        fprintf(stderr, "orcore_faults power: --durability is full, no-meta-sync or both, not '%s'\n", durability);
        return 2;
    }
    if (!fx_log_flags(log_mode, 0, &logf)) {
        fprintf(stderr, "orcore_faults power: --log is kept, lean, none or all, not '%s'\n", log_mode);
        return 2;
    }
    bool ignore_syncs = fx_self_test(argc, argv, "power", "ignore-syncs");
    if (ignore_syncs) durability = "full";
    double t0 = fx_now();
    char *dir = fx_make_dir(argc, argv, "orc-power");
    char path[4096], journal[4096], image[4096], fenv[4200], jenv[4200], seedbuf[32], commitsbuf[32], buf[128];
    snprintf(commitsbuf, sizeof commitsbuf, "%llu", (unsigned long long)commits);
    snprintf(image, sizeof image, "%s/image.realm", dir);
    uint64_t rng = seed * 0x9E3779B97F4A7C15ULL + 3;
    power_tally t = {0};
    uint8_t *img = NULL;
    size_t img_cap = 0;

    for (uint64_t cycle = 0; cycle < cycles; cycle++) {
        fx_durability_flags(durability, cycle, &flags);
        fx_log_flags(log_mode, cycle / 2, &logf);
        snprintf(path, sizeof path, "%s/cycle%llu.realm", dir, (unsigned long long)cycle);
        snprintf(journal, sizeof journal, "%s/cycle%llu.journal", dir, (unsigned long long)cycle);
        snprintf(fenv, sizeof fenv, FAULTFS_ENV_FILE "=%s", path);
        snprintf(jenv, sizeof jenv, FAULTFS_ENV_JOURNAL "=%s", journal);
        snprintf(seedbuf, sizeof seedbuf, "%llu", (unsigned long long)(seed * 1000 + cycle));
        char *env[] = {fenv, jenv, NULL};
        char *args[8] = {path, "--seed", seedbuf, "--commits", commitsbuf, NULL, NULL, NULL};
        int n = 5;
        if (flags) args[n++] = "--no-meta-sync";
        if (fx_log_arg(logf)) args[n++] = (char *)fx_log_arg(logf);
        fx_child c;
        fx_report r;
        if (fx_run_writer(shim, env, args, 120, &c) != 0 || c.timed_out || !WIFEXITED(c.status) ||
            WEXITSTATUS(c.status) != 0 || !fx_report_parse(c.out, c.len, &r) || r.last_done != commits) {
            fprintf(stderr, "orcore_faults power: the writer of cycle %llu failed (%s): %.400s\n",
                    (unsigned long long)cycle, fx_child_describe(&c, buf, sizeof buf), c.out ? c.out : "");
            return 1;
        }
        fx_report_free(&r);
        fx_child_free(&c);
        pw_journal j;
        if (!pw_journal_load(journal, &j)) {
            fprintf(stderr, "orcore_faults power: cannot read the journal '%s': %s\n", journal, strerror(errno));
            return 1;
        }
        if (j.syncs == 0 || j.writes == 0 || (!flags && j.dsync_writes == 0)) {
            fprintf(stderr, "orcore_faults power: the journal of cycle %llu has %zu writes, %zu O_DSYNC writes and "
                            "%zu syncs: the shim did not see the file's I/O\n",
                    (unsigned long long)cycle, j.writes, j.dsync_writes, j.syncs);
            return 1;
        }
        t.cycles++;
        t.records += j.count;
        t.writes += j.writes;
        t.dsync_writes += j.dsync_writes;
        t.syncs += j.syncs;
        for (uint64_t k = 0; k < cuts; k++) {
            static const double keeps[] = {0.0, 0.3, 0.7, 1.0};
            pw_cut cut = {pick_cut(&j, &rng), keeps[fw_rand(&rng) % 4], fw_rand(&rng) % 3 ? 0.25 : 0.0, ignore_syncs};
            pw_image_stats is;
            size_t size;
            if (!pw_image_build(&j, &cut, &rng, &img, &img_cap, &size, &is)) {
                fprintf(stderr, "orcore_faults power: out of memory building an image\n");
                return 1;
            }
            orc_env_delete_files(image);
            if (!write_file(image, img, size)) {
                fprintf(stderr, "orcore_faults power: cannot write '%s': %s\n", image, strerror(errno));
                return 1;
            }
            t.images++;
            t.torn += is.torn;
            t.volatile_kept += is.volatile_kept;
            t.volatile_lost += is.volatile_lost;
            char label[200];
            snprintf(label, sizeof label, "cycle %llu (%s), cut at record %zu of %zu (keep %.1f, tear %.2f)",
                     (unsigned long long)cycle, flags ? "no-meta-sync" : "full durability", cut.cut, j.count,
                     cut.keep, cut.tear);
            check_cut(&t, &j, &cut, &is, image, flags, label);
        }
        pw_journal_free(&j);
        orc_env_delete_files(path);
        unlink(journal);
    }
    orc_env_delete_files(image);
    free(img);
    printf("power (%s, log %s): %zu cycles of %llu transactions; %zu journal records (%zu writes, %zu O_DSYNC writes, "
           "%zu syncs); %zu power cuts checked: %zu opened, %zu refused before the file was durable; "
           "%zu volatile writes kept (%zu torn), %zu lost; %zu reported commits required and present; "
           "%zu reported commits lost where the mode allows it (at most %llu in one image); %zu images held a transaction not yet reported; "
           "%zu findings; %.1f s\n",
           durability, log_mode, t.cycles, (unsigned long long)commits, t.records, t.writes, t.dsync_writes, t.syncs, t.images,
           t.opened, t.refused_before_durable, t.volatile_kept, t.torn, t.volatile_lost, t.commits_required,
           t.commits_lost_allowed, (unsigned long long)t.most_lost, t.in_flight_found, t.findings, fx_now() - t0);
    remove_tree(dir);
    free(dir);
    if (ignore_syncs) {
        printf("self-test ignore-syncs: %zu findings, %zu of them lost commits (at least one finding needed)\n",
               t.findings, t.lost);
        return t.findings > 0 ? 0 : 1;
    }
    return t.findings ? 1 : 0;
}
