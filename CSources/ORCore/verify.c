/*
 * verify.c — checks an LMDB data file's structure before LMDB maps it (reading,
 * the meta pages, one pass, repair; verify_tree.c walks the trees for the deep check).
 *
 * WHY
 * LMDB 0.9.24 trusts every byte of its file: a page past the end of a
 * truncated file is a SIGBUS inside the map, a damaged node offset is a wild
 * read, a branch page pointing at its parent is an endless descent, a
 * P_DIRTY bit on a clean page makes a write transaction scribble on the
 * read-only map. So before mdb_env_open ever sees a file, ORCore reads it with
 * pread (never mmap: a short file must not fault) and checks it here.
 *
 * WHAT IS CHECKED
 *  shallow (every open; a few small preads):
 *   1. Both meta pages carry P_META, the magic, data version 1, their own
 *      page number and one sane page size (a power of two, 512 ... 32768).
 *      LMDB 0.9 refuses a file when either meta page fails this.
 *      Meta page 1 lies at meta page 0's page size; when it is not there
 *      but is found at another page size, meta page 0's page size is the
 *      damaged field (meta0_psize_contradicted).
 *   2. The meta LMDB will use is sane: LMDB picks the higher txnid, but its
 *      transactions then read meta slot (txnid & 1), so that slot must hold
 *      that txnid; last_pg is possible; both database records (free, main)
 *      are consistent (empty, or a root in 2 ... last_pg with plausible
 *      depth and page counts) and carry flags LMDB writes (check_meta_flags:
 *      a free database marked MDB_DUPFIXED makes LMDB overflow a page on
 *      the next commit).
 *   3. The file holds every page that meta can reach: size >= (last_pg + 1)
 *      pages, or else every page past the end is listed in the free database
 *      (LMDB never writes pages that were allocated and freed in the same
 *      transaction, so a valid file may end early; mdb_env_copy allows for it).
 *   4. The root pages of the main and free databases have sane headers.
 *  deep (ORC_ENV_VERIFY): every page reachable from that meta — the main
 *   database, every named database (F_SUBDATA records in the main database's
 *   leaves) and the free database:
 *   5. each page is visited once (a bitmap over last_pg + 1 pages catches
 *      cycles and pages shared between trees), lies in 2 ... last_pg and in
 *      the file, is labelled with its own number and has exactly the expected
 *      flags (branch above the record's depth, leaf at it, overflow);
 *   6. node offsets lie in the node area and the nodes tile it exactly (LMDB
 *      keeps them packed from `upper` to the page end); keys are at most 511
 *      bytes and ascend within a page and within the bounds set by the branch
 *      keys above; leaf flags are F_BIGDATA or F_SUBDATA (main database only),
 *      never F_DUPDATA (ORCore uses no MDB_DUPSORT database);
 *   7. overflow runs are long enough for their value and end by last_pg;
 *   8. branch, leaf and overflow page counts and entry counts equal the
 *      database record's;
 *   9. free-list records list pages in 2 ... last_pg, in descending order,
 *      none twice and none in use.
 *  Leaked pages (neither in use nor free) are harmless and not reported.
 *
 * WHICH ERROR
 *   ORC_ERR_NOT_A_REALM: not an LMDB file at all (text, SQLite, zeros, random
 *   bytes, another LMDB data version, a 32-bit or big-endian LMDB build).
 *   ORC_ERR_CORRUPT: an LMDB file that is damaged or truncated; the message
 *   names the page and what is wrong. A zero-length file is a new realm (OK).
 *
 * CONCURRENCY
 * Another process may be committing while we read (we hold no LMDB lock).
 * A committed snapshot's pages are only overwritten after a newer commit, and
 * a commit always rewrites a meta page, so when a check fails we re-read the
 * meta pages: if they changed, the failure may be an artefact and we start
 * over (a few times).
 *
 * REPAIR
 * LMDB 0.9 refuses a file with one unreadable meta page and blindly uses a
 * newer one whose fields are wrong. When `fd` is writable (env.c opens it
 * O_RDWR for writable handles) and only one meta page is damaged while the
 * other passes every shallow check, verify_pages rewrites the damaged one
 * from the intact one, so the realm opens at the intact meta's commit (the
 * previous commit when the newer meta was lost: its data was unreachable
 * anyway). It never repairs truncation or damaged data pages, and only while
 * no other process has the environment open. A read-only descriptor gets
 * ORC_ERR_CORRUPT instead.
 *
 * BYTE LAYOUTS (a 64-bit build of LMDB 0.9: pgno_t, txnid_t and size_t are
 * 8 bytes; fields are in host byte order)
 *
 *   page header, 16 bytes
 *     0   8  pgno      the page's own number
 *     8   2  pad       key size of LEAF2 pages (unused here)
 *     10  2  flags     0x01 branch, 0x02 leaf, 0x04 overflow, 0x08 meta,
 *                      0x10 dirty, 0x20 leaf2, 0x40 sub-page (dirty and the
 *                      in-memory bits 0x4000, 0x8000 are never written)
 *     12  2  lower     branch / leaf: end of the offset array
 *     14  2  upper     branch / leaf: start of the node area
 *     12  4  pages     overflow: length of the run in pages
 *     16     u16 node offsets[(lower - 16) / 2], in key order
 *
 *   meta page: page header, then MDB_meta
 *     16  4  magic 0xBEEFC0DE      20  4  data version (1)
 *     24  8  fixed map address     32  8  map size
 *     40  48 free database record (its pad field is the page size)
 *     88  48 main database record
 *     136 8  last_pg               144 8  txnid
 *
 *   database record (MDB_db), 48 bytes
 *     0 4 pad | 4 2 flags | 6 2 depth | 8 8 branch pages | 16 8 leaf pages |
 *     24 8 overflow pages | 32 8 entries | 40 8 root (~0: empty)
 *
 *   node, 8-byte header, 2-byte aligned
 *     0 2 lo | 2 2 hi | 4 2 flags | 6 2 ksize | 8 key | 8 + ksize data
 *     branch: child page = lo | hi << 16 | flags << 32, no data
 *     leaf:   data size = lo | hi << 16; F_BIGDATA 0x01: data is the 8-byte
 *             number of an overflow run holding the value; F_SUBDATA 0x02:
 *             data is a named database's 48-byte record; F_DUPDATA 0x04
 *
 *   free database: key = 8-byte txnid; value = u64 n, then n page numbers in
 *   descending order (space after them may be unused).
 */
