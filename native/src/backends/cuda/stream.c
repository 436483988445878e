/* stream.c: device memory, copies, queues (streams), fences (events), and the error word.
 *
 * Ownership and ordering. Memory is plain cuMemAlloc memory (no host address); the core's
 * caching allocator sits above it. Work on one queue runs in stream order; a host-side wait
 * (read, sync, fence wait, a fence query that finds its event passed) is where a kernel's
 * failure surfaces: after the wait, cuda_check_word() reads the context's error word block
 * on the service stream, reports PT_EKERNEL if a kernel wrote there, and clears it. The word
 * is one per context (params.h), so a failure on one queue is reported by the first wait on
 * any queue of the device, once. A fence remembers a failure it reported, so an earlier
 * failed completion never turns into success. Copies from and to the caller's memory go
 * through the context's pinned staging ring (staging.c): a write returns once the caller's
 * bytes are in the ring, before its copy lands (stream order puts the queue's later work
 * after it); a read returns after its copy landed. The caller's memory is not kept
 * (polytensor.h). What the ring cannot take (no ring, no slot free of other queues' work, a
 * queue that is capturing) is copied directly and waited for, as before the ring existed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda.h"

#define DPTR(m) ((CUdeviceptr)(uintptr_t)(m))

/* ---- memory ----------------------------------------------------------------------- */

int cuda_alloc(void *ctx, size_t bytes, void **mem, void **host) {
  cuda_ctx *c = ctx;
  int st = cu_enter(c);
  if (st != PT_OK) return st;
  CUdeviceptr p = 0;
  CUresult r = cu.MemAlloc(&p, bytes ? bytes : 1); /* CUDA rejects 0 bytes; a 1-byte block stands in */
  if (r != CUDA_SUCCESS) return cu_fail(c, CU_NAME(MemAlloc), r); /* out of memory is PT_EOOM: the core trims and retries */
  *mem = (void *)(uintptr_t)p;
  *host = NULL;
  return PT_OK;
}

void cuda_free(void *ctx, void *mem) {
  cuda_ctx *c = ctx;
  if (cu_enter(c) != PT_OK) return; /* a lost context's memory goes with its reset */
  cuda_drain_all(c); /* launches naming it are issued before it goes */
  CUresult r = cu.MemFree(DPTR(mem)); /* waits for work still using it */
  if (r != CUDA_SUCCESS) cu_fail(c, CU_NAME(MemFree), r);
}

int cuda_mem_info(void *ctx, size_t *fr, size_t *total) {
  cuda_ctx *c = ctx;
  int st = cu_enter(c);
  if (st != PT_OK) return st;
  CUresult r = cu.MemGetInfo(fr, total);
  return r == CUDA_SUCCESS ? PT_OK : cu_fail(c, CU_NAME(MemGetInfo), r);
}

/* ---- queues and copies ------------------------------------------------------------ */

/* The queue's completion word, where the driver offers mapped memory and stream writes;
 * without it syncs call cuStreamSynchronize. */
static void make_done_word(cuda_queue *q) {
  void *host = NULL;
  if (!cu.StreamWriteValue32 || !cu.MemHostAlloc || !cu.MemHostGetDevicePointer || !cu.MemFreeHost ||
      cu.MemHostAlloc(&host, 64, GPU_HOST_MAPPED) != CUDA_SUCCESS)
    return;
  if (cu.MemHostGetDevicePointer(&q->done_dev, host, 0) != CUDA_SUCCESS) {
    cu.MemFreeHost(host);
    return;
  }
  memset(host, 0, 64);
  q->done = host;
}

int cuda_queue_create(void *ctx, void **out) {
  cuda_ctx *c = ctx;
  int st = cu_enter(c);
  if (st != PT_OK) return st;
  cuda_queue *q = calloc(1, sizeof *q);
  if (!q) return pt_error(PT_EOOM, GPU_TAG ": out of host memory for a queue");
  /* Non-blocking: no implicit ordering with the legacy default stream, which other
   * libraries in the process may use. */
  CUresult r = cu.StreamCreate(&q->s, CU_STREAM_NON_BLOCKING);
  if (r != CUDA_SUCCESS) { free(q); return cu_fail(c, CU_NAME(StreamCreate), r); }
  q->c = c;
  q->sync_lock = (pt_mutex)PT_MUTEX_INIT;
  if ((st = cuda_ring_init(q)) != PT_OK) {
    cu.StreamDestroy(q->s);
    free(q);
    return st;
  }
  make_done_word(q);
  pt_mutex_lock(&c->qlock);
  q->next = c->queues;
  c->queues = q;
  pt_mutex_unlock(&c->qlock);
  *out = q;
  return PT_OK;
}

