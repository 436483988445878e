/* cuda.h: the CUDA driver's private objects and the functions its files share.
 *
 * Ownership and ordering. One cuda_ctx per opened device: activate() (cuda.c) retains the
 * device's primary context and makes the error word block; shutdown() frees what it made
 * and releases the context (or resets it, when a sticky error killed it). Queues are
 * non-blocking streams, fences are events, programs are modules; each belongs to the
 * ctx that made it, and the core frees them all before shutdown(). Driver entry points
 * arrive from any thread (Workers), mostly outside the core lock, so every one first makes
 * the context current on its thread (cu_enter), and the ctx's mutable fields sit under
 * ctx->lock. The ctx also owns the pinned staging ring its queues' host<->device copies go
 * through (staging.c), made on the first copy and freed by shutdown(). Launches leave the
 * caller's thread through each queue's launch ring (launch.c), so cuLaunchKernel's host
 * time overlaps the script's next call. A CUDA call's failure becomes pt_error() text
 * through cu_fail(), which takes ctx->lock.
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
#include "ring.h"

#define PT_CUDA_BLOCK 256 /* threads per block, for every kind (params.h) */

/* The pinned staging ring of host<->device copies (staging.c): slots of 8 MiB, four of them. */
#define PT_CUDA_STAGE_SLOTS 4
#define PT_CUDA_STAGE_BYTES ((size_t)8 << 20)

typedef struct {
  char *host;            /* PT_CUDA_STAGE_BYTES of the ring; host and ev are fixed while the ring lives */
  CUevent ev;            /* recorded right after the last copy queued from or into the slot */
  CUstream s;            /* the stream ev was recorded on (under ctx->lock, like the next three) */
  unsigned long long stamp; /* record order, to find the oldest */
  unsigned char busy;    /* a call is filling or draining it */
  unsigned char pending; /* ev may not have passed: wait for it before touching host */
} cuda_slot;

typedef struct cuda_queue cuda_queue;
typedef struct cuda_ctx {
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
  int launched;         /* 1 once a kernel that reports ran: before that the word cannot be set, and a sync skips
                         * reading it (a read of the mapped word crosses the bus) */
  cublasHandle_t blas;
  int blas_state;       /* 0 not tried, 1 ready, < 0 the status of the failed attempt */
  int stage_state;      /* staging.c's ring: 0 not made, 1 ready, 2 being made, -1 unavailable */
  char *stage_base;     /* the ring's one cuMemHostAlloc block */
  unsigned long long stage_stamp;
  cuda_slot stage[PT_CUDA_STAGE_SLOTS];
  pt_outcome launch_fail; /* under lock: a launch issued from a ring failed; the next wait reports it */
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

/* grid.c: launch shapes. Checks the block (blocks.h) and sets *grid (0 = no work). */
int cuda_plan(const cuda_ctx *c, int kind, const pt_mem_ref *bufs, int nbuf, const double *a, int na, unsigned *grid,
              pt_matmul_plan *mm);

/* graph.c: captured steps as CUDA graphs (stream capture, instantiate once, replay) */
int cuda_capture_begin(void *ctx, void *queue);
int cuda_capture_end(void *ctx, void *queue, void **graph);
int cuda_graph_launch(void *ctx, void *queue, void *graph);
void cuda_graph_free(void *ctx, void *graph);

/* launch.c: launches, through the queue's ring. ring_init makes a queue's ring;
 * drain_all issues every queue's waiting launches (before memory or a module goes). */
int cuda_launch(void *ctx, void *queue, void *prog, const pt_mem_ref *bufs, int nbuf, const double *args, int nargs);
int cuda_ring_init(cuda_queue *q);
void cuda_drain_all(cuda_ctx *c);
int cuda_flush(void *ctx, void *queue);

/* blas.c: PT_OK when cuBLAS ran the product, 1 when it cannot (the kernel runs), or an error. */
int cuda_blas_matmul(cuda_ctx *c, CUstream s, const pt_matmul_plan *mm, const pt_mem_ref *bufs);
void cuda_blas_shutdown(cuda_ctx *c);

#endif
