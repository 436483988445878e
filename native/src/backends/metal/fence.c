/* fence.c: host waits, command buffer failures, the error block, and fences.
 *
 * Ownership and ordering. A host wait walks a queue's committed command buffers oldest
 * first (a queue's command buffers complete in order, metal.h), so a failed one is met
 * before the later ones that wait on its event. A failed command buffer (status error) may
 * never signal its event, and whatever waits on that event on the device would then hang:
 * mtl_poison() marks the context dead with the error's description (sticky: every later
 * call reports it, and an earlier failed completion never turns into success) and raises
 * every queue's event to its last issued value on the host, which releases those waits.
 * Once any wait across queues was recorded (ctx->xwaits), a host wait polls instead of
 * blocking in waitUntilCompleted, scanning every queue's oldest command buffer for a
 * failure, since the work it waits for may hang behind another queue's failure. After a
 * wait that saw work complete, the error block (params.h) is read and cleared; a kernel's
 * report becomes PT_EKERNEL there, naming the kinds launched since the last read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metal.h"

/* ---- failures ------------------------------------------------------------------------ */

void mtl_poison(mtl_ctx *c, id cb) {
  char why[sizeof c->dead.msg - 64];
  mtl_error_text(MSG0(id)(cb, S.error), why, sizeof why);
  pt_mutex_lock(&c->lock);
  pt_sticky_set(&c->dead, 1, "a command buffer failed: %s", why); /* the first cause is kept */
  for (int i = 0; i < c->nqueues; i++) {
    mtl_queue *q = c->queues[i];
    pt_mutex_lock(&q->lock);
    if (MSG0(uint64_t)(q->ev, S.signaledValue) < q->issued) MSGA(void, uint64_t)(q->ev, S.setSignaledValue, q->issued);
    pt_mutex_unlock(&q->lock);
  }
  pt_mutex_unlock(&c->lock);
}

/* Non-blocking: the oldest unfinished command buffer of each queue is the only one that can
 * be running (the rest wait for it); a failed one poisons the context. */
static void scan(mtl_ctx *c) {
  id failed = NULL;
  pt_mutex_lock(&c->lock);
  for (int i = 0; i < c->nqueues && !failed; i++) {
    mtl_queue *q = c->queues[i];
    pt_mutex_lock(&q->lock);
    if (q->npend && MSG0(NSUInteger)(q->pend[0].cb, S.status) == MTL_CB_ERROR) failed = MSG0(id)(q->pend[0].cb, S.retain);
    pt_mutex_unlock(&q->lock);
  }
  pt_mutex_unlock(&c->lock);
  if (failed) {
    mtl_poison(c, failed);
    mtl_release(failed);
  }
}

static void wait_cb(mtl_ctx *c, id cb) {
  if (!atomic_load(&c->xwaits)) {
    MSG0(void)(cb, S.waitUntilCompleted);
    return;
  }
  unsigned round = 0;
  while (MSG0(NSUInteger)(cb, S.status) < MTL_CB_COMPLETED) {
    if (round % 16 == 15) scan(c);
    mtl_nap(&round);
  }
}

/* ---- the error block (params.h) ------------------------------------------------------ */

/* pt_word_check's reader, under ctx->errlock: the block is shared storage. */
static int read_block(void *arg, long long out[4]) {
  volatile pt_mtl_error *blk = MSG0(void *)(((mtl_ctx *)arg)->errblk, S.contents);
  if ((out[0] = blk->code) == 0) return PT_OK;
  for (int i = 0; i < 3; i++) out[1 + i] = blk->d[i];
  blk->d[0] = blk->d[1] = blk->d[2] = 0;
  blk->code = 0;
  return PT_OK;
}

int mtl_check_block(mtl_ctx *c) { return pt_word_check(&c->word, &c->errlock, read_block, c, NULL); }

/* ---- host waits --------------------------------------------------------------------- */

int mtl_wait_done(mtl_queue *q, uint64_t value) {
  mtl_ctx *c = q->c;
  void *pool = mtl_pool();
  for (;;) {
    pt_mutex_lock(&q->lock);
    if (!q->npend || q->pend[0].value > value) { pt_mutex_unlock(&q->lock); break; }
    id cb = MSG0(id)(q->pend[0].cb, S.retain);
    pt_mutex_unlock(&q->lock);
    wait_cb(c, cb);
    if (MSG0(NSUInteger)(cb, S.status) == MTL_CB_ERROR) mtl_poison(c, cb);
    pt_mutex_lock(&q->lock);
    if (q->npend && q->pend[0].cb == cb) {
      mtl_release(cb);
      memmove(q->pend, q->pend + 1, (size_t)--q->npend * sizeof *q->pend);
    }
    pt_mutex_unlock(&q->lock);
    mtl_release(cb);
  }
  mtl_unpool(pool);
  return mtl_enter(c);
}

int mtl_wait_value(mtl_queue *q, uint64_t value) {
  int st = mtl_wait_done(q, value);
  return st == PT_OK ? mtl_check_block(q->c) : st;
}

/* ---- fences ------------------------------------------------------------------------- */

