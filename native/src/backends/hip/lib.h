/* lib.h: the few HIP runtime, hiprtc and hipBLAS declarations this backend uses, and the
 * tables their entry points are resolved into at run time.
 *
 * Ownership and ordering. No ROCm header is included: every type, enum value and signature
 * below is declared here from the public HIP API reference, so the shim builds anywhere
 * (and for macOS, where HIP simply reports no runtime). lib.c owns the three library handles
 * and fills the tables once, under its own lock, on first use; the tables are never written
 * again, so callers read them without locking after a successful hip_load()/hiprtc_load()/
 * hipblas_load(). Libraries are never closed: unloading the runtime under live streams would
 * take the process down. The attribute numbers are those of HIP 5.0 and later (the
 * "CUDA-compatible" numbering); hip.c checks the answers for sanity, since an older runtime
 * with another numbering would otherwise give plausible-looking nonsense.
 */
#ifndef PT_HIP_LIB_H
#define PT_HIP_LIB_H
#include <stddef.h>

typedef int hipError_t;
typedef int hipDevice_t;
/* HIP declares device addresses void *; they are held as 64-bit integers here, which every
 * 64-bit ABI passes the same way, so the CUDA driver's address arithmetic runs unchanged. */
typedef unsigned long long hipDeviceptr_t;
_Static_assert(sizeof(void *) == sizeof(hipDeviceptr_t), "HIP runs on 64-bit targets only");
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct _hiprtcProgram *hiprtcProgram;
typedef int hiprtcResult;
typedef void *hipblasHandle_t;
typedef int hipblasStatus_t;

enum { /* the numbers are CUDA's, as HIP keeps them */
  hipSuccess = 0,
  hipErrorOutOfMemory = 2,
  hipErrorInvalidImage = 200,
  hipErrorNoBinaryForGpu = 209,
  hipErrorECCNotCorrectable = 214,
  hipErrorInvalidKernelFile = 218,
  hipErrorNotFound = 500,
  hipErrorNotReady = 600,
  hipErrorIllegalAddress = 700,
  hipErrorLaunchTimeOut = 702,
  hipErrorContextIsDestroyed = 709,
  hipErrorAssert = 710,
  hipErrorLaunchFailure = 719,
  hipErrorUnknown = 999,
};

enum { /* hipDeviceAttribute_t, HIP >= 5.0 */
  hipDeviceAttributeMaxThreadsPerBlock = 56,
  hipDeviceAttributeMultiprocessorCount = 63,
  hipDeviceAttributeWarpSize = 87,
};

enum { hipStreamNonBlocking = 1, hipEventDefault = 0, hipEventDisableTiming = 2, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0 };
enum { hipStreamCaptureModeRelaxed = 2 }; /* Global 0, ThreadLocal 1: our allocator may hipMalloc while capturing */
enum { hipHostMallocMapped = 2, hipHostMallocCoherent = 0x40000000 };
enum { HIPRTC_SUCCESS = 0 };
enum { HIPBLAS_STATUS_SUCCESS = 0, HIPBLAS_OP_N = 111, HIPBLAS_OP_T = 112 };

/* X(field, symbol, fallback symbol or NULL, required, return type, parameters). The fields
 * are the CUDA driver's names (cuda/lib.h), which the shared driver calls (vendor.h).
 * hipGetDeviceProperties is only used for gcnArchName (hip.c finds it in a generous buffer):
 * ROCm 6 renamed the current layout hipGetDevicePropertiesR0600, ROCm 5 has the old name. */
