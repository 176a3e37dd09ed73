/* satreport stub of <sys/resource.h>: just enough declarations for pycparser, not the C
 * library. */
#ifndef SATREPORT_SYS_RESOURCE_H
#define SATREPORT_SYS_RESOURCE_H
#include <sys/time.h>
struct rusage { struct timeval ru_utime; struct timeval ru_stime; long ru_maxrss; };
int getrusage(int who, struct rusage *usage);
#define RUSAGE_SELF 0
#define RUSAGE_CHILDREN (-1)
#endif
