/* launch.c: one pt_launch on a HIP queue: check, then hipBLAS or hipModuleLaunchKernel.
 *
 * Ownership and ordering. The core has resolved the block's buffer handles to device
 * pointers and keeps them (and the program) alive for the call; the kernel may still be
 * running after it returns, and the core's allocator waits for it only through the
 * runtime's own frees (hipFree synchronises). pt_params is passed by value through
 * kernelParams (one pointer per kernel argument, as on CUDA), so the runtime copies it at
 * launch and nothing here outlives the call. A launch that fails on the GPU says so later,
 * at the next wait (stream.c), through the error word or a sticky error.
 */
#include <string.h>
#include "hip.h"

int hipd_launch(void *ctx, void *queue, void *prog, const pt_mem_ref *bufs, int nbuf, const double *args, int nargs) {
  hip_ctx *c = ctx;
  hip_queue *q = queue;
  hip_prog *p = prog;
  unsigned grid = 0;
  pt_matmul_plan mm;
  memset(&mm, 0, sizeof mm);
  int st = hipd_plan(c, p->kind, bufs, nbuf, args, nargs, &grid, &mm);
  if (st != PT_OK) return st;
  if ((st = hip_enter(c)) != PT_OK) return st;
  if (p->kind == PT_K_MATMUL) {
    if (mm.batch == 0 || mm.M == 0 || mm.N == 0) return PT_OK;
    if ((st = hipd_blas_matmul(c, q->s, &mm, bufs)) <= 0) return st; /* done, or failed; 1: the kernel's turn */
  }
  if (grid == 0) return PT_OK; /* no work: nothing to launch */
  if (!p->fn)
    return pt_error(PT_EUNSUPPORTED, "hip: this %s program has no kernel (it was made from empty source) and hipBLAS cannot "
                    "run this product (dtype %d, or strides without a unit dim, or hipBLAS is missing)",
                    pt_program_kind_name(p->kind), mm.dtype);

  pt_params params;
  memset(&params, 0, sizeof params);
  for (int i = 0; i < nbuf; i++) params.buf[i] = (unsigned long long)(uintptr_t)bufs[i].mem;
  params.err = (unsigned long long)(uintptr_t)c->errblk;
  params.nbuf = nbuf;
  params.nargs = nargs;
  if (nargs > 0) memcpy(params.a, args, (size_t)nargs * sizeof(double));
  void *kp[1] = {&params};

  /* Marked before the launch, so that a wait that sees the kernel finish also reads the
   * word, and a report can name the kinds that may have written it. */
  pt_mutex_lock(&c->lock);
  c->launched = 1;
  c->kinds_since |= 1u << p->kind;
  if (q->capturing) q->capture_kinds |= 1u << p->kind;
  pt_mutex_unlock(&c->lock);
  hipError_t r = hip.ModuleLaunchKernel(p->fn, grid, 1, 1, PT_HIP_BLOCK, 1, 1, 0, q->s, kp, NULL);
  return r == hipSuccess ? PT_OK : hip_fail(c, "hipModuleLaunchKernel", r);
}
