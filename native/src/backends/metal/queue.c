/* queue.c: memory, queues and their command buffers, and copies.
 *
 * Ownership and ordering. A buffer is an MTLBuffer: shared storage on unified memory (its
 * contents are the host address pt_buffer_host gives), private storage otherwise; the core's
 * caching allocator sits above. Freeing one while queued work uses it is safe: a command
 * buffer retains what it references. Work is recorded into the queue's current command
 * buffer (one concurrent compute encoder, blits between) and committed at sync, read,
 * fence, flush, queue free, or after PT_MTL_BATCH dispatches. Commit signals the queue's
 * event with the next value; the next command buffer begins by waiting for it (metal.h).
 * Copies from and to caller memory go through shared staging buffers made for the call, so
 * caller memory is never kept; blits need 4-byte-aligned offsets and sizes on macOS, and
 * anything else runs the driver's byte-copy kernel (program.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metal.h"

/* ---- memory ----------------------------------------------------------------------------- */

int mtl_alloc(void *ctx, size_t bytes, void **mem, void **host) {
  mtl_ctx *c = ctx;
  int st = mtl_enter(c);
  if (st != PT_OK) return st;
  void *pool = mtl_pool();
  NSUInteger max = MSG0(NSUInteger)(c->dev, S.maxBufferLength);
  id b = NULL;
  if (bytes <= max) /* zero bytes: a 1-byte buffer stands in, so every buffer is a real object */
    b = MSGA(id, NSUInteger, NSUInteger)(c->dev, S.newBufferWithLength, bytes ? bytes : 1,
                                         c->unified ? MTL_STORAGE_SHARED : MTL_STORAGE_PRIVATE);
  if (b) {
    *mem = b;
    *host = c->unified ? MSG0(void *)(b, S.contents) : NULL;
  }
  mtl_unpool(pool);
  if (!b && bytes > max)
    return pt_error(PT_EOOM, "metal: %zu bytes is more than device %d's largest buffer (maxBufferLength %zu)", bytes,
                    c->index, (size_t)max);
  return b ? PT_OK : pt_error(PT_EOOM, "metal: newBufferWithLength:%zu failed on device %d (out of memory)", bytes, c->index);
}

void mtl_free(void *ctx, void *mem) {
  (void)ctx;
  mtl_release(mem);
}

/* ---- queues ------------------------------------------------------------------------------ */

int mtl_queue_create(void *ctx, void **out) {
  mtl_ctx *c = ctx;
  int st = mtl_enter(c);
  if (st != PT_OK) return st;
  mtl_queue *q = calloc(1, sizeof *q);
  if (!q) return pt_error(PT_EOOM, "metal: out of host memory for a queue");
  q->c = c;
  q->lock = (pt_mutex)PT_MUTEX_INIT;
  atomic_init(&q->refs, 1);
  void *pool = mtl_pool();
  q->q = MSG0(id)(c->dev, S.newCommandQueue);
  q->ev = MSG0(id)(c->dev, S.newSharedEvent);
  mtl_unpool(pool);
  pt_mutex_lock(&c->lock);
  if (q->q && q->ev && c->nqueues == c->capqueues) {
    int cap = c->capqueues ? c->capqueues * 2 : 8;
    mtl_queue **nq = realloc(c->queues, (size_t)cap * sizeof *nq);
    if (nq) { c->queues = nq; c->capqueues = cap; }
  }
  int ok = q->q && q->ev && c->nqueues < c->capqueues;
  if (ok) c->queues[c->nqueues++] = q;
  pt_mutex_unlock(&c->lock);
  if (!ok) {
    st = q->q && q->ev ? pt_error(PT_EOOM, "metal: out of host memory for a queue")
                       : pt_error(PT_EDRIVER, "metal: device %d gave no %s", c->index, q->q ? "MTLSharedEvent" : "command queue");
    mtl_release(q->q);
    mtl_release(q->ev);
    free(q);
    return st;
  }
  mtl_count_queue(c->index, 1);
  *out = q;
  return PT_OK;
}

