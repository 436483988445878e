/* vendor.h: the CUDA driver's names for HIP's, under which backends/cuda's shared files
 * compile into the HIP driver (ggml's vendors/hip.h is the model).
 *
 * Ownership and ordering. Included by cuda/cuda.h, and only with -DPT_VENDOR_HIP (build.zig);
 * it declares nothing of its own. HIP mirrors CUDA's driver API call for call, and its enum
 * values are CUDA's, so types, tables and constants map one to one; what differs lives in
 * hip.c, behind cuda.h's vendor hooks.
 */
#ifndef PT_HIP_VENDOR_H
#define PT_HIP_VENDOR_H
#include "lib.h"
#include "params.h"

#define CUDAAPI
#define CUresult hipError_t
#define CUdevice hipDevice_t
#define CUdeviceptr hipDeviceptr_t
#define CUstream hipStream_t
#define CUevent hipEvent_t
#define CUmodule hipModule_t
#define CUfunction hipFunction_t
#define nvrtcProgram hiprtcProgram
#define nvrtcResult hiprtcResult
#define cublasHandle_t hipblasHandle_t
#define cublasStatus_t hipblasStatus_t
#define cu hip
#define nvrtc hiprtc
#define cublas hipblas
#define nvrtc_load hiprtc_load
#define nvrtc_version hiprtc_version
#define cublas_load hipblas_load

#define CUDA_SUCCESS hipSuccess
#define CUDA_ERROR_OUT_OF_MEMORY hipErrorOutOfMemory
#define CUDA_ERROR_NOT_FOUND hipErrorNotFound
#define CUDA_ERROR_NOT_READY hipErrorNotReady
#define CU_STREAM_NON_BLOCKING hipStreamNonBlocking
#define CU_EVENT_DEFAULT hipEventDefault
#define CU_EVENT_DISABLE_TIMING hipEventDisableTiming
#define CU_STREAM_CAPTURE_MODE_RELAXED hipStreamCaptureModeRelaxed
#define CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
#define NVRTC_SUCCESS HIPRTC_SUCCESS
#define CUBLAS_STATUS_SUCCESS HIPBLAS_STATUS_SUCCESS

#define GPU_TAG "hip"
#define GPU_API "HIP"
#define GPU_LOST "device %d"
#define GPU_DRIVER pt_driver_hip
#define GPU_BLAS "hipBLAS"
#define GPU_RTC "hiprtc"
#define GPU_SOURCE "HIP"
#define GPU_SRC_EXT ".hip"
#define GPU_IMAGE_EXT ".hsaco"
#define GPU_NO_GRAPHS "the runtime lacks the graph API (hipStreamBeginCapture, hipGraphInstantiateWithFlags; ROCm 4.5+)"
#define GPU_MAX_BUFS PT_HIP_MAX_BUFS
#define GPU_MAX_ARGS PT_HIP_MAX_ARGS
#define GPU_BLAS_OP_N HIPBLAS_OP_N
#define GPU_BLAS_OP_T HIPBLAS_OP_T
#define GPU_BLAS_SWITCH "PT_HIP_BLAS"
#define GPU_BLAS_STATUS_TEXT hipblas.StatusToString
#define GPU_BLAS_DEFAULT_MATH(h) HIPBLAS_STATUS_SUCCESS /* hipBLAS's default has no reduced-precision path */
/* Coherent: kernels' and stream writes' words are read with plain loads (coarse-grained
 * host memory is only made visible at a host wait, and the completion word is polled). */
#define GPU_HOST_MAPPED (hipHostMallocMapped | hipHostMallocCoherent)
typedef struct { char arch[128]; } cuda_vendor_ctx; /* gcnArchName ("gfx90a:sramecc+:xnack-"), "" when unknown */

#define RTC_NAME(f) "hiprtc" #f
#define BLAS_NAME(f) "hipblas" #f
#define CU_NAME(f) HIP_NAME_##f /* the HIP entry point behind each CUDA name in messages */
#define HIP_NAME_CtxSetCurrent "hipSetDevice"
#define HIP_NAME_CtxSynchronize "hipDeviceSynchronize"
#define HIP_NAME_DeviceGetName "hipDeviceGetName"
#define HIP_NAME_DeviceTotalMem "hipDeviceTotalMem"
#define HIP_NAME_EventCreate "hipEventCreateWithFlags"
#define HIP_NAME_EventElapsedTime "hipEventElapsedTime"
#define HIP_NAME_EventQuery "hipEventQuery"
#define HIP_NAME_EventRecord "hipEventRecord"
#define HIP_NAME_EventSynchronize "hipEventSynchronize"
#define HIP_NAME_GraphInstantiateWithFlags "hipGraphInstantiateWithFlags"
#define HIP_NAME_GraphLaunch "hipGraphLaunch"
#define HIP_NAME_LaunchKernel "hipModuleLaunchKernel"
#define HIP_NAME_MemAlloc "hipMalloc"
#define HIP_NAME_MemFree "hipFree"
#define HIP_NAME_MemGetInfo "hipMemGetInfo"
#define HIP_NAME_MemcpyDtoDAsync "hipMemcpyDtoDAsync"
#define HIP_NAME_MemcpyDtoHAsync "hipMemcpyDtoHAsync"
#define HIP_NAME_MemcpyHtoDAsync "hipMemcpyHtoDAsync"
#define HIP_NAME_MemsetD8Async "hipMemsetD8Async"
#define HIP_NAME_ModuleGetFunction "hipModuleGetFunction"
#define HIP_NAME_ModuleLoadData "hipModuleLoadData"
#define HIP_NAME_StreamBeginCapture "hipStreamBeginCapture"
#define HIP_NAME_StreamCreate "hipStreamCreateWithFlags"
#define HIP_NAME_StreamEndCapture "hipStreamEndCapture"
#define HIP_NAME_StreamSynchronize "hipStreamSynchronize"
#define HIP_NAME_StreamWaitEvent "hipStreamWaitEvent"

#endif