void cuda_queue_free(void *ctx, void *queue) {
  cuda_ctx *c = ctx;
  cuda_queue *q = queue;
  pt_mutex_lock(&c->qlock);
  for (cuda_queue **p = &c->queues; *p; p = &(*p)->next)
    if (*p == q) { *p = q->next; break; }
  pt_mutex_unlock(&c->qlock);
  pt_ring_fini(&q->ring); /* its last launches are issued, and its thread is gone */
  /* Work still queued finishes first; the driver frees the stream after it. */
  if (cu_enter(c) == PT_OK) {
    cu.StreamDestroy(q->s);
    if (q->done) cu.MemFreeHost((void *)q->done); /* no write to it is pending: every sync waited for its own */
  }
  free(q);
}

/* A capturing stream would record the ring's host-side staging into the graph: copies on
 * it keep the direct path (the core refuses them before they get here anyway). */
static int capturing(cuda_queue *q) { return atomic_load(&q->capturing); }

int cuda_write(void *ctx, void *queue, void *mem, size_t off, const void *src, size_t n) {
  cuda_ctx *c = ctx;
  cuda_queue *q = queue;
  int st = cu_enter(c);
  if (st != PT_OK) return st;
  pt_ring_drain(&q->ring); /* its launches go first (launch.c) */
  size_t done = 0;
  if (!capturing(q) && ((st = cuda_stage_write(c, q->s, DPTR(mem) + off, src, n, &done)) != PT_OK || done == n))
    return st; /* staged: src is in the ring, and the copy is queued */
  /* Direct, from pageable memory: the driver stages it itself, and waiting for the stream
   * lets the caller reuse src at once. */
  CUresult r = cu.MemcpyHtoDAsync(DPTR(mem) + off + done, (const char *)src + done, n - done, q->s);
  if (r != CUDA_SUCCESS) return cu_fail(c, CU_NAME(MemcpyHtoDAsync), r);
  r = cu.StreamSynchronize(q->s);
  return r == CUDA_SUCCESS ? PT_OK : cu_fail(c, CU_NAME(StreamSynchronize), r);
}

int cuda_read(void *ctx, void *queue, void *mem, size_t off, void *dst, size_t n) {
  cuda_ctx *c = ctx;
  cuda_queue *q = queue;
  int st = cu_enter(c);
  if (st != PT_OK) return st;
  pt_ring_drain(&q->ring); /* its launches go first (launch.c) */
  /* Queued behind the queue's earlier work, so the read sees it; the wait for its (last)
   * copy covers both. */
  size_t done = 0;
  if (!capturing(q) && (st = cuda_stage_read(c, q->s, dst, DPTR(mem) + off, n, &done)) != PT_OK) return st;
  if (done < n || n == 0) {
    CUresult r = cu.MemcpyDtoHAsync((char *)dst + done, DPTR(mem) + off + done, n - done, q->s);
    if (r != CUDA_SUCCESS) return cu_fail(c, CU_NAME(MemcpyDtoHAsync), r);
    if ((r = cu.StreamSynchronize(q->s)) != CUDA_SUCCESS) return cu_fail(c, CU_NAME(StreamSynchronize), r);
  }
  return cuda_check_word(c);
}

int cuda_copy(void *ctx, void *queue, void *src, size_t soff, void *dst, size_t doff, size_t n) {
  cuda_ctx *c = ctx;
  cuda_queue *q = queue;
  int st = cu_enter(c);
  if (st != PT_OK) return st;
  pt_ring_drain(&q->ring); /* its launches go first (launch.c) */
  CUdeviceptr s = DPTR(src) + soff, d = DPTR(dst) + doff, tmp = 0;
  CUresult r;
  if (s != d && s < d + n && d < s + n) {
    /* cuMemcpy is memcpy, not memmove: overlapping ranges of one buffer go through a
     * temporary (rare: the core's copies are between distinct regions). A graph would keep
     * the temporary's address after cuMemFree, so a step cannot record such a copy. */
    if (capturing(q))
      return pt_error(PT_EUNSUPPORTED, GPU_TAG ": a copy between overlapping ranges of one buffer cannot be captured in a step");
    if ((r = cu.MemAlloc(&tmp, n)) != CUDA_SUCCESS) return cu_fail_for(c, CU_NAME(MemAlloc), "overlapping copy", r);
    r = cu.MemcpyDtoDAsync(tmp, s, n, q->s);
    if (r == CUDA_SUCCESS) r = cu.MemcpyDtoDAsync(d, tmp, n, q->s);
    CUresult rf = cu.MemFree(tmp); /* waits for the two copies */
    if (r == CUDA_SUCCESS) r = rf;
    return r == CUDA_SUCCESS ? PT_OK : cu_fail(c, CU_NAME(MemcpyDtoDAsync), r);
  }
  if (s == d) return PT_OK;
  r = cu.MemcpyDtoDAsync(d, s, n, q->s);
  return r == CUDA_SUCCESS ? PT_OK : cu_fail(c, CU_NAME(MemcpyDtoDAsync), r);
}

