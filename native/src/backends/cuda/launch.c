/* launch.c: one pt_launch on a CUDA queue: check, then cuBLAS or cuLaunchKernel.
 *
 * Ownership and ordering. The core has resolved the block's buffer handles to device
 * pointers and keeps them (and the program) alive for the call only. A kernel launch is
 * checked here and then queued on the queue's launch ring (core/ring.h) as a record that
 * holds the whole pt_params, so nothing the caller owns is read after the call; the ring's
 * thread (or the next drain) makes the cuLaunchKernel call, since on the machines we
 * measured that call alone costs about as much host time as the rest of an op. The core's
 * frees of memory and modules go through cuda_free and cuda_program_free, which drain every
 * queue first, so a record never names memory or a function that is gone. A launch the
 * driver refuses from the ring is kept in ctx->launch_fail and reported by the next wait on
 * the device (cuda_check_word), like a kernel's error word; a kernel that fails on the GPU
 * says so at the next wait too (stream.c). cuBLAS calls and launches into a capture are made
 * directly, after a drain.
 */
#include <string.h>
#include "cuda.h"

#define PT_CUDA_RING_RECORDS 256

typedef struct {
  CUfunction fn;
  unsigned grid;
  pt_params p;
} cuda_launch_rec;

static _Thread_local const pt_ring *ring_thread; /* the ring whose thread this is, if any */

/* The ring's thread: the context is made current once. */
static void enter_thread(void *arg) {
  cuda_queue *q = arg;
  ring_thread = &q->ring;
  vendor_bind(q->c);
}

static void issue(void *arg, void *rec) {
  cuda_queue *q = arg;
  cuda_launch_rec *l = rec;
  void *kp[1] = {&l->p};
  if (ring_thread != &q->ring) vendor_bind(q->c); /* a draining caller's thread */
  CUresult r = cu.LaunchKernel(l->fn, l->grid, 1, 1, PT_CUDA_BLOCK, 1, 1, 0, q->s, kp, NULL);
  if (r == CUDA_SUCCESS) return;
  int st = cu_fail(q->c, CU_NAME(LaunchKernel), r); /* this thread's error text, kept below */
  pt_mutex_lock(&q->c->lock);
  pt_outcome_settle(&q->c->word.launch_fail, st);
  pt_mutex_unlock(&q->c->lock);
}

int cuda_ring_init(cuda_queue *q) { return pt_ring_init(&q->ring, sizeof(cuda_launch_rec), PT_CUDA_RING_RECORDS, issue, enter_thread, q); }

void cuda_drain_all(cuda_ctx *c) {
  pt_mutex_lock(&c->qlock);
  for (cuda_queue *q = c->queues; q; q = q->next) pt_ring_drain(&q->ring);
  pt_mutex_unlock(&c->qlock);
}

int cuda_flush(void *ctx, void *queue) {
  (void)ctx;
  pt_ring_kick(&((cuda_queue *)queue)->ring);
  return PT_OK;
}

/* Launch shapes (params.h): checks the block against pt_params and its views against their
 * buffers (core blocks.c) before anything is queued, so a bad block fails with PT_EINVAL and
 * nothing runs (on HIP this matters more: ROCm ends the process on a GPU memory fault).
 * Kernels loop with grid strides and never assume the grid; an ELEMENT launch fills every
 * SM 32 times over (256 threads each), beyond which the grid-stride loop takes over. */
static int plan(const cuda_ctx *c, int kind, const pt_mem_ref *bufs, int nbuf, const double *a, int na, unsigned *grid,
                pt_matmul_plan *mm) {
  int64_t work = 0;
  int st = pt_launch_check(GPU_TAG, GPU_API, GPU_MAX_BUFS, GPU_MAX_ARGS, kind, bufs, nbuf, a, na, &work, mm, NULL);
  if (st == PT_OK) *grid = pt_grid_groups(kind, work, PT_CUDA_BLOCK, 32 * (int64_t)c->sms);
  return st;
}

int cuda_launch(void *ctx, void *queue, void *prog, const pt_mem_ref *bufs, int nbuf, const double *args, int nargs) {
  cuda_ctx *c = ctx;
  cuda_queue *q = queue;
  cuda_prog *p = prog;
  unsigned grid = 0;
  pt_matmul_plan mm;
  int st = plan(c, p->kind, bufs, nbuf, args, nargs, &grid, &mm);
  if (st != PT_OK) return st;
  if (pt_sticky_code(&c->dead)) return cu_enter(c); /* the lost context's error */
  atomic_store(&q->kernels, 1); /* before anything is queued (cuBLAS too), so a sync after this call polls (stream.c) */
  int direct = atomic_load(&q->capturing) || p->kind == PT_K_MATMUL;
  if (direct) {
    if ((st = cu_enter(c)) != PT_OK) return st;
    pt_ring_drain(&q->ring);
  }
  if (p->kind == PT_K_MATMUL) {
    if (mm.batch == 0 || mm.M == 0 || mm.N == 0) return PT_OK;
    if ((st = cuda_blas_matmul(c, q->s, &mm, bufs)) <= 0) return st; /* done, or failed; 1: the kernel's turn */
  }
  if (grid == 0) return PT_OK; /* no work: nothing to launch */
  if (!p->fn)
    return pt_error(PT_EUNSUPPORTED, GPU_TAG ": this %s program has no kernel (it was made from empty source) and " GPU_BLAS " cannot "
                    "run this product (dtype %d, or strides without a unit dim, or " GPU_BLAS " is missing)", pt_program_kind_name(p->kind), mm.dtype);

  cuda_launch_rec local, *l = &local;
  if (direct) memset(&local, 0, sizeof local);
  else l = pt_ring_reserve(&q->ring);
  l->fn = p->fn;
  l->grid = grid;
  pt_params *params = &l->p; /* slots past nbuf and nargs keep stale values that no kernel reads */
  for (int i = 0; i < nbuf; i++) params->buf[i] = (unsigned long long)(uintptr_t)bufs[i].mem;
  params->err = c->errblk;
  params->nbuf = nbuf;
  params->nargs = nargs;
  if (nargs > 0) memcpy(params->a, args, (size_t)nargs * sizeof(double));

  /* Marked before the launch, so that a wait that sees the kernel finish also reads the
   * word, and a report can name the kinds that may have written it. */
  pt_mutex_lock(&c->lock);
  pt_word_mark(&c->word, 1u << p->kind, p->reports);
  if (q->capturing) q->capture_kinds |= 1u << p->kind;
  pt_mutex_unlock(&c->lock);
  if (!direct) {
    pt_ring_publish(&q->ring);
    return PT_OK;
  }
  void *kp[1] = {params};
  CUresult r = cu.LaunchKernel(p->fn, grid, 1, 1, PT_CUDA_BLOCK, 1, 1, 0, q->s, kp, NULL);
  return r == CUDA_SUCCESS ? PT_OK : cu_fail(c, CU_NAME(LaunchKernel), r);
}
