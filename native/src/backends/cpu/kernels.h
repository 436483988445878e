/* kernels.h: the CPU backend's kernels. Their argument blocks and the elementwise bytecode
 * are the shared contract of native/src/core/blocks.h; each kernel checks every view
 * against its buffer's size itself and returns PT_EINVAL through pt_error() instead of
 * reading out of bounds.
 */
#ifndef PT_CPU_KERNELS_H
#define PT_CPU_KERNELS_H
#include "../../core/driver.h"

typedef struct cpu_ew_program cpu_ew_program; /* compiled (validated) bytecode */

int cpu_ew_compile(const uint8_t *src, size_t len, cpu_ew_program **out);
void cpu_ew_free(cpu_ew_program *p);
int cpu_ew_run(const cpu_ew_program *p, const pt_mem_ref *bufs, int nbuf, const double *a, int na);
/* Values of a compiled expression over a block's views, for kernels that consume them
 * instead of storing them (ewreduce). open() parses and checks the input views (views =
 * the input VIEWs' slots, nviews counts view 0 too); each worker thread makes its own
 * cpu_ew_thread for runs of up to max_n elements; values_at() gives n <= max_n values of
 * the flat row-major elements [start, start + n) in the STORE's compute type (ctype(): 0
 * f32, 1 f64, 2 i32, 3 i64), valid until the thread's next call, or NULL with *failed set
 * (cpu_ew_failure() turns it into the error). */
typedef struct cpu_ew_values cpu_ew_values;
typedef struct cpu_ew_thread cpu_ew_thread;
int cpu_ew_values_open(const cpu_ew_program *p, const pt_mem_ref *bufs, int nbuf, int rank, const int64_t *shape,
                       const double *views, int nviews, const double *consts, int nconst, cpu_ew_values **out);
void cpu_ew_values_close(cpu_ew_values *v);
int cpu_ew_values_ctype(const cpu_ew_values *v);
cpu_ew_thread *cpu_ew_thread_new(const cpu_ew_values *v, int64_t max_n);
void cpu_ew_thread_free(cpu_ew_thread *t);
const void *cpu_ew_values_at(const cpu_ew_values *v, cpu_ew_thread *t, int64_t start, int64_t n, int64_t *failed);
int cpu_ew_failure(int64_t failed);
/* "ewreduce": the reduce template (reduce.c) over the values of a compiled expression. */
int cpu_ewreduce(const cpu_ew_program *p, const pt_mem_ref *bufs, int nbuf, const double *a, int na);

/* Templates: one function per kind name above ("index_get" shares cpu_index_put). */
int cpu_reduce(const pt_mem_ref *bufs, int nbuf, const double *a, int na);
int cpu_scan(const pt_mem_ref *bufs, int nbuf, const double *a, int na);
int cpu_matmul(const pt_mem_ref *bufs, int nbuf, const double *a, int na);
int cpu_sort(const pt_mem_ref *bufs, int nbuf, const double *a, int na);
int cpu_gather(const pt_mem_ref *bufs, int nbuf, const double *a, int na);
int cpu_scatter(const pt_mem_ref *bufs, int nbuf, const double *a, int na);
int cpu_index_put(const pt_mem_ref *bufs, int nbuf, const double *a, int na, int get);
int cpu_nonzero(const pt_mem_ref *bufs, int nbuf, const double *a, int na);
int cpu_masked_select(const pt_mem_ref *bufs, int nbuf, const double *a, int na);
int cpu_philox(const pt_mem_ref *bufs, int nbuf, const double *a, int na);
int cpu_attention(const pt_mem_ref *bufs, int nbuf, const double *a, int na);
int cpu_rownorm(const pt_mem_ref *bufs, int nbuf, const double *a, int na);
int cpu_im2col(const pt_mem_ref *bufs, int nbuf, const double *a, int na);
int cpu_has_blas(void);

#endif
