/* satreport stub of <assert.h>: assertions cost nothing in the model. */
#ifndef SATREPORT_ASSERT_H
#define SATREPORT_ASSERT_H
#define assert(condition) ((void)0)
#endif