/* How long a sync polls its completion word before it falls back to cuStreamSynchronize,
 * which also reports a lost context (whose stream never writes the word). */
#define PT_CUDA_POLL_NS 200000

/* Waits for the queue's work by a stream write of the next number to q->done and a poll of
 * it, which returns sooner after a small kernel than cuStreamSynchronize. Only after a
 * kernel since the last sync: on an idle stream the write's round trip through the GPU
 * costs more than cuStreamSynchronize (both in docs/measurements.md). Returns 1 when the work is done, 0 when the caller
 * must wait the driver's way (no kernel since, no word, the write refused, or the poll
 * timed out). */
static int poll_done(cuda_queue *q) {
  if (!q->done || !atomic_exchange(&q->kernels, 0) || atomic_load(&q->capturing)) return 0;
  pt_mutex_lock(&q->sync_lock);
  uint32_t n = q->posted + 1;
  int ok = cu.StreamWriteValue32(q->s, q->done_dev, n, 0) == CUDA_SUCCESS; /* default: after the earlier work's writes */
  if (ok) q->posted = n;
  pt_mutex_unlock(&q->sync_lock);
  if (!ok) return 0;
  uint64_t until = 0;
  for (unsigned i = 1; (int32_t)(*q->done - n) < 0; i++) { /* wraps: compare by difference */
    pt_cpu_relax();
    if (i % 64 == 0) {
      uint64_t now = pt_now_ns();
      if (until == 0) until = now + PT_CUDA_POLL_NS;
      else if (now > until) return 0;
    }
  }
  return 1;
}

int cuda_sync(void *ctx, void *queue) {
  cuda_ctx *c = ctx;
  cuda_queue *q = queue;
  int st = cu_enter(c);
  if (st != PT_OK) return st;
  pt_ring_drain(&q->ring); /* its launches go first (launch.c) */
  if (poll_done(q)) return cuda_check_word(c);
  CUresult r = cu.StreamSynchronize(q->s);
  return r == CUDA_SUCCESS ? cuda_check_word(c) : cu_fail(c, CU_NAME(StreamSynchronize), r);
}

/* ---- the error word (params.h; core/gpu.h checks it, pt_kernel_error reports it) -------- */

