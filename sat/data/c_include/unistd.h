/* satreport stub of <unistd.h>: just enough declarations for pycparser, not the C library. */
#ifndef SATREPORT_UNISTD_H
#define SATREPORT_UNISTD_H
#include <sys/types.h>
ssize_t read(int fd, void *buf, size_t n);
ssize_t write(int fd, const void *buf, size_t n);
int close(int fd);
off_t lseek(int fd, off_t offset, int whence);
unsigned int sleep(unsigned int seconds);
int usleep(useconds_t usec);
pid_t getpid(void);
long sysconf(int name);
int gethostname(char *name, size_t len);
char *getcwd(char *buf, size_t size);
int getopt(int argc, char *const argv[], const char *optstring);
extern char *optarg;
extern int optind;
#define STDIN_FILENO 0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2
#define _SC_PAGESIZE 30
#define _SC_NPROCESSORS_ONLN 84
#define _SC_CLK_TCK 2
#endif
