/* fence.c: fences (a queue plus a timeline value), device-side waits, and fence timing.
 *
 * Ownership and ordering. fence_record() writes a timestamp into the queue's open batch
 * (opening one if needed) and names that batch's value, so the fence passes exactly when
 * everything recorded before it has run. The batch is not submitted at once (recording a
 * fence must stay cheap, and batching is the point), but every query or wait first submits
 * it if it is still open, so a fence can always pass. A fence holds a reference on its
 * queue (vkq_unref frees the queue when the last one goes) and its timestamp slot. The
 * first host observation that a fence passed reads the error block (queue.c) and keeps the
 * answer, so an earlier failed completion never turns into success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vkdrv.h"

int vk_fence_record(void *ctx, void *queue, void **out) {
  vk_ctx *c = ctx;
  vk_queue *q = queue;
  pt_ring_drain(&q->ring); /* its launches are recorded first (program.c) */
  vk_fence *f = calloc(1, sizeof *f);
  if (!f) return pt_error(PT_EOOM, "vulkan: out of host memory for a fence");
  f->slot = -1;
  vk_batch *b;
  pt_mutex_lock(&c->lock);
  int st = vkq_open(c, q, &b);
  if (st == PT_OK) {
    for (int i = 0; c->qpool && i < VK_QUERIES && f->slot < 0; i++)
      if (!c->qused[i]) { c->qused[i] = 1; f->slot = i; }
    if (f->slot >= 0) { /* bottom of pipe: written once every earlier command has finished */
      c->d.vkCmdResetQueryPool(b->cb, c->qpool, (uint32_t)f->slot, 1);
      c->d.vkCmdWriteTimestamp(b->cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, c->qpool, (uint32_t)f->slot);
    }
    b->nops++;
    f->q = q;
    f->value = b->value;
    q->refs++;
  }
  pt_mutex_unlock(&c->lock);
  if (st != PT_OK) { free(f); return st; }
  *out = f;
  return PT_OK;
}

/* The fence's value has passed: check the error block once, and keep the answer. */
static int settle(vk_ctx *c, vk_fence *f) {
  int st = vk_check_block(c);
  pt_mutex_lock(&c->lock);
  st = pt_outcome_settle(&f->out, st);
  vkq_reap(c, f->q);
  pt_mutex_unlock(&c->lock);
  return st;
}

/* A failure this fence reported before, reported again; else 0 (unknown) or 1 (passed).
 * When still unknown, submits the fence's batch if it is still being recorded. */
static int remembered(vk_ctx *c, vk_fence *f) {
  pt_mutex_lock(&c->lock);
  int st = pt_outcome_get(&f->out);
  if (st == 0 && f->q->submitted < f->value) st = vkq_submit(c, f->q);
  pt_mutex_unlock(&c->lock);
  return st;
}

int vk_fence_query(void *ctx, void *fence) {
  vk_ctx *c = ctx;
  vk_fence *f = fence;
  int st = remembered(c, f);
  if (st != 0) return st;
  if ((st = vk_enter(c)) != PT_OK) return st;
  uint64_t v = 0;
  VkResult r = c->d.vkGetSemaphoreCounterValue(c->dev, f->q->sem, &v);
  if (r != VK_SUCCESS) return vk_fail(c, "vkGetSemaphoreCounterValue", r);
  if (v < f->value) return 0;
  st = settle(c, f);
  return st == PT_OK ? 1 : st;
}

int vk_fence_wait(void *ctx, void *fence) {
  vk_ctx *c = ctx;
  vk_fence *f = fence;
  int st = remembered(c, f);
  if (st != 0) return st < 0 ? st : PT_OK;
  if ((st = vk_enter(c)) != PT_OK || (st = vkq_wait(c, f->q, f->value)) != PT_OK) return st;
  return settle(c, f);
}

