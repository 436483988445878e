/* stream.c: device memory, copies, queues (streams), fences (events), and the error word.
 *
 * Ownership and ordering. Memory is plain hipMalloc memory (no host address); the core's
 * caching allocator sits above it. Work on one queue runs in stream order; a host-side wait
 * (read, sync, fence wait, a fence query that finds its event passed) is where a kernel's
 * failure surfaces: after the wait, hipd_check_word() reads the device's error word block
 * on the service stream, reports PT_EKERNEL if a kernel wrote there, and clears it. The word
 * is one per device (params.h), so a failure on one queue is reported by the first wait on
 * any queue of the device, once. A fence remembers a failure it reported, so an earlier
 * failed completion never turns into success. Copies from and to the caller's memory finish
 * before the call returns: the caller's memory is not kept (polytensor.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hip.h"

/* ---- memory ----------------------------------------------------------------------- */

int hipd_alloc(void *ctx, size_t bytes, void **mem, void **host) {
  hip_ctx *c = ctx;
  int st = hip_enter(c);
  if (st != PT_OK) return st;
  void *p = NULL;
  hipError_t r = hip.Malloc(&p, bytes ? bytes : 1); /* a 0-byte hipMalloc gives NULL; a 1-byte block stands in */
  if (r != hipSuccess) return hip_fail(c, "hipMalloc", r); /* out of memory is PT_EOOM: the core trims and retries */
  *mem = p;
  *host = NULL;
  return PT_OK;
}

void hipd_free(void *ctx, void *mem) {
  hip_ctx *c = ctx;
  if (hip_enter(c) != PT_OK) return; /* a lost device's memory goes with its reset */
  hipError_t r = hip.Free(mem); /* synchronises with work still using it */
  if (r != hipSuccess) hip_fail(c, "hipFree", r);
}

int hipd_mem_info(void *ctx, size_t *fr, size_t *total) {
  hip_ctx *c = ctx;
  int st = hip_enter(c);
  if (st != PT_OK) return st;
  hipError_t r = hip.MemGetInfo(fr, total);
  return r == hipSuccess ? PT_OK : hip_fail(c, "hipMemGetInfo", r);
}

/* ---- queues and copies ------------------------------------------------------------ */

int hipd_queue_create(void *ctx, void **out) {
  hip_ctx *c = ctx;
  int st = hip_enter(c);
  if (st != PT_OK) return st;
  hip_queue *q = calloc(1, sizeof *q);
  if (!q) return pt_error(PT_EOOM, "hip: out of host memory for a queue");
  /* Non-blocking: no implicit ordering with the null stream, which other libraries in the
   * process may use. */
  hipError_t r = hip.StreamCreateWithFlags(&q->s, hipStreamNonBlocking);
  if (r != hipSuccess) { free(q); return hip_fail(c, "hipStreamCreateWithFlags", r); }
  *out = q;
  return PT_OK;
}

void hipd_queue_free(void *ctx, void *queue) {
  hip_ctx *c = ctx;
  hip_queue *q = queue;
  if (hip_enter(c) == PT_OK) hip.StreamDestroy(q->s); /* queued work finishes first */
  free(q);
}

int hipd_write(void *ctx, void *queue, void *mem, size_t off, const void *src, size_t n) {
  hip_ctx *c = ctx;
  hip_queue *q = queue;
  int st = hip_enter(c);
  if (st != PT_OK) return st;
  /* Pageable source: the runtime stages it; waiting lets the caller reuse src at once. */
  hipError_t r = hip.MemcpyAsync((char *)mem + off, src, n, hipMemcpyHostToDevice, q->s);
  if (r != hipSuccess) return hip_fail(c, "hipMemcpyAsync (host to device)", r);
  r = hip.StreamSynchronize(q->s);
  return r == hipSuccess ? PT_OK : hip_fail(c, "hipStreamSynchronize", r);
}