int mtl_fence_record(void *ctx, void *queue, void **out) {
  mtl_queue *q = queue;
  int st = mtl_enter(ctx);
  if (st != PT_OK) return st;
  mtl_fence *f = calloc(1, sizeof *f);
  if (!f) return pt_error(PT_EOOM, "metal: out of host memory for a fence");
  void *pool = mtl_pool();
  pt_mutex_lock(&q->lock);
  /* A fence is the end of a committed command buffer: the recorded one, or (on a queue
   * that never ran anything) an empty one, so every fence has GPU times. */
  if (!q->issued) st = mtl_ensure_cb(q);
  if (st == PT_OK) st = mtl_commit_locked(q);
  if (st == PT_OK) {
    f->q = q;
    f->cb = MSG0(id)(q->last, S.retain);
    f->value = q->issued;
    atomic_fetch_add(&q->refs, 1);
  }
  pt_mutex_unlock(&q->lock);
  mtl_unpool(pool);
  if (st != PT_OK) { free(f); return st; }
  *out = f;
  return PT_OK;
}

/* The fence's work has finished (or failed): the answer is kept, so a failure stays one. */
static int settle(mtl_fence *f, int st) {
  pt_mutex *l = &f->q->c->lock;
  pt_mutex_lock(l);
  st = pt_outcome_settle(&f->out, st);
  pt_mutex_unlock(l);
  return st;
}

static int remembered(mtl_fence *f) {
  pt_mutex_lock(&f->q->c->lock);
  int st = pt_outcome_get(&f->out);
  pt_mutex_unlock(&f->q->c->lock);
  return st;
}

int mtl_fence_query(void *ctx, void *fence) {
  mtl_fence *f = fence;
  int st = remembered(f);
  if (st != 0) return st;
  void *pool = mtl_pool();
  NSUInteger s = MSG0(NSUInteger)(f->cb, S.status);
  if (s < MTL_CB_COMPLETED) scan(ctx); /* progress for callers that only poll: a failure elsewhere releases this */
  mtl_unpool(pool);
  if (s < MTL_CB_COMPLETED) return (st = mtl_enter(ctx)) == PT_OK ? 0 : settle(f, st);
  st = settle(f, mtl_wait_value(f->q, f->value)); /* finished: retires the list, reads the block */
  return st == PT_OK ? 1 : st;
}

int mtl_fence_wait(void *ctx, void *fence) {
  (void)ctx;
  mtl_fence *f = fence;
  int st = remembered(f);
  if (st != 0) return st < 0 ? st : PT_OK;
  return settle(f, mtl_wait_value(f->q, f->value));
}

int mtl_queue_wait(void *ctx, void *queue, void *fence) {
  mtl_ctx *c = ctx;
  mtl_queue *q = queue;
  mtl_fence *f = fence;
  int st = mtl_enter(c);
  if (st != PT_OK || f->q == q) return st; /* one queue runs in order already */
  void *pool = mtl_pool();
  pt_mutex_lock(&q->lock);
  if (MSG0(uint64_t)(f->q->ev, S.signaledValue) < f->value) {
    atomic_store(&c->xwaits, 1); /* from now on host waits poll (the header says why) */
    if ((st = mtl_ensure_cb(q)) == PT_OK) {
      mtl_end_encoder(q); /* event waits go between passes */
      MSGA(void, id, uint64_t)(q->cb, S.encodeWaitForEvent, f->q->ev, f->value);
    }
  }
  pt_mutex_unlock(&q->lock);
  mtl_unpool(pool);
  return st;
}

double mtl_fence_elapsed_ms(void *ctx, void *start, void *end) {
  (void)ctx;
  mtl_fence *a = start, *b = end;
  void *pool = mtl_pool();
  NSUInteger sa = MSG0(NSUInteger)(a->cb, S.status), sb = MSG0(NSUInteger)(b->cb, S.status);
  double ta = MSG0(double)(a->cb, S.GPUEndTime), tb = MSG0(double)(b->cb, S.GPUEndTime);
  mtl_unpool(pool);
  if (sa != MTL_CB_COMPLETED || sb != MTL_CB_COMPLETED)
    return pt_error(sa == MTL_CB_ERROR || sb == MTL_CB_ERROR ? PT_EDRIVER : PT_EINVAL,
                    sa == MTL_CB_ERROR || sb == MTL_CB_ERROR ? "metal: fence timing of work that failed"
                                                             : "metal: fence timing needs both fences passed; wait for the later one first");
  if (a->cb == b->cb) return 0;
  if (ta <= 0 || tb <= 0)
    return pt_error(PT_EUNSUPPORTED, "metal: this device reports no GPU times for its command buffers (GPUEndTime %g, %g)", ta, tb);
  return (tb - ta) * 1000.0; /* CFTimeInterval is seconds; negative when `end` came first */
}

void mtl_fence_free(void *ctx, void *fence) {
  (void)ctx;
  mtl_fence *f = fence;
  void *pool = mtl_pool();
  mtl_release(f->cb);
  mtl_unpool(pool);
  mtl_queue *q = f->q;
  pt_outcome_free(&f->out);
  free(f);
  mtl_queue_put(q);
}