void mtl_queue_put(mtl_queue *q) {
  if (atomic_fetch_sub(&q->refs, 1) != 1) return;
  void *pool = mtl_pool();
  mtl_end_encoder(q);
  mtl_release(q->cb);
  for (int i = 0; i < q->npend; i++) mtl_release(q->pend[i].cb);
  mtl_release(q->last);
  mtl_release(q->ev);
  mtl_unpool(pool);
  free(q->pend);
  free(q);
}

void mtl_queue_free(void *ctx, void *queue) {
  mtl_ctx *c = ctx;
  mtl_queue *q = queue;
  void *pool = mtl_pool();
  /* Work still recorded runs first, as on the other backends; its failure has no caller. */
  pt_mutex_lock(&q->lock);
  mtl_commit_locked(q);
  uint64_t v = q->issued;
  pt_mutex_unlock(&q->lock);
  mtl_wait_done(q, v); /* not the error block: its report belongs to a caller that waits */
  pt_mutex_lock(&c->lock);
  for (int i = 0; i < c->nqueues; i++)
    if (c->queues[i] == q) { c->queues[i] = c->queues[--c->nqueues]; break; }
  pt_mutex_unlock(&c->lock);
  pt_mutex_lock(&q->lock);
  mtl_end_encoder(q);
  mtl_release(q->cb); /* only when the commit above failed for want of host memory */
  q->cb = NULL;
  mtl_release(q->q);
  q->q = NULL;
  pt_mutex_unlock(&q->lock);
  mtl_count_queue(c->index, -1);
  mtl_unpool(pool);
  mtl_queue_put(q); /* fences may still hold the record */
}

/* ---- command buffers (q->lock held) ------------------------------------------------------ */

int mtl_ensure_cb(mtl_queue *q) {
  if (q->cb) return PT_OK;
  id cb = q->q ? MSG0(id)(q->q, S.commandBuffer) : NULL;
  if (!cb) return pt_error(PT_EDRIVER, "metal: device %d's command queue gave no command buffer", q->c->index);
  q->cb = MSG0(id)(cb, S.retain); /* autoreleased: it outlives this call's pool */
  q->ndispatch = 0;
  /* The queue's order: nothing here starts before the previous command buffer ended. */
  if (q->issued) MSGA(void, id, uint64_t)(q->cb, S.encodeWaitForEvent, q->ev, q->issued);
  return PT_OK;
}

int mtl_ensure_compute(mtl_queue *q) {
  int st = mtl_ensure_cb(q);
  if (st != PT_OK || q->enc) return st;
  /* Concurrent: dispatches overlap unless a barrier (launch.c) orders a real dependency. */
  id e = MSGA(id, NSUInteger)(q->cb, S.computeEncoderWithType, MTL_DISPATCH_CONCURRENT);
  if (!e) return pt_error(PT_EDRIVER, "metal: device %d gave no compute command encoder", q->c->index);
  q->enc = MSG0(id)(e, S.retain);
  return PT_OK;
}

void mtl_end_encoder(mtl_queue *q) {
  if (q->enc) {
    MSG0(void)(q->enc, S.endEncoding);
    mtl_release(q->enc);
    q->enc = NULL;
  }
  q->nwr = q->nrd = 0; /* a new encoder starts after the old one's work (tracked resources) */
  q->last_pso = NULL;
}

int mtl_commit_locked(mtl_queue *q) {
  if (!q->cb) return PT_OK;
  /* Entries seen complete go now, so the list stays as long as the work in flight. */
  int done = 0;
  while (done < q->npend && MSG0(NSUInteger)(q->pend[done].cb, S.status) == MTL_CB_COMPLETED) mtl_release(q->pend[done++].cb);
  if (done) memmove(q->pend, q->pend + done, (size_t)(q->npend -= done) * sizeof *q->pend);
  if (q->npend == q->cappend) {
    int cap = q->cappend ? q->cappend * 2 : 16;
    mtl_pending *np = realloc(q->pend, (size_t)cap * sizeof *np);
    if (!np) return pt_error(PT_EOOM, "metal: out of host memory to submit work"); /* the work stays recorded */
    q->pend = np;
    q->cappend = cap;
  }
  mtl_end_encoder(q);
  uint64_t v = q->issued + 1;
  MSGA(void, id, uint64_t)(q->cb, S.encodeSignalEvent, q->ev, v);
  MSG0(void)(q->cb, S.commit);
  q->issued = v;
  mtl_release(q->last);
  q->last = MSG0(id)(q->cb, S.retain);
  q->pend[q->npend++] = (mtl_pending){q->cb, v};
  q->cb = NULL;
  q->ndispatch = 0;
  return PT_OK;
}

