/* Driver of bench/validation/gather/kernel.c (the gather) and scatter.c (the scatter):
 * builds the indices, flushes the cache, runs the kernel once, flushes the cache again.
 *
 *   driver N M PATTERN PARAM FLUSH_BYTES [gather|scatter]
 *
 * N references into an array x of M doubles. PATTERN: uniform (PARAM unused), clustered
 * (windows of PARAM elements, see below) or strided (stride PARAM elements, wrapping around
 * M). clustered: reference i falls at random in the window (i / R) * PARAM .. + PARAM - 1
 * (modulo M) with R = PARAM / 4 references per window. The kernel defaults to the gather.
 *
 * The flushes read a scratch array of FLUSH_BYTES (more than the cache). The first one
 * leaves only clean lines in the cache (the scratch array is written once at set-up, and
 * the read evicts those dirty lines too, as it does every other line), so the kernel evicts
 * no dirty line of the set-up; the second one evicts every line the kernel dirtied, so each
 * is written back exactly once by the end of measured() (callgrind --toggle-collect). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double gather(long n, const long *restrict idx, const double *restrict x);
void scatter(long n, const long *restrict idx, double *restrict x);

static unsigned long long state = 88172645463325252ULL;

static unsigned long long next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static long flush(const char *scratch, long bytes)
{
    volatile long sink = 0;
    for (long j = 0; j < bytes; j += 64)
        sink += scratch[j];
    return sink;
}

/* The kernel and the flush after it: what callgrind counts write-backs over. */
__attribute__((noinline)) double measured(int kind, long n, const long *idx, double *x,
                                          const char *scratch, long bytes)
{
    double result;
    if (kind == 's') {
        scatter(n, idx, x);
        result = 0.0;
    } else {
        result = gather(n, idx, x);
    }
    flush(scratch, bytes);
    return result;
}

int main(int argc, char **argv)
{
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: driver N M uniform|clustered|strided PARAM FLUSH_BYTES "
                        "[gather|scatter]\n");
        return 2;
    }
    long n = atol(argv[1]), m = atol(argv[2]), param = atol(argv[4]);
    long bytes = atol(argv[5]);
    const char *pattern = argv[3];
    int kind = argc == 7 && strcmp(argv[6], "scatter") == 0 ? 's' : 'g';
    long *idx = malloc(sizeof(long) * n);
    double *x = malloc(sizeof(double) * m);
    char *scratch = malloc(bytes);
    if (!idx || !x || !scratch)
        return 1;
    for (long j = 0; j < m; j++)
        x[j] = (double)j;
    for (long i = 0; i < n; i++) {
        if (pattern[0] == 'u') {
            idx[i] = (long)(next() % (unsigned long long)m);
        } else if (pattern[0] == 'c') {
            long per = param / 4 > 0 ? param / 4 : 1;
            long base = (i / per) * param;
            idx[i] = (base + (long)(next() % (unsigned long long)param)) % m;
        } else {
            idx[i] = (i * param) % m;
        }
    }
    for (long j = 0; j < bytes; j++)
        scratch[j] = (char)j;
    flush(scratch, bytes);
    double result = measured(kind, n, idx, x, scratch, bytes);
    double check = 0.0;
    for (long j = 0; j < m; j += 4096)
        check += x[j];
    printf("%g %g\n", result, check);
    return 0;
}