int vk_queue_wait(void *ctx, void *queue, void *fence) {
  vk_ctx *c = ctx;
  vk_queue *q = queue;
  vk_fence *f = fence;
  int st = vk_enter(c);
  if (st != PT_OK || f->q == q) return st; /* one queue runs in order already */
  pt_ring_drain(&q->ring); /* its launches are recorded first (program.c) */
  pt_mutex_lock(&c->lock);
  /* The signal must be submitted before the wait is, or the wait could never end. */
  if (f->q->submitted < f->value) st = vkq_submit(c, f->q);
  int i = 0;
  while (st == PT_OK && i < q->nwait && q->wsem[i] != f->q->sem) i++;
  if (st == PT_OK && i == VK_MAX_WAITS) { /* full: send what was recorded with its waits */
    if ((st = vkq_submit(c, q)) == PT_OK && q->nwait) {
      vk_batch *b; /* no batch was open: one carries the waits */
      if ((st = vkq_open(c, q, &b)) == PT_OK) st = vkq_submit(c, q);
    }
    i = 0;
  }
  if (st == PT_OK) {
    if (i == q->nwait) {
      q->wsem[i] = f->q->sem;
      q->wval[i] = 0;
      q->wq[i] = f->q;
      f->q->refs++; /* its semaphore must outlive the wait, even if the queue is freed first */
      q->nwait++;
    }
    if (q->wval[i] < f->value) q->wval[i] = f->value;
  }
  pt_mutex_unlock(&c->lock);
  return st;
}

double vk_fence_elapsed_ms(void *ctx, void *start, void *end) {
  vk_ctx *c = ctx;
  vk_fence *f[2] = {start, end};
  uint64_t t[2];
  int st = vk_enter(c);
  if (st != PT_OK) return st;
  if (f[0]->slot < 0 || f[1]->slot < 0)
    return pt_error(PT_EUNSUPPORTED, "vulkan: device %d (%s) wrote no timestamp for %s fence (no timestamp queries on its "
                    "compute queue, or all %d slots were taken)", c->index, c->ph->name, f[0]->slot < 0 ? "the start" : "the end",
                    VK_QUERIES);
  for (int i = 0; i < 2; i++) {
    uint64_t v = 0;
    VkResult r = c->d.vkGetSemaphoreCounterValue(c->dev, f[i]->q->sem, &v);
    if (r != VK_SUCCESS) return vk_fail(c, "vkGetSemaphoreCounterValue", r);
    if (v < f[i]->value)
      return pt_error(PT_EINVAL, "vulkan: fence timing needs both fences passed; wait for the later one first");
    r = c->d.vkGetQueryPoolResults(c->dev, c->qpool, (uint32_t)f[i]->slot, 1, sizeof t[i], &t[i], sizeof t[i], VK_QUERY_RESULT_64_BIT);
    if (r != VK_SUCCESS) return r == VK_NOT_READY ? pt_error(PT_EINVAL, "vulkan: a fence's timestamp is not ready") : vk_fail(c, "vkGetQueryPoolResults", r);
  }
  uint64_t mask = c->ph->ts_bits >= 64 ? ~0ull : (1ull << c->ph->ts_bits) - 1;
  uint64_t d = (t[1] - t[0]) & mask; /* the counter may wrap within its valid bits */
  double ns = (double)d * (double)c->ph->ts_period;
  if (t[1] < t[0] && (t[0] - t[1]) < (mask >> 1)) ns = -(double)(t[0] - t[1]) * (double)c->ph->ts_period; /* end before start */
  return ns / 1e6;
}

void vk_fence_free(void *ctx, void *fence) {
  vk_ctx *c = ctx;
  vk_fence *f = fence;
  pt_mutex_lock(&c->lock);
  if (f->slot >= 0) c->qused[f->slot] = 0;
  vkq_unref(c, f->q);
  pt_mutex_unlock(&c->lock);
  pt_outcome_free(&f->out);
  free(f);
}
