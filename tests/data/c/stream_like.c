/* A memory-bandwidth benchmark in the style of STREAM: four vector kernels (copy, scale,
 * add, triad) over static arrays, repeated NTIMES times and timed with gettimeofday.
 * It includes the POSIX headers such programs include and uses their types (ssize_t,
 * struct timeval), so that it reads as is.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef ARRAY_LENGTH
#define ARRAY_LENGTH 2000000
#endif
#ifndef NTIMES
#define NTIMES 10
#endif
#define PAD 0
#define REAL double

static REAL va[ARRAY_LENGTH + PAD], vb[ARRAY_LENGTH + PAD], vc[ARRAY_LENGTH + PAD];
static double elapsed[4][NTIMES];

double wall_seconds(void)
{
    struct timeval now;
    int status = gettimeofday(&now, NULL);
    if (status != 0)
        return -1.0;
    return (double) now.tv_sec + (double) now.tv_usec * 1.e-6;
}

int main(void)
{
    ssize_t j;
    int k;
    REAL scalar = 3.0;
    double best = FLT_MAX;

    printf("array length %d, page size %ld\n", ARRAY_LENGTH, sysconf(_SC_PAGESIZE));
    for (j = 0; j < ARRAY_LENGTH; j++) {
        va[j] = 1.0;
        vb[j] = 2.0;
        vc[j] = 0.0;
    }

    for (k = 0; k < NTIMES; k++) {
        elapsed[0][k] = wall_seconds();
        for (j = 0; j < ARRAY_LENGTH; j++)
            vc[j] = va[j];
        elapsed[0][k] = wall_seconds() - elapsed[0][k];

        elapsed[1][k] = wall_seconds();
        for (j = 0; j < ARRAY_LENGTH; j++)
            vb[j] = scalar * vc[j];
        elapsed[1][k] = wall_seconds() - elapsed[1][k];

        elapsed[2][k] = wall_seconds();
        for (j = 0; j < ARRAY_LENGTH; j++)
            vc[j] = va[j] + vb[j];
        elapsed[2][k] = wall_seconds() - elapsed[2][k];

        elapsed[3][k] = wall_seconds();
        for (j = 0; j < ARRAY_LENGTH; j++)
            va[j] = vb[j] + scalar * vc[j];
        elapsed[3][k] = wall_seconds() - elapsed[3][k];
    }

    for (k = 1; k < NTIMES; k++)
        best = fmin(best, elapsed[3][k]);
    printf("best triad time %f s\n", best);
    return 0;
}
