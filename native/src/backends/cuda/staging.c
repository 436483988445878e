/* staging.c: the pinned ring that host<->device copies go through.
 *
 * Ownership and ordering. Each cuda_ctx owns one ring, shared by its queues: four 8 MiB
 * slots of pinned memory (32 MiB, one cuMemHostAlloc on the first copy), each with an
 * event. 8 MiB keeps a chunk's fixed cost (the copy's launch, an event record and wait) to
 * a few percent of its DMA time, and four slots let one read keep two chunks in flight
 * while the others absorb writes from other queues or a burst of small writes. A slot is
 * busy while one call fills or drains it (its memory then belongs to that thread, used
 * outside the lock), and pending once a copy from or into it is queued: its event,
 * recorded on the copy's stream right after it, must pass before the slot's memory is
 * touched again. The busy, pending, stream and stamp fields sit under ctx->lock; cu_fail
 * is never called with it held. A write copies the caller's bytes into slots, queues
 * cuMemcpyHtoDAsync from them and returns without waiting: the caller's memory is not kept
 * (docs/architecture.md, FFI boundary), stream order puts the queue's later work after the
 * upload, and the core stamps the buffer as written by the queue, as it does for a launch.
 * Large writes cycle through the slots, so the memcpy of one chunk overlaps the DMA of the
 * one before. A read queues up to two chunks ahead, waits for the oldest one's event and
 * copies it out while the next one's DMA runs. A slot is claimed when free or passed
 * (cuEventQuery), else the oldest pending on the caller's own stream is waited for (its
 * copy is ahead of the caller's anyway); when none qualifies, the call leaves the rest to
 * the caller, which copies directly as before the ring existed, rather than wait behind
 * another queue's work. Without cuMemHostAlloc, or when the pinned allocation fails, there
 * is no ring and every copy is direct. shutdown frees the ring after its last copies, even
 * when the context was lost.
 */
#include <string.h>
#include "cuda.h"

enum { RING_NONE = 0, RING_READY = 1, RING_MAKING = 2, RING_OFF = -1 };

/* 1 when the ring is there, making it on first use. Pinning 32 MiB takes milliseconds,
 * so it happens outside the lock; copies arriving meanwhile go direct. */
