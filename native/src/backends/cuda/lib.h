/* lib.h: the CUDA driver, NVRTC and cuBLAS declarations the driver uses, each entry point
 * under CUDA's symbol and HIP's, and the tables they are resolved into at run time.
 *
 * Ownership and ordering. No SDK header is included: every type, enum value and signature
 * below is declared here from the public API reference, so the shim builds on a machine
 * without CUDA or ROCm. HIP mirrors these calls one for one, with CUDA's error numbers and
 * opaque handles, so the types and the first enums serve both; a row of the lists below
 * names both symbols, a build takes its column through GPU_SYM and adds the rows only it has
 * (PT_CU_OWN here, hip/vendor.h's for HIP). A table is its function pointers in row order.
 * lib.c (hip/lib.c) fills the tables once, under core/dlib.h's lock, on first use; they are
 * never written again, so callers read them without locking after a successful load.
 * Libraries are never closed: a driver library unloaded under live contexts would take the
 * process down.
 */
#ifndef PT_CUDA_LIB_H
#define PT_CUDA_LIB_H
#include <stddef.h>
#include "dlib.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr; /* CUdeviceptr_v2: 64-bit on every 64-bit target */
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct _nvrtcProgram *nvrtcProgram;
typedef int nvrtcResult;
typedef struct cublasContext *cublasHandle_t;
typedef int cublasStatus_t;

enum { /* HIP keeps these numbers for the codes it has (hipErrorLaunchFailure = 719) */
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_ECC_UNCORRECTABLE = 214,
  CUDA_ERROR_INVALID_PTX = 218, /* HIP's hipErrorInvalidKernelFile */
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
  CUDA_ERROR_ASSERT = 710,
  CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
  CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
  CUDA_ERROR_MISALIGNED_ADDRESS = 716,
  CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
  CUDA_ERROR_INVALID_PC = 718,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_UNKNOWN = 999,
};
enum { CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0 };
enum { CU_STREAM_NON_BLOCKING = 1, CU_EVENT_DEFAULT = 0, CU_EVENT_DISABLE_TIMING = 2 };
enum { CU_STREAM_CAPTURE_MODE_RELAXED = 2 }; /* our allocator may call cuMemAlloc while a step is captured */
enum { NVRTC_SUCCESS = 0, CUBLAS_STATUS_SUCCESS = 0 };
enum { BLAS_R_32F = 0, BLAS_R_16F = 2, BLAS_R_16BF = 14 }; /* GemmEx's operand types: cudaDataType and hipDataType agree */

#ifdef PT_VENDOR_HIP
#include "../hip/vendor.h"
#else
#if defined(_WIN32) && !defined(_WIN64)
#define CUDAAPI __stdcall /* only 32-bit Windows has a second calling convention */
#else
#define CUDAAPI
#endif
typedef struct CUctx_st *CUcontext;
enum { /* CUdevice_attribute values */
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};
enum { CU_MEMHOSTALLOC_DEVICEMAP = 2, CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_DEFAULT_MATH = 0 };

/* CUDA's own calls, X(field, symbol, fallback or NULL, required, return type, parameters),
 * for what HIP does otherwise (cuda.c's hooks). _v2 names come first where they exist: the
 * unsuffixed ones are older semantics (cuDevicePrimaryCtxRelease). */
