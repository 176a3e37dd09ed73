/* satreport stub of <omp.h>: OpenMP's types and routines (OpenMP 5.x, as GCC's and LLVM's
   headers declare them), just enough for pycparser; not the OpenMP runtime. */
#ifndef SATREPORT_OMP_H
#define SATREPORT_OMP_H
#include <stddef.h>

typedef struct { unsigned char opaque[8]; } omp_lock_t;
typedef struct { unsigned char opaque[16]; } omp_nest_lock_t;
typedef enum omp_sched_t {
  omp_sched_static = 1, omp_sched_dynamic = 2, omp_sched_guided = 3, omp_sched_auto = 4,
  omp_sched_monotonic = 0x80000000
} omp_sched_t;
typedef enum omp_proc_bind_t {
  omp_proc_bind_false = 0, omp_proc_bind_true = 1, omp_proc_bind_master = 2,
  omp_proc_bind_close = 3, omp_proc_bind_spread = 4
} omp_proc_bind_t;
typedef enum omp_sync_hint_t {
  omp_sync_hint_none = 0, omp_sync_hint_uncontended = 1, omp_sync_hint_contended = 2,
  omp_sync_hint_nonspeculative = 4, omp_sync_hint_speculative = 8
} omp_sync_hint_t;
typedef omp_sync_hint_t omp_lock_hint_t;
typedef long omp_intptr_t;
typedef unsigned long omp_uintptr_t;
typedef omp_uintptr_t omp_allocator_handle_t;
typedef omp_uintptr_t omp_memspace_handle_t;
typedef void *omp_depend_t;
typedef void *omp_event_handle_t;

/* threads and teams */
void omp_set_num_threads(int num_threads);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
int omp_get_thread_num(void);
int omp_get_num_procs(void);
int omp_in_parallel(void);
void omp_set_dynamic(int dynamic_threads);
int omp_get_dynamic(void);
int omp_get_cancellation(void);
void omp_set_nested(int nested);
int omp_get_nested(void);
void omp_set_schedule(omp_sched_t kind, int chunk_size);
void omp_get_schedule(omp_sched_t *kind, int *chunk_size);
int omp_get_thread_limit(void);
void omp_set_max_active_levels(int max_levels);
int omp_get_max_active_levels(void);
int omp_get_level(void);
int omp_get_ancestor_thread_num(int level);
int omp_get_team_size(int level);
int omp_get_active_level(void);
int omp_in_final(void);
omp_proc_bind_t omp_get_proc_bind(void);
int omp_get_num_places(void);
int omp_get_place_num(void);
int omp_get_num_teams(void);
int omp_get_team_num(void);
int omp_is_initial_device(void);
int omp_get_num_devices(void);
int omp_get_default_device(void);
void omp_set_default_device(int device_num);
int omp_get_initial_device(void);
int omp_get_device_num(void);

/* locks */
void omp_init_lock(omp_lock_t *lock);
void omp_init_lock_with_hint(omp_lock_t *lock, omp_sync_hint_t hint);
void omp_destroy_lock(omp_lock_t *lock);
void omp_set_lock(omp_lock_t *lock);
void omp_unset_lock(omp_lock_t *lock);
int omp_test_lock(omp_lock_t *lock);
void omp_init_nest_lock(omp_nest_lock_t *lock);
void omp_init_nest_lock_with_hint(omp_nest_lock_t *lock, omp_sync_hint_t hint);
void omp_destroy_nest_lock(omp_nest_lock_t *lock);
void omp_set_nest_lock(omp_nest_lock_t *lock);
void omp_unset_nest_lock(omp_nest_lock_t *lock);
int omp_test_nest_lock(omp_nest_lock_t *lock);

/* timing */
double omp_get_wtime(void);
double omp_get_wtick(void);

/* memory */
extern const omp_allocator_handle_t omp_default_mem_alloc;
void *omp_alloc(size_t size, omp_allocator_handle_t allocator);
void omp_free(void *ptr, omp_allocator_handle_t allocator);
void *omp_target_alloc(size_t size, int device_num);
void omp_target_free(void *device_ptr, int device_num);
int omp_target_memcpy(void *dst, const void *src, size_t length, size_t dst_offset,
                      size_t src_offset, int dst_device_num, int src_device_num);
#endif
