/*
 * main.c — orcore_faults: ORCore under I/O errors, a full disk and power loss.
 *
 *   orcore_faults disk  --shim LIB [...]   a write or sync of the file fails (faultfs shim)
 *   orcore_faults fsize [...]              the kernel refuses to grow the file (RLIMIT_FSIZE)
 *   orcore_faults power --shim LIB [...]   the file as a disk holds it after a power cut
 *   orcore_faults writer PATH [...]        the child every test runs (not for people)
 *
 * Each test prints its figures and exits 0 when nothing was lost or found
 * inconsistent, 1 otherwise, 2 on bad options. docs/RELIABILITY.md describes
 * what each injects and checks.
 */
#include "faults.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc >= 2) {
        const char *cmd = argv[1];
        if (strcmp(cmd, "writer") == 0) return fx_writer_main(argc - 1, argv + 1);
        if (strcmp(cmd, "disk") == 0) return fx_disk_main(argc - 1, argv + 1);
        if (strcmp(cmd, "fsize") == 0) return fx_fsize_main(argc - 1, argv + 1);
        if (strcmp(cmd, "power") == 0) return fx_power_main(argc - 1, argv + 1);
    }
    fprintf(stderr, "usage: orcore_faults disk|fsize|power [options]  (see Tests/ORCoreFaults/main.c)\n");
    return 2;
}
