/* satreport stub of <ctype.h>: just enough declarations for pycparser, not the C library. */
#ifndef SATREPORT_CTYPE_H
#define SATREPORT_CTYPE_H
int isdigit(int c);
int isalpha(int c);
int isalnum(int c);
int isspace(int c);
int isupper(int c);
int islower(int c);
int toupper(int c);
int tolower(int c);
#endif
