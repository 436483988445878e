/* params.h: how the HIP driver hands a launch to a kernel, and what every HIP program the
 * TypeScript renderer (src/kernels/hip.ts) produces must define.
 *
 * Ownership and ordering. A program is HIP C++ source compiled by hiprtc for the device's
 * gcnArchName; it defines
 *     extern "C" __global__ __launch_bounds__(256) void pt_main(const pt_params p)
 * with the struct below copied verbatim (the renderer emits the same text: it is the CUDA
 * renderer's struct with the limits renamed PT_HIP_*). The driver fills buf[] with the
 * device pointers of the resolved buffers (in the order of pt_launch's handle list), a[]
 * with the kind-specific argument block of core/blocks.h, and err with a device pointer to
 * this device's error word block, and passes the struct by value through
 * hipModuleLaunchKernel. Kernels use grid-stride loops and blocks of 256 threads whatever
 * the wave size (32 on RDNA, 64 on CDNA/GCN): no kernel relies on lock-step lanes, only on
 * __syncthreads(). A kernel that meets bad data does
 *     atomicCAS((unsigned long long *)p.err, 0, code) == 0 ? (p.err[1..3] = details) : ...
 * with code one of PT_KERR_* below, and returns; the driver reads the word block at the
 * next synchronisation point and reports PT_EKERNEL there, then clears it. Launch shapes
 * are CUDA's (cuda/params.h), with compute units in place of SMs.
 */
#ifndef PT_HIP_PARAMS_H
#define PT_HIP_PARAMS_H

#define PT_HIP_MAX_BUFS 16
#define PT_HIP_MAX_ARGS 240
#ifndef PT_HIP_MAX_SLOTS /* slots of a[] the program reads: a program may define fewer, so each launch copies less */
#define PT_HIP_MAX_SLOTS PT_HIP_MAX_ARGS
#endif

typedef struct {
  unsigned long long buf[PT_HIP_MAX_BUFS];
  unsigned long long err; /* long long[4]: code, detail0, detail1, detail2 */
  int nbuf;
  int nargs;
  double a[PT_HIP_MAX_SLOTS];
} pt_params;

/* Error codes written to err[0] by kernels (0 = none). */
#define PT_KERR_INDEX 1     /* details: index value, axis, axis size */
#define PT_KERR_INT_DIV 2   /* details: element, 0 division / 1 modulo */
#define PT_KERR_COUNT 4     /* nonzero/masked_select: count differs; details: expected, found */

#endif