#include "verify_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int verify_bad(verifier *v, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->why, sizeof v->why, fmt, ap);
    va_end(ap);
    return code;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */
/* ------------------------------------------------------------------------ */

/* Reads up to n bytes at off; *got is short only at the end of the file. Returns 0 or errno. */
static int read_full(int fd, uint64_t off, void *buf, size_t n, size_t *got)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, (uint8_t *)buf + done, n - done, (off_t)(off + done));
        if (r < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (r == 0) break;
        done += (size_t)r;
    }
    *got = done;
    return 0;
}

static uint64_t bytes_needed(const verifier *v) { return (v->last_pg + 1) * v->psize; }

int verify_truncated(verifier *v, const char *db, const char *what, uint64_t pgno)
{
    return verify_bad(v, ORC_ERR_CORRUPT,
               "truncated: file has %llu bytes, the database needs %llu (database '%s': %s page %llu lies past the end)",
               (ull)v->fsize, (ull)bytes_needed(v), db, what, (ull)pgno);
}

/* Reads n bytes of page pgno (starting at byte `skip` of the page). */
int verify_read_page(verifier *v, const char *db, const char *what, uint64_t pgno, size_t skip, void *buf, size_t n)
{
    uint64_t off = pgno * v->psize + skip;
    if (off + n > v->fsize) return verify_truncated(v, db, what, pgno);
    size_t got = 0;
    int e = read_full(v->fd, off, buf, n, &got);
    if (e) return verify_bad(v, e, "reading page %llu: %s", (ull)pgno, strerror(e));
    if (got < n) return verify_truncated(v, db, what, pgno);
    return ORC_OK;
}

void verify_parse_dbrec(const uint8_t *p, dbrec *d)
{
    d->pad = ld32(p);
    d->flags = ld16(p + 4);
    d->depth = ld16(p + 6);
    d->branch = ld64(p + 8);
    d->leaf = ld64(p + 16);
    d->overflow = ld64(p + 24);
    d->entries = ld64(p + 32);
    d->root = ld64(p + 40);
}

