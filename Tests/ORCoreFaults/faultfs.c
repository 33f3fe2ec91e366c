/*
 * faultfs.c — an LD_PRELOAD shim that makes the realm file's writes and
 * syncs fail on demand and journals them (see faultfs.h for the contract).
 *
 * It interposes the libc calls LMDB 0.9.24 makes on its data file: open,
 * pwrite, write and writev after lseek (mdb_page_flush without
 * MDB_USE_PWRITEV), fdatasync (mdb_env_sync), and pwrite on the O_DSYNC meta
 * descriptor me_mfd (mdb_env_write_meta), plus their 64-bit and vectored
 * relatives so that another build is covered as well. The real functions are
 * found with dlsym(RTLD_NEXT).
 *
 * The journal gets a record after the real call returned, under one mutex, so
 * its order is the order in which the calls completed. It is written with the
 * real write(), never through stdio, so a process killed at any point leaves
 * every complete record behind (a torn last record is ignored by the reader).
 */
#include "faultfs.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FDS 4096

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_msync)(void *, size_t, int);
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_open_2)(const char *, int);
static int (*real_open64_2)(const char *, int);
static int (*real_creat)(const char *, mode_t);
static int (*real_close)(int);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *watched;             /* FAULTFS_FILE, or NULL: the shim does nothing */
static int journal_fd = -1;
static long fail_at;              /* 0: no fault */
static int fail_errno = EIO;
static bool sticky;
static long ops;                  /* operations counted so far */
static unsigned char tracked[MAX_FDS]; /* 0 untracked, 1 plain, 2 O_DSYNC */
static int ntracked;

__attribute__((constructor)) static void faultfs_init(void)
{
    real_write = dlsym(RTLD_NEXT, "write");
    real_pwrite = dlsym(RTLD_NEXT, "pwrite");
    real_pwrite64 = dlsym(RTLD_NEXT, "pwrite64");
    real_writev = dlsym(RTLD_NEXT, "writev");
    real_pwritev = dlsym(RTLD_NEXT, "pwritev");
    real_fsync = dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
    real_msync = dlsym(RTLD_NEXT, "msync");
    real_open = dlsym(RTLD_NEXT, "open");
    real_open64 = dlsym(RTLD_NEXT, "open64");
    real_openat = dlsym(RTLD_NEXT, "openat");
    real_openat64 = dlsym(RTLD_NEXT, "openat64");
    real_open_2 = dlsym(RTLD_NEXT, "__open_2");
    real_open64_2 = dlsym(RTLD_NEXT, "__open64_2");
    real_creat = dlsym(RTLD_NEXT, "creat");
    real_close = dlsym(RTLD_NEXT, "close");

    const char *f = getenv(FAULTFS_ENV_FILE);
    if (f && *f) watched = strdup(f);
    const char *s = getenv(FAULTFS_ENV_FAIL_AT);
    if (s) fail_at = strtol(s, NULL, 10);
    s = getenv(FAULTFS_ENV_FAIL_ERRNO);
    if (s) fail_errno = (int)strtol(s, NULL, 10);
    s = getenv(FAULTFS_ENV_STICKY);
    sticky = s && *s == '1';
    s = getenv(FAULTFS_ENV_JOURNAL);
    if (s && *s && watched) journal_fd = real_open(s, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
}

/* ---- the journal ---- */

static void journal_put(const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = real_write(journal_fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) abort(); /* a journal with a hole would make every later check wrong */
        c += w;
        n -= (size_t)w;
    }
}

/* Called with `lock` held. */
static void journal_write(int fd, uint64_t off, const struct iovec *iov, int iovcnt, size_t total)
{
    if (journal_fd < 0 || total == 0) return;
    faultfs_rec r = {tracked[fd] == 2 ? FAULTFS_REC_DSYNC_WRITE : FAULTFS_REC_WRITE, (uint32_t)total, off, 0};
    journal_put(&r, sizeof r);
    for (int i = 0; i < iovcnt && total > 0; i++) {
        size_t n = iov[i].iov_len < total ? iov[i].iov_len : total;
        journal_put(iov[i].iov_base, n);
        total -= n;
    }
}

static void journal_simple(uint32_t kind, uint32_t size, uint64_t a, uint64_t b)
{
    if (journal_fd < 0) return;
    faultfs_rec r = {kind, size, a, b};
    journal_put(&r, sizeof r);
}

__attribute__((visibility("default"))) void faultfs_mark(uint32_t kind, uint64_t a, uint64_t b)
{
    pthread_mutex_lock(&lock);
    /* A mark carries no data; its kind rides in the size field (faultfs.h). */
    if (journal_fd >= 0) {
        faultfs_rec r = {FAULTFS_REC_MARK, kind, a, b};
        journal_put(&r, sizeof r);
    }
    pthread_mutex_unlock(&lock);
}

__attribute__((visibility("default"))) long faultfs_ops(void)
{
    pthread_mutex_lock(&lock);
    long n = ops;
    pthread_mutex_unlock(&lock);
    return n;
}

/* ---- tracking descriptors ---- */

/* Tracks `fd` when it is the watched file; returns it (an open call's answer). */
static int track(int fd, const char *path, int flags)
{
    if (fd < 0 || fd >= MAX_FDS || !watched || !path || strcmp(path, watched) != 0) return fd;
    pthread_mutex_lock(&lock);
    if (!tracked[fd]) ntracked++;
    tracked[fd] = (flags & O_DSYNC) == O_DSYNC ? 2 : 1;
    pthread_mutex_unlock(&lock);
    return fd;
}

