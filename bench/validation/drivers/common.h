/* Shared pieces of the C validation drivers (the C twin of common.f90): command-line
 * arguments and the cache flush.  See common.f90 for why every sweep starts with a flush. */
#ifndef VALIDATION_COMMON_H
#define VALIDATION_COMMON_H
#include <stddef.h>

long int_arg(int argc, char **argv, int position, long fallback);
void init_flush(long bytes);
void flush_cache(void);
void fill(double *a, size_t n, double seed);
double flush_sink(void);

#endif
