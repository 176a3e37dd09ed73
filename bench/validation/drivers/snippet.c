/* Driver for a kernel snippet in Kerncraft's style (declarations and a loop nest at file
 * level).  two_levels.py compiles the snippet into kernel_sweep(), its arrays global and
 * 64-byte aligned, its sizes given with -D, in a file of its own so that nothing of it is
 * inlined here.  The arrays are not initialised: their values do not change the addresses a
 * sweep touches, which is all the cache simulators see.
 * Usage: snippet SWEEPS FLUSH_BYTES */
#include <stdio.h>
#include "common.h"

void kernel_sweep(void);

int main(int argc, char **argv)
{
    long sweeps = int_arg(argc, argv, 1, 1);
    init_flush(int_arg(argc, argv, 2, 8L * 1024 * 1024));
    for (long s = 0; s < sweeps; s++) {
        flush_cache();
        kernel_sweep();
    }
    flush_cache();
    printf("%g\n", flush_sink());
    return 0;
}
