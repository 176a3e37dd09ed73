/* satreport stub of <errno.h>: just enough declarations for pycparser, not the C library. */
#ifndef SATREPORT_ERRNO_H
#define SATREPORT_ERRNO_H
extern int errno;
#define EINVAL 22
#define ENOMEM 12
#define ERANGE 34
#endif
