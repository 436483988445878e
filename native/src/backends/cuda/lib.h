/* lib.h: the few CUDA driver, NVRTC and cuBLAS declarations this backend uses, and the
 * tables their entry points are resolved into at run time.
 *
 * Ownership and ordering. No CUDA SDK header is included: every type, enum value and
 * signature below is declared here from the public API reference, so the shim builds on a
 * machine without CUDA (and for macOS, where CUDA simply reports no driver). lib.c owns
 * the three library handles and fills the tables once, under its own lock, on first use;
 * the tables are never written again, so callers read them without locking after a
 * successful cu_load()/nvrtc_load()/cublas_load(). Libraries are never closed: a driver
 * library unloaded under live contexts would take the process down.
 */
#ifndef PT_CUDA_LIB_H
#define PT_CUDA_LIB_H
#include <stddef.h>

#if defined(_WIN32) && !defined(_WIN64)
#define CUDAAPI __stdcall /* only 32-bit Windows has a second calling convention */
#else
#define CUDAAPI
#endif

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr; /* CUdeviceptr_v2: 64-bit on every 64-bit target */
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct _nvrtcProgram *nvrtcProgram;
typedef int nvrtcResult;
typedef struct cublasContext *cublasHandle_t;
typedef int cublasStatus_t;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_ECC_UNCORRECTABLE = 214,
  CUDA_ERROR_INVALID_PTX = 218,
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

enum { /* CUdevice_attribute values */
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

enum { CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0 };
enum { CU_STREAM_NON_BLOCKING = 1, CU_EVENT_DEFAULT = 0, CU_EVENT_DISABLE_TIMING = 2 };
enum { CU_STREAM_CAPTURE_MODE_RELAXED = 2 };
enum { CU_MEMHOSTALLOC_DEVICEMAP = 2 }; /* our allocator may call cuMemAlloc while a step is captured */
enum { NVRTC_SUCCESS = 0 };
enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_DEFAULT_MATH = 0 };

/* X(field, symbol, fallback symbol or NULL, required, return type, parameters).
 * _v2 names come first where they exist: the unsuffixed ones are the 32-bit-pointer
 * ABI of CUDA 3.x (cuMemAlloc) or older semantics (cuDevicePrimaryCtxRelease). */
