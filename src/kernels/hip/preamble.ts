/**
 * What HIP programs add to the CUDA renderer's text: the HIP dialect's part of the
 * preamble, and the rewrites that turn a CUDA program into a HIP one. hiprtc pre-includes
 * HIP's runtime header, so threadIdx, __syncthreads, the 64-bit atomics, libm, the __fadd_rn
 * family and HIP's maskless cross-lane intrinsics are there without an #include.
 *
 * What differs from CUDA, and where it is handled:
 * - wave size: 32 (RDNA) or 64 (CDNA, GCN), where CUDA kernels are written for warps of 32.
 *   The CUDA kernels' warp code (shuffle folds, (tid & 31) == 0 leaders, __syncwarp between
 *   steps that stay inside 32 lanes) keeps its meaning on a wave of 64 when every cross-lane
 *   operation works on groups of 32 lanes: the shuffles below pass width 32, ballots take the
 *   caller's half of the wave, and a wave barrier covers both halves. The driver passes
 *   -DPT_WAVE_SIZE from the device for code that wants the real size.
 * - masks: CUDA's _sync intrinsics take a lane mask; HIP's take none (the whole wave). The
 *   kernels only use full masks, so the mask is dropped.
 * - contraction: HIP's clang fuses a*b+c into fma by default (fp-contract=fast-honor-pragmas)
 *   and its __fmul_rn/__fadd_rn are plain operators once inlined, so the pragma below (and
 *   the driver's -ffp-contract=off) keep one rounding per op, as the CPU backend has.
 * - launch bounds: AMD's compiler assumes up to 1024 threads a block unless told; every
 *   pt_main declares 256. CUDA's own bounds are dropped: their second argument (blocks per
 *   SM, tuned with ptxas for sm_90) means minimum waves per execution unit to HIP.
 * - pt_params: cuda/params.h's struct, as the CUDA text has it (the HIP build of the driver
 *   uses that header too).
 */

/** The first line of every CUDA program (src/kernels/cuda/preamble.ts), replaced below. */
export const CUDA_FIRST_LINE = "/* polytensor CUDA program (src/kernels/cuda.ts); compiled by NVRTC. */\n";

/** The start of every HIP program, in place of the CUDA first line. */
export const HIP_PART = String.raw`/* polytensor HIP program (src/kernels/hip.ts); compiled by hiprtc. */
#if defined(__HIP__)
#pragma clang fp contract(off)
#endif
#ifndef PT_WAVE_SIZE
#define PT_WAVE_SIZE warpSize /* the driver defines it from the device: 32 or 64 */
#endif
/* CUDA's warp intrinsics (full masks, warps of 32) in HIP's, on groups of 32 lanes. */
template <class T> static __device__ __forceinline__ T pt_hip_shfl_sync(unsigned long long, T v, int lane, int w = 32) {
  return __shfl(v, lane, w);
}
template <class T> static __device__ __forceinline__ T pt_hip_shfl_up_sync(unsigned long long, T v, unsigned d, int w = 32) {
  return __shfl_up(v, d, w);
}
template <class T> static __device__ __forceinline__ T pt_hip_shfl_down_sync(unsigned long long, T v, unsigned d, int w = 32) {
  return __shfl_down(v, d, w);
}
template <class T> static __device__ __forceinline__ T pt_hip_shfl_xor_sync(unsigned long long, T v, int m, int w = 32) {
  return __shfl_xor(v, m, w);
}
/* The bits of the caller's 32 lanes: lanes 32-63 of a wave of 64 form a warp of their own. */
static __device__ __forceinline__ unsigned pt_hip_ballot_sync(unsigned long long, int p) {
  return (unsigned)((unsigned long long)__ballot(p) >> (__lane_id() & 32u));
}
static __device__ __forceinline__ int pt_hip_any_sync(unsigned long long m, int p) { return pt_hip_ballot_sync(m, p) != 0u; }
static __device__ __forceinline__ int pt_hip_all_sync(unsigned long long m, int p) { return pt_hip_ballot_sync(m, !p) == 0u; }
/* A wave runs in lock-step, but shared-memory writes must be ordered before the other
 * lanes read them: a wave-scope fence on each side of the wave barrier. */
static __device__ __forceinline__ void pt_hip_syncwarp(unsigned long long = 0) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
#define __shfl_sync pt_hip_shfl_sync
#define __shfl_up_sync pt_hip_shfl_up_sync
#define __shfl_down_sync pt_hip_shfl_down_sync
#define __shfl_xor_sync pt_hip_shfl_xor_sync
#define __ballot_sync pt_hip_ballot_sync
#define __any_sync pt_hip_any_sync
#define __all_sync pt_hip_all_sync
#define __syncwarp pt_hip_syncwarp
`;

/** A kernel declaration in CUDA programs (once CUDA's launch bounds are dropped), and in HIP ones. */
export const CUDA_KERNEL = 'extern "C" __global__ void pt_main(const pt_params p)';
export const HIP_KERNEL = 'extern "C" __global__ __launch_bounds__(PT_BLOCK) void pt_main(const pt_params p)';
/** CUDA's launch bounds, with the space after them. */
export const CUDA_BOUNDS = /__launch_bounds__\([^()]*\)\s*/g;

/**
 * A CUDA program of the CUDA renderer as a HIP program: the HIP part in place of the first
 * line, CUDA's launch bounds dropped and HIP's put on the first declaration of pt_main (a
 * definition inherits them). Throws when the text is not what this
 * expects: a changed CUDA preamble must be looked at here, not passed on unexamined.
 */
export function cudaToHip(cuda: string): string {
  if (!cuda.startsWith(CUDA_FIRST_LINE)) {
    throw new Error("hip renderer: the CUDA program does not start with the CUDA preamble's first line");
  }
  const body = cuda.slice(CUDA_FIRST_LINE.length).replace(CUDA_BOUNDS, "");
  if (!body.includes(CUDA_KERNEL)) throw new Error(`hip renderer: the CUDA program declares no ${CUDA_KERNEL}`);
  return HIP_PART + body.replace(CUDA_KERNEL, HIP_KERNEL);
}