/* Reads the meta page of `slot` at `off` and checks what LMDB checks before using it. */
static int meta_read(verifier *v, meta *m, unsigned slot, uint64_t off, uint32_t want_psize)
{
    memset(m, 0, sizeof *m);
    m->offset = off;
    int e = read_full(v->fd, off, m->raw, META_END, &m->got);
    if (e) return verify_bad(v, e, "reading meta page %u: %s", slot, strerror(e));
    if (m->got < META_END) {
        snprintf(m->why, sizeof m->why, "the file ends %zu bytes into it", m->got);
        return ORC_OK;
    }
    const uint8_t *r = m->raw;
    m->pgno = ld64(r);
    m->pflags = ld16(r + 10);
    m->magic = ld32(r + 16);
    m->version = ld32(r + 20);
    verify_parse_dbrec(r + 40, &m->dbs[0]);
    verify_parse_dbrec(r + 88, &m->dbs[1]);
    m->psize = m->dbs[0].pad;
    m->last_pg = ld64(r + 136);
    m->txnid = ld64(r + 144);
    if (!(m->pflags & P_META))
        snprintf(m->why, sizeof m->why, "it is not a meta page (flags 0x%x)", m->pflags);
    else if (m->magic != LMDB_MAGIC)
        snprintf(m->why, sizeof m->why, "its magic is 0x%08x, not 0x%08x", m->magic, LMDB_MAGIC);
    else if (m->version != LMDB_DATA_VERSION)
        snprintf(m->why, sizeof m->why, "its data version is %u, not %u", m->version, LMDB_DATA_VERSION);
    else if (!psize_sane(m->psize))
        snprintf(m->why, sizeof m->why, "its page size %u is not a power of two in %u ... %u", m->psize, MIN_PSIZE,
                 MAX_PSIZE);
    else if (want_psize && m->psize != want_psize)
        snprintf(m->why, sizeof m->why, "its page size %u differs from meta page 0's %u", m->psize, want_psize);
    else if (m->pgno != slot)
        snprintf(m->why, sizeof m->why, "it is labelled page %llu", (ull)m->pgno);
    else
        m->hdr_ok = true;
    return ORC_OK;
}

/* ------------------------------------------------------------------------ */
/* Foreign files                                                            */
/* ------------------------------------------------------------------------ */

/* Whether some page 2 ... 9 has a valid branch, leaf or overflow header for a plausible page size. */
static bool looks_like_lmdb_pages(verifier *v, uint64_t *pgno_out, uint32_t *psize_out)
{
    static const uint32_t sizes[] = {4096, 512, 1024, 2048, 8192, 16384, 32768};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t ps = sizes[s];
        uint64_t pages = v->fsize / ps;
        for (uint64_t pg = NUM_METAS; pg < pages && pg < 10; pg++) {
            uint8_t h[PAGEHDRSZ];
            size_t got = 0;
            if (read_full(v->fd, pg * ps, h, sizeof h, &got) || got < sizeof h) break;
            uint16_t fl = ld16(h + 10), lo = ld16(h + 12), up = ld16(h + 14);
            bool node_page = (fl == P_BRANCH || fl == P_LEAF) && lo >= PAGEHDRSZ && lo <= up && up <= ps;
            if (ld64(h) == pg && (node_page || fl == P_OVERFLOW)) {
                *pgno_out = pg;
                *psize_out = ps;
                return true;
            }
        }
    }
    return false;
}

/* Printable ASCII, whitespace and well-formed UTF-8 (a sequence cut by the end of the sample counts). */
static bool looks_like_text(const uint8_t *p, size_t n)
{
    if (n == 0) return false;
    for (size_t i = 0; i < n;) {
        uint8_t c = p[i];
        if (c < 0x80) {
            if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') return false;
            if (c == 0x7f) return false;
            i++;
            continue;
        }
        size_t len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (len == 0 || c == 0xc0 || c == 0xc1) return false;
        for (size_t j = 1; j < len; j++)
            if (i + j < n && (p[i + j] & 0xc0) != 0x80) return false;
        i += len;
    }
    return true;
}

