/* satreport stub of <omp.h>: just enough declarations for pycparser, not the OpenMP runtime. */
#ifndef SATREPORT_OMP_H
#define SATREPORT_OMP_H
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
void omp_set_num_threads(int n);
double omp_get_wtime(void);
#endif
