/* hip.h: the HIP driver's private objects and the functions its files share.
 *
 * Ownership and ordering. One hip_ctx per opened device: activate() (hip.c) selects the
 * device, makes a service stream and the error word block; shutdown() frees what it made.
 * HIP's runtime API keeps one implicit (primary) context per device, selected per thread
 * with hipSetDevice, so every driver entry point first selects its device on the calling
 * thread (hip_enter): calls arrive from any thread (Workers), mostly outside the core lock,
 * and the ctx's mutable fields sit under ctx->lock. Queues are non-blocking streams, fences
 * are events, programs are modules; each belongs to the ctx that made it, and the core frees
 * them all before shutdown(). A HIP call's failure becomes pt_error() text via hip_fail().
 */
#ifndef PT_HIP_H
#define PT_HIP_H
#include <stdatomic.h>
#include <stdint.h>
#include "driver.h"
#include "sync.h"
#include "lib.h"
#include "params.h"
#include "blocks.h"

#define PT_HIP_BLOCK 256 /* threads per block, for every kind (params.h): 4 or 8 waves */

typedef struct {
  int index;
  hipDevice_t dev;
  int sms, wave;
  char arch[128];       /* gcnArchName ("gfx90a:sramecc+:xnack-"), "" when unknown */
  void *errblk;         /* long long[4], params.h's error word block */
  hipStream_t svc;      /* reads and clears the word, apart from the user's queues */
  atomic_int dead;      /* the sticky hipError_t that broke the device; 0 while healthy */
  pt_mutex lock;        /* guards the fields below */
  char dead_msg[400];
  uint32_t kinds_since; /* bit per kind launched since the word was last read */
  int launched;         /* 1 once any kernel ran: before that the word cannot be set */
  hipblasHandle_t blas;
  int blas_state;       /* 0 not tried, 1 ready, < 0 the status of the failed attempt */
} hip_ctx;

typedef struct { hipStream_t s; int capturing; uint32_t capture_kinds; } hip_queue; /* the two under ctx->lock */
typedef struct { hipEvent_t ev; pt_outcome out; } hip_fence; /* a failure seen once sticks */
typedef struct { int kind; hipModule_t mod; hipFunction_t fn; } hip_prog;

/* hip.c */
int hip_fail(hip_ctx *c, const char *fn, hipError_t r);
int hip_enter(hip_ctx *c);
const char *hip_err_name(hipError_t r); /* "hipErrorX (n)", per thread */

/* stream.c: memory, queues, fences, the error word */
int hipd_alloc(void *ctx, size_t bytes, void **mem, void **host);
void hipd_free(void *ctx, void *mem);
int hipd_mem_info(void *ctx, size_t *fr, size_t *total);
int hipd_queue_create(void *ctx, void **queue);
void hipd_queue_free(void *ctx, void *queue);
int hipd_write(void *ctx, void *queue, void *mem, size_t off, const void *src, size_t bytes);
int hipd_read(void *ctx, void *queue, void *mem, size_t off, void *dst, size_t bytes);
int hipd_copy(void *ctx, void *queue, void *src, size_t soff, void *dst, size_t doff, size_t bytes);
int hipd_sync(void *ctx, void *queue);
int hipd_fence_record(void *ctx, void *queue, void **fence);
int hipd_fence_query(void *ctx, void *fence);
int hipd_fence_wait(void *ctx, void *fence);
int hipd_queue_wait(void *ctx, void *queue, void *fence);
double hipd_fence_elapsed_ms(void *ctx, void *start, void *end);
void hipd_fence_free(void *ctx, void *fence);
/* After a host wait has seen work finish: reads the error word and reports what a kernel
 * wrote there (PT_EKERNEL), clearing it. */
int hipd_check_word(hip_ctx *c);

/* program.c */
int hipd_program_create(void *ctx, const char *kind, const uint8_t *src, size_t len, void **prog);
void hipd_program_free(void *ctx, void *prog);

/* grid.c: launch shapes. Checks the block (blocks.h) and sets *grid (0 = no work). */
int hipd_plan(const hip_ctx *c, int kind, const pt_mem_ref *bufs, int nbuf, const double *a, int na, unsigned *grid,
              pt_matmul_plan *mm);

/* launch.c */
int hipd_launch(void *ctx, void *queue, void *prog, const pt_mem_ref *bufs, int nbuf, const double *args, int nargs);

/* graph.c: captured steps as HIP graphs (stream capture, instantiate once, replay) */
int hipd_has_graphs(void); /* 1 when the runtime has every graph call below needs */
int hipd_capture_begin(void *ctx, void *queue);
int hipd_capture_end(void *ctx, void *queue, void **graph);
int hipd_graph_launch(void *ctx, void *queue, void *graph);
void hipd_graph_free(void *ctx, void *graph);

/* blas.c: PT_OK when hipBLAS ran the product, 1 when it cannot (the kernel runs), or an error. */
int hipd_blas_matmul(hip_ctx *c, hipStream_t s, const pt_matmul_plan *mm, const pt_mem_ref *bufs);
void hipd_blas_shutdown(hip_ctx *c);

#endif
