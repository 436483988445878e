/* cuda.h: the CUDA driver's private objects and the functions its files share; the HIP
 * driver is the same files compiled again.
 *
 * Ownership and ordering. One cuda_ctx per opened device: activate() (device.c) opens the
 * device's context through the vendor (cuda.c retains CUDA's primary context) and makes the
 * error word block; shutdown() frees what it made and closes the context (resetting it, when
 * a sticky error killed it). Queues are non-blocking streams, fences are events, programs
 * are modules; each belongs to the ctx that made it, and the core frees them all before
 * shutdown(). Driver entry points arrive from any thread (Workers), mostly outside the core
 * lock, so every one first makes the context current on its thread (cu_enter), and the
 * ctx's mutable fields sit under ctx->lock. The ctx also owns the pinned staging ring its
 * queues' host<->device copies go through (staging.c), made on the first copy and freed by
 * shutdown(). Launches leave the caller's thread through each queue's launch ring
 * (launch.c), so cuLaunchKernel's host time overlaps the script's next call. A CUDA call's
 * failure becomes pt_error() text through cu_fail(); a sticky one marks the ctx lost
 * (core/gpu.h's pt_sticky), and every later call fails at once with the first cause.
 *
 * HIP. build.zig compiles blas.c device.c graph.c launch.c program.c staging.c stream.c a
 * second time with -DPT_VENDOR_HIP into the hip backend, as ggml builds its CUDA sources
 * for HIP: lib.h's rows name each entry point's HIP symbol beside CUDA's, hip/vendor.h
 * picks that column and adds HIP's own calls and numbers, and the rename blocks (there and
 * below) keep the two copies' symbols apart in one library. Only what HIP does differently
 * lives in backends/hip (its loader, inventory and context); the vendor hooks are the seam.
 */
#ifndef PT_CUDA_H
#define PT_CUDA_H
#include <stdatomic.h>
#include <stdint.h>
#include "driver.h"
#include "sync.h"
#include "blocks.h"
#include "gpu.h"
#include "ring.h"
#include "lib.h" /* and, in the HIP build, hip/vendor.h */
#include "params.h" /* both builds: HIP programs carry the same pt_params */
#define GPU_MAX_BUFS PT_CUDA_MAX_BUFS
#define GPU_MAX_ARGS PT_CUDA_MAX_ARGS
#ifndef PT_VENDOR_HIP
#define GPU_TAG "cuda"               /* message prefix, driver and language name */
#define GPU_API "CUDA"
#define GPU_LOST "device %d's context" /* what a sticky error loses, in messages */
#define GPU_DRIVER pt_driver_cuda
#define GPU_BIND CtxSetCurrent       /* vendor_bind's call, named in messages */
#define GPU_BLAS "cuBLAS"
#define GPU_RTC "NVRTC"
#define GPU_NO_GRAPHS "this driver lacks the graph API (cuStreamBeginCapture_v2, cuGraphInstantiateWithFlags; CUDA 11.4+)"
#define GPU_SOURCE "CUDA C"
#define GPU_SRC_EXT ".cu"
#define GPU_IMAGE_EXT ".cubin"
#define GPU_BLAS_OP_N CUBLAS_OP_N
#define GPU_BLAS_OP_T CUBLAS_OP_T
#define GPU_HOST_MAPPED CU_MEMHOSTALLOC_DEVICEMAP /* flags of the error and completion words' pinned memory */
#define GPU_BLAS_SWITCH "PT_CUDA_BLAS" /* "0" turns the BLAS off (blas.c) */
#define GPU_BLAS_DEFAULT_MATH(h) cublas.SetMathMode(h, CUBLAS_DEFAULT_MATH)
#define GPU_BLAS_COMPUTE_32F 68      /* CUBLAS_COMPUTE_32F: GemmEx accumulates in f32 */
#define GPU_BLAS_COMPUTE_TF32 77     /* CUBLAS_COMPUTE_32F_FAST_TF32 */
#define GPU_BLAS_GEMM_DEFAULT (-1)   /* CUBLAS_GEMM_DEFAULT: cuBLAS picks, tensor cores included */
typedef struct { CUcontext cu; } cuda_vendor_ctx; /* the retained primary context */
#endif

#define PT_CUDA_BLOCK 256 /* threads per block, for every kind (params.h) */

/* The pinned staging ring of host<->device copies (staging.c): slots of 8 MiB, four of them. */
#define PT_CUDA_STAGE_SLOTS 4
#define PT_CUDA_STAGE_BYTES ((size_t)8 << 20)