int hipd_read(void *ctx, void *queue, void *mem, size_t off, void *dst, size_t n) {
  hip_ctx *c = ctx;
  hip_queue *q = queue;
  int st = hip_enter(c);
  if (st != PT_OK) return st;
  /* Queued behind the queue's earlier work, so the read sees it; one wait covers both. */
  hipError_t r = hip.MemcpyAsync(dst, (char *)mem + off, n, hipMemcpyDeviceToHost, q->s);
  if (r != hipSuccess) return hip_fail(c, "hipMemcpyAsync (device to host)", r);
  if ((r = hip.StreamSynchronize(q->s)) != hipSuccess) return hip_fail(c, "hipStreamSynchronize", r);
  return hipd_check_word(c);
}

int hipd_copy(void *ctx, void *queue, void *src, size_t soff, void *dst, size_t doff, size_t n) {
  hip_ctx *c = ctx;
  hip_queue *q = queue;
  int st = hip_enter(c);
  if (st != PT_OK) return st;
  char *s = (char *)src + soff, *d = (char *)dst + doff;
  void *tmp = NULL;
  hipError_t r;
  if (s != d && s < d + n && d < s + n) {
    /* hipMemcpy is memcpy, not memmove: overlapping ranges go through a temporary. The
     * wait below is not allowed on a capturing stream, and a graph would keep tmp's
     * address after it is freed, so a step cannot record such a copy (graph.c). */
    pt_mutex_lock(&c->lock);
    int capturing = q->capturing;
    pt_mutex_unlock(&c->lock);
    if (capturing)
      return pt_error(PT_EUNSUPPORTED, "hip: a copy between overlapping ranges of one buffer cannot be captured in a step");
    if ((r = hip.Malloc(&tmp, n)) != hipSuccess) return hip_fail(c, "hipMalloc (overlapping copy)", r);
    r = hip.MemcpyAsync(tmp, s, n, hipMemcpyDeviceToDevice, q->s);
    if (r == hipSuccess) r = hip.MemcpyAsync(d, tmp, n, hipMemcpyDeviceToDevice, q->s);
    if (r == hipSuccess) r = hip.StreamSynchronize(q->s); /* tmp is in use until then */
    hipError_t rf = hip.Free(tmp);
    if (r == hipSuccess) r = rf;
    return r == hipSuccess ? PT_OK : hip_fail(c, "hipMemcpyAsync (device to device)", r);
  }
  if (s == d) return PT_OK;
  r = hip.MemcpyAsync(d, s, n, hipMemcpyDeviceToDevice, q->s);
  return r == hipSuccess ? PT_OK : hip_fail(c, "hipMemcpyAsync (device to device)", r);
}

int hipd_sync(void *ctx, void *queue) {
  hip_ctx *c = ctx;
  hip_queue *q = queue;
  int st = hip_enter(c);
  if (st != PT_OK) return st;
  hipError_t r = hip.StreamSynchronize(q->s);
  return r == hipSuccess ? hipd_check_word(c) : hip_fail(c, "hipStreamSynchronize", r);
}

/* ---- the error word (params.h) ------------------------------------------------------ */

int hipd_check_word(hip_ctx *c) {
  long long w[4] = {0, 0, 0, 0};
  const char *fn = "hipMemcpyAsync (error word)";
  uint32_t kinds = 0;
  pt_mutex_lock(&c->lock); /* one reader at a time, so a word is reported once */
  if (!c->launched) { pt_mutex_unlock(&c->lock); return PT_OK; }
  hipError_t r = hip.MemcpyAsync(w, c->errblk, sizeof w, hipMemcpyDeviceToHost, c->svc);
  if (r == hipSuccess) r = hip.StreamSynchronize(c->svc);
  if (r == hipSuccess && w[0] != 0) {
    fn = "hipMemsetAsync (error word)";
    r = hip.MemsetAsync(c->errblk, 0, sizeof w, c->svc);
    if (r == hipSuccess) r = hip.StreamSynchronize(c->svc);
    kinds = c->kinds_since;
    c->kinds_since = 0;
  }
  pt_mutex_unlock(&c->lock);
  if (r != hipSuccess) return hip_fail(c, fn, r);
  return w[0] ? pt_kernel_error(w[0], w + 1, kinds, NULL) : PT_OK;
}

