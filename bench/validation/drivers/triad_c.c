/* Driver for examples/c/triad.c: schoenauer_triad over n**3 elements.
 * Usage: triad_c N SWEEPS FLUSH_BYTES */
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

void schoenauer_triad(int n, double *restrict a, const double *restrict b,
                      const double *restrict c, const double *restrict d);

int main(int argc, char **argv)
{
    int n = (int)int_arg(argc, argv, 1, 64);
    long sweeps = int_arg(argc, argv, 2, 1);
    int m = n * n * n;
    double *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b);
    double *c = malloc(m * sizeof *c), *d = malloc(m * sizeof *d);
    if (!a || !b || !c || !d)
        return 1;
    init_flush(int_arg(argc, argv, 3, 8L * 1024 * 1024));
    fill(a, m, 0.0);
    fill(b, m, 1.0);
    fill(c, m, 2.0);
    fill(d, m, 3.0);
    for (long s = 0; s < sweeps; s++) {
        flush_cache();
        schoenauer_triad(m, a, b, c, d);
    }
    flush_cache();
    printf("%g\n", a[0] + flush_sink());
    return 0;
}