/* Neither meta page is usable: says whether this is a damaged LMDB file or something else. */
static int classify(verifier *v, const meta *m0)
{
    const uint8_t *r = m0->raw;
    size_t got = m0->got;
    if (got >= 20 && ld32(r + 16) == LMDB_MAGIC) {
        if (got >= 24 && ld32(r + 20) != LMDB_DATA_VERSION && (ld16(r + 10) & P_META))
            return verify_bad(v, ORC_ERR_NOT_A_REALM, "an LMDB file of data version %u; this build reads version %u",
                       ld32(r + 20), LMDB_DATA_VERSION);
        if (got < META_END)
            return verify_bad(v, ORC_ERR_CORRUPT, "truncated: file has %llu bytes, shorter than one LMDB meta page",
                       (ull)v->fsize);
        return verify_bad(v, ORC_ERR_CORRUPT, "meta page 0 is damaged (%s) and no intact meta page 1 was found", m0->why);
    }
    if (got >= 20 && ld32(r + 16) == __builtin_bswap32(LMDB_MAGIC))
        return verify_bad(v, ORC_ERR_NOT_A_REALM, "an LMDB file of the other byte order");
    if (got >= 16 && ld32(r + 12) == LMDB_MAGIC)
        return verify_bad(v, ORC_ERR_NOT_A_REALM, "an LMDB file written by a 32-bit build");
    uint64_t pg;
    uint32_t ps;
    if (looks_like_lmdb_pages(v, &pg, &ps))
        return verify_bad(v, ORC_ERR_CORRUPT,
                   "both meta pages are damaged (meta page 0: %s), but page %llu is an LMDB page of size %u",
                   m0->why, (ull)pg, ps);

    uint8_t buf[4096];
    size_t n = 0;
    int e = read_full(v->fd, 0, buf, sizeof buf, &n);
    if (e) return verify_bad(v, e, "reading the file: %s", strerror(e));
    if (n >= 16 && memcmp(buf, "SQLite format 3", 16) == 0)
        return verify_bad(v, ORC_ERR_NOT_A_REALM, "a SQLite database, not a realm");
    /* Zeros: scan the whole file (a bounded prefix for big files). */
    uint64_t zeros = 0, limit = v->fsize < ((uint64_t)1 << 24) ? v->fsize : ((uint64_t)1 << 24);
    while (zeros < limit) {
        size_t want = limit - zeros < sizeof buf ? (size_t)(limit - zeros) : sizeof buf;
        if ((e = read_full(v->fd, zeros, buf, want, &n))) return verify_bad(v, e, "reading the file: %s", strerror(e));
        size_t i = 0;
        while (i < n && buf[i] == 0) i++;
        zeros += i;
        if (i < n || n < want) break;
    }
    if (zeros >= v->fsize) return verify_bad(v, ORC_ERR_NOT_A_REALM, "not a realm: it holds only zero bytes");
    if (zeros == limit) return verify_bad(v, ORC_ERR_NOT_A_REALM, "not a realm: it starts with %llu zero bytes", (ull)zeros);

    if ((e = read_full(v->fd, 0, buf, 512, &n))) return verify_bad(v, e, "reading the file: %s", strerror(e));
    if (looks_like_text(buf, n)) return verify_bad(v, ORC_ERR_NOT_A_REALM, "a text file, not a realm");
    return verify_bad(v, ORC_ERR_NOT_A_REALM, "not an LMDB file (it starts with %02x %02x %02x %02x %02x %02x %02x %02x)",
               n > 0 ? buf[0] : 0, n > 1 ? buf[1] : 0, n > 2 ? buf[2] : 0, n > 3 ? buf[3] : 0, n > 4 ? buf[4] : 0,
               n > 5 ? buf[5] : 0, n > 6 ? buf[6] : 0, n > 7 ? buf[7] : 0);
}

/* ------------------------------------------------------------------------ */
/* The meta LMDB will use                                                   */
/* ------------------------------------------------------------------------ */

/*
 * The flags of the two database records in a meta page. LMDB writes the free
 * database's once, when it creates the file: MDB_INTEGERKEY and the low bits
 * of the environment's flags (MDB_FIXEDMAP, MDB_NOSUBDIR; every other
 * environment flag lies above 0xffff), and copies them forward unchanged. A
 * key-layout flag there is damage LMDB acts on: with MDB_DUPFIXED (and no
 * MDB_DUPSORT) the next commit that finds the free database empty gives it a
 * LEAF2 root and copies each txnid key as a fixed-size key of the record's
 * `pad` bytes — the page size — overflowing the page. The main database takes
 * the flags a program opened it with; ORCore opens it with none, and
 * MDB_DUPFIXED without MDB_DUPSORT, which LMDB never accepts from a correct
 * caller, leads to the same overflow when it is empty and ORCore adds its
 * first named database.
 */