/* One copy between device buffers, recorded on q: a blit where macOS allows one, else the
 * byte-copy kernel (pso, made by the caller before it took the lock). */
static int encode_copy(mtl_queue *q, id pso, id src, size_t soff, id dst, size_t doff, size_t n) {
  int st;
  if (!pso) {
    if ((st = mtl_ensure_cb(q)) != PT_OK) return st;
    mtl_end_encoder(q);
    id b = MSG0(id)(q->cb, S.blitCommandEncoder);
    if (!b) return pt_error(PT_EDRIVER, "metal: device %d gave no blit command encoder", q->c->index);
    MSGA(void, id, NSUInteger, id, NSUInteger, NSUInteger)(b, S.copyFromBuffer, src, soff, dst, doff, n);
    MSG0(void)(b, S.endEncoding);
    if (++q->ndispatch >= PT_MTL_BATCH) mtl_commit_locked(q); /* staging buffers must not pile up */
    return PT_OK;
  }
  if ((st = mtl_ensure_compute(q)) != PT_OK) return st;
  uint64_t a[3] = {soff, doff, n}; /* the kernel's constant ulong a[3] (program.c) */
  id bufs[2] = {src, dst};
  uint64_t groups = (n + PT_MTL_GROUP - 1) / PT_MTL_GROUP;
  return mtl_dispatch_locked(q, pso, bufs, 2, 2u, a, sizeof a, NULL, (MTLSize){groups < 65535 ? groups : 65535, 1, 1});
}

static int aligned(size_t a, size_t b, size_t n) { return (a | b | n) % 4 == 0; }

/* The byte-copy kernel when the copy is not blit-aligned; NULL (a blit) otherwise. */
static int copy_kernel_for(mtl_ctx *c, size_t soff, size_t doff, size_t n, id *pso) {
  *pso = NULL;
  if (aligned(soff, doff, n)) return PT_OK;
  return (*pso = mtl_copy_kernel(c)) ? PT_OK : PT_EDRIVER;
}

/* The queue has nothing recorded or running, so the host may touch its memory directly. */
static int idle_locked(mtl_queue *q) {
  return !q->cb && (!q->last || MSG0(NSUInteger)(q->last, S.status) == MTL_CB_COMPLETED);
}

/* ---- copies ------------------------------------------------------------------------------ */

int mtl_write(void *ctx, void *queue, void *mem, size_t off, const void *src, size_t n) {
  mtl_ctx *c = ctx;
  mtl_queue *q = queue;
  id pso = NULL;
  int st = mtl_enter(c);
  if (st != PT_OK || (st = copy_kernel_for(c, 0, off, n, &pso)) != PT_OK) return st;
  void *pool = mtl_pool();
  pt_mutex_lock(&q->lock);
  if (c->unified && idle_locked(q)) {
    memcpy((char *)MSG0(void *)(mem, S.contents) + off, src, n);
  } else {
    /* The staging copy is taken now, so the caller may reuse src at once; the command
     * buffer keeps the staging buffer alive until the blit has run. */
    id stage = MSGA(id, const void *, NSUInteger, NSUInteger)(c->dev, S.newBufferWithBytes, src, n, MTL_STORAGE_SHARED);
    if (!stage) st = pt_error(PT_EOOM, "metal: no %zu-byte staging buffer for a write on device %d", n, c->index);
    else st = encode_copy(q, pso, stage, 0, mem, off, n);
    mtl_release(stage);
  }
  pt_mutex_unlock(&q->lock);
  mtl_unpool(pool);
  return st;
}

