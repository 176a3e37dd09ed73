/* satreport stub of <inttypes.h>: just enough declarations for pycparser, not the C library. */
#ifndef SATREPORT_INTTYPES_H
#define SATREPORT_INTTYPES_H
#include <stdint.h>
#define PRId64 "ld"
#define PRIu64 "lu"
#define PRId32 "d"
#define PRIu32 "u"
#endif