#define PT_CU_FUNCS(X)                                                                                       \
  X(Init, "cuInit", NULL, 1, CUresult, (unsigned flags))                                                     \
  X(DriverGetVersion, "cuDriverGetVersion", NULL, 1, CUresult, (int *version))                              \
  X(GetErrorName, "cuGetErrorName", NULL, 1, CUresult, (CUresult e, const char **s))                        \
  X(GetErrorString, "cuGetErrorString", NULL, 1, CUresult, (CUresult e, const char **s))                    \
  X(DeviceGetCount, "cuDeviceGetCount", NULL, 1, CUresult, (int *n))                                        \
  X(DeviceGet, "cuDeviceGet", NULL, 1, CUresult, (CUdevice *d, int ordinal))                                \
  X(DeviceGetName, "cuDeviceGetName", NULL, 1, CUresult, (char *name, int len, CUdevice d))                 \
  X(DeviceTotalMem, "cuDeviceTotalMem_v2", NULL, 1, CUresult, (size_t *bytes, CUdevice d))                  \
  X(DeviceGetAttribute, "cuDeviceGetAttribute", NULL, 1, CUresult, (int *v, int attr, CUdevice d))          \
  X(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL, 1, CUresult, (CUcontext * c, CUdevice d))           \
  X(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease", 1, CUresult, (CUdevice d)) \
  X(PrimaryCtxReset, "cuDevicePrimaryCtxReset_v2", "cuDevicePrimaryCtxReset", 1, CUresult, (CUdevice d))    \
  X(PrimaryCtxGetState, "cuDevicePrimaryCtxGetState", NULL, 1, CUresult, (CUdevice d, unsigned *fl, int *on)) \
  X(CtxSetCurrent, "cuCtxSetCurrent", NULL, 1, CUresult, (CUcontext c))                                     \
  X(CtxSynchronize, "cuCtxSynchronize", NULL, 1, CUresult, (void))                                          \
  X(MemAlloc, "cuMemAlloc_v2", NULL, 1, CUresult, (CUdeviceptr * p, size_t bytes))                          \
  X(MemFree, "cuMemFree_v2", NULL, 1, CUresult, (CUdeviceptr p))                                            \
  X(MemGetInfo, "cuMemGetInfo_v2", NULL, 1, CUresult, (size_t *fr, size_t *total))                          \
  X(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", NULL, 1, CUresult, (CUdeviceptr d, const void *s, size_t n, CUstream q)) \
  X(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", NULL, 1, CUresult, (void *d, CUdeviceptr s, size_t n, CUstream q)) \
  X(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", NULL, 1, CUresult, (CUdeviceptr d, CUdeviceptr s, size_t n, CUstream q)) \
  X(MemsetD8Async, "cuMemsetD8Async", NULL, 1, CUresult, (CUdeviceptr d, unsigned char v, size_t n, CUstream q)) \
  X(StreamCreate, "cuStreamCreate", NULL, 1, CUresult, (CUstream * q, unsigned flags))                      \
  X(StreamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy", 1, CUresult, (CUstream q))                      \
  X(StreamSynchronize, "cuStreamSynchronize", NULL, 1, CUresult, (CUstream q))                              \
  X(StreamWaitEvent, "cuStreamWaitEvent", NULL, 1, CUresult, (CUstream q, CUevent e, unsigned flags))       \
  X(EventCreate, "cuEventCreate", NULL, 1, CUresult, (CUevent * e, unsigned flags))                         \
  X(EventRecord, "cuEventRecord", NULL, 1, CUresult, (CUevent e, CUstream q))                               \
  X(EventQuery, "cuEventQuery", NULL, 1, CUresult, (CUevent e))                                             \
  X(EventSynchronize, "cuEventSynchronize", NULL, 1, CUresult, (CUevent e))                                 \
  X(EventElapsedTime, "cuEventElapsedTime", "cuEventElapsedTime_v2", 1, CUresult, (float *ms, CUevent a, CUevent b)) \
  X(EventDestroy, "cuEventDestroy_v2", "cuEventDestroy", 1, CUresult, (CUevent e))                          \
  X(ModuleLoadData, "cuModuleLoadData", NULL, 1, CUresult, (CUmodule * m, const void *image))               \
  X(ModuleUnload, "cuModuleUnload", NULL, 1, CUresult, (CUmodule m))                                        \
  X(ModuleGetFunction, "cuModuleGetFunction", NULL, 1, CUresult, (CUfunction * f, CUmodule m, const char *name)) \
  X(FuncGetAttribute, "cuFuncGetAttribute", NULL, 0, CUresult, (int *v, int attr, CUfunction f))           \
  X(LaunchKernel, "cuLaunchKernel", NULL, 1, CUresult,                                                       \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,            \
     unsigned shared, CUstream q, void **params, void **extra))                                              \
  X(MemHostAlloc, "cuMemHostAlloc", NULL, 0, CUresult, (void **p, size_t bytes, unsigned flags))            \
  X(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", NULL, 0, CUresult,                             \
    (CUdeviceptr * d, void *p, unsigned flags))                                                              \
  X(MemFreeHost, "cuMemFreeHost", NULL, 0, CUresult, (void *p))                                              \
  X(StreamWriteValue32, "cuStreamWriteValue32_v2", "cuStreamWriteValue32", 0, CUresult,                     \
    (CUstream q, CUdeviceptr addr, unsigned value, unsigned flags))                                          \
  X(StreamBeginCapture, "cuStreamBeginCapture_v2", NULL, 0, CUresult, (CUstream q, int mode))              \
  X(StreamEndCapture, "cuStreamEndCapture", NULL, 0, CUresult, (CUstream q, void **graph))                  \
  X(GraphInstantiate, "cuGraphInstantiateWithFlags", NULL, 0, CUresult,                                     \
    (void **graph_exec, void *graph, unsigned long long flags))                                              \
  X(GraphLaunch, "cuGraphLaunch", NULL, 0, CUresult, (void *graph_exec, CUstream q))                        \
  X(GraphExecDestroy, "cuGraphExecDestroy", NULL, 0, CUresult, (void *graph_exec))                          \
  X(GraphDestroy, "cuGraphDestroy", NULL, 0, CUresult, (void *graph))

