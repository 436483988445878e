/* cuda.h: the CUDA driver's private objects and the functions its files share.
 *
 * Ownership and ordering. One cuda_ctx per opened device: activate() (cuda.c) retains the
 * device's primary context and makes the error word block; shutdown() frees what it made
 * and releases the context (or resets it, when a sticky error killed it). Queues are
 * non-blocking streams, fences are events, programs are modules; each belongs to the
 * ctx that made it, and the core frees them all before shutdown(). Driver entry points
 * arrive from any thread (Workers), mostly outside the core lock, so every one first makes
 * the context current on its thread (cu_enter), and the ctx's mutable fields sit under
 * ctx->lock. A CUDA call's failure becomes pt_error() text through cu_fail().
 */
#ifndef PT_CUDA_H
#define PT_CUDA_H
#include <stdatomic.h>
#include <stdint.h>
#include "driver.h"
#include "sync.h"
#include "lib.h"
#include "params.h"
#include "blocks.h"

#define PT_CUDA_BLOCK 256 /* threads per block, for every kind (params.h) */

typedef struct {
  int index;
  CUdevice dev;
  CUcontext cu;
  int cc_major, cc_minor, sms;
  CUdeviceptr errblk;   /* long long[4], params.h's error word block */
  volatile long long *errhost; /* the block's host address when it is mapped pinned memory, else NULL */
  CUstream svc;         /* reads and clears the word, apart from the user's queues */
  atomic_int dead;      /* the sticky CUresult that killed the context; 0 while healthy */
  pt_mutex lock;        /* guards the fields below */
  char dead_msg[400];
  uint32_t kinds_since; /* bit per kind launched since the word was last read */
  int launched;         /* 1 once any kernel ran: before that the word cannot be set */
  cublasHandle_t blas;
  int blas_state;       /* 0 not tried, 1 ready, < 0 the status of the failed attempt */
} cuda_ctx;

typedef struct { CUstream s; int capturing; uint32_t capture_kinds; } cuda_queue;
typedef struct { CUevent ev; pt_outcome out; } cuda_fence; /* a failure seen once sticks */
typedef struct { int kind; CUmodule mod; CUfunction fn; } cuda_prog;

/* cuda.c */
int cu_fail(cuda_ctx *c, const char *fn, CUresult r);
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
 * wrote there (PT_EKERNEL), clearing it. */
int cuda_check_word(cuda_ctx *c);

/* program.c */
int cuda_program_create(void *ctx, const char *kind, const uint8_t *src, size_t len, void **prog);
void cuda_program_free(void *ctx, void *prog);

/* grid.c: launch shapes. Checks the block (blocks.h) and sets *grid (0 = no work). */
int cuda_plan(const cuda_ctx *c, int kind, const pt_mem_ref *bufs, int nbuf, const double *a, int na, unsigned *grid,
              pt_matmul_plan *mm);

/* graph.c: captured steps as CUDA graphs (stream capture, instantiate once, replay) */
int cuda_capture_begin(void *ctx, void *queue);
int cuda_capture_end(void *ctx, void *queue, void **graph);
int cuda_graph_launch(void *ctx, void *queue, void *graph);
void cuda_graph_free(void *ctx, void *graph);

/* launch.c */
int cuda_launch(void *ctx, void *queue, void *prog, const pt_mem_ref *bufs, int nbuf, const double *args, int nargs);

/* blas.c: PT_OK when cuBLAS ran the product, 1 when it cannot (the kernel runs), or an error. */
int cuda_blas_matmul(cuda_ctx *c, CUstream s, const pt_matmul_plan *mm, const pt_mem_ref *bufs);
void cuda_blas_shutdown(cuda_ctx *c);

#endif