/* ---- fences ----------------------------------------------------------------------- */

int hipd_fence_record(void *ctx, void *queue, void **out) {
  hip_ctx *c = ctx;
  hip_queue *q = queue;
  int st = hip_enter(c);
  if (st != PT_OK) return st;
  hip_fence *f = calloc(1, sizeof *f);
  if (!f) return pt_error(PT_EOOM, "hip: out of host memory for a fence");
  hipError_t r = hip.EventCreateWithFlags(&f->ev, hipEventDefault); /* with timing, for fence_elapsed_ms */
  if (r != hipSuccess) { free(f); return hip_fail(c, "hipEventCreateWithFlags", r); }
  if ((r = hip.EventRecord(f->ev, q->s)) != hipSuccess) {
    hip.EventDestroy(f->ev);
    free(f);
    return hip_fail(c, "hipEventRecord", r);
  }
  *out = f;
  return PT_OK;
}

/* The fence's event has passed: check the word once, and keep the answer. */
static int settle(hip_ctx *c, hip_fence *f) {
  int st = hipd_check_word(c);
  pt_mutex_lock(&c->lock);
  st = pt_outcome_settle(&f->out, st);
  pt_mutex_unlock(&c->lock);
  return st;
}

/* A failure this fence reported before, reported again; else 0 (unknown) or 1 (passed). */
static int remembered(hip_ctx *c, hip_fence *f) {
  pt_mutex_lock(&c->lock);
  int st = pt_outcome_get(&f->out);
  pt_mutex_unlock(&c->lock);
  return st;
}

int hipd_fence_query(void *ctx, void *fence) {
  hip_ctx *c = ctx;
  hip_fence *f = fence;
  int st = remembered(c, f);
  if (st != 0) return st;
  if ((st = hip_enter(c)) != PT_OK) return st;
  hipError_t r = hip.EventQuery(f->ev);
  if (r == hipErrorNotReady) return 0;
  if (r != hipSuccess) return hip_fail(c, "hipEventQuery", r);
  st = settle(c, f);
  return st == PT_OK ? 1 : st;
}

int hipd_fence_wait(void *ctx, void *fence) {
  hip_ctx *c = ctx;
  hip_fence *f = fence;
  int st = remembered(c, f);
  if (st != 0) return st < 0 ? st : PT_OK;
  if ((st = hip_enter(c)) != PT_OK) return st;
  hipError_t r = hip.EventSynchronize(f->ev);
  if (r != hipSuccess) return hip_fail(c, "hipEventSynchronize", r);
  return settle(c, f);
}

int hipd_queue_wait(void *ctx, void *queue, void *fence) {
  hip_ctx *c = ctx;
  hip_queue *q = queue;
  hip_fence *f = fence;
  int st = hip_enter(c);
  if (st != PT_OK) return st;
  hipError_t r = hip.StreamWaitEvent(q->s, f->ev, 0); /* on the device: the host does not wait */
  return r == hipSuccess ? PT_OK : hip_fail(c, "hipStreamWaitEvent", r);
}

double hipd_fence_elapsed_ms(void *ctx, void *start, void *end) {
  hip_ctx *c = ctx;
  int st = hip_enter(c);
  if (st != PT_OK) return st;
  float ms = 0;
  hipError_t r = hip.EventElapsedTime(&ms, ((hip_fence *)start)->ev, ((hip_fence *)end)->ev);
  if (r == hipErrorNotReady)
    return pt_error(PT_EINVAL, "hip: fence timing needs both fences passed; wait for the later one first");
  return r == hipSuccess ? (double)ms : hip_fail(c, "hipEventElapsedTime", r);
}

void hipd_fence_free(void *ctx, void *fence) {
  hip_ctx *c = ctx;
  hip_fence *f = fence;
  if (hip_enter(c) == PT_OK) hip.EventDestroy(f->ev);
  pt_outcome_free(&f->out);
  free(f);
}
