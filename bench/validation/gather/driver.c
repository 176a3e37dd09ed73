/* Driver of bench/validation/gather/kernel.c: builds the indices, flushes the cache, runs
 * the gather once.
 *
 *   driver N M PATTERN PARAM FLUSH_BYTES
 *
 * N references into an array x of M doubles. PATTERN: uniform (PARAM unused), clustered
 * (windows of PARAM elements, each window taking N*PARAM/M... see below) or strided (stride
 * PARAM elements, wrapping around M). clustered: reference i falls at random in the window
 * (i / R) * PARAM .. + PARAM - 1 (modulo M) with R = PARAM / 4 references per window. */
#include <stdio.h>
#include <stdlib.h>

double gather(long n, const long *restrict idx, const double *restrict x);

static unsigned long long state = 88172645463325252ULL;

static unsigned long long next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: driver N M uniform|clustered|strided PARAM FLUSH_BYTES\n");
        return 2;
    }
    long n = atol(argv[1]), m = atol(argv[2]), param = atol(argv[4]);
    long flush = atol(argv[5]);
    const char *pattern = argv[3];
    long *idx = malloc(sizeof(long) * n);
    double *x = malloc(sizeof(double) * m);
    char *scratch = malloc(flush);
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
    for (long j = 0; j < flush; j++)
        scratch[j] = (char)j;
    volatile long sink = 0;
    for (long j = 0; j < flush; j += 64)
        sink += scratch[j];
    printf("%g\n", gather(n, idx, x));
    return (int)(sink & 0);
}
