/* satreport stub of <stdbool.h>. */
#ifndef SATREPORT_STDBOOL_H
#define SATREPORT_STDBOOL_H
#define bool _Bool
#define true 1
#define false 0
#endif