#ifdef PT_VENDOR_HIP /* the HIP build's copies of the names the files share */
#define vendor_is_sticky hip_is_sticky
#define vendor_error_name hip_error_name
#define vendor_error_text hip_error_text
#define vendor_count hip_count
#define vendor_device_attrs hip_device_attrs
#define vendor_device_info hip_device_info
#define vendor_has hip_has
#define vendor_open hip_open
#define vendor_bind hip_bind
#define vendor_close hip_close
#define vendor_build_setup hip_build_setup
#define vendor_load_hint hip_load_hint
#define cu_fail hipd_fail
#define cu_fail_for hipd_fail_for
#define cu_enter hipd_enter
#define cuda_alloc hipd_alloc
#define cuda_free hipd_free
#define cuda_mem_info hipd_mem_info
#define cuda_queue_create hipd_queue_create
#define cuda_queue_free hipd_queue_free
#define cuda_write hipd_write
#define cuda_read hipd_read
#define cuda_copy hipd_copy
#define cuda_sync hipd_sync
#define cuda_fence_record hipd_fence_record
#define cuda_fence_query hipd_fence_query
#define cuda_fence_wait hipd_fence_wait
#define cuda_queue_wait hipd_queue_wait
#define cuda_fence_elapsed_ms hipd_fence_elapsed_ms
#define cuda_fence_free hipd_fence_free
#define cuda_check_word hipd_check_word
#define cuda_stage_write hipd_stage_write
#define cuda_stage_read hipd_stage_read
#define cuda_stage_free hipd_stage_free
#define cuda_program_create hipd_program_create
#define cuda_program_free hipd_program_free
#define cuda_capture_begin hipd_capture_begin
#define cuda_capture_end hipd_capture_end
#define cuda_graph_launch hipd_graph_launch
#define cuda_graph_free hipd_graph_free
#define cuda_has_graphs hipd_has_graphs
#define cuda_launch hipd_launch
#define cuda_ring_init hipd_ring_init
#define cuda_drain_all hipd_drain_all
#define cuda_flush hipd_flush
#define cuda_blas_matmul hipd_blas_matmul
#define cuda_blas_shutdown hipd_blas_shutdown
#endif

typedef struct {
  char *host;            /* PT_CUDA_STAGE_BYTES of the ring; host and ev are fixed while the ring lives */
  CUevent ev;            /* recorded right after the last copy queued from or into the slot */
  CUstream s;            /* the stream ev was recorded on (under ctx->lock, like the next three) */
  unsigned long long stamp; /* record order, to find the oldest */
  unsigned char busy;    /* a call is filling or draining it */
  unsigned char pending; /* ev may not have passed: wait for it before touching host */
} cuda_slot;

/* A device as inventory sees it (the vendor's device_attrs fills it; HIP has no cc). */
typedef struct { CUdevice dev; int major, minor, warp, max_threads, sms; } dev_attrs;

typedef struct cuda_queue cuda_queue;
typedef struct cuda_ctx {
  int index;
  CUdevice dev;
  cuda_vendor_ctx v;
  int cc_major, cc_minor, sms, warp;
  CUdeviceptr errblk;   /* long long[4], params.h's error word block */
  volatile long long *errhost; /* the block's host address when it is mapped pinned memory, else NULL */
  CUstream svc;         /* reads and clears the word, apart from the user's queues */
  pt_sticky dead;       /* the sticky CUresult that killed the context, and its first cause */
  pt_mutex lock;        /* guards the fields below */
  pt_word word;         /* launched, kinds since the last read, a ring's refused launch */
  cublasHandle_t blas;
  int blas_state;       /* 0 not tried, 1 ready, < 0 the status of the failed attempt */
  int stage_state;      /* staging.c's ring: 0 not made, 1 ready, 2 being made, -1 unavailable */
  char *stage_base;     /* the ring's one pinned block */
  unsigned long long stage_stamp;
  cuda_slot stage[PT_CUDA_STAGE_SLOTS];
  pt_mutex qlock;         /* guards queues */
  cuda_queue *queues;
} cuda_ctx;

/* A queue's launches go through its ring (core/ring.h, launch.c); every other call on its
 * stream drains the ring first, and so does anything that frees memory or a module. */
struct cuda_queue {
  CUstream s;
  /* A sync's completion word (stream.c): mapped pinned memory the stream writes the sync's
   * number to after the work before it; NULL where it could not be made (cuStreamSynchronize). */
  volatile uint32_t *done;
  CUdeviceptr done_dev;
  uint32_t posted;     /* the last number written, under sync_lock */
  atomic_int kernels;  /* set by each kernel or graph launch, cleared by a sync: a sync with none since polls nothing */
  pt_mutex sync_lock;  /* one poster at a time, so numbers reach the stream in order */
  atomic_int capturing; /* written under ctx->lock with capture_kinds; read without it, so a launch never waits on it */
  uint32_t capture_kinds;
  cuda_ctx *c;
  cuda_queue *next; /* c->queues, under c->qlock */
  pt_ring ring;
};
typedef struct { CUevent ev; pt_outcome out; } cuda_fence; /* a failure seen once sticks */
/* reports: the source calls pt_fail(p.err, ...) or PT_FAIL(PT_KERR_...), so its kernels may set the error word. */
typedef struct { int kind, reports; CUmodule mod; CUfunction fn; } cuda_prog;

