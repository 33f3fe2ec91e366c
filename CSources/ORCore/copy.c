/*
 * copy.c — compact copy of a realm to a new file.
 *
 * LMDB's compacting copy walks the latest snapshot and writes only live pages,
 * renumbered, so the copy carries no free pages. The destination is created
 * with O_EXCL (it must not exist) and synced before it is reported done; a
 * failed copy removes it. The map lock is held shared, like a transaction,
 * so that no map growth happens under the copy's reader.
 */
#include "env.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int orc_env_copy(orc_env *env, const char *dest_path)
{
    if (!env || !dest_path || !*dest_path) return orc_fail(ORC_ERR_INVALID_ARG, "orc_env_copy needs an environment and a path");
    int fd = open(dest_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        if (e == EEXIST) return orc_fail(ORC_ERR_EXISTS, "'%s' already exists; a copy needs a new path", dest_path);
        return orc_fail(e, "cannot create '%s': %s", dest_path, strerror(e));
    }
    orc_envcore *core = env->core;
    pthread_rwlock_rdlock(&core->map_lock);
    int mrc = mdb_env_copyfd2(core->mdb, fd, MDB_CP_COMPACT);
    pthread_rwlock_unlock(&core->map_lock);
    int rc = mrc ? orc_fail_mdb(mrc, "copying the realm") : ORC_OK;
    if (!rc && fsync(fd) != 0) rc = orc_fail(errno, "syncing '%s'", dest_path);
    if (close(fd) != 0 && !rc) rc = orc_fail(errno, "closing '%s'", dest_path);
    if (rc) unlink(dest_path);
    return rc;
}
