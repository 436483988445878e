/* params.h: how the CUDA driver hands a launch to a kernel, and what every CUDA program
 * the TypeScript renderer (src/kernels/cuda.ts) produces must define.
 *
 * Ownership and ordering. A program is CUDA C source compiled by NVRTC; it defines
 *     extern "C" __global__ void pt_main(const pt_params p)
 * with the struct below copied verbatim (the renderer emits the same text). The driver
 * fills buf[] with the device pointers of the resolved buffers (in the order of
 * pt_launch's handle list), a[] with the kind-specific argument block of core/blocks.h (the
 * same layouts as the CPU backend), and err with a device pointer to this context's error
 * word block. Kernels use grid-stride loops: the grid comes from the driver's per-kind
 * work estimate (grid.c) and is never assumed. A kernel that meets bad data (an index out
 * of range in error mode, integer division by zero) does
 *     atomicCAS((int *)p.err, 0, code) == 0 ? (p.err[1..3] = details) : ...
 * with code one of PT_KERR_* below, and returns; the driver reads the word block
 * at the next synchronisation point and reports PT_EKERNEL there, naming the program kind
 * and the details, then clears it. Integer slots of a[] hold exact integers as doubles.
 * The HIP build of this driver (hip/vendor.h) uses this header as it is, and HIP programs
 * (src/kernels/hip.ts) carry the same struct: hipModuleLaunchKernel passes it alike.
 */
#ifndef PT_CUDA_PARAMS_H
#define PT_CUDA_PARAMS_H

#define PT_CUDA_MAX_BUFS 16
#define PT_CUDA_MAX_ARGS 240
#ifndef PT_CUDA_MAX_SLOTS /* slots of a[] the program reads: a program may define fewer, so each launch copies less */
#define PT_CUDA_MAX_SLOTS PT_CUDA_MAX_ARGS
#endif

/* Also emitted as CUDA source by src/kernels/cuda.ts; keep the two identical. */
typedef struct {
  unsigned long long buf[PT_CUDA_MAX_BUFS];
  unsigned long long err; /* long long[4]: code, detail0, detail1, detail2 */
  int nbuf;
  int nargs;
  double a[PT_CUDA_MAX_SLOTS];
} pt_params;

/* Error codes written to err[0] by kernels (0 = none). */
#define PT_KERR_INDEX 1     /* details: index value, axis, axis size */
#define PT_KERR_INT_DIV 2   /* details: element, 0 division / 1 modulo */
#define PT_KERR_COUNT 4     /* nonzero/masked_select: count differs; details: expected, found */

/* Launch shapes per program kind (grid.c computes them from a[]; kernels rely on them):
 *   ELEMENT (ew, gather, index_get, philox): block 256, grid = min(ceil(work/256), 32*SMs),
 *     work = elements of the output; kernels loop i = blockIdx.x*256+threadIdx.x; i < work;
 *     i += gridDim.x*256.
 *   ROW (reduce, scan, sort): block 256, grid = min(rows, 65535), rows = product of the
 *     outer shape; a block owns rows blockIdx.x, +gridDim.x, ... and its 256 threads
 *     cooperate on one row (shared-memory reduction / scan / sort).
 *   SERIAL (scatter, index_put, nonzero, masked_select): block 256,
 *     grid 1; kernels keep blocks.h's row-major write order (last writer wins) by
 *     having thread 0 do ordered writes, or by a block-wide ordered scan for compaction.
 *   matmul uses cuBLAS (opened at run time) when every batch matrix has a unit stride in
 *   one dim; otherwise the program's own kernel runs as ELEMENT over M*N*batch outputs.
 */

#endif
