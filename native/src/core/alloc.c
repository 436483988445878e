/* alloc.c: the caching allocator above each driver's exact raw allocation.
 *
 * Sizes round up (512 B steps to 1 MiB, 2 MiB steps above) so that freed blocks match
 * later requests of similar size; a freed block waits in its device's cache for a request
 * of the same rounded size. On out-of-memory the cache is returned to the driver and the
 * allocation retried once, because cached blocks are the likeliest cause of a false OOM.
 * A block carries the stamp of the queue that last used it through the cache, so whoever
 * gets it next on another queue is ordered after that use (the end of this file; core.h).
 * Called with the core lock held.
 */
#include <stdint.h>
#include <stdlib.h>
#include "core.h"

static size_t round_size(size_t n) {
  if (n <= PT_SMALL_LIMIT) return n == 0 ? PT_SMALL_ROUND : (n + PT_SMALL_ROUND - 1) / PT_SMALL_ROUND * PT_SMALL_ROUND;
  return (n + PT_LARGE_ROUND - 1) / PT_LARGE_ROUND * PT_LARGE_ROUND;
}

static pt_block *cache_take(pt_alloc *a, size_t size) {
  pt_block **p = size <= PT_SMALL_LIMIT ? &a->small[size / PT_SMALL_ROUND] : &a->large;
  for (; *p; p = &(*p)->next) {
    if ((*p)->size != size) continue;
    pt_block *b = *p;
    *p = b->next;
    a->cached -= b->size;
    return b;
  }
  return NULL;
}

static void release_list(pt_dev *d, pt_block **list) {
  while (*list) {
    pt_block *b = *list;
    *list = b->next;
    d->alloc.cached -= b->size;
    d->drv->free(d->ctx, b->mem);
    free(b);
  }
}

void pt_alloc_trim(pt_dev *d) {
  for (size_t i = 0; i < PT_SMALL_BUCKETS; i++) release_list(d, &d->alloc.small[i]);
  release_list(d, &d->alloc.large);
}

static void note_use(pt_alloc *a, size_t size) {
  a->in_use += size;
  if (a->in_use > a->peak) a->peak = a->in_use;
  a->allocs++;
}

int pt_alloc_get(pt_dev *d, size_t bytes, pt_block **out) {
  pt_alloc *a = &d->alloc;
  if (bytes > SIZE_MAX - PT_LARGE_ROUND)
    return pt_error(PT_EOOM, "out of memory on %s device %d: %zu bytes asked", d->drv->name, d->index, bytes);
  size_t size = round_size(bytes);
  pt_block *b = cache_take(a, size);
  if (b) {
    a->hits++;
    note_use(a, size);
    *out = b;
    return PT_OK;
  }
  b = malloc(sizeof *b);
  if (!b) return pt_error(PT_EOOM, "out of host memory for a block record");
  *b = (pt_block){.size = size};
  size_t held = a->cached;
  int st = d->drv->alloc(d->ctx, size, &b->mem, &b->host);
  if (st == PT_EOOM && held > 0) {
    pt_alloc_trim(d);
    st = d->drv->alloc(d->ctx, size, &b->mem, &b->host);
  }
  if (st != PT_OK) {
    free(b);
    if (st != PT_EOOM) return pt_error_prefix(st, "allocating %zu bytes on %s device %d", bytes, d->drv->name, d->index);
    size_t fr = 0, total = 0;
    int known = d->drv->mem_info && d->drv->mem_info(d->ctx, &fr, &total) == PT_OK;
    if (!known)
      return pt_error(PT_EOOM, "out of memory on %s device %d: %zu bytes asked (%zu rounded), free/total unknown, "
                      "the cache held %zu bytes (trimmed and retried)", d->drv->name, d->index, bytes, size, held);
    return pt_error(PT_EOOM, "out of memory on %s device %d: %zu bytes asked (%zu rounded), %zu bytes free of %zu total, "
                    "the cache held %zu bytes (trimmed and retried)", d->drv->name, d->index, bytes, size, fr, total, held);
  }
  a->driver_allocs++;
  note_use(a, size);
  *out = b;
  return PT_OK;
}

void pt_alloc_put(pt_dev *d, pt_block *b) {
  pt_alloc *a = &d->alloc;
  a->in_use -= b->size;
  a->frees++;
  /* Host memory rarely reports OOM (overcommit), so the trim-on-OOM path alone would let
   * a cache of many distinct sizes grow without bound: past the limit, give blocks back. */
  if (a->cached + b->size > a->cache_limit) {
    d->drv->free(d->ctx, b->mem);
    free(b);
    return;
  }
  pt_block **list = b->size <= PT_SMALL_LIMIT ? &a->small[b->size / PT_SMALL_ROUND] : &a->large;
  b->next = *list;
  *list = b;
  a->cached += b->size;
}