#define PT_CU_OWN(X)                                                                                         \
  X(Init, "cuInit", NULL, 1, CUresult, (unsigned flags))                                                     \
  X(DriverGetVersion, "cuDriverGetVersion", NULL, 1, CUresult, (int *version))                              \
  X(GetErrorName, "cuGetErrorName", NULL, 1, CUresult, (CUresult e, const char **s))                        \
  X(GetErrorString, "cuGetErrorString", NULL, 1, CUresult, (CUresult e, const char **s))                    \
  X(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL, 1, CUresult, (CUcontext * c, CUdevice d))           \
  X(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease", 1, CUresult, (CUdevice d)) \
  X(PrimaryCtxReset, "cuDevicePrimaryCtxReset_v2", "cuDevicePrimaryCtxReset", 1, CUresult, (CUdevice d))    \
  X(PrimaryCtxGetState, "cuDevicePrimaryCtxGetState", NULL, 1, CUresult, (CUdevice d, unsigned *fl, int *on)) \
  X(CtxSetCurrent, "cuCtxSetCurrent", NULL, 1, CUresult, (CUcontext c))
#define PT_NVRTC_OWN(X) /* cubin where NVRTC can, for the device's own arch (cuda.c) */              \
  X(GetCUBINSize, "nvrtcGetCUBINSize", NULL, 0, nvrtcResult, (nvrtcProgram p, size_t *n))                   \
  X(GetCUBIN, "nvrtcGetCUBIN", NULL, 0, nvrtcResult, (nvrtcProgram p, char *cubin))                         \
  X(GetNumSupportedArchs, "nvrtcGetNumSupportedArchs", NULL, 0, nvrtcResult, (int *n))                      \
  X(GetSupportedArchs, "nvrtcGetSupportedArchs", NULL, 0, nvrtcResult, (int *archs))
#define PT_CUBLAS_OWN(X)                                                                                     \
  X(SetMathMode, "cublasSetMathMode", NULL, 1, cublasStatus_t, (cublasHandle_t h, int mode))                 \
  X(GetProperty, "cublasGetProperty", NULL, 0, cublasStatus_t, (int type, int *value))

#define GPU_SYM(cuda, alt, hip) cuda, alt /* this build's column of the shared rows */
#define GPU_OWN_CU PT_CU_OWN
#define GPU_OWN_RTC PT_NVRTC_OWN
#define GPU_OWN_BLAS PT_CUBLAS_OWN
int cu_driver_version(void); /* after cu_load(): as CUDA encodes it (12040 = 12.4) */
#endif

/* X(field, CUDA's symbol, its fallback or NULL, HIP's symbol, required, return type,
 * parameters). Fields are CUDA's names; where HIP's call differs only in name
 * (hipMalloc, hipStreamCreateWithFlags, hipDeviceSynchronize), the row says so. */
#define PT_CU_FUNCS(X)                                                                                       \
  X(DeviceGetCount, "cuDeviceGetCount", NULL, "hipGetDeviceCount", 1, CUresult, (int *n))                   \
  X(DeviceGet, "cuDeviceGet", NULL, "hipDeviceGet", 1, CUresult, (CUdevice * d, int ordinal))               \
  X(DeviceGetName, "cuDeviceGetName", NULL, "hipDeviceGetName", 1, CUresult, (char *name, int len, CUdevice d)) \
  X(DeviceTotalMem, "cuDeviceTotalMem_v2", NULL, "hipDeviceTotalMem", 1, CUresult, (size_t *bytes, CUdevice d)) \
  X(DeviceGetAttribute, "cuDeviceGetAttribute", NULL, "hipDeviceGetAttribute", 1, CUresult,                 \
    (int *v, int attr, CUdevice d))                                                                          \
  X(CtxSynchronize, "cuCtxSynchronize", NULL, "hipDeviceSynchronize", 1, CUresult, (void))                  \
  X(MemAlloc, "cuMemAlloc_v2", NULL, "hipMalloc", 1, CUresult, (CUdeviceptr * p, size_t bytes))             \
  X(MemFree, "cuMemFree_v2", NULL, "hipFree", 1, CUresult, (CUdeviceptr p))                                 \
  X(MemGetInfo, "cuMemGetInfo_v2", NULL, "hipMemGetInfo", 1, CUresult, (size_t *fr, size_t *total))         \
  X(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", NULL, "hipMemcpyHtoDAsync", 1, CUresult,                       \
    (CUdeviceptr d, const void *s, size_t n, CUstream q))                                                    \
  X(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", NULL, "hipMemcpyDtoHAsync", 1, CUresult,                       \
    (void *d, CUdeviceptr s, size_t n, CUstream q))                                                          \
  X(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", NULL, "hipMemcpyDtoDAsync", 1, CUresult,                       \
    (CUdeviceptr d, CUdeviceptr s, size_t n, CUstream q))                                                    \
  X(MemsetD8Async, "cuMemsetD8Async", NULL, "hipMemsetD8Async", 1, CUresult,                                \
    (CUdeviceptr d, unsigned char v, size_t n, CUstream q))                                                  \
  X(StreamCreate, "cuStreamCreate", NULL, "hipStreamCreateWithFlags", 1, CUresult, (CUstream * q, unsigned flags)) \
  X(StreamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy", "hipStreamDestroy", 1, CUresult, (CUstream q))  \
  X(StreamSynchronize, "cuStreamSynchronize", NULL, "hipStreamSynchronize", 1, CUresult, (CUstream q))      \
  X(StreamWaitEvent, "cuStreamWaitEvent", NULL, "hipStreamWaitEvent", 1, CUresult,                          \
    (CUstream q, CUevent e, unsigned flags))                                                                 \
  X(EventCreate, "cuEventCreate", NULL, "hipEventCreateWithFlags", 1, CUresult, (CUevent * e, unsigned flags)) \
  X(EventRecord, "cuEventRecord", NULL, "hipEventRecord", 1, CUresult, (CUevent e, CUstream q))             \
  X(EventQuery, "cuEventQuery", NULL, "hipEventQuery", 1, CUresult, (CUevent e))                            \
  X(EventSynchronize, "cuEventSynchronize", NULL, "hipEventSynchronize", 1, CUresult, (CUevent e))          \
  X(EventElapsedTime, "cuEventElapsedTime", "cuEventElapsedTime_v2", "hipEventElapsedTime", 1, CUresult,    \
    (float *ms, CUevent a, CUevent b))                                                                       \
  X(EventDestroy, "cuEventDestroy_v2", "cuEventDestroy", "hipEventDestroy", 1, CUresult, (CUevent e))       \
  X(ModuleLoadData, "cuModuleLoadData", NULL, "hipModuleLoadData", 1, CUresult, (CUmodule * m, const void *image)) \
  X(ModuleUnload, "cuModuleUnload", NULL, "hipModuleUnload", 1, CUresult, (CUmodule m))                     \
  X(ModuleGetFunction, "cuModuleGetFunction", NULL, "hipModuleGetFunction", 1, CUresult,                    \
    (CUfunction * f, CUmodule m, const char *name))                                                          \
  X(FuncGetAttribute, "cuFuncGetAttribute", NULL, "hipFuncGetAttribute", 0, CUresult, (int *v, int attr, CUfunction f)) \
  X(LaunchKernel, "cuLaunchKernel", NULL, "hipModuleLaunchKernel", 1, CUresult,                             \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,            \
     unsigned shared, CUstream q, void **params, void **extra))                                              \
  X(MemHostAlloc, "cuMemHostAlloc", NULL, "hipHostMalloc", 0, CUresult, (void **p, size_t bytes, unsigned flags)) \
  X(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", NULL, "hipHostGetDevicePointer", 0, CUresult,  \
    (CUdeviceptr * d, void *p, unsigned flags))                                                              \
  X(MemFreeHost, "cuMemFreeHost", NULL, "hipHostFree", 0, CUresult, (void *p))                              \
  X(StreamWriteValue32, "cuStreamWriteValue32_v2", "cuStreamWriteValue32", "hipStreamWriteValue32", 0, CUresult, \
    (CUstream q, CUdeviceptr addr, unsigned value, unsigned flags))                                          \
  X(StreamBeginCapture, "cuStreamBeginCapture_v2", NULL, "hipStreamBeginCapture", 0, CUresult, (CUstream q, int mode)) \
  X(StreamEndCapture, "cuStreamEndCapture", NULL, "hipStreamEndCapture", 0, CUresult, (CUstream q, void **graph)) \
  X(GraphInstantiate, "cuGraphInstantiateWithFlags", NULL, "hipGraphInstantiateWithFlags", 0, CUresult,     \
    (void **graph_exec, void *graph, unsigned long long flags))                                              \
  X(GraphLaunch, "cuGraphLaunch", NULL, "hipGraphLaunch", 0, CUresult, (void *graph_exec, CUstream q))      \
  X(GraphExecDestroy, "cuGraphExecDestroy", NULL, "hipGraphExecDestroy", 0, CUresult, (void *graph_exec))   \
  X(GraphDestroy, "cuGraphDestroy", NULL, "hipGraphDestroy", 0, CUresult, (void *graph))

/* GetPTX is HIP's code object (hiprtcGetCode); Version is optional for hiprtc's sake. */
#define PT_NVRTC_FUNCS(X)                                                                                    \
  X(Version, "nvrtcVersion", NULL, "hiprtcVersion", 0, nvrtcResult, (int *major, int *minor))               \
  X(GetErrorString, "nvrtcGetErrorString", NULL, "hiprtcGetErrorString", 1, const char *, (nvrtcResult r))  \
  X(CreateProgram, "nvrtcCreateProgram", NULL, "hiprtcCreateProgram", 1, nvrtcResult,                        \
    (nvrtcProgram * p, const char *src, const char *name, int nh, const char *const *h, const char *const *hn)) \
  X(DestroyProgram, "nvrtcDestroyProgram", NULL, "hiprtcDestroyProgram", 1, nvrtcResult, (nvrtcProgram * p)) \
  X(CompileProgram, "nvrtcCompileProgram", NULL, "hiprtcCompileProgram", 1, nvrtcResult,                     \
    (nvrtcProgram p, int n, const char *const *opts))                                                        \
  X(GetProgramLogSize, "nvrtcGetProgramLogSize", NULL, "hiprtcGetProgramLogSize", 1, nvrtcResult,            \
    (nvrtcProgram p, size_t *n))                                                                             \
  X(GetProgramLog, "nvrtcGetProgramLog", NULL, "hiprtcGetProgramLog", 1, nvrtcResult, (nvrtcProgram p, char *log)) \
  X(GetPTXSize, "nvrtcGetPTXSize", NULL, "hiprtcGetCodeSize", 1, nvrtcResult, (nvrtcProgram p, size_t *n))  \
  X(GetPTX, "nvrtcGetPTX", NULL, "hiprtcGetCode", 1, nvrtcResult, (nvrtcProgram p, char *code))

#define PT_CUBLAS_FUNCS(X)                                                                                   \
  X(Create, "cublasCreate_v2", NULL, "hipblasCreate", 1, cublasStatus_t, (cublasHandle_t * h))               \
  X(Destroy, "cublasDestroy_v2", NULL, "hipblasDestroy", 1, cublasStatus_t, (cublasHandle_t h))              \
  X(SetStream, "cublasSetStream_v2", NULL, "hipblasSetStream", 1, cublasStatus_t, (cublasHandle_t h, CUstream q)) \
  X(GetStatusString, "cublasGetStatusString", NULL, "hipblasStatusToString", 0, const char *, (cublasStatus_t s)) \
  X(Sgemm, "cublasSgemm_v2", NULL, "hipblasSgemm", 1, cublasStatus_t,                                        \
    (cublasHandle_t h, int ta, int tb, int m, int n, int k, const float *alpha, const float *A, int lda,     \
     const float *B, int ldb, const float *beta, float *C, int ldc))                                         \
  X(Dgemm, "cublasDgemm_v2", NULL, "hipblasDgemm", 1, cublasStatus_t,                                        \
    (cublasHandle_t h, int ta, int tb, int m, int n, int k, const double *alpha, const double *A, int lda,  \
     const double *B, int ldb, const double *beta, double *C, int ldc))                                      \
  X(SgemmStridedBatched, "cublasSgemmStridedBatched", NULL, "hipblasSgemmStridedBatched", 1, cublasStatus_t, \
    (cublasHandle_t h, int ta, int tb, int m, int n, int k, const float *alpha, const float *A, int lda,     \
     long long sA, const float *B, int ldb, long long sB, const float *beta, float *C, int ldc, long long sC, \
     int batch))                                                                                             \
  X(DgemmStridedBatched, "cublasDgemmStridedBatched", NULL, "hipblasDgemmStridedBatched", 1, cublasStatus_t, \
    (cublasHandle_t h, int ta, int tb, int m, int n, int k, const double *alpha, const double *A, int lda,  \
     long long sA, const double *B, int ldb, long long sB, const double *beta, double *C, int ldc,          \
     long long sC, int batch))                                                                               \
  X(GemmEx, "cublasGemmEx", NULL, "hipblasGemmEx_v2", 0, cublasStatus_t,                                      \
    (cublasHandle_t h, int ta, int tb, int m, int n, int k, const void *alpha, const void *A, int atype, int lda, \
     const void *B, int btype, int ldb, const void *beta, void *C, int ctype, int ldc, int compute, int algo)) \
  X(GemmStridedBatchedEx, "cublasGemmStridedBatchedEx", NULL, "hipblasGemmStridedBatchedEx_v2", 0, cublasStatus_t, \
    (cublasHandle_t h, int ta, int tb, int m, int n, int k, const void *alpha, const void *A, int atype, int lda, \
     long long sA, const void *B, int btype, int ldb, long long sB, const void *beta, void *C, int ctype, int ldc, \
     long long sC, int batch, int compute, int algo))

#define PT_API_FIELD(f, cuda, alt, hip, req, ret, args) ret(CUDAAPI *f) args;
#define PT_OWN_FIELD(f, sym, alt, req, ret, args) ret(CUDAAPI *f) args;
#define PT_API_ROW(f, cuda, alt, hip, req, ret, args) {GPU_SYM(cuda, alt, hip), req},
#define PT_OWN_ROW(f, sym, alt, req, ret, args) {sym, alt, req},
typedef struct { PT_CU_FUNCS(PT_API_FIELD) GPU_OWN_CU(PT_OWN_FIELD) } cu_api;
typedef struct { PT_NVRTC_FUNCS(PT_API_FIELD) GPU_OWN_RTC(PT_OWN_FIELD) } nvrtc_api;
typedef struct { PT_CUBLAS_FUNCS(PT_API_FIELD) GPU_OWN_BLAS(PT_OWN_FIELD) } cublas_api;

extern cu_api cu;
extern nvrtc_api nvrtc;
extern cublas_api cublas;
extern const pt_lib_row cu_rows[], nvrtc_rows[], cublas_rows[]; /* in field order */

/* An entry point's name in messages: its row, found at its field's index. */
#define CU_NAME(f) (cu_rows[offsetof(cu_api, f) / sizeof(void *)].sym)
#define RTC_NAME(f) (nvrtc_rows[offsetof(nvrtc_api, f) / sizeof(void *)].sym)
#define BLAS_NAME(f) (cublas_rows[offsetof(cublas_api, f) / sizeof(void *)].sym)

/* Each loads its library once per process and returns PT_OK, or a PT_E* status with the
 * reason in pt_error() (the same reason on every later call); the second and third load
 * the first. CUDA's cu_load() also runs cuInit(0); its nvrtc_load() prefers an NVRTC no
 * newer than the driver, and HIP's looks beside the runtime first (hip/lib.c). */
int cu_load(void);
int nvrtc_load(void);
int cublas_load(void);
int nvrtc_version(void);         /* after a load: major*1000 + minor*10, 0 when it cannot say */
const char *nvrtc_path(void);    /* where the loaded library came from, for messages (never NULL) */
const char *cublas_path(void);

#endif
