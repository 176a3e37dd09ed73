/* satreport stub of <sys/types.h>: just enough declarations for pycparser, not the C library. */
#ifndef SATREPORT_SYS_TYPES_H
#define SATREPORT_SYS_TYPES_H
#include <stddef.h>
typedef long ssize_t;
typedef long off_t;
typedef int pid_t;
typedef unsigned int uid_t;
typedef unsigned int gid_t;
typedef unsigned int mode_t;
typedef unsigned long dev_t;
typedef unsigned long ino_t;
typedef unsigned long nlink_t;
typedef long blksize_t;
typedef long blkcnt_t;
typedef long suseconds_t;
typedef unsigned int useconds_t;
typedef int clockid_t;
/* also declared by <time.h>: one definition whichever header comes first */
#ifndef SATREPORT_TIME_T
#define SATREPORT_TIME_T
typedef long time_t;
typedef long clock_t;
#endif
#endif
