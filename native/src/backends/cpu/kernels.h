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
int cpu_has_blas(void);

#endif