#define FREE_DB_FLAGS (MDB_INTEGERKEY | MDB_FIXEDMAP | MDB_NOSUBDIR)
#define MAIN_DB_FLAGS (MDB_REVERSEKEY | DUP_FLAGS | MDB_INTEGERKEY)

static int check_meta_flags(verifier *v, const meta *m)
{
    unsigned ff = m->dbs[0].flags, mf = m->dbs[1].flags;
    if ((ff & ~FREE_DB_FLAGS) || !(ff & MDB_INTEGERKEY))
        return verify_bad(v, ORC_ERR_CORRUPT,
                   "its free database has flags 0x%x (LMDB writes 0x%x, with 0x%x and 0x%x for the environment's "
                   "options)",
                   ff, MDB_INTEGERKEY, MDB_FIXEDMAP, MDB_NOSUBDIR);
    if ((mf & ~MAIN_DB_FLAGS) || (mf & (MDB_DUPFIXED | MDB_DUPSORT)) == MDB_DUPFIXED)
        return verify_bad(v, ORC_ERR_CORRUPT, "its main database has flags 0x%x (an unknown flag, or 0x%x without 0x%x)", mf,
                   MDB_DUPFIXED, MDB_DUPSORT);
    return ORC_OK;
}

/* Damage inside the meta page itself: fields no valid commit writes. */
static int check_meta_fields(verifier *v, const meta *m)
{
    v->psize = m->psize;
    v->last_pg = m->last_pg;
    v->txnid = m->txnid;
    v->file_pages = v->fsize / m->psize;
    if (m->last_pg < NUM_METAS - 1 || m->last_pg >= (((uint64_t)1 << 50) / m->psize))
        return verify_bad(v, ORC_ERR_CORRUPT, "it records an impossible last page %llu", (ull)m->last_pg);
    int rc = check_meta_flags(v, m);
    if (!rc) rc = verify_check_dbrec(v, "free", &m->dbs[0]);
    if (!rc) rc = verify_check_dbrec(v, "main", &m->dbs[1]);
    return rc;
}

/* A file shorter than last_pg + 1 pages: every page past its end must be free. */
static int check_trailing_free(verifier *v, const meta *m)
{
    uint64_t missing = v->last_pg + 1 - v->file_pages;
    if (missing > v->fsize / 8 || m->dbs[0].root == PGNO_NONE)
        return verify_bad(v, ORC_ERR_CORRUPT, "truncated: file has %llu bytes, the database needs %llu", (ull)v->fsize,
                   (ull)bytes_needed(v));
    int rc = verify_alloc_maps(v);
    if (rc) return rc;
    tree ft = {.name = "free", .kind = TREE_FREE, .order = ORDER_INTEGER, .db = m->dbs[0]};
    if ((rc = verify_walk_tree(v, &ft))) return rc;
    for (uint64_t p = v->file_pages; p <= v->last_pg; p++)
        if (!bit_get(v->freed, p))
            return verify_bad(v, ORC_ERR_CORRUPT, "truncated: file has %llu bytes, the database needs %llu (page %llu is not free)",
                       (ull)v->fsize, (ull)bytes_needed(v), (ull)p);
    return ORC_OK;
}

static int check_root(verifier *v, const char *db, const dbrec *d)
{
    if (d->root == PGNO_NONE) return ORC_OK;
    if (!v->level[0] && !(v->level[0] = malloc(v->psize))) return verify_bad(v, ORC_ERR_NOMEM, "allocating a page buffer");
    unsigned want = d->depth == 1 ? P_LEAF : P_BRANCH, n;
    int rc = verify_read_page(v, db, "root", d->root, 0, v->level[0], v->psize);
    if (!rc) rc = verify_check_node_page(v, db, v->level[0], d->root, want, false, &n);
    return rc;
}

