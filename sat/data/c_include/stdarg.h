/* satreport stub of <stdarg.h>: just enough declarations for pycparser, not the C library. */
#ifndef SATREPORT_STDARG_H
#define SATREPORT_STDARG_H
typedef char *va_list;
#define va_start(ap, last) ((void)0)
#define va_arg(ap, type) (*(type *)0)
#define va_end(ap) ((void)0)
#define va_copy(dest, src) ((void)0)
#endif
