/* satreport stub of <stdio.h>: just enough declarations for pycparser, not the C library. */
#ifndef SATREPORT_STDIO_H
#define SATREPORT_STDIO_H
#include <stddef.h>
typedef struct _satreport_file FILE;
FILE *fopen(const char *path, const char *mode);
int fclose(FILE *stream);
int printf(const char *format, ...);
int fprintf(FILE *stream, const char *format, ...);
int sprintf(char *str, const char *format, ...);
int snprintf(char *str, size_t size, const char *format, ...);
int scanf(const char *format, ...);
int fscanf(FILE *stream, const char *format, ...);
int sscanf(const char *str, const char *format, ...);
int puts(const char *s);
int putchar(int c);
int fflush(FILE *stream);
size_t fread(void *ptr, size_t size, size_t n, FILE *stream);
size_t fwrite(const void *ptr, size_t size, size_t n, FILE *stream);
FILE *satreport_stdin(void);
FILE *satreport_stdout(void);
FILE *satreport_stderr(void);
#define stdin (satreport_stdin())
#define stdout (satreport_stdout())
#define stderr (satreport_stderr())
#define EOF (-1)
#endif
