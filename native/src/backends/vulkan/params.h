/* params.h: how the Vulkan driver hands a launch to a compute shader, and what every GLSL
 * program of the renderer (src/kernels/glsl.ts) must define.
 *
 * Ownership and ordering. A program is GLSL 4.60 compute source (it may end with a NUL),
 * compiled at run time by libshaderc to SPIR-V for Vulkan 1.2, entry point "main", with
 * local_size_x = 256 (PT_VK_GROUP) and y = z = 1. Buffers are reached by device address
 * (bufferDeviceAddress, core in 1.2): there are no descriptor sets. For each launch the
 * driver writes one pt_vk_params record into a host-visible ring that it owns and that
 * stays untouched until the batch holding the launch has completed; the shader receives
 * the record's address as its only push constant:
 *
 *   layout(push_constant) uniform PtPush { uint64_t params; } pt_push;
 *   layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer PtParams {
 *     uint64_t buf[16]; uint64_t err; int nbuf; int nargs; double a[240];
 *   };
 *
 * buf[i] is the device address of the start of pt_launch's buffer i (views add their
 * element offsets), a[] the kind's argument block (core/blocks.h; integer slots hold exact
 * integers), validated on the host by pt_block_check() before anything is recorded, so a
 * shader may trust every view. err is the device address of the context's error block
 * { uint code; uint pad; int64_t d0, d1, d2; } in host-visible memory: a kernel meeting
 * bad data does `if (atomicCompSwap(code, 0u, PT_KERR_x) == 0u) { d0 = ..; d1 = ..; d2 = ..; }`
 * and returns; the driver reads and clears the block when a host wait has seen the work
 * finish, and reports PT_EKERNEL naming the kinds that ran since the last read.
 *
 * Dispatch sizes (x, y, z), from blocks.h's work shapes:
 *   ELEMENT (ew, gather, index_get, philox): (min(ceil(work/256), 4096), 1, 1); kernels loop
 *     i = gl_WorkGroupID.x*256 + gl_LocalInvocationID.x; i < work; i += gl_NumWorkGroups.x*256.
 *   ROW (reduce, scan, sort): (min(rows, 65535), 1, 1); group g owns rows g, g + gl_NumWorkGroups.x, ...
 *     and its 256 invocations cooperate on one row through shared memory.
 *   SERIAL (scatter, index_put, nonzero, masked_select): (1, 1, 1); row-major write order.
 *   matmul: (min(ceil(N/T), 65535), min(ceil(M/T), 65535), min(batch, 65535)) with T = 128
 *     when M > 64 and N > 64, else T = 64: a group computes the TxT tiles of C at tile
 *     columns x, x + gl_NumWorkGroups.x, ... and rows y, y + gl_NumWorkGroups.y, ... for
 *     batches z, z + gl_NumWorkGroups.z, ... (there is no vendor BLAS); the shader applies
 *     the same rule to M and N. Small products, M*N <= 256: (1, 1, min(ceil(batch/P), 65535))
 *     with P = 256 / (M*N) batches a group, one output an invocation (no tile).
 * A launch with no work records nothing.
 *
 * Device requirements, checked at activation (a device lacking one is listed, and opening
 * it fails with PT_EUNSUPPORTED naming the feature): Vulkan 1.2, bufferDeviceAddress,
 * shaderInt64, shaderFloat64 (argument slots are doubles), storageBuffer8BitAccess and
 * storageBuffer16BitAccess (u8/bool and f16/bf16 are stored as uint8_t / uint16_t and
 * converted by bit manipulation), timelineSemaphore (else per-submit fences).
 * The driver defines these macros for shaderc: PT_VK_SUBGROUP (the subgroup size), and
 * PT_VK_DENORM_PRESERVE_F32 = 1 when the device can preserve f32 subnormals (the CPU
 * backend keeps them), so the renderer may request DenormPreserve for 32-bit floats.
 */
#ifndef PT_VK_PARAMS_H
#define PT_VK_PARAMS_H
#include <stdint.h>

#define PT_VK_GROUP 256
#define PT_VK_MAX_BUFS 16
#define PT_VK_MAX_ARGS 240

typedef struct {
  uint64_t buf[PT_VK_MAX_BUFS];
  uint64_t err;
  int32_t nbuf;
  int32_t nargs;
  double a[PT_VK_MAX_ARGS];
} pt_vk_params; /* 2064 bytes, std430-compatible */

/* Error codes written to the error block by kernels (0 = none); the same as CUDA's. */
#define PT_KERR_INDEX 1   /* details: index value, axis, axis size */
#define PT_KERR_INT_DIV 2 /* details: element, 0 division / 1 modulo */
#define PT_KERR_COUNT 4   /* nonzero/masked_select: count differs; details: expected, found */

#endif