static int ring_ready(cuda_ctx *c) {
  pt_mutex_lock(&c->lock);
  int state = c->stage_state;
  if (state == RING_NONE) c->stage_state = RING_MAKING;
  pt_mutex_unlock(&c->lock);
  if (state != RING_NONE) return state == RING_READY;
  void *base = NULL;
  CUevent ev[PT_CUDA_STAGE_SLOTS] = {0};
  int made = 0, ok = cu.MemHostAlloc && cu.MemFreeHost &&
                     cu.MemHostAlloc(&base, PT_CUDA_STAGE_SLOTS * PT_CUDA_STAGE_BYTES, 0) == CUDA_SUCCESS;
  while (ok && made < PT_CUDA_STAGE_SLOTS)
    if (cu.EventCreate(&ev[made], CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS) made++;
    else ok = 0;
  if (!ok) {
    while (made > 0) cu.EventDestroy(ev[--made]);
    if (base) cu.MemFreeHost(base);
    base = NULL;
  }
  pt_mutex_lock(&c->lock);
  c->stage_base = base;
  for (int i = 0; ok && i < PT_CUDA_STAGE_SLOTS; i++)
    c->stage[i] = (cuda_slot){(char *)base + (size_t)i * PT_CUDA_STAGE_BYTES, ev[i], NULL, 0, 0, 0};
  c->stage_state = ok ? RING_READY : RING_OFF; /* a failure is not retried: copies stay direct */
  pt_mutex_unlock(&c->lock);
  return ok;
}

/* Hands a slot back: pending on s (its event was just recorded there), or free (s NULL). */
static void put(cuda_ctx *c, int i, CUstream s) {
  pt_mutex_lock(&c->lock);
  cuda_slot *t = &c->stage[i];
  t->busy = 0;
  t->pending = s != NULL;
  if (s) { t->s = s; t->stamp = ++c->stage_stamp; }
  pt_mutex_unlock(&c->lock);
}

/* Claims a slot for a copy on stream s: *slot is its index, or -1 when none can be had
 * without waiting behind another stream's work. */
static int claim(cuda_ctx *c, CUstream s, int *slot) {
  int pick = -1, own = -1;
  pt_mutex_lock(&c->lock);
  for (int i = 0; i < PT_CUDA_STAGE_SLOTS && pick < 0; i++) {
    cuda_slot *t = &c->stage[i];
    if (t->busy) continue;
    if (!t->pending || cu.EventQuery(t->ev) == CUDA_SUCCESS) pick = i; /* a failed query counts as not passed */
    else if (t->s == s && (own < 0 || t->stamp < c->stage[own].stamp)) own = i;
  }
  int wait = pick < 0 && own >= 0;
  if (wait) pick = own;
  if (pick >= 0) c->stage[pick].busy = 1;
  pt_mutex_unlock(&c->lock);
  *slot = pick;
  if (!wait) return PT_OK;
  CUresult r = cu.EventSynchronize(c->stage[pick].ev);
  if (r == CUDA_SUCCESS) return PT_OK;
  pt_mutex_lock(&c->lock);
  c->stage[pick].busy = 0; /* still pending: the next claimer waits again */
  pt_mutex_unlock(&c->lock);
  *slot = -1;
  return cu_fail_for(c, CU_NAME(EventSynchronize), "staging slot", r);
}

int cuda_stage_write(cuda_ctx *c, CUstream s, CUdeviceptr dst, const void *src, size_t n, size_t *done) {
  *done = 0;
  if (n == 0 || !ring_ready(c)) return PT_OK;
  while (*done < n) {
    int i, st = claim(c, s, &i);
    if (st != PT_OK || i < 0) return st;
    cuda_slot *t = &c->stage[i];
    size_t len = n - *done < PT_CUDA_STAGE_BYTES ? n - *done : PT_CUDA_STAGE_BYTES;
    memcpy(t->host, (const char *)src + *done, len);
    const char *fn = CU_NAME(MemcpyHtoDAsync), *what = "staged";
    CUresult r = cu.MemcpyHtoDAsync(dst + *done, t->host, len, s);
    if (r == CUDA_SUCCESS && (r = cu.EventRecord(t->ev, s)) != CUDA_SUCCESS) {
      fn = CU_NAME(EventRecord), what = "staging slot";
      cu.StreamSynchronize(s); /* the copy is queued but has no event: let it land first */
    }
    if (r != CUDA_SUCCESS) {
      put(c, i, NULL);
      return cu_fail_for(c, fn, what, r);
    }
    put(c, i, s);
    *done += len;
  }
  return PT_OK;
}

int cuda_stage_read(cuda_ctx *c, CUstream s, void *dst, CUdeviceptr src, size_t n, size_t *done) {
  *done = 0;
  if (n == 0 || !ring_ready(c)) return PT_OK;
  int fly[2] = {-1, -1}, nf = 0, st = PT_OK; /* slots with a chunk queued, oldest first; the first one's starts at *done */
  size_t len[2] = {0, 0}, queued = 0;
  while (*done < n) {
    while (queued < n && nf < 2) {
      int i;
      if ((st = claim(c, s, &i)) != PT_OK) goto out;
      if (i < 0) break; /* none to be had: go on with what is queued */
      size_t l = n - queued < PT_CUDA_STAGE_BYTES ? n - queued : PT_CUDA_STAGE_BYTES;
      const char *fn = CU_NAME(MemcpyDtoHAsync), *what = "staged";
      CUresult r = cu.MemcpyDtoHAsync(c->stage[i].host, src + queued, l, s);
      if (r == CUDA_SUCCESS && (r = cu.EventRecord(c->stage[i].ev, s)) != CUDA_SUCCESS) {
        fn = CU_NAME(EventRecord), what = "staging slot";
        cu.StreamSynchronize(s);
      }
      if (r != CUDA_SUCCESS) {
        put(c, i, NULL);
        st = cu_fail_for(c, fn, what, r);
        goto out;
      }
      fly[nf] = i;
      len[nf++] = l;
      queued += l;
    }
    if (nf == 0) return PT_OK; /* no slot at all: the caller reads the rest directly */
    cuda_slot *t = &c->stage[fly[0]];
    CUresult r = cu.EventSynchronize(t->ev); /* also waits for the queue's work before the read */
    if (r != CUDA_SUCCESS) {
      st = cu_fail_for(c, CU_NAME(EventSynchronize), "staged read", r);
      goto out;
    }
    memcpy((char *)dst + *done, t->host, len[0]); /* the next chunk's DMA, if queued, runs meanwhile */
    put(c, fly[0], NULL);
    *done += len[0];
    fly[0] = fly[1];
    len[0] = len[1];
    nf--;
  }
out:
  for (int k = 0; k < nf; k++) put(c, fly[k], s); /* their copies may still land: pending */
  return st;
}

void cuda_stage_free(cuda_ctx *c) {
  if (c->stage_state != RING_READY) return;
  for (int i = 0; i < PT_CUDA_STAGE_SLOTS; i++) {
    /* No DMA from or into freed memory. On a lost context the wait fails at once (its work
     * is gone), and the frees below may fail too: the reset that follows reclaims both. */
    if (c->stage[i].pending) cu.EventSynchronize(c->stage[i].ev);
    cu.EventDestroy(c->stage[i].ev);
  }
  cu.MemFreeHost(c->stage_base);
  c->stage_base = NULL;
  c->stage_state = RING_NONE;
}
