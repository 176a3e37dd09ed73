/* satreport stub of <limits.h>. */
#ifndef SATREPORT_LIMITS_H
#define SATREPORT_LIMITS_H
#define INT_MAX 2147483647
#define INT_MIN (-INT_MAX - 1)
#define LONG_MAX 9223372036854775807L
#define CHAR_BIT 8
#endif