/* What the file must hold for the meta: its size and the root pages. */
static int check_meta_file(verifier *v, const meta *m)
{
    int rc = ORC_OK;
    if (v->fsize < bytes_needed(v)) rc = check_trailing_free(v, m);
    if (!rc) rc = check_root(v, "main", &m->dbs[1]);
    if (!rc) rc = check_root(v, "free", &m->dbs[0]);
    return rc;
}

/* Every tree reachable from the meta. */
static int deep_walk(verifier *v, const meta *m)
{
    int rc = verify_alloc_maps(v);
    if (rc) return rc;
    tree mt = {.name = "main", .kind = TREE_MAIN, .order = verify_order_of(m->dbs[1].flags), .db = m->dbs[1]};
    if ((rc = verify_walk_tree(v, &mt))) return rc;
    for (size_t i = 0; i < v->nsubs; i++) {
        subdb *s = &v->subs[i];
        if (s->db.flags & DUP_FLAGS)
            return verify_bad(v, ORC_ERR_CORRUPT, "database '%s' has duplicate-key flags 0x%x, which ORCore never uses",
                       s->name, s->db.flags);
        if (s->db.flags & ~(MDB_REVERSEKEY | MDB_INTEGERKEY))
            return verify_bad(v, ORC_ERR_CORRUPT, "database '%s' has unknown flags 0x%x", s->name, s->db.flags);
        if ((rc = verify_check_dbrec(v, s->name, &s->db))) return rc;
        tree nt = {.name = s->name, .kind = TREE_NAMED, .order = verify_order_of(s->db.flags), .db = s->db};
        if ((rc = verify_walk_tree(v, &nt))) return rc;
    }
    tree ft = {.name = "free", .kind = TREE_FREE, .order = ORDER_INTEGER, .db = m->dbs[0]};
    if ((rc = verify_walk_tree(v, &ft))) return rc;
    for (uint64_t p = NUM_METAS; p <= v->last_pg; p++)
        if (bit_get(v->used, p) && bit_get(v->freed, p))
            return verify_bad(v, ORC_ERR_CORRUPT, "page %llu is in use and also listed in the free database", (ull)p);
    return ORC_OK;
}

/* ------------------------------------------------------------------------ */
/* One pass                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * Meta page 0 passed, but no meta page 1 lies where its page size puts it.
 * When a meta page 1 with another page size is found at its own offset, meta
 * page 0's page size is what is damaged: a page of the real size there would
 * be a data page, which never carries P_META and the magic. Meta page 0 is
 * then the damaged one (and may be rewritten from meta page 1); trusting its
 * page size instead would rewrite a data page as meta page 1.
 */
static int meta0_psize_contradicted(verifier *v, meta m[2])
{
    for (uint32_t ps = MIN_PSIZE; ps <= MAX_PSIZE; ps *= 2) {
        if (ps == m[0].psize) continue;
        if (ps + (uint64_t)META_END > v->fsize) break;
        meta probe;
        int rc = meta_read(v, &probe, 1, ps, ps);
        if (rc) return rc;
        if (probe.hdr_ok) {
            snprintf(m[0].why, sizeof m[0].why, "its page size %u disagrees with meta page 1, found at byte %u", m[0].psize,
                     ps);
            m[0].hdr_ok = false; /* verify_once then finds meta page 1 as for any damaged meta page 0 */
            return ORC_OK;
        }
    }
    return ORC_OK;
}

/* Whether a meta passes every shallow check when used; on failure its reason is in v->why. */
static int meta_usable(verifier *v, const meta *m, bool *meta_damage)
{
    *meta_damage = true;
    int rc = check_meta_fields(v, m);
    if (rc) return rc;
    *meta_damage = false;
    return check_meta_file(v, m);
}