#define PT_HIP_FUNCS(X)                                                                                      \
  X(GetErrorName, "hipGetErrorName", NULL, 1, const char *, (hipError_t e))                                 \
  X(GetErrorString, "hipGetErrorString", NULL, 1, const char *, (hipError_t e))                             \
  X(RuntimeGetVersion, "hipRuntimeGetVersion", NULL, 1, hipError_t, (int *v))                               \
  X(GetDeviceCount, "hipGetDeviceCount", NULL, 1, hipError_t, (int *n))                                     \
  X(DeviceGet, "hipDeviceGet", NULL, 1, hipError_t, (hipDevice_t * d, int ordinal))                         \
  X(DeviceGetName, "hipDeviceGetName", NULL, 1, hipError_t, (char *name, int len, hipDevice_t d))           \
  X(DeviceTotalMem, "hipDeviceTotalMem", NULL, 1, hipError_t, (size_t *bytes, hipDevice_t d))               \
  X(DeviceGetAttribute, "hipDeviceGetAttribute", NULL, 1, hipError_t, (int *v, int attr, int device))       \
  X(GetDeviceProperties, "hipGetDevicePropertiesR0600", "hipGetDeviceProperties", 0, hipError_t,           \
    (void *props, int device))                                                                               \
  X(SetDevice, "hipSetDevice", NULL, 1, hipError_t, (int device))                                           \
  X(CtxSynchronize, "hipDeviceSynchronize", NULL, 1, hipError_t, (void))                                    \
  X(DeviceReset, "hipDeviceReset", NULL, 0, hipError_t, (void))                                             \
  X(MemAlloc, "hipMalloc", NULL, 1, hipError_t, (hipDeviceptr_t * p, size_t bytes))                         \
  X(MemFree, "hipFree", NULL, 1, hipError_t, (hipDeviceptr_t p))                                            \
  X(MemGetInfo, "hipMemGetInfo", NULL, 1, hipError_t, (size_t *fr, size_t *total))                          \
  X(MemcpyHtoDAsync, "hipMemcpyHtoDAsync", NULL, 1, hipError_t, (hipDeviceptr_t d, const void *s, size_t n, hipStream_t q)) \
  X(MemcpyDtoHAsync, "hipMemcpyDtoHAsync", NULL, 1, hipError_t, (void *d, hipDeviceptr_t s, size_t n, hipStream_t q)) \
  X(MemcpyDtoDAsync, "hipMemcpyDtoDAsync", NULL, 1, hipError_t, (hipDeviceptr_t d, hipDeviceptr_t s, size_t n, hipStream_t q)) \
  X(MemsetD8Async, "hipMemsetD8Async", NULL, 1, hipError_t, (hipDeviceptr_t d, unsigned char v, size_t n, hipStream_t q)) \
  X(StreamCreate, "hipStreamCreateWithFlags", NULL, 1, hipError_t, (hipStream_t * q, unsigned fl))          \
  X(StreamDestroy, "hipStreamDestroy", NULL, 1, hipError_t, (hipStream_t q))                                \
  X(StreamSynchronize, "hipStreamSynchronize", NULL, 1, hipError_t, (hipStream_t q))                        \
  X(StreamWaitEvent, "hipStreamWaitEvent", NULL, 1, hipError_t, (hipStream_t q, hipEvent_t e, unsigned fl)) \
  X(EventCreate, "hipEventCreateWithFlags", NULL, 1, hipError_t, (hipEvent_t * e, unsigned fl))             \
  X(EventRecord, "hipEventRecord", NULL, 1, hipError_t, (hipEvent_t e, hipStream_t q))                      \
  X(EventQuery, "hipEventQuery", NULL, 1, hipError_t, (hipEvent_t e))                                       \
  X(EventSynchronize, "hipEventSynchronize", NULL, 1, hipError_t, (hipEvent_t e))                           \
  X(EventElapsedTime, "hipEventElapsedTime", NULL, 1, hipError_t, (float *ms, hipEvent_t a, hipEvent_t b))  \
  X(EventDestroy, "hipEventDestroy", NULL, 1, hipError_t, (hipEvent_t e))                                   \
  X(ModuleLoadData, "hipModuleLoadData", NULL, 1, hipError_t, (hipModule_t * m, const void *image))         \
  X(ModuleUnload, "hipModuleUnload", NULL, 1, hipError_t, (hipModule_t m))                                  \
  X(ModuleGetFunction, "hipModuleGetFunction", NULL, 1, hipError_t, (hipFunction_t * f, hipModule_t m, const char *name)) \
  X(FuncGetAttribute, "hipFuncGetAttribute", NULL, 0, hipError_t, (int *v, int attr, hipFunction_t f))     \
  X(LaunchKernel, "hipModuleLaunchKernel", NULL, 1, hipError_t,                                              \
    (hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,         \
     unsigned shared, hipStream_t q, void **params, void **extra))                                           \
  X(MemHostAlloc, "hipHostMalloc", NULL, 0, hipError_t, (void **p, size_t bytes, unsigned flags))           \
  X(MemHostGetDevicePointer, "hipHostGetDevicePointer", NULL, 0, hipError_t, (hipDeviceptr_t * d, void *p, unsigned fl)) \
  X(MemFreeHost, "hipHostFree", NULL, 0, hipError_t, (void *p))                                             \
  X(StreamWriteValue32, "hipStreamWriteValue32", NULL, 0, hipError_t,                                       \
    (hipStream_t q, hipDeviceptr_t addr, unsigned value, unsigned flags))                                    \
  X(StreamBeginCapture, "hipStreamBeginCapture", NULL, 0, hipError_t, (hipStream_t q, int mode))           \
  X(StreamEndCapture, "hipStreamEndCapture", NULL, 0, hipError_t, (hipStream_t q, void **graph))            \
  X(GraphInstantiate, "hipGraphInstantiateWithFlags", NULL, 0, hipError_t,                                  \
    (void **exec, void *graph, unsigned long long flags))                                                    \
  X(GraphLaunch, "hipGraphLaunch", NULL, 0, hipError_t, (void *exec, hipStream_t q))                        \
  X(GraphExecDestroy, "hipGraphExecDestroy", NULL, 0, hipError_t, (void *exec))                             \
  X(GraphDestroy, "hipGraphDestroy", NULL, 0, hipError_t, (void *graph))

