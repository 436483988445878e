/**
 * HIP on CUDA: a small header that lets NVRTC compile HIP programs, so that the HIP
 * renderer's output, HIP part included, can be compiled and run on an NVIDIA GPU and
 * compared with the CPU (PT_CUDA_KERNELS=hip; see src/kernels/hip.ts). It gives CUDA what
 * HIP has and CUDA lacks: the wave size (NVIDIA warps are 32 lanes), HIP's maskless
 * cross-lane intrinsics (as CUDA's _sync forms over the whole warp; CUDA still declares
 * deprecated maskless forms of its own, with other return types, so HIP's names are macros
 * for functions named pt_cuda_*), __lane_id, and AMD's
 * wave barrier (CUDA's __syncwarp, which also orders the warp's memory, so the wave-scope
 * fences around it have nothing left to do). It comes first: the HIP part then maps CUDA's
 * _sync names onto these, which call CUDA's real ones. __HIP__ is not defined, so the HIP
 * part's clang pragma stays out (NVRTC gets -fmad=false instead).
 */
export const HIP_ON_CUDA = String.raw`/* hip-on-cuda compatibility header (src/kernels/hip/cuda_compat.ts) */
#define PT_HIP_ON_CUDA 1
#define PT_WAVE_SIZE 32
template <class T> static __device__ __forceinline__ T pt_cuda_shfl(T v, int lane, int w = 32) {
  return __shfl_sync(0xffffffffu, v, lane, w);
}
template <class T> static __device__ __forceinline__ T pt_cuda_shfl_up(T v, unsigned d, int w = 32) {
  return __shfl_up_sync(0xffffffffu, v, d, w);
}
template <class T> static __device__ __forceinline__ T pt_cuda_shfl_down(T v, unsigned d, int w = 32) {
  return __shfl_down_sync(0xffffffffu, v, d, w);
}
template <class T> static __device__ __forceinline__ T pt_cuda_shfl_xor(T v, int m, int w = 32) {
  return __shfl_xor_sync(0xffffffffu, v, m, w);
}
static __device__ __forceinline__ unsigned long long pt_cuda_ballot(int p) { return __ballot_sync(0xffffffffu, p); }
static __device__ __forceinline__ int pt_cuda_any(int p) { return __any_sync(0xffffffffu, p); }
static __device__ __forceinline__ int pt_cuda_all(int p) { return __all_sync(0xffffffffu, p); }
static __device__ __forceinline__ unsigned pt_cuda_lane_id() { return threadIdx.x & 31u; }
#define __shfl pt_cuda_shfl
#define __shfl_up pt_cuda_shfl_up
#define __shfl_down pt_cuda_shfl_down
#define __shfl_xor pt_cuda_shfl_xor
#define __ballot pt_cuda_ballot
#define __any pt_cuda_any
#define __all pt_cuda_all
#define __lane_id pt_cuda_lane_id
#define __builtin_amdgcn_wave_barrier() __syncwarp()
#define __builtin_amdgcn_fence(order, scope) ((void)0)
`;