static int verify_once(verifier *v, meta m[2])
{
    struct stat st;
    if (fstat(v->fd, &st) != 0) return verify_bad(v, errno, "stat: %s", strerror(errno));
    v->fsize = (uint64_t)st.st_size;
    if (v->fsize == 0) return ORC_OK; /* a new file: LMDB writes the meta pages */

    int rc = meta_read(v, &m[0], 0, 0, 0);
    if (rc) return rc;
    if (m[0].hdr_ok) {
        if (v->fsize < 2 * (uint64_t)m[0].psize)
            return verify_bad(v, ORC_ERR_CORRUPT, "truncated: file has %llu bytes, shorter than its two %u-byte meta pages",
                       (ull)v->fsize, m[0].psize);
        if ((rc = meta_read(v, &m[1], 1, m[0].psize, m[0].psize))) return rc;
        if (!m[1].hdr_ok && (rc = meta0_psize_contradicted(v, m))) return rc;
    }
    if (!m[0].hdr_ok) {
        /* Meta page 0 cannot say where meta page 1 is: try every page size. */
        memset(&m[1], 0, sizeof m[1]);
        snprintf(m[1].why, sizeof m[1].why, "no meta page 1 was found");
        for (uint32_t ps = MIN_PSIZE; ps <= MAX_PSIZE; ps *= 2) {
            meta probe;
            if (ps + (uint64_t)META_END > v->fsize) break;
            if ((rc = meta_read(v, &probe, 1, ps, ps))) return rc;
            if (probe.hdr_ok) {
                m[1] = probe;
                break;
            }
        }
        if (!m[1].hdr_ok) return classify(v, &m[0]);
        if (v->fsize < 2 * (uint64_t)m[1].psize)
            return verify_bad(v, ORC_ERR_CORRUPT, "truncated: file has %llu bytes, shorter than its two %u-byte meta pages",
                       (ull)v->fsize, m[1].psize);
    }

    /* LMDB uses the higher txnid, and its transactions read slot (txnid & 1). */
    int eff = -1, other;
    const char *eff_why = NULL;
    char whybuf[512];
    if (!m[0].hdr_ok || !m[1].hdr_ok) {
        eff = m[0].hdr_ok ? 1 : 0; /* the damaged one */
        eff_why = m[eff].why;
    } else {
        uint64_t t = m[0].txnid > m[1].txnid ? m[0].txnid : m[1].txnid;
        if (m[t & 1].txnid != t) {
            eff = m[0].txnid > m[1].txnid ? 0 : 1;
            snprintf(whybuf, sizeof whybuf, "it has txnid %llu, which belongs in meta page %llu", (ull)t,
                     (ull)(t & 1));
            eff_why = whybuf;
        } else {
            eff = (int)(t & 1);
            bool meta_damage;
            rc = meta_usable(v, &m[eff], &meta_damage);
            if (rc == ORC_OK) return v->deep ? deep_walk(v, &m[eff]) : ORC_OK;
            if (rc != ORC_ERR_CORRUPT || !meta_damage) return rc; /* damage outside the meta page */
            snprintf(whybuf, sizeof whybuf, "%s", v->why);
            eff_why = whybuf;
        }
    }
    /* Meta page `eff` is damaged; is the other one usable instead? */
    other = 1 - eff;
    bool other_ok = false;
    char other_why[512] = "";
    if (m[other].hdr_ok && (m[other].txnid == 0 || (m[other].txnid & 1) == (uint64_t)other)) {
        bool meta_damage;
        other_ok = meta_usable(v, &m[other], &meta_damage) == ORC_OK;
        if (!other_ok) snprintf(other_why, sizeof other_why, "%s", v->why);
    } else {
        snprintf(other_why, sizeof other_why, "%s", m[other].hdr_ok ? "its txnid is in the wrong slot" : m[other].why);
    }
    if (other_ok) {
        v->repair_from = other;
        v->repair_to = eff;
        return verify_bad(v, ORC_ERR_CORRUPT, "meta page %d is damaged (%s); meta page %d (txnid %llu) is intact", eff,
                   eff_why, other, (ull)m[other].txnid);
    }
    return verify_bad(v, ORC_ERR_CORRUPT, "meta page %d is damaged (%s); meta page %d is damaged too (%s)", eff, eff_why,
               other, other_why);
}

/* Whether the meta pages or the size changed since `m` was read (another process committed). */
static bool file_moved(verifier *v, const meta m[2])
{
    struct stat st;
    if (fstat(v->fd, &st) != 0 || (uint64_t)st.st_size != v->fsize) return true;
    for (int i = 0; i < 2; i++) {
        if (!m[i].got) continue;
        uint8_t now[META_END];
        size_t got = 0;
        if (read_full(v->fd, m[i].offset, now, m[i].got, &got) || got != m[i].got) return true;
        if (memcmp(now, m[i].raw, got) != 0) return true;
    }
    return false;
}

