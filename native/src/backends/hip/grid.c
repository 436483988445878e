/* grid.c: launch shapes (params.h) from the argument block.
 *
 * Ownership and ordering. Pure functions over the block: hipd_launch() calls hipd_plan()
 * before it queues anything, so a block that does not fit pt_params, or whose views leave
 * their buffers (core blocks.c), fails with PT_EINVAL and nothing runs; on HIP this check
 * matters more than on CUDA, since ROCm ends the process on a GPU memory fault. Kernels
 * loop with grid strides and never assume the grid, so the caps below only trade
 * parallelism for launch size; block size is always PT_HIP_BLOCK whatever the wave size.
 */
#include <string.h>
#include "hip.h"

int hipd_plan(const hip_ctx *c, int kind, const pt_mem_ref *bufs, int nbuf, const double *a, int na, unsigned *grid,
              pt_matmul_plan *mm) {
  const char *name = pt_program_kind_name(kind);
  if (nbuf > PT_HIP_MAX_BUFS)
    return pt_error(PT_EINVAL, "hip: a %s launch names %d buffers; HIP kernels take at most %d (params.h)", name, nbuf,
                    PT_HIP_MAX_BUFS);
  if (na > PT_HIP_MAX_ARGS)
    return pt_error(PT_EINVAL, "hip: a %s launch has %d argument slots; HIP kernels take at most %d (params.h)", name, na,
                    PT_HIP_MAX_ARGS);
  int64_t work = 0;
  int st = pt_block_check(kind, bufs, nbuf, a, na, &work, mm, NULL);
  if (st != PT_OK) return st;
  switch (pt_program_kind_shape(kind)) {
  case PT_SHAPE_ELEMENT: {
    /* 32 blocks of 256 per compute unit, as on CUDA; beyond that the grid-stride loop takes
     * over, which keeps launches small. */
    int64_t blocks = (work + PT_HIP_BLOCK - 1) / PT_HIP_BLOCK, cap = 32 * (int64_t)c->sms;
    *grid = (unsigned)(work <= 0 ? 0 : blocks < cap ? blocks : cap);
    break;
  }
  case PT_SHAPE_ROW: /* one block per row; 65535 keeps the CUDA shapes (HIP allows more) */
    *grid = (unsigned)(work <= 0 ? 0 : work < 65535 ? work : 65535);
    break;
  default: /* SERIAL: one block keeps blocks.h's write order (and reports counts) */
    *grid = 1;
    break;
  }
  return PT_OK;
}
