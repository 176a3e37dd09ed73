/* satreport stub of <stddef.h>: just enough declarations for pycparser, not the C library. */
#ifndef SATREPORT_STDDEF_H
#define SATREPORT_STDDEF_H
typedef unsigned long size_t;
typedef long ptrdiff_t;
typedef int wchar_t;
#define NULL ((void *)0)
#define offsetof(type, member) ((size_t)0)
#endif
