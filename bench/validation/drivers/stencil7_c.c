/* Driver for examples/c/stencil7.c: laplacian on an n x n x n interior with one ghost layer.
 * Usage: stencil7_c N SWEEPS FLUSH_BYTES */
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

void laplacian(int nx, int ny, int nz, double fac, double fac2,
               const double a0[nz + 2][ny + 2][nx + 2],
               double anext[nz + 2][ny + 2][nx + 2]);

int main(int argc, char **argv)
{
    int n = (int)int_arg(argc, argv, 1, 64);
    long sweeps = int_arg(argc, argv, 2, 1);
    size_t cells = (size_t)(n + 2) * (n + 2) * (n + 2);
    double *a0 = malloc(cells * sizeof *a0), *anext = malloc(cells * sizeof *anext);
    if (!a0 || !anext)
        return 1;
    init_flush(int_arg(argc, argv, 3, 8L * 1024 * 1024));
    fill(a0, cells, 1.0);
    fill(anext, cells, 0.0);
    for (long s = 0; s < sweeps; s++) {
        flush_cache();
        laplacian(n, n, n, 0.5, 0.25, (const double (*)[n + 2][n + 2])a0,
                  (double (*)[n + 2][n + 2])anext);
    }
    flush_cache();
    printf("%g\n", anext[(size_t)(n + 2) * (n + 2) + (n + 2) + 1] + flush_sink());
    return 0;
}
