/* grid.c: launch shapes (params.h) from the argument block.
 *
 * Ownership and ordering. Pure functions over the block: cuda_launch() calls cuda_plan()
 * before it queues anything, so a block that does not fit pt_params, or whose views leave
 * their buffers (core blocks.c), fails with PT_EINVAL and nothing runs. Kernels loop with grid
 * strides and never assume the grid, so the caps below only trade parallelism for
 * launch size; block size is always PT_CUDA_BLOCK.
 */
#include <string.h>
#include "cuda.h"

int cuda_plan(const cuda_ctx *c, int kind, const pt_mem_ref *bufs, int nbuf, const double *a, int na, unsigned *grid,
              pt_matmul_plan *mm) {
  const char *name = pt_program_kind_name(kind);
  if (nbuf > PT_CUDA_MAX_BUFS)
    return pt_error(PT_EINVAL, "cuda: a %s launch names %d buffers; CUDA kernels take at most %d (params.h)", name, nbuf,
                    PT_CUDA_MAX_BUFS);
  if (na > PT_CUDA_MAX_ARGS)
    return pt_error(PT_EINVAL, "cuda: a %s launch has %d argument slots; CUDA kernels take at most %d (params.h)", name, na,
                    PT_CUDA_MAX_ARGS);
  int64_t work = 0;
  int st = pt_block_check(kind, bufs, nbuf, a, na, &work, mm, NULL);
  if (st != PT_OK) return st;
  switch (pt_program_kind_shape(kind)) {
  case PT_SHAPE_ELEMENT: {
    /* Enough blocks to fill every SM 32 times over (256 threads each); beyond that the
     * grid-stride loop takes over, which costs nothing and keeps launches small. */
    int64_t blocks = (work + PT_CUDA_BLOCK - 1) / PT_CUDA_BLOCK, cap = 32 * (int64_t)c->sms;
    *grid = (unsigned)(work <= 0 ? 0 : blocks < cap ? blocks : cap);
    break;
  }
  case PT_SHAPE_ROW: /* one block per row; 65535 is the portable limit of a grid dimension */
    *grid = (unsigned)(work <= 0 ? 0 : work < 65535 ? work : 65535);
    break;
  default: /* SERIAL: one block keeps blocks.h's write order (and reports counts) */
    *grid = 1;
    break;
  }
  return PT_OK;
}