void pt_alloc_stats(const pt_dev *d, double *f) {
  const pt_alloc *a = &d->alloc;
  f[PT_MEM_IN_USE] = (double)a->in_use;
  f[PT_MEM_CACHED] = (double)a->cached;
  f[PT_MEM_PEAK] = (double)a->peak;
  f[PT_MEM_ALLOCS] = a->allocs;
  f[PT_MEM_FREES] = a->frees;
  f[PT_MEM_CACHE_HITS] = a->hits;
  f[PT_MEM_DRIVER_ALLOCS] = a->driver_allocs;
  f[PT_MEM_QUEUE_WAITS] = a->queue_waits;
}

/* ---- block reuse across queues (core.h says what the stamps mean) ----------------------
 *
 * A device-side wait (fence_record on the other queue, queue_wait on this one) costs the
 * host nothing. Where a driver lacks queue_wait, or this queue's driver is recording a
 * capture (a wait on outside work must not go into the step), the wait is made on the host
 * with fence_wait; without fence_record, with sync. All in-tree drivers have both hooks, so
 * those host waits (made under the core lock) are a fallback, never the common path.
 */

static uint64_t queue_ids; /* under the lock; ids start at 1 and are never reused */

void pt_queue_link(pt_dev *d, pt_queue *q) {
  q->id = ++queue_ids;
  q->next = d->queues;
  d->queues = q;
}

static int waits_for(const pt_queue *q, uint64_t qid, uint64_t seq) {
  for (int i = 0; i < PT_WAITED; i++)
    if (q->waited[i].qid == qid && q->waited[i].seq >= seq) return 1;
  return 0;
}

void pt_queue_note_wait(pt_queue *q, uint64_t qid, uint64_t seq) {
  if (qid == 0 || qid == q->id) return;
  int i = 0;
  while (i < PT_WAITED && q->waited[i].qid != qid) i++;
  if (i == PT_WAITED) { /* forget the oldest: at worst a later use waits once more */
    i = q->wnext;
    q->wnext = (q->wnext + 1) % PT_WAITED;
    q->waited[i].qid = qid;
    q->waited[i].seq = 0;
  }
  if (q->waited[i].seq < seq) q->waited[i].seq = seq;
}

/* Makes q wait for everything a has been given so far. While a's driver records a capture
 * its stream must not get a fence: the one recorded before the capture began covers all of
 * a's work that runs before the step (captured work runs only when the step is launched). */
static int wait_for(pt_queue *q, pt_queue *a) {
  pt_dev *d = q->o.dev;
  const pt_driver *drv = d->drv;
  uint64_t upto = a->seq;
  void *f = a->pre;
  int st = PT_OK, own = !f && drv->fence_record && drv->fence_free;
  if (own) st = drv->fence_record(d->ctx, a->q, &f);
  if (st != PT_OK) return st;
  if (!f) st = drv->sync(d->ctx, a->q);
  else if (drv->queue_wait && !q->pre) st = drv->queue_wait(d->ctx, q->q, f);
  else st = drv->fence_wait(d->ctx, f);
  if (own) drv->fence_free(d->ctx, f);
  if (st == PT_OK) pt_queue_note_wait(q, a->id, upto);
  return st;
}

int pt_block_order_slow(pt_queue *q, const pt_block *b) {
  pt_dev *d = q->o.dev;
  pt_queue *a = d->queues;
  uint64_t seq = b->qseq;
  while (a && a->id != b->qid) a = a->next;
  if (!a) { /* gone: the default queue waited for its work when it went */
    a = d->q0;
    seq = d->dead_seq;
  }
  if (!a || a == q || waits_for(q, a->id, seq)) return PT_OK;
  d->alloc.queue_waits++;
  return wait_for(q, a);
}

void pt_queue_unlink(pt_queue *q) {
  pt_dev *d = q->o.dev;
  for (pt_queue **p = &d->queues; *p; p = &(*p)->next)
    if (*p == q) { *p = q->next; break; }
  pt_queue *q0 = d->q0;
  if (!d->closing && q0 && q0 != q && q->seq > 0) {
    /* Blocks it stamped now count as q0's at dead_seq (pt_block_order_slow), so q0 must be
     * after its work; failing a device-side wait, wait on the host. A close needs none of
     * this: it waits for every queue before any memory goes back to the driver. */
    if (!waits_for(q0, q->id, q->seq) && wait_for(q0, q) != PT_OK) d->drv->sync(d->ctx, q->q);
    d->dead_seq = ++q0->seq; /* past every fence recorded on q0 before the wait */
  }
  if (q == q0) d->q0 = NULL;
  if (q->pre) d->drv->fence_free(d->ctx, q->pre);
  q->pre = NULL;
}