#define PT_NVRTC_FUNCS(X)                                                                                    \
  X(Version, "nvrtcVersion", NULL, 1, nvrtcResult, (int *major, int *minor))                                \
  X(GetErrorString, "nvrtcGetErrorString", NULL, 1, const char *, (nvrtcResult r))                          \
  X(CreateProgram, "nvrtcCreateProgram", NULL, 1, nvrtcResult,                                               \
    (nvrtcProgram * p, const char *src, const char *name, int nh, const char *const *h, const char *const *hn)) \
  X(DestroyProgram, "nvrtcDestroyProgram", NULL, 1, nvrtcResult, (nvrtcProgram * p))                        \
  X(CompileProgram, "nvrtcCompileProgram", NULL, 1, nvrtcResult, (nvrtcProgram p, int n, const char *const *opts)) \
  X(GetProgramLogSize, "nvrtcGetProgramLogSize", NULL, 1, nvrtcResult, (nvrtcProgram p, size_t *n))         \
  X(GetProgramLog, "nvrtcGetProgramLog", NULL, 1, nvrtcResult, (nvrtcProgram p, char *log))                 \
  X(GetPTXSize, "nvrtcGetPTXSize", NULL, 1, nvrtcResult, (nvrtcProgram p, size_t *n))                       \
  X(GetPTX, "nvrtcGetPTX", NULL, 1, nvrtcResult, (nvrtcProgram p, char *ptx))                               \
  X(GetCUBINSize, "nvrtcGetCUBINSize", NULL, 0, nvrtcResult, (nvrtcProgram p, size_t *n))                   \
  X(GetCUBIN, "nvrtcGetCUBIN", NULL, 0, nvrtcResult, (nvrtcProgram p, char *cubin))                         \
  X(GetNumSupportedArchs, "nvrtcGetNumSupportedArchs", NULL, 0, nvrtcResult, (int *n))                      \
  X(GetSupportedArchs, "nvrtcGetSupportedArchs", NULL, 0, nvrtcResult, (int *archs))

#define PT_CUBLAS_FUNCS(X)                                                                                   \
  X(Create, "cublasCreate_v2", NULL, 1, cublasStatus_t, (cublasHandle_t * h))                                \
  X(Destroy, "cublasDestroy_v2", NULL, 1, cublasStatus_t, (cublasHandle_t h))                                \
  X(SetStream, "cublasSetStream_v2", NULL, 1, cublasStatus_t, (cublasHandle_t h, CUstream q))                \
  X(SetMathMode, "cublasSetMathMode", NULL, 1, cublasStatus_t, (cublasHandle_t h, int mode))                 \
  X(GetStatusString, "cublasGetStatusString", NULL, 0, const char *, (cublasStatus_t s))                     \
  X(GetProperty, "cublasGetProperty", NULL, 0, cublasStatus_t, (int type, int *value))                      \
  X(Sgemm, "cublasSgemm_v2", NULL, 1, cublasStatus_t,                                                        \
    (cublasHandle_t h, int ta, int tb, int m, int n, int k, const float *alpha, const float *A, int lda,     \
     const float *B, int ldb, const float *beta, float *C, int ldc))                                         \
  X(Dgemm, "cublasDgemm_v2", NULL, 1, cublasStatus_t,                                                        \
    (cublasHandle_t h, int ta, int tb, int m, int n, int k, const double *alpha, const double *A, int lda,  \
     const double *B, int ldb, const double *beta, double *C, int ldc))                                      \
  X(SgemmStridedBatched, "cublasSgemmStridedBatched", NULL, 1, cublasStatus_t,                               \
    (cublasHandle_t h, int ta, int tb, int m, int n, int k, const float *alpha, const float *A, int lda,     \
     long long sA, const float *B, int ldb, long long sB, const float *beta, float *C, int ldc, long long sC, \
     int batch))                                                                                             \
  X(DgemmStridedBatched, "cublasDgemmStridedBatched", NULL, 1, cublasStatus_t,                               \
    (cublasHandle_t h, int ta, int tb, int m, int n, int k, const double *alpha, const double *A, int lda,  \
     long long sA, const double *B, int ldb, long long sB, const double *beta, double *C, int ldc,          \
     long long sC, int batch))

#define PT_DECLARE_FIELD(field, sym, alt, req, ret, args) ret(CUDAAPI *field) args;
typedef struct { PT_CU_FUNCS(PT_DECLARE_FIELD) } cu_api;
typedef struct { PT_NVRTC_FUNCS(PT_DECLARE_FIELD) } nvrtc_api;
typedef struct { PT_CUBLAS_FUNCS(PT_DECLARE_FIELD) } cublas_api;
#undef PT_DECLARE_FIELD

extern cu_api cu;
extern nvrtc_api nvrtc;
extern cublas_api cublas;

/* Each loads its library once per process and returns PT_OK, or a PT_E* status with the
 * reason in pt_error() (the same reason on every later call). cu_load() also runs
 * cuInit(0); nvrtc_load() prefers an NVRTC no newer than the driver. */
int cu_load(void);
int nvrtc_load(void);
int cublas_load(void);

/* After a successful load: versions as CUDA encodes them (12040 = 12.4). */
int cu_driver_version(void);
int nvrtc_version(void);
/* Where the loaded library came from, for messages (never NULL). */
const char *nvrtc_path(void);
const char *cublas_path(void);

#endif
