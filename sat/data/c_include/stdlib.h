/* satreport stub of <stdlib.h>: just enough declarations for pycparser, not the C library. */
#ifndef SATREPORT_STDLIB_H
#define SATREPORT_STDLIB_H
#include <stddef.h>
void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void *realloc(void *ptr, size_t size);
void *aligned_alloc(size_t alignment, size_t size);
int posix_memalign(void **ptr, size_t alignment, size_t size);
void free(void *ptr);
int atoi(const char *s);
long atol(const char *s);
double atof(const char *s);
long strtol(const char *s, char **end, int base);
double strtod(const char *s, char **end);
int rand(void);
void srand(unsigned int seed);
void exit(int status);
void abort(void);
char *getenv(const char *name);
int abs(int x);
long labs(long x);
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 2147483647
#endif
