/* satreport stub of <sys/time.h>: just enough declarations for pycparser, not the C library. */
#ifndef SATREPORT_SYS_TIME_H
#define SATREPORT_SYS_TIME_H
#include <sys/types.h>
struct timeval { time_t tv_sec; suseconds_t tv_usec; };
struct timezone { int tz_minuteswest; int tz_dsttime; };
int gettimeofday(struct timeval *tv, void *tz);
int settimeofday(const struct timeval *tv, const struct timezone *tz);
#endif
