/* vendor.h: what the HIP build of backends/cuda's shared files takes from HIP (ggml's
 * vendors/hip.h is the model): its column of cuda/lib.h's rows, the calls and numbers only
 * HIP has, the names that keep the two builds apart, and the words of its messages.
 *
 * Ownership and ordering. Included by cuda/lib.h after the types and codes HIP shares with
 * CUDA, and only with -DPT_VENDOR_HIP (build.zig). No ROCm header is included: what is
 * declared here comes from the public HIP API reference. What HIP does otherwise lives in
 * hip.c, behind cuda/cuda.h's vendor hooks. The attribute numbers are those of HIP 5.0 and
 * later; hip.c checks the answers, since an older runtime would give plausible nonsense.
 */
#ifndef PT_HIP_VENDOR_H
#define PT_HIP_VENDOR_H

#define CUDAAPI
/* HIP declares device addresses void *; CUdeviceptr holds them as 64-bit integers, which
 * every 64-bit ABI passes the same way. */
_Static_assert(sizeof(void *) == sizeof(unsigned long long), "HIP runs on 64-bit targets only");
enum { HIP_ATTR_MAX_THREADS_PER_BLOCK = 56, HIP_ATTR_MULTIPROCESSOR_COUNT = 63, HIP_ATTR_WARP_SIZE = 87 };
enum { HIP_HOST_MALLOC_MAPPED = 2, HIP_HOST_MALLOC_COHERENT = 0x40000000, HIPBLAS_OP_N = 111, HIPBLAS_OP_T = 112 };

/* HIP's own calls, X(field, symbol, fallback or NULL, required, return type, parameters).
 * hipGetDeviceProperties is only read for gcnArchName (hip.c finds it in a generous
 * buffer): ROCm 6 renamed the current layout hipGetDevicePropertiesR0600. */
#define PT_HIP_OWN(X)                                                                                        \
  X(GetErrorName, "hipGetErrorName", NULL, 1, const char *, (CUresult e))                                   \
  X(GetErrorString, "hipGetErrorString", NULL, 1, const char *, (CUresult e))                               \
  X(RuntimeGetVersion, "hipRuntimeGetVersion", NULL, 1, CUresult, (int *v))                                 \
  X(GetDeviceProperties, "hipGetDevicePropertiesR0600", "hipGetDeviceProperties", 0, CUresult, (void *props, int device)) \
  X(SetDevice, "hipSetDevice", NULL, 1, CUresult, (int device))                                             \
  X(DeviceReset, "hipDeviceReset", NULL, 0, CUresult, (void))
#define PT_HIP_NONE(X)
#define GPU_SYM(cuda, alt, hip) hip, NULL
#define GPU_OWN_CU PT_HIP_OWN
#define GPU_OWN_RTC PT_HIP_NONE
#define GPU_OWN_BLAS PT_HIP_NONE

/* The HIP copies of the names the two builds would otherwise both define. */
#define cu hip
#define nvrtc hiprtc
#define cublas hipblas
#define cu_rows hip_rows
#define nvrtc_rows hiprtc_rows
#define cublas_rows hipblas_rows
#define cu_load hip_load
#define nvrtc_load hiprtc_load
#define cublas_load hipblas_load
#define nvrtc_version hiprtc_version
#define nvrtc_path hiprtc_path
#define cublas_path hipblas_path
int hip_runtime_version(void); /* after hip_load(): as HIP encodes it (major*10^7 + minor*10^5 + patch) */
const char *hip_path(void);

#define GPU_TAG "hip"
#define GPU_API "HIP"
#define GPU_LOST "device %d"
#define GPU_DRIVER pt_driver_hip
#define GPU_BIND SetDevice /* vendor_bind's call: the current device is per thread */
#define GPU_BLAS "hipBLAS"
#define GPU_RTC "hiprtc"
#define GPU_SOURCE "HIP"
#define GPU_SRC_EXT ".hip"
#define GPU_IMAGE_EXT ".hsaco"
#define GPU_NO_GRAPHS "the runtime lacks the graph API (hipStreamBeginCapture, hipGraphInstantiateWithFlags; ROCm 4.5+)"
#define GPU_BLAS_OP_N HIPBLAS_OP_N
#define GPU_BLAS_OP_T HIPBLAS_OP_T
#define GPU_BLAS_SWITCH "PT_HIP_BLAS"
#define GPU_BLAS_DEFAULT_MATH(h) CUBLAS_STATUS_SUCCESS /* hipBLAS's default has no reduced-precision path */
/* hipblasComputeType_t and hipblasGemmAlgo_t of the _v2 GemmEx calls (ROCm 6; ROCm 7 names
 * them without the suffix, which this table does not look for yet: matmul then uses its kernel) */
#define GPU_BLAS_COMPUTE_32F 2       /* HIPBLAS_COMPUTE_32F */
#define GPU_BLAS_COMPUTE_TF32 6      /* HIPBLAS_COMPUTE_32F_FAST_TF32 */
#define GPU_BLAS_GEMM_DEFAULT 160    /* HIPBLAS_GEMM_DEFAULT */
/* Coherent: kernels' and stream writes' words are read with plain loads (coarse-grained
 * host memory is only made visible at a host wait, and the completion word is polled). */
#define GPU_HOST_MAPPED (HIP_HOST_MALLOC_MAPPED | HIP_HOST_MALLOC_COHERENT)
typedef struct { char arch[128]; } cuda_vendor_ctx; /* gcnArchName ("gfx90a:sramecc+:xnack-"), "" when unknown */

#endif