/* Runs verify_once until it passes, or fails on a file that stayed still. */
static int verify_stable(int fd, bool deep, verifier *v, meta m[2])
{
    int rc = ORC_OK;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        verify_free(v); /* v is zeroed or from an earlier pass */
        memset(v, 0, sizeof *v);
        v->fd = fd;
        v->deep = deep;
        v->repair_from = v->repair_to = -1;
        memset(m, 0, 2 * sizeof *m);
        rc = verify_once(v, m);
        if (rc == ORC_OK) return ORC_OK;
        if ((rc != ORC_ERR_CORRUPT && rc != ORC_ERR_NOT_A_REALM) || !file_moved(v, m)) return rc;
        snprintf(v->why + strlen(v->why), sizeof v->why - strlen(v->why),
                 " (the file kept changing: another process is writing it)");
    }
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Repair                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * Copies the intact meta `m` over slot `to`, with its txnid one less (slot
 * parity then holds and LMDB keeps preferring the intact slot; 0 stays 0).
 */
static int write_meta_copy(verifier *v, int fd, const meta *m, int to)
{
    uint8_t *pg = calloc(1, m->psize);
    if (!pg) return verify_bad(v, ORC_ERR_NOMEM, "allocating a page");
    st64(pg, (uint64_t)to);
    st16(pg + 10, P_META);
    memcpy(pg + PAGEHDRSZ, m->raw + PAGEHDRSZ, META_END - PAGEHDRSZ);
    st64(pg + 144, m->txnid ? m->txnid - 1 : 0);
    size_t done = 0;
    int e = 0;
    while (done < m->psize && !e) {
        ssize_t w = pwrite(fd, pg + done, m->psize - done, (off_t)((uint64_t)to * m->psize + done));
        if (w > 0) done += (size_t)w;
        else if (w == 0 || errno != EINTR) e = w == 0 ? EIO : errno;
    }
    free(pg);
    if (!e && fdatasync(fd) != 0) e = errno;
    return e ? verify_bad(v, e, "rewriting meta page %d: %s", to, strerror(e)) : ORC_OK;
}

/*
 * Rewrites the damaged meta page while holding byte 0 of LMDB's lock file
 * exclusively: every process with the environment open holds it shared, so
 * nobody can be committing. An OFD lock, so that closing our descriptor
 * cannot drop a POSIX lock of this process. Returns ORC_OK (verify again),
 * ORC_ERR_BUSY (another process has the file open: nothing written) or an
 * I/O error.
 */
static int repair_meta(const char *path, int fd, verifier *v, meta m[2])
{
    char lock_path[4096];
    if (snprintf(lock_path, sizeof lock_path, "%s-lock", path) >= (int)sizeof lock_path) return ORC_ERR_BUSY;
    int lfd = open(lock_path, O_RDWR | O_CLOEXEC);
    if (lfd < 0 && errno != ENOENT) return ORC_ERR_BUSY;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
    if (lfd >= 0 && fcntl(lfd, F_OFD_SETLK, &fl) != 0) {
        close(lfd);
        return ORC_ERR_BUSY;
    }
    int rc = verify_stable(fd, false, v, m); /* again, now that nobody can commit */
    if (rc == ORC_ERR_CORRUPT && v->repair_from >= 0)
        rc = write_meta_copy(v, fd, &m[v->repair_from], v->repair_to);
    else
        rc = ORC_OK;
    if (lfd >= 0) close(lfd);
    return rc;
}

int verify_pages(const char *path, int fd, bool deep)
{
    verifier v = {0};
    meta m[2];
    int rc = verify_stable(fd, deep, &v, m);
    int acc = fcntl(fd, F_GETFL);
    if (rc == ORC_ERR_CORRUPT && v.repair_from >= 0 && acc >= 0 && (acc & O_ACCMODE) != O_RDONLY) {
        int r = repair_meta(path, fd, &v, m);
        if (r == ORC_OK) rc = verify_stable(fd, deep, &v, m);
        else if (r != ORC_ERR_BUSY) rc = r;
    }
    verify_free(&v);
    if (rc == ORC_OK) return ORC_OK;
    if (rc == ORC_ERR_NOT_A_REALM) return orc_fail(rc, "'%s' is %s", path, v.why);
    return orc_fail(rc, "'%s': %s", path, v.why);
}