#define PT_HIPRTC_FUNCS(X)                                                                                   \
  X(Version, "hiprtcVersion", NULL, 0, hiprtcResult, (int *major, int *minor))                              \
  X(GetErrorString, "hiprtcGetErrorString", NULL, 1, const char *, (hiprtcResult r))                        \
  X(CreateProgram, "hiprtcCreateProgram", NULL, 1, hiprtcResult,                                             \
    (hiprtcProgram * p, const char *src, const char *name, int nh, const char *const *h, const char *const *hn)) \
  X(DestroyProgram, "hiprtcDestroyProgram", NULL, 1, hiprtcResult, (hiprtcProgram * p))                     \
  X(CompileProgram, "hiprtcCompileProgram", NULL, 1, hiprtcResult, (hiprtcProgram p, int n, const char *const *opts)) \
  X(GetProgramLogSize, "hiprtcGetProgramLogSize", NULL, 1, hiprtcResult, (hiprtcProgram p, size_t *n))      \
  X(GetProgramLog, "hiprtcGetProgramLog", NULL, 1, hiprtcResult, (hiprtcProgram p, char *log))              \
  X(GetCodeSize, "hiprtcGetCodeSize", NULL, 1, hiprtcResult, (hiprtcProgram p, size_t *n))                  \
  X(GetCode, "hiprtcGetCode", NULL, 1, hiprtcResult, (hiprtcProgram p, char *code))

#define PT_HIPBLAS_FUNCS(X)                                                                                  \
  X(Create, "hipblasCreate", NULL, 1, hipblasStatus_t, (hipblasHandle_t * h))                                \
  X(Destroy, "hipblasDestroy", NULL, 1, hipblasStatus_t, (hipblasHandle_t h))                                \
  X(SetStream, "hipblasSetStream", NULL, 1, hipblasStatus_t, (hipblasHandle_t h, hipStream_t q))             \
  X(StatusToString, "hipblasStatusToString", NULL, 0, const char *, (hipblasStatus_t s))                     \
  X(Sgemm, "hipblasSgemm", NULL, 1, hipblasStatus_t,                                                         \
    (hipblasHandle_t h, int ta, int tb, int m, int n, int k, const float *alpha, const float *A, int lda,   \
     const float *B, int ldb, const float *beta, float *C, int ldc))                                         \
  X(Dgemm, "hipblasDgemm", NULL, 1, hipblasStatus_t,                                                         \
    (hipblasHandle_t h, int ta, int tb, int m, int n, int k, const double *alpha, const double *A, int lda, \
     const double *B, int ldb, const double *beta, double *C, int ldc))                                      \
  X(SgemmStridedBatched, "hipblasSgemmStridedBatched", NULL, 1, hipblasStatus_t,                             \
    (hipblasHandle_t h, int ta, int tb, int m, int n, int k, const float *alpha, const float *A, int lda,   \
     long long sA, const float *B, int ldb, long long sB, const float *beta, float *C, int ldc, long long sC, \
     int batch))                                                                                             \
  X(DgemmStridedBatched, "hipblasDgemmStridedBatched", NULL, 1, hipblasStatus_t,                             \
    (hipblasHandle_t h, int ta, int tb, int m, int n, int k, const double *alpha, const double *A, int lda, \
     long long sA, const double *B, int ldb, long long sB, const double *beta, double *C, int ldc,          \
     long long sC, int batch))

#define PT_DECLARE_FIELD(field, sym, alt, req, ret, args) ret (*field) args;
typedef struct { PT_HIP_FUNCS(PT_DECLARE_FIELD) } hip_api;
typedef struct { PT_HIPRTC_FUNCS(PT_DECLARE_FIELD) } hiprtc_api;
typedef struct { PT_HIPBLAS_FUNCS(PT_DECLARE_FIELD) } hipblas_api;
#undef PT_DECLARE_FIELD

extern hip_api hip;
extern hiprtc_api hiprtc;
extern hipblas_api hipblas;

/* Each loads its library once per process and returns PT_OK, or a PT_E* status with the
 * reason in pt_error() (the same reason on every later call). hiprtc and hipBLAS are looked
 * for first beside the runtime that was loaded, so that the three come from one ROCm. */
int hip_load(void);
int hiprtc_load(void);
int hipblas_load(void);

/* After a successful load: versions as HIP encodes them (major*10^7 + minor*10^5 + patch),
 * hiprtc's as major*1000 + minor*10 (0 when it cannot say). */
int hip_runtime_version(void);
int hiprtc_version(void);
/* Where the loaded library came from, for messages (never NULL). */
const char *hip_path(void);
const char *hiprtc_path(void);
const char *hipblas_path(void);

#endif
