/* satreport stub of <time.h>: just enough declarations for pycparser, not the C library. */
#ifndef SATREPORT_TIME_H
#define SATREPORT_TIME_H
/* also declared by <sys/types.h>: one definition whichever header comes first */
#ifndef SATREPORT_TIME_T
#define SATREPORT_TIME_T
typedef long time_t;
typedef long clock_t;
#endif
struct timespec { time_t tv_sec; long tv_nsec; };
clock_t clock(void);
time_t time(time_t *t);
int clock_gettime(int clock, struct timespec *t);
#define CLOCKS_PER_SEC 1000000
#define CLOCK_MONOTONIC 1
#endif
