/* Shared pieces of the C validation drivers; compiled apart from the kernels so that
 * nothing here is inlined into them. */
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

static double *scratch;
static size_t scratch_n;
static double sink;

long int_arg(int argc, char **argv, int position, long fallback)
{
    char *end;
    long value;
    if (argc <= position)
        return fallback;
    value = strtol(argv[position], &end, 10);
    return *end ? fallback : value;
}

void init_flush(long bytes)
{
    scratch_n = bytes > 8 ? (size_t)bytes / 8 : 1;
    scratch = malloc(scratch_n * sizeof *scratch);
    if (!scratch) {
        perror("malloc");
        exit(1);
    }
    for (size_t i = 0; i < scratch_n; i++)
        scratch[i] = 1.0 / (double)(i + 1);
}

void flush_cache(void)
{
    double s = 0.0;
    for (size_t i = 0; i < scratch_n; i++)
        s += scratch[i];
    sink += s;
}

void fill(double *a, size_t n, double seed)
{
    for (size_t i = 0; i < n; i++)
        a[i] = seed + 1.0e-3 * (double)(i % 97);
}

double flush_sink(void)
{
    return sink;
}