static bool is_tracked(int fd) { return fd >= 0 && fd < MAX_FDS && tracked[fd]; }

/* Counts one operation; returns the errno it must fail with, or 0. Called with `lock` held. */
static int next_op(void)
{
    ops++;
    if (fail_at > 0 && (ops == fail_at || (sticky && ops > fail_at))) return fail_errno;
    return 0;
}

static mode_t mode_arg(int flags, va_list ap)
{
    return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}
/* Declares `mode`: a variadic open call's mode argument, read only when `flags` carry one. */
#define OPEN_MODE(mode, flags)                                                      \
    mode_t mode;                                                                    \
    do {                                                                            \
        va_list ap_;                                                                \
        va_start(ap_, flags);                                                       \
        mode = mode_arg(flags, ap_);                                                \
        va_end(ap_);                                                                \
    } while (0)

int open(const char *path, int flags, ...)
{
    OPEN_MODE(mode, flags);
    return track(real_open(path, flags, mode), path, flags);
}

int open64(const char *path, int flags, ...)
{
    OPEN_MODE(mode, flags);
    return track(real_open64(path, flags, mode), path, flags);
}

int openat(int dirfd, const char *path, int flags, ...)
{
    OPEN_MODE(mode, flags);
    return track(real_openat(dirfd, path, flags, mode), path, flags);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
    OPEN_MODE(mode, flags);
    return track(real_openat64(dirfd, path, flags, mode), path, flags);
}

int __open_2(const char *path, int flags)
{
    return track(real_open_2(path, flags), path, flags);
}

int __open64_2(const char *path, int flags)
{
    return track(real_open64_2(path, flags), path, flags);
}

int creat(const char *path, mode_t mode)
{
    return track(real_creat(path, mode), path, O_WRONLY);
}

int close(int fd)
{
    if (is_tracked(fd)) {
        pthread_mutex_lock(&lock);
        tracked[fd] = 0;
        ntracked--;
        pthread_mutex_unlock(&lock);
    }
    return real_close(fd);
}

/* ---- writes ---- */

/*
 * One write on a tracked descriptor. `do_write` performs the real call at
 * `off` (the descriptor's position for write and writev).
 */
static ssize_t tracked_write(int fd, const struct iovec *iov, int iovcnt, off_t off,
                             ssize_t (*do_write)(int, const struct iovec *, int, off_t))
{
    pthread_mutex_lock(&lock);
    int e = next_op();
    bool dsync = tracked[fd] == 2;
    if (e && !(dsync && e == EIO)) {
        pthread_mutex_unlock(&lock);
        errno = e;
        return -1;
    }
    ssize_t w = do_write(fd, iov, iovcnt, off);
    int saved = errno;
    if (w > 0) journal_write(fd, (uint64_t)off, iov, iovcnt, (size_t)w);
    pthread_mutex_unlock(&lock);
    if (e) {
        errno = e;
        return -1;
    }
    errno = saved;
    return w;
}

static ssize_t at_pos_pwritev(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
    return real_pwritev(fd, iov, iovcnt, off);
}

static ssize_t at_cursor_writev(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
    (void)off;
    return real_writev(fd, iov, iovcnt);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    if (!is_tracked(fd)) return real_pwrite(fd, buf, n, off);
    struct iovec v = {(void *)buf, n};
    return tracked_write(fd, &v, 1, off, at_pos_pwritev);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    if (!is_tracked(fd)) return real_pwrite64(fd, buf, n, off);
    struct iovec v = {(void *)buf, n};
    return tracked_write(fd, &v, 1, off, at_pos_pwritev);
}

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
    if (!is_tracked(fd)) return real_pwritev(fd, iov, iovcnt, off);
    return tracked_write(fd, iov, iovcnt, off, at_pos_pwritev);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    if (!is_tracked(fd)) return real_write(fd, buf, n);
    struct iovec v = {(void *)buf, n};
    return tracked_write(fd, &v, 1, lseek(fd, 0, SEEK_CUR), at_cursor_writev);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    if (!is_tracked(fd)) return real_writev(fd, iov, iovcnt);
    return tracked_write(fd, iov, iovcnt, lseek(fd, 0, SEEK_CUR), at_cursor_writev);
}

/* ---- syncs ---- */

/*
 * Counts one sync. When it is to fail: sets errno and returns true. Otherwise
 * returns false with `lock` held: the caller syncs and passes the answer to
 * sync_done.
 */
static bool sync_refused(void)
{
    pthread_mutex_lock(&lock);
    int e = next_op();
    if (e) {
        pthread_mutex_unlock(&lock);
        errno = e;
    }
    return e != 0;
}

/* Journals a sync that succeeded and releases `lock`; returns `rc` with the sync's errno kept. */
static int sync_done(int rc)
{
    int saved = errno;
    if (rc == 0) journal_simple(FAULTFS_REC_SYNC, 0, 0, 0);
    pthread_mutex_unlock(&lock);
    errno = saved;
    return rc;
}

static int tracked_sync(int (*sync)(int), int fd)
{
    if (sync_refused()) return -1;
    return sync_done(sync(fd));
}

int fsync(int fd)
{
    if (!is_tracked(fd)) return real_fsync(fd);
    return tracked_sync(real_fsync, fd);
}

int fdatasync(int fd)
{
    if (!is_tracked(fd)) return real_fdatasync(fd);
    return tracked_sync(real_fdatasync, fd);
}

int msync(void *addr, size_t len, int flags)
{
    if (ntracked == 0 || !(flags & MS_SYNC)) return real_msync(addr, len, flags);
    if (sync_refused()) return -1;
    return sync_done(real_msync(addr, len, flags));
}