/* Vendor hooks: cuda.c for CUDA, hip/hip.c for HIP (each under its own names). */
int vendor_is_sticky(CUresult r);  /* the context cannot run anything after r */
const char *vendor_error_name(CUresult r); /* never NULL */
const char *vendor_error_text(CUresult r); /* never NULL */
int vendor_count(void);
int vendor_device_attrs(int index, dev_attrs *d);
int vendor_device_info(int index, const dev_attrs *d, double *fields); /* the fields device.c leaves */
int vendor_has(int index, const dev_attrs *d, const char *capability);
int vendor_open(cuda_ctx *c);      /* makes c's context and makes it current here; PT_OK or a failure */
int vendor_bind(cuda_ctx *c);      /* makes c's context current on this thread: CUresult */
void vendor_close(cuda_ctx *c, int dead); /* undoes vendor_open after the ctx's objects are gone */
/* program.c's compiler, set up by the vendor for one device: the options, the target they
 * name (for messages), where the image comes from, and the cache key of all but the source. */
typedef struct {
  const char *opts[8];
  int nopt;
  char target[160], extra[40]; /* storage the options point into */
  nvrtcResult(CUDAAPI *size)(nvrtcProgram p, size_t *n);
  nvrtcResult(CUDAAPI *get)(nvrtcProgram p, char *image);
  uint64_t key;
} cuda_build;
int vendor_build_setup(const cuda_ctx *c, cuda_build *b);
/* A fresh image the driver refused with r: st, or st with the likely reason added. */
int vendor_load_hint(const cuda_ctx *c, const cuda_build *b, CUresult r, int st);

/* device.c */
int cu_fail(cuda_ctx *c, const char *fn, CUresult r);
int cu_fail_for(cuda_ctx *c, const char *fn, const char *what, CUresult r); /* "fn (what) failed": what may be NULL */
int cu_enter(cuda_ctx *c);

/* stream.c: memory, queues, fences, the error word */
int cuda_alloc(void *ctx, size_t bytes, void **mem, void **host);
void cuda_free(void *ctx, void *mem);
int cuda_mem_info(void *ctx, size_t *fr, size_t *total);
int cuda_queue_create(void *ctx, void **queue);
void cuda_queue_free(void *ctx, void *queue);
int cuda_write(void *ctx, void *queue, void *mem, size_t off, const void *src, size_t bytes);
int cuda_read(void *ctx, void *queue, void *mem, size_t off, void *dst, size_t bytes);
int cuda_copy(void *ctx, void *queue, void *src, size_t soff, void *dst, size_t doff, size_t bytes);
int cuda_sync(void *ctx, void *queue);
int cuda_fence_record(void *ctx, void *queue, void **fence);
int cuda_fence_query(void *ctx, void *fence);
int cuda_fence_wait(void *ctx, void *fence);
int cuda_queue_wait(void *ctx, void *queue, void *fence);
double cuda_fence_elapsed_ms(void *ctx, void *start, void *end);
void cuda_fence_free(void *ctx, void *fence);
/* After a host wait has seen work finish: reads the error word and reports what a kernel
 * wrote there (PT_EKERNEL), clearing it (core/gpu.h's pt_word_check). */
int cuda_check_word(cuda_ctx *c);

/* staging.c: writes and reads through the pinned ring. Each returns PT_OK or a failure, and
 * sets *done to the bytes it moved (all of them, or a prefix: 0 when there is no ring, or
 * when no slot can be had without waiting behind another queue's work); the caller copies
 * the rest directly. A staged write returns before its copies land; a staged read has waited
 * for them (but not read the error word). stage_free (shutdown) waits for the slots' last
 * copies (at once on a lost context) and frees the events and the pinned block. */
int cuda_stage_write(cuda_ctx *c, CUstream s, CUdeviceptr dst, const void *src, size_t n, size_t *done);
int cuda_stage_read(cuda_ctx *c, CUstream s, void *dst, CUdeviceptr src, size_t n, size_t *done);
void cuda_stage_free(cuda_ctx *c);

/* program.c */
int cuda_program_create(void *ctx, const char *kind, const uint8_t *src, size_t len, void **prog);
void cuda_program_free(void *ctx, void *prog);

/* graph.c: captured steps as CUDA graphs (stream capture, instantiate once, replay) */
int cuda_has_graphs(void); /* 1 when the driver has every graph call graph.c needs */
int cuda_capture_begin(void *ctx, void *queue);
int cuda_capture_end(void *ctx, void *queue, void **graph);
int cuda_graph_launch(void *ctx, void *queue, void *graph);
void cuda_graph_free(void *ctx, void *graph);

/* launch.c: launches, through the queue's ring, after checking the block and planning the
 * grid (core/gpu.h). ring_init makes a queue's ring; drain_all issues every queue's waiting
 * launches (before memory or a module goes). */
int cuda_launch(void *ctx, void *queue, void *prog, const pt_mem_ref *bufs, int nbuf, const double *args, int nargs);
int cuda_ring_init(cuda_queue *q);
void cuda_drain_all(cuda_ctx *c);
int cuda_flush(void *ctx, void *queue);

/* blas.c: PT_OK when cuBLAS ran the product, 1 when it cannot (the kernel runs), or an error. */
int cuda_blas_matmul(cuda_ctx *c, CUstream s, const pt_matmul_plan *mm, const pt_mem_ref *bufs);
void cuda_blas_shutdown(cuda_ctx *c);

#endif