/* pt_word_check's reader, under ctx->lock. */
static int read_word(void *arg, long long w[4]) {
  cuda_ctx *c = arg;
  if (c->errhost) { /* mapped: the finished kernels' writes are visible after the wait */
    /* The code first, the details only with a code: each read of this mapped memory crosses
     * the bus, and every sync after a reporting kernel makes one. */
    if ((w[0] = c->errhost[0]) != 0) {
      for (int i = 1; i < 4; i++) w[i] = c->errhost[i];
      for (int i = 0; i < 4; i++) c->errhost[i] = 0;
      __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    return PT_OK;
  }
  CUresult r = cu.MemcpyDtoHAsync(w, c->errblk, 4 * sizeof *w, c->svc);
  if (r == CUDA_SUCCESS) r = cu.StreamSynchronize(c->svc);
  if (r != CUDA_SUCCESS) {
    w[0] = 0; /* nothing was read */
    return cu_fail_for(c, CU_NAME(MemcpyDtoHAsync), "error word", r);
  }
  if (w[0] == 0) return PT_OK;
  r = cu.MemsetD8Async(c->errblk, 0, 4 * sizeof *w, c->svc);
  if (r == CUDA_SUCCESS) r = cu.StreamSynchronize(c->svc);
  return r == CUDA_SUCCESS ? PT_OK : cu_fail_for(c, CU_NAME(MemsetD8Async), "error word", r);
}

int cuda_check_word(cuda_ctx *c) { return pt_word_check(&c->word, &c->lock, read_word, c, NULL); }

/* ---- fences ----------------------------------------------------------------------- */

int cuda_fence_record(void *ctx, void *queue, void **out) {
  cuda_ctx *c = ctx;
  cuda_queue *q = queue;
  int st = cu_enter(c);
  if (st != PT_OK) return st;
  pt_ring_drain(&q->ring); /* its launches go first (launch.c) */
  cuda_fence *f = calloc(1, sizeof *f);
  if (!f) return pt_error(PT_EOOM, GPU_TAG ": out of host memory for a fence");
  CUresult r = cu.EventCreate(&f->ev, CU_EVENT_DEFAULT); /* with timing, for fence_elapsed_ms */
  if (r != CUDA_SUCCESS) { free(f); return cu_fail(c, CU_NAME(EventCreate), r); }
  if ((r = cu.EventRecord(f->ev, q->s)) != CUDA_SUCCESS) {
    cu.EventDestroy(f->ev);
    free(f);
    return cu_fail(c, CU_NAME(EventRecord), r);
  }
  *out = f;
  return PT_OK;
}

/* The fence's event has passed: check the word once, and keep the answer. */
static int settle(cuda_ctx *c, cuda_fence *f) {
  int st = cuda_check_word(c);
  pt_mutex_lock(&c->lock);
  st = pt_outcome_settle(&f->out, st);
  pt_mutex_unlock(&c->lock);
  return st;
}

/* A failure this fence reported before, reported again; else 0 (unknown) or 1 (passed). */
static int remembered(cuda_ctx *c, cuda_fence *f) {
  pt_mutex_lock(&c->lock);
  int st = pt_outcome_get(&f->out);
  pt_mutex_unlock(&c->lock);
  return st;
}

int cuda_fence_query(void *ctx, void *fence) {
  cuda_ctx *c = ctx;
  cuda_fence *f = fence;
  int st = remembered(c, f);
  if (st != 0) return st;
  if ((st = cu_enter(c)) != PT_OK) return st;
  CUresult r = cu.EventQuery(f->ev);
  if (r == CUDA_ERROR_NOT_READY) return 0;
  if (r != CUDA_SUCCESS) return cu_fail(c, CU_NAME(EventQuery), r);
  st = settle(c, f);
  return st == PT_OK ? 1 : st;
}

int cuda_fence_wait(void *ctx, void *fence) {
  cuda_ctx *c = ctx;
  cuda_fence *f = fence;
  int st = remembered(c, f);
  if (st != 0) return st < 0 ? st : PT_OK;
  if ((st = cu_enter(c)) != PT_OK) return st;
  CUresult r = cu.EventSynchronize(f->ev);
  if (r != CUDA_SUCCESS) return cu_fail(c, CU_NAME(EventSynchronize), r);
  return settle(c, f);
}

int cuda_queue_wait(void *ctx, void *queue, void *fence) {
  cuda_ctx *c = ctx;
  cuda_queue *q = queue;
  cuda_fence *f = fence;
  int st = cu_enter(c);
  if (st != PT_OK) return st;
  pt_ring_drain(&q->ring); /* its launches go first (launch.c) */
  CUresult r = cu.StreamWaitEvent(q->s, f->ev, 0); /* on the device: the host does not wait */
  return r == CUDA_SUCCESS ? PT_OK : cu_fail(c, CU_NAME(StreamWaitEvent), r);
}

double cuda_fence_elapsed_ms(void *ctx, void *start, void *end) {
  cuda_ctx *c = ctx;
  int st = cu_enter(c);
  if (st != PT_OK) return st;
  float ms = 0;
  CUresult r = cu.EventElapsedTime(&ms, ((cuda_fence *)start)->ev, ((cuda_fence *)end)->ev);
  if (r == CUDA_ERROR_NOT_READY)
    return pt_error(PT_EINVAL, GPU_TAG ": fence timing needs both fences passed; wait for the later one first");
  return r == CUDA_SUCCESS ? (double)ms : cu_fail(c, CU_NAME(EventElapsedTime), r);
}

void cuda_fence_free(void *ctx, void *fence) {
  cuda_ctx *c = ctx;
  cuda_fence *f = fence;
  if (cu_enter(c) == PT_OK) cu.EventDestroy(f->ev);
  pt_outcome_free(&f->out);
  free(f);
}