int mtl_read(void *ctx, void *queue, void *mem, size_t off, void *dst, size_t n) {
  mtl_ctx *c = ctx;
  mtl_queue *q = queue;
  id pso = NULL, stage = NULL;
  int st = mtl_enter(c);
  if (st != PT_OK || (!c->unified && (st = copy_kernel_for(c, off, 0, n, &pso)) != PT_OK)) return st;
  void *pool = mtl_pool();
  pt_mutex_lock(&q->lock);
  if (!c->unified) {
    stage = MSGA(id, NSUInteger, NSUInteger)(c->dev, S.newBufferWithLength, n, MTL_STORAGE_SHARED);
    if (!stage) st = pt_error(PT_EOOM, "metal: no %zu-byte staging buffer for a read on device %d", n, c->index);
    else st = encode_copy(q, pso, mem, off, stage, 0, n);
  }
  if (st == PT_OK) st = mtl_commit_locked(q);
  uint64_t v = q->issued;
  pt_mutex_unlock(&q->lock);
  if (st == PT_OK) st = mtl_wait_value(q, v); /* the queue's earlier work, then the copy */
  if (st == PT_OK) memcpy(dst, (char *)MSG0(void *)(stage ? stage : (id)mem, S.contents) + (stage ? 0 : off), n);
  mtl_release(stage);
  mtl_unpool(pool);
  return st;
}

int mtl_copy(void *ctx, void *queue, void *src, size_t soff, void *dst, size_t doff, size_t n) {
  mtl_ctx *c = ctx;
  mtl_queue *q = queue;
  id pso = NULL, tmp = NULL;
  int overlap = src == dst && soff < doff + n && doff < soff + n;
  if (src == dst && soff == doff) return mtl_enter(c);
  int st = mtl_enter(c);
  /* Overlapping ranges go through a temporary at offset 0, so both halves must suit. */
  if (st == PT_OK) st = copy_kernel_for(c, soff, overlap ? 0 : doff, n, &pso);
  if (st == PT_OK && overlap && !pso) st = copy_kernel_for(c, 0, doff, n, &pso);
  if (st != PT_OK) return st;
  void *pool = mtl_pool();
  pt_mutex_lock(&q->lock);
  if (overlap) {
    tmp = MSGA(id, NSUInteger, NSUInteger)(c->dev, S.newBufferWithLength, n, MTL_STORAGE_PRIVATE);
    if (!tmp) st = pt_error(PT_EOOM, "metal: no %zu-byte temporary for an overlapping copy on device %d", n, c->index);
    if (st == PT_OK) st = encode_copy(q, pso, src, soff, tmp, 0, n);
    if (st == PT_OK) st = encode_copy(q, pso, tmp, 0, dst, doff, n);
    mtl_release(tmp);
  } else {
    st = encode_copy(q, pso, src, soff, dst, doff, n);
  }
  pt_mutex_unlock(&q->lock);
  mtl_unpool(pool);
  return st;
}

int mtl_sync(void *ctx, void *queue) {
  mtl_queue *q = queue;
  int st = mtl_enter(ctx);
  if (st != PT_OK) return st;
  void *pool = mtl_pool();
  pt_mutex_lock(&q->lock);
  st = mtl_commit_locked(q);
  uint64_t v = q->issued;
  pt_mutex_unlock(&q->lock);
  if (st == PT_OK) st = mtl_wait_value(q, v);
  mtl_unpool(pool);
  return st;
}

int mtl_flush(void *ctx, void *queue) {
  mtl_queue *q = queue;
  int st = mtl_enter(ctx);
  if (st != PT_OK) return st;
  void *pool = mtl_pool();
  pt_mutex_lock(&q->lock);
  st = mtl_commit_locked(q);
  pt_mutex_unlock(&q->lock);
  mtl_unpool(pool);
  return st;
}
