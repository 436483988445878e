/* params.h: how the Metal driver hands a launch to a compute kernel, and what every MSL
 * program of the renderer (src/kernels/msl.ts) must define.
 *
 * Ownership and ordering. A program is MSL source (it may end with a NUL) compiled by
 * newLibraryWithSource; it defines
 *
 *   kernel void pt_main(device uchar *b0 [[buffer(0)]], ..., device uchar *b15 [[buffer(15)]],
 *                       constant pt_mtl_params &p [[buffer(16)]],
 *                       device pt_mtl_error *err [[buffer(17)]],
 *                       uint3 group [[threadgroup_position_in_grid]],
 *                       uint3 groups [[threadgroups_per_grid]],
 *                       uint lid [[thread_position_in_threadgroup]])
 *
 * with the two structs below copied verbatim (msl.ts emits the same text). Buffers of
 * pt_launch's handle list are bound at indices 0..nbuf-1 (unused indices get a dummy
 * buffer); params are passed with setBytes. Metal has no 64-bit float, so the driver
 * converts the kind's argument block (core/blocks.h) slot by slot: ai[k] holds slot k as an
 * exact integer (0 when the slot is not an integer in int64 range) and af[k] the slot
 * rounded to float. Views are validated on the host by pt_block_check() before encoding.
 * float64 tensors are not supported (capability "f64" is 0, and launching one is
 * PT_EUNSUPPORTED); int64 is. A kernel meeting bad data does
 * `if (atomic_compare_exchange_weak_explicit(&err->code, &zero, PT_KERR_x, ...)) { err->d[..] = .. }`
 * and returns; the driver reads and clears the block when a command buffer it waited for
 * completed, and reports PT_EKERNEL there.
 *
 * Threadgroups of 256 threads (PT_MTL_GROUP) for every kind; dispatchThreadgroups sizes
 * from blocks.h's work shapes, exactly as the Vulkan driver's (vulkan/params.h):
 *   ELEMENT: (min(ceil(work/256), 65535), 1, 1), grid-stride loop over elements;
 *   ROW: (min(rows, 65535), 1, 1), a group per row, cooperating through threadgroup memory;
 *   SERIAL: (1, 1, 1);
 *   matmul: (min(ceil(N/64), 65535), min(ceil(M/64), 65535), min(batch, 65535)), 64x64 tiles
 *     of C, a group taking every groups-th one in each dimension (and every groups.z-th batch).
 */
#ifndef PT_MTL_PARAMS_H
#define PT_MTL_PARAMS_H
#include <stdint.h>

#define PT_MTL_GROUP 256
#define PT_MTL_MAX_BUFS 16
#define PT_MTL_MAX_ARGS 240

/* Also emitted as MSL source by src/kernels/msl.ts; keep the two identical. */
typedef struct {
  int nbuf;
  int nargs;
  long long ai[PT_MTL_MAX_ARGS];
  float af[PT_MTL_MAX_ARGS];
} pt_mtl_params;

typedef struct {
  unsigned int code; /* atomic_uint in MSL */
  unsigned int pad;
  long long d[3];
} pt_mtl_error;

#define PT_KERR_INDEX 1   /* details: index value, axis, axis size */
#define PT_KERR_INT_DIV 2 /* details: element, 0 division / 1 modulo */
#define PT_KERR_COUNT 4   /* nonzero/masked_select: count differs; details: expected, found */

#endif
