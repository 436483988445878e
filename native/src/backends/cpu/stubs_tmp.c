/* stubs_tmp.c: TEMPORARY weak stand-ins for the kernels of kernels.h, so that the library
 * links while the kernel files are being written. A real definition in ew.c, reduce.c,
 * ... overrides each one. Delete this file once every kernel exists.
 */
#include "kernels.h"

#define PT_STUB(name) return pt_error(PT_EUNSUPPORTED, "cpu: kernel " name " is not built yet")
#define PT_UNUSED4 (void)bufs; (void)nbuf; (void)a; (void)na

__attribute__((weak)) int cpu_ew_compile(const uint8_t *src, size_t len, cpu_ew_program **out) { (void)src; (void)len; (void)out; PT_STUB("ew"); }
__attribute__((weak)) void cpu_ew_free(cpu_ew_program *p) { (void)p; }
__attribute__((weak)) int cpu_ew_run(const cpu_ew_program *p, const pt_mem_ref *bufs, int nbuf, const double *a, int na) { (void)p; PT_UNUSED4; PT_STUB("ew"); }
__attribute__((weak)) int cpu_reduce(const pt_mem_ref *bufs, int nbuf, const double *a, int na) { PT_UNUSED4; PT_STUB("reduce"); }
__attribute__((weak)) int cpu_scan(const pt_mem_ref *bufs, int nbuf, const double *a, int na) { PT_UNUSED4; PT_STUB("scan"); }
__attribute__((weak)) int cpu_matmul(const pt_mem_ref *bufs, int nbuf, const double *a, int na) { PT_UNUSED4; PT_STUB("matmul"); }
__attribute__((weak)) int cpu_sort(const pt_mem_ref *bufs, int nbuf, const double *a, int na) { PT_UNUSED4; PT_STUB("sort"); }
__attribute__((weak)) int cpu_gather(const pt_mem_ref *bufs, int nbuf, const double *a, int na) { PT_UNUSED4; PT_STUB("gather"); }
__attribute__((weak)) int cpu_scatter(const pt_mem_ref *bufs, int nbuf, const double *a, int na) { PT_UNUSED4; PT_STUB("scatter"); }
__attribute__((weak)) int cpu_index_put(const pt_mem_ref *bufs, int nbuf, const double *a, int na, int get) { PT_UNUSED4; (void)get; PT_STUB("index_put"); }
__attribute__((weak)) int cpu_nonzero(const pt_mem_ref *bufs, int nbuf, const double *a, int na) { PT_UNUSED4; PT_STUB("nonzero"); }
__attribute__((weak)) int cpu_masked_select(const pt_mem_ref *bufs, int nbuf, const double *a, int na) { PT_UNUSED4; PT_STUB("masked_select"); }
__attribute__((weak)) int cpu_philox(const pt_mem_ref *bufs, int nbuf, const double *a, int na) { PT_UNUSED4; PT_STUB("philox"); }
__attribute__((weak)) int cpu_has_blas(void) { return 0; }
